/*
 * tcp.h - the TCP transport of the connection layer (conn.h): a listener on
 * IPv4 or IPv6, accepted sockets with TCP_NODELAY and keepalive, reads into
 * the connection's input buffer, output batched per connection and written
 * with one writev(2) per loop pass (one reference per outbuf in flight),
 * graceful close by shutdown(2). Plain telnet and nc work; the telnet
 * negotiation is stripped by the connection layer's framer.
 */
#ifndef BITARENA_SERVER_TCP_H
#define BITARENA_SERVER_TCP_H

#include <stdbool.h>

#include <uv.h>

#include "server/net/conn.h"

struct tcp_conn;

struct tcp_listener {
	uv_tcp_t handle;
	struct conn_hub *hub;
	int sndbuf; /* SO_SNDBUF of accepted sockets; 0 = the system's */
	bool open;
	/* the connections with output queued in this loop pass, written after the poll
	   (flush_check) or before the next one (flush_prepare); see tcp.c */
	struct tcp_conn *flush;
	uv_check_t flush_check;
	uv_prepare_t flush_prepare;
	bool batching; /* the flush handles run (from tcp_listen until tcp_unlisten) */
};

/*
 * Listens on host:port (IPv4 dotted, IPv6 text, or a name: its first address);
 * port 0 picks a free one, written to *bound (may be NULL). Accepted
 * connections join hub. 0 or a libuv error code; on error l may be open: call
 * tcp_unlisten() in any case.
 */
int tcp_listen(struct tcp_listener *l, struct conn_hub *hub, const char *host, int port, int sndbuf,
               int *bound);
/* Stops accepting (closes the listening socket); nothing when it was never opened. */
void tcp_unlisten(struct tcp_listener *l);
/* The listener that accepted c, or NULL when c is not a TCP connection (which door it came
   in by: the server gives a connection of the playtak port its front-end). */
struct tcp_listener *tcp_listener_of(const struct conn *c);

#endif
