/*
 * seq.h - properties of the notation of a sequential game (Tak, m,n,k), shared
 * by fuzz_tak.c and fuzz_mnk.c. Every check aborts through FUZZ_CHECK.
 */
#ifndef BITARENA_TESTS_FUZZ_SEQ_H
#define BITARENA_TESTS_FUZZ_SEQ_H

#include <stdbool.h>

#include "games/game.h"

/* What seq_check_position() checks besides save/load, to_move, result and perft 1. */
enum {
	SEQ_MOVES = 1,  /* every legal move formats and parses back to itself */
	SEQ_PERFT2 = 2, /* the engine's perft 2 equals copy-make's (at most 100 moves) */
};

/*
 * A position st of ops (made with params p) must survive save and load:
 * save succeeds, the text loads with p, the reloaded position saves to the
 * same text, and both positions agree on to_move, result and the number of
 * legal moves; an engine with its own perft counts as many moves at depth 1
 * (with SEQ_PERFT2, and at most 100 moves, as many as copy-make at depth 2).
 * With SEQ_MOVES, every legal move is also formatted, parsed back for the seat
 * to move, and must come back as the same move.
 */
void seq_check_position(const struct game_ops *ops, const struct game_params *p, const void *st,
                        unsigned what);

/*
 * Parses text as a move in st. The seat not to move gets GAME_ETURN (or
 * GAME_EOVER); for the seat to move a successful parse must give a legal move
 * (one of legal_moves()), format to a text that parses to the same move, and
 * after apply() on a copy, the new position passes seq_check_position(what).
 */
void seq_try_move(const struct game_ops *ops, const struct game_params *p, const void *st,
                  const char *text, unsigned what);

#endif
