/*
 * check_verbs.c - the text a person types and reads, without sockets
 * (tests/lib/fakeconn.h): names over the limit are BAD_NAME wherever a name is
 * asked for; chat refuses C1 controls, bidirectional overrides and line
 * separators; an echoed word is never cut inside a character; Xmas Rush: an
 * action of the wrong kind for the turn is WRONG_PHASE, a MOVE cut short by a
 * wall says so, a result gives each seat's score by name.
 */
#include <check.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeconn.h"
#include "check_main.h"
#include "server/util/text.h"

static struct fk_server fs;

/* Does got hold json (a JSON pattern, match.h)? */
static bool holds(const cJSON *got, const char *json)
{
	cJSON *pat = cJSON_Parse(json);
	ck_assert_ptr_nonnull(pat);
	bool ok = ts_json_match(pat, got);
	cJSON_Delete(pat);
	return ok;
}

static void start(bool store)
{
	struct server_config cfg = {.grace_ms = 60000};
	fk_start(&fs, &cfg, store);
}

/* A text-mode client logged in as name. */
static void join_text(struct fk_cli *f, const char *name)
{
	fk_connect(&fs, f);
	fk_expect0(f, "bitarenad * ready*");
	fk_send(f, "login %s", name);
	fk_await(f); /* with a store, a reader thread says the name is no account's */
	fk_expectf(f, "ok logged in as %s (guest); token *", name);
}

/* ---- text ---------------------------------------------------------------------------- */

START_TEST(test_long_names_are_bad_names)
{
	struct fk_cli a;
	start(true);
	join_text(&a, "alice");
	const char *name = "aliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"; /* 50 */
	static const char *const verbs[] = {"finger", "history"};
	for (size_t i = 0; i < sizeof verbs / sizeof *verbs; i++) {
		fk_send(&a, "%s %s", verbs[i], name);
		fk_expect0(&a, "error BAD_NAME: names are *");
	}
	struct fk_cli b;
	fk_connect(&fs, &b);
	fk_skip(&b);
	fk_send(&b, "login %s secret9", name);
	fk_expect0(&b, "error BAD_NAME: *");
	fk_send(&b, "login %s", name);
	fk_expect0(&b, "error BAD_NAME: *");
	fk_send(&b, "finger a-b");
	fk_await(&b); /* read on a reader thread */
	fk_expect0(&b, "error NO_SUCH_USER: *"); /* a valid guest name nobody has */
	fk_stop_with(&fs, &a, &b, NULL);
}
END_TEST

START_TEST(test_chat_refuses_what_misleads)
{
	struct fk_cli a, b;
	start(false);
	fk_join(&fs, &a, "alice");
	fk_join(&fs, &b, "bob");
	int id = fk_start_game(&a, &b, "ttt");
	static const char *const bad[] = {
	        "gg \xe2\x80\xae!exe.txt", /* RIGHT-TO-LEFT OVERRIDE */
	        "\xe2\x81\xa7hidden",      /* RIGHT-TO-LEFT ISOLATE */
	        "one\xe2\x80\xa8two",      /* LINE SEPARATOR */
	        "one\xe2\x80\xa9two",      /* PARAGRAPH SEPARATOR */
	        "\xc2\x9b[2J",             /* C1 CSI */
	        "\xc2\x85next",            /* C1 NEL */
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		fk_send(&a, "say %d %s", id, bad[i]);
		cJSON *e = fk_expect(&a, "{\"type\":\"error\",\"code\":\"BAD_INPUT\"}");
		ck_assert_ptr_nonnull(strstr(ts_jstr(e, "message"), "it was ignored"));
		cJSON_Delete(e);
		fk_nothing(&b); /* nobody was told */
	}
	/* plain marks and any script pass */
	fk_send(&a, "say %d \xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d\xe2\x80\x8f gg", id);
	fk_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"say\"}");
	fk_expect0(&b, "{\"type\":\"chat\"}");
	fk_stop_with(&fs, &a, &b, NULL);
}
END_TEST

START_TEST(test_echo_stays_utf8)
{
	struct fk_cli a;
	start(false);
	fk_connect(&fs, &a);
	fk_skip(&a);
	/* 23 bytes of "x" then U+20AC: the verb's copy ends inside the euro sign */
	fk_send(&a, "xxxxxxxxxxxxxxxxxxxxxxx\xe2\x82\xac");
	const char *l = fk_line(&a);
	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(text_check(l, strlen(l), NULL), TEXT_OK);
	fk_send(&a, "help xxxxxxxxxxxxxxxxxxxxxxx\xe2\x82\xac");
	l = fk_line(&a);
	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(text_check(l, strlen(l), NULL), TEXT_OK);
	fk_send(&a, "login alice");
	fk_skip(&a);
	fk_send(&a, "seek ttt xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\xe2\x82\xac");
	l = fk_line(&a);
	ck_assert_ptr_nonnull(l);
	ck_assert(fnmatch("error BAD_OPTION: *", l, 0) == 0);
	ck_assert_int_eq(text_check(l, strlen(l), NULL), TEXT_OK);
	fk_stop_with(&fs, &a, NULL);
}
END_TEST

/* ---- Xmas Rush ------------------------------------------------------------------------ */

START_TEST(test_xmas_phase_wall_and_scores)
{
	struct fk_cli a, b, w;
	start(false);
	join_text(&a, "alice");
	fk_join(&fs, &b, "bob");
	fk_send(&a, "seek xmas seed=7 color=first turn_ms=60000");
	fk_until0(&b, "{\"type\":\"seek\",\"event\":\"new\"}");
	fk_send(&b, "accept 1");
	fk_until0(&b, "{\"type\":\"state\",\"ply\":0}");
	fk_skip(&a);
	fk_join(&fs, &w, "carol");
	fk_send(&w, "watch 1");
	fk_skip(&w);
	/* a PUSH turn: a MOVE or a PASS is the wrong kind, not someone else's turn */
	fk_send(&a, "move 1 MOVE UP");
	fk_expect0(&a, "error WRONG_PHASE: this is a PUSH turn*");
	fk_send(&b, "move 1 PASS");
	fk_expect0(&b, "{\"type\":\"error\",\"code\":\"WRONG_PHASE\",\"cmd\":\"move\"}");
	fk_send(&a, "move 1 PUSH 3 LEFT");
	fk_expect0(&a, "ok action received *");
	fk_send(&b, "move 1 PUSH 3 RIGHT");
	fk_expect0(&b, "{\"type\":\"ok\",\"cmd\":\"move\",\"pending\":true}");
	fk_until0(&b, "{\"type\":\"state\",\"ply\":1}");
	fk_skip(&a);
	/* a MOVE turn: alice at (0,0) walks UP off the board at once: refused (the referee
	   would take it and stop her there; strict=1 does: 28-xmas-text.txt), told where */
	fk_send(&a, "move 1 PUSH 3 LEFT");
	fk_expect0(&a, "error WRONG_PHASE: this is a MOVE turn*");
	fk_send(&a, "move 1 MOVE UP UP");
	fk_expect0(&a, "error ILLEGAL_MOVE: the board's edge: step 1 goes UP from (0,0)*");
	fk_send(&a, "move 1 PASS");
	fk_expect0(&a, "ok action received *");
	fk_send(&b, "move 1 PASS");
	fk_expect0(&b, "{\"type\":\"ok\",\"cmd\":\"move\"}");
	fk_until0(&b, "{\"type\":\"state\",\"ply\":2}");
	/* a game the rules did not end has no scores to give */
	fk_send(&a, "move 1 PUSH 0 UP");
	fk_send(&b, "move 1 MOVE UP");
	fk_expect0(&b, "{\"type\":\"error\",\"code\":\"WRONG_PHASE\"}");
	fk_send(&b, "resign 1");
	cJSON *over = fk_until(&w, "{\"type\":\"game_over\"}");
	cJSON *r = cJSON_GetObjectItem(over, "result");
	ck_assert_ptr_null(cJSON_GetObjectItem(r, "scores")); /* a resignation: no scores */
	cJSON_Delete(over);
	fk_stop_with(&fs, &a, &b, &w, NULL);
}
END_TEST

START_TEST(test_xmas_scores_by_seat)
{
	struct fk_cli a, b;
	start(false);
	join_text(&a, "alice");
	fk_join(&fs, &b, "bob");
	fk_send(&a, "seek xmas color=first strict=1");
	fk_until0(&b, "{\"type\":\"seek\",\"event\":\"new\"}");
	fk_send(&b, "accept 1");
	fk_until0(&b, "{\"type\":\"state\",\"ply\":0}");
	fk_skip(&a);
	/* strict: alice's action of the wrong kind is fatal, bob's push is played */
	fk_send(&b, "move 1 PUSH 2 UP");
	fk_send(&a, "move 1 MOVE UP");
	fk_expect0(&a, "error WRONG_PHASE: *");
	cJSON *over = fk_until(&b, "{\"type\":\"game_over\"}");
	cJSON *r = cJSON_GetObjectItem(over, "result");
	ck_assert_str_eq(ts_jstr(r, "score"), "-1-0");
	ck_assert(holds(cJSON_GetObjectItem(r, "scores"), "[-1,0]"));
	cJSON_Delete(over);
	fk_until0(&a, /* put out: "out", never -1, for people */
	          "game 1 over: alice (player0) out, bob (player1) 0: bob wins (invalid_action)");
	fk_stop_with(&fs, &a, &b, NULL);
}
END_TEST

/* ---- the verbs: tell, refresh, logout, match and decline ------------------------------ */

START_TEST(test_tell)
{
	struct fk_cli a, b, c;
	start(false);
	fk_join(&fs, &a, "alice");
	join_text(&b, "bob");
	fk_connect(&fs, &c);
	fk_skip(&c);
	fk_send(&a, "tell bob good luck, have fun");
	fk_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"tell\",\"to\":\"bob\"}");
	fk_expect0(&b, "alice tells you: good luck, have fun");
	fk_send(&b, "tell ALICE thanks");
	fk_expect0(&b, "ok told alice");
	fk_expect0(&a, "{\"type\":\"tell\",\"from\":\"bob\",\"text\":\"thanks\"}");
	fk_send(&a, "tell carol hello");
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"NO_SUCH_USER\",\"cmd\":\"tell\"}");
	fk_send(&a, "tell bob!! hello");
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"BAD_NAME\"}");
	fk_send(&a, "tell bob \xe2\x80\xae!evil");
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"BAD_INPUT\"}");
	fk_send(&a, "tell bob");
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"BAD_ARGS\"}");
	fk_send(&c, "tell bob psst");
	fk_expect0(&c, "error NOT_LOGGED_IN: *");
	fk_nothing(&b);
	fk_stop_with(&fs, &a, &b, &c, NULL);
}
END_TEST

START_TEST(test_refresh)
{
	struct fk_cli a, b, w, x;
	start(false);
	fk_join(&fs, &a, "alice");
	join_text(&b, "bob");
	fk_send(&a, "seek ttt time=5+0 color=first");
	fk_skip(&a);
	fk_send(&b, "accept 1");
	fk_skip(&b);
	fk_skip(&a);
	fk_send(&a, "move 1 b2");
	fk_skip(&a);
	fk_skip(&b);
	fk_wait(&fs, 30);
	/* the state again, as it stands: the same seq, the mover's clock run down since */
	fk_send(&a, "refresh 1");
	fk_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"refresh\",\"game\":1}");
	cJSON *st = fk_expect(&a, "{\"type\":\"state\",\"game\":1,\"seat\":0,\"seq\":2,\"ply\":1}");
	cJSON *clocks = cJSON_GetObjectItem(st, "clocks");
	ck_assert_int_gt(cJSON_GetArrayItem(clocks, 0)->valueint, 299000); /* X moved at once */
	ck_assert_int_le(cJSON_GetArrayItem(clocks, 1)->valueint, 300000 - 30);
	cJSON_Delete(st);
	fk_send(&b, "refresh 1");
	fk_expect0(&b, "ok game 1 as it stands");
	fk_expect0(&b, "game 1 ttt, ply 1: alice (X) vs bob (O)");
	fk_until0(&b, "last move: b2; to move: O (bob); clocks: X *:* O 4:5*");
	fk_expect0(&b, "your move: move 1 <move>");
	/* a spectator may, a stranger may not */
	fk_join(&fs, &w, "carol");
	fk_send(&w, "watch 1");
	fk_skip(&w);
	fk_send(&w, "refresh 1");
	fk_expect0(&w, "{\"type\":\"ok\",\"cmd\":\"refresh\"}");
	fk_expect0(&w, "{\"type\":\"state\",\"seat\":null,\"seq\":2}");
	fk_join(&fs, &x, "dave");
	fk_send(&x, "refresh 1");
	fk_expect0(&x, "{\"type\":\"error\",\"code\":\"NOT_YOUR_GAME\"}");
	fk_send(&x, "refresh 9");
	fk_expect0(&x, "{\"type\":\"error\",\"code\":\"NO_SUCH_GAME\"}");
	fk_stop_with(&fs, &a, &b, &w, &x, NULL);
}
END_TEST

START_TEST(test_logout)
{
	struct fk_cli a, b, w;
	start(false);
	fk_join(&fs, &a, "alice");
	fk_join(&fs, &b, "bob");
	int id = fk_start_game(&a, &b, "ttt");
	fk_send(&a, "seek mnk m=4 n=4 k=3");
	fk_skip(&a);
	fk_until0(&b, "{\"type\":\"seek\",\"event\":\"new\"}");
	fk_send(&a, "logout");
	fk_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"logout\",\"name\":\"alice\","
	               "\"grace_ms\":60000}");
	/* as if she had left: her seek goes, her seat waits */
	fk_expect0(&b, "{\"type\":\"seek\",\"event\":\"gone\"}");
	fk_expect0(&b, "{\"type\":\"info\",\"event\":\"gone\",\"player\":\"alice\"}");
	fk_send(&a, "seek ttt");
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"NOT_LOGGED_IN\"}");
	fk_send(&a, "logout");
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"NOT_LOGGED_IN\"}");
	fk_join(&fs, &w, "carol");
	fk_send(&w, "who");
	cJSON *who = fk_expect(&w, "{\"type\":\"ok\",\"cmd\":\"who\"}");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(who, "users")), 2);
	cJSON_Delete(who);
	/* the same connection logs in again: the seat comes back */
	fk_send(&a, "login alice");
	cJSON *ok = fk_expect(&a, "{\"type\":\"ok\",\"cmd\":\"login\",\"name\":\"alice\"}");
	ck_assert_int_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(ok, "resumed"), 0)->valueint, id);
	cJSON_Delete(ok);
	fk_expect0(&b, "{\"type\":\"info\",\"event\":\"back\",\"player\":\"alice\"}");
	fk_stop_with(&fs, &a, &b, &w, NULL);
}
END_TEST

START_TEST(test_match)
{
	struct fk_cli a, b, c;
	start(false);
	fk_join(&fs, &a, "alice");
	fk_join(&fs, &b, "bob");
	join_text(&c, "carol");
	fk_send(&a, "match bob tak size=5 color=first");
	cJSON *ok = fk_expect(&a, "{\"type\":\"ok\",\"cmd\":\"match\"}");
	cJSON *k = cJSON_GetObjectItem(ok, "seek");
	ck_assert(holds(k, "{\"id\":1,\"by\":\"alice\",\"to\":\"bob\",\"kind\":\"tak\"}"));
	cJSON_Delete(ok);
	fk_expect0(&b, "{\"type\":\"match\",\"event\":\"new\",\"seek\":{\"id\":1,\"by\":"
	               "\"alice\",\"to\":\"bob\",\"options\":{\"size\":5}}}");
	fk_nothing(&c); /* nobody else hears of it, sees it, or may take it */
	fk_send(&c, "seeks");
	fk_expect0(&c, "ok 0 open seeks");
	fk_send(&c, "accept 1");
	fk_expect0(&c, "error NO_SUCH_SEEK: there is no seek 1");
	fk_send(&c, "decline 1");
	fk_expect0(&c, "error NO_SUCH_SEEK: *");
	fk_send(&c, "unseek 1");
	fk_expect0(&c, "error NO_SUCH_SEEK: *");
	fk_send(&b, "seeks");
	cJSON *l = fk_expect(&b, "{\"type\":\"ok\",\"cmd\":\"seeks\"}");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(l, "seeks")), 1);
	cJSON_Delete(l);
	fk_send(&a, "decline 1"); /* the author withdraws, not declines */
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"NOT_YOUR_SEEK\"}");
	/* bob accepts: the game starts as from a seek, and nobody hears of a seek going */
	fk_send(&b, "accept 1");
	fk_expect0(&b, "{\"type\":\"ok\",\"cmd\":\"accept\",\"game\":1}");
	fk_expect0(&b, "{\"type\":\"game_start\",\"seat\":1}");
	fk_expect0(&a, "{\"type\":\"game_start\",\"seat\":0}");
	fk_nothing(&c);

	/* declined: the author is told */
	fk_send(&c, "match alice ttt");
	fk_expect0(&c, "ok match 2 by carol: ttt untimed, seeker plays random, to alice");
	fk_until0(&a, "{\"type\":\"match\",\"event\":\"new\",\"seek\":{\"id\":2}}");
	fk_send(&a, "decline 2");
	fk_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"decline\",\"seek\":2}");
	fk_expect0(&c, "match 2: alice declines");
	fk_send(&a, "accept 2");
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"NO_SUCH_SEEK\"}");

	/* withdrawn: the target is told */
	fk_send(&c, "match bob ttt");
	fk_skip(&c);
	fk_until0(&b, "{\"type\":\"match\",\"event\":\"new\",\"seek\":{\"id\":3}}");
	fk_send(&c, "unseek 3");
	fk_expect0(&c, "ok challenge 3 to bob withdrawn");
	fk_expect0(&b, "{\"type\":\"match\",\"event\":\"withdraw\",\"id\":3,\"by\":\"carol\"}");

	/* refused challenges */
	fk_send(&c, "match carol ttt");
	fk_expect0(&c, "error BAD_ARGS: *");
	fk_send(&c, "match nobody ttt");
	fk_expect0(&c, "error NO_SUCH_USER: nobody is not online");
	fk_send(&c, "match bob chess");
	fk_expect0(&c, "error UNKNOWN_GAME: *");
	fk_send(&c, "match bob ttt rated=1");
	fk_expect0(&c, "error RATED_NEEDS_ACCOUNT: *");
	fk_send(&c, "match bob");
	fk_expect0(&c, "error BAD_ARGS: usage: match <user> <kind> *");
	fk_nothing(&b);
	fk_stop_with(&fs, &a, &b, &c, NULL);
}
END_TEST

START_TEST(test_match_ends_when_a_side_leaves)
{
	struct fk_cli a, b, c;
	start(false);
	fk_join(&fs, &a, "alice");
	fk_join(&fs, &b, "bob");
	fk_join(&fs, &c, "carol");
	fk_send(&a, "match bob ttt");
	fk_skip(&a);
	fk_send(&c, "match alice mnk");
	fk_skip(&c);
	fk_skip(&a);
	fk_skip(&b);
	/* the target goes: the author is told; the author goes: the target is told */
	fk_hangup(&b);
	fk_expect0(&a, "{\"type\":\"match\",\"event\":\"gone\",\"id\":1,\"by\":\"bob\"}");
	fk_send(&a, "seeks");
	fk_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"seeks\",\"seeks\":[{\"id\":2}]}");
	fk_send(&c, "logout");
	fk_skip(&c);
	fk_expect0(&a, "{\"type\":\"match\",\"event\":\"gone\",\"id\":2,\"by\":\"carol\"}");
	fk_send(&a, "seeks");
	fk_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"seeks\",\"seeks\":[]}");
	fk_send(&a, "accept 2");
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"NO_SUCH_SEEK\"}");
	fk_stop_with(&fs, &a, &b, &c, NULL);
}
END_TEST

static Suite *verbs_suite(void)
{
	Suite *s = suite_create("verbs");
	TCase *tc = tcase_create("text");
	tcase_add_test(tc, test_long_names_are_bad_names);
	tcase_add_test(tc, test_chat_refuses_what_misleads);
	tcase_add_test(tc, test_echo_stays_utf8);
	tcase_add_test(tc, test_xmas_phase_wall_and_scores);
	tcase_add_test(tc, test_xmas_scores_by_seat);
	suite_add_tcase(s, tc);
	tc = tcase_create("verbs");
	tcase_add_test(tc, test_tell);
	tcase_add_test(tc, test_refresh);
	tcase_add_test(tc, test_logout);
	tcase_add_test(tc, test_match);
	tcase_add_test(tc, test_match_ends_when_a_side_leaves);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(verbs_suite());
}
