/*
 * budget.h - a connection's command budget: a token bucket, and the strikes
 * of a client that keeps overrunning it. A leaf: no I/O, no clock of its own
 * (the caller passes the time, so the tests are exact).
 *
 * The bucket holds up to `burst` tokens and refills at `rate` tokens a
 * second; every command takes its cost (the command table's cost column:
 * cheap commands 1, the dear ones that read the store or list everyone
 * more). A command that finds too few tokens is refused, and the caller
 * stops reading the client until the wait budget_take() returns: the time
 * until the bucket holds the cost, doubled for each strike in a row (the
 * first refusal waits only for the tokens, a client that comes back
 * overrunning at once waits 2, 4, 8... times that, at most BUDGET_WAIT_MAX),
 * so a flood costs the server one refusal per wait. A refusal is a strike;
 * strikes are forgiven once the client has gone a full refill time
 * (burst / rate) after its last wait without a refusal; the
 * `strikes`-th strike in a row is BUDGET_FLOOD: the caller disconnects.
 *
 * Memory: none (struct budget is the caller's, a few words).
 */
#ifndef BITARENA_SERVER_BUDGET_H
#define BITARENA_SERVER_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#define BUDGET_RATE     20    /* --cmd-rate: tokens a second */
#define BUDGET_BURST    100   /* --cmd-burst: the bucket's size */
#define BUDGET_STRIKES  10    /* refusals in a row that disconnect */
#define BUDGET_WAIT_MAX 10000 /* the longest wait, ms */

struct budget_config {
	unsigned rate;    /* tokens a second; 0: no budget (every command passes) */
	unsigned burst;   /* the bucket's size, at least 1 */
	unsigned strikes; /* refusals in a row that disconnect; 0: never */
};

struct budget {
	int64_t milli;     /* tokens, in thousandths */
	uint64_t at;       /* when milli was last brought up to date (ms) */
	unsigned strikes;  /* refusals in a row */
	uint64_t wait_end; /* when the last refusal's wait ended (ms) */
	bool started;      /* at is set */
};

enum budget_result {
	BUDGET_OK = 0,       /* taken: go on */
	BUDGET_LIMITED = -1, /* refused: *wait_ms until the client is read again */
	BUDGET_FLOOD = -2    /* refused, and the strikes are used up: disconnect */
};

/* The defaults above. */
void budget_config_default(struct budget_config *cfg);
/* A full bucket at now. */
void budget_init(struct budget *b, const struct budget_config *cfg, uint64_t now);
/* Takes cost tokens at now (ms, never decreasing); see the top of this file. */
enum budget_result budget_take(struct budget *b, const struct budget_config *cfg, uint64_t now,
                               unsigned cost, uint64_t *wait_ms);
/* True when the bucket holds less than half of its burst: a client spending its budget fast,
   whose input the server serves after everyone else's (conn_set_heavy). */
bool budget_heavy(const struct budget *b, const struct budget_config *cfg);
/* True when more than a twentieth of the bucket is spent: a client spending its budget now,
   whose lines the server handles after reading everyone's (conn_set_spending). */
bool budget_spending(const struct budget *b, const struct budget_config *cfg);
/*
 * Takes cost tokens at now if the bucket holds them, for work the server paces itself (a
 * replay's positions, archive.c): true when taken; else false with *wait_ms, the time until
 * it holds them. Never a strike: the client asked for nothing, the stream waits.
 */
bool budget_spend(struct budget *b, const struct budget_config *cfg, uint64_t now, unsigned cost,
                  uint64_t *wait_ms);
/* Takes cost tokens after the fact (a command that was let run because the bucket was not
   in debt, a move, and turned out to cost): the bucket may go into debt, a bucket's worth
   at most; a bucket in debt refuses everything (budget_take with any cost) until repaid. */
void budget_charge(struct budget *b, const struct budget_config *cfg, unsigned cost);

#endif
