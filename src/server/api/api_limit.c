/*
 * api_limit.c - command budgets per address (see api_limit.h): an open-addressing table
 * (linear probing, twice as many slots as entries) rebuilt with fewer entries when full.
 */
#include "server/api/api_limit.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	struct addr_key k;
	struct budget b;
	uint64_t used; /* when it was last taken from */
	bool live;
};

struct api_limit {
	struct entry *slots;
	size_t cap, max, n; /* cap slots (a power of two, >= 2 max), n live */
};

static size_t hash(const struct addr_key *k)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < sizeof k->b; i++)
		h = (h ^ k->b[i]) * 0x100000001b3ULL;
	return (size_t)(h ^ (h >> 32));
}

struct api_limit *api_limit_new(size_t max_entries)
{
	if (max_entries == 0)
		return NULL;
	struct api_limit *l = calloc(1, sizeof *l);
	if (l == NULL)
		return NULL;
	l->max = max_entries;
	for (l->cap = 16; l->cap < 2 * max_entries; l->cap *= 2)
		;
	l->slots = calloc(l->cap, sizeof *l->slots);
	if (l->slots == NULL) {
		free(l);
		return NULL;
	}
	return l;
}

void api_limit_free(struct api_limit *l)
{
	if (l == NULL)
		return;
	free(l->slots);
	free(l);
}

size_t api_limit_size(const struct api_limit *l)
{
	return l->n;
}

/* The slot of k, or the free one where it would go. */
static struct entry *find(struct api_limit *l, const struct addr_key *k)
{
	size_t i = hash(k) & (l->cap - 1);
	while (l->slots[i].live && memcmp(&l->slots[i].k, k, sizeof *k) != 0)
		i = (i + 1) & (l->cap - 1);
	return &l->slots[i];
}

/* Whether e's bucket is as good as a fresh one at now. */
static bool refilled(const struct entry *e, const struct budget_config *cfg, uint64_t now)
{
	uint64_t refill = cfg->rate > 0 ? (uint64_t)cfg->burst * 1000 / cfg->rate : 0;
	return now >= e->used + refill && now >= e->b.wait_end + refill;
}

static int by_use_desc(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	return x->used < y->used ? 1 : x->used > y->used ? -1 : 0;
}

/* Makes room: drops the refilled entries, then (if still full) the oldest quarter. */
static void shrink(struct api_limit *l, const struct budget_config *cfg, uint64_t now)
{
	struct entry *keep = malloc(l->n * sizeof *keep);
	if (keep == NULL) { /* no room to sort: start over (every bucket fresh) */
		memset(l->slots, 0, l->cap * sizeof *l->slots);
		l->n = 0;
		return;
	}
	size_t k = 0;
	for (size_t i = 0; i < l->cap; i++)
		if (l->slots[i].live && !refilled(&l->slots[i], cfg, now))
			keep[k++] = l->slots[i];
	if (k >= l->max) {
		qsort(keep, k, sizeof *keep, by_use_desc);
		k = l->max - l->max / 4 - 1;
	}
	memset(l->slots, 0, l->cap * sizeof *l->slots);
	l->n = 0;
	for (size_t i = 0; i < k; i++) {
		*find(l, &keep[i].k) = keep[i];
		l->n++;
	}
	free(keep);
}

enum budget_result api_limit_take(struct api_limit *l, const struct budget_config *cfg,
                                  const struct addr_key *k, uint64_t now, unsigned cost,
                                  uint64_t *wait_ms)
{
	*wait_ms = 0;
	if (cfg->rate == 0)
		return BUDGET_OK;
	struct entry *e = find(l, k);
	if (!e->live) {
		if (l->n >= l->max) {
			shrink(l, cfg, now);
			e = find(l, k);
		}
		memset(e, 0, sizeof *e);
		e->k = *k;
		e->live = true;
		budget_init(&e->b, cfg, now);
		l->n++;
	}
	e->used = now;
	return budget_take(&e->b, cfg, now, cost, wait_ms);
}
