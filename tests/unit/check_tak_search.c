/*
 * check_tak_search.c - the Tak player (src/games/tak_search.c): roads won in
 * one and in three plies, a threat blocked, the evaluation's invariance under
 * the board's eight symmetries and under swapping the colours, legal answers
 * from random positions under node, time (a fake clock) and stop limits,
 * determinism, the opening rule, and the time budget's bounds.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "games/game.h"
#include "games/tak/tak.h"
#include "games/tak/tak_search.h"
#include "check_main.h"

static struct tak_search *ts;

static void setup(void)
{
	ts = tak_search_new(4);
	ck_assert_ptr_nonnull(ts);
}

static void teardown(void)
{
	tak_search_free(ts);
	ts = NULL;
}

static void load(struct tak_state *s, const char *tps)
{
	ck_assert_msg(tak_load_tps(s, NULL, tps) == 0, "load %s", tps);
}

static void start(struct tak_state *s, int size, int komi)
{
	struct game_params p;
	game_params_default(&game_tak, &p);
	p.v[TAK_OPT_SIZE] = size;
	p.v[TAK_OPT_KOMI] = komi;
	ck_assert_int_eq(tak_setup(s, &p, NULL), 0);
}

static const char *ptn(const struct tak_state *s, game_move m)
{
	static char buf[GAME_MOVE_TEXT];
	ck_assert_int_ge(tak_format_ptn(s, m, buf, sizeof buf), 0);
	return buf;
}

static struct tak_search_result best(const struct tak_state *s, int depth, uint64_t nodes)
{
	struct tak_search_limits lim = {.depth = depth, .nodes = nodes};
	struct tak_search_result r;
	ck_assert_int_eq(tak_search_best(ts, s, &lim, &r), 0);
	ck_assert_msg(tak_check_move(s, r.best, NULL) == 0, "illegal best move");
	return r;
}

/* True when the side to move has a placement or slide that makes its own road at once. */
static bool road_in_one(const struct tak_state *s)
{
	static game_move moves[TAK_MAX_MOVES];
	int n = game_tak.legal_moves(s, moves, TAK_MAX_MOVES);
	int me = (int)(s->ply & 1);
	for (int i = 0; i < n; i++) {
		struct tak_state c = *s;
		tak_apply(&c, moves[i]);
		if (c.result == (me ? TAK_ROAD_BLACK : TAK_ROAD_WHITE))
			return true;
	}
	return false;
}

/* --- tactics -------------------------------------------------------------------- */

START_TEST(takes_road_in_one)
{
	struct tak_state s;
	load(&s, "x5/x5/x5/2,2,2,x2/1,1,1,1,x 1 6");
	struct tak_search_result r = best(&s, 4, 0);
	ck_assert_int_eq(r.score, TAK_SCORE_WIN - 1);
	struct tak_state c = s;
	tak_apply(&c, r.best);
	ck_assert_msg(c.result == TAK_ROAD_WHITE, "played %s", ptn(&s, r.best));
}
END_TEST

START_TEST(blocks_road_in_one)
{
	struct tak_state s;
	load(&s, "x5/x5/x5/2,2,2,x2/1,1,1,1,x 2 6");
	ck_assert(!road_in_one(&s)); /* black cannot win first */
	struct tak_search_result r = best(&s, 4, 0);
	struct tak_state c = s;
	tak_apply(&c, r.best);
	ck_assert_msg(!road_in_one(&c), "%s leaves white a road", ptn(&s, r.best));
	ck_assert_int_gt(r.score, -TAK_SCORE_PROVEN);
}
END_TEST

/* White makes three road squares at once with one placement: a win in three plies. */
START_TEST(finds_road_in_three)
{
	struct tak_state s;
	load(&s, "x5/x4,1/1,1,1,x2/x4,1/2,x,2,x,2 1 6");
	ck_assert(!road_in_one(&s));
	struct tak_search_result r = best(&s, 5, 0);
	ck_assert_int_eq(r.score, TAK_SCORE_WIN - 3);
	/* and black, to move after it, has no defence left */
	struct tak_state c = s;
	tak_apply(&c, r.best);
	r = best(&c, 4, 0);
	ck_assert_int_eq(r.score, -(TAK_SCORE_WIN - 2));
}
END_TEST

START_TEST(game_over_has_no_move)
{
	struct tak_state s;
	load(&s, "x5/x5/x5/2,2,2,x2/1,1,1,1,1 2 6");
	ck_assert_int_ne(s.result, TAK_ONGOING);
	struct tak_search_limits lim = {.depth = 2};
	struct tak_search_result r;
	ck_assert_int_eq(tak_search_best(ts, &s, &lim, &r), GAME_EOVER);
}
END_TEST

START_TEST(opening_places_a_corner)
{
	struct tak_state s;
	for (int size = 3; size <= 8; size++) {
		start(&s, size, 0);
		for (int ply = 0; ply < 2; ply++) {
			struct tak_search_limits lim = {.seed = (uint64_t)(size * 10 + ply)};
			struct tak_search_result r;
			ck_assert_int_eq(tak_search_best(ts, &s, &lim, &r), 0);
			int sq = tak_move_square(r.best), x = sq % size, y = sq / size;
			ck_assert(!tak_move_is_slide(r.best));
			ck_assert((x == 0 || x == size - 1) && (y == 0 || y == size - 1));
			ck_assert_int_eq(tak_apply(&s, r.best), 0);
		}
	}
}
END_TEST

/* --- the evaluation's symmetries --------------------------------------------------- */

/* Random legal play from the start for plies plies (stops early at a game end). */
static void random_position(struct tak_state *s, int size, int plies, struct rng *r)
{
	static game_move moves[TAK_MAX_MOVES];
	start(s, size, 0);
	for (int i = 0; i < plies; i++) {
		int n = game_tak.legal_moves(s, moves, TAK_MAX_MOVES);
		if (n <= 0)
			return;
		struct tak_state c = *s;
		tak_apply(&c, moves[rng_below(r, (uint32_t)n)]);
		if (c.result != TAK_ONGOING)
			return; /* keep the last ongoing position */
		*s = c;
	}
}

/* s with every square moved by symmetry k (0..7) of the square. */
static void transform(const struct tak_state *s, int k, struct tak_state *out)
{
	const int n = s->size;
	*out = *s;
	out->top[0] = out->top[1] = out->walls = out->caps = 0;
	memset(out->stack, 0, sizeof out->stack);
	memset(out->height, 0, sizeof out->height);
	for (int sq = 0; sq < n * n; sq++) {
		int x = sq % n, y = sq / n, t;
		if (k & 1)
			x = n - 1 - x;
		if (k & 2)
			y = n - 1 - y;
		if (k & 4) {
			t = x;
			x = y;
			y = t;
		}
		int to = y * n + x;
		bb_t from = (bb_t)1 << sq, dest = (bb_t)1 << to;
		out->stack[to] = s->stack[sq];
		out->height[to] = s->height[sq];
		for (int c = 0; c < 2; c++)
			if (s->top[c] & from)
				out->top[c] |= dest;
		if (s->walls & from)
			out->walls |= dest;
		if (s->caps & from)
			out->caps |= dest;
	}
}

/* s with the colours exchanged, and the other side to move. */
static void swap_colours(const struct tak_state *s, struct tak_state *out)
{
	*out = *s;
	out->top[0] = s->top[1];
	out->top[1] = s->top[0];
	for (int sq = 0; sq < s->size * s->size; sq++)
		if (s->height[sq])
			out->stack[sq] = s->stack[sq] ^ (((uint64_t)1 << s->height[sq]) - 1);
	for (int r = 0; r < 2; r++) {
		out->reserve[0][r] = s->reserve[1][r];
		out->reserve[1][r] = s->reserve[0][r];
	}
	out->ply = s->ply ^ 1;
}

START_TEST(eval_symmetries)
{
	struct rng r;
	rng_seed(&r, 42);
	int checked = 0;
	for (int size = 3; size <= 8; size++)
		for (int g = 0; g < 40; g++) {
			struct tak_state s, t;
			random_position(&s, size, 4 + (int)rng_below(&r, 60), &r);
			if (s.ply < 2)
				continue;
			for (int c = 0; c < s.size * s.size; c++)
				if (s.height[c] >= 60)
					goto next; /* the test's copies do not carry deep stacks */
			const int e = tak_search_eval(&s);
			for (int k = 1; k < 8; k++) {
				transform(&s, k, &t);
				ck_assert_msg(tak_search_eval(&t) == e,
				              "size %d symmetry %d: %d vs %d", size, k,
				              tak_search_eval(&t), e);
			}
			swap_colours(&s, &t);
			ck_assert_msg(tak_search_eval(&t) == e, "size %d colours swapped: %d vs %d",
			              size, tak_search_eval(&t), e);
			checked++;
		next:;
		}
	ck_assert_int_gt(checked, 200);
}
END_TEST

/* Komi moves the evaluation toward black by about half a flat per half point. */
START_TEST(eval_komi)
{
	struct tak_state a, b;
	load(&a, "x5/x5/x2,1,x2/x5/2,x4 1 2");
	struct game_params p;
	game_params_default(&game_tak, &p);
	p.v[TAK_OPT_KOMI] = 4;
	ck_assert_int_eq(tak_load_tps(&b, &p, "x5/x5/x2,1,x2/x5/2,x4 1 2"), 0);
	ck_assert_int_lt(tak_search_eval(&b), tak_search_eval(&a) - 150);
}
END_TEST

/* --- limits ------------------------------------------------------------------------ */

static long long fake_now;
static long long fake_clock(void)
{
	return fake_now++; /* one "millisecond" per reading */
}

static bool stop_now(void *arg)
{
	(*(int *)arg)++;
	return true;
}

static int iterations;
static void count_info(void *arg, const struct tak_search_info *in)
{
	(void)arg;
	ck_assert_int_eq(in->depth, ++iterations);
	ck_assert_int_ge(in->npv, 1);
}

START_TEST(random_positions_get_legal_moves)
{
	struct rng r;
	rng_seed(&r, 7);
	for (int size = 3; size <= 8; size++)
		for (int g = 0; g < 12; g++) {
			struct tak_state s;
			random_position(&s, size, 2 + (int)rng_below(&r, 80), &r);
			const struct tak_state before = s;
			best(&s, 0, 3000);
			ck_assert(memcmp(&s, &before, sizeof s) ==
			          0); /* the caller's copy is kept */

			/* a fake clock: the hard limit stops the search, with a legal move */
			struct tak_search_limits lim = {.hard_ms = 8, .now_ms = fake_clock};
			struct tak_search_result res;
			fake_now = 0;
			ck_assert_int_eq(tak_search_best(ts, &s, &lim, &res), 0);
			ck_assert_int_eq(tak_check_move(&s, res.best, NULL), 0);
			ck_assert_uint_le(res.nodes, 12 * 1024);

			/* stopped at the first poll: still a legal move */
			int polls = 0;
			struct tak_search_limits stop = {.poll = stop_now, .arg = &polls};
			ck_assert_int_eq(tak_search_best(ts, &s, &stop, &res), 0);
			ck_assert_int_eq(tak_check_move(&s, res.best, NULL), 0);
			ck_assert_int_le(polls, 1);
		}
}
END_TEST

START_TEST(iterations_reported_and_deterministic)
{
	struct tak_state s;
	load(&s, "x6/x2,2,x3/x,1,1,2,x2/x2,1,x3/x6/x6 2 4");
	struct tak_search_limits lim = {.depth = 5, .info = count_info};
	struct tak_search_result a, b;
	iterations = 0;
	ck_assert_int_eq(tak_search_best(ts, &s, &lim, &a), 0);
	ck_assert_int_eq(iterations, 5);
	ck_assert_int_eq(a.depth, 5);
	/* a fresh searcher finds the same move and score */
	struct tak_search *other = tak_search_new(4);
	ck_assert_ptr_nonnull(other);
	lim.info = NULL;
	ck_assert_int_eq(tak_search_best(other, &s, &lim, &b), 0);
	tak_search_free(other);
	ck_assert(a.best == b.best);
	ck_assert_int_eq(a.score, b.score);
	ck_assert(a.nodes == b.nodes);
}
END_TEST

START_TEST(budget_bounds)
{
	struct tak_state s;
	start(&s, 6, 0);
	const long long lefts[] = {0, 30, 500, 5000, 60000, 600000, 3600000};
	const long long incs[] = {0, 100, 2000, 30000};
	for (size_t i = 0; i < sizeof lefts / sizeof lefts[0]; i++)
		for (size_t j = 0; j < sizeof incs / sizeof incs[0]; j++) {
			long long soft, hard, left = lefts[i], inc = incs[j];
			tak_search_budget(&s, left, inc, &soft, &hard);
			ck_assert_int_ge(soft, 1);
			ck_assert_int_le(soft, hard);
			if (left >= 1000)
				ck_assert_msg(hard < left, "left %lld inc %lld: hard %lld", left,
				              inc, hard);
			if (left >= 5000)
				ck_assert_int_gt(soft, left / 60);
		}
	/* a longer clock never gives less time */
	long long s1, h1, s2, h2;
	tak_search_budget(&s, 10000, 0, &s1, &h1);
	tak_search_budget(&s, 20000, 0, &s2, &h2);
	ck_assert_int_gt(s2, s1);
	ck_assert_int_gt(h2, h1);
}
END_TEST

static Suite *tak_search_suite(void)
{
	Suite *su = suite_create("tak_search");
	TCase *tc = tcase_create("search");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, takes_road_in_one);
	tcase_add_test(tc, blocks_road_in_one);
	tcase_add_test(tc, finds_road_in_three);
	tcase_add_test(tc, game_over_has_no_move);
	tcase_add_test(tc, opening_places_a_corner);
	tcase_add_test(tc, eval_symmetries);
	tcase_add_test(tc, eval_komi);
	tcase_add_test(tc, random_positions_get_legal_moves);
	tcase_add_test(tc, iterations_reported_and_deterministic);
	tcase_add_test(tc, budget_bounds);
	suite_add_tcase(su, tc);
	return su;
}

int main(void)
{
	return check_run(tak_search_suite());
}
