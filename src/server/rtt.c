/*
 * rtt.c - the server measures round-trip times itself: every connection that
 * asked ("set ping on") gets "ping <token>" ({"type":"ping","token":N}) at
 * once, then again cfg.ping_ms after its answer (or after the ping, when it
 * was not answered: the new one replaces it); a timer checks four times per
 * period. Its "pong <token>" gives one sample, and
 * the connection's round-trip time is a smoothed mean (7/8 old + 1/8 new, as
 * TCP does). Connections that never ask (people on nc) have no known
 * round-trip time and no lag allowance. See offers.h.
 */
#include "server/offers.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

int64_t lag_allowance(int64_t rtt_ms)
{
	if (rtt_ms < 0)
		return 0;
	return rtt_ms < LAG_ALLOWANCE_MAX_MS ? rtt_ms : LAG_ALLOWANCE_MAX_MS;
}

int64_t rtt_charge(const struct conn *c, int64_t used)
{
	if (c == NULL || !c->has_rtt)
		return used;
	used -= lag_allowance(c->rtt_ms);
	return used > 0 ? used : 0;
}

static void send_ping(struct conn *c)
{
	c->ping_token++;
	c->ping_waiting = true;
	c->ping_sent = uv_now(c->srv->loop);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "ping");
	cJSON_AddNumberToObject(j, "token", (double)c->ping_token);
	send_msg(c, j, xasprintf("ping %" PRIu64, c->ping_token));
}

static uint64_t ping_period(const struct server *s)
{
	return s->cfg.ping_ms > 0 ? (uint64_t)s->cfg.ping_ms : SERVER_PING_DEFAULT * 1000;
}

/* Pings the connections whose last ping went out, or was answered, a period ago. */
static void ping_cb(uv_timer_t *t)
{
	struct server *s = t->data;
	uint64_t now = uv_now(s->loop), period = ping_period(s);
	for (struct conn *c = s->conns; c != NULL; c = c->next)
		if (c->ping_on && !c->closing && !c->doomed && now - c->ping_sent >= period)
			send_ping(c);
}

void rtt_init(struct server *s)
{
	uint64_t tick = ping_period(s) / 4;
	uv_timer_init(s->loop, &s->ping_timer);
	s->ping_timer.data = s;
	uv_timer_start(&s->ping_timer, ping_cb, tick, tick);
}

void rtt_stop(struct server *s)
{
	if (!uv_is_closing((uv_handle_t *)&s->ping_timer))
		uv_close((uv_handle_t *)&s->ping_timer, NULL);
}

void rtt_cmd_set(struct conn *c, const struct proto_req *rq)
{
	const char *v = rq->argv[1];
	bool on = strcasecmp(v, "on") == 0;
	if (!on && strcasecmp(v, "off") != 0) {
		reply_err(c, rq, "BAD_ARGS", "usage: set ping on|off");
		return;
	}
	c->ping_on = on;
	if (!on) {
		c->ping_waiting = false;
		c->has_rtt = false;
	}
	cJSON *f = cJSON_CreateObject();
	cJSON_AddBoolToObject(f, "ping", on);
	reply_ok(c, rq, f, NULL, "%s",
	         on ? "the server pings you now and every few seconds: answer pong <token>"
	            : "no more pings; your round-trip time is unknown");
	if (on)
		send_ping(c);
}

void rtt_cmd_pong(struct conn *c, const struct proto_req *rq)
{
	uint64_t token;
	if (!proto_parse_id(rq->argv[0], &token)) {
		reply_err(c, rq, "BAD_ARGS", "the token is the number after ping");
		return;
	}
	if (!c->ping_waiting || token != c->ping_token) {
		reply_err(c, rq, "NO_PING", "no ping %" PRIu64 " is waiting for an answer", token);
		return;
	}
	uint64_t now = uv_now(c->srv->loop);
	int64_t sample = (int64_t)(now - c->ping_sent);
	c->rtt_ms = c->has_rtt ? (7 * c->rtt_ms + sample + 4) / 8 : sample;
	c->has_rtt = true;
	c->ping_waiting = false;
	c->ping_sent = now; /* the next ping is due a period after this answer */
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "sample_ms", (double)sample);
	cJSON_AddNumberToObject(f, "rtt_ms", (double)c->rtt_ms);
	reply_ok(c, rq, f, NULL, "round trip %" PRId64 " ms (smoothed %" PRId64 " ms)", sample,
	         c->rtt_ms);
}

void rtt_describe(const struct conn *u, cJSON *j, char **line)
{
	if (u->has_rtt) {
		cJSON_AddNumberToObject(j, "rtt_ms", (double)u->rtt_ms);
		xappend(line, ", rtt %" PRId64 " ms", u->rtt_ms);
	} else {
		cJSON_AddNullToObject(j, "rtt_ms");
	}
}
