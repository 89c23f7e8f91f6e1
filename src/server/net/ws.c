/*
 * ws.c - the HTTP listener and the WebSocket transport (see ws.h and conn.h): one lws context on
 * the server's libuv loop with one vhost that serves the page's directory and upgrades /ws;
 * paths under /api are http.c's exchanges (HTTP_MOUNT), counted here until freed.
 *
 * Per connection (the conn's transport area, struct ws_conn): the wsi while lws has it, the
 * queue of outbufs to send (one reference each; each line of an outbuf goes as one message, one
 * message per writable callback), the input lws delivered that the connection's buffer could not
 * take yet (bounded: reading is paused until it is taken), and whether a close is under way.
 * conn_closed() is called from lws's CLOSED callback, or, when lws let the connection go first,
 * from the listener's reaper on a later loop pass, never from inside close().
 */
#include "server/net/ws.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libwebsockets.h>

#include "server/net/framing.h"
#include "server/net/http_lws.h"
#include "server/util/text.h"

#define WS_RX_CHUNK 4096 /* what lws hands over per RECEIVE callback */
/* input held while the connection's buffer is full */
#define WS_RX_PENDING (FRAME_MAX + 2 * WS_RX_CHUNK)

static const char ws_csp[] = "default-src 'self'; script-src 'self'; style-src 'self'; "
                             "img-src 'self'; connect-src 'self'; object-src 'none'; "
                             "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

static const struct lws_protocol_vhost_options ws_headers[] = {
        {NULL, NULL, "content-security-policy:", ws_csp},
        {&ws_headers[0], NULL, "x-content-type-options:", "nosniff"},
        {&ws_headers[1], NULL, "referrer-policy:", "no-referrer"},
};

struct ws_listener {
	struct lws_context *ctx; /* NULL once lws has destroyed it (pcontext) */
	struct conn_hub *hub;
	char origin[WS_ORIGIN_MAX]; /* "" = the page's own */
	char *webroot;
	struct lws_http_mount mount, api_mount; /* the page's files; HTTP_MOUNT: http.c's */
	struct lws_protocols protocols[3];
	struct http_side http; /* the exchanges under HTTP_MOUNT (http.c) */
	uv_idle_t reaper;      /* conn_closed() for connections lws let go, and the last teardown */
	bool reaper_open;
	struct ws_conn *dead; /* waiting for the reaper */
	size_t live;          /* connections not yet freed */
	bool stopping, destroyed;
};

struct ws_out {
	struct outbuf *b;
	size_t off; /* bytes of b already sent */
	struct ws_out *next;
};

struct ws_conn {
	struct conn *c;
	struct ws_listener *l;
	struct lws *wsi; /* NULL once lws has closed it */
	struct ws_out *head, *tail;
	size_t backlog;
	unsigned char *rx; /* input not yet taken by the connection layer */
	size_t rx_len;
	bool reading; /* the connection layer wants input (resume) */
	bool flow_on; /* lws reads the socket */
	bool draining;
	bool closing, graceful;
	bool reaping;
	struct ws_conn *dead_next;
	unsigned char *tx; /* LWS_PRE bytes, then the message being sent */
	size_t tx_cap;
};

/* lws's per-session data: which connection a wsi is. */
struct ws_pss {
	struct ws_conn *wc;
};

static struct ws_conn *wc_of(const struct conn *c)
{
	return c->tdata;
}

/* ---- freeing ------------------------------------------------------------------------ */

static void drop_queue(struct ws_conn *wc)
{
	while (wc->head) {
		struct ws_out *o = wc->head;
		wc->head = o->next;
		outbuf_unref(o->b);
		free(o);
	}
	wc->tail = NULL;
	wc->backlog = 0;
}

static void reaper_kick(struct ws_listener *l);

/* The transport is done with wc: its buffers go, then the connection layer frees the conn. */
static void finish(struct ws_conn *wc)
{
	struct ws_listener *l = wc->l;
	drop_queue(wc);
	free(wc->rx);
	free(wc->tx);
	wc->rx = wc->tx = NULL;
	l->live--;
	conn_closed(wc->c);
	if (l->stopping && l->live == 0)
		reaper_kick(l);
}

static void reaper_cb(uv_idle_t *h)
{
	struct ws_listener *l = h->data;
	while (l->dead) {
		struct ws_conn *wc = l->dead;
		l->dead = wc->dead_next;
		finish(wc);
	}
	uv_idle_stop(h);
	if (l->stopping && l->live == 0 && l->http.live == 0 && !l->destroyed) {
		/* every WebSocket connection is gone: lws goes too (from a libuv callback, never
		   from inside one of its own), and then its handles leave the loop */
		l->destroyed = true;
		uv_close((uv_handle_t *)&l->reaper, NULL);
		l->reaper_open = false;
		if (l->ctx)
			lws_context_destroy(l->ctx);
	}
}

static void reaper_kick(struct ws_listener *l)
{
	if (l->reaper_open)
		uv_idle_start(&l->reaper, reaper_cb);
}

/* The last HTTP exchange is gone while stopping: lws may go too. */
static void http_idle(void *ud)
{
	reaper_kick(ud);
}

/* wc's conn is freed on the next loop pass. */
static void reap_later(struct ws_conn *wc)
{
	if (wc->reaping)
		return;
	wc->reaping = true;
	wc->dead_next = wc->l->dead;
	wc->l->dead = wc;
	reaper_kick(wc->l);
}

/* ---- input -------------------------------------------------------------------------- */

/* lws reads the socket while the connection wants input and none is held. */
static void flow(struct ws_conn *wc)
{
	bool on = wc->reading && wc->rx_len == 0;
	if (wc->wsi && on != wc->flow_on) {
		wc->flow_on = on;
		lws_rx_flow_control(wc->wsi, on);
	}
}

/* Offers the held input to the connection (which pauses us when its buffer is full). */
static void drain(struct ws_conn *wc)
{
	if (wc->draining)
		return;
	wc->draining = true;
	size_t off = 0;
	while (off < wc->rx_len) {
		size_t n = conn_input_copy(wc->c, wc->rx + off, wc->rx_len - off);
		if (n == 0)
			break;
		off += n;
	}
	if (off > 0) {
		memmove(wc->rx, wc->rx + off, wc->rx_len - off);
		wc->rx_len -= off;
	}
	wc->draining = false;
	flow(wc);
}

/*
 * One piece of a message: held (CR and LF become a control byte, so a message is exactly one
 * line and one holding them is BAD_INPUT, as such a line would be on TCP), the message's end
 * becomes a line feed. -1 when more is held than the bound allows (the peer ignores flow
 * control): the connection is dropped.
 */
static int receive(struct ws_conn *wc, const unsigned char *in, size_t len, bool final)
{
	if (wc->c->closing)
		return 0;
	if (wc->rx_len + len + 1 > WS_RX_PENDING)
		return -1;
	if (wc->rx == NULL && (wc->rx = malloc(WS_RX_PENDING)) == NULL)
		return -1;
	for (size_t i = 0; i < len; i++)
		wc->rx[wc->rx_len++] = in[i] == '\r' || in[i] == '\n' ? 0x01 : in[i];
	if (final)
		wc->rx[wc->rx_len++] = '\n';
	drain(wc);
	return 0;
}

static void ws_pause(struct conn *c)
{
	struct ws_conn *wc = wc_of(c);
	wc->reading = false;
	flow(wc);
}

static int ws_resume(struct conn *c)
{
	struct ws_conn *wc = wc_of(c);
	wc->reading = true;
	drain(wc); /* when called from inside drain(), the outer one goes on */
	return 0;
}

/* ---- output ------------------------------------------------------------------------- */

/*
 * Sends the next line of wc's queue as one message; when an outbuf is all sent it goes, and
 * the connection layer hears of it (from inside write() too, which conn.h allows: it counts
 * the output held). -1 on a failed write.
 */
static int send_line(struct ws_conn *wc)
{
	struct ws_out *o = wc->head;
	const char *start = o->b->data + o->off;
	size_t left = o->b->len - o->off;
	const char *nl = memchr(start, '\n', left);
	size_t used = nl ? (size_t)(nl - start) + 1 : left;
	size_t mlen = nl ? (size_t)(nl - start) : left;
	if (mlen > 0 && start[mlen - 1] == '\r')
		mlen--;
	if (LWS_PRE + mlen > wc->tx_cap) {
		size_t cap = LWS_PRE + mlen + 256;
		unsigned char *t = realloc(wc->tx, cap);
		if (t == NULL)
			return -1;
		wc->tx = t;
		wc->tx_cap = cap;
	}
	memcpy(wc->tx + LWS_PRE, start, mlen);
	if (lws_write(wc->wsi, wc->tx + LWS_PRE, mlen, LWS_WRITE_TEXT) < (int)mlen)
		return -1;
	o->off += used;
	wc->backlog -= used;
	if (o->off >= o->b->len) {
		wc->head = o->next;
		if (wc->head == NULL)
			wc->tail = NULL;
		conn_wrote(wc->c, o->b, 0);
		outbuf_unref(o->b);
		free(o);
	}
	return 0;
}

static int ws_write(struct conn *c, struct outbuf *b)
{
	struct ws_conn *wc = wc_of(c);
	if (wc->wsi == NULL)
		return UV_EPIPE;
	struct ws_out *o = malloc(sizeof *o);
	if (o == NULL)
		return UV_ENOMEM;
	o->b = outbuf_ref(b);
	o->off = 0;
	o->next = NULL;
	if (wc->tail)
		wc->tail->next = o;
	else
		wc->head = o;
	wc->tail = o;
	wc->backlog += b->len;
	/* Nothing was waiting: as much as the socket takes goes now, as TCP writes do, instead
	   of a writable callback per message (a poll() instead of two epoll_ctl() and a wakeup,
	   which counts when one move goes to thousands). */
	while (wc->head == o && !wc->closing && !lws_send_pipe_choked(wc->wsi))
		if (send_line(wc) < 0)
			return UV_EPIPE;
	if (wc->head != NULL)
		lws_callback_on_writable(wc->wsi);
	return 0;
}

static size_t ws_backlog(const struct conn *c)
{
	return wc_of(c)->backlog;
}

/*
 * The socket can take a message: the next line of the queue goes, without its line end. When
 * an outbuf is all sent the connection layer hears of it. -1 closes the wsi (a failed write, or
 * a graceful close whose queue has drained).
 */
static int writable(struct ws_conn *wc)
{
	if (wc->head == NULL)
		return wc->closing ? -1 : 0;
	if (send_line(wc) < 0)
		return -1;
	if (wc->wsi && (wc->head || wc->closing))
		lws_callback_on_writable(wc->wsi);
	return 0;
}

static void ws_close(struct conn *c, bool graceful)
{
	struct ws_conn *wc = wc_of(c);
	if (wc->closing && (graceful || !wc->graceful))
		return;
	wc->closing = true;
	wc->graceful = graceful;
	if (wc->wsi == NULL) {
		/* lws has let it go already: the conn is freed on the next pass */
		reap_later(wc);
		return;
	}
	ws_pause(c);
	if (graceful) {
		lws_callback_on_writable(wc->wsi);
	} else {
		drop_queue(wc);
		lws_set_timeout(wc->wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC);
	}
}

static const struct conn_transport ws_transport = {
        .name = "ws",
        .write = ws_write,
        .backlog = ws_backlog,
        .pause = ws_pause,
        .resume = ws_resume,
        .close = ws_close,
};

/* ---- the lws callback --------------------------------------------------------------- */

/* Is this handshake for /ws from the allowed origin? */
static bool handshake_ok(struct ws_listener *l, struct lws *wsi)
{
	char uri[16], origin[WS_ORIGIN_MAX], host[WS_ORIGIN_MAX], own[WS_ORIGIN_MAX + 8];
	if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) <= 0 || strcmp(uri, "/ws") != 0)
		return false;
	if (lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) <= 0)
		return false;
	if (l->origin[0])
		return strcasecmp(origin, l->origin) == 0;
	if (lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) <= 0)
		return false;
	snprintf(own, sizeof own, "http://%s", host);
	return strcasecmp(origin, own) == 0;
}

static int opened(struct ws_listener *l, struct lws *wsi, struct ws_pss *pss)
{
	struct conn *c = conn_new(l->hub, &ws_transport, sizeof(struct ws_conn));
	if (c == NULL)
		return -1;
	struct ws_conn *wc = wc_of(c);
	wc->c = c;
	wc->l = l;
	wc->wsi = wsi;
	wc->flow_on = true;
	pss->wc = wc;
	l->live++;
	char peer[CONN_PEER_MAX];
	lws_get_peer_simple(wsi, peer, sizeof peer);
	if (conn_open(c, peer) != 0) { /* the server is stopping */
		pss->wc = NULL;
		wc->wsi = NULL;
		finish(wc);
		return -1;
	}
	return 0;
}

static void closed(struct ws_conn *wc)
{
	wc->wsi = NULL;
	drop_queue(wc);
	if (wc->closing) {
		finish(wc);
		return;
	}
	/* the peer went first: its last input is handled, then the connection layer closes
	   it (ws_close, which finds no wsi and reaps it) */
	conn_input_eof(wc->c);
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
	struct ws_listener *l = lws_context_user(lws_get_context(wsi));
	struct ws_pss *pss = user;
	switch (reason) {
	case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
		return l->stopping || !handshake_ok(l, wsi) ? -1 : 0;
	case LWS_CALLBACK_ESTABLISHED:
		return opened(l, wsi, pss);
	case LWS_CALLBACK_RECEIVE:
		if (pss->wc == NULL || pss->wc->closing)
			return 0;
		if (receive(pss->wc, in, len, lws_is_final_fragment(wsi)) < 0) {
			conn_close(pss->wc->c, false);
			return 0;
		}
		return 0;
	case LWS_CALLBACK_SERVER_WRITEABLE:
		if (pss->wc == NULL)
			return -1;
		if (writable(pss->wc) < 0) {
			lws_close_reason(wsi, LWS_CLOSE_STATUS_NORMAL, NULL, 0);
			return -1;
		}
		return 0;
	case LWS_CALLBACK_CLOSED:
		if (pss && pss->wc) {
			struct ws_conn *wc = pss->wc;
			pss->wc = NULL;
			closed(wc);
		}
		return 0;
	default:
		return lws_callback_http_dummy(wsi, reason, user, in, len);
	}
}

/* ---- the listener ------------------------------------------------------------------- */

static void lws_log(int level, const char *line)
{
	size_t n = strlen(line);
	while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		n--;
	char what[LOG_Q_MAX];
	snprintf(what, sizeof what, "%.*s", (int)n, line);
	log_at(level & LLL_ERR ? LOG_LEVEL_ERROR : LOG_LEVEL_WARN, "libwebsockets said what=%s",
	       LOG_Q(what));
}

int ws_listen(struct ws_listener **out, struct conn_hub *hub, const struct ws_config *cfg,
              int *bound, char *why, size_t len)
{
	*out = NULL;
	struct ws_listener *l = calloc(1, sizeof *l);
	if (l == NULL || (l->webroot = strdup(cfg->webroot)) == NULL) {
		free(l);
		snprintf(why, len, "out of memory");
		return -1;
	}
	l->hub = hub;
	if (cfg->origin && strlen(cfg->origin) >= sizeof l->origin) {
		snprintf(why, len, "--http-origin is too long");
		ws_free(l);
		return -1;
	}
	snprintf(l->origin, sizeof l->origin, "%s", cfg->origin ? cfg->origin : "");
	l->http = (struct http_side){.hub = hub, .sndbuf = cfg->sndbuf, .idle = http_idle, .ud = l};
	l->api_mount = (struct lws_http_mount){
	        .mountpoint = HTTP_MOUNT,
	        .mountpoint_len = sizeof HTTP_MOUNT - 1,
	        .origin = HTTP_PROTOCOL,
	        .origin_protocol = LWSMPRO_CALLBACK,
	};
	l->mount = (struct lws_http_mount){
	        .mount_next = &l->api_mount,
	        .mountpoint = "/",
	        .mountpoint_len = 1,
	        .origin = l->webroot,
	        .def = "index.html",
	        .origin_protocol = LWSMPRO_FILE,
	};
	l->protocols[0] = (struct lws_protocols){
	        .name = "bitarena",
	        .callback = callback,
	        .per_session_data_size = sizeof(struct ws_pss),
	        .rx_buffer_size = WS_RX_CHUNK,
	};
	l->protocols[1] = http_protocol(&l->http);
	lws_set_log_level(LLL_ERR | (cfg->verbose ? LLL_WARN | LLL_NOTICE : 0), lws_log);

	void *loops[1] = {hub->loop};
	struct lws_context_creation_info info;
	memset(&info, 0, sizeof info);
	/* the vhost apart from the context: a vhost that cannot bind then fails alone (a context
	   that fails takes its event-lib plugin away while its handles are still closing) */
	info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_UV_NO_SIGSEGV_SIGFPE_SPIN |
	               LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND |
	               LWS_SERVER_OPTION_EXPLICIT_VHOSTS;
	/* An IPv4 address on an IPv6 socket is taken by lws 4.1 for no address at all (it lands
	   outside sin6_addr): --http 127.0.0.1:8080 served every interface. IPv4 gets IPv4. */
	struct in_addr v4;
	if (inet_pton(AF_INET, cfg->host, &v4) == 1)
		info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
	info.foreign_loops = loops;
	info.pcontext = &l->ctx;
	info.iface = cfg->host;
	info.port = cfg->port;
	info.protocols = l->protocols;
	info.mounts = &l->mount;
	info.headers = &ws_headers[2];
	info.server_string = "bitarenad";
	info.user = l;
	info.timeout_secs = 20;
	if (uv_idle_init(hub->loop, &l->reaper) != 0) {
		snprintf(why, len, "out of memory");
		ws_free(l);
		return -1;
	}
	l->reaper.data = l;
	l->reaper_open = true;
	/* from here on the caller stops and frees l (ws_stop, ws_free) even when this fails:
	   lws lets go of a context on a foreign loop only while the loop runs */
	*out = l;
	l->ctx = lws_create_context(&info);
	struct lws_vhost *vh = l->ctx ? lws_create_vhost(l->ctx, &info) : NULL;
	if (vh == NULL) {
		snprintf(why, len, "cannot serve HTTP on %s port %d", cfg->host, cfg->port);
		return -1;
	}
	if (bound)
		*bound = lws_get_vhost_listen_port(vh);
	return 0;
}

void ws_stop(struct ws_listener *l)
{
	if (l == NULL || l->stopping)
		return;
	l->stopping = true;
	l->http.stopping = true;
	reaper_kick(l);
}

void ws_free(struct ws_listener *l)
{
	if (l == NULL)
		return;
	if (l->ctx)
		lws_context_destroy(l->ctx);
	free(l->webroot);
	free(l);
}
