/*
 * game_replay.h - the one way to replay a game: a move list played onto a
 * fresh position (engine, options, seed) through the engine's own notation.
 * The server's recovery, takeback and `replay` verb, game records and the
 * `bitarena replay` tool all go through it.
 *
 * A move list is a sequence of struct game_ply:
 *  - sequential games (m,n,k, Tak): one entry per ply, each a move of the
 *    seat to move;
 *  - simultaneous games (Xmas Rush): one entry per seat per turn, in seat
 *    order, each with its act: a move, nothing in time (GAME_ACT_NONE, the
 *    referee's timeout) or a refused line (GAME_ACT_INVALID). A turn is
 *    resolved when every seat of it has its entry; a list may end inside a
 *    turn (a journal cut by a crash), and that half turn changes nothing.
 * Journals and records write those acts as texts: GAME_ACT_TEXT_NONE ("")
 * and GAME_ACT_TEXT_INVALID ("!"); game_act_of_text() reads them back.
 *
 * Two forms: game_replay_moves() plays a whole list and says how far it got
 * and why it stopped; the step-wise struct game_replay takes one entry at a
 * time (the server streams one position per ply or turn, and puts its own
 * bookkeeping beside each entry). Both leave the position as it was before
 * the refused entry: nothing half-applied, ever. No allocation, no I/O.
 */
#ifndef BITARENA_GAMES_GAME_REPLAY_H
#define BITARENA_GAMES_GAME_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "games/game.h"

#define GAME_ACT_TEXT_NONE    ""  /* the text of GAME_ACT_NONE in journals and records */
#define GAME_ACT_TEXT_INVALID "!" /* the text of GAME_ACT_INVALID */

/* One entry of a move list. */
struct game_ply {
	int seat;          /* who acts; -1: the seat to move (simultaneous: the next of the
	                      turn, in seat order) */
	enum game_act act; /* GAME_ACT_MOVE; NONE and INVALID in simultaneous games only */
	const char *text;  /* the move as the engine's parse_move() reads it (act MOVE) */
};

/* The act a journal or record text stands for: "" none, "!" invalid, anything else a move. */
enum game_act game_act_of_text(const char *text);
/* The journal or record text of an act: text itself for a move, else "" or "!". */
const char *game_act_text(enum game_act act, const char *text);

/* What game_replay_step() says besides an error. */
enum game_replay_step {
	GAME_REPLAY_PENDING = 0, /* taken; the simultaneous turn waits for its other seats */
	GAME_REPLAY_MADE = 1     /* the position changed: a ply made, or a turn resolved */
};

/* A replay under way (all fields are the caller's to read). */
struct game_replay {
	const struct game_ops *ops;
	void *st;       /* the position: the caller's buffer of ops->state_size bytes */
	size_t entries; /* entries taken, the open turn's included */
	size_t whole;   /* entries that made whole plies or turns: the position after them */
	int ply;        /* plies made (sequential) or turns resolved (simultaneous) */
	unsigned acted; /* simultaneous: the seats whose entry for the open turn is in */
	game_move moves[GAME_MAX_PLAYERS];
	enum game_act acts[GAME_MAX_PLAYERS];
};

/*
 * Starts rp on a fresh position of ops in st (ops->init with p and seed).
 * Returns 0, or GAME_EOPT when the engine refuses the options.
 */
int game_replay_start(struct game_replay *rp, const struct game_ops *ops, void *st,
                      const struct game_params *p, uint64_t seed);
/* Starts rp on the position st as it stands (a game under way); the counts start at 0. */
void game_replay_attach(struct game_replay *rp, const struct game_ops *ops, void *st);

/*
 * Takes the next entry. Returns GAME_REPLAY_MADE or GAME_REPLAY_PENDING, or
 * a negative enum game_err with rp and the position unchanged:
 *   GAME_EOVER    the game has ended;
 *   GAME_ETURN    not that seat's turn, or its entry for this turn is in already;
 *   GAME_ESYNTAX  an act other than a move in a sequential game;
 *   anything parse_move(), apply() or resolve() returns (why, when not
 *   NULL, receives the engine's sentence for a refused move, or NULL).
 */
int game_replay_step(struct game_replay *rp, const struct game_ply *e, const char **why);

/*
 * Forgets the entries of the open simultaneous turn (the position never
 * changed for them) and returns how many there were. Recovery uses it to
 * play a turn again that a crash cut in half.
 */
size_t game_replay_drop_open_turn(struct game_replay *rp);

/* How a whole list went (game_replay_moves). */
struct game_replay_stop {
	int err;         /* GAME_OK: every entry replayed; GAME_EPARTIAL: the list ends inside
	                    a simultaneous turn; else why entry `at` was refused (step above) */
	size_t at;       /* the refused entry, or the list's length */
	size_t whole;    /* entries [0, whole) made the position st holds */
	int ply;         /* plies or turns made */
	const char *why; /* the engine's sentence for a refused move, or NULL */
};

/*
 * Plays list (n entries) onto a fresh position of ops (options p, seed) in
 * st. Returns stop->err (stop may not be NULL). On GAME_EOPT nothing was
 * played.
 */
int game_replay_moves(const struct game_ops *ops, const struct game_params *p, uint64_t seed,
                      const struct game_ply *list, size_t n, void *st,
                      struct game_replay_stop *stop);

#endif
