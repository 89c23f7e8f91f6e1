/*
 * pool.h - quick pairing in rating pools (issue 22), pure: no I/O, no
 * allocation, no clock of its own (the caller gives "now").
 *
 * Who may meet whom, as lichess' pools do it, with our numbers:
 *   - the rating window: a player who has waited w ms accepts an opponent
 *     whose Glicko-2 rating is within pool_window(w) of theirs:
 *     POOL_WINDOW_START (100) at once, POOL_WINDOW_STEP (50) wider every
 *     POOL_WINDOW_EVERY_MS (5 s), up to POOL_WINDOW_MAX (1000, about everyone).
 *     A pair needs the difference within BOTH players' windows: a newcomer is
 *     not thrown at someone far away just because that one waited long.
 *   - no immediate rematch: a player is not paired with the opponent of their
 *     last pool game unless one of the two has waited POOL_REMATCH_MS (20 s)
 *     with nobody else to meet.
 *   - guests only with guests (their games are unrated); accounts only with
 *     accounts.
 *   - the caller's own test (allowed()), for what this library does not know:
 *     bots refused, accept filters.
 *   - who waited longest is served first, with the closest rating among those
 *     it may meet (ties: the one who waited longer).
 *   - colours: whoever has had white more often (whites minus blacks over
 *     their pool games) takes black; on equal balances the lower rating takes
 *     white (and on equal ratings, who waited longer).
 */
#ifndef BITARENA_ARENA_POOL_H
#define BITARENA_ARENA_POOL_H

#include <stdbool.h>
#include <stdint.h>

#define POOL_WINDOW_START    100
#define POOL_WINDOW_STEP     50
#define POOL_WINDOW_EVERY_MS 5000
#define POOL_WINDOW_MAX      1000
#define POOL_REMATCH_MS      20000

/* One waiting player, as the caller keeps it. */
struct pool_entry {
	uint64_t id;       /* the caller's (a connection's id): what pairs name */
	uint64_t last_opp; /* the id of the last pool opponent (0: none), see name_key */
	double rating;     /* Glicko-2 rating (1500 for guests and new accounts) */
	int64_t since_ms;  /* when they joined (the caller's clock) */
	int color_diff;    /* whites minus blacks in their pool games so far */
	bool guest;
};

/* A pairing: indexes into the entries given to pool_pair(). */
struct pool_pair {
	int white, black;
};

/* The rating window of a player who has waited waited_ms (negative: 0). */
int pool_window(int64_t waited_ms);

/*
 * Whether a and b may be paired now: guests with guests, ratings within both
 * windows, no rematch before POOL_REMATCH_MS (the caller's allowed() apart).
 */
bool pool_may_meet(const struct pool_entry *a, const struct pool_entry *b, int64_t now_ms);

/*
 * Pairs the n entries e[] (at most POOL_MAX_ENTRIES) waiting at now_ms into
 * out[] (room for cap pairs); allowed (NULL: everyone) is the caller's extra
 * test on two indexes. Returns how many pairs; every entry is in one pair at
 * most; the colours are chosen as the top says. e is not modified.
 */
#define POOL_MAX_ENTRIES 4096
int pool_pair(const struct pool_entry *e, int n, int64_t now_ms,
              bool (*allowed)(void *ud, int i, int j), void *ud, struct pool_pair *out, int cap);

#endif
