/*
 * testserver.h - the one harness of the loopback suites (check_server,
 * check_accounts, check_offers, check_recovery): the real bitarenad
 * ($BITARENAD) started on a free port of 127.0.0.1 or a given address
 * (--port-file tells which) with a data directory the test chooses or a fresh
 * one of its own, stopped with SIGTERM (must exit 0) or killed with SIGKILL;
 * clients on the client library's line client (clients/net.h) that write raw
 * bytes or lines, read lines with a bounded wait and match them as a JSON
 * subset or a shell glob (match.h); and the steps every suite takes: join as a
 * guest or register, start a game from a seek (every answer checked, or up to
 * the first states), play a move.
 * Header-only; test code only.
 */
#ifndef BITARENA_TESTS_TESTSERVER_H
#define BITARENA_TESTS_TESTSERVER_H

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fnmatch.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "match.h"
#include "lib/net.h"
#include "tmpdir.h"

#define TS_LINE_WAIT_MS 10000

struct ts_srv {
	pid_t pid;
	int port;
	char portfile[256];
	char datadir[256]; /* ts_up's fresh data directory, removed by ts_down */
};

static inline void ts_msleep(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/*
 * Starts bitarenad listening on listen (NULL: 127.0.0.1 on a free port) with
 * --data datadir --fast-hash and extra arguments; waits until the port file
 * names its port.
 */
static inline void ts_start_at(struct ts_srv *s, const char *listen, const char *datadir,
                               const char *const *extra, int nextra)
{
	const char *bin = getenv("BITARENAD");
	ck_assert_msg(bin != NULL, "BITARENAD is not set (run through make check)");
	const char *tmp = getenv("TMPDIR");
	snprintf(s->portfile, sizeof s->portfile, "%s/bitarenad-port.XXXXXX",
	         tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(s->portfile);
	ck_assert_int_ge(fd, 0);
	close(fd);
	unlink(s->portfile);
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
	s->port = 0;
	for (int i = 0; i < 3000 && s->port == 0; i++) {
		FILE *f = fopen(s->portfile, "r");
		if (f != NULL) {
			if (fscanf(f, "%d", &s->port) != 1)
				s->port = 0;
			fclose(f);
		}
		if (s->port == 0) {
			int st;
			ck_assert_msg(waitpid(s->pid, &st, WNOHANG) == 0,
			              "bitarenad exited at start");
			ts_msleep(10);
		}
	}
	ck_assert_int_gt(s->port, 0);
}

/*
 * The port another listener of s wrote to path (--playtak-port-file, ...),
 * waited for as the main one is.
 */
static inline int ts_port_file(struct ts_srv *s, const char *path)
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
	unlink(path);
	return port;
}

/* A temporary file name for a port file (not created). */
static inline void ts_port_path(char *buf, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(buf, len, "%s/bitarenad-port.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(buf);
	ck_assert_int_ge(fd, 0);
	close(fd);
	unlink(buf);
}

/* ts_start_at() on 127.0.0.1, a free port. */
static inline void ts_start(struct ts_srv *s, const char *datadir, const char *const *extra,
                            int nextra)
{
	ts_start_at(s, NULL, datadir, extra, nextra);
}

/* ts_start_at() with a fresh data directory of its own (s->datadir; ts_down removes it). */
static inline void ts_up_at(struct ts_srv *s, const char *listen, const char *const *extra,
                            int nextra)
{
	tmpdir_make(s->datadir, sizeof s->datadir, "bitarenad-data");
	ts_start_at(s, listen, s->datadir, extra, nextra);
}

static inline void ts_up(struct ts_srv *s, const char *const *extra, int nextra)
{
	ts_up_at(s, NULL, extra, nextra);
}

/* ts_up() with the extra arguments as a NULL-terminated list (at most 16). */
static inline void ts_up_list(struct ts_srv *s, ...)
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
static inline int ts_term(struct ts_srv *s)
{
	int st = 0;
	ck_assert_int_eq(kill(s->pid, SIGTERM), 0);
	ck_assert_int_eq(waitpid(s->pid, &st, 0), s->pid);
	unlink(s->portfile);
	return st;
}

/* SIGTERM; the server must exit 0 (clean shutdown, every handle closed). */
static inline void ts_stop(struct ts_srv *s)
{
	int st = ts_term(s);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "bitarenad exit status %d", st);
}

/* ts_stop() for a server of ts_up(): its data directory goes too (before the exit check). */
static inline void ts_down(struct ts_srv *s)
{
	int st = ts_term(s);
	tmpdir_remove(s->datadir);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "bitarenad exit status %d", st);
}

/* SIGKILL: no shutdown of any kind, as in a crash. */
static inline void ts_kill9(struct ts_srv *s)
{
	int st = 0;
	ck_assert_int_eq(kill(s->pid, SIGKILL), 0);
	ck_assert_int_eq(waitpid(s->pid, &st, 0), s->pid);
	unlink(s->portfile);
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
}

/* A client: the client library's line client (clients/net.h) with the harness's waits. */
struct ts_cli {
	struct net_conn nc;
	char token[32]; /* ts_join: the guest's token (its seats come back with it) */
};

/* Takes an open, connected socket as c (tests that set socket options first). */
static inline void ts_open_fd(struct ts_cli *c, int fd)
{
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(net_open_fd(&c->nc, fd, 0), NET_OK);
}

static inline void ts_open(struct ts_cli *c, int port)
{
	char addr[32], err[256] = "";
	snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
	int r = net_connect(&c->nc, addr, 0, TS_LINE_WAIT_MS, err, sizeof err);
	ck_assert_msg(r == NET_OK, "%s", err);
}

/* ts_open() from the loopback address from (127.0.0.2, ...: the server sees another address). */
static inline void ts_open_from(struct ts_cli *c, int port, const char *from)
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

static inline int ts_fd(const struct ts_cli *c)
{
	return c->nc.fd;
}

static inline void ts_close(struct ts_cli *c)
{
	net_close(&c->nc);
}

/* Writes n raw bytes (no newline added). */
static inline void ts_write(struct ts_cli *c, const void *data, size_t n)
{
	int r = net_send_raw(&c->nc, data, n);
	ck_assert_msg(r == NET_OK, "write: %s", net_strerror(r));
}

/* Writes one line (printf format; the newline is added; the text is sent as it is). */
static void ts_send(struct ts_cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ts_send(struct ts_cli *c, const char *fmt, ...)
{
	char line[8192];
	va_list ap;
	va_start(ap, fmt);
	size_t n = ts_format_line(line, sizeof line, fmt, ap);
	va_end(ap);
	ts_write(c, line, n);
}

/* The next line (malloc'd, without its newline), or NULL at EOF or after wait_ms. */
static inline char *ts_line_within(struct ts_cli *c, int wait_ms)
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

/* The next line (malloc'd, without its newline), or NULL at EOF or after the wait. */
static inline char *ts_line(struct ts_cli *c)
{
	return ts_line_within(c, TS_LINE_WAIT_MS);
}

/* Reads what has arrived without waiting; true if a line containing needle was among it. */
static inline bool ts_drain(struct ts_cli *c, const char *needle)
{
	bool seen = false;
	char *l;
	int n;
	while ((n = net_read_line(&c->nc, 0, &l)) >= 0 || n == NET_ETOOLONG)
		seen |= n >= 0 && strstr(l, needle) != NULL;
	return seen;
}

/* True when the server closes c within the wait; lines before the end are skipped. */
static inline bool ts_eof(struct ts_cli *c)
{
	char *l;
	int n;
	while ((n = net_read_line(&c->nc, TS_LINE_WAIT_MS, &l)) >= 0)
		;
	return n == NET_ECLOSED;
}

/* The next line must match pattern; returns it parsed when JSON (caller frees). */
static inline cJSON *ts_expect(struct ts_cli *c, const char *pattern)
{
	char *l = ts_line(c);
	ck_assert_msg(l != NULL, "no line; expected %s", pattern);
	ck_assert_msg(ts_match(pattern, l), "expected %s\n     got %s", pattern, l);
	cJSON *j = cJSON_Parse(l);
	free(l);
	return j;
}

static inline void ts_expect0(struct ts_cli *c, const char *pattern)
{
	cJSON_Delete(ts_expect(c, pattern));
}

/* ts_expect() with a printf pattern. */
static inline cJSON *ts_expectf(struct ts_cli *c, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
static inline cJSON *ts_expectf(struct ts_cli *c, const char *fmt, ...)
{
	char pat[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pat, sizeof pat, fmt, ap);
	va_end(ap);
	return ts_expect(c, pat);
}

/* Skips lines until one matches pattern, each within wait_ms; returns it parsed when JSON
   (caller frees). */
static inline cJSON *ts_until_within(struct ts_cli *c, const char *pattern, int wait_ms)
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

/* Skips lines until one matches pattern; returns it parsed when JSON (caller frees). */
static inline cJSON *ts_until(struct ts_cli *c, const char *pattern)
{
	return ts_until_within(c, pattern, TS_LINE_WAIT_MS);
}

static inline void ts_until0(struct ts_cli *c, const char *pattern)
{
	cJSON_Delete(ts_until(c, pattern));
}

/* ts_until() with a printf pattern. */
static inline cJSON *ts_untilf(struct ts_cli *c, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
static inline cJSON *ts_untilf(struct ts_cli *c, const char *fmt, ...)
{
	char pat[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pat, sizeof pat, fmt, ap);
	va_end(ap);
	return ts_until(c, pat);
}

/* Connects, checks the welcome, switches to JSON. */
static inline void ts_connect_json(struct ts_cli *c, int port)
{
	ts_open(c, port);
	ts_expect0(c, "bitarenad * ready*");
	ts_send(c, "set format json");
	ts_expect0(c, "{\"type\":\"ok\",\"cmd\":\"set\",\"format\":\"json\"}");
}

/* Connects, checks the welcome, switches to JSON, logs in as the guest name. */
static inline void ts_join(struct ts_cli *c, int port, const char *name)
{
	ts_connect_json(c, port);
	ts_send(c, "login %s", name);
	cJSON *ok = ts_expect(c, "{\"type\":\"ok\",\"cmd\":\"login\",\"guest\":true}");
	snprintf(c->token, sizeof c->token, "%s", ts_jstr(ok, "token"));
	cJSON_Delete(ok);
}

/* c (a guest ts_join() logged in, since closed) comes back as name with its token. */
static inline void ts_rejoin(struct ts_cli *c, int port, const char *name)
{
	char token[sizeof c->token];
	snprintf(token, sizeof token, "%s", c->token);
	ts_connect_json(c, port);
	ts_send(c, "login %s %s", name, token);
	ts_expect0(c, "{\"type\":\"ok\",\"cmd\":\"login\",\"guest\":true}");
	snprintf(c->token, sizeof c->token, "%s", token);
}

/* A new connection in JSON registered (and so logged in) to the account name. */
static inline void ts_register(struct ts_cli *c, int port, const char *name, const char *pw)
{
	ts_connect_json(c, port);
	ts_send(c, "register %s %s", name, pw);
	cJSON_Delete(ts_expectf(
	        c, "{\"type\":\"ok\",\"cmd\":\"register\",\"name\":\"%s\",\"guest\":false}", name));
}

/* The next line is the error code (an answer to the last command). */
static inline void ts_expect_err(struct ts_cli *c, const char *code)
{
	cJSON_Delete(ts_expectf(c, "{\"type\":\"error\",\"code\":\"%s\"}", code));
}

/*
 * a seeks kind_opts as the first seat; b waits for the seek's notice and
 * accepts it. The answers to the accept are the caller's to read.
 */
static inline void ts_seek_accept(struct ts_cli *a, struct ts_cli *b, const char *kind_opts)
{
	ts_send(a, "seek %s color=first", kind_opts);
	cJSON *ok = ts_expect(a, "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	int seek = ts_jint(cJSON_GetObjectItem(ok, "seek"), "id");
	cJSON_Delete(ok);
	ts_until0(b, "{\"type\":\"seek\",\"event\":\"new\"}");
	ts_send(b, "accept %d", seek);
}

/*
 * ts_seek_accept(), then the exact answers: b's ok and the seek gone, game_start
 * and the first state to both. Returns the game id; *first (may be NULL) gets
 * a's first state (caller frees).
 */
static inline int ts_start_game(struct ts_cli *a, struct ts_cli *b, const char *kind_opts,
                                cJSON **first)
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

/*
 * ts_seek_accept(), then both read up to their first state, skipping what
 * comes between (unlike ts_start_game). Returns the game id.
 */
static inline int ts_begin_game(struct ts_cli *a, struct ts_cli *b, const char *kind_opts)
{
	ts_seek_accept(a, b, kind_opts);
	cJSON *acc = ts_until(b, "{\"type\":\"ok\",\"cmd\":\"accept\"}");
	int id = ts_jint(acc, "game");
	cJSON_Delete(acc);
	ts_until0(a, "{\"type\":\"state\",\"seq\":1,\"seat\":0}");
	ts_until0(b, "{\"type\":\"state\",\"seq\":1,\"seat\":1}");
	return id;
}

/*
 * mover plays text in game id: its ok, then the new state to both (lines
 * between skipped). Returns mover's state (caller frees).
 */
static inline cJSON *ts_play(struct ts_cli *mover, struct ts_cli *other, int id, const char *text)
{
	ts_send(mover, "move %d %s", id, text);
	cJSON_Delete(ts_untilf(mover, "{\"type\":\"ok\",\"cmd\":\"move\",\"move\":\"%s\"}", text));
	cJSON *st = ts_until(mover, "{\"type\":\"state\"}");
	ts_until0(other, "{\"type\":\"state\"}");
	return st;
}

#endif
