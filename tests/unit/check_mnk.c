/*
 * check_mnk.c - the m,n,k engine (src/games/mnk.c, mnk_notation.c) and the generic search
 * (src/games/search.c): published tic-tac-toe numbers, perft on other boards
 * against a deliberately naive counter written here, notation, positions,
 * and the search bot's perfect play on 3,3,3 against every opponent line.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/game.h"
#include "games/search.h"
#include "check_main.h"

static void *new_game(const struct game_ops *ops, const char *const *words, int nwords)
{
	struct game_params p;
	game_params_default(ops, &p);
	for (int i = 0; i < nwords; i++)
		ck_assert_int_eq(game_param_word(ops, &p, words[i], NULL), 1);
	void *st = calloc(1, ops->state_size);
	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(ops->init(st, &p, 0), 0);
	return st;
}

/* --- an independent naive engine: a char array and explicit line walks ---- */
struct naive {
	int m, n, k;
	char c[64]; /* 0 empty, 1 X, 2 O; index y*m + x */
};

static int naive_won(const struct naive *b, int who)
{
	static const int dx[4] = {1, 0, 1, 1}, dy[4] = {0, 1, 1, -1};
	for (int y = 0; y < b->n; y++)
		for (int x = 0; x < b->m; x++)
			for (int d = 0; d < 4; d++) {
				int j = 0;
				for (; j < b->k; j++) {
					int xx = x + j * dx[d], yy = y + j * dy[d];
					if (xx < 0 || yy < 0 || xx >= b->m || yy >= b->n ||
					    b->c[yy * b->m + xx] != who)
						break;
				}
				if (j == b->k)
					return 1;
			}
	return 0;
}

/* nodes[d] += moves at ply d; games[0..2] counts finished games by X win, O win, draw */
static void naive_walk(struct naive *b, int ply, int maxply, unsigned long long *nodes,
                       unsigned long long *games)
{
	int who = 1 + (ply & 1), empties = 0;
	for (int i = 0; i < b->m * b->n; i++) {
		if (b->c[i])
			continue;
		empties++;
		if (ply >= maxply)
			continue;
		b->c[i] = (char)who;
		nodes[ply + 1]++;
		if (naive_won(b, who))
			games[who - 1]++;
		else if (ply + 1 == b->m * b->n)
			games[2]++;
		else
			naive_walk(b, ply + 1, maxply, nodes, games);
		b->c[i] = 0;
	}
	(void)empties;
}

START_TEST(test_ttt_perft_published)
{
	static const unsigned long long want[10] = {1,     9,     72,     504,    3024,
	                                            15120, 54720, 148176, 200448, 127872};
	const struct game_ops *ops = game_find("ttt");
	ck_assert_ptr_nonnull(ops);
	void *st = new_game(ops, NULL, 0);
	for (int d = 0; d <= 9; d++)
		ck_assert_uint_eq(game_perft(ops, st, d), want[d]);
	ck_assert_uint_eq(game_perft(ops, st, 10), 0);
	/* the same through the mnk engine with explicit options */
	const char *w[] = {"m=3", "n=3", "k=3"};
	void *st2 = new_game(game_find("mnk"), w, 3);
	ck_assert_uint_eq(game_perft(game_find("mnk"), st2, 9), 127872);
	free(st);
	free(st2);
}
END_TEST

/* Complete games and their outcomes, by walking the engine. */
static void count_games(const struct game_ops *ops, const void *st, unsigned long long *out)
{
	game_move moves[64];
	unsigned char child[GAME_STATE_MAX];
	if (ops->to_move(st) == 0) {
		struct game_result r;
		ops->result(st, &r);
		ck_assert(r.over);
		out[r.winner < 0 ? 2 : r.winner]++;
		return;
	}
	int n = ops->legal_moves(st, moves, 64);
	for (int i = 0; i < n; i++) {
		memcpy(child, st, ops->state_size);
		ops->apply(child, moves[i]);
		count_games(ops, child, out);
	}
}

START_TEST(test_ttt_complete_games)
{
	const struct game_ops *ops = game_find("ttt");
	void *st = new_game(ops, NULL, 0);
	unsigned long long g[3] = {0};
	count_games(ops, st, g);
	ck_assert_uint_eq(g[0], 131184);
	ck_assert_uint_eq(g[1], 77904);
	ck_assert_uint_eq(g[2], 46080);
	ck_assert_uint_eq(g[0] + g[1] + g[2], 255168);
	free(st);
}
END_TEST

/* Distinct reachable positions via the position text as a key (a small open hash). */
#define SEEN_CAP 16384
static char seen[SEEN_CAP][16];
static int reach(const struct game_ops *ops, const void *st, int *terminal)
{
	char key[16];
	ops->save(st, key, sizeof key);
	unsigned h = 5381;
	for (char *p = key; *p; p++)
		h = h * 33 + (unsigned char)*p;
	for (unsigned i = h % SEEN_CAP;; i = (i + 1) % SEEN_CAP) {
		if (seen[i][0] == '\0') {
			strcpy(seen[i], key);
			break;
		}
		if (strcmp(seen[i], key) == 0)
			return 0;
	}
	int count = 1;
	if (ops->to_move(st) == 0) {
		(*terminal)++;
		return 1;
	}
	game_move moves[9];
	unsigned char child[GAME_STATE_MAX];
	int n = ops->legal_moves(st, moves, 9);
	for (int i = 0; i < n; i++) {
		memcpy(child, st, ops->state_size);
		ops->apply(child, moves[i]);
		count += reach(ops, child, terminal);
	}
	return count;
}

START_TEST(test_ttt_positions)
{
	const struct game_ops *ops = game_find("ttt");
	void *st = new_game(ops, NULL, 0);
	memset(seen, 0, sizeof seen);
	int terminal = 0;
	ck_assert_int_eq(reach(ops, st, &terminal), 5478);
	ck_assert_int_eq(terminal, 958);
	free(st);
}
END_TEST

/* perft of several m,n,k boards against the naive walker */
START_TEST(test_mnk_perft_vs_naive)
{
	static const int cfg[][4] = {
	        /* m, n, k, depth */
	        {4, 3, 3, 7}, {3, 4, 3, 7}, {4, 4, 3, 6}, {4, 4, 4, 5}, {5, 4, 4, 5},
	        {5, 5, 4, 4}, {8, 3, 3, 4}, {3, 8, 8, 5}, {6, 6, 5, 3}, {8, 8, 5, 3},
	};
	const struct game_ops *ops = game_find("mnk");
	for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
		char wm[8], wn[8], wk[8];
		snprintf(wm, sizeof wm, "m=%d", cfg[c][0]);
		snprintf(wn, sizeof wn, "n=%d", cfg[c][1]);
		snprintf(wk, sizeof wk, "k=%d", cfg[c][2]);
		const char *w[] = {wm, wn, wk};
		void *st = new_game(ops, w, 3);
		struct naive b = {.m = cfg[c][0], .n = cfg[c][1], .k = cfg[c][2]};
		unsigned long long nodes[66] = {0}, games[3] = {0};
		naive_walk(&b, 0, cfg[c][3], nodes, games);
		for (int d = 1; d <= cfg[c][3]; d++)
			ck_assert_msg(game_perft(ops, st, d) == nodes[d],
			              "%dx%d k=%d depth %d: %llu vs %llu", cfg[c][0], cfg[c][1],
			              cfg[c][2], d, (unsigned long long)game_perft(ops, st, d),
			              nodes[d]);
		free(st);
	}
}
END_TEST

START_TEST(test_options)
{
	const struct game_ops *ops = game_find("mnk");
	struct game_params p;
	const char *why = NULL;
	game_params_default(ops, &p);
	ck_assert_int_eq(game_param_word(ops, &p, "m=9", &why), GAME_EOPT);
	ck_assert_ptr_nonnull(why);
	ck_assert_int_eq(game_param_word(ops, &p, "m=x", &why), GAME_EOPT);
	ck_assert_int_eq(game_param_word(ops, &p, "time=5+3", &why), 0);
	ck_assert_int_eq(game_param_word(ops, &p, "M=4", &why), 1);
	ck_assert_int_eq(game_param_word(ops, &p, "n=3", &why), 1);
	ck_assert_int_eq(game_param_word(ops, &p, "k=5", &why), 1);
	unsigned char st[GAME_STATE_MAX];
	ck_assert_int_eq(ops->init(st, &p, 0), GAME_EOPT); /* k > max(m, n) */
	ck_assert_int_eq(game_param_word(ops, &p, "k=4", &why), 1);
	ck_assert_int_eq(ops->init(st, &p, 0), 0);
	ck_assert_ptr_null(game_find("chess"));
	ck_assert_ptr_eq(game_find("TTT"), game_find("ttt"));
}
END_TEST

START_TEST(test_notation_and_errors)
{
	const struct game_ops *ops = game_find("ttt");
	void *st = new_game(ops, NULL, 0);
	game_move m;
	const char *why;
	char buf[GAME_MOVE_TEXT];
	ck_assert_int_eq(ops->parse_move(st, 0, "b2", &m, &why), 0);
	ck_assert_int_eq(ops->format_move(st, m, buf, sizeof buf), 2);
	ck_assert_str_eq(buf, "b2");
	ck_assert_int_eq(ops->parse_move(st, 1, "a1", &m, &why), GAME_ETURN);
	ck_assert_int_eq(ops->parse_move(st, 0, "d1", &m, &why), GAME_EILLEGAL);
	ck_assert_int_eq(ops->parse_move(st, 0, "a4", &m, &why), GAME_EILLEGAL);
	ck_assert_int_eq(ops->parse_move(st, 0, "", &m, &why), GAME_ESYNTAX);
	ck_assert_int_eq(ops->parse_move(st, 0, "b", &m, &why), GAME_ESYNTAX);
	ck_assert_int_eq(ops->parse_move(st, 0, "2b", &m, &why), GAME_ESYNTAX);
	ck_assert_int_eq(ops->parse_move(st, 0, "b2x", &m, &why), GAME_ESYNTAX);
	ck_assert_int_eq(ops->parse_move(st, 0, "\xff\x01", &m, &why), GAME_ESYNTAX);
	ck_assert_int_eq(ops->parse_move(st, 0, "B2", &m, &why), 0);
	ops->apply(st, m);
	ck_assert_int_eq(ops->parse_move(st, 1, "b2", &m, &why), GAME_EILLEGAL);
	ck_assert_str_eq(why, "that cell is already taken");
	/* O a1, X c1, O a3, X c3, O b1: X then completes the c-file */
	const char *seq[] = {"a1", "c1", "a3", "c3", "b1"};
	for (int i = 0; i < 5; i++) {
		ck_assert_int_eq(ops->parse_move(st, (i + 1) & 1, seq[i], &m, &why), 0);
		ops->apply(st, m);
	}
	ck_assert_int_eq(ops->parse_move(st, 0, "c2", &m, &why), 0);
	ops->apply(st, m);
	struct game_result r;
	ops->result(st, &r);
	ck_assert(r.over);
	ck_assert_int_eq(r.winner, 0);
	ck_assert_str_eq(r.reason, "line");
	ck_assert_str_eq(r.score, "1-0");
	ck_assert_uint_eq(ops->to_move(st), 0);
	ck_assert_int_eq(ops->parse_move(st, 1, "b1", &m, &why), GAME_EOVER);
	char text[2048];
	ck_assert_int_gt(ops->render_text(st, -1, text, sizeof text), 0);
	ck_assert_ptr_nonnull(strstr(text, "| O |   | X |"));
	ck_assert_int_eq(ops->render_text(st, -1, text, 10), GAME_ENOSPACE);
	free(st);
}
END_TEST

START_TEST(test_positions_and_json)
{
	const struct game_ops *ops = game_find("ttt");
	unsigned char st[GAME_STATE_MAX];
	struct game_params p;
	char buf[64];
	game_params_default(ops, &p);
	ck_assert_int_eq(ops->load(st, &p, "x.o/.x./..."), 0);
	ck_assert_int_eq(ops->save(st, buf, sizeof buf), 11);
	ck_assert_str_eq(buf, "x.o/.x./...");
	ck_assert_uint_eq(ops->to_move(st), 2); /* O to move */
	ck_assert_int_eq(ops->load(st, &p, "xxx/oo./..."), 0);
	ck_assert_uint_eq(ops->to_move(st), 0);
	ck_assert_int_eq(ops->load(st, &p, "xxx/ooo/..."), GAME_EPOSITION);
	ck_assert_int_eq(ops->load(st, &p, "xx./.../..."), GAME_EPOSITION);
	ck_assert_int_eq(ops->load(st, &p, "x../..."), GAME_EPOSITION);
	ck_assert_int_eq(ops->load(st, &p, "x..../.../..."), GAME_EPOSITION);
	ck_assert_int_eq(ops->load(st, &p, "x.q/.../..."), GAME_EPOSITION);
	ck_assert_int_eq(ops->load(st, &p, "x.o/.x./..."), 0);
	cJSON *j = ops->to_json(st, -1);
	ck_assert_ptr_nonnull(j);
	ck_assert_str_eq(cJSON_GetObjectItem(j, "position")->valuestring, "x.o/.x./...");
	ck_assert_str_eq(cJSON_GetObjectItem(j, "to_move")->valuestring, "O");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "board")), 3);
	cJSON_Delete(j);
}
END_TEST

/* The bot never loses tic-tac-toe: try every reply of the opponent, both seats. */
static int bot_loses(const struct game_ops *ops, const void *st, int bot, struct rng *r)
{
	if (ops->to_move(st) == 0) {
		struct game_result res;
		ops->result(st, &res);
		return res.winner >= 0 && res.winner != bot;
	}
	unsigned char child[GAME_STATE_MAX];
	if (game_seat_to_move(ops, st) == bot) {
		struct search_limits lim = {.max_depth = 9};
		struct search_result sr;
		ck_assert_int_eq(search_best(ops, st, &lim, r, &sr), 0);
		ck_assert_int_ge(sr.score, 0); /* tic-tac-toe is a draw: never worse */
		memcpy(child, st, ops->state_size);
		ops->apply(child, sr.best);
		return bot_loses(ops, child, bot, r);
	}
	game_move moves[9];
	int n = ops->legal_moves(st, moves, 9);
	for (int i = 0; i < n; i++) {
		memcpy(child, st, ops->state_size);
		ops->apply(child, moves[i]);
		if (bot_loses(ops, child, bot, r))
			return 1;
	}
	return 0;
}

START_TEST(test_search_perfect_ttt)
{
	const struct game_ops *ops = game_find("ttt");
	void *st = new_game(ops, NULL, 0);
	struct rng r;
	rng_seed(&r, 1);
	ck_assert(!bot_loses(ops, st, 0, &r));
	ck_assert(!bot_loses(ops, st, 1, &r));
	/* it takes an immediate win, and blocks an immediate loss */
	struct game_params p;
	game_params_default(ops, &p);
	struct search_limits lim = {.max_depth = 9};
	struct search_result sr;
	char buf[8];
	ops->load(st, &p, "xx./oo./...");
	ck_assert_int_eq(search_best(ops, st, &lim, &r, &sr), 0);
	ops->format_move(st, sr.best, buf, sizeof buf);
	ck_assert_str_eq(buf, "c3");
	ck_assert_int_eq(sr.score, SEARCH_WIN - 1);
	ops->load(st, &p, "x../oo./x..");
	ck_assert_int_eq(search_best(ops, st, &lim, &r, &sr), 0);
	ops->format_move(st, sr.best, buf, sizeof buf);
	ck_assert_str_eq(buf, "c2");
	ops->load(st, &p, "xxx/oo./...");
	ck_assert_int_eq(search_best(ops, st, &lim, &r, &sr), GAME_EOVER);
	free(st);
}
END_TEST

START_TEST(test_search_bounded_larger)
{
	const struct game_ops *ops = game_find("mnk");
	const char *w[] = {"m=5", "n=5", "k=4"};
	void *st = new_game(ops, w, 3);
	struct game_params p;
	game_params_default(ops, &p);
	for (int i = 0; i < 3; i++)
		game_param_word(ops, &p, w[i], NULL);
	/* X to move with three in a row on rank 1 and both ends open: b1 c1 d1 */
	ck_assert_int_eq(ops->load(st, &p, "...../...../o...o/o..../.xxx."), 0);
	struct search_limits lim = {.max_depth = 3, .max_nodes = 200000};
	struct search_result sr;
	ck_assert_int_eq(search_best(ops, st, &lim, NULL, &sr), 0);
	char buf[8];
	ops->format_move(st, sr.best, buf, sizeof buf);
	ck_assert(strcmp(buf, "a1") == 0 || strcmp(buf, "e1") == 0);
	ck_assert_int_eq(sr.score, SEARCH_WIN - 1);
	free(st);
}
END_TEST

/* A clock of the test's own: one ms per read (the search reads it every 1024 nodes). */
static long long fake_ms;
static long long fake_clock(void)
{
	return ++fake_ms;
}

static bool stop_now(void *arg)
{
	return *(const bool *)arg;
}

/*
 * The time cap: the empty 5x5 board searched to the end would take seconds; capped at 20
 * reads of the clock (20 x 1024 nodes) it answers a legal move from the deepest depth it
 * finished, and never searches past the cap by more than one read. A poll that says stop
 * ends it the same way.
 */
START_TEST(test_search_time_cap)
{
	const struct game_ops *ops = game_find("mnk");
	const char *w[] = {"m=5", "n=5", "k=4"};
	void *st = new_game(ops, w, 3);
	struct search_limits lim = {.max_depth = 25, .hard_ms = 20, .now_ms = fake_clock};
	struct search_result sr;
	fake_ms = 0;
	ck_assert_int_eq(search_best(ops, st, &lim, NULL, &sr), 0);
	ck_assert_int_ge(sr.depth, 1);
	ck_assert_int_lt(sr.depth, 25);
	ck_assert_uint_le(sr.nodes, 21 * 1024);
	ck_assert_int_le(fake_ms, 22);
	ck_assert_int_eq(ops->apply(st, sr.best), 0); /* a legal move */
	free(st);
	st = new_game(ops, w, 3);
	bool stop = false;
	struct search_limits never = {.max_depth = 3, .poll = stop_now, .arg = &stop};
	ck_assert_int_eq(search_best(ops, st, &never, NULL, &sr), 0);
	ck_assert_int_eq(sr.depth, 3); /* a poll that never stops changes nothing */
	stop = true;
	ck_assert_int_eq(search_best(ops, st, &never, NULL, &sr), 0);
	ck_assert_int_lt(sr.depth, 3); /* stopped at its first read */
	free(st);
}
END_TEST

static Suite *mnk_suite(void)
{
	Suite *s = suite_create("mnk");
	TCase *tc = tcase_create("engine");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_ttt_perft_published);
	tcase_add_test(tc, test_ttt_complete_games);
	tcase_add_test(tc, test_ttt_positions);
	tcase_add_test(tc, test_mnk_perft_vs_naive);
	tcase_add_test(tc, test_options);
	tcase_add_test(tc, test_notation_and_errors);
	tcase_add_test(tc, test_positions_and_json);
	tcase_add_test(tc, test_search_perfect_ttt);
	tcase_add_test(tc, test_search_bounded_larger);
	tcase_add_test(tc, test_search_time_cap);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(mnk_suite());
}
