/*
 * server.h - the bitarenad server object: the listener, the connections with
 * their input framing and bounded output, the fairness pump, shutdown, and
 * the message helpers every command handler uses. Lobby (commands.c) and
 * sessions (session.c) build on it; main.c only parses arguments.
 *
 * Memory: a struct conn embeds its uv_tcp_t and is freed only in the close
 * callback. Output travels as struct outbuf, reference-counted and immutable,
 * so one broadcast payload is shared by every recipient; each uv_write holds
 * one reference until its callback.
 */
#ifndef BITARENA_SERVER_SERVER_H
#define BITARENA_SERVER_SERVER_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "core/rng.h"
#include "server/framing.h"
#include "server/hooks.h"
#include "server/proto.h"

#define SERVER_PROTOCOL      PROTO_VERSION
#define SERVER_GRACE_DEFAULT 120
#define SERVER_PING_DEFAULT  10 /* seconds between pings to connections that asked (set ping on) */
#define CONN_IN_CAP          8192 /* unparsed input held per connection */
#define CONN_LINES_PER_PASS  4    /* commands handled per connection per loop pass */
/*
 * The default output cap (--out-cap): above it spectators get only the newest
 * state, and the connection's own commands wait for its output to drain; above
 * CONN_OUT_HARD_FACTOR times the cap the connection is dropped.
 */
#define CONN_OUT_SOFT        (64 * 1024)
#define CONN_OUT_HARD_FACTOR 16
#define SERVER_MAX_SEEKS     8  /* open seeks per user */
#define SERVER_KEEP_FINISHED 64 /* finished games kept in memory for lookups */

/* An immutable, reference-counted output line (or block of lines). */
struct outbuf {
	unsigned refs;
	size_t len;
	char data[];
};
struct outbuf *outbuf_new(const char *data, size_t len); /* refs = 1; NULL when out of memory */
struct outbuf *outbuf_ref(struct outbuf *b);
void outbuf_unref(struct outbuf *b); /* NULL is fine */

struct server;

struct conn {
	uv_tcp_t tcp; /* first member: (struct conn *)handle */
	struct server *srv;
	uint64_t id;
	struct conn *prev, *next; /* srv->conns */
	struct conn *pump_next;   /* srv's list of connections with input left */
	bool in_pump;
	bool reading; /* uv_read_start is active */
	bool closing; /* detached from everything; waiting for the close callback */
	bool doomed;  /* to be dropped at the next pump pass (output overflow, write error) */
	bool eof;     /* the peer finished sending: close once its input is handled */
	bool json;    /* output format */
	bool logged_in;
	bool registered;         /* logged in to an account (storage.c); false for a guest */
	bool busy;               /* a password check runs on a worker: input waits (storage.c) */
	bool has_pending_states; /* some watched game holds a coalesced state for us */
	/* round-trip time, measured by the server's own pings (rtt.c) */
	bool ping_on;        /* "set ping on": the server pings this connection */
	bool has_rtt;        /* rtt_ms is known */
	bool ping_waiting;   /* ping_token is sent and not answered yet */
	uint64_t ping_token; /* the last ping sent */
	uint64_t ping_sent;  /* uv_now when it went out, or when it was answered */
	int64_t rtt_ms;      /* smoothed round-trip time */
	char name[PROTO_NAME_MAX + 1];
	char peer[64];
	struct framer fr;
	size_t in_len;
	unsigned char in[CONN_IN_CAP];
	uv_shutdown_t shut;
};

struct game;
struct seek;
struct storage;

struct server_config {
	int64_t grace_ms; /* disconnect forfeit grace */
	size_t out_soft;  /* per-connection output cap (CONN_OUT_SOFT); 0 = default */
	int sndbuf;       /* SO_SNDBUF of accepted sockets; 0 = the system's */
	bool verbose;     /* log connections to stderr */
	int64_t ping_ms;  /* between pings (set ping on); 0 = SERVER_PING_DEFAULT s */
};

struct server {
	uv_loop_t *loop;
	struct server_config cfg;
	uv_tcp_t listener;
	bool listener_open;
	uv_signal_t sig_int, sig_term;
	uv_idle_t pump;
	uv_timer_t stop_timer;
	bool stopping;
	struct conn *conns;
	struct conn *pump_head, *pump_tail;
	struct game *games; /* newest first; finished ones stay a while */
	size_t nfinished;
	struct seek *seeks; /* oldest first */
	uint64_t next_conn_id, next_seek_id, next_game_id;
	struct session_hooks hooks;
	struct rng rng;
	uv_timer_t ping_timer;   /* pings connections that asked (rtt.c) */
	struct storage *storage; /* accounts, journal, records (storage.c); NULL: memory only */
};

/* Sets up s on loop (signals, pump); 0 or a libuv error. */
int server_init(struct server *s, uv_loop_t *loop, const struct server_config *cfg);
/* Replaces the hooks (see hooks.h); NULL clears them. */
void server_set_hooks(struct server *s, const struct session_hooks *h);
/*
 * Listens on host:port (IPv4 dotted or IPv6 text); port 0 picks a free one,
 * written to *bound (may be NULL). 0 or a libuv error code.
 */
int server_listen(struct server *s, const char *host, int port, int *bound);
/* Logs to stderr when cfg.verbose. */
void server_log(struct server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Frees what server_init() allocated; call after uv_run() has returned. */
void server_free(struct server *s);
/* Begins a clean shutdown: tells everyone, closes every handle; uv_run then returns. */
void server_stop(struct server *s);

/* ---- output ---------------------------------------------------------------------- */

/* Queues b on c (takes its own reference). Drops c if its output passes 16 x the cap. */
void conn_send(struct conn *c, struct outbuf *b);
/* Bytes queued on c and not yet written to the socket. */
size_t conn_backlog(const struct conn *c);
/* True when c's backlog is above the output cap (slow reader). */
bool conn_slow(const struct conn *c);
/* Input of c is handled again after c->busy was cleared (a worker finished). */
void conn_resume(struct conn *c);
/*
 * Closes c: it leaves its games (seats wait through the grace), its seeks
 * and watches at once. graceful: queued output is flushed first (quit).
 */
void conn_close(struct conn *c, bool graceful);

/*
 * One message in both formats; sent in the connection's. Takes ownership of
 * json (may be NULL for text-only) and of text (malloc'd).
 */
struct msg {
	cJSON *json;
	char *text;
	struct outbuf *out[2]; /* rendered lazily: [0] text, [1] json */
};
void msg_init(struct msg *m, cJSON *json, char *text);
void msg_send(struct msg *m, struct conn *c);
void msg_done(struct msg *m);
/* msg_init + msg_send + msg_done. */
void send_msg(struct conn *c, cJSON *json, char *text);

/* malloc'd printf; aborts never, returns NULL when out of memory. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* Appends printf output to the malloc'd string *s (NULL counts as ""); unchanged if out of memory.
 */
void xappend(char **s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The direct reply to a command: {"type":"ok","cmd":..,"id":..,fields...,"message":text}
 * or "ok <text>" (tag prefixed). fields (owned, may be NULL) is a JSON object whose
 * members are moved into the reply; extra (owned, may be NULL) holds further text
 * lines for text mode only (lists).
 */
void reply_ok(struct conn *c, const struct proto_req *rq, cJSON *fields, char *extra,
              const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* {"type":"error","code":..,"message":..,"cmd":..,"id":..} or "error CODE: message". */
void reply_err(struct conn *c, const struct proto_req *rq, const char *code, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/* ---- commands (commands.c) ---------------------------------------------------------- */

/* Handles one complete input line of c (framing done). */
void commands_line(struct conn *c, char *line, size_t len);
/*
 * c becomes name (a guest, or an account when registered): seats it left are
 * given back, the reply to rq says so, the resumed games' states follow.
 */
void lobby_logged_in(struct conn *c, const struct proto_req *rq, const char *name, bool registered);
/* c is going away: withdraw its seeks (told to others). */
void lobby_conn_gone(struct conn *c);
/* Frees every seek (shutdown). */
void lobby_free(struct server *s);
/* The connected, logged-in connection with this name (case-insensitive), or NULL. */
struct conn *server_find_user(struct server *s, const char *name);

#endif
