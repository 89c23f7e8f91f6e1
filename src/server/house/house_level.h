/*
 * house_level.h - the strength levels of the server's own bots ("play the
 * computer", issue 22 item 6): eight levels per game kind, each a limit on
 * the engine already in src/games (depth, nodes, time) plus deliberate noise
 * at the low levels: with probability noise/100 a turn plays a uniformly
 * random legal move instead of the engine's. The table is in house_level.c;
 * PROTOCOL.md §17 prints it. Which engine plays which kind:
 *   ttt, mnk  the generic alpha-beta of games/search.h (depth, nodes);
 *   tak       the Tak player of games/tak/tak_search.h (depth, nodes, a time cap);
 *   xmas      the Xmas Rush player of games/xmas/xmas_bot.h (it has no depth:
 *             its levels are noise only).
 *
 * Pure and thread-safe: no I/O, no globals that change; house_think() runs on
 * a worker thread (house.c) on a position copy its caller owns, and reads the
 * caller's cancel flag while it searches (Tak: every few thousand nodes;
 * the other engines are bounded by nodes and finish within milliseconds).
 */
#ifndef BITARENA_SERVER_HOUSE_LEVEL_H
#define BITARENA_SERVER_HOUSE_LEVEL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "games/game.h"
#include "games/xmas/xmas_bot.h"

#define HOUSE_LEVELS 8

/* One level of one kind: the engine's limits and the share of random moves. */
struct house_level {
	int depth;      /* plies; 0: the engine's own (m,n,k: the rest of the game) */
	uint64_t nodes; /* 0: no limit */
	long long ms;   /* Tak: the search stops here (a cap, under the game's clock); 0: none */
	int noise;      /* percent of turns played at random */
};

/* Level (1..HOUSE_LEVELS) of kind ops; NULL for a kind the house does not play. */
const struct house_level *house_level_of(const struct game_ops *ops, int level);

/* What a house bot keeps between turns of one game (zeroed at its start). */
struct house_memory {
	struct xmas_bot_memory xmas;
};

/* What one turn may use (for a timed game: its time control, so the bot keeps its clock). */
struct house_turn {
	const struct game_ops *ops;
	int level; /* 1..HOUSE_LEVELS */
	int seat;
	uint64_t seed;             /* this turn's randomness */
	long long left_ms, inc_ms; /* the seat's clock now and its increment; left 0: untimed */
	const atomic_bool *cancel; /* set by the loop: stop, the answer is not wanted */
	long long (*now_ms)(void); /* a monotonic clock, thread-safe */
};

/*
 * The move of seat in st (a position as the seat sees it: view() applied) at
 * t's level, as text in the engine's notation (out, len bytes). mem is the
 * game's memory (read and updated). Returns the length, or a negative enum
 * game_err (GAME_EOVER: nothing to play; GAME_ETURN: not the seat's turn).
 */
int house_think(const struct house_turn *t, const void *st, struct house_memory *mem, char *out,
                size_t len);

#endif
