/*
 * ws.c - the HTTP listener and the WebSocket transport (see ws.h and conn.h): one lws context on
 * the server's libuv loop with one vhost that serves the page's directory and upgrades /ws;
 * paths under /api and /metrics are http.c's exchanges (HTTP_MOUNT, HTTP_MOUNT_METRICS),
 * counted here until freed.
 *
 * Per connection (the conn's transport area, struct ws_conn): the wsi while lws has it, our
 * own descriptor of its socket and the reader of its frames (see "the reader" below), the
 * queue of outbufs to send (one reference each; each line of an outbuf goes as one message, one
 * message per writable callback), the input read that the connection's buffer could not take
 * yet (bounded: reading is paused until it is taken), and whether a close is under way.
 * conn_closed() is called once the reader's handle has closed, after lws's CLOSED callback or,
 * when lws let the connection go first, the listener's reaper on a later loop pass; never from
 * inside close().
 */
#include "server/net/ws.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <libwebsockets.h>

#include "server/net/framing.h"
#include "server/util/metrics.h"
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
	char bind[64];              /* the address it listens on, as given */
	char hosts[WS_HOSTS_MAX];   /* --http-host */
	int port;                   /* the bound port */
	bool listening; /* lws's log is counted, not printed */
	/* what anyone can cause, counted instead of logged (ws.h) */
	struct metric refused, errors, protocol_errors;
	char *webroot;
	/* the page's files; HTTP_MOUNT and HTTP_MOUNT_METRICS: http.c's */
	struct lws_http_mount mount, api_mount, metrics_mount;
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

/* The client's frames as they are read (RFC 6455 section 5.2): the frame being read. */
struct ws_rx {
	unsigned char hdr[14]; /* its header so far */
	size_t hlen, need;     /* bytes of it read; bytes it has (2 until the lengths are known) */
	uint64_t left;         /* payload bytes still to come */
	unsigned char mask[4];
	unsigned mi;            /* where in the mask the next payload byte is */
	int op;                 /* its opcode */
	bool fin;               /* the last frame of its message */
	bool message;           /* a data message is under way (its frames so far had no FIN) */
	bool in_payload;        /* its header is read */
	unsigned char ctl[125]; /* a control frame's payload */
	size_t clen;
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
	bool polling; /* our reader watches the socket */
	bool draining;
	bool closing, graceful;
	bool reaping;
	struct ws_conn *dead_next;
	unsigned char *tx; /* LWS_PRE bytes, then the message being sent */
	size_t tx_cap;
	/* the reader: our own descriptor of the socket (lws reads nothing once it is ours) */
	int fd;
	uv_poll_t poll;
	bool poll_open;
	struct ws_rx f;
	int close_status; /* the reason lws is given when it closes: 1000, or 1002 when the
	                     client broke the protocol */
	size_t pong_len;  /* a ping's payload to answer with a pong (pong_pending) */
	bool pong_pending;
	unsigned char pong[LWS_PRE + 125];
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

static void finish(struct ws_conn *wc);

/* Our reader's handle has closed: its descriptor goes (the socket with it, lws's being
   closed), and the conn can be freed. */
static void poll_closed(uv_handle_t *h)
{
	struct ws_conn *wc = h->data;
	close(wc->fd);
	wc->fd = -1;
	finish(wc);
}

/* The transport is done with wc: its reader, its buffers, then the connection layer frees the
   conn. */
static void finish(struct ws_conn *wc)
{
	if (wc->poll_open) { /* the rest once libuv lets go of the handle */
		wc->poll_open = false;
		uv_close((uv_handle_t *)&wc->poll, poll_closed);
		return;
	}
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

static void poll_cb(uv_poll_t *h, int status, int events);

/* Our reader reads the socket while the connection wants input and none is held. */
static void flow(struct ws_conn *wc)
{
	bool on = wc->reading && wc->rx_len == 0 && wc->poll_open && !wc->closing;
	if (on != wc->polling) {
		wc->polling = on;
		if (on)
			uv_poll_start(&wc->poll, UV_READABLE, poll_cb);
		else
			uv_poll_stop(&wc->poll);
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

/* ---- the reader: the client's frames (RFC 6455 section 5) -----------------------------
 *
 * libwebsockets 4.1 (Debian's) takes a client's frame whether it is masked or not; RFC
 * 6455 section 5.1 says a server must close the connection on an unmasked one (lws does
 * since 4.2). So once the handshake is done lws reads nothing more from the socket
 * (lws_rx_flow_control off for good) and the frames are read here, from our own descriptor
 * of it, by RFC 6455 section 5.2: each header checked (masked, no reserved bit, a known
 * opcode, a control frame short and whole, continuation only within a message), the payload
 * unmasked into the line it makes (receive()), a ping answered with its pong, a close ending
 * the input (the connection closes once its output is out). A frame that breaks the
 * protocol closes the connection at once (section 7.1.7; lws 4.1 closes it without a close
 * frame, which section 5.1 allows), counted in bitarena_ws_protocol_errors_total. lws still
 * writes (lws_write), closes, and serves HTTP.
 * A client that sends frames before it has the handshake's answer (section 4.1: it must
 * wait) may find them lost: lws read them with the handshake.
 */

static void protocol_error(struct ws_conn *wc, const char *why)
{
	metric_inc(&wc->l->protocol_errors);
	log_debug("websocket protocol error conn=%llu why=%s", (unsigned long long)wc->c->id,
	          LOG_Q(why));
	wc->close_status = LWS_CLOSE_STATUS_PROTOCOL_ERR; /* lws's reason (writable) */
	conn_close(wc->c, true);
}

/* A whole control frame of wc's: 0, or -1 when wc is closing. */
static int control(struct ws_conn *wc)
{
	struct ws_rx *f = &wc->f;
	switch (f->op) {
	case 0x9: /* ping: its pong when the socket takes it (writable); of pings that come
	             before it goes, the last is answered (RFC 6455 5.5.3 allows it) */
		memcpy(wc->pong + LWS_PRE, f->ctl, f->clen);
		wc->pong_len = f->clen;
		wc->pong_pending = true;
		if (wc->wsi != NULL)
			lws_callback_on_writable(wc->wsi);
		return 0;
	case 0xA: /* pong: nothing asked for it */
		return 0;
	default: /* close: no more input; ours goes back once our output is out */
		conn_input_eof(wc->c);
		return -1;
	}
}

/* Reads the header byte c of wc's frame; 0, or -1 when it broke the protocol (handled). */
static int header_byte(struct ws_conn *wc, unsigned char c)
{
	struct ws_rx *f = &wc->f;
	f->hdr[f->hlen++] = c;
	if (f->hlen == 2) {
		int op = f->hdr[0] & 0x0f, len7 = f->hdr[1] & 0x7f;
		bool ctl = op & 0x8;
		f->op = op;
		f->fin = f->hdr[0] & 0x80;
		if (f->hdr[0] & 0x70) {
			protocol_error(wc, "a reserved bit is set (no extension was agreed)");
			return -1;
		}
		if (!(f->hdr[1] & 0x80)) {
			protocol_error(
			        wc, "an unmasked frame (RFC 6455 5.1: clients mask every frame)");
			return -1;
		}
		if ((op > 0x2 && op < 0x8) || op > 0xA) {
			protocol_error(wc, "an unknown opcode");
			return -1;
		}
		if (ctl && (!f->fin || len7 > 125)) {
			protocol_error(wc, "a control frame fragmented or longer than 125 bytes");
			return -1;
		}
		if (!ctl && (op == 0) != f->message) {
			protocol_error(wc, op == 0 ? "a continuation frame outside a message"
			                           : "a new message within a fragmented one");
			return -1;
		}
		f->need = 2 + (len7 == 126 ? 2 : len7 == 127 ? 8 : 0) + 4;
	}
	if (f->hlen < f->need)
		return 0;
	size_t lenb = f->need - 6, at = 2;
	int len7 = f->hdr[1] & 0x7f;
	f->left = lenb == 0 ? (uint64_t)len7 : 0;
	for (size_t i = 0; i < lenb; i++)
		f->left = f->left << 8 | f->hdr[at++];
	if (lenb == 8 && (f->hdr[2] & 0x80)) {
		protocol_error(wc, "a payload length with its top bit set");
		return -1;
	}
	memcpy(f->mask, f->hdr + at, 4);
	f->mi = 0;
	f->clen = 0;
	f->in_payload = true;
	if (!(f->op & 0x8))
		f->message = !f->fin;
	return 0;
}

/*
 * n bytes of the client's frames: headers checked, payloads unmasked in place and handed
 * on. -1 when wc was closed meanwhile (a protocol error, a close, an overflow).
 */
static int frames(struct ws_conn *wc, unsigned char *p, size_t n)
{
	struct ws_rx *f = &wc->f;
	while (n > 0 || (f->in_payload && f->left == 0)) {
		if (!f->in_payload) {
			if (header_byte(wc, *p++) < 0)
				return -1;
			n--;
			continue;
		}
		size_t k = f->left < n ? (size_t)f->left : n;
		for (size_t i = 0; i < k; i++)
			p[i] ^= f->mask[f->mi++ & 3];
		f->left -= k;
		bool end = f->left == 0;
		if (f->op & 0x8) {
			memcpy(f->ctl + f->clen, p, k);
			f->clen += k;
		} else if ((k > 0 || (end && f->fin)) && receive(wc, p, k, end && f->fin) < 0) {
			conn_close(wc->c, false); /* it ignored flow control */
			return -1;
		}
		p += k;
		n -= k;
		if (end) {
			f->in_payload = false;
			f->hlen = 0;
			f->need = 2;
			if ((f->op & 0x8) && control(wc) < 0)
				return -1;
		}
		if (wc->closing || wc->c->closing)
			return -1;
	}
	return 0;
}

static void poll_cb(uv_poll_t *h, int status, int events)
{
	struct ws_conn *wc = h->data;
	unsigned char buf[WS_RX_CHUNK];
	(void)events;
	if (wc->closing || wc->c->closing)
		return;
	ssize_t n = status < 0 ? -1 : read(wc->fd, buf, sizeof buf);
	if (n < 0 && status == 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n <= 0) { /* the peer finished, or the socket failed: what it sent is handled */
		wc->reading = false;
		flow(wc);
		conn_input_eof(wc->c);
		return;
	}
	frames(wc, buf, (size_t)n);
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
	if (wc->pong_pending) {
		wc->pong_pending = false;
		if (lws_write(wc->wsi, wc->pong + LWS_PRE, wc->pong_len, LWS_WRITE_PONG) <
		    (int)wc->pong_len)
			return -1;
		if (wc->head != NULL || wc->closing)
			lws_callback_on_writable(wc->wsi);
		return 0;
	}
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

/* ---- who may ask: Host and Origin ---------------------------------------------------- */

/* Splits a Host header into its name (brackets of an IPv6 address removed) and port (80
   when it has none); false when it is no host[:port]. */
static bool host_split(const char *host, char *name, size_t len, int *port)
{
	const char *end, *colon;
	if (host[0] == '[') {
		end = strchr(host, ']');
		if (end == NULL)
			return false;
		colon = end[1] == ':' ? end + 1 : NULL;
		if (end[1] != '\0' && colon == NULL)
			return false;
		host++;
	} else {
		colon = strrchr(host, ':');
		end = colon != NULL ? colon : host + strlen(host);
	}
	size_t n = (size_t)(end - host);
	if (n == 0 || n >= len)
		return false;
	memcpy(name, host, n);
	name[n] = '\0';
	*port = 80;
	if (colon != NULL) {
		char *e;
		long p = strtol(colon + 1, &e, 10);
		if (colon[1] == '\0' || *e != '\0' || p < 1 || p > 65535)
			return false;
		*port = (int)p;
	}
	return true;
}

/* Is name (a Host's, no port) one of the machine's addresses or its host name? */
static bool own_address(const char *name)
{
	char me[256];
	if (gethostname(me, sizeof me) == 0 && strcasecmp(me, name) == 0)
		return true;
	uv_interface_address_t *ifs;
	int n;
	bool found = false;
	if (uv_interface_addresses(&ifs, &n) != 0)
		return false;
	for (int i = 0; i < n && !found; i++) {
		char a[INET6_ADDRSTRLEN] = "";
		if (ifs[i].address.address4.sin_family == AF_INET)
			uv_ip4_name(&ifs[i].address.address4, a, sizeof a);
		else
			uv_ip6_name(&ifs[i].address.address6, a, sizeof a);
		found = strcasecmp(a, name) == 0;
	}
	uv_free_interface_addresses(ifs, n);
	return found;
}

bool ws_host_ok(const char *host, const char *bind, int port, const char *hosts)
{
	char name[256], want[256];
	int p, wp;
	if (!host_split(host, name, sizeof name, &p))
		return false;
	/* --http-host: NAME (any port: a proxy forwards from its own) or NAME:PORT */
	for (const char *h = hosts != NULL ? hosts : ""; *h != '\0';) {
		size_t n = strcspn(h, ",");
		char one[256];
		if (n < sizeof one) {
			memcpy(one, h, n);
			one[n] = '\0';
			bool with_port = one[0] == '[' ? strstr(one, "]:") != NULL
			                               : strchr(one, ':') != NULL;
			if (host_split(one, want, sizeof want, &wp) &&
			    strcasecmp(want, name) == 0 && (!with_port || wp == p))
				return true;
		}
		h += n + (h[n] == ',');
	}
	/* the listener's own names, on its port */
	if (p != port)
		return false;
	if (strcasecmp(name, bind) == 0)
		return true;
	struct in_addr a4;
	struct in6_addr a6;
	bool v4 = inet_pton(AF_INET, bind, &a4) == 1,
	     v6 = !v4 && inet_pton(AF_INET6, bind, &a6) == 1;
	bool any = (v4 && a4.s_addr == htonl(INADDR_ANY)) || (v6 && IN6_IS_ADDR_UNSPECIFIED(&a6));
	bool loop = (v4 && (ntohl(a4.s_addr) >> 24) == 127) || (v6 && IN6_IS_ADDR_LOOPBACK(&a6));
	if ((any || loop) && strcasecmp(name, "localhost") == 0)
		return true;
	return any && own_address(name);
}

/* Is this request's Host one of the listener's names? */
static bool host_ok(struct ws_listener *l, struct lws *wsi)
{
	char host[256];
	return lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) > 0 &&
	       ws_host_ok(host, l->bind, l->port, l->hosts);
}

/* Is this handshake for /ws, to one of our names, from the allowed origin? */
static bool handshake_ok(struct ws_listener *l, struct lws *wsi)
{
	char uri[16], origin[WS_ORIGIN_MAX], host[WS_ORIGIN_MAX], own[WS_ORIGIN_MAX + 8];
	if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) <= 0 || strcmp(uri, "/ws") != 0)
		return false;
	if (!host_ok(l, wsi))
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

/* A request refused: counted; a line only at --log-level debug. */
static int refuse(struct ws_listener *l, struct lws *wsi, const char *what)
{
	char host[128] = "", peer[64] = "";
	metric_inc(&l->refused);
	if (log_enabled(LOG_LEVEL_DEBUG)) {
		lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST);
		lws_get_peer_simple(wsi, peer, sizeof peer);
		host[text_cut(host, 100)] = '\0';
		log_debug("http request refused what=%s peer=%s host=%s", LOG_Q(what), LOG_Q(peer),
		          LOG_Q(host));
	}
	return -1;
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
	wc->close_status = LWS_CLOSE_STATUS_NORMAL;
	wc->f.need = 2;
	/* from now on the frames are ours to read (see the reader above) */
	wc->fd = fcntl(lws_get_socket_fd(wsi), F_DUPFD_CLOEXEC, 0);
	if (wc->fd < 0 || uv_poll_init(l->hub->loop, &wc->poll, wc->fd) != 0) {
		if (wc->fd >= 0)
			close(wc->fd);
		free(c); /* nothing of it is known to anyone yet */
		return -1;
	}
	wc->poll.data = wc;
	wc->poll_open = true;
	lws_rx_flow_control(wsi, 0);
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
		if (l->stopping)
			return -1;
		return handshake_ok(l, wsi) ? 0 : refuse(l, wsi, "a WebSocket handshake");
	case LWS_CALLBACK_FILTER_HTTP_CONNECTION:
		if (host_ok(l, wsi))
			return 0;
		lws_return_http_status(wsi, 421, "not a name of this server");
		return refuse(l, wsi, "a request");
	case LWS_CALLBACK_ESTABLISHED:
		return opened(l, wsi, pss);
	case LWS_CALLBACK_RECEIVE:
		/* lws read a frame with the handshake, before the reader took the socket: the
		   client did not wait for the answer (RFC 6455 4.1), and whether the frame was
		   masked is not known here */
		if (pss->wc != NULL && !pss->wc->closing)
			protocol_error(pss->wc, "a frame sent before the handshake's answer");
		return 0;
	case LWS_CALLBACK_SERVER_WRITEABLE:
		if (pss->wc == NULL)
			return -1;
		if (writable(pss->wc) < 0) {
			lws_close_reason(wsi, (enum lws_close_status)pss->wc->close_status, NULL,
			                 0);
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

/* The listener whose counts lws's log goes to: lws's log is the process's, not a context's. */
static struct ws_listener *log_to;

/*
 * Once the listener is up, what lws logs is a request it could not take ("Ran out of header
 * data space", a bad frame, ...), which anyone can cause as often as they like: counted,
 * and printed only at --log-level debug. Before (starting: a port it cannot bind), an error.
 */
static void lws_log(int level, const char *line)
{
	size_t n = strlen(line);
	while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		n--;
	char what[LOG_Q_MAX];
	snprintf(what, sizeof what, "%.*s", (int)n, line);
	if (log_to != NULL && log_to->listening) {
		metric_inc(&log_to->errors);
		log_debug("libwebsockets said what=%s", LOG_Q(what));
		return;
	}
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
	metric_init(&l->refused, METRIC_COUNTER, "bitarena_http_refused_total",
	            "HTTP requests and WebSocket handshakes refused: a Host that is none of the "
	            "listener's names, a WebSocket path or Origin not allowed");
	metric_init(&l->errors, METRIC_COUNTER, "bitarena_http_errors_total",
	            "what libwebsockets could not take and logged: malformed or oversized "
	            "requests, frames that break the protocol");
	metric_init(&l->protocol_errors, METRIC_COUNTER, "bitarena_ws_protocol_errors_total",
	            "WebSocket connections closed for a frame that breaks RFC 6455 (unmasked, a "
	            "reserved bit, an unknown opcode, a bad control frame or continuation)");
	if ((cfg->origin && strlen(cfg->origin) >= sizeof l->origin) ||
	    (cfg->hosts && strlen(cfg->hosts) >= sizeof l->hosts) ||
	    strlen(cfg->host) >= sizeof l->bind) {
		snprintf(why, len, "--http-origin, --http-host or --http is too long");
		ws_free(l);
		return -1;
	}
	snprintf(l->origin, sizeof l->origin, "%s", cfg->origin ? cfg->origin : "");
	snprintf(l->hosts, sizeof l->hosts, "%s", cfg->hosts ? cfg->hosts : "");
	snprintf(l->bind, sizeof l->bind, "%s", cfg->host);
	l->http = (struct http_side){.hub = hub, .sndbuf = cfg->sndbuf, .idle = http_idle, .ud = l};
	l->metrics_mount = (struct lws_http_mount){
	        .mountpoint = HTTP_MOUNT_METRICS,
	        .mountpoint_len = sizeof HTTP_MOUNT_METRICS - 1,
	        .origin = HTTP_PROTOCOL,
	        .origin_protocol = LWSMPRO_CALLBACK,
	};
	l->api_mount = (struct lws_http_mount){
	        .mount_next = &l->metrics_mount,
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
	log_to = l;
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
	l->port = lws_get_vhost_listen_port(vh);
	if (bound)
		*bound = l->port;
	l->listening = true;
	if (cfg->metrics != NULL) { /* they live as long as l, which the server frees last */
		metrics_register(cfg->metrics, &l->refused);
		metrics_register(cfg->metrics, &l->errors);
		metrics_register(cfg->metrics, &l->protocol_errors);
	}
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
	if (log_to == l)
		log_to = NULL;
	free(l->webroot);
	free(l);
}
