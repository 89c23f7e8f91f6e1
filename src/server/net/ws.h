/*
 * ws.h - the HTTP listener of bitarenad (--http): the web page's static files and the WebSocket
 * endpoint /ws, through libwebsockets on the server's own libuv loop (a foreign loop for lws);
 * requests under /api are HTTP exchanges (http.h), each a connection of the hub.
 *
 * /ws is a transport of the connection layer (conn.h) beside TCP: each text (or binary) message
 * from the client is one command line, exactly as on TCP (the framer, the line limit and every
 * error apply; a CR or LF inside a message is a control byte, so BAD_INPUT); each line the server
 * writes goes out as one text message without its newline. Input is bounded: a message of any
 * size passes through the connection's input buffer as a line does on TCP (LINE_TOO_LONG past
 * the limit), and libwebsockets stops reading the socket while that buffer is full.
 *
 * Every request, the WebSocket handshake included, is refused unless its Host is one of the
 * listener's own names (ws_host_ok: its address, localhost on a loopback or wildcard address,
 * the machine's addresses and name on a wildcard address, each with the bound port) or one of
 * --http-host's (the names a proxy in front of it is reached by): a page of another site that
 * a DNS rebinding points at this listener gets nothing, and its WebSocket no 101. The
 * WebSocket handshake is refused too unless its Origin is the allowed one: --http-origin, or
 * by default the page's own (http://<Host header>). Every HTTP response carries a
 * Content-Security-Policy that allows scripts, styles and connections from the page's own origin
 * only (no inline script or style), and nosniff, no-referrer and frame-ancestors 'none'.
 *
 * Nothing is logged per request: what anyone can cause (a refused request, a request
 * libwebsockets could not parse, its "Ran out of header data space" and the like) is counted
 * in the server's metrics (metrics.h: bitarena_http_refused_total, bitarena_http_errors_total)
 * and written to the log only at --log-level debug (--verbose).
 *
 * Memory: ws_listen() allocates the listener; ws_stop() begins the shutdown (no new connection;
 * the lws context is destroyed once every WebSocket connection has been freed, so uv_run()
 * returns); ws_free() after uv_run() has returned frees what is left.
 */
#ifndef BITARENA_SERVER_WS_H
#define BITARENA_SERVER_WS_H

#include "server/net/conn.h"
#include "server/util/metrics.h"

#define WS_ORIGIN_MAX 256
#define WS_HOSTS_MAX  1024 /* --http-host's list */

struct ws_listener;

struct ws_config {
	const char *host;    /* an IPv4 or IPv6 address ("127.0.0.1", "::1") */
	int port;            /* 0: any free port */
	const char *webroot; /* the directory of index.html */
	const char *origin;  /* the allowed Origin ("http://host:port"); NULL: the page's own */
	/* --http-host: names a request's Host may have besides the listener's own, comma-
	   separated, each NAME (any port) or NAME:PORT; NULL: none */
	const char *hosts;
	struct metrics *metrics; /* where the listener's counts go (NULL: not registered) */
	bool verbose;            /* libwebsockets' warnings and notices too (--log-level debug) */
	int sndbuf;              /* SO_SNDBUF of the /api exchanges' sockets (http.h); 0: the system's */
};

/*
 * Is host (a request's Host header: name, name:port, [v6] or [v6]:port) a name of a
 * listener on address bind (as given to --http) and port, or one of hosts (the --http-host
 * list)? Without a port a Host means port 80.
 */
bool ws_host_ok(const char *host, const char *bind, int port, const char *hosts);

/*
 * Serves HTTP and /ws on cfg->host:port, connections joining hub, on hub's loop. *bound (may be
 * NULL) gets the port. 0, or -1 with a sentence in why (len bytes). *out is set to the listener
 * even when the listen itself failed: stop and free it with the server in any case.
 */
int ws_listen(struct ws_listener **out, struct conn_hub *hub, const struct ws_config *cfg,
              int *bound, char *why, size_t len);
/* Shutdown: no new connection; lws goes once the WebSocket connections are gone. */
void ws_stop(struct ws_listener *l);
/* After uv_run() has returned (or when the server never ran): frees l. NULL is fine. */
void ws_free(struct ws_listener *l);

#endif
