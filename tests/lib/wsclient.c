/*
 * wsclient.c - a WebSocket client for the loopback suites (wsclient.h): RFC 6455 framing
 * by hand on a socket, enough for a test to speak to bitarenad's /ws.
 */
#include "wsclient.h"

#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "testserver.h"

/* Reads until w holds need bytes; false at EOF or after the wait. */
static bool fill(struct ws_cli *w, size_t need)
{
	while (w->len < need) {
		if (w->cap - w->len < 4096) {
			w->cap = w->cap ? 2 * w->cap : 65536;
			w->buf = realloc(w->buf, w->cap);
			ck_assert_ptr_nonnull(w->buf);
		}
		struct pollfd pf = {.fd = w->fd, .events = POLLIN};
		if (poll(&pf, 1, TS_LINE_WAIT_MS) <= 0)
			return false;
		ssize_t k = read(w->fd, w->buf + w->len, w->cap - w->len);
		if (k <= 0)
			return false;
		w->len += (size_t)k;
	}
	return true;
}

static void take(struct ws_cli *w, size_t n)
{
	memmove(w->buf, w->buf + n, w->len - n);
	w->len -= n;
}

void wsc_open(struct ws_cli *w, int port)
{
	memset(w, 0, sizeof *w);
	w->fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(w->fd, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(w->fd, (struct sockaddr *)&sa, sizeof sa), 0);
	char req[512];
	int n = snprintf(req, sizeof req,
	                 "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
	                 "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
	                 "Sec-WebSocket-Version: 13\r\nOrigin: http://127.0.0.1:%d\r\n\r\n",
	                 port, port);
	ck_assert_int_eq(write(w->fd, req, (size_t)n), n);
	for (;;) {
		ck_assert(fill(w, w->len + 1));
		unsigned char *end = memmem(w->buf, w->len, "\r\n\r\n", 4);
		if (end != NULL) {
			ck_assert_msg(memcmp(w->buf, "HTTP/1.1 101", 12) == 0, "handshake: %.*s",
			              (int)w->len, w->buf);
			take(w, (size_t)(end + 4 - w->buf));
			return;
		}
	}
}

void wsc_send(struct ws_cli *w, const char *fmt, ...)
{
	char text[4096];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	ck_assert(n >= 0 && (size_t)n < sizeof text);
	unsigned char f[4096 + 8];
	static const unsigned char mask[4] = {0x12, 0x34, 0x56, 0x78};
	size_t at = 0;
	f[at++] = 0x81; /* FIN, text */
	if (n < 126) {
		f[at++] = (unsigned char)(0x80 | n);
	} else {
		f[at++] = 0x80 | 126;
		f[at++] = (unsigned char)(n >> 8);
		f[at++] = (unsigned char)n;
	}
	memcpy(f + at, mask, 4);
	at += 4;
	for (int i = 0; i < n; i++)
		f[at++] = (unsigned char)text[i] ^ mask[i % 4];
	ck_assert_int_eq(write(w->fd, f, at), (ssize_t)at);
}

char *wsc_recv(struct ws_cli *w)
{
	for (;;) {
		if (!fill(w, 2))
			return NULL;
		size_t n = w->buf[1] & 0x7f, head = 2;
		if (n == 126 || n == 127) {
			head = n == 126 ? 4 : 10;
			if (!fill(w, head))
				return NULL;
			n = 0;
			for (size_t i = 2; i < head; i++)
				n = n << 8 | w->buf[i];
		}
		ck_assert_uint_lt(n, 64u << 20);
		if (!fill(w, head + n))
			return NULL;
		int op = w->buf[0] & 0x0f;
		char *m = NULL;
		if (op == 1) {
			m = malloc(n + 1);
			ck_assert_ptr_nonnull(m);
			memcpy(m, w->buf + head, n);
			m[n] = '\0';
		}
		take(w, head + n);
		if (op == 8)
			return NULL;
		if (m != NULL)
			return m;
	}
}

void wsc_close(struct ws_cli *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	free(w->buf);
	w->buf = NULL;
	w->len = w->cap = 0;
}
