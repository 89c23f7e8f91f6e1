/*
 * glicko.h - Glicko-2 rating updates, as in Mark Glickman's "Example of the
 * Glicko-2 system" (2013): ratings on the Glicko scale (1500/350) converted
 * to mu/phi with the factor 173.7178, the volatility found by the Illinois
 * (regula falsi) iteration to a tolerance of 1e-6, system constant tau.
 *
 * Rating periods: an online server rates each game as it ends, so every game
 * is its own rating period (one opponent, one score). This is the common
 * choice for online play (lichess does the same); the paper prefers periods
 * of 10-15 games, which needs a batch job and delays every rating change.
 * A player who sits out a period keeps rating and volatility while the RD
 * grows: glicko_idle(), or glicko_decay() for time away measured in periods. The RD is never
 * allowed above GLICKO_MAX_RD (350, the unrated default), which the paper leaves to the
 * implementer.
 *
 * Pure functions: no I/O, no globals, no allocation.
 */
#ifndef BITARENA_SERVER_GLICKO_H
#define BITARENA_SERVER_GLICKO_H

#include <stddef.h>

#define GLICKO_DEFAULT_RATING 1500.0
#define GLICKO_DEFAULT_RD     350.0
#define GLICKO_DEFAULT_VOL    0.06
#define GLICKO_MAX_RD         350.0
#define GLICKO_TAU            0.5      /* system constant; the paper suggests 0.3..1.2 */
#define GLICKO_SCALE          173.7178 /* Glicko-2 scale factor: mu = (r - 1500) / 173.7178 */
#define GLICKO_EPSILON        1e-6     /* convergence tolerance of the volatility iteration */

struct glicko {
	double rating; /* r */
	double rd;     /* RD */
	double vol;    /* sigma */
};

/* One result of the rating period: the opponent's pre-period rating and the score. */
struct glicko_result {
	double rating, rd;
	double score; /* 1 win, 0.5 draw, 0 loss */
};

/* 1500 / 350 / 0.06. */
void glicko_default(struct glicko *p);

/*
 * The player's rating after a period with n results (steps 2-8 of the
 * paper). n == 0 is the same as glicko_idle(). out may alias p.
 */
void glicko_update(const struct glicko *p, const struct glicko_result *res, size_t n, double tau,
                   struct glicko *out);

/* A period without games: RD' = sqrt(RD^2 + sigma^2) on the Glicko-2 scale, capped. */
void glicko_idle(const struct glicko *p, struct glicko *out);

/*
 * Time away as a number of idle periods (may be fractional): RD' =
 * sqrt(RD^2 + periods * sigma^2), capped; periods <= 0 changes nothing. With
 * one game per period, RD would never grow with time; the server calls this
 * before rating a game with the time since the player's last rated game in
 * units of GLICKO_IDLE_PERIOD_MS, so a player back after months is
 * uncertain again. glicko_decay(p, 1) == glicko_idle(p).
 */
#define GLICKO_IDLE_PERIOD_MS (24LL * 3600 * 1000) /* one day, as lichess does */
void glicko_decay(const struct glicko *p, double periods, struct glicko *out);

/*
 * One game as one period for both players, from their ratings before the
 * game: score_a is a's score (1, 0.5, 0). Writes both new ratings; the
 * outputs may alias the inputs.
 */
void glicko_game(const struct glicko *a, const struct glicko *b, double score_a, double tau,
                 struct glicko *new_a, struct glicko *new_b);

#endif
