/*
 * check_house.c - the server's own bots over real sockets (house/, issue 22
 * item 6): `match computer` starts a game at once against computerN, shown as
 * a bot; the bot answers every move until the game ends (ttt, Tak, Xmas Rush) and agrees
 * to a rematch and to an abort;
 * its refusals (a level out of range, a kind it does not play, too many
 * games) and its names kept from guests and accounts; a game resigned, and a server stopped, while
 * the bot searches (the server exits 0: no leak or crash under the sanitizers); a pool's waiter who
 * finds nobody plays the house bot after --pool-computer-after.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "testserver.h"

/* c asks for a game against the computer: its id (game_start read, the first state not). */
static int match_computer(struct ts_cli *c, const char *kind_opts, int level)
{
	ts_send(c, "match computer %s level=%d", kind_opts, level);
	cJSON *ok = ts_until(c, "{\"type\":\"ok\",\"cmd\":\"match\"}");
	int id = ts_jint(ok, "game");
	char name[32];
	snprintf(name, sizeof name, "computer%d", level);
	ck_assert_str_eq(ts_jstr(ok, "opponent"), name);
	cJSON_Delete(ok);
	cJSON *gs = ts_until(c, "{\"type\":\"game_start\"}");
	ck_assert_int_eq(ts_jint(gs, "game"), id);
	int seat = ts_jint(gs, "seat");
	cJSON *bots = cJSON_GetObjectItem(gs, "bots");
	ck_assert(cJSON_IsFalse(cJSON_GetArrayItem(bots, seat)));
	ck_assert(cJSON_IsTrue(cJSON_GetArrayItem(bots, !seat)));
	cJSON_Delete(gs);
	return id;
}

/* Whether seat is among the state's to_move. */
static bool to_move(const cJSON *st, int seat)
{
	const cJSON *m;
	cJSON_ArrayForEach(m, cJSON_GetObjectItem(st, "to_move"))
	{
		if (m->valueint == seat)
			return true;
	}
	return false;
}

/*
 * Plays game id with the first legal move (Xmas Rush: PASS, or the first push) until it
 * ends. Returns the turns the bot played: each state after one where the bot was to move
 * (and we were not) has a higher ply, the bot's move.
 */
static int play_out(struct ts_cli *c, int id, bool xmas)
{
	int bot_moves = 0, last_ply = -1;
	bool bot_turn = false;
	for (int guard = 0; guard < 2000; guard++) {
		cJSON *st = ts_until_within(c, "{\"type\":\"state\"}", 30000);
		ck_assert_int_eq(ts_jint(st, "game"), id);
		int seat = ts_jint(st, "seat"), ply = ts_jint(st, "ply");
		if (ply > last_ply && (bot_turn || xmas) && last_ply >= 0)
			bot_moves++;
		last_ply = ply;
		bot_turn = to_move(st, !seat) && !to_move(st, seat);
		if (cJSON_GetArraySize(cJSON_GetObjectItem(st, "to_move")) == 0) {
			cJSON_Delete(st);
			cJSON_Delete(ts_until_within(c, "{\"type\":\"game_over\"}", 30000));
			return bot_moves;
		}
		if (to_move(st, seat)) {
			const cJSON *legal = cJSON_GetObjectItem(st, "legal");
			if (xmas) {
				const char *in =
				        ts_jstr(cJSON_GetObjectItem(st, "position"), "input");
				ts_send(c, "move %d %s", id,
				        strncmp(in, "0\n", 2) == 0 ? "PUSH 1 UP" : "PASS");
			} else {
				ts_send(c, "move %d %s", id,
				        cJSON_GetArrayItem(legal, 0)->valuestring);
			}
		}
		cJSON_Delete(st);
	}
	ck_abort_msg("the game did not end");
	return 0;
}

START_TEST(test_match_computer_plays)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli a;
	ts_join(&a, s.port, "ann");
	int id = match_computer(&a, "ttt color=white", 8);
	/* perfect play against a1, b1, ...: the bot answers every move and wins */
	ck_assert_int_ge(play_out(&a, id, false), 2);
	/* a rematch offered to the bot is agreed to (seats swapped), and so is an abort */
	ts_send(&a, "rematch %d", id);
	cJSON *gs = ts_until(&a, "{\"type\":\"game_start\",\"kind\":\"ttt\"}");
	int id2 = ts_jint(gs, "game");
	ck_assert_int_eq(ts_jint(gs, "seat"), 1);
	cJSON_Delete(gs);
	ts_send(&a, "abort %d", id2);
	cJSON_Delete(ts_untilf(&a, "{\"type\":\"game_over\",\"game\":%d}", id2));
	id = match_computer(&a, "tak size=4 color=black", 3);
	ck_assert_int_ge(play_out(&a, id, false), 2);
	ts_send(&a, "who");
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"who\"}");
	ts_close(&a);
	ts_down(&s);
}
END_TEST

START_TEST(test_refusals)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli a;
	ts_join(&a, s.port, "ann");
	ts_send(&a, "match computer ttt level=9");
	ts_expect_err(&a, "BAD_OPTION");
	ts_send(&a, "match computer ttt");
	ts_expect_err(&a, "BAD_OPTION");
	ts_send(&a, "match computer chess level=1");
	ts_expect_err(&a, "UNKNOWN_GAME");
	ts_send(&a, "match computer ttt level=2 time=nonsense");
	ts_expect_err(&a, "BAD_OPTION");
	for (int i = 0; i < 4; i++) { /* the bot moves second: the games wait for ann */
		ts_send(&a, "match computer ttt level=%d color=white", i + 1);
		ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"match\"}");
	}
	ts_send(&a, "match computer ttt level=5");
	ts_until0(&a, "{\"type\":\"error\",\"code\":\"COMPUTER_BUSY\"}");
	/* the name is the bot's: a guest cannot take it */
	struct ts_cli b;
	ts_connect_json(&b, s.port);
	ts_send(&b, "login computer1");
	ts_expect_err(&b, "NAME_TAKEN");
	/* nor a bot's not started yet (level 8 has played nothing), in any letter case, nor
	   an account: the house would find its bot's name taken */
	ts_send(&b, "login COMPUTER8");
	ts_expect_err(&b, "NAME_TAKEN");
	ts_send(&b, "register computer8 password1");
	ts_expect_err(&b, "NAME_TAKEN");
	ts_send(&b, "register Computer12 password1 bot");
	ts_expect_err(&b, "NAME_TAKEN");
	ts_send(&b, "login computers"); /* a name like it is anyone's */
	ts_until0(&b, "{\"type\":\"ok\",\"cmd\":\"login\"}");
	ts_send(&b, "match computer ttt level=8");
	ts_until0(&b, "{\"type\":\"ok\",\"cmd\":\"match\",\"opponent\":\"computer8\"}");
	ts_close(&b);
	ts_close(&a);
	ts_down(&s);
}
END_TEST

/* Level 8 Tak 6x6 thinks seconds a move: the game ends, and the server stops, meanwhile. */
START_TEST(test_abandoned_while_searching)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli a;
	ts_join(&a, s.port, "ann");
	int id = match_computer(&a, "tak size=6 color=white", 8);
	ts_until0(&a, "{\"type\":\"state\"}");
	ts_send(&a, "move %d a1", id);
	ts_until0(&a, "{\"type\":\"state\",\"ply\":2}"); /* the opening rule's reply: at once */
	ts_send(&a, "move %d c3", id);
	ts_until0(&a, "{\"type\":\"state\",\"ply\":3}"); /* the bot is thinking now */
	ts_send(&a, "resign %d", id);
	ts_until0(&a, "{\"type\":\"game_over\"}");
	/* another: the server stops while the bot thinks */
	id = match_computer(&a, "tak size=6 color=white", 8);
	ts_until0(&a, "{\"type\":\"state\"}");
	ts_send(&a, "move %d a1", id);
	ts_until0(&a, "{\"type\":\"state\",\"ply\":2}");
	ts_send(&a, "move %d c3", id);
	ts_until0(&a, "{\"type\":\"state\",\"ply\":3}");
	ts_close(&a);
	ts_down(&s); /* exit status 0: no leak, no crash */
}
END_TEST

START_TEST(test_xmas)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli a;
	ts_join(&a, s.port, "ann");
	int id = match_computer(&a, "xmas", 8);
	ck_assert_int_ge(play_out(&a, id, true), 1);
	ts_close(&a);
	ts_down(&s);
}
END_TEST

START_TEST(test_pool_falls_back)
{
	struct ts_srv s;
	const char *const args[] = {"--pool-computer-after", "2"};
	ts_up(&s, args, 2);
	struct ts_cli a;
	ts_join(&a, s.port, "ann");
	ts_send(&a, "pool join ttt");
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"pool\"}");
	cJSON *gs = ts_until_within(&a, "{\"type\":\"game_start\",\"kind\":\"ttt\"}", 10000);
	int id = ts_jint(gs, "game");
	int seat = ts_jint(gs, "seat");
	ck_assert(cJSON_IsTrue(cJSON_GetArrayItem(cJSON_GetObjectItem(gs, "bots"), !seat)));
	ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(gs, "players"), !seat)->valuestring,
	                 "computer5"); /* a guest counts 1500: level 5 */
	cJSON_Delete(gs);
	play_out(&a, id, false);
	/* one who refuses bots waits on */
	ts_send(&a, "set bots off");
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"set\"}");
	ts_send(&a, "pool join ttt");
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"pool\"}");
	ts_msleep(3500);
	ck_assert(!ts_drain(&a, "game_start"));
	ts_close(&a);
	ts_down(&s);
}
END_TEST

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	Suite *s = suite_create("house");
	TCase *tc = tcase_create("house");
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, test_match_computer_plays);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_abandoned_while_searching);
	tcase_add_test(tc, test_xmas);
	tcase_add_test(tc, test_pool_falls_back);
	suite_add_tcase(s, tc);
	return check_run(s);
}
