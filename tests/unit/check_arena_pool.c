/*
 * check_arena_pool.c - quick pairing in pools (src/arena/pool.c): the window's
 * numbers as pool.h states them, widening with the wait, both windows needed,
 * no immediate rematch before POOL_REMATCH_MS, guests with guests, colours by
 * balance, the longest waiter served first with the closest rating, the
 * caller's own test, and properties over random pools.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arena/pool.h"
#include "check_main.h"

static struct pool_entry ent(uint64_t id, double rating, int64_t since)
{
	return (struct pool_entry){.id = id, .rating = rating, .since_ms = since};
}

START_TEST(test_window)
{
	ck_assert_int_eq(pool_window(-5), 100);
	ck_assert_int_eq(pool_window(0), 100);
	ck_assert_int_eq(pool_window(4999), 100);
	ck_assert_int_eq(pool_window(5000), 150);
	ck_assert_int_eq(pool_window(12000), 200);
	ck_assert_int_eq(pool_window(60000), 700);
	ck_assert_int_eq(pool_window(3600000), POOL_WINDOW_MAX);
}
END_TEST

START_TEST(test_widening)
{
	/* 1500 and 1740 (240 apart) meet once both windows reach 250: 15 s of waiting */
	struct pool_entry e[2] = {ent(1, 1500, 0), ent(2, 1740, 0)};
	struct pool_pair p[1];
	for (int64_t t = 0; t < 15000; t += 1000)
		ck_assert_int_eq(pool_pair(e, 2, t, NULL, NULL, p, 1), 0);
	ck_assert_int_eq(pool_pair(e, 2, 15000, NULL, NULL, p, 1), 1);
	/* a newcomer is not thrown at one who waited long: both windows must hold it */
	e[1].since_ms = 14000;
	ck_assert_int_eq(pool_pair(e, 2, 15000, NULL, NULL, p, 1), 0);
	ck_assert_int_eq(pool_pair(e, 2, 29000, NULL, NULL, p, 1), 1);
}
END_TEST

START_TEST(test_rematch)
{
	struct pool_entry e[2] = {ent(1, 1500, 0), ent(2, 1500, 0)};
	e[0].last_opp = 2;
	struct pool_pair p[1];
	ck_assert_int_eq(pool_pair(e, 2, 0, NULL, NULL, p, 1), 0);
	ck_assert_int_eq(pool_pair(e, 2, POOL_REMATCH_MS - 1, NULL, NULL, p, 1), 0);
	ck_assert_int_eq(pool_pair(e, 2, POOL_REMATCH_MS, NULL, NULL, p, 1), 1);
	/* with a third player there at once, the rematch is skipped for the other */
	struct pool_entry f[3] = {ent(1, 1500, 0), ent(2, 1500, 0), ent(3, 1580, 0)};
	f[0].last_opp = 2;
	f[1].last_opp = 1;
	ck_assert_int_eq(pool_pair(f, 3, 0, NULL, NULL, p, 1), 1);
	ck_assert(p[0].white == 2 || p[0].black == 2);
}
END_TEST

START_TEST(test_guests)
{
	struct pool_entry e[3] = {ent(1, 1500, 0), ent(2, 1500, 1), ent(3, 1500, 2)};
	e[0].guest = true;
	e[2].guest = true;
	struct pool_pair p[2];
	ck_assert_int_eq(pool_pair(e, 3, 100000, NULL, NULL, p, 2), 1);
	ck_assert_int_eq(p[0].white + p[0].black, 0 + 2);
	e[2].guest = false;
	ck_assert_int_eq(pool_pair(e, 3, 100000, NULL, NULL, p, 2), 1);
	ck_assert_int_eq(p[0].white + p[0].black, 1 + 2);
}
END_TEST

START_TEST(test_colours)
{
	struct pool_entry e[2] = {ent(1, 1600, 0), ent(2, 1500, 0)};
	struct pool_pair p[1];
	/* equal balances: the lower rating has white */
	ck_assert_int_eq(pool_pair(e, 2, 0, NULL, NULL, p, 1), 1);
	ck_assert_int_eq(p[0].white, 1);
	/* who had white more takes black */
	e[1].color_diff = 1;
	ck_assert_int_eq(pool_pair(e, 2, 0, NULL, NULL, p, 1), 1);
	ck_assert_int_eq(p[0].white, 0);
	e[0].color_diff = 3;
	ck_assert_int_eq(pool_pair(e, 2, 0, NULL, NULL, p, 1), 1);
	ck_assert_int_eq(p[0].white, 1);
}
END_TEST

/* The longest waiter first, with the closest rating it may meet. */
START_TEST(test_order)
{
	struct pool_entry e[4] = {ent(1, 1500, 300), ent(2, 1560, 200), ent(3, 1520, 100),
	                          ent(4, 1490, 0)};
	struct pool_pair p[2];
	ck_assert_int_eq(pool_pair(e, 4, 1000, NULL, NULL, p, 2), 2);
	/* 4 waited longest: its closest is 1 (10 apart); then 3 with 2 */
	ck_assert_int_eq(p[0].white * p[0].black, 0); /* 3 with 0 */
	ck_assert_int_eq(p[0].white + p[0].black, 3);
	ck_assert_int_eq(p[1].white * p[1].black, 2); /* 2 with 1 */
	ck_assert_int_eq(pool_pair(e, 4, 1000, NULL, NULL, p, 1), 1);
}
END_TEST

static bool not_first_two(void *ud, int i, int j)
{
	(void)ud;
	return !((i == 0 && j == 1) || (i == 1 && j == 0));
}

START_TEST(test_allowed)
{
	struct pool_entry e[3] = {ent(1, 1500, 0), ent(2, 1500, 1), ent(3, 1550, 2)};
	struct pool_pair p[2];
	ck_assert_int_eq(pool_pair(e, 3, 10, not_first_two, NULL, p, 2), 1);
	ck_assert_int_eq(p[0].white + p[0].black, 0 + 2);
}
END_TEST

/* Random pools: nobody twice, every pair allowed by the rules, nobody left who could
   have met another one left. */
START_TEST(test_random)
{
	srand(22);
	static struct pool_entry e[300];
	static struct pool_pair p[150];
	for (int round = 0; round < 200; round++) {
		int n = 2 + rand() % 299;
		for (int i = 0; i < n; i++) {
			e[i] = ent((uint64_t)i + 1, 1000 + rand() % 1000, rand() % 60000);
			e[i].guest = rand() % 5 == 0;
			e[i].last_opp = (uint64_t)(rand() % (n + 1));
			e[i].color_diff = rand() % 5 - 2;
		}
		int64_t now = 60000;
		int np = pool_pair(e, n, now, NULL, NULL, p, 150);
		bool used[300] = {false};
		for (int k = 0; k < np; k++) {
			int w = p[k].white, b = p[k].black;
			ck_assert(!used[w] && !used[b] && w != b);
			used[w] = used[b] = true;
			ck_assert(pool_may_meet(&e[w], &e[b], now));
			ck_assert_int_le(e[w].color_diff, e[b].color_diff);
		}
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n && !used[i]; j++)
				ck_assert(used[j] || !pool_may_meet(&e[i], &e[j], now));
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("arena_pool");
	TCase *tc = tcase_create("pool");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_window);
	tcase_add_test(tc, test_widening);
	tcase_add_test(tc, test_rematch);
	tcase_add_test(tc, test_guests);
	tcase_add_test(tc, test_colours);
	tcase_add_test(tc, test_order);
	tcase_add_test(tc, test_allowed);
	tcase_add_test(tc, test_random);
	suite_add_tcase(s, tc);
	return check_run(s);
}
