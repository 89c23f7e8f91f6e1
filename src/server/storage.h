/*
 * storage.h - the running server's glue to its SQLite store (store.h):
 * accounts (register, password login on a libuv worker, takeover of a
 * second login, failed logins throttled per address), the game journal as
 * session hooks (ids from the store, every move durable before anyone is
 * told, results and Glicko-2 ratings at the end), recovery of the games in
 * progress at start, and the verbs that read the store: ratings, finger,
 * history, record, replay (account_cmds.c).
 *
 * Ownership: storage_open() gives a struct storage that the caller releases
 * with storage_close() after uv_run() has returned (every worker job and
 * replay timer is finished by then: the shutdown closes every connection,
 * and a connection's replays die with it).
 */
#ifndef BITARENA_SERVER_STORAGE_H
#define BITARENA_SERVER_STORAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "server/server.h"
#include "server/store.h"

#define STORAGE_DATA_DEFAULT  "data" /* --data default: ./data beside the server */
#define STORAGE_LIST_MAX      20     /* rows in ratings / history */
#define STORAGE_FINGER_GAMES  10     /* recent games in a finger */
#define STORAGE_REPLAY_DEF_MS 1000   /* replay pace when none is given */
#define STORAGE_REPLAY_MAX_MS 60000

struct replay;
struct unfinished;

struct storage {
	struct server *srv;
	struct store *db;
	struct ratelimit *rl;
	unsigned long long opslimit; /* Argon2id cost of new hashes */
	size_t memlimit;
	char dummy_hash[STORE_HASH_MAX]; /* checked for unknown names: same cost as a real one */
	unsigned jobs;                   /* password jobs on workers */
	struct replay *replays;          /* running replays (account_cmds.c) */
	struct unfinished *unfinished;   /* game ends the store refused, retried later */
};

/*
 * Opens (creating) dir and its database, installs the session hooks on s and
 * sets s->storage. fast_hash: the weakest Argon2id cost (tests only). 0 or a
 * negative enum store_err (the reason is logged to stderr).
 */
int storage_open(struct server *s, const char *dir, bool fast_hash, struct storage **out);
/*
 * Brings back every game in progress in the store: positions replayed,
 * clocks from the journal with the side to move's clock started again now,
 * seats held for their players through the grace. Returns the number of
 * games restored or a negative enum store_err.
 */
int storage_recover(struct storage *st);
/* The seek options of a stored game: its option words, then its clock and rating; 0 or -1. */
int storage_seek_opts(const struct game_ops *ops, const struct store_game *sg,
                      struct seek_opts *so);
/* Closes the store and frees st (NULL is fine); s->storage is cleared. */
void storage_close(struct storage *st);

/* 1 if name is an account, 0 if not (or no storage), < 0 on a storage failure. */
int storage_is_account(struct server *s, const char *name);
/* c is closing: its replays stop, a password job for it will find it gone. */
void storage_conn_gone(struct client *c);

/* Handlers (the dispatcher checked arity and login); each replies itself. */
void acct_register(struct client *c, const struct proto_req *rq);
void acct_login(struct client *c, const struct proto_req *rq); /* login <name> <password> */
void acct_ratings(struct client *c, const struct proto_req *rq);
void acct_finger(struct client *c, const struct proto_req *rq);
void acct_history(struct client *c, const struct proto_req *rq);
void acct_record(struct client *c, const struct proto_req *rq);
void acct_replay(struct client *c, const struct proto_req *rq);

/* account_cmds.c: stops every replay of c (storage_conn_gone). */
void replay_conn_gone(struct storage *st, struct client *c);

#endif
