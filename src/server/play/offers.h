/*
 * offers.h - what the two players of a game agree on (the top of the session
 * layer): draw offers, takebacks (undo), abort before the second ply, rematch
 * with seats swapped; every offer and answer is announced to the players and
 * the spectators as {"type":"offer",...}. See protocol/PROTOCOL.md §5.
 *
 * The verbs' handlers run after the dispatcher resolved the game, the
 * caller's seat in it, and whether it is over (commands.c: draw, undo and
 * abort need a game on, rematch one that is over); each replies to rq.
 */
#ifndef BITARENA_SERVER_OFFERS_H
#define BITARENA_SERVER_OFFERS_H

#include "server/play/session.h"

/* Lets offers hear of every move of s (sessions.on_moved): offers lapse with them. */
void offers_init(struct sessions *s);
/* draw <game> [offer|accept|decline|withdraw] */
void offers_draw(struct client *c, const struct proto_req *rq, struct game *g, int seat);
/* undo <game> [decline|withdraw] */
void offers_undo(struct client *c, const struct proto_req *rq, struct game *g, int seat);
/* abort <game> */
void offers_abort(struct client *c, const struct proto_req *rq, struct game *g, int seat);
/* rematch <game> [decline|withdraw] */
void offers_rematch(struct client *c, const struct proto_req *rq, struct game *g, int seat);

#endif
