/*
 * check_pools.c - rating pools over real sockets (events/pools.c, issue 22):
 * two guests in a pool get a game by themselves; they are not paired again at
 * once while a third comes and is paired instead, with the colour of the one
 * who had white going to black; pool leave and a disconnect take a player out;
 * the errors; accounts whose ratings are 300 apart after a rated pool game wait
 * until the windows widen (not at once, then within about 25 s); a guest and
 * an account are never paired; a bot and one who refuses bots are not paired.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "testserver.h"

/* c's game_start (lines before skipped): the game's id; white's name into white. */
static int game_start(struct ts_cli *c, char *white, size_t len)
{
	cJSON *j = ts_until_within(c, "{\"type\":\"game_start\",\"kind\":\"ttt\"}", 40000);
	int id = cJSON_GetObjectItem(j, "game")->valueint;
	cJSON *p = cJSON_GetObjectItem(j, "players");
	snprintf(white, len, "%s", cJSON_GetArrayItem(p, 0)->valuestring);
	cJSON_Delete(j);
	return id;
}

static void join(struct ts_cli *c, const char *pool)
{
	ts_send(c, "pool join %s", pool);
	ts_until0(c, "{\"type\":\"ok\",\"cmd\":\"pool\"}");
}

/* The pool's waiting count as `pools` says. */
static int waiting(struct ts_cli *c, const char *pool)
{
	ts_send(c, "pools");
	cJSON *j = ts_until(c, "{\"type\":\"ok\",\"cmd\":\"pools\"}");
	int n = -1;
	cJSON *p;
	cJSON_ArrayForEach(
	        p, cJSON_GetObjectItem(
	                   j, "pools")) if (strcmp(cJSON_GetObjectItem(p, "name")->valuestring,
	                                           pool) == 0) n =
	        cJSON_GetObjectItem(p, "waiting")->valueint;
	cJSON_Delete(j);
	return n;
}

static void resign(struct ts_cli *c, int id)
{
	ts_send(c, "resign %d", id);
	ts_until0(c, "{\"type\":\"ok\",\"cmd\":\"resign\"}");
}

START_TEST(test_pair_no_rematch_colours)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli a, b, c;
	ts_join(&a, s.port, "ann");
	ts_join(&b, s.port, "bob");
	ts_join(&c, s.port, "cid");
	join(&a, "ttt");
	join(&b, "ttt");
	char white[32], w2[32];
	int id = game_start(&a, white, sizeof white);
	ck_assert_int_eq(game_start(&b, w2, sizeof w2), id);
	ck_assert_str_eq(white, "ann"); /* equal balances and ratings: who waited longer */
	ck_assert_int_eq(waiting(&c, "ttt"), 0);
	resign(&b, id);
	/* both again: not paired with each other at once */
	join(&a, "ttt");
	join(&b, "ttt");
	ts_msleep(2500);
	ck_assert_int_eq(waiting(&c, "ttt"), 2);
	/* a third: paired with ann (who waited longest); ann had white, so takes black */
	join(&c, "ttt");
	id = game_start(&c, white, sizeof white);
	ck_assert_str_eq(white, "cid");
	ck_assert_int_eq(game_start(&a, w2, sizeof w2), id);
	ck_assert_int_eq(waiting(&b, "ttt"), 1);
	ts_close(&a);
	ts_close(&b);
	ts_close(&c);
	ts_down(&s);
}
END_TEST

START_TEST(test_leave_disconnect_errors)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli a, b;
	ts_join(&a, s.port, "ann");
	ts_join(&b, s.port, "bob");
	ts_send(&a, "pool join nosuch");
	ts_expect_err(&a, "NO_SUCH_POOL");
	ts_send(&a, "pool leave");
	ts_expect_err(&a, "NOT_IN_POOL");
	join(&a, "tak5-blitz");
	ts_send(&a, "pool join ttt");
	ts_expect_err(&a, "IN_POOL");
	ck_assert_int_eq(waiting(&b, "tak5-blitz"), 1);
	ts_send(&a, "pool leave");
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"pool\",\"pool\":\"tak5-blitz\"}");
	ck_assert_int_eq(waiting(&b, "tak5-blitz"), 0);
	join(&a, "ttt");
	ck_assert_int_eq(waiting(&b, "ttt"), 1);
	ts_close(&a); /* a disconnect takes ann out: bob waits alone */
	ts_msleep(300);
	ck_assert_int_eq(waiting(&b, "ttt"), 0);
	join(&b, "ttt");
	ts_msleep(1500);
	ck_assert_int_eq(waiting(&b, "ttt"), 1);
	ts_close(&b);
	ts_down(&s);
}
END_TEST

/* After a rated game the two accounts are ~320 apart: paired again only once both windows
   hold it (100 + 50 every 5 s: 25 s), not at once; a guest waiting meanwhile is not theirs. */
START_TEST(test_window_widens)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli a, b, g;
	ts_register(&a, s.port, "anna", "secret1");
	ts_register(&b, s.port, "bert", "secret2");
	ts_join(&g, s.port, "gus");
	join(&a, "ttt");
	join(&b, "ttt");
	char white[32], w2[32];
	int id = game_start(&a, white, sizeof white);
	ck_assert_int_eq(game_start(&b, w2, sizeof w2), id);
	resign(&b, id);
	ts_until0(&a, "{\"type\":\"game_over\"}");
	ts_msleep(500); /* the rated result stored before the ratings are read again */
	join(&a, "ttt");
	join(&g, "ttt");
	join(&b, "ttt");
	ts_msleep(8000);
	ck_assert_int_eq(waiting(&g, "ttt"), 3);
	id = game_start(&a, white, sizeof white);
	ck_assert_int_eq(game_start(&b, w2, sizeof w2), id);
	ck_assert_str_eq(white, "bert"); /* anna had white */
	ck_assert_int_eq(waiting(&g, "ttt"), 1);
	ts_close(&a);
	ts_close(&b);
	ts_close(&g);
	ts_down(&s);
}
END_TEST

/*
 * x, who refuses y's game (code: NO_BOTS or FILTERED), and y wait in the ttt pool: they are
 * not paired, both are told why, both go on waiting (the timer's passes, a second a pass,
 * find the same); z, who takes anyone, comes and is paired with y; x waits on.
 */
static void refused_then_third(struct ts_cli *x, const char *xname, struct ts_cli *y,
                               const char *yname, struct ts_cli *z, const char *code)
{
	char pat[200];
	join(y, "ttt");
	join(x, "ttt");
	snprintf(pat, sizeof pat,
	         "{\"type\":\"pool\",\"event\":\"declined\",\"opponent\":\"%s\",\"code\":\"%s\"}",
	         yname, code);
	ts_until0(x, pat);
	snprintf(pat, sizeof pat,
	         "{\"type\":\"pool\",\"event\":\"declined\",\"opponent\":\"%s\",\"code\":\"%s\"}",
	         xname, code);
	ts_until0(y, pat);
	ts_msleep(1500);
	ck_assert_int_eq(waiting(z, "ttt"), 2);
	join(z, "ttt");
	char white[32], w2[32];
	int id = game_start(z, white, sizeof white);
	ck_assert_int_eq(game_start(y, w2, sizeof w2), id);
	ck_assert_int_eq(waiting(x, "ttt"), 1);
}

/* Bots off: a bot and a human who refuses bots are not paired (both told why, once); a human
   who takes bots is. */
START_TEST(test_bots_off)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli b, h, g;
	ts_register(&b, s.port, "robo", "secret1 bot");
	ts_register(&h, s.port, "hana", "secret2");
	ts_register(&g, s.port, "gert", "secret3");
	ts_send(&h, "set bots off");
	ts_until0(&h, "{\"type\":\"ok\",\"cmd\":\"set\"}");
	refused_then_third(&h, "hana", &b, "robo", &g, "NO_BOTS");
	ts_close(&b);
	ts_close(&h);
	ts_close(&g);
	ts_down(&s);
}
END_TEST

/* Accept filters (§17) hold in pools as bots off does: hilde takes only 5x5 and 6x6 Tak. */
START_TEST(test_accept_filter)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli h, a, g;
	ts_register(&h, s.port, "hilde", "secret2");
	ts_register(&a, s.port, "arno", "secret3");
	ts_register(&g, s.port, "gitta", "secret4");
	ts_send(&h, "set accept \"tak size=5,6\"");
	ts_until0(&h, "{\"type\":\"ok\",\"cmd\":\"set\"}");
	refused_then_third(&h, "hilde", &a, "arno", &g, "FILTERED");
	ts_close(&h);
	ts_close(&a);
	ts_close(&g);
	ts_down(&s);
}
END_TEST

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	Suite *s = suite_create("pools");
	TCase *tc = tcase_create("loopback");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_pair_no_rematch_colours);
	tcase_add_test(tc, test_leave_disconnect_errors);
	tcase_add_test(tc, test_window_widens);
	tcase_add_test(tc, test_bots_off);
	tcase_add_test(tc, test_accept_filter);
	suite_add_tcase(s, tc);
	return check_run(s);
}
