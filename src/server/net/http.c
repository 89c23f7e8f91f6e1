/*
 * http.c - HTTP exchanges as connections (see http.h): the libwebsockets protocol the
 * listener (ws.c) mounts at HTTP_MOUNT, and the "http" transport of conn.h.
 *
 * Per exchange (the conn's transport area, struct http_conn): the wsi while lws has it,
 * the response head once answered (sent first), the queue of outbufs to send (one
 * reference each; written in pieces of at most HTTP_CHUNK bytes, several small ones in one
 * piece, while the socket takes them, so lws never holds more than one piece of its own),
 * and whether a close is under way. As in ws.c, conn_closed() is called from lws's CLOSED_HTTP
 * callback, or, when lws let the wsi go first, from a uv_idle reaper on a later loop pass, never
 * from inside close().
 */
#include "server/net/http_lws.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "server/util/text.h"

#define HTTP_CHUNK     16384 /* bytes written per lws_write() at most */
#define HTTP_BATCH     64    /* outbufs in one lws_write() at most */
#define HTTP_HEAD_ROOM 2048  /* a response head's bytes at most */

struct http_out {
	struct outbuf *b;
	size_t off; /* bytes of b already sent */
	struct http_out *next;
};

struct http_conn {
	struct conn *c;
	struct http_side *side;
	struct lws *wsi;                /* NULL once lws has let it go */
	const struct http_request *req; /* while it opens */
	unsigned char *head;            /* LWS_PRE bytes, then the head (NULL: not answered) */
	size_t head_len;
	bool head_sent;
	struct http_out *qh, *qt;
	size_t backlog;
	bool closing, graceful, reaping;
	bool sending; /* in send_queue() (a write from a drain callback only queues) */
};

/* What a piece is copied into for lws_write() (LWS_PRE bytes before it): one for every
   exchange, as lws_write() has sent or copied it on return and the loop is one thread. */
static unsigned char tx[LWS_PRE + HTTP_CHUNK];

struct http_pss {
	struct http_conn *hc;
};

static const struct conn_transport http_transport;

static struct http_conn *hc_of(const struct conn *c)
{
	return c->tdata;
}

bool http_is(const struct conn *c)
{
	return c != NULL && c->t == &http_transport;
}

const struct http_request *http_request_of(const struct conn *c)
{
	return http_is(c) ? hc_of(c)->req : NULL;
}

/* ---- freeing ------------------------------------------------------------------------ */

static void drop_queue(struct http_conn *hc)
{
	while (hc->qh != NULL) {
		struct http_out *o = hc->qh;
		hc->qh = o->next;
		outbuf_unref(o->b);
		free(o);
	}
	hc->qt = NULL;
	hc->backlog = 0;
}

/* The transport is done with hc: its buffers go, then the connection layer frees the conn. */
static void finish(struct http_conn *hc)
{
	struct http_side *side = hc->side;
	drop_queue(hc);
	free(hc->head);
	hc->head = NULL;
	conn_closed(hc->c);
	if (--side->live == 0 && side->stopping && side->idle != NULL)
		side->idle(side->ud);
}

static void reaped(uv_handle_t *h)
{
	free(h);
}

static void reap_cb(uv_idle_t *h)
{
	struct http_conn *hc = h->data;
	uv_close((uv_handle_t *)h, reaped);
	finish(hc);
}

/* hc's conn is freed on the next loop pass (lws let the wsi go already). */
static void reap_later(struct http_conn *hc)
{
	if (hc->reaping)
		return;
	uv_idle_t *h = malloc(sizeof *h);
	if (h == NULL) { /* nothing better to do than to leak the connection's memory */
		log_error("http: out of memory closing a connection");
		return;
	}
	hc->reaping = true;
	uv_idle_init(hc->c->hub->loop, h);
	h->data = hc;
	uv_idle_start(h, reap_cb);
}

/* ---- output ------------------------------------------------------------------------- */

/*
 * Writes the queue while the socket takes it, as many queued bytes in one piece as it holds
 * (a list's lines are small: one write for many); each outbuf is told written once lws has
 * it. -1 on a failed write.
 */
static int send_queue(struct http_conn *hc)
{
	if (hc->sending) /* inside a conn_wrote() of ours: the loop below takes it */
		return 0;
	hc->sending = true;
	int r = 0;
	while (hc->qh != NULL && !lws_send_pipe_choked(hc->wsi)) {
		struct outbuf *sent[HTTP_BATCH];
		size_t n = 0, nsent = 0;
		while (hc->qh != NULL && n < HTTP_CHUNK && nsent < HTTP_BATCH) {
			struct http_out *o = hc->qh;
			size_t k = o->b->len - o->off;
			if (k > HTTP_CHUNK - n)
				k = HTTP_CHUNK - n;
			memcpy(tx + LWS_PRE + n, o->b->data + o->off, k);
			n += k;
			o->off += k;
			hc->backlog -= k;
			if (o->off < o->b->len)
				break;
			hc->qh = o->next;
			if (hc->qh == NULL)
				hc->qt = NULL;
			sent[nsent++] = o->b; /* our reference, dropped below */
			free(o);
		}
		int w = n > 0 ? lws_write(hc->wsi, tx + LWS_PRE, n, LWS_WRITE_HTTP) : 0;
		for (size_t i = 0; i < nsent; i++) {
			conn_wrote(hc->c, sent[i], w < (int)n ? UV_EPIPE : 0);
			outbuf_unref(sent[i]);
		}
		if (w < (int)n) {
			r = -1;
			break;
		}
	}
	hc->sending = false;
	return r;
}

/*
 * Writes what the socket takes: the head first, then the queue, a piece at a time. -1 on
 * a failed write, or once a graceful close has sent everything (lws then closes the wsi).
 */
static int pump(struct http_conn *hc)
{
	if (hc->head == NULL)
		return hc->closing ? -1 : 0; /* nothing answered: closed without a word */
	if (!hc->head_sent) {
		if (lws_write(hc->wsi, hc->head + LWS_PRE, hc->head_len, LWS_WRITE_HTTP_HEADERS) <
		    (int)hc->head_len)
			return -1;
		hc->head_sent = true;
	}
	if (send_queue(hc) < 0)
		return -1;
	if (hc->qh == NULL && hc->closing)
		return -1;
	if (hc->qh != NULL)
		lws_callback_on_writable(hc->wsi);
	return 0;
}

int http_respond(struct conn *c, const struct http_head *h)
{
	struct http_conn *hc = http_is(c) ? hc_of(c) : NULL;
	if (hc == NULL || hc->head != NULL || hc->wsi == NULL || hc->closing)
		return -1;
	unsigned char *buf = malloc(LWS_PRE + HTTP_HEAD_ROOM);
	if (buf == NULL)
		return -1;
	unsigned char *start = buf + LWS_PRE, *p = start, *end = start + HTTP_HEAD_ROOM - 1;
	/* no length: lws says "connection: close"; with one, we do (one exchange each) */
	bool bad = lws_add_http_common_headers(hc->wsi, (unsigned)h->status, h->type,
	                                       h->length < 0 ? LWS_ILLEGAL_HTTP_CONTENT_LEN
	                                                     : (lws_filepos_t)h->length,
	                                       &p, end) != 0;
	if (!bad && h->length >= 0)
		bad = lws_add_http_header_by_token(hc->wsi, WSI_TOKEN_CONNECTION,
		                                   (const unsigned char *)"close", 5, &p, end) != 0;
	for (int i = 0; !bad && i < HTTP_HEADERS && h->headers[i][0] != NULL; i++) {
		char name[64];
		snprintf(name, sizeof name, "%s:", h->headers[i][0]);
		bad = lws_add_http_header_by_name(hc->wsi, (const unsigned char *)name,
		                                  (const unsigned char *)h->headers[i][1],
		                                  (int)strlen(h->headers[i][1]), &p, end) != 0;
	}
	if (!bad)
		bad = lws_finalize_http_header(hc->wsi, &p, end) != 0;
	if (bad) {
		free(buf);
		return -1;
	}
	hc->head = buf;
	hc->head_len = (size_t)(p - start);
	lws_callback_on_writable(hc->wsi);
	return 0;
}

static int http_write(struct conn *c, struct outbuf *b)
{
	struct http_conn *hc = hc_of(c);
	if (hc->wsi == NULL || hc->head == NULL) /* a body before its head cannot go */
		return UV_EPIPE;
	struct http_out *o = malloc(sizeof *o);
	if (o == NULL)
		return UV_ENOMEM;
	o->b = outbuf_ref(b);
	o->off = 0;
	o->next = NULL;
	if (hc->qt)
		hc->qt->next = o;
	else
		hc->qh = o;
	hc->qt = o;
	hc->backlog += b->len;
	/* Nothing was waiting: what the socket takes goes now, as TCP writes do, instead of
	   a writable callback (a poll and a wakeup) for each state to each of a game's
	   thousand readers; the rest when the socket is writable. */
	if (hc->head_sent && hc->qh == o && !hc->closing && send_queue(hc) < 0)
		return UV_EPIPE;
	if (hc->qh != NULL)
		lws_callback_on_writable(hc->wsi);
	return 0;
}

static size_t http_backlog(const struct conn *c)
{
	return hc_of(c)->backlog;
}

/* No input is read after the request. */
static void http_pause(struct conn *c)
{
	(void)c;
}

static int http_resume(struct conn *c)
{
	(void)c;
	return 0;
}

static void http_close(struct conn *c, bool graceful)
{
	struct http_conn *hc = hc_of(c);
	if (hc->closing && (graceful || !hc->graceful))
		return;
	hc->closing = true;
	hc->graceful = graceful;
	if (hc->wsi == NULL) {
		reap_later(hc);
		return;
	}
	if (graceful) {
		lws_callback_on_writable(hc->wsi);
	} else {
		drop_queue(hc);
		lws_set_timeout(hc->wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC);
	}
}

static const struct conn_transport http_transport = {
        .name = "http",
        .write = http_write,
        .backlog = http_backlog,
        .pause = http_pause,
        .resume = http_resume,
        .close = http_close,
};

/* ---- the request ---------------------------------------------------------------------- */

/* The method and the path (the token lws keeps it in is the method's). */
static void read_method(struct lws *wsi, struct http_request *rq)
{
	static const struct {
		enum lws_token_indexes tok;
		enum http_method m;
	} methods[] = {
	        {WSI_TOKEN_GET_URI, HTTP_GET},         {WSI_TOKEN_HEAD_URI, HTTP_HEAD},
	        {WSI_TOKEN_OPTIONS_URI, HTTP_OPTIONS}, {WSI_TOKEN_POST_URI, HTTP_OTHER},
	        {WSI_TOKEN_PUT_URI, HTTP_OTHER},       {WSI_TOKEN_PATCH_URI, HTTP_OTHER},
	        {WSI_TOKEN_DELETE_URI, HTTP_OTHER},
	};
	rq->method = HTTP_OTHER;
	for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
		int n = lws_hdr_total_length(wsi, methods[i].tok);
		if (n <= 0)
			continue;
		rq->method = methods[i].m;
		if (n >= (int)sizeof rq->path ||
		    lws_hdr_copy(wsi, rq->path, sizeof rq->path, methods[i].tok) < 0)
			rq->too_long = true;
		return;
	}
}

/* The arguments, each as lws decoded it, joined by '&'. */
static void read_query(struct lws *wsi, struct http_request *rq)
{
	size_t at = 0;
	char arg[HTTP_QUERY_MAX];
	for (int i = 0;; i++) {
		int n = lws_hdr_copy_fragment(wsi, arg, sizeof arg, WSI_TOKEN_HTTP_URI_ARGS, i);
		if (n <= 0) {
			if (lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_URI_ARGS, i) > 0)
				rq->too_long = true; /* there, but longer than the room */
			return;
		}
		if (at + (at > 0) + (size_t)n >= sizeof rq->query) {
			rq->too_long = true;
			return;
		}
		if (at > 0)
			rq->query[at++] = '&';
		memcpy(rq->query + at, arg, (size_t)n + 1);
		at += (size_t)n;
	}
}

/* A new exchange: its conn, opened (the layer above reads rq in on_open). */
static int begin(struct http_side *side, struct lws *wsi, struct http_pss *pss)
{
	if (side->stopping)
		return -1;
	struct http_request *rq = calloc(1, sizeof *rq);
	struct conn *c =
	        rq != NULL ? conn_new(side->hub, &http_transport, sizeof(struct http_conn)) : NULL;
	if (c == NULL) {
		free(rq);
		return -1;
	}
	read_method(wsi, rq);
	read_query(wsi, rq);
	if (lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_ACCEPT) < (int)sizeof rq->accept)
		lws_hdr_copy(wsi, rq->accept, sizeof rq->accept, WSI_TOKEN_HTTP_ACCEPT);
	struct http_conn *hc = hc_of(c);
	hc->c = c;
	hc->side = side;
	hc->wsi = wsi;
	hc->req = rq;
	pss->hc = hc;
	side->live++;
	if (side->sndbuf > 0) /* --sndbuf, as for TCP connections (a slow reader shows sooner) */
		setsockopt(lws_get_socket_fd(wsi), SOL_SOCKET, SO_SNDBUF, &side->sndbuf,
		           sizeof side->sndbuf);
	/* the exchange lasts as long as its answer takes (a stream: until the game ends) */
	lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0);
	char peer[CONN_PEER_MAX];
	lws_get_peer_simple(wsi, peer, sizeof peer);
	int r = conn_open(c, peer);
	hc->req = NULL;
	free(rq);
	if (r != 0) { /* the server is stopping */
		pss->hc = NULL;
		hc->wsi = NULL;
		finish(hc);
		return -1;
	}
	return 0;
}

/* lws let the wsi go: the conn closes (as at EOF) unless it is closing already. */
static void closed(struct http_conn *hc)
{
	hc->wsi = NULL;
	drop_queue(hc);
	if (hc->closing)
		finish(hc);
	else
		conn_input_eof(hc->c);
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
	struct http_pss *pss = user;
	const struct lws_protocols *pr = lws_get_protocol(wsi);
	struct http_side *side = pr != NULL ? pr->user : NULL;
	switch (reason) {
	case LWS_CALLBACK_HTTP:
		return side == NULL || pss == NULL ? -1 : begin(side, wsi, pss);
	case LWS_CALLBACK_HTTP_BODY:
	case LWS_CALLBACK_HTTP_BODY_COMPLETION:
		return 0; /* a body is not read (only GET is served) */
	case LWS_CALLBACK_HTTP_WRITEABLE:
		if (pss == NULL || pss->hc == NULL)
			return -1;
		return pump(pss->hc) < 0 ? -1 : 0;
	case LWS_CALLBACK_CLOSED_HTTP:
		if (pss != NULL && pss->hc != NULL) {
			struct http_conn *hc = pss->hc;
			pss->hc = NULL;
			closed(hc);
		}
		return 0;
	default:
		return lws_callback_http_dummy(wsi, reason, user, in, len);
	}
}

struct lws_protocols http_protocol(struct http_side *side)
{
	return (struct lws_protocols){
	        .name = HTTP_PROTOCOL,
	        .callback = callback,
	        .per_session_data_size = sizeof(struct http_pss),
	        .user = side,
	};
}
