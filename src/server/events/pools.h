/*
 * pools.h - rating pools for quick pairing (issue 22, item 1): the server
 * keeps a list of pools, each one game kind with its options (a time
 * control); `pool join <pool>` waits in one, `pool leave` (or leaving the
 * server, or logging out) stops waiting, `pools` lists them with how many
 * wait and how many play. Waiting players are paired by src/arena/pool.c
 * (its rules and numbers: the window of 100 widening by 50 every 5 s, no
 * rematch before 20 s, guests with guests, colours by balance); a pairing
 * starts a game exactly as an accepted seek does (session_create() and
 * session_begin(): game_start to both). A timer pairs again every second
 * while anyone waits, as the windows widen.
 *
 * Ratings: an account's Glicko-2 rating in the pool's kind is read off the
 * loop (the store's reader) when it joins; it waits unpaired until the read
 * is back. Guests (and a server without a store) count as 1500. A pool is
 * rated (rated=1, the default) for two accounts; two guests' game is unrated.
 *
 * Bots and filters (play/identity.h): a pair is made only when identity_accepts() holds both
 * ways (bots off, accept filters); a declined pairing is told to both, once a wait.
 *
 * What a player played (last opponent, colour balance) is kept in memory per
 * name while the server runs; nothing of pools is stored.
 *
 * The computer: when the host sets --pool-computer-after SECONDS, a player still
 * unpaired after that wait plays the house bot whose level fits its rating
 * (house_for_pool()), as a pairing with a guest: unrated, colours by balance,
 * never someone who refuses bots (set bots off) or whose accept filter declines it.
 *
 * Cluster: the pools are the cluster's, run by the node holding the events' lease (as the
 * tournaments: tourney.h); the other nodes forward `pool` and `pools` there, so a waiter is
 * the relay client standing for its player.
 */
#ifndef BITARENA_SERVER_POOLS_H
#define BITARENA_SERVER_POOLS_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "server/msg/client.h"
#include "server/msg/proto.h"
#include "server/util/metrics.h"

#define POOLS_MAX      32 /* pools a server keeps */
#define POOL_NAME_MAX  24
#define POOL_TICK_MS   1000
#define POOLS_SPEC_MAX 2000 /* the length of --pools */

/* The default list (--pools): NAME:KIND OPTIONS, separated by ';'. */
#define POOLS_DEFAULT                                                                              \
	"ttt:ttt time=1+0;tak5-blitz:tak size=5 time=5+3;tak5-rapid:tak size=5 time=15+10;"        \
	"tak6-blitz:tak size=6 time=5+3;tak6-rapid:tak size=6 time=15+10;xmas:xmas"

struct sessions;
struct lobby;
struct store_reader;
struct pool_def;
struct pool_waiter;
struct pool_hist;

struct pools {
	struct sessions *sess;
	struct store_reader *rd; /* NULL: no store, everyone 1500 */
	struct pool_def *defs;
	int ndefs;
	struct pool_waiter *waiting; /* oldest first */
	struct pool_hist *hist;      /* per name: last opponent, colour balance */
	uint64_t next_hist_id;
	uv_timer_t tick;
	bool tick_open, closed;
	/* The opponent of last resort (--pool-computer-after; house/house.h, registered by
	   server.c): a player who waited computer_after_ms unpaired plays the bot it returns for
	   the pool's kind and the player's rating (NULL: none). 0 or no callback: never. */
	int64_t computer_after_ms;
	struct client *(*computer)(void *ud, const struct game_ops *ops, double rating);
	void *computer_ud;
	uint64_t pair_ns; /* CPU time spent pairing (logged at the end) */
	uint64_t paired;  /* games started */
	/* /metrics: each pairing pass's CPU time (a join, a rating read back, the timer), and
	   each paired player's wait from `pool join` to its pairing */
	struct metric_histogram pairing, wait;
};

/*
 * Parses spec (NULL: POOLS_DEFAULT) into the pools of a server whose games are
 * sessions; rd (may be NULL) reads ratings. 0, or -1 with a sentence in why.
 */
int pools_init(struct pools *ps, uv_loop_t *loop, struct sessions *sess, struct store_reader *rd,
               const char *spec, char *why, size_t len);
/* Checks a --pools value without a server: 0, or -1 with a sentence in why. */
int pools_spec_check(const char *spec, char *why, size_t len);
/* Links the pools' metrics into r (server.c's registry). */
void pools_register_metrics(struct pools *ps, struct metrics *r);
/* Stops the timer and frees everything (reads still out find ps closed). */
void pools_close(struct pools *ps);

/* pool join <name> | pool leave: answers rq. */
void pools_command(struct pools *ps, struct client *c, const struct proto_req *rq);
/* pools: the list with waiting and playing counts. */
void pools_list(struct pools *ps, struct client *c, const struct proto_req *rq);
/* c leaves (connection closed or logged out): out of every pool. */
void pools_client_gone(struct pools *ps, struct client *c);

#endif
