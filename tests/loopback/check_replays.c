/*
 * check_replays.c - what a replay costs the real bitarenad (issue 27): a replay pays for the
 * size of its game (each position it sends takes tokens from its connection's command
 * budget, and a stream faster than the budget waits), so a client asking replays of long
 * games again and again meets RATE_LIMITED and its streams are paced; what replays hold is
 * bounded per connection and in all (--replay-memory: past it a replay is refused with
 * REPLAY_LIMIT and a retry_after_ms, and what a finished replay held is given back). And
 * plies are counted once: an Xmas Rush game's journal holds an action per seat and turn, but
 * history, finger, record and replay count its turns, as its positions do.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "check_main.h"
#include "testserver.h"

#define LONG_PLIES 200 /* a long game: positions enough to outrun the budget's burst */
#define RATE       40  /* the test's budget: tokens a second, in bursts of 100 */

/* Milliseconds of the wall clock (to bound what a budget lets through, never to time). */
static double now_ms(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return tv.tv_sec * 1000.0 + tv.tv_usec / 1000.0;
}

/*
 * a and b play a Tak game of plies plies, each stone going back and forth (a game the rules
 * never end), then a resigns. Returns its id.
 */
static int long_game(struct ts_cli *a, struct ts_cli *b, int plies)
{
	static const char *const first[2] = {"a1", "e5"}, *const white[2] = {"e5-", "e4+"},
	                         *const black[2] = {"a1+", "a2-"};
	int id = ts_begin_game(a, b, "tak size=5");
	for (int k = 0; k < plies; k++) {
		const char *m = k < 2        ? first[k]
		                : k % 2 == 0 ? white[(k / 2 - 1) % 2]
		                             : black[(k / 2 - 1) % 2];
		cJSON_Delete(ts_play(k % 2 == 0 ? a : b, k % 2 == 0 ? b : a, id, m));
	}
	ts_send(a, "resign %d", id);
	cJSON_Delete(ts_untilf(a, "{\"type\":\"game_over\",\"game\":%d}", id));
	cJSON_Delete(ts_untilf(b, "{\"type\":\"game_over\",\"game\":%d}", id));
	return id;
}

START_TEST(test_replay_paid_by_size)
{
	/* a budget of RATE tokens a second, bursts of 100: a position costs 2 (PROTOCOL.md §13),
	 * so the stream takes the tokens a request needs (10) as fast as they come back, unless
	 * the server's loop stood still for a quarter of a second */
	static const char *const args[] = {"--cmd-rate", "40",      "--cmd-burst",
	                                   "100",        "--fsync", "batch=5"};
	struct ts_srv s;
	ts_up(&s, args, 6);
	struct ts_cli a, b, r;
	ts_join(&a, s.port, "alice");
	ts_join(&b, s.port, "bob");
	int short_id = long_game(&a, &b, 6);
	int long_id = long_game(&a, &b, LONG_PLIES);
	ts_join(&r, s.port, "rita");

	/* a short game replays at once, within the burst */
	ts_send(&r, "replay %d 0", short_id);
	ts_expect0(&r, "{\"type\":\"ok\",\"cmd\":\"replay\"}");
	for (int ply = 0; ply <= 6; ply++)
		cJSON_Delete(ts_expectf(&r,
		                        "{\"type\":\"replay\",\"game\":%d,\"ply\":%d,\"done\":%s}",
		                        short_id, ply, ply == 6 ? "true" : "false"));
	ts_msleep(3000); /* the bucket fills again */

	/* a long one: the burst's worth at once, then as the budget refills; meanwhile the
	 * client's other commands find its budget spent, and a second replay is refused */
	double t0 = now_ms();
	ts_send(&r, "#long replay %d 0", long_id);
	cJSON_Delete(ts_expect(&r, "{\"type\":\"ok\",\"cmd\":\"replay\",\"id\":\"long\"}"));
	int got = 0, limited = 0, again = 0;
	bool done = false;
	while (!done) {
		char *l = ts_line(&r);
		ck_assert_msg(l != NULL, "the replay stopped after %d positions", got);
		if (ts_match("{\"type\":\"replay\"}", l)) {
			got++;
			done = ts_match("{\"done\":true}", l);
			/* never more than the budget lets through: the burst, then the refill */
			double elapsed = now_ms() - t0;
			ck_assert_msg(got <= (100 + RATE * elapsed / 1000) / 2 + 2,
			              "%d positions in %.0f ms: more than the budget pays for", got,
			              elapsed);
			if (got == 60 && again == 0) { /* past the burst: ask for more */
				ts_send(&r, "#again replay %d 0", long_id);
				again = 1;
			}
		} else if (ts_match("{\"type\":\"error\",\"code\":\"RATE_LIMITED\",\"id\":"
		                    "\"again\"}",
		                    l)) {
			cJSON *e = cJSON_Parse(l);
			ck_assert_int_gt(ts_jint(e, "retry_after_ms"), 0);
			cJSON_Delete(e);
			limited++;
		} else {
			ck_assert_msg(ts_match("{\"type\":\"seek\"}", l) ||
			                      ts_match("{\"type\":\"presence\"}", l),
			              "unexpected: %s", l);
		}
		free(l);
	}
	ck_assert_int_eq(got, LONG_PLIES + 1);
	ck_assert_int_eq(limited, 1);
	/* the whole replay took at least what LONG_PLIES positions cost past the burst */
	ck_assert_double_ge(now_ms() - t0, (2.0 * LONG_PLIES - 100) / RATE * 1000 - 50);
	ts_close(&a);
	ts_close(&b);
	ts_close(&r);
	ts_down(&s);
}
END_TEST

START_TEST(test_replay_memory_bounded)
{
	/* replays hold a few KiB each (moves packed): 40 KiB in all lets a handful run */
	static const char *const args[] = {"--replay-memory", "40960", "--fsync", "batch=5"};
	struct ts_srv s;
	ts_up(&s, args, 4);
	struct ts_cli a, b;
	ts_join(&a, s.port, "alice");
	ts_join(&b, s.port, "bob");
	int id = long_game(&a, &b, LONG_PLIES);
	enum { N = 40 };
	static struct ts_cli c[N];
	int running = 0, refused = 0;
	for (int i = 0; i < N; i++) {
		ts_connect_json(&c[i], s.port);
		ts_send(&c[i], "replay %d 60000", id); /* a slow replay: it stays */
		cJSON *m = ts_expect(&c[i], "{\"cmd\":\"replay\"}");
		if (strcmp(ts_jstr(m, "type"), "ok") == 0) {
			running++;
			ck_assert_int_eq(refused, 0); /* refusals begin at the bound, and last */
			cJSON_Delete(ts_expect(&c[i], "{\"type\":\"replay\",\"ply\":0}"));
		} else {
			ck_assert_str_eq(ts_jstr(m, "code"), "REPLAY_LIMIT");
			ck_assert_int_eq(ts_jint(m, "retry_after_ms"), 1000);
			refused++;
		}
		cJSON_Delete(m);
	}
	/* a replay of this game holds more than 400 bytes and less than 8 KiB */
	ck_assert_int_ge(running, 40960 / 8192);
	ck_assert_int_le(running, 40960 / 400);
	ck_assert_int_eq(running + refused, N);
	ck_assert_int_gt(refused, 0);
	/* what a replay held is given back when it ends: its client goes, another may run */
	ts_close(&c[0]);
	ts_msleep(100);
	ts_send(&c[N - 1], "replay %d 60000", id);
	cJSON_Delete(ts_expect(&c[N - 1], "{\"type\":\"ok\",\"cmd\":\"replay\"}"));
	for (int i = 1; i < N; i++)
		ts_close(&c[i]);
	ts_close(&a);
	ts_close(&b);
	ts_down(&s);
}
END_TEST

/* The count history gives of user name's game id (JSON "plies"), and its text row's words. */
static int history_plies(struct ts_cli *c, const char *name, int id, char *row, size_t len)
{
	ts_send(c, "history %s", name);
	cJSON *ok = ts_until(c, "{\"type\":\"ok\",\"cmd\":\"history\"}");
	const cJSON *g;
	int plies = -1;
	cJSON_ArrayForEach(g, cJSON_GetObjectItem(ok, "games")) if (ts_jint(g, "id") == id) plies =
	        ts_jint(g, "plies");
	snprintf(row, len, "%s", ts_jstr(ok, "message"));
	cJSON_Delete(ok);
	ck_assert_int_ge(plies, 0);
	return plies;
}

START_TEST(test_plies_counted_once)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli a, b, t;
	ts_join(&a, s.port, "alice");
	ts_join(&b, s.port, "bob");
	int id = ts_begin_game(&a, &b, "xmas turn_ms=60000");
	static const char *const turns[3][2] = {
	        {"PUSH 1 RIGHT", "PUSH 2 LEFT"}, {"PASS", "PASS"}, {"PUSH 3 UP", "PUSH 4 DOWN"}};
	for (int k = 0; k < 3; k++) {
		ts_send(&a, "move %d %s", id, turns[k][0]);
		ts_send(&b, "move %d %s", id, turns[k][1]);
		cJSON_Delete(
		        ts_untilf(&a, "{\"type\":\"state\",\"game\":%d,\"ply\":%d}", id, k + 1));
		cJSON_Delete(
		        ts_untilf(&b, "{\"type\":\"state\",\"game\":%d,\"ply\":%d}", id, k + 1));
	}
	ts_send(&a, "resign %d", id);
	cJSON_Delete(ts_untilf(&a, "{\"type\":\"game_over\",\"game\":%d}", id));
	/* the positions said ply 3: so do history and finger, record and replay */
	char row[256];
	ck_assert_int_eq(history_plies(&a, "alice", id, row, sizeof row), 3);
	ts_send(&a, "finger bob");
	cJSON *f = ts_until(&a, "{\"type\":\"ok\",\"cmd\":\"finger\"}");
	ck_assert_int_eq(ts_jint(cJSON_GetArrayItem(cJSON_GetObjectItem(f, "games"), 0), "plies"),
	                 3);
	cJSON_Delete(f);
	ts_connect_json(&t, s.port);
	ts_send(&t, "set format text");
	ts_until0(&t, "ok format text");
	ts_send(&t, "history alice");
	ts_until0(&t, "ok 1 finished game of alice");
	cJSON_Delete(
	        ts_expectf(&t, "  %d xmas: alice vs bob, * (resign), 3 turns, unrated, *", id));
	ts_send(&t, "record %d", id);
	cJSON_Delete(ts_untilf(&t, "ok record of game %d (xmas, 3 turns)", id));
	ts_send(&t, "replay %d 0", id);
	cJSON_Delete(ts_untilf(&t, "ok replaying game %d: 3 turns, one every 0 ms", id));
	cJSON_Delete(ts_untilf(&t, "replay game %d, turn 3: *", id));
	cJSON_Delete(ts_untilf(&t, "replay game %d done: *", id));
	ts_send(&a, "replay %d 0", id);
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"replay\",\"plies\":3}");
	cJSON_Delete(ts_untilf(&a, "{\"type\":\"replay\",\"ply\":3,\"done\":true}"));
	/* a sequential game's plies are its moves, as before */
	int ttt = ts_begin_game(&a, &b, "ttt");
	cJSON_Delete(ts_play(&a, &b, ttt, "b2"));
	cJSON_Delete(ts_play(&b, &a, ttt, "a1"));
	ts_send(&a, "resign %d", ttt);
	cJSON_Delete(ts_untilf(&a, "{\"type\":\"game_over\",\"game\":%d}", ttt));
	ck_assert_int_eq(history_plies(&a, "alice", ttt, row, sizeof row), 2);
	ts_send(&t, "record %d", ttt);
	cJSON_Delete(ts_untilf(&t, "ok record of game %d (ttt, 2 plies)", ttt));
	ts_close(&a);
	ts_close(&b);
	ts_close(&t);
	ts_down(&s);
}
END_TEST

static Suite *replays_suite(void)
{
	Suite *s = suite_create("replays");
	TCase *tc = tcase_create("loopback");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_replay_paid_by_size);
	tcase_add_test(tc, test_replay_memory_bounded);
	tcase_add_test(tc, test_plies_counted_once);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(replays_suite());
}
