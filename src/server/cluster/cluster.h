/*
 * cluster.h - a node of a cluster (bitarenad --cluster redis://HOST:PORT
 * --db postgresql://... --node NAME): several servers on one PostgreSQL and
 * one Redis that a player sees as one. This header is the folder's public
 * face: the rest of the server includes it and relay.h (server.c tells a
 * relay connection from a socket), nothing else of src/server/cluster/.
 *
 * The folder, part by part (cluster_internal.h, its private header, says in
 * which order they call each other and why they are cut so):
 *   cluster.c           the node's life-cycle (this header's functions): start,
 *                       recovery, stop, free; the tick; the inbox's messages
 *                       handed to the part they are for
 *   cluster_redis.c     the Redis connections: commands, publishing,
 *                       subscriptions, the nodes alive
 *   cluster_remote.c    remote games at the home: the games owned elsewhere that
 *                       our clients play or watch, fed from their channels
 *   cluster_home.c      the home side of a request: forwarded to the game's (or
 *                       the seek's) node, its answer back
 *   cluster_owner.c     the owner side of a game: relay clients and relay
 *                       watchers standing for other nodes' clients and
 *                       spectators, the session hooks around the journal's
 *   cluster_shared.c    the lobby shared through Redis: seeks, users, games in
 *                       progress; who, seeks and list for the whole cluster
 *   cluster_events.c    the events' lease: tournaments, ladders and pools run
 *                       by one node, the others forwarding their verbs there
 *   cluster_takeover.c  heartbeats, dead nodes, takeovers, the live state
 *                       written again when Redis is back
 *   relay.c, relay.h    the relay transport (a struct conn_transport)
 *
 * Its layer: below the ports (ports/) and main/server.c, above the command
 * table (cmd/) and everything under it. It calls down into cmd, records,
 * play, msg and net, and hears from them only through the callbacks it
 * registers (the router of commands.h, the lobby's hooks, the session hooks
 * around the journal's, the relay sink); what a command does across nodes it
 * reads from the row's flags (commands.h), never from the verb's name.
 *
 * The design, with the keys, the bus and its messages, is docs/cluster.md;
 * in short:
 *  - a game has one owner node, which runs it as a single server would; a
 *    client acting on a game owned elsewhere has its command line forwarded
 *    there and run by a relay client standing for it (relay.h), whose output
 *    comes back to the client's node;
 *  - a node subscribes to a game's channel while one of its clients plays or
 *    watches it; the owner publishes each spectator message once per format
 *    and every node fans it out to its own spectators;
 *  - seeks, presence, the list of games and the owners are shared in Redis;
 *    heartbeats expire, and a node that died has its games taken over by
 *    another from the journal in PostgreSQL, which fences the dead node out
 *    (store_games_claim());
 *  - Redis going away: commands that need another node get CLUSTER_DOWN,
 *    games whose players are on their owner go on, and everything is
 *    written again when Redis is back.
 *
 * server.c wires it. Redis is reached through hiredis on the server's own
 * loop (its libuv adapter); PostgreSQL through the storage interface on a
 * worker thread (takeovers). The loop never waits for either. No global:
 * every callback finds its cluster through its own data (the hooks' ud, a
 * hiredis context's data, a timer's data).
 */
#ifndef BITARENA_SERVER_CLUSTER_H
#define BITARENA_SERVER_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "server/store/store.h"
#include "server/util/metrics.h"

#define CLUSTER_NODE_MAX   32    /* a node's name: 1..32 of [A-Za-z0-9_-] */
#define CLUSTER_BEAT_MS    1000  /* heartbeats */
#define CLUSTER_EXPIRY_MS  3000  /* a node whose heartbeat is this old is dead */
#define CLUSTER_FORWARD_MS 10000 /* a forwarded command not answered: NODE_GONE */

struct conn_hub;
struct commands;
struct lobby;
struct sessions;
struct journal;
struct client;
struct tourneys;
struct ladders;

struct cluster_config {
	const char *redis;                 /* "redis://HOST:PORT" */
	const char *node;                  /* the node's name */
	const char *instance;              /* "name#random": this process (cluster_instance()) */
	int beat_ms;                       /* 0: CLUSTER_BEAT_MS */
	int expiry_ms;                     /* 0: CLUSTER_EXPIRY_MS */
	int forward_ms;                    /* 0: CLUSTER_FORWARD_MS */
	const struct store_options *store; /* takeovers open connections of their own with it */
};

/* The layers the node works with (all the server's). */
struct cluster_layers {
	uv_loop_t *loop;
	struct conn_hub *hub;
	struct commands *cmds;
	struct lobby *lobby;
	struct sessions *sess;
	struct journal *journal;
	struct tourneys *tourneys; /* the events one node runs (cluster_events.c); NULL: none */
	struct ladders *ladders;
};

struct cluster;

/* A node's name: 1..CLUSTER_NODE_MAX of [A-Za-z0-9_-]. */
bool cluster_node_valid(const char *name);
/* "redis://HOST:PORT" (or "HOST:PORT") into host and port; -1 when it is not that. */
int cluster_parse_redis(const char *url, char *host, size_t hlen, int *port);
/* This process's instance of node name: "name#" and 12 random hex digits. */
void cluster_instance(const char *name, char out[STORE_NODE_MAX + 1]);

/*
 * Joins the cluster: reaches Redis (synchronously, once: a node that cannot
 * must not start), takes the node's heartbeat key (waiting for an earlier
 * instance's to expire; refused when another live instance holds it),
 * then works on the loop. *why says what failed. 0, or -1.
 */
int cluster_start(const struct cluster_config *cfg, const struct cluster_layers *ly,
                  struct cluster **out, char *why, size_t len);
/*
 * Takes back the node's own games (those of any earlier instance of its
 * name) from the store and restores them; before the node listens. The
 * number restored, or a negative enum store_err.
 */
int cluster_recover(struct cluster *c);
/*
 * Leaves: the heartbeat key goes (the others take the node's games over at
 * once), Redis is disconnected and every handle closed; the loop then ends.
 */
void cluster_stop(struct cluster *c);
/* After the loop ended. NULL is fine. */
void cluster_free(struct cluster *c);
/* c's counts (commands forwarded, takeovers and the games they brought) join r. */
void cluster_register_metrics(struct cluster *c, struct metrics *r);

/* The server's connection events, passed on. */
void cluster_client_gone(struct cluster *c, struct client *cl);
void cluster_drain(struct cluster *c, struct client *cl);

/*
 * GET /api/games/live cluster-wide (server.c gives it to the API as its live_games): the HTTP
 * API's rows of every live node's games in progress, read from the games'
 * hashes in Redis. true: done(arg, games) is called once, later, with the rows by id (an
 * array, the caller's) or NULL when Redis failed; false: Redis is down, done is not called.
 */
struct cJSON;
bool cluster_live_games(struct cluster *c, void (*done)(void *arg, struct cJSON *games), void *arg);

#endif
