/*
 * records/ - games and accounts as stored: the journal, the accounts, the
 * verbs that read the store. Below cmd/ and cluster/, above play/ (the order
 * of the folders: DEVELOPERS.md, Layout; tests/layers.py checks it). It calls
 * the play layer (a login ends in the lobby, recovery restores sessions), the
 * messages, the connections (a connection's input held while its job is
 * out), the store and util; cmd/, the cluster and server.c call it. News from
 * below: the session hooks the journal registers (session_hooks.h: a game's
 * start, moves, takeback, end), and the store's threads' callbacks (the
 * writer's batches and syncs, each reader job's done), run on the loop.
 *   journal.c        every game to the store, the durability barrier, recovery
 *   accounts.c       register, login, guests' tokens, taking a seat over
 *   archive.c        ratings, finger, history, record, replay: reads of the store
 *   stored_record.c  a stored game as a game record (games/record.h)
 *   moderation.c     admins, bans, mutes, blocks in memory; bitarenad admin and audit
 *
 * journal.h - the game journal: the session hooks (hooks.h) that write every
 * game to the store through the journal queue (store_writer.h: one writer
 * thread, group commit), the barrier that holds what a write causes until it
 * is durable (client.h), the visible handling of a failing store, and the
 * recovery of the games in progress after a restart. Above the session
 * layer: it registers its hooks there and restores games through it;
 * nothing below calls it.
 *
 * What it guarantees. A hook queues its record and returns at once; the
 * record's sequence number becomes the barrier's watermark, so the reply to
 * the move and every broadcast it causes leave only once the batch holding
 * it is durable (--fsync always: fsync'd; --fsync batch=MS: written to the
 * WAL), in order, while other output flows. A game's id is reserved from the
 * store ahead (no wait). A takeback names the journal it expects; the end
 * is written with the players' new Glicko-2 ratings, computed on the writer
 * thread from the ratings stored, when the game was rated.
 *
 * When the store fails (a batch cannot be committed: disk full, database
 * locked past the busy timeout, I/O error, file removed or replaced), the
 * writer tries the batch again every JOURNAL_RETRY_MS until it commits, and
 * nothing behind it is written first. Meanwhile: the records in it stay
 * queued and what they hold stays held (nobody is told of a move that is
 * not on disk); the players and spectators of each game with a record in it
 * are told at once (info store_failing, once per failure); every game's
 * clocks stand still (sessions_pause); new moves, new games, takebacks and
 * new accounts are refused (INTERNAL: nothing happens); what cannot be
 * refused (a game's end, a simultaneous turn whose time is up) is queued
 * behind. Once a batch commits, the games told are told it works again
 * (info store_ok), everything held goes out in order and the clocks go on.
 *
 * A record the store refuses in a batch that commits (a cluster node writing
 * to a game another node took over: PostgreSQL's fencing) is never
 * acknowledged: what waited for it is dropped, a command's `ok` gives way to
 * NODE_GONE (client.h), and on_lost tells the layer above, before anything
 * of the batch goes out, that the game here is not the stored one.
 * See PROTOCOL.md §10.
 */
#ifndef BITARENA_SERVER_JOURNAL_H
#define BITARENA_SERVER_JOURNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "server/play/session.h"
#include "server/store/store.h"
#include "server/store/store_writer.h"
#include "server/util/metrics.h"

/* What the journal counts of its writer's batches (journal_register_metrics()). */
struct journal_metrics {
	struct metric batches;        /* transactions committed */
	struct metric records;        /* records in them */
	struct metric failures;       /* store failures: transactions and fsyncs that failed */
	struct metric_histogram size; /* records per committed transaction */
	struct metric_histogram wait; /* oldest record queued -> its transaction committed, s */
	struct metric_histogram sync; /* the fsync: the commit under always, else the fsync, s */
};

#define JOURNAL_RETRY_MS      200 /* a failed batch is tried again this often */
#define JOURNAL_END_LISTENERS 4   /* who hears every game's end: tournaments, the ladder, pools */

struct journal {
	struct store_writer *w; /* NULL: no journal */
	struct sessions *sess;
	struct client_barrier *bar; /* the messages layer's */
	struct store_options opts;  /* the store's (recovery opens a connection of its own) */
	char dir[1024];             /* opts.dir points here */
	char conninfo[1024];        /* opts.conninfo points here */
	/* the store failing: since when, why, and the games told */
	bool failing;
	int fail_err;
	char fail_why[160];
	uint64_t fail_batches; /* failed tries in this failure */
	uint64_t *told;        /* ids of the games told store_failing */
	size_t ntold, cap_told;
	/* a game whose write the store refused (a cluster node's game another node took over:
	   the fencing of store.h): called for each such record once its batch commits, before
	   anything the batch held goes out (nothing the record held goes:
	   client_barrier_refused); the game may be gone from memory already (an earlier call
	   for it); the cluster registers it */
	void (*on_lost)(void *ud, uint64_t game);
	void *lost_ud;
	/* the accounts' records come back here (accounts.c registers it) */
	void (*on_account)(void *ud, const struct store_rec *r);
	void *acct_ud;
	/* upward news of every game's end (journal_set_on_end): its listeners, NULL unused */
	void (*on_end[JOURNAL_END_LISTENERS])(void *ud, const struct game *g);
	void *end_ud[JOURNAL_END_LISTENERS];
	struct journal_metrics met; /* set up by journal_open() */
};

/* jn's metrics (after journal_open()) join r. */
void journal_register_metrics(struct journal *jn, struct metrics *r);

/*
 * Journals the games of s in db through a writer thread it starts on loop
 * (db is the writer's from now on, closed by journal_close(); opened with
 * o, whose sync mode must be store_fsync_sync(fsync)), holding output
 * behind bar. Installs the session hooks. 0 or a negative enum store_err
 * (db is closed then).
 */
int journal_open(struct journal *jn, uv_loop_t *loop, struct store *db,
                 const struct store_options *o, const struct store_fsync *fsync, struct sessions *s,
                 struct client_barrier *bar);
/*
 * Brings back every game in progress in the store: positions replayed,
 * clocks from the journal with the side to move's clock held until that
 * player is back, seats held for their players through the grace; journal
 * rows that do not replay are dropped. Synchronous (before the server
 * listens): it reads through a connection of its own and waits until what
 * it wrote is durable. Returns the number of games restored or a negative
 * enum store_err.
 */
int journal_recover(struct journal *jn);
/*
 * One stored game in progress restored as journal_recover() restores each
 * (a cluster's node taking a game over): false when it could not be (it is
 * ended in the store as unrecoverable). Then journal_settle(): wait, before
 * the server listens, for what restoring wrote to be durable; without wait
 * (a running server) it is written in the background.
 */
bool journal_restore(struct journal *jn, struct store_game *sg);
void journal_settle(struct journal *jn, bool wait);
/* Removes the hooks, writes what is still queued and stops the writer. */
void journal_close(struct journal *jn);
/* True while the store fails (new writes are refused); why (may be NULL) gets the reason. */
bool journal_failing(const struct journal *jn, const char **why);
/*
 * Queues a new account (name valid, hash from store_password_hash; bot: a bot's); its
 * record comes back to on_account with r->ud == ud: r->err 0 (stored),
 * STORE_EEXISTS (name taken) or a failure (dropped at shutdown).
 */
int journal_add_account(struct journal *jn, const char *name, const char *hash, bool bot, void *ud);
/*
 * Queues account name's preferences (bot, bots_off, accept of p); its record comes back to
 * on_account with r->ud == ud: r->err 0 (stored), STORE_ESTATE (p->bot for an account that
 * played a game: nothing stored), STORE_ENOTFOUND, or a failure. 0, or the failure now.
 */
int journal_add_prefs(struct journal *jn, const char *name, const struct store_prefs *p, void *ud);
/*
 * Queues a moderation change with its audit row (store_mod_write); what the
 * current command sends from now on is held until it is durable. A failure
 * to store it later is logged. 0, or the store's failure now (nothing queued).
 */
int journal_add_mod(struct journal *jn, const struct store_mod *m);
/* The seek options of a stored game: its option words, then its clock and rating; 0 or -1. */
int journal_seek_opts(const struct game_ops *ops, const struct store_game *sg,
                      struct seek_opts *so);
/*
 * Tournaments and ladders (events/, above). journal_set_on_end(): on_end(ud, g) hears
 * every game's end, after its end is queued (so that what on_end writes is stored after
 * it), from the session hook: like a hook it must not call into the session layer (defer
 * that). Up to JOURNAL_END_LISTENERS listeners, each called in the order registered;
 * on_end NULL removes ud's.
 * journal_tourney_put() queues tournament id as it stands (doc: its document, malloc'd,
 * taken in every case); 0 or STORE_ENOMEM. journal_tourneys_open() reads the tournaments
 * not over and the highest id, and journal_game_read() one stored game with its moves
 * (store_game_clear() it), each through a reader connection of its own: synchronous,
 * before the server listens. 0 or a negative enum store_err.
 */
void journal_set_on_end(struct journal *jn, void (*on_end)(void *ud, const struct game *g),
                        void *ud);
int journal_tourney_put(struct journal *jn, int64_t id, const char *state, char *doc);
int journal_tourneys_open(struct journal *jn, struct store_tourney **out, size_t *n,
                          int64_t *max_id);
/* A ladder's document as journal_tourney_put() queues a tournament's; every ladder read
   back as journal_tourneys_open() reads the tournaments (store.h, schema 8). */
int journal_ladder_put(struct journal *jn, int64_t id, const char *state, char *doc);
int journal_ladders_open(struct journal *jn, struct store_tourney **out, size_t *n,
                         int64_t *max_id);
int journal_game_read(struct journal *jn, int64_t id, struct store_game *out);
/*
 * A new game's id, reserved ahead (no wait) for an event that names the game in its
 * document before the game starts under it (game_spec.new_id): the document is queued
 * first, so a game on disk is never one its event's stored document does not know. *id 0
 * without a journal (the session layer numbers the games); a negative enum store_err while
 * the store fails or no id could be reserved.
 */
int journal_game_id(struct journal *jn, uint64_t *id);
/* Logs a failure of the store (always, on stderr): what was tried, the error, the store's words. */
void journal_log_failure(const char *what, int r, const char *why);

#endif
