/*
 * clients/load/ - `bitarena load`, the benchmark and checker of a running
 * bitarenad: its subcommand and its parts. Below the other subcommands and
 * bitarena.c (which lists it), above clients/lib/ (the order is in
 * DEVELOPERS.md, Layout; tests/layers.py checks it): it calls the client
 * library, args and the games library. News upward inside the folder: the
 * connection callbacks (on_open, on_line, on_close) cmd_load.c sets on a pool.
 *   cmd_load.c    the subcommand: roles, the run, its checks and its report
 *   uvline.c      many line connections on one libuv loop, TCP or WebSocket
 *   loadstat.c    latency percentiles, a process's memory and CPU from /proc
 *   loadcheck.c   the checks of the JSON lines and the acknowledged-move log
 *   loadverify.c  --verify: that log against the server's records
 *
 * uvline.h - many line-protocol client connections on one libuv loop, for
 * the load and flood tools: thousands of TCP connections from one process,
 * or of WebSocket connections to bitarenad's /ws (uvl_pool_ws()), where each
 * message is one line both ways, through libwebsockets' client on the same
 * loop.
 *
 * A pool holds the server address and at most `window` connects in flight
 * at once (the rest wait in a queue), so a burst of thousands of
 * connections never overflows the server's accept backlog. Every read of
 * every connection goes through one shared buffer; a connection keeps only
 * the unfinished tail of a line (its carry), so an idle connection costs
 * the client a few hundred bytes. Each complete line (LF or CRLF stripped,
 * NUL-terminated) goes to the pool's on_line callback together with the
 * time the read returned (CLOCK_MONOTONIC ns), taken once per read, before
 * any line of it is handled. A line over max_line bytes is reported to
 * on_line once with len = UVL_TOO_LONG and skipped up to its end.
 *
 * Writes: uvl_send() tries a direct write first and queues a copy of what
 * the socket did not take, so a caller's buffer is never kept. Over
 * WebSocket each line of what is sent becomes one message (queued, written
 * when libwebsockets says the socket can take it), and each message received
 * is handed to on_line as one line, with the time its last piece arrived.
 *
 * Memory: the pool owns nothing of the caller's; a struct uvl_conn is the
 * caller's (usually embedded first in a bigger struct), set up by
 * uvl_conn_init() and released by uvl_close(): on_close is called once,
 * after libuv (or libwebsockets) has let the connection go, and the caller
 * may free it then. A WebSocket pool's libwebsockets context lives on the
 * loop until uvl_pool_close() (from a libuv callback, never an lws one:
 * on_close is one) ends it; uvl_pool_free() after uv_run() frees the rest.
 */
#ifndef BITARENA_CLIENTS_UVLINE_H
#define BITARENA_CLIENTS_UVLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <uv.h>

#define UVL_TOO_LONG ((size_t)-1) /* on_line's len for a line over the limit */
#define UVL_READ_BUF (64 * 1024)

struct uvl_conn;
struct uvl_msg;
struct lws;
struct lws_context;

struct uvl_pool {
	uv_loop_t *loop;
	struct sockaddr_storage addr;           /* the server */
	size_t max_line;                        /* longest line accepted */
	int window;                             /* connects in flight at most */
	int inflight, open;                     /* connects in flight; connections established */
	struct uvl_conn *wait_head, *wait_tail; /* waiting to connect */
	/* Callbacks: the connection is established (status 0) or failed (status < 0). */
	void (*on_open)(struct uvl_conn *c, int status);
	/* One line; now_ns is when its read returned. */
	void (*on_line)(struct uvl_conn *c, char *line, size_t len, int64_t now_ns);
	/* The peer closed (UV_EOF), an error (< 0), or uvl_close() (0); the handle is released. */
	void (*on_close)(struct uvl_conn *c, int status);
	void *data; /* the caller's */
	char rbuf[UVL_READ_BUF];
	bool rbuf_busy;
	bool starting; /* start_next() is running */
	/* WebSocket pools: the libwebsockets context (NULL once it is gone), the endpoint */
	bool is_ws;
	struct lws_context *ws;
	char ws_host[64], ws_hostport[80];
	int ws_port;
	uv_idle_t ws_reaper; /* destroys the context outside lws's callbacks */
	bool ws_reaper_open;
};

struct uvl_conn {
	uv_tcp_t tcp; /* first: libuv's handle pointer is the connection */
	uv_connect_t creq;
	struct uvl_pool *pool;
	struct uvl_conn *wait_next;
	char *carry; /* the unfinished tail of a line */
	size_t carry_len, carry_cap;
	int close_status; /* what on_close will be told */
	bool connecting, connected, closing, skipping;
	int64_t t_connect_ns; /* when the connect was started */
	int64_t t_open_ns;    /* when it was established */
	/* WebSocket: the connection while lws has it, the messages waiting to go */
	struct lws *wsi;
	struct uvl_msg *mq_head, *mq_tail;
	bool ws_done; /* on_close has been called */
};

/* Monotonic time in ns. */
int64_t uvl_now_ns(void);

/* Sets up a pool on loop for the server at addr (IPv4 or IPv6; copied). */
void uvl_pool_init(struct uvl_pool *p, uv_loop_t *loop, const struct sockaddr *addr,
                   size_t max_line, int window);

/*
 * Makes p a pool of WebSocket connections to http://host:port/ws (host: an IPv4 or IPv6
 * address; Origin http://host:port) for at most max_conns at once, through libwebsockets on
 * p's loop. 0, or -1 with a sentence in why.
 */
int uvl_pool_ws(struct uvl_pool *p, const char *host, int port, int max_conns, char *why,
                size_t len);
/* Ends a WebSocket pool's libwebsockets context (on the next loop pass); TCP pools: nothing. */
void uvl_pool_close(struct uvl_pool *p);
/* After uv_run() has returned: frees what is left of p. */
void uvl_pool_free(struct uvl_pool *p);

/* Queues c to connect to the pool's server (c is zeroed first). */
void uvl_connect(struct uvl_pool *p, struct uvl_conn *c);

/* Sends len bytes (a copy is kept if the socket does not take them now). 0 or < 0. */
int uvl_send(struct uvl_conn *c, const char *data, size_t len);
/* printf-style uvl_send() of a text that must fit in 4 KiB. */
int uvl_sendf(struct uvl_conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Closes c (at once: queued output is dropped); on_close(c, 0) follows. Idempotent. */
void uvl_close(struct uvl_conn *c);

#endif
