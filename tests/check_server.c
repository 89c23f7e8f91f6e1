/*
 * check_server.c - the loopback suite: starts the real bitarenad ($BITARENAD)
 * on a free port of 127.0.0.1 (--port-file tells which), drives it with real
 * sockets, and replays every transcript in $BITARENA_SRCDIR/protocol/examples.
 * Complete games with a spectator who must see every state in order, bad
 * input of every kind, a client vanishing mid-game, coming back within the
 * grace, the flag falling, text mode, pipelining, and a clean exit (status 0)
 * on SIGTERM after every test.
 *
 * Waiting for a line is bounded (LINE_WAIT_MS) so a missing line fails a test
 * instead of hanging it; nothing asserts how fast anything happens.
 */
#include <arpa/inet.h>
#include <check.h>
#include <dirent.h>
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

#include "tmpdir.h"
#include "check_main.h"

#define LINE_WAIT_MS 10000

/* ---- the server process ------------------------------------------------------------ */

struct srv {
	pid_t pid;
	int port;
	char portfile[256];
	char datadir[256]; /* a fresh store for each server (--data) */
};

static void msleep(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* Starts bitarenad on 127.0.0.1 (or listen, when not NULL) with extra arguments. */
static void srv_start_at(struct srv *s, const char *listen, const char *const *extra, int nextra)
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
	tmpdir_make(s->datadir, sizeof s->datadir, "bitarenad-data");
	const char *argv[32];
	int n = 0;
	argv[n++] = bin;
	argv[n++] = "--listen";
	argv[n++] = listen ? listen : "127.0.0.1:0";
	argv[n++] = "--port-file";
	argv[n++] = s->portfile;
	argv[n++] = "--data";
	argv[n++] = s->datadir;
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

static void srv_start(struct srv *s, const char *const *extra, int nextra)
{
	srv_start_at(s, NULL, extra, nextra);
}

/* SIGTERM; the server must exit 0 (clean shutdown, every handle closed). */
static void srv_stop(struct srv *s)
{
	int st = 0;
	ck_assert_int_eq(kill(s->pid, SIGTERM), 0);
	ck_assert_int_eq(waitpid(s->pid, &st, 0), s->pid);
	unlink(s->portfile);
	tmpdir_remove(s->datadir);
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

static void cli_write(struct cli *c, const void *data, size_t n)
{
	const char *p = data;
	while (n > 0) {
		ssize_t w = write(c->fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		ck_assert_int_gt(w, 0);
		p += w;
		n -= (size_t)w;
	}
}

static void cli_send(struct cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cli_send(struct cli *c, const char *fmt, ...)
{
	char line[8192];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	ck_assert(n >= 0 && (size_t)n < sizeof line - 1);
	line[n++] = '\n';
	cli_write(c, line, (size_t)n);
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
		int r = poll(&p, 1, LINE_WAIT_MS);
		if (r <= 0)
			return NULL;
		ssize_t got = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
		if (got <= 0)
			return NULL;
		c->len += (size_t)got;
	}
}

/* Reads what has arrived without waiting; true if a line containing needle was among it. */
static bool cli_drain(struct cli *c, const char *needle)
{
	bool seen = false;
	for (;;) {
		char *nl;
		while ((nl = memchr(c->buf, '\n', c->len)) != NULL) {
			*nl = '\0';
			seen |= strstr(c->buf, needle) != NULL;
			size_t n = (size_t)(nl - c->buf) + 1;
			memmove(c->buf, nl + 1, c->len - n);
			c->len -= n;
		}
		struct pollfd p = {.fd = c->fd, .events = POLLIN};
		if (poll(&p, 1, 0) <= 0)
			return seen;
		ssize_t got = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
		if (got <= 0)
			return seen;
		c->len += (size_t)got;
	}
}

/* True when the server closes c (EOF) within the wait; lines before it are skipped. */
static bool cli_eof(struct cli *c)
{
	char *l;
	while ((l = cli_line(c)) != NULL)
		free(l);
	struct pollfd p = {.fd = c->fd, .events = POLLIN};
	if (poll(&p, 1, 0) < 0)
		return false;
	char b;
	return read(c->fd, &b, 1) == 0;
}

/*
 * Does got hold every field of pat with the same value? Objects compare on pat's
 * fields, arrays element by element (same length), scalars exactly.
 */
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

/* Does line match pattern: JSON subset when the pattern is an object, else a glob. */
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

/* Connects, checks the welcome, logs in as name, switches to JSON. */
static void join(struct cli *c, int port, const char *name)
{
	cli_open(c, port);
	expect0(c, "bitarenad * ready*");
	cli_send(c, "set format json");
	expect0(c, "{\"type\":\"ok\",\"cmd\":\"set\",\"format\":\"json\"}");
	cli_send(c, "login %s", name);
	expect0(c, "{\"type\":\"ok\",\"cmd\":\"login\"}");
}

/* Starts a server (with args) and joins alice, bob and, when w is not NULL, wendy. */
static void setup(struct srv *s, const char *const *args, int nargs, struct cli *a, struct cli *b,
                  struct cli *w)
{
	srv_start(s, args, nargs);
	join(a, s->port, "alice");
	join(b, s->port, "bob");
	if (w != NULL)
		join(w, s->port, "wendy");
}

/* Closes the clients (a NULL-terminated list) and stops the server: it must exit 0. */
static void teardown(struct srv *s, ...)
{
	va_list ap;
	va_start(ap, s);
	struct cli *c;
	while ((c = va_arg(ap, struct cli *)) != NULL)
		cli_close(c);
	va_end(ap);
	srv_stop(s);
}

static int jint(const cJSON *j, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, k);
	ck_assert_msg(cJSON_IsNumber(v), "no number %s", k);
	return v->valueint;
}

/*
 * a seeks kind (with options, seat 0 for a), b accepts; both get ok, game_start
 * and the first state. Returns the game id. Lobby seek notices to b are skipped.
 */
static int start_game(struct cli *a, struct cli *b, const char *kind_opts)
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
	expect0(b, "{\"type\":\"seek\",\"event\":\"gone\"}"); /* hmm: b is not the author */
	expect0(a, "{\"type\":\"game_start\",\"seat\":0}");
	expect0(a, "{\"type\":\"state\",\"seq\":1,\"ply\":0,\"seat\":0}");
	expect0(b, "{\"type\":\"game_start\",\"seat\":1}");
	expect0(b, "{\"type\":\"state\",\"seq\":1,\"ply\":0,\"seat\":1}");
	return id;
}

/* ---- transcripts ------------------------------------------------------------------- */

#define MAX_SCRIPTS 64
static char *scripts[MAX_SCRIPTS];
static int nscripts;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void find_scripts(void)
{
	const char *src = getenv("BITARENA_SRCDIR");
	char dir[1024];
	snprintf(dir, sizeof dir, "%s/protocol/examples", src ? src : ".");
	DIR *d = opendir(dir);
	if (d == NULL)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL && nscripts < MAX_SCRIPTS) {
		size_t n = strlen(e->d_name);
		if (n > 4 && strcmp(e->d_name + n - 4, ".txt") == 0) {
			char *p = malloc(strlen(dir) + n + 2);
			sprintf(p, "%s/%s", dir, e->d_name);
			scripts[nscripts++] = p;
		}
	}
	closedir(d);
	qsort(scripts, (size_t)nscripts, sizeof scripts[0], cmp_str);
}

START_TEST(test_transcript)
{
	const char *path = scripts[_i];
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	static struct cli cl[26];
	bool open[26] = {false};
	struct srv s;
	bool started = false;
	char line[8192];
	int lineno = 0;
	while (fgets(line, sizeof line, f) != NULL) {
		lineno++;
		size_t n = strlen(line);
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n == 0 || line[0] == '#')
			continue;
		if (line[0] == '@') {
			ck_assert_msg(!started, "%s:%d: '@' must come first", path, lineno);
			const char *args[16];
			int na = 0;
			for (char *w = strtok(line + 1, " "); w != NULL && na < 16;
			     w = strtok(NULL, " "))
				args[na++] = w;
			srv_start(&s, args, na);
			started = true;
			continue;
		}
		if (!started) {
			srv_start(&s, NULL, 0);
			started = true;
		}
		ck_assert_msg(line[0] >= 'A' && line[0] <= 'Z' && n >= 2, "%s:%d: bad directive",
		              path, lineno);
		int k = line[0] - 'A';
		char op = line[1];
		const char *arg = line + 2 + (line[2] == ' ');
		if (!open[k] && op != '!') {
			cli_open(&cl[k], s.port);
			open[k] = true;
		}
		switch (op) {
		case '>':
			cli_send(&cl[k], "%s", arg);
			break;
		case '<': {
			char *got = cli_line(&cl[k]);
			ck_assert_msg(got != NULL, "%s:%d: %c got nothing; expected %s", path,
			              lineno, line[0], arg);
			ck_assert_msg(line_match(arg, got), "%s:%d: %c expected %s\n     got %s",
			              path, lineno, line[0], arg, got);
			free(got);
			break;
		}
		case '~': {
			char *got;
			while ((got = cli_line(&cl[k])) != NULL && !line_match(arg, got))
				free(got);
			ck_assert_msg(got != NULL, "%s:%d: %c never got %s", path, lineno, line[0],
			              arg);
			free(got);
			break;
		}
		case '!':
			if (open[k])
				cli_close(&cl[k]);
			open[k] = false;
			break;
		default:
			ck_abort_msg("%s:%d: unknown directive %c", path, lineno, op);
		}
	}
	fclose(f);
	for (int k = 0; k < 26; k++)
		if (open[k])
			cli_close(&cl[k]);
	if (started)
		srv_stop(&s);
}
END_TEST

START_TEST(test_transcripts_exist)
{
	ck_assert_msg(nscripts >= 5, "protocol/examples has %d transcripts", nscripts);
}
END_TEST

/* ---- complete games with a spectator ------------------------------------------------ */

/* A state's legal move number pick (mod count) as text (static buffer). */
static const char *pick_legal(const cJSON *state, int pick)
{
	static char mv[64];
	const cJSON *legal = cJSON_GetObjectItem(state, "legal");
	ck_assert_msg(cJSON_IsArray(legal), "the mover's state has no legal list");
	int n = cJSON_GetArraySize(legal);
	ck_assert_int_gt(n, 0);
	snprintf(mv, sizeof mv, "%s", cJSON_GetArrayItem(legal, pick % n)->valuestring);
	return mv;
}

START_TEST(test_games_with_spectator)
{
	struct srv s;
	struct cli a, b, w;
	setup(&s, NULL, 0, &a, &b, &w);
	for (int round = 0; round < 4; round++) {
		int id = start_game(&a, &b, "ttt");
		cJSON_Delete(until(&w, "{\"type\":\"seek\",\"event\":\"gone\"}"));
		cli_send(&w, "watch %d", id);
		expect0(&w, "{\"type\":\"ok\",\"cmd\":\"watch\"}");
		cJSON *ws = expect(&w, "{\"type\":\"state\",\"seq\":1,\"seat\":null}");
		ck_assert_ptr_null(cJSON_GetObjectItem(ws, "legal")); /* spectators get no list */
		cJSON_Delete(ws);
		/* the mover's own state for the next move */
		cli_send(&a, "watch %d", id); /* a player's watch just resends the state */
		expect0(&a, "{\"type\":\"ok\",\"cmd\":\"watch\"}");
		cJSON *st = expect(&a, "{\"type\":\"state\",\"seq\":1,\"seat\":0}");
		int seq = 1;
		bool over = false;
		while (!over) {
			int mover = (seq - 1) % 2;
			struct cli *m = mover == 0 ? &a : &b, *o = mover == 0 ? &b : &a;
			char mv[64];
			snprintf(mv, sizeof mv, "%s", pick_legal(st, round * 7 + seq * 3));
			cJSON_Delete(st);
			cli_send(m, "#m%d move %d %s", seq, id, mv);
			char pat[256];
			snprintf(
			        pat, sizeof pat,
			        "{\"type\":\"ok\",\"cmd\":\"move\",\"id\":\"m%d\",\"move\":\"%s\"}",
			        seq, mv);
			expect0(m, pat);
			seq++;
			snprintf(pat, sizeof pat,
			         "{\"type\":\"state\",\"game\":%d,\"seq\":%d,\"ply\":%d,"
			         "\"last_move\":\"%s\"}",
			         id, seq, seq - 1, mv);
			cJSON *mstate = expect(m, pat);
			st = expect(o, pat);
			cJSON *wstate = expect(&w, pat); /* every state, in order */
			over = cJSON_IsTrue(cJSON_GetObjectItem(wstate, "over"));
			/* the same position for everyone */
			ck_assert(cJSON_Compare(cJSON_GetObjectItem(mstate, "position"),
			                        cJSON_GetObjectItem(wstate, "position"), true));
			ck_assert_ptr_null(cJSON_GetObjectItem(mstate, "legal")); /* not to move */
			cJSON_Delete(mstate);
			cJSON_Delete(wstate);
		}
		cJSON_Delete(st);
		cJSON *g1 = expect(&a, "{\"type\":\"game_over\"}");
		cJSON *g2 = expect(&b, "{\"type\":\"game_over\"}");
		cJSON *g3 = expect(&w, "{\"type\":\"game_over\"}");
		ck_assert(cJSON_Compare(g1, g2, true) && cJSON_Compare(g1, g3, true));
		const char *reason =
		        cJSON_GetObjectItem(cJSON_GetObjectItem(g1, "result"), "reason")
		                ->valuestring;
		ck_assert(strcmp(reason, "line") == 0 || strcmp(reason, "board_full") == 0);
		cJSON_Delete(g1);
		cJSON_Delete(g2);
		cJSON_Delete(g3);
		/* a move after the end */
		cli_send(&a, "move %d a1", id);
		expect0(&a, "{\"type\":\"error\",\"code\":\"GAME_OVER\",\"cmd\":\"move\"}");
		cli_send(&w, "list");
		expect0(&w, "{\"type\":\"ok\",\"cmd\":\"list\",\"games\":[]}");
	}
	teardown(&s, &a, &b, &w, NULL);
}
END_TEST

/* ---- bad input ------------------------------------------------------------------- */

START_TEST(test_bad_input)
{
	struct srv s;
	struct cli a, b, c;
	setup(&s, NULL, 0, &a, &b, NULL);
	join(&c, s.port, "carol");
	int id = start_game(&a, &b, "ttt");
	cJSON_Delete(until(&c, "{\"type\":\"seek\",\"event\":\"gone\"}"));

	cli_send(&b, "move %d a1", id);
	expect0(&b, "{\"type\":\"error\",\"code\":\"NOT_YOUR_TURN\",\"cmd\":\"move\"}");
	cli_send(&c, "move %d a1", id);
	expect0(&c, "{\"type\":\"error\",\"code\":\"NOT_YOUR_GAME\"}");
	cli_send(&c, "resign %d", id);
	expect0(&c, "{\"type\":\"error\",\"code\":\"NOT_YOUR_GAME\"}");
	cli_send(&a, "move %d zz", id);
	expect0(&a, "{\"type\":\"error\",\"code\":\"BAD_MOVE\"}");
	cli_send(&a, "move %d hello there", id);
	expect0(&a, "{\"type\":\"error\",\"code\":\"BAD_MOVE\"}");
	cli_send(&a, "move 999 a1");
	expect0(&a, "{\"type\":\"error\",\"code\":\"NO_SUCH_GAME\"}");
	cli_send(&a, "move x a1");
	expect0(&a, "{\"type\":\"error\",\"code\":\"BAD_ARGS\"}");
	cli_send(&a, "move %d b2", id);
	expect0(&a, "{\"type\":\"ok\",\"move\":\"b2\"}");
	expect0(&a, "{\"type\":\"state\",\"seq\":2}");
	expect0(&b, "{\"type\":\"state\",\"seq\":2}");
	cli_send(&b, "move %d b2", id);
	cJSON *e = expect(&b, "{\"type\":\"error\",\"code\":\"ILLEGAL_MOVE\"}");
	ck_assert_int_gt(strlen(cJSON_GetObjectItem(e, "message")->valuestring), 5);
	cJSON_Delete(e);

	/* lobby errors */
	cli_send(&c, "frobnicate");
	expect0(&c, "{\"type\":\"error\",\"code\":\"UNKNOWN_COMMAND\",\"cmd\":\"frobnicate\"}");
	cli_send(&c, "#q1 FROBNICATE 1 2");
	expect0(&c, "{\"type\":\"error\",\"code\":\"UNKNOWN_COMMAND\",\"id\":\"q1\"}");
	cli_send(&c, "login");
	expect0(&c, "{\"type\":\"error\",\"code\":\"BAD_ARGS\",\"cmd\":\"login\"}");
	cli_send(&c, "login dave");
	expect0(&c, "{\"type\":\"error\",\"code\":\"ALREADY_LOGGED_IN\"}");
	cli_send(&c, "#bad.tag ping");
	expect0(&c, "{\"type\":\"error\",\"code\":\"BAD_TAG\"}");
	cli_send(&c, "seek nosuchgame");
	expect0(&c, "{\"type\":\"error\",\"code\":\"UNKNOWN_GAME\"}");
	cli_send(&c, "seek mnk m=99");
	expect0(&c, "{\"type\":\"error\",\"code\":\"BAD_OPTION\"}");
	cli_send(&c, "seek ttt bogus=1");
	expect0(&c, "{\"type\":\"error\",\"code\":\"BAD_OPTION\"}");
	cli_send(&c, "accept 999");
	expect0(&c, "{\"type\":\"error\",\"code\":\"NO_SUCH_SEEK\"}");
	cli_send(&c, "unwatch %d", id);
	expect0(&c, "{\"type\":\"error\",\"code\":\"NOT_WATCHING\"}");
	cli_send(&c, "say %d hi", id);
	expect0(&c, "{\"type\":\"error\",\"code\":\"NOT_YOUR_GAME\"}");
	cli_send(&c, "set colour red");
	expect0(&c, "{\"type\":\"error\",\"code\":\"BAD_FORMAT\"}");

	/* an overlong line: one error, the rest of it ignored, the connection kept */
	char *big = malloc(20001);
	memset(big, 'm', 20000);
	big[20000] = '\0';
	cli_send(&c, "%.8000s", big);
	expect0(&c, "{\"type\":\"error\",\"code\":\"LINE_TOO_LONG\"}");
	cli_write(&c, big, 20000);
	cli_write(&c, "\n#p1 ping\n", 10);
	expect0(&c, "{\"type\":\"error\",\"code\":\"LINE_TOO_LONG\"}");
	expect0(&c, "{\"type\":\"pong\",\"id\":\"p1\"}");
	free(big);

	/* binary junk: errors, never a crash, never a silent drop */
	static const unsigned char junk[] = {0x00, 0x01, 0xc3, 0x28, 0x1b, '[',  '2',
	                                     'J',  '\n', 0x80, 0x81, 0xfe, '\n', 'p',
	                                     'i',  'n',  'g',  0x7f, '\n'};
	cli_write(&c, junk, sizeof junk);
	expect0(&c, "{\"type\":\"error\",\"code\":\"BAD_INPUT\"}");
	expect0(&c, "{\"type\":\"error\",\"code\":\"BAD_INPUT\"}");
	expect0(&c, "{\"type\":\"error\",\"code\":\"BAD_INPUT\"}");
	unsigned x = 99;
	unsigned char rnd[4096];
	for (int round = 0; round < 50; round++) {
		for (size_t i = 0; i < sizeof rnd; i++) {
			x = x * 1664525u + 1013904223u;
			rnd[i] = (unsigned char)(x >> 24);
		}
		cli_write(&c, rnd, sizeof rnd);
	}
	cli_write(&c, "\n#p2 ping\n", 10);
	cJSON_Delete(until(&c, "{\"type\":\"pong\",\"id\":\"p2\"}"));

	/* and the game goes on for the others */
	cli_send(&b, "move %d a1", id);
	expect0(&b, "{\"type\":\"ok\",\"move\":\"a1\"}");
	expect0(&a, "{\"type\":\"state\",\"seq\":3,\"last_move\":\"a1\"}");
	teardown(&s, &a, &b, &c, NULL);
}
END_TEST

/* ---- leaving, forfeits and coming back ----------------------------------------------- */

START_TEST(test_vanish_forfeit)
{
	static const char *const args[] = {"--grace", "1"};
	struct srv s;
	struct cli a, b, w, x, y;
	setup(&s, args, 2, &a, &b, &w);
	int id = start_game(&a, &b, "ttt");
	cli_send(&w, "watch %d", id);
	cJSON_Delete(until(&w, "{\"type\":\"state\",\"seq\":1}"));
	cli_send(&a, "move %d a1", id);
	expect0(&a, "{\"type\":\"ok\"}");
	expect0(&a, "{\"type\":\"state\",\"seq\":2}");
	expect0(&w, "{\"type\":\"state\",\"seq\":2}");
	cli_close(&b); /* vanishes without a word */
	expect0(&a, "{\"type\":\"info\",\"event\":\"gone\",\"player\":\"bob\",\"seat\":1,"
	            "\"grace_ms\":1000}");
	expect0(&w, "{\"type\":\"info\",\"event\":\"gone\",\"player\":\"bob\"}");
	/* meanwhile another game is served */
	join(&x, s.port, "xena");
	join(&y, s.port, "yuri");
	int id2 = start_game(&x, &y, "mnk m=4 n=4 k=3");
	cli_send(&x, "move %d d4", id2);
	expect0(&x, "{\"type\":\"ok\",\"move\":\"d4\"}");
	expect0(&y, "{\"type\":\"state\",\"seq\":2,\"last_move\":\"d4\"}");
	/* the grace ends: bob loses */
	const char *over =
	        "{\"type\":\"game_over\",\"result\":{\"winner\":0,\"winner_name\":\"alice\","
	        "\"score\":\"1-0\",\"reason\":\"abandoned\"}}";
	cJSON_Delete(until(&a, over));
	cJSON_Delete(until(&w, over));
	/* a late return finds no seat */
	struct cli b2;
	join(&b2, s.port, "bob");
	cli_send(&b2, "move %d b2", id);
	expect0(&b2, "{\"type\":\"error\",\"code\":\"NOT_YOUR_GAME\"}");
	teardown(&s, &a, &w, &x, &y, &b2, NULL);
}
END_TEST

START_TEST(test_reconnect)
{
	struct srv s;
	struct cli a, b, w;
	setup(&s, NULL, 0, &a, &b, &w);
	int id = start_game(&a, &b, "ttt");
	cli_send(&w, "watch %d", id);
	cJSON_Delete(until(&w, "{\"type\":\"state\",\"seq\":1}"));
	cli_send(&a, "move %d b2", id);
	expect0(&a, "{\"type\":\"ok\"}");
	expect0(&a, "{\"type\":\"state\",\"seq\":2}");
	cJSON_Delete(until(&b, "{\"type\":\"state\",\"seq\":2}"));
	expect0(&w, "{\"type\":\"state\",\"seq\":2}");
	cli_send(&b, "quit");
	expect0(&b, "{\"type\":\"ok\",\"cmd\":\"quit\"}");
	ck_assert(cli_eof(&b));
	cli_close(&b);
	expect0(&a, "{\"type\":\"info\",\"event\":\"gone\",\"player\":\"bob\"}");
	expect0(&w, "{\"type\":\"info\",\"event\":\"gone\",\"player\":\"bob\"}");
	/* the name is free again while bob is away; logging in with it resumes the seat */
	cli_open(&b, s.port);
	expect0(&b, "bitarenad *");
	cli_send(&b, "set format json");
	expect0(&b, "{\"type\":\"ok\"}");
	cli_send(&b, "login BOB");
	char pat[128];
	snprintf(pat, sizeof pat, "{\"type\":\"ok\",\"cmd\":\"login\",\"resumed\":[%d]}", id);
	expect0(&b, pat);
	expect0(&b, "{\"type\":\"game_start\",\"seat\":1}");
	cJSON *st = expect(&b, "{\"type\":\"state\",\"seq\":2,\"seat\":1,\"last_move\":\"b2\"}");
	ck_assert(cJSON_IsArray(cJSON_GetObjectItem(st, "legal")));
	cJSON_Delete(st);
	expect0(&a, "{\"type\":\"info\",\"event\":\"back\",\"player\":\"bob\"}");
	expect0(&w, "{\"type\":\"info\",\"event\":\"back\"}");
	cli_send(&b, "move %d a1", id);
	expect0(&b, "{\"type\":\"ok\",\"move\":\"a1\"}");
	expect0(&a, "{\"type\":\"state\",\"seq\":3,\"last_move\":\"a1\"}");
	expect0(&w, "{\"type\":\"state\",\"seq\":3,\"last_move\":\"a1\"}");
	/* resign ends it */
	cli_send(&a, "resign %d", id);
	expect0(&a, "{\"type\":\"ok\",\"cmd\":\"resign\"}");
	const char *over =
	        "{\"type\":\"game_over\",\"result\":{\"winner\":1,\"reason\":\"resign\"}}";
	expect0(&a, over);
	cJSON_Delete(until(&b, over));
	expect0(&w, over);
	teardown(&s, &a, &b, &w, NULL);
}
END_TEST

/* ---- clocks -------------------------------------------------------------------------- */

START_TEST(test_flag_fall)
{
	struct srv s;
	struct cli a, b;
	setup(&s, NULL, 0, &a, &b, NULL);
	/* 3 s + 1 s per move: a moves at once, then b lets the flag fall */
	cli_send(&a, "seek ttt time=0:03+1 color=white");
	expect0(&a, "{\"type\":\"ok\",\"seek\":{\"time\":{\"base_ms\":3000,\"inc_ms\":1000}}}");
	cJSON_Delete(until(&b, "{\"type\":\"seek\",\"event\":\"new\"}"));
	cli_send(&b, "accept 1");
	expect0(&b, "{\"type\":\"ok\",\"game\":1}");
	expect0(&b, "{\"type\":\"seek\",\"event\":\"gone\"}");
	expect0(&b, "{\"type\":\"game_start\",\"time\":{\"base_ms\":3000,\"inc_ms\":1000}}");
	cJSON *st = expect(&b, "{\"type\":\"state\",\"seq\":1}");
	cJSON *clocks = cJSON_GetObjectItem(st, "clocks");
	ck_assert_int_eq(cJSON_GetArraySize(clocks), 2);
	ck_assert_int_eq(cJSON_GetArrayItem(clocks, 1)->valueint, 3000);
	cJSON_Delete(st);
	cJSON_Delete(until(&a, "{\"type\":\"state\",\"seq\":1}"));
	cli_send(&a, "move 1 b2");
	expect0(&a, "{\"type\":\"ok\"}");
	st = expect(&a, "{\"type\":\"state\",\"seq\":2}");
	clocks = cJSON_GetObjectItem(st, "clocks");
	/* the increment is added: more than the base unless a whole second went by */
	int x_left = cJSON_GetArrayItem(clocks, 0)->valueint;
	ck_assert_int_gt(x_left, 1000);
	ck_assert_int_le(x_left, 4000);
	cJSON_Delete(st);
	const char *over =
	        "{\"type\":\"game_over\",\"result\":{\"winner\":0,\"reason\":\"timeout\"}}";
	cJSON *g = expect(&a, over);
	ck_assert_int_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(g, "clocks"), 1)->valueint, 0);
	cJSON_Delete(g);
	cJSON_Delete(until(&b, over));
	cli_send(&b, "move 1 a1");
	expect0(&b, "{\"type\":\"error\",\"code\":\"GAME_OVER\"}");
	teardown(&s, &a, &b, NULL);
}
END_TEST

/* ---- simultaneous turns (Xmas Rush, when the table has it) ------------------------------ */

/* Is kind in the server's games list? */
static bool has_game(struct cli *c, const char *kind)
{
	cli_send(c, "games");
	cJSON *g = expect(c, "{\"type\":\"ok\",\"cmd\":\"games\"}");
	bool found = false;
	const cJSON *it;
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(g, "games")) found |=
	        strcmp(cJSON_GetObjectItem(it, "name")->valuestring, kind) == 0;
	cJSON_Delete(g);
	return found;
}

START_TEST(test_simultaneous)
{
	struct srv s;
	struct cli a, b, w;
	setup(&s, NULL, 0, &a, &b, &w);
	if (!has_game(&a, "xmas")) {
		teardown(&s, &a, &b, &w, NULL);
		return;
	}
	int id = start_game(&a, &b, "xmas seed=0 turn_ms=60000");
	cJSON_Delete(until(&w, "{\"type\":\"seek\",\"event\":\"gone\"}"));
	cli_send(&w, "watch %d", id);
	expect0(&w, "{\"type\":\"ok\"}");
	expect0(&w, "{\"type\":\"state\",\"seq\":1,\"to_move\":[0,1],\"turn_ms\":60000}");
	cli_send(&a, "move %d PUSH 3 RIGHT", id);
	expect0(&a, "{\"type\":\"ok\",\"cmd\":\"move\",\"pending\":true}");
	cli_send(&a, "move %d PUSH 1 LEFT", id);
	expect0(&a, "{\"type\":\"error\",\"code\":\"ALREADY_ACTED\"}");
	/* nothing of a's action reaches b or the spectator before the turn resolves */
	cli_send(&b, "#b ping");
	expect0(&b, "{\"type\":\"pong\",\"id\":\"b\"}");
	cli_send(&w, "#w ping");
	expect0(&w, "{\"type\":\"pong\",\"id\":\"w\"}");
	cli_send(&b, "move %d PUSH 9 NOWHERE", id);
	cJSON *e = expect(&b, "{\"type\":\"error\"}");
	const char *code = cJSON_GetObjectItem(e, "code")->valuestring;
	ck_assert(strcmp(code, "BAD_MOVE") == 0 || strcmp(code, "ILLEGAL_MOVE") == 0);
	cJSON_Delete(e);
	cli_send(&b, "move %d PUSH 2 UP", id); /* not strict: b may try again */
	expect0(&b, "{\"type\":\"ok\",\"pending\":true}");
	const char *st2 = "{\"type\":\"state\",\"seq\":2,\"ply\":1,"
	                  "\"last_move\":{\"0\":\"PUSH 3 RIGHT\",\"1\":\"PUSH 2 UP\"}}";
	expect0(&b, st2);
	expect0(&a, st2);
	expect0(&w, st2);

	/* a short deadline with nobody acting: the referee's timeout for both */
	int id2 = start_game(&a, &b, "xmas seed=1 turn_ms=100");
	const char *timeout =
	        "{\"type\":\"state\",\"seq\":2,\"last_move\":{\"0\":null,\"1\":null}}";
	cJSON_Delete(until(&a, timeout));
	cJSON_Delete(until(&b, timeout));
	/* (in Xmas Rush a timeout is fatal: the game ends there) */
	char over[96];
	snprintf(over, sizeof over, "{\"type\":\"game_over\",\"game\":%d}", id2);
	cJSON_Delete(until(&a, over));
	cJSON_Delete(until(&b, over));

	/* strict: an action that does not parse is final for the turn */
	int id3 = start_game(&a, &b, "xmas seed=2 turn_ms=60000 strict=1");
	cli_send(&a, "move %d HELLO", id3);
	expect0(&a, "{\"type\":\"error\",\"code\":\"BAD_MOVE\"}");
	cli_send(&a, "move %d PUSH 3 RIGHT", id3);
	expect0(&a, "{\"type\":\"error\",\"code\":\"ALREADY_ACTED\"}");
	teardown(&s, &a, &b, &w, NULL);
}
END_TEST

/* ---- slow readers: a spectator is coalesced, a player is dropped ------------------------ */

START_TEST(test_slow_readers)
{
	static const char *const args[] = {"--out-cap", "2048", "--sndbuf", "4096", "--grace", "1"};
	struct srv s;
	struct cli a, b, w, v;
	setup(&s, args, 6, &a, &b, NULL);
	/* the spectator's socket buffers are small, and it stops reading for a while */
	w.len = 0;
	w.fd = socket(AF_INET, SOCK_STREAM, 0);
	int small = 4096;
	ck_assert_int_eq(setsockopt(w.fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small), 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)s.port)};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(w.fd, (struct sockaddr *)&sa, sizeof sa), 0);
	expect0(&w, "bitarenad *");
	cli_send(&w, "set format json");
	expect0(&w, "{\"type\":\"ok\"}");
	int id = start_game(&a, &b, "mnk m=8 n=8 k=8");
	cli_send(&w, "watch %d", id);
	expect0(&w, "{\"type\":\"ok\"}");
	expect0(&w, "{\"type\":\"state\",\"seq\":1}");
	/* the whole game while w reads nothing */
	cli_send(&a, "watch %d", id);
	expect0(&a, "{\"type\":\"ok\"}");
	cJSON *st = expect(&a, "{\"type\":\"state\",\"seq\":1}");
	int seq = 1;
	for (;;) {
		struct cli *m = seq % 2 == 1 ? &a : &b, *o = seq % 2 == 1 ? &b : &a;
		char mv[64];
		snprintf(mv, sizeof mv, "%s", pick_legal(st, seq * 5));
		cJSON_Delete(st);
		cli_send(m, "move %d %s", id, mv);
		expect0(m, "{\"type\":\"ok\"}");
		seq++;
		cJSON *mine = expect(m, "{\"type\":\"state\"}");
		cJSON_Delete(mine);
		st = expect(o, "{\"type\":\"state\"}");
		if (cJSON_IsTrue(cJSON_GetObjectItem(st, "over")))
			break;
	}
	cJSON_Delete(st);
	cJSON_Delete(until(&a, "{\"type\":\"game_over\"}"));
	cJSON_Delete(until(&b, "{\"type\":\"game_over\"}"));
	/* now w reads: states in increasing seq, the last one included, some skipped */
	int last = 0, got = 0;
	for (;;) {
		char *l = cli_line(&w);
		ck_assert_ptr_nonnull(l);
		cJSON *j = cJSON_Parse(l);
		free(l);
		const char *type = cJSON_GetObjectItem(j, "type")->valuestring;
		if (strcmp(type, "game_over") == 0) {
			cJSON_Delete(j);
			break;
		}
		if (strcmp(type, "state") == 0) {
			int q = jint(j, "seq");
			ck_assert_int_gt(q, last);
			last = q;
			got++;
		}
		cJSON_Delete(j);
	}
	ck_assert_int_eq(last, seq);
	ck_assert_int_lt(got, seq - 1); /* coalesced: fewer states than were made */
	cli_send(&w, "#w ping");
	expect0(&w, "{\"type\":\"pong\",\"id\":\"w\"}");

	/* a player who stops reading while chat floods in is dropped; the seat waits */
	int id2 = start_game(&a, &b, "ttt");
	join(&v, s.port, "vera");
	cli_send(&v, "watch %d", id2);
	expect0(&v, "{\"type\":\"ok\"}");
	expect0(&v, "{\"type\":\"state\"}");
	bool gone = false, a_saw = false;
	char text[200];
	memset(text, 'z', sizeof text - 1);
	text[sizeof text - 1] = '\0';
	for (int round = 0; round < 400 && !gone; round++) {
		for (int i = 0; i < 10; i++)
			cli_send(&v, "say %d %s", id2, text);
		for (int i = 0; i < 20; i++) {
			char *l = cli_line(&v);
			ck_assert_ptr_nonnull(l);
			if (strstr(l, "\"event\":\"gone\"") != NULL) {
				gone = true;
				i--; /* not one of the 20 replies */
			}
			free(l);
		}
		/* a keeps reading; it sees bob go */
		a_saw |= cli_drain(&a, "\"event\":\"gone\",\"player\":\"bob\"");
	}
	ck_assert_msg(gone, "the player who does not read was never dropped");
	if (!a_saw)
		cJSON_Delete(
		        until(&a, "{\"type\":\"info\",\"event\":\"gone\",\"player\":\"bob\"}"));
	cJSON_Delete(until(&a, "{\"type\":\"game_over\",\"result\":{\"reason\":\"abandoned\"}}"));
	teardown(&s, &a, &b, &w, &v, NULL);
}
END_TEST

/* ---- random commands: the server survives anything and keeps answering ---------------- */

START_TEST(test_random_commands)
{
	static const char *const verbs[] = {"login",
	                                    "games",
	                                    "seek ttt",
	                                    "seek mnk m=4 n=4 k=3",
	                                    "seek ttt time=0:01+0",
	                                    "seeks",
	                                    "unseek",
	                                    "accept",
	                                    "list",
	                                    "move",
	                                    "resign",
	                                    "watch",
	                                    "unwatch",
	                                    "who",
	                                    "say",
	                                    "set format json",
	                                    "set format text",
	                                    "ping",
	                                    "help",
	                                    "HELP move",
	                                    "#t1 move",
	                                    "seek xmas turn_ms=20",
	                                    "seek nosuch",
	                                    "move 1",
	                                    "accept 0",
	                                    "#",
	                                    "   "};
	static const char *const moves[] = {"a1", "b2",           "c3",      "a3",   "c1", "b1",
	                                    "zz", "PUSH 3 RIGHT", "MOVE UP", "PASS", "",   "a1 a2"};
	struct srv s;
	struct cli cl[3];
	setup(&s, NULL, 0, &cl[0], &cl[1], &cl[2]);
	unsigned x = 2024;
#define RND() (x = x * 1103515245u + 12345u, (x >> 16) & 0x7fff)
	for (int i = 0; i < 3000; i++) {
		struct cli *c = &cl[RND() % 3];
		const char *v = verbs[RND() % (sizeof verbs / sizeof verbs[0])];
		const char *m = moves[RND() % (sizeof moves / sizeof moves[0])];
		unsigned id = RND() % 6;
		cli_send(c, "%s %u %s", v, id, m);
		if (i % 50 == 0)
			for (int k = 0; k < 3; k++)
				cli_drain(&cl[k], "");
	}
#undef RND
	for (int k = 0; k < 3; k++) {
		cli_send(&cl[k], "set format json");
		cli_send(&cl[k], "#end ping");
		cJSON_Delete(until(&cl[k], "{\"type\":\"pong\",\"id\":\"end\"}"));
	}
	teardown(&s, &cl[0], &cl[1], &cl[2], NULL);
}
END_TEST

/* ---- one connection in several games at once ------------------------------------------- */

START_TEST(test_several_games)
{
	struct srv s;
	struct cli a, b, w;
	setup(&s, NULL, 0, &a, &b, &w);
	int g1 = start_game(&a, &b, "ttt"); /* alice X vs bob */
	cJSON_Delete(until(&w, "{\"type\":\"seek\",\"event\":\"gone\"}"));
	int g2 = start_game(&a, &w, "mnk m=4 n=4 k=3"); /* alice X vs wendy */
	cJSON_Delete(until(&b, "{\"type\":\"seek\",\"event\":\"gone\"}"));
	int g3 = start_game(&b, &w, "ttt"); /* bob X vs wendy */
	cJSON_Delete(until(&a, "{\"type\":\"seek\",\"event\":\"gone\"}"));
	cli_send(&a, "watch %d", g3);
	expect0(&a, "{\"type\":\"ok\"}");
	expect0(&a, "{\"type\":\"state\",\"seat\":null,\"seq\":1}");
	cli_send(&a, "who");
	char pat[256];
	snprintf(pat, sizeof pat,
	         "{\"type\":\"ok\",\"users\":[{\"name\":\"wendy\",\"playing\":[%d,%d]},"
	         "{\"name\":\"bob\",\"playing\":[%d,%d]},"
	         "{\"name\":\"alice\",\"playing\":[%d,%d],\"watching\":[%d]}]}",
	         g3, g2, g3, g1, g2, g1, g3);
	expect0(&a, pat);
	/* moves in all three, each state reaches exactly the right connections */
	cli_send(&a, "move %d a1", g1);
	expect0(&a, "{\"type\":\"ok\"}");
	snprintf(pat, sizeof pat, "{\"type\":\"state\",\"game\":%d,\"seq\":2}", g1);
	expect0(&a, pat);
	expect0(&b, pat);
	cli_send(&a, "move %d d4", g2);
	expect0(&a, "{\"type\":\"ok\"}");
	snprintf(pat, sizeof pat, "{\"type\":\"state\",\"game\":%d,\"seq\":2,\"last_move\":\"d4\"}",
	         g2);
	expect0(&a, pat);
	expect0(&w, pat);
	cli_send(&b, "move %d c3", g3);
	expect0(&b, "{\"type\":\"ok\"}");
	snprintf(pat, sizeof pat, "{\"type\":\"state\",\"game\":%d,\"seq\":2,\"last_move\":\"c3\"}",
	         g3);
	expect0(&b, pat);
	expect0(&w, pat);
	expect0(&a, pat); /* as a spectator */
	/* the seat in one game gives no right in another */
	cli_send(&w, "move %d b1", g1);
	expect0(&w, "{\"type\":\"error\",\"code\":\"NOT_YOUR_GAME\"}");
	cli_send(&a, "move %d b1", g3);
	expect0(&a, "{\"type\":\"error\",\"code\":\"NOT_YOUR_GAME\"}");
	/* leaving: every game of the leaver is told */
	cli_close(&w);
	snprintf(pat, sizeof pat, "{\"type\":\"info\",\"game\":%d,\"event\":\"gone\"}", g3);
	expect0(&a, pat); /* as a spectator of g3 */
	expect0(&b, pat);
	snprintf(pat, sizeof pat, "{\"type\":\"info\",\"game\":%d,\"event\":\"gone\"}", g2);
	expect0(&a, pat);
	teardown(&s, &a, &b, NULL);
}
END_TEST

/* ---- text mode, pipelining, IPv6 ------------------------------------------------------- */

START_TEST(test_text_mode)
{
	struct srv s;
	srv_start(&s, NULL, 0);
	struct cli a, b;
	cli_open(&a, s.port);
	cli_open(&b, s.port);
	expect0(&a, "bitarenad * ready*");
	expect0(&b, "bitarenad * ready*");
	cli_send(&a, "seek ttt");
	expect0(&a, "error NOT_LOGGED_IN: *");
	/* telnet negotiation, CRLF and trailing blanks are fine */
	cli_write(&a, "\xff\xfb\x01\xff\xfd\x03login alice \t\r\n", 21);
	expect0(&a, "ok logged in as alice*");
	cli_write(&b, "login bob\r\0", 11);
	expect0(&b, "ok logged in as bob*");
	cli_send(&b, "login bob");
	expect0(&b, "error ALREADY_LOGGED_IN: *");
	cli_send(&a, "#s1 seek ttt color=black");
	expect0(&a, "#s1 ok seek 1 by alice: ttt *");
	expect0(&b, "seek 1 by alice: ttt * (accept 1 to play)");
	cli_send(&b, "accept 1");
	expect0(&b, "ok accepted seek 1: game 1");
	expect0(&b, "seek 1 gone");
	expect0(&b, "game 1 started: ttt *, bob (X) vs alice (O); you play X*");
	expect0(&b, "game 1 ttt, ply 0: bob (X) vs alice (O)");
	free(until(&b, "your move: move 1 <move>"));
	cli_send(&b, "move 1 c3");
	expect0(&b, "ok c3 played in game 1");
	expect0(&b, "game 1 ttt, ply 1: bob (X) vs alice (O)");
	free(until(&b, "last move: c3; to move: O (alice)"));
	free(until(&a, "last move: c3; to move: O (alice)"));
	expect0(&a, "your move: move 1 <move>");
	cli_send(&a, "move 1 c3");
	expect0(&a, "error ILLEGAL_MOVE: *");
	cli_send(&a, "say 1 good luck");
	expect0(&a, "ok said in game 1");
	expect0(&a, "\\[1] alice: good luck");
	expect0(&b, "\\[1] alice: good luck");
	cli_send(&a, "ping");
	expect0(&a, "pong");
	cli_send(&a, "help move");
	expect0(&a, "ok move <game> <move>");
	expect0(&a, "  move <game> <move>*");
	cli_send(&a, "resign 1");
	expect0(&a, "ok you resigned game 1");
	expect0(&a, "game 1 over: 1-0, bob (X) wins (resign)");
	expect0(&b, "game 1 over: 1-0, bob (X) wins (resign)");
	teardown(&s, &a, &b, NULL);
}
END_TEST

START_TEST(test_pipelining)
{
	struct srv s;
	struct cli a, b;
	setup(&s, NULL, 0, &a, &b, NULL);
	/* a thousand commands in one write: all answered, in order */
	size_t cap = 1000 * 16, at = 0;
	char *burst = malloc(cap);
	for (int i = 0; i < 1000; i++)
		at += (size_t)snprintf(burst + at, cap - at, "#p%d ping\n", i);
	cli_write(&a, burst, at);
	free(burst);
	cli_send(&b, "#q ping");
	expect0(&b, "{\"type\":\"pong\",\"id\":\"q\"}");
	for (int i = 0; i < 1000; i++) {
		char pat[64];
		snprintf(pat, sizeof pat, "{\"type\":\"pong\",\"id\":\"p%d\"}", i);
		expect0(&a, pat);
	}
	/* input ends without a newline and the socket half-closes: still answered */
	cli_write(&a, "#last ping", 10);
	shutdown(a.fd, SHUT_WR);
	expect0(&a, "{\"type\":\"pong\",\"id\":\"last\"}");
	ck_assert(cli_eof(&a));
	teardown(&s, &a, &b, NULL);
}
END_TEST

START_TEST(test_ipv6)
{
	int fd = socket(AF_INET6, SOCK_STREAM, 0);
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	bool have = fd >= 0 && bind(fd, (struct sockaddr *)&a6, sizeof a6) == 0;
	if (fd >= 0)
		close(fd);
	if (!have)
		return; /* no IPv6 loopback here */
	struct srv s;
	srv_start_at(&s, "[::1]:0", NULL, 0);
	struct cli c;
	c.len = 0;
	c.fd = socket(AF_INET6, SOCK_STREAM, 0);
	a6.sin6_port = htons((uint16_t)s.port);
	ck_assert_int_eq(connect(c.fd, (struct sockaddr *)&a6, sizeof a6), 0);
	expect0(&c, "bitarenad * ready*");
	cli_send(&c, "ping");
	expect0(&c, "pong");
	teardown(&s, &c, NULL);
}
END_TEST

START_TEST(test_cli_options)
{
	const char *bin = getenv("BITARENAD");
	ck_assert_ptr_nonnull(bin);
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "'%s' --version | grep -q '^bitarenad '", bin);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(cmd, sizeof cmd, "'%s' --help | grep -q -- --listen", bin);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(cmd, sizeof cmd, "'%s' --listen nonsense 2>/dev/null", bin);
	ck_assert_int_ne(system(cmd), 0);
	snprintf(cmd, sizeof cmd, "'%s' --grace -1 2>/dev/null", bin);
	ck_assert_int_ne(system(cmd), 0);
}
END_TEST

static Suite *server_suite(void)
{
	Suite *s = suite_create("server");
	TCase *tc = tcase_create("transcripts");
	find_scripts();
	tcase_add_test(tc, test_transcripts_exist);
	if (nscripts > 0)
		tcase_add_loop_test(tc, test_transcript, 0, nscripts);
	suite_add_tcase(s, tc);
	tc = tcase_create("loopback");
	tcase_add_test(tc, test_games_with_spectator);
	tcase_add_test(tc, test_bad_input);
	tcase_add_test(tc, test_vanish_forfeit);
	tcase_add_test(tc, test_reconnect);
	tcase_add_test(tc, test_flag_fall);
	tcase_add_test(tc, test_simultaneous);
	tcase_add_test(tc, test_slow_readers);
	tcase_add_test(tc, test_random_commands);
	tcase_add_test(tc, test_several_games);
	tcase_add_test(tc, test_text_mode);
	tcase_add_test(tc, test_pipelining);
	tcase_add_test(tc, test_ipv6);
	tcase_add_test(tc, test_cli_options);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	int status = check_run(server_suite());
	for (int i = 0; i < nscripts; i++)
		free(scripts[i]);
	return status;
}
