/*
 * api_limit.h - the API's rate limit: one command budget (util/budget.h: a token bucket
 * with its strikes, the rules of --cmd-rate and --cmd-burst) per peer address (net's
 * struct addr_key: an IPv4 address, an IPv6 /64), every request taking its endpoint's cost
 * as a command takes its row's. HTTP exchanges last one request each, so the budget is the
 * address's and not the connection's; a refusal is 429 with the wait.
 *
 * Memory is bounded: at most max_entries addresses are kept. A bucket that has refilled
 * (its last take a whole refill time ago, burst / rate, and no wait running) is a fresh
 * one, so such entries are dropped first when the table is full; if that is not enough,
 * the least recently used quarter goes (a flood from many addresses can then give one
 * address a fresh bucket early; it never grows memory).
 */
#ifndef BITARENA_SERVER_API_LIMIT_H
#define BITARENA_SERVER_API_LIMIT_H

#include <stddef.h>
#include <stdint.h>

#include "server/net/addrcount.h"
#include "server/util/budget.h"

#define API_LIMIT_ENTRIES 4096 /* addresses kept */

struct api_limit; /* opaque */

/* A table of at most max_entries addresses (> 0); NULL out of memory. */
struct api_limit *api_limit_new(size_t max_entries);
void api_limit_free(struct api_limit *l); /* NULL is fine */
/*
 * Takes cost from k's bucket at now (ms, never decreasing) under cfg (rate 0: no budget,
 * BUDGET_OK). As budget_take(); out of memory, the request is let through.
 */
enum budget_result api_limit_take(struct api_limit *l, const struct budget_config *cfg,
                                  const struct addr_key *k, uint64_t now, unsigned cost,
                                  uint64_t *wait_ms);
/* Addresses kept now (tests). */
size_t api_limit_size(const struct api_limit *l);

#endif
