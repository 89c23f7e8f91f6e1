/*
 * check_lobby.c - the lobby and the dispatcher without sockets, through
 * clients of a fake transport (tests/lib/fakeconn.h): logging in as a guest or
 * to an account (the password checked on a worker while the client's next
 * commands wait), names taken and registered, a second login of an account
 * taking the seat over, who; seeks offered, announced, listed, withdrawn,
 * accepted, refused for every reason, and withdrawn when their author goes;
 * the dispatcher's answers to lines that are not commands, the table's
 * flags (login, store, the game and the seek named by the first argument),
 * help, ping, set, quit.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeconn.h"
#include "check_main.h"

static struct fk_server fs;

static void start(bool store)
{
	struct server_config cfg = {.grace_ms = 60000};
	fk_start(&fs, &cfg, store);
}

/* ---- the dispatcher ------------------------------------------------------------------ */

START_TEST(test_lines)
{
	struct fk_cli a;
	start(false);
	fk_connect(&fs, &a);
	fk_expect0(
	        &a,
	        "bitarenad * (protocol 1) ready; 'help' lists commands, 'login <name>' to begin");
	fk_send(&a, "frobnicate now");
	fk_expect0(&a, "error UNKNOWN_COMMAND: no command 'frobnicate'; 'help' lists them");
	fk_send(&a, "#t9 unseek");
	fk_expect0(&a, "#t9 error BAD_ARGS: usage: unseek <seek-id>");
	fk_send(&a, "#a.b ping");
	fk_expect0(&a, "error BAD_TAG: *");
	fk_type(&a, "pi\x01ng\n", 6);
	fk_expect0(&a, "error BAD_INPUT: *");
	char big[FRAME_MAX + 10];
	memset(big, 'x', sizeof big);
	big[sizeof big - 1] = '\n';
	fk_type(&a, big, sizeof big);
	fk_expect0(&a, "error LINE_TOO_LONG: *");
	fk_nothing(&a); /* the rest of the long line is dropped */
	fk_send(&a, "   \t ");
	fk_nothing(&a);
	fk_send(&a, "#p1 PING");
	fk_expect0(&a, "#p1 pong");
	fk_send(&a, "help move");
	fk_expect0(&a, "ok move <game> <move>");
	fk_expect0(&a, "  move <game> <move>*");
	fk_expect0(&a, "                               *e5"); /* wrapped to 80 columns */
	fk_send(&a, "help nothing");
	fk_expect0(&a, "error UNKNOWN_COMMAND: no command 'nothing'");
	fk_send(&a, "set format json");
	fk_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"set\",\"format\":\"json\"}");
	fk_send(&a, "help");
	cJSON *h = fk_expect(&a, "{\"type\":\"ok\",\"cmd\":\"help\"}");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(h, "verbs")),
	                 (int)commands_table.n);
	cJSON_Delete(h);
	fk_send(&a, "set colour blue");
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"BAD_FORMAT\"}");
	/* the flags: login first, a store, ids */
	fk_send(&a, "seek ttt");
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"NOT_LOGGED_IN\",\"cmd\":\"seek\"}");
	fk_send(&a, "move 1 a1");
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"NOT_LOGGED_IN\",\"cmd\":\"move\"}");
	fk_send(&a, "history alice");
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"NO_STORAGE\",\"cmd\":\"history\"}");
	fk_send(&a, "register alice secret1");
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"NO_STORAGE\",\"cmd\":\"register\"}");
	fk_send(&a, "login alice secret1");
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"NO_STORAGE\",\"cmd\":\"login\"}");
	fk_send(&a, "watch 0");
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"BAD_ARGS\",\"message\":\"game ids are "
	               "positive whole numbers\"}");
	fk_send(&a, "watch 7");
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"NO_SUCH_GAME\",\"message\":\"there is no "
	               "game 7\"}");
	fk_send(&a, "quit");
	fk_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"quit\",\"message\":\"bye\"}");
	ck_assert_ptr_null(a.c); /* closed and freed */
	fk_stop_with(&fs, &a, NULL);
}
END_TEST

/* ---- presence ------------------------------------------------------------------------ */

START_TEST(test_presence)
{
	struct fk_cli a, b, c;
	start(false);
	fk_join(&fs, &a, "alice");
	fk_connect(&fs, &b);
	fk_skip(&b);
	fk_send(&b, "login ALICE");
	fk_expect0(&b, "error NAME_TAKEN: ALICE is connected already; pick another name");
	fk_send(&b, "login a");
	fk_expect0(&b, "error BAD_NAME: *");
	fk_send(&b, "login bob_2");
	fk_expect0(&b, "ok logged in as bob_2 (guest); token *");
	fk_send(&b, "login bob_3");
	fk_expect0(&b, "error ALREADY_LOGGED_IN: you are bob_2 already");
	fk_connect(&fs, &c); /* not logged in: not in who */
	fk_skip(&c);
	fk_send(&a, "who");
	cJSON *w =
	        fk_expect(&a, "{\"type\":\"ok\",\"cmd\":\"who\",\"message\":\"2 users online\"}");
	cJSON *users = cJSON_GetObjectItem(w, "users");
	ck_assert_str_eq(ts_jstr(cJSON_GetArrayItem(users, 0), "name"), "bob_2"); /* newest first */
	ck_assert_str_eq(ts_jstr(cJSON_GetArrayItem(users, 1), "name"), "alice");
	cJSON_Delete(w);
	/* the same answer again, kept; a tagged one carries its tag, in either format */
	fk_send(&a, "who");
	fk_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"who\",\"users\":[{\"name\":\"bob_2\","
	               "\"guest\":true,\"playing\":[],\"watching\":[],\"rtt_ms\":null},"
	               "{\"name\":\"alice\"}],\"message\":\"2 users online\"}");
	fk_send(&a, "#t1 who");
	fk_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"who\",\"id\":\"t1\",\"users\":[{\"name\":"
	               "\"bob_2\"},{\"name\":\"alice\"}],\"message\":\"2 users online\"}");
	fk_send(&b, "#t2 who");
	fk_expect0(&b, "#t2 ok 2 users online");
	fk_expect0(&b, "  bob_2");
	fk_expect0(&b, "  alice");
	fk_send(&b, "who");
	fk_expect0(&b, "ok 2 users online");
	fk_expect0(&b, "  bob_2");
	fk_expect0(&b, "  alice");
	fk_nothing(&b);
	fk_hangup(&b);
	fk_send(&c, "who");
	fk_expect0(&c, "ok 1 user online");
	fk_expect0(&c, "  alice");
	fk_nothing(&c);
	/* the name is free again */
	fk_send(&c, "login BOB_2");
	fk_expect0(&c, "ok logged in as BOB_2 (guest); token *");
	fk_stop_with(&fs, &a, &b, &c, NULL);
}
END_TEST

/* ---- seeks --------------------------------------------------------------------------- */

START_TEST(test_seeks)
{
	struct fk_cli a, b, n;
	start(false);
	fk_join(&fs, &a, "alice");
	fk_join(&fs, &b, "bob");
	fk_connect(&fs, &n); /* not logged in: hears no seeks */
	fk_skip(&n);
	fk_send(&a, "seek chess");
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"UNKNOWN_GAME\"}");
	fk_send(&a, "seek ttt k=9");
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"BAD_OPTION\"}");
	fk_send(&a, "seek ttt rated=1");
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"RATED_NEEDS_ACCOUNT\"}");
	fk_send(&a, "seek mnk m=4 n=4 k=3 time=1+2 color=second");
	cJSON *ok = fk_expect(&a, "{\"type\":\"ok\",\"cmd\":\"seek\",\"seek\":{\"by\":\"alice\","
	                          "\"kind\":\"mnk\",\"options\":{\"m\":4,\"n\":4,\"k\":3},"
	                          "\"time\":{\"base_ms\":60000,\"inc_ms\":2000},"
	                          "\"color\":\"second\",\"rated\":false}}");
	int id = ts_jint(cJSON_GetObjectItem(ok, "seek"), "id");
	cJSON_Delete(ok);
	fk_nothing(&a); /* the author is not told of its own seek */
	fk_expect0(&b, "{\"type\":\"seek\",\"event\":\"new\",\"seek\":{\"by\":\"alice\"}}");
	fk_nothing(&n);
	fk_send(&n, "seeks");
	fk_expect0(&n, "ok 1 open seek");
	fk_expect0(&n, "  * by alice: mnk m=4 n=4 k=3, time=1+2, seeker plays second");
	fk_send(&b, "unseek %d", id);
	fk_expect0(&b, "{\"type\":\"error\",\"code\":\"NOT_YOUR_SEEK\"}");
	fk_send(&a, "accept %d", id);
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"OWN_SEEK\"}");
	fk_send(&b, "accept x");
	fk_expect0(&b, "{\"type\":\"error\",\"code\":\"BAD_ARGS\","
	               "\"message\":\"seek ids are positive whole numbers\"}");
	fk_send(&b, "accept %d", id + 100);
	fk_expect0(&b, "{\"type\":\"error\",\"code\":\"NO_SUCH_SEEK\"}");
	/* at most LOBBY_MAX_SEEKS open seeks each */
	for (int i = 1; i < LOBBY_MAX_SEEKS; i++) {
		fk_send(&a, "seek ttt");
		fk_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	}
	fk_send(&a, "seek ttt");
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"TOO_MANY_SEEKS\"}");
	fk_skip(&b);
	fk_send(&a, "unseek %d", id + 1);
	fk_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"unseek\"}");
	fk_expectf(&b, "{\"type\":\"seek\",\"event\":\"gone\",\"id\":%d}", id + 1);
	/* accepted: the game starts with alice second as she asked */
	fk_send(&b, "accept %d", id);
	fk_expect0(&b, "{\"type\":\"ok\",\"cmd\":\"accept\"}");
	fk_expect0(&b, "{\"type\":\"seek\",\"event\":\"gone\"}");
	fk_expect0(&b, "{\"type\":\"game_start\",\"seat\":0,\"players\":[\"bob\",\"alice\"],"
	               "\"time\":{\"base_ms\":60000,\"inc_ms\":2000}}");
	fk_expect0(&a, "{\"type\":\"game_start\",\"seat\":1}");
	/* alice goes: her seeks go with her, told to the others */
	fk_skip(&b);
	fk_hangup(&a);
	int gone = 0;
	const char *l;
	while ((l = fk_line(&b)) != NULL)
		gone += ts_match("{\"type\":\"seek\",\"event\":\"gone\"}", l);
	ck_assert_int_eq(gone, LOBBY_MAX_SEEKS - 2);
	fk_send(&b, "seeks");
	fk_expect0(&b, "{\"type\":\"ok\",\"cmd\":\"seeks\",\"seeks\":[]}");
	fk_stop_with(&fs, &a, &b, &n, NULL);
}
END_TEST

/* ---- accounts ------------------------------------------------------------------------ */

START_TEST(test_accounts)
{
	struct fk_cli a, a2, g;
	start(true);
	fk_connect(&fs, &a);
	fk_skip(&a);
	fk_send(&a, "set format json");
	fk_skip(&a);
	/* the hash is made on a worker: the next command waits for it, in order */
	fk_send(&a, "register alice secret1");
	fk_send(&a, "#after ping");
	fk_await(&a);
	fk_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"register\",\"name\":\"alice\",\"guest\":false}");
	fk_run(&fs);
	fk_expect0(&a, "{\"type\":\"pong\",\"id\":\"after\"}");
	fk_connect(&fs, &g);
	fk_skip(&g);
	fk_send(&g, "login alice"); /* the store is read on a reader thread */
	fk_await(&g);
	/* in text, the name of an account asks for its password on the next line */
	fk_expect0(&g, "alice is a registered account; type its password on the next line:");
	fk_send(&g, "  wrong-password ");
	fk_await(&g);
	fk_expect0(&g, "error BAD_LOGIN: wrong name or password");
	fk_send(&g, "login alice wrong-password"); /* the one-line form, as before */
	fk_await(&g);
	fk_expect0(&g, "error BAD_LOGIN: wrong name or password");
	/* in JSON, the name of an account is refused: a program gives the password */
	fk_send(&g, "set format json");
	fk_skip(&g);
	fk_send(&g, "login alice");
	fk_await(&g);
	fk_expect0(&g, "{\"type\":\"error\",\"code\":\"NAME_REGISTERED\",\"cmd\":\"login\","
	               "\"message\":\"alice is a registered account: login alice <password>\"}");
	fk_send(&g, "set format text");
	fk_skip(&g);
	/* a second login of the account takes over: the first connection is told and closed */
	fk_connect(&fs, &a2);
	fk_skip(&a2);
	fk_send(&a2, "login alice secret1");
	fk_await(&a2);
	fk_expect0(&a2, "ok logged in as alice");
	fk_until0(&a, "{\"type\":\"info\",\"event\":\"session_taken\",\"code\":\"SESSION_TAKEN\"}");
	fk_run(&fs);
	ck_assert_ptr_null(a.c);
	fk_send(&g, "finger alice");
	fk_await(&g);
	fk_expect0(&g, "ok alice: registered, online, 0 ratings, 0 recent games");
	fk_send(&g, "record 1");
	fk_await(&g);
	fk_expect0(&g, "error NO_SUCH_GAME: there is no game 1");
	fk_stop_with(&fs, &a, &a2, &g, NULL);
}
END_TEST

static Suite *lobby_suite(void)
{
	Suite *s = suite_create("lobby");
	TCase *tc = tcase_create("lobby");
	tcase_add_test(tc, test_lines);
	tcase_add_test(tc, test_presence);
	tcase_add_test(tc, test_seeks);
	tcase_add_test(tc, test_accounts);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(lobby_suite());
}
