/*
 * check_server.c - the loopback suite: starts the real bitarenad ($BITARENAD)
 * on a free port of 127.0.0.1 (--port-file tells which), drives it with real
 * sockets, and replays every transcript in $BITARENA_SRCDIR/protocol/examples.
 * Complete games with a spectator who must see every state in order, bad
 * input of every kind, a client vanishing mid-game, coming back within the
 * grace, the flag falling, text mode, pipelining, and a clean exit (status 0)
 * on SIGTERM after every test.
 *
 * The server and socket helpers are tests/lib/testserver.h's. Waiting for a line
 * is bounded (TS_LINE_WAIT_MS) so a missing line fails a test instead of
 * hanging it; nothing asserts how fast anything happens.
 */
#include "testserver.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check_main.h"

/* ---- the server and its clients (testserver.h) ------------------------------------- */

/* Starts a server (with args) and joins alice, bob and, when w is not NULL, wendy. */
static void setup(struct ts_srv *s, const char *const *args, int nargs, struct ts_cli *a,
                  struct ts_cli *b, struct ts_cli *w)
{
	ts_up(s, args, nargs);
	ts_join(a, s->port, "alice");
	ts_join(b, s->port, "bob");
	if (w != NULL)
		ts_join(w, s->port, "wendy");
}

/* Closes the clients (a NULL-terminated list) and stops the server: it must exit 0. */
static void teardown(struct ts_srv *s, ...)
{
	va_list ap;
	va_start(ap, s);
	struct ts_cli *c;
	while ((c = va_arg(ap, struct ts_cli *)) != NULL)
		ts_close(c);
	va_end(ap);
	ts_down(s);
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

/*
 * A transcript: "@args" (first) starts the server with args; "X= playtak"
 * makes client X connect to the playtak port (the args must hold --playtak
 * HOST:PORT; the port file is added here); "X> line" sends, "X< pattern"
 * reads the next line, "X~ pattern" skips to a matching one, "X!" closes;
 * "X$ var field" keeps the string field of the last JSON line X read, and
 * "$var" in a later "Y> line" stands for it (a guest's token).
 */
START_TEST(test_transcript)
{
	const char *path = scripts[_i];
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	static struct ts_cli cl[26];
	bool open[26] = {false}, playtak[26] = {false};
	struct ts_srv s;
	bool started = false;
	int pt_port = 0;
	char line[8192];
	int lineno = 0;
	char *last[26] = {NULL}; /* the last line each client read */
	struct {
		char name[32], value[256];
	} vars[8];
	int nvars = 0;
	while (fgets(line, sizeof line, f) != NULL) {
		lineno++;
		size_t n = strlen(line);
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n == 0 || line[0] == '#')
			continue;
		if (line[0] == '@') {
			ck_assert_msg(!started, "%s:%d: '@' must come first", path, lineno);
			const char *args[18];
			int na = 0;
			bool pt = false;
			char pt_file[256];
			for (char *w = strtok(line + 1, " "); w != NULL && na < 16;
			     w = strtok(NULL, " ")) {
				pt |= strcmp(w, "--playtak") == 0;
				args[na++] = w;
			}
			if (pt) {
				ts_port_path(pt_file, sizeof pt_file);
				args[na++] = "--playtak-port-file";
				args[na++] = pt_file;
			}
			ts_up(&s, args, na);
			if (pt)
				pt_port = ts_port_file(&s, pt_file);
			started = true;
			continue;
		}
		if (!started) {
			ts_up(&s, NULL, 0);
			started = true;
		}
		ck_assert_msg(line[0] >= 'A' && line[0] <= 'Z' && n >= 2, "%s:%d: bad directive",
		              path, lineno);
		int k = line[0] - 'A';
		char op = line[1];
		const char *arg = line + 2 + (line[2] == ' ');
		if (op == '=') {
			ck_assert_msg(
			        strcmp(arg, "playtak") == 0 && pt_port > 0 && !open[k],
			        "%s:%d: '= playtak' needs @--playtak, before the client's use",
			        path, lineno);
			playtak[k] = true;
			continue;
		}
		if (!open[k] && op != '!') {
			ts_open(&cl[k], playtak[k] ? pt_port : s.port);
			open[k] = true;
		}
		switch (op) {
		case '>': {
			char out[8192];
			size_t o = 0;
			for (const char *p = arg; *p != '\0' && o + 1 < sizeof out;) {
				int v = -1;
				for (int i = 0; *p == '$' && i < nvars && v < 0; i++)
					if (strncmp(p + 1, vars[i].name, strlen(vars[i].name)) == 0)
						v = i;
				if (v < 0) {
					out[o++] = *p++;
					continue;
				}
				o += (size_t)snprintf(out + o, sizeof out - o, "%s", vars[v].value);
				p += 1 + strlen(vars[v].name);
			}
			out[o < sizeof out ? o : sizeof out - 1] = '\0';
			ts_send(&cl[k], "%s", out);
			break;
		}
		case '$': {
			char name[32], field[64];
			ck_assert_msg(sscanf(arg, "%31s %63s", name, field) == 2 && nvars < 8,
			              "%s:%d: '$' wants a name and a field", path, lineno);
			cJSON *j = last[k] != NULL ? cJSON_Parse(last[k]) : NULL;
			const cJSON *fv = cJSON_GetObjectItemCaseSensitive(j, field);
			ck_assert_msg(cJSON_IsString(fv), "%s:%d: %c's last line has no string %s",
			              path, lineno, line[0], field);
			snprintf(vars[nvars].name, sizeof vars[nvars].name, "%s", name);
			snprintf(vars[nvars].value, sizeof vars[nvars].value, "%s",
			         fv->valuestring);
			nvars++;
			cJSON_Delete(j);
			break;
		}
		case '<': {
			char *got = ts_line(&cl[k]);
			ck_assert_msg(got != NULL, "%s:%d: %c got nothing; expected %s", path,
			              lineno, line[0], arg);
			ck_assert_msg(ts_match(arg, got), "%s:%d: %c expected %s\n     got %s",
			              path, lineno, line[0], arg, got);
			free(last[k]);
			last[k] = got;
			break;
		}
		case '~': {
			char *got;
			while ((got = ts_line(&cl[k])) != NULL && !ts_match(arg, got))
				free(got);
			ck_assert_msg(got != NULL, "%s:%d: %c never got %s", path, lineno, line[0],
			              arg);
			free(last[k]);
			last[k] = got;
			break;
		}
		case '!':
			if (open[k])
				ts_close(&cl[k]);
			open[k] = false;
			break;
		default:
			ck_abort_msg("%s:%d: unknown directive %c", path, lineno, op);
		}
	}
	fclose(f);
	for (int k = 0; k < 26; k++) {
		free(last[k]);
		if (open[k])
			ts_close(&cl[k]);
	}
	if (started)
		ts_down(&s);
}
END_TEST

START_TEST(test_transcripts_exist)
{
	ck_assert_msg(nscripts >= 5, "protocol/examples has %d transcripts", nscripts);
}
END_TEST

/* `help` in text fits a terminal of 80 columns, every verb's help wrapped under its column. */
START_TEST(test_help_fits_80_columns)
{
	struct ts_srv s;
	struct ts_cli c;
	ts_up(&s, NULL, 0);
	ts_open(&c, s.port);
	free(ts_line(&c)); /* the welcome */
	ts_send(&c, "help");
	ts_send(&c, "ping");
	int lines = 0, rows = 0;
	char *l;
	while ((l = ts_line(&c)) != NULL && strcmp(l, "pong") != 0) {
		ck_assert_msg(strlen(l) <= 80, "%zu columns: %s", strlen(l), l);
		lines++;
		rows += strncmp(l, "  ", 2) == 0 && l[2] != ' ';
		free(l);
	}
	ck_assert_ptr_nonnull(l);
	free(l);
	ck_assert_int_gt(rows, 20);   /* every verb has its row */
	ck_assert_int_gt(lines, rows); /* and some were wrapped */
	ts_close(&c);
	ts_down(&s);
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

/* who, as q asks it in JSON (caller frees). */
static cJSON *who_of(struct ts_cli *q)
{
	ts_send(q, "who");
	return ts_until(q, "{\"type\":\"ok\",\"cmd\":\"who\"}");
}

/* The ids who lists for user name under key ("playing", "watching"), comma-separated. */
static const char *who_says(const cJSON *who, const char *name, const char *key)
{
	static char ids[256];
	const cJSON *u, *id;
	ids[0] = '\0';
	bool found = false;
	cJSON_ArrayForEach(u, cJSON_GetObjectItem(who, "users"))
	{
		if (strcmp(ts_jstr(u, "name"), name) != 0)
			continue;
		found = true;
		cJSON_ArrayForEach(id, cJSON_GetObjectItem(u, key))
		        snprintf(ids + strlen(ids), sizeof ids - strlen(ids), "%s%d",
		                 ids[0] ? "," : "", id->valueint);
	}
	ck_assert_msg(found, "who does not list %s", name);
	return ids;
}

START_TEST(test_games_with_spectator)
{
	struct ts_srv s;
	struct ts_cli a, b, w, q;
	setup(&s, NULL, 0, &a, &b, &w);
	ts_join(&q, s.port, "quincy"); /* asks who */
	for (int round = 0; round < 4; round++) {
		int id = ts_start_game(&a, &b, "ttt", NULL);
		ts_until0(&w, "{\"type\":\"seek\",\"event\":\"gone\"}");
		ts_send(&w, "watch %d", id);
		ts_expect0(&w, "{\"type\":\"ok\",\"cmd\":\"watch\"}");
		cJSON *ws = ts_expect(&w, "{\"type\":\"state\",\"seq\":1,\"seat\":null}");
		ck_assert_ptr_null(cJSON_GetObjectItem(ws, "legal")); /* spectators get no list */
		cJSON_Delete(ws);
		/* who: this game only, watched and played (the ended ones neither) */
		char one[16];
		snprintf(one, sizeof one, "%d", id);
		cJSON *who = who_of(&q);
		ck_assert_str_eq(who_says(who, "wendy", "watching"), one);
		ck_assert_str_eq(who_says(who, "alice", "playing"), one);
		ck_assert_str_eq(who_says(who, "alice", "watching"), "");
		cJSON_Delete(who);
		/* the mover's own state for the next move */
		ts_send(&a, "watch %d", id); /* a player's watch just resends the state */
		ts_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"watch\"}");
		cJSON *st = ts_expect(&a, "{\"type\":\"state\",\"seq\":1,\"seat\":0}");
		int seq = 1;
		bool over = false;
		while (!over) {
			int mover = (seq - 1) % 2;
			struct ts_cli *m = mover == 0 ? &a : &b, *o = mover == 0 ? &b : &a;
			char mv[64];
			snprintf(mv, sizeof mv, "%s", pick_legal(st, round * 7 + seq * 3));
			cJSON_Delete(st);
			ts_send(m, "#m%d move %d %s", seq, id, mv);
			char pat[256];
			snprintf(
			        pat, sizeof pat,
			        "{\"type\":\"ok\",\"cmd\":\"move\",\"id\":\"m%d\",\"move\":\"%s\"}",
			        seq, mv);
			ts_expect0(m, pat);
			seq++;
			snprintf(pat, sizeof pat,
			         "{\"type\":\"state\",\"game\":%d,\"seq\":%d,\"ply\":%d,"
			         "\"last_move\":\"%s\"}",
			         id, seq, seq - 1, mv);
			cJSON *mstate = ts_expect(m, pat);
			st = ts_expect(o, pat);
			cJSON *wstate = ts_expect(&w, pat); /* every state, in order */
			over = cJSON_IsTrue(cJSON_GetObjectItem(wstate, "over"));
			/* the same position for everyone */
			ck_assert(cJSON_Compare(cJSON_GetObjectItem(mstate, "position"),
			                        cJSON_GetObjectItem(wstate, "position"), true));
			ck_assert_ptr_null(cJSON_GetObjectItem(mstate, "legal")); /* not to move */
			cJSON_Delete(mstate);
			cJSON_Delete(wstate);
		}
		cJSON_Delete(st);
		cJSON *g1 = ts_expect(&a, "{\"type\":\"game_over\"}");
		cJSON *g2 = ts_expect(&b, "{\"type\":\"game_over\"}");
		cJSON *g3 = ts_expect(&w, "{\"type\":\"game_over\"}");
		ck_assert(cJSON_Compare(g1, g2, true) && cJSON_Compare(g1, g3, true));
		const char *reason =
		        cJSON_GetObjectItem(cJSON_GetObjectItem(g1, "result"), "reason")
		                ->valuestring;
		ck_assert(strcmp(reason, "line") == 0 || strcmp(reason, "board_full") == 0);
		cJSON_Delete(g1);
		cJSON_Delete(g2);
		cJSON_Delete(g3);
		/* a move after the end */
		ts_send(&a, "move %d a1", id);
		ts_expect0(&a, "{\"type\":\"error\",\"code\":\"GAME_OVER\",\"cmd\":\"move\"}");
		ts_send(&w, "list");
		ts_expect0(&w, "{\"type\":\"ok\",\"cmd\":\"list\",\"games\":[]}");
		/* the game is over: who lists it as neither played nor watched (w still follows
		 * it, for its chat and a rematch) */
		who = who_of(&q);
		ck_assert_str_eq(who_says(who, "wendy", "watching"), "");
		ck_assert_str_eq(who_says(who, "alice", "playing"), "");
		ck_assert_str_eq(who_says(who, "bob", "watching"), "");
		cJSON_Delete(who);
		ts_send(&q, "set format text");
		ts_until0(&q, "ok format text");
		ts_send(&q, "who");
		char *l;
		while ((l = ts_line(&q)) != NULL && strstr(l, "wendy") == NULL)
			free(l);
		ck_assert_msg(l != NULL && strstr(l, "watches") == NULL, "who: %s", l);
		free(l);
		ts_send(&q, "set format json");
		ts_until0(&q, "{\"type\":\"ok\",\"cmd\":\"set\"}");
	}
	teardown(&s, &a, &b, &w, &q, NULL);
}
END_TEST

/* ---- bad input ------------------------------------------------------------------- */

START_TEST(test_bad_input)
{
	/* 200 KB of junk: without the command budget (its limits are check_limits') */
	static const char *const nobudget[] = {"--cmd-rate", "0"};
	struct ts_srv s;
	struct ts_cli a, b, c;
	setup(&s, nobudget, 2, &a, &b, NULL);
	ts_join(&c, s.port, "carol");
	int id = ts_start_game(&a, &b, "ttt", NULL);
	ts_until0(&c, "{\"type\":\"seek\",\"event\":\"gone\"}");

	ts_send(&b, "move %d a1", id);
	ts_expect0(&b, "{\"type\":\"error\",\"code\":\"NOT_YOUR_TURN\",\"cmd\":\"move\"}");
	ts_send(&c, "move %d a1", id);
	ts_expect0(&c, "{\"type\":\"error\",\"code\":\"NOT_YOUR_GAME\"}");
	ts_send(&c, "resign %d", id);
	ts_expect0(&c, "{\"type\":\"error\",\"code\":\"NOT_YOUR_GAME\"}");
	ts_send(&a, "move %d zz", id);
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"BAD_MOVE\"}");
	ts_send(&a, "move %d hello there", id);
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"BAD_MOVE\"}");
	ts_send(&a, "move 999 a1");
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"NO_SUCH_GAME\"}");
	ts_send(&a, "move x a1");
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"BAD_ARGS\"}");
	ts_send(&a, "move %d b2", id);
	ts_expect0(&a, "{\"type\":\"ok\",\"move\":\"b2\"}");
	ts_expect0(&a, "{\"type\":\"state\",\"seq\":2}");
	ts_expect0(&b, "{\"type\":\"state\",\"seq\":2}");
	ts_send(&b, "move %d b2", id);
	cJSON *e = ts_expect(&b, "{\"type\":\"error\",\"code\":\"ILLEGAL_MOVE\"}");
	ck_assert_int_gt(strlen(cJSON_GetObjectItem(e, "message")->valuestring), 5);
	cJSON_Delete(e);

	/* lobby errors */
	ts_send(&c, "frobnicate");
	ts_expect0(&c, "{\"type\":\"error\",\"code\":\"UNKNOWN_COMMAND\",\"cmd\":\"frobnicate\"}");
	ts_send(&c, "#q1 FROBNICATE 1 2");
	ts_expect0(&c, "{\"type\":\"error\",\"code\":\"UNKNOWN_COMMAND\",\"id\":\"q1\"}");
	ts_send(&c, "login");
	ts_expect0(&c, "{\"type\":\"error\",\"code\":\"BAD_ARGS\",\"cmd\":\"login\"}");
	ts_send(&c, "login dave");
	ts_expect0(&c, "{\"type\":\"error\",\"code\":\"ALREADY_LOGGED_IN\"}");
	ts_send(&c, "#bad.tag ping");
	ts_expect0(&c, "{\"type\":\"error\",\"code\":\"BAD_TAG\"}");
	ts_send(&c, "seek nosuchgame");
	ts_expect0(&c, "{\"type\":\"error\",\"code\":\"UNKNOWN_GAME\"}");
	ts_send(&c, "seek mnk m=99");
	ts_expect0(&c, "{\"type\":\"error\",\"code\":\"BAD_OPTION\"}");
	ts_send(&c, "seek ttt bogus=1");
	ts_expect0(&c, "{\"type\":\"error\",\"code\":\"BAD_OPTION\"}");
	ts_send(&c, "accept 999");
	ts_expect0(&c, "{\"type\":\"error\",\"code\":\"NO_SUCH_SEEK\"}");
	ts_send(&c, "unwatch %d", id);
	ts_expect0(&c, "{\"type\":\"error\",\"code\":\"NOT_WATCHING\"}");
	ts_send(&c, "say %d hi", id);
	ts_expect0(&c, "{\"type\":\"error\",\"code\":\"NOT_YOUR_GAME\"}");
	ts_send(&c, "set colour red");
	ts_expect0(&c, "{\"type\":\"error\",\"code\":\"BAD_FORMAT\"}");

	/* an overlong line: one error, the rest of it ignored, the connection kept */
	char *big = malloc(20001);
	memset(big, 'm', 20000);
	big[20000] = '\0';
	ts_send(&c, "%.8000s", big);
	ts_expect0(&c, "{\"type\":\"error\",\"code\":\"LINE_TOO_LONG\"}");
	ts_write(&c, big, 20000);
	ts_write(&c, "\n#p1 ping\n", 10);
	ts_expect0(&c, "{\"type\":\"error\",\"code\":\"LINE_TOO_LONG\"}");
	ts_expect0(&c, "{\"type\":\"pong\",\"id\":\"p1\"}");
	free(big);

	/* binary junk: errors, never a crash, never a silent drop */
	static const unsigned char junk[] = {0x00, 0x01, 0xc3, 0x28, 0x1b, '[',  '2',
	                                     'J',  '\n', 0x80, 0x81, 0xfe, '\n', 'p',
	                                     'i',  'n',  'g',  0x7f, '\n'};
	ts_write(&c, junk, sizeof junk);
	ts_expect0(&c, "{\"type\":\"error\",\"code\":\"BAD_INPUT\"}");
	ts_expect0(&c, "{\"type\":\"error\",\"code\":\"BAD_INPUT\"}");
	ts_expect0(&c, "{\"type\":\"error\",\"code\":\"BAD_INPUT\"}");
	unsigned x = 99;
	unsigned char rnd[4096];
	for (int round = 0; round < 50; round++) {
		for (size_t i = 0; i < sizeof rnd; i++) {
			x = x * 1664525u + 1013904223u;
			rnd[i] = (unsigned char)(x >> 24);
		}
		ts_write(&c, rnd, sizeof rnd);
	}
	ts_write(&c, "\n#p2 ping\n", 10);
	ts_until0(&c, "{\"type\":\"pong\",\"id\":\"p2\"}");

	/* and the game goes on for the others */
	ts_send(&b, "move %d a1", id);
	ts_expect0(&b, "{\"type\":\"ok\",\"move\":\"a1\"}");
	ts_expect0(&a, "{\"type\":\"state\",\"seq\":3,\"last_move\":\"a1\"}");
	teardown(&s, &a, &b, &c, NULL);
}
END_TEST

/* ---- leaving, forfeits and coming back ----------------------------------------------- */

START_TEST(test_vanish_forfeit)
{
	static const char *const args[] = {"--grace-ms", "300"};
	struct ts_srv s;
	struct ts_cli a, b, w, x, y;
	setup(&s, args, 2, &a, &b, &w);
	int id = ts_start_game(&a, &b, "ttt", NULL);
	ts_send(&w, "watch %d", id);
	ts_until0(&w, "{\"type\":\"state\",\"seq\":1}");
	ts_send(&a, "move %d a1", id);
	ts_expect0(&a, "{\"type\":\"ok\"}");
	ts_expect0(&a, "{\"type\":\"state\",\"seq\":2}");
	ts_expect0(&w, "{\"type\":\"state\",\"seq\":2}");
	ts_close(&b); /* vanishes without a word */
	ts_expect0(&a, "{\"type\":\"info\",\"event\":\"gone\",\"player\":\"bob\",\"seat\":1,"
	               "\"grace_ms\":300}");
	ts_expect0(&w, "{\"type\":\"info\",\"event\":\"gone\",\"player\":\"bob\"}");
	/* meanwhile another game is served */
	ts_join(&x, s.port, "xena");
	ts_join(&y, s.port, "yuri");
	int id2 = ts_start_game(&x, &y, "mnk m=4 n=4 k=3", NULL);
	ts_send(&x, "move %d d4", id2);
	ts_expect0(&x, "{\"type\":\"ok\",\"move\":\"d4\"}");
	ts_expect0(&y, "{\"type\":\"state\",\"seq\":2,\"last_move\":\"d4\"}");
	/* the grace ends: bob loses */
	const char *over =
	        "{\"type\":\"game_over\",\"result\":{\"winner\":0,\"winner_name\":\"alice\","
	        "\"score\":\"1-0\",\"reason\":\"abandoned\"}}";
	ts_until0(&a, over);
	ts_until0(&w, over);
	/* a late return finds no seat */
	struct ts_cli b2;
	ts_join(&b2, s.port, "bob");
	ts_send(&b2, "move %d b2", id);
	ts_expect0(&b2, "{\"type\":\"error\",\"code\":\"NOT_YOUR_GAME\"}");
	teardown(&s, &a, &w, &x, &y, &b2, NULL);
}
END_TEST

START_TEST(test_reconnect)
{
	struct ts_srv s;
	struct ts_cli a, b, w;
	setup(&s, NULL, 0, &a, &b, &w);
	int id = ts_start_game(&a, &b, "ttt", NULL);
	ts_send(&w, "watch %d", id);
	ts_until0(&w, "{\"type\":\"state\",\"seq\":1}");
	ts_send(&a, "move %d b2", id);
	ts_expect0(&a, "{\"type\":\"ok\"}");
	ts_expect0(&a, "{\"type\":\"state\",\"seq\":2}");
	ts_until0(&b, "{\"type\":\"state\",\"seq\":2}");
	ts_expect0(&w, "{\"type\":\"state\",\"seq\":2}");
	ts_send(&b, "quit");
	ts_expect0(&b, "{\"type\":\"ok\",\"cmd\":\"quit\"}");
	ck_assert(ts_eof(&b));
	ts_close(&b);
	ts_expect0(&a, "{\"type\":\"info\",\"event\":\"gone\",\"player\":\"bob\"}");
	ts_expect0(&w, "{\"type\":\"info\",\"event\":\"gone\",\"player\":\"bob\"}");
	/* the name is bob's while he is away: from another address only his token (in any
	   letter case of the name) gives back the seat (from his own: check_accounts) */
	ts_open_from(&b, s.port, "127.0.0.2");
	ts_expect0(&b, "bitarenad *");
	ts_send(&b, "set format json");
	ts_expect0(&b, "{\"type\":\"ok\"}");
	ts_send(&b, "login BOB");
	ts_expect_err(&b, "NAME_TAKEN");
	ts_send(&b, "login BOB %s", b.token);
	cJSON_Delete(ts_expectf(&b, "{\"type\":\"ok\",\"cmd\":\"login\",\"resumed\":[%d]}", id));
	ts_expect0(&b, "{\"type\":\"game_start\",\"seat\":1}");
	cJSON *st = ts_expect(&b, "{\"type\":\"state\",\"seq\":2,\"seat\":1,\"last_move\":\"b2\"}");
	ck_assert(cJSON_IsArray(cJSON_GetObjectItem(st, "legal")));
	cJSON_Delete(st);
	ts_expect0(&a, "{\"type\":\"info\",\"event\":\"back\",\"player\":\"bob\"}");
	ts_expect0(&w, "{\"type\":\"info\",\"event\":\"back\"}");
	ts_send(&b, "move %d a1", id);
	ts_expect0(&b, "{\"type\":\"ok\",\"move\":\"a1\"}");
	ts_expect0(&a, "{\"type\":\"state\",\"seq\":3,\"last_move\":\"a1\"}");
	ts_expect0(&w, "{\"type\":\"state\",\"seq\":3,\"last_move\":\"a1\"}");
	/* resign ends it */
	ts_send(&a, "resign %d", id);
	ts_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"resign\"}");
	const char *over =
	        "{\"type\":\"game_over\",\"result\":{\"winner\":1,\"reason\":\"resign\"}}";
	ts_expect0(&a, over);
	ts_until0(&b, over);
	ts_expect0(&w, over);
	teardown(&s, &a, &b, &w, NULL);
}
END_TEST

/* ---- clocks -------------------------------------------------------------------------- */

START_TEST(test_flag_fall)
{
	struct ts_srv s;
	struct ts_cli a, b;
	setup(&s, NULL, 0, &a, &b, NULL);
	/* 1 s + 1 s per move: a moves at once, then b lets the flag fall */
	ts_send(&a, "seek ttt time=0:01+1 color=white");
	ts_expect0(&a, "{\"type\":\"ok\",\"seek\":{\"time\":{\"base_ms\":1000,\"inc_ms\":1000}}}");
	ts_until0(&b, "{\"type\":\"seek\",\"event\":\"new\"}");
	ts_send(&b, "accept 1");
	ts_expect0(&b, "{\"type\":\"ok\",\"game\":1}");
	ts_expect0(&b, "{\"type\":\"seek\",\"event\":\"gone\"}");
	ts_expect0(&b, "{\"type\":\"game_start\",\"time\":{\"base_ms\":1000,\"inc_ms\":1000}}");
	cJSON *st = ts_expect(&b, "{\"type\":\"state\",\"seq\":1}");
	cJSON *clocks = cJSON_GetObjectItem(st, "clocks");
	ck_assert_int_eq(cJSON_GetArraySize(clocks), 2);
	ck_assert_int_eq(cJSON_GetArrayItem(clocks, 1)->valueint, 1000);
	cJSON_Delete(st);
	ts_until0(&a, "{\"type\":\"state\",\"seq\":1}");
	ts_send(&a, "move 1 b2");
	ts_expect0(&a, "{\"type\":\"ok\"}");
	st = ts_expect(&a, "{\"type\":\"state\",\"seq\":2}");
	clocks = cJSON_GetObjectItem(st, "clocks");
	/* the increment is added: more than the base unless a whole second went by */
	int x_left = cJSON_GetArrayItem(clocks, 0)->valueint;
	ck_assert_int_gt(x_left, 1000);
	ck_assert_int_le(x_left, 2000);
	cJSON_Delete(st);
	const char *over =
	        "{\"type\":\"game_over\",\"result\":{\"winner\":0,\"reason\":\"timeout\"}}";
	cJSON *g = ts_expect(&a, over);
	ck_assert_int_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(g, "clocks"), 1)->valueint, 0);
	cJSON_Delete(g);
	ts_until0(&b, over);
	ts_send(&b, "move 1 a1");
	ts_expect0(&b, "{\"type\":\"error\",\"code\":\"GAME_OVER\"}");
	teardown(&s, &a, &b, NULL);
}
END_TEST

/* ---- simultaneous turns (Xmas Rush, when the table has it) ------------------------------ */

/* Is kind in the server's games list? */
static bool has_game(struct ts_cli *c, const char *kind)
{
	ts_send(c, "games");
	cJSON *g = ts_expect(c, "{\"type\":\"ok\",\"cmd\":\"games\"}");
	bool found = false;
	const cJSON *it;
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(g, "games")) found |=
	        strcmp(cJSON_GetObjectItem(it, "name")->valuestring, kind) == 0;
	cJSON_Delete(g);
	return found;
}

START_TEST(test_simultaneous)
{
	struct ts_srv s;
	struct ts_cli a, b, w;
	setup(&s, NULL, 0, &a, &b, &w);
	if (!has_game(&a, "xmas")) {
		teardown(&s, &a, &b, &w, NULL);
		return;
	}
	int id = ts_start_game(&a, &b, "xmas seed=0 turn_ms=60000", NULL);
	ts_until0(&w, "{\"type\":\"seek\",\"event\":\"gone\"}");
	ts_send(&w, "watch %d", id);
	ts_expect0(&w, "{\"type\":\"ok\"}");
	ts_expect0(&w, "{\"type\":\"state\",\"seq\":1,\"to_move\":[0,1],\"turn_ms\":60000}");
	ts_send(&a, "move %d PUSH 3 RIGHT", id);
	ts_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"move\",\"pending\":true}");
	ts_send(&a, "move %d PUSH 1 LEFT", id);
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"ALREADY_ACTED\"}");
	/* nothing of a's action reaches b or the spectator before the turn resolves */
	ts_send(&b, "#b ping");
	ts_expect0(&b, "{\"type\":\"pong\",\"id\":\"b\"}");
	ts_send(&w, "#w ping");
	ts_expect0(&w, "{\"type\":\"pong\",\"id\":\"w\"}");
	ts_send(&b, "move %d PUSH 9 NOWHERE", id);
	cJSON *e = ts_expect(&b, "{\"type\":\"error\"}");
	const char *code = cJSON_GetObjectItem(e, "code")->valuestring;
	ck_assert(strcmp(code, "BAD_MOVE") == 0 || strcmp(code, "ILLEGAL_MOVE") == 0);
	cJSON_Delete(e);
	ts_send(&b, "move %d PUSH 2 UP", id); /* not strict: b may try again */
	ts_expect0(&b, "{\"type\":\"ok\",\"pending\":true}");
	const char *st2 = "{\"type\":\"state\",\"seq\":2,\"ply\":1,"
	                  "\"last_move\":{\"0\":\"PUSH 3 RIGHT\",\"1\":\"PUSH 2 UP\"}}";
	ts_expect0(&b, st2);
	ts_expect0(&a, st2);
	ts_expect0(&w, st2);

	/* a short deadline with nobody acting: the referee's timeout for both */
	int id2 = ts_start_game(&a, &b, "xmas seed=1 turn_ms=100", NULL);
	const char *timeout =
	        "{\"type\":\"state\",\"seq\":2,\"last_move\":{\"0\":null,\"1\":null}}";
	ts_until0(&a, timeout);
	ts_until0(&b, timeout);
	/* (in Xmas Rush a timeout is fatal: the game ends there) */
	char over[96];
	snprintf(over, sizeof over, "{\"type\":\"game_over\",\"game\":%d}", id2);
	ts_until0(&a, over);
	ts_until0(&b, over);

	/* strict: an action that does not parse is final for the turn */
	int id3 = ts_start_game(&a, &b, "xmas seed=2 turn_ms=60000 strict=1", NULL);
	ts_send(&a, "move %d HELLO", id3);
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"BAD_MOVE\"}");
	ts_send(&a, "move %d PUSH 3 RIGHT", id3);
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"ALREADY_ACTED\"}");
	teardown(&s, &a, &b, &w, NULL);
}
END_TEST

/* ---- slow readers: a spectator is coalesced, a player is dropped ------------------------ */

START_TEST(test_slow_readers)
{
	/* (the chat flood below runs without the command budget, check_limits') */
	static const char *const args[] = {"--out-cap", "2048", "--sndbuf",   "4096",
	                                   "--grace-ms", "300", "--cmd-rate", "0"};
	struct ts_srv s;
	struct ts_cli a, b, w, v;
	setup(&s, args, 8, &a, &b, NULL);
	/* the spectator's socket buffers are small, and it stops reading for a while */
	ts_open_rcvbuf(&w, s.port, 4096);
	ts_expect0(&w, "bitarenad *");
	ts_send(&w, "set format json");
	ts_expect0(&w, "{\"type\":\"ok\"}");
	int id = ts_start_game(&a, &b, "mnk m=8 n=8 k=8", NULL);
	ts_send(&w, "watch %d", id);
	ts_expect0(&w, "{\"type\":\"ok\"}");
	ts_expect0(&w, "{\"type\":\"state\",\"seq\":1}");
	/* the whole game while w reads nothing */
	ts_send(&a, "watch %d", id);
	ts_expect0(&a, "{\"type\":\"ok\"}");
	cJSON *st = ts_expect(&a, "{\"type\":\"state\",\"seq\":1}");
	int seq = 1;
	for (;;) {
		struct ts_cli *m = seq % 2 == 1 ? &a : &b, *o = seq % 2 == 1 ? &b : &a;
		char mv[64];
		snprintf(mv, sizeof mv, "%s", pick_legal(st, seq * 5));
		cJSON_Delete(st);
		ts_send(m, "move %d %s", id, mv);
		ts_expect0(m, "{\"type\":\"ok\"}");
		seq++;
		cJSON *mine = ts_expect(m, "{\"type\":\"state\"}");
		cJSON_Delete(mine);
		st = ts_expect(o, "{\"type\":\"state\"}");
		if (cJSON_IsTrue(cJSON_GetObjectItem(st, "over")))
			break;
	}
	cJSON_Delete(st);
	ts_until0(&a, "{\"type\":\"game_over\"}");
	ts_until0(&b, "{\"type\":\"game_over\"}");
	/* now w reads: states in increasing seq, the last one included, some skipped */
	int last = 0, got = 0;
	for (;;) {
		char *l = ts_line(&w);
		ck_assert_ptr_nonnull(l);
		cJSON *j = cJSON_Parse(l);
		free(l);
		const char *type = cJSON_GetObjectItem(j, "type")->valuestring;
		if (strcmp(type, "game_over") == 0) {
			cJSON_Delete(j);
			break;
		}
		if (strcmp(type, "state") == 0) {
			int q = ts_jint(j, "seq");
			ck_assert_int_gt(q, last);
			last = q;
			got++;
		}
		cJSON_Delete(j);
	}
	ck_assert_int_eq(last, seq);
	ck_assert_int_lt(got, seq - 1); /* coalesced: fewer states than were made */
	ts_send(&w, "#w ping");
	ts_expect0(&w, "{\"type\":\"pong\",\"id\":\"w\"}");

	/* a player who stops reading while chat floods in is dropped; the seat waits */
	int id2 = ts_start_game(&a, &b, "ttt", NULL);
	ts_join(&v, s.port, "vera");
	ts_send(&v, "watch %d", id2);
	ts_expect0(&v, "{\"type\":\"ok\"}");
	ts_expect0(&v, "{\"type\":\"state\"}");
	bool gone = false, a_saw = false;
	char text[200];
	memset(text, 'z', sizeof text - 1);
	text[sizeof text - 1] = '\0';
	for (int round = 0; round < 400 && !gone; round++) {
		for (int i = 0; i < 10; i++)
			ts_send(&v, "say %d %s", id2, text);
		for (int i = 0; i < 20; i++) {
			char *l = ts_line(&v);
			ck_assert_ptr_nonnull(l);
			if (strstr(l, "\"event\":\"gone\"") != NULL) {
				gone = true;
				i--; /* not one of the 20 replies */
			}
			free(l);
		}
		/* a keeps reading; it sees bob go */
		a_saw |= ts_drain(&a, "\"event\":\"gone\",\"player\":\"bob\"");
	}
	ck_assert_msg(gone, "the player who does not read was never dropped");
	if (!a_saw)
		ts_until0(&a, "{\"type\":\"info\",\"event\":\"gone\",\"player\":\"bob\"}");
	ts_until0(&a, "{\"type\":\"game_over\",\"result\":{\"reason\":\"abandoned\"}}");
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
	/* thousands of commands at once: without the command budget (check_limits has it) */
	static const char *const nobudget[] = {"--cmd-rate", "0"};
	struct ts_srv s;
	struct ts_cli cl[3];
	setup(&s, nobudget, 2, &cl[0], &cl[1], &cl[2]);
	unsigned x = 2024;
#define RND() (x = x * 1103515245u + 12345u, (x >> 16) & 0x7fff)
	for (int i = 0; i < 3000; i++) {
		struct ts_cli *c = &cl[RND() % 3];
		const char *v = verbs[RND() % (sizeof verbs / sizeof verbs[0])];
		const char *m = moves[RND() % (sizeof moves / sizeof moves[0])];
		unsigned id = RND() % 6;
		ts_send(c, "%s %u %s", v, id, m);
		if (i % 50 == 0)
			for (int k = 0; k < 3; k++)
				ts_drain(&cl[k], "");
	}
#undef RND
	for (int k = 0; k < 3; k++) {
		ts_send(&cl[k], "set format json");
		ts_send(&cl[k], "#end ping");
		ts_until0(&cl[k], "{\"type\":\"pong\",\"id\":\"end\"}");
	}
	teardown(&s, &cl[0], &cl[1], &cl[2], NULL);
}
END_TEST

/* ---- one connection in several games at once ------------------------------------------- */

START_TEST(test_several_games)
{
	struct ts_srv s;
	struct ts_cli a, b, w;
	setup(&s, NULL, 0, &a, &b, &w);
	int g1 = ts_start_game(&a, &b, "ttt", NULL); /* alice X vs bob */
	ts_until0(&w, "{\"type\":\"seek\",\"event\":\"gone\"}");
	int g2 = ts_start_game(&a, &w, "mnk m=4 n=4 k=3", NULL); /* alice X vs wendy */
	ts_until0(&b, "{\"type\":\"seek\",\"event\":\"gone\"}");
	int g3 = ts_start_game(&b, &w, "ttt", NULL); /* bob X vs wendy */
	ts_until0(&a, "{\"type\":\"seek\",\"event\":\"gone\"}");
	ts_send(&a, "watch %d", g3);
	ts_expect0(&a, "{\"type\":\"ok\"}");
	ts_expect0(&a, "{\"type\":\"state\",\"seat\":null,\"seq\":1}");
	ts_send(&a, "who");
	char pat[256];
	snprintf(pat, sizeof pat,
	         "{\"type\":\"ok\",\"users\":[{\"name\":\"wendy\",\"playing\":[%d,%d]},"
	         "{\"name\":\"bob\",\"playing\":[%d,%d]},"
	         "{\"name\":\"alice\",\"playing\":[%d,%d],\"watching\":[%d]}]}",
	         g3, g2, g3, g1, g2, g1, g3);
	ts_expect0(&a, pat);
	/* moves in all three, each state reaches exactly the right connections */
	ts_send(&a, "move %d a1", g1);
	ts_expect0(&a, "{\"type\":\"ok\"}");
	snprintf(pat, sizeof pat, "{\"type\":\"state\",\"game\":%d,\"seq\":2}", g1);
	ts_expect0(&a, pat);
	ts_expect0(&b, pat);
	ts_send(&a, "move %d d4", g2);
	ts_expect0(&a, "{\"type\":\"ok\"}");
	snprintf(pat, sizeof pat, "{\"type\":\"state\",\"game\":%d,\"seq\":2,\"last_move\":\"d4\"}",
	         g2);
	ts_expect0(&a, pat);
	ts_expect0(&w, pat);
	ts_send(&b, "move %d c3", g3);
	ts_expect0(&b, "{\"type\":\"ok\"}");
	snprintf(pat, sizeof pat, "{\"type\":\"state\",\"game\":%d,\"seq\":2,\"last_move\":\"c3\"}",
	         g3);
	ts_expect0(&b, pat);
	ts_expect0(&w, pat);
	ts_expect0(&a, pat); /* as a spectator */
	/* the seat in one game gives no right in another */
	ts_send(&w, "move %d b1", g1);
	ts_expect0(&w, "{\"type\":\"error\",\"code\":\"NOT_YOUR_GAME\"}");
	ts_send(&a, "move %d b1", g3);
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"NOT_YOUR_GAME\"}");
	/* leaving: every game of the leaver is told */
	ts_close(&w);
	snprintf(pat, sizeof pat, "{\"type\":\"info\",\"game\":%d,\"event\":\"gone\"}", g3);
	ts_expect0(&a, pat); /* as a spectator of g3 */
	ts_expect0(&b, pat);
	snprintf(pat, sizeof pat, "{\"type\":\"info\",\"game\":%d,\"event\":\"gone\"}", g2);
	ts_expect0(&a, pat);
	teardown(&s, &a, &b, NULL);
}
END_TEST

/* ---- text mode, pipelining, IPv6 ------------------------------------------------------- */

START_TEST(test_text_mode)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli a, b;
	ts_open(&a, s.port);
	ts_open(&b, s.port);
	ts_expect0(&a, "bitarenad * ready*");
	ts_expect0(&b, "bitarenad * ready*");
	ts_send(&a, "seek ttt");
	ts_expect0(&a, "error NOT_LOGGED_IN: *");
	/* telnet negotiation (refused: DONT ECHO, WONT SGA), CRLF and trailing blanks are fine */
	ts_write(&a, "\xff\xfb\x01\xff\xfd\x03login alice \t\r\n", 21);
	ts_expect0(&a, "\xff\xfe\x01\xff\xfc\x03ok logged in as alice*");
	ts_write(&b, "login bob\r\0", 11);
	ts_expect0(&b, "ok logged in as bob*");
	ts_send(&b, "login bob");
	ts_expect0(&b, "error ALREADY_LOGGED_IN: *");
	ts_send(&a, "#s1 seek ttt color=black");
	ts_expect0(&a, "#s1 ok seek 1 by alice: ttt *");
	ts_expect0(&b, "seek 1 by alice: ttt * (accept 1 to play)");
	ts_send(&b, "accept 1");
	ts_expect0(&b, "ok accepted seek 1: game 1");
	ts_expect0(&b, "seek 1 gone");
	ts_expect0(&b, "game 1 started: ttt *, bob (X) vs alice (O); you play X*");
	ts_expect0(&b, "game 1 ttt, ply 0: bob (X) vs alice (O)");
	ts_until0(&b, "your move: move 1 <move>");
	ts_send(&b, "move 1 c3");
	ts_expect0(&b, "ok c3 played in game 1");
	ts_expect0(&b, "game 1 ttt, ply 1: bob (X) vs alice (O)");
	ts_until0(&b, "last move: c3; to move: O (alice)");
	ts_until0(&a, "last move: c3; to move: O (alice)");
	ts_expect0(&a, "your move: move 1 <move>");
	ts_send(&a, "move 1 c3");
	ts_expect0(&a, "error ILLEGAL_MOVE: *");
	ts_send(&a, "say 1 good luck");
	ts_expect0(&a, "ok said in game 1");
	ts_expect0(&a, "\\[1] alice: good luck");
	ts_expect0(&b, "\\[1] alice: good luck");
	ts_send(&a, "ping");
	ts_expect0(&a, "pong");
	ts_send(&a, "help move");
	ts_expect0(&a, "ok move <game> <move>");
	ts_expect0(&a, "  move <game> <move>*");
	ts_expect0(&a, "                               *e5"); /* wrapped under its column */
	ts_send(&a, "resign 1");
	ts_expect0(&a, "ok you resigned game 1");
	ts_expect0(&a, "game 1 over: 1-0, bob (X) wins (resign)");
	ts_expect0(&b, "game 1 over: 1-0, bob (X) wins (resign)");
	teardown(&s, &a, &b, NULL);
}
END_TEST

START_TEST(test_pipelining)
{
	/* without the command budget (check_limits: pipelining past it) */
	static const char *const nobudget[] = {"--cmd-rate", "0"};
	struct ts_srv s;
	struct ts_cli a, b;
	setup(&s, nobudget, 2, &a, &b, NULL);
	/* a thousand commands in one write: all answered, in order */
	size_t cap = 1000 * 16, at = 0;
	char *burst = malloc(cap);
	for (int i = 0; i < 1000; i++)
		at += (size_t)snprintf(burst + at, cap - at, "#p%d ping\n", i);
	ts_write(&a, burst, at);
	free(burst);
	ts_send(&b, "#q ping");
	ts_expect0(&b, "{\"type\":\"pong\",\"id\":\"q\"}");
	for (int i = 0; i < 1000; i++) {
		char pat[64];
		snprintf(pat, sizeof pat, "{\"type\":\"pong\",\"id\":\"p%d\"}", i);
		ts_expect0(&a, pat);
	}
	/* input ends without a newline and the socket half-closes: still answered */
	ts_write(&a, "#last ping", 10);
	shutdown(ts_fd(&a), SHUT_WR);
	ts_expect0(&a, "{\"type\":\"pong\",\"id\":\"last\"}");
	ck_assert(ts_eof(&a));
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
	struct ts_srv s;
	ts_up_at(&s, "[::1]:0", NULL, 0);
	struct ts_cli c;
	int cfd = socket(AF_INET6, SOCK_STREAM, 0);
	a6.sin6_port = htons((uint16_t)s.port);
	ck_assert_int_eq(connect(cfd, (struct sockaddr *)&a6, sizeof a6), 0);
	ts_open_fd(&c, cfd);
	ts_expect0(&c, "bitarenad * ready*");
	ts_send(&c, "ping");
	ts_expect0(&c, "pong");
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

/* What a command prints on stdout and stderr together, into out; its exit status. */
static int run_out(const char *cmd, char *out, size_t size)
{
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	size_t n = fread(out, 1, size - 1, p);
	out[n] = '\0';
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Whether a --help line is name's ("  -v, --verbose ...", "      --listen HOST:PORT ..."). */
static bool help_names(const char *line, size_t len, const char *name)
{
	size_t i = 6, n = strlen(name);
	if (len < i || (strncmp(line, "      ", 6) != 0 &&
	                !(strncmp(line, "  -", 3) == 0 && strncmp(line + 4, ", ", 2) == 0)))
		return false;
	return i + 2 + n <= len && strncmp(line + i, "--", 2) == 0 &&
	       strncmp(line + i + 2, name, n) == 0 && (i + 2 + n == len || line[i + 2 + n] == ' ');
}

/*
 * The option table: --help fits 80 columns and lists exactly the options
 * --dump-options says this build has; --version says which optional parts
 * it has; an option of a part it lacks is refused in one line, status 2.
 */
START_TEST(test_cli_table)
{
	const char *bin = getenv("BITARENAD");
	ck_assert_ptr_nonnull(bin);
	static char help[1 << 16], dump[1 << 16], out[4096];
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "'%s' --help", bin);
	ck_assert_int_eq(run_out(cmd, help, sizeof help), 0);
	for (const char *l = help; *l;) {
		size_t len = strcspn(l, "\n");
		/* past the margin only as one word alone on its line: a configured path
		 * (the install prefix of a distcheck) longer than any line can hold */
		size_t indent = strspn(l, " ");
		int one_word = memchr(l + indent, ' ', len - indent) == NULL;
		ck_assert_msg(len <= 80 || one_word, "--help line of %zu columns: %.*s", len,
			      (int)len, l);
		l += len + (l[len] == '\n');
	}
	snprintf(cmd, sizeof cmd, "'%s' --dump-options", bin);
	ck_assert_int_eq(run_out(cmd, dump, sizeof dump), 0);
	int rows = 0;
	for (char *l = dump, *nl; *l; l = nl + 1) {
		nl = strchr(l, '\n');
		ck_assert_ptr_nonnull(nl);
		*nl = '\0';
		cJSON *j = cJSON_Parse(l);
		ck_assert_msg(j != NULL, "not JSON: %s", l);
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(j, "name"));
		ck_assert_ptr_nonnull(name);
		bool built = cJSON_IsTrue(cJSON_GetObjectItem(j, "built")), listed = false;
		for (const char *h = help; *h;) {
			size_t len = strcspn(h, "\n");
			listed |= help_names(h, len, name);
			h += len + (h[len] == '\n');
		}
		ck_assert_msg(listed == built, "--%s: built %d, in --help %d", name, built, listed);
		cJSON_Delete(j);
		rows++;
	}
	ck_assert_int_ge(rows, 40);
	snprintf(cmd, sizeof cmd, "'%s' --version", bin);
	ck_assert_int_eq(run_out(cmd, out, sizeof out), 0);
	const char *with = strstr(out, "\nbuilt with: SQLite");
	ck_assert_msg(with != NULL, "%s", out);
	static const struct {
		bool built;
		const char *part, *args, *says;
	} parts[] = {
	        {HAVE_POSTGRESQL, "PostgreSQL", "--db postgresql://x",
	         "PostgreSQL support (libpq)"},
	        {HAVE_REDIS, "Redis", "--cluster redis://127.0.0.1:1", "Redis support (hiredis)"},
	        {HAVE_WEBSOCKETS, "WebSocket", "--http 127.0.0.1:0",
	         "WebSocket support (libwebsockets)"},
	};
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		size_t with_len = strcspn(with + 1, "\n");
		const char *p = strstr(with + 1, parts[i].part);
		ck_assert_msg((p != NULL && p < with + 1 + with_len) == parts[i].built, "%s: %s",
		              parts[i].part, out);
		if (parts[i].built)
			continue;
		char said[1024];
		snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", bin, parts[i].args);
		ck_assert_int_eq(run_out(cmd, said, sizeof said), 2);
		ck_assert_msg(strstr(said, parts[i].says) != NULL &&
		                      strchr(said, '\n') == said + strlen(said) - 1,
		              "%s: %s", parts[i].args, said);
	}
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
	tcase_add_test(tc, test_help_fits_80_columns);
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
	tcase_add_test(tc, test_cli_table);
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
