/*
 * http.h - an HTTP exchange of the --http listener as a connection (conn.h): each request
 * under /api or of /metrics (the HTTP API's, src/server/api/) becomes a struct conn of the hub
 * whose transport is "http", so it gets what every connection gets: the limits at the door, its
 * output counted against the output caps (a slow reader of a stream is bounded as a slow
 * spectator is), the journal's barrier, the clean shutdown. The other paths are the page's
 * files and /ws (ws.c).
 *
 * One request, one response, then the connection closes ("connection: close"; no keep-alive,
 * no pipelining): the layer above reads the request while it opens (on_open:
 * http_request_of(); valid only then), answers the head once (http_respond()), then sends
 * the body as any output (conn_send() or client_send(): bytes as they are, a length given or
 * until the close), and closes (gracefully: the body first). Input after the request is not
 * read: no line ever reaches on_line. The peer going away closes the connection as EOF does.
 *
 * Built with libwebsockets (--with-websockets), like ws.c; this header names none of its
 * types (http_lws.h has what ws.c needs to mount it).
 */
#ifndef BITARENA_SERVER_HTTP_H
#define BITARENA_SERVER_HTTP_H

#include <stdbool.h>
#include <stdint.h>

#include "server/net/conn.h"

#define HTTP_PATH_MAX   256  /* a request's path, decoded */
#define HTTP_QUERY_MAX  1024 /* its arguments, decoded, joined by '&' */
#define HTTP_ACCEPT_MAX 256  /* its Accept header */
#define HTTP_HEADERS    8    /* extra header lines of a response */

enum http_method { HTTP_GET = 1, HTTP_HEAD, HTTP_OPTIONS, HTTP_OTHER };

/* What was asked. A part that did not fit is cut and too_long says so. */
struct http_request {
	enum http_method method;
	char path[HTTP_PATH_MAX];     /* "/api/games": the whole path, as lws decoded it */
	char query[HTTP_QUERY_MAX];   /* "user=bob&max=10": each argument decoded, or "" */
	char accept[HTTP_ACCEPT_MAX]; /* the Accept header, or "" */
	bool too_long;                /* the path or the arguments were longer than the above */
};

/* True when c is an HTTP exchange (its transport is this file's). */
bool http_is(const struct conn *c);
/* The request of c, while on_open runs for it (NULL otherwise, or not an exchange). */
const struct http_request *http_request_of(const struct conn *c);

/* A response head: the status, the body's type and length (-1: until the close). */
struct http_head {
	int status;
	const char *type;                     /* content-type, or NULL */
	int64_t length;                       /* content-length, or -1 */
	const char *headers[HTTP_HEADERS][2]; /* more header lines, name and value; NULL ends */
};

/*
 * Answers c's request with h (once, before any output; the listener adds its own security
 * headers). 0, or -1 when it cannot (answered already, out of memory, c is going).
 */
int http_respond(struct conn *c, const struct http_head *h);

#endif
