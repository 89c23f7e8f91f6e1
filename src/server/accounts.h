/*
 * accounts.h - accounts on the running server, above the lobby (a login ends
 * in lobby_login) and beside the journal: register, password login with the
 * Argon2id work on a libuv worker (the connection's next commands wait: its
 * input is held, conn_hold), a second login of an account taking the seat over
 * from the first connection (told SESSION_TAKEN and closed), failed logins
 * throttled per address (ratelimit.h). Unknown names cost the same work as
 * wrong passwords, so timing tells no names apart.
 *
 * A password job finds its connection again by id when it is done: a client
 * gone meanwhile is simply not told.
 */
#ifndef BITARENA_SERVER_ACCOUNTS_H
#define BITARENA_SERVER_ACCOUNTS_H

#include <stdbool.h>

#include "server/journal.h"
#include "server/lobby.h"
#include "server/store.h"

struct ratelimit;

struct accounts {
	struct store *db;
	struct journal *journal; /* its pending game ends are written before an account */
	struct lobby *lobby;     /* logins end there; a takeover finds the other client there */
	struct conn_hub *hub;    /* a password job finds its connection again */
	struct ratelimit *rl;
	unsigned long long opslimit; /* Argon2id cost of new hashes */
	size_t memlimit;
	char dummy_hash[STORE_HASH_MAX]; /* checked for unknown names: same cost as a real one */
	unsigned jobs;                   /* password jobs on workers */
};

/*
 * Accounts in db. fast_hash: the weakest Argon2id cost (tests only). 0, or a
 * negative enum store_err (logged; a is closed then).
 */
int accounts_init(struct accounts *a, struct store *db, struct journal *jn, struct lobby *l,
                  struct conn_hub *hub, bool fast_hash);
/* Frees what accounts_init() made; the store stays open. Jobs must be done (after uv_run). */
void accounts_close(struct accounts *a);
/* 1 if name is an account, 0 if not (or a is NULL: no store), < 0 on a storage failure. */
int accounts_is_account(const struct accounts *a, const char *name);
/* register <name> <password>: answers rq once the hash is made and stored. */
void accounts_register(struct accounts *a, struct client *c, const struct proto_req *rq);
/* login <name> <password> (c is not logged in): answers rq once the password is checked. */
void accounts_login(struct accounts *a, struct client *c, const struct proto_req *rq);

#endif
