/*
 * conn.c - the connection layer (see conn.h): opening and freeing
 * connections, input through the framer, the fairness pump, output against
 * the cap, closing, and the hub's shutdown.
 */
#include "server/conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/text.h"

static void pump_cb(uv_idle_t *h);

/* ---- the hub ---------------------------------------------------------------------- */

int conn_hub_init(struct conn_hub *h, uv_loop_t *loop, size_t out_soft,
                  const struct conn_events *ev)
{
	memset(h, 0, sizeof *h);
	h->loop = loop;
	h->out_soft = out_soft ? out_soft : CONN_OUT_SOFT;
	h->ev = *ev;
	int r;
	if ((r = uv_idle_init(loop, &h->pump)) != 0)
		return r;
	h->pump.data = h;
	if ((r = uv_timer_init(loop, &h->stop_timer)) != 0) {
		uv_close((uv_handle_t *)&h->pump, NULL);
		return r;
	}
	h->stop_timer.data = h;
	return 0;
}

static void close_if_open(uv_handle_t *h)
{
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

struct conn *conn_find(struct conn_hub *h, uint64_t id)
{
	for (struct conn *c = h->conns; c != NULL; c = c->next)
		if (c->id == id && conn_alive(c))
			return c;
	return NULL;
}

/* ---- the pump --------------------------------------------------------------------- */

static void pump_add(struct conn *c)
{
	struct conn_hub *h = c->hub;
	if (c->in_pump || c->closing)
		return;
	c->in_pump = true;
	c->pump_next = NULL;
	if (h->pump_tail)
		h->pump_tail->pump_next = c;
	else
		h->pump_head = c;
	h->pump_tail = c;
	if (!h->stopping && !uv_is_active((uv_handle_t *)&h->pump))
		uv_idle_start(&h->pump, pump_cb);
}

static void pump_remove(struct conn *c)
{
	struct conn_hub *h = c->hub;
	if (!c->in_pump)
		return;
	struct conn **pp = &h->pump_head, *prev = NULL;
	while (*pp != NULL && *pp != c) {
		prev = *pp;
		pp = &(*pp)->pump_next;
	}
	if (*pp == c) {
		*pp = c->pump_next;
		if (h->pump_tail == c)
			h->pump_tail = prev;
	}
	c->in_pump = false;
	c->pump_next = NULL;
}

static void read_pause(struct conn *c)
{
	if (c->reading) {
		c->t->pause(c);
		c->reading = false;
	}
}

/* The pending input block of c, allocated when missing; NULL out of memory. */
static struct conn_in *in_block(struct conn *c)
{
	if (c->in == NULL) {
		c->in = malloc(sizeof *c->in);
		if (c->in != NULL) {
			c->in_len = 0;
			c->fr.line = c->in->line; /* the framer holds no line: framer_idle() */
		}
	}
	return c->in;
}

/* An idle connection keeps no input block. */
static void in_trim(struct conn *c)
{
	if (c->in != NULL && c->in_len == 0 && framer_idle(&c->fr)) {
		free(c->in);
		c->in = NULL;
		c->fr.line = NULL;
	}
}

/* One framer event of c that is not a line. */
static void frame_other(struct conn *c, enum frame_event fe)
{
	const struct conn_events *ev = &c->hub->ev;
	if (fe == FRAME_TELNET) {
		unsigned char answer[3];
		size_t n = telnet_answer(c->fr.tn_cmd, c->fr.tn_opt, answer);
		if (n > 0 && c->t->telnet && ev->on_telnet != NULL)
			ev->on_telnet(ev->ud, c, answer, n);
	} else {
		ev->on_bad_frame(ev->ud, c, fe);
	}
}

/*
 * Handles up to CONN_LINES_PER_PASS events of c's buffered input. Leaves c in
 * the pump when more is left and neither its output is backed up nor its
 * input held.
 */
static void conn_process(struct conn *c)
{
	const struct conn_events *ev = &c->hub->ev;
	size_t off = 0;
	int lines = 0;
	bool waits = false;
	while (off < c->in_len && lines < CONN_LINES_PER_PASS && !c->closing) {
		if (conn_slow(c) || c->holds > 0) {
			waits = true;
			break;
		}
		size_t used = 0;
		enum frame_event fe = framer_feed(&c->fr, c->in->raw + off, c->in_len - off, &used);
		off += used;
		if (fe == FRAME_LINE) {
			lines++;
			ev->on_line(ev->ud, c, c->fr.line, c->fr.linelen);
		} else if (fe != FRAME_NEED_MORE) {
			lines++;
			frame_other(c, fe);
		}
	}
	if (c->closing)
		return;
	if (off > 0) {
		memmove(c->in->raw, c->in->raw + off, c->in_len - off);
		c->in_len -= off;
	}
	if (c->in_len > 0 && !waits)
		pump_add(c);
	if (c->in_len == 0 && c->eof) {
		conn_close(c, true);
		return;
	}
	in_trim(c);
	if (!c->reading && !c->eof && c->in_len < CONN_IN_CAP)
		c->reading = c->t->resume(c) == 0;
}

/*
 * One pass: each connection queued when the pass starts gets one turn. Those
 * queued during the pass (again, or newly doomed) wait for the next pass, so
 * no list is walked while it changes.
 */
static void pump_cb(uv_idle_t *idle)
{
	struct conn_hub *h = idle->data;
	size_t n = 0;
	for (struct conn *c = h->pump_head; c != NULL; c = c->pump_next)
		n++;
	while (n-- > 0 && h->pump_head != NULL) {
		struct conn *c = h->pump_head;
		h->pump_head = c->pump_next;
		if (h->pump_head == NULL)
			h->pump_tail = NULL;
		c->pump_next = NULL;
		c->in_pump = false;
		if (c->doomed)
			conn_close(c, false);
		else if (!c->closing)
			conn_process(c);
	}
	if (h->pump_head == NULL)
		uv_idle_stop(&h->pump);
}

/* ---- connections: for transports ---------------------------------------------------- */

struct conn *conn_new(struct conn_hub *h, const struct conn_transport *t, size_t tsize)
{
	struct conn *c = calloc(1, sizeof *c + tsize);
	if (c == NULL)
		return NULL;
	c->hub = h;
	c->t = t;
	c->tdata = c->tarea;
	framer_init(&c->fr, NULL); /* its line storage comes with the input block */
	return c;
}

int conn_open(struct conn *c, const char *peer)
{
	struct conn_hub *h = c->hub;
	if (h->stopping)
		return -1;
	c->next = h->conns;
	if (h->conns)
		h->conns->prev = c;
	h->conns = c;
	c->listed = true;
	c->id = ++h->next_id;
	snprintf(c->peer, sizeof c->peer, "%s", peer ? peer : "");
	log_info("conn %llu from %s", (unsigned long long)c->id, c->peer);
	h->ev.on_open(h->ev.ud, c);
	if (!c->closing)
		c->reading = c->t->resume(c) == 0;
	return 0;
}

void conn_input_space(struct conn *c, char **buf, size_t *len)
{
	if (c->closing || in_block(c) == NULL) {
		*buf = NULL;
		*len = 0;
		return;
	}
	*buf = (char *)c->in->raw + c->in_len;
	*len = CONN_IN_CAP - c->in_len;
}

static void conn_doom(struct conn *c);

void conn_input(struct conn *c, size_t n)
{
	if (c->closing)
		return;
	if (c->in == NULL) { /* no block could be had: nothing can be read */
		log_info("conn %llu: out of memory for its input; dropped",
		         (unsigned long long)c->id);
		read_pause(c);
		conn_doom(c);
		return;
	}
	c->in_len += n;
	if (c->in_len >= CONN_IN_CAP)
		read_pause(c);
	if (!c->in_pump)
		conn_process(c);
}

size_t conn_input_copy(struct conn *c, const void *data, size_t n)
{
	if (c->closing || c->eof || n == 0)
		return 0;
	if (in_block(c) == NULL) {
		conn_input(c, 0); /* out of memory: dropped */
		return 0;
	}
	size_t room = CONN_IN_CAP - c->in_len;
	if (n > room)
		n = room;
	memcpy(c->in->raw + c->in_len, data, n);
	conn_input(c, n);
	return n;
}

void conn_input_eof(struct conn *c)
{
	if (c->closing || c->eof)
		return;
	c->eof = true;
	read_pause(c);
	if (c->in == NULL) { /* nothing pending, no line half read */
		conn_close(c, true);
		return;
	}
	/* an unterminated last line still counts (an extra empty line is ignored) */
	if (c->in_len < CONN_IN_CAP)
		c->in->raw[c->in_len++] = '\n';
	if (!c->in_pump)
		conn_process(c);
}

void conn_doom(struct conn *c)
{
	if (c->doomed || c->closing)
		return;
	c->doomed = true;
	pump_add(c);
}

void conn_wrote(struct conn *c, int status)
{
	if (c->closing)
		return;
	if (status < 0) {
		conn_doom(c);
		return;
	}
	if (conn_backlog(c) <= c->hub->out_soft / 2) {
		const struct conn_events *ev = &c->hub->ev;
		if (ev->on_drain != NULL)
			ev->on_drain(ev->ud, c);
		if (c->in_len > 0)
			pump_add(c);
	}
}

void conn_closed(struct conn *c)
{
	struct conn_hub *h = c->hub;
	if (c->listed) {
		if (c->prev)
			c->prev->next = c->next;
		else
			h->conns = c->next;
		if (c->next)
			c->next->prev = c->prev;
	}
	free(c->in);
	free(c);
	if (h->stopping && h->conns == NULL)
		close_if_open((uv_handle_t *)&h->stop_timer);
}

/* ---- connections: for the layer above ------------------------------------------------- */

size_t conn_backlog(const struct conn *c)
{
	return c->t->backlog(c);
}

bool conn_slow(const struct conn *c)
{
	return conn_backlog(c) > c->hub->out_soft;
}

void conn_send(struct conn *c, struct outbuf *b)
{
	if (b == NULL || c->closing || c->doomed)
		return;
	if (c->t->write(c, b) != 0) {
		conn_doom(c);
		return;
	}
	if (conn_backlog(c) > c->hub->out_soft * CONN_OUT_HARD_FACTOR) {
		log_info("conn %llu: does not read its output; dropped", (unsigned long long)c->id);
		conn_doom(c);
	}
}

void conn_hold(struct conn *c)
{
	c->holds++;
}

void conn_release(struct conn *c)
{
	if (c->holds > 0)
		c->holds--;
	if (c->holds == 0 && !c->closing)
		pump_add(c);
}

void conn_close(struct conn *c, bool graceful)
{
	if (c->closing)
		return;
	const struct conn_events *ev = &c->hub->ev;
	if (c->listed && ev->on_close != NULL)
		ev->on_close(ev->ud, c);
	c->closing = true;
	c->data = NULL;
	pump_remove(c);
	c->reading = false;
	c->t->close(c, graceful); /* last: the transport frees c later (conn_closed) */
}

/* ---- shutdown --------------------------------------------------------------------- */

/* Output that did not drain in time: every connection still there is cut. */
static void stop_timer_cb(uv_timer_t *t)
{
	struct conn_hub *h = t->data;
	struct conn *c = h->conns;
	while (c != NULL) {
		struct conn *next = c->next; /* c is freed later, never here */
		c->t->close(c, false);
		c = next;
	}
	close_if_open((uv_handle_t *)t);
}

void conn_hub_stop(struct conn_hub *h)
{
	if (h->stopping)
		return;
	h->stopping = true;
	close_if_open((uv_handle_t *)&h->pump);
	for (struct conn *c = h->pump_head; c != NULL;) {
		struct conn *next = c->pump_next;
		c->in_pump = false;
		c->pump_next = NULL;
		c = next;
	}
	h->pump_head = h->pump_tail = NULL;
	for (struct conn *c = h->conns; c != NULL; c = c->next)
		conn_close(c, true);
	if (h->conns == NULL)
		close_if_open((uv_handle_t *)&h->stop_timer);
	else
		uv_timer_start(&h->stop_timer, stop_timer_cb, CONN_STOP_MS, 0);
}
