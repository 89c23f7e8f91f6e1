/*
 * check_offers.c - offers, clocks, reconnection and round-trip times over
 * the real server: starts bitarenad ($BITARENAD) on a free port of 127.0.0.1
 * (--port-file tells which) and drives it with sockets in JSON mode. Draw
 * offer/decline/accept/lapse, takebacks (position and clocks restored,
 * spectators told), abort before the second ply and not after, rematch with
 * seats swapped, the flag with an increment, coming back within the grace
 * (the clock ran meanwhile), abandonment after it, a flag falling while the
 * player is away, and the server's ping/pong round-trip time in who and in
 * the states. The lag allowance is checked as a function.
 *
 * Each server gets a fresh data directory (--data), removed after. The
 * server and socket helpers are tests/lib/testserver.h's. Waiting for a line is
 * bounded (TS_LINE_WAIT_MS); nothing asserts how fast anything happens.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "server/msg/rtt.h"
#include "testserver.h"
#include "tmpdir.h"
#include "check_main.h"

/* ---- the server and its clients (testserver.h) ------------------------------------------ */

/* clocks[seat] of a state or game_over. */
static int clock_of(const cJSON *j, int seat)
{
	const cJSON *a = cJSON_GetObjectItem(j, "clocks");
	ck_assert_msg(cJSON_IsArray(a), "no clocks");
	return cJSON_GetArrayItem(a, seat)->valueint;
}

/* who plays move in game id: the ok, then the state at seq to both (and w, if not NULL). */
static cJSON *play(struct ts_cli *who, struct ts_cli *other, struct ts_cli *w, int id,
                   const char *move, int seq)
{
	ts_send(who, "move %d %s", id, move);
	cJSON_Delete(ts_expectf(who, "{\"type\":\"ok\",\"cmd\":\"move\",\"move\":\"%s\"}", move));
	cJSON *st =
	        ts_expectf(who, "{\"type\":\"state\",\"seq\":%d,\"last_move\":\"%s\"}", seq, move);
	cJSON_Delete(ts_expectf(other, "{\"type\":\"state\",\"seq\":%d}", seq));
	if (w != NULL)
		cJSON_Delete(ts_expectf(w, "{\"type\":\"state\",\"seq\":%d}", seq));
	return st;
}

static void play0(struct ts_cli *who, struct ts_cli *other, struct ts_cli *w, int id,
                  const char *move, int seq)
{
	cJSON_Delete(play(who, other, w, id, move, seq));
}

/* The same announcement to every client of the NULL-terminated list. */
static void all_see(const char *pattern, ...)
{
	va_list ap;
	va_start(ap, pattern);
	struct ts_cli *c;
	while ((c = va_arg(ap, struct ts_cli *)) != NULL)
		ts_expect0(c, pattern);
	va_end(ap);
}

/*
 * A server with alice and bob playing kind_opts (start_game) and wendy watching
 * from the first state. Returns the game id.
 */
static int watched_game(struct ts_srv *s, struct ts_cli *a, struct ts_cli *b, struct ts_cli *w,
                        const char *kind_opts, cJSON **first)
{
	ts_up_list(s, NULL);
	ts_join(a, s->port, "alice");
	ts_join(b, s->port, "bob");
	ts_join(w, s->port, "wendy");
	int id = ts_start_game(a, b, kind_opts, first);
	ts_until0(w, "{\"type\":\"seek\",\"event\":\"gone\"}");
	ts_send(w, "watch %d", id);
	ts_expect0(w, "{\"type\":\"ok\",\"cmd\":\"watch\"}");
	ts_expect0(w, "{\"type\":\"state\",\"seq\":1}");
	return id;
}

/* ---- draw ------------------------------------------------------------------------------ */

START_TEST(test_draw)
{
	struct ts_srv s;
	struct ts_cli a, b, w;
	int id = watched_game(&s, &a, &b, &w, "ttt", NULL);

	/* nothing to answer yet; a spectator cannot offer */
	ts_send(&b, "draw %d accept", id);
	ts_expect0(&b, "{\"type\":\"error\",\"code\":\"NO_OFFER\",\"cmd\":\"draw\"}");
	ts_send(&b, "draw %d decline", id);
	ts_expect0(&b, "{\"type\":\"error\",\"code\":\"NO_OFFER\"}");
	ts_send(&w, "draw %d", id);
	ts_expect0(&w, "{\"type\":\"error\",\"code\":\"NOT_YOUR_GAME\"}");
	ts_send(&a, "draw %d maybe", id);
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"BAD_ARGS\"}");

	/* offer, declined */
	ts_send(&a, "draw %d offer", id);
	ts_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"draw\"}");
	const char *offer = "{\"type\":\"offer\",\"what\":\"draw\",\"event\":\"offer\","
	                    "\"by\":\"alice\",\"seat\":0}";
	all_see(offer, &a, &b, &w, NULL);
	ts_send(&a, "draw %d accept", id); /* one's own offer cannot be accepted */
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"NO_OFFER\"}");
	ts_send(&b, "draw %d decline", id);
	ts_expect0(&b, "{\"type\":\"ok\",\"cmd\":\"draw\"}");
	all_see("{\"type\":\"offer\",\"what\":\"draw\",\"event\":\"decline\",\"by\":\"bob\"}", &a,
	        &b, &w, NULL);
	ts_send(&b, "draw %d accept", id);
	ts_expect0(&b, "{\"type\":\"error\",\"code\":\"NO_OFFER\"}");

	/* an offer lapses when its author moves */
	ts_send(&a, "draw %d", id);
	ts_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"draw\"}");
	all_see(offer, &a, &b, &w, NULL);
	ts_send(&a, "move %d b2", id);
	ts_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"move\"}");
	const char *lapse = "{\"type\":\"offer\",\"what\":\"draw\",\"event\":\"lapse\","
	                    "\"by\":\"alice\"}";
	ts_expect0(&a, lapse);
	ts_expect0(&a, "{\"type\":\"state\",\"seq\":2}");
	ts_expect0(&b, lapse);
	ts_expect0(&b, "{\"type\":\"state\",\"seq\":2}");
	ts_expect0(&w, lapse);
	ts_expect0(&w, "{\"type\":\"state\",\"seq\":2}");
	ts_send(&b, "draw %d accept", id);
	ts_expect0(&b, "{\"type\":\"error\",\"code\":\"NO_OFFER\"}");

	/* withdrawn */
	ts_send(&b, "draw %d offer", id);
	ts_expect0(&b, "{\"type\":\"ok\"}");
	all_see("{\"type\":\"offer\",\"event\":\"offer\",\"by\":\"bob\"}", &a, &b, &w, NULL);
	ts_send(&b, "draw %d withdraw", id);
	ts_expect0(&b, "{\"type\":\"ok\"}");
	all_see("{\"type\":\"offer\",\"event\":\"withdraw\",\"by\":\"bob\"}", &a, &b, &w, NULL);
	ts_send(&b, "draw %d withdraw", id);
	ts_expect0(&b, "{\"type\":\"error\",\"code\":\"NO_OFFER\"}");

	/* the opponent's offer stands through one's own move; two offers make a draw */
	ts_send(&b, "draw %d", id);
	ts_expect0(&b, "{\"type\":\"ok\"}");
	all_see("{\"type\":\"offer\",\"event\":\"offer\",\"by\":\"bob\"}", &a, &b, &w, NULL);
	ts_send(&a, "draw %d offer", id);
	ts_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"draw\"}");
	const char *over = "{\"type\":\"game_over\",\"result\":{\"winner\":null,\"score\":"
	                   "\"1/2-1/2\",\"reason\":\"agreement\"}}";
	all_see("{\"type\":\"offer\",\"event\":\"accept\",\"by\":\"alice\"}", &a, &b, &w, NULL);
	all_see(over, &a, &b, &w, NULL);
	ts_send(&a, "draw %d", id);
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"GAME_OVER\"}");

	/* a second game: accept by word */
	id = ts_start_game(&a, &b, "ttt", NULL);
	ts_send(&b, "draw %d", id);
	ts_expect0(&b, "{\"type\":\"ok\"}");
	all_see("{\"type\":\"offer\",\"event\":\"offer\",\"by\":\"bob\"}", &a, &b, NULL);
	ts_send(&a, "draw %d accept", id);
	ts_expect0(&a, "{\"type\":\"ok\"}");
	all_see("{\"type\":\"offer\",\"event\":\"accept\",\"by\":\"alice\"}", &a, &b, NULL);
	all_see(over, &a, &b, NULL);
	ts_close(&a);
	ts_close(&b);
	ts_close(&w);
	ts_down(&s);
}
END_TEST

/* ---- undo ------------------------------------------------------------------------------ */

START_TEST(test_undo)
{
	struct ts_srv s;
	struct ts_cli a, b, w;
	cJSON *first = NULL;
	int id = watched_game(&s, &a, &b, &w, "ttt time=5+3", &first);

	ts_send(&a, "undo %d", id);
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"NOT_NOW\",\"cmd\":\"undo\"}");
	cJSON *after_b2 = play(&a, &b, &w, id, "b2", 2);
	int x_after_b2 = clock_of(after_b2, 0);
	ck_assert_int_gt(x_after_b2, 300000); /* the increment */
	/* bob has no move of his own to take back yet */
	ts_send(&b, "undo %d", id);
	ts_expect0(&b, "{\"type\":\"error\",\"code\":\"NOT_NOW\"}");
	play0(&b, &a, &w, id, "a1", 3);

	/* bob asks while alice is to move: his last ply only */
	ts_send(&b, "undo %d", id);
	ts_expect0(&b, "{\"type\":\"ok\",\"cmd\":\"undo\",\"plies\":1}");
	all_see("{\"type\":\"offer\",\"what\":\"undo\",\"event\":\"offer\",\"by\":\"bob\","
	        "\"plies\":1}",
	        &a, &b, &w, NULL);
	/* asking again: it stands; one cannot accept one's own request */
	ts_send(&b, "undo %d", id);
	ts_expect0(&b, "{\"type\":\"ok\",\"cmd\":\"undo\"}");
	ts_send(&b, "undo %d accept", id);
	ts_expect0(&b, "{\"type\":\"error\",\"code\":\"NO_OFFER\"}");
	ts_send(&a, "undo %d", id);
	ts_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"undo\",\"plies\":1}");
	all_see("{\"type\":\"offer\",\"what\":\"undo\",\"event\":\"accept\",\"by\":\"alice\"}", &a,
	        &b, &w, NULL);
	cJSON *sa = ts_expect(&a, "{\"type\":\"state\",\"seq\":4,\"ply\":1,\"last_move\":\"b2\","
	                          "\"to_move\":[1]}");
	cJSON *sb = ts_expect(&b, "{\"type\":\"state\",\"seq\":4,\"ply\":1,\"to_move\":[1]}");
	cJSON *sw = ts_expect(&w, "{\"type\":\"state\",\"seq\":4,\"ply\":1,\"seat\":null}");
	/* the position and the waiting clock are those after b2 */
	ck_assert(cJSON_Compare(cJSON_GetObjectItem(sw, "position"),
	                        cJSON_GetObjectItem(after_b2, "position"), true));
	ck_assert_int_eq(clock_of(sw, 0), x_after_b2);
	ck_assert_int_eq(clock_of(sa, 0), x_after_b2);
	ck_assert_int_le(clock_of(sb, 1), 300000);
	ck_assert(cJSON_IsArray(cJSON_GetObjectItem(sb, "legal")));
	cJSON_Delete(sa);
	cJSON_Delete(sb);
	cJSON_Delete(sw);

	/* bob plays again; alice asks on her move: two plies, back to the start */
	play0(&b, &a, &w, id, "c3", 5);
	ts_send(&a, "undo %d", id);
	ts_expect0(&a, "{\"type\":\"ok\",\"plies\":2}");
	all_see("{\"type\":\"offer\",\"what\":\"undo\",\"event\":\"offer\",\"plies\":2}", &a, &b,
	        &w, NULL);
	/* declined, then asked again and lapsed by a move */
	ts_send(&b, "undo %d decline", id);
	ts_expect0(&b, "{\"type\":\"ok\"}");
	all_see("{\"type\":\"offer\",\"what\":\"undo\",\"event\":\"decline\",\"by\":\"bob\"}", &a,
	        &b, &w, NULL);
	ts_send(&b, "undo %d decline", id);
	ts_expect0(&b, "{\"type\":\"error\",\"code\":\"NO_OFFER\"}");
	ts_send(&a, "undo %d", id);
	ts_expect0(&a, "{\"type\":\"ok\",\"plies\":2}");
	all_see("{\"type\":\"offer\",\"what\":\"undo\",\"event\":\"offer\"}", &a, &b, &w, NULL);
	ts_send(&a, "undo %d withdraw", id);
	ts_expect0(&a, "{\"type\":\"ok\"}");
	all_see("{\"type\":\"offer\",\"what\":\"undo\",\"event\":\"withdraw\"}", &a, &b, &w, NULL);
	ts_send(&a, "undo %d", id);
	ts_expect0(&a, "{\"type\":\"ok\",\"plies\":2}");
	all_see("{\"type\":\"offer\",\"what\":\"undo\",\"event\":\"offer\"}", &a, &b, &w, NULL);
	ts_send(&b, "undo %d", id);
	ts_expect0(&b, "{\"type\":\"ok\",\"plies\":2}");
	all_see("{\"type\":\"offer\",\"what\":\"undo\",\"event\":\"accept\",\"plies\":2}", &a, &b,
	        &w, NULL);
	cJSON *s0 = ts_expect(&w, "{\"type\":\"state\",\"seq\":6,\"ply\":0,\"last_move\":null,"
	                          "\"to_move\":[0]}");
	ck_assert(cJSON_Compare(cJSON_GetObjectItem(s0, "position"),
	                        cJSON_GetObjectItem(first, "position"), true));
	ck_assert_int_eq(clock_of(s0, 1), 300000);
	cJSON_Delete(s0);
	ts_expect0(&a, "{\"type\":\"state\",\"seq\":6,\"ply\":0}");
	ts_expect0(&b, "{\"type\":\"state\",\"seq\":6,\"ply\":0}");

	/* the game goes on from there; a request lapses at the next move */
	play0(&a, &b, &w, id, "a3", 7);
	ts_send(&a, "undo %d", id);
	ts_expect0(&a, "{\"type\":\"ok\",\"plies\":1}");
	all_see("{\"type\":\"offer\",\"what\":\"undo\",\"event\":\"offer\"}", &a, &b, &w, NULL);
	ts_send(&b, "move %d b2", id);
	ts_expect0(&b, "{\"type\":\"ok\"}");
	const char *lapse = "{\"type\":\"offer\",\"what\":\"undo\",\"event\":\"lapse\"}";
	ts_expect0(&b, lapse);
	ts_expect0(&b, "{\"type\":\"state\",\"seq\":8,\"ply\":2}");
	ts_expect0(&a, lapse);
	ts_expect0(&a, "{\"type\":\"state\",\"seq\":8}");
	ts_expect0(&w, lapse);
	ts_expect0(&w, "{\"type\":\"state\",\"seq\":8}");
	ts_send(&b, "undo %d", id);
	ts_expect0(&b, "{\"type\":\"ok\",\"plies\":1}");
	all_see("{\"type\":\"offer\",\"what\":\"undo\",\"event\":\"offer\"}", &a, &b, &w, NULL);
	ts_send(&w, "undo %d", id);
	ts_expect0(&w, "{\"type\":\"error\",\"code\":\"NOT_YOUR_GAME\"}");
	ts_send(&a, "resign %d", id);
	ts_expect0(&a, "{\"type\":\"ok\"}");
	ts_until0(&a, "{\"type\":\"game_over\"}");
	ts_send(&a, "undo %d", id);
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"GAME_OVER\"}");
	cJSON_Delete(after_b2);
	cJSON_Delete(first);
	ts_close(&a);
	ts_close(&b);
	ts_close(&w);
	ts_down(&s);
}
END_TEST

/* ---- abort ----------------------------------------------------------------------------- */

START_TEST(test_abort)
{
	struct ts_srv s;
	struct ts_cli a, b, c;
	ts_up_list(&s, NULL);
	ts_join(&a, s.port, "alice");
	ts_join(&b, s.port, "bob");
	ts_join(&c, s.port, "carol");
	const char *over = "{\"type\":\"game_over\",\"result\":{\"winner\":null,\"score\":\"*\","
	                   "\"reason\":\"aborted\"}}";
	/* before any move, by the second seat */
	int id = ts_start_game(&a, &b, "ttt", NULL);
	ts_send(&c, "abort %d", id);
	ts_until0(&c, "{\"type\":\"error\",\"code\":\"NOT_YOUR_GAME\"}");
	ts_send(&b, "abort %d", id);
	ts_expect0(&b, "{\"type\":\"ok\",\"cmd\":\"abort\"}");
	all_see("{\"type\":\"offer\",\"what\":\"abort\",\"event\":\"abort\",\"by\":\"bob\"}", &a,
	        &b, NULL);
	all_see(over, &a, &b, NULL);
	ts_send(&a, "abort %d", id);
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"GAME_OVER\"}");

	/* after one ply, by the side that moved */
	id = ts_start_game(&a, &b, "ttt", NULL);
	play0(&a, &b, NULL, id, "b2", 2);
	ts_send(&a, "abort %d", id);
	ts_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"abort\"}");
	all_see("{\"type\":\"offer\",\"what\":\"abort\",\"by\":\"alice\"}", &a, &b, NULL);
	all_see(over, &a, &b, NULL);

	/* not once both sides have moved */
	id = ts_start_game(&a, &b, "ttt", NULL);
	play0(&a, &b, NULL, id, "b2", 2);
	play0(&b, &a, NULL, id, "a1", 3);
	ts_send(&a, "abort %d", id);
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"NOT_NOW\",\"cmd\":\"abort\"}");
	ts_send(&b, "abort %d", id);
	ts_expect0(&b, "{\"type\":\"error\",\"code\":\"NOT_NOW\"}");
	ts_send(&a, "abort 999");
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"NO_SUCH_GAME\"}");
	ts_send(&a, "abort x");
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"BAD_ARGS\"}");
	ts_close(&a);
	ts_close(&b);
	ts_close(&c);
	ts_down(&s);
}
END_TEST

/* Simultaneous turns (Xmas Rush, when the table has it): no takeback; abort before a turn resolves.
 */
START_TEST(test_simultaneous_offers)
{
	struct ts_srv s;
	struct ts_cli a, b;
	ts_up_list(&s, NULL);
	ts_join(&a, s.port, "alice");
	ts_join(&b, s.port, "bob");
	ts_send(&a, "games");
	cJSON *g = ts_expect(&a, "{\"type\":\"ok\",\"cmd\":\"games\"}");
	bool has_xmas = false;
	const cJSON *it;
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(g, "games"))
	{
		has_xmas |= strcmp(cJSON_GetObjectItem(it, "name")->valuestring, "xmas") == 0;
	}
	cJSON_Delete(g);
	if (has_xmas) {
		int id = ts_start_game(&a, &b, "xmas seed=3 turn_ms=60000", NULL);
		ts_send(&a, "undo %d", id);
		ts_expect0(&a, "{\"type\":\"error\",\"code\":\"NOT_SUPPORTED\",\"cmd\":\"undo\"}");
		/* a draw offer lapses when the turn resolves (everybody acted) */
		ts_send(&b, "draw %d", id);
		ts_expect0(&b, "{\"type\":\"ok\",\"cmd\":\"draw\"}");
		all_see("{\"type\":\"offer\",\"what\":\"draw\",\"event\":\"offer\"}", &b, &a, NULL);
		ts_send(&a, "move %d PUSH 3 RIGHT", id);
		ts_expect0(&a, "{\"type\":\"ok\",\"pending\":true}");
		ts_send(&b, "move %d PUSH 2 UP", id);
		ts_expect0(&b, "{\"type\":\"ok\",\"pending\":true}");
		all_see("{\"type\":\"offer\",\"what\":\"draw\",\"event\":\"lapse\",\"by\":\"bob\"}",
		        &b, &a, NULL);
		all_see("{\"type\":\"state\",\"seq\":2,\"ply\":1}", &b, &a, NULL);
		ts_send(&a, "abort %d", id);
		ts_expect0(&a, "{\"type\":\"error\",\"code\":\"NOT_NOW\"}");
		id = ts_start_game(&a, &b, "xmas seed=4 turn_ms=60000", NULL);
		ts_send(&b, "abort %d", id);
		ts_expect0(&b, "{\"type\":\"ok\",\"cmd\":\"abort\"}");
		all_see("{\"type\":\"offer\",\"what\":\"abort\"}", &b, &a, NULL);
		all_see("{\"type\":\"game_over\",\"result\":{\"reason\":\"aborted\"}}", &b, &a,
		        NULL);
	}
	ts_close(&a);
	ts_close(&b);
	ts_down(&s);
}
END_TEST

/* ---- rematch --------------------------------------------------------------------------- */

START_TEST(test_rematch)
{
	struct ts_srv s;
	struct ts_cli a, b;
	ts_up_list(&s, NULL);
	ts_join(&a, s.port, "alice");
	ts_join(&b, s.port, "bob");
	int id = ts_start_game(&a, &b, "mnk m=4 n=4 k=3 time=2+1", NULL);
	ts_send(&a, "rematch %d", id);
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"NOT_NOW\",\"cmd\":\"rematch\"}");
	ts_send(&a, "resign %d", id);
	ts_expect0(&a, "{\"type\":\"ok\"}");
	all_see("{\"type\":\"game_over\",\"result\":{\"winner\":1,\"reason\":\"resign\"}}", &a, &b,
	        NULL);
	ts_send(&b, "rematch %d accept", id);
	ts_expect0(&b, "{\"type\":\"error\",\"code\":\"NO_OFFER\"}");

	/* offered, declined; offered again, accepted */
	ts_send(&a, "rematch %d", id);
	ts_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"rematch\"}");
	all_see("{\"type\":\"offer\",\"what\":\"rematch\",\"event\":\"offer\",\"by\":\"alice\"}",
	        &a, &b, NULL);
	ts_send(&b, "rematch %d decline", id);
	ts_expect0(&b, "{\"type\":\"ok\"}");
	all_see("{\"type\":\"offer\",\"what\":\"rematch\",\"event\":\"decline\"}", &a, &b, NULL);
	ts_send(&a, "rematch %d", id);
	ts_expect0(&a, "{\"type\":\"ok\"}");
	all_see("{\"type\":\"offer\",\"what\":\"rematch\",\"event\":\"offer\"}", &a, &b, NULL);
	ts_send(&b, "rematch %d", id);
	cJSON *ok = ts_expect(&b, "{\"type\":\"ok\",\"cmd\":\"rematch\"}");
	int nid = ts_jint(ok, "new_game");
	cJSON_Delete(ok);
	ck_assert_int_ne(nid, id);
	char pat[256];
	snprintf(pat, sizeof pat,
	         "{\"type\":\"offer\",\"what\":\"rematch\",\"event\":\"accept\",\"by\":\"bob\","
	         "\"new_game\":%d}",
	         nid);
	all_see(pat, &a, &b, NULL);
	/* seats swapped, same kind, options and time */
	snprintf(pat, sizeof pat,
	         "{\"type\":\"game_start\",\"game\":%d,\"kind\":\"mnk\",\"options\":{\"m\":4,"
	         "\"n\":4,\"k\":3},\"players\":[\"bob\",\"alice\"],\"time\":{\"base_ms\":120000,"
	         "\"inc_ms\":1000}}",
	         nid);
	ts_expect0(&b, pat);
	ts_expect0(&a, pat);
	cJSON_Delete(
	        ts_expectf(&b, "{\"type\":\"state\",\"game\":%d,\"seat\":0,\"to_move\":[0]}", nid));
	cJSON_Delete(ts_expectf(&a, "{\"type\":\"state\",\"game\":%d,\"seat\":1}", nid));
	ts_send(&a, "rematch %d", id);
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"NOT_NOW\"}");
	play0(&b, &a, NULL, nid, "a1", 2);

	/* a rematch needs the opponent here */
	ts_send(&b, "resign %d", nid);
	ts_expect0(&b, "{\"type\":\"ok\"}");
	all_see("{\"type\":\"game_over\"}", &b, &a, NULL);
	ts_send(&a, "quit");
	ts_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"quit\"}");
	ts_close(&a);
	ts_send(&b, "rematch %d", nid);
	ts_expect0(&b, "{\"type\":\"error\",\"code\":\"NOT_NOW\"}");
	ts_close(&b);
	ts_down(&s);
}
END_TEST

/* ---- clocks ------------------------------------------------------------------------------ */

START_TEST(test_flag_with_increment)
{
	struct ts_srv s;
	struct ts_cli a, b;
	ts_up_list(&s, NULL);
	ts_join(&a, s.port, "alice");
	ts_join(&b, s.port, "bob");
	int id = ts_start_game(&a, &b, "ttt time=0:01+1", NULL);
	/* each quick move adds a second: the clocks end above the 1 s base */
	cJSON *st = play(&a, &b, NULL, id, "b2", 2);
	int x = clock_of(st, 0);
	cJSON_Delete(st);
	st = play(&b, &a, NULL, id, "a1", 3);
	int o = clock_of(st, 1);
	cJSON_Delete(st);
	ck_assert_int_gt(x, 1000);
	ck_assert_int_le(x, 2000);
	ck_assert_int_gt(o, 1000);
	ck_assert_int_le(o, 2000);
	/* alice lets her flag fall: bob wins on time, the final clocks come with game_over */
	const char *over = "{\"type\":\"game_over\",\"result\":{\"winner\":1,\"winner_name\":"
	                   "\"bob\",\"score\":\"0-1\",\"reason\":\"timeout\"}}";
	cJSON *g = ts_expect(&a, over);
	ck_assert_int_eq(clock_of(g, 0), 0);
	ck_assert_int_eq(clock_of(g, 1), o); /* bob's clock stood still */
	cJSON_Delete(g);
	ts_expect0(&b, over);
	ts_send(&a, "move %d c3", id);
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"GAME_OVER\"}");
	ts_close(&a);
	ts_close(&b);
	ts_down(&s);
}
END_TEST

/* ---- reconnection ------------------------------------------------------------------------ */

/* b drops (no quit); a (and w) are told with the grace. */
static void drop(struct ts_cli *b, struct ts_cli *a, int grace_ms)
{
	ts_close(b);
	char pat[160];
	snprintf(pat, sizeof pat,
	         "{\"type\":\"info\",\"event\":\"gone\",\"player\":\"bob\",\"seat\":1,"
	         "\"grace_ms\":%d}",
	         grace_ms);
	ts_expect0(a, pat);
}

START_TEST(test_reconnect_within_grace)
{
	struct ts_srv s;
	struct ts_cli a, b;
	ts_up_list(&s, NULL); /* the default grace: 120 s */
	ts_join(&a, s.port, "alice");
	ts_join(&b, s.port, "bob");
	int id = ts_start_game(&a, &b, "ttt time=5+0", NULL);
	play0(&a, &b, NULL, id, "b2", 2);
	drop(&b, &a, 120000);
	ts_msleep(30);              /* some time passes while bob is away */
	ts_rejoin(&b, s.port, "bob"); /* the login reply says which game came back */
	cJSON *gs = ts_expect(&b, "{\"type\":\"game_start\",\"seat\":1,\"players\":[\"alice\","
	                          "\"bob\"],\"time\":{\"base_ms\":300000,\"inc_ms\":0}}");
	cJSON_Delete(gs);
	cJSON *st = ts_expect(&b, "{\"type\":\"state\",\"seq\":2,\"seat\":1,\"to_move\":[1],"
	                          "\"last_move\":\"b2\"}");
	/* bob's clock kept running while he was away */
	ck_assert_int_lt(clock_of(st, 1), 300000);
	ck_assert(cJSON_IsArray(cJSON_GetObjectItem(st, "legal")));
	cJSON_Delete(st);
	ts_expect0(&a, "{\"type\":\"info\",\"event\":\"back\",\"player\":\"bob\",\"seat\":1}");
	play0(&b, &a, NULL, id, "a1", 3);
	ts_close(&a);
	ts_close(&b);
	ts_down(&s);
}
END_TEST

START_TEST(test_abandoned_after_grace)
{
	struct ts_srv s;
	struct ts_cli a, b;
	ts_up_list(&s, "--grace-ms", "300", NULL);
	ts_join(&a, s.port, "alice");
	ts_join(&b, s.port, "bob");
	int id = ts_start_game(&a, &b, "ttt time=5+0", NULL);
	play0(&a, &b, NULL, id, "b2", 2);
	drop(&b, &a, 300);
	ts_expect0(&a, "{\"type\":\"game_over\",\"result\":{\"winner\":0,\"score\":\"1-0\","
	               "\"reason\":\"abandoned\"}}");
	/* too late: nothing to resume */
	ts_open(&b, s.port);
	ts_expect0(&b, "bitarenad * ready*");
	ts_send(&b, "set format json");
	ts_expect0(&b, "{\"type\":\"ok\"}");
	ts_send(&b, "login bob");
	ts_expect0(&b, "{\"type\":\"ok\",\"cmd\":\"login\",\"resumed\":[]}");
	ts_send(&b, "move %d a1", id);
	ts_expect0(&b, "{\"type\":\"error\",\"code\":\"NOT_YOUR_GAME\"}");
	ts_close(&a);
	ts_close(&b);
	ts_down(&s);
}
END_TEST

START_TEST(test_flag_while_away)
{
	struct ts_srv s;
	struct ts_cli a, b;
	ts_up_list(&s, "--grace", "60", NULL);
	ts_join(&a, s.port, "alice");
	ts_join(&b, s.port, "bob");
	int id = ts_start_game(&a, &b, "ttt time=0:01+0", NULL);
	play0(&a, &b, NULL, id, "b2", 2);
	drop(&b, &a, 60000);
	/* bob's clock runs out long before his grace: a loss on time, not abandonment */
	cJSON *g = ts_expect(&a, "{\"type\":\"game_over\",\"result\":{\"winner\":0,\"reason\":"
	                         "\"timeout\"}}");
	ck_assert_int_eq(clock_of(g, 1), 0);
	cJSON_Delete(g);
	ts_close(&a);
	ts_down(&s);
}
END_TEST

/* ---- round-trip time ------------------------------------------------------------------------ */

/* The who entry of name. */
static const cJSON *who_entry(const cJSON *who, const char *name)
{
	const cJSON *u;
	cJSON_ArrayForEach(u, cJSON_GetObjectItem(who, "users"))
	{
		if (strcmp(cJSON_GetObjectItem(u, "name")->valuestring, name) == 0)
			return u;
	}
	ck_abort_msg("%s is not in who", name);
	return NULL;
}

START_TEST(test_rtt)
{
	struct ts_srv s;
	struct ts_cli a, b;
	ts_up_list(&s, NULL);
	ts_join(&a, s.port, "alice");
	ts_join(&b, s.port, "bob");
	ts_send(&a, "who");
	cJSON *who = ts_expect(&a, "{\"type\":\"ok\",\"cmd\":\"who\"}");
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(who_entry(who, "alice"), "rtt_ms")));
	cJSON_Delete(who);

	/* asking for pings: one comes at once; answering it gives the round-trip time */
	ts_send(&a, "pong 1");
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"NO_PING\",\"cmd\":\"pong\"}");
	ts_send(&a, "set ping maybe");
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"BAD_ARGS\"}");
	ts_send(&a, "set ping on");
	ts_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"set\",\"ping\":true}");
	cJSON *p = ts_expect(&a, "{\"type\":\"ping\"}");
	int token = ts_jint(p, "token");
	cJSON_Delete(p);
	ts_send(&a, "pong %d", token + 1);
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"NO_PING\"}");
	ts_send(&a, "pong %d", token);
	cJSON *ok = ts_expect(&a, "{\"type\":\"ok\",\"cmd\":\"pong\"}");
	int rtt = ts_jint(ok, "rtt_ms");
	ck_assert_int_ge(rtt, 0);
	ck_assert_int_eq(rtt, ts_jint(ok, "sample_ms"));
	cJSON_Delete(ok);
	ts_send(&a, "pong %d", token); /* answered already */
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"NO_PING\"}");

	/* who shows it; bob, who never asked, has none */
	ts_send(&b, "who");
	who = ts_expect(&b, "{\"type\":\"ok\",\"cmd\":\"who\"}");
	const cJSON *r = cJSON_GetObjectItem(who_entry(who, "alice"), "rtt_ms");
	ck_assert(cJSON_IsNumber(r));
	ck_assert_int_eq(r->valueint, rtt);
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(who_entry(who, "bob"), "rtt_ms")));
	cJSON_Delete(who);

	/* the opponent sees it in game_start and the states */
	ts_send(&a, "seek ttt color=first");
	ts_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	ts_until0(&b, "{\"type\":\"seek\",\"event\":\"new\"}");
	ts_send(&b, "accept 1");
	ts_expect0(&b, "{\"type\":\"ok\",\"cmd\":\"accept\"}");
	ts_expect0(&b, "{\"type\":\"seek\",\"event\":\"gone\"}");
	char pat[160];
	snprintf(pat, sizeof pat, "{\"type\":\"game_start\",\"seat\":1,\"rtt_ms\":[%d,null]}", rtt);
	ts_expect0(&b, pat);
	snprintf(pat, sizeof pat, "{\"type\":\"state\",\"seq\":1,\"rtt_ms\":[%d,null]}", rtt);
	ts_expect0(&b, pat);

	/* off again: unknown */
	ts_send(&a, "set ping off");
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"set\",\"ping\":false}");
	ts_send(&a, "who");
	who = ts_expect(&a, "{\"type\":\"ok\",\"cmd\":\"who\"}");
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(who_entry(who, "alice"), "rtt_ms")));
	cJSON_Delete(who);
	ts_close(&a);
	ts_close(&b);
	ts_down(&s);
}
END_TEST

/* --ping-ms 200: the pings keep coming; an unanswered one is replaced by the next. */
START_TEST(test_ping_period)
{
	struct ts_srv s;
	struct ts_cli a;
	ts_up_list(&s, "--ping-ms", "200", NULL);
	ts_join(&a, s.port, "alice");
	ts_send(&a, "set ping on");
	ts_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"set\",\"ping\":true}");
	ts_expect0(&a, "{\"type\":\"ping\",\"token\":1}");
	ts_send(&a, "pong 1");
	ts_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"pong\"}");
	ts_expect0(&a, "{\"type\":\"ping\",\"token\":2}");
	ts_send(&a, "pong 2");
	cJSON *ok = ts_expect(&a, "{\"type\":\"ok\",\"cmd\":\"pong\"}");
	ck_assert_int_ge(ts_jint(ok, "rtt_ms"), 0);
	cJSON_Delete(ok);
	ts_expect0(&a, "{\"type\":\"ping\",\"token\":3}"); /* left unanswered */
	ts_expect0(&a, "{\"type\":\"ping\",\"token\":4}");
	ts_send(&a, "pong 3");
	ts_expect0(&a, "{\"type\":\"error\",\"code\":\"NO_PING\"}");
	ts_close(&a);
	ts_down(&s);
	const char *bin = getenv("BITARENAD");
	char cmd[1200];
	static const char *const refused[] = {"--ping 0", "--ping-ms 5", "--grace-ms -1",
	                                      "--busy-timeout-ms 0"};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		snprintf(cmd, sizeof cmd, "'%s' %s 2>/dev/null", bin, refused[i]);
		ck_assert_int_eq(system(cmd), 2 << 8); /* exit status 2: a bad option */
	}
}
END_TEST

START_TEST(test_lag_allowance)
{
	ck_assert_int_eq(lag_allowance(-1), 0);
	ck_assert_int_eq(lag_allowance(0), 0);
	ck_assert_int_eq(lag_allowance(120), 120);
	ck_assert_int_eq(lag_allowance(LAG_ALLOWANCE_MAX_MS), LAG_ALLOWANCE_MAX_MS);
	ck_assert_int_eq(lag_allowance(5000), LAG_ALLOWANCE_MAX_MS);
	struct client c;
	memset(&c, 0, sizeof c);
	ck_assert_int_eq(rtt_charge(&c, 900), 900); /* unknown: charged in full */
	c.rtt.known = true;
	c.rtt.ms = 80;
	ck_assert_int_eq(rtt_charge(&c, 900), 820);
	ck_assert_int_eq(rtt_charge(&c, 50), 0); /* never below zero */
	c.rtt.ms = 2000;
	ck_assert_int_eq(rtt_charge(&c, 900), 400);
}
END_TEST

/* ---- text mode (nc) ------------------------------------------------------------------------ */

START_TEST(test_text_offers)
{
	struct ts_srv s;
	struct ts_cli a, b;
	ts_up_list(&s, NULL);
	ts_open(&a, s.port);
	ts_expect0(&a, "bitarenad *");
	ts_send(&a, "login alice");
	ts_expect0(&a, "ok logged in as alice*");
	ts_join(&b, s.port, "bob");
	ts_send(&a, "seek ttt color=first time=1+0");
	ts_expect0(&a, "ok seek 1 *");
	ts_until0(&b, "{\"type\":\"seek\",\"event\":\"new\"}");
	ts_send(&b, "accept 1");
	ts_expect0(&b, "{\"type\":\"ok\"}");
	ts_until0(&a, "your move: move 1 <move>");
	ts_send(&a, "draw 1");
	ts_expect0(&a, "ok draw offered in game 1");
	ts_expect0(&a, "offer game 1: alice (X) offers a draw (draw 1 accept / draw 1 decline)");
	ts_send(&a, "set ping on");
	ts_expect0(&a, "ok the server pings you*");
	ts_expect0(&a, "ping 1");
	ts_send(&a, "pong 1");
	ts_expect0(&a, "ok round trip * ms (smoothed * ms)");
	ts_send(&a, "who");
	ts_expect0(&a, "ok 2 users online");
	ts_until0(&a, "  alice, rtt * ms, plays 1");
	ts_send(&a, "abort 1");
	ts_expect0(&a, "ok game 1 aborted");
	ts_expect0(&a, "offer game 1: alice (X) aborts the game");
	ts_expect0(&a, "game 1 over: aborted, no result; clocks: X ?:?? O 1:00");
	ts_close(&a);
	ts_close(&b);
	ts_down(&s);
}
END_TEST

static Suite *offers_suite(void)
{
	Suite *s = suite_create("offers");
	TCase *tc = tcase_create("offers");
	tcase_add_test(tc, test_draw);
	tcase_add_test(tc, test_undo);
	tcase_add_test(tc, test_abort);
	tcase_add_test(tc, test_rematch);
	tcase_add_test(tc, test_simultaneous_offers);
	tcase_add_test(tc, test_text_offers);
	suite_add_tcase(s, tc);
	tc = tcase_create("clocks");
	tcase_add_test(tc, test_flag_with_increment);
	tcase_add_test(tc, test_reconnect_within_grace);
	tcase_add_test(tc, test_abandoned_after_grace);
	tcase_add_test(tc, test_flag_while_away);
	tcase_add_test(tc, test_rtt);
	tcase_add_test(tc, test_ping_period);
	tcase_add_test(tc, test_lag_allowance);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	return check_run(offers_suite());
}
