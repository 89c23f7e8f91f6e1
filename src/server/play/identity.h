/*
 * identity.h - who may be a name: a guest's token, and a login that takes an
 * identity over from another connection. Beside the lobby (a login ends in
 * lobby_login) and above the sessions (a guest's seats keep its token).
 *
 * A guest is given a token at login (PROTO_TOKEN_LEN characters, random:
 * libsodium). The name is the guest's while it is connected or has seats in
 * games not yet ended ("held"); meanwhile `login <name>` without the token is
 * NAME_TAKEN, `login <name> <token>` with it is that guest (its seats come
 * back; a connection still holding the name is told SESSION_TAKEN and
 * closed), and the name cannot be registered. The connection keeps its token
 * after logout, so `login <name>` on the same connection is the same guest.
 * A seat keeps the token as its hash (session_token_hash()), and the journal
 * stores that hash with the game, so a seat restored after a restart, or in
 * a game another node of a cluster took over, comes back only with its token
 * too (compared in constant time). Only a guest seat without a hash (a game
 * stored by a bitarena before the hashes were) is taken by the first guest
 * to log in by its name. In a cluster the name may be held by seats on
 * another node: the login goes through the lobby's guest hook with the token
 * to try there (cluster.c), and that node checks the token again.
 *
 * A guest who lost its token (a page's storage cleared, a telnet user who
 * never noted it) comes back without it from the same address, within the
 * grace: `login <name>` with no token takes the seats back when no connection
 * holds the name, and the guest seats in grace left from that address are all
 * that one guest's (session_guest_left_from(): one name, none restored from
 * the store; a single server's: off in a cluster, where the seats may be any
 * node's). The login gets a new token and the
 * seats take it. Two guests gone from one address (a shared NAT): neither
 * comes back that way. PROTOCOL.md §6 says why this is safe enough.
 */
#ifndef BITARENA_SERVER_IDENTITY_H
#define BITARENA_SERVER_IDENTITY_H

#include <stdbool.h>

#include "server/play/lobby.h"

/* A fresh token: PROTO_TOKEN_LEN characters of an unambiguous alphabet, NUL-terminated. */
void identity_token_new(char out[PROTO_TOKEN_LEN + 1]);

/*
 * Is name a guest's now: a connected guest other than except, or a guest seat
 * in a game not yet ended? *guarded (may be NULL): whether a token holds it
 * (false for a seat without a token hash, which the first guest claims).
 */
bool identity_guest_holds(struct lobby *l, const char *name, const struct client *except,
                          bool *guarded);

/*
 * login <name> [token] as a guest (the caller has made sure name is no
 * account's): logs c in and answers rq, or answers the refusal. token NULL:
 * none given (c's own token from an earlier login stands for it). True when c
 * is logged in, or when the cluster (the lobby's guest hook) checks the name
 * on the other nodes first and answers rq itself.
 */
bool identity_guest_login(struct lobby *l, struct client *c, const struct proto_req *rq,
                          const char *name, const char *token);

/* name's other connection (if any) is told SESSION_TAKEN by c and closed; its seats wait for c. */
void identity_take_over(struct lobby *l, struct client *c, const char *name);
/* The refusal of a guest name whose seats a token guards: BAD_LOGIN when a token was given
   (a failed login), else NAME_TAKEN saying how to come back (login <name> <token>). */
void identity_refuse_guarded(struct client *c, const struct proto_req *rq, const char *name,
                             bool given);
/* BAD_LOGIN: a password or token that does not fit, the name and the secret not told apart. */
void identity_refuse_login(struct client *c, const struct proto_req *rq);
/* NAME_TAKEN: name is a connected user's (here, or on another node of a cluster). */
void identity_refuse_connected(struct client *c, const struct proto_req *rq, const char *name);

/*
 * Bots and who meets them (issue 22; PROTOCOL.md §17). A user's choices are its
 * connection's (struct client's prefs: an account's read from the store at login,
 * changed by set bot|bots|accept; a guest's in memory, never a bot), so these are
 * reads of memory, cheap from the loop. NULL or a client not logged in: a human
 * taking everything. A relay client (another node's user in a cluster) carries
 * no choices here: it reads as a human taking everything.
 */
/* c is a bot's account. */
bool identity_is_bot(const struct client *c);
/* c refuses to meet bots (set bots off). */
bool identity_refuses_bots(const struct client *c);
/* c's accept filter (games/accept.h's text), "" when it takes every game. */
const char *identity_accept(const struct client *c);
/* The connected user name is a bot (false when nobody of that name is connected here). */
bool identity_name_is_bot(struct lobby *l, const char *name);
/* a and b may play each other: neither is a bot the other refuses (set bots off). */
bool identity_bots_meet(const struct client *a, const struct client *b);

#endif
