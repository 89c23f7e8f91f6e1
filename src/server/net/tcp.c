/*
 * tcp.c - the TCP transport (see tcp.h and conn.h): the listener, accepting,
 * reading, writing and closing, each connection's uv_tcp_t kept beside its
 * struct conn (conn_new's transport area).
 *
 * Writes are batched: write() only queues the outbuf on its connection (up to
 * TCP_BATCH of them or TCP_BATCH_BYTES) and puts the connection on its listener's flush list;
 * after the loop's poll (a uv_check) and again before the next poll (a
 * uv_prepare: output made by timers and the pump), each listed connection's
 * queue goes out as one uv_write of several buffers, one writev(2). A move
 * answered with its ok and its state, or a state that follows a chat line,
 * is then one system call and one TCP segment instead of two: on loopback
 * the write path was most of the server's CPU time. Nothing waits longer than
 * the end of the loop pass that made it, and the bytes and their order are
 * what they were. A heavy connection's queue (conn_set_heavy) is not on the
 * flush list: the pump writes it in the connection's turn of the heavy slice
 * (flush), so a broadcast to a thousand flooders is written a slice at a time
 * and the time its writes take is counted in the slice. A queue that fills is written at once; closing writes it
 * (graceful) or drops it.
 */
#include "server/net/tcp.h"

#include <stdlib.h>
#include <string.h>

#include "server/util/text.h"

#define TCP_BATCH       16    /* outbufs queued per connection before it is written at once */
#define TCP_BATCH_BYTES 16384 /* ... or bytes */

/* The transport's part of a connection. */
struct tcp_conn {
	uv_tcp_t tcp; /* data = the struct conn */
	uv_shutdown_t shut;
	bool shutting;            /* a graceful close waits for its shutdown */
	struct tcp_listener *via; /* the listener that accepted it */
	/* output queued in this loop pass (a reference each), and its place on via->flush */
	struct outbuf *q[TCP_BATCH];
	unsigned nq;
	size_t qbytes;
	bool listed;
	struct tcp_conn *fnext, *fprev;
};

/* One uv_write in flight; holds a reference on each of its payloads until the callback. */
struct wreq {
	uv_write_t req;
	unsigned n;
	struct outbuf *b[TCP_BATCH];
};

static struct tcp_conn *tc_of(const struct conn *c)
{
	return c->tdata;
}

static void close_cb(uv_handle_t *h)
{
	conn_closed(h->data);
}

/* ---- the operations ----------------------------------------------------------------- */

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	size_t len;
	(void)suggested;
	conn_input_space(h->data, &buf->base, &len);
	buf->len = len;
}

static void read_cb(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
	struct conn *c = st->data;
	(void)buf;
	if (nread == UV_EOF) {
		conn_input_eof(c);
	} else if (nread == UV_ENOBUFS) {
		conn_input(c, 0); /* the buffer is full: the connection layer pauses reading */
	} else if (nread < 0) {
		log_debug("connection read failed conn=%llu why=%s", (unsigned long long)c->id,
		          LOG_Q(uv_strerror((int)nread)));
		conn_close(c, false);
	} else {
		conn_input(c, (size_t)nread);
	}
}

static void tcp_pause(struct conn *c)
{
	uv_read_stop((uv_stream_t *)&tc_of(c)->tcp);
}

static int tcp_resume(struct conn *c)
{
	return uv_read_start((uv_stream_t *)&tc_of(c)->tcp, alloc_cb, read_cb);
}

static void write_cb(uv_write_t *req, int status)
{
	struct wreq *w = (struct wreq *)req;
	struct conn *c = req->handle->data;
	for (unsigned i = 0; i < w->n; i++) {
		conn_wrote(c, w->b[i], status);
		outbuf_unref(w->b[i]);
	}
	free(w);
}

static void unlist(struct tcp_conn *tc)
{
	if (!tc->listed)
		return;
	if (tc->fprev != NULL)
		tc->fprev->fnext = tc->fnext;
	else
		tc->via->flush = tc->fnext;
	if (tc->fnext != NULL)
		tc->fnext->fprev = tc->fprev;
	tc->fnext = tc->fprev = NULL;
	tc->listed = false;
}

/* Each of n outbufs failed with status (< 0): told, then dropped. */
static void failed(struct conn *c, struct outbuf **b, unsigned n, int status)
{
	for (unsigned i = 0; i < n; i++) {
		conn_wrote(c, b[i], status);
		outbuf_unref(b[i]);
	}
}

/* Drops tc's queue unwritten (the connection is cut). */
static void drop_queue(struct conn *c, struct tcp_conn *tc)
{
	struct outbuf *q[TCP_BATCH];
	unsigned n = tc->nq;
	memcpy(q, tc->q, n * sizeof *q);
	unlist(tc);
	tc->nq = 0;
	tc->qbytes = 0;
	failed(c, q, n, UV_ECANCELED);
}

/* Writes c's queue as one uv_write; a failure is told for each outbuf (conn_wrote). */
static void flush_conn(struct conn *c)
{
	struct tcp_conn *tc = tc_of(c);
	unlist(tc);
	if (tc->nq == 0)
		return;
	struct wreq *w = malloc(sizeof *w);
	if (w == NULL) {
		struct outbuf *q[TCP_BATCH];
		unsigned n = tc->nq;
		memcpy(q, tc->q, n * sizeof *q);
		tc->nq = 0;
		tc->qbytes = 0;
		failed(c, q, n, UV_ENOMEM);
		return;
	}
	uv_buf_t ub[TCP_BATCH];
	w->n = tc->nq;
	for (unsigned i = 0; i < w->n; i++) {
		w->b[i] = tc->q[i];
		ub[i] = uv_buf_init(w->b[i]->data, (unsigned)w->b[i]->len);
	}
	tc->nq = 0;
	tc->qbytes = 0;
	int r = uv_write(&w->req, (uv_stream_t *)&tc->tcp, ub, w->n, write_cb);
	if (r != 0) {
		failed(c, w->b, w->n, r);
		free(w);
	}
}

/* Writes every queued connection of l (the list may grow meanwhile: a write's failure). */
static void flush_all(struct tcp_listener *l)
{
	while (l->flush != NULL) {
		struct tcp_conn *tc = l->flush;
		flush_conn(tc->tcp.data);
	}
}

static void flush_check_cb(uv_check_t *h)
{
	flush_all(h->data);
}

static void flush_prepare_cb(uv_prepare_t *h)
{
	flush_all(h->data);
}

static int tcp_write(struct conn *c, struct outbuf *b)
{
	struct tcp_conn *tc = tc_of(c);
	tc->q[tc->nq++] = outbuf_ref(b);
	tc->qbytes += b->len;
	if (tc->nq == TCP_BATCH || tc->qbytes >= TCP_BATCH_BYTES || !tc->via->batching) {
		flush_conn(c); /* a failure is told through conn_wrote (the contract of write) */
		return 0;
	}
	if (c->heavy)
		return 0; /* written in its turn of the pump's heavy slice (conn_send, tcp_flush) */
	if (!tc->listed) {
		tc->listed = true;
		tc->fprev = NULL;
		tc->fnext = tc->via->flush;
		if (tc->fnext != NULL)
			tc->fnext->fprev = tc;
		tc->via->flush = tc;
	}
	return 0;
}

static size_t tcp_backlog(const struct conn *c)
{
	const struct tcp_conn *tc = tc_of(c);
	return uv_stream_get_write_queue_size((const uv_stream_t *)&tc->tcp) + tc->qbytes;
}

static void shutdown_cb(uv_shutdown_t *req, int status)
{
	(void)status;
	uv_handle_t *h = (uv_handle_t *)req->handle;
	if (!uv_is_closing(h))
		uv_close(h, close_cb);
}

static void tcp_close(struct conn *c, bool graceful)
{
	struct tcp_conn *tc = tc_of(c);
	uv_handle_t *h = (uv_handle_t *)&tc->tcp;
	if (uv_is_closing(h) || (graceful && tc->shutting))
		return;
	if (graceful)
		flush_conn(c); /* the shutdown waits for it */
	else
		drop_queue(c, tc);
	uv_read_stop((uv_stream_t *)&tc->tcp);
	if (graceful && !tc->shutting &&
	    uv_shutdown(&tc->shut, (uv_stream_t *)&tc->tcp, shutdown_cb) == 0) {
		tc->shutting = true;
		return;
	}
	uv_close(h, close_cb);
}

/* The pump's flush of a heavy connection after its turn (conn.h). */
static void tcp_flush(struct conn *c)
{
	if (tc_of(c)->nq > 0)
		flush_conn(c);
}

static const struct conn_transport tcp_transport = {
        .name = "tcp",
        .telnet = true,
        .write = tcp_write,
        .backlog = tcp_backlog,
        .pause = tcp_pause,
        .resume = tcp_resume,
        .close = tcp_close,
        .flush = tcp_flush,
};

/* ---- accepting ---------------------------------------------------------------------- */

static void peer_name(uv_tcp_t *t, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	int sl = sizeof ss;
	buf[0] = '\0';
	if (uv_tcp_getpeername(t, (struct sockaddr *)&ss, &sl) != 0)
		return;
	if (ss.ss_family == AF_INET6)
		uv_ip6_name((struct sockaddr_in6 *)&ss, buf, len);
	else
		uv_ip4_name((struct sockaddr_in *)&ss, buf, len);
}

static void on_connection(uv_stream_t *server, int status)
{
	struct tcp_listener *l = server->data;
	if (status < 0)
		return;
	struct conn *c = conn_new(l->hub, &tcp_transport, sizeof(struct tcp_conn));
	if (c == NULL)
		return;
	struct tcp_conn *tc = tc_of(c);
	tc->via = l;
	if (uv_tcp_init(server->loop, &tc->tcp) != 0) {
		free(c); /* nothing of it is known to anyone yet */
		return;
	}
	tc->tcp.data = c;
	if (uv_accept(server, (uv_stream_t *)&tc->tcp) != 0) {
		uv_close((uv_handle_t *)&tc->tcp, close_cb);
		return;
	}
	uv_tcp_nodelay(&tc->tcp, 1);
	/* a peer that vanished without a FIN (NAT, cable) is found and its seat freed for
	   the grace: otherwise its name would stay taken */
	uv_tcp_keepalive(&tc->tcp, 1, 30);
	if (l->sndbuf > 0) {
		int v = l->sndbuf;
		uv_send_buffer_size((uv_handle_t *)&tc->tcp, &v);
	}
	char peer[CONN_PEER_MAX];
	peer_name(&tc->tcp, peer, sizeof peer);
	if (conn_open(c, peer) != 0)
		uv_close((uv_handle_t *)&tc->tcp, close_cb);
}

int tcp_listen(struct tcp_listener *l, struct conn_hub *hub, const char *host, int port, int sndbuf,
               int *bound)
{
	memset(l, 0, sizeof *l);
	l->hub = hub;
	l->sndbuf = sndbuf;
	struct sockaddr_storage ss;
	int r = uv_ip4_addr(host, port, (struct sockaddr_in *)&ss);
	if (r != 0)
		r = uv_ip6_addr(host, port, (struct sockaddr_in6 *)&ss);
	if (r != 0) { /* a name such as localhost: its first address */
		uv_getaddrinfo_t req;
		struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
		if ((r = uv_getaddrinfo(hub->loop, &req, NULL, host, NULL, &hints)) != 0)
			return r;
		memcpy(&ss, req.addrinfo->ai_addr, req.addrinfo->ai_addrlen);
		uv_freeaddrinfo(req.addrinfo);
		if (ss.ss_family == AF_INET6)
			((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)port);
		else
			((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)port);
	}
	if ((r = uv_tcp_init(hub->loop, &l->handle)) != 0)
		return r;
	l->open = true;
	l->handle.data = l;
	uv_check_init(hub->loop, &l->flush_check);
	uv_prepare_init(hub->loop, &l->flush_prepare);
	l->flush_check.data = l->flush_prepare.data = l;
	uv_check_start(&l->flush_check, flush_check_cb);
	uv_prepare_start(&l->flush_prepare, flush_prepare_cb);
	l->batching = true;
	if ((r = uv_tcp_bind(&l->handle, (const struct sockaddr *)&ss, 0)) != 0)
		return r;
	if ((r = uv_listen((uv_stream_t *)&l->handle, 128, on_connection)) != 0)
		return r;
	if (bound) {
		int sl = sizeof ss;
		if ((r = uv_tcp_getsockname(&l->handle, (struct sockaddr *)&ss, &sl)) != 0)
			return r;
		*bound = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
		                                        : ((struct sockaddr_in *)&ss)->sin_port);
	}
	return 0;
}

struct tcp_listener *tcp_listener_of(const struct conn *c)
{
	return c->t == &tcp_transport ? tc_of(c)->via : NULL;
}

void tcp_unlisten(struct tcp_listener *l)
{
	if (l->open && !uv_is_closing((uv_handle_t *)&l->handle)) {
		/* from now on its connections write at once (their last output, the shutdown) */
		flush_all(l);
		l->batching = false;
		uv_close((uv_handle_t *)&l->flush_check, NULL);
		uv_close((uv_handle_t *)&l->flush_prepare, NULL);
		uv_close((uv_handle_t *)&l->handle, NULL);
	}
}
