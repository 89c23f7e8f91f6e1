/*
 * check_bot_accounts.c - bot accounts and the choices about opponents over the
 * real server ($BITARENAD on a fresh --data directory, issue 22, PROTOCOL.md
 * §17): `register <name> <password> bot`, `set bot on|off` before the first
 * game and BOT_HAS_PLAYED after it, `set bots off`, `set accept` and `-`, a
 * guest's choices (in memory; never a bot), and all of an account's choices
 * back after a restart.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testserver.h"

#include "check_main.h"

/* A JSON login as typed (any letter case), its ok back under the name canon (the caller
   deletes it). */
static cJSON *login(struct ts_cli *c, int port, const char *typed, const char *canon,
                    const char *pw)
{
	ts_connect_json(c, port);
	ts_send(c, "login %s %s", typed, pw);
	return ts_untilf(c, "{\"type\":\"ok\",\"cmd\":\"login\",\"name\":\"%s\"}", canon);
}

START_TEST(test_bot_accounts)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli r, h, g;
	ts_connect_json(&r, s.port);
	ts_send(&r, "register robo secret1 bot");
	ts_until0(&r, "{\"type\":\"ok\",\"cmd\":\"register\",\"name\":\"robo\",\"bot\":true,"
	              "\"bots\":\"on\",\"accept\":\"\"}");
	ts_send(&r, "set seeks off"); /* hugh's seek below is not robo's news */
	ts_until0(&r, "{\"type\":\"ok\",\"cmd\":\"set\"}");
	ts_register(&h, s.port, "hugh", "secret2");
	/* a password with spaces stays one; only a last word "bot" is the flag */
	struct ts_cli p;
	ts_connect_json(&p, s.port);
	ts_send(&p, "register spaced two words here");
	ts_until0(&p, "{\"type\":\"ok\",\"cmd\":\"register\",\"bot\":false}");
	ts_close(&p);
	/* a human becomes a bot before any game, and back */
	ts_send(&h, "set bot on");
	ts_until0(&h, "{\"type\":\"ok\",\"cmd\":\"set\",\"bot\":true}");
	ts_send(&h, "set bot off");
	ts_until0(&h, "{\"type\":\"ok\",\"cmd\":\"set\",\"bot\":false}");
	ts_send(&h, "set bot maybe");
	ts_until0(&h, "{\"type\":\"error\",\"code\":\"BAD_ARGS\"}");
	/* refusing bots, an accept filter (quoted or not), and clearing it */
	ts_send(&h, "set bots off");
	ts_until0(&h, "{\"type\":\"ok\",\"cmd\":\"set\",\"bots\":\"off\"}");
	ts_send(&h, "set accept \"ttt rated\"");
	ts_until0(&h, "{\"type\":\"ok\",\"cmd\":\"set\",\"accept\":\"ttt rated\"}");
	ts_send(&h, "set accept -");
	ts_until0(&h, "{\"type\":\"ok\",\"cmd\":\"set\",\"accept\":\"\"}");
	ts_send(&h, "set accept ttt");
	ts_until0(&h, "{\"type\":\"ok\",\"cmd\":\"set\",\"accept\":\"ttt\"}");
	ts_send(&h, "set bots on");
	ts_until0(&h, "{\"type\":\"ok\",\"cmd\":\"set\",\"bots\":\"on\"}");
	/* a guest: never a bot; its other choices are the connection's */
	ts_join(&g, s.port, "gus");
	ts_send(&g, "set bot on");
	ts_until0(&g, "{\"type\":\"error\",\"code\":\"NOT_LOGGED_IN\"}");
	ts_send(&g, "set bots off");
	ts_until0(&g, "{\"type\":\"ok\",\"cmd\":\"set\",\"bot\":false,\"bots\":\"off\"}");
	/* one game: hugh stays a human, robo a bot */
	int id = ts_begin_game(&h, &g, "ttt");
	ts_send(&h, "resign %d", id);
	ts_until0(&h, "{\"type\":\"game_over\"}");
	ts_send(&h, "set bot on");
	ts_until0(&h, "{\"type\":\"error\",\"code\":\"BOT_HAS_PLAYED\"}");
	ts_send(&h, "set bots off");
	ts_until0(&h, "{\"type\":\"ok\",\"cmd\":\"set\",\"bots\":\"off\"}");
	ts_close(&g);
	struct ts_cli k;
	ts_join(&k, s.port, "kim");
	id = ts_begin_game(&r, &k, "ttt");
	ts_send(&r, "resign %d", id);
	ts_until0(&r, "{\"type\":\"game_over\"}");
	ts_send(&r, "set bot off");
	ts_until0(&r, "{\"type\":\"error\",\"code\":\"BOT_HAS_PLAYED\"}");
	ts_close(&k);
	ts_close(&r);
	ts_close(&h);
	/* after a restart every choice is back at login */
	ts_stop(&s);
	ts_start(&s, s.datadir, NULL, 0);
	cJSON_Delete(login(&h, s.port, "hugh", "hugh", "secret2"));
	cJSON *ok = login(&r, s.port, "ROBO", "robo", "secret1");
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(ok, "bot")));
	cJSON_Delete(ok);
	ts_close(&r);
	ts_close(&h);
	ts_connect_json(&h, s.port);
	ts_send(&h, "login hugh secret2");
	ts_until0(&h, "{\"type\":\"ok\",\"cmd\":\"login\",\"bot\":false,\"bots\":\"off\","
	              "\"accept\":\"ttt\"}");
	/* logged out: the choices go with the name */
	ts_send(&h, "logout");
	ts_until0(&h, "{\"type\":\"ok\",\"cmd\":\"logout\"}");
	ts_send(&h, "login hal");
	ts_until0(&h, "{\"type\":\"ok\",\"cmd\":\"login\",\"bot\":false,\"bots\":\"on\","
	              "\"accept\":\"\"}");
	ts_close(&h);
	ts_down(&s);
}
END_TEST

/* Accept filters and bots off over the server: a match the target's filter declines
   (FILTERED, with the reason), one it takes, a bot's match to someone who refuses bots and
   the other way round (NO_BOTS), an open seek whose author's filter declines the acceptor,
   and a filter that does not read (BAD_FILTER, nothing changed). */
START_TEST(test_filters)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli h, a, r, g;
	ts_register(&h, s.port, "hugh", "secret2");
	ts_register(&a, s.port, "ann", "secret3");
	ts_connect_json(&r, s.port);
	ts_send(&r, "register robo secret1 bot");
	ts_until0(&r, "{\"type\":\"ok\",\"cmd\":\"register\",\"bot\":true}");
	ts_join(&g, s.port, "gus");
	ts_send(&h, "set accept \"tak size=5,6 time>=1+0 rated\"");
	ts_until0(&h, "{\"type\":\"ok\",\"cmd\":\"set\","
	              "\"accept\":\"tak size=5,6 time>=1+0 rated\"}");
	ts_send(&h, "set accept tak size>=9x");
	ts_until0(&h, "{\"type\":\"error\",\"code\":\"BAD_FILTER\",\"message\":"
	              "\"'size>=9x' wants a number; PROTOCOL.md section 17 has the words\"}");
	ts_send(&h, "set accept chess");
	ts_until0(&h, "{\"type\":\"error\",\"code\":\"BAD_FILTER\"}");
	/* declined, each with its reason */
	ts_send(&g, "match hugh ttt");
	ts_until0(&g, "{\"type\":\"error\",\"code\":\"FILTERED\",\"message\":\"hugh's accept "
	              "filter declines this game: it takes only tak games, not ttt\"}");
	ts_send(&a, "match hugh tak size=4 time=5+0 rated=1");
	ts_until0(&a, "{\"type\":\"error\",\"code\":\"FILTERED\",\"message\":\"hugh's accept "
	              "filter declines this game: it takes only size=5,6, not size=4\"}");
	ts_send(&a, "match hugh tak size=5 time=5+0");
	ts_until0(&a, "{\"type\":\"error\",\"code\":\"FILTERED\",\"message\":\"hugh's accept "
	              "filter declines this game: it takes only rated games\"}");
	ts_send(&a, "match hugh tak size=5 rated=1");
	ts_until0(&a, "{\"type\":\"error\",\"code\":\"FILTERED\"}");
	/* taken: hugh hears of it, and the earlier ones never reached him */
	ts_send(&a, "match hugh tak size=6 time=5+0 rated=1");
	cJSON *ok = ts_until(&a, "{\"type\":\"ok\",\"cmd\":\"match\"}");
	int id = ts_jint(cJSON_GetObjectItem(ok, "seek"), "id");
	cJSON_Delete(ok);
	cJSON *m = ts_until(&h, "{\"type\":\"match\",\"event\":\"new\"}");
	ck_assert_int_eq(ts_jint(cJSON_GetObjectItem(m, "seek"), "id"), id);
	cJSON_Delete(m);
	ts_send(&a, "unseek %d", id);
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"unseek\"}");
	/* bots off: refused both ways, even where the filter would take the game */
	ts_send(&h, "set accept -");
	ts_until0(&h, "{\"type\":\"ok\",\"cmd\":\"set\",\"accept\":\"\"}");
	ts_send(&h, "set bots off");
	ts_until0(&h, "{\"type\":\"ok\",\"cmd\":\"set\",\"bots\":\"off\"}");
	ts_send(&r, "match hugh ttt");
	ts_until0(&r, "{\"type\":\"error\",\"code\":\"NO_BOTS\",\"message\":\"hugh refuses "
	              "bots (set bots off), and robo is a bot\"}");
	ts_send(&h, "match robo ttt");
	ts_until0(&h, "{\"type\":\"error\",\"code\":\"NO_BOTS\",\"message\":\"robo is a "
	              "bot, and hugh refuses bots (set bots off)\"}");
	/* an open seek: its author's filter and bots off hold against the acceptor */
	ts_send(&a, "set accept humans");
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"set\",\"accept\":\"humans\"}");
	ts_send(&a, "seek ttt");
	ok = ts_until(&a, "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	id = ts_jint(cJSON_GetObjectItem(ok, "seek"), "id");
	cJSON_Delete(ok);
	ts_send(&r, "accept %d", id);
	ts_until0(&r, "{\"type\":\"error\",\"code\":\"FILTERED\",\"message\":\"ann's accept "
	              "filter declines this game: it takes no games against bots\"}");
	ts_send(&r, "seek ttt");
	ok = ts_until(&r, "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	int rid = ts_jint(cJSON_GetObjectItem(ok, "seek"), "id");
	cJSON_Delete(ok);
	ts_send(&h, "accept %d", rid);
	ts_until0(&h, "{\"type\":\"error\",\"code\":\"NO_BOTS\"}");
	/* a human takes ann's seek */
	ts_send(&g, "accept %d", id);
	ts_until0(&g, "{\"type\":\"ok\",\"cmd\":\"accept\"}");
	ts_close(&g);
	ts_close(&r);
	ts_close(&a);
	ts_close(&h);
	ts_down(&s);
}
END_TEST

/* Bots shown: who, seeks (and their news), game_start, state, list, the record's title tag,
   ratings; set bots off hides seeks both ways. */
START_TEST(test_shown)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli h, a, r;
	ts_register(&h, s.port, "hugh", "secret2");
	ts_register(&a, s.port, "ann", "secret3");
	ts_connect_json(&r, s.port);
	ts_send(&r, "register robo secret1 bot");
	ts_until0(&r, "{\"type\":\"ok\",\"cmd\":\"register\",\"bot\":true}");
	ts_send(&h, "set bots off");
	ts_until0(&h, "{\"type\":\"ok\",\"cmd\":\"set\",\"bots\":\"off\"}");
	ts_send(&a, "who");
	cJSON *who = ts_until(&a, "{\"type\":\"ok\",\"cmd\":\"who\"}");
	int bots = 0, users = 0;
	cJSON *u;
	cJSON_ArrayForEach(u, cJSON_GetObjectItem(who, "users"))
	{
		users++;
		bool bot = cJSON_IsTrue(cJSON_GetObjectItem(u, "bot"));
		bots += bot;
		ck_assert(bot == (strcmp(ts_jstr(u, "name"), "robo") == 0));
	}
	ck_assert_int_eq(users, 3);
	ck_assert_int_eq(bots, 1);
	cJSON_Delete(who);
	/* robo's seek: ann hears of it (as a bot's), hugh does not, nor lists it */
	ts_send(&r, "seek ttt rated=1");
	cJSON *ok = ts_until(&r, "{\"type\":\"ok\",\"cmd\":\"seek\",\"seek\":{\"bot\":true}}");
	int rid = ts_jint(cJSON_GetObjectItem(ok, "seek"), "id");
	cJSON_Delete(ok);
	ts_until0(&a, "{\"type\":\"seek\",\"event\":\"new\",\"seek\":{\"by\":\"robo\","
	              "\"bot\":true}}");
	/* hugh's seek: ann hears of it, robo does not (its next news is ann's) */
	ts_send(&h, "seek ttt");
	ts_until0(&h, "{\"type\":\"ok\",\"cmd\":\"seek\",\"seek\":{\"bot\":false}}");
	ts_until0(&a, "{\"type\":\"seek\",\"event\":\"new\",\"seek\":{\"by\":\"hugh\"}}");
	ts_send(&a, "seek mnk");
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	cJSON *news = ts_until(&r, "{\"type\":\"seek\",\"event\":\"new\"}");
	ck_assert_str_eq(ts_jstr(cJSON_GetObjectItem(news, "seek"), "by"), "ann");
	cJSON_Delete(news);
	news = ts_until(&h, "{\"type\":\"seek\",\"event\":\"new\"}");
	ck_assert_str_eq(ts_jstr(cJSON_GetObjectItem(news, "seek"), "by"), "ann");
	cJSON_Delete(news);
	ts_send(&h, "seeks");
	cJSON *list = ts_until(&h, "{\"type\":\"ok\",\"cmd\":\"seeks\"}");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(list, "seeks")), 2); /* not robo's */
	cJSON_Delete(list);
	ts_send(&a, "seeks");
	list = ts_until(&a, "{\"type\":\"ok\",\"cmd\":\"seeks\"}");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(list, "seeks")), 3);
	cJSON_Delete(list);
	/* ann takes robo's rated seek: the start, the state and the list show the bot's seat */
	ts_send(&a, "accept %d", rid);
	cJSON *acc = ts_until(&a, "{\"type\":\"ok\",\"cmd\":\"accept\"}");
	int id = ts_jint(acc, "game");
	cJSON_Delete(acc);
	cJSON *gs = ts_until(&a, "{\"type\":\"game_start\"}");
	cJSON *names = cJSON_GetObjectItem(gs, "players"), *flags = cJSON_GetObjectItem(gs, "bots");
	ck_assert_int_eq(cJSON_GetArraySize(flags), 2);
	for (int i = 0; i < 2; i++)
		ck_assert(cJSON_IsTrue(cJSON_GetArrayItem(flags, i)) ==
		          (strcmp(cJSON_GetArrayItem(names, i)->valuestring, "robo") == 0));
	int robo_seat = strcmp(cJSON_GetArrayItem(names, 0)->valuestring, "robo") == 0 ? 0 : 1;
	cJSON_Delete(gs);
	cJSON *st = ts_until(&a, "{\"type\":\"state\"}");
	ck_assert(cJSON_IsTrue(cJSON_GetArrayItem(cJSON_GetObjectItem(st, "bots"), robo_seat)));
	ck_assert(!cJSON_IsTrue(cJSON_GetArrayItem(cJSON_GetObjectItem(st, "bots"), 1 - robo_seat)));
	cJSON_Delete(st);
	ts_send(&h, "list");
	list = ts_until(&h, "{\"type\":\"ok\",\"cmd\":\"list\"}");
	cJSON *row = cJSON_GetArrayItem(cJSON_GetObjectItem(list, "games"), 0);
	ck_assert(cJSON_IsTrue(cJSON_GetArrayItem(cJSON_GetObjectItem(row, "bots"), robo_seat)));
	cJSON_Delete(list);
	/* a rated end: ratings and the record name the bot */
	ts_send(&a, "resign %d", id);
	ts_until0(&a, "{\"type\":\"game_over\"}");
	ts_until0(&r, "{\"type\":\"game_over\"}");
	ts_send(&h, "ratings ttt");
	cJSON *rt = ts_until(&h, "{\"type\":\"ok\",\"cmd\":\"ratings\"}");
	cJSON *e;
	int seen = 0;
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(rt, "ratings"))
	{
		seen++;
		ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(e, "bot")) ==
		          (strcmp(ts_jstr(e, "name"), "robo") == 0));
	}
	ck_assert_int_eq(seen, 2);
	cJSON_Delete(rt);
	ts_send(&h, "record %d", id);
	cJSON *rec = ts_until(&h, "{\"type\":\"ok\",\"cmd\":\"record\"}");
	char tag[64];
	snprintf(tag, sizeof tag, "[Player%dTitle \"BOT\"]", robo_seat + 1);
	ck_assert_ptr_nonnull(strstr(ts_jstr(rec, "record"), tag));
	snprintf(tag, sizeof tag, "[Player%dTitle", 2 - robo_seat);
	ck_assert_ptr_null(strstr(ts_jstr(rec, "record"), tag));
	cJSON_Delete(rec);
	ts_close(&r);
	ts_close(&a);
	ts_close(&h);
	ts_down(&s);
}
END_TEST

/* Reads c's lines until one holds needle (fails after the wait). */
static void text_until(struct ts_cli *c, const char *needle)
{
	for (;;) {
		char *l = ts_line(c);
		ck_assert_msg(l != NULL, "no line with '%s'", needle);
		bool hit = strstr(l, needle) != NULL;
		free(l);
		if (hit)
			return;
	}
}

/* In text: what a telnet user sees. */
START_TEST(test_text)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli t;
	ts_open(&t, s.port);
	text_until(&t, "ready");
	ts_send(&t, "register tbot secret1 bot");
	text_until(&t, "ok logged in as tbot (bot)");
	ts_send(&t, "set accept \"ttt\"");
	text_until(&t, "ok you accept: ttt");
	ts_send(&t, "set accept -");
	text_until(&t, "ok you accept every game");
	ts_close(&t);
	ts_down(&s);
}
END_TEST

static Suite *bot_accounts_suite(void)
{
	Suite *s = suite_create("bot_accounts");
	TCase *tc = tcase_create("server");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_bot_accounts);
	tcase_add_test(tc, test_filters);
	tcase_add_test(tc, test_shown);
	tcase_add_test(tc, test_text);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	return check_run(bot_accounts_suite());
}
