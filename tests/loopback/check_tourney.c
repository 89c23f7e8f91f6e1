/*
 * check_tourney.c - tournaments over real sockets (issue 21; events/tourney.h):
 * the real bitarenad, a director who subscribes to the events (set tourneys
 * on) and scripted players who play each game the pairing starts for them
 * (a scripted result: the loser resigns, a draw is agreed). Whole
 * round-robins and a whole Swiss of 4 and 5 players, with the final standings
 * and tie-breaks checked against values computed by hand; a kill -9 in the
 * middle of a round (the tournament comes back, its game in progress too,
 * every result counted once); a player absent from the start who loses two
 * games by the grace and is withdrawn; the director's verbs refused to others.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testproc.h"
#include "testserver.h"

#include "check_main.h"

#define MAXP 6

struct field {
	struct ts_srv s;
	struct ts_cli dir;
	int n;
	const char *names[MAXP];
	struct ts_cli p[MAXP];
	bool here[MAXP];
	int id; /* the tournament's */
};

static int index_of(const struct field *f, const char *name)
{
	for (int i = 0; i < f->n; i++)
		if (strcmp(f->names[i], name) == 0)
			return i;
	ck_abort_msg("no player %s", name);
	return -1;
}

/*
 * The store refuses a game of a running tournament's player that no stored tournament
 * names: the document naming a game must reach the store first (start_games()), or a crash
 * between the two leaves a game played beside the tournament, and its pairing played again.
 * Without that order no tournament game starts here (its write is refused).
 */
static const char named_first[] =
        "CREATE TRIGGER named_first BEFORE INSERT ON games WHEN EXISTS ("
        " SELECT 1 FROM tourneys t, json_each(t.doc, '$.players') p WHERE t.state = 'running'"
        " AND json_extract(p.value, '$.name') = NEW.player0) AND NOT EXISTS ("
        " SELECT 1 FROM tourneys t, json_each(t.doc, '$.pairs') e"
        " WHERE json_extract(e.value, '$[2]') = NEW.id)"
        " BEGIN SELECT RAISE(ABORT, 'a game stored before its tournament names it'); END";

/* The director's connection, subscribed (and the store's trigger above in place). */
static void director(struct field *f, const char *name)
{
	ts_store_sql(&f->s, named_first);
	ts_join(&f->dir, f->s.port, name);
	ts_send(&f->dir, "set tourneys on");
	ts_expect0(&f->dir, "{\"type\":\"ok\",\"cmd\":\"set\",\"tourneys\":true}");
}

/* The director creates a tournament (words after the kind) and the players join. */
static void create_and_join(struct field *f, const char *what)
{
	ts_send(&f->dir, "tourney create %s", what);
	cJSON *ok =
	        ts_until(&f->dir, "{\"type\":\"ok\",\"cmd\":\"tourney\",\"state\":\"created\"}");
	f->id = ts_jint(ok, "tourney");
	cJSON_Delete(ok);
	for (int i = 0; i < f->n; i++) {
		ts_join(&f->p[i], f->s.port, f->names[i]);
		f->here[i] = true;
		ts_send(&f->p[i], "tourney join %d", f->id);
		cJSON_Delete(ts_expectf(
		        &f->p[i], "{\"type\":\"ok\",\"cmd\":\"tourney\",\"players\":%d}", i + 1));
	}
}

/* A field of n names of which the first `first` play from the start; the server and the
   director up. */
static void field_up(struct field *f, const char *const *names, int n, int first)
{
	for (int i = 0; i < n; i++)
		f->names[i] = names[i];
	f->n = first;
	ts_up(&f->s, NULL, 0);
	director(f, "td");
}

/* The next name of the field joins the running tournament (a late entry). */
static void late_entry(struct field *f)
{
	int i = f->n;
	ts_join(&f->p[i], f->s.port, f->names[i]);
	f->here[i] = true;
	ts_send(&f->p[i], "tourney join %d", f->id);
	cJSON_Delete(ts_expectf(&f->p[i], "{\"type\":\"ok\",\"cmd\":\"tourney\",\"players\":%d}",
	                        i + 1));
	f->n = i + 1;
}

/* Scripted results: 'w' white wins, 'b' black wins, 'd' a draw. */
typedef char (*result_fn)(const char *white, const char *black);

/* Plays one game: the loser resigns, or both offer a draw. */
static void play(struct field *f, int game, int w, int b, char r)
{
	if (r == 'd') {
		ts_send(&f->p[w], "draw %d", game);
		ts_until0(&f->p[w], "{\"type\":\"ok\",\"cmd\":\"draw\"}");
		ts_send(&f->p[b], "draw %d", game);
		ts_until0(&f->p[b], "{\"type\":\"ok\",\"cmd\":\"draw\"}");
		return;
	}
	int loser = r == 'w' ? b : w;
	ts_send(&f->p[loser], "resign %d", game);
	ts_until0(&f->p[loser], "{\"type\":\"ok\",\"cmd\":\"resign\"}");
}

/*
 * Waits for the next round's pairing (or the end: returns false, *end the finished event)
 * and plays each game started between players who are here.
 */
static bool play_round(struct field *f, result_fn fn, cJSON **end)
{
	for (;;) {
		cJSON *e = ts_until(&f->dir, "{\"type\":\"tourney\"}");
		const char *ev = ts_jstr(e, "event");
		if (strcmp(ev, "finished") == 0) {
			*end = e;
			return false;
		}
		if (strcmp(ev, "round") != 0) {
			cJSON_Delete(e);
			continue;
		}
		const cJSON *pr;
		cJSON_ArrayForEach(pr, cJSON_GetObjectItem(e, "pairs"))
		{
			int game = ts_jint(pr, "game");
			const cJSON *black = cJSON_GetObjectItem(pr, "black");
			if (game == 0 || !cJSON_IsString(black))
				continue; /* a bye, or decided without a game */
			int w = index_of(f, ts_jstr(pr, "white")),
			    b = index_of(f, black->valuestring);
			if (f->here[w] && f->here[b])
				play(f, game, w, b, fn(f->names[w], f->names[b]));
		}
		cJSON_Delete(e);
		return true;
	}
}

static cJSON *play_all(struct field *f, result_fn fn)
{
	cJSON *end = NULL;
	while (play_round(f, fn, &end))
		;
	return end;
}

/* One row of the standings: rank (1-based), name, score, SB, direct encounter, Buchholz. */
struct row {
	const char *name;
	double score, sb, de, bh;
};

static void check_standings(const cJSON *st, const struct row *want, int n)
{
	ck_assert_int_eq(cJSON_GetArraySize(st), n);
	for (int i = 0; i < n; i++) {
		const cJSON *r = cJSON_GetArrayItem(st, i);
		ck_assert_int_eq(ts_jint(r, "rank"), i + 1);
		ck_assert_str_eq(ts_jstr(r, "name"), want[i].name);
		ck_assert_double_eq_tol(ts_jnum(r, "score"), want[i].score, 1e-9);
		ck_assert_double_eq_tol(ts_jnum(r, "sonneborn_berger"), want[i].sb, 1e-9);
		ck_assert_double_eq_tol(ts_jnum(r, "direct"), want[i].de, 1e-9);
		ck_assert_double_eq_tol(ts_jnum(r, "buchholz"), want[i].bh, 1e-9);
	}
}

static void field_down(struct field *f)
{
	for (int i = 0; i < f->n; i++)
		if (f->here[i])
			ts_close(&f->p[i]);
	ts_close(&f->dir);
	ts_down(&f->s);
}

/*
 * The round-robin of alice, bob, carol, dave (Berger: 1-4 2-3, 4-3 1-2, 2-4 3-1):
 * alice beats dave, bob and carol draw; dave beats carol, alice and bob draw; bob beats
 * dave, carol beats alice. Scores: bob 2, alice 1.5, carol 1.5, dave 1. Sonneborn-Berger
 * (defeated opponents' scores, half of those drawn): bob 1 + (1.5 + 1.5) / 2 = 2.5, carol
 * 1.5 + 2 / 2 = 2.5, alice 1 + 2 / 2 = 2, dave 1.5: carol before alice. Direct encounter
 * between the two on 1.5: carol 1, alice 0. Buchholz (opponents' scores): bob 1.5 + 1.5 +
 * 1 = 4, carol 2 + 1 + 1.5 = 4.5, alice 1 + 2 + 1.5 = 4.5, dave 1.5 + 1.5 + 2 = 5.
 */
static char rr_result(const char *white, const char *black)
{
	static const struct {
		const char *w, *b;
		char r;
	} t[] = {{"alice", "dave", 'w'}, {"bob", "carol", 'd'}, {"dave", "carol", 'w'},
	         {"alice", "bob", 'd'},  {"bob", "dave", 'w'},  {"carol", "alice", 'w'}};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (strcmp(t[i].w, white) == 0 && strcmp(t[i].b, black) == 0)
			return t[i].r;
	ck_abort_msg("an unexpected pairing: %s - %s", white, black);
	return 'd';
}

static const struct row rr_want[] = {{"bob", 2, 2.5, 0, 4},
                                     {"carol", 1.5, 2.5, 1, 4.5},
                                     {"alice", 1.5, 2, 0, 4.5},
                                     {"dave", 1, 1.5, 0, 5}};

static void rr_field(struct field *f)
{
	static const char *const names[] = {"alice", "bob", "carol", "dave"};
	f->n = 4;
	for (int i = 0; i < 4; i++)
		f->names[i] = names[i];
}

/*
 * tourney record: every game of `tourney games`, in its order, as one archive of the
 * records `record` gives, a blank line between two (from=N: the same from the Nth game);
 * anyone may read it.
 */
static void check_records(struct field *f)
{
	ts_send(&f->dir, "tourney games %d", f->id);
	cJSON *games = ts_until(&f->dir, "{\"type\":\"ok\",\"cmd\":\"tourney\"}");
	const cJSON *gs = cJSON_GetObjectItem(games, "games");
	int n = cJSON_GetArraySize(gs);
	ck_assert_int_gt(n, 0);
	ts_send(&f->p[1], "tourney record %d", f->id);
	cJSON *all = ts_until(&f->p[1], "{\"type\":\"ok\",\"cmd\":\"tourney\"}");
	ck_assert_int_eq(ts_jint(all, "tourney"), f->id);
	ck_assert_int_eq(ts_jint(all, "total"), n);
	ck_assert_int_eq(ts_jint(all, "count"), n);
	ck_assert_ptr_null(cJSON_GetObjectItem(all, "next"));
	const char *text = ts_jstr(all, "records"), *at = text;
	for (int i = 0; i < n; i++) {
		const cJSON *g = cJSON_GetArrayItem(gs, i);
		ts_send(&f->dir, "record %d", ts_jint(g, "game"));
		cJSON *one = ts_until(&f->dir, "{\"type\":\"ok\",\"cmd\":\"record\"}");
		const char *rec = ts_jstr(one, "record");
		ck_assert_msg(strncmp(at, rec, strlen(rec)) == 0, "game %d's record is not #%d",
		              ts_jint(g, "game"), i + 1);
		at += strlen(rec);
		if (i + 1 < n) { /* a blank line, then the next record's first tag */
			ck_assert_int_eq(strncmp(at, "\n\n[", 3), 0);
			at += 2;
		}
		cJSON_Delete(one);
	}
	ck_assert_str_eq(at, "");
	/* from=N: the archive from the Nth game */
	ts_send(&f->dir, "tourney record %d from=%d", f->id, n - 1);
	cJSON *last = ts_until(&f->dir, "{\"type\":\"ok\",\"cmd\":\"tourney\"}");
	ck_assert_int_eq(ts_jint(last, "count"), 1);
	const char *tail = ts_jstr(last, "records");
	ck_assert_str_eq(tail, text + strlen(text) - strlen(tail));
	ck_assert_int_eq(strncmp(tail, "[Event", 6), 0);
	cJSON_Delete(last);
	cJSON_Delete(all);
	cJSON_Delete(games);
	ts_send(&f->dir, "tourney record %d from=-1", f->id);
	ts_until0(&f->dir, "{\"type\":\"error\",\"code\":\"BAD_ARGS\"}");
	ts_send(&f->dir, "tourney record 999");
	ts_until0(&f->dir, "{\"type\":\"error\",\"code\":\"NO_SUCH_TOURNEY\"}");
}

START_TEST(test_roundrobin)
{
	struct field f = {0};
	rr_field(&f);
	/* without the command budget: check_records() reads every game twice in a burst (a
	   tournament's archive costs a token a game), and on a fast build the director's next
	   command was answered RATE_LIMITED (the budget is check_flood's) */
	ts_up_list(&f.s, "--cmd-rate", "0", NULL);
	director(&f, "td");
	create_and_join(&f, "ttt format=roundrobin name=Club");
	/* only the director starts or cancels it */
	ts_send(&f.p[0], "tourney start %d", f.id);
	ts_expect_err(&f.p[0], "NOT_DIRECTOR");
	ts_send(&f.p[0], "tourney cancel %d", f.id);
	ts_expect_err(&f.p[0], "NOT_DIRECTOR");
	ts_send(&f.dir, "tourney show 999");
	ts_until0(&f.dir, "{\"type\":\"error\",\"code\":\"NO_SUCH_TOURNEY\"}");
	ts_send(&f.dir, "tourney start %d", f.id);
	cJSON_Delete(ts_expect(&f.dir, "{\"type\":\"ok\",\"cmd\":\"tourney\",\"rounds\":3}"));
	ts_send(&f.p[0], "tourney join %d", f.id); /* nobody joins once it runs */
	ts_until0(&f.p[0], "{\"type\":\"error\",\"code\":\"TOURNEY_STATE\"}");
	cJSON *end = play_all(&f, rr_result);
	check_standings(cJSON_GetObjectItem(end, "standings"), rr_want, 4);
	cJSON_Delete(end);
	/* show and games say the same; the games are stored, each with its result */
	ts_send(&f.dir, "tourney show %d", f.id);
	cJSON *show =
	        ts_until(&f.dir, "{\"type\":\"ok\",\"cmd\":\"tourney\",\"state\":\"finished\"}");
	ck_assert_int_eq(ts_jint(show, "played"), 3);
	check_standings(cJSON_GetObjectItem(show, "standings"), rr_want, 4);
	cJSON_Delete(show);
	ts_send(&f.dir, "tourney games %d", f.id);
	cJSON *games = ts_until(&f.dir, "{\"type\":\"ok\",\"cmd\":\"tourney\"}");
	const cJSON *gs = cJSON_GetObjectItem(games, "games");
	ck_assert_int_eq(cJSON_GetArraySize(gs), 6);
	const cJSON *g;
	cJSON_ArrayForEach(g, gs)
	{
		char r = rr_result(ts_jstr(g, "white"), ts_jstr(g, "black"));
		ck_assert_str_eq(ts_jstr(g, "result"), r == 'w'   ? "1-0"
		                                       : r == 'b' ? "0-1"
		                                                  : "1/2-1/2");
		ts_send(&f.dir, "record %d", ts_jint(g, "game"));
		ts_until0(&f.dir, "{\"type\":\"ok\",\"cmd\":\"record\"}");
	}
	cJSON_Delete(games);
	/* from=N: the listing from its Nth game on, the total always, no "next" past the end */
	ts_send(&f.dir, "tourney games %d from=4", f.id);
	games = ts_until(&f.dir, "{\"type\":\"ok\",\"cmd\":\"tourney\",\"total\":6}");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(games, "games")), 2);
	ck_assert_ptr_null(cJSON_GetObjectItem(games, "next"));
	cJSON_Delete(games);
	ts_send(&f.dir, "tourney games %d from=x", f.id);
	ts_until0(&f.dir, "{\"type\":\"error\",\"code\":\"BAD_ARGS\"}");
	check_records(&f);
	ts_send(&f.dir, "tourney trf %d", f.id);
	ts_until0(&f.dir, "{\"type\":\"error\",\"code\":\"TOURNEY_STATE\"}");
	field_down(&f);
}
END_TEST

/*
 * A kill -9 in round 1 after one game's end was told: the server comes back with the
 * tournament and the game still on, the players come back with their tokens, and the rest
 * is played: the final standings are the round-robin's above (each result counted once).
 */
START_TEST(test_kill9_in_a_round)
{
	struct field f = {0};
	rr_field(&f);
	ts_up(&f.s, NULL, 0);
	director(&f, "td");
	create_and_join(&f, "ttt format=roundrobin");
	ts_send(&f.dir, "tourney start %d", f.id);
	cJSON *e = ts_until(&f.dir, "{\"type\":\"tourney\",\"event\":\"round\",\"round\":1}");
	const cJSON *pairs = cJSON_GetObjectItem(e, "pairs");
	int g1 = ts_jint(cJSON_GetArrayItem(pairs, 0), "game"); /* alice - dave */
	int g2 = ts_jint(cJSON_GetArrayItem(pairs, 1), "game"); /* bob - carol */
	cJSON_Delete(e);
	play(&f, g1, 0, 3, 'w');
	cJSON_Delete(
	        ts_untilf(&f.dir, "{\"type\":\"tourney\",\"event\":\"result\",\"game\":%d}", g1));
	ts_kill9(&f.s);
	for (int i = 0; i < f.n; i++)
		ts_close(&f.p[i]);
	ts_close(&f.dir);
	ts_start(&f.s, f.s.datadir, NULL, 0);
	/* bob and carol's seats wait for their tokens; alice and dave log in afresh */
	for (int i = 0; i < f.n; i++)
		if (i == 1 || i == 2)
			ts_rejoin(&f.p[i], f.s.port, f.names[i]);
		else
			ts_join(&f.p[i], f.s.port, f.names[i]);
	ts_join(&f.dir, f.s.port, "td");
	ts_send(&f.dir, "set tourneys on");
	ts_until0(&f.dir, "{\"type\":\"ok\",\"cmd\":\"set\",\"tourneys\":true}");
	ts_send(&f.dir, "tourney show %d", f.id);
	cJSON *show =
	        ts_until(&f.dir, "{\"type\":\"ok\",\"cmd\":\"tourney\",\"state\":\"running\"}");
	ck_assert_int_eq(ts_jint(show, "round"), 1);
	pairs = cJSON_GetObjectItem(show, "pairs");
	ck_assert_str_eq(ts_jstr(cJSON_GetArrayItem(pairs, 0), "result"), "1-0");
	ck_assert_str_eq(ts_jstr(cJSON_GetArrayItem(pairs, 1), "result"), "*");
	ck_assert_int_eq(ts_jint(cJSON_GetArrayItem(pairs, 1), "game"), g2);
	cJSON_Delete(show);
	play(&f, g2, 1, 2, 'd'); /* the game that came back */
	cJSON *end = play_all(&f, rr_result);
	check_standings(cJSON_GetObjectItem(end, "standings"), rr_want, 4);
	cJSON_Delete(end);
	field_down(&f);
}
END_TEST

/*
 * dave joins and leaves before the start: with --grace-ms 300 he loses round 1 (alice)
 * and round 2 (carol) by forfeit (abandoned before a move), is withdrawn after the second,
 * and round 3's game against bob is a forfeit decided without a game. bob beats carol,
 * alice and bob draw, carol beats alice: bob 1 + 0.5 + 1 = 2.5, carol 1 + 1 = 2, alice
 * 1 + 0.5 = 1.5, dave 0 and withdrawn.
 */
static char absent_result(const char *white, const char *black)
{
	if (strcmp(white, "bob") == 0 && strcmp(black, "carol") == 0)
		return 'w';
	if (strcmp(white, "alice") == 0 && strcmp(black, "bob") == 0)
		return 'd';
	if (strcmp(white, "carol") == 0 && strcmp(black, "alice") == 0)
		return 'w';
	ck_abort_msg("an unexpected game: %s - %s", white, black);
	return 'd';
}

START_TEST(test_absent_player)
{
	struct field f = {0};
	rr_field(&f);
	ts_up_list(&f.s, "--grace-ms", "300", NULL);
	director(&f, "td");
	create_and_join(&f, "ttt format=roundrobin");
	ts_close(&f.p[3]);
	f.here[3] = false;
	ts_send(&f.dir, "tourney start %d", f.id);
	cJSON *end = play_all(&f, absent_result);
	const cJSON *st = cJSON_GetObjectItem(end, "standings");
	static const char *const order[] = {"bob", "carol", "alice", "dave"};
	static const double score[] = {2.5, 2, 1.5, 0};
	for (int i = 0; i < 4; i++) {
		const cJSON *r = cJSON_GetArrayItem(st, i);
		ck_assert_str_eq(ts_jstr(r, "name"), order[i]);
		ck_assert_double_eq_tol(ts_jnum(r, "score"), score[i], 1e-9);
		ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(r, "withdrawn")) == (i == 3));
	}
	cJSON_Delete(end);
	/* the forfeits: two games abandoned before a move, one decided without a game */
	ts_send(&f.dir, "tourney games %d", f.id);
	cJSON *games = ts_until(&f.dir, "{\"type\":\"ok\",\"cmd\":\"tourney\"}");
	int forfeits = 0, unplayed = 0;
	const cJSON *g;
	cJSON_ArrayForEach(g, cJSON_GetObjectItem(games, "games"))
	{
		if (strstr(ts_jstr(g, "result"), "forfeit") != NULL) {
			forfeits++;
			unplayed += ts_jint(g, "game") == 0;
		}
	}
	ck_assert_int_eq(forfeits, 3);
	ck_assert_int_eq(unplayed, 1);
	cJSON_Delete(games);
	field_down(&f);
}
END_TEST

/*
 * A Swiss of p1..p5 (pairing numbers in the order they joined), 3 rounds, the lower number
 * winning every game. The Dutch system pairs (by hand, C.04.3: S1 against S2 in the score
 * group, the bye to the lowest-ranked without one): round 1 p1-p3, p4-p2, p5 bye; round 2
 * p5-p1, p2-p3, p4 bye; round 3 p1-p2, p5-p4, p3 bye. Scores: p1 3, p2 2, p4 2, p3 1, p5 1.
 * Tie-breaks (FIDE C.07 until 2023): an opponent's unplayed round counts as a draw in his
 * score for the others (adjusted: p3 0.5, p4 1.5, p5 0.5), one's own bye is a game against
 * a virtual opponent with S(before) + (1 - 1) + 0.5 (rounds after): p4's r2 0.5, p3's r3 0,
 * p5's r1 1. Buchholz: p1 0.5 + 0.5 + 2 = 3, p2 1.5 + 0.5 + 3 = 5, p4 2 + 0.5 + 0.5 = 3,
 * p3 3 + 2 + 0 = 5, p5 1 + 3 + 1.5 = 5.5; cut-1 takes away the lowest: 2.5, 4.5, 2.5, 5,
 * 4.5. Sonneborn-Berger: p1 3, p2 1.5 + 0.5 = 2, p4 0.5 + 0.5 = 1, p3 0, p5 1. p2 ahead of
 * p4 and p3 ahead of p5 by Buchholz cut-1; direct encounter p2 1 (he beat p4).
 */
static const struct row swiss_want[] = {{"p1", 3, 3, 0, 3},
                                        {"p2", 2, 2, 1, 5},
                                        {"p4", 2, 1, 0, 3},
                                        {"p3", 1, 0, 0, 5},
                                        {"p5", 1, 1, 0, 5.5}};

static const char *swiss_names[] = {"p1", "p2", "p3", "p4", "p5"};
static char swiss_result(const char *white, const char *black)
{
	return strcmp(white, black) < 0 ? 'w' : 'b';
}

START_TEST(test_swiss)
{
	struct field f = {0};
	f.n = 5;
	for (int i = 0; i < 5; i++)
		f.names[i] = swiss_names[i];
	ts_up(&f.s, NULL, 0);
	director(&f, "td");
	create_and_join(&f, "ttt format=swiss rounds=3 name=Open");
	ts_send(&f.dir, "tourney start %d", f.id);
	cJSON *end = play_all(&f, swiss_result);
	const cJSON *st = cJSON_GetObjectItem(end, "standings");
	check_standings(st, swiss_want, 5);
	static const double cut1[] = {2.5, 4.5, 2.5, 5, 4.5};
	for (int i = 0; i < 5; i++)
		ck_assert_double_eq_tol(ts_jnum(cJSON_GetArrayItem(st, i), "buchholz_cut1"),
		                        cut1[i], 1e-9);
	cJSON_Delete(end);
	/* the pairings as a TRF-16 file: every round's opponent, colour and result */
	ts_send(&f.dir, "tourney trf %d", f.id);
	cJSON *trf = ts_until(&f.dir, "{\"type\":\"ok\",\"cmd\":\"tourney\"}");
	const char *t = ts_jstr(trf, "trf");
	static const char *const lines[] = {
	        "    3 w 1     5 b 1     2 w 1",  "    4 b 1     3 w 1     1 b 0",
	        "    1 b 0     2 b 0  0000 - U",  "    2 w 0  0000 - U     5 b 1",
	        "  0000 - U     1 w 0     4 w 0", "XXR 3"};
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
		ck_assert_msg(strstr(t, lines[i]) != NULL, "no '%s' in\n%s", lines[i], t);
	cJSON_Delete(trf);
	field_down(&f);
}
END_TEST

/*
 * Late entry in a Swiss: a fourth player joins during round 1 (not paired in it: an
 * absence, no points) and is paired from round 2 on; the TRF shows its round 1 as absent.
 */
static char white_wins(const char *white, const char *black)
{
	(void)white;
	(void)black;
	return 'w';
}

START_TEST(test_swiss_late_entry)
{
	static const char *const names[] = {"s1", "s2", "s3", "s4"};
	struct field f = {0};
	field_up(&f, names, 4, 3);
	create_and_join(&f, "ttt format=swiss rounds=2");
	ts_send(&f.dir, "tourney start %d", f.id);
	cJSON_Delete(ts_until(&f.dir, "{\"type\":\"tourney\",\"event\":\"round\",\"round\":1}"));
	late_entry(&f);
	/* round 1 was announced before the entry: its game is played here */
	ts_send(&f.dir, "tourney show %d", f.id);
	cJSON *show = ts_until(&f.dir, "{\"type\":\"ok\",\"cmd\":\"tourney\",\"round\":1}");
	const cJSON *pr;
	cJSON_ArrayForEach(pr, cJSON_GetObjectItem(show, "pairs"))
	{
		const cJSON *black = cJSON_GetObjectItem(pr, "black");
		if (cJSON_IsString(black))
			play(&f, ts_jint(pr, "game"), index_of(&f, ts_jstr(pr, "white")),
			     index_of(&f, black->valuestring), 'w');
	}
	cJSON_Delete(show);
	cJSON *end = play_all(&f, white_wins);
	const cJSON *st = cJSON_GetObjectItem(end, "standings");
	ck_assert_int_eq(cJSON_GetArraySize(st), 4);
	cJSON_Delete(end);
	ts_send(&f.dir, "tourney games %d", f.id);
	cJSON *g = ts_until(&f.dir, "{\"type\":\"ok\",\"cmd\":\"tourney\"}");
	int s4_games = 0;
	const cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(g, "games"))
	{
		ck_assert(ts_jint(e, "round") == 2 || (strcmp(ts_jstr(e, "white"), "s4") != 0 &&
		                                       strcmp(ts_jstr(e, "black"), "s4") != 0));
		s4_games += strcmp(ts_jstr(e, "white"), "s4") == 0 ||
		            strcmp(ts_jstr(e, "black"), "s4") == 0;
	}
	ck_assert_int_eq(s4_games, 1); /* round 2 */
	cJSON_Delete(g);
	field_down(&f);
}
END_TEST

/*
 * An arena of hero, bob and carol for 0.2 minutes: every game a pairing starts is played at
 * once (hero wins each of its games; of the others, white resigns), so games follow each
 * other until the end. Checked: no player meets the same opponent twice in a row (the
 * rematch rule with three players), white goes to the one who had it less often, the final
 * points are lichess' (hero: 2 + 2, then 4 for every win on fire), every game is won once,
 * `tourney games` lists exactly the games counted (those left on past the 20th, still on at
 * the end, are not), and a
 * late entrant joins while it runs.
 */
START_TEST(test_arena)
{
	static const char *const names[] = {"hero", "bob", "carol", "late"};
	struct field f = {0};
	field_up(&f, names, 4, 3);
	/* an arena has no rounds; minutes= belongs to arenas only */
	ts_send(&f.dir, "tourney create ttt format=arena rounds=3");
	ts_until0(&f.dir, "{\"type\":\"error\",\"code\":\"BAD_OPTION\"}");
	ts_send(&f.dir, "tourney create ttt format=swiss minutes=5");
	ts_until0(&f.dir, "{\"type\":\"error\",\"code\":\"BAD_OPTION\"}");
	ts_send(&f.dir, "tourney create ttt format=arena minutes=0");
	ts_until0(&f.dir, "{\"type\":\"error\",\"code\":\"BAD_OPTION\"}");
	create_and_join(&f, "ttt format=arena minutes=0.2 name=Blitz");
	ts_send(&f.dir, "tourney start %d", f.id);
	cJSON *ok = ts_until(&f.dir, "{\"type\":\"ok\",\"cmd\":\"tourney\"}");
	ck_assert(ts_jnum(ok, "ends_at") > 0);
	cJSON_Delete(ok);
	int last_opp[4] = {-1, -1, -1, -1}, whites[4] = {0}, blacks[4] = {0}, paired = 0;
	cJSON *end = NULL;
	while (end == NULL) {
		cJSON *e = ts_until_within(&f.dir, "{\"type\":\"tourney\"}", 30000);
		const char *ev = ts_jstr(e, "event");
		if (strcmp(ev, "finished") == 0) {
			end = e;
			break;
		}
		if (strcmp(ev, "paired") == 0) {
			int w = index_of(&f, ts_jstr(e, "white")),
			    b = index_of(&f, ts_jstr(e, "black"));
			ck_assert_msg(last_opp[w] != b && last_opp[b] != w, "%s and %s again",
			              f.names[w], f.names[b]);
			last_opp[w] = b;
			last_opp[b] = w;
			/* white to the one who had white less often */
			ck_assert_int_le(whites[w] - blacks[w], whites[b] - blacks[b]);
			whites[w]++;
			blacks[b]++;
			if (++paired == 3 && f.n == 3)
				late_entry(&f);
			/* the games past the 20th stay on to the end (and are not counted) */
			if (paired <= 20)
				play(&f, ts_jint(e, "game"), w, b, w == 0 ? 'w' : 'b');
		}
		cJSON_Delete(e);
	}
	const cJSON *st = cJSON_GetObjectItem(end, "standings");
	ck_assert_int_eq(cJSON_GetArraySize(st), 4);
	const cJSON *top = cJSON_GetArrayItem(st, 0);
	ck_assert_str_eq(ts_jstr(top, "name"), "hero");
	int wins = ts_jint(top, "wins"), games_total = 0, wins_total = 0;
	ck_assert_int_ge(wins, 3);
	ck_assert_int_eq(ts_jint(top, "games"), wins);
	ck_assert_int_eq(ts_jint(top, "score"), 2 + 2 + 4 * (wins - 2));
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(top, "fire")));
	for (int i = 0; i < 4; i++) {
		const cJSON *r = cJSON_GetArrayItem(st, i);
		games_total += ts_jint(r, "games");
		wins_total += ts_jint(r, "wins");
	}
	ck_assert_int_eq(wins_total * 2, games_total); /* every game won by someone, once */
	cJSON_Delete(end);
	ts_send(&f.dir, "tourney games %d", f.id);
	cJSON *g = ts_until(&f.dir, "{\"type\":\"ok\",\"cmd\":\"tourney\"}");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(g, "games")) * 2, games_total);
	ck_assert_int_lt(games_total / 2, paired); /* the game on at the end is not counted */
	cJSON_Delete(g);
	field_down(&f);
}
END_TEST

/*
 * start=: a tournament with its players starts by itself at its time (both players get
 * their game); one without enough players is cancelled then; times that are not to come
 * are refused.
 */
START_TEST(test_start_time)
{
	struct field f = {0};
	f.n = 2;
	f.names[0] = "early";
	f.names[1] = "bird";
	ts_up(&f.s, NULL, 0);
	director(&f, "td");
	ts_send(&f.dir, "tourney create ttt format=roundrobin start=25:00");
	ts_until0(&f.dir, "{\"type\":\"error\",\"code\":\"BAD_OPTION\"}");
	ts_send(&f.dir, "tourney create ttt format=roundrobin start=2001-01-01T10:00");
	ts_until0(&f.dir, "{\"type\":\"error\",\"code\":\"BAD_OPTION\"}");
	ts_send(&f.dir, "tourney create ttt format=roundrobin start=+0.03");
	cJSON *ok = ts_until(&f.dir, "{\"type\":\"ok\",\"cmd\":\"tourney\",\"state\":\"created\"}");
	int lonely = ts_jint(ok, "tourney");
	ck_assert(ts_jnum(ok, "start_at") > 0);
	cJSON_Delete(ok);
	create_and_join(&f, "ttt format=roundrobin start=+0.05");
	cJSON_Delete(ts_untilf(
	        &f.dir, "{\"type\":\"tourney\",\"event\":\"cancelled\",\"tourney\":%d}", lonely));
	cJSON_Delete(ts_untilf(
	        &f.dir, "{\"type\":\"tourney\",\"event\":\"started\",\"tourney\":%d}", f.id));
	cJSON *r = ts_untilf(&f.dir, "{\"type\":\"tourney\",\"event\":\"round\",\"tourney\":%d}",
	                     f.id);
	int game = ts_jint(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "pairs"), 0), "game");
	ck_assert_int_gt(game, 0);
	cJSON_Delete(r);
	for (int i = 0; i < 2; i++)
		cJSON_Delete(ts_untilf(&f.p[i], "{\"type\":\"game_start\",\"game\":%d}", game));
	field_down(&f);
}
END_TEST

/*
 * Bots join by themselves: four `bitarena bot --tourney ID --random` processes join a Swiss
 * that starts at its start= time, play every game its pairing gives them (three each: four
 * players, three rounds, no bye) and exit 0 at its end, each with its three games counted.
 */
START_TEST(test_bots_join_by_themselves)
{
	const char *tool = getenv("BITARENA");
	ck_assert_ptr_nonnull(tool);
	struct field f = {0};
	ts_up(&f.s, NULL, 0);
	director(&f, "td");
	ts_send(&f.dir, "tourney create ttt format=swiss rounds=3 start=+0.08");
	cJSON *ok = ts_until(&f.dir, "{\"type\":\"ok\",\"cmd\":\"tourney\",\"state\":\"created\"}");
	char id[24], addr[64];
	snprintf(id, sizeof id, "%d", ts_jint(ok, "tourney"));
	cJSON_Delete(ok);
	snprintf(addr, sizeof addr, "127.0.0.1:%d", f.s.port);
	static const char *const names[] = {"rb1", "rb2", "rb3", "rb4"};
	char out[4][300], err[4][300];
	pid_t pid[4];
	for (int i = 0; i < 4; i++) {
		const char *argv[] = {tool,     "bot",       "--server", addr,       "--name",
		                      names[i], "--tourney", id,         "--random", NULL};
		snprintf(out[i], sizeof out[i], "%s.bot%d.out", f.s.datadir, i);
		snprintf(err[i], sizeof err[i], "%s.bot%d.err", f.s.datadir, i);
		pid[i] = tp_spawn(argv, out[i], err[i]);
	}
	cJSON *end = ts_untilf(&f.dir,
	                       "{\"type\":\"tourney\",\"event\":\"finished\",\"tourney\":%s}", id);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(end, "standings")), 4);
	cJSON_Delete(end);
	for (int i = 0; i < 4; i++) {
		static char buf[1 << 14];
		int st = tp_wait(pid[i], 60);
		ck_assert_msg(st == 0, "bot %s exited %d: %s", names[i], st,
		              tp_slurp(err[i], buf, sizeof buf));
		ck_assert_msg(strstr(tp_slurp(out[i], buf, sizeof buf), "games 3 ") != NULL,
		              "bot %s: %s", names[i], buf);
		remove(out[i]);
		remove(err[i]);
	}
	field_down(&f);
}
END_TEST

/* White's code of every game: the first player (p[0]) wins whatever its colour. */
static const char *match_names[] = {"eng1", "eng2"};
static char first_wins(const char *white, const char *black)
{
	(void)black;
	return strcmp(white, "eng1") == 0 ? 'w' : 'b';
}

/* Game id's record (text), into buf. */
static void record_of(struct field *f, int game, char *buf, size_t len)
{
	ts_send(&f->dir, "record %d", game);
	cJSON *r = ts_until(&f->dir, "{\"type\":\"ok\",\"cmd\":\"record\"}");
	snprintf(buf, len, "%s", ts_jstr(r, "record"));
	cJSON_Delete(r);
}

/*
 * An engine match (format=match): what it refuses (an unknown book, a book of another
 * game, an odd games=, sprt= outside a match), then 12 games of ttt with the ttt book and an
 * SPRT that the first player's wins decide after the fourth pair (LLR over the upper bound):
 * the match ends there (H1, 8 games played of 12), each opening is played twice with the
 * colours swapped, in book order, as the games' first moves; the statistics in the finished
 * event and in tourney show.
 */
START_TEST(test_match)
{
	struct field f = {0};
	field_up(&f, match_names, 2, 2);
	static const char *const refused[] = {
	        "ttt format=match openings=nosuchbook", "ttt format=match openings=tak5",
	        "ttt format=match openings=../ttt",     "ttt format=match games=3",
	        "ttt format=roundrobin sprt=0,5,0.05,0.05",
	        "ttt format=match sprt=5,0,0.05,0.05",  "ttt format=swiss openings=ttt",
	        "ttt format=match opening=2",           "ttt format=match openings=ttt opening=0"};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		ts_send(&f.dir, "tourney create %s", refused[i]);
		ts_until0(&f.dir, "{\"type\":\"error\",\"code\":\"BAD_OPTION\"}");
	}
	create_and_join(&f, "ttt format=match games=12 openings=ttt sprt=0,200,0.2,0.2,logistic");
	ts_send(&f.dir, "tourney start %d", f.id);
	cJSON_Delete(ts_until(&f.dir, "{\"type\":\"ok\",\"cmd\":\"tourney\",\"rounds\":12}"));
	cJSON *end = play_all(&f, first_wins);
	/* pairs of two wins: LLR 1.256 after three, 1.674 after four (upper bound 1.386) */
	ck_assert_int_eq(ts_jint(end, "rounds"), 8);
	const cJSON *m = cJSON_GetObjectItem(end, "match");
	ck_assert_str_eq(ts_jstr(m, "first"), "eng1");
	ck_assert_int_eq(ts_jint(m, "wins"), 8);
	ck_assert_int_eq(ts_jint(m, "losses"), 0);
	ck_assert_int_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(m, "pentanomial"), 4)->valueint,
	                 4);
	const cJSON *sp = cJSON_GetObjectItem(m, "sprt");
	ck_assert_str_eq(ts_jstr(sp, "result"), "H1");
	ck_assert(cJSON_GetObjectItem(sp, "llr")->valuedouble >=
	          cJSON_GetObjectItem(sp, "upper")->valuedouble);
	ck_assert(cJSON_GetObjectItem(m, "elo")->valuedouble > 0);
	cJSON_Delete(end);
	/* the games: pairs of one opening each, colours swapped, the book's order (a1 a2 b2) */
	ts_send(&f.dir, "tourney games %d", f.id);
	cJSON *games = ts_until(&f.dir, "{\"type\":\"ok\",\"cmd\":\"tourney\"}");
	const cJSON *gs = cJSON_GetObjectItem(games, "games");
	ck_assert_int_eq(cJSON_GetArraySize(gs), 8);
	static const char *const first_move[] = {"1. a1 ", "1. a1 ", "1. a2 ", "1. a2 ",
	                                         "1. b2 ", "1. b2 ", "1. a1 ", "1. a1 "};
	for (int i = 0; i < 8; i++) {
		const cJSON *g = cJSON_GetArrayItem(gs, i);
		ck_assert_str_eq(ts_jstr(g, "white"), match_names[i % 2]);
		char rec[4096];
		record_of(&f, ts_jint(g, "game"), rec, sizeof rec);
		ck_assert_msg(strstr(rec, first_move[i]) != NULL, "game %d: %s", i, rec);
	}
	cJSON_Delete(games);
	ts_send(&f.dir, "tourney show %d", f.id);
	cJSON *show = ts_until(&f.dir, "{\"type\":\"ok\",\"cmd\":\"tourney\",\"state\":\"finished\","
	                               "\"openings\":\"ttt\",\"sprt\":\"0,200,0.2,0.2,logistic\"}");
	ck_assert_int_eq(ts_jint(cJSON_GetObjectItem(show, "match"), "wins"), 8);
	cJSON_Delete(show);
	field_down(&f);
}
END_TEST

/*
 * The adjudication of engine matches as seek options: max_plies=3 draws a ttt game at its
 * third ply; repetition=3 draws a Tak game at the third occurrence of a position (two flats
 * walked back and forth); both refused out of range.
 */
START_TEST(test_adjudication)
{
	struct ts_srv s;
	struct ts_cli a, b;
	ts_up(&s, NULL, 0);
	ts_join(&a, s.port, "adja");
	ts_join(&b, s.port, "adjb");
	ts_send(&a, "seek ttt max_plies=-1");
	ts_expect_err(&a, "BAD_OPTION");
	ts_send(&a, "seek ttt repetition=1");
	ts_expect_err(&a, "BAD_OPTION");
	static const struct {
		const char *seek, *reason;
		const char *moves[12];
	} games[] = {
	        {"ttt max_plies=3 color=white", "max_plies", {"a1", "b1", "c1"}},
	        {"tak size=3 repetition=3 color=white",
	         "repetition",
	         {"a1", "c3", "b2", "a3", "b2>", "a3-", "c2<", "a2+", "b2>", "a3-", "c2<", "a2+"}},
	};
	for (int k = 0; k < 2; k++) {
		ts_send(&a, "seek %s", games[k].seek);
		cJSON *ok = ts_until(&a, "{\"type\":\"ok\",\"cmd\":\"seek\"}");
		int seek = ts_jint(cJSON_GetObjectItem(ok, "seek"), "id");
		cJSON_Delete(ok);
		ts_send(&b, "accept %d", seek);
		cJSON *st = ts_until(&b, "{\"type\":\"game_start\"}");
		int game = ts_jint(st, "game");
		cJSON_Delete(st);
		for (int i = 0; i < 12 && games[k].moves[i] != NULL; i++) {
			struct ts_cli *c = i % 2 == 0 ? &a : &b;
			ts_send(c, "move %d %s", game, games[k].moves[i]);
			ts_until0(c, "{\"type\":\"ok\",\"cmd\":\"move\"}");
		}
		cJSON *over = ts_untilf(&a, "{\"type\":\"game_over\",\"game\":%d}", game);
		ck_assert_str_eq(ts_jstr(cJSON_GetObjectItem(over, "result"), "reason"), games[k].reason);
		cJSON_Delete(over);
	}
	ts_close(&a);
	ts_close(&b);
	ts_down(&s);
}
END_TEST

/*
 * bitarena match between two `bitarena tei` engines on a private server of its own (the
 * BITARENAD of make check): 2 games of Tak 5x5 from the tak5 book, exit 0, the PTN archive
 * holds both games, each from the book's first opening, the engines' names as players with
 * the colours swapped.
 */
START_TEST(test_bitarena_match)
{
	const char *tool = getenv("BITARENA");
	ck_assert_ptr_nonnull(tool);
	char eng1[600], eng2[600], ptn[300], out[300], err[300];
	snprintf(eng1, sizeof eng1, "one=%s tei", tool);
	snprintf(eng2, sizeof eng2, "two=%s tei --hash 1", tool);
	char dir[] = "/tmp/check-match-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(ptn, sizeof ptn, "%s/games.ptn", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(err, sizeof err, "%s/err", dir);
	const char *argv[] = {tool,      "match",     "--engine", eng1,   "--engine", eng2,
	                      "--kind",  "tak size=5", "--tc",    "5+0",  "--games",  "2",
	                      "--openings", "tak5",   "--ptnout", ptn,    "--quiet",  NULL};
	pid_t pid = tp_spawn(argv, out, err);
	static char buf[1 << 16];
	int st = tp_wait(pid, 100);
	ck_assert_msg(st == 0, "bitarena match exited %d: %s", st, tp_slurp(err, buf, sizeof buf));
	ck_assert_msg(strstr(tp_slurp(out, buf, sizeof buf), "match over after 2 games") != NULL,
	              "%s", buf);
	tp_slurp(ptn, buf, sizeof buf);
	const char *g1 = strstr(buf, "[Player1 \"one\"]"), *g2 = strstr(buf, "[Player1 \"two\"]");
	ck_assert_msg(g1 != NULL && g2 != NULL, "%s", buf);
	ck_assert_ptr_null(strstr(g1 + 1, "[Player1 \"one\"]"));
	/* tak5's first opening: its four placements open both games */
	const char *first = "1. a2 a3\n2. e1 d2";
	ck_assert_msg(strstr(buf, first) != NULL && strstr(strstr(buf, first) + 1, first) != NULL,
	              "%s", buf);
	/* --concurrency 2: two games at once (a match each, one bridge per engine and match,
	   the second's players named one-2 and two-2), the book cut between them; the archive
	   in the games' order: the first pair (opening 1, the first engine white first), then
	   the second (opening 2) */
	const char *conc[] = {tool,       "match",      "--engine", eng1,   "--engine",
	                      eng2,       "--kind",     "tak size=5", "--tc", "5+0",
	                      "--games",  "4",          "--openings", "tak5", "--ptnout",
	                      ptn,        "--concurrency", "2",       "--quiet", NULL};
	pid = tp_spawn(conc, out, err);
	st = tp_wait(pid, 100);
	ck_assert_msg(st == 0, "bitarena match exited %d: %s", st, tp_slurp(err, buf, sizeof buf));
	ck_assert_msg(strstr(tp_slurp(out, buf, sizeof buf), "match over after 4 games") != NULL,
	              "%s", buf);
	tp_slurp(ptn, buf, sizeof buf);
	const char *order[] = {"[Player1 \"one\"]", "[Player1 \"two\"]", "[Player1 \"one-2\"]",
	                       "[Player1 \"two-2\"]"};
	const char *open[] = {first, first, "1. b2 a5\n2. b3 d2", "1. b2 a5\n2. b3 d2"};
	const char *at = buf;
	for (int i = 0; i < 4; i++) {
		ck_assert_msg((at = strstr(at, order[i])) != NULL, "game %d: %s", i + 1, buf);
		ck_assert_msg((at = strstr(at, open[i])) != NULL, "game %d: %s", i + 1, buf);
	}
	ck_assert_ptr_null(strstr(at, "[Event"));
	/* more at once than game pairs: refused */
	conc[11] = "2";
	pid = tp_spawn(conc, out, err);
	ck_assert_int_eq(tp_wait(pid, 100), 2);
	remove(ptn);
	remove(out);
	remove(err);
	rmdir(dir);
}
END_TEST

static Suite *tourney_suite(void)
{
	Suite *s = suite_create("tourney");
	TCase *tc = tcase_create("loopback");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_roundrobin);
	tcase_add_test(tc, test_kill9_in_a_round);
	tcase_add_test(tc, test_absent_player);
	tcase_add_test(tc, test_swiss);
	tcase_add_test(tc, test_swiss_late_entry);
	tcase_add_test(tc, test_arena);
	tcase_add_test(tc, test_start_time);
	tcase_add_test(tc, test_bots_join_by_themselves);
	tcase_add_test(tc, test_match);
	tcase_add_test(tc, test_adjudication);
	tcase_add_test(tc, test_bitarena_match);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	return check_run(tourney_suite());
}
