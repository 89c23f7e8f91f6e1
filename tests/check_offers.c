/*
 * check_offers.c - offers, clocks, reconnection and round-trip times over
 * the real server: starts bitarenad ($BITARENAD) on a free port of 127.0.0.1
 * (--port-file tells which) and drives it with sockets in JSON mode. Draw
 * offer/decline/accept/lapse, takebacks (position and clocks restored,
 * spectators told), abort before the second ply and not after, rematch with
 * seats swapped, the flag with an increment, coming back within the grace
 * (the clock ran meanwhile), abandonment after it, a flag falling while the
 * player is away, and the server's ping/pong round-trip time in who and in
 * the states. The lag allowance is checked as a function.
 *
 * Each server runs in a fresh temporary directory, so whatever it stores
 * there (its default data directory) starts empty and is removed after.
 * The socket helpers are a trimmed copy of check_server.c's. Waiting for a
 * line is bounded (LINE_WAIT_MS); nothing asserts how fast anything happens.
 */
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

#include "server/offers.h"
#include "tmpdir.h"

#define LINE_WAIT_MS 10000

/* ---- the server process ------------------------------------------------------------ */

struct srv {
	pid_t pid;
	int port;
	char portfile[256];
	char dir[256]; /* the server's working directory: its default data directory is in it */
};

static void msleep(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* Starts bitarenad on 127.0.0.1:0 with extra arguments (NULL-terminated). */
static void srv_start(struct srv *s, ...)
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
	argv[n++] = "127.0.0.1:0";
	argv[n++] = "--port-file";
	argv[n++] = s->portfile;
	va_list ap;
	va_start(ap, s);
	const char *a;
	while ((a = va_arg(ap, const char *)) != NULL && n < 31)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	tmpdir_make(s->dir, sizeof s->dir, "check_offers");
	s->pid = fork();
	ck_assert_int_ge(s->pid, 0);
	if (s->pid == 0) {
		if (chdir(s->dir) != 0)
			_exit(126);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	s->port = 0;
	for (int i = 0; i < 2000 && s->port == 0; i++) {
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
			msleep(10);
		}
	}
	ck_assert_int_gt(s->port, 0);
}

/* SIGTERM; the server must exit 0 (clean shutdown, every handle closed). */
static void srv_stop(struct srv *s)
{
	int st = 0;
	ck_assert_int_eq(kill(s->pid, SIGTERM), 0);
	ck_assert_int_eq(waitpid(s->pid, &st, 0), s->pid);
	unlink(s->portfile);
	tmpdir_remove(s->dir);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "bitarenad exit status %d", st);
}

/* ---- clients ----------------------------------------------------------------------- */

struct cli {
	int fd;
	size_t len;
	char buf[1 << 16];
};

static void cli_open(struct cli *c, int port)
{
	c->len = 0;
	c->fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(c->fd, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(c->fd, (struct sockaddr *)&a, sizeof a), 0);
}

static void cli_close(struct cli *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

static void cli_send(struct cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cli_send(struct cli *c, const char *fmt, ...)
{
	char line[4096];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	ck_assert(n >= 0 && (size_t)n < sizeof line - 1);
	line[n++] = '\n';
	const char *p = line;
	size_t left = (size_t)n;
	while (left > 0) {
		ssize_t w = write(c->fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		ck_assert_int_gt(w, 0);
		p += w;
		left -= (size_t)w;
	}
}

/* The next line (malloc'd, without its newline), or NULL at EOF or after the wait. */
static char *cli_line(struct cli *c)
{
	for (;;) {
		char *nl = memchr(c->buf, '\n', c->len);
		if (nl != NULL) {
			size_t n = (size_t)(nl - c->buf);
			char *line = malloc(n + 1);
			memcpy(line, c->buf, n);
			line[n] = '\0';
			memmove(c->buf, nl + 1, c->len - n - 1);
			c->len -= n + 1;
			return line;
		}
		ck_assert_msg(c->len < sizeof c->buf, "line too long from the server");
		struct pollfd p = {.fd = c->fd, .events = POLLIN};
		if (poll(&p, 1, LINE_WAIT_MS) <= 0)
			return NULL;
		ssize_t got = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
		if (got <= 0)
			return NULL;
		c->len += (size_t)got;
	}
}

/* Does got hold every field of pat with the same value (arrays element by element)? */
static bool json_match(const cJSON *pat, const cJSON *got)
{
	if (got == NULL)
		return false;
	if (cJSON_IsObject(pat)) {
		if (!cJSON_IsObject(got))
			return false;
		for (const cJSON *f = pat->child; f != NULL; f = f->next)
			if (!json_match(f, cJSON_GetObjectItemCaseSensitive(got, f->string)))
				return false;
		return true;
	}
	if (cJSON_IsArray(pat)) {
		if (!cJSON_IsArray(got) || cJSON_GetArraySize(pat) != cJSON_GetArraySize(got))
			return false;
		const cJSON *g = got->child;
		for (const cJSON *f = pat->child; f != NULL; f = f->next, g = g->next)
			if (!json_match(f, g))
				return false;
		return true;
	}
	return cJSON_Compare(pat, got, true);
}

static bool line_match(const char *pattern, const char *line)
{
	if (pattern[0] == '{') {
		cJSON *p = cJSON_Parse(pattern), *g = cJSON_Parse(line);
		ck_assert_msg(p != NULL, "bad JSON in a pattern: %s", pattern);
		bool ok = g != NULL && json_match(p, g);
		cJSON_Delete(p);
		cJSON_Delete(g);
		return ok;
	}
	return fnmatch(pattern, line, 0) == 0;
}

/* The next line must match pattern; returns it parsed when it is JSON (caller frees). */
static cJSON *expect(struct cli *c, const char *pattern)
{
	char *l = cli_line(c);
	ck_assert_msg(l != NULL, "no line; expected %s", pattern);
	ck_assert_msg(line_match(pattern, l), "expected %s\n     got %s", pattern, l);
	cJSON *j = cJSON_Parse(l);
	free(l);
	return j;
}

static void expect0(struct cli *c, const char *pattern)
{
	cJSON_Delete(expect(c, pattern));
}

/* expect() with a printf pattern. */
static cJSON *expectf(struct cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static cJSON *expectf(struct cli *c, const char *fmt, ...)
{
	char pat[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pat, sizeof pat, fmt, ap);
	va_end(ap);
	return expect(c, pat);
}

/* Skips lines until one matches pattern; returns it parsed when JSON. */
static cJSON *until(struct cli *c, const char *pattern)
{
	for (;;) {
		char *l = cli_line(c);
		ck_assert_msg(l != NULL, "no line matching %s", pattern);
		if (line_match(pattern, l)) {
			cJSON *j = cJSON_Parse(l);
			free(l);
			return j;
		}
		free(l);
	}
}

/* Connects, checks the welcome, switches to JSON, logs in as name. */
static void join(struct cli *c, int port, const char *name)
{
	cli_open(c, port);
	expect0(c, "bitarenad * ready*");
	cli_send(c, "set format json");
	expect0(c, "{\"type\":\"ok\",\"cmd\":\"set\",\"format\":\"json\"}");
	cli_send(c, "login %s", name);
	expect0(c, "{\"type\":\"ok\",\"cmd\":\"login\"}");
}

static int jint(const cJSON *j, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, k);
	ck_assert_msg(cJSON_IsNumber(v), "no number %s", k);
	return v->valueint;
}

/* clocks[seat] of a state or game_over. */
static int clock_of(const cJSON *j, int seat)
{
	const cJSON *a = cJSON_GetObjectItem(j, "clocks");
	ck_assert_msg(cJSON_IsArray(a), "no clocks");
	return cJSON_GetArrayItem(a, seat)->valueint;
}

/*
 * a seeks kind_opts as the first seat, b accepts; both get ok, game_start and
 * the first state. Returns the game id; *first (may be NULL) gets a's first state.
 */
static int start_game(struct cli *a, struct cli *b, const char *kind_opts, cJSON **first)
{
	cli_send(a, "seek %s color=first", kind_opts);
	cJSON *ok = expect(a, "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	int seek = jint(cJSON_GetObjectItem(ok, "seek"), "id");
	cJSON_Delete(ok);
	cJSON_Delete(until(b, "{\"type\":\"seek\",\"event\":\"new\"}"));
	cli_send(b, "accept %d", seek);
	cJSON *acc = expect(b, "{\"type\":\"ok\",\"cmd\":\"accept\"}");
	int id = jint(acc, "game");
	cJSON_Delete(acc);
	expect0(b, "{\"type\":\"seek\",\"event\":\"gone\"}");
	expect0(a, "{\"type\":\"game_start\",\"seat\":0}");
	cJSON *st = expect(a, "{\"type\":\"state\",\"seq\":1,\"ply\":0,\"seat\":0}");
	if (first != NULL)
		*first = st;
	else
		cJSON_Delete(st);
	expect0(b, "{\"type\":\"game_start\",\"seat\":1}");
	expect0(b, "{\"type\":\"state\",\"seq\":1,\"ply\":0,\"seat\":1}");
	return id;
}

/* who plays move in game id: the ok, then the state at seq to both (and w, if not NULL). */
static cJSON *play(struct cli *who, struct cli *other, struct cli *w, int id, const char *move,
                   int seq)
{
	cli_send(who, "move %d %s", id, move);
	cJSON_Delete(expectf(who, "{\"type\":\"ok\",\"cmd\":\"move\",\"move\":\"%s\"}", move));
	cJSON *st = expectf(who, "{\"type\":\"state\",\"seq\":%d,\"last_move\":\"%s\"}", seq, move);
	cJSON_Delete(expectf(other, "{\"type\":\"state\",\"seq\":%d}", seq));
	if (w != NULL)
		cJSON_Delete(expectf(w, "{\"type\":\"state\",\"seq\":%d}", seq));
	return st;
}

static void play0(struct cli *who, struct cli *other, struct cli *w, int id, const char *move,
                  int seq)
{
	cJSON_Delete(play(who, other, w, id, move, seq));
}

/* The same announcement to every client of the NULL-terminated list. */
static void all_see(const char *pattern, ...)
{
	va_list ap;
	va_start(ap, pattern);
	struct cli *c;
	while ((c = va_arg(ap, struct cli *)) != NULL)
		expect0(c, pattern);
	va_end(ap);
}

/* ---- draw ------------------------------------------------------------------------------ */

START_TEST(test_draw)
{
	struct srv s;
	struct cli a, b, w;
	srv_start(&s, NULL);
	join(&a, s.port, "alice");
	join(&b, s.port, "bob");
	join(&w, s.port, "wendy");
	int id = start_game(&a, &b, "ttt", NULL);
	cJSON_Delete(until(&w, "{\"type\":\"seek\",\"event\":\"gone\"}"));
	cli_send(&w, "watch %d", id);
	expect0(&w, "{\"type\":\"ok\",\"cmd\":\"watch\"}");
	expect0(&w, "{\"type\":\"state\",\"seq\":1}");

	/* nothing to answer yet; a spectator cannot offer */
	cli_send(&b, "draw %d accept", id);
	expect0(&b, "{\"type\":\"error\",\"code\":\"NO_OFFER\",\"cmd\":\"draw\"}");
	cli_send(&b, "draw %d decline", id);
	expect0(&b, "{\"type\":\"error\",\"code\":\"NO_OFFER\"}");
	cli_send(&w, "draw %d", id);
	expect0(&w, "{\"type\":\"error\",\"code\":\"NOT_YOUR_GAME\"}");
	cli_send(&a, "draw %d maybe", id);
	expect0(&a, "{\"type\":\"error\",\"code\":\"BAD_ARGS\"}");

	/* offer, declined */
	cli_send(&a, "draw %d offer", id);
	expect0(&a, "{\"type\":\"ok\",\"cmd\":\"draw\"}");
	const char *offer = "{\"type\":\"offer\",\"what\":\"draw\",\"event\":\"offer\","
	                    "\"by\":\"alice\",\"seat\":0}";
	all_see(offer, &a, &b, &w, NULL);
	cli_send(&a, "draw %d accept", id); /* one's own offer cannot be accepted */
	expect0(&a, "{\"type\":\"error\",\"code\":\"NO_OFFER\"}");
	cli_send(&b, "draw %d decline", id);
	expect0(&b, "{\"type\":\"ok\",\"cmd\":\"draw\"}");
	all_see("{\"type\":\"offer\",\"what\":\"draw\",\"event\":\"decline\",\"by\":\"bob\"}", &a,
	        &b, &w, NULL);
	cli_send(&b, "draw %d accept", id);
	expect0(&b, "{\"type\":\"error\",\"code\":\"NO_OFFER\"}");

	/* an offer lapses when its author moves */
	cli_send(&a, "draw %d", id);
	expect0(&a, "{\"type\":\"ok\",\"cmd\":\"draw\"}");
	all_see(offer, &a, &b, &w, NULL);
	cli_send(&a, "move %d b2", id);
	expect0(&a, "{\"type\":\"ok\",\"cmd\":\"move\"}");
	const char *lapse = "{\"type\":\"offer\",\"what\":\"draw\",\"event\":\"lapse\","
	                    "\"by\":\"alice\"}";
	expect0(&a, lapse);
	expect0(&a, "{\"type\":\"state\",\"seq\":2}");
	expect0(&b, lapse);
	expect0(&b, "{\"type\":\"state\",\"seq\":2}");
	expect0(&w, lapse);
	expect0(&w, "{\"type\":\"state\",\"seq\":2}");
	cli_send(&b, "draw %d accept", id);
	expect0(&b, "{\"type\":\"error\",\"code\":\"NO_OFFER\"}");

	/* withdrawn */
	cli_send(&b, "draw %d offer", id);
	expect0(&b, "{\"type\":\"ok\"}");
	all_see("{\"type\":\"offer\",\"event\":\"offer\",\"by\":\"bob\"}", &a, &b, &w, NULL);
	cli_send(&b, "draw %d withdraw", id);
	expect0(&b, "{\"type\":\"ok\"}");
	all_see("{\"type\":\"offer\",\"event\":\"withdraw\",\"by\":\"bob\"}", &a, &b, &w, NULL);
	cli_send(&b, "draw %d withdraw", id);
	expect0(&b, "{\"type\":\"error\",\"code\":\"NO_OFFER\"}");

	/* the opponent's offer stands through one's own move; two offers make a draw */
	cli_send(&b, "draw %d", id);
	expect0(&b, "{\"type\":\"ok\"}");
	all_see("{\"type\":\"offer\",\"event\":\"offer\",\"by\":\"bob\"}", &a, &b, &w, NULL);
	cli_send(&a, "draw %d offer", id);
	expect0(&a, "{\"type\":\"ok\",\"cmd\":\"draw\"}");
	const char *over = "{\"type\":\"game_over\",\"result\":{\"winner\":null,\"score\":"
	                   "\"1/2-1/2\",\"reason\":\"agreement\"}}";
	all_see("{\"type\":\"offer\",\"event\":\"accept\",\"by\":\"alice\"}", &a, &b, &w, NULL);
	all_see(over, &a, &b, &w, NULL);
	cli_send(&a, "draw %d", id);
	expect0(&a, "{\"type\":\"error\",\"code\":\"GAME_OVER\"}");

	/* a second game: accept by word */
	id = start_game(&a, &b, "ttt", NULL);
	cli_send(&b, "draw %d", id);
	expect0(&b, "{\"type\":\"ok\"}");
	all_see("{\"type\":\"offer\",\"event\":\"offer\",\"by\":\"bob\"}", &a, &b, NULL);
	cli_send(&a, "draw %d accept", id);
	expect0(&a, "{\"type\":\"ok\"}");
	all_see("{\"type\":\"offer\",\"event\":\"accept\",\"by\":\"alice\"}", &a, &b, NULL);
	all_see(over, &a, &b, NULL);
	cli_close(&a);
	cli_close(&b);
	cli_close(&w);
	srv_stop(&s);
}
END_TEST

/* ---- undo ------------------------------------------------------------------------------ */

START_TEST(test_undo)
{
	struct srv s;
	struct cli a, b, w;
	srv_start(&s, NULL);
	join(&a, s.port, "alice");
	join(&b, s.port, "bob");
	join(&w, s.port, "wendy");
	cJSON *first = NULL;
	int id = start_game(&a, &b, "ttt time=5+3", &first);
	cJSON_Delete(until(&w, "{\"type\":\"seek\",\"event\":\"gone\"}"));
	cli_send(&w, "watch %d", id);
	expect0(&w, "{\"type\":\"ok\",\"cmd\":\"watch\"}");
	expect0(&w, "{\"type\":\"state\",\"seq\":1}");

	cli_send(&a, "undo %d", id);
	expect0(&a, "{\"type\":\"error\",\"code\":\"NOT_NOW\",\"cmd\":\"undo\"}");
	cJSON *after_b2 = play(&a, &b, &w, id, "b2", 2);
	int x_after_b2 = clock_of(after_b2, 0);
	ck_assert_int_gt(x_after_b2, 300000); /* the increment */
	/* bob has no move of his own to take back yet */
	cli_send(&b, "undo %d", id);
	expect0(&b, "{\"type\":\"error\",\"code\":\"NOT_NOW\"}");
	play0(&b, &a, &w, id, "a1", 3);

	/* bob asks while alice is to move: his last ply only */
	cli_send(&b, "undo %d", id);
	expect0(&b, "{\"type\":\"ok\",\"cmd\":\"undo\",\"plies\":1}");
	all_see("{\"type\":\"offer\",\"what\":\"undo\",\"event\":\"offer\",\"by\":\"bob\","
	        "\"plies\":1}",
	        &a, &b, &w, NULL);
	cli_send(&b, "undo %d accept", id);                /* not his own */
	expect0(&b, "{\"type\":\"ok\",\"cmd\":\"undo\"}"); /* "stands" */
	cli_send(&a, "undo %d", id);
	expect0(&a, "{\"type\":\"ok\",\"cmd\":\"undo\",\"plies\":1}");
	all_see("{\"type\":\"offer\",\"what\":\"undo\",\"event\":\"accept\",\"by\":\"alice\"}", &a,
	        &b, &w, NULL);
	cJSON *sa = expect(&a, "{\"type\":\"state\",\"seq\":4,\"ply\":1,\"last_move\":\"b2\","
	                       "\"to_move\":[1]}");
	cJSON *sb = expect(&b, "{\"type\":\"state\",\"seq\":4,\"ply\":1,\"to_move\":[1]}");
	cJSON *sw = expect(&w, "{\"type\":\"state\",\"seq\":4,\"ply\":1,\"seat\":null}");
	/* the position and the waiting clock are those after b2 */
	ck_assert(cJSON_Compare(cJSON_GetObjectItem(sw, "position"),
	                        cJSON_GetObjectItem(after_b2, "position"), true));
	ck_assert_int_eq(clock_of(sw, 0), x_after_b2);
	ck_assert_int_eq(clock_of(sa, 0), x_after_b2);
	ck_assert_int_le(clock_of(sb, 1), 300000);
	ck_assert(cJSON_IsArray(cJSON_GetObjectItem(sb, "legal")));
	cJSON_Delete(sa);
	cJSON_Delete(sb);
	cJSON_Delete(sw);

	/* bob plays again; alice asks on her move: two plies, back to the start */
	play0(&b, &a, &w, id, "c3", 5);
	cli_send(&a, "undo %d", id);
	expect0(&a, "{\"type\":\"ok\",\"plies\":2}");
	all_see("{\"type\":\"offer\",\"what\":\"undo\",\"event\":\"offer\",\"plies\":2}", &a, &b,
	        &w, NULL);
	/* declined, then asked again and lapsed by a move */
	cli_send(&b, "undo %d decline", id);
	expect0(&b, "{\"type\":\"ok\"}");
	all_see("{\"type\":\"offer\",\"what\":\"undo\",\"event\":\"decline\",\"by\":\"bob\"}", &a,
	        &b, &w, NULL);
	cli_send(&b, "undo %d decline", id);
	expect0(&b, "{\"type\":\"error\",\"code\":\"NO_OFFER\"}");
	cli_send(&a, "undo %d", id);
	expect0(&a, "{\"type\":\"ok\",\"plies\":2}");
	all_see("{\"type\":\"offer\",\"what\":\"undo\",\"event\":\"offer\"}", &a, &b, &w, NULL);
	cli_send(&a, "undo %d withdraw", id);
	expect0(&a, "{\"type\":\"ok\"}");
	all_see("{\"type\":\"offer\",\"what\":\"undo\",\"event\":\"withdraw\"}", &a, &b, &w, NULL);
	cli_send(&a, "undo %d", id);
	expect0(&a, "{\"type\":\"ok\",\"plies\":2}");
	all_see("{\"type\":\"offer\",\"what\":\"undo\",\"event\":\"offer\"}", &a, &b, &w, NULL);
	cli_send(&b, "undo %d", id);
	expect0(&b, "{\"type\":\"ok\",\"plies\":2}");
	all_see("{\"type\":\"offer\",\"what\":\"undo\",\"event\":\"accept\",\"plies\":2}", &a, &b,
	        &w, NULL);
	cJSON *s0 = expect(&w, "{\"type\":\"state\",\"seq\":6,\"ply\":0,\"last_move\":null,"
	                       "\"to_move\":[0]}");
	ck_assert(cJSON_Compare(cJSON_GetObjectItem(s0, "position"),
	                        cJSON_GetObjectItem(first, "position"), true));
	ck_assert_int_eq(clock_of(s0, 1), 300000);
	cJSON_Delete(s0);
	expect0(&a, "{\"type\":\"state\",\"seq\":6,\"ply\":0}");
	expect0(&b, "{\"type\":\"state\",\"seq\":6,\"ply\":0}");

	/* the game goes on from there; a request lapses at the next move */
	play0(&a, &b, &w, id, "a3", 7);
	cli_send(&a, "undo %d", id);
	expect0(&a, "{\"type\":\"ok\",\"plies\":1}");
	all_see("{\"type\":\"offer\",\"what\":\"undo\",\"event\":\"offer\"}", &a, &b, &w, NULL);
	cli_send(&b, "move %d b2", id);
	expect0(&b, "{\"type\":\"ok\"}");
	const char *lapse = "{\"type\":\"offer\",\"what\":\"undo\",\"event\":\"lapse\"}";
	expect0(&b, lapse);
	expect0(&b, "{\"type\":\"state\",\"seq\":8,\"ply\":2}");
	expect0(&a, lapse);
	expect0(&a, "{\"type\":\"state\",\"seq\":8}");
	expect0(&w, lapse);
	expect0(&w, "{\"type\":\"state\",\"seq\":8}");
	cli_send(&b, "undo %d", id);
	expect0(&b, "{\"type\":\"ok\",\"plies\":1}");
	all_see("{\"type\":\"offer\",\"what\":\"undo\",\"event\":\"offer\"}", &a, &b, &w, NULL);
	cli_send(&w, "undo %d", id);
	expect0(&w, "{\"type\":\"error\",\"code\":\"NOT_YOUR_GAME\"}");
	cli_send(&a, "resign %d", id);
	expect0(&a, "{\"type\":\"ok\"}");
	cJSON_Delete(until(&a, "{\"type\":\"game_over\"}"));
	cli_send(&a, "undo %d", id);
	expect0(&a, "{\"type\":\"error\",\"code\":\"GAME_OVER\"}");
	cJSON_Delete(after_b2);
	cJSON_Delete(first);
	cli_close(&a);
	cli_close(&b);
	cli_close(&w);
	srv_stop(&s);
}
END_TEST

/* ---- abort ----------------------------------------------------------------------------- */

START_TEST(test_abort)
{
	struct srv s;
	struct cli a, b, c;
	srv_start(&s, NULL);
	join(&a, s.port, "alice");
	join(&b, s.port, "bob");
	join(&c, s.port, "carol");
	const char *over = "{\"type\":\"game_over\",\"result\":{\"winner\":null,\"score\":\"*\","
	                   "\"reason\":\"aborted\"}}";
	/* before any move, by the second seat */
	int id = start_game(&a, &b, "ttt", NULL);
	cli_send(&c, "abort %d", id);
	cJSON_Delete(until(&c, "{\"type\":\"error\",\"code\":\"NOT_YOUR_GAME\"}"));
	cli_send(&b, "abort %d", id);
	expect0(&b, "{\"type\":\"ok\",\"cmd\":\"abort\"}");
	all_see("{\"type\":\"offer\",\"what\":\"abort\",\"event\":\"abort\",\"by\":\"bob\"}", &a,
	        &b, NULL);
	all_see(over, &a, &b, NULL);
	cli_send(&a, "abort %d", id);
	expect0(&a, "{\"type\":\"error\",\"code\":\"GAME_OVER\"}");

	/* after one ply, by the side that moved */
	id = start_game(&a, &b, "ttt", NULL);
	play0(&a, &b, NULL, id, "b2", 2);
	cli_send(&a, "abort %d", id);
	expect0(&a, "{\"type\":\"ok\",\"cmd\":\"abort\"}");
	all_see("{\"type\":\"offer\",\"what\":\"abort\",\"by\":\"alice\"}", &a, &b, NULL);
	all_see(over, &a, &b, NULL);

	/* not once both sides have moved */
	id = start_game(&a, &b, "ttt", NULL);
	play0(&a, &b, NULL, id, "b2", 2);
	play0(&b, &a, NULL, id, "a1", 3);
	cli_send(&a, "abort %d", id);
	expect0(&a, "{\"type\":\"error\",\"code\":\"NOT_NOW\",\"cmd\":\"abort\"}");
	cli_send(&b, "abort %d", id);
	expect0(&b, "{\"type\":\"error\",\"code\":\"NOT_NOW\"}");
	cli_send(&a, "abort 999");
	expect0(&a, "{\"type\":\"error\",\"code\":\"NO_SUCH_GAME\"}");
	cli_send(&a, "abort x");
	expect0(&a, "{\"type\":\"error\",\"code\":\"BAD_ARGS\"}");
	cli_close(&a);
	cli_close(&b);
	cli_close(&c);
	srv_stop(&s);
}
END_TEST

/* ---- rematch --------------------------------------------------------------------------- */

START_TEST(test_rematch)
{
	struct srv s;
	struct cli a, b;
	srv_start(&s, NULL);
	join(&a, s.port, "alice");
	join(&b, s.port, "bob");
	int id = start_game(&a, &b, "mnk m=4 n=4 k=3 time=2+1", NULL);
	cli_send(&a, "rematch %d", id);
	expect0(&a, "{\"type\":\"error\",\"code\":\"NOT_NOW\",\"cmd\":\"rematch\"}");
	cli_send(&a, "resign %d", id);
	expect0(&a, "{\"type\":\"ok\"}");
	all_see("{\"type\":\"game_over\",\"result\":{\"winner\":1,\"reason\":\"resign\"}}", &a, &b,
	        NULL);
	cli_send(&b, "rematch %d accept", id);
	expect0(&b, "{\"type\":\"error\",\"code\":\"NO_OFFER\"}");

	/* offered, declined; offered again, accepted */
	cli_send(&a, "rematch %d", id);
	expect0(&a, "{\"type\":\"ok\",\"cmd\":\"rematch\"}");
	all_see("{\"type\":\"offer\",\"what\":\"rematch\",\"event\":\"offer\",\"by\":\"alice\"}",
	        &a, &b, NULL);
	cli_send(&b, "rematch %d decline", id);
	expect0(&b, "{\"type\":\"ok\"}");
	all_see("{\"type\":\"offer\",\"what\":\"rematch\",\"event\":\"decline\"}", &a, &b, NULL);
	cli_send(&a, "rematch %d", id);
	expect0(&a, "{\"type\":\"ok\"}");
	all_see("{\"type\":\"offer\",\"what\":\"rematch\",\"event\":\"offer\"}", &a, &b, NULL);
	cli_send(&b, "rematch %d", id);
	cJSON *ok = expect(&b, "{\"type\":\"ok\",\"cmd\":\"rematch\"}");
	int nid = jint(ok, "new_game");
	cJSON_Delete(ok);
	ck_assert_int_ne(nid, id);
	char pat[256];
	snprintf(pat, sizeof pat,
	         "{\"type\":\"offer\",\"what\":\"rematch\",\"event\":\"accept\",\"by\":\"bob\","
	         "\"new_game\":%d}",
	         nid);
	all_see(pat, &a, &b, NULL);
	/* seats swapped, same kind, options and time */
	snprintf(pat, sizeof pat,
	         "{\"type\":\"game_start\",\"game\":%d,\"kind\":\"mnk\",\"options\":{\"m\":4,"
	         "\"n\":4,\"k\":3},\"players\":[\"bob\",\"alice\"],\"time\":{\"base_ms\":120000,"
	         "\"inc_ms\":1000}}",
	         nid);
	expect0(&b, pat);
	expect0(&a, pat);
	cJSON_Delete(
	        expectf(&b, "{\"type\":\"state\",\"game\":%d,\"seat\":0,\"to_move\":[0]}", nid));
	cJSON_Delete(expectf(&a, "{\"type\":\"state\",\"game\":%d,\"seat\":1}", nid));
	cli_send(&a, "rematch %d", id);
	expect0(&a, "{\"type\":\"error\",\"code\":\"NOT_NOW\"}");
	play0(&b, &a, NULL, nid, "a1", 2);

	/* a rematch needs the opponent here */
	cli_send(&b, "resign %d", nid);
	expect0(&b, "{\"type\":\"ok\"}");
	all_see("{\"type\":\"game_over\"}", &b, &a, NULL);
	cli_send(&a, "quit");
	expect0(&a, "{\"type\":\"ok\",\"cmd\":\"quit\"}");
	cli_close(&a);
	cli_send(&b, "rematch %d", nid);
	expect0(&b, "{\"type\":\"error\",\"code\":\"NOT_NOW\"}");
	cli_close(&b);
	srv_stop(&s);
}
END_TEST

/* ---- clocks ------------------------------------------------------------------------------ */

START_TEST(test_flag_with_increment)
{
	struct srv s;
	struct cli a, b;
	srv_start(&s, NULL);
	join(&a, s.port, "alice");
	join(&b, s.port, "bob");
	int id = start_game(&a, &b, "ttt time=0:02+1", NULL);
	/* each quick move adds a second: the clocks end above the 2 s base */
	cJSON *st = play(&a, &b, NULL, id, "b2", 2);
	int x = clock_of(st, 0);
	cJSON_Delete(st);
	st = play(&b, &a, NULL, id, "a1", 3);
	int o = clock_of(st, 1);
	cJSON_Delete(st);
	ck_assert_int_gt(x, 1000);
	ck_assert_int_le(x, 3000);
	ck_assert_int_gt(o, 1000);
	ck_assert_int_le(o, 3000);
	/* alice lets her flag fall: bob wins on time, the final clocks come with game_over */
	const char *over = "{\"type\":\"game_over\",\"result\":{\"winner\":1,\"winner_name\":"
	                   "\"bob\",\"score\":\"0-1\",\"reason\":\"timeout\"}}";
	cJSON *g = expect(&a, over);
	ck_assert_int_eq(clock_of(g, 0), 0);
	ck_assert_int_eq(clock_of(g, 1), o); /* bob's clock stood still */
	cJSON_Delete(g);
	expect0(&b, over);
	cli_send(&a, "move %d c3", id);
	expect0(&a, "{\"type\":\"error\",\"code\":\"GAME_OVER\"}");
	cli_close(&a);
	cli_close(&b);
	srv_stop(&s);
}
END_TEST

/* ---- reconnection ------------------------------------------------------------------------ */

/* b drops (no quit); a (and w) are told with the grace. */
static void drop(struct cli *b, struct cli *a, int grace_ms)
{
	cli_close(b);
	char pat[160];
	snprintf(pat, sizeof pat,
	         "{\"type\":\"info\",\"event\":\"gone\",\"player\":\"bob\",\"seat\":1,"
	         "\"grace_ms\":%d}",
	         grace_ms);
	expect0(a, pat);
}

START_TEST(test_reconnect_within_grace)
{
	struct srv s;
	struct cli a, b;
	srv_start(&s, NULL); /* the default grace: 120 s */
	join(&a, s.port, "alice");
	join(&b, s.port, "bob");
	int id = start_game(&a, &b, "ttt time=5+0", NULL);
	play0(&a, &b, NULL, id, "b2", 2);
	drop(&b, &a, 120000);
	msleep(30);              /* some time passes while bob is away */
	join(&b, s.port, "bob"); /* the login reply says which game came back */
	cJSON *gs = expect(&b, "{\"type\":\"game_start\",\"seat\":1,\"players\":[\"alice\","
	                       "\"bob\"],\"time\":{\"base_ms\":300000,\"inc_ms\":0}}");
	cJSON_Delete(gs);
	cJSON *st = expect(&b, "{\"type\":\"state\",\"seq\":2,\"seat\":1,\"to_move\":[1],"
	                       "\"last_move\":\"b2\"}");
	/* bob's clock kept running while he was away */
	ck_assert_int_lt(clock_of(st, 1), 300000);
	ck_assert(cJSON_IsArray(cJSON_GetObjectItem(st, "legal")));
	cJSON_Delete(st);
	expect0(&a, "{\"type\":\"info\",\"event\":\"back\",\"player\":\"bob\",\"seat\":1}");
	play0(&b, &a, NULL, id, "a1", 3);
	cli_close(&a);
	cli_close(&b);
	srv_stop(&s);
}
END_TEST

START_TEST(test_abandoned_after_grace)
{
	struct srv s;
	struct cli a, b;
	srv_start(&s, "--grace", "1", NULL);
	join(&a, s.port, "alice");
	join(&b, s.port, "bob");
	int id = start_game(&a, &b, "ttt time=5+0", NULL);
	play0(&a, &b, NULL, id, "b2", 2);
	drop(&b, &a, 1000);
	expect0(&a, "{\"type\":\"game_over\",\"result\":{\"winner\":0,\"score\":\"1-0\","
	            "\"reason\":\"abandoned\"}}");
	/* too late: nothing to resume */
	cli_open(&b, s.port);
	expect0(&b, "bitarenad * ready*");
	cli_send(&b, "set format json");
	expect0(&b, "{\"type\":\"ok\"}");
	cli_send(&b, "login bob");
	expect0(&b, "{\"type\":\"ok\",\"cmd\":\"login\",\"resumed\":[]}");
	cli_send(&b, "move %d a1", id);
	expect0(&b, "{\"type\":\"error\",\"code\":\"NOT_YOUR_GAME\"}");
	cli_close(&a);
	cli_close(&b);
	srv_stop(&s);
}
END_TEST

START_TEST(test_flag_while_away)
{
	struct srv s;
	struct cli a, b;
	srv_start(&s, "--grace", "60", NULL);
	join(&a, s.port, "alice");
	join(&b, s.port, "bob");
	int id = start_game(&a, &b, "ttt time=0:01+0", NULL);
	play0(&a, &b, NULL, id, "b2", 2);
	drop(&b, &a, 60000);
	/* bob's clock runs out long before his grace: a loss on time, not abandonment */
	cJSON *g = expect(&a, "{\"type\":\"game_over\",\"result\":{\"winner\":0,\"reason\":"
	                      "\"timeout\"}}");
	ck_assert_int_eq(clock_of(g, 1), 0);
	cJSON_Delete(g);
	cli_close(&a);
	srv_stop(&s);
}
END_TEST

/* ---- round-trip time ------------------------------------------------------------------------ */

/* The who entry of name. */
static const cJSON *who_entry(const cJSON *who, const char *name)
{
	const cJSON *u;
	cJSON_ArrayForEach(u, cJSON_GetObjectItem(who, "users"))
	{
		if (strcmp(cJSON_GetObjectItem(u, "name")->valuestring, name) == 0)
			return u;
	}
	ck_abort_msg("%s is not in who", name);
	return NULL;
}

START_TEST(test_rtt)
{
	struct srv s;
	struct cli a, b;
	srv_start(&s, NULL);
	join(&a, s.port, "alice");
	join(&b, s.port, "bob");
	cli_send(&a, "who");
	cJSON *who = expect(&a, "{\"type\":\"ok\",\"cmd\":\"who\"}");
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(who_entry(who, "alice"), "rtt_ms")));
	cJSON_Delete(who);

	/* asking for pings: one comes at once; answering it gives the round-trip time */
	cli_send(&a, "pong 1");
	expect0(&a, "{\"type\":\"error\",\"code\":\"NO_PING\",\"cmd\":\"pong\"}");
	cli_send(&a, "set ping maybe");
	expect0(&a, "{\"type\":\"error\",\"code\":\"BAD_ARGS\"}");
	cli_send(&a, "set ping on");
	expect0(&a, "{\"type\":\"ok\",\"cmd\":\"set\",\"ping\":true}");
	cJSON *p = expect(&a, "{\"type\":\"ping\"}");
	int token = jint(p, "token");
	cJSON_Delete(p);
	cli_send(&a, "pong %d", token + 1);
	expect0(&a, "{\"type\":\"error\",\"code\":\"NO_PING\"}");
	cli_send(&a, "pong %d", token);
	cJSON *ok = expect(&a, "{\"type\":\"ok\",\"cmd\":\"pong\"}");
	int rtt = jint(ok, "rtt_ms");
	ck_assert_int_ge(rtt, 0);
	ck_assert_int_eq(rtt, jint(ok, "sample_ms"));
	cJSON_Delete(ok);
	cli_send(&a, "pong %d", token); /* answered already */
	expect0(&a, "{\"type\":\"error\",\"code\":\"NO_PING\"}");

	/* who shows it; bob, who never asked, has none */
	cli_send(&b, "who");
	who = expect(&b, "{\"type\":\"ok\",\"cmd\":\"who\"}");
	const cJSON *r = cJSON_GetObjectItem(who_entry(who, "alice"), "rtt_ms");
	ck_assert(cJSON_IsNumber(r));
	ck_assert_int_eq(r->valueint, rtt);
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(who_entry(who, "bob"), "rtt_ms")));
	cJSON_Delete(who);

	/* the opponent sees it in game_start and the states */
	cli_send(&a, "seek ttt color=first");
	expect0(&a, "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	cJSON_Delete(until(&b, "{\"type\":\"seek\",\"event\":\"new\"}"));
	cli_send(&b, "accept 1");
	expect0(&b, "{\"type\":\"ok\",\"cmd\":\"accept\"}");
	expect0(&b, "{\"type\":\"seek\",\"event\":\"gone\"}");
	char pat[160];
	snprintf(pat, sizeof pat, "{\"type\":\"game_start\",\"seat\":1,\"rtt_ms\":[%d,null]}", rtt);
	expect0(&b, pat);
	snprintf(pat, sizeof pat, "{\"type\":\"state\",\"seq\":1,\"rtt_ms\":[%d,null]}", rtt);
	expect0(&b, pat);

	/* off again: unknown */
	cli_send(&a, "set ping off");
	cJSON_Delete(until(&a, "{\"type\":\"ok\",\"cmd\":\"set\",\"ping\":false}"));
	cli_send(&a, "who");
	who = expect(&a, "{\"type\":\"ok\",\"cmd\":\"who\"}");
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(who_entry(who, "alice"), "rtt_ms")));
	cJSON_Delete(who);
	cli_close(&a);
	cli_close(&b);
	srv_stop(&s);
}
END_TEST

START_TEST(test_lag_allowance)
{
	ck_assert_int_eq(lag_allowance(-1), 0);
	ck_assert_int_eq(lag_allowance(0), 0);
	ck_assert_int_eq(lag_allowance(120), 120);
	ck_assert_int_eq(lag_allowance(LAG_ALLOWANCE_MAX_MS), LAG_ALLOWANCE_MAX_MS);
	ck_assert_int_eq(lag_allowance(5000), LAG_ALLOWANCE_MAX_MS);
	struct conn c;
	memset(&c, 0, sizeof c);
	ck_assert_int_eq(rtt_charge(&c, 900), 900); /* unknown: charged in full */
	c.has_rtt = true;
	c.rtt_ms = 80;
	ck_assert_int_eq(rtt_charge(&c, 900), 820);
	ck_assert_int_eq(rtt_charge(&c, 50), 0); /* never below zero */
	c.rtt_ms = 2000;
	ck_assert_int_eq(rtt_charge(&c, 900), 400);
}
END_TEST

/* ---- text mode (nc) ------------------------------------------------------------------------ */

START_TEST(test_text_offers)
{
	struct srv s;
	struct cli a, b;
	srv_start(&s, NULL);
	cli_open(&a, s.port);
	expect0(&a, "bitarenad *");
	cli_send(&a, "login alice");
	expect0(&a, "ok logged in as alice*");
	join(&b, s.port, "bob");
	cli_send(&a, "seek ttt color=first time=1+0");
	expect0(&a, "ok seek 1 *");
	cJSON_Delete(until(&b, "{\"type\":\"seek\",\"event\":\"new\"}"));
	cli_send(&b, "accept 1");
	expect0(&b, "{\"type\":\"ok\"}");
	cJSON_Delete(until(&a, "your move: move 1 <move>"));
	cli_send(&a, "draw 1");
	expect0(&a, "ok draw offered in game 1");
	expect0(&a, "offer game 1: alice (X) offers a draw (draw 1 accept / draw 1 decline)");
	cli_send(&a, "set ping on");
	expect0(&a, "ok the server pings you*");
	expect0(&a, "ping 1");
	cli_send(&a, "pong 1");
	expect0(&a, "ok round trip * ms (smoothed * ms)");
	cli_send(&a, "who");
	expect0(&a, "ok 2 users online");
	cJSON_Delete(until(&a, "  alice, rtt * ms, plays 1"));
	cli_send(&a, "abort 1");
	expect0(&a, "ok game 1 aborted");
	expect0(&a, "offer game 1: alice (X) aborts the game");
	expect0(&a, "game 1 over: aborted, no result; clocks: X ?:?? O 1:00");
	cli_close(&a);
	cli_close(&b);
	srv_stop(&s);
}
END_TEST

static Suite *offers_suite(void)
{
	Suite *s = suite_create("offers");
	TCase *tc = tcase_create("offers");
	tcase_add_test(tc, test_draw);
	tcase_add_test(tc, test_undo);
	tcase_add_test(tc, test_abort);
	tcase_add_test(tc, test_rematch);
	tcase_add_test(tc, test_text_offers);
	suite_add_tcase(s, tc);
	tc = tcase_create("clocks");
	tcase_add_test(tc, test_flag_with_increment);
	tcase_add_test(tc, test_reconnect_within_grace);
	tcase_add_test(tc, test_abandoned_after_grace);
	tcase_add_test(tc, test_flag_while_away);
	tcase_add_test(tc, test_rtt);
	tcase_add_test(tc, test_lag_allowance);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	SRunner *sr = srunner_create(offers_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
