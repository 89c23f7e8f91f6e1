/*
 * check_recovery.c - nothing acknowledged is lost: the real bitarenad with a
 * temporary --data directory, two registered players streaming Tak moves in
 * a timed game, a SIGKILL right after the server acknowledged a move, a
 * restart on the same directory, and then: every acknowledged move is in the
 * restored game (ply, last move, the position the same moves give through
 * the engine), a spectator can watch it, both players log in and are back in
 * their seats, the game is finished, its record and history hold every move,
 * and a new game gets a fresh id. Guests' seats come back only with their
 * tokens (kept in the store as hashes) after a kill -9 and after a clean stop.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "testserver.h"

#include "games/game.h"
#include "check_main.h"

#define KILL_AT 13 /* the ply whose acknowledgement is the last thing before the kill */

/* A fixed-seed LCG so the game is the same every run. */
static uint64_t lcg = 0x9e3779b97f4a7c15ULL;
static unsigned pick(unsigned n)
{
	lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((lcg >> 33) % n);
}

/* A legal move from a state with "legal", preferring flat placements (no early road). */
static const char *choose(const cJSON *state)
{
	const cJSON *legal = cJSON_GetObjectItem(state, "legal");
	ck_assert_msg(cJSON_IsArray(legal) && cJSON_GetArraySize(legal) > 0, "no legal moves");
	int n = cJSON_GetArraySize(legal);
	for (int tries = 0; tries < 8; tries++) {
		const char *t = cJSON_GetArrayItem(legal, (int)pick((unsigned)n))->valuestring;
		if (strlen(t) == 2) /* "c3": a flat placed */
			return t;
	}
	return cJSON_GetArrayItem(legal, (int)pick((unsigned)n))->valuestring;
}

static void login(struct ts_cli *c, int port, const char *name, const char *pw)
{
	ts_connect_json(c, port);
	ts_send(c, "login %s %s", name, pw);
}

START_TEST(test_kill9_recovery)
{
	struct ts_srv s;
	static const char *const args[] = {"--grace", "300"};
	ts_up(&s, args, 2);
	struct ts_cli cl[2];
	static const char *const names[2] = {"alice", "bob"};
	for (int i = 0; i < 2; i++) {
		ts_connect_json(&cl[i], s.port);
		ts_send(&cl[i], "register %s secret%d", names[i], i);
		ts_expect0(&cl[i], "{\"type\":\"ok\",\"cmd\":\"register\",\"guest\":false}");
	}
	ts_send(&cl[0], "seek tak size=6 time=10+5 color=first rated=1");
	cJSON *ok = ts_expect(&cl[0], "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	int seek = ts_jint(cJSON_GetObjectItem(ok, "seek"), "id");
	cJSON_Delete(ok);
	ts_until0(&cl[1], "{\"type\":\"seek\",\"event\":\"new\"}");
	ts_send(&cl[1], "accept %d", seek);
	cJSON *acc = ts_until(&cl[1], "{\"type\":\"ok\",\"cmd\":\"accept\"}");
	int id = ts_jint(acc, "game");
	cJSON_Delete(acc);
	cJSON *state[2];
	for (int i = 0; i < 2; i++)
		state[i] = ts_until(&cl[i], "{\"type\":\"state\",\"seq\":1}");

	/* the engine follows along: the position the acknowledged moves make */
	const struct game_ops *ops = game_find("tak");
	struct game_params p;
	game_params_default(ops, &p);
	const char *why = NULL;
	ck_assert_int_gt(game_param_word(ops, &p, "size=6", &why), 0);
	void *st = calloc(1, ops->state_size);
	ck_assert_int_eq(ops->init(st, &p, 0), 0);
	char acked[KILL_AT + 1][GAME_MOVE_TEXT];
	double alice_left = 0; /* alice's clock when the kill comes (she is to move next) */

	for (int ply = 0; ply <= KILL_AT; ply++) {
		int m = ply % 2;
		char text[GAME_MOVE_TEXT];
		snprintf(text, sizeof text, "%s", choose(state[m]));
		if (ply == KILL_AT) /* bob moves: alice's clock stands, exactly as shown */
			alice_left = cJSON_GetArrayItem(cJSON_GetObjectItem(state[m], "clocks"), 0)
			                     ->valuedouble;
		ts_send(&cl[m], "move %d %s", id, text);
		cJSON *a = ts_until(&cl[m], "{\"type\":\"ok\",\"cmd\":\"move\"}");
		snprintf(acked[ply], GAME_MOVE_TEXT, "%s", ts_jstr(a, "move"));
		cJSON_Delete(a);
		game_move mv;
		ck_assert_int_eq(ops->parse_move(st, m, acked[ply], &mv, NULL), 0);
		ck_assert_int_eq(ops->apply(st, mv), 0);
		if (ply == KILL_AT)
			break; /* acknowledged: now the crash, before anything else */
		for (int i = 0; i < 2; i++) {
			cJSON_Delete(state[i]);
			state[i] = ts_until(&cl[i], "{\"type\":\"state\"}");
			ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(state[i], "over")));
		}
	}
	ts_kill9(&s);
	for (int i = 0; i < 2; i++) {
		cJSON_Delete(state[i]);
		ts_close(&cl[i]);
	}

	ts_start(&s, s.datadir, args, 2);
	/* a spectator finds the game and sees the last acknowledged position */
	struct ts_cli w;
	ts_connect_json(&w, s.port);
	ts_send(&w, "login watcher");
	ts_expect0(&w, "{\"type\":\"ok\",\"cmd\":\"login\"}");
	ts_send(&w, "list");
	char pat[512];
	snprintf(pat, sizeof pat,
	         "{\"type\":\"ok\",\"cmd\":\"list\",\"games\":[{\"id\":%d,\"kind\":\"tak\","
	         "\"players\":[\"alice\",\"bob\"],\"ply\":%d}]}",
	         id, KILL_AT + 1);
	ts_expect0(&w, pat);
	ts_send(&w, "watch %d", id);
	ts_expect0(&w, "{\"type\":\"ok\",\"cmd\":\"watch\"}");
	snprintf(pat, sizeof pat,
	         "{\"type\":\"state\",\"game\":%d,\"ply\":%d,\"seq\":%d,\"last_move\":\"%s\"}", id,
	         KILL_AT + 1, KILL_AT + 2, acked[KILL_AT]);
	cJSON *ws = ts_expect(&w, pat);
	cJSON *want = ops->to_json(st, -1);
	ck_assert_msg(cJSON_Compare(cJSON_GetObjectItem(ws, "position"), want, true),
	              "the restored position is not the one the acknowledged moves make");
	cJSON_Delete(want);
	const cJSON *clocks = cJSON_GetObjectItem(ws, "clocks");
	ck_assert(cJSON_IsArray(clocks) && cJSON_GetArraySize(clocks) == 2);
	for (int i = 0; i < 2; i++) {
		double ms = cJSON_GetArrayItem(clocks, i)->valuedouble;
		ck_assert(ms > 0 && ms <= 600000 + 5000 * (KILL_AT + 1));
	}
	ck_assert_double_eq(cJSON_GetArrayItem(clocks, 0)->valuedouble, alice_left);
	cJSON_Delete(ws);

	/*
	 * Both players log in and are back in their seats, bob first. Alice is to move: her
	 * clock is the journalled one, and it waits for her, whoever else comes back and
	 * however long it takes (the resumed state shows the clocks as they stand).
	 */
	for (int i = 1; i >= 0; i--) {
		if (i == 0)
			ts_msleep(300);
		login(&cl[i], s.port, names[i], i ? "secret1" : "secret0");
		snprintf(pat, sizeof pat,
		         "{\"type\":\"ok\",\"cmd\":\"login\",\"guest\":false,\"resumed\":[%d]}",
		         id);
		ts_expect0(&cl[i], pat);
		snprintf(pat, sizeof pat, "{\"type\":\"game_start\",\"game\":%d,\"seat\":%d}", id,
		         i);
		ts_expect0(&cl[i], pat);
		snprintf(pat, sizeof pat, "{\"type\":\"state\",\"game\":%d,\"seat\":%d,\"ply\":%d}",
		         id, i, KILL_AT + 1);
		state[i] = ts_expect(&cl[i], pat);
		clocks = cJSON_GetObjectItem(state[i], "clocks");
		ck_assert_double_eq(cJSON_GetArrayItem(clocks, 0)->valuedouble, alice_left);
	}
	/* the game goes on: three more plies, then the side to move resigns */
	int ply = KILL_AT + 1;
	for (int k = 0; k < 3; k++, ply++) {
		int m = ply % 2;
		ts_send(&cl[m], "move %d %s", id, choose(state[m]));
		ts_until0(&cl[m], "{\"type\":\"ok\",\"cmd\":\"move\"}");
		for (int i = 0; i < 2; i++) {
			cJSON_Delete(state[i]);
			snprintf(pat, sizeof pat, "{\"type\":\"state\",\"ply\":%d,\"over\":false}",
			         ply + 1);
			state[i] = ts_until(&cl[i], pat);
		}
	}
	int loser = ply % 2;
	ts_send(&cl[loser], "resign %d", id);
	snprintf(pat, sizeof pat, "{\"type\":\"game_over\",\"game\":%d,\"result\":{\"winner\":%d}}",
	         id, 1 - loser);
	ts_until0(&cl[1 - loser], pat);
	ts_until0(&w, pat);

	/* the record and the history hold every move, the first ones as acknowledged */
	ts_send(&w, "record %d", id);
	cJSON *r = ts_until(&w, "{\"type\":\"ok\",\"cmd\":\"record\"}");
	const char *rec = ts_jstr(r, "record");
	ck_assert_ptr_nonnull(strstr(rec, "[Player1 \"alice\"]"));
	ck_assert_ptr_nonnull(strstr(rec, "[Size \"6\"]"));
	ck_assert_ptr_nonnull(strstr(rec, "[Rated \"yes\"]"));
	const char *at = rec;
	for (int i = 0; i <= KILL_AT; i++) {
		at = strstr(at, acked[i]);
		ck_assert_msg(at != NULL, "acknowledged move %d (%s) missing from\n%s", i, acked[i],
		              rec);
		at += strlen(acked[i]);
	}
	cJSON_Delete(r);
	ts_send(&w, "history alice");
	snprintf(pat, sizeof pat,
	         "{\"type\":\"ok\",\"cmd\":\"history\",\"games\":[{\"id\":%d,\"plies\":%d,"
	         "\"reason\":\"resign\",\"status\":\"finished\",\"rated\":true}]}",
	         id, ply);
	ts_until0(&w, pat);
	ts_send(&w, "ratings tak");
	ts_until0(
	        &w,
	        "{\"type\":\"ok\",\"cmd\":\"ratings\",\"ratings\":[{\"games\":1},{\"games\":1}]}");

	/* ids survive the restart: a new game gets a new one */
	ts_send(&cl[0], "seek ttt");
	ok = ts_until(&cl[0], "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	seek = ts_jint(cJSON_GetObjectItem(ok, "seek"), "id");
	cJSON_Delete(ok);
	ts_send(&cl[1], "accept %d", seek);
	acc = ts_until(&cl[1], "{\"type\":\"ok\",\"cmd\":\"accept\"}");
	ck_assert_int_gt(ts_jint(acc, "game"), id);
	cJSON_Delete(acc);

	for (int i = 0; i < 2; i++) {
		cJSON_Delete(state[i]);
		ts_close(&cl[i]);
	}
	ts_close(&w);
	ts_down(&s);
	free(st);
}
END_TEST

START_TEST(test_restart_keeps_games)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli a, b;
	ts_join(&a, s.port, "gina");
	ts_join(&b, s.port, "hal");
	int id = ts_begin_game(&a, &b, "mnk m=5 n=5 k=4");
	ts_send(&a, "move %d c3", id);
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"move\"}");
	ts_close(&a);
	ts_close(&b);
	ts_stop(&s);

	ts_start(&s, s.datadir, NULL, 0);
	/* guests get their seats back with their tokens, as within any grace */
	char token[sizeof b.token];
	snprintf(token, sizeof token, "%s", b.token);
	ts_connect_json(&b, s.port);
	ts_send(&b, "login hal %s", token);
	cJSON_Delete(ts_expectf(&b, "{\"type\":\"ok\",\"cmd\":\"login\",\"resumed\":[%d]}", id));
	ts_expect0(&b, "{\"type\":\"game_start\",\"seat\":1}");
	ts_expect0(&b, "{\"type\":\"state\",\"ply\":1,\"last_move\":\"c3\",\"to_move\":[1]}");
	ts_send(&b, "move %d b2", id);
	ts_until0(&b, "{\"type\":\"ok\",\"cmd\":\"move\",\"move\":\"b2\"}");
	ts_close(&b);
	ts_down(&s);
}
END_TEST

/* Whether the bytes of text are anywhere in the file at path (a missing file: no). */
static bool file_holds(const char *path, const char *text)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return false;
	size_t n = strlen(text), len = 0, cap = 0;
	char *buf = NULL;
	for (;;) {
		if (len == cap) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		if (got == 0)
			break;
		len += got;
	}
	fclose(f);
	bool found = len >= n && memmem(buf, len, text, n) != NULL;
	free(buf);
	return found;
}

/*
 * A guest's seat after kill -9 and a restart comes back only with its token:
 * `login <name>` is NAME_TAKEN (the seat stays), a wrong token BAD_LOGIN, the
 * token brings the seat back. The store keeps a hash of the token, never the
 * token. A guest who comes back keeps its token, and its seat wants it again
 * after a second restart (a clean one).
 */
START_TEST(test_restart_keeps_guest_tokens)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli a, b;
	ts_join(&a, s.port, "ivy");
	ts_join(&b, s.port, "jon");
	char ta[sizeof a.token], tb[sizeof b.token];
	snprintf(ta, sizeof ta, "%s", a.token);
	snprintf(tb, sizeof tb, "%s", b.token);
	int id = ts_begin_game(&a, &b, "mnk m=5 n=5 k=4");
	ts_send(&a, "move %d c3", id);
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"move\"}");
	ts_until0(&b, "{\"type\":\"state\",\"ply\":1}");
	ts_kill9(&s);
	ts_close(&a);
	ts_close(&b);
	char db[400], wal[420];
	snprintf(db, sizeof db, "%s/bitarena.db", s.datadir);
	snprintf(wal, sizeof wal, "%s-wal", db);
	ck_assert(!file_holds(db, ta) && !file_holds(wal, ta));
	ck_assert(!file_holds(db, tb) && !file_holds(wal, tb));

	ts_start(&s, s.datadir, NULL, 0);
	struct ts_cli x;
	ts_connect_json(&x, s.port);
	ts_send(&x, "login jon");
	cJSON *e = ts_expect(&x, "{\"type\":\"error\",\"cmd\":\"login\",\"code\":\"NAME_TAKEN\"}");
	ck_assert_ptr_nonnull(strstr(ts_jstr(e, "message"), "login jon <token>"));
	cJSON_Delete(e);
	ts_send(&x, "login JON %s", ta); /* ivy's token is not jon's */
	ts_expect_err(&x, "BAD_LOGIN");
	ts_send(&x, "login jon abcdefghijkmnpqrstuv");
	ts_expect_err(&x, "BAD_LOGIN");
	/* none of them logged x in (nor gave it the seat) */
	ts_send(&x, "login lurker");
	ts_expect0(&x, "{\"type\":\"ok\",\"cmd\":\"login\",\"resumed\":[]}");
	/* the token brings it back */
	ts_connect_json(&b, s.port);
	ts_send(&b, "login jon %s", tb);
	cJSON *ok = ts_expectf(&b, "{\"type\":\"ok\",\"cmd\":\"login\",\"resumed\":[%d]}", id);
	ck_assert_str_eq(ts_jstr(ok, "token"), tb);
	cJSON_Delete(ok);
	ts_expect0(&b, "{\"type\":\"game_start\",\"seat\":1}");
	ts_expect0(&b, "{\"type\":\"state\",\"ply\":1,\"last_move\":\"c3\",\"to_move\":[1]}");
	ts_send(&b, "move %d b2", id);
	ts_until0(&b, "{\"type\":\"ok\",\"cmd\":\"move\",\"move\":\"b2\"}");
	ts_close(&b);
	ts_close(&x);
	ts_stop(&s);

	/* a clean restart: the same, for ivy this time */
	ts_start(&s, s.datadir, NULL, 0);
	ts_connect_json(&x, s.port);
	ts_send(&x, "login ivy");
	ts_expect_err(&x, "NAME_TAKEN");
	ts_close(&x);
	ts_connect_json(&a, s.port);
	ts_send(&a, "login ivy %s", ta);
	cJSON_Delete(ts_expectf(&a, "{\"type\":\"ok\",\"cmd\":\"login\",\"resumed\":[%d]}", id));
	ts_expect0(&a, "{\"type\":\"game_start\",\"seat\":0}");
	ts_expect0(&a, "{\"type\":\"state\",\"ply\":2,\"last_move\":\"b2\",\"to_move\":[0]}");
	ts_close(&a);
	ts_down(&s);
}
END_TEST

/* A game of simultaneous turns comes back with its resolved turns, options and turn time. */
START_TEST(test_simultaneous_recovery)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli a, b, w;
	ts_join(&a, s.port, "ann");
	ts_join(&b, s.port, "ben");
	int id = ts_begin_game(&a, &b, "xmas seed=0 turn_ms=60000");
	ts_send(&a, "move %d PUSH 3 RIGHT", id);
	ts_expect0(&a, "{\"type\":\"ok\",\"pending\":true}");
	ts_send(&b, "move %d PUSH 2 UP", id);
	ts_until0(&b, "{\"type\":\"ok\",\"pending\":true}");
	const char *st2 = "{\"type\":\"state\",\"ply\":1,"
	                  "\"last_move\":{\"0\":\"PUSH 3 RIGHT\",\"1\":\"PUSH 2 UP\"}}";
	cJSON *before = ts_until(&a, st2);
	ts_kill9(&s);
	ts_close(&a);
	ts_close(&b);

	ts_start(&s, s.datadir, NULL, 0);
	ts_connect_json(&w, s.port);
	ts_send(&w, "watch %d", id);
	ts_expect0(&w, "{\"type\":\"ok\"}");
	ts_expect0(&w, "{\"type\":\"state\",\"ply\":1,\"turn_ms\":60000,\"to_move\":[0,1],"
	               "\"over\":false}");
	char token[sizeof a.token];
	snprintf(token, sizeof token, "%s", a.token);
	ts_connect_json(&a, s.port);
	ts_send(&a, "login ann %s", token);
	cJSON_Delete(ts_expectf(&a, "{\"type\":\"ok\",\"cmd\":\"login\",\"resumed\":[%d]}", id));
	ts_expect0(&a, "{\"type\":\"game_start\",\"seat\":0,\"turn_ms\":60000}");
	cJSON *after = ts_expect(&a, st2);
	/* the same seat's view of the same position (seed and options came back too) */
	ck_assert(cJSON_Compare(cJSON_GetObjectItem(before, "position"),
	                        cJSON_GetObjectItem(after, "position"), true));
	cJSON_Delete(before);
	cJSON_Delete(after);
	ts_close(&a);
	ts_close(&w);
	ts_down(&s);
}
END_TEST

static Suite *recovery_suite(void)
{
	Suite *s = suite_create("recovery");
	TCase *tc = tcase_create("kill9");
	tcase_set_timeout(tc, 120); /* two server starts per test; valgrind */
	tcase_add_test(tc, test_kill9_recovery);
	tcase_add_test(tc, test_restart_keeps_games);
	tcase_add_test(tc, test_restart_keeps_guest_tokens);
	tcase_add_test(tc, test_simultaneous_recovery);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	return check_run(recovery_suite());
}
