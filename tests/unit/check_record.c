/*
 * check_record.c - game records (src/games/record.c, and the record of a
 * stored game, src/server/stored_record.c): the exact text written, quoting
 * of awkward move texts, parsing PTN as other programs write it, syntax
 * errors with their line, notes after moves (the clocks of the exports) that
 * the parser skips, the tags of a stored game, and the round trip that
 * matters: play a game in every engine (Xmas Rush with timeouts and invalid
 * lines too), journal it in a real store, export the record, re-import it,
 * replay it and compare the final position with the one played.
 */
#include <check.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/rng.h"
#include "games/game.h"
#include "games/game_replay.h"
#include "games/record.h"
#include "games/xmas/xmas.h"
#include "server/store/store.h"
#include "server/records/stored_record.h"
#include "tmpdir.h"
#include "check_main.h"

START_TEST(test_write_exact)
{
	struct record r;
	record_init(&r);
	ck_assert_int_eq(record_set_tag(&r, "Player1", "alice"), RECORD_OK);
	ck_assert_int_eq(record_set_tag(&r, "Player2", "bob \"the\" \\builder"), RECORD_OK);
	ck_assert_int_eq(record_set_tag(&r, "Result", "*"), RECORD_OK);
	ck_assert_int_eq(record_set_tag(&r, "Result", "R-0"), RECORD_OK); /* replaced in place */
	const char *mv[] = {"a1", "e5", "c3", "c3+", "2d4<11"};
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(record_add_move(&r, mv[i]), RECORD_OK);
	ck_assert_int_eq(record_set_result(&r, "R-0"), RECORD_OK);
	char *text;
	size_t len;
	ck_assert_int_eq(record_write(&r, &text, &len), RECORD_OK);
	ck_assert_str_eq(text, "[Player1 \"alice\"]\n"
	                       "[Player2 \"bob \\\"the\\\" \\\\builder\"]\n"
	                       "[Result \"R-0\"]\n"
	                       "\n"
	                       "1. a1 e5\n"
	                       "2. c3 c3+\n"
	                       "3. 2d4<11 R-0\n");
	ck_assert_uint_eq(len, strlen(text));
	/* And it reads back as the same record. */
	struct record back;
	ck_assert_int_eq(record_parse(text, len, &back, NULL), RECORD_OK);
	ck_assert_uint_eq(back.ntags, 3);
	ck_assert_str_eq(back.tags[1].key, "Player2");
	ck_assert_str_eq(back.tags[1].value, "bob \"the\" \\builder");
	ck_assert_str_eq(record_tag(&back, "Result"), "R-0");
	ck_assert_ptr_null(record_tag(&back, "result")); /* keys are exact */
	ck_assert_uint_eq(back.nmoves, 5);
	for (int i = 0; i < 5; i++)
		ck_assert_str_eq(back.moves[i], mv[i]);
	ck_assert_str_eq(back.result, "R-0");
	free(text);
	record_clear(&back);
	record_clear(&r);
	/* No tags, no moves, no result. */
	ck_assert_int_eq(record_write(&r, &text, NULL), RECORD_OK);
	ck_assert_str_eq(text, "*\n");
	free(text);
	/* Bad keys, values, moves and results are refused. */
	ck_assert_int_eq(record_set_tag(&r, "", "x"), RECORD_EINVAL);
	ck_assert_int_eq(record_set_tag(&r, "Bad Key", "x"), RECORD_EINVAL);
	ck_assert_int_eq(record_set_tag(&r, "Key]", "x"), RECORD_EINVAL);
	ck_assert_int_eq(record_set_tag(&r, "Key", "two\nlines"), RECORD_EINVAL);
	ck_assert_int_eq(record_add_move(&r, "a1\nb2"), RECORD_EINVAL);
	char big[GAME_MOVE_TEXT + 1];
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	ck_assert_int_eq(record_add_move(&r, big), RECORD_EINVAL);
	ck_assert_int_eq(record_set_result(&r, "a1"), RECORD_EINVAL);
	ck_assert_int_eq(record_set_result(&r, "*"), RECORD_OK);
	ck_assert_ptr_null(r.result);
	ck_assert_uint_eq(r.ntags + r.nmoves, 0);
	record_clear(&r);
}
END_TEST

/* Move texts with spaces (Xmas Rush), quotes, or that look like numbers/results survive. */
START_TEST(test_quoting_round_trip)
{
	const char *mv[] = {"PUSH 3 LEFT", "MOVE UP RIGHT", "",   "1.",     "12...", "1-0",
	                    "*",           "say \"hi\"",    "!",  "-1-12",  "0--1",  "back\\slash",
	                    "{x}",         "[y]",           ";z", "3a1>12", "a1'",   "-"};
	size_t n = sizeof mv / sizeof mv[0];
	struct record r, back;
	record_init(&r);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(record_add_move(&r, mv[i]), RECORD_OK);
	/* Xmas Rush scores a fault -1: such results are tokens too, "-" alone is not */
	ck_assert_int_eq(record_set_result(&r, "-"), RECORD_EINVAL);
	ck_assert_int_eq(record_set_result(&r, "1--"), RECORD_EINVAL);
	ck_assert_int_eq(record_set_result(&r, "-1-5"), RECORD_OK);
	char *text;
	ck_assert_int_eq(record_write(&r, &text, NULL), RECORD_OK);
	ck_assert_ptr_nonnull(strstr(text, "1. \"PUSH 3 LEFT\" \"MOVE UP RIGHT\"\n"));
	ck_assert_ptr_nonnull(strstr(text, "5. ! \"-1-12\"\n6. \"0--1\" "));
	ck_assert_ptr_nonnull(strstr(text, "9. a1' - -1-5\n"));
	int line = 0;
	ck_assert_int_eq(record_parse(text, strlen(text), &back, &line), RECORD_OK);
	ck_assert_uint_eq(back.nmoves, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_str_eq(back.moves[i], mv[i]);
	ck_assert_str_eq(back.result, "-1-5");
	free(text);
	record_clear(&back);
	record_clear(&r);
}
END_TEST

/* A move's note is written as a comment after it, and the text still reads back as itself. */
START_TEST(test_notes)
{
	struct record r, back;
	record_init(&r);
	const char *mv[] = {"a1", "e5", "c3"};
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(record_add_move(&r, mv[i]), RECORD_OK);
	ck_assert_int_eq(record_set_note(&r, 0, "[%clk 0:04:58.2]"), RECORD_OK);
	ck_assert_int_eq(record_set_note(&r, 2, "first"), RECORD_OK);
	ck_assert_int_eq(record_set_note(&r, 2, "[%clk 0:00:01.0]"), RECORD_OK); /* replaced */
	ck_assert_int_eq(record_set_note(&r, 3, "x"), RECORD_EINVAL);            /* no move 3 */
	ck_assert_int_eq(record_set_note(&r, 1, "a } b"), RECORD_EINVAL);
	ck_assert_int_eq(record_set_note(&r, 1, "two\nlines"), RECORD_EINVAL);
	ck_assert_int_eq(record_set_result(&r, "R-0"), RECORD_OK);
	char *text;
	ck_assert_int_eq(record_write(&r, &text, NULL), RECORD_OK);
	ck_assert_str_eq(text, "1. a1 {[%clk 0:04:58.2]} e5\n2. c3 {[%clk 0:00:01.0]} R-0\n");
	ck_assert_int_eq(record_parse(text, strlen(text), &back, NULL), RECORD_OK);
	ck_assert_uint_eq(back.nmoves, 3);
	for (int i = 0; i < 3; i++)
		ck_assert_str_eq(back.moves[i], mv[i]);
	ck_assert_str_eq(back.result, "R-0");
	ck_assert_ptr_null(back.notes);
	free(text);
	record_clear(&back);
	/* a note set before more moves come keeps its place */
	ck_assert_int_eq(record_set_note(&r, 2, NULL), RECORD_OK);
	for (int i = 0; i < 100; i++)
		ck_assert_int_eq(record_add_move(&r, "a1"), RECORD_OK);
	ck_assert_int_eq(record_set_note(&r, 102, "last"), RECORD_OK);
	ck_assert_int_eq(record_write(&r, &text, NULL), RECORD_OK);
	ck_assert_ptr_nonnull(strstr(text, "1. a1 {[%clk 0:04:58.2]} e5\n2. c3 a1\n"));
	ck_assert_ptr_nonnull(strstr(text, "a1 {last} R-0\n"));
	free(text);
	record_clear(&r);
}
END_TEST

/* PTN as other programs write it: comments, marks, no spaces after numbers, no result. */
START_TEST(test_parse_foreign_ptn)
{
	const char *ptn = "[Site \"PlayTak.com\"]\r\n"
	                  "[Size \"5\"]   [Komi \"0\"]\n"
	                  "{a comment\nover two lines}\n"
	                  "1. a1 e5 {after black}\n"
	                  "2.c3 c4' ; rest of line ignored\n"
	                  "3... d3!?\n";
	struct record r;
	ck_assert_int_eq(record_parse(ptn, strlen(ptn), &r, NULL), RECORD_OK);
	ck_assert_uint_eq(r.ntags, 3);
	ck_assert_str_eq(record_tag(&r, "Komi"), "0");
	ck_assert_uint_eq(r.nmoves, 5);
	ck_assert_str_eq(r.moves[2], "c3");
	ck_assert_str_eq(r.moves[3], "c4'");
	ck_assert_str_eq(r.moves[4], "d3!?");
	ck_assert_ptr_null(r.result);
	record_clear(&r);
	/* "0-1" result, then only white space and comments. */
	const char *t2 = "1. a1 b1 0-1 {final}\n\n";
	ck_assert_int_eq(record_parse(t2, strlen(t2), &r, NULL), RECORD_OK);
	ck_assert_str_eq(r.result, "0-1");
	ck_assert_uint_eq(r.nmoves, 2);
	record_clear(&r);
	/* Not NUL-terminated: only len bytes count. */
	const char t3[] = {'1', '.', ' ', 'a', '1', ' ', 'b', '2', 'X'};
	ck_assert_int_eq(record_parse(t3, 8, &r, NULL), RECORD_OK);
	ck_assert_uint_eq(r.nmoves, 2);
	ck_assert_str_eq(r.moves[1], "b2");
	record_clear(&r);
}
END_TEST

START_TEST(test_parse_errors)
{
	struct {
		const char *text;
		int line;
	} bad[] = {
	        {"[Size \"5\"\n", 1},             /* no ] */
	        {"[Size 5]\n", 1},                /* unquoted value */
	        {"[Size \"5]\n1. a1", 1},         /* quote runs into the newline */
	        {"[\"5\"]", 1},                   /* no key */
	        {"\n\n1. a1 {never closed\n", 3}, /* open comment */
	        {"1. a1\n[Late \"tag\"]\n", 2},   /* tag after the moves */
	        {"1. a1 1-0 b2\n", 1},            /* move after the result */
	        {"1. a1 \"open\n", 1},            /* open quote */
	        {"1. a1 }", 1},                   /* stray brace */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct record r;
		int line = 0;
		ck_assert_msg(record_parse(bad[i].text, strlen(bad[i].text), &r, &line) ==
		                      RECORD_ESYNTAX,
		              "case %zu", i);
		ck_assert_msg(line == bad[i].line, "case %zu line %d", i, line);
		ck_assert_uint_eq(r.ntags + r.nmoves, 0); /* left cleared */
		ck_assert_ptr_null(r.tags);
	}
	/* A NUL byte inside the text (len counts past it). */
	const char nul[] = "1. a1\n\n b\0c";
	struct record r;
	int line = 0;
	ck_assert_int_eq(record_parse(nul, sizeof nul - 1, &r, &line), RECORD_ESYNTAX);
	ck_assert_int_eq(line, 3);
	ck_assert_str_eq(record_strerror(RECORD_ESYNTAX), "not a valid game record");
}
END_TEST

/* Seeded random move texts of printable bytes survive write + parse; garbage never crashes. */
START_TEST(test_random_round_trip_and_garbage)
{
	struct rng rng;
	rng_seed(&rng, 2026);
	static const char alphabet[] = "ab1 2-\"\\{}[];.*/RF'!?+<>\t";
	for (int iter = 0; iter < 300; iter++) {
		struct record r, back;
		record_init(&r);
		int n = (int)rng_below(&rng, 12);
		for (int i = 0; i < n; i++) {
			char m[24];
			int len = (int)rng_below(&rng, 8);
			for (int j = 0; j < len; j++)
				m[j] = alphabet[rng_below(&rng, sizeof alphabet - 1)];
			m[len] = '\0';
			ck_assert_int_eq(record_add_move(&r, m), RECORD_OK);
		}
		ck_assert_int_eq(record_set_tag(&r, "Note", "x \"y\" {z}"), RECORD_OK);
		char *text;
		size_t len;
		ck_assert_int_eq(record_write(&r, &text, &len), RECORD_OK);
		int line = 0;
		ck_assert_msg(record_parse(text, len, &back, &line) == RECORD_OK, "line %d:\n%s",
		              line, text);
		ck_assert_uint_eq(back.nmoves, r.nmoves);
		for (size_t i = 0; i < r.nmoves; i++)
			ck_assert_str_eq(back.moves[i], r.moves[i]);
		ck_assert_str_eq(record_tag(&back, "Note"), "x \"y\" {z}");
		free(text);
		record_clear(&r);
		record_clear(&back);
		/* Random bytes (NUL included): any answer but a crash or a leak. */
		char junk[64];
		size_t jl = rng_below(&rng, sizeof junk);
		for (size_t j = 0; j < jl; j++)
			junk[j] = (char)rng_below(&rng, 256);
		if (record_parse(junk, jl, &back, NULL) == RECORD_OK)
			record_clear(&back);
	}
}
END_TEST

static void fill_game(struct store_game *g, const char *kind, const char *options)
{
	memset(g, 0, sizeof(*g));
	snprintf(g->kind, sizeof g->kind, "%s", kind);
	snprintf(g->options, sizeof g->options, "%s", options);
	g->seed = 42;
	snprintf(g->players[0], sizeof g->players[0], "alice");
	snprintf(g->players[1], sizeof g->players[1], "Guest3");
	g->guest[1] = true;
	g->time_base_ms = 10 * 60000;
	g->time_inc_ms = 20000;
	g->started = 1700000000000LL; /* 2023-11-14 22:13:20 UTC */
}

START_TEST(test_tags_of_stored_game)
{
	struct store_game g;
	fill_game(&g, "tak", "size=6 komi=5 caps=-1");
	g.id = 77;
	g.status = STORE_FINISHED;
	snprintf(g.result, sizeof g.result, "R-0");
	snprintf(g.reason, sizeof g.reason, "road");
	struct store_move mv[3] = {{.text = "a1"}, {.text = "f6"}, {.text = "Cc3"}};
	g.moves = mv;
	g.plies = 3;
	struct record r;
	record_init(&r);
	ck_assert_int_eq(record_from_game(&g, NULL, &r), RECORD_OK);
	const char *want[][2] = {{"Event", "bitarena game 77"},
	                         {"Site", "bitarena"},
	                         {"Game", "tak"},
	                         {"Date", "2023.11.14"},
	                         {"Time", "22:13:20"},
	                         {"Player1", "alice"},
	                         {"Player2", "Guest3"},
	                         {"Rated", "no"},
	                         {"Clock", "10:0 +20"},
	                         {"Size", "6"},
	                         {"Komi", "2.5"},
	                         {"Flats", "30"},
	                         {"Caps", "1"},
	                         {"Options", "size=6 komi=5 caps=-1"},
	                         {"Seed", "42"},
	                         {"Result", "R-0"},
	                         {"Termination", "road"}};
	size_t nwant = sizeof want / sizeof want[0];
	ck_assert_uint_eq(r.ntags, nwant);
	for (size_t i = 0; i < nwant; i++) {
		ck_assert_str_eq(r.tags[i].key, want[i][0]);
		ck_assert_str_eq(r.tags[i].value, want[i][1]);
	}
	ck_assert_uint_eq(r.nmoves, 3);
	ck_assert_str_eq(r.moves[2], "Cc3");
	ck_assert_str_eq(r.result, "R-0");
	record_clear(&r);
	/* A bot's seat: its title tag right after the players (lichess' WhiteTitle "BOT") */
	record_init(&r);
	ck_assert_int_eq(record_from_game(&g, (const bool[2]){false, true}, &r), RECORD_OK);
	ck_assert_uint_eq(r.ntags, nwant + 1);
	ck_assert_str_eq(r.tags[7].key, "Player2Title");
	ck_assert_str_eq(r.tags[7].value, "BOT");
	ck_assert_ptr_null(record_tag(&r, "Player1Title"));
	record_clear(&r);
	/* Untimed, in progress, not Tak: no Clock, no Termination, result "*". */
	fill_game(&g, "ttt", "");
	g.time_base_ms = g.time_inc_ms = 0;
	ck_assert_int_eq(record_from_game(&g, NULL, &r), RECORD_OK);
	ck_assert_ptr_null(record_tag(&r, "Clock"));
	ck_assert_ptr_null(record_tag(&r, "Termination"));
	ck_assert_ptr_null(record_tag(&r, "Size"));
	ck_assert_str_eq(record_tag(&r, "Result"), "*");
	ck_assert_ptr_null(r.result);
	record_clear(&r);
}
END_TEST

/* Options that make each engine's game interesting; unknown kinds use defaults. */
static const char *options_for(const char *kind)
{
	if (strcmp(kind, "mnk") == 0)
		return "m=5 n=4 k=4";
	if (strcmp(kind, "tak") == 0)
		return "size=5 komi=4";
	return "";
}

/*
 * One seeded random turn of a simultaneous game into sm[] (one row per seat,
 * in seat order) and resolved in st: mostly moves, now and then a timeout
 * or an invalid line (which end the game). Returns the rows written.
 */
static int random_turn(const struct game_ops *ops, void *st, struct rng *rng, int ply,
                       struct store_move *sm)
{
	unsigned mask = ops->to_move(st);
	game_move mv[GAME_MAX_PLAYERS] = {0}, list[64];
	enum game_act acts[GAME_MAX_PLAYERS] = {GAME_ACT_NONE};
	int rows = 0;
	for (int seat = 0; seat < ops->nplayers; seat++) {
		if (!(mask & (1u << seat)))
			continue;
		struct store_move *m = &sm[rows++];
		memset(m, 0, sizeof *m);
		m->ply = ply++;
		m->seat = seat;
		uint32_t dice = rng_below(rng, 100);
		acts[seat] = dice == 0   ? GAME_ACT_NONE
		             : dice == 1 ? GAME_ACT_INVALID
		                         : GAME_ACT_MOVE;
		if (acts[seat] == GAME_ACT_MOVE) {
			/* the engine's own candidates: any legal action of this seat's turn */
			int n = ops->legal_moves(st, list, 64);
			ck_assert_int_gt(n, 0);
			mv[seat] = list[rng_below(rng, (uint32_t)n)];
			ck_assert_int_gt(ops->format_move(st, mv[seat], m->text, sizeof m->text),
			                 0);
		} else {
			snprintf(m->text, sizeof m->text, "%s", game_act_text(acts[seat], NULL));
		}
	}
	ck_assert_int_eq(ops->resolve(st, mv, acts), GAME_OK);
	return rows;
}

/*
 * Plays a seeded random game of ops (at most 80 plies, or turns), journals
 * it in a store, exports the record text, parses it, replays it and compares.
 */
static void round_trip(const struct game_ops *ops, struct store *s, uint64_t seed)
{
	struct store_game g;
	fill_game(&g, ops->name, options_for(ops->name));
	g.seed = seed;
	struct game_params p;
	game_params_default(ops, &p);
	char opts[STORE_OPTIONS_MAX];
	snprintf(opts, sizeof opts, "%s", g.options);
	for (char *w = strtok(opts, " "); w; w = strtok(NULL, " "))
		ck_assert_int_eq(game_param_word(ops, &p, w, NULL), 1);
	void *st = calloc(1, ops->state_size), *replayed = calloc(1, ops->state_size);
	game_move *moves = calloc(ops->max_moves, sizeof(*moves));
	ck_assert(st && replayed && moves);
	ck_assert_int_eq(ops->init(st, &p, seed), 0);
	int64_t id;
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_OK);
	struct rng rng;
	rng_seed(&rng, seed);
	int ply = 0;
	bool sim = (ops->flags & GAME_SIMULTANEOUS) != 0;
	for (int turn = 0; sim && turn < 80 && ops->to_move(st) != 0; turn++) {
		struct store_move sm[GAME_MAX_PLAYERS];
		int rows = random_turn(ops, st, &rng, ply, sm);
		for (int i = 0; i < rows; i++, ply++)
			ck_assert_int_eq(store_move_append(s, id, &sm[i]), STORE_OK);
	}
	for (; !sim && ply < 80 && game_seat_to_move(ops, st) >= 0; ply++) {
		int n = ops->legal_moves(st, moves, ops->max_moves);
		ck_assert_int_gt(n, 0);
		game_move m = moves[rng_below(&rng, (uint32_t)n)];
		struct store_move sm = {.ply = ply, .seat = game_seat_to_move(ops, st)};
		ck_assert_int_gt(ops->format_move(st, m, sm.text, sizeof sm.text), 0);
		ck_assert_int_eq(ops->apply(st, m), 0);
		ck_assert_int_eq(store_move_append(s, id, &sm), STORE_OK);
	}
	struct game_result res;
	ops->result(st, &res);
	struct store_finish fin = {.status = STORE_FINISHED,
	                           .result = res.over ? res.score : "",
	                           .winner = res.over ? res.winner : -1,
	                           .reason = res.over ? res.reason : "adjourned",
	                           .ended = g.started + 1000};
	ck_assert_int_eq(store_game_finish(s, id, &fin), STORE_OK);

	/* Export from the store. */
	struct store_game f;
	ck_assert_int_eq(store_game_fetch(s, id, &f), STORE_OK);
	ck_assert_int_eq(f.plies, ply);
	struct record r, back;
	record_init(&r);
	ck_assert_int_eq(record_from_game(&f, NULL, &r), RECORD_OK);
	char *text;
	size_t len;
	ck_assert_int_eq(record_write(&r, &text, &len), RECORD_OK);
	/* Re-import and replay; the engine comes from the Game tag. */
	int line = 0, bad = 0;
	ck_assert_msg(record_parse(text, len, &back, &line) == RECORD_OK, "line %d of\n%s", line,
	              text);
	ck_assert_uint_eq(back.nmoves, (size_t)ply);
	const struct game_ops *used = NULL;
	ck_assert_msg(record_replay(&back, NULL, replayed, &used, &bad) == RECORD_OK,
	              "%s: ply %d of\n%s", ops->name, bad, text);
	ck_assert_ptr_eq(used, ops);
	ck_assert_msg(memcmp(st, replayed, ops->state_size) == 0, "%s: positions differ\n%s",
	              ops->name, text);
	if (res.over) {
		struct game_result res2;
		ops->result(replayed, &res2);
		ck_assert(res2.over);
		ck_assert_str_eq(res2.score, res.score);
		ck_assert_str_eq(back.result, res.score);
	}
	/* A corrupted move is reported with its ply. */
	if (back.nmoves > 1) {
		free(back.moves[1]);
		back.moves[1] = strdup("zz99");
		ck_assert_int_eq(record_replay(&back, NULL, replayed, NULL, &bad), RECORD_EGAME);
		ck_assert_int_eq(bad, 1);
	}
	/* A simultaneous turn cut in half replays up to the turn before it. */
	if (sim && back.nmoves >= 3) {
		while (back.nmoves > 3)
			free(back.moves[--back.nmoves]);
		ck_assert_int_eq(record_replay(&back, NULL, replayed, NULL, &bad), RECORD_EGAME);
		ck_assert_int_eq(bad, 1); /* still the corrupted move */
		free(back.moves[1]);
		back.moves[1] = strdup(r.moves[1]);
		ck_assert_int_eq(record_replay(&back, NULL, replayed, NULL, &bad), RECORD_EPARTIAL);
		ck_assert_int_eq(bad, 2);
	}
	free(text);
	record_clear(&r);
	record_clear(&back);
	store_game_clear(&f);
	free(st);
	free(replayed);
	free(moves);
}

START_TEST(test_export_import_replay)
{
	char dir[256];
	tmpdir_make(dir, sizeof dir, "check_record");
	struct store *s = NULL;
	ck_assert_int_eq(store_open(dir, &s), STORE_OK);
	int sequential = 0, simultaneous = 0;
	bool have_ttt = false;
	for (int i = 0; game_table[i]; i++) {
		const struct game_ops *ops = game_table[i];
		have_ttt |= strcmp(ops->name, "ttt") == 0;
		for (uint64_t seed = 1; seed <= 4; seed++)
			round_trip(ops, s, seed * 7919);
		if (ops->flags & GAME_SIMULTANEOUS)
			simultaneous++;
		else
			sequential++;
	}
	ck_assert(have_ttt);
	ck_assert_int_ge(sequential, 2);
	ck_assert_int_ge(simultaneous, 1);
	store_close(s);
	tmpdir_remove(dir);
}
END_TEST

/* Replay of foreign Tak PTN (no Game or Options tag: Size decides), when Tak is built in. */
/* A seed's one form: signed; the unsigned form records had before reads as the same 64 bits. */
START_TEST(test_seed_forms)
{
	char buf[GAME_SEED_TEXT];
	ck_assert_str_eq(game_seed_text(0xFFFFFFFFFFFFFFFBULL, buf), "-5");
	ck_assert_str_eq(game_seed_text(42, buf), "42");
	ck_assert_str_eq(game_seed_text(1ULL << 63, buf), "-9223372036854775808");
	uint64_t v;
	ck_assert(game_seed_parse("-5", &v) && v == 0xFFFFFFFFFFFFFFFBULL);
	ck_assert(game_seed_parse("18446744073709551611", &v) && v == 0xFFFFFFFFFFFFFFFBULL);
	ck_assert(game_seed_parse("-9223372036854775808", &v) && v == 1ULL << 63);
	ck_assert(!game_seed_parse("-9223372036854775809", &v));
	ck_assert(!game_seed_parse("18446744073709551616", &v));
	ck_assert(!game_seed_parse("", &v) && !game_seed_parse("-", &v) &&
	          !game_seed_parse("5x", &v));
	ck_assert(!game_seed_parse("+5", &v) && !game_seed_parse(" 5", &v));
	/* a dealt Xmas Rush game replays alike from either form of its Seed tag */
	struct xmas_state a, b;
	const char *forms[2] = {"-5", "18446744073709551611"};
	for (int k = 0; k < 2; k++) {
		struct record r;
		record_init(&r);
		ck_assert_int_eq(record_set_tag(&r, "Game", "xmas"), RECORD_OK);
		ck_assert_int_eq(record_set_tag(&r, "Options", "seed=random pool=3"), RECORD_OK);
		ck_assert_int_eq(record_set_tag(&r, "Seed", forms[k]), RECORD_OK);
		ck_assert_int_eq(record_replay(&r, NULL, k == 0 ? &a : &b, NULL, NULL), RECORD_OK);
		record_clear(&r);
	}
	ck_assert_mem_eq(&a, &b, sizeof a);
	ck_assert_int_eq(a.seed, -5);
	ck_assert_int_eq(a.dealt, 1);
	/* and one that is no seed is refused */
	struct record r;
	record_init(&r);
	ck_assert_int_eq(record_set_tag(&r, "Game", "xmas"), RECORD_OK);
	ck_assert_int_eq(record_set_tag(&r, "Seed", "0x10"), RECORD_OK);
	ck_assert_int_eq(record_replay(&r, NULL, &a, NULL, NULL), RECORD_EGAME);
	record_clear(&r);
}
END_TEST

START_TEST(test_replay_plain_ptn)
{
	const struct game_ops *tak = game_find("tak");
	if (!tak)
		return; /* the table has no Tak engine in this build */
	const char *ptn = "[Size \"4\"]\n\n1. a1 d4\n2. b2 c3\n3. b2< {x} c3- 0-1\n";
	struct record r;
	ck_assert_int_eq(record_parse(ptn, strlen(ptn), &r, NULL), RECORD_OK);
	void *st = calloc(1, tak->state_size);
	const struct game_ops *used = NULL;
	ck_assert_int_eq(record_replay(&r, NULL, st, &used, NULL), RECORD_OK);
	ck_assert_ptr_eq(used, tak);
	char tps[256];
	ck_assert_int_gt(tak->save(st, tps, sizeof tps), 0);
	ck_assert_str_eq(tps, "x3,1/x4/1,x,2,x/2,x3 1 4");
	free(st);
	record_clear(&r);
}
END_TEST

static Suite *record_suite(void)
{
	Suite *s = suite_create("record");
	TCase *tc = tcase_create("record");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_write_exact);
	tcase_add_test(tc, test_quoting_round_trip);
	tcase_add_test(tc, test_notes);
	tcase_add_test(tc, test_parse_foreign_ptn);
	tcase_add_test(tc, test_parse_errors);
	tcase_add_test(tc, test_random_round_trip_and_garbage);
	tcase_add_test(tc, test_tags_of_stored_game);
	tcase_add_test(tc, test_export_import_replay);
	tcase_add_test(tc, test_replay_plain_ptn);
	tcase_add_test(tc, test_seed_forms);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(record_suite());
}
