/*
 * check_views.c - each seat sees only what it may, over the real bitarenad:
 * for every game kind, a game between a JSON player and a text player,
 * watched by a JSON and a text spectator who also ask for everything a
 * stranger may (list, who, seeks, the record and a replay of the game under
 * way). Every line any of them receives before the game's end is searched for
 * the game's seed, which the record publishes once the game is over (and only
 * then); for Xmas Rush, whose hidden quest order follows from the seed, every
 * JSON position received must also be exactly the engine's view of the state
 * the record replays to (nothing beside what the view keeps). A random seed is
 * shown as random, never as 0, and is the one a restart and a replay use.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>

#include "testserver.h"

#include "games/game.h"
#include "games/record.h"
#include "games/xmas/xmas.h"
#include "check_main.h"

/* ---- a client that keeps every line it reads ---------------------------------------- */

struct peer {
	struct ts_cli c;
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

/* The next line (kept); the test fails without one. */
static const char *next(struct peer *p)
{
	char *l = ts_line(&p->c);
	ck_assert_msg(l != NULL, "%s: no line after %s", p->name,
	              p->n > 0 ? p->lines[p->n - 1] : "(none)");
	keep(p, l);
	return l;
}

/* Everything up to the answer of a tagged ping: what the server sent p before it. */
static void sync_peer(struct peer *p)
{
	ts_send(&p->c, "#sync ping");
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

static void join(struct peer *p, int port, const char *name, bool json)
{
	memset(p, 0, sizeof *p);
	p->name = name;
	p->json = json;
	ts_open(&p->c, port);
	until(p, "bitarenad * ready*");
	if (json) {
		ts_send(&p->c, "set format json");
		until(p, "{\"type\":\"ok\",\"cmd\":\"set\"}");
	}
	ts_send(&p->c, "login %s", name);
	until(p, json ? "{\"type\":\"ok\",\"cmd\":\"login\"}" : "ok logged in as *");
}

static void leave(struct peer *p)
{
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
	ts_send(&p->c, "list");
	ts_send(&p->c, "who");
	ts_send(&p->c, "seeks");
	ts_send(&p->c, "record %d", id);
	ts_send(&p->c, "replay %d 0", id);
	until(p, p->json ? "{\"type\":\"replay\",\"done\":true}" : "replay game * done*");
	sync_peer(p);
}

/* Sends one move of game id from p, then brings every peer up to date. */
static void play(struct peer *p, int id, const char *move, struct peer *all[4])
{
	ts_send(&p->c, "move %d %s", id, move);
	sync_peer(p);
	for (int i = 0; i < 4; i++)
		if (all[i] != p)
			sync_peer(all[i]);
}

/* Plays sequential game id (options opts of ops) through a local copy of the position. */
static void play_sequential(const struct game_ops *ops, const char *opts, int id,
                            struct peer *all[4])
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
static void play_xmas(int id, struct peer *all[4])
{
	for (int turn = 0; turn < 8; turn++) {
		cJSON *st = last_state(all[2]);
		ck_assert_ptr_nonnull(st);
		const char *type =
		        cJSON_GetObjectItem(cJSON_GetObjectItem(st, "position"), "turn_type")
		                ->valuestring;
		bool push = strcmp(type, "PUSH") == 0;
		cJSON_Delete(st);
		char a[32], b[32];
		if (push) {
			snprintf(a, sizeof a, "PUSH %d RIGHT", turn % 7);
			snprintf(b, sizeof b, "PUSH %d UP", (turn + 3) % 7);
			/* the wrong kind of action has its own code, and the seat may act again */
			ts_send(&all[0]->c, "move %d PASS", id);
			until(all[0], "{\"type\":\"error\",\"code\":\"WRONG_PHASE\"}");
		} else {
			snprintf(a, sizeof a, "MOVE UP LEFT UP");
			snprintf(b, sizeof b, "%s", turn % 4 == 1 ? "PASS" : "MOVE DOWN RIGHT");
		}
		ts_send(&all[0]->c, "move %d %s", id, a);
		sync_peer(all[0]);
		play(all[1], id, b, all);
		if (turn == 3)
			stranger_asks(all[2], id);
	}
}

/* The record of finished game id, as p gets it: the text (malloc'd). */
static char *record_of(struct peer *p, int id)
{
	ts_send(&p->c, "record %d", id);
	cJSON *ok = cJSON_Parse(until(p, "{\"type\":\"ok\",\"cmd\":\"record\"}"));
	char *text = strdup(ts_jstr(ok, "record"));
	cJSON_Delete(ok);
	return text;
}

/* No line before the end holds the seed, in either of its spellings. */
static void seed_unseen(const struct peer *p, uint64_t seed)
{
	char u[32], s[32];
	snprintf(u, sizeof u, "%llu", (unsigned long long)seed);
	snprintf(s, sizeof s, "%lld", (long long)seed);
	ck_assert_msg(p->ended, "%s never saw the end", p->name);
	ck_assert_uint_gt(p->end_at, 10);
	for (size_t i = 0; i < p->end_at; i++)
		ck_assert_msg(strstr(p->lines[i], u) == NULL && strstr(p->lines[i], s) == NULL,
		              "%s was told the seed %s before the end: %s", p->name, u,
		              p->lines[i]);
}

/*
 * Xmas Rush: every JSON position p received is the engine's view, for p's
 * seat, of the position the record replays to at that turn.
 */
static void positions_are_views(const struct peer *p, const struct record *rec)
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
	ck_assert_int_gt(seen, 4);
	for (int t = 0; t <= turns; t++)
		free(st[t]);
	free(cur);
}

static void one_kind(int port, const char *kind, const char *opts)
{
	const struct game_ops *ops = game_find(kind);
	ck_assert_ptr_nonnull(ops);
	struct peer pa, pb, ps, pt, *all[4] = {&pa, &pb, &ps, &pt};
	join(&pa, port, "alice", true);
	join(&pb, port, "bob", false);
	join(&ps, port, "carol", true);
	join(&pt, port, "dave", false);
	ts_send(&pa.c, "seek %s %s color=first", kind, opts);
	cJSON *ok = cJSON_Parse(until(&pa, "{\"type\":\"ok\",\"cmd\":\"seek\"}"));
	int seek = ts_jint(cJSON_GetObjectItem(ok, "seek"), "id");
	if (ops->flags & GAME_SIMULTANEOUS) /* a seed left to the server is shown as random */
		ck_assert_str_eq(
		        ts_jstr(cJSON_GetObjectItem(cJSON_GetObjectItem(ok, "seek"), "options"),
		                "seed"),
		        "random");
	cJSON_Delete(ok);
	ts_send(&pb.c, "accept %d", seek);
	const char *l = until(&pb, "ok accepted seek *");
	int id = atoi(strrchr(l, ' ') + 1);
	until(&pa, "{\"type\":\"state\"}");
	until(&pb, "game * started: *");
	sync_peer(&pa);
	sync_peer(&pb);
	for (int i = 2; i < 4; i++) {
		ts_send(&all[i]->c, "watch %d", id);
		sync_peer(all[i]);
	}
	if (ops->flags & GAME_SIMULTANEOUS)
		play_xmas(id, all);
	else
		play_sequential(ops, opts, id, all);
	stranger_asks(&pt, id);
	cJSON *st = last_state(&ps);
	bool over = cJSON_IsTrue(cJSON_GetObjectItem(st, "over"));
	cJSON_Delete(st);
	if (!over)
		ts_send(&pa.c, "resign %d", id);
	for (int i = 0; i < 4; i++) {
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
	ck_assert_uint_gt(seed, 1000000000ULL); /* a random 64-bit draw: no chance match */
	for (int i = 0; i < 4; i++)
		seed_unseen(all[i], seed);
	if (ops->flags & GAME_SIMULTANEOUS) {
		ck_assert_ptr_nonnull(strstr(record_tag(&rec, "Options"), "seed=random"));
		positions_are_views(&pa, &rec);
		positions_are_views(&ps, &rec);
	}
	record_clear(&rec);
	free(text);
	for (int i = 0; i < 4; i++)
		leave(all[i]);
}

START_TEST(test_every_kind_hides_the_seed)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	one_kind(s.port, "ttt", "");
	one_kind(s.port, "mnk", "m=5 n=5 k=4");
	one_kind(s.port, "tak", "size=5");
	one_kind(s.port, "xmas", "turn_ms=60000");
	ts_down(&s);
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
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(views_suite());
}
