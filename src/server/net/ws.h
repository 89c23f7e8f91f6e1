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
 * The WebSocket handshake is refused unless its Origin is the allowed one: --http-origin, or by
 * default the page's own (http://<Host header>). Every HTTP response carries a
 * Content-Security-Policy that allows scripts, styles and connections from the page's own origin
 * only (no inline script or style), and nosniff, no-referrer and frame-ancestors 'none'.
 *
 * Memory: ws_listen() allocates the listener; ws_stop() begins the shutdown (no new connection;
 * the lws context is destroyed once every WebSocket connection has been freed, so uv_run()
 * returns); ws_free() after uv_run() has returned frees what is left.
 */
#ifndef BITARENA_SERVER_WS_H
#define BITARENA_SERVER_WS_H

#include "server/net/conn.h"

#define WS_ORIGIN_MAX 256

struct ws_listener;

struct ws_config {
	const char *host;    /* an IPv4 or IPv6 address ("127.0.0.1", "::1") */
	int port;            /* 0: any free port */
	const char *webroot; /* the directory of index.html */
	const char *origin;  /* the allowed Origin ("http://host:port"); NULL: the page's own */
	bool verbose;        /* libwebsockets' notices to stderr too */
	int sndbuf;          /* SO_SNDBUF of the /api exchanges' sockets (http.h); 0: the system's */
};

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
