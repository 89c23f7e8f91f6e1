/*
 * ratelimit.h - a limiter of failures per key (an address, an account, an
 * account from an address: accounts.c keeps one of each).
 *
 * Each key may fail at most `max_failures` times within any sliding window of
 * `window_ms`; after that ratelimit_check() answers RATELIMIT_THROTTLED until
 * the oldest failure in the window is older than window_ms. A success clears
 * the key. ratelimit_attempt() checks and counts in one step, before the
 * outcome is known, so attempts made in parallel count at once and cannot
 * slip past the limit together; ratelimit_undo() takes the count back when
 * the attempt turns out a success (or never was made).
 *
 * The caller passes the time (any monotonic ms counter, e.g. uv_now()), so
 * there is no clock inside and the tests are exact. Memory is bounded: at
 * most `max_entries` addresses are tracked; when the table is full, entries
 * whose failures have all expired are dropped first, then the entry touched
 * least recently (a flood from many addresses can thus push one address out
 * early; it never grows memory). Times passed in must not decrease.
 */
#ifndef BITARENA_SERVER_RATELIMIT_H
#define BITARENA_SERVER_RATELIMIT_H

#include <stddef.h>
#include <stdint.h>

#define RATELIMIT_MAX_ENTRIES  4096 /* the server's limiters (accounts.h has their limits) */
#define RATELIMIT_FAILURES_CAP 64 /* max_failures may not exceed this */
#define RATELIMIT_ADDR_MAX     96 /* longer keys are truncated (a name, a newline, an IPv6 address) */

enum ratelimit_err {
	RATELIMIT_OK = 0,
	RATELIMIT_THROTTLED = -1, /* too many failures: refuse the login (LOGIN_THROTTLED) */
	RATELIMIT_ENOMEM = -2,
	RATELIMIT_EINVAL = -3
};
const char *ratelimit_strerror(int err);

struct ratelimit; /* opaque */

/*
 * A new limiter (max_failures 1..RATELIMIT_FAILURES_CAP, window_ms > 0,
 * max_entries > 0); NULL on bad arguments or no memory. The caller owns it:
 * release with ratelimit_free().
 */
struct ratelimit *ratelimit_new(unsigned max_failures, int64_t window_ms, size_t max_entries);
void ratelimit_free(struct ratelimit *rl);

/*
 * May addr try to log in at time now? RATELIMIT_OK or RATELIMIT_THROTTLED;
 * when throttled and retry_ms is not NULL, *retry_ms is how long until the
 * next attempt is allowed (> 0). Call before checking the password.
 */
int ratelimit_check(struct ratelimit *rl, const char *addr, int64_t now, int64_t *retry_ms);
/* Records a failed login of addr at time now. RATELIMIT_OK or RATELIMIT_ENOMEM. */
int ratelimit_fail(struct ratelimit *rl, const char *addr, int64_t now);
/*
 * ratelimit_check(), then, when not throttled, a failure of key counted at
 * now at once: RATELIMIT_OK (counted), RATELIMIT_THROTTLED (not counted;
 * *retry_ms as for check) or RATELIMIT_ENOMEM.
 */
int ratelimit_attempt(struct ratelimit *rl, const char *key, int64_t now, int64_t *retry_ms);
/* Takes back one failure of key counted at time at (an attempt that succeeded); no-op if none. */
void ratelimit_undo(struct ratelimit *rl, const char *key, int64_t at);
/* The failures of key within the window at now. */
unsigned ratelimit_count(struct ratelimit *rl, const char *key, int64_t now);
/* A successful login: forgets addr's failures. */
void ratelimit_success(struct ratelimit *rl, const char *addr);
/* Number of addresses currently tracked (for tests and stats). */
size_t ratelimit_size(const struct ratelimit *rl);

#endif
