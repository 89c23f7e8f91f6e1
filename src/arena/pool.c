/*
 * pool.c - quick pairing in rating pools: the rating window that widens with
 * the wait, no immediate rematch, guests with guests, colours by balance
 * (see pool.h for the rules and their numbers).
 */
#include "arena/pool.h"

#include <math.h>
#include <stdlib.h>

int pool_window(int64_t waited_ms)
{
	if (waited_ms < 0)
		waited_ms = 0;
	int64_t steps = waited_ms / POOL_WINDOW_EVERY_MS;
	int64_t w = POOL_WINDOW_START + steps * POOL_WINDOW_STEP;
	return w > POOL_WINDOW_MAX ? POOL_WINDOW_MAX : (int)w;
}

bool pool_may_meet(const struct pool_entry *a, const struct pool_entry *b, int64_t now_ms)
{
	if (a->guest != b->guest)
		return false;
	double d = fabs(a->rating - b->rating);
	if (d > pool_window(now_ms - a->since_ms) || d > pool_window(now_ms - b->since_ms))
		return false;
	bool rematch = a->last_opp == b->id || b->last_opp == a->id;
	if (rematch && now_ms - a->since_ms < POOL_REMATCH_MS &&
	    now_ms - b->since_ms < POOL_REMATCH_MS)
		return false;
	return true;
}

struct order {
	int64_t since;
	int i;
};

/* Longest wait first; equal waits by index (stable, so the caller's order decides). */
static int by_wait(const void *x, const void *y)
{
	const struct order *a = x, *b = y;
	if (a->since != b->since)
		return a->since < b->since ? -1 : 1;
	return a->i - b->i;
}

/* The colours of a and b (indexes, a waited at least as long as b). */
static struct pool_pair colours(const struct pool_entry *e, int a, int b)
{
	struct pool_pair p = {a, b};
	if (e[a].color_diff != e[b].color_diff) {
		if (e[a].color_diff > e[b].color_diff)
			p = (struct pool_pair){b, a};
	} else if (e[b].rating < e[a].rating) {
		p = (struct pool_pair){b, a};
	}
	return p;
}

int pool_pair(const struct pool_entry *e, int n, int64_t now_ms,
              bool (*allowed)(void *ud, int i, int j), void *ud, struct pool_pair *out, int cap)
{
	if (n > POOL_MAX_ENTRIES)
		n = POOL_MAX_ENTRIES;
	if (n < 2 || cap <= 0)
		return 0;
	struct order ord[POOL_MAX_ENTRIES];
	bool used[POOL_MAX_ENTRIES] = {false};
	for (int i = 0; i < n; i++)
		ord[i] = (struct order){e[i].since_ms, i};
	qsort(ord, (size_t)n, sizeof ord[0], by_wait);
	int np = 0;
	for (int x = 0; x < n && np < cap; x++) {
		int a = ord[x].i;
		if (used[a])
			continue;
		int best = -1;
		double best_d = 0;
		for (int y = x + 1; y < n; y++) {
			int b = ord[y].i;
			if (used[b] || !pool_may_meet(&e[a], &e[b], now_ms))
				continue;
			double d = fabs(e[a].rating - e[b].rating);
			if (best >= 0 && d >= best_d)
				continue;
			if (allowed != NULL && !allowed(ud, a, b))
				continue;
			best = b;
			best_d = d;
		}
		if (best < 0)
			continue;
		used[a] = used[best] = true;
		out[np++] = colours(e, a, best);
	}
	return np;
}
