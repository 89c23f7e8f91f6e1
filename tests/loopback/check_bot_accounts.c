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
	tcase_add_test(tc, test_text);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	return check_run(bot_accounts_suite());
}
