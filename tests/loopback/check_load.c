/*
 * check_load.c - `bitarena load` (clients/cmd_load.c) and its parts:
 *
 *  - the checks apart from the network (loadcheck.h): the top-level JSON
 *    scan spectators use, the per-game seq order of a stream, percentiles
 *    and the /proc readings (loadstat.h);
 *  - the tool against a scripted fake server that breaks one promise at a
 *    time (a skipped spectator state, a move without its ok, a server that
 *    goes away): each must end the run with status 1 and say what broke,
 *    while the same script kept honest passes;
 *  - short runs against the real bitarenad for every game kind with players,
 *    spectators, idle connections and pingers, asserting correctness only
 *    (every move acknowledged, every spectator stream complete and in
 *    order), never a speed;
 *  - recovery: two loads (tic-tac-toe and Tak) write acknowledgement logs,
 *    the server is killed with SIGKILL in the middle, restarted on the same
 *    store, and every move any client saw acknowledged must be in the
 *    restored games' records (`load --verify`); a log with one move the
 *    server never acknowledged must fail the same check.
 */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "check_main.h"
#include "load/loadcheck.h"
#include "load/loadstat.h"
#include "testproc.h"
#include "testserver.h"

/* ---- the checks apart from the network -------------------------------------------- */

static void scan_ok(const char *line, const char *type, long long game, long long seq)
{
	struct lk_top t;
	ck_assert_msg(lk_scan(line, strlen(line), &t) == 0, "%s", line);
	ck_assert_str_eq(t.type, type);
	ck_assert_msg(t.has_game == (game >= 0) && (game < 0 || t.game == game), "%s", line);
	ck_assert_msg(t.has_seq == (seq >= 0) && (seq < 0 || t.seq == seq), "%s", line);
}

START_TEST(scan_top_level_only)
{
	scan_ok("{\"type\":\"state\",\"game\":12,\"seq\":7,\"over\":false}", "state", 12, 7);
	/* members in any order, white space, nested "seq" and "game" are not the top ones */
	scan_ok(" { \"position\" : {\"seq\":99,\"game\":[1,{\"seq\":3}]} , \"seq\" : 4 ,"
	        "\"type\":\"state\", \"game\" : 5 } ",
	        "state", 5, 4);
	/* a string holding what looks like a member, with escaped quotes and braces */
	scan_ok("{\"type\":\"chat\",\"text\":\"\\\"seq\\\":8, }{ \\\\\",\"game\":3}", "chat", 3,
	        -1);
	scan_ok("{\"type\":\"pong\"}", "pong", -1, -1);
	scan_ok("{}", "", -1, -1);
	/* a fraction is not a seq */
	scan_ok("{\"type\":\"state\",\"seq\":1.5,\"game\":2}", "state", 2, -1);
	const char *bad[] = {"",          "[1,2]",           "{\"type\":\"state\"",
	                     "{\"a\" 1}", "{\"a\":\"x}",     "{\"a\":1,}",
	                     "state 3",   "{\"a\":{\"b\":1}"};
	struct lk_top t;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(lk_scan(bad[i], strlen(bad[i]), &t) < 0, "accepted %s", bad[i]);
}
END_TEST

START_TEST(stream_order)
{
	struct lk_stream s = {0};
	ck_assert_int_eq(lk_stream_feed(&s, 4, 3), LK_SEQ_FIRST); /* watch: any seq */
	ck_assert_int_eq(lk_stream_feed(&s, 4, 4), LK_SEQ_OK);
	ck_assert_int_eq(lk_stream_feed(&s, 4, 5), LK_SEQ_OK);
	ck_assert_int_eq(lk_stream_feed(&s, 4, 7), LK_SEQ_SKIP);
	ck_assert_int_eq(lk_stream_feed(&s, 4, 7), LK_SEQ_REPEAT);
	ck_assert_int_eq(lk_stream_feed(&s, 4, 2), LK_SEQ_BACK);
	ck_assert_int_eq(lk_stream_feed(&s, 4, 8), LK_SEQ_OK); /* the old state changed nothing */
	ck_assert_int_eq(lk_stream_feed(&s, 9, 1), LK_SEQ_FIRST);
	ck_assert_int_eq(s.game, 9);
	ck_assert_int_eq(s.last_seq, 1);
	ck_assert_int_eq(s.states, 8);
}
END_TEST

START_TEST(percentiles)
{
	struct ls_samples s = {0};
	struct ls_summary sum;
	ls_summarize(&s, &sum);
	ck_assert_uint_eq(sum.n, 0);
	for (int i = 1000; i >= 1; i--) /* 1..1000 ms, given backwards */
		ls_add(&s, (int64_t)i * 1000000);
	ls_summarize(&s, &sum);
	ck_assert_uint_eq(sum.n, 1000);
	ck_assert_double_eq(sum.p50, 500);
	ck_assert_double_eq(sum.p90, 900);
	ck_assert_double_eq(sum.p99, 990);
	ck_assert_double_eq(sum.p999, 999);
	ck_assert_double_eq(sum.max, 1000);
	ck_assert_double_eq(sum.mean, 500.5);
	int64_t one[] = {7};
	ck_assert_int_eq(ls_percentile(one, 1, 50), 7);
	ck_assert_int_eq(ls_percentile(one, 1, 99.9), 7);
	ls_samples_free(&s);
}
END_TEST

/* A listening socket on 127.0.0.1, any port; its port goes to *port. */
static int listen_any(int *port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(fd, 0);
	struct sockaddr_in a = {.sin_family = AF_INET};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t sl = sizeof a;
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(fd, 64), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &sl), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

START_TEST(proc_readings)
{
	int port, fd = listen_any(&port);
	ck_assert_int_eq(ls_port_owner(port), getpid());
	close(fd);
	ck_assert_int_eq(ls_port_owner(port), 0); /* nobody listens there now */
	struct ls_proc p;
	ck_assert(ls_proc_read(getpid(), &p));
	ck_assert_int_gt(p.rss_kib, 0);
	ck_assert_int_ge(p.hwm_kib, p.rss_kib);
	ck_assert(p.cpu_s >= 0);
	double la[3];
	ls_loadavg(la);
	ck_assert(la[0] >= 0);
}
END_TEST

/* ---- running the tool ----------------------------------------------------------------- */

static char tool_out[1 << 16], tool_err[1 << 16];

/* Starts $BITARENA with args (NULL-terminated); its stdout and stderr go to files under dir. */
static pid_t tool_start(const char *dir, const char *tag, const char *const *args)
{
	const char *argv[40];
	int n = 0;
	argv[n++] = tp_prog("BITARENA", "./bitarena");
	for (; *args && n < 39; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	char out[512], err[512];
	snprintf(out, sizeof out, "%s/%s.out", dir, tag);
	snprintf(err, sizeof err, "%s/%s.err", dir, tag);
	return tp_spawn(argv, out, err);
}

/* Waits for the tool at most seconds (then kills it: -1); its output goes to tool_out/err. */
static int tool_wait(pid_t pid, const char *dir, const char *tag, int seconds)
{
	int rc = tp_wait(pid, seconds);
	char path[512];
	snprintf(path, sizeof path, "%s/%s.out", dir, tag);
	tp_slurp(path, tool_out, sizeof tool_out);
	unlink(path);
	snprintf(path, sizeof path, "%s/%s.err", dir, tag);
	tp_slurp(path, tool_err, sizeof tool_err);
	unlink(path);
	return rc;
}

static int tool_run(const char *dir, const char *const *args, int seconds)
{
	return tool_wait(tool_start(dir, "tool", args), dir, "tool", seconds);
}

/* ---- a scripted fake server ------------------------------------------------------------ */

enum fake_mode {
	FAKE_HONEST,       /* one game of two moves, played by the book */
	FAKE_SKIP_SPEC,    /* the spectator's second state is numbered 3 */
	FAKE_NO_OK,        /* the first move gets its state but no ok */
	FAKE_DIES_AT_MOVE, /* the server closes every connection at the first move */
};

struct fconn {
	int fd;
	int role; /* 0 unknown, 1 seeker (seat 0), 2 accepter (seat 1), 3 spectator */
	size_t len;
	char buf[4096];
};

static void fsend(struct fconn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fsend(struct fconn *c, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	line[n++] = '\n';
	if (c->fd >= 0 && write(c->fd, line, (size_t)n) != n)
		_exit(3);
}

/* The state after ply moves to connection c (seat 0 plays a1, seat 1 b1; two plies end it). */
static void fstate(struct fconn *c, enum fake_mode mode, int ply)
{
	int seat = c->role == 1 ? 0 : c->role == 2 ? 1 : -1, seq = ply + 1;
	if (mode == FAKE_SKIP_SPEC && seat < 0 && ply == 1)
		seq = 3;
	const char *legal = seat == 0 && ply == 0   ? ",\"legal\":[\"a1\"]"
	                    : seat == 1 && ply == 1 ? ",\"legal\":[\"b1\"]"
	                                            : "";
	char seatbuf[8];
	snprintf(seatbuf, sizeof seatbuf, "%d", seat);
	fsend(c,
	      "{\"type\":\"state\",\"game\":1,\"kind\":\"ttt\",\"seat\":%s,\"seq\":%d,\"ply\":%d,"
	      "\"to_move\":[%s],\"position\":{\"seq\":77,\"cells\":\"...\"}%s,\"over\":%s}",
	      seat < 0 ? "null" : seatbuf, seq, ply,
	      ply == 0   ? "0"
	      : ply == 1 ? "1"
	                 : "",
	      legal, ply == 2 ? "true" : "false");
	if (ply == 2)
		fsend(c, "{\"type\":\"game_over\",\"game\":1,\"result\":{\"winner\":null}}");
}

static void fake_line(struct fconn *cs, int n, struct fconn *c, const char *line,
                      enum fake_mode mode)
{
	static int ply;
	char name[64];
	if (strcmp(line, "set format json") == 0) {
		fsend(c, "{\"type\":\"ok\",\"cmd\":\"set\",\"format\":\"json\"}");
	} else if (sscanf(line, "login %63s", name) == 1) {
		fsend(c, "{\"type\":\"ok\",\"cmd\":\"login\",\"name\":\"%s\",\"guest\":true}",
		      name);
	} else if (strncmp(line, "seek ", 5) == 0) {
		c->role = 1;
		fsend(c, "{\"type\":\"ok\",\"cmd\":\"seek\",\"seek\":{\"id\":1,\"kind\":\"ttt\"}}");
	} else if (strcmp(line, "accept 1") == 0) {
		c->role = 2;
		fsend(c, "{\"type\":\"ok\",\"cmd\":\"accept\",\"game\":1}");
		for (int i = 0; i < n; i++)
			if (cs[i].role == 1 || cs[i].role == 2) {
				fsend(&cs[i], "{\"type\":\"game_start\",\"game\":1,\"seat\":%d}",
				      cs[i].role - 1);
				fstate(&cs[i], mode, 0);
			}
	} else if (strcmp(line, "watch 1") == 0) {
		c->role = 3;
		fsend(c, "{\"type\":\"ok\",\"cmd\":\"watch\",\"game\":1}");
		fstate(c, mode, ply);
	} else if (strncmp(line, "move 1 ", 7) == 0) {
		if (mode == FAKE_DIES_AT_MOVE)
			_exit(0);
		if (mode != FAKE_NO_OK || ply > 0)
			fsend(c, "{\"type\":\"ok\",\"cmd\":\"move\",\"game\":1,\"move\":\"%s\"}",
			      line + 7);
		ply++;
		for (int i = 0; i < n; i++)
			if (cs[i].role != 0)
				fstate(&cs[i], mode, ply);
	} else if (strcmp(line, "ping") == 0) {
		fsend(c, "pong");
	} else if (strcmp(line, "quit") == 0) {
		fsend(c, "{\"type\":\"ok\",\"cmd\":\"quit\"}");
		close(c->fd);
		c->fd = -1;
	}
}

/* The fake server's process: serves lfd until SIGKILL (or 60 s). */
static void fake_serve(int lfd, enum fake_mode mode)
{
	struct fconn cs[16];
	int n = 0;
	alarm(60);
	for (;;) {
		struct pollfd pf[17];
		pf[0] = (struct pollfd){.fd = lfd, .events = POLLIN};
		for (int i = 0; i < n; i++)
			pf[i + 1] = (struct pollfd){.fd = cs[i].fd, .events = POLLIN};
		int polled = n;
		if (poll(pf, (nfds_t)polled + 1, -1) < 0)
			_exit(2);
		if ((pf[0].revents & POLLIN) && n < 16) {
			cs[n] = (struct fconn){.fd = accept(lfd, NULL, NULL)};
			fsend(&cs[n++], "bitarenad 0.1.0 (protocol 1) ready (a fake)");
		}
		for (int i = 0; i < polled; i++) {
			struct fconn *c = &cs[i];
			if (c->fd < 0 || !(pf[i + 1].revents & (POLLIN | POLLHUP)))
				continue;
			ssize_t got = read(c->fd, c->buf + c->len, sizeof c->buf - 1 - c->len);
			if (got <= 0) {
				close(c->fd);
				c->fd = -1;
				continue;
			}
			c->len += (size_t)got;
			char *nl;
			while (c->fd >= 0 && (nl = memchr(c->buf, '\n', c->len)) != NULL) {
				*nl = '\0';
				fake_line(cs, n, c, c->buf, mode);
				size_t used = (size_t)(nl - c->buf) + 1;
				memmove(c->buf, nl + 1, c->len - used);
				c->len -= used;
			}
		}
	}
}

/* Runs one game of load (1 game, 1 spectator) against the fake; the tool's exit status. */
static int against_fake(enum fake_mode mode)
{
	int port, lfd = listen_any(&port);
	pid_t fake = fork();
	ck_assert_int_ge(fake, 0);
	if (fake == 0)
		fake_serve(lfd, mode);
	close(lfd);
	char dir[256], server[64];
	tmpdir_make(dir, sizeof dir, "check-load");
	snprintf(server, sizeof server, "127.0.0.1:%d", port);
	const char *args[] = {"load", "--server", server, "--games",   "1",  "--spectators",
	                      "1",    "--rounds", "1",    "--timeout", "20", NULL};
	int rc = tool_run(dir, args, 30);
	kill(fake, SIGKILL);
	waitpid(fake, NULL, 0);
	tmpdir_remove(dir);
	return rc;
}

START_TEST(fake_honest_passes)
{
	int rc = against_fake(FAKE_HONEST);
	ck_assert_msg(rc == 0, "exit %d: %s%s", rc, tool_out, tool_err);
	ck_assert_msg(strstr(tool_out, ": 2 moves in ") != NULL, "%s", tool_out);
	ck_assert_msg(strstr(tool_out, "checks: 2 moves acknowledged, 0 refused, 3 spectator "
	                               "states in order; no violation") != NULL,
	              "%s", tool_out);
}
END_TEST

START_TEST(fake_skipped_state_fails)
{
	int rc = against_fake(FAKE_SKIP_SPEC);
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(tool_err, "FAILED: spectator 0 of slot 0: game 1: state 3 after 1: "
	                               "states were skipped") != NULL,
	              "%s", tool_err);
}
END_TEST

START_TEST(fake_missing_ok_fails)
{
	int rc = against_fake(FAKE_NO_OK);
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(tool_err, "the state after move a1 came before its ok") != NULL, "%s",
	              tool_err);
}
END_TEST

START_TEST(fake_lost_server_fails)
{
	int rc = against_fake(FAKE_DIES_AT_MOVE);
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(tool_err, "lost the server") != NULL, "%s", tool_err);
}
END_TEST

/* ---- against bitarenad ------------------------------------------------------------------ */

/* The number at "key" or "object.key" of o. */
static double jnum(const cJSON *o, const char *path)
{
	char key[64], *leaf = key, *dot;
	snprintf(key, sizeof key, "%s", path);
	if ((dot = strchr(key, '.')) != NULL) {
		*dot = '\0';
		o = cJSON_GetObjectItemCaseSensitive(o, key);
		leaf = dot + 1;
	}
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, leaf);
	ck_assert_msg(cJSON_IsNumber(v), "no number %s", path);
	return v->valuedouble;
}

/*
 * One --json run of kind with 3 games x 2 spectators, idle connections and a pinger; with ws
 * the roles ws names ("all", "spectators", ...) connect over the server's WebSocket endpoint.
 */
static void real_run_ws(const char *kind, int rounds, const char *ws)
{
	/* a benchmark's server (--cmd-rate 0): its pinger asks a hundred times a second, past
	   the command budget (which check_limits tests) */
	struct ts_srv s;
	char hpf[512];
	tmpdir_make(s.datadir, sizeof s.datadir, "bitarenad-data");
	snprintf(hpf, sizeof hpf, "%s/http-port", s.datadir);
	const char *extra[] = {"--cmd-rate", "0", "--http", "127.0.0.1:0", "--http-port-file", hpf};
	ts_start(&s, s.datadir, extra, ws ? 6 : 2);
	for (int i = 0; ws && i < 500 && access(hpf, R_OK) != 0; i++)
		ts_msleep(10); /* written just after the TCP port's */
	char server[64], r[16];
	snprintf(server, sizeof server, "127.0.0.1:%d", s.port);
	snprintf(r, sizeof r, "%d", rounds);
	const char *args[25] = {"load",      "--server",     server, "--kind", kind, "--games",
	                        "3",         "--spectators", "2",    "--idle", "6",  "--pingers",
	                        "1",         "--rounds",     r,      "--seed", "7",  "--json",
	                        "--timeout", "100",          NULL};
	const char *over_ws[] = {"--ws", ws, "--http-port-file", hpf, NULL}; /* args[20..23] */
	for (int i = 0; ws && over_ws[i]; i++)
		args[20 + i] = over_ws[i];
	int rc = tool_run(s.datadir, args, 110);
	ts_down(&s);
	ck_assert_msg(rc == 0, "%s: exit %d\n%s%s", kind, rc, tool_out, tool_err);
	cJSON *o = cJSON_Parse(tool_out);
	ck_assert_msg(o != NULL, "%s", tool_out);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "ok")));
	ck_assert_double_eq(jnum(o, "violations"), 0);
	ck_assert_double_eq(jnum(o, "games_finished"), 3 * rounds);
	ck_assert_int_eq((int)jnum(o, "connections"), 3 * 2 + 3 * 2 + 6 + 1);
	double moves = jnum(o, "moves"), acked = jnum(o, "acknowledged");
	ck_assert_msg(moves >= 3 * rounds * 5, "%s: %g moves", kind, moves);
	ck_assert_double_eq(jnum(o, "latency_ms.n"), moves); /* every move got its state */
	ck_assert_double_eq(acked, moves);                   /* and its ok */
	/* every state reached both spectators: at least one per move or turn, each */
	bool simultaneous = strcmp(kind, "xmas") == 0;
	ck_assert(jnum(o, "spectator_states") >= 2 * (simultaneous ? moves / 2 : moves));
	if (simultaneous) /* one fan-out per turn, when both actions are in */
		ck_assert(jnum(o, "fanout_ms.n") >= moves / 2 - 3);
	else
		ck_assert_double_eq(jnum(o, "fanout_ms.n"), moves);
	ck_assert_double_eq(jnum(o, "connect_ms.n"), 3 * 2 + 3 * 2 + 6 + 1);
	ck_assert(jnum(o, "server.rss_kib_idle") > 0); /* the server was found by its port */
	int roles = !ws ? 0 : strcmp(ws, "all") == 0 ? 4 : 1;
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(o, "websocket")), roles);
	cJSON_Delete(o);
}

static void real_run(const char *kind, int rounds)
{
	real_run_ws(kind, rounds, NULL);
}

START_TEST(real_ttt)
{
	real_run("ttt", 4);
}
END_TEST

START_TEST(real_mnk)
{
	real_run("mnk m=5 n=5 k=4", 2);
}
END_TEST

START_TEST(real_tak)
{
	real_run("tak size=4", 2);
}
END_TEST

START_TEST(real_xmas)
{
	real_run("xmas", 1);
}
END_TEST

/*
 * The server's command budget, tight (5 tokens a second, bursts of 10): every kind of command
 * the tool sends (logins, seeks, accepts, rematches, watches, pings) is refused now and then
 * with RATE_LIMITED; the tool waits each out, sends it again and finishes every game, saying
 * how often and how long it waited. Before, the first RATE_LIMITED (a rematch) ended the run.
 */
START_TEST(real_paced)
{
	struct ts_srv s;
	const char *extra[] = {"--cmd-rate", "5", "--cmd-burst", "10"};
	ts_up(&s, extra, 4);
	char server[64];
	snprintf(server, sizeof server, "127.0.0.1:%d", s.port);
	const char *args[] = {"load",      "--server",     server, "--kind",    "ttt", "--games",
	                      "3",         "--spectators", "1",    "--pingers", "1",   "--ping-ms",
	                      "50",        "--rounds",     "5",    "--seed",    "7",   "--json",
	                      "--timeout", "100",          NULL};
	int rc = tool_run(s.datadir, args, 110);
	ts_down(&s);
	ck_assert_msg(rc == 0, "exit %d\n%s%s", rc, tool_out, tool_err);
	cJSON *o = cJSON_Parse(tool_out);
	ck_assert_msg(o != NULL, "%s", tool_out);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "ok")));
	ck_assert_double_eq(jnum(o, "games_finished"), 3 * 5);
	ck_assert_double_eq(jnum(o, "latency_ms.n"), jnum(o, "moves"));
	ck_assert_msg(jnum(o, "rate_limited") > 0, "%s", tool_out);
	ck_assert(jnum(o, "waited_ms") > 0);
	ck_assert(jnum(o, "waited_max_ms") <= jnum(o, "waited_ms"));
	cJSON_Delete(o);
	/* and the text report says it */
	const char *text[] = {"load", "--server", server, "--kind",    "ttt", "--games",
	                      "2",    "--rounds", "3",    "--timeout", "100", NULL};
	ts_up(&s, extra, 4);
	snprintf(server, sizeof server, "127.0.0.1:%d", s.port);
	rc = tool_run(s.datadir, text, 110);
	ts_down(&s);
	ck_assert_msg(rc == 0, "exit %d\n%s%s", rc, tool_out, tool_err);
	ck_assert_msg(strstr(tool_out, "paced by the server: ") != NULL, "%s", tool_out);
}
END_TEST

/* --ws: the same run and checks over the WebSocket endpoint, every role or spectators only. */
START_TEST(real_ws_ttt)
{
	real_run_ws("ttt", 2, "all");
}
END_TEST

START_TEST(real_ws_tak_spectators)
{
	real_run_ws("tak size=4", 1, "spectators");
}
END_TEST

/* --ws without the HTTP port, or with a port nothing serves: refused, no hang. */
START_TEST(ws_arguments)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	char server[64];
	snprintf(server, sizeof server, "127.0.0.1:%d", s.port);
	const char *none[] = {"load", "--server", server, "--ws", "all", "--rounds", "1", NULL};
	ck_assert_int_eq(tool_run(s.datadir, none, 30), 2);
	ck_assert_msg(strstr(tool_err, "HTTP port") != NULL, "%s", tool_err);
	const char *bad[] = {"load", "--server", server, "--ws", "players,nobody", NULL};
	ck_assert_int_eq(tool_run(s.datadir, bad, 30), 2);
	/* the TCP port is no WebSocket endpoint: every connection fails, the run says so */
	char port[16];
	snprintf(port, sizeof port, "%d", s.port);
	const char *wrong[] = {"load",       "--server",     server, "--ws",
	                       "spectators", "--games",      "1",    "--rounds",
	                       "1",          "--spectators", "2",    "--timeout",
	                       "30",         "--http-port",  port,   NULL};
	ck_assert_int_eq(tool_run(s.datadir, wrong, 40), 1);
	ck_assert_msg(strstr(tool_err, "cannot connect") != NULL, "%s", tool_err);
	ts_down(&s);
}
END_TEST

/* A build without WebSocket: --ws is refused at once, saying so. */
START_TEST(ws_not_built)
{
	const char *args[] = {"load", "--server", "127.0.0.1:1", "--ws", "all", NULL};
	char dir[256];
	tmpdir_make(dir, sizeof dir, "check-load");
	ck_assert_int_eq(tool_run(dir, args, 30), 2);
	ck_assert_msg(strstr(tool_err, "built without WebSocket support") != NULL, "%s", tool_err);
	tmpdir_remove(dir);
}
END_TEST

/* The old form --pairs P --games G still plays P x G games and prints its first line. */
START_TEST(real_legacy_pairs)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	char server[64];
	snprintf(server, sizeof server, "127.0.0.1:%d", s.port);
	const char *args[] = {"load", "--server", server, "--pairs", "2", "--games", "3", NULL};
	int rc = tool_run(s.datadir, args, 60);
	ts_down(&s);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, tool_err);
	int pairs, games;
	long long total;
	ck_assert_msg(sscanf(tool_out, "load: %d pairs x %d games of ttt: %lld games", &pairs,
	                     &games, &total) == 3,
	              "%s", tool_out);
	ck_assert_int_eq(total, 6);
}
END_TEST

/* Lines in a file (0 when it is missing). */
static long count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	long n = 0;
	int ch;
	while (f && (ch = fgetc(f)) != EOF)
		n += ch == '\n';
	if (f)
		fclose(f);
	return n;
}

START_TEST(kill9_loses_no_acknowledged_move)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	char server[64], ack[2][512], bad[512];
	snprintf(server, sizeof server, "127.0.0.1:%d", s.port);
	const char *kinds[2] = {"ttt", "tak size=5"}, *tags[2] = {"ttt", "tak"};
	pid_t load[2];
	for (int i = 0; i < 2; i++) {
		snprintf(ack[i], sizeof ack[i], "%s/%s.ack", s.datadir, tags[i]);
		const char *args[] = {"load",   "--server",  server, "--kind",
		                      kinds[i], "--games",   "4",    "--duration",
		                      "60",     "--ack-log", ack[i], NULL};
		load[i] = tool_start(s.datadir, tags[i], args);
	}
	/* in the middle: both have had many moves acknowledged */
	for (int i = 0; i < 1500 && (count_lines(ack[0]) < 300 || count_lines(ack[1]) < 300); i++)
		ts_msleep(20);
	ck_assert_int_ge(count_lines(ack[0]), 300);
	ck_assert_int_ge(count_lines(ack[1]), 300);
	ts_kill9(&s);
	for (int i = 0; i < 2; i++) {
		int rc = tool_wait(load[i], s.datadir, tags[i], 30);
		ck_assert_msg(rc == 1, "%s: exit %d: %s", tags[i], rc, tool_err);
		ck_assert_msg(strstr(tool_err, "lost the server") != NULL, "%s", tool_err);
	}
	ts_start(&s, s.datadir, NULL, 0); /* the same store */
	snprintf(server, sizeof server, "127.0.0.1:%d", s.port);
	for (int i = 0; i < 2; i++) {
		const char *args[] = {"load", "--server", server, "--verify", ack[i], NULL};
		int rc = tool_run(s.datadir, args, 60);
		ck_assert_msg(rc == 0, "%s: exit %d: %s", tags[i], rc, tool_err);
		char want[64];
		snprintf(want, sizeof want, "all %ld acknowledged moves", count_lines(ack[i]));
		ck_assert_msg(strstr(tool_out, want) != NULL, "%s", tool_out);
	}
	/* the check can fail: a move nobody acknowledged, after the last of a game */
	snprintf(bad, sizeof bad, "%s/bad.ack", s.datadir);
	FILE *in = fopen(ack[0], "r"), *out = fopen(bad, "w");
	ck_assert(in != NULL && out != NULL);
	long long game = 0;
	int c;
	ck_assert_int_eq(fscanf(in, "%lld", &game), 1);
	rewind(in);
	while ((c = fgetc(in)) != EOF)
		fputc(c, out);
	fprintf(out, "%lld 200 a1\n", game);
	fclose(in);
	fclose(out);
	const char *args[] = {"load", "--server", server, "--verify", bad, NULL};
	int rc = tool_run(s.datadir, args, 60);
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(tool_err, "acknowledged ply 200 (a1) is missing from the record") !=
	                      NULL,
	              "%s", tool_err);
	ts_down(&s);
}
END_TEST

static Suite *load_suite(void)
{
	Suite *s = suite_create("load");
	TCase *tc = tcase_create("checks");
	tcase_add_test(tc, scan_top_level_only);
	tcase_add_test(tc, stream_order);
	tcase_add_test(tc, percentiles);
	tcase_add_test(tc, proc_readings);
	suite_add_tcase(s, tc);
	tc = tcase_create("fake");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, fake_honest_passes);
	tcase_add_test(tc, fake_skipped_state_fails);
	tcase_add_test(tc, fake_missing_ok_fails);
	tcase_add_test(tc, fake_lost_server_fails);
	suite_add_tcase(s, tc);
	tc = tcase_create("bitarenad");
	tcase_set_timeout(tc, 150);
	tcase_add_test(tc, real_ttt);
	tcase_add_test(tc, real_mnk);
	tcase_add_test(tc, real_tak);
	tcase_add_test(tc, real_xmas);
	tcase_add_test(tc, real_paced);
	if (HAVE_WEBSOCKETS) {
		tcase_add_test(tc, real_ws_ttt);
		tcase_add_test(tc, real_ws_tak_spectators);
		tcase_add_test(tc, ws_arguments);
	} else {
		printf("check_load: this build has no WebSocket "
		       "(./configure --without-websockets): the --ws runs are skipped\n");
		tcase_add_test(tc, ws_not_built);
	}
	tcase_add_test(tc, real_legacy_pairs);
	tcase_add_test(tc, kill9_loses_no_acknowledged_move);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	return check_run(load_suite());
}
