/*
 * addrcount.c - address keys and the table of connections per address (see
 * addrcount.h).
 */
#include "server/net/addrcount.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool addr_key_of(const char *peer, struct addr_key *k)
{
	memset(k, 0, sizeof *k);
	unsigned char a[16];
	if (inet_pton(AF_INET, peer, a) == 1) {
		k->b[10] = k->b[11] = 0xff; /* ::ffff:a.b.c.d */
		memcpy(k->b + 12, a, 4);
		return a[0] == 127;
	}
	if (inet_pton(AF_INET6, peer, a) == 1) {
		static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
		static const unsigned char loop6[16] = {0, 0, 0, 0, 0, 0, 0, 0,
		                                        0, 0, 0, 0, 0, 0, 0, 1};
		if (memcmp(a, mapped, 12) == 0) {
			memcpy(k->b, a, 16);
			return a[12] == 127;
		}
		if (memcmp(a, loop6, 16) == 0) {
			memcpy(k->b, a, 16);
			return true;
		}
		memcpy(k->b, a, 8); /* the /64 */
		return false;
	}
	k->b[0] = 0xff; /* no address: one key for all such (never an IPv6 /64 of real use) */
	return false;
}

void addrcount_init(struct addrcount *t)
{
	memset(t, 0, sizeof *t);
}

void addrcount_free(struct addrcount *t)
{
	free(t->slots);
	addrcount_init(t);
}

static size_t hash(const struct addr_key *k)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (size_t i = 0; i < ADDR_KEY_LEN; i++)
		h = (h ^ k->b[i]) * 1099511628211ULL;
	return (size_t)(h ^ (h >> 29));
}

/* The slot of k, or the free slot where it would go (cap > 0). */
static size_t find(const struct addrcount *t, const struct addr_key *k)
{
	size_t i = hash(k) & (t->cap - 1);
	while (t->slots[i].count != 0 && memcmp(&t->slots[i].k, k, sizeof *k) != 0)
		i = (i + 1) & (t->cap - 1);
	return i;
}

unsigned addrcount_get(const struct addrcount *t, const struct addr_key *k)
{
	return t->cap == 0 ? 0 : t->slots[find(t, k)].count;
}

static bool grow(struct addrcount *t)
{
	size_t cap = t->cap ? t->cap * 2 : 64;
	struct addr_slot *old = t->slots, *s = calloc(cap, sizeof *s);
	if (s == NULL)
		return false;
	size_t oldcap = t->cap;
	t->slots = s;
	t->cap = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].count != 0)
			t->slots[find(t, &old[i].k)] = old[i];
	free(old);
	return true;
}

bool addrcount_add(struct addrcount *t, const struct addr_key *k)
{
	if ((t->used + 1) * 2 > t->cap && !grow(t)) /* at most half full */
		return false;
	struct addr_slot *s = &t->slots[find(t, k)];
	if (s->count == 0) {
		s->k = *k;
		t->used++;
	}
	s->count++;
	return true;
}

void addrcount_del(struct addrcount *t, const struct addr_key *k)
{
	if (t->cap == 0)
		return;
	size_t i = find(t, k);
	if (t->slots[i].count == 0 || --t->slots[i].count > 0)
		return;
	t->used--;
	/* backward shift: later entries of the same run move up into the hole */
	size_t hole = i;
	for (size_t j = (i + 1) & (t->cap - 1); t->slots[j].count != 0;
	     j = (j + 1) & (t->cap - 1)) {
		size_t home = hash(&t->slots[j].k) & (t->cap - 1);
		/* j stays unless its home is not in (hole, j] (cyclically) */
		bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
		if (!stays) {
			t->slots[hole] = t->slots[j];
			hole = j;
		}
	}
	t->slots[hole].count = 0;
}
