/*
 * client.c - the per-connection object of the layers above the connection,
 * its one door to the connection, and the output it holds behind the
 * journal's barrier (see client.h).
 */
#include "server/msg/client.h"

#include <stdlib.h>

#include "server/util/outbuf.h"

/* One piece of held output and the journal seq it waits for. */
struct held_out {
	struct outbuf *b;
	uint64_t need;
};

static void held_unlist(struct client *cl)
{
	struct client_barrier *bar = cl->bar;
	if (cl->held_prev != NULL)
		cl->held_prev->held_next = cl->held_next;
	else if (bar->held == cl)
		bar->held = cl->held_next;
	if (cl->held_next != NULL)
		cl->held_next->held_prev = cl->held_prev;
	cl->held_next = cl->held_prev = NULL;
}

/* Appends (b, need) to cl's held output; false when out of memory. */
static bool held_push(struct client *cl, struct outbuf *b, uint64_t need)
{
	if (cl->held_n == cl->held_cap) {
		size_t cap = cl->held_cap ? 2 * cl->held_cap : 8;
		struct held_out *q = malloc(cap * sizeof *q);
		if (q == NULL)
			return false;
		for (size_t i = 0; i < cl->held_n; i++)
			q[i] = cl->held[(cl->held_head + i) % cl->held_cap];
		free(cl->held);
		cl->held = q;
		cl->held_cap = cap;
		cl->held_head = 0;
	}
	cl->held[(cl->held_head + cl->held_n) % cl->held_cap] =
	        (struct held_out){.b = outbuf_ref(b), .need = need};
	if (cl->held_n++ == 0) {
		cl->held_prev = NULL;
		cl->held_next = cl->bar->held;
		if (cl->held_next != NULL)
			cl->held_next->held_prev = cl;
		cl->bar->held = cl;
	}
	return true;
}

/* Sends cl's held output up to the first entry durable does not cover. */
static void held_release(struct client *cl, uint64_t durable)
{
	while (cl->held_n > 0) {
		struct held_out *h = &cl->held[cl->held_head];
		if (h->need > durable)
			return;
		conn_out_unhold(cl->conn, h->b);
		conn_send(cl->conn, h->b);
		outbuf_unref(h->b);
		cl->held_head = (cl->held_head + 1) % cl->held_cap;
		if (--cl->held_n == 0)
			held_unlist(cl);
	}
}

void client_barrier_need(struct client_barrier *b, uint64_t seq)
{
	if (seq > b->need)
		b->need = seq;
}

uint64_t client_barrier_push(struct client_barrier *b, uint64_t seq)
{
	if (b == NULL)
		return 0;
	uint64_t saved = b->need;
	client_barrier_need(b, seq);
	return saved;
}

void client_barrier_pop(struct client_barrier *b, uint64_t saved)
{
	if (b != NULL)
		b->need = saved;
}

void client_barrier_clear(struct client_barrier *b)
{
	if (b != NULL)
		b->need = 0;
}

void client_barrier_durable(struct client_barrier *b, uint64_t upto)
{
	if (upto <= b->durable)
		return;
	b->durable = upto;
	for (struct client *cl = b->held, *next; cl != NULL; cl = next) {
		next = cl->held_next;
		held_release(cl, upto);
	}
}

void client_barrier_stuck(struct client_barrier *b, bool stuck)
{
	if (b != NULL)
		b->stuck = stuck;
}

struct client *client_new(struct conn *c)
{
	struct client *cl = calloc(1, sizeof *cl);
	if (cl == NULL)
		return NULL;
	cl->conn = c;
	c->data = cl;
	return cl;
}

void client_free(struct client *cl)
{
	if (cl == NULL)
		return;
	for (; cl->held_n > 0; cl->held_n--) {
		conn_out_unhold(cl->conn, cl->held[cl->held_head].b);
		outbuf_unref(cl->held[cl->held_head].b);
		cl->held_head = (cl->held_head + 1) % cl->held_cap;
	}
	if (cl->bar != NULL && (cl->held_prev != NULL || cl->bar->held == cl))
		held_unlist(cl);
	free(cl->held);
	if (cl->conn->data == cl)
		cl->conn->data = NULL;
	free(cl);
}

void client_send(struct client *cl, struct outbuf *b)
{
	struct client_barrier *bar = cl->bar;
	if (b == NULL)
		return;
	if (bar == NULL || ((cl->held_n == 0 || bar->stuck) && bar->need <= bar->durable)) {
		conn_send(cl->conn, b); /* waits for nothing, and nothing held it must follow */
		return;
	}
	/* Held behind the move it follows, counted as the connection's output (past the hard
	 * limit the connection is dropped, as conn_send does). Out of memory it cannot wait:
	 * as when conn_send cannot queue, the connection is dropped (it would miss output). */
	if (!conn_out_hold(cl->conn, b))
		return;
	if (!held_push(cl, b, bar->need > bar->durable ? bar->need : 0)) {
		conn_out_unhold(cl->conn, b);
		conn_doom(cl->conn);
	}
}

void client_send_now(struct client *cl, struct outbuf *b)
{
	conn_send(cl->conn, b);
}

bool client_slow(const struct client *cl)
{
	return conn_slow(cl->conn);
}

bool client_alive(const struct client *cl)
{
	return conn_alive(cl->conn);
}

void client_close(struct client *cl, bool graceful)
{
	conn_close(cl->conn, graceful);
}
