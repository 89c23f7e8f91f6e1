/*
 * server.h - the bitarenad server object: it wires the layers together (the
 * connection hub and its TCP listener, the messages layer's pinger, the lobby
 * and sessions, the storage glue, the command dispatcher), owns the signals
 * and the clean shutdown. main.c only parses arguments.
 */
#ifndef BITARENA_SERVER_SERVER_H
#define BITARENA_SERVER_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "core/rng.h"
#include "server/client.h"
#include "server/conn.h"
#include "server/hooks.h"
#include "server/msg.h"
#include "server/proto.h"
#include "server/rtt.h"
#include "server/tcp.h"
#include "server/ws.h"

#define SERVER_PROTOCOL      PROTO_VERSION
#define SERVER_GRACE_DEFAULT 120
#define SERVER_PING_DEFAULT  (RTT_PING_DEFAULT_MS / 1000) /* seconds (--ping) */
#define SERVER_MAX_SEEKS     8                            /* open seeks per user */
#define SERVER_KEEP_FINISHED 64 /* finished games kept in memory for lookups */

struct game;
struct seek;
struct storage;

struct server_config {
	int64_t grace_ms; /* disconnect forfeit grace */
	size_t out_soft;  /* per-connection output cap (CONN_OUT_SOFT); 0 = default */
	int sndbuf;       /* SO_SNDBUF of accepted sockets; 0 = the system's */
	bool verbose;     /* log connections to stderr */
	int64_t ping_ms;  /* between pings (set ping on); 0 = RTT_PING_DEFAULT_MS */
};

struct server {
	uv_loop_t *loop;
	struct server_config cfg;
	struct conn_hub hub;
	struct tcp_listener tcp;
	struct ws_listener *ws; /* --http: the page and /ws; NULL without */
	struct rtt rtt;
	uv_signal_t sig_int, sig_term;
	bool stopping;
	struct game *games; /* newest first; finished ones stay a while */
	size_t nfinished;
	struct seek *seeks; /* oldest first */
	uint64_t next_seek_id, next_game_id;
	struct session_hooks hooks;
	struct rng rng;
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
/* Serves the page and /ws on HTTP (see ws.h); 0, or -1 with a sentence in why. */
int server_listen_http(struct server *s, const struct ws_config *cfg, int *bound, char *why,
                       size_t len);
/* Frees what server_init() allocated; call after uv_run() has returned. */
void server_free(struct server *s);
/* Begins a clean shutdown: tells everyone, closes every handle; uv_run then returns. */
void server_stop(struct server *s);

/* ---- commands (commands.c) ---------------------------------------------------------- */

/* Handles one complete input line of c (framing done). */
void commands_line(struct client *c, char *line, size_t len);
/*
 * c becomes name (a guest, or an account when registered): seats it left are
 * given back, the reply to rq says so, the resumed games' states follow.
 */
void lobby_logged_in(struct client *c, const struct proto_req *rq, const char *name,
                     bool registered);
/* c is going away: withdraw its seeks (told to others). */
void lobby_conn_gone(struct client *c);
/* Frees every seek (shutdown). */
void lobby_free(struct server *s);
/* The connected, logged-in client with this name (case-insensitive), or NULL. */
struct client *server_find_user(struct server *s, const char *name);

#endif
