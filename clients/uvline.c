/*
 * uvline.c - the libuv line connections of uvline.h: a connect window with
 * a waiting queue, one shared read buffer split into lines with a per
 * connection carry for the unfinished tail, and writes that try the socket
 * first and queue a copy of the rest.
 */
#include "uvline.h"

#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One queued write: the request and its bytes. */
struct uvl_wreq {
	uv_write_t req;
	char data[];
};

int64_t uvl_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void uvl_pool_init(struct uvl_pool *p, uv_loop_t *loop, const struct sockaddr *addr,
                   size_t max_line, int window)
{
	memset(p, 0, sizeof *p);
	p->loop = loop;
	memcpy(&p->addr, addr,
	       addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
	                                   : sizeof(struct sockaddr_in));
	p->max_line = max_line;
	p->window = window > 0 ? window : 1;
}

static void start_next(struct uvl_pool *p);

static void close_cb(uv_handle_t *h)
{
	struct uvl_conn *c = (struct uvl_conn *)h;
	struct uvl_pool *p = c->pool;
	free(c->carry);
	c->carry = NULL;
	c->carry_len = c->carry_cap = 0;
	if (p->on_close)
		p->on_close(c, c->close_status);
}

static void close_with(struct uvl_conn *c, int status)
{
	if (c->closing)
		return;
	c->closing = true;
	c->close_status = status;
	if (c->connected)
		c->pool->open--;
	c->connected = false;
	uv_close((uv_handle_t *)&c->tcp, close_cb);
}

void uvl_close(struct uvl_conn *c)
{
	close_with(c, 0);
}

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct uvl_pool *p = ((struct uvl_conn *)h)->pool;
	(void)suggested;
	if (p->rbuf_busy) { /* never nested in practice; a private buffer if it were */
		*buf = uv_buf_init(NULL, 0);
		return;
	}
	p->rbuf_busy = true;
	*buf = uv_buf_init(p->rbuf, sizeof p->rbuf);
}

/* Appends n bytes to c's carry, or marks the line overlong. */
static bool carry_add(struct uvl_conn *c, const char *s, size_t n)
{
	size_t max = c->pool->max_line + 2; /* + CR LF */
	if (c->carry_len + n > max) {
		c->skipping = true;
		c->carry_len = 0;
		return false;
	}
	if (c->carry_len + n + 1 > c->carry_cap) {
		size_t cap = c->carry_cap ? c->carry_cap : 256;
		while (cap < c->carry_len + n + 1)
			cap *= 2;
		char *q = realloc(c->carry, cap);
		if (q == NULL) {
			c->skipping = true;
			c->carry_len = 0;
			return false;
		}
		c->carry = q;
		c->carry_cap = cap;
	}
	memcpy(c->carry + c->carry_len, s, n);
	c->carry_len += n;
	return true;
}

/* Hands one complete line (terminator at s[n]) to on_line; false once c is closing. */
static bool emit(struct uvl_conn *c, char *s, size_t n, int64_t now)
{
	if (n > 0 && s[n - 1] == '\r')
		n--;
	s[n] = '\0';
	c->pool->on_line(c, s, n, now);
	return !c->closing;
}

static void split_lines(struct uvl_conn *c, char *s, size_t n, int64_t now)
{
	struct uvl_pool *p = c->pool;
	while (n > 0 && !c->closing) {
		char *nl = memchr(s, '\n', n);
		if (nl == NULL) {
			if (!c->skipping && !carry_add(c, s, n))
				p->on_line(c, NULL, UVL_TOO_LONG, now);
			return;
		}
		size_t len = (size_t)(nl - s);
		if (c->skipping) {
			c->skipping = false;
		} else if (c->carry_len > 0) {
			if (!carry_add(c, s, len + 1)) {
				c->skipping =
				        false; /* the end of it is here: nothing left to skip */
				p->on_line(c, NULL, UVL_TOO_LONG, now);
			} else {
				size_t total = c->carry_len - 1; /* without the LF */
				c->carry_len = 0;
				if (!emit(c, c->carry, total, now))
					return;
			}
		} else if (len > p->max_line + (len > 0 && s[len - 1] == '\r')) {
			p->on_line(c, NULL, UVL_TOO_LONG, now);
		} else if (!emit(c, s, len, now)) {
			return;
		}
		s = nl + 1;
		n -= len + 1;
	}
}

static void read_cb(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
	struct uvl_conn *c = (struct uvl_conn *)st;
	struct uvl_pool *p = c->pool;
	if (nread > 0)
		split_lines(c, buf->base, (size_t)nread, uvl_now_ns());
	if (buf->base == p->rbuf)
		p->rbuf_busy = false;
	if (nread < 0)
		close_with(c, (int)nread);
}

static void connect_cb(uv_connect_t *req, int status)
{
	struct uvl_conn *c = req->data;
	struct uvl_pool *p = c->pool;
	p->inflight--;
	c->connecting = false;
	if (status == 0 && !c->closing) {
		c->connected = true;
		c->t_open_ns = uvl_now_ns();
		p->open++;
		uv_tcp_nodelay(&c->tcp, 1);
		status = uv_read_start((uv_stream_t *)&c->tcp, alloc_cb, read_cb);
	}
	start_next(p);
	if (c->closing)
		return;
	if (p->on_open)
		p->on_open(c, status);
	if (status < 0)
		close_with(c, status);
}

static void start_one(struct uvl_pool *p, struct uvl_conn *c)
{
	int r = uv_tcp_init(p->loop, &c->tcp);
	if (r < 0) { /* no handle to close: report the failure and give up on c */
		c->closing = true;
		if (p->on_open)
			p->on_open(c, r);
		c->close_status = r;
		if (p->on_close)
			p->on_close(c, r);
		return;
	}
	c->creq.data = c;
	c->connecting = true;
	c->t_connect_ns = uvl_now_ns();
	r = uv_tcp_connect(&c->creq, &c->tcp, (const struct sockaddr *)&p->addr, connect_cb);
	if (r < 0) {
		c->connecting = false;
		if (p->on_open)
			p->on_open(c, r);
		close_with(c, r);
		return;
	}
	p->inflight++;
}

static void start_next(struct uvl_pool *p)
{
	while (p->inflight < p->window && p->wait_head != NULL) {
		struct uvl_conn *c = p->wait_head;
		p->wait_head = c->wait_next;
		if (p->wait_head == NULL)
			p->wait_tail = NULL;
		c->wait_next = NULL;
		start_one(p, c);
	}
}

void uvl_connect(struct uvl_pool *p, struct uvl_conn *c)
{
	memset(c, 0, sizeof *c);
	c->pool = p;
	if (p->wait_tail)
		p->wait_tail->wait_next = c;
	else
		p->wait_head = c;
	p->wait_tail = c;
	start_next(p);
}

static void write_cb(uv_write_t *req, int status)
{
	struct uvl_conn *c = (struct uvl_conn *)req->handle;
	free(req);
	if (status < 0 && status != UV_ECANCELED)
		close_with(c, status);
}

int uvl_send(struct uvl_conn *c, const char *data, size_t len)
{
	if (!c->connected || c->closing)
		return UV_ENOTCONN;
	uv_stream_t *st = (uv_stream_t *)&c->tcp;
	if (uv_stream_get_write_queue_size(st) == 0) {
		int n = uv_try_write(st, &(uv_buf_t){.base = (char *)data, .len = len}, 1);
		if (n > 0) {
			data += n;
			len -= (size_t)n;
		} else if (n != UV_EAGAIN) {
			close_with(c, n);
			return n;
		}
	}
	if (len == 0)
		return 0;
	struct uvl_wreq *w = malloc(sizeof *w + len);
	if (w == NULL)
		return UV_ENOMEM;
	memcpy(w->data, data, len);
	int r = uv_write(&w->req, st, &(uv_buf_t){.base = w->data, .len = len}, 1, write_cb);
	if (r < 0) {
		free(w);
		close_with(c, r);
	}
	return r;
}

int uvl_sendf(struct uvl_conn *c, const char *fmt, ...)
{
	char line[4096];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof line)
		return UV_EINVAL;
	return uvl_send(c, line, (size_t)n);
}
