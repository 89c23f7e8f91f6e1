/*
 * adjudicate.h - the rules an engine match adds to a game (cutechess-cli's
 * and racetrack's adjudication): max_plies, a draw once the game has run
 * that many plies, and repetition=N, a draw at the Nth occurrence of the
 * same position with the same side to move (Tak has no repetition rule of
 * its own; racetrack draws at the third). Both are off at 0.
 *
 * A position is told by its position text (game_ops.save) without a move
 * counter: Tak's TPS without its move number, so the board, the stacks and
 * the side to move decide (the reserves follow from the board). The
 * adjudicator keeps a 64-bit hash of every position given, and counts the
 * equal ones (two different positions with the same hash are a 2^-64
 * chance per pair). Games without a position text, and simultaneous games
 * (Xmas Rush, which ends by its own turn limit), have no repetition: only
 * max_plies applies.
 *
 * Pure: no I/O, no globals. The adjudicator allocates its history as it
 * grows; adjudicator_free() releases it.
 */
#ifndef BITARENA_GAMES_ADJUDICATE_H
#define BITARENA_GAMES_ADJUDICATE_H

#include <stddef.h>
#include <stdint.h>

#include "games/game.h"
#include "games/game_replay.h"

enum adjudication {
	ADJ_NONE = 0,      /* play on */
	ADJ_MAX_PLIES = 1, /* a draw: max_plies reached */
	ADJ_REPETITION = 2 /* a draw: the position occurred the repetition-th time */
};
/* The stable reason word of a draw by adjudication ("max_plies", "repetition"), or NULL. */
const char *adjudication_reason(enum adjudication a);

struct adjudicator {
	const struct game_ops *ops;
	int max_plies;  /* 0: no limit */
	int repetition; /* 0: no rule; else >= 2 */
	int last_count; /* occurrences of the last position given, itself included */
	size_t n, cap;
	uint64_t *keys; /* the hashes of the positions given, oldest first */
	char *text;     /* scratch for the position text (text_size bytes) */
	size_t text_size;
};

/*
 * Starts a with the rules (max_plies >= 0; repetition 0 or 2..1000). Returns 0, GAME_EOPT
 * for bad values or GAME_ENOSPACE when out of memory.
 */
int adjudicator_init(struct adjudicator *a, const struct game_ops *ops, int max_plies,
                     int repetition);
void adjudicator_free(struct adjudicator *a);

/*
 * Gives a the position st after ply plies (0: the start of the game or of the opening's
 * position); call it for the start and after every ply, in order. Returns what the rules say
 * (max_plies is checked first), or GAME_ENOSPACE when out of memory.
 */
int adjudicator_position(struct adjudicator *a, const void *st, int ply);

/* Where a whole move list is adjudicated (adjudicate_moves). */
struct adjudication_stop {
	enum adjudication verdict; /* ADJ_NONE: played out without adjudication */
	int ply;                   /* plies made when it was adjudicated, or the list's plies */
	int count;                 /* occurrences of the final position */
	struct game_replay_stop replay; /* how the replay went (err != 0: a refused entry) */
};

/*
 * Replays list (a sequential game: n plies from the start with options p and seed) through
 * the replayer, adjudicating after each ply; stops at the first adjudication. Returns 0, or
 * a negative enum game_err: the replay's (stop->replay says where) or the adjudicator's.
 * st receives the last position (ops->state_size bytes).
 */
int adjudicate_moves(const struct game_ops *ops, const struct game_params *p, uint64_t seed,
                     const struct game_ply *list, size_t n, int max_plies, int repetition, void *st,
                     struct adjudication_stop *stop);

#endif
