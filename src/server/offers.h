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

#include "server/rtt.h"
#include "server/session.h"

/* draw / undo / abort / rematch <game> [word]: replies to rq itself. */
void offers_cmd(struct client *c, const struct proto_req *rq);
/*
 * The seats in the mask just moved (or acted in a resolved turn) in g: their
 * draw offers and any takeback request lapse (announced). Called by session.c
 * between the move's reply and the new state.
 */
void offers_moved(struct game *g, unsigned seats);

#endif
