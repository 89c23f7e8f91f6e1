/*
 * msg/ - the messages layer: what the layers above keep per connection
 * (struct client) and what they send on it. Below play/, above net/ (the
 * order of the folders: DEVELOPERS.md, Layout; tests/layers.py checks it).
 * It calls net/ (its one door to a connection) and util/ (output buffers,
 * JSON); every layer above calls it. News upward: a client's front-end
 * (struct msg_frontend, msg.h), which a port sets, renders and reads for it.
 *   client.c  struct client, its output, the journal's barrier that holds it
 *   msg.c     messages as JSON and text, rendered once; replies to a command
 *   rtt.c     the server's own ping and each client's round-trip time
 *   proto.c   the command side of the text protocol: splitting lines, ids, names
 *
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
 * its connection.
 *
 * The journal's barrier. The journal runs on a writer thread with group
 * commit (store_writer.h): a move's reply and the broadcasts it causes must
 * not leave before the move is durable, while other output (pings, the
 * lobby, other games) flows. So:
 *  - the journal numbers every write it queues (a sequence, increasing) and,
 *    when it queues one, raises the barrier's watermark to its number
 *    (client_barrier_need): output sent from then on waits until that number
 *    is durable. The watermark lasts until the end of the event that caused
 *    the write (a command, a game's deadline): client_barrier_clear() there;
 *  - client_send() keeps the direct path when the client has nothing held and
 *    the watermark is durable already (conn_send at once); otherwise it
 *    appends (outbuf, watermark) to the client's held output. Once anything
 *    is held for a client, everything after it is held too (a later ping
 *    waits behind a move of the same connection: per connection the order is
 *    kept), while clients with nothing held are written to at once;
 *  - client_barrier_durable(upto), on the loop thread when the writer reports
 *    a batch durable, hands every client's held entries up to the first one
 *    still waiting to conn_send(), in order;
 *  - a write the store refuses (a cluster node's write to a game another
 *    node has taken over: PostgreSQL's fencing) is never acknowledged:
 *    client_barrier_refused(seq), before that seq is reported durable,
 *    drops every held entry waiting for it, or puts in its place the
 *    alternative it was sent with (client_send_else: the `ok` of a command
 *    gives way to an error, a cluster's end-of-forward marker goes anyway);
 *  - client_send_now() skips the held output: for notices that concern it
 *    (the journal telling players their move waits on a failing store);
 *  - while the store fails (client_barrier_stuck: a batch is tried again and
 *    again, maybe for ever when the database file was removed), output that
 *    waits for nothing goes out at once even to a client with output held:
 *    otherwise a game's players and spectators, whose output is held behind
 *    the game's unstored move, would get no answer to a ping, a chat line or
 *    a read until the store came back (PROTOCOL.md §10: those go on). What
 *    waits for the store still waits, in order; only the order between the
 *    two is given up, and only meanwhile;
 *  - held output counts as the connection's output, against its limits, as
 *    if it were queued (conn_out_hold): a client cannot pile up memory
 *    behind a slow journal;
 *  - a closing client's held output is dropped with it (the peer is gone).
 * A client with no barrier (bar NULL: no journal, unit tests) holds nothing.
 */
#ifndef BITARENA_SERVER_CLIENT_H
#define BITARENA_SERVER_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "proto/limits.h"
#include "server/util/budget.h"
#include "server/msg/proto.h"
#include "server/net/conn.h"
#include "server/store/store.h"

struct msg_frontend;

/* The server's pings and what they measured (rtt.c). */
struct client_rtt {
	bool on;        /* "set ping on": the server pings this client */
	bool known;     /* ms is measured */
	bool waiting;   /* token is sent and not answered yet */
	uint64_t token; /* the last ping sent */
	uint64_t sent;  /* uv_now when it went out, or when it was answered */
	uint64_t owed;  /* uv_now of the oldest ping not answered (while waiting) */
	int64_t ms;     /* smoothed round-trip time */
};

struct client_barrier;
struct held_out; /* client.c */

struct client {
	struct conn *conn; /* the connection below; set for the client's whole life */

	/* messages (client.c): output held behind the journal's barrier */
	struct client_barrier *bar; /* NULL: nothing is ever held */
	struct held_out *held;      /* a ring of held_cap entries, held_n from held_head */
	size_t held_cap, held_head, held_n;
	struct client *held_next, *held_prev; /* bar->held, while held_n > 0 */

	/* the command table's (commands.c): the command budget (budget.h) */
	struct budget budget;
	/* the messages layer's (msg.c, msg_set_json): the output format */
	bool json;
	/* a front-end (msg.h; set by playtak_port.c): another protocol on this
	 * connection, or NULL, and that front-end's per-client state */
	const struct msg_frontend *fe;
	void *fe_data;
	/* rtt.c's: the server's pings */
	struct client_rtt rtt;
	/* cluster (relay.c): a relay client, standing for a client of another node; never a
	   user of this one (the lobby skips it) */
	bool remote;
	/* the lobby's (lobby.c, lobby_login): who this is */
	bool logged_in;
	bool registered; /* logged in to an account (accounts); false for a guest */
	bool seeks_off;  /* set seeks off: no seek news */
	bool tourneys_on; /* events/'s: set tourneys on: tournament events (tourney.h) */
	char name[PROTO_NAME_MAX + 1];
	/* accounts.c's (read at login, changed by set bot|bots|accept; a guest's in memory
	   only), read through identity.h's accessors: a bot's account, refusing bots, the
	   accept filter; zero when logged out */
	struct store_prefs prefs;
	/* msg.c's (msg_ask_password), read by commands.c: a password asked for. After `login
	   <account>` or `register <name>` without one, in text mode, the next line is the
	   password: never parsed as a command, shown or logged. pw_verb is the verb's row name
	   (the table's string) or NULL when nothing is asked; pw_name the name it is for. The
	   password itself is never kept here: it is the connection's line (conn.c's storage),
	   which commands.c hands to the verb and then wipes (sodium_memzero); a login's copy
	   is its job's (accounts.c), wiped there. */
	const char *pw_verb;
	char pw_name[PROTO_NAME_MAX + 1];
	/* identity.c's: a guest's token (given at login, kept after logout), or "" */
	char token[PROTO_TOKEN_LEN + 1];
	/* the session layer's (session_watch.c) */
	bool has_pending_states; /* some watched game, here or on another node (cluster_remote.c),
	                            holds a coalesced state for us */
	bool want_watchers;      /* "set watchers on": spectator counts of our games as they
	                            change (session_watch_want_counts) */
	/* the session layer's (session_watch.c): the games this client has a seat in or
	   watches, so that who, leaving and coming back cost its own games, not all */
	struct game **games;
	unsigned ngames, capgames;
	unsigned nwatching; /* of them, watched (--max-watches) */
	/* the archive's (archive.c): replays running for this client (--max-replays) and the
	   bytes they hold (ARCHIVE_REPLAY_CONN_BYTES) */
	unsigned nreplays;
	size_t replay_bytes;
};

/* The journal's barrier: one per server (see the top of this file). */
struct client_barrier {
	uint64_t need;       /* output sent from now on waits for this seq (0: nothing) */
	uint64_t durable;    /* every seq up to here is durable */
	struct client *held; /* the clients with held output */
	bool stuck;          /* the store fails: what waits for nothing passes what is held */
};

/* Output sent from now on waits until seq is durable (the watermark only rises). */
void client_barrier_need(struct client_barrier *b, uint64_t seq);
/*
 * Raises the watermark to seq for what is sent until client_barrier_pop()
 * (a game's state sent to one client outside the event that changed it:
 * watch, a login's resume): returns the watermark to restore. b may be NULL.
 */
uint64_t client_barrier_push(struct client_barrier *b, uint64_t seq);
void client_barrier_pop(struct client_barrier *b, uint64_t saved);
/* The end of the event that raised the watermark: later output waits for nothing. */
void client_barrier_clear(struct client_barrier *b);
/*
 * The store refused the write seq (it is not stored): every held entry waiting for it is
 * dropped, or replaced by its alternative (client_send_else). Before the batch that held it
 * is reported durable.
 */
void client_barrier_refused(struct client_barrier *b, uint64_t seq);
/* True when output sent now would wait for a write (a watermark is raised and not durable). */
bool client_barrier_waits(const struct client_barrier *b);
/* Every seq up to upto is durable: held output up to there goes out, in order. */
void client_barrier_durable(struct client_barrier *b, uint64_t upto);
/* The store fails (true) or works again (false): see the top of this file. */
void client_barrier_stuck(struct client_barrier *b, bool stuck);

/* A client for c (c->data points to it); NULL out of memory. */
struct client *client_new(struct conn *c);
/* Frees cl and drops its held output (its connection is closing); NULL is fine. */
void client_free(struct client *cl);
/* The client of connection c (NULL before on_open and once closing). */
static inline struct client *client_of(const struct conn *c)
{
	return c->data;
}

/* The one door to the connection: b (a reference is taken; NULL is ignored) to cl. */
void client_send(struct client *cl, struct outbuf *b);
/*
 * client_send(), and should b be held behind a write the store then refuses, alt goes in its
 * place (a reference is taken; NULL: nothing; b itself: b goes anyway).
 */
void client_send_else(struct client *cl, struct outbuf *b, struct outbuf *alt);
/* b to cl at once, ahead of its held output (a notice about what is held). */
void client_send_now(struct client *cl, struct outbuf *b);
/* True when cl's output is backed up (above the cap): it gets only newest states. */
bool client_slow(const struct client *cl);
/* True while cl can be sent to (its connection is neither closing nor doomed). */
bool client_alive(const struct client *cl);
/* Closes cl's connection (graceful: after its queued output); cl is freed in on_close. */
void client_close(struct client *cl, bool graceful);

#endif
