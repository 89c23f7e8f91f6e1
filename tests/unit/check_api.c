/*
 * check_api.c - the HTTP API's pure parts (src/server/api/): times as the API and
 * `bitarenad export --since` read them (against dates computed by timegm()), query strings
 * against an endpoint's parameters (each error with its code and sentence), the per-address
 * budgets with explicit times (the budget's rules, per address, the bounded table), and a
 * stored game as JSON (hidden information left out while in progress).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "server/api/api_limit.h"
#include "server/api/api_query.h"
#include "server/api/api_render.h"
#include "check_main.h"

static int64_t utc_ms(int y, int mo, int d, int h, int mi, int s)
{
	struct tm tm = {.tm_year = y - 1900,
	                .tm_mon = mo - 1,
	                .tm_mday = d,
	                .tm_hour = h,
	                .tm_min = mi,
	                .tm_sec = s};
	return (int64_t)timegm(&tm) * 1000;
}

START_TEST(test_times)
{
	int64_t ms;
	ck_assert(api_time_parse("0", &ms) && ms == 0);
	ck_assert(api_time_parse("1795842798158", &ms) && ms == 1795842798158LL);
	ck_assert(api_time_parse("2026-11-28", &ms) && ms == utc_ms(2026, 11, 28, 0, 0, 0));
	ck_assert(api_time_parse("2024-02-29T23:59:59Z", &ms) &&
	          ms == utc_ms(2024, 2, 29, 23, 59, 59));
	ck_assert(api_time_parse("2000-03-01T12:30", &ms) && ms == utc_ms(2000, 3, 1, 12, 30, 0));
	ck_assert(api_time_parse("1970-01-01", &ms) && ms == 0);
	const char *bad[] = {"-1",
	                     "",
	                     "1e3",
	                     "12a",
	                     "2023-02-29",
	                     "2026-13-01",
	                     "2026-00-10",
	                     "2026-1-1",
	                     "1969-12-31",
	                     "2026-11-28T24:00",
	                     "2026-11-28Tx",
	                     "2026-11-28Z1",
	                     "99999999999999999999"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(!api_time_parse(bad[i], &ms), "%s", bad[i]);
}
END_TEST

static const struct api_param spec[] = {
        {"user", AP_NAME, 0, 0},  {"kind", AP_KIND, 0, 0},   {"rated", AP_BOOL, 0, 0},
        {"since", AP_TIME, 0, 0}, {"max", AP_COUNT, 1, 100},
};
#define NSPEC (sizeof spec / sizeof spec[0])

/* The code api_query_parse() gives q, and its sentence in why. */
static enum err_code parse(const char *q, struct api_args *a, char *why)
{
	return api_query_parse(q, spec, NSPEC, a, why, 300);
}

START_TEST(test_query)
{
	struct api_args a;
	char why[300];
	ck_assert_int_eq(parse("", &a, why), ERR_COUNT);
	ck_assert(!a.set[0] && !a.set[4]);
	ck_assert_int_eq(parse("user=Bob_1&kind=tak&rated=false&since=2026-01-01&max=100", &a, why),
	                 ERR_COUNT);
	ck_assert(a.set[0] && a.set[1] && a.set[2] && a.set[3] && a.set[4]);
	ck_assert_str_eq(a.text[0], "Bob_1");
	ck_assert_str_eq(a.text[1], "tak");
	ck_assert_int_eq(a.num[2], 0);
	ck_assert_int_eq(a.num[3], utc_ms(2026, 1, 1, 0, 0, 0));
	ck_assert_int_eq(a.num[4], 100);
	ck_assert_int_eq(parse("rated=1", &a, why), ERR_COUNT);
	ck_assert_int_eq(a.num[2], 1);
	struct {
		const char *q;
		enum err_code code;
		const char *says;
	} bad[] = {
	        {"users=bob", ERR_BAD_ARGS,
	         "unknown parameter 'users'; this endpoint takes user, "
	         "kind, rated, since and max"},
	        {"max=0", ERR_BAD_ARGS, "max is a whole number from 1 to 100"},
	        {"max=-3", ERR_BAD_ARGS, "max is a whole number from 1 to 100"},
	        {"max=101", ERR_BAD_ARGS, "max is a whole number from 1 to 100"},
	        {"max=1x", ERR_BAD_ARGS, "max is a whole number from 1 to 100"},
	        {"max=", ERR_BAD_ARGS, "max needs a value of 1 to 63 bytes"},
	        {"max", ERR_BAD_ARGS, "max needs a value of 1 to 63 bytes"},
	        {"max=1&max=2", ERR_BAD_ARGS, "max is given twice"},
	        {"since=-1", ERR_BAD_ARGS, "since is a time: "},
	        {"rated=yes", ERR_BAD_ARGS, "rated is true or false"},
	        {"kind=chess", ERR_UNKNOWN_GAME, "kind: no game called 'chess'"},
	        {"user=x", ERR_BAD_NAME, "user: names are 2 to 20"},
	        {"user=a b", ERR_BAD_NAME, "user: names are 2 to 20"},
	        {"max=1&", ERR_BAD_ARGS, "an empty parameter"},
	        {"&max=1", ERR_BAD_ARGS, "an empty parameter"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ck_assert_msg(parse(bad[i].q, &a, why) == bad[i].code, "%s", bad[i].q);
		ck_assert_msg(strncmp(why, bad[i].says, strlen(bad[i].says)) == 0, "%s: %s",
		              bad[i].q, why);
	}
}
END_TEST

static struct addr_key key(const char *peer)
{
	struct addr_key k;
	addr_key_of(peer, &k);
	return k;
}

START_TEST(test_limit)
{
	const struct budget_config cfg = {.rate = 10, .burst = 20, .strikes = 3};
	struct api_limit *l = api_limit_new(8);
	ck_assert_ptr_nonnull(l);
	struct addr_key a = key("192.0.2.1"), b = key("192.0.2.2");
	uint64_t wait;
	/* the burst, then a refusal with the wait for the tokens; another address is apart */
	ck_assert_int_eq(api_limit_take(l, &cfg, &a, 1000, 10, &wait), BUDGET_OK);
	ck_assert_int_eq(api_limit_take(l, &cfg, &a, 1000, 10, &wait), BUDGET_OK);
	ck_assert_int_eq(api_limit_take(l, &cfg, &a, 1000, 5, &wait), BUDGET_LIMITED);
	ck_assert_uint_eq(wait, 500);
	ck_assert_int_eq(api_limit_take(l, &cfg, &b, 1000, 20, &wait), BUDGET_OK);
	ck_assert_int_eq(api_limit_take(l, &cfg, &a, 1500, 5, &wait), BUDGET_OK);
	/* an IPv6 /64 is one address */
	struct addr_key v1 = key("2001:db8::1"), v2 = key("2001:db8::ffff");
	ck_assert_int_eq(api_limit_take(l, &cfg, &v1, 2000, 20, &wait), BUDGET_OK);
	ck_assert_int_eq(api_limit_take(l, &cfg, &v2, 2000, 1, &wait), BUDGET_LIMITED);
	/* no budget: everything passes and nothing is kept */
	const struct budget_config none = {0};
	size_t n = api_limit_size(l);
	struct addr_key c = key("192.0.2.9");
	ck_assert_int_eq(api_limit_take(l, &none, &c, 2000, 1000, &wait), BUDGET_OK);
	ck_assert_uint_eq(api_limit_size(l), n);
	/* bounded: a thousand addresses never keep more than 8 */
	char peer[32];
	for (int i = 0; i < 1000; i++) {
		snprintf(peer, sizeof peer, "198.51.%d.%d", i / 256, i % 256);
		struct addr_key k = key(peer);
		ck_assert_int_eq(api_limit_take(l, &cfg, &k, 3000 + (uint64_t)i, 20, &wait),
		                 BUDGET_OK);
		ck_assert_uint_le(api_limit_size(l), 8);
	}
	/* refilled buckets go first: a is fresh again after a whole refill time */
	ck_assert_int_eq(api_limit_take(l, &cfg, &a, 10000, 20, &wait), BUDGET_OK);
	api_limit_free(l);
	ck_assert_ptr_null(api_limit_new(0));
}
END_TEST

START_TEST(test_game_json)
{
	struct store_move mv[3] = {
	        {.ply = 0, .seat = 0, .text = "PUSH 3 LEFT", .at = 5, .ms_used = 1},
	        {.ply = 1, .seat = 1, .text = "", .at = 5, .ms_used = 2},
	        {.ply = 2, .seat = 0, .text = "PASS", .at = 6, .ms_used = 3},
	};
	struct store_game g = {.id = 7,
	                       .kind = "xmas",
	                       .players = {"ann", "ben"},
	                       .guest = {false, true},
	                       .status = STORE_IN_PROGRESS,
	                       .winner = -1,
	                       .seed = 18446744073709551615ULL,
	                       .plies = 3,
	                       .moves = mv,
	                       .started = 4};
	char space[64];
	struct json_buf b;
	json_buf_init(&b, space, sizeof space); /* too small: it grows */
	ck_assert(api_game_json(&b, &g, true));
	ck_assert_int_eq(b.p[b.len - 1], '\n');
	cJSON *j = cJSON_ParseWithLength(b.p, b.len);
	ck_assert_ptr_nonnull(j);
	/* in progress: no seed, and the half turn (seat 0's action of turn 2) is not shown */
	ck_assert_ptr_null(cJSON_GetObjectItem(j, "seed"));
	ck_assert_int_eq(cJSON_GetObjectItem(j, "plies")->valueint, 2);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "moves")), 2);
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "time")));
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "winner")));
	ck_assert_ptr_null(memmem(b.p, b.len, "token", 5));
	cJSON_Delete(j);
	json_buf_free(&b);
	/* ended: the seed as text (a JSON number would lose it), every move */
	g.status = STORE_FINISHED;
	g.winner = 1;
	json_buf_init(&b, space, sizeof space);
	ck_assert(api_game_json(&b, &g, false));
	j = cJSON_ParseWithLength(b.p, b.len);
	ck_assert_str_eq(cJSON_GetObjectItem(j, "seed")->valuestring, "18446744073709551615");
	ck_assert_int_eq(cJSON_GetObjectItem(j, "plies")->valueint, 3);
	ck_assert_ptr_null(cJSON_GetObjectItem(j, "moves"));
	ck_assert_int_eq(cJSON_GetObjectItem(j, "winner")->valueint, 1);
	cJSON_Delete(j);
	json_buf_free(&b);
}
END_TEST

static Suite *api_suite(void)
{
	Suite *s = suite_create("api");
	TCase *tc = tcase_create("pure");
	tcase_add_test(tc, test_times);
	tcase_add_test(tc, test_query);
	tcase_add_test(tc, test_limit);
	tcase_add_test(tc, test_game_json);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(api_suite());
}
