/*
 * check_arena_ladder.c - the continuous ladder's pairing (src/arena/ladder.c):
 * its rules one by one on small cases, then its fairness over many simulated
 * games (random lengths, members of different concurrency, members leaving
 * and coming back, days ending): every pair meets, and meets about as often
 * as every other, colours within one per pair, never more games at once than
 * a member's concurrency, never more games a day than the cap.
 */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "arena/ladder.h"
#include "check_main.h"
#include "core/rng.h"

static struct ladder_pairing *pp(struct ladder_pairing *t, int n, int i, int j)
{
	return i < j ? &t[i * n + j] : &t[j * n + i];
}

START_TEST(test_fewest_games_first)
{
	/* 0 has played 1 three times and 2 once: it meets 2 (the idle member waiting longest
	   picks first: 0) */
	struct ladder_member m[3] = {{.concurrency = 1, .idle_since = 0, .available = 1},
	                             {.concurrency = 1, .idle_since = 5, .available = 1},
	                             {.concurrency = 1, .idle_since = 9, .available = 1}};
	struct ladder_pairing t[9] = {0};
	t[0 * 3 + 1] = (struct ladder_pairing){.games = 3, .whites = 2};
	t[0 * 3 + 2] = (struct ladder_pairing){.games = 1, .whites = 1};
	struct arena_pair out[4];
	ck_assert_int_eq(ladder_pair(m, 3, t, 0, 2, out, 4), 1);
	/* 0 had white in their one game: 2 has it now */
	ck_assert_int_eq(out[0].white, 2);
	ck_assert_int_eq(out[0].black, 0);
	ck_assert_int_eq(t[0 * 3 + 2].games, 2);
	ck_assert_int_eq(t[0 * 3 + 2].whites, 1);
	ck_assert(m[0].running == 1 && m[2].running == 1 && m[1].running == 0);
	ck_assert(m[2].lean == 1 && m[0].lean == -1);
}
END_TEST

START_TEST(test_waits_for_the_less_met)
{
	/* 0 and 1 are free and met 5 times; 2 (busy) met neither: within a slack of 1 they wait
	   for 2 rather than meet again; with a slack of 5 they meet */
	struct ladder_member m[3] = {{.concurrency = 1, .available = 1},
	                             {.concurrency = 1, .available = 1},
	                             {.concurrency = 1, .running = 1, .available = 1}};
	struct ladder_pairing t[9] = {0};
	t[0 * 3 + 1] = (struct ladder_pairing){.games = 5, .whites = 3};
	struct arena_pair out[4];
	ck_assert_int_eq(ladder_pair(m, 3, t, 0, 1, out, 4), 0);
	/* 2 away: nobody else to wait for */
	m[2].available = 0;
	ck_assert_int_eq(ladder_pair(m, 3, t, 0, 1, out, 4), 1);
	ck_assert_int_eq(out[0].white, 1); /* 0 had white 3 times of 5 */
	m[0].running = m[1].running = 0;
	m[2].available = 1;
	ck_assert_int_eq(ladder_pair(m, 3, t, 0, 6, out, 4), 1);
}
END_TEST

START_TEST(test_idle_first)
{
	/* 0 has a game on and a free slot, waiting longest; 1 and 2 are idle: they pick first
	   and meet each other (fewest games: all zero; an idle partner before a busy one) */
	struct ladder_member m[3] = {
	        {.concurrency = 2, .running = 1, .idle_since = 0, .available = 1},
	        {.concurrency = 1, .idle_since = 7, .available = 1},
	        {.concurrency = 1, .idle_since = 8, .available = 1}};
	struct ladder_pairing t[9] = {0};
	struct arena_pair out[4];
	ck_assert_int_eq(ladder_pair(m, 3, t, 0, 0, out, 4), 1);
	ck_assert((out[0].white == 1 && out[0].black == 2) ||
	          (out[0].white == 2 && out[0].black == 1));
	/* nobody left for 0: alone with a free slot */
	ck_assert_int_eq(m[0].running, 1);
}
END_TEST

START_TEST(test_unavailable_and_cap)
{
	struct ladder_member m[3] = {{.concurrency = 3, .available = 1},
	                             {.concurrency = 3, .available = 1},
	                             {.concurrency = 3, .available = 0}};
	struct ladder_pairing t[9] = {0};
	struct arena_pair out[8];
	/* 0 and 1, concurrency 3 each, cap 2 a day: two games, not three; 2 is away */
	ck_assert_int_eq(ladder_pair(m, 3, t, 2, 0, out, 8), 2);
	ck_assert_int_eq(t[1].games, 2);
	ck_assert_int_eq(t[1].whites, 1); /* one white each */
	ck_assert_int_eq(ladder_pair(m, 3, t, 2, 0, out, 8), 0);
	/* a new day: one more (their third slot) */
	t[1].today = 0;
	ck_assert_int_eq(ladder_pair(m, 3, t, 2, 0, out, 8), 1);
	ck_assert(m[0].running == 3 && m[1].running == 3);
	/* out full: stops there */
	struct ladder_member m2[4] = {{.concurrency = 1, .available = 1},
	                              {.concurrency = 1, .available = 1},
	                              {.concurrency = 1, .available = 1},
	                              {.concurrency = 1, .available = 1}};
	struct ladder_pairing t2[16] = {0};
	ck_assert_int_eq(ladder_pair(m2, 4, t2, 0, 0, out, 1), 1);
	ck_assert_int_eq(ladder_pair(m2, 4, t2, 0, 0, out, 1), 1);
	ck_assert_int_eq(ladder_pair(m2, 4, t2, 0, 0, out, 1), 0);
}
END_TEST

START_TEST(test_errors)
{
	struct ladder_member m[2] = {{.concurrency = 0, .available = 1},
	                             {.concurrency = 1, .available = 1}};
	struct ladder_pairing t[4] = {0};
	struct arena_pair out[2];
	ck_assert_int_eq(ladder_pair(m, 2, t, 0, 0, out, 2), ARENA_EINVAL);
	m[0].concurrency = 1;
	ck_assert_int_eq(ladder_pair(m, 2, t, -1, 0, out, 2), ARENA_EINVAL);
	ck_assert_int_eq(ladder_pair(m, -1, t, 0, 0, out, 2), ARENA_EINVAL);
	ck_assert_int_eq(ladder_pair(m, 2, NULL, 0, 0, out, 2), ARENA_EINVAL);
	ck_assert_int_eq(ladder_pair(m, LADDER_MAX_MEMBERS + 1, t, 0, 0, out, 2), ARENA_EINVAL);
	ck_assert_int_eq(ladder_pair(NULL, 0, NULL, 0, 0, out, 2), 0);
}
END_TEST

#define SIM_MAX   12
#define SIM_GAMES 64

struct sim_game {
	int white, black;
	int64_t ends;
};

/*
 * A ladder of n members over `total` finished games: each game lasts a random time; when
 * it ends, both players' slots are free from then and the ladder pairs again; every
 * `day` games the day's counts start again; member `leaver` (if >= 0) is away for a while.
 * Checks concurrency and the cap at every step; returns the pair table at the end.
 */
static void simulate(int n, const int *conc, int pair_cap, int day, int total, int leaver,
                     uint64_t seed, struct ladder_pairing *t)
{
	struct rng r;
	rng_seed(&r, seed);
	struct ladder_member m[SIM_MAX];
	int today[SIM_MAX][SIM_MAX] = {{0}};
	for (int i = 0; i < n; i++)
		m[i] = (struct ladder_member){
		        .rating = 1500 + 10 * i, .concurrency = conc[i], .available = 1};
	memset(t, 0, sizeof *t * (size_t)(n * n));
	struct sim_game on[SIM_GAMES];
	int non = 0, ended = 0;
	int64_t now = 0;
	while (ended < total) {
		if (leaver >= 0)
			m[leaver].available = !(ended >= total / 4 && ended < total / 2);
		struct arena_pair out[SIM_GAMES];
		int k = ladder_pair(m, n, t, pair_cap, 1, out, SIM_GAMES - non);
		ck_assert_int_ge(k, 0);
		for (int i = 0; i < k; i++) {
			int w = out[i].white, b = out[i].black;
			ck_assert_int_ne(w, b);
			ck_assert(m[w].available && m[b].available);
			today[w][b]++;
			today[b][w]++;
			if (pair_cap > 0)
				ck_assert_int_le(today[w][b], pair_cap);
			on[non++] = (struct sim_game){w, b, now + 1 + (int64_t)rng_below(&r, 100)};
		}
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++)
				ck_assert_int_eq(pp(t, n, i, j)->today, today[i][j]);
		for (int i = 0; i < n; i++) {
			int busy = 0;
			for (int g = 0; g < non; g++)
				busy += on[g].white == i || on[g].black == i;
			ck_assert_int_eq(busy, m[i].running);
			ck_assert_int_le(busy, m[i].concurrency);
		}
		bool new_day;
		if (non == 0) { /* nothing on and nothing to pair: only a new day helps */
			ck_assert(pair_cap > 0);
			new_day = true;
		} else {
			int first = 0;
			for (int g = 1; g < non; g++)
				if (on[g].ends < on[first].ends)
					first = g;
			now = on[first].ends;
			struct sim_game done = on[first];
			on[first] = on[--non];
			m[done.white].running--;
			m[done.black].running--;
			m[done.white].idle_since = m[done.black].idle_since = now;
			ended++;
			new_day = day > 0 && ended % day == 0;
		}
		if (new_day) {
			memset(today, 0, sizeof today);
			for (int i = 0; i < n; i++)
				for (int j = i + 1; j < n; j++)
					t[i * n + j].today = 0;
		}
	}
}

/* Every pair met, all about equally often (within `spread`), colours within one per pair. */
static void check_fair(int n, const struct ladder_pairing *t, int spread)
{
	int lo = 1 << 30, hi = 0;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			const struct ladder_pairing *p = &t[i * n + j];
			ck_assert_msg(p->games > 0, "pair %d-%d never met", i, j);
			int d = p->whites - (p->games - p->whites);
			ck_assert_msg(d >= -1 && d <= 1, "pair %d-%d: %d games, %d whites", i, j,
			              p->games, p->whites);
			lo = p->games < lo ? p->games : lo;
			hi = p->games > hi ? p->games : hi;
		}
	ck_assert_msg(hi - lo <= spread, "games per pair from %d to %d", lo, hi);
}

START_TEST(test_fair_over_many_games)
{
	struct ladder_pairing t[SIM_MAX * SIM_MAX];
	static const int one[SIM_MAX] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
	static const int two[SIM_MAX] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
	static const int mixed[SIM_MAX] = {1, 2, 3, 1, 2, 4, 1, 1, 2, 3, 1, 2};
	for (uint64_t seed = 1; seed <= 20; seed++) {
		int n = 2 + (int)(seed % 11); /* 3 .. 12 members */
		simulate(n, one, 0, 0, 40 * n, -1, seed, t);
		check_fair(n, t, 4);
		simulate(n, two, 0, 0, 40 * n, -1, seed, t);
		check_fair(n, t, 4);
		simulate(n, mixed, 0, 0, 40 * n, -1, seed, t);
		check_fair(n, t, 4);
	}
}
END_TEST

START_TEST(test_day_cap_and_absence)
{
	struct ladder_pairing t[SIM_MAX * SIM_MAX];
	static const int two[SIM_MAX] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
	for (uint64_t seed = 1; seed <= 10; seed++) {
		int n = 3 + (int)(seed % 6);
		/* a cap of 3 a pair a day, a day every 10 games: the cap binds often */
		simulate(n, two, 3, 10, 30 * n, -1, seed, t);
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++) {
				int d = 2 * t[i * n + j].whites - t[i * n + j].games;
				ck_assert(d >= -1 && d <= 1);
			}
		/* member 0 away for a quarter of the games: pairs still all meet, colours hold */
		simulate(n, two, 0, 0, 60 * n, 0, seed, t);
		check_fair(n, t, 4);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("arena_ladder");
	TCase *tc = tcase_create("ladder");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_fewest_games_first);
	tcase_add_test(tc, test_waits_for_the_less_met);
	tcase_add_test(tc, test_idle_first);
	tcase_add_test(tc, test_unavailable_and_cap);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_fair_over_many_games);
	tcase_add_test(tc, test_day_cap_and_absence);
	suite_add_tcase(s, tc);
	return check_run(s);
}
