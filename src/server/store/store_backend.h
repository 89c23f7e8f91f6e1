/*
 * store_backend.h - what a storage back end implements: one struct of
 * synchronous functions behind the storage interface of store.h. SQLite
 * (store_sqlite.c) is the first; a PostgreSQL back end (libpq) fits behind
 * the same struct unchanged: nothing here names a type of either library,
 * every back end keeps its own schema migrations, and game ids come from the
 * back end (reserve_ids), not from the caller.
 *
 * Who calls it: only store.c, whose public functions validate every argument
 * (lengths, seats, NUL-terminated buffers, valid names) before they dispatch
 * here, so a back end may rely on valid input. One connection (a struct
 * store) is used by one thread at a time: the journal's writer thread owns
 * one (store_writer.h), each reader thread owns one (store_reader.h), and
 * recovery at start uses one before the writer starts.
 *
 * A connection is the back end's own struct with struct store as its first
 * member: open() allocates it and fills base.be; close() frees it. The base
 * fields other than be belong to store.c.
 *
 * Writes and transactions. begin() opens a write transaction (taking the
 * write lock, waiting at most the busy timeout); commit() makes it durable
 * as options.sync says: STORE_SYNC_FULL fsyncs before commit() returns,
 * STORE_SYNC_LAZY only writes (the bytes are in the OS cache, safe from a
 * crash of the process) and sync() fsyncs later. rollback() never fails and
 * is harmless without a transaction. A write function called outside a
 * transaction commits on its own (as one atomic unit). Inside one, each
 * write is atomic too and its outcome is one of:
 *   - 0: done;
 *   - a refusal (store_err_is_failure() false: STORE_ESTATE, STORE_ENOTFOUND,
 *     STORE_EEXISTS, STORE_EINVAL): nothing of it was written and the
 *     transaction is still good for the next write;
 *   - a failure (STORE_EIO, STORE_EBUSY, STORE_EFULL, STORE_EGONE,
 *     STORE_ENOMEM): the caller must roll back.
 *
 * Errors are enum store_err; last_error() gives the back end's own message
 * for the last failure of this connection (for logs).
 */
#ifndef BITARENA_SERVER_STORE_BACKEND_H
#define BITARENA_SERVER_STORE_BACKEND_H

#include "server/store/store.h"

struct store_backend;

/* The part of every connection that store.c keeps (see store.c). */
struct store {
	const struct store_backend *be;
	struct store_options opts;   /* as opened (dir and conninfo not kept: back ends copy what
	                                they need) */
	unsigned long long opslimit; /* Argon2id cost of new hashes */
	size_t memlimit;
	bool in_txn; /* between store_begin() and store_commit()/store_rollback() */
	/* A hash of nothing in particular, made on the first login of an unknown name and
	 * checked on every one, so an unknown name costs the same time as a wrong password. */
	char dummy_hash[STORE_HASH_MAX];
};

struct store_backend {
	const char *name; /* "sqlite", "postgresql" */

	/* Connection. open() creates what is missing and runs this back end's migrations
	 * (not for a reader: it only checks the schema is not newer than it knows). */
	int (*open)(const struct store_options *o, struct store **out);
	void (*close)(struct store *s);
	const char *(*where)(const struct store *s); /* the file or server, for logs */
	const char *(*last_error)(struct store *s);
	int (*schema_version)(struct store *s);
	/* 0, or STORE_EGONE when the database was removed, replaced or emptied under us. */
	int (*check)(struct store *s);

	/* Transactions. */
	int (*begin)(struct store *s);
	int (*commit)(struct store *s);
	void (*rollback)(struct store *s);
	int (*sync)(struct store *s); /* STORE_SYNC_LAZY: fsync what was committed */
	/* Reserves n game ids no one will ever be given again: *first .. *first + n - 1. */
	int (*reserve_ids)(struct store *s, int64_t n, int64_t *first);

	/* Writes. Names are valid (store_name_valid or, for players, 1..32 bytes). */
	int (*account_insert)(struct store *s, const char *name, const char *hash, int64_t now);
	int (*rating_put)(struct store *s, const char *name, const char *kind,
	                  const struct store_rating *r);
	int (*game_insert)(struct store *s, const struct store_game *g, int64_t id);
	int (*move_append)(struct store *s, int64_t id, const struct store_move *m);
	/* Removes the last n moves; plies >= 0: only when the journal holds that many. */
	int (*moves_drop)(struct store *s, int64_t id, int n, int plies);
	int (*game_finish)(struct store *s, int64_t id, const struct store_finish *f);

	/* Reads (inside a transaction they see its writes). */
	int (*account_get)(struct store *s, const char *name, char canon[STORE_NAME_MAX + 1],
	                   char hash[STORE_HASH_MAX]);
	int (*rating_get)(struct store *s, const char *name, const char *kind,
	                  struct store_rating *out);
	int (*rating_top)(struct store *s, const char *kind, struct store_rating_row *out,
	                  size_t cap);
	int (*rating_top_bots)(struct store *s, const char *kind, struct store_rating_row *out,
	                       size_t cap);
	int (*ratings_of)(struct store *s, const char *name, struct store_rating_row *out,
	                  size_t cap);
	int (*game_fetch)(struct store *s, int64_t id, struct store_game *out);
	int (*games_in_progress)(struct store *s, struct store_game **out, size_t *n);
	int (*history)(struct store *s, const char *name, int limit, struct store_game **out,
	               size_t *n);

	/* An account's preferences (store.h): p->accept fits. */
	int (*prefs_get)(struct store *s, const char *name, struct store_prefs *out);
	int (*prefs_put)(struct store *s, const char *name, const struct store_prefs *p);
	/* Moderation (store.h): m is valid. */
	int (*mod_write)(struct store *s, const struct store_mod *m);
	int (*mod_list)(struct store *s, enum store_mod_kind kind, int limit,
	                struct store_mod **out, size_t *n);

	/* Cluster (NULL where a back end has none): see store_games_claim(). */
	int (*games_claim)(struct store *s, const char *from, struct store_game **out, size_t *n);

	/* The API's and the exports' reads (store.h). find(): q->before is never 0 here (no
	 * bound is INT64_MAX) and q->player, when set, fits a seat's name. */
	int (*games_find)(struct store *s, const struct store_game_query *q, int limit,
	                  struct store_game **out, size_t *n);
	int (*player_counts)(struct store *s, const char *name, struct store_counts *out);
	/* A read snapshot on a reader connection: begin, then end (commit) or rollback(). */
	int (*snapshot_begin)(struct store *s);
	int (*snapshot_end)(struct store *s);
	/* Tournaments (store.h): one upsert, one read of those not over. */
	int (*tourney_put)(struct store *s, int64_t id, const char *state, const char *doc,
	                   int64_t now);
	int (*tourneys_open)(struct store *s, struct store_tourney **out, size_t *n,
	                     int64_t *max_id);
	/* Ladders (store.h): the same for the ladders' documents (all of them). */
	int (*ladder_put)(struct store *s, int64_t id, const char *state, const char *doc,
	                  int64_t now);
	int (*ladders_open)(struct store *s, struct store_tourney **out, size_t *n,
	                    int64_t *max_id);
	/* A copy of the store into the new file dest (NULL where a back end has none). */
	int (*backup)(struct store *s, const char *dest);
};

/* The back ends built in. */
extern const struct store_backend store_sqlite;
extern const struct store_backend store_pg; /* store_pg.c, libpq (HAVE_POSTGRESQL) */

/* Appends a game row to a growing array (*v, *len, *cap); for list queries of back ends. */
int store_games_push(struct store_game **v, size_t *len, size_t *cap, const struct store_game *g);

#endif
