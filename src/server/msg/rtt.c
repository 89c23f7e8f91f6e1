/*
 * rtt.c - the server measures round-trip times itself: every client that
 * asked ("set ping on") gets "ping <token>" ({"type":"ping","token":N}) at
 * once, then again a period after its answer (or after the ping, when it was
 * not answered: the new one replaces it); a timer checks four times per
 * period (or per timeout, when shorter). A client whose oldest unanswered
 * ping is older than the timeout (--ping-timeout) is dropped. Its "pong <token>" gives one sample,
 * and the client's round-trip time is a smoothed mean (7/8 old + 1/8 new, as TCP does). Clients
 * that never ask (people on nc) have no known round-trip time and no lag allowance. See rtt.h.
 */
#include "server/msg/rtt.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server/msg/msg.h"

int64_t lag_allowance(int64_t ms)
{
	if (ms < 0)
		return 0;
	return ms < LAG_ALLOWANCE_MAX_MS ? ms : LAG_ALLOWANCE_MAX_MS;
}

int64_t rtt_ms(const struct client *cl)
{
	return cl != NULL && cl->rtt.known ? cl->rtt.ms : -1;
}

int64_t rtt_charge(const struct client *cl, int64_t used)
{
	if (cl == NULL || !cl->rtt.known)
		return used;
	used -= lag_allowance(cl->rtt.ms);
	return used > 0 ? used : 0;
}

static void send_ping(struct client *cl)
{
	struct client_rtt *r = &cl->rtt;
	r->token++;
	r->sent = uv_now(cl->conn->hub->loop);
	if (!r->waiting)
		r->owed = r->sent; /* a ping that replaces an unanswered one keeps its debt */
	r->waiting = true;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "ping");
	cJSON_AddNumberToObject(j, "token", (double)r->token);
	send_msg(cl, j, xasprintf("ping %" PRIu64, r->token));
}

/* cl left its pings unanswered too long: told, and closed (its seats wait). */
static void ping_timeout(struct rtt *r, struct client *cl)
{
	send_info(cl, ERR_PING_TIMEOUT,
	          "ping %" PRIu64 " got no pong within %" PRIu64 " ms; this connection closes",
	          cl->rtt.token, r->timeout_ms);
	log_debug("connection closed conn=%llu why=ping-timeout ms=%" PRIu64,
	          (unsigned long long)cl->conn->id, r->timeout_ms);
	client_close(cl, true);
}

/* Pings the clients whose last ping went out, or was answered, a period ago; drops
   those whose oldest unanswered ping is past the deadline. */
static void ping_cb(uv_timer_t *t)
{
	struct rtt *r = t->data;
	uint64_t now = uv_now(t->loop);
	for (struct conn *c = r->hub->conns; c != NULL; c = c->next) { /* closing never unlinks */
		struct client *cl = client_of(c);
		if (cl == NULL || !cl->rtt.on || !conn_alive(c))
			continue;
		if (r->timeout_ms > 0 && cl->rtt.waiting && now - cl->rtt.owed >= r->timeout_ms)
			ping_timeout(r, cl);
		else if (now - cl->rtt.sent >= r->period_ms)
			send_ping(cl);
	}
}

/* Sets the period and the timeout, and (re)starts the timer: a quarter of the shorter. */
static int rtt_arm(struct rtt *r, int64_t period_ms, int64_t timeout_ms)
{
	r->period_ms = period_ms > 0 ? (uint64_t)period_ms : RTT_PING_DEFAULT_MS;
	r->timeout_ms = timeout_ms > 0 ? (uint64_t)timeout_ms : 0;
	uint64_t tick = r->period_ms / 4;
	if (r->timeout_ms > 0 && r->timeout_ms / 4 < tick)
		tick = r->timeout_ms / 4;
	if (tick == 0)
		tick = 1;
	return uv_timer_start(&r->timer, ping_cb, tick, tick);
}

int rtt_init(struct rtt *r, struct conn_hub *hub, int64_t period_ms, int64_t timeout_ms)
{
	r->hub = hub;
	int e = uv_timer_init(hub->loop, &r->timer);
	if (e != 0)
		return e;
	r->timer.data = r;
	return rtt_arm(r, period_ms, timeout_ms);
}

void rtt_configure(struct rtt *r, int64_t period_ms, int64_t timeout_ms)
{
	if (!uv_is_closing((uv_handle_t *)&r->timer))
		rtt_arm(r, period_ms, timeout_ms);
}

void rtt_stop(struct rtt *r)
{
	if (!uv_is_closing((uv_handle_t *)&r->timer))
		uv_close((uv_handle_t *)&r->timer, NULL);
}

/* what rtt_ms() tells changed: one counter for the process (every hub's clients) */
static uint64_t generation;

uint64_t rtt_generation(void)
{
	return generation;
}

void rtt_set(struct client *cl, const struct proto_req *rq, const char *word)
{
	bool on = strcasecmp(word, "on") == 0;
	if (!on && strcasecmp(word, "off") != 0) {
		reply_err(cl, rq, ERR_BAD_ARGS, "usage: set ping on|off");
		return;
	}
	cl->rtt.on = on;
	if (!on) {
		cl->rtt.waiting = false;
		cl->rtt.known = false;
		generation++;
	}
	cJSON *f = cJSON_CreateObject();
	cJSON_AddBoolToObject(f, "ping", on);
	reply_ok(cl, rq, f, NULL, "%s",
	         on ? "the server pings you now and every few seconds: answer pong <token>"
	            : "no more pings; your round-trip time is unknown");
	if (on)
		send_ping(cl);
}

void rtt_pong(struct client *cl, const struct proto_req *rq, const char *token_text)
{
	struct client_rtt *r = &cl->rtt;
	uint64_t token;
	if (!proto_parse_id(token_text, &token)) {
		reply_err(cl, rq, ERR_BAD_ARGS, "the token is the number after ping");
		return;
	}
	if (!r->waiting || token != r->token) {
		reply_err(cl, rq, ERR_NO_PING, "no ping %" PRIu64 " is waiting for an answer",
		          token);
		return;
	}
	uint64_t now = uv_now(cl->conn->hub->loop);
	int64_t sample = (int64_t)(now - r->sent);
	r->ms = r->known ? (7 * r->ms + sample + 4) / 8 : sample;
	r->known = true;
	r->waiting = false;
	generation++;
	r->sent = now; /* the next ping is due a period after this answer */
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "sample_ms", (double)sample);
	cJSON_AddNumberToObject(f, "rtt_ms", (double)r->ms);
	reply_ok(cl, rq, f, NULL, "round trip %" PRId64 " ms (smoothed %" PRId64 " ms)", sample,
	         r->ms);
}

