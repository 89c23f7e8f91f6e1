/*
 * wsclient.h - a WebSocket client for the loopback suites, on a plain socket: the
 * handshake on /ws with the page's own origin (it must be answered 101), masked text
 * frames out, text messages in (any length; pings and other control frames skipped, a
 * close ends the stream), each read within TS_LINE_WAIT_MS. Test code only (wsclient.c,
 * in libtest.a).
 */
#ifndef BITARENA_TESTS_WSCLIENT_H
#define BITARENA_TESTS_WSCLIENT_H

#include <stddef.h>

struct ws_cli {
	int fd;
	unsigned char *buf; /* bytes read and not yet taken (owned) */
	size_t len, cap;
};

/* Connects to 127.0.0.1:port and upgrades GET /ws; the test fails if it is not a 101. */
void wsc_open(struct ws_cli *w, int port);
/* Sends one masked text frame (printf format). */
void wsc_send(struct ws_cli *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The next text message (malloc'd, NUL-terminated), or NULL at a close, EOF or after the wait. */
char *wsc_recv(struct ws_cli *w);
void wsc_close(struct ws_cli *w);

#endif
