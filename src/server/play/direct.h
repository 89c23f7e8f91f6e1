/*
 * direct.h - what one user sends another, above the lobby (it finds users
 * and keeps seeks there): `tell <user> <text>`, a private message, and
 * `match <user> <kind> [opts]`, a challenge: a seek that only its author and
 * the one user it is offered to can see, accept (`accept`, the target only)
 * or end (`decline` by the target, `unseek` by the author). Each end of a
 * challenge is told to the other side; a challenge ends when either side
 * leaves (disconnects or logs out), and the one who stays is told.
 */
#ifndef BITARENA_SERVER_DIRECT_H
#define BITARENA_SERVER_DIRECT_H

#include "server/play/lobby.h"

/* tell <user> <text>: to a logged-in user (NO_SUCH_USER when not online). */
void direct_tell(struct lobby *l, struct client *c, const struct proto_req *rq, const char *to,
                 const char *text);
/* match <user> <kind> [opt=value ...]: argv[0] the user, argv[1..] as for seek. */
void direct_match(struct lobby *l, struct client *c, const struct proto_req *rq);
/* decline <seek-id>: k is a challenge to c (the dispatcher hid the others' challenges). */
void direct_decline(struct lobby *l, struct client *c, const struct proto_req *rq, struct seek *k);
/* unseek <seek-id> of c's own challenge k: withdrawn, its target told. */
void direct_withdraw(struct lobby *l, struct client *c, const struct proto_req *rq, struct seek *k);
/*
 * c is leaving (its connection closes, or it logs out): the other side of
 * each challenge from or to c is told it is gone. The lobby then removes
 * them (lobby_client_gone).
 */
void direct_client_gone(struct lobby *l, struct client *c);

#endif
