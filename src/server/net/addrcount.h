/*
 * addrcount.h - connections counted per peer address, for --max-per-address:
 * the key of an address and a table of counts. A leaf: no I/O, no libuv.
 *
 * The key: an IPv4 address (also written IPv4-mapped, ::ffff:a.b.c.d) counts
 * as itself; an IPv6 address counts by its /64 prefix, the block one
 * subscriber is given (so one host cannot multiply itself through its
 * interface identifiers). Loopback (127.0.0.0/8, ::1) is told apart: the
 * server does not limit it (a proxy in front of the server, the tests and the
 * benchmarks all come from there, and one machine's own connections are no
 * outside flood). A peer text that is no address counts under one key of its
 * own.
 *
 * The table grows as needed (open addressing, linear probing, deletion by
 * backward shift); an entry goes when its count drops to 0. Memory: the
 * table's, freed by addrcount_free().
 */
#ifndef BITARENA_SERVER_ADDRCOUNT_H
#define BITARENA_SERVER_ADDRCOUNT_H

#include <stdbool.h>
#include <stddef.h>

#define ADDR_KEY_LEN 16

struct addr_key {
	unsigned char b[ADDR_KEY_LEN];
};

/* The key of a peer address text ("192.0.2.7", "2001:db8::1"); true when it is loopback. */
bool addr_key_of(const char *peer, struct addr_key *k);

struct addr_slot {
	struct addr_key k;
	unsigned count; /* 0: free */
};

struct addrcount {
	struct addr_slot *slots; /* cap of them, a power of two (or NULL while empty) */
	size_t cap, used;
};

void addrcount_init(struct addrcount *t);
void addrcount_free(struct addrcount *t);
/* Connections counted for k. */
unsigned addrcount_get(const struct addrcount *t, const struct addr_key *k);
/* One more for k; false out of memory (nothing counted). */
bool addrcount_add(struct addrcount *t, const struct addr_key *k);
/* One less for k (which must have been added). */
void addrcount_del(struct addrcount *t, const struct addr_key *k);

#endif
