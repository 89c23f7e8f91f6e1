/*
 * http_lws.h - what the HTTP listener (ws.c) needs to serve the exchanges of http.c: the
 * listener's part of them, kept in the listener, and the libwebsockets protocol that the
 * listener mounts at HTTP_MOUNT. Only ws.c and http.c include it (libwebsockets' types).
 */
#ifndef BITARENA_SERVER_HTTP_LWS_H
#define BITARENA_SERVER_HTTP_LWS_H

#include <libwebsockets.h>

#include "server/net/http.h"

#define HTTP_MOUNT         "/api"          /* the paths served as exchanges */
#define HTTP_MOUNT_METRICS "/metrics"      /* and this one (the API's GET /metrics) */
#define HTTP_PROTOCOL      "bitarena-http" /* the lws protocol mounted there */

/* The listener's part of the exchanges: the lws protocol's user data. */
struct http_side {
	struct conn_hub *hub;
	int sndbuf;    /* SO_SNDBUF of an exchange's socket (--sndbuf); 0: the system's */
	size_t live;   /* exchanges not yet freed */
	bool stopping; /* no new exchange */
	/* called when the last exchange is freed while stopping (the listener may go) */
	void (*idle)(void *ud);
	void *ud;
};

/* The protocol to mount at HTTP_MOUNT, its user data side. */
struct lws_protocols http_protocol(struct http_side *side);

#endif
