/*
 * check_adjudicate.c - the adjudication of engine matches
 * (src/games/adjudicate.c) on constructed Tak games: two stones walking to
 * and fro repeat the position every four plies, so repetition=3 draws at
 * the third occurrence (ply 10 from ply 2), repetition=2 at the second;
 * the same board with the other side to move is another position; stacks
 * formed and split come back too; max_plies; a game that ends by its own
 * rules first; refused entries; options out of range; Xmas Rush without
 * the rule.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/adjudicate.h"
#include "games/game.h"
#include "games/tak/tak.h"
#include "games/xmas/xmas.h"
#include "check_main.h"

#define MAXPLY 64

/* A move list from its words. */
struct list {
	struct game_ply ply[MAXPLY];
	char text[MAXPLY][16];
	size_t n;
};

static void make_list(struct list *l, const char *words)
{
	char buf[1024], *save = NULL;
	snprintf(buf, sizeof buf, "%s", words);
	l->n = 0;
	for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		ck_assert_uint_lt(l->n, MAXPLY);
		snprintf(l->text[l->n], sizeof l->text[l->n], "%s", w);
		l->ply[l->n] =
		        (struct game_ply){.seat = -1, .act = GAME_ACT_MOVE, .text = l->text[l->n]};
		l->n++;
	}
}

static struct game_params tak_params(int size)
{
	struct game_params p;
	game_params_default(&game_tak, &p);
	p.v[TAK_OPT_SIZE] = size;
	p.set[TAK_OPT_SIZE] = true;
	return p;
}

/* a1 and e5 placed, then both stones step out and back: plies 2, 6, 10, ... repeat. */
static const char walk[] = "a1 e5 e5- a1+ e4+ a2- e5- a1+ e4+ a2- e5- a1+ e4+ a2-";

/* adjudicate_moves() on a Tak game of the given size from its words. */
static int adjudicate_words(const char *words, int max_plies, int repetition, int size,
                            struct tak_state *st, struct adjudication_stop *stop)
{
	struct list l;
	struct game_params p = tak_params(size);
	make_list(&l, words);
	return adjudicate_moves(&game_tak, &p, 0, l.ply, l.n, max_plies, repetition, st, stop);
}

static struct adjudication_stop run(const char *words, int max_plies, int repetition, int size)
{
	struct tak_state st;
	struct adjudication_stop stop;
	ck_assert_int_eq(adjudicate_words(words, max_plies, repetition, size, &st, &stop), GAME_OK);
	ck_assert_int_eq(stop.replay.err, GAME_OK);
	ck_assert_int_eq((int)st.ply, stop.ply);
	return stop;
}

START_TEST(test_threefold)
{
	struct adjudication_stop s = run(walk, 0, 3, 5);
	ck_assert_int_eq(s.verdict, ADJ_REPETITION);
	ck_assert_int_eq(s.ply, 10); /* the position of ply 2, a third time */
	ck_assert_int_eq(s.count, 3);
	ck_assert_str_eq(adjudication_reason(s.verdict), "repetition");

	s = run(walk, 0, 2, 5);
	ck_assert_int_eq(s.verdict, ADJ_REPETITION);
	ck_assert_int_eq(s.ply, 6);
	ck_assert_int_eq(s.count, 2);

	/* the rule off: the whole walk is played */
	s = run(walk, 0, 0, 5);
	ck_assert_int_eq(s.verdict, ADJ_NONE);
	ck_assert_int_eq(s.ply, 14);
	ck_assert_ptr_null(adjudication_reason(s.verdict));

	/* one step short of the third occurrence: nothing */
	s = run("a1 e5 e5- a1+ e4+ a2- e5- a1+ e4+", 0, 3, 5);
	ck_assert_int_eq(s.verdict, ADJ_NONE);
	ck_assert_int_eq(s.count, 2); /* ply 9 is ply 5's position, a second time */
}
END_TEST

/* A placement makes every earlier position unreachable: the count starts over. */
START_TEST(test_placement_resets)
{
	/* the walk twice around, a placement, then the walk again: ply 2's position never
	 * comes back, and the new cycle needs its own three occurrences */
	struct adjudication_stop s =
	        run("a1 e5 e5- a1+ e4+ a2- c3 c4 e5- a1+ e4+ a2- e5- a1+ e4+ a2-", 0, 3, 5);
	ck_assert_int_eq(s.verdict, ADJ_REPETITION);
	ck_assert_int_eq(s.ply, 16); /* ply 8's position (after c4) at 12 and 16 */
}
END_TEST

/* Stacks formed and split again: the same stacks, the same position. */
START_TEST(test_stack_repeats)
{
	/* each side stacks its two flats (d1 white on white, a4 black on black) and splits
	 * them again: the position after ply 4 comes back at 8 and 12 */
	static const char game[] = "a5 e1 d1 a4 e1< a5- d1> a4+ e1< a5- d1> a4+";
	struct adjudication_stop s = run(game, 0, 3, 5);
	ck_assert_int_eq(s.verdict, ADJ_REPETITION);
	ck_assert_int_eq(s.ply, 12);
	ck_assert_int_eq(s.count, 3);
}
END_TEST

START_TEST(test_side_to_move)
{
	/* the same board with either side to move: two positions */
	struct adjudicator a;
	struct tak_state w, b;
	struct game_params p = tak_params(5);
	ck_assert_int_eq(tak_load_tps(&w, &p, "x5/x5/x2,1,x2/x,2,x3/x5 1 4"), 0);
	ck_assert_int_eq(tak_load_tps(&b, &p, "x5/x5/x2,1,x2/x,2,x3/x5 2 4"), 0);
	ck_assert_int_eq(adjudicator_init(&a, &game_tak, 0, 2), GAME_OK);
	ck_assert_int_eq(adjudicator_position(&a, &w, 0), ADJ_NONE);
	ck_assert_int_eq(adjudicator_position(&a, &b, 1), ADJ_NONE);
	ck_assert_int_eq(a.last_count, 1);
	/* the move number is no part of the position */
	ck_assert_int_eq(tak_load_tps(&w, &p, "x5/x5/x2,1,x2/x,2,x3/x5 1 9"), 0);
	ck_assert_int_eq(adjudicator_position(&a, &w, 2), ADJ_REPETITION);
	ck_assert_int_eq(a.last_count, 2);
	adjudicator_free(&a);
}
END_TEST

START_TEST(test_max_plies)
{
	struct adjudication_stop s = run(walk, 7, 3, 5);
	ck_assert_int_eq(s.verdict, ADJ_MAX_PLIES);
	ck_assert_int_eq(s.ply, 7);
	ck_assert_str_eq(adjudication_reason(s.verdict), "max_plies");
	/* both due on the same ply: max_plies is named */
	s = run(walk, 10, 3, 5);
	ck_assert_int_eq(s.verdict, ADJ_MAX_PLIES);
	ck_assert_int_eq(s.ply, 10);
	s = run(walk, 11, 3, 5);
	ck_assert_int_eq(s.verdict, ADJ_REPETITION);
	/* at ply 0 already, for a limit of 0 plies there is none */
	s = run("a1 e5", 0, 0, 5);
	ck_assert_int_eq(s.verdict, ADJ_NONE);
}
END_TEST

/* A road ends the game by the rules: moves after it are refused, nothing is adjudicated. */
START_TEST(test_game_ends_first)
{
	struct tak_state st;
	struct adjudication_stop s;
	/* White's a1 b1 c1: a road at ply 5 */
	ck_assert_int_eq(adjudicate_words("a3 a1 b1 a2 c1", 100, 3, 3, &st, &s), GAME_OK);
	ck_assert_int_eq(s.verdict, ADJ_NONE);
	ck_assert_uint_eq(game_tak.to_move(&st), 0);
	ck_assert_int_eq(adjudicate_words("a3 a1 b1 a2 c1 b2", 100, 3, 3, &st, &s), GAME_EOVER);
	ck_assert_int_eq(s.replay.err, GAME_EOVER);
	ck_assert_uint_eq(s.replay.at, 5);
}
END_TEST

START_TEST(test_refused)
{
	struct tak_state st;
	struct adjudication_stop s;
	ck_assert_int_lt(adjudicate_words("a1 e5 e5- a1+ zz9", 0, 3, 5, &st, &s), 0);
	ck_assert_int_lt(s.replay.err, 0);
	ck_assert_uint_eq(s.replay.at, 4);
	ck_assert_int_eq(s.ply, 4);

	struct adjudicator a;
	ck_assert_int_eq(adjudicator_init(&a, &game_tak, -1, 3), GAME_EOPT);
	ck_assert_int_eq(adjudicator_init(&a, &game_tak, 0, 1), GAME_EOPT);
	ck_assert_int_eq(adjudicator_init(&a, &game_tak, 0, -2), GAME_EOPT);
	ck_assert_int_eq(adjudicator_init(&a, &game_tak, 0, 1001), GAME_EOPT);
	ck_assert_int_eq(adjudicate_words("a1 e5", 0, 1, 5, &st, &s), GAME_EOPT);
}
END_TEST

/* Xmas Rush ends by its own turn limit: the rule does not apply, max_plies does. */
START_TEST(test_simultaneous)
{
	struct adjudicator a;
	struct game_params p;
	void *st = calloc(1, game_xmas.state_size);
	ck_assert_ptr_nonnull(st);
	game_params_default(&game_xmas, &p);
	ck_assert_int_eq(game_xmas.init(st, &p, 7), GAME_OK);
	ck_assert_int_eq(adjudicator_init(&a, &game_xmas, 4, 2), GAME_OK);
	ck_assert_int_eq(a.repetition, 0);
	for (int t = 0; t < 4; t++)
		ck_assert_int_eq(adjudicator_position(&a, st, t), ADJ_NONE);
	ck_assert_int_eq(adjudicator_position(&a, st, 4), ADJ_MAX_PLIES);
	adjudicator_free(&a);
	free(st);
}
END_TEST

static Suite *adjudicate_suite(void)
{
	Suite *s = suite_create("adjudicate");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_threefold);
	tcase_add_test(tc, test_placement_resets);
	tcase_add_test(tc, test_stack_repeats);
	tcase_add_test(tc, test_side_to_move);
	tcase_add_test(tc, test_max_plies);
	tcase_add_test(tc, test_game_ends_first);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_simultaneous);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(adjudicate_suite());
}
