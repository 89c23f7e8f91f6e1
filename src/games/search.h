/*
 * search.h - game-independent alpha-beta search over struct game_ops, for
 * bots. Sequential two-player games only. Exact at full depth (a finished
 * game scores win/loss/draw); at the depth limit it uses ops->evaluate, or 0.
 */
#ifndef BITARENA_GAMES_SEARCH_H
#define BITARENA_GAMES_SEARCH_H

#include "core/rng.h"
#include "games/game.h"

#define SEARCH_WIN 1000000 /* a win at ply p from the root scores SEARCH_WIN - p */

struct search_limits {
	int max_depth;      /* plies; iterative deepening stops here */
	uint64_t max_nodes; /* 0 = no limit; a depth that runs out of nodes is discarded */
	/* a time cap (0: none), in ms of now_ms() from the search's start: a depth it cuts
	 * is discarded, as one out of nodes (the deepest finished one answers); now_ms is
	 * the caller's clock (this library reads none), and poll, if set, stops the search
	 * as the cap does when it returns true (a cancel); both read every 1024 nodes */
	long long hard_ms;
	long long (*now_ms)(void);
	bool (*poll)(void *arg);
	void *arg;
};

struct search_result {
	game_move best;
	int score; /* for the side to move at the root */
	int depth; /* deepest completed iteration */
	uint64_t nodes;
};

/*
 * Finds a best move from st. Among moves of equal score it picks one at random
 * with rng (NULL: the first). Returns 0, GAME_EOVER if there is no move, or
 * another negative enum game_err. Allocates its scratch space and frees it.
 */
int search_best(const struct game_ops *ops, const void *st, const struct search_limits *lim,
                struct rng *rng, struct search_result *out);

#endif
