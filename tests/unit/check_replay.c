/*
 * check_replay.c - the move-list replayer (src/games/game_replay.c) and the
 * scores of results (src/games/game.c). Every game of the table is played at
 * random straight through its engine (apply, or resolve with every seat's
 * act, Xmas Rush's timeouts and invalid lines included), written down as a
 * move list of canonical texts, and replayed: the whole-list form and the
 * step-wise form must reach every position the direct play did. Then what
 * the replayer refuses, where it stops and that a refused entry changes
 * nothing: moves out of turn, acts other than moves in sequential games,
 * garbage, moves after the end, a seat twice in one turn, a list cut inside
 * a simultaneous turn.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "games/game.h"
#include "games/game_replay.h"
#include "games/xmas/xmas.h"
#include "check_main.h"

#define MAX_ENTRIES 600

/* A game played straight through its engine, with the list that says how. */
struct played {
	const struct game_ops *ops;
	struct game_params p;
	uint64_t seed;
	struct game_ply list[MAX_ENTRIES];
	char text[MAX_ENTRIES][GAME_MOVE_TEXT];
	size_t n;
	int plies;                           /* plies or turns made */
	unsigned char *pos;                  /* the position after each: plies + 1 */
	size_t whole_after[MAX_ENTRIES + 1]; /* entries taken after each ply or turn */
};

static void *state_of(struct played *g, int ply)
{
	return g->pos + (size_t)ply * g->ops->state_size;
}

static struct game_ply *add(struct played *g, int seat, enum game_act act, const char *text)
{
	ck_assert_uint_lt(g->n, MAX_ENTRIES);
	snprintf(g->text[g->n], GAME_MOVE_TEXT, "%s", text);
	g->list[g->n] = (struct game_ply){.seat = seat, .act = act, .text = g->text[g->n]};
	return &g->list[g->n++];
}

/* Candidate moves of seat now: Xmas Rush's full list for that seat, else legal_moves(). */
static int candidates(const struct game_ops *ops, const void *st, int seat, game_move *out,
                      size_t cap)
{
	if (ops == &game_xmas)
		return xmas_moves_for(st, seat, out, cap);
	return ops->legal_moves(st, out, cap);
}

/*
 * Plays a seeded random game of ops (options: defaults) for at most max
 * plies or turns. Simultaneous seats time out or send an invalid line once
 * in `fault` acts (0: never).
 */
static struct played *play(const struct game_ops *ops, uint64_t seed, int max, uint32_t fault)
{
	struct played *g = calloc(1, sizeof *g);
	ck_assert_ptr_nonnull(g);
	g->ops = ops;
	g->seed = seed;
	g->pos = calloc((size_t)max + 1, ops->state_size);
	ck_assert_ptr_nonnull(g->pos);
	game_params_default(ops, &g->p);
	ck_assert_int_eq(ops->init(state_of(g, 0), &g->p, seed), GAME_OK);
	struct rng rng;
	rng_seed(&rng, seed);
	game_move list[512];
	while (g->plies < max && ops->to_move(state_of(g, g->plies)) != 0) {
		void *now = state_of(g, g->plies), *next = state_of(g, g->plies + 1);
		unsigned mask = ops->to_move(now);
		game_move mv[GAME_MAX_PLAYERS] = {0};
		enum game_act acts[GAME_MAX_PLAYERS] = {GAME_ACT_NONE};
		char text[GAME_MOVE_TEXT] = "";
		memcpy(next, now, ops->state_size);
		for (int seat = 0; seat < ops->nplayers; seat++) {
			if (!(mask & (1u << seat)))
				continue;
			uint32_t dice = fault ? rng_below(&rng, fault) : 2;
			acts[seat] = dice == 0   ? GAME_ACT_NONE
			             : dice == 1 ? GAME_ACT_INVALID
			                         : GAME_ACT_MOVE;
			if (!(ops->flags & GAME_SIMULTANEOUS))
				acts[seat] = GAME_ACT_MOVE;
			if (acts[seat] == GAME_ACT_MOVE) {
				int n = candidates(ops, now, seat, list, 512);
				ck_assert_int_gt(n, 0);
				mv[seat] = list[rng_below(&rng, (uint32_t)n)];
				ck_assert_int_gt(ops->format_move(now, mv[seat], text, sizeof text),
				                 0);
			}
			/* seats written as -1 (the replayer finds them) or given, by turns */
			add(g, g->plies % 2 ? seat : -1, acts[seat],
			    game_act_text(acts[seat], text));
		}
		if (ops->flags & GAME_SIMULTANEOUS)
			ck_assert_int_eq(ops->resolve(next, mv, acts), GAME_OK);
		else
			ck_assert_int_eq(ops->apply(next, mv[game_seat_to_move(ops, now)]),
			                 GAME_OK);
		g->plies++;
		g->whole_after[g->plies] = g->n;
	}
	return g;
}

static void played_free(struct played *g)
{
	free(g->pos);
	free(g);
}

/* The whole list and the steps reach every position of the direct play. */
static void check_replays(struct played *g)
{
	const struct game_ops *ops = g->ops;
	void *st = calloc(1, ops->state_size);
	ck_assert_ptr_nonnull(st);
	struct game_replay_stop stop;
	ck_assert_int_eq(game_replay_moves(ops, &g->p, g->seed, g->list, g->n, st, &stop), GAME_OK);
	ck_assert_uint_eq(stop.at, g->n);
	ck_assert_uint_eq(stop.whole, g->n);
	ck_assert_int_eq(stop.ply, g->plies);
	ck_assert_ptr_null(stop.why);
	ck_assert_msg(memcmp(st, state_of(g, g->plies), ops->state_size) == 0,
	              "%s seed %llu: the replayed position differs", ops->name,
	              (unsigned long long)g->seed);

	struct game_replay rp;
	ck_assert_int_eq(game_replay_start(&rp, ops, st, &g->p, g->seed), GAME_OK);
	ck_assert(memcmp(st, state_of(g, 0), ops->state_size) == 0);
	for (size_t i = 0; i < g->n; i++) {
		int r = game_replay_step(&rp, &g->list[i], NULL);
		ck_assert_int_ge(r, 0);
		ck_assert_uint_eq(rp.entries, i + 1);
		if (r == GAME_REPLAY_PENDING) {
			ck_assert(ops->flags & GAME_SIMULTANEOUS);
			ck_assert_uint_lt(rp.whole, rp.entries);
			continue;
		}
		ck_assert_int_eq(r, GAME_REPLAY_MADE);
		ck_assert_uint_eq(rp.whole, rp.entries);
		ck_assert_uint_eq(rp.whole, g->whole_after[rp.ply]);
		ck_assert_msg(memcmp(st, state_of(g, rp.ply), ops->state_size) == 0,
		              "%s seed %llu: step %zu differs", ops->name,
		              (unsigned long long)g->seed, i);
	}
	ck_assert_int_eq(rp.ply, g->plies);
	free(st);
}

START_TEST(test_every_game_replays)
{
	int games = 0;
	for (int i = 0; game_table[i] != NULL; i++) {
		const struct game_ops *ops = game_table[i];
		for (uint64_t seed = 1; seed <= 6; seed++) {
			/* Xmas Rush: faults now and then (they end the game), and clean games */
			struct played *g = play(ops, seed * 104729, 200, seed % 2 ? 120 : 0);
			ck_assert_int_gt(g->plies, 0);
			check_replays(g);
			played_free(g);
		}
		games++;
	}
	ck_assert_int_ge(games, 4);
}
END_TEST

/* An entry the replayer refuses: its error, and the position and counts unchanged. */
static void refused(struct game_replay *rp, const struct game_ply *e, int err)
{
	const struct game_ops *ops = rp->ops;
	unsigned char before[GAME_STATE_MAX];
	struct game_replay copy = *rp;
	memcpy(before, rp->st, ops->state_size);
	ck_assert_int_eq(game_replay_step(rp, e, NULL), err);
	ck_assert(memcmp(before, rp->st, ops->state_size) == 0);
	ck_assert(memcmp(&copy, rp, sizeof copy) == 0);
}

START_TEST(test_sequential_refusals)
{
	const struct game_ops *ttt = game_find("ttt");
	ck_assert_ptr_nonnull(ttt);
	struct game_params p;
	game_params_default(ttt, &p);
	unsigned char st[GAME_STATE_MAX];
	struct game_replay rp;
	ck_assert_int_eq(game_replay_start(&rp, ttt, st, &p, 0), GAME_OK);
	refused(&rp, &(struct game_ply){1, GAME_ACT_MOVE, "b2"}, GAME_ETURN); /* X moves first */
	refused(&rp, &(struct game_ply){-1, GAME_ACT_NONE, ""}, GAME_ESYNTAX);
	refused(&rp, &(struct game_ply){-1, GAME_ACT_INVALID, "!"}, GAME_ESYNTAX);
	refused(&rp, &(struct game_ply){-1, GAME_ACT_MOVE, "zz"}, GAME_ESYNTAX);
	refused(&rp, &(struct game_ply){-1, GAME_ACT_MOVE, "d9"},
	        GAME_EILLEGAL); /* off the board */
	ck_assert_int_eq(game_replay_step(&rp, &(struct game_ply){0, GAME_ACT_MOVE, "b2"}, NULL),
	                 GAME_REPLAY_MADE);
	const char *why = "unset";
	ck_assert_int_lt(game_replay_step(&rp, &(struct game_ply){-1, GAME_ACT_MOVE, "b2"}, &why),
	                 0);
	ck_assert_ptr_nonnull(why); /* the engine says what is wrong with an occupied cell */

	/* The whole list: X wins on the diagonal; a move after that is refused where it stands. */
	const char *texts[] = {"a1", "a2", "b2", "a3", "c3", "b1"};
	struct game_ply list[6];
	for (int i = 0; i < 6; i++)
		list[i] = (struct game_ply){-1, GAME_ACT_MOVE, texts[i]};
	struct game_replay_stop stop;
	ck_assert_int_eq(game_replay_moves(ttt, &p, 0, list, 6, st, &stop), GAME_EOVER);
	ck_assert_uint_eq(stop.at, 5);
	ck_assert_uint_eq(stop.whole, 5);
	ck_assert_int_eq(stop.ply, 5);
	struct game_result res;
	ttt->result(st, &res);
	ck_assert(res.over);
	ck_assert_int_eq(res.winner, 0);
	ck_assert_str_eq(game_result_score(&res), "1-0");
	/* An illegal move in the middle: stopped there, with the engine's sentence. */
	list[3].text = "b2";
	ck_assert_int_eq(game_replay_moves(ttt, &p, 0, list, 6, st, &stop), GAME_EILLEGAL);
	ck_assert_uint_eq(stop.at, 3);
	ck_assert_uint_eq(stop.whole, 3);
	ck_assert_int_eq(stop.ply, 3);
	ck_assert_ptr_nonnull(stop.why);
	/* Options the engine refuses: nothing played. */
	const struct game_ops *mnk = game_find("mnk");
	ck_assert_ptr_nonnull(mnk);
	game_params_default(mnk, &p);
	ck_assert_int_eq(game_param_word(mnk, &p, "m=3", NULL), 1);
	ck_assert_int_eq(game_param_word(mnk, &p, "n=3", NULL), 1);
	ck_assert_int_eq(game_param_word(mnk, &p, "k=5", NULL), 1);
	ck_assert_int_eq(game_replay_moves(mnk, &p, 0, list, 6, st, &stop), GAME_EOPT);
	ck_assert_uint_eq(stop.at, 0);
	ck_assert_int_eq(stop.ply, 0);
	/* An empty list is the start position. */
	game_params_default(ttt, &p);
	ck_assert_int_eq(game_replay_moves(ttt, &p, 0, list, 0, st, &stop), GAME_OK);
	ck_assert_int_eq(game_seat_to_move(ttt, st), 0);
}
END_TEST

/* A fresh Xmas Rush game of seed 7 and its first turn's acts, resolved straight. */
static void xmas_direct(struct xmas_state *st, const game_move *mv, const enum game_act *acts)
{
	ck_assert_int_eq(xmas_start(st, 7, 3), GAME_OK);
	ck_assert_int_eq(game_xmas.resolve(st, mv, acts), GAME_OK);
}

static void xmas_replay_start(struct game_replay *rp, struct xmas_state *st)
{
	struct game_params p;
	xmas_params(&p, 7, 3);
	ck_assert_int_eq(game_replay_start(rp, &game_xmas, st, &p, 0), GAME_OK);
}

/* One turn of two entries through the replayer; returns the final step's value. */
static int xmas_turn(struct game_replay *rp, struct game_ply a, struct game_ply b)
{
	ck_assert_int_eq(game_replay_step(rp, &a, NULL), GAME_REPLAY_PENDING);
	return game_replay_step(rp, &b, NULL);
}

START_TEST(test_xmas_acts)
{
	struct xmas_state direct, st;
	struct game_replay rp;
	struct game_result res;
	game_move push = xmas_move_push(3, XMAS_RIGHT), mv[2] = {push, push};
	const char *push_text = "PUSH 3 RIGHT";

	/* seat 1 sends nothing in time: the referee's timeout, seat 0 wins */
	enum game_act timeout[2] = {GAME_ACT_MOVE, GAME_ACT_NONE};
	game_move one[2] = {push, 0};
	xmas_direct(&direct, one, timeout);
	xmas_replay_start(&rp, &st);
	ck_assert_int_eq(xmas_turn(&rp, (struct game_ply){-1, GAME_ACT_MOVE, push_text},
	                           (struct game_ply){-1, GAME_ACT_NONE, ""}),
	                 GAME_REPLAY_MADE);
	ck_assert(memcmp(&st, &direct, sizeof st) == 0);
	game_xmas.result(&st, &res);
	ck_assert(res.over);
	ck_assert_int_eq(res.winner, 0);
	ck_assert_str_eq(res.reason, "timeout");
	ck_assert_int_eq(st.pl[1].score, -1);
	refused(&rp, &(struct game_ply){-1, GAME_ACT_MOVE, push_text}, GAME_EOVER);

	/* seat 0's line was refused: the referee's invalid action, seat 1 wins */
	enum game_act invalid[2] = {GAME_ACT_INVALID, GAME_ACT_MOVE};
	game_move other[2] = {0, push};
	xmas_direct(&direct, other, invalid);
	xmas_replay_start(&rp, &st);
	ck_assert_int_eq(xmas_turn(&rp, (struct game_ply){0, GAME_ACT_INVALID, "!"},
	                           (struct game_ply){1, GAME_ACT_MOVE, push_text}),
	                 GAME_REPLAY_MADE);
	ck_assert(memcmp(&st, &direct, sizeof st) == 0);
	game_xmas.result(&st, &res);
	ck_assert_int_eq(res.winner, 1);
	ck_assert_str_eq(res.reason, "invalid_action");
	ck_assert_str_eq(game_result_score(&res), "-1-0");

	/* both pushes, the seats given in the other order: the same turn */
	enum game_act both[2] = {GAME_ACT_MOVE, GAME_ACT_MOVE};
	mv[1] = xmas_move_push(0, XMAS_UP);
	xmas_direct(&direct, mv, both);
	xmas_replay_start(&rp, &st);
	struct game_ply second = {1, GAME_ACT_MOVE, "PUSH 0 UP"};
	ck_assert_int_eq(game_replay_step(&rp, &second, NULL), GAME_REPLAY_PENDING);
	ck_assert_uint_eq(rp.acted, 2u);
	refused(&rp, &second, GAME_ETURN); /* twice */
	refused(&rp, &(struct game_ply){-1, GAME_ACT_MOVE, "MOVE UP"},
	        GAME_EPHASE); /* a PUSH turn */
	refused(&rp, &(struct game_ply){0, GAME_ACT_MOVE, "PUSH 9 UP"}, GAME_ESYNTAX);
	refused(&rp, &(struct game_ply){2, GAME_ACT_MOVE, push_text}, GAME_ETURN);
	ck_assert_int_eq(
	        game_replay_step(&rp, &(struct game_ply){-1, GAME_ACT_MOVE, push_text}, NULL),
	        GAME_REPLAY_MADE);
	ck_assert(memcmp(&st, &direct, sizeof st) == 0);
	ck_assert_int_eq(rp.ply, 1);
	ck_assert_uint_eq(rp.whole, 2);
	ck_assert_uint_eq(rp.acted, 0);
	ck_assert_int_eq(st.turn, 2);

	/* a turn cut in half (a crash between two journal rows) is dropped, not played */
	ck_assert_int_eq(game_replay_step(&rp, &(struct game_ply){-1, GAME_ACT_MOVE, "PASS"}, NULL),
	                 GAME_REPLAY_PENDING);
	ck_assert(memcmp(&st, &direct, sizeof st) == 0);
	ck_assert_uint_eq(game_replay_drop_open_turn(&rp), 1);
	ck_assert_uint_eq(rp.entries, 2);
	ck_assert_uint_eq(rp.acted, 0);
	ck_assert_uint_eq(game_replay_drop_open_turn(&rp), 0);
	ck_assert_int_eq(xmas_turn(&rp, (struct game_ply){-1, GAME_ACT_MOVE, "PASS"},
	                           (struct game_ply){-1, GAME_ACT_NONE, ""}),
	                 GAME_REPLAY_MADE);
	ck_assert(st.over);
}
END_TEST

/* Replays the first n entries of g's list: err, where it stopped, the position at ply. */
static void expect_stop(struct played *g, size_t n, int err, size_t at, size_t whole, int ply)
{
	unsigned char st[GAME_STATE_MAX];
	struct game_replay_stop stop;
	ck_assert_int_eq(game_replay_moves(g->ops, &g->p, g->seed, g->list, n, st, &stop), err);
	ck_assert_int_eq(stop.err, err);
	ck_assert_uint_eq(stop.at, at);
	ck_assert_uint_eq(stop.whole, whole);
	ck_assert_int_eq(stop.ply, ply);
	ck_assert(memcmp(st, state_of(g, ply), g->ops->state_size) == 0);
}

START_TEST(test_xmas_list_cut_in_a_turn)
{
	struct played *g = play(&game_xmas, 99, 30, 0);
	ck_assert_int_eq(g->plies, 30);
	ck_assert_uint_eq(g->n, 60);
	/* 41 entries: 20 whole turns and seat 0's act of the 21st */
	expect_stop(g, 41, GAME_EPARTIAL, 41, 40, 20);
	/* a bad text for seat 1 of turn 11: stopped there, the position after turn 10 */
	snprintf(g->text[21], GAME_MOVE_TEXT, "JUMP");
	expect_stop(g, 60, GAME_ESYNTAX, 21, 20, 10);
	played_free(g);
}
END_TEST

START_TEST(test_scores_and_act_texts)
{
	ck_assert_str_eq(game_score_text(0), "1-0");
	ck_assert_str_eq(game_score_text(1), "0-1");
	ck_assert_str_eq(game_score_text(-1), "1/2-1/2");
	ck_assert(game_score_value(0, 0) == 1.0 && game_score_value(0, 1) == 0.0);
	ck_assert(game_score_value(1, 0) == 0.0 && game_score_value(1, 1) == 1.0);
	ck_assert(game_score_value(-1, 0) == 0.5 && game_score_value(-1, 1) == 0.5);
	struct game_result r = {.over = true, .winner = 1};
	ck_assert_str_eq(game_result_score(&r), "0-1");
	snprintf(r.score, sizeof r.score, "0-R");
	ck_assert_str_eq(game_result_score(&r), "0-R");

	ck_assert_int_eq(game_act_of_text(""), GAME_ACT_NONE);
	ck_assert_int_eq(game_act_of_text("!"), GAME_ACT_INVALID);
	ck_assert_int_eq(game_act_of_text("!!"), GAME_ACT_MOVE);
	ck_assert_int_eq(game_act_of_text("PUSH 1 UP"), GAME_ACT_MOVE);
	ck_assert_str_eq(game_act_text(GAME_ACT_NONE, "x"), GAME_ACT_TEXT_NONE);
	ck_assert_str_eq(game_act_text(GAME_ACT_INVALID, "x"), GAME_ACT_TEXT_INVALID);
	ck_assert_str_eq(game_act_text(GAME_ACT_MOVE, "x"), "x");
	for (int a = GAME_ACT_NONE; a <= GAME_ACT_INVALID; a++)
		ck_assert_int_eq(game_act_of_text(game_act_text(a, "b2")), a);
	ck_assert_str_eq(game_strerror(GAME_EPARTIAL), "the moves end inside a simultaneous turn");
}
END_TEST

static Suite *replay_suite(void)
{
	Suite *s = suite_create("replay");
	TCase *tc = tcase_create("replay");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_every_game_replays);
	tcase_add_test(tc, test_sequential_refusals);
	tcase_add_test(tc, test_xmas_acts);
	tcase_add_test(tc, test_xmas_list_cut_in_a_turn);
	tcase_add_test(tc, test_scores_and_act_texts);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(replay_suite());
}
