/*
 * check_clients.c - tests of the client library and the `bitarena` network
 * tools: the line client of clients/net.c over socketpairs and loopback
 * sockets (partial and long lines, CRLF, end of stream, limits, addresses),
 * the dispatcher and the JSON session of clients/client.c against a scripted
 * peer, then the real programs:
 * bitarenad ($BITARENAD) started on a free loopback port and `bitarena bot`,
 * `load` and `replay` ($BITARENA) run against it as child processes, each
 * waited for with a bound so a hang fails instead of blocking the suite.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/client.h"
#include "check_main.h"

/* ---- net.c over a socketpair ------------------------------------------------------- */

static int sp[2]; /* sp[0] is wrapped by the net_conn under test, sp[1] is the peer */

static void pair_open(struct net_conn *c, size_t max_line)
{
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	ck_assert_int_eq(net_open_fd(c, sp[0], max_line), NET_OK);
}

/* Closes both ends of the pair. */
static void pair_close(struct net_conn *c)
{
	net_close(c);
	close(sp[1]);
}

static void put(const char *s)
{
	size_t n = strlen(s);
	ck_assert_int_eq(write(sp[1], s, n), (ssize_t)n);
}

static void expect_line(struct net_conn *c, const char *want)
{
	char *line = NULL;
	int n = net_read_line(c, 2000, &line);
	ck_assert_msg(n >= 0, "read failed: %s", net_strerror(n));
	ck_assert_str_eq(line, want);
	ck_assert_int_eq(n, (int)strlen(want));
}

START_TEST(net_lines_and_terminators)
{
	struct net_conn c;
	pair_open(&c, 0);
	put("hello\nworld\r\n\nlast");
	expect_line(&c, "hello");
	expect_line(&c, "world");
	expect_line(&c, "");
	char *line;
	ck_assert_int_eq(net_read_line(&c, 0, &line), NET_ETIMEOUT); /* "last" is unterminated */
	put(" one\n");
	expect_line(&c, "last one");
	ck_assert(!net_buffered(&c));
	put("x\ny\n");
	expect_line(&c, "x");
	ck_assert(net_buffered(&c));
	expect_line(&c, "y");
	pair_close(&c);
}
END_TEST

START_TEST(net_partial_reads_byte_by_byte)
{
	struct net_conn c;
	pair_open(&c, 0);
	const char *msg = "{\"type\":\"state\",\"seq\":12}\r\n";
	char *line;
	for (const char *p = msg; *p; p++) {
		ck_assert_int_eq(write(sp[1], p, 1), 1);
		if (p[1] != '\0')
			ck_assert_int_eq(net_read_line(&c, 0, &line), NET_ETIMEOUT);
	}
	expect_line(&c, "{\"type\":\"state\",\"seq\":12}");
	pair_close(&c);
}
END_TEST

START_TEST(net_long_lines)
{
	struct net_conn c;
	pair_open(&c, 16);
	char *line;
	put("0123456789abcdef\n"); /* exactly the limit */
	expect_line(&c, "0123456789abcdef");
	put("0123456789abcdefg\nnext\n"); /* one over, terminator in the same read */
	ck_assert_int_eq(net_read_line(&c, 2000, &line), NET_ETOOLONG);
	expect_line(&c, "next");
	put("0123456789abcdef\r\n"); /* CR LF after a full line is fine */
	expect_line(&c, "0123456789abcdef");
	/* far over, in pieces: reported once, the rest skipped up to the terminator */
	put("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	ck_assert_int_eq(net_read_line(&c, 2000, &line), NET_ETOOLONG);
	ck_assert_int_eq(net_read_line(&c, 0, &line), NET_ETIMEOUT);
	put("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
	ck_assert_int_eq(net_read_line(&c, 0, &line), NET_ETIMEOUT);
	put("cc\nafter\n");
	expect_line(&c, "after");
	pair_close(&c);
}
END_TEST

/* A 200 KB line written in small pieces, each read as it comes, arrives whole. */
START_TEST(net_big_line_in_pieces)
{
	struct net_conn c;
	pair_open(&c, 0);
	size_t n = 200000;
	char chunk[997], *line;
	memset(chunk, 'z', sizeof chunk);
	for (size_t sent = 0; sent < n;) {
		size_t k = n - sent < sizeof chunk ? n - sent : sizeof chunk;
		ck_assert_int_eq(write(sp[1], chunk, k), (ssize_t)k);
		sent += k;
		ck_assert_int_eq(net_read_line(&c, 0, &line), NET_ETIMEOUT);
	}
	put("\nend\n");
	int got = net_read_line(&c, 2000, &line);
	ck_assert_int_eq(got, (int)n);
	ck_assert_int_eq(line[0], 'z');
	ck_assert_int_eq(line[n - 1], 'z');
	ck_assert_int_eq(strspn(line, "z"), n);
	expect_line(&c, "end");
	pair_close(&c);
}
END_TEST

START_TEST(net_end_of_stream)
{
	struct net_conn c;
	pair_open(&c, 0);
	put("a\ntail");
	close(sp[1]);
	char *line;
	expect_line(&c, "a");
	expect_line(&c, "tail");
	ck_assert_int_eq(net_read_line(&c, 1000, &line), NET_ECLOSED);
	ck_assert_int_eq(net_read_line(&c, 1000, &line), NET_ECLOSED);
	/* writing to a closed peer is an error, not a SIGPIPE */
	ck_assert_int_lt(net_send_line(&c, "anyone?"), 0);
	net_close(&c);
	net_close(&c); /* twice is harmless */
}
END_TEST

START_TEST(net_send)
{
	struct net_conn c, peer;
	pair_open(&c, 0);
	ck_assert_int_eq(net_send_line(&c, "seek ttt"), NET_OK);
	ck_assert_int_eq(net_sendf(&c, "move %d %s", 7, "b2"), NET_OK);
	ck_assert_int_eq(net_send_line(&c, "two\nlines"), NET_EINVAL);
	ck_assert_int_eq(net_open_fd(&peer, sp[1], 0), NET_OK);
	char *line;
	ck_assert_int_eq(net_read_line(&peer, 1000, &line), 8);
	ck_assert_str_eq(line, "seek ttt");
	ck_assert_int_eq(net_read_line(&peer, 1000, &line), 9);
	ck_assert_str_eq(line, "move 7 b2");
	ck_assert_int_eq(net_read_line(&peer, 0, &line), NET_ETIMEOUT);
	net_close(&c);
	net_close(&peer);
}
END_TEST

/* A loopback listener on a port the kernel picks; returns its fd and the port. */
static int listener(int family, int *port)
{
	int fd = socket(family, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	struct sockaddr_storage ss = {0};
	socklen_t sl;
	if (family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sl = sizeof *a;
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_loopback;
		sl = sizeof *a;
	}
	if (bind(fd, (struct sockaddr *)&ss, sl) < 0 || listen(fd, 4) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
		close(fd);
		return -1;
	}
	*port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
	                                : ((struct sockaddr_in6 *)&ss)->sin6_port);
	return fd;
}

static void connect_and_talk(const char *host, int family)
{
	int port, lfd = listener(family, &port);
	if (lfd < 0 && family == AF_INET6)
		return; /* no IPv6 on this machine */
	ck_assert_int_ge(lfd, 0);
	char addr[64], err[128];
	snprintf(addr, sizeof addr, "%s:%d", host, port);
	struct net_conn c;
	ck_assert_int_eq(net_connect(&c, addr, 0, 2000, err, sizeof err), NET_OK);
	int s = accept(lfd, NULL, NULL);
	ck_assert_int_ge(s, 0);
	ck_assert_int_eq(write(s, "welcome\r\n", 9), 9);
	expect_line(&c, "welcome");
	ck_assert_int_eq(net_send_line(&c, "ping"), NET_OK);
	char buf[8];
	ck_assert_int_eq(read(s, buf, sizeof buf), 5);
	ck_assert(memcmp(buf, "ping\n", 5) == 0);
	net_close(&c);
	close(s);
	close(lfd);
}

START_TEST(net_connect_ipv4_ipv6)
{
	connect_and_talk("127.0.0.1", AF_INET);
	connect_and_talk("localhost", AF_INET);
	connect_and_talk("[::1]", AF_INET6);
}
END_TEST

START_TEST(net_connect_failures)
{
	struct net_conn c;
	char err[128];
	ck_assert_int_eq(net_connect(&c, "[::1", 0, 1000, err, sizeof err), NET_EADDR);
	ck_assert_int_eq(c.fd, -1);
	ck_assert_int_eq(net_connect(&c, "127.0.0.1:", 0, 1000, err, sizeof err), NET_EADDR);
	ck_assert_int_eq(net_connect(&c, "no-such-host.invalid:7777", 0, 3000, err, sizeof err),
	                 NET_EADDR);
	/* a bound port that does not listen refuses */
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof a;
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sl), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &sl), 0);
	char addr[32];
	snprintf(addr, sizeof addr, "127.0.0.1:%d", ntohs(a.sin_port));
	ck_assert_int_eq(net_connect(&c, addr, 0, 2000, err, sizeof err), NET_ECONNECT);
	ck_assert_msg(strstr(err, "refused") != NULL, "%s", err);
	close(fd);
}
END_TEST

/* ---- the dispatcher and the session (client.c) ----------------------------------------- */

/* What the test handlers saw, in order: one letter per call. */
struct seen {
	char calls[128];
	int n;
	int stop_on_over; /* value on_over returns */
};

static int saw(struct seen *s, char c)
{
	ck_assert_int_lt(s->n, (int)sizeof s->calls - 1);
	s->calls[s->n++] = c;
	s->calls[s->n] = '\0';
	return 0;
}

static int on_state(void *ud, const cJSON *m)
{
	ck_assert_str_eq(cli_jstr(m, "type"), "state");
	return saw(ud, 's');
}

static int on_ok_seek(void *ud, const cJSON *m)
{
	ck_assert_str_eq(cli_jstr(m, "cmd"), "seek");
	return saw(ud, 'k');
}

static int on_ok(void *ud, const cJSON *m)
{
	(void)m;
	return saw(ud, 'o');
}

static int on_over(void *ud, const cJSON *m)
{
	(void)m;
	saw(ud, 'g');
	return ((struct seen *)ud)->stop_on_over;
}

/* clang-format off */
static const struct cli_route test_routes[] = {
        {"state", NULL, on_state},
        {"ok", "seek", on_ok_seek}, /* before the row for any ok: the first match wins */
        {"ok", NULL, on_ok},
        {"game_over", NULL, on_over},
        {NULL, NULL, NULL},
};
/* clang-format on */

static int dispatch_text(struct seen *s, const char *json)
{
	cJSON *m = cJSON_Parse(json);
	ck_assert_ptr_nonnull(m);
	int r = cli_dispatch(test_routes, s, m);
	cJSON_Delete(m);
	return r;
}

START_TEST(dispatch_rows)
{
	struct seen s = {.stop_on_over = 7};
	ck_assert_int_eq(dispatch_text(&s, "{\"type\":\"state\",\"seq\":1}"), 0);
	ck_assert_int_eq(dispatch_text(&s, "{\"type\":\"ok\",\"cmd\":\"seek\"}"), 0);
	ck_assert_int_eq(dispatch_text(&s, "{\"type\":\"ok\",\"cmd\":\"seeks\"}"), 0);
	ck_assert_int_eq(dispatch_text(&s, "{\"type\":\"ok\"}"), 0);
	/* no row: nothing is called */
	ck_assert_int_eq(dispatch_text(&s, "{\"type\":\"info\"}"), 0);
	ck_assert_int_eq(dispatch_text(&s, "{\"type\":\"State\"}"), 0);
	ck_assert_int_eq(dispatch_text(&s, "{\"type\":7}"), 0);
	ck_assert_int_eq(dispatch_text(&s, "{\"kind\":\"state\"}"), 0);
	/* a handler's value comes back */
	ck_assert_int_eq(dispatch_text(&s, "{\"type\":\"game_over\"}"), 7);
	ck_assert_str_eq(s.calls, "skoog");
}
END_TEST

START_TEST(pump_batches_and_stops)
{
	struct net_conn c;
	struct seen s = {.stop_on_over = 3};
	pair_open(&c, 0);
	/* nothing there: 0 after the wait */
	ck_assert_int_eq(cli_pump(&c, "test", 50, test_routes, &s), 0);
	ck_assert_int_eq(s.n, 0);
	/* every message already there is handled in one call; lines that are not messages
	 * are skipped; a handler's nonzero value stops the pump with the rest unread */
	put("{\"type\":\"state\"}\nnot json\n[1,2]\n{\"no\":\"type\"}\n\n"
	    "{\"type\":\"ok\",\"cmd\":\"seek\"}\n{\"type\":\"game_over\"}\n{\"type\":\"state\"}\n");
	ck_assert_int_eq(cli_pump(&c, "test", 1000, test_routes, &s), 3);
	ck_assert_str_eq(s.calls, "skg");
	ck_assert(net_buffered(&c));
	s.stop_on_over = 0;
	ck_assert_int_eq(cli_pump(&c, "test", 0, test_routes, &s), 0);
	ck_assert_str_eq(s.calls, "skgs");
	/* a partial message waits for its end */
	put("{\"type\":\"st");
	ck_assert_int_eq(cli_pump(&c, "test", 0, test_routes, &s), 0);
	put("ate\"}\n");
	ck_assert_int_eq(cli_pump(&c, "test", 1000, test_routes, &s), 0);
	ck_assert_str_eq(s.calls, "skgss");
	/* more than one batch: the rest stays for the next call, nothing is lost */
	for (int i = 0; i < 40; i++)
		put("{\"type\":\"ok\"}\n{\"type\":\"ok\"}\n");
	s.n = 0;
	ck_assert_int_eq(cli_pump(&c, "test", 1000, test_routes, &s), 0);
	ck_assert_int_lt(s.n, 80);
	ck_assert_int_gt(s.n, 0);
	while (s.n < 80)
		ck_assert_int_eq(cli_pump(&c, "test", 1000, test_routes, &s), 0);
	ck_assert_int_eq(cli_pump(&c, "test", 0, test_routes, &s), 0);
	ck_assert_int_eq(s.n, 80);
	/* the end of the stream is the connection's error, after the last message */
	put("{\"type\":\"state\"}\n");
	close(sp[1]);
	s.n = 0;
	ck_assert_int_eq(cli_pump(&c, "test", 1000, test_routes, &s), NET_ECLOSED);
	ck_assert_str_eq(s.calls, "s");
	net_close(&c);
}
END_TEST

/* The scripted server of session_open: greets, takes JSON mode, refuses the first name. */
static void fake_server(int lfd, const char *const *script)
{
	int fd = accept(lfd, NULL, NULL);
	struct net_conn c;
	if (fd < 0 || net_open_fd(&c, fd, 0) < 0)
		_exit(1);
	/* script: pairs of (expected line or NULL, reply lines) */
	for (int i = 0; script[i] != NULL || script[i + 1] != NULL; i += 2) {
		char *line;
		if (script[i] != NULL &&
		    (net_read_line(&c, 5000, &line) < 0 || strcmp(line, script[i]) != 0))
			_exit(2);
		if (script[i + 1] != NULL && net_send_raw(&c, script[i + 1], strlen(script[i + 1])))
			_exit(3);
	}
	char *line;
	int r = net_read_line(&c, 5000, &line); /* the client closes: end of stream */
	_exit(r == NET_ECLOSED ? 0 : 4);
}

static int run_session(const char *const *script, const char *name, char *got, size_t len)
{
	int port, lfd = listener(AF_INET, &port);
	ck_assert_int_ge(lfd, 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		fake_server(lfd, script);
	close(lfd);
	char addr[32];
	snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
	struct net_conn c;
	int r = cli_session_open(&c, "test", addr, name, got, len, 5000);
	if (r == NET_OK)
		net_close(&c);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "fake server status %d", st);
	return r;
}

START_TEST(session_open_retries_names)
{
	static const char *const script[] = {
	        NULL,
	        "bitarenad 0.1.0 (protocol 1) ready\n",
	        "set format json",
	        "{\"type\":\"seek\",\"event\":\"new\"}\n"
	        "{\"type\":\"ok\",\"cmd\":\"set\",\"format\":\"json\"}\n",
	        "login averyveryverylon", /* cut to leave room for a suffix */
	        "{\"type\":\"error\",\"cmd\":\"login\",\"code\":\"NAME_TAKEN\",\"message\":\"x\"}"
	        "\n",
	        "login averyveryverylon2",
	        "{\"type\":\"info\"}\n{\"type\":\"ok\",\"cmd\":\"login\",\"name\":"
	        "\"Averyveryverylon2\"}\n",
	        NULL,
	        NULL};
	char got[PROTO_NAME_MAX + 1];
	ck_assert_int_eq(run_session(script, "averyveryverylongname", got, sizeof got), NET_OK);
	ck_assert_str_eq(got, "Averyveryverylon2"); /* the server's spelling */
	ck_assert_int_le(strlen(got), PROTO_NAME_MAX);
}
END_TEST

START_TEST(session_open_failures)
{
	static const char *const not_bitarenad[] = {NULL, "SSH-2.0-OpenSSH\n", NULL, NULL};
	static const char *const refused[] = {NULL,
	                                      "bitarenad 0.1.0 (protocol 1) ready\n",
	                                      "set format json",
	                                      "{\"type\":\"ok\",\"cmd\":\"set\"}\n",
	                                      "login bot",
	                                      "{\"type\":\"error\",\"cmd\":\"login\",\"code\":"
	                                      "\"NAME_REGISTERED\",\"message\":\"m\"}\n",
	                                      NULL,
	                                      NULL};
	char got[PROTO_NAME_MAX + 1];
	ck_assert_int_lt(run_session(not_bitarenad, "bot", got, sizeof got), 0);
	ck_assert_int_lt(run_session(refused, "bot", got, sizeof got), 0);
}
END_TEST

/* ---- the real programs ------------------------------------------------------------ */

static pid_t server_pid = -1;
static char server_addr[64];
static char tmpdir[] = "/tmp/check_clients.XXXXXX";

static const char *env_or_skip(const char *name)
{
	const char *v = getenv(name);
	return v != NULL && access(v, X_OK) == 0 ? v : NULL;
}

/* Starts argv with stdout and stderr to files (NULL: /dev/null). */
static pid_t spawn(const char *const argv[], const char *out, const char *err)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	int o = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int e = open(err ? err : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
		_exit(127);
	execv(argv[0], (char *const *)argv);
	_exit(127);
}

/* Waits for pid at most seconds; kills it after that. Exit status, or -1 (killed/signal). */
static int wait_bounded(pid_t pid, int seconds)
{
	struct timespec tick = {0, 20 * 1000 * 1000};
	for (int i = 0; i < seconds * 50; i++) {
		int st;
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		if (r < 0)
			return -1;
		nanosleep(&tick, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

static char *slurp(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	return buf;
}

static void tmp_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

/* A loopback port nobody listens on (bound to port 0, read back, released). */
static int free_port(void)
{
	int port, fd = listener(AF_INET, &port);
	if (fd < 0)
		return -1;
	close(fd);
	return port;
}

/* The port bitarenad wrote to its --port-file, or -1 while there is none. */
static int read_port(const char *path)
{
	FILE *f = fopen(path, "r");
	int port = -1;
	if (f != NULL) {
		if (fscanf(f, "%d", &port) != 1 || port <= 0 || port > 65535)
			port = -1;
		fclose(f);
	}
	return port;
}

/*
 * Starts bitarenad listening on listen (127.0.0.1:0: the kernel picks a port), with the data
 * directory data (NULL: a fresh one named by tag), --grace grace, files named by tag in tmpdir, and the
 * extra arguments (NULL-terminated list, may be NULL); waits until it greets (10 s at most).
 * Returns its pid with its address in addr, or -1.
 */
static pid_t launch_server_with(const char *tag, const char *listen, const char *data,
                                const char *grace, const char *const *extra, char *addr,
                                size_t addrlen)
{
	const char *bin = env_or_skip("BITARENAD");
	char log[256], portfile[256], fresh[256], name[64];
	pid_t ready = -1;
	if (bin == NULL)
		return -1;
	snprintf(name, sizeof name, "%s.log", tag);
	tmp_path(log, sizeof log, name);
	snprintf(name, sizeof name, "%s.port", tag);
	tmp_path(portfile, sizeof portfile, name);
	unlink(portfile);
	snprintf(name, sizeof name, "%s.data", tag); /* a fresh store: no games from elsewhere */
	tmp_path(fresh, sizeof fresh, name);
	const char *argv[32] = {bin,      "--listen", listen, "--port-file", portfile, "--grace",
	                        grace,    "--data",   data ? data : fresh, "--fast-hash"};
	int n = 10;
	for (int i = 0; extra != NULL && extra[i] != NULL && n < 31; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	pid_t pid = spawn(argv, log, log);
	for (int i = 0; i < 500 && ready < 0; i++) {
		struct net_conn c;
		char *line;
		int port = read_port(portfile);
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return -1;
		snprintf(addr, addrlen, "127.0.0.1:%d", port);
		if (port > 0 && net_connect(&c, addr, 0, 1000, NULL, 0) == NET_OK) {
			if (net_read_line(&c, 2000, &line) > 0 &&
			    strncmp(line, "bitarenad ", 10) == 0)
				ready = pid;
			net_close(&c);
		}
		if (ready < 0)
			nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
	}
	if (ready < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	return ready;
}

/* launch_server_with() on a free port, a fresh store, no extra argument. */
static pid_t launch_server(const char *tag, char *addr, size_t addrlen)
{
	return launch_server_with(tag, "127.0.0.1:0", NULL, "1", NULL, addr, addrlen);
}

static void server_start(void)
{
	if (mkdtemp(tmpdir) != NULL)
		server_pid = launch_server("server", server_addr, sizeof server_addr);
}

static void server_stop(void)
{
	if (server_pid > 0) {
		kill(server_pid, SIGTERM);
		if (wait_bounded(server_pid, 10) < 0)
			fprintf(stderr, "check_clients: bitarenad did not stop on SIGTERM\n");
	}
	server_pid = -1;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (strncmp(tmpdir, "/tmp/check_clients.", 19) == 0 && system(cmd) != 0)
		fprintf(stderr, "check_clients: could not remove %s\n", tmpdir);
}

static const char *bitarena(void)
{
	const char *b = env_or_skip("BITARENA");
	ck_assert_msg(b != NULL, "BITARENA does not name the bitarena program");
	ck_assert_msg(server_pid > 0, "bitarenad ($BITARENAD) could not be started");
	return b;
}

struct summary {
	int games, wins, losses, draws;
};

/* Finds the "games N wins W losses L draws D" line in a bot's output. */
static struct summary summary_of(const char *out_path)
{
	struct summary s = {-1, -1, -1, -1};
	const char *text = slurp(out_path), *p = strstr(text, "games ");
	while (p != NULL && sscanf(p, "games %d wins %d losses %d draws %d", &s.games, &s.wins,
	                           &s.losses, &s.draws) != 4)
		p = strstr(p + 1, "games ");
	return s;
}

/* The output files of one bot run: tag.out, tag.err. */
struct botrun {
	char out[256], err[256];
	struct summary sum;
};

/*
 * Runs two bots at once against the test server, each with its own arguments
 * after "bot --server ADDR" (NULL-terminated), waits for both (bounded) and
 * asserts they exit 0. Fills their outputs and summaries.
 */
static void play_pair(const char *tag_a, const char *const args_a[], struct botrun *a,
                      const char *tag_b, const char *const args_b[], struct botrun *b)
{
	const char *bin = bitarena();
	struct botrun *run[2] = {a, b};
	const char *const *args[2] = {args_a, args_b};
	const char *tags[2] = {tag_a, tag_b};
	pid_t pid[2];
	for (int i = 0; i < 2; i++) {
		const char *argv[32] = {bin, "bot", "--server", server_addr};
		int n = 4;
		for (int j = 0; args[i][j] != NULL && n < 31; j++)
			argv[n++] = args[i][j];
		argv[n] = NULL;
		char name[64];
		snprintf(name, sizeof name, "%s.out", tags[i]);
		tmp_path(run[i]->out, sizeof run[i]->out, name);
		snprintf(name, sizeof name, "%s.err", tags[i]);
		tmp_path(run[i]->err, sizeof run[i]->err, name);
		pid[i] = spawn(argv, run[i]->out, run[i]->err);
	}
	for (int i = 0; i < 2; i++) {
		int r = wait_bounded(pid[i], 100);
		ck_assert_msg(r == 0, "bot %s exited %d: %s", tags[i], r, slurp(run[i]->err));
		run[i]->sum = summary_of(run[i]->out);
	}
}

/* Two perfect bots (one seeks, one accepts, both asking for one name) play 100 games: all draws. */
START_TEST(bots_perfect_vs_perfect)
{
	struct botrun a, b;
	const char *seek[] = {"--name", "perfect", "--seek", "ttt", "--games",
	                      "100",    "--seed",  "1",      NULL};
	const char *acc[] = {"--name",  "perfect", "--accept", "--kind", "ttt",
	                     "--games", "100",     "--seed",   "2",      NULL};
	play_pair("seek", seek, &a, "acc", acc, &b);
	ck_assert_int_eq(a.sum.games, 100);
	ck_assert_int_eq(b.sum.games, 100);
	ck_assert_int_eq(a.sum.losses, 0);
	ck_assert_int_eq(b.sum.losses, 0);
	ck_assert_int_eq(a.sum.draws, 100);
	ck_assert_int_eq(b.sum.draws, 100);
	/* the name went to whichever logged in first; the other one got "perfect2" */
	char errs[2048];
	snprintf(errs, sizeof errs, "%s", slurp(a.err));
	snprintf(errs + strlen(errs), sizeof errs - strlen(errs), "%s", slurp(b.err));
	ck_assert_msg(strstr(errs, " as perfect\n") != NULL, "%s", errs);
	ck_assert_msg(strstr(errs, " as perfect2\n") != NULL, "%s", errs);
}
END_TEST

/* The perfect bot against a random one: it never loses, and the random bot never wins. */
START_TEST(bots_perfect_vs_random)
{
	struct botrun p, r;
	const char *perfect[] = {"--name", "sage",   "--accept", "--games",
	                         "40",     "--seed", "3",        NULL};
	const char *rnd[] = {"--name",  "monkey", "--seek", "ttt", "--random",
	                     "--games", "40",     "--seed", "4",   NULL};
	play_pair("perfect", perfect, &p, "random", rnd, &r);
	ck_assert_int_eq(p.sum.games, 40);
	ck_assert_int_eq(p.sum.losses, 0);
	ck_assert_int_eq(r.sum.wins, 0);
	ck_assert_int_eq(p.sum.wins, r.sum.losses);
	ck_assert_int_eq(p.sum.draws, r.sum.draws);
	ck_assert_msg(p.sum.wins > 0, "40 games against random moves and not one win");
	/* every move of the perfect bot came from the engine, none at random */
	ck_assert_msg(strstr(slurp(p.err), "were random") == NULL, "%s", slurp(p.err));
}
END_TEST

/* Larger boards and Tak are played with bounded search from the state's position text. */
START_TEST(bots_bounded_mnk_and_tak)
{
	struct botrun a, b;
	const char *seek[] = {"--name",  "big",   "--seek", "mnk m=5 n=5 k=4", "--games", "2",
	                      "--nodes", "20000", NULL};
	const char *acc[] = {"--name",  "big", "--accept", "--kind", "mnk",
	                     "--games", "2",   "--depth",  "3",      NULL};
	play_pair("mnk1", seek, &a, "mnk2", acc, &b);
	ck_assert_int_eq(a.sum.games, 2);
	ck_assert_int_eq(b.sum.games, 2);
	ck_assert_int_eq(a.sum.wins, b.sum.losses);
	ck_assert_int_eq(a.sum.draws, b.sum.draws);
	ck_assert_msg(strstr(slurp(a.err), "were random") == NULL, "%s", slurp(a.err));
	ck_assert_msg(strstr(slurp(b.err), "were random") == NULL, "%s", slurp(b.err));

	const char *tseek[] = {"--name", "taker",   "--seek", "tak size=4", "--games",
	                       "2",      "--depth", "2",      NULL};
	const char *tacc[] = {"--name",  "taker", "--accept", "--kind", "tak",
	                      "--games", "2",     "--depth",  "1",      NULL};
	play_pair("tak1", tseek, &a, "tak2", tacc, &b);
	ck_assert_int_eq(a.sum.games, 2);
	ck_assert_int_eq(b.sum.games, 2);
	ck_assert_int_eq(a.sum.wins + a.sum.losses + a.sum.draws, 2);
	ck_assert_int_eq(a.sum.wins, b.sum.losses);
	ck_assert_msg(strstr(slurp(a.err), "were random") == NULL, "%s", slurp(a.err));
	ck_assert_msg(strstr(slurp(b.err), "were random") == NULL, "%s", slurp(b.err));
}
END_TEST

/* Registers name with password on the test server (text mode); asserts the server said ok. */
static void register_account(const char *name, const char *password)
{
	struct net_conn c;
	char err[128], *line;
	ck_assert_int_eq(net_connect(&c, server_addr, 0, 5000, err, sizeof err), NET_OK);
	ck_assert_int_ge(net_read_line(&c, 5000, &line), 0); /* the welcome */
	ck_assert_int_eq(net_sendf(&c, "register %s %s", name, password), NET_OK);
	ck_assert_int_ge(net_read_line(&c, 5000, &line), 0);
	ck_assert_msg(strncmp(line, "ok ", 3) == 0, "register %s: %s", name, line);
	net_close(&c);
}

/*
 * Bots with BITARENA_PASSWORD log in to their accounts, so they play rated
 * games (which guests may not seek or accept); a wrong password is a failure
 * that says why, and no other name is tried.
 */
START_TEST(bots_play_rated_with_accounts)
{
	register_account("ratedann", "botpass01");
	register_account("ratedbob", "botpass01");
	setenv("BITARENA_PASSWORD", "botpass01", 1);
	struct botrun a, b;
	const char *seek[] = {"--name", "ratedann", "--seek", "ttt rated=1", "--games", "4", NULL};
	const char *acc[] = {"--name", "ratedbob", "--accept", "--games", "4", NULL};
	play_pair("rated-seek", seek, &a, "rated-acc", acc, &b);
	ck_assert_int_eq(a.sum.games, 4);
	ck_assert_int_eq(b.sum.games, 4);
	ck_assert_msg(strstr(slurp(a.err), " as ratedann\n") != NULL, "%s", slurp(a.err));
	ck_assert_msg(strstr(slurp(b.err), " as ratedbob\n") != NULL, "%s", slurp(b.err));

	setenv("BITARENA_PASSWORD", "wrongpass", 1);
	char e1[256];
	tmp_path(e1, sizeof e1, "wrongpw.err");
	const char *argv[] = {bitarena(), "bot", "--server", server_addr, "--name", "ratedann",
	                      "--accept", NULL};
	pid_t pid = spawn(argv, NULL, e1);
	unsetenv("BITARENA_PASSWORD");
	ck_assert_int_eq(wait_bounded(pid, 30), 1);
	ck_assert_msg(strstr(slurp(e1), "login ratedann with BITARENA_PASSWORD") != NULL, "%s",
	              slurp(e1));
}
END_TEST

/* Two bots in the ttt pool (guests, no seek, no accept) are paired game after game: each
   joins again after each game; --games 5 ends them after five, all draws between perfect
   players. */
START_TEST(bots_pool_pair)
{
	struct botrun a, b;
	const char *pa[] = {"--name", "poola", "--pool", "ttt", "--games", "5", NULL};
	const char *pb[] = {"--name", "poolb", "--pool", "ttt", "--games", "5", NULL};
	play_pair("pool-a", pa, &a, "pool-b", pb, &b);
	ck_assert_int_eq(a.sum.games, 5);
	ck_assert_int_eq(b.sum.games, 5);
	ck_assert_int_eq(a.sum.draws, 5);
	ck_assert_int_eq(b.sum.draws, 5);
	ck_assert_msg(strstr(slurp(a.err), "at most 1 game(s) at once") != NULL, "%s",
	              slurp(a.err));
}
END_TEST

/* Two bot accounts on a ttt ladder with --concurrency 2 play two games at once, each on its
   own board; --games 8 leaves the ladder once eight are played (those on are played out). */
START_TEST(bots_ladder_two_at_once)
{
	register_account("laddera", "botpass01 bot");
	register_account("ladderb", "botpass01 bot");
	setenv("BITARENA_PASSWORD", "botpass01", 1);
	struct botrun a, b;
	const char *la[] = {"--name", "laddera", "--ladder", "ttt", "--concurrency", "2",
	                    "--games", "8", "--random", "--seed", "5", NULL};
	const char *lb[] = {"--name", "ladderb", "--ladder", "ttt", "--concurrency", "2",
	                    "--games", "8", NULL};
	play_pair("ladder-a", la, &a, "ladder-b", lb, &b);
	unsetenv("BITARENA_PASSWORD");
	ck_assert_int_ge(a.sum.games, 8);
	ck_assert_int_eq(a.sum.games, b.sum.games);
	ck_assert_int_eq(a.sum.wins, b.sum.losses);
	ck_assert_int_eq(b.sum.wins, a.sum.losses);
	ck_assert_int_eq(b.sum.losses, 0); /* the perfect one, on each board */
	ck_assert_msg(strstr(slurp(b.err), "(2 on)") != NULL, "%s", slurp(b.err));
	ck_assert_msg(strstr(slurp(b.err), "at most 2 game(s) at once") != NULL, "%s",
	              slurp(b.err));
	ck_assert_msg(strstr(slurp(b.err), "were random") == NULL, "%s", slurp(b.err));
}
END_TEST

/* Finished games a bot has printed so far ("game N: ..." lines of its stdout). */
static int games_printed(const char *out)
{
	const char *text = slurp(out);
	int n = 0;
	for (const char *p = text; (p = strstr(p, "game ")) != NULL; p++)
		n += p == text || p[-1] == '\n';
	return n;
}

/* Waits (bounded) until out shows more than n games; returns how many. */
static int wait_games(const char *out, int n)
{
	int got = 0;
	for (int i = 0; i < 3000 && (got = games_printed(out)) <= n; i++)
		nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
	return got;
}

/*
 * The server dies under two ladder bots (SIGKILL, games on) and comes back on the same port
 * with the same data directory: the bots connect again by themselves, as the same accounts,
 * get their games back, and go on playing; SIGTERM then leaves the ladder, the games on are
 * played out, and both exit 0.
 */
START_TEST(bots_reconnect_after_restart)
{
	const char *bin = bitarena();
	char addr[64], listen[64], data[256], name[64];
	int port = free_port();
	snprintf(listen, sizeof listen, "127.0.0.1:%d", port);
	tmp_path(data, sizeof data, "restart.data");
	const char *extra[] = {"--ladder-pair-cap", "0", NULL};
	pid_t srv = launch_server_with("restart", listen, data, "30", extra, addr, sizeof addr);
	ck_assert_int_gt(srv, 0);
	const char *names[2] = {"phoenixa", "phoenixb"};
	char out[2][256], err[2][256];
	pid_t bot[2];
	for (int i = 0; i < 2; i++) {
		struct net_conn c;
		char e[128], *line;
		ck_assert_int_eq(net_connect(&c, addr, 0, 5000, e, sizeof e), NET_OK);
		ck_assert_int_ge(net_read_line(&c, 5000, &line), 0);
		ck_assert_int_eq(net_sendf(&c, "register %s botpass01 bot", names[i]), NET_OK);
		ck_assert_int_ge(net_read_line(&c, 5000, &line), 0);
		ck_assert_msg(strncmp(line, "ok ", 3) == 0, "%s", line);
		net_close(&c);
	}
	setenv("BITARENA_PASSWORD", "botpass01", 1);
	for (int i = 0; i < 2; i++) {
		snprintf(name, sizeof name, "restart-%d.out", i);
		tmp_path(out[i], sizeof out[i], name);
		snprintf(name, sizeof name, "restart-%d.err", i);
		tmp_path(err[i], sizeof err[i], name);
		/* Tak 4x4 with a clock: games last a while, so some are on at the kill */
		const char *argv[] = {bin,          "bot",  "--server", addr, "--name",
		                      names[i],     "--ladder", "tak size=4 time=1+0",
		                      "--concurrency", "2", "--depth", "1", "--seed",
		                      i ? "1" : "2", NULL};
		bot[i] = spawn(argv, out[i], err[i]);
	}
	unsetenv("BITARENA_PASSWORD");
	int before = wait_games(out[0], 1);
	ck_assert_msg(before >= 2, "no games before the restart: %s", slurp(err[0]));
	kill(srv, SIGKILL);
	waitpid(srv, NULL, 0);
	nanosleep(&(struct timespec){0, 500 * 1000 * 1000}, NULL); /* the bots try, and fail */
	srv = launch_server_with("restart", listen, data, "30", extra, addr, sizeof addr);
	ck_assert_int_gt(srv, 0);
	int after = wait_games(out[0], before + 1);
	ck_assert_msg(after >= before + 2, "%d games before, %d after the restart: %s", before,
	              after, slurp(err[0]));
	for (int i = 0; i < 2; i++) {
		ck_assert_msg(strstr(slurp(err[i]), "lost the server") != NULL, "%s", slurp(err[i]));
		ck_assert_msg(strstr(slurp(err[i]), "back on ") != NULL, "%s", slurp(err[i]));
		kill(bot[i], SIGTERM);
	}
	for (int i = 0; i < 2; i++) {
		int r = wait_bounded(bot[i], 60);
		ck_assert_msg(r == 0, "bot %d exited %d: %s", i, r, slurp(err[i]));
		ck_assert_msg(strstr(slurp(err[i]), "leaving;") != NULL, "%s", slurp(err[i]));
		ck_assert_msg(strstr(slurp(err[i]), "1 reconnection(s)") != NULL, "%s",
		              slurp(err[i]));
	}
	kill(srv, SIGTERM);
	ck_assert_int_eq(wait_bounded(srv, 10), 0);
}
END_TEST

START_TEST(bot_bad_seek_fails)
{
	const char *bin = bitarena();
	char e1[256];
	tmp_path(e1, sizeof e1, "bad.err");
	const char *argv[] = {bin,          "bot",     "--server", server_addr, "--seek",
	                      "nosuchgame", "--games", "1",        NULL};
	int r = wait_bounded(spawn(argv, NULL, e1), 30);
	ck_assert_int_eq(r, 1);
	ck_assert_msg(strstr(slurp(e1), "UNKNOWN_GAME") != NULL, "%s", slurp(e1));
}
END_TEST

START_TEST(bot_no_server_fails)
{
	const char *bin = bitarena();
	char e1[256], addr[32];
	tmp_path(e1, sizeof e1, "none.err");
	snprintf(addr, sizeof addr, "127.0.0.1:%d", free_port());
	const char *argv[] = {bin, "bot", "--server", addr, "--accept", NULL};
	int r = wait_bounded(spawn(argv, NULL, e1), 30);
	ck_assert_int_eq(r, 1);
	ck_assert_msg(strstr(slurp(e1), "cannot connect") != NULL, "%s", slurp(e1));
}
END_TEST

/* A server that dies under a waiting bot: the bot says so and exits 1. */
START_TEST(bot_server_vanishes)
{
	const char *bin = bitarena();
	char addr[64], e1[256];
	pid_t srv = launch_server("doomed", addr, sizeof addr);
	ck_assert_int_gt(srv, 0);
	tmp_path(e1, sizeof e1, "vanish.err");
	const char *argv[] = {bin, "bot", "--server", addr, "--accept", "--games", "3", NULL};
	pid_t bot = spawn(argv, NULL, e1);
	/* wait until the bot is logged in (its first line), then kill the server */
	for (int i = 0; i < 500 && strstr(slurp(e1), "logged in") == NULL; i++)
		nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
	kill(srv, SIGKILL);
	waitpid(srv, NULL, 0);
	int r = wait_bounded(bot, 30);
	ck_assert_int_eq(r, 1);
	ck_assert_msg(strstr(slurp(e1), "lost the server") != NULL, "%s", slurp(e1));
}
END_TEST

START_TEST(load_runs)
{
	const char *bin = bitarena();
	char o1[256], e1[256];
	tmp_path(o1, sizeof o1, "load.out");
	tmp_path(e1, sizeof e1, "load.err");
	const char *argv[] = {bin,       "load", "--server", server_addr, "--pairs", "3",
	                      "--games", "5",    "--seed",   "9",         NULL};
	int r = wait_bounded(spawn(argv, o1, e1), 100);
	ck_assert_msg(r == 0, "load exited %d: %s", r, slurp(e1));
	const char *out = slurp(o1);
	int pairs, games, total;
	long long moves;
	ck_assert_msg(sscanf(out, "load: %d pairs x %d games of ttt: %d games, %lld moves", &pairs,
	                     &games, &total, &moves) == 4,
	              "%s", out);
	ck_assert_int_eq(total, 15);
	ck_assert_int_ge(moves, 15 * 5); /* a tic-tac-toe game lasts at least 5 moves */
	ck_assert_int_le(moves, 15 * 9);
	ck_assert_msg(strstr(out, "latency move->state (ms): p50 ") != NULL, "%s", out);
}
END_TEST

static int run_replay(const char *record, char *out, size_t outlen, char *err, size_t errlen)
{
	const char *bin = env_or_skip("BITARENA");
	ck_assert(bin != NULL);
	char path[256];
	tmp_path(path, sizeof path, "game.rec");
	FILE *f = fopen(path, "w");
	ck_assert(f != NULL);
	fputs(record, f);
	fclose(f);
	tmp_path(out, outlen, "replay.out");
	tmp_path(err, errlen, "replay.err");
	const char *argv[] = {bin, "replay", path, NULL};
	return wait_bounded(spawn(argv, out, err), 30);
}

START_TEST(replay_record)
{
	char out[256], err[256];
	int r = run_replay("[Game \"ttt\"]\n[Player1 \"a\"]\n[Result \"1-0\"]\n\n"
	                   "1. b2 a1\n2. c3 {a comment} a3\n3. \"a2\" c1\n4. c2 1-0\n",
	                   out, sizeof out, err, sizeof err);
	ck_assert_msg(r == 0, "replay exited %d: %s", r, slurp(err));
	const char *text = slurp(out);
	ck_assert_msg(strstr(text, "7. c2 (X)") != NULL, "%s", text);
	ck_assert_msg(strstr(text, "result: 1-0 (line)") != NULL, "%s", text);
	r = run_replay("[Kind \"mnk\"]\n[Options \"m=4 n=4 k=3\"]\n1.a1 b1 2.a1\n", out, sizeof out,
	               err, sizeof err);
	ck_assert_int_eq(r, 1);
	ck_assert_msg(strstr(slurp(err), "ply 3 (a1") != NULL, "%s", slurp(err));
	/* a simultaneous game: one position per turn; a refused line ("!") ends it */
	static const char xmas[] = "[Game \"xmas\"]\n[Options \"seed=5 pool=3\"]\n\n"
	                           "1. \"PUSH 3 RIGHT\" \"PUSH 0 UP\"\n2. PASS ! 0--1\n";
	r = run_replay(xmas, out, sizeof out, err, sizeof err);
	ck_assert_msg(r == 0, "replay exited %d: %s", r, slurp(err));
	text = slurp(out);
	ck_assert_msg(strstr(text, "turn 1. PUSH 3 RIGHT (player0); PUSH 0 UP (player1)\n") != NULL,
	              "%s", text);
	ck_assert_msg(strstr(text, "turn 2. PASS (player0); (invalid) (player1)\n") != NULL, "%s",
	              text);
	ck_assert_msg(strstr(text, "result: 0--1 (invalid_action)") != NULL, "%s", text);
	/* cut inside turn 2: the position of turn 2, and a note */
	r = run_replay(
	        "[Game \"xmas\"]\n[Options \"seed=5\"]\n1. \"PUSH 3 RIGHT\" \"PUSH 0 UP\" PASS\n",
	        out, sizeof out, err, sizeof err);
	ck_assert_msg(r == 0, "replay exited %d: %s", r, slurp(err));
	text = slurp(out);
	ck_assert_msg(strstr(text, "note: the last turn is not complete (PASS (player0))") != NULL,
	              "%s", text);
	ck_assert_msg(strstr(text, "turn 2/150 MOVE") != NULL, "%s", text);
	ck_assert_msg(strstr(text, "result: * (game not finished)") != NULL, "%s", text);
}
END_TEST

static Suite *clients_suite(void)
{
	Suite *s = suite_create("clients");
	TCase *tc = tcase_create("net");
	tcase_add_test(tc, net_lines_and_terminators);
	tcase_add_test(tc, net_partial_reads_byte_by_byte);
	tcase_add_test(tc, net_long_lines);
	tcase_add_test(tc, net_big_line_in_pieces);
	tcase_add_test(tc, net_end_of_stream);
	tcase_add_test(tc, net_send);
	tcase_add_test(tc, net_connect_ipv4_ipv6);
	tcase_add_test(tc, net_connect_failures);
	suite_add_tcase(s, tc);

	tc = tcase_create("client");
	tcase_add_test(tc, dispatch_rows);
	tcase_add_test(tc, pump_batches_and_stops);
	tcase_add_test(tc, session_open_retries_names);
	tcase_add_test(tc, session_open_failures);
	suite_add_tcase(s, tc);

	tc = tcase_create("programs");
	tcase_add_unchecked_fixture(tc, server_start, server_stop);
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, bots_perfect_vs_perfect);
	tcase_add_test(tc, bots_perfect_vs_random);
	tcase_add_test(tc, bots_bounded_mnk_and_tak);
	tcase_add_test(tc, bots_play_rated_with_accounts);
	tcase_add_test(tc, bots_pool_pair);
	tcase_add_test(tc, bots_ladder_two_at_once);
	tcase_add_test(tc, bots_reconnect_after_restart);
	tcase_add_test(tc, bot_bad_seek_fails);
	tcase_add_test(tc, bot_no_server_fails);
	tcase_add_test(tc, bot_server_vanishes);
	tcase_add_test(tc, load_runs);
	tcase_add_test(tc, replay_record);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	return check_run(clients_suite());
}
