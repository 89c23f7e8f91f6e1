/*
 * net.h - a small blocking line client for the bitarena tools: connect to
 * HOST:PORT (IPv4 or IPv6 through getaddrinfo, with a timeout), send one
 * line, read one line with a timeout. Reads are buffered; a line longer than
 * the connection's limit is reported once (NET_ETOOLONG) and the rest of it,
 * up to its terminator, is skipped, so the connection stays usable. Lines
 * may end in LF or CRLF. No libuv, no threads, no signals (writes use
 * MSG_NOSIGNAL on sockets).
 *
 * Several connections can be driven from one poll() loop: poll their fd for
 * POLLIN, then call net_read_line(c, 0, ...) until it returns NET_ETIMEOUT
 * (that drains the buffer and everything readable now). net_buffered() says
 * whether a complete line may already be waiting without reading the fd.
 *
 * Memory: struct net_conn owns its read buffer and its fd; net_close() frees
 * both. A line returned by net_read_line() points into that buffer and stays
 * valid until the next call on the same connection.
 */
#ifndef BITARENA_CLIENTS_NET_H
#define BITARENA_CLIENTS_NET_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "proto/limits.h"

#define NET_DEFAULT_MAX_LINE (256 * 1024) /* server lines can be long JSON states */

enum net_err {
	NET_OK = 0,
	NET_ETIMEOUT = -1, /* nothing (complete) arrived in time */
	NET_ECLOSED = -2,  /* the peer closed the connection */
	NET_EIO = -3,      /* a read/write/poll error (errno is kept in c->err_no) */
	NET_ETOOLONG = -4, /* a line over the limit: reported once, the rest is skipped */
	NET_EADDR = -5,    /* HOST:PORT malformed or not resolvable */
	NET_ECONNECT = -6, /* no address accepted the connection in time */
	NET_ENOMEM = -7,
	NET_EINVAL = -8 /* a line to send holds a newline or NUL, or bad arguments */
};
const char *net_strerror(int err);

struct net_conn {
	int fd;          /* -1 when closed */
	int err_no;      /* errno of the last NET_EIO/NET_ECONNECT, 0 otherwise */
	bool is_socket;  /* send() with MSG_NOSIGNAL; write() otherwise (pipes) */
	bool skipping;   /* inside an overlong line: drop bytes up to its terminator */
	bool eof;        /* the peer has closed; buffered bytes may remain */
	size_t max_line; /* longest accepted line, terminator excluded */
	char *buf;       /* cap bytes: unread data is buf[start, end) */
	size_t cap, start, end;
	int write_timeout_ms; /* how long a send may wait for the peer to read (default 10 s) */
};

/*
 * Connects to "host:port", "[v6addr]:port", "host" (port PROTO_DEFAULT_PORT) or ":port"
 * (loopback). Tries every address getaddrinfo gives within timeout_ms in
 * total (< 0: no limit). On failure c->fd is -1 and, when err/errlen are
 * given, err holds a sentence. max_line 0 means NET_DEFAULT_MAX_LINE.
 */
int net_connect(struct net_conn *c, const char *hostport, size_t max_line, int timeout_ms,
                char *err, size_t errlen);

/* Wraps an already open fd (a socketpair end, a pipe); takes ownership of it. */
int net_open_fd(struct net_conn *c, int fd, size_t max_line);

/* Closes the fd and frees the buffer; safe on a closed or zeroed connection. */
void net_close(struct net_conn *c);

/* Sends text followed by "\n". text must hold no newline. */
int net_send_line(struct net_conn *c, const char *text);
/* printf-style net_send_line(); the formatted line must fit in 64 KiB. */
int net_sendf(struct net_conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int net_vsendf(struct net_conn *c, const char *fmt, va_list ap)
        __attribute__((format(printf, 2, 0)));
/* Sends len raw bytes as they are (tests use it for partial lines). */
int net_send_raw(struct net_conn *c, const void *data, size_t len);

/*
 * Reads the next line within timeout_ms (0: only what is available now,
 * < 0: no limit). On success returns its length and *line points to it,
 * NUL-terminated, terminator stripped. At end of stream a final unterminated
 * line is returned as a line; after that NET_ECLOSED.
 */
int net_read_line(struct net_conn *c, int timeout_ms, char **line);

/* True when the buffer holds a line terminator (a read will not need the fd). */
bool net_buffered(const struct net_conn *c);

/* Milliseconds on a monotonic clock, for deadlines. */
long long net_now_ms(void);

#endif
