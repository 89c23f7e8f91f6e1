/*
 * check_verbs.c - the text a person types and reads, without sockets
 * (tests/fakeconn.h): names over the limit are BAD_NAME wherever a name is
 * asked for; chat refuses C1 controls, bidirectional overrides and line
 * separators; an echoed word is never cut inside a character; Xmas Rush: an
 * action of the wrong kind for the turn is WRONG_PHASE, a MOVE cut short by a
 * wall says so, a result gives each seat's score by name.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeconn.h"
#include "check_main.h"
#include "server/text.h"

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

static void stop(struct fk_cli *f, ...)
{
	fk_stop(&fs);
	va_list ap;
	va_start(ap, f);
	for (; f != NULL; f = va_arg(ap, struct fk_cli *))
		fk_free(f);
	va_end(ap);
}

/* A text-mode client logged in as name. */
static void join_text(struct fk_cli *f, const char *name)
{
	fk_connect(&fs, f);
	fk_expect0(f, "bitarenad * ready*");
	fk_send(f, "login %s", name);
	fk_expectf(f, "ok logged in as %s (guest)", name);
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
	fk_expect0(&b, "error NO_SUCH_USER: *"); /* a valid guest name nobody has */
	stop(&a, &b, NULL);
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
	stop(&a, &b, NULL);
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
	stop(&a, NULL);
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
	/* a MOVE turn: alice at (0,0) walks UP off the board at once: told, and told why */
	fk_send(&a, "move 1 PUSH 3 LEFT");
	fk_expect0(&a, "error WRONG_PHASE: this is a MOVE turn*");
	fk_send(&a, "move 1 MOVE UP UP");
	fk_expect0(&a, "ok action received *");
	fk_send(&b, "move 1 PASS");
	fk_expect0(&b, "{\"type\":\"ok\",\"cmd\":\"move\"}");
	cJSON *st = fk_expect(&b, "{\"type\":\"state\",\"ply\":2}");
	cJSON *walk = cJSON_GetObjectItem(
	        cJSON_GetArrayItem(
	                cJSON_GetObjectItem(cJSON_GetObjectItem(st, "position"), "players"), 0),
	        "walk");
	ck_assert(holds(walk, "{\"steps\":2,\"done\":0,\"wall\":true}"));
	cJSON_Delete(st);
	fk_until0(&a, "    MOVE stopped by a wall after 0 of 2 steps");
	/* a game the rules did not end has no scores to give */
	fk_send(&a, "move 1 PUSH 0 UP");
	fk_send(&b, "move 1 MOVE UP");
	fk_expect0(&b, "{\"type\":\"error\",\"code\":\"WRONG_PHASE\"}");
	fk_send(&b, "resign 1");
	cJSON *over = fk_until(&w, "{\"type\":\"game_over\"}");
	cJSON *r = cJSON_GetObjectItem(over, "result");
	ck_assert_ptr_null(cJSON_GetObjectItem(r, "scores")); /* a resignation: no scores */
	cJSON_Delete(over);
	stop(&a, &b, &w, NULL);
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
	fk_until0(&a,
	          "game 1 over: alice (player0) -1, bob (player1) 0: bob wins (invalid_action)");
	stop(&a, &b, NULL);
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
	return s;
}

int main(void)
{
	return check_run(verbs_suite());
}
