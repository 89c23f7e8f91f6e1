/*
 * store/ - storage behind one interface, with threads of its own. Below
 * net/, above util/ (the order of the folders: DEVELOPERS.md, Layout;
 * tests/layers.py checks it), though it calls nothing of the server: only
 * SQLite, libpq and libsodium. The records, the cluster and server.c call
 * it. News upward: the callbacks its callers hand the writer (on_batch,
 * on_sync, rate) and each reader job (done), run on the loop thread.
 *   store.c         the interface: argument checks, the file-moved guard, hashes
 *   store_rows.c    rows as plain values, shared by the interface and back ends
 *   store_sqlite.c  the SQLite back end (store_backend.h)
 *   store_pg.c      the PostgreSQL back end (libpq, on the storage threads)
 *   store_writer.c  the journal queue and its writer thread (group commit)
 *   store_reader.c  reader threads for reads off the loop
 *
 * store.h - the server's storage interface: accounts (Argon2id password
 * hashes), Glicko-2 ratings per game kind, games with their move journal, and
 * the recovery query that brings games in progress back after a crash.
 *
 * Back ends: the functions below validate their arguments and dispatch to a
 * back end (store_backend.h). SQLite is the one built in (store_sqlite.c):
 * one database file, DIR/bitarena.db, in WAL mode. Nothing here names a type
 * of a database library, so a PostgreSQL back end fits behind it unchanged.
 *
 * Durability: with STORE_SYNC_FULL (the default; SQLite synchronous=FULL)
 * when a store_* call that writes returns 0 the change is committed and on
 * disk (fsync'd), so "a move is journalled before anyone is told" holds if
 * the caller appends the move before it broadcasts it. With STORE_SYNC_LAZY
 * (SQLite synchronous=NORMAL) a commit is written to the WAL, in the OS
 * cache: it survives the process being killed but not a power cut until
 * store_sync() (or a checkpoint) has run. The schema is versioned per back
 * end; store_open() runs every missing migration in order, each in its own
 * transaction, so reopening is idempotent.
 *
 * Threading: a struct store is one connection, used by one thread at a time.
 * Every call blocks on disk I/O (a few ms for a commit with fsync). A server
 * must not call the writing functions on its event loop: the journal queue
 * (store_writer.h) runs them on a writer thread with group commit, and
 * store_reader.h runs reads on reader threads. The password functions cost
 * ~0.1 s of CPU and 64 MiB each (Argon2id, libsodium's INTERACTIVE limits);
 * store_password_hash()/store_password_check() are pure and thread-safe.
 *
 * Timestamps: every time is passed in by the caller, in milliseconds since
 * the Unix epoch (store_now_ms() reads the wall clock for convenience); the
 * store itself never reads a clock, so tests are deterministic.
 *
 * Errors: functions return 0 (or a count) on success and a negative enum
 * store_err on failure; store_strerror() names it. store_err_is_failure()
 * tells a failure of the store (disk, lock, file gone: the write may work
 * later) from a refusal of the request (no such game, name taken, ...).
 */
#ifndef BITARENA_SERVER_STORE_H
#define BITARENA_SERVER_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/limits.h"

/* account names: 2..20 characters of [A-Za-z0-9_]; passwords: 6..128 bytes, any but NUL */
#define STORE_NAME_MIN       PROTO_NAME_MIN
#define STORE_NAME_MAX       PROTO_NAME_MAX
#define STORE_PASS_MIN       PROTO_PASS_MIN
#define STORE_PASS_MAX       PROTO_PASS_MAX
#define STORE_SEATS          2   /* == GAME_MAX_PLAYERS (checked in store.c) */
#define STORE_PLAYER_MAX     32  /* a seat's name: an account name or a guest name */
#define STORE_KIND_MAX       16  /* "ttt", "mnk", "tak", "xmas" */
#define STORE_OPTIONS_MAX    256 /* the game's options as text, "size=6 komi=4" */
#define STORE_MOVE_TEXT      160 /* == GAME_MOVE_TEXT */
#define STORE_RESULT_MAX     24  /* "1-0", "R-0", "1/2-1/2", "5-3" */
#define STORE_REASON_MAX     32  /* "road", "flats", "timeout", "resign", "abandon", ... */
#define STORE_HASH_MAX       128 /* == crypto_pwhash_STRBYTES: an encoded Argon2id hash */
#define STORE_DB_FILE        "bitarena.db"
#define STORE_INVALID_ACTION "!" /* journal text of a refused simultaneous action */
#define STORE_NODE_MAX       64  /* a cluster node's instance, "name#instance" */
#define STORE_TOKEN_HASH     64  /* hex digits of a guest seat's token hash */

enum store_err {
	STORE_OK = 0,
	STORE_EIO = -1,       /* SQLite or file system failure (disk full, corrupt, ...) */
	STORE_ENOMEM = -2,    /* out of memory */
	STORE_ENAME = -3,     /* account name not 2..20 characters of [A-Za-z0-9_] */
	STORE_EPASSWORD = -4, /* password not 6..128 bytes */
	STORE_EEXISTS = -5,   /* the name is taken (names compare case-insensitively) */
	STORE_ENOTFOUND = -6, /* no such account or game */
	STORE_EAUTH = -7,     /* wrong password */
	STORE_ESTATE = -8,    /* not possible in the game's state: finished, ply out of order,
	                         no move to take back */
	STORE_EINVAL = -9,    /* a bad argument: text too long, seat out of range, ... */
	STORE_ESCHEMA = -10,  /* the database was written by a newer bitarena */
	STORE_ECRYPTO = -11,  /* libsodium failed (init, or no memory for Argon2id) */
	STORE_EBUSY = -12,    /* the database stayed locked by another process past the busy
	                         timeout */
	STORE_EFULL = -13,    /* the disk (or the file system's quota) is full */
	STORE_EGONE = -14,    /* the database file was removed, replaced or emptied under the
	                         running server, or is empty where a store is expected */
	STORE_EUNAVAIL = -15  /* the database server cannot be reached (down, restarting, or
	                         the connection broke); the next call tries to reconnect */
};
const char *store_strerror(int err);
/*
 * True for a failure of the store itself (EIO, ENOMEM, EBUSY, EFULL, EGONE,
 * EUNAVAIL, ESCHEMA, ECRYPTO): nothing was written, and the same write may succeed
 * once the cause is gone. False for 0 and for refusals of the request.
 */
bool store_err_is_failure(int err);

/* The wall clock in ms since the Unix epoch (CLOCK_REALTIME). */
int64_t store_now_ms(void);

struct store; /* opaque: one connection to a back end (store_backend.h) */

#define STORE_BUSY_DEFAULT_MS 5000 /* how long a write waits for another process's lock */

enum store_sync {
	STORE_SYNC_FULL = 0, /* a commit is fsync'd before it returns */
	STORE_SYNC_LAZY = 1  /* a commit is written, not fsync'd; store_sync() fsyncs */
};

struct store_options {
	const char *backend;  /* "sqlite" or "postgresql"; NULL: "sqlite" */
	const char *dir;      /* sqlite: DIR/bitarena.db, DIR created (0700) when missing */
	const char *conninfo; /* postgresql: a libpq connection URI or string (not kept) */
	const char *node;     /* a cluster node's instance ("name#instance", at most
	                         STORE_NODE_MAX bytes; not kept): the games it starts are its
	                         own, and every write of a game checks that the game is still
	                         its own (PostgreSQL; a refusal, STORE_ESTATE, when another node
	                         took it over); NULL: a single server */
	int busy_timeout_ms;  /* a lock held by another connection is waited for this long
	                         before a write fails with STORE_EBUSY; 0: STORE_BUSY_DEFAULT_MS */
	enum store_sync sync; /* STORE_SYNC_FULL by default */
	bool reader;          /* a connection that only reads: no migrations, writes refused */
};

/*
 * Opens a connection as o says: creates what is missing, runs the back end's
 * migrations (a reader only checks the schema is known) and prepares its
 * statements. SQLite: WAL, synchronous FULL or NORMAL, foreign_keys=ON. A
 * 0-byte database file, or a WAL without its database, is refused
 * (STORE_EGONE): a store was there and is lost; it is never silently
 * replaced by an empty or a torn one. On success *out owns
 * the connection: release it with store_close(). On failure *out is NULL.
 */
int store_open_opts(const struct store_options *o, struct store **out);
/* store_open_opts() with SQLite in dir, STORE_SYNC_FULL and the default busy timeout. */
int store_open(const char *dir, struct store **out);
/* Closes the connection and frees it. NULL is fine. */
void store_close(struct store *s);
/* The schema version after migrations (SQLite: PRAGMA user_version). */
int store_schema_version(struct store *s);
/* Where the data is (SQLite: the database file's path; owned by s). */
const char *store_path(const struct store *s);
/* The back end's message for the last failure, for the server log (owned by s). */
const char *store_last_error(struct store *s);
/* The options s was opened with (dir is not kept). */
const struct store_options *store_options_of(const struct store *s);
/* The back end's name, "sqlite". */
const char *store_backend_name(const struct store *s);
/*
 * 0 when the database is still the one opened; STORE_EGONE when its file was
 * removed, replaced (SQLite's file-moved check) or emptied. Every write
 * outside a transaction checks it, and store_begin() does: writing to a file
 * nobody will ever open again would lose everything silently.
 */
int store_check(struct store *s);

/* ---- transactions (the journal's writer groups many writes into one) ------------- */

/*
 * Opens a write transaction (checks store_check() and takes the write lock,
 * waiting at most the busy timeout: STORE_EBUSY). Until store_commit() or
 * store_rollback() every write joins it and commits with it; a write that
 * is refused (store_err_is_failure() false) changed nothing and the
 * transaction goes on; after a failure the caller must roll back.
 */
int store_begin(struct store *s);
/* Commits: durable as the sync mode says (FULL: fsync'd on return). On failure it rolled back. */
int store_commit(struct store *s);
/* Drops the transaction's writes. Harmless without a transaction. */
void store_rollback(struct store *s);
/* STORE_SYNC_LAZY: fsyncs every commit so far (a no-op cost under FULL). */
int store_sync(struct store *s);
/*
 * Reserves n (1..1000000) game ids for the caller: *first .. *first + n - 1
 * are never given to anyone again, even when unused (ids may have gaps).
 */
int store_reserve_ids(struct store *s, int64_t n, int64_t *first);

/* ---- accounts ------------------------------------------------------------------ */

/* True when name is 2..20 characters of [A-Za-z0-9_]. */
bool store_name_valid(const char *name);
/* True when the password's length is 6..128 bytes. */
bool store_password_valid(const char *password);

/*
 * Argon2id via crypto_pwhash_str with the store's cost (default
 * crypto_pwhash_OPSLIMIT_INTERACTIVE / MEMLIMIT_INTERACTIVE: an online game
 * server hashes on every login, and INTERACTIVE keeps that near 0.1 s and
 * 64 MiB; MODERATE would be ~0.7 s and 256 MiB per login). Writes the encoded
 * hash (NUL-terminated, < STORE_HASH_MAX) into out. Pure and thread-safe.
 * The clear password is never stored or logged.
 */
int store_password_hash(const char *password, unsigned long long opslimit, size_t memlimit,
                        char out[STORE_HASH_MAX]);
/* crypto_pwhash_str_verify (constant-time compare): 0 on match, else STORE_EAUTH. */
int store_password_check(const char *hash, const char *password);
/*
 * The cost used by store_account_create() for new hashes. Tests lower it
 * (crypto_pwhash_OPSLIMIT_MIN / MEMLIMIT_MIN) to run fast under valgrind;
 * existing hashes carry their own parameters, so verification is unaffected.
 */
void store_set_hash_cost(struct store *s, unsigned long long opslimit, size_t memlimit);

/*
 * Registers name with password: validates both (STORE_ENAME, STORE_EPASSWORD),
 * hashes, inserts; STORE_EEXISTS when the name is taken in any letter case.
 * The name keeps the letter case given here (its canonical form).
 */
int store_account_create(struct store *s, const char *name, const char *password, int64_t now);
/* Inserts an account whose hash the caller computed (store_password_hash). */
int store_account_insert(struct store *s, const char *name, const char *hash, int64_t now);
/*
 * Checks a login. On success copies the canonical spelling into canon (may be
 * NULL) and returns 0. Wrong password: STORE_EAUTH; unknown or invalid name:
 * STORE_ENOTFOUND (the caller should answer both the same way to the user;
 * an unknown name is checked against a dummy hash, so it takes as long).
 */
int store_account_verify(struct store *s, const char *name, const char *password,
                         char canon[STORE_NAME_MAX + 1]);
/* Fetches the canonical name and the stored hash (for a check on a worker thread). */
int store_account_hash(struct store *s, const char *name, char canon[STORE_NAME_MAX + 1],
                       char hash[STORE_HASH_MAX]);
/* 1 if the account exists (canon filled when not NULL), 0 if not, < 0 on error. */
int store_account_exists(struct store *s, const char *name, char canon[STORE_NAME_MAX + 1]);

/* ---- an account's preferences (schema 7, issue 22): bot, bots off, accept filter -- */

#define STORE_ACCEPT_MAX 200 /* an accept filter's text (set accept "...") */

/*
 * What an account chose about its opponents, kept with the account: it is a
 * bot's (shown as such everywhere; set at register or before its first game),
 * it refuses bots (a human's `set bots off`), the games it takes (an accept
 * filter, games/accept.h's text; "" takes all). played is read only: the
 * account has a game stored (in progress or ended).
 */
struct store_prefs {
	bool bot;
	bool bots_off;
	bool played;
	char accept[STORE_ACCEPT_MAX + 1];
};
/* The preferences of account name (*out zeroed first). 0, STORE_ENOTFOUND or < 0. */
int store_prefs_get(struct store *s, const char *name, struct store_prefs *out);
/*
 * Writes p's bot, bots_off and accept to account name (p->played is not written).
 * Changing the bot flag of an account that has played a game is refused: STORE_ESTATE,
 * nothing written (an account is a bot's, or a human's, from its first game on).
 * STORE_ENOTFOUND: no such account.
 */
int store_prefs_put(struct store *s, const char *name, const struct store_prefs *p);

/* ---- ratings ------------------------------------------------------------------- */

/* Glicko-2 numbers as shown to players (Glicko scale, not the internal mu/phi). */
struct store_rating {
	double rating;     /* default 1500 */
	double rd;         /* default 350 */
	double volatility; /* default 0.06 */
	int games;         /* rated games played in this kind */
	int64_t updated;   /* ms since epoch of the last change; 0 for the default */
};
void store_rating_default(struct store_rating *r);

/*
 * The rating of account name in kind; the default (1500/350/0.06, 0 games)
 * when the account has none yet. STORE_ENOTFOUND for an unknown account.
 */
int store_rating_get(struct store *s, const char *name, const char *kind, struct store_rating *out);
/* Inserts or replaces the rating of name in kind (r->updated is stored as given). */
int store_rating_put(struct store *s, const char *name, const char *kind,
                     const struct store_rating *r);

struct store_rating_row {
	char name[STORE_NAME_MAX + 1]; /* canonical account name */
	char kind[STORE_KIND_MAX];
	struct store_rating r;
};
/*
 * The top list of kind: accounts with at least one rated game, best rating
 * first (ties: fewer RD first, then name). Fills up to cap rows; returns the
 * count or < 0.
 */
int store_rating_top(struct store *s, const char *kind, struct store_rating_row *out, size_t cap);
/* The same list of bots' accounts only (schema 7's account_prefs: `ratings <kind> bots`). */
int store_rating_top_bots(struct store *s, const char *kind, struct store_rating_row *out,
                          size_t cap);
/* Every rating of one account (for "finger"), by kind name; count or < 0. */
int store_ratings_of(struct store *s, const char *name, struct store_rating_row *out, size_t cap);

/* ---- moderation (schema 4): admins, bans, mutes, blocks, the audit trail ------- */

#define STORE_TARGET_MAX     64  /* a name, or "addr:" and an address */
#define STORE_MOD_REASON_MAX 200 /* a ban's or a mute's reason, an announcement (cut) */
#define STORE_ACTION_MAX     16  /* an audit row's action: "ban", "kick", "abort", ... */

enum store_mod_kind {
	STORE_MOD_ADMIN, /* target is an admin (actor: who made them one) */
	STORE_MOD_BAN,   /* target (a name or "addr:ADDRESS") may not log in until `until` */
	STORE_MOD_MUTE,  /* target may not say or tell until `until` */
	STORE_MOD_BLOCK, /* actor blocks target (an account's list, not audited) */
	STORE_MOD_AUDIT  /* an audit row only (kick, abort, announce, motd) */
};

/*
 * One change of the moderation state and its audit row, written as one unit:
 * the row of (kind, target) (for a block: (actor, target)) is put, or with
 * remove taken away (STORE_ENOTFOUND when there was none), and when action is
 * not "" an audit row (at, actor, action, target, reason, until) is added.
 * Names compare case-insensitively (keys are ASCII lowercase). Listed rows
 * come back in the same struct: admins (target, actor, at), bans and mutes
 * (all fields but action), blocks (actor, target, at), audit rows (all,
 * newest first).
 */
struct store_mod {
	enum store_mod_kind kind;
	bool remove;
	char actor[STORE_PLAYER_MAX + 1];
	char action[STORE_ACTION_MAX];
	char target[STORE_TARGET_MAX + 1];
	char reason[STORE_MOD_REASON_MAX + 1];
	int64_t at;
	int64_t until; /* 0: no end */
};
/* Validates m (texts NUL-terminated, kind known) and writes it. */
int store_mod_write(struct store *s, const struct store_mod *m);
/*
 * The rows of kind (the audit trail: the latest limit, newest first; the
 * others: all, limit ignored) into a malloc'd array *out of *n (NULL when
 * none; the caller frees it). 0 or < 0.
 */
int store_mod_list(struct store *s, enum store_mod_kind kind, int limit, struct store_mod **out,
                   size_t *n);
/* Appends m to a growing array (*v, *len, *cap: 0 and NULL to start). 0 or STORE_ENOMEM. */
int store_mod_push(struct store_mod **v, size_t *len, size_t *cap, const struct store_mod *m);

/* ---- games and the move journal ------------------------------------------------- */

enum store_status { STORE_IN_PROGRESS = 0, STORE_FINISHED = 1, STORE_ABORTED = 2 };
/* "in_progress", "finished", "aborted" (the text stored in the database). */
const char *store_status_name(enum store_status st);

/*
 * One journalled ply. Simultaneous games (Xmas Rush) journal each resolved
 * turn as STORE_SEATS rows in seat order (plies 2t, 2t+1), text "" for a seat
 * that sent nothing in time and STORE_INVALID_ACTION for a seat whose line was
 * refused as the referee's invalid action; a recovered game with an odd ply count lost the
 * second half of its last turn to the crash, and that turn is replayed from
 * its start (it was never announced: announce only after both rows).
 */
struct store_move {
	int ply;                       /* 0-based, consecutive within a game */
	int seat;                      /* who made it */
	char text[STORE_MOVE_TEXT];    /* canonical move text (format_move); may be "" */
	int64_t ms_used;               /* thinking time charged for this move */
	int64_t clock_ms[STORE_SEATS]; /* each seat's clock after the move (increment
	                                  included); 0 when untimed */
	int64_t at;                    /* ms since epoch when the move was accepted */
};

/*
 * A game row and, when loaded, its moves. Every text is a fixed buffer, so
 * the only heap memory is moves: release it with store_game_clear().
 */
struct store_game {
	int64_t id;                      /* unique, never reused, survives restarts */
	char kind[STORE_KIND_MAX];       /* engine name, as in game_find() */
	char options[STORE_OPTIONS_MAX]; /* the engine options as the server wrote them */
	uint64_t seed;                   /* the engine's init() seed */
	char players[STORE_SEATS][STORE_PLAYER_MAX + 1];
	bool guest[STORE_SEATS]; /* true: a guest name, not an account */
	/* A guest seat's token as the server keeps it: STORE_TOKEN_HASH lowercase hex digits
	   of its hash (session_token_hash(); never the token itself), so that the seat of a
	   restored game comes back only with its token. "" for an account's seat, a guest
	   seat without a token (a relay's, in a cluster) and a game stored before schema
	   version 3 (either back end) added them. */
	char token_hash[STORE_SEATS][STORE_TOKEN_HASH + 1];
	bool rated;
	int64_t time_base_ms; /* 0 and 0: untimed */
	int64_t time_inc_ms;
	int64_t started; /* ms since epoch */
	int64_t ended;   /* 0 while in progress */
	enum store_status status;
	char result[STORE_RESULT_MAX]; /* "" while in progress */
	int winner;                    /* seat, or -1 (draw / none) */
	char reason[STORE_REASON_MAX]; /* "" while in progress */
	int64_t clock_ms[STORE_SEATS]; /* final clocks once ended; else the clocks after
	                                  the last move (time_base_ms before any move) */
	int plies;                     /* number of journalled moves (always set) */
	double rating[STORE_SEATS];    /* each seat's rating in kind after the game: NAN when
	                                  not rated (and in games ended before schema 4) */
	struct store_move *moves;      /* plies entries, or NULL when not loaded; owned */
};
/* Frees g->moves and sets it to NULL (g itself is the caller's). */
void store_game_clear(struct store_game *g);
/* Clears each of n games and frees the array (as returned by the list calls). */
void store_games_free(struct store_game *v, size_t n);

/*
 * Starts a game: reads kind, options, seed, players, guest, token_hash, rated,
 * time_base_ms, time_inc_ms and started from g (other fields ignored;
 * token_hash must be "" or STORE_TOKEN_HASH hex digits, "" for an account) and
 * writes the new id (one store_reserve_ids()) into *id. Durable on return.
 */
int store_game_begin(struct store *s, const struct store_game *g, int64_t *id);
/*
 * Starts a game under an id the caller reserved (store_reserve_ids()):
 * STORE_EEXISTS when a game has that id already. g as for store_game_begin().
 */
int store_game_insert(struct store *s, const struct store_game *g, int64_t id);

/*
 * Journals one move of game id. m->ply must equal the number of moves
 * already journalled (else STORE_ESTATE: the caller's game and the journal
 * disagree), the game must be in progress (else STORE_ESTATE). Committed and
 * fsync'd before it returns: only then may the move be announced.
 */
int store_move_append(struct store *s, int64_t id, const struct store_move *m);

/*
 * Takes back the last journalled move of game id (an agreed undo; call twice
 * for two plies). STORE_ESTATE when there is none or the game is over.
 */
int store_move_remove_last(struct store *s, int64_t id);
/*
 * Takes back the moves of game id from ply `from` on, provided the journal
 * holds exactly `plies` moves (0 <= from < plies) and the game is in
 * progress; else STORE_ESTATE and nothing changes. The guard makes a
 * takeback queued behind a move that was never stored a refusal, not the
 * removal of the wrong move.
 */
int store_moves_truncate(struct store *s, int64_t id, int from, int plies);

/* How a game ended, and the rating changes that go with it. */
struct store_finish {
	enum store_status status; /* STORE_FINISHED or STORE_ABORTED */
	const char *result;       /* "1-0", "R-0", "0-1", "1/2-1/2", ... ("" ok) */
	int winner;               /* seat, or -1 */
	const char *reason;       /* "road", "timeout", "resign", "abort", ... */
	int64_t ended;
	int64_t clock_ms[STORE_SEATS]; /* final clocks */
	bool rate[STORE_SEATS];        /* true: write rating[seat] for that seat's account */
	struct store_rating rating[STORE_SEATS]; /* new ratings, in the game's kind */
};
/*
 * Ends game id (it must be in progress, else STORE_ESTATE) and, in the same
 * transaction, stores the new ratings of the seats with rate[] set (those
 * seats must be accounts: STORE_ENOTFOUND otherwise, and nothing is written).
 */
int store_game_finish(struct store *s, int64_t id, const struct store_finish *f);

/* One game with all its moves in ply order. STORE_ENOTFOUND if none. Clear out after. */
int store_game_fetch(struct store *s, int64_t id, struct store_game *out);

/*
 * Recovery at start: every game still in progress, oldest first, each with
 * all its moves in ply order. *out is a malloc'd array of *n games (NULL when
 * none), owned by the caller: release with store_games_free(*out, *n).
 * To restore one: init the engine with kind/options/seed, apply the moves in
 * order, set the clocks from clock_ms (the last move's clocks), and start the
 * side to move's clock again from now (downtime is not charged).
 */
int store_games_in_progress(struct store *s, struct store_game **out, size_t *n);

/*
 * The latest ended games (finished or aborted) that name played, newest
 * first, at most limit, without moves (plies is set, moves is NULL). Names
 * compare case-insensitively. Same ownership as store_games_in_progress().
 */
int store_history(struct store *s, const char *name, int limit, struct store_game **out, size_t *n);

/* ---- finding and counting games, snapshots, backups (the API and the exports) ---------- */

/* Which ended games store_games_find() lists; a zeroed query (rated -1) is every one. */
struct store_game_query {
	const char *player;   /* NULL: anyone; else games with a seat of this name (any case) */
	const char *kind;     /* NULL: any kind; else this engine's games */
	int rated;            /* -1: either; 0: unrated only; 1: rated only */
	int64_t since, until; /* the game's end (ms since the epoch) at or after since and at
	                         or before until; 0: no bound */
	int64_t before;       /* only ids below this one (where the last page ended); 0: none */
	bool moves;           /* load each game's moves */
};
#define STORE_FIND_MAX 1000 /* games one store_games_find() returns at most */

/*
 * One page of the ended games (finished or aborted) that q matches, highest
 * id first (the order they started, newest first), at most limit
 * (1..STORE_FIND_MAX): the next page is the same query with before set to
 * the last id of this one. Each page is one read; a game that ends while a
 * caller pages through may or may not be listed. Same ownership as
 * store_games_in_progress(); plies is always set, moves only with q->moves.
 */
int store_games_find(struct store *s, const struct store_game_query *q, int limit,
                     struct store_game **out, size_t *n);

/* A player's finished games (aborted ones not counted). */
struct store_counts {
	int64_t games, rated, wins, losses, draws;
};
/* The counts of name's games (any letter case; a name nobody played under: all 0). */
int store_player_counts(struct store *s, const char *name, struct store_counts *out);

/*
 * A reader connection's reads between these two see one snapshot of the
 * store (SQLite: one read transaction, which never blocks the writer in WAL
 * mode; PostgreSQL: REPEATABLE READ, READ ONLY). STORE_EINVAL on a
 * connection that writes, or inside a snapshot already.
 */
int store_snapshot_begin(struct store *s);
int store_snapshot_end(struct store *s);

/*
 * A consistent copy of the whole store into the new file dest (SQLite's
 * online backup API, one read snapshot: a running server's writes go on
 * meanwhile and are not in the copy), written as dest.partial, fsync'd and
 * renamed: dest exists only once it is complete. STORE_EEXISTS when dest (or
 * dest.partial) exists; STORE_EINVAL on a back end without one (PostgreSQL:
 * pg_dump does it, README).
 */
int store_backup(struct store *s, const char *dest);

/*
 * Cluster (PostgreSQL only; STORE_EINVAL elsewhere or without a node): the
 * games in progress owned by instance `from` become this connection's
 * node's, in one transaction, and are returned as store_games_in_progress()
 * returns them. `from` ending in "#*" ("name#*") takes those of every
 * instance of that name and those of no owner (a node restarting takes back
 * its own). Two nodes claiming the same games each get a game or nothing:
 * never both. A transaction of the old owner that wrote one of those games
 * either commits before the claim reads its moves (they are in what it
 * returns) or never commits: the claim waits for it (at most the store's busy
 * time; a writer idle in its transaction is ended by the server sooner).
 */
int store_games_claim(struct store *s, const char *from, struct store_game **out, size_t *n);

/* ---- tournaments (schema version 5) ---------------------------------------------- */

/*
 * A tournament as stored: its id, its state ("created", "running", "finished",
 * "cancelled"; at most STORE_TOURNEY_STATE_MAX - 1 bytes) and the whole of it as one
 * document (the events layer's JSON: kind and options, format, rounds, limits, director,
 * players, every round's pairings with their game ids and results; at most
 * STORE_TOURNEY_DOC_MAX bytes, valid UTF-8). The store does not read the document: a
 * tournament is written whole each time it changes (a few KiB), which keeps its
 * players, pairings and results one atomic unit, in the same journal queue as the games
 * whose results it counts (so a game's end is never durable after the tournament that
 * counted it).
 */
#define STORE_TOURNEY_STATE_MAX 16
#define STORE_TOURNEY_DOC_MAX   (8 << 20)
struct store_tourney {
	int64_t id;
	char state[STORE_TOURNEY_STATE_MAX];
	char *doc; /* owned (malloc'd): store_tourneys_free() */
	int64_t updated;
};
/* Inserts tournament id or replaces it (state, doc, updated = now). */
int store_tourney_put(struct store *s, int64_t id, const char *state, const char *doc, int64_t now);
/*
 * Every tournament not finished or cancelled, by id, into *out (malloc'd, *n of them,
 * NULL when none; release with store_tourneys_free()), and the highest id ever stored
 * into *max_id (0: none), so that ids are never given twice.
 */
int store_tourneys_open(struct store *s, struct store_tourney **out, size_t *n, int64_t *max_id);
void store_tourneys_free(struct store_tourney *v, size_t n);

/* ---- ladders (schema version 8) -------------------------------------------------- */

/*
 * A ladder (issue 22) is stored as a tournament is, in a table of its own: its id, a
 * state ("open") and the whole of it as one document (the events layer's JSON: kind and
 * options, members with their concurrency and results, the games between each pair, the
 * games on), written whole through the journal after each change, behind the games
 * whose ends it counts. store_ladders_open() reads every ladder into struct store_tourney
 * rows (release with store_tourneys_free()) and the highest id.
 */
int store_ladder_put(struct store *s, int64_t id, const char *state, const char *doc, int64_t now);
int store_ladders_open(struct store *s, struct store_tourney **out, size_t *n, int64_t *max_id);

#endif
