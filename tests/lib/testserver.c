/*
 * testserver.c - the loopback harness: the real bitarenad as a child process, line
 * clients on the client library, the steps every loopback suite takes (testserver.h).
 */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testserver.h"

void ts_msleep(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* The port s's bitarenad writes to path, waited for; the server must not exit meanwhile. */
static int port_wait(struct ts_srv *s, const char *path)
{
	int port = 0;
	for (int i = 0; i < 3000 && port == 0; i++) {
		FILE *f = fopen(path, "r");
		if (f != NULL) {
			if (fscanf(f, "%d", &port) != 1)
				port = 0;
			fclose(f);
		}
		if (port == 0) {
			int st;
			ck_assert_msg(waitpid(s->pid, &st, WNOHANG) == 0,
			              "bitarenad exited at start");
			ts_msleep(10);
		}
	}
	ck_assert_int_gt(port, 0);
	return port;
}

int ts_port_file(struct ts_srv *s, const char *path)
{
	int port = port_wait(s, path);
	unlink(path);
	return port;
}

void ts_port_path(char *buf, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(buf, len, "%s/bitarenad-port.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(buf);
	ck_assert_int_ge(fd, 0);
	close(fd);
	unlink(buf);
}

/*
 * Starts bitarenad listening on listen (NULL: 127.0.0.1 on a free port) with
 * --data datadir --fast-hash and extra arguments; waits until the port file
 * names its port.
 */
static void ts_start_at(struct ts_srv *s, const char *listen, const char *datadir,
                        const char *const *extra, int nextra)
{
	const char *bin = getenv("BITARENAD");
	ck_assert_msg(bin != NULL, "BITARENAD is not set (run through make check)");
	ts_port_path(s->portfile, sizeof s->portfile);
	const char *argv[32];
	int n = 0;
	argv[n++] = bin;
	argv[n++] = "--listen";
	argv[n++] = listen != NULL ? listen : "127.0.0.1:0";
	argv[n++] = "--port-file";
	argv[n++] = s->portfile;
	argv[n++] = "--data";
	argv[n++] = datadir;
	argv[n++] = "--fast-hash";
	for (int i = 0; i < nextra && n < 31; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	s->pid = fork();
	ck_assert_int_ge(s->pid, 0);
	if (s->pid == 0) {
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	s->port = port_wait(s, s->portfile);
}

void ts_start(struct ts_srv *s, const char *datadir, const char *const *extra, int nextra)
{
	ts_start_at(s, NULL, datadir, extra, nextra);
}

void ts_up_at(struct ts_srv *s, const char *listen, const char *const *extra, int nextra)
{
	tmpdir_make(s->datadir, sizeof s->datadir, "bitarenad-data");
	ts_start_at(s, listen, s->datadir, extra, nextra);
}

void ts_up(struct ts_srv *s, const char *const *extra, int nextra)
{
	ts_up_at(s, NULL, extra, nextra);
}

void ts_up_list(struct ts_srv *s, ...)
{
	const char *extra[16];
	int n = 0;
	va_list ap;
	va_start(ap, s);
	const char *a;
	while ((a = va_arg(ap, const char *)) != NULL && n < 16)
		extra[n++] = a;
	va_end(ap);
	ts_up(s, extra, n);
}

/* SIGTERM and the wait; returns the exit status. */
static int ts_term(struct ts_srv *s)
{
	int st = 0;
	ck_assert_int_eq(kill(s->pid, SIGTERM), 0);
	ck_assert_int_eq(waitpid(s->pid, &st, 0), s->pid);
	unlink(s->portfile);
	return st;
}

void ts_stop(struct ts_srv *s)
{
	int st = ts_term(s);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "bitarenad exit status %d", st);
}

void ts_down(struct ts_srv *s)
{
	int st = ts_term(s);
	tmpdir_remove(s->datadir);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "bitarenad exit status %d", st);
}

void ts_kill9(struct ts_srv *s)
{
	int st = 0;
	ck_assert_int_eq(kill(s->pid, SIGKILL), 0);
	ck_assert_int_eq(waitpid(s->pid, &st, 0), s->pid);
	unlink(s->portfile);
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
}

void ts_store_sql(const struct ts_srv *s, const char *sql)
{
	char path[512];
	snprintf(path, sizeof path, "%s/bitarena.db", s->datadir);
	sqlite3 *db = NULL;
	ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	sqlite3_busy_timeout(db, 10000); /* the server may be committing right now */
	char *err = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
	ck_assert_msg(rc == SQLITE_OK, "%s: %s", sql, err ? err : "?");
	ck_assert_int_eq(sqlite3_close(db), SQLITE_OK);
}

void ts_open_fd(struct ts_cli *c, int fd)
{
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(net_open_fd(&c->nc, fd, 0), NET_OK);
}

void ts_open(struct ts_cli *c, int port)
{
	char addr[32], err[256] = "";
	snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
	int r = net_connect(&c->nc, addr, 0, TS_LINE_WAIT_MS, err, sizeof err);
	ck_assert_msg(r == NET_OK, "%s", err);
}

void ts_open_rcvbuf(struct ts_cli *c, int port, int rcvbuf)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf), 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	ts_open_fd(c, fd);
}

void ts_open_from(struct ts_cli *c, int port, const char *from)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET};
	ck_assert_int_eq(inet_pton(AF_INET, from, &sa.sin_addr), 1);
	ck_assert_msg(bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0, "bind %s", from);
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_msg(connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0, "connect from %s", from);
	ts_open_fd(c, fd);
}

int ts_fd(const struct ts_cli *c)
{
	return c->nc.fd;
}

void ts_close(struct ts_cli *c)
{
	net_close(&c->nc);
}

void ts_write(struct ts_cli *c, const void *data, size_t n)
{
	int r = net_send_raw(&c->nc, data, n);
	ck_assert_msg(r == NET_OK, "write: %s", net_strerror(r));
}

void ts_send(struct ts_cli *c, const char *fmt, ...)
{
	char line[8192];
	va_list ap;
	va_start(ap, fmt);
	size_t n = ts_format_line(line, sizeof line, fmt, ap);
	va_end(ap);
	ts_write(c, line, n);
}

char *ts_line_within(struct ts_cli *c, int wait_ms)
{
	char *l;
	int n = net_read_line(&c->nc, wait_ms, &l);
	ck_assert_msg(n != NET_ETOOLONG, "line too long from the server");
	if (n < 0)
		return NULL;
	char *copy = strdup(l);
	ck_assert_ptr_nonnull(copy);
	return copy;
}

char *ts_line(struct ts_cli *c)
{
	return ts_line_within(c, TS_LINE_WAIT_MS);
}

bool ts_drain(struct ts_cli *c, const char *needle)
{
	bool seen = false;
	char *l;
	int n;
	while ((n = net_read_line(&c->nc, 0, &l)) >= 0 || n == NET_ETOOLONG)
		seen |= n >= 0 && strstr(l, needle) != NULL;
	return seen;
}

bool ts_eof(struct ts_cli *c)
{
	char *l;
	int n;
	while ((n = net_read_line(&c->nc, TS_LINE_WAIT_MS, &l)) >= 0)
		;
	return n == NET_ECLOSED;
}

cJSON *ts_expect(struct ts_cli *c, const char *pattern)
{
	char *l = ts_line(c);
	ck_assert_msg(l != NULL, "no line; expected %s", pattern);
	ck_assert_msg(ts_match(pattern, l), "expected %s\n     got %s", pattern, l);
	cJSON *j = cJSON_Parse(l);
	free(l);
	return j;
}

void ts_expect0(struct ts_cli *c, const char *pattern)
{
	cJSON_Delete(ts_expect(c, pattern));
}

cJSON *ts_expectf(struct ts_cli *c, const char *fmt, ...)
{
	char pat[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pat, sizeof pat, fmt, ap);
	va_end(ap);
	return ts_expect(c, pat);
}

cJSON *ts_until_within(struct ts_cli *c, const char *pattern, int wait_ms)
{
	for (;;) {
		char *l = ts_line_within(c, wait_ms);
		ck_assert_msg(l != NULL, "no line matching %s", pattern);
		if (ts_match(pattern, l)) {
			cJSON *j = cJSON_Parse(l);
			free(l);
			return j;
		}
		free(l);
	}
}

cJSON *ts_until(struct ts_cli *c, const char *pattern)
{
	return ts_until_within(c, pattern, TS_LINE_WAIT_MS);
}

void ts_until0(struct ts_cli *c, const char *pattern)
{
	cJSON_Delete(ts_until(c, pattern));
}

cJSON *ts_untilf(struct ts_cli *c, const char *fmt, ...)
{
	char pat[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pat, sizeof pat, fmt, ap);
	va_end(ap);
	return ts_until(c, pat);
}

void ts_connect_json(struct ts_cli *c, int port)
{
	ts_open(c, port);
	ts_expect0(c, "bitarenad * ready*");
	ts_send(c, "set format json");
	ts_expect0(c, "{\"type\":\"ok\",\"cmd\":\"set\",\"format\":\"json\"}");
}

void ts_join(struct ts_cli *c, int port, const char *name)
{
	ts_connect_json(c, port);
	ts_send(c, "login %s", name);
	cJSON *ok = ts_expect(c, "{\"type\":\"ok\",\"cmd\":\"login\",\"guest\":true}");
	snprintf(c->token, sizeof c->token, "%s", ts_jstr(ok, "token"));
	cJSON_Delete(ok);
}

void ts_rejoin(struct ts_cli *c, int port, const char *name)
{
	char token[sizeof c->token];
	snprintf(token, sizeof token, "%s", c->token);
	ts_connect_json(c, port);
	ts_send(c, "login %s %s", name, token);
	ts_expect0(c, "{\"type\":\"ok\",\"cmd\":\"login\",\"guest\":true}");
	snprintf(c->token, sizeof c->token, "%s", token);
}

void ts_register(struct ts_cli *c, int port, const char *name, const char *pw)
{
	ts_connect_json(c, port);
	ts_send(c, "register %s %s", name, pw);
	cJSON_Delete(ts_expectf(
	        c, "{\"type\":\"ok\",\"cmd\":\"register\",\"name\":\"%s\",\"guest\":false}", name));
}

void ts_expect_err(struct ts_cli *c, const char *code)
{
	cJSON_Delete(ts_expectf(c, "{\"type\":\"error\",\"code\":\"%s\"}", code));
}

void ts_seek_accept(struct ts_cli *a, struct ts_cli *b, const char *kind_opts)
{
	ts_send(a, "seek %s color=first", kind_opts);
	cJSON *ok = ts_expect(a, "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	int seek = ts_jint(cJSON_GetObjectItem(ok, "seek"), "id");
	cJSON_Delete(ok);
	ts_until0(b, "{\"type\":\"seek\",\"event\":\"new\"}");
	ts_send(b, "accept %d", seek);
}

int ts_start_game(struct ts_cli *a, struct ts_cli *b, const char *kind_opts, cJSON **first)
{
	ts_seek_accept(a, b, kind_opts);
	cJSON *acc = ts_expect(b, "{\"type\":\"ok\",\"cmd\":\"accept\"}");
	int id = ts_jint(acc, "game");
	cJSON_Delete(acc);
	ts_expect0(b, "{\"type\":\"seek\",\"event\":\"gone\"}");
	ts_expect0(a, "{\"type\":\"game_start\",\"seat\":0}");
	cJSON *st = ts_expect(a, "{\"type\":\"state\",\"seq\":1,\"ply\":0,\"seat\":0}");
	if (first != NULL)
		*first = st;
	else
		cJSON_Delete(st);
	ts_expect0(b, "{\"type\":\"game_start\",\"seat\":1}");
	ts_expect0(b, "{\"type\":\"state\",\"seq\":1,\"ply\":0,\"seat\":1}");
	return id;
}

int ts_begin_game(struct ts_cli *a, struct ts_cli *b, const char *kind_opts)
{
	ts_seek_accept(a, b, kind_opts);
	cJSON *acc = ts_until(b, "{\"type\":\"ok\",\"cmd\":\"accept\"}");
	int id = ts_jint(acc, "game");
	cJSON_Delete(acc);
	ts_until0(a, "{\"type\":\"state\",\"seq\":1,\"seat\":0}");
	ts_until0(b, "{\"type\":\"state\",\"seq\":1,\"seat\":1}");
	return id;
}

cJSON *ts_play(struct ts_cli *mover, struct ts_cli *other, int id, const char *text)
{
	ts_send(mover, "move %d %s", id, text);
	cJSON_Delete(ts_untilf(mover, "{\"type\":\"ok\",\"cmd\":\"move\",\"move\":\"%s\"}", text));
	cJSON *st = ts_until(mover, "{\"type\":\"state\"}");
	ts_until0(other, "{\"type\":\"state\"}");
	return st;
}
