/*
 * net.c - libuv networking of bitarenad: listening (IPv4/IPv6), accepting,
 * reading into the framer, the fairness pump (a few commands per connection
 * per loop pass), bounded output with write callbacks, closing connections,
 * and the clean shutdown on SIGINT/SIGTERM.
 */
#include "config.h"

#include "server/server.h"
#include "server/session.h"
#include "server/offers.h"
#include "server/storage.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One uv_write in flight; holds a reference on its payload until the callback. */
struct wreq {
	uv_write_t req;
	struct outbuf *b;
};

void server_log(struct server *s, const char *fmt, ...)
{
	if (!s->cfg.verbose)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("bitarenad: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void pump_cb(uv_idle_t *h);

/* ---- the pump --------------------------------------------------------------------- */

static void pump_add(struct conn *c)
{
	struct server *s = c->srv;
	if (c->in_pump || c->closing)
		return;
	c->in_pump = true;
	c->pump_next = NULL;
	if (s->pump_tail)
		s->pump_tail->pump_next = c;
	else
		s->pump_head = c;
	s->pump_tail = c;
	if (!s->stopping && !uv_is_active((uv_handle_t *)&s->pump))
		uv_idle_start(&s->pump, pump_cb);
}

static void pump_remove(struct conn *c)
{
	struct server *s = c->srv;
	if (!c->in_pump)
		return;
	struct conn **pp = &s->pump_head, *prev = NULL;
	while (*pp != NULL && *pp != c) {
		prev = *pp;
		pp = &(*pp)->pump_next;
	}
	if (*pp == c) {
		*pp = c->pump_next;
		if (s->pump_tail == c)
			s->pump_tail = prev;
	}
	c->in_pump = false;
	c->pump_next = NULL;
}

static void read_start(struct conn *c);

/*
 * Handles up to CONN_LINES_PER_PASS events of c's buffered input. Leaves c in
 * the pump when more is left and its output is not backed up.
 */
static void conn_process(struct conn *c)
{
	size_t off = 0;
	int lines = 0;
	bool backed_up = false;
	while (off < c->in_len && lines < CONN_LINES_PER_PASS && !c->closing) {
		if (conn_slow(c) || c->busy) {
			backed_up = true;
			break;
		}
		size_t used = 0;
		enum frame_event ev = framer_feed(&c->fr, c->in + off, c->in_len - off, &used);
		off += used;
		if (ev == FRAME_LINE) {
			lines++;
			commands_line(c, c->fr.line, c->fr.linelen);
		} else if (ev == FRAME_TOO_LONG) {
			lines++;
			reply_err(c, NULL, "LINE_TOO_LONG",
			          "lines are at most %d bytes; the rest of this one is ignored",
			          FRAME_MAX);
		}
	}
	if (c->closing)
		return;
	memmove(c->in, c->in + off, c->in_len - off);
	c->in_len -= off;
	if (c->in_len > 0 && !backed_up)
		pump_add(c);
	if (c->in_len == 0 && c->eof) {
		conn_close(c, true);
		return;
	}
	if (!c->reading && !c->eof && c->in_len < CONN_IN_CAP)
		read_start(c);
}

/*
 * One pass: each connection queued when the pass starts gets one turn. Those
 * queued during the pass (again, or newly doomed) wait for the next pass, so
 * no list is walked while it changes.
 */
static void pump_cb(uv_idle_t *h)
{
	struct server *s = h->data;
	size_t n = 0;
	for (struct conn *c = s->pump_head; c != NULL; c = c->pump_next)
		n++;
	while (n-- > 0 && s->pump_head != NULL) {
		struct conn *c = s->pump_head;
		s->pump_head = c->pump_next;
		if (s->pump_head == NULL)
			s->pump_tail = NULL;
		c->pump_next = NULL;
		c->in_pump = false;
		if (c->doomed)
			conn_close(c, false);
		else if (!c->closing)
			conn_process(c);
	}
	if (s->pump_head == NULL)
		uv_idle_stop(&s->pump);
}

/* ---- reading ---------------------------------------------------------------------- */

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct conn *c = (struct conn *)h;
	(void)suggested;
	buf->base = (char *)c->in + c->in_len;
	buf->len = CONN_IN_CAP - c->in_len;
}

static void read_cb(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
	struct conn *c = (struct conn *)st;
	(void)buf;
	if (c->closing)
		return;
	if (nread == UV_EOF) {
		c->eof = true;
		uv_read_stop(st);
		c->reading = false;
		/* an unterminated last line still counts (an extra empty line is ignored) */
		if (c->in_len < CONN_IN_CAP)
			c->in[c->in_len++] = '\n';
		conn_process(c);
		return;
	}
	if (nread == UV_ENOBUFS) {
		uv_read_stop(st);
		c->reading = false;
		return;
	}
	if (nread < 0) {
		server_log(c->srv, "conn %llu: read: %s", (unsigned long long)c->id,
		           uv_strerror((int)nread));
		conn_close(c, false);
		return;
	}
	c->in_len += (size_t)nread;
	if (c->in_len == CONN_IN_CAP) {
		uv_read_stop(st);
		c->reading = false;
	}
	if (!c->in_pump)
		conn_process(c);
}

static void read_start(struct conn *c)
{
	if (uv_read_start((uv_stream_t *)&c->tcp, alloc_cb, read_cb) == 0)
		c->reading = true;
}

void conn_resume(struct conn *c)
{
	if (!c->closing && !c->busy)
		pump_add(c);
}

/* ---- writing ---------------------------------------------------------------------- */

struct outbuf *outbuf_new(const char *data, size_t len)
{
	struct outbuf *b = malloc(sizeof *b + len + 1);
	if (b == NULL)
		return NULL;
	b->refs = 1;
	b->len = len;
	memcpy(b->data, data, len);
	b->data[len] = '\0';
	return b;
}

struct outbuf *outbuf_ref(struct outbuf *b)
{
	b->refs++;
	return b;
}

void outbuf_unref(struct outbuf *b)
{
	if (b != NULL && --b->refs == 0)
		free(b);
}

size_t conn_backlog(const struct conn *c)
{
	return uv_stream_get_write_queue_size((const uv_stream_t *)&c->tcp);
}

bool conn_slow(const struct conn *c)
{
	return conn_backlog(c) > c->srv->cfg.out_soft;
}

/* Marks c to be dropped at the next pump pass (safe inside any loop over connections). */
static void conn_doom(struct conn *c)
{
	if (c->doomed || c->closing)
		return;
	c->doomed = true;
	pump_add(c);
}

static void write_cb(uv_write_t *req, int status)
{
	struct wreq *w = (struct wreq *)req;
	struct conn *c = (struct conn *)req->handle;
	outbuf_unref(w->b);
	free(w);
	if (c->closing)
		return;
	if (status < 0) {
		conn_doom(c);
		return;
	}
	if (conn_backlog(c) <= c->srv->cfg.out_soft / 2) {
		if (c->has_pending_states)
			session_flush_pending(c);
		if (c->in_len > 0)
			pump_add(c);
	}
}

void conn_send(struct conn *c, struct outbuf *b)
{
	if (b == NULL || c->closing || c->doomed)
		return;
	struct wreq *w = malloc(sizeof *w);
	if (w == NULL) {
		conn_doom(c);
		return;
	}
	w->b = outbuf_ref(b);
	uv_buf_t ub = uv_buf_init(b->data, (unsigned)b->len);
	if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &ub, 1, write_cb) != 0) {
		outbuf_unref(w->b);
		free(w);
		conn_doom(c);
		return;
	}
	if (conn_backlog(c) > c->srv->cfg.out_soft * CONN_OUT_HARD_FACTOR) {
		server_log(c->srv, "conn %llu: does not read its output; dropped",
		           (unsigned long long)c->id);
		conn_doom(c);
	}
}

/* ---- connections ------------------------------------------------------------------ */

static void close_cb(uv_handle_t *h)
{
	struct conn *c = (struct conn *)h;
	struct server *s = c->srv;
	if (c->prev)
		c->prev->next = c->next;
	else
		s->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	free(c);
	if (s->stopping && s->conns == NULL && !uv_is_closing((uv_handle_t *)&s->stop_timer))
		uv_close((uv_handle_t *)&s->stop_timer, NULL);
}

static void shutdown_cb(uv_shutdown_t *req, int status)
{
	(void)status;
	uv_handle_t *h = (uv_handle_t *)req->handle;
	if (!uv_is_closing(h))
		uv_close(h, close_cb);
}

void conn_close(struct conn *c, bool graceful)
{
	if (c->closing)
		return;
	server_log(c->srv, "conn %llu (%s) closed", (unsigned long long)c->id,
	           c->logged_in ? c->name : "-");
	/* Leave everything while still able to tell the others. */
	lobby_conn_gone(c);
	session_conn_gone(c);
	storage_conn_gone(c);
	c->closing = true;
	pump_remove(c);
	uv_read_stop((uv_stream_t *)&c->tcp);
	c->reading = false;
	if (graceful && uv_shutdown(&c->shut, (uv_stream_t *)&c->tcp, shutdown_cb) == 0)
		return;
	uv_close((uv_handle_t *)&c->tcp, close_cb);
}

static void on_connection(uv_stream_t *server, int status)
{
	struct server *s = server->data;
	if (status < 0)
		return;
	struct conn *c = calloc(1, sizeof *c);
	if (c == NULL)
		return;
	c->srv = s;
	if (uv_tcp_init(s->loop, &c->tcp) != 0) {
		free(c);
		return;
	}
	c->next = s->conns;
	if (s->conns)
		s->conns->prev = c;
	s->conns = c;
	if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0 || s->stopping) {
		c->closing = true;
		uv_close((uv_handle_t *)&c->tcp, close_cb);
		return;
	}
	c->id = ++s->next_conn_id;
	framer_init(&c->fr);
	uv_tcp_nodelay(&c->tcp, 1);
	/* a peer that vanished without a FIN (NAT, cable) is found and its seat freed for
	   the grace: otherwise its name would stay taken */
	uv_tcp_keepalive(&c->tcp, 1, 30);
	if (s->cfg.sndbuf > 0) {
		int v = s->cfg.sndbuf;
		uv_send_buffer_size((uv_handle_t *)&c->tcp, &v);
	}
	struct sockaddr_storage ss;
	int sl = sizeof ss;
	if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &sl) == 0) {
		if (ss.ss_family == AF_INET6)
			uv_ip6_name((struct sockaddr_in6 *)&ss, c->peer, sizeof c->peer);
		else
			uv_ip4_name((struct sockaddr_in *)&ss, c->peer, sizeof c->peer);
	}
	server_log(s, "conn %llu from %s", (unsigned long long)c->id, c->peer);
	send_msg(c, NULL,
	         xasprintf("bitarenad %s (protocol %d) ready; 'help' lists commands, "
	                   "'login <name>' to begin",
	                   PACKAGE_VERSION, SERVER_PROTOCOL));
	read_start(c);
}

/* ---- the server ------------------------------------------------------------------- */

static void signal_cb(uv_signal_t *h, int signum)
{
	struct server *s = h->data;
	server_log(s, "signal %d: shutting down", signum);
	server_stop(s);
}

static void stop_timer_cb(uv_timer_t *t)
{
	struct server *s = t->data;
	for (struct conn *c = s->conns; c != NULL; c = c->next)
		if (!uv_is_closing((uv_handle_t *)&c->tcp))
			uv_close((uv_handle_t *)&c->tcp, close_cb);
	if (!uv_is_closing((uv_handle_t *)t))
		uv_close((uv_handle_t *)t, NULL);
}

int server_init(struct server *s, uv_loop_t *loop, const struct server_config *cfg)
{
	memset(s, 0, sizeof *s);
	s->loop = loop;
	s->cfg = *cfg;
	if (s->cfg.out_soft == 0)
		s->cfg.out_soft = CONN_OUT_SOFT;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	rng_seed(&s->rng, (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec ^
	                          ((uint64_t)getpid() << 32));
	int r;
	if ((r = uv_idle_init(loop, &s->pump)) != 0)
		return r;
	s->pump.data = s;
	uv_timer_init(loop, &s->stop_timer);
	s->stop_timer.data = s;
	rtt_init(s);
	uv_signal_init(loop, &s->sig_int);
	uv_signal_init(loop, &s->sig_term);
	s->sig_int.data = s->sig_term.data = s;
	uv_signal_start(&s->sig_int, signal_cb, SIGINT);
	uv_signal_start(&s->sig_term, signal_cb, SIGTERM);
	return 0;
}

void server_set_hooks(struct server *s, const struct session_hooks *h)
{
	if (h)
		s->hooks = *h;
	else
		memset(&s->hooks, 0, sizeof s->hooks);
}

int server_listen(struct server *s, const char *host, int port, int *bound)
{
	struct sockaddr_storage ss;
	int r = uv_ip4_addr(host, port, (struct sockaddr_in *)&ss);
	if (r != 0)
		r = uv_ip6_addr(host, port, (struct sockaddr_in6 *)&ss);
	if (r != 0) { /* a name such as localhost: its first address */
		uv_getaddrinfo_t req;
		struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
		if ((r = uv_getaddrinfo(s->loop, &req, NULL, host, NULL, &hints)) != 0)
			return r;
		memcpy(&ss, req.addrinfo->ai_addr, req.addrinfo->ai_addrlen);
		uv_freeaddrinfo(req.addrinfo);
		if (ss.ss_family == AF_INET6)
			((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)port);
		else
			((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)port);
	}
	if ((r = uv_tcp_init(s->loop, &s->listener)) != 0)
		return r;
	s->listener_open = true;
	s->listener.data = s;
	if ((r = uv_tcp_bind(&s->listener, (const struct sockaddr *)&ss, 0)) != 0)
		return r;
	if ((r = uv_listen((uv_stream_t *)&s->listener, 128, on_connection)) != 0)
		return r;
	if (bound) {
		int sl = sizeof ss;
		if ((r = uv_tcp_getsockname(&s->listener, (struct sockaddr *)&ss, &sl)) != 0)
			return r;
		*bound = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
		                                        : ((struct sockaddr_in *)&ss)->sin_port);
	}
	return 0;
}

static void close_if_open(uv_handle_t *h)
{
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

void server_stop(struct server *s)
{
	if (s->stopping)
		return;
	s->stopping = true;
	if (s->listener_open)
		close_if_open((uv_handle_t *)&s->listener);
	close_if_open((uv_handle_t *)&s->sig_int);
	close_if_open((uv_handle_t *)&s->sig_term);
	close_if_open((uv_handle_t *)&s->pump);
	rtt_stop(s);
	s->pump_head = s->pump_tail = NULL;
	for (struct conn *c = s->conns; c != NULL; c = c->next) {
		c->in_pump = false;
		if (!c->closing) {
			cJSON *j = cJSON_CreateObject();
			cJSON_AddStringToObject(j, "type", "info");
			cJSON_AddStringToObject(j, "event", "shutdown");
			cJSON_AddStringToObject(j, "message", "the server is shutting down");
			send_msg(c, j, xasprintf("info: the server is shutting down"));
		}
	}
	lobby_free(s);
	session_free_all(s);
	for (struct conn *c = s->conns; c != NULL; c = c->next)
		conn_close(c, true);
	if (s->conns == NULL)
		close_if_open((uv_handle_t *)&s->stop_timer);
	else
		uv_timer_start(&s->stop_timer, stop_timer_cb, 2000, 0);
}

void server_free(struct server *s)
{
	(void)s; /* everything is freed by the close callbacks */
}
