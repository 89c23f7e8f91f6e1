/*
 * check_ratelimit.c - the failed-login limiter (src/server/ratelimit.c) with
 * explicit times: the sliding window, per-address independence, reset on
 * success, and the bounded table.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "server/util/ratelimit.h"
#include "check_main.h"

START_TEST(test_window)
{
	struct ratelimit *rl = ratelimit_new(5, 60000, 100);
	ck_assert_ptr_nonnull(rl);
	int64_t retry = -1;
	/* Five failures at t = 0, 1000, ..., 4000 s: each attempt allowed before. */
	for (int i = 0; i < 5; i++) {
		ck_assert_int_eq(ratelimit_check(rl, "10.0.0.1", i * 1000, NULL), RATELIMIT_OK);
		ck_assert_int_eq(ratelimit_fail(rl, "10.0.0.1", i * 1000), RATELIMIT_OK);
	}
	/* The sixth attempt is throttled until the first failure is a window old. */
	ck_assert_int_eq(ratelimit_check(rl, "10.0.0.1", 5000, &retry), RATELIMIT_THROTTLED);
	ck_assert_int_eq(retry, 55000);
	ck_assert_int_eq(ratelimit_check(rl, "10.0.0.1", 59999, &retry), RATELIMIT_THROTTLED);
	ck_assert_int_eq(retry, 1);
	ck_assert_int_eq(ratelimit_check(rl, "10.0.0.1", 60000, NULL), RATELIMIT_OK);
	/* Sliding: a new failure at 60 s makes five again (1..4 s and 60 s). */
	ck_assert_int_eq(ratelimit_fail(rl, "10.0.0.1", 60000), RATELIMIT_OK);
	ck_assert_int_eq(ratelimit_check(rl, "10.0.0.1", 60500, &retry), RATELIMIT_THROTTLED);
	ck_assert_int_eq(retry, 500); /* the 1 s failure expires at 61 s */
	ck_assert_int_eq(ratelimit_check(rl, "10.0.0.1", 61000, NULL), RATELIMIT_OK);
	/* Other addresses are unaffected. */
	ck_assert_int_eq(ratelimit_check(rl, "10.0.0.2", 60500, NULL), RATELIMIT_OK);
	ratelimit_free(rl);
}
END_TEST

START_TEST(test_success_resets_and_failures_while_throttled)
{
	struct ratelimit *rl = ratelimit_new(3, 1000, 100);
	for (int i = 0; i < 3; i++)
		ratelimit_fail(rl, "::1", i * 100);
	ck_assert_int_eq(ratelimit_check(rl, "::1", 300, NULL), RATELIMIT_THROTTLED);
	/* A failure recorded while throttled replaces the oldest: the throttle now ends at
	 * 1100 (the 100 ms failure's expiry) instead of 1000. */
	ratelimit_fail(rl, "::1", 500);
	int64_t retry = 0;
	ck_assert_int_eq(ratelimit_check(rl, "::1", 1000, &retry), RATELIMIT_THROTTLED);
	ck_assert_int_eq(retry, 100);
	ck_assert_int_eq(ratelimit_check(rl, "::1", 1099, NULL), RATELIMIT_THROTTLED);
	/* A successful login forgets the address at once. */
	ratelimit_success(rl, "::1");
	ck_assert_int_eq(ratelimit_check(rl, "::1", 1099, NULL), RATELIMIT_OK);
	ck_assert_uint_eq(ratelimit_size(rl), 0);
	ratelimit_free(rl);
}
END_TEST

START_TEST(test_bounded_table)
{
	ck_assert_ptr_null(ratelimit_new(0, 1000, 10));
	ck_assert_ptr_null(ratelimit_new(RATELIMIT_FAILURES_CAP + 1, 1000, 10));
	ck_assert_ptr_null(ratelimit_new(3, 0, 10));
	ck_assert_ptr_null(ratelimit_new(3, 1000, 0));
	struct ratelimit *rl = ratelimit_new(2, 1000, 4);
	char addr[32];
	/* "a" fails twice at t=0 (throttled), then four others fill and overflow the table. */
	ratelimit_fail(rl, "a", 0);
	ratelimit_fail(rl, "a", 0);
	ck_assert_int_eq(ratelimit_check(rl, "a", 1, NULL), RATELIMIT_THROTTLED);
	for (int i = 0; i < 3; i++) {
		snprintf(addr, sizeof addr, "h%d", i);
		ratelimit_fail(rl, addr, 10 + i);
	}
	ck_assert_uint_eq(ratelimit_size(rl), 4);
	/* A fifth address evicts the least recently touched one ("a"), never grows. */
	ratelimit_fail(rl, "h9", 20);
	ck_assert_uint_eq(ratelimit_size(rl), 4);
	ck_assert_int_eq(ratelimit_check(rl, "a", 21, NULL), RATELIMIT_OK);
	/* Once every failure has expired, adding drops the expired entries first. */
	ratelimit_fail(rl, "late", 5000);
	ck_assert_uint_eq(ratelimit_size(rl), 1);
	/* Long addresses are truncated consistently. */
	const char *longa =
	        "0123456789012345678901234567890123456789012345678901234567890123456789";
	ratelimit_fail(rl, longa, 5000);
	ratelimit_fail(rl, longa, 5000);
	ck_assert_int_eq(ratelimit_check(rl, longa, 5001, NULL), RATELIMIT_THROTTLED);
	ck_assert_str_eq(ratelimit_strerror(RATELIMIT_THROTTLED),
	                 "too many failed logins from this address; wait and try again");
	ratelimit_free(rl);
}
END_TEST

START_TEST(test_attempts_count_before_the_outcome)
{
	struct ratelimit *rl = ratelimit_new(3, 1000, 10);
	int64_t retry = 0;
	/* three attempts under way at once: the fourth is refused before any outcome */
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(ratelimit_attempt(rl, "k", 10 + i, NULL), RATELIMIT_OK);
	ck_assert_int_eq(ratelimit_attempt(rl, "k", 13, &retry), RATELIMIT_THROTTLED);
	ck_assert_int_eq(retry, 997);
	ck_assert_uint_eq(ratelimit_count(rl, "k", 13), 3); /* a refusal is not counted */
	/* the second turned out a success: its count is taken back, and a try is free again */
	ratelimit_undo(rl, "k", 11);
	ck_assert_uint_eq(ratelimit_count(rl, "k", 14), 2);
	ratelimit_undo(rl, "k", 11); /* nothing counted at 11 any more */
	ck_assert_uint_eq(ratelimit_count(rl, "k", 14), 2);
	ck_assert_int_eq(ratelimit_attempt(rl, "k", 14, NULL), RATELIMIT_OK);
	ck_assert_int_eq(ratelimit_check(rl, "k", 15, &retry), RATELIMIT_THROTTLED);
	ck_assert_int_eq(retry, 995); /* the oldest left is 10's */
	ck_assert_int_eq(ratelimit_check(rl, "k", 1010, NULL), RATELIMIT_OK);
	ck_assert_uint_eq(ratelimit_count(rl, "k", 1014), 0);
	/* undoing every count forgets the key */
	ratelimit_attempt(rl, "j", 2000, NULL);
	ck_assert_uint_eq(ratelimit_size(rl), 2);
	ratelimit_undo(rl, "j", 2000);
	ck_assert_uint_eq(ratelimit_count(rl, "j", 2000), 0);
	ck_assert_uint_eq(ratelimit_count(rl, "nobody", 0), 0);
	ratelimit_undo(rl, "nobody", 0);
	ratelimit_free(rl);
}
END_TEST

static Suite *ratelimit_suite(void)
{
	Suite *s = suite_create("ratelimit");
	TCase *tc = tcase_create("logins");
	tcase_add_test(tc, test_window);
	tcase_add_test(tc, test_success_resets_and_failures_while_throttled);
	tcase_add_test(tc, test_bounded_table);
	tcase_add_test(tc, test_attempts_count_before_the_outcome);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(ratelimit_suite());
}
