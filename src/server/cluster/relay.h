/*
 * relay.h - the relay transport (a struct conn_transport, as tcp.c and ws.c
 * are): connections on a game's owner node that stand for someone on another
 * node (docs/cluster.md). The layers above see an ordinary connection with
 * its struct client; what they send to it goes to the cluster's bus instead
 * of a socket.
 *
 * Two kinds:
 *  - a relay client stands for one client of a home node (its conn id there):
 *    the cluster runs that client's forwarded command lines on it, and it
 *    holds the client's seats; its output goes back to the home, whole;
 *  - a relay watcher stands for every spectator of one game, in one output
 *    format, on every other node: it watches the game like any spectator,
 *    and its output is published once on the game's channel, marked as a
 *    state or another message (for the homes' slow spectators).
 *
 * Output: write() hands each outbuf to the cluster's send callback (which
 * publishes it) and counts it in the backlog until the cluster reports it
 * taken (relay_sent()), so a bus that does not keep up makes the relay slow:
 * its spectators get only the newest state, as any slow spectator does.
 * Input: none through the transport; the cluster calls commands_line() on
 * the relay's client itself. Close: conn_closed() comes from a timer, never
 * from inside close().
 */
#ifndef BITARENA_SERVER_RELAY_H
#define BITARENA_SERVER_RELAY_H

#include <stdbool.h>
#include <stdint.h>

#include "server/msg/client.h"
#include "server/net/conn.h"

#define RELAY_NODE_MAX 64 /* a node's instance, "name#random" (STORE_NODE_MAX) */

enum relay_kind { RELAY_CLIENT, RELAY_WATCHER };

/* What one relay connection stands for. */
struct relay_id {
	enum relay_kind kind;
	char home[RELAY_NODE_MAX + 1]; /* RELAY_CLIENT: the client's node's instance */
	uint64_t conn;                 /* RELAY_CLIENT: its connection id there */
	uint64_t game;                 /* RELAY_WATCHER: the game watched */
	bool json;                     /* RELAY_WATCHER: the output format */
};

/*
 * The cluster's side: where a relay's output goes (it owns nothing of b; it
 * copies). True when it took b (relay_sent() follows), false when it
 * dropped it (the bus is down: nothing to wait for).
 */
struct relay_sink {
	void *ud;
	bool (*send)(void *ud, struct conn *c, const struct relay_id *id, const struct outbuf *b);
};

extern const struct conn_transport relay_transport;

/*
 * Opens a relay connection on hub for id, its output going to sink (the
 * cluster's, which outlives every relay connection): its struct client
 * exists on return (the server's on_open made it; no welcome goes out).
 * NULL when it cannot (memory, the hub stopping).
 */
struct client *relay_open(struct conn_hub *hub, const struct relay_id *id,
                          const struct relay_sink *sink);
/* True when c is a relay connection, and then what it stands for. */
bool relay_is(const struct conn *c);
const struct relay_id *relay_id_of(const struct conn *c);
/* n bytes of c's output were taken by the bus (or dropped with it): out of the backlog. */
void relay_sent(struct conn *c, size_t n);
/* While muted, c's output is dropped (a relay watcher joining a game without a word). */
void relay_mute(struct conn *c, bool on);

#endif
