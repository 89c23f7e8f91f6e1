/*
 * client.h - the messages layer's per-connection object: everything the
 * layers above the connection layer keep about one connection, reached from
 * the struct conn through its one opaque pointer (conn->data) and from a
 * struct client through cl->conn. The connection layer never looks inside.
 *
 * Why one struct and not one per layer: every layer above the connection
 * needs to name "this client" (a seat, a watcher, a seek's author, a password
 * check's requester), and one object lets them share that name without a
 * registry per layer or a lookup per message; it is how tmux (struct client)
 * and Redis (client) keep theirs. What each layer keeps lives in its own part
 * below, written only by that layer (named beside it) and read by the layers
 * above it. Nothing here is the connection layer's: transport, id, peer, input
 * and output accounting stay in struct conn.
 *
 * Output: every byte for a client goes through client_send(), the one door to
 * its connection. Today it hands the outbuf straight to conn_send().
 *
 * The journal seam (designed, not built yet). When the journal runs on a
 * writer thread with group commit, a move's reply and the broadcasts it causes
 * must not leave before the move is durable, while other output (pings, the
 * lobby, other games) flows. The plan:
 *  - the journal numbers every write it queues (a sequence, increasing) and
 *    reports, on the loop thread, the highest number whose batch is durable
 *    (uv_async from the writer thread);
 *  - the messages layer keeps one watermark: "output from here on needs
 *    sequence S durable" (msg_require(S), set by the session layer around the
 *    reply and broadcasts of a journalled move, cleared after them);
 *  - each client gets an output queue of (outbuf, S) entries. client_send()
 *    keeps today's fast path when the queue is empty and S is durable already
 *    (conn_send at once); otherwise it appends. Once anything is queued for a
 *    client, everything after it queues too (a later ping waits behind a move
 *    of the same connection: per connection the order is kept), while clients
 *    with an empty queue are written to at once;
 *  - when the durable number advances, the clients with queued entries hand
 *    every entry up to the first one still waiting to conn_send(), in order;
 *  - a client whose queue is long counts as slow (client_slow), so its input
 *    waits in the pump as it does today when its socket is backed up;
 *  - on close the queue is dropped with the client (the peer is gone).
 * Nothing outside msg.c/client.c changes for it but the session layer's
 * msg_require() around a move.
 */
#ifndef BITARENA_SERVER_CLIENT_H
#define BITARENA_SERVER_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "proto/limits.h"
#include "server/proto.h"
#include "server/conn.h"

struct msg_frontend;

/* The server's pings and what they measured (rtt.c). */
struct client_rtt {
	bool on;        /* "set ping on": the server pings this client */
	bool known;     /* ms is measured */
	bool waiting;   /* token is sent and not answered yet */
	uint64_t token; /* the last ping sent */
	uint64_t sent;  /* uv_now when it went out, or when it was answered */
	int64_t ms;     /* smoothed round-trip time */
};

struct client {
	struct conn *conn; /* the connection below; set for the client's whole life */

	/* the messages layer's (msg.c, msg_set_json): the output format */
	bool json;
	/* a front-end (msg.h; set by playtak_port.c): another protocol on this
	 * connection, or NULL, and that front-end's per-client state */
	const struct msg_frontend *fe;
	void *fe_data;
	/* rtt.c's: the server's pings */
	struct client_rtt rtt;
	/* the lobby's (lobby.c, lobby_login): who this is */
	bool logged_in;
	bool registered; /* logged in to an account (accounts); false for a guest */
	char name[PROTO_NAME_MAX + 1];
	/* the session layer's (session_watch.c) */
	bool has_pending_states; /* some watched game holds a coalesced state for us */
	bool want_watchers;      /* "set watchers on": spectator counts of our games as they
	                            change (session_want_watchers) */
};

/* A client for c (c->data points to it); NULL out of memory. */
struct client *client_new(struct conn *c);
/* Frees cl (its connection is closing); NULL is fine. */
void client_free(struct client *cl);
/* The client of connection c (NULL before on_open and once closing). */
static inline struct client *client_of(const struct conn *c)
{
	return c->data;
}

/* The one door to the connection: b (a reference is taken; NULL is ignored) to cl. */
void client_send(struct client *cl, struct outbuf *b);
/* True when cl's output is backed up (above the cap): it gets only newest states. */
bool client_slow(const struct client *cl);
/* True while cl can be sent to (its connection is neither closing nor doomed). */
bool client_alive(const struct client *cl);
/* Closes cl's connection (graceful: after its queued output); cl is freed in on_close. */
void client_close(struct client *cl, bool graceful);

#endif
