/*
 * session_metrics.h - what the play layer counts (util/metrics.h): logins (guests and
 * accounts), games started (new ones: a game restored after a restart was started before),
 * games ended, move records (a move, or a seat's action in a simultaneous turn), and the
 * games in progress by kind (a gauge per row of the engines' table, games.c). Kept in
 * struct sessions (met), counted by session.c and lobby.c where each happens: an increment
 * each, a kind found among the table's few rows. server.c registers them.
 */
#ifndef BITARENA_SERVER_SESSION_METRICS_H
#define BITARENA_SERVER_SESSION_METRICS_H

#include <stdbool.h>

#include "games/game.h"
#include "server/util/metrics.h"

#define SESSION_METRICS_KINDS 8 /* rows of the engines' table counted (the rest: none) */

struct session_metrics {
	struct metric logins[2]; /* [0] guests, [1] accounts */
	struct metric started;   /* new games */
	struct metric ended;     /* games that ended (finished or aborted) */
	struct metric moves;     /* move records */
	struct metric in_progress[SESSION_METRICS_KINDS]; /* per kind */
	bool set_up;
};

/* m's metrics join r (set up then, their counts from 0: before the first game). */
void session_metrics_register(struct session_metrics *m, struct metrics *r);
/* A game of ops is in progress (new: a new game, not one restored). */
void session_metrics_begun(struct session_metrics *m, const struct game_ops *ops, bool new);
/* A game of ops is no longer in progress (ended: it ended, else it went away unended). */
void session_metrics_over(struct session_metrics *m, const struct game_ops *ops, bool ended);

#endif
