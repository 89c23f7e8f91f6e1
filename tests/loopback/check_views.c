/*
 * check_views.c - each seat sees only what it may, over the real bitarenad:
 * for every game kind, a game between a JSON player and a text player,
 * watched by a JSON and a text spectator and a spectator on the WebSocket, who
 * also ask for everything a stranger may (list, who, seeks, history, finger,
 * the record and a replay of the game under way). Every line any of them
 * receives before the game's end is searched for the game's seed (both
 * spellings, and for Xmas Rush the half that deals the quests), which the
 * record publishes once the game is over (and only then); for Xmas Rush, whose
 * hidden quest order follows from the seed, every JSON position received must
 * also be exactly the engine's view of the state the record replays to
 * (nothing beside what the view keeps). The bridges hand their programs no
 * more: a CodinGame bot behind `bitarena cg-bridge` and a TEI engine behind
 * `bitarena tei-bridge` (the test engine of check_tei_bridge) never read the
 * seed. A random seed is shown as random, never as 0, and is the one a
 * restart and a replay use.
 *
 * This program is also the CodinGame bot of that test (`--cgbot LOG`): it
 * appends every line of its input to LOG and gives up on its seventh turn.
 */
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testproc.h"
#include "testserver.h"
#include "wsclient.h"

#include "games/game.h"
#include "games/record.h"
#include "games/xmas/xmas.h"
#include "check_main.h"

/* ---- a client that keeps every line it reads ---------------------------------------- */

struct peer {
	struct ts_cli c;
	struct ws_cli w; /* ws: on the WebSocket (always JSON) */
	bool ws;
	bool json;
	const char *name;
	char **lines; /* everything received, in order */
	size_t n, cap;
	size_t end_at; /* lines[0, end_at) came before the game_over (n until it comes) */
	bool ended;
};

static void keep(struct peer *p, char *l)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 256;
		p->lines = realloc(p->lines, p->cap * sizeof *p->lines);
		ck_assert_ptr_nonnull(p->lines);
	}
	p->lines[p->n++] = l;
	bool over = p->json ? strstr(l, "\"type\":\"game_over\"") != NULL
	                    : fnmatch("game * over: *", l, 0) == 0;
	if (over && !p->ended) {
		p->ended = true;
		p->end_at = p->n - 1;
	}
}

/* Sends one line to the server. */
static void psend(struct peer *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void psend(struct peer *p, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (p->ws)
		wsc_send(&p->w, "%s", line);
	else
		ts_send(&p->c, "%s", line);
}

/* The next line (kept); the test fails without one. */
static const char *next(struct peer *p)
{
	char *l = p->ws ? wsc_recv(&p->w) : ts_line(&p->c);
	ck_assert_msg(l != NULL, "%s: no line after %s", p->name,
	              p->n > 0 ? p->lines[p->n - 1] : "(none)");
	keep(p, l);
	return l;
}

/* Everything up to the answer of a tagged ping: what the server sent p before it. */
static void sync_peer(struct peer *p)
{
	psend(p, "#sync ping");
	const char *want = p->json ? "{\"type\":\"pong\",\"id\":\"sync\"}" : "#sync pong";
	while (!ts_match(want, next(p)))
		;
}

/* Lines until one matches pattern; returns it (kept by p). */
static const char *until(struct peer *p, const char *pattern)
{
	const char *l;
	while (!ts_match(pattern, l = next(p)))
		;
	return l;
}

/* p joins as name: over TCP on port, or over the WebSocket on port when ws (JSON). */
static void join(struct peer *p, int port, const char *name, bool json, bool ws)
{
	memset(p, 0, sizeof *p);
	p->name = name;
	p->json = json || ws;
	p->ws = ws;
	if (ws)
		wsc_open(&p->w, port);
	else
		ts_open(&p->c, port);
	until(p, "bitarenad * ready*");
	if (p->json) {
		psend(p, "set format json");
		until(p, "{\"type\":\"ok\",\"cmd\":\"set\"}");
	}
	psend(p, "login %s", name);
	until(p, p->json ? "{\"type\":\"ok\",\"cmd\":\"login\"}" : "ok logged in as *");
}

static void leave(struct peer *p)
{
	if (p->ws)
		wsc_close(&p->w);
	else
		ts_close(&p->c);
	for (size_t i = 0; i < p->n; i++)
		free(p->lines[i]);
	free(p->lines);
}

/* ---- the game ------------------------------------------------------------------------- */

/* The last JSON state p received (parsed; caller frees), or NULL. */
static cJSON *last_state(const struct peer *p)
{
	for (size_t i = p->n; i-- > 0;)
		if (strstr(p->lines[i], "\"type\":\"state\"") != NULL)
			return cJSON_Parse(p->lines[i]);
	return NULL;
}

/* A spectator asks what anyone may about game id; everything it is told is kept. */
static void stranger_asks(struct peer *p, int id)
{
	psend(p, "list");
	psend(p, "who");
	psend(p, "seeks");
	psend(p, "history alice");
	psend(p, "finger bob");
	psend(p, "record %d", id);
	psend(p, "replay %d 0", id);
	until(p, p->json ? "{\"type\":\"replay\",\"done\":true}" : "replay game * done*");
	sync_peer(p);
}

/* The peers of one_kind(): players 0 and 1, spectators after them; NULL-terminated. */
#define NPEERS 5

/* Sends one move of game id from p and sees it taken, then brings every peer up to date. */
static void play(struct peer *p, int id, const char *move, struct peer **all)
{
	psend(p, "move %d %s", id, move);
	const char *ok = p->json ? "{\"type\":\"ok\",\"cmd\":\"move\"}" : "ok *";
	const char *err = p->json ? "{\"type\":\"error\"}" : "error *";
	const char *l;
	while (!ts_match(ok, l = next(p)))
		ck_assert_msg(!ts_match(err, l), "%s: move %s: %s", p->name, move, l);
	sync_peer(p);
	for (int i = 0; all[i] != NULL; i++)
		if (all[i] != p)
			sync_peer(all[i]);
}

/* Plays sequential game id (options opts of ops) through a local copy of the position. */
static void play_sequential(const struct game_ops *ops, const char *opts, int id, struct peer **all)
{
	struct game_params prm;
	game_params_default(ops, &prm);
	char buf[128];
	snprintf(buf, sizeof buf, "%s", opts);
	for (char *save = NULL, *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
		ck_assert_int_ge(game_param_word(ops, &prm, w, NULL), 0);
	void *st = calloc(1, ops->state_size);
	game_move *mv = calloc(ops->max_moves, sizeof *mv);
	ck_assert_int_eq(ops->init(st, &prm, 0), 0);
	for (int ply = 0; ply < 12 && ops->to_move(st) != 0; ply++) {
		int n = ops->legal_moves(st, mv, ops->max_moves);
		ck_assert_int_gt(n, 0);
		game_move m = mv[(ply * 7) % n];
		char text[GAME_MOVE_TEXT];
		ck_assert_int_ge(ops->format_move(st, m, text, sizeof text), 0);
		int seat = game_seat_to_move(ops, st);
		ck_assert_int_eq(ops->apply(st, m), 0);
		play(all[seat], id, text, all);
		if (ply == 4)
			stranger_asks(all[2], id);
	}
	free(mv);
	free(st);
}

/* Plays some Xmas Rush turns: pushes, walks into walls, passes, an action of the wrong kind. */
/* Entry k of the legal list of p's last state (-1: the last; PASS when there is none). */
static void legal_of(const struct peer *p, int k, char *out, size_t len)
{
	cJSON *st = last_state(p);
	const cJSON *legal = cJSON_GetObjectItem(st, "legal");
	int n = cJSON_GetArraySize(legal);
	const cJSON *e = cJSON_GetArrayItem(legal, k < 0 ? n - 1 : (k < n ? k : 0));
	snprintf(out, len, "%s", cJSON_IsString(e) ? e->valuestring : "PASS");
	cJSON_Delete(st);
}

static void play_xmas(int id, struct peer **all)
{
	for (int turn = 0; turn < 8; turn++) {
		cJSON *st = last_state(all[2]);
		ck_assert_ptr_nonnull(st);
		const char *type =
		        cJSON_GetObjectItem(cJSON_GetObjectItem(st, "position"), "turn_type")
		                ->valuestring;
		bool push = strcmp(type, "PUSH") == 0;
		cJSON_Delete(st);
		char a[GAME_MOVE_TEXT], b[GAME_MOVE_TEXT]; /* a walk of 20 steps is 120 bytes */
		if (push) {
			snprintf(a, sizeof a, "PUSH %d RIGHT", turn % 7);
			snprintf(b, sizeof b, "PUSH %d UP", (turn + 3) % 7);
			/* the wrong kind of action has its own code, and the seat may act again */
			psend(all[0], "move %d PASS", id);
			until(all[0], "{\"type\":\"error\",\"code\":\"WRONG_PHASE\"}");
		} else { /* walks the state offers (a MOVE into a wall is refused for people) */
			legal_of(all[0], -1, a, sizeof a);
			legal_of(all[1], turn % 4 == 1 ? 0 : 1, b, sizeof b);
		}
		play(all[0], id, a, all);
		play(all[1], id, b, all);
		if (turn == 3)
			stranger_asks(all[2], id);
	}
}

/* The record of finished game id, as p gets it: the text (malloc'd). */
static char *record_of(struct peer *p, int id)
{
	psend(p, "record %d", id);
	cJSON *ok = cJSON_Parse(until(p, "{\"type\":\"ok\",\"cmd\":\"record\"}"));
	char *text = strdup(ts_jstr(ok, "record"));
	cJSON_Delete(ok);
	return text;
}

/*
 * The spellings of a seed that must not be seen before the end: unsigned and signed
 * decimal, and for a dealt Xmas Rush game its low half (what deals the quests) when it
 * is long enough not to turn up by chance; into out[3], "" when not used.
 */
static void seed_spellings(uint64_t seed, bool dealt, char out[3][32])
{
	snprintf(out[0], 32, "%llu", (unsigned long long)seed);
	snprintf(out[1], 32, "%lld", (long long)seed);
	out[2][0] = '\0';
	if (dealt && (uint32_t)seed >= 1000000000u)
		snprintf(out[2], 32, "%u", (unsigned)(uint32_t)seed);
}

/* The first spelling of seed that text holds, or NULL. */
static const char *seed_in(const char *text, uint64_t seed, bool dealt)
{
	static char sp[3][32];
	seed_spellings(seed, dealt, sp);
	for (int k = 0; k < 3; k++)
		if (sp[k][0] != '\0' && strstr(text, sp[k]) != NULL)
			return sp[k];
	return NULL;
}

/* No line before the end holds the seed, in any of its spellings. */
static void seed_unseen(const struct peer *p, uint64_t seed, bool dealt)
{
	ck_assert_msg(p->ended, "%s never saw the end", p->name);
	ck_assert_uint_gt(p->end_at, 10);
	for (size_t i = 0; i < p->end_at; i++) {
		const char *hit = seed_in(p->lines[i], seed, dealt);
		ck_assert_msg(hit == NULL, "%s was told the seed (%s) before the end: %s", p->name,
		              hit, p->lines[i]);
	}
}

/*
 * Xmas Rush: every JSON position p received is the engine's view, for p's
 * seat, of the position the record replays to at that turn. A player gets
 * every state; a spectator whose output is backed up gets only the newest
 * once it drains (session_watch.c), so it may see only a few.
 */
static void positions_are_views(const struct peer *p, const struct record *rec, bool player)
{
	const struct game_ops *ops = &game_xmas;
	void *st[64];
	int turns = 0;
	struct game_replay rp;
	void *cur = calloc(1, ops->state_size);
	ck_assert_int_eq(record_replay_start(rec, NULL, cur, &rp, NULL), RECORD_OK);
	st[0] = malloc(ops->state_size);
	memcpy(st[0], cur, ops->state_size);
	for (size_t i = 0; i < rec->nmoves; i++) {
		int r = record_replay_move(rec, i, &rp, NULL);
		ck_assert_int_ge(r, 0);
		if (r == GAME_REPLAY_MADE) {
			ck_assert_int_lt(turns + 1, 64);
			st[turns + 1] = malloc(ops->state_size);
			memcpy(st[turns + 1], rp.st, ops->state_size);
			turns++;
		}
	}
	int seen = 0;
	for (size_t i = 0; i < p->n; i++) {
		cJSON *j = cJSON_Parse(p->lines[i]);
		const cJSON *type = cJSON_GetObjectItem(j, "type");
		if (j == NULL || !cJSON_IsString(type) || strcmp(type->valuestring, "state") != 0) {
			cJSON_Delete(j);
			continue;
		}
		int ply = ts_jint(j, "ply");
		const cJSON *seat = cJSON_GetObjectItem(j, "seat");
		int viewer = cJSON_IsNumber(seat) ? seat->valueint : -1;
		ck_assert_int_le(ply, turns);
		cJSON *want = ops->to_json(st[ply], viewer);
		ck_assert_msg(cJSON_Compare(want, cJSON_GetObjectItem(j, "position"), true),
		              "%s: the position of ply %d is not the view", p->name, ply);
		cJSON_Delete(want);
		cJSON_Delete(j);
		seen++;
	}
	ck_assert_msg(seen > (player ? 4 : 0), "%s saw %d states", p->name, seen);
	for (int t = 0; t <= turns; t++)
		free(st[t]);
	free(cur);
}

/* One game of kind (options opts) on port, watched over the WebSocket on hport too (if > 0). */
static void one_kind(int port, int hport, const char *kind, const char *opts)
{
	const struct game_ops *ops = game_find(kind);
	ck_assert_ptr_nonnull(ops);
	struct peer pa, pb, ps, pt, pw, *all[NPEERS + 1] = {&pa, &pb, &ps, &pt, NULL, NULL};
	join(&pa, port, "alice", true, false);
	join(&pb, port, "bob", false, false);
	join(&ps, port, "carol", true, false);
	join(&pt, port, "dave", false, false);
	if (hport > 0) {
		join(&pw, hport, "erin", true, true);
		all[4] = &pw;
	}
	psend(&pa, "seek %s %s color=first", kind, opts);
	cJSON *ok = cJSON_Parse(until(&pa, "{\"type\":\"ok\",\"cmd\":\"seek\"}"));
	int seek = ts_jint(cJSON_GetObjectItem(ok, "seek"), "id");
	if (ops->flags & GAME_SIMULTANEOUS) /* a seed left to the server is shown as random */
		ck_assert_str_eq(
		        ts_jstr(cJSON_GetObjectItem(cJSON_GetObjectItem(ok, "seek"), "options"),
		                "seed"),
		        "random");
	cJSON_Delete(ok);
	psend(&pb, "accept %d", seek);
	const char *l = until(&pb, "ok accepted seek *");
	int id = atoi(strrchr(l, ' ') + 1);
	until(&pa, "{\"type\":\"state\"}");
	until(&pb, "game * started: *");
	sync_peer(&pa);
	sync_peer(&pb);
	for (int i = 2; all[i] != NULL; i++) {
		psend(all[i], "watch %d", id);
		sync_peer(all[i]);
	}
	if (ops->flags & GAME_SIMULTANEOUS)
		play_xmas(id, all);
	else
		play_sequential(ops, opts, id, all);
	stranger_asks(&pt, id);
	if (all[4] != NULL)
		stranger_asks(all[4], id);
	cJSON *st = last_state(&ps);
	bool over = cJSON_IsTrue(cJSON_GetObjectItem(st, "over"));
	cJSON_Delete(st);
	if (!over)
		psend(&pa, "resign %d", id);
	for (int i = 0; all[i] != NULL; i++) {
		while (!all[i]->ended)
			next(all[i]);
		sync_peer(all[i]);
	}

	/* the record publishes the seed once the game is over */
	char *text = record_of(&ps, id);
	struct record rec;
	record_init(&rec);
	ck_assert_int_eq(record_parse(text, strlen(text), &rec, NULL), RECORD_OK);
	const char *seed_tag = record_tag(&rec, "Seed");
	ck_assert_msg(seed_tag != NULL, "no Seed in the record of an ended game:\n%s", text);
	uint64_t seed = strtoull(seed_tag, NULL, 10);
	/* a random 64-bit draw: no chance match */
	ck_assert_uint_gt(seed < (1ULL << 63) ? seed : -seed, 1000000000ULL);
	bool sim = (ops->flags & GAME_SIMULTANEOUS) != 0;
	for (int i = 0; all[i] != NULL; i++)
		seed_unseen(all[i], seed, sim);
	if (sim) {
		ck_assert_ptr_nonnull(strstr(record_tag(&rec, "Options"), "seed=random"));
		for (int i = 0; all[i] != NULL; i++)
			if (all[i]->json)
				positions_are_views(all[i], &rec, i < 2); /* alice and bob play */
	}
	record_clear(&rec);
	free(text);
	for (int i = 0; all[i] != NULL; i++)
		leave(all[i]);
}

/* The port another listener of s wrote to path, or 0 when this build has no WebSocket. */
static int http_port(struct ts_srv *s, const char *path)
{
	return HAVE_WEBSOCKETS ? ts_port_file(s, path) : 0;
}

START_TEST(test_every_kind_hides_the_seed)
{
	struct ts_srv s;
	char hpf[256];
	ts_port_path(hpf, sizeof hpf);
	const char *http[] = {"--http", "127.0.0.1:0", "--http-port-file", hpf};
	ts_up(&s, http, HAVE_WEBSOCKETS ? 4 : 0);
	int hport = http_port(&s, hpf);
	one_kind(s.port, hport, "ttt", "");
	one_kind(s.port, hport, "mnk", "m=5 n=5 k=4");
	one_kind(s.port, hport, "tak", "size=5");
	one_kind(s.port, hport, "xmas", "turn_ms=60000");
	ts_down(&s);
}
END_TEST

/* ---- the bridges' programs ------------------------------------------------------------------ */

static char self[PATH_MAX];
static char tmpdir[] = "/tmp/check_views.XXXXXX";

/* The CodinGame bot of test_bridges_hide_the_seed: see the top of this file. */
static int cg_bot(const char *log)
{
	FILE *lf = fopen(log, "a");
	if (lf == NULL)
		return 1;
	char l[256];
	int turn = 0;
	while (fgets(l, sizeof l, stdin) != NULL) { /* the turn type, then the block (§3) */
		int type = atoi(l), lines = 9, n;
		fputs(l, lf);
		for (int part = 0; part < 3; part++) {
			for (int i = 0; i < lines; i++) {
				if (fgets(l, sizeof l, stdin) == NULL)
					return 1;
				fputs(l, lf);
			}
			if (part < 2) { /* the count of the items, then of the quests */
				if (fgets(l, sizeof l, stdin) == NULL)
					return 1;
				fputs(l, lf);
				lines = n = atoi(l);
			}
		}
		fflush(lf);
		if (++turn == 7)
			printf("GIVE UP\n"); /* no action: fatal, the game ends */
		else if (type == 0)
			printf("PUSH %d RIGHT\n", turn % 7);
		else
			printf("PASS\n");
		fflush(stdout);
	}
	fclose(lf);
	return 0;
}

/* dir/name into buf. */
static char *tmp_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
	return buf;
}

/* The game id in a bridge's result line ("game N: ..."), or -1. */
static int result_game(const char *out)
{
	const char *g = strstr(out, "game ");
	return g != NULL ? atoi(g + 5) : -1;
}

/* The seed finished game id's record publishes, as a new JSON client on port reads it. */
static uint64_t record_seed(int port, int id)
{
	struct ts_cli c;
	ts_connect_json(&c, port);
	ts_send(&c, "record %d", id);
	cJSON *ok = ts_until(&c, "{\"type\":\"ok\",\"cmd\":\"record\"}");
	const char *text = ts_jstr(ok, "record");
	struct record rec;
	record_init(&rec);
	ck_assert_int_eq(record_parse(text, strlen(text), &rec, NULL), RECORD_OK);
	const char *tag = record_tag(&rec, "Seed");
	ck_assert_msg(tag != NULL, "no Seed in the record of game %d:\n%s", id, text);
	uint64_t seed = strtoull(tag, NULL, 10);
	record_clear(&rec);
	cJSON_Delete(ok);
	ts_close(&c);
	return seed;
}

/* None of the files (NULL-terminated names in tmpdir) holds the seed of game id. */
static void files_without_seed(int port, int id, bool dealt, const char *const *names)
{
	static char text[1 << 20];
	uint64_t seed = record_seed(port, id);
	for (int i = 0; names[i] != NULL; i++) {
		char p[PATH_MAX];
		tp_slurp(tmp_path(p, sizeof p, names[i]), text, sizeof text);
		const char *hit = seed_in(text, seed, dealt);
		ck_assert_msg(hit == NULL, "%s holds the seed of game %d (%s)", names[i], id, hit);
	}
}

/*
 * An Xmas Rush game between two bots behind cg-bridge, and a Tak game of a TEI engine
 * behind tei-bridge against `bitarena bot`: what the bots and the engine read, and what the
 * bridges print, never hold the game's seed.
 */
START_TEST(test_bridges_hide_the_seed)
{
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	char server[64], p[6][PATH_MAX], out[2][512];
	snprintf(server, sizeof server, "127.0.0.1:%d", s.port);
	const char *bitarena = tp_prog("BITARENA", "./bitarena");
	pid_t pid[2];
	for (int k = 0; k < 2; k++) {
		char name[16], log[32], o[32], e[32];
		snprintf(name, sizeof name, "cg%d", k);
		snprintf(log, sizeof log, "cg%d.log", k);
		snprintf(o, sizeof o, "cg%d.out", k);
		snprintf(e, sizeof e, "cg%d.err", k);
		tmp_path(p[3 * k], PATH_MAX, log);
		tmp_path(p[3 * k + 1], PATH_MAX, o);
		tmp_path(p[3 * k + 2], PATH_MAX, e);
		const char *argv[] = {bitarena,
		                      "cg-bridge",
		                      "--game",
		                      "xmas",
		                      "--server",
		                      server,
		                      "--name",
		                      name,
		                      k == 0 ? "--seek" : "--accept",
		                      k == 0 ? "turn_ms=5000" : "--quiet",
		                      "--",
		                      self,
		                      "--cgbot",
		                      p[3 * k],
		                      NULL};
		pid[k] = tp_spawn(argv, p[3 * k + 1], p[3 * k + 2]);
		if (k == 0)
			ts_msleep(500); /* the seek first */
	}
	for (int k = 0; k < 2; k++) {
		ck_assert_int_eq(tp_wait(pid[k], 100), 0);
		tp_slurp(p[3 * k + 1], out[k], sizeof out[k]);
	}
	int id = result_game(out[0]);
	ck_assert_msg(id > 0 && id == result_game(out[1]), "%s / %s", out[0], out[1]);
	static const char *const cg_files[] = {"cg0.log", "cg1.log", "cg0.out", "cg1.out",
	                                       "cg0.err", "cg1.err", NULL};
	files_without_seed(s.port, id, true, cg_files);
	char log0[4096];
	ck_assert_int_gt(strlen(tp_slurp(p[0], log0, sizeof log0)), 100); /* it did read */

	/* Tak through TEI: the engine of check_tei_bridge, logging what it reads */
	char engine[PATH_MAX], flags[PATH_MAX + 8];
	const char *build = getenv("BITARENA_BUILDDIR");
	snprintf(engine, sizeof engine, "%s/tests/loopback/check_tei_bridge", build ? build : ".");
	snprintf(flags, sizeof flags, "log=%s", tmp_path(p[0], PATH_MAX, "tei.log"));
	const char *tei[] = {bitarena,     "tei-bridge", "--server", server,         "--seek",
	                     "tak size=4", "--games",    "1",        "--untimed-ms", "500",
	                     "--",         engine,       "--engine", flags,          NULL};
	pid[0] = tp_spawn(tei, tmp_path(p[1], PATH_MAX, "tei.out"),
	                  tmp_path(p[2], PATH_MAX, "tei.err"));
	const char *bot[] = {bitarena,    "bot", "--server", server,    "--accept",
	                     "--kind",    "tak", "--random", "--games", "1",
	                     "--timeout", "60",  NULL};
	pid[1] = tp_spawn(bot, tmp_path(p[4], PATH_MAX, "bot.out"), "/dev/null");
	ck_assert_int_eq(tp_wait(pid[0], 100), 0);
	ck_assert_int_eq(tp_wait(pid[1], 60), 0);
	tp_slurp(p[1], out[0], sizeof out[0]);
	id = result_game(out[0]);
	ck_assert_msg(id > 0, "%s", out[0]);
	static const char *const tei_files[] = {"tei.log", "tei.out", "tei.err", "bot.out", NULL};
	files_without_seed(s.port, id, false, tei_files);
	ck_assert_ptr_nonnull(strstr(tp_slurp(p[0], log0, sizeof log0), "< position"));
	ts_down(&s);
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The board of game id as a JSON spectator sees it (malloc'd text of position.board). */
static char *board_of(int port, int id)
{
	struct ts_cli c;
	ts_connect_json(&c, port);
	ts_send(&c, "watch %d", id);
	ts_expect0(&c, "{\"type\":\"ok\",\"cmd\":\"watch\"}");
	cJSON *st = ts_expect(&c, "{\"type\":\"state\"}");
	cJSON *pos = cJSON_GetObjectItem(st, "position");
	char *b = cJSON_PrintUnformatted(cJSON_GetObjectItem(pos, "board"));
	char *items = cJSON_PrintUnformatted(cJSON_GetObjectItem(pos, "items"));
	b = realloc(b, strlen(b) + strlen(items) + 1);
	strcat(b, items);
	free(items);
	cJSON_Delete(st);
	ts_close(&c);
	return b;
}

START_TEST(test_random_seed_survives_restart)
{
	/* a game whose seed the server drew is the same game after a crash */
	struct ts_srv s;
	static const char *const args[] = {"--grace", "300"};
	ts_up(&s, args, 2);
	struct ts_cli a, b;
	ts_join(&a, s.port, "alice");
	ts_join(&b, s.port, "bob");
	int id = ts_start_game(&a, &b, "xmas", NULL);
	char *before = board_of(s.port, id);
	ts_kill9(&s);
	ts_close(&a);
	ts_close(&b);
	ts_start(&s, s.datadir, args, 2);
	char *after = board_of(s.port, id);
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
	ts_down(&s);
}
END_TEST

static Suite *views_suite(void)
{
	Suite *s = suite_create("views");
	TCase *tc = tcase_create("loopback");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_every_kind_hides_the_seed);
	tcase_add_test(tc, test_random_seed_survives_restart);
	tcase_add_test(tc, test_bridges_hide_the_seed);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--cgbot") == 0)
		return cg_bot(argv[2]);
	if (realpath("/proc/self/exe", self) == NULL)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	return check_run(views_suite());
}
