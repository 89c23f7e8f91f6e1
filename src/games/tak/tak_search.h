/*
 * tak_search.h - a Tak player: principal-variation alpha-beta over the Tak
 * engine's own make/unmake (tak_make.h), with a transposition table,
 * iterative deepening under a node, depth or time budget, null-move pruning,
 * late-move reductions, killer, counter-move and history move ordering, and
 * a road/flat/capstone evaluation (road distance and threats, flat count with
 * komi, stack control, walls and capstones, reserves).
 *
 * Pure: no I/O, no globals. The clock is read only through the caller's
 * now_ms function, and the caller may stop a search from its poll callback.
 * Memory: tak_search_new() allocates everything a search needs (the
 * transposition table, a move stack, the ordering tables) once;
 * tak_search_best() allocates nothing; tak_search_free() releases it all.
 * One struct tak_search serves one game at a time in one thread.
 */
#ifndef BITARENA_GAMES_TAK_SEARCH_H
#define BITARENA_GAMES_TAK_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "games/tak/tak.h"

#define TAK_SEARCH_MAX_PLY 64    /* deepest line searched */
#define TAK_SCORE_WIN      30000 /* a won game p plies from the root scores TAK_SCORE_WIN - p */
#define TAK_SCORE_PROVEN   (TAK_SCORE_WIN - 2 * TAK_SEARCH_MAX_PLY) /* |score| >= this: proven */

struct tak_search;

/* What one completed iteration found (for an engine's "info" line). */
struct tak_search_info {
	int depth;
	int seldepth; /* deepest ply reached */
	int score;    /* centiflats for the side to move, or +-(TAK_SCORE_WIN - plies) */
	uint64_t nodes;
	long long ms; /* since the search began (0 without a clock) */
	int npv;
	game_move pv[TAK_SEARCH_MAX_PLY];
};

struct tak_search_limits {
	int depth;      /* deepest iteration; <= 0: as deep as time allows */
	uint64_t nodes; /* stop after about this many nodes; 0: no limit */
	/* Time, in ms from the search's start, read through now_ms (needed for either). */
	long long soft_ms; /* no new iteration starts after this; 0: none */
	long long hard_ms; /* the search stops here, keeping the best move so far; 0: none */
	long long (*now_ms)(void);
	/* Polled every few thousand nodes; returning true stops the search (e.g. TEI "stop"). */
	bool (*poll)(void *arg);
	void *arg;
	/* Called after every completed iteration, when set. */
	void (*info)(void *arg, const struct tak_search_info *info);
	uint64_t seed; /* varies the opening placement among equal corners */
};

struct tak_search_result {
	game_move best;
	int score; /* as tak_search_info.score */
	int depth; /* deepest completed iteration (0: the move came from the opening rule) */
	uint64_t nodes;
};

/* A searcher with a transposition table of about tt_mb MiB (0: 16). NULL if out of memory. */
struct tak_search *tak_search_new(size_t tt_mb);
void tak_search_free(struct tak_search *ts);
/* Forgets the table and the ordering statistics (a new game). */
void tak_search_clear(struct tak_search *ts);

/*
 * The best move found from st within lim. Never returns without a legal move
 * while the game goes on: even a search stopped at once answers the best move
 * of the move ordering. Returns 0, or GAME_EOVER when the game is over.
 */
int tak_search_best(struct tak_search *ts, const struct tak_state *st,
                    const struct tak_search_limits *lim, struct tak_search_result *out);

/*
 * The static evaluation, in centiflats for the side to move (a flat on top is
 * worth about 100); a side to move that can complete a road at once by a
 * placement scores TAK_SCORE_WIN - 1.
 */
int tak_search_eval(const struct tak_state *st);

/*
 * Time for one move from a clock: left_ms on the mover's clock, inc_ms added
 * after each move. Sets the soft limit (aim) and the hard limit (never pass),
 * both in ms and below left_ms by a safety margin.
 */
void tak_search_budget(const struct tak_state *st, long long left_ms, long long inc_ms,
                       long long *soft_ms, long long *hard_ms);

#endif
