/*
 * net/ - connections and what carries them: the lowest layer with sockets.
 * Below msg/, above store/ and util/ (the order of the folders:
 * DEVELOPERS.md, Layout; tests/layers.py checks it). It calls util/ only;
 * every layer above may call it. News upward goes only through struct
 * conn_events (on_open, on_line, on_drain, on_timeout, on_close, ...), which
 * server.c registers; a transport implements struct conn_transport.
 *   conn.c       struct conn: input through the framer, the pump, output limits
 *   framing.c    the line framer: telnet, terminators, the length cap (pure)
 *   tcp.c        the TCP transport
 *   ws.c         the HTTP listener and the WebSocket transport (libwebsockets)
 *   http.c       an HTTP request under /api as a connection (http.h; the API's)
 *   addrcount.c  connections counted per peer address (--max-per-address)
 *
 * conn.h - the connection layer, the bottom of the server: one struct conn per
 * client connection whatever carries it, the input buffer and its line framer,
 * the fairness pump (a few lines per connection per loop pass; the input of
 * connections marked spending handled after everyone's is read, that of
 * connections marked heavy after everyone else's, in slices of time), output
 * accounting against its limits, the limits at the door (clients in all, per
 * address), the timeouts of a connection, and closing. It knows nothing of
 * the protocol's meaning: whole lines go up, outbufs come down.
 *
 *     transport (tcp.c; WebSocket later)      conn.c                layer above
 *     ---------------------------------      ---------------       -------------------
 *     accepted        -> conn_new/conn_open   link, id       --->  ev.on_open
 *     bytes read      -> conn_input[_copy]    frame, pump    --->  ev.on_line, on_bad_frame,
 *                                                                   on_telnet
 *     peer finished   -> conn_input_eof       last line, close
 *     write finished  -> conn_wrote           drained?       --->  ev.on_drain
 *     (refused at the door)                                  --->  ev.on_refuse
 *     (a timeout: the sweep)                                 --->  ev.on_timeout
 *     handles closed  -> conn_closed          unlink, free
 *     t->write/backlog/pause/resume/close  <-  conn_send, conn_close  <--- the layer above
 *
 * A transport is one static struct conn_transport (its operations) and the
 * per-connection state it asks conn_new() to keep beside the conn (tdata). TCP
 * (tcp.c) is the first. A message transport (WebSocket: libwebsockets) plugs
 * in without a change above this layer:
 *  - input: each text message is fed with conn_input_copy() followed by "\n",
 *    so a message is a line (an overlong one gets LINE_TOO_LONG as on TCP);
 *    when conn_input_copy() takes less than offered the input buffer is full:
 *    the transport keeps the rest, stops receiving (pause; lws_rx_flow_control)
 *    and offers it again when resume() is called;
 *  - output: write() queues the outbuf (one reference held) and sends it when
 *    the socket is writable (lws_callback_on_writable), then calls
 *    conn_wrote() with it; backlog() is the bytes queued and not yet sent;
 *  - close(): a close frame (graceful: after the queue), then conn_closed()
 *    from the callback that reports the connection gone.
 *
 * Rules for transports: conn_closed() is never called from inside close() (the
 * caller of conn_close() may still use the conn until it returns to the loop),
 * only from a later callback; close() may be called a second time with
 * graceful false, to cut a graceful close short (shutdown after CONN_STOP_MS).
 *
 * What is not here: everything other layers keep per connection (output
 * format, login name, round-trip time, watched games, seats, a password check
 * under way) is theirs, in the object `data` points to (struct client,
 * client.h). The connection layer never looks inside it; it only holds input
 * back while the layer above says so (conn_hold), which is how a password
 * check on a worker makes the connection's next commands wait.
 *
 * Telnet: the framer strips negotiation on every transport; on a transport
 * that says so (telnet: TCP, where people use telnet) the layer above is
 * given the answer (on_telnet) to send in order with its replies.
 *
 * Limits (struct conn_limits; every one applies to every transport alike):
 *  - output: what the server holds for a connection until its socket takes
 *    it, queued or held above (conn_out_hold), is counted as memory: each
 *    outbuf its size plus CONN_OUT_ENTRY
 *    bytes of bookkeeping (the write request), and a broadcast shared by
 *    several connections in full for each of them (each keeps it alive). Above
 *    out_soft the connection is slow (conn_slow: spectators coalesce, its own
 *    input waits); above it for out_soft_ms without a break, or above out_hard
 *    at any moment (checked before queuing, so it never holds more), it is
 *    dropped; when all connections together hold more than out_total, the one
 *    that holds the most is dropped (Redis: client-output-buffer-limit,
 *    maxmemory-clients);
 *  - at the door: max_clients open connections, max_per_addr per address
 *    (addrcount.h; loopback and a transport without addresses are not
 *    limited); one over is told why (on_refuse) and closed;
 *  - time: a connection that has not settled login_ms after it opened is
 *    asked about (on_timeout LOGIN: the layer above says whether it has
 *    logged in or watches) and closed if not; one that sends nothing for
 *    idle_ms likewise (IDLE). A sweep over the connections checks these and
 *    the soft limit's time a few times a second at most;
 *  - deferral: the layer above may hold a connection's input until a time
 *    (conn_defer: its command budget ran out), without a timer per
 *    connection (one heap for the hub).
 *
 * Memory: conn_new() makes one allocation (the conn and the transport's
 * state); conn_closed() frees it. The input buffer and the line being framed
 * (struct conn_in, about 12 KiB) are allocated only while input is pending
 * and freed once it is all handled and no line is half read, so an idle
 * connection holds none. Upward callbacks never free a conn.
 */
#ifndef BITARENA_SERVER_CONN_H
#define BITARENA_SERVER_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "server/net/addrcount.h"
#include "server/net/framing.h"
#include "server/util/metrics.h"
#include "server/util/outbuf.h"

#define CONN_IN_CAP            8192 /* unparsed input held per connection (while any) */
#define CONN_IN_RESUME         (CONN_IN_CAP / 2) /* a full one is read again at or under it */
#define CONN_LINES_PER_PASS    4    /* lines of one connection per loop pass (spending: 1) */
#define CONN_SLICE_US          100  /* the spending and heavy connections' share of a loop pass, µs */

/* The pump's queues, served in this order each loop pass (conn_set_spending, _heavy). */
enum conn_q { CONN_Q_ALL, CONN_Q_SPENDING, CONN_Q_HEAVY, CONN_QUEUES };
/* The defaults of struct conn_limits (each is a bitarenad option). */
#define CONN_OUT_SOFT        (64 * 1024)  /* --out-cap BYTES */
#define CONN_OUT_HARD_FACTOR 16           /* --out-hard default: 16 x --out-cap (1 MiB) */
#define CONN_OUT_SOFT_MS     60000        /* --out-soft-seconds: 60 */
#define CONN_OUT_TOTAL       (512u << 20) /* --out-total BYTES: 512 MiB */
#define CONN_MAX_CLIENTS     10000        /* --max-clients */
#define CONN_MAX_PER_ADDR    64           /* --max-per-address */
#define CONN_LOGIN_MS        300000       /* --login-timeout: 300 s */
#define CONN_IDLE_MS         0            /* --idle-timeout: none */
#define CONN_OUT_ENTRY       256  /* bookkeeping counted per queued outbuf (write request) */
#define CONN_STOP_MS         2000 /* a shutdown waits this long for output to flush */
#define CONN_PEER_MAX        64

struct conn;
struct conn_hub;

/* A connection's pending input: what was read and not handled yet, and the line being
   framed (conn.c allocates it on demand and frees it once both are empty). */
struct conn_in {
	unsigned char raw[CONN_IN_CAP];
	char line[FRAME_MAX + 1];
};

/* The limits of a hub (see the top of this file); 0 turns one off, except out_soft. */
struct conn_limits {
	size_t out_soft;       /* output above it: slow */
	size_t out_hard;       /* output above it: dropped at once */
	uint64_t out_soft_ms;  /* above out_soft this long: dropped */
	size_t out_total;      /* all connections' output: above it, the biggest is dropped */
	unsigned max_clients;  /* open connections */
	unsigned max_per_addr; /* open connections per address (loopback: no limit) */
	uint64_t login_ms;     /* from opening to settling (LOGIN) */
	uint64_t idle_ms;      /* without input (IDLE) */
};

/* The defaults above (out_hard = CONN_OUT_HARD_FACTOR x out_soft). */
void conn_limits_default(struct conn_limits *l);

/* Why a connection was refused at the door (on_refuse). */
enum conn_refusal { CONN_REFUSED_FULL = 1, CONN_REFUSED_ADDRESS };
/* Which deadline of a connection passed (on_timeout). */
enum conn_timeout { CONN_TIMEOUT_LOGIN = 1, CONN_TIMEOUT_IDLE };

/* The operations of one transport (see above). */
struct conn_transport {
	const char *name; /* "tcp", "ws" */
	bool telnet;      /* a byte stream telnet may use: its negotiation is answered */
	/* its connections have no network address (a cluster's relay clients, which stand for
	   clients that another node's door admitted): max_per_addr does not count them */
	bool no_address;
	/* Queues b to the peer: takes its own reference and, once b is written, calls
	   conn_wrote(c, b, status) before dropping it (which may happen inside write()).
	   0, or < 0 when it cannot (the connection is then dropped). */
	int (*write)(struct conn *c, struct outbuf *b);
	/* Bytes accepted by write() that the peer has not taken yet. */
	size_t (*backlog)(const struct conn *c);
	/* Stops delivering input (the buffer is full, or the peer finished). */
	void (*pause)(struct conn *c);
	/* Delivers input again; 0, or < 0 when it cannot. */
	int (*resume)(struct conn *c);
	/* Closes (graceful: queued output first) and later calls conn_closed(). */
	void (*close)(struct conn *c, bool graceful);
	/* Optional: sends at once what write() queued to be sent later in the loop pass (a
	   transport that batches its writes), so a heavy connection's slice pays for it. */
	void (*flush)(struct conn *c);
};

/* Upward news, registered by the layer above (conn_hub_init). ud is its own. */
struct conn_events {
	void *ud;
	/* c is open (conn_open): attach the per-connection object, greet the peer. */
	void (*on_open)(void *ud, struct conn *c);
	/* c was refused at the door: tell it why (conn_send; a new connection reads text).
	   It is closed after; no other event of c comes. */
	void (*on_refuse)(void *ud, struct conn *c, enum conn_refusal why);
	/* One whole line, NUL-terminated, len bytes, framing done (no CR/LF, telnet
	   removed), content not checked (frame_line_valid). Valid until it returns. */
	void (*on_line)(void *ud, struct conn *c, char *line, size_t len);
	/* A frame that is no line: FRAME_TOO_LONG (a line passed FRAME_MAX bytes) or
	   FRAME_SB_TOO_LONG (a telnet subnegotiation passed FRAME_SB_MAX bytes without its
	   end); either way the rest of that line up to its end is dropped. */
	void (*on_bad_frame)(void *ud, struct conn *c, enum frame_event what);
	/* telnet transports: the answer to a negotiation (len bytes, valid until it returns),
	   to be sent after the replies to everything read before it. */
	void (*on_telnet)(void *ud, struct conn *c, const unsigned char *answer, size_t len);
	/* A write finished and the backlog is at most half the cap. */
	void (*on_drain)(void *ud, struct conn *c);
	/* A deadline of c passed: true to close it (tell it why first; it is closed
	   gracefully after), false to keep it. Each deadline is asked about once, but
	   IDLE again after idle_ms more without input. */
	bool (*on_timeout)(void *ud, struct conn *c, enum conn_timeout what);
	/* c is closing (quit, peer gone, error, overflow, shutdown): leave everything.
	   c can still be sent to and others can be told; no event for c follows. */
	void (*on_close)(void *ud, struct conn *c);
};

struct conn {
	/* Everything here is the connection layer's: read it, never write it. */
	struct conn_hub *hub;
	const struct conn_transport *t;
	void *tdata; /* the transport's per-connection state (conn_new's tsize bytes) */
	uint64_t id; /* 1, 2, ... in order of opening; 0 until open */
	char peer[CONN_PEER_MAX];
	struct conn *prev, *next; /* hub->conns, newest first (open ones only) */
	struct conn *pump_next;   /* its pump queue (hub->inq[pump_q]): input left */
	bool in_pump;
	bool heavy;           /* conn_set_heavy(): its input waits behind everyone else's */
	bool spending;        /* conn_set_spending(): its input waits for the pump */
	unsigned char pump_q; /* which queue it is in (enum conn_q, when it was queued) */
	bool listed;          /* opened and not yet freed: in hub->conns */
	bool counted;         /* counted in the hub's clients and its address (not refused) */
	bool reading;         /* the transport delivers input */
	bool closing;         /* detached from everything; waiting for conn_closed */
	bool doomed;          /* to be dropped at the next pump pass (overflow, write error) */
	bool eof;             /* the peer finished sending: closed once its input is handled */
	bool sending;         /* inside t->write() */
	bool login_due;       /* the LOGIN deadline is still to be asked about */
	/* a telnet transport's peer that speaks telnet: it negotiated (IAC WILL/WONT/DO/DONT)
	   or ended a line with CR (telnet's end of line; nc sends LF alone). Telnet to a port
	   of its choice negotiates nothing until asked, so its end of line is what tells */
	bool telnet_peer;
	unsigned holds;       /* conn_hold() count: input waits while > 0 */
	struct framer fr;
	struct conn_in *in; /* pending input; NULL when there is none */
	size_t in_len;      /* bytes of in->raw not handled yet */
	struct addr_key addr;
	uint64_t opened_at, last_in; /* uv_now: when opened, when input last came */
	size_t out_bytes;            /* output held, as counted (see the top) */
	bool out_counted;            /* out_bytes is part of the hub's total */
	uint64_t soft_since;         /* uv_now when out_bytes passed out_soft; 0: below */
	uint64_t defer_until;        /* conn_defer(): input waits until then (uv_now) */
	size_t defer_at;             /* index in the hub's deferral heap + 1; 0: not in it */
	unsigned char kind;          /* enum conn_kind: what the metrics count it as */

	/* The layer above's per-connection object (struct client); set in on_open. */
	void *data;

	_Alignas(max_align_t) unsigned char tarea[]; /* tdata points here */
};

/*
 * What the metrics call a connection (the label transport=): its transport's name, or
 * playtak for a TCP connection of the playtak port (conn_count_as()).
 */
enum conn_kind {
	CONN_KIND_TCP,
	CONN_KIND_WS,
	CONN_KIND_HTTP,
	CONN_KIND_PLAYTAK,
	CONN_KIND_RELAY,
	CONN_KIND_OTHER,
	CONN_KINDS
};
enum conn_drop { CONN_DROP_OUT_HARD, CONN_DROP_OUT_TOTAL, CONN_DROP_OUT_SOFT, CONN_DROPS };

/* The connection layer's metrics (conn_hub_register_metrics()). */
struct conn_metrics {
	struct metric open[CONN_KINDS];     /* gauge: counted connections now, per kind */
	struct metric accepted[CONN_KINDS]; /* counted connections opened, per kind */
	struct metric refused[2];           /* at the door: max-clients, max-per-address */
	struct metric out_bytes;            /* output bytes the transports took */
	struct metric drops[CONN_DROPS];    /* slow readers dropped, per limit */
};

/* Every connection of a server, and the pump that serves their input. */
struct conn_hub {
	uv_loop_t *loop;
	struct conn_limits lim;
	size_t out_soft; /* lim.out_soft (the output cap; tests may change it) */
	struct conn_events ev;
	struct conn *conns; /* open connections, newest first */
	/* connections with input to handle: [CONN_Q_ALL] everyone's, [CONN_Q_SPENDING] the
	   spending ones', [CONN_Q_HEAVY] the heavy ones' */
	struct conn_queue {
		struct conn *head, *tail;
		size_t n;
	} inq[CONN_QUEUES];
	unsigned nclients;      /* counted connections (max_clients) */
	struct addrcount addrs; /* counted connections per address (max_per_addr) */
	size_t out_total;       /* the counted connections' out_bytes */
	struct conn **deferred; /* a min-heap by defer_until */
	size_t ndeferred, capdeferred;
	uv_idle_t pump;
	uv_timer_t stop_timer, sweep_timer, defer_timer;
	uint64_t next_id;
	/* conn_find() by binary search: the open connections by id, ascending (ids only grow,
	   so a new one is appended); a closed one leaves a hole until they are half */
	struct conn_slot {
		uint64_t id;
		struct conn *c; /* NULL: a hole */
	} *byid;
	size_t nbyid, capbyid, holes;
	bool byid_lost; /* out of memory once: conn_find() walks the list instead */
	bool stopping;
	struct conn_metrics met;
};

/* h's metrics join r (connections per transport, the door, output bytes, drops). */
void conn_hub_register_metrics(struct conn_hub *h, struct metrics *r);
/* c (open, counted) is counted as a connection of kind k from now on (a port's). */
void conn_count_as(struct conn *c, enum conn_kind k);

/* Sets up h on loop with lim (NULL: the defaults). 0 or a libuv error. */
int conn_hub_init(struct conn_hub *h, uv_loop_t *loop, const struct conn_limits *lim,
                  const struct conn_events *ev);
/*
 * New limits for a running hub (a configuration re-read): each applies from
 * now on to every connection (the door, the output limits, the sweep); a
 * login deadline is given only to connections opened from now on.
 */
void conn_hub_set_limits(struct conn_hub *h, const struct conn_limits *lim);
/*
 * Shutdown: no new connection is opened; every open one is closed gracefully
 * (on_close first), and those whose output has not drained in CONN_STOP_MS are
 * cut. The hub's handles close once the last connection is freed, so uv_run()
 * returns. Send any farewell before calling it.
 */
void conn_hub_stop(struct conn_hub *h);
/* True while some connection has input queued in the pump (tests run the loop until not). */
bool conn_hub_pending(const struct conn_hub *h);
/* The open connection with this id that is neither closing nor doomed, or NULL; O(log n)
   (an answer from a worker thread finds its client by id: not a walk over every client). */
struct conn *conn_find(struct conn_hub *h, uint64_t id);

/* ---- for transports ------------------------------------------------------------ */

/* A connection being accepted, not yet open (no id, no events); NULL out of memory. */
struct conn *conn_new(struct conn_hub *h, const struct conn_transport *t, size_t tsize);
/*
 * Opens c: it gets its id and joins the hub, on_open runs, then its input is
 * resumed. -1 when the hub is stopping: the transport closes c itself and
 * calls conn_closed().
 */
int conn_open(struct conn *c, const char *peer);
/* Where the transport may read into: *len bytes at *buf (0 when the buffer is full). */
void conn_input_space(struct conn *c, char **buf, size_t *len);
/* n bytes were read into conn_input_space()'s buffer. */
void conn_input(struct conn *c, size_t n);
/* Copies what fits of data into the input buffer and handles it; returns the bytes taken. */
size_t conn_input_copy(struct conn *c, const void *data, size_t n);
/* The peer sent its last byte: an unterminated last line still counts, then c closes. */
void conn_input_eof(struct conn *c);
/* The write of b (given to t->write) finished (status < 0: failed, and c is dropped). */
void conn_wrote(struct conn *c, const struct outbuf *b, int status);
/*
 * Output of c was taken without an outbuf to name (a transport that copies what write()
 * gives it, calls conn_wrote() at once, and counts its own backlog(): the relay): below
 * half the cap, the layer above hears on_drain.
 */
void conn_drained(struct conn *c);
/* The transport is done with c (its handles are closed): c is unlinked and freed. */
void conn_closed(struct conn *c);

/* ---- for the layer above ---------------------------------------------------------- */

/* Queues b on c (the transport takes its own reference). Drops c past the hard cap. */
void conn_send(struct conn *c, struct outbuf *b);
/* c's peer speaks telnet (telnet_peer): the negotiation that turns the server's ECHO on (the
   peer's telnet stops showing what is typed: a password) or off again, into out; its length,
   0 when there is none to send (not telnet, or it stands so already). See framing.h. */
size_t conn_telnet_echo(struct conn *c, bool on, unsigned char out[3]);
/* Bytes queued on c and not yet taken by the peer. */
size_t conn_backlog(const struct conn *c);
/* True when the output held for c is above the output cap (a slow reader). */
bool conn_slow(const struct conn *c);
/* Marks c to be dropped at the next pump pass (safe inside any loop over connections). */
void conn_doom(struct conn *c);
/* What an outbuf counts for while a connection holds it (see the top). */
size_t conn_out_cost(const struct outbuf *b);
/*
 * Output the layer above holds for c before it is sent (the journal's barrier,
 * client.h) counts as c's output like what is queued: conn_out_hold() when b
 * is held (false: that passed the hard limit and c is dropped, so b is not to
 * be held), conn_out_unhold() when it stops being held (sent with conn_send(),
 * or dropped).
 */
bool conn_out_hold(struct conn *c, const struct outbuf *b);
void conn_out_unhold(struct conn *c, const struct outbuf *b);
/* Input lines of c wait until as many conn_release() calls as conn_hold() ones. */
void conn_hold(struct conn *c);
void conn_release(struct conn *c);
/* Input lines of c wait until uv_now() reaches until (a later time extends the wait). */
void conn_defer(struct conn *c, uint64_t until);
/*
 * Marks c heavy (or not): the layer above says so of a client that spends its
 * command budget fast. A heavy connection's input is never handled as it is
 * read but queued behind everyone else's: each loop pass, once the others'
 * input is handled, the heavy connections get what the spending ones left of
 * CONN_SLICE_US (at least one turn), one turn (one line) each in order, their
 * output written in it, and the rest waits for the next pass. Output sent to a heavy
 * connection (a reply, a broadcast) is written in its turn too, on transports
 * that batch (flush). So a thousand connections flooding at once cost the
 * others' commands at most a slice of waiting, not a thousand replies.
 */
void conn_set_heavy(struct conn *c, bool heavy);
/*
 * Marks c spending (or not): the layer above says so of a client that spent
 * some of its budget lately. A spending connection's input is not handled
 * as it is read but in the pump, after the loop has read everyone's input,
 * in CONN_SLICE_US of each pass, one line a turn, before the heavy ones: what
 * a client that has been quiet sends is handled at once (until a line of it
 * makes it spending: the rest waits for its turns), and a pass in which
 * hundreds of clients spend costs it their reads, not their commands.
 */
void conn_set_spending(struct conn *c, bool spending);
/*
 * Closes c: on_close first (the layers above leave everything while they can
 * still tell the others), then the transport. graceful: queued output is
 * flushed first (quit). A second call does nothing.
 */
void conn_close(struct conn *c, bool graceful);
/* True unless c is closing or doomed. */
static inline bool conn_alive(const struct conn *c)
{
	return !c->closing && !c->doomed;
}

#endif
