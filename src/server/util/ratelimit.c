/*
 * ratelimit.c - a limiter of failures per key (see ratelimit.h).
 *
 * Each tracked address keeps the times of its last max_failures failures in
 * a small ring. The table is an array searched linearly: it holds at most a
 * few thousand short strings, and a lookup costs microseconds next to the
 * ~0.1 s Argon2id check that every login attempt pays anyway.
 */
#include "server/util/ratelimit.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct rl_entry {
	char addr[RATELIMIT_ADDR_MAX + 1];
	int64_t times[RATELIMIT_FAILURES_CAP]; /* ring of failure times, oldest at head */
	unsigned head, count;
	int64_t touched; /* time of the last failure: the eviction order */
};

struct ratelimit {
	unsigned max_failures;
	int64_t window;
	size_t max_entries;
	struct rl_entry *v;
	size_t n, cap;
};

const char *ratelimit_strerror(int err)
{
	switch (err) {
	case RATELIMIT_OK:
		return "ok";
	case RATELIMIT_THROTTLED:
		return "too many failed logins from this address; wait and try again";
	case RATELIMIT_ENOMEM:
		return "out of memory";
	case RATELIMIT_EINVAL:
		return "invalid argument";
	}
	return "unknown error";
}

struct ratelimit *ratelimit_new(unsigned max_failures, int64_t window_ms, size_t max_entries)
{
	if (max_failures < 1 || max_failures > RATELIMIT_FAILURES_CAP || window_ms <= 0 ||
	    max_entries == 0)
		return NULL;
	struct ratelimit *rl = calloc(1, sizeof(*rl));
	if (!rl)
		return NULL;
	rl->max_failures = max_failures;
	rl->window = window_ms;
	rl->max_entries = max_entries;
	return rl;
}

void ratelimit_free(struct ratelimit *rl)
{
	if (!rl)
		return;
	free(rl->v);
	free(rl);
}

size_t ratelimit_size(const struct ratelimit *rl)
{
	return rl->n;
}

/* Compares addr against an entry the way it was stored (truncated). */
static struct rl_entry *find(struct ratelimit *rl, const char *addr)
{
	for (size_t i = 0; i < rl->n; i++)
		if (strncmp(rl->v[i].addr, addr, RATELIMIT_ADDR_MAX) == 0)
			return &rl->v[i];
	return NULL;
}

static void remove_at(struct ratelimit *rl, size_t i)
{
	rl->v[i] = rl->v[--rl->n]; /* order does not matter */
}

/* Drops the failures of e that are at least a window old. */
static void expire(const struct ratelimit *rl, struct rl_entry *e, int64_t now)
{
	while (e->count > 0 && now - e->times[e->head] >= rl->window) {
		e->head = (e->head + 1) % rl->max_failures;
		e->count--;
	}
}

int ratelimit_check(struct ratelimit *rl, const char *addr, int64_t now, int64_t *retry_ms)
{
	struct rl_entry *e = find(rl, addr);
	if (!e)
		return RATELIMIT_OK;
	expire(rl, e, now);
	if (e->count < rl->max_failures)
		return RATELIMIT_OK;
	if (retry_ms)
		*retry_ms = e->times[e->head] + rl->window - now;
	return RATELIMIT_THROTTLED;
}

/* Makes room for one more entry: drop the expired, else the least recently touched. */
static void make_room(struct ratelimit *rl, int64_t now)
{
	for (size_t i = rl->n; i-- > 0;) {
		expire(rl, &rl->v[i], now);
		if (rl->v[i].count == 0)
			remove_at(rl, i);
	}
	if (rl->n < rl->max_entries)
		return;
	size_t oldest = 0;
	for (size_t i = 1; i < rl->n; i++)
		if (rl->v[i].touched < rl->v[oldest].touched)
			oldest = i;
	remove_at(rl, oldest);
}

int ratelimit_fail(struct ratelimit *rl, const char *addr, int64_t now)
{
	struct rl_entry *e = find(rl, addr);
	if (!e) {
		if (rl->n >= rl->max_entries)
			make_room(rl, now);
		if (rl->n == rl->cap) {
			size_t cap = rl->cap ? rl->cap * 2 : 16;
			if (cap > rl->max_entries)
				cap = rl->max_entries;
			struct rl_entry *v = realloc(rl->v, cap * sizeof(*v));
			if (!v)
				return RATELIMIT_ENOMEM;
			rl->v = v;
			rl->cap = cap;
		}
		e = &rl->v[rl->n++];
		memset(e, 0, sizeof(*e));
		strncpy(e->addr, addr, RATELIMIT_ADDR_MAX);
	}
	expire(rl, e, now);
	if (e->count == rl->max_failures) {
		/* Already throttled (the caller logged a failure anyway): keep the newest. */
		e->head = (e->head + 1) % rl->max_failures;
		e->count--;
	}
	e->times[(e->head + e->count) % rl->max_failures] = now;
	e->count++;
	e->touched = now;
	return RATELIMIT_OK;
}

int ratelimit_attempt(struct ratelimit *rl, const char *key, int64_t now, int64_t *retry_ms)
{
	int r = ratelimit_check(rl, key, now, retry_ms);
	return r == RATELIMIT_OK ? ratelimit_fail(rl, key, now) : r;
}

void ratelimit_undo(struct ratelimit *rl, const char *key, int64_t at)
{
	struct rl_entry *e = find(rl, key);
	if (e == NULL)
		return;
	for (unsigned i = e->count; i-- > 0;) { /* the newest first: an undo follows its attempt */
		unsigned at_i = (e->head + i) % rl->max_failures;
		if (e->times[at_i] != at)
			continue;
		for (unsigned k = i; k + 1 < e->count; k++) /* close the gap: later ones move up */
			e->times[(e->head + k) % rl->max_failures] =
			        e->times[(e->head + k + 1) % rl->max_failures];
		if (--e->count == 0)
			remove_at(rl, (size_t)(e - rl->v));
		return;
	}
}

unsigned ratelimit_count(struct ratelimit *rl, const char *key, int64_t now)
{
	struct rl_entry *e = find(rl, key);
	if (e == NULL)
		return 0;
	expire(rl, e, now);
	return e->count;
}

void ratelimit_success(struct ratelimit *rl, const char *addr)
{
	struct rl_entry *e = find(rl, addr);
	if (e)
		remove_at(rl, (size_t)(e - rl->v));
}
