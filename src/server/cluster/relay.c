/*
 * relay.c - the relay transport (see relay.h): connections that stand for
 * clients and spectators of other nodes; their output goes to the cluster's
 * sink, their backlog counts what the bus has not taken yet.
 */
#include "server/cluster/relay.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The transport's part of a connection. */
struct relay {
	struct relay_id id;
	const struct relay_sink *sink; /* the cluster's: where the output goes */
	size_t backlog;    /* bytes handed to the sink and not reported taken */
	uv_timer_t closer; /* conn_closed() from here, after close() returned */
	bool closer_started;
	bool muted;
};

static struct relay *rl_of(const struct conn *c)
{
	return c->tdata;
}

static int relay_write(struct conn *c, struct outbuf *b)
{
	struct relay *r = rl_of(c);
	if (!r->muted && r->sink->send(r->sink->ud, c, &r->id, b))
		r->backlog += b->len;
	conn_wrote(c, b, 0); /* the sink has its copy: the backlog counts it from here */
	return 0;
}

static size_t relay_backlog(const struct conn *c)
{
	return rl_of(c)->backlog;
}

static void relay_pause(struct conn *c)
{
	(void)c; /* no input comes through the transport */
}

static int relay_resume(struct conn *c)
{
	(void)c;
	return 0;
}

static void closer_closed(uv_handle_t *h)
{
	conn_closed(h->data);
}

static void closer_fired(uv_timer_t *t)
{
	uv_close((uv_handle_t *)t, closer_closed);
}

static void relay_close(struct conn *c, bool graceful)
{
	(void)graceful; /* what was sent is with the bus already */
	struct relay *r = rl_of(c);
	if (r->closer_started)
		return;
	r->closer_started = true;
	uv_timer_init(c->hub->loop, &r->closer);
	r->closer.data = c;
	uv_timer_start(&r->closer, closer_fired, 0, 0);
}

const struct conn_transport relay_transport = {
        .name = "relay",
        .no_address = true, /* its clients were counted at their home's door */
        .write = relay_write,
        .backlog = relay_backlog,
        .pause = relay_pause,
        .resume = relay_resume,
        .close = relay_close,
};

struct client *relay_open(struct conn_hub *hub, const struct relay_id *id,
                          const struct relay_sink *sink)
{
	struct conn *c = conn_new(hub, &relay_transport, sizeof(struct relay));
	if (c == NULL)
		return NULL;
	struct relay *r = rl_of(c);
	memset(r, 0, sizeof *r);
	r->id = *id;
	r->sink = sink;
	char peer[CONN_PEER_MAX];
	if (id->kind == RELAY_CLIENT)
		snprintf(peer, sizeof peer, "%.40s/%" PRIu64, id->home, id->conn);
	else
		snprintf(peer, sizeof peer, "watchers of %" PRIu64 " (%s)", id->game,
		         id->json ? "json" : "text");
	if (conn_open(c, peer) != 0) {
		relay_close(c, false);
		return NULL;
	}
	struct client *cl = client_of(c);
	if (cl == NULL) /* the server could not make its client: it closed the connection */
		return NULL;
	cl->remote = true;
	return cl;
}

bool relay_is(const struct conn *c)
{
	return c != NULL && c->t == &relay_transport;
}

const struct relay_id *relay_id_of(const struct conn *c)
{
	return relay_is(c) ? &rl_of(c)->id : NULL;
}

void relay_mute(struct conn *c, bool on)
{
	rl_of(c)->muted = on;
}

void relay_sent(struct conn *c, size_t n)
{
	struct relay *r = rl_of(c);
	r->backlog = n < r->backlog ? r->backlog - n : 0;
	conn_drained(c);
}
