/*
 * offers.h - what the two players of a game agree on, and the server's view
 * of each connection's lag:
 *  - offers.c: draw offers, takebacks (undo), abort before the second ply,
 *    rematch with seats swapped; every offer and answer is announced to the
 *    players and the spectators as {"type":"offer",...};
 *  - rtt.c: the server's own ping/pong (for connections that ask with
 *    "set ping on"), the smoothed round-trip time shown by who, game_start
 *    and state, and the lag allowance taken off each move's charged time.
 * See protocol/PROTOCOL.md (sections 5 and 6).
 */
#ifndef BITARENA_SERVER_OFFERS_H
#define BITARENA_SERVER_OFFERS_H

#include "server/session.h"

/* The most a move's charged time is reduced for the mover's round-trip time. */
#define LAG_ALLOWANCE_MAX_MS 500

/* draw / undo / abort / rematch <game> [word]: replies to rq itself. */
void offers_cmd(struct conn *c, const struct proto_req *rq);
/*
 * The seats in the mask just moved (or acted in a resolved turn) in g: their
 * draw offers and any takeback request lapse (announced). Called by session.c
 * between the move's reply and the new state.
 */
void offers_moved(struct game *g, unsigned seats);

/* Starts the ping timer of s (cfg.ping_ms); rtt_stop() closes it. */
void rtt_init(struct server *s);
void rtt_stop(struct server *s);
/* set ping on|off (commands.c hands "set ping ..." over). */
void rtt_cmd_set(struct conn *c, const struct proto_req *rq);
/* pong <token>: the answer to the server's ping. */
void rtt_cmd_pong(struct conn *c, const struct proto_req *rq);
/* who: adds "rtt_ms" (number or null) to j and ", rtt N ms" to *line when known. */
void rtt_describe(const struct conn *u, cJSON *j, char **line);
/* The lag allowance for a round-trip time: min(rtt, LAG_ALLOWANCE_MAX_MS); 0 if unknown (< 0). */
int64_t lag_allowance(int64_t rtt_ms);
/* What a move that took used ms on the server's clock is charged: used minus c's allowance, >= 0.
 */
int64_t rtt_charge(const struct conn *c, int64_t used);

#endif
