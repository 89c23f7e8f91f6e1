/*
 * games/mnk/ - the m,n,k engine (tic-tac-toe is 3,3,3): one engine folder of src/games, beside the
 * other engines, which it never calls. It calls game.c (what every engine
 * shares); the table games.c, the record, the replayer and the search above
 * it reach it only through its game_ops, while the server and the clients
 * may use this header too (tests/layers.py checks the order). Pure: no I/O.
 * Its files, each calling only those below it:
 *   mnk_ops.c       game_ttt and game_mnk: the tables, load, the presentations
 *   mnk_notation.c  cells (b2) and positions (x.o/.x./..o) as text
 *   mnk.c           the rules and the search's evaluation
 *
 * mnk.h - m,n,k games: the state shared by the rules (mnk.c), the notation
 * (mnk_notation.c: cells a1..h8, position text) and the tables (mnk_ops.c).
 *
 * State: one bitboard per side over the core geometry (cell (x, y) = bit
 * y*m + x, rank 1 at the bottom). A move is the cell's bit index.
 */
#ifndef BITARENA_GAMES_MNK_H
#define BITARENA_GAMES_MNK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/bitboard.h"
#include "games/game.h"

struct mnk_state {
	struct bb_geom g;
	int k;
	int ply;
	int last;     /* cell of the last move, -1 before the first */
	int winner;   /* seat with a line, -1 if none */
	bb_t side[2]; /* stones of X (seat 0) and O (seat 1) */
};

extern const struct game_ops game_ttt, game_mnk;

static inline bb_t mnk_empty(const struct mnk_state *s)
{
	return s->g.full & ~(s->side[0] | s->side[1]);
}

static inline bool mnk_over(const struct mnk_state *s)
{
	return s->winner >= 0 || mnk_empty(s) == 0;
}

/* Rules (mnk.c): an empty m x n board with k in a row to win, or GAME_EOPT. */
int mnk_setup(struct mnk_state *s, int m, int n, int k);

/* The options of game_mnk (m, n, k, in this order) and the rules as game_ops entries. */
#define MNK_NOPTS 3
extern const struct game_optdef mnk_opts[MNK_NOPTS];
int mnk_init(void *st, const struct game_params *p, uint64_t seed);
unsigned mnk_to_move(const void *st);
int mnk_legal_moves(const void *st, game_move *out, size_t cap);
int mnk_apply(void *st, game_move m);
void mnk_result(const void *st, struct game_result *r);
int mnk_evaluate(const void *st);

/*
 * Notation (mnk_notation.c), as game_ops entries: a move is its cell, file
 * letter then rank from the bottom ("b2"); a position is the rows from the
 * top down, '/'-separated, each cell x, o or '.' ("x.o/.x./..o").
 */
int mnk_parse_move(const void *st, int seat, const char *text, game_move *m, const char **why);
int mnk_format_move(const void *st, game_move m, char *buf, size_t len);
int mnk_save(const void *st, char *buf, size_t len);
/* Loads a position text onto s, an empty board of its size (mnk_setup). */
int mnk_load_position(struct mnk_state *s, const char *text);
/* 'x', 'o' or '.' for the cell of bit. */
char mnk_cell_char(const struct mnk_state *s, int bit);

#endif
