/*
 * conn.c - the connection layer (see conn.h): opening and freeing
 * connections, the limits at the door, input through the framer, the
 * fairness pump, deferred input, output against its limits, the sweep of
 * timeouts, closing, and the hub's shutdown.
 */
#include "server/net/conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/util/text.h"

static void pump_cb(uv_idle_t *h);
static void sweep_cb(uv_timer_t *t);
static void defer_cb(uv_timer_t *t);

/* ---- the hub ---------------------------------------------------------------------- */

void conn_limits_default(struct conn_limits *l)
{
	*l = (struct conn_limits){.out_soft = CONN_OUT_SOFT,
	                          .out_hard = CONN_OUT_HARD_FACTOR * (size_t)CONN_OUT_SOFT,
	                          .out_soft_ms = CONN_OUT_SOFT_MS,
	                          .out_total = CONN_OUT_TOTAL,
	                          .max_clients = CONN_MAX_CLIENTS,
	                          .max_per_addr = CONN_MAX_PER_ADDR,
	                          .login_ms = CONN_LOGIN_MS,
	                          .idle_ms = CONN_IDLE_MS};
}

/* How often the sweep looks: a quarter of the shortest deadline, 10 ms to 1 s. */
static uint64_t sweep_period(const struct conn_limits *l)
{
	uint64_t p = 1000;
	const uint64_t ds[] = {l->out_soft_ms, l->login_ms, l->idle_ms};
	for (size_t i = 0; i < 3; i++)
		if (ds[i] > 0 && ds[i] / 4 < p)
			p = ds[i] / 4;
	return p < 10 ? 10 : p;
}

/* The sweep runs while some limit has a time: every sweep_period(). */
static void sweep_arm(struct conn_hub *h)
{
	if (h->lim.out_soft_ms > 0 || h->lim.login_ms > 0 || h->lim.idle_ms > 0) {
		uint64_t p = sweep_period(&h->lim);
		uv_timer_start(&h->sweep_timer, sweep_cb, p, p);
	} else {
		uv_timer_stop(&h->sweep_timer);
	}
}

/* ---- metrics -------------------------------------------------------------------------- */

static const char *const kind_names[CONN_KINDS] = {
        [CONN_KIND_TCP] = "tcp",         [CONN_KIND_WS] = "ws",       [CONN_KIND_HTTP] = "http",
        [CONN_KIND_PLAYTAK] = "playtak", [CONN_KIND_RELAY] = "relay", [CONN_KIND_OTHER] = "other"};

static void metrics_setup(struct conn_metrics *m)
{
	static const char *const drops[CONN_DROPS] = {[CONN_DROP_OUT_HARD] = "out-hard",
	                                              [CONN_DROP_OUT_TOTAL] = "out-total",
	                                              [CONN_DROP_OUT_SOFT] = "out-soft-seconds"};
	for (int k = 0; k < CONN_KINDS; k++) {
		metric_init_labelled(&m->open[k], METRIC_GAUGE, "bitarena_connections",
		                     "connections open, by transport (tcp: the text protocol, "
		                     "telnet included; ws: the page's WebSocket; http: HTTP API "
		                     "requests; playtak: the playtak port; relay: other nodes' "
		                     "clients in a cluster)",
		                     "transport", kind_names[k]);
		metric_init_labelled(&m->accepted[k], METRIC_COUNTER,
		                     "bitarena_connections_accepted_total",
		                     "connections accepted (not refused at the door), by transport",
		                     "transport", kind_names[k]);
	}
	metric_init_labelled(&m->refused[0], METRIC_COUNTER, "bitarena_connections_refused_total",
	                     "connections refused at the door, by the limit: --max-clients, "
	                     "--max-per-address",
	                     "limit", "max-clients");
	metric_init_labelled(&m->refused[1], METRIC_COUNTER, "bitarena_connections_refused_total",
	                     NULL, "limit", "max-per-address");
	metric_init(&m->out_bytes, METRIC_COUNTER, "bitarena_output_bytes_total",
	            "bytes of output the transports took from the server (written, or in the "
	            "socket's buffer)");
	for (int d = 0; d < CONN_DROPS; d++)
		metric_init_labelled(
		        &m->drops[d], METRIC_COUNTER, "bitarena_output_drops_total",
		        "slow readers dropped, by the limit their unread output passed: "
		        "the hard cap (16 x --out-cap), --out-total, --out-cap for "
		        "--out-cap-seconds",
		        "limit", drops[d]);
}

void conn_hub_register_metrics(struct conn_hub *h, struct metrics *r)
{
	struct conn_metrics *m = &h->met;
	for (int k = 0; k < CONN_KINDS; k++)
		metrics_register(r, &m->open[k]);
	for (int k = 0; k < CONN_KINDS; k++)
		metrics_register(r, &m->accepted[k]);
	for (int i = 0; i < 2; i++)
		metrics_register(r, &m->refused[i]);
	metrics_register(r, &m->out_bytes);
	for (int d = 0; d < CONN_DROPS; d++)
		metrics_register(r, &m->drops[d]);
}

static unsigned char kind_of(const struct conn_transport *t)
{
	for (unsigned char k = 0; k < CONN_KIND_OTHER; k++)
		if (strcmp(t->name, kind_names[k]) == 0)
			return k;
	return CONN_KIND_OTHER;
}

void conn_count_as(struct conn *c, enum conn_kind k)
{
	struct conn_metrics *m = &c->hub->met;
	if (!c->counted || c->kind == k)
		return;
	metric_add(&m->open[c->kind], -1);
	metric_add(&m->accepted[c->kind], -1); /* in the same loop pass: never seen */
	c->kind = (unsigned char)k;
	metric_inc(&m->open[k]);
	metric_inc(&m->accepted[k]);
}

/* ---- the hub ---------------------------------------------------------------------------- */

int conn_hub_init(struct conn_hub *h, uv_loop_t *loop, const struct conn_limits *lim,
                  const struct conn_events *ev)
{
	memset(h, 0, sizeof *h);
	h->loop = loop;
	if (lim != NULL)
		h->lim = *lim;
	else
		conn_limits_default(&h->lim);
	if (h->lim.out_soft == 0)
		h->lim.out_soft = CONN_OUT_SOFT;
	h->out_soft = h->lim.out_soft;
	h->ev = *ev;
	metrics_setup(&h->met);
	addrcount_init(&h->addrs);
	int r;
	if ((r = uv_idle_init(loop, &h->pump)) != 0)
		return r;
	h->pump.data = h;
	uv_timer_t *ts[] = {&h->stop_timer, &h->sweep_timer, &h->defer_timer};
	for (size_t i = 0; i < 3; i++) {
		if ((r = uv_timer_init(loop, ts[i])) != 0) {
			uv_close((uv_handle_t *)&h->pump, NULL);
			for (size_t k = 0; k < i; k++)
				uv_close((uv_handle_t *)ts[k], NULL);
			return r;
		}
		ts[i]->data = h;
	}
	sweep_arm(h);
	return 0;
}

void conn_hub_set_limits(struct conn_hub *h, const struct conn_limits *lim)
{
	h->lim = *lim;
	if (h->lim.out_soft == 0)
		h->lim.out_soft = CONN_OUT_SOFT;
	h->out_soft = h->lim.out_soft;
	if (!h->stopping)
		sweep_arm(h);
}

static void close_if_open(uv_handle_t *h)
{
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

/* The slot of id in h->byid, or nbyid. */
static size_t byid_at(const struct conn_hub *h, uint64_t id)
{
	size_t lo = 0, hi = h->nbyid;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (h->byid[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < h->nbyid && h->byid[lo].id == id ? lo : h->nbyid;
}

static void byid_add(struct conn_hub *h, struct conn *c)
{
	if (h->byid_lost)
		return;
	if (h->nbyid == h->capbyid) {
		size_t cap = h->capbyid ? 2 * h->capbyid : 64;
		struct conn_slot *n = realloc(h->byid, cap * sizeof *n);
		if (n == NULL) {
			h->byid_lost = true;
			return;
		}
		h->byid = n;
		h->capbyid = cap;
	}
	h->byid[h->nbyid++] = (struct conn_slot){.id = c->id, .c = c};
}

static void byid_del(struct conn_hub *h, const struct conn *c)
{
	size_t i = byid_at(h, c->id);
	if (i == h->nbyid)
		return;
	h->byid[i].c = NULL;
	if (++h->holes <= h->nbyid / 2)
		return;
	size_t k = 0;
	for (size_t j = 0; j < h->nbyid; j++)
		if (h->byid[j].c != NULL)
			h->byid[k++] = h->byid[j];
	h->nbyid = k;
	h->holes = 0;
}

struct conn *conn_find(struct conn_hub *h, uint64_t id)
{
	if (h->byid_lost) {
		for (struct conn *c = h->conns; c != NULL; c = c->next)
			if (c->id == id && conn_alive(c))
				return c;
		return NULL;
	}
	size_t i = byid_at(h, id);
	struct conn *c = i < h->nbyid ? h->byid[i].c : NULL;
	return c != NULL && conn_alive(c) ? c : NULL;
}

/* ---- the pump --------------------------------------------------------------------- */

static struct conn *queue_pop(struct conn_queue *q)
{
	struct conn *c = q->head;
	if (c == NULL)
		return NULL;
	q->head = c->pump_next;
	if (q->head == NULL)
		q->tail = NULL;
	q->n--;
	c->pump_next = NULL;
	c->in_pump = false;
	return c;
}

static void pump_add(struct conn *c)
{
	struct conn_hub *h = c->hub;
	if (c->in_pump || c->closing)
		return;
	/* a connection to drop goes with everyone's: its end is not put off */
	c->pump_q = c->doomed     ? CONN_Q_ALL
	            : c->heavy    ? CONN_Q_HEAVY
	            : c->spending ? CONN_Q_SPENDING
	                          : CONN_Q_ALL;
	struct conn_queue *q = &h->inq[c->pump_q];
	c->in_pump = true;
	c->pump_next = NULL;
	if (q->tail)
		q->tail->pump_next = c;
	else
		q->head = c;
	q->tail = c;
	q->n++;
	if (!h->stopping && !uv_is_active((uv_handle_t *)&h->pump))
		uv_idle_start(&h->pump, pump_cb);
}

static void pump_remove(struct conn *c)
{
	struct conn_hub *h = c->hub;
	if (!c->in_pump)
		return;
	struct conn_queue *q = &h->inq[c->pump_q];
	struct conn **pp = &q->head, *prev = NULL;
	while (*pp != NULL && *pp != c) {
		prev = *pp;
		pp = &(*pp)->pump_next;
	}
	if (*pp == c) {
		*pp = c->pump_next;
		if (q->tail == c)
			q->tail = prev;
		q->n--;
	}
	c->in_pump = false;
	c->pump_next = NULL;
}

void conn_set_heavy(struct conn *c, bool heavy)
{
	c->heavy = heavy;
	/* output it queued while heavy waits for its turn in the pump: it keeps that turn */
}

void conn_set_spending(struct conn *c, bool spending)
{
	c->spending = spending;
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

size_t conn_telnet_echo(struct conn *c, bool on, unsigned char out[3])
{
	return c->telnet_peer ? telnet_echo(&c->fr, on, out) : 0;
}

/* One framer event of c that is not a line. */
static void frame_other(struct conn *c, enum frame_event fe)
{
	const struct conn_events *ev = &c->hub->ev;
	if (fe == FRAME_TELNET) {
		unsigned char answer[TELNET_ANSWER_MAX];
		if (c->t->telnet)
			c->telnet_peer = true;
		size_t n = telnet_answer(&c->fr, c->fr.tn_cmd, c->fr.tn_opt, answer);
		if (n > 0 && c->t->telnet && ev->on_telnet != NULL)
			ev->on_telnet(ev->ud, c, answer, n);
	} else {
		ev->on_bad_frame(ev->ud, c, fe);
	}
}

/*
 * Handles up to CONN_LINES_PER_PASS events of c's buffered input, one when c is
 * spending or heavy (or becomes so with a line of this turn): the slice of
 * the pump that serves such connections is checked between turns, so a turn
 * is one line. Four costly lines (`who`, `list`: a quarter of a millisecond
 * each under a thousand connections) in one turn made a pass a millisecond
 * long whatever the slice; the honest moves read in that pass waited for it.
 * Leaves c in the pump when more is left and neither its output is backed up
 * nor its input held.
 */
static void conn_process(struct conn *c)
{
	const struct conn_events *ev = &c->hub->ev;
	size_t off = 0;
	int lines = 0;
	bool waits = false;
	while (off < c->in_len && lines < CONN_LINES_PER_PASS && !c->closing &&
	       !(lines > 0 && (c->heavy || c->spending))) {
		if (conn_slow(c) || c->holds > 0) {
			waits = true;
			break;
		}
		size_t used = 0;
		enum frame_event fe = framer_feed(&c->fr, c->in->raw + off, c->in_len - off, &used);
		off += used;
		if (fe == FRAME_LINE) {
			lines++;
			if (c->fr.line_cr && c->t->telnet)
				c->telnet_peer = true;
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
	/*
	 * Input that filled its block is read again once half of it is handled,
	 * not after each line: a flooder kept waiting with thousands of lines
	 * queued cost a resume, a read of its next few bytes and a pause for
	 * every line it was allowed. A deferred one is read again when its wait
	 * is over (conn_defer).
	 */
	if (!c->reading && !c->eof && c->defer_at == 0 && c->in_len <= CONN_IN_RESUME)
		c->reading = c->t->resume(c) == 0;
}

/* One turn of c in the pump. */
static void pump_turn(struct conn *c)
{
	if (c->doomed)
		conn_close(c, false);
	else if (!c->closing)
		conn_process(c);
}

/*
 * One turn each, in order, to the connections of queue k, until slice_ns has
 * passed (0: all of them; a slice always gives one turn). Those queued during
 * the pass (again, or newly doomed) wait for the next pass, so no list is
 * walked while it changes. flush: a heavy connection's output goes out in its
 * turn. Returns the time it took.
 */
static uint64_t serve(struct conn_hub *h, enum conn_q k, uint64_t slice_ns, bool flush)
{
	struct conn *c;
	uint64_t t0 = uv_hrtime(), spent = 0;
	for (size_t n = h->inq[k].n; n > 0 && (c = queue_pop(&h->inq[k])) != NULL; n--) {
		pump_turn(c);
		if (flush && !c->closing && c->t->flush != NULL)
			c->t->flush(c);
		spent = uv_hrtime() - t0;
		if (slice_ns > 0 && spent >= slice_ns)
			break;
	}
	return spent;
}

/*
 * One pass: each connection queued in everyone's queue when the pass starts
 * gets one turn; then the spending ones and the heavy ones share
 * CONN_SLICE_US, the spending ones first. So a pass is never much longer
 * than the reads of its poll, the input of the quiet connections and one
 * slice, and an honest move waits at most that long for the loop to read it.
 * A slice each, as before, let a pass of a seek-churn blast run both (400 µs
 * and more), and the honest p99 rose by that much (0.77-0.85 ms against
 * 0.63-0.66 with one slice of 200 µs, bench/flood --mode blast). A move waits
 * for up to two passes (its own, and the one that hears it is durable), so
 * the slice is short: under a paced ping flood the honest p99 was 0.71-0.75 ms
 * with 200 µs, 0.59-0.64 with 100 (50 µs: within the noise of 100).
 */
static void pump_cb(uv_idle_t *idle)
{
	struct conn_hub *h = idle->data;
	const uint64_t slice = (uint64_t)CONN_SLICE_US * 1000;
	serve(h, CONN_Q_ALL, 0, false);
	uint64_t spent = serve(h, CONN_Q_SPENDING, slice, false);
	serve(h, CONN_Q_HEAVY, spent < slice ? slice - spent : 1, true);
	if (!conn_hub_pending(h))
		uv_idle_stop(&h->pump);
}

bool conn_hub_pending(const struct conn_hub *h)
{
	for (int k = 0; k < CONN_QUEUES; k++)
		if (h->inq[k].head != NULL)
			return true;
	return false;
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

/* Why c may not come in, or 0. */
static int door(struct conn_hub *h, struct conn *c, bool loopback)
{
	if (h->lim.max_clients > 0 && h->nclients >= h->lim.max_clients)
		return CONN_REFUSED_FULL;
	if (c->t->no_address)
		return 0;
	if (h->lim.max_per_addr > 0 && !loopback &&
	    addrcount_get(&h->addrs, &c->addr) >= h->lim.max_per_addr)
		return CONN_REFUSED_ADDRESS;
	if (!addrcount_add(&h->addrs, &c->addr))
		return CONN_REFUSED_FULL; /* out of memory */
	return 0;
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
	byid_add(h, c);
	snprintf(c->peer, sizeof c->peer, "%s", peer ? peer : "");
	c->opened_at = c->last_in = uv_now(h->loop);
	bool loopback = addr_key_of(c->peer, &c->addr);
	int refused = door(h, c, loopback);
	if (refused) {
		log_debug("connection refused conn=%llu peer=%s why=%s", (unsigned long long)c->id,
		          LOG_Q(c->peer),
		          refused == CONN_REFUSED_FULL ? "max-clients" : "max-per-address");
		metric_inc(&h->met.refused[refused == CONN_REFUSED_FULL ? 0 : 1]);
		if (h->ev.on_refuse != NULL)
			h->ev.on_refuse(h->ev.ud, c, (enum conn_refusal)refused);
		conn_close(c, true);
		return 0;
	}
	c->counted = true;
	c->out_counted = true;
	h->nclients++;
	c->kind = kind_of(c->t);
	metric_inc(&h->met.open[c->kind]);
	metric_inc(&h->met.accepted[c->kind]);
	c->login_due = h->lim.login_ms > 0;
	log_debug("connection opened conn=%llu peer=%s transport=%s", (unsigned long long)c->id,
	          LOG_Q(c->peer), c->t->name);
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

void conn_input(struct conn *c, size_t n)
{
	if (c->closing)
		return;
	if (c->in == NULL) { /* no block could be had: nothing can be read */
		log_warn("connection dropped conn=%llu why=\"out of memory for its input\"",
		         (unsigned long long)c->id);
		read_pause(c);
		conn_doom(c);
		return;
	}
	c->in_len += n;
	if (n > 0)
		c->last_in = uv_now(c->hub->loop);
	if (c->in_len >= CONN_IN_CAP)
		read_pause(c);
	if (c->heavy || c->spending)
		pump_add(c); /* served after reading everyone's input (conn_set_spending, _heavy) */
	else if (!c->in_pump)
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

/* c's output no longer counts in the hub's total (c is going). */
static void out_uncount(struct conn *c)
{
	if (c->out_counted) {
		c->hub->out_total -= c->out_bytes;
		c->out_counted = false;
	}
}

/* Marks c to be dropped at the next pump pass (safe inside any loop over connections). */
void conn_doom(struct conn *c)
{
	if (c->doomed || c->closing)
		return;
	c->doomed = true;
	out_uncount(c);
	pump_add(c);
}

size_t conn_out_cost(const struct outbuf *b)
{
	return sizeof *b + b->len + 1 + CONN_OUT_ENTRY;
}

/* b no longer counts as c's output. */
static void out_sub(struct conn *c, const struct outbuf *b)
{
	size_t cost = conn_out_cost(b);
	if (cost > c->out_bytes)
		cost = c->out_bytes;
	c->out_bytes -= cost;
	if (c->out_counted)
		c->hub->out_total -= cost;
}

void conn_wrote(struct conn *c, const struct outbuf *b, int status)
{
	out_sub(c, b);
	if (status == 0)
		metric_add(&c->hub->met.out_bytes, (int64_t)b->len);
	if (c->closing)
		return;
	if (status < 0) {
		conn_doom(c);
		return;
	}
	conn_drained(c);
}

/* What c holds: its counted output, or what its transport still has when that is more (a
   transport that takes a copy and reports bytes: the relay). */
static size_t out_held(const struct conn *c)
{
	size_t t = c->t->backlog(c);
	return t > c->out_bytes ? t : c->out_bytes;
}

void conn_drained(struct conn *c)
{
	if (c->closing)
		return;
	size_t held = out_held(c);
	if (held <= c->hub->out_soft)
		c->soft_since = 0;
	if (held <= c->hub->out_soft / 2 && !c->sending) { /* not from inside write() */
		const struct conn_events *ev = &c->hub->ev;
		if (ev->on_drain != NULL)
			ev->on_drain(ev->ud, c);
		if (c->in_len > 0)
			pump_add(c);
	}
}

static void hub_done(struct conn_hub *h);

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
		byid_del(h, c);
	}
	free(c->in);
	free(c);
	if (h->stopping && h->conns == NULL)
		hub_done(h);
}

/* ---- deferred input: a min-heap of connections by defer_until ---------------------------- */

static void heap_set(struct conn_hub *h, size_t i, struct conn *c)
{
	h->deferred[i] = c;
	c->defer_at = i + 1;
}

static void heap_up(struct conn_hub *h, size_t i)
{
	struct conn *c = h->deferred[i];
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (h->deferred[p]->defer_until <= c->defer_until)
			break;
		heap_set(h, i, h->deferred[p]);
		i = p;
	}
	heap_set(h, i, c);
}

static void heap_down(struct conn_hub *h, size_t i)
{
	struct conn *c = h->deferred[i];
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		uint64_t best = c->defer_until;
		if (l < h->ndeferred && h->deferred[l]->defer_until < best)
			m = l, best = h->deferred[l]->defer_until;
		if (l + 1 < h->ndeferred && h->deferred[l + 1]->defer_until < best)
			m = l + 1;
		if (m == i)
			break;
		heap_set(h, i, h->deferred[m]);
		i = m;
	}
	heap_set(h, i, c);
}

/* Takes c out of the heap (it must be in it). */
static void heap_remove(struct conn_hub *h, struct conn *c)
{
	size_t i = c->defer_at - 1;
	c->defer_at = 0;
	struct conn *last = h->deferred[--h->ndeferred];
	if (last != c) {
		heap_set(h, i, last);
		heap_up(h, i);
		heap_down(h, last->defer_at - 1);
	}
}

/* Arms the hub's deferral timer for the earliest wait, or stops it. */
static void defer_arm(struct conn_hub *h)
{
	if (h->stopping)
		return;
	if (h->ndeferred == 0) {
		uv_timer_stop(&h->defer_timer);
		return;
	}
	uint64_t now = uv_now(h->loop), at = h->deferred[0]->defer_until;
	uv_timer_start(&h->defer_timer, defer_cb, at > now ? at - now : 0, 0);
}

void conn_defer(struct conn *c, uint64_t until)
{
	struct conn_hub *h = c->hub;
	if (c->closing || h->stopping)
		return;
	if (c->defer_at != 0) { /* waiting already: the later time wins */
		if (until > c->defer_until) {
			c->defer_until = until;
			heap_down(h, c->defer_at - 1);
			defer_arm(h);
		}
		return;
	}
	if (h->ndeferred == h->capdeferred) {
		size_t cap = h->capdeferred ? 2 * h->capdeferred : 64;
		struct conn **d = realloc(h->deferred, cap * sizeof *d);
		if (d == NULL) { /* cannot wait: it is cut off instead */
			conn_doom(c);
			return;
		}
		h->deferred = d;
		h->capdeferred = cap;
	}
	c->defer_until = until;
	conn_hold(c);
	/*
	 * What it sends meanwhile stays in the kernel, which pushes back on the
	 * sender: read as it came, a blasting client's lines cost a read each
	 * (a thousand of them, 44,000 reads a second) for input that waits anyway.
	 */
	read_pause(c);
	heap_set(h, h->ndeferred++, c);
	heap_up(h, h->ndeferred - 1);
	defer_arm(h);
}

static void defer_cb(uv_timer_t *t)
{
	struct conn_hub *h = t->data;
	uint64_t now = uv_now(h->loop);
	while (h->ndeferred > 0 && h->deferred[0]->defer_until <= now) {
		struct conn *c = h->deferred[0];
		heap_remove(h, c);
		conn_release(c);
	}
	defer_arm(h);
}

/* ---- connections: for the layer above ------------------------------------------------- */

size_t conn_backlog(const struct conn *c)
{
	return c->t->backlog(c);
}

bool conn_slow(const struct conn *c)
{
	return out_held(c) > c->hub->out_soft;
}

/* Drops the connections holding the most output until all of them hold at most out_total. */
static void out_total_check(struct conn_hub *h)
{
	while (h->lim.out_total > 0 && h->out_total > h->lim.out_total) {
		struct conn *big = NULL;
		for (struct conn *c = h->conns; c != NULL; c = c->next)
			if (c->out_counted && (big == NULL || c->out_bytes > big->out_bytes))
				big = c;
		if (big == NULL)
			return;
		log_info("connection dropped conn=%llu why=out-total held=%zu out_total=%zu",
		         (unsigned long long)big->id, big->out_bytes, h->lim.out_total);
		metric_inc(&h->met.drops[CONN_DROP_OUT_TOTAL]);
		conn_doom(big);
	}
}

static size_t out_held(const struct conn *c);

/* b counts as c's output from now on; false (c dropped) when that passes the hard limit. */
static bool out_add(struct conn *c, const struct outbuf *b)
{
	struct conn_hub *h = c->hub;
	size_t cost = conn_out_cost(b);
	if (h->lim.out_hard > 0 && c->out_bytes + cost > h->lim.out_hard) {
		log_info("connection dropped conn=%llu why=out-hard held=%zu",
		         (unsigned long long)c->id, c->out_bytes);
		metric_inc(&h->met.drops[CONN_DROP_OUT_HARD]);
		conn_doom(c);
		return false;
	}
	c->out_bytes += cost;
	if (c->out_counted)
		h->out_total += cost;
	return true;
}

/* After output was added: the soft limit's clock, and the total. */
static void out_check(struct conn *c)
{
	struct conn_hub *h = c->hub;
	size_t held = out_held(c);
	if (h->lim.out_hard > 0 && held > h->lim.out_hard) { /* a transport's own backlog */
		log_info("connection dropped conn=%llu why=out-hard held=%zu",
		         (unsigned long long)c->id, held);
		metric_inc(&h->met.drops[CONN_DROP_OUT_HARD]);
		conn_doom(c);
		return;
	}
	if (held > h->out_soft && c->soft_since == 0)
		c->soft_since = uv_now(h->loop) | 1; /* never 0 */
	out_total_check(h);
}

void conn_send(struct conn *c, struct outbuf *b)
{
	if (b == NULL || c->closing || c->doomed)
		return;
	/* counted first: a transport may finish the write inside write() (conn_wrote) */
	if (!out_add(c, b))
		return;
	c->sending = true;
	int r = c->t->write(c, b);
	c->sending = false;
	if (r != 0) {
		out_sub(c, b);
		conn_doom(c);
		return;
	}
	if (c->heavy && c->t->flush != NULL)
		pump_add(c); /* its output goes out in its turn of the heavy slice */
	out_check(c);
}

bool conn_out_hold(struct conn *c, const struct outbuf *b)
{
	if (c->closing || c->doomed || !out_add(c, b))
		return false;
	out_check(c);
	return true;
}

void conn_out_unhold(struct conn *c, const struct outbuf *b)
{
	out_sub(c, b);
	if (c->out_bytes <= c->hub->out_soft)
		c->soft_since = 0;
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
	struct conn_hub *h = c->hub;
	const struct conn_events *ev = &h->ev;
	if (c->counted && ev->on_close != NULL)
		ev->on_close(ev->ud, c);
	c->closing = true;
	c->data = NULL;
	out_uncount(c);
	if (c->counted) {
		c->counted = false;
		h->nclients--;
		metric_add(&h->met.open[c->kind], -1);
		if (!c->t->no_address)
			addrcount_del(&h->addrs, &c->addr);
	}
	if (c->defer_at != 0) {
		heap_remove(h, c);
		defer_arm(h);
	}
	pump_remove(c);
	c->reading = false;
	c->t->close(c, graceful); /* last: the transport frees c later (conn_closed) */
}

/* ---- the sweep: timeouts and the soft limit's time ------------------------------------ */

/* Asks the layer above about deadline what of c; closes c when it says so. */
static void timeout(struct conn *c, enum conn_timeout what)
{
	const struct conn_events *ev = &c->hub->ev;
	if (ev->on_timeout != NULL && ev->on_timeout(ev->ud, c, what))
		conn_close(c, true);
}

static void sweep_cb(uv_timer_t *t)
{
	struct conn_hub *h = t->data;
	const struct conn_limits *l = &h->lim;
	uint64_t now = uv_now(h->loop);
	for (struct conn *c = h->conns; c != NULL; c = c->next) { /* closing never unlinks */
		if (!conn_alive(c) || !c->counted)
			continue;
		if (l->out_soft_ms > 0 && c->soft_since != 0 &&
		    now - c->soft_since >= l->out_soft_ms) {
			log_info("connection dropped conn=%llu why=out-soft-seconds out_cap=%zu "
			         "ms=%llu",
			         (unsigned long long)c->id, h->out_soft,
			         (unsigned long long)l->out_soft_ms);
			metric_inc(&h->met.drops[CONN_DROP_OUT_SOFT]);
			conn_doom(c);
			continue;
		}
		if (c->login_due && now - c->opened_at >= l->login_ms) {
			c->login_due = false;
			timeout(c, CONN_TIMEOUT_LOGIN);
			if (c->closing)
				continue;
		}
		if (l->idle_ms > 0 && now - c->last_in >= l->idle_ms) {
			c->last_in = now; /* asked again after another idle_ms */
			timeout(c, CONN_TIMEOUT_IDLE);
		}
	}
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

/* The last connection of a stopped hub is gone: its handles and tables go. */
static void hub_done(struct conn_hub *h)
{
	close_if_open((uv_handle_t *)&h->stop_timer);
	free(h->deferred);
	h->deferred = NULL;
	h->ndeferred = h->capdeferred = 0;
	free(h->byid);
	h->byid = NULL;
	h->nbyid = h->capbyid = h->holes = 0;
	addrcount_free(&h->addrs);
}

void conn_hub_stop(struct conn_hub *h)
{
	if (h->stopping)
		return;
	h->stopping = true;
	close_if_open((uv_handle_t *)&h->pump);
	close_if_open((uv_handle_t *)&h->sweep_timer);
	close_if_open((uv_handle_t *)&h->defer_timer);
	for (int k = 0; k < CONN_QUEUES; k++)
		while (queue_pop(&h->inq[k]) != NULL)
			;
	for (struct conn *c = h->conns; c != NULL; c = c->next)
		conn_close(c, true);
	if (h->conns == NULL)
		hub_done(h);
	else
		uv_timer_start(&h->stop_timer, stop_timer_cb, CONN_STOP_MS, 0);
}
