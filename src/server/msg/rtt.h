/*
 * rtt.h - the server's view of each client's lag (part of the messages
 * layer): the server's own ping/pong for clients that ask ("set ping on"),
 * the smoothed round-trip time shown by who, game_start and state, and the
 * lag allowance taken off each move's charged time. See PROTOCOL.md §6.
 */
#ifndef BITARENA_SERVER_RTT_H
#define BITARENA_SERVER_RTT_H

#include <stdint.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "server/msg/client.h"
#include "server/msg/proto.h"

#define RTT_PING_DEFAULT_MS 10000 /* between pings to clients that asked (set ping on) */
/* The most a move's charged time is reduced for the mover's round-trip time. */
#define LAG_ALLOWANCE_MAX_MS 500

/* The pinger: one timer over every connection of a hub. */
struct rtt {
	uv_timer_t timer;
	struct conn_hub *hub;
	uint64_t period_ms;
	uint64_t timeout_ms; /* a client whose ping goes unanswered this long is dropped; 0: never */
};

/*
 * Starts the pinger over hub's clients, a ping every period_ms (0:
 * RTT_PING_DEFAULT_MS). A client that asked for pings and leaves them
 * unanswered for timeout_ms (0: never) is told PING_TIMEOUT and closed; its
 * seats wait through the grace as for any disconnection.
 */
int rtt_init(struct rtt *r, struct conn_hub *hub, int64_t period_ms, int64_t timeout_ms);
/* A new period and timeout for a running pinger (a configuration re-read); from now on. */
void rtt_configure(struct rtt *r, int64_t period_ms, int64_t timeout_ms);
/* Closes its timer (shutdown). */
void rtt_stop(struct rtt *r);
/* set ping on|off (word): answers rq; on sends the first ping at once. */
void rtt_set(struct client *cl, const struct proto_req *rq, const char *word);
/* pong <token>: the answer to the server's ping; answers rq. */
void rtt_pong(struct client *cl, const struct proto_req *rq, const char *token);
/* Bumped whenever some client's round-trip time changes or becomes unknown (who's cache). */
uint64_t rtt_generation(void);
/* cl's round-trip time in ms, or -1 when unknown (cl may be NULL). */
int64_t rtt_ms(const struct client *cl);
/* The lag allowance for a round-trip time: min(rtt, LAG_ALLOWANCE_MAX_MS); 0 if unknown (< 0). */
int64_t lag_allowance(int64_t rtt_ms);
/* What a move that took used ms on the server's clock is charged: used minus cl's allowance, >= 0.
 */
int64_t rtt_charge(const struct client *cl, int64_t used);

#endif
