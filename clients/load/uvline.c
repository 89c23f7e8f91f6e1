/*
 * uvline.c - the libuv line connections of uvline.h: a connect window with
 * a waiting queue, one shared read buffer split into lines with a per
 * connection carry for the unfinished tail, and writes that try the socket
 * first and queue a copy of the rest. WebSocket pools go through
 * libwebsockets' client on the same loop (a foreign loop to it): a message
 * in is gathered in the carry until its last piece, a line out is queued as
 * one message and written on the writable callback. A build without
 * libwebsockets (./configure --without-websockets) has TCP pools only:
 * uvl_pool_ws() refuses, so the WebSocket functions are never reached.
 */
#include "load/uvline.h"

#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if HAVE_WEBSOCKETS
#include <libwebsockets.h>
#endif

/* One queued write: the request and its bytes. */
struct uvl_wreq {
	uv_write_t req;
	char data[];
};

/* One WebSocket message waiting to go: LWS_PRE bytes of room, then the line. */
struct uvl_msg {
	struct uvl_msg *next;
	size_t len;
	unsigned char buf[];
};

static void ws_start(struct uvl_pool *p, struct uvl_conn *c);
static void ws_close(struct uvl_conn *c);
static int ws_send(struct uvl_conn *c, const char *data, size_t len);

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
	if (c->pool->is_ws)
		ws_close(c);
	else
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
	if (p->is_ws) {
		ws_start(p, c);
		return;
	}
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
	if (p->starting) /* a connect that failed at once, inside the loop below */
		return;
	p->starting = true;
	while (p->inflight < p->window && p->wait_head != NULL) {
		struct uvl_conn *c = p->wait_head;
		p->wait_head = c->wait_next;
		if (p->wait_head == NULL)
			p->wait_tail = NULL;
		c->wait_next = NULL;
		start_one(p, c);
	}
	p->starting = false;
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
	if (c->pool->is_ws)
		return ws_send(c, data, len);
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

/* ---- WebSocket ------------------------------------------------------------------------ */
#if HAVE_WEBSOCKETS

/* The connection is gone for lws: its queue and carry go, the owner hears it once. */
static void ws_finish(struct uvl_conn *c, int status)
{
	if (c->ws_done)
		return;
	c->ws_done = true;
	if (c->wsi)
		lws_set_opaque_user_data(c->wsi, NULL);
	c->wsi = NULL;
	while (c->mq_head) {
		struct uvl_msg *m = c->mq_head;
		c->mq_head = m->next;
		free(m);
	}
	c->mq_tail = NULL;
	if (c->connecting && !c->closing && c->pool->on_open) /* it never opened */
		c->pool->on_open(c, status < 0 ? status : UV_ECONNREFUSED);
	if (c->connecting) {
		c->connecting = false;
		c->pool->inflight--;
		start_next(c->pool);
	}
	if (c->connected)
		c->pool->open--;
	c->connected = false;
	if (!c->closing) {
		c->closing = true;
		c->close_status = status;
	}
	free(c->carry);
	c->carry = NULL;
	c->carry_len = c->carry_cap = 0;
	if (c->pool->on_close)
		c->pool->on_close(c, c->close_status);
}

static void ws_close(struct uvl_conn *c)
{
	if (c->wsi)
		lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
	else
		ws_finish(c, c->close_status);
}

static int ws_send(struct uvl_conn *c, const char *data, size_t len)
{
	while (len > 0) {
		const char *nl = memchr(data, '\n', len);
		size_t used = nl ? (size_t)(nl - data) + 1 : len;
		size_t n = nl ? (size_t)(nl - data) : len;
		if (n > 0 && data[n - 1] == '\r')
			n--;
		struct uvl_msg *m = malloc(sizeof *m + LWS_PRE + n);
		if (m == NULL)
			return UV_ENOMEM;
		m->next = NULL;
		m->len = n;
		memcpy(m->buf + LWS_PRE, data, n);
		if (c->mq_tail)
			c->mq_tail->next = m;
		else
			c->mq_head = m;
		c->mq_tail = m;
		data += used;
		len -= used;
	}
	lws_callback_on_writable(c->wsi);
	return 0;
}

/* One piece of a message: gathered in the carry; the last one hands the line over. */
static void ws_receive(struct uvl_conn *c, struct lws *wsi, const char *in, size_t len)
{
	struct uvl_pool *p = c->pool;
	bool last = lws_is_final_fragment(wsi) && lws_remaining_packet_payload(wsi) == 0;
	int64_t now = uvl_now_ns();
	if (!c->skipping && c->carry_len == 0 && last && len <= p->max_line && len < UVL_READ_BUF &&
	    !p->rbuf_busy) {
		memcpy(p->rbuf, in, len); /* a whole message in one piece: no copy kept */
		p->rbuf[len] = '\0';
		p->on_line(c, p->rbuf, len, now);
		return;
	}
	if (!c->skipping && (c->carry_len + len > p->max_line || !carry_add(c, in, len))) {
		c->skipping = true;
		c->carry_len = 0;
		p->on_line(c, NULL, UVL_TOO_LONG, now);
	}
	if (!last)
		return;
	if (c->skipping) {
		c->skipping = false;
		return;
	}
	size_t n = c->carry_len;
	bool ok = carry_add(c, "", 1); /* the NUL */
	c->carry_len = 0;
	if (ok)
		p->on_line(c, c->carry, n, now);
}

/* The next queued message, when the socket can take it; -1 closes the connection. */
static int ws_writable(struct uvl_conn *c, struct lws *wsi)
{
	struct uvl_msg *m = c->mq_head;
	if (m == NULL)
		return 0;
	if (lws_write(wsi, m->buf + LWS_PRE, m->len, LWS_WRITE_TEXT) < (int)m->len)
		return -1;
	c->mq_head = m->next;
	if (c->mq_head == NULL)
		c->mq_tail = NULL;
	free(m);
	if (c->mq_head)
		lws_callback_on_writable(wsi);
	return 0;
}

static int ws_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                       size_t len)
{
	struct uvl_conn *c = wsi ? lws_get_opaque_user_data(wsi) : NULL;
	(void)user;
	switch (reason) {
	case LWS_CALLBACK_CLIENT_ESTABLISHED:
		if (c == NULL)
			return -1;
		c->connecting = false;
		c->pool->inflight--;
		c->connected = true;
		c->t_open_ns = uvl_now_ns();
		c->pool->open++;
		start_next(c->pool);
		if (c->pool->on_open)
			c->pool->on_open(c, 0);
		return 0;
	case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
		if (c != NULL)
			ws_finish(c, UV_ECONNREFUSED);
		return 0;
	case LWS_CALLBACK_CLIENT_RECEIVE:
		if (c != NULL && !c->closing)
			ws_receive(c, wsi, in, len);
		return 0;
	case LWS_CALLBACK_CLIENT_WRITEABLE:
		if (c == NULL || c->closing)
			return c == NULL ? -1 : 0;
		if (ws_writable(c, wsi) < 0) {
			c->close_status = UV_EPIPE;
			return -1;
		}
		return 0;
	case LWS_CALLBACK_CLIENT_CLOSED:
	case LWS_CALLBACK_WSI_DESTROY:
		if (c != NULL)
			ws_finish(c, c->closing ? c->close_status : UV_EOF);
		return 0;
	default:
		return lws_callback_http_dummy(wsi, reason, user, in, len);
	}
}

static const struct lws_protocols ws_protocols[] = {
        {.name = "uvline", .callback = ws_callback, .rx_buffer_size = 16384},
        {0},
};

static void ws_start(struct uvl_pool *p, struct uvl_conn *c)
{
	struct lws_client_connect_info i;
	memset(&i, 0, sizeof i);
	i.context = p->ws;
	i.address = p->ws_host;
	i.port = p->ws_port;
	i.path = "/ws";
	i.host = p->ws_hostport;
	i.origin = p->ws_hostport; /* lws 4.1 writes "Origin: http://" and this */
	i.local_protocol_name = ws_protocols[0].name;
	i.opaque_user_data = c;
	c->connecting = true;
	c->t_connect_ns = uvl_now_ns();
	p->inflight++;
	struct lws *wsi = p->ws ? lws_client_connect_via_info(&i) : NULL;
	if (c->ws_done) /* failed at once, and told */
		return;
	if (wsi == NULL) {
		ws_finish(c, UV_ECONNREFUSED);
		return;
	}
	c->wsi = wsi;
}

static void lws_log(int level, const char *line)
{
	(void)level;
	fprintf(stderr, "libwebsockets: %s", line);
}

int uvl_pool_ws(struct uvl_pool *p, const char *host, int port, int max_conns, char *why,
                size_t len)
{
	bool v6 = strchr(host, ':') != NULL;
	if (strlen(host) >= sizeof p->ws_host || port <= 0 || port > 65535) {
		snprintf(why, len, "bad WebSocket address %s port %d", host, port);
		return -1;
	}
	snprintf(p->ws_host, sizeof p->ws_host, "%s", host);
	snprintf(p->ws_hostport, sizeof p->ws_hostport, "%s%s%s:%d", v6 ? "[" : "", host,
	         v6 ? "]" : "", port);
	p->ws_port = port;
	p->is_ws = true;
	lws_set_log_level(LLL_ERR, lws_log);
	void *loops[1] = {p->loop};
	struct lws_context_creation_info info;
	memset(&info, 0, sizeof info);
	info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_UV_NO_SIGSEGV_SIGFPE_SPIN;
	info.foreign_loops = loops;
	info.pcontext = &p->ws;
	info.port = CONTEXT_PORT_NO_LISTEN;
	info.protocols = ws_protocols;
	info.fd_limit_per_thread = (unsigned)max_conns + 64;
	info.timeout_secs = 20;
	if (uv_idle_init(p->loop, &p->ws_reaper) != 0) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	p->ws_reaper.data = p;
	p->ws_reaper_open = true;
	p->ws = lws_create_context(&info);
	if (p->ws == NULL) {
		snprintf(why, len, "libwebsockets could not start on the loop");
		return -1;
	}
	return 0;
}

static void reaper_cb(uv_idle_t *h)
{
	struct uvl_pool *p = h->data;
	uv_idle_stop(h);
	uv_close((uv_handle_t *)h, NULL);
	p->ws_reaper_open = false;
	if (p->ws)
		lws_context_destroy(p->ws); /* its handles leave the loop; p->ws goes NULL then */
}

void uvl_pool_close(struct uvl_pool *p)
{
	if (p->is_ws && p->ws_reaper_open && !uv_is_active((uv_handle_t *)&p->ws_reaper))
		uv_idle_start(&p->ws_reaper, reaper_cb);
}

void uvl_pool_free(struct uvl_pool *p)
{
	if (p->is_ws && p->ws)
		lws_context_destroy(p->ws);
	p->ws = NULL;
}

#else /* no libwebsockets: no pool is a WebSocket one */

int uvl_pool_ws(struct uvl_pool *p, const char *host, int port, int max_conns, char *why,
                size_t len)
{
	snprintf(why, len,
	         "this bitarena was built without WebSocket support (libwebsockets); "
	         "rebuild with ./configure --with-websockets");
	return -1;
}

static void ws_start(struct uvl_pool *p, struct uvl_conn *c)
{
}

static void ws_close(struct uvl_conn *c)
{
}

static int ws_send(struct uvl_conn *c, const char *data, size_t len)
{
	return UV_ENOTSUP;
}

void uvl_pool_close(struct uvl_pool *p)
{
}

void uvl_pool_free(struct uvl_pool *p)
{
}
#endif
