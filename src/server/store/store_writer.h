/*
 * store_writer.h - the journal queue: the event loop queues write records
 * (a game begins, a move, a takeback, a game ends with its ratings, an
 * account is created); one writer thread takes everything queued, writes it
 * in one transaction with one commit (one fsync), and reports back to the
 * loop through a uv_async: the batch is durable, or the batch failed and
 * none of it is stored. This is group commit (Redis `appendfsync always`,
 * PostgreSQL's commit_delay): one fsync covers every record queued while the
 * previous one ran (and, right after a batch of many, those that come within
 * a fraction of a commit's time: gather() in store_writer.c), so the loop
 * never waits for the disk and the disk is not asked for one fsync per move.
 *
 *   loop:    store_writer_rec() -> fill -> store_writer_queue() = seq  (no I/O, no wait:
 *            not even for the lock the writer takes, see store_writer.c)
 *   writer:  take all queued -> BEGIN; apply each; COMMIT (one fsync) -> uv_async_send
 *   loop:    on_batch(first..last, err): release what waited for those seqs, in order
 *
 * Sequence numbers: every queued record gets the next one (1, 2, 3, ...).
 * Batches are reported in order and cover consecutive seqs, so "everything
 * up to seq N is resolved" is one number (store_writer_done()).
 *
 * Durability (store_fsync): "always" opens the store with STORE_SYNC_FULL
 * and reports a batch once its commit is fsync'd (b->synced). "batch=MS"
 * opens it with STORE_SYNC_LAZY: a batch is reported as soon as its commit
 * is written to the WAL (b->synced false: in the OS cache, so killing the
 * process, even with kill -9, loses nothing; a power cut or kernel crash
 * loses what was not yet fsync'd), and the writer fsyncs at most MS ms
 * after the first unsynced commit (on_sync reports it).
 *
 * Failures are visible, never silent: a batch the store refuses as a whole
 * (disk full, database locked past its busy timeout, I/O error, database
 * file removed or replaced) is rolled back and reported with b->err and
 * every record it held (each record's err is the batch's); nothing of it is
 * stored and nothing is reported durable that is not. Then, by default, the
 * batch is dropped and the writer goes on with the next one, tried afresh,
 * so writes succeed again once the cause is gone (a removed or replaced file
 * never comes back: every batch fails with STORE_EGONE until the server is
 * restarted on a good store). With retry_ms set, a failed batch is instead
 * reported with b->retrying and tried again every retry_ms, together with
 * what was queued behind it, until it commits; nothing behind it is written
 * first, so the order of the journal is kept and every record is reported
 * committed once, after any number of failure reports. A record the store
 * refuses by itself (a move whose ply does not follow the journal, a
 * takeback of moves that are not there, a name taken) changes nothing, gets
 * its own err, and the rest of its batch commits.
 *
 * Game ids are given out on the loop without a round trip
 * (store_writer_game_id()): the writer reserves a block of ids from the
 * store at start and the next block in the background, inside a batch's
 * transaction, when half of the current one is used. Ids are unique and
 * never reused; a restart skips what was left of the block (gaps).
 *
 * Threads: every function is for the loop thread except the rate callback,
 * which runs on the writer thread. Memory: records come from
 * store_writer_rec() and belong to the writer once queued; they are handed
 * to on_batch (valid during the call only) and recycled after it.
 */
#ifndef BITARENA_SERVER_STORE_WRITER_H
#define BITARENA_SERVER_STORE_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "server/store/store.h"

#define STORE_WRITER_ID_BLOCK      1024 /* game ids reserved at a time */
#define STORE_WRITER_MAX_BATCH     8192 /* records in one transaction at most */
#define STORE_FSYNC_BATCH_MAX_MS   10000
#define STORE_WRITER_GATHER_MAX_US 1000 /* the longest the writer waits to gather a batch */

/* --fsync always | batch=MS */
struct store_fsync {
	bool batch;   /* false: always */
	int batch_ms; /* batch: fsync this long after a commit at most (0..BATCH_MAX_MS) */
};
/* Parses "always" or "batch=MS"; 0, or -1 for anything else. */
int store_fsync_parse(const char *text, struct store_fsync *out);
/* The store's sync mode for it: FULL for always, LAZY for batch. */
enum store_sync store_fsync_sync(const struct store_fsync *f);

enum store_rec_type {
	STORE_REC_GAME,     /* a game begins: u.game (its moves field unused) under id `game` */
	STORE_REC_MOVE,     /* one journalled ply of game: u.move */
	STORE_REC_TAKEBACK, /* game takes back its moves from ply u.takeback.from on, provided
	                       the journal holds exactly u.takeback.plies moves */
	STORE_REC_FINISH,   /* game ends: u.finish */
	STORE_REC_ACCOUNT,  /* a new account: u.account (STORE_EEXISTS when the name is taken) */
	STORE_REC_TOURNEY,  /* tournament `game` as it stands now: u.tourney (store_tourney_put);
	                       u.tourney.doc is malloc'd by the caller and owned by the record
	                       from store_writer_queue() on (freed once written or dropped) */
	STORE_REC_MOD,      /* a moderation change and its audit row: u.mod (store_mod_write) */
	STORE_REC_PREFS,    /* an account's preferences: u.prefs (store_prefs_put: STORE_ESTATE
	                       when it would change the bot flag of an account that played) */
	STORE_REC_LADDER    /* ladder `game` as it stands: u.tourney, as STORE_REC_TOURNEY
	                       (store_ladder_put) */
};

struct store_rec_finish {
	struct store_finish f; /* f.result and f.reason are set from the buffers below */
	char result[STORE_RESULT_MAX];
	char reason[STORE_REASON_MAX];
	/*
	 * rate: the game counts for the ratings. In the batch's transaction the
	 * writer reads both players' stored ratings in kind; when both are
	 * accounts it asks the rate callback for the new ones and stores them
	 * with the end (f.rate/f.rating are filled then); otherwise the game
	 * ends unrated. Without rate, f.rate/f.rating are stored as given.
	 */
	bool rate;
	double score; /* seat 0's score: 1, 0.5 or 0 (for the rate callback) */
	char kind[STORE_KIND_MAX];
	char players[STORE_SEATS][STORE_PLAYER_MAX + 1];
};

struct store_rec {
	struct store_rec *next; /* the writer's */
	uint64_t seq;           /* given by store_writer_queue() */
	uint64_t queued_ns;     /* uv_hrtime() then (the batch's wait_ns) */
	enum store_rec_type type;
	int64_t game; /* the game's id (every record but an account) */
	uint64_t tag; /* the caller's, untouched (a connection id, ...) */
	void *ud;     /* the caller's, untouched */
	int err;      /* after the batch: 0, this record's refusal, or the batch's failure */
	union {
		struct store_game game;
		struct store_move move;
		struct {
			int from, plies;
		} takeback;
		struct store_rec_finish finish;
		struct {
			char name[STORE_NAME_MAX + 1];
			char hash[STORE_HASH_MAX];
			int64_t created;
			bool bot; /* register ... bot: stored a bot's account */
		} account;
		struct {
			char name[STORE_NAME_MAX + 1];
			struct store_prefs p;
		} prefs;
		struct {
			char state[STORE_TOURNEY_STATE_MAX];
			char *doc;
			int64_t at;
		} tourney;
		struct store_mod mod;
	} u;
};

/* What the loop hears of one transaction. */
struct store_batch {
	int err;                /* 0: committed; < 0: failed and rolled back, nothing stored */
	bool retrying;          /* failed, and these records will be tried again (retry_ms) */
	bool synced;            /* committed and fsync'd (always); false under batch=MS */
	uint64_t first, last;   /* the seqs it covered: first..last, consecutive */
	size_t n;               /* records */
	struct store_rec *recs; /* first..last in order, linked by next; valid in the callback */
	char why[160];          /* the store's own words for err ("" when err is 0) */
	/* the writer's clock (uv_hrtime), for the metrics: from the oldest record's queueing to
	   the end of the commit (what a move waits for its batch), the commit alone (its fsync,
	   under always) */
	uint64_t wait_ns, commit_ns;
};

struct store_writer_config {
	struct store_fsync fsync;
	size_t max_batch; /* 0: STORE_WRITER_MAX_BATCH */
	int64_t id_block; /* 0: STORE_WRITER_ID_BLOCK */
	int retry_ms;     /* 0: a failed batch is dropped; else tried again this often */
	void *ud;
	/* Loop thread, once per transaction, in seq order. Required. */
	void (*on_batch)(void *ud, const struct store_batch *b);
	/* Loop thread, batch=MS only: everything up to seq upto is fsync'd (err 0) or the
	 * fsync failed (err, why); the fsync took ns nanoseconds. Optional. */
	void (*on_sync)(void *ud, uint64_t upto, int err, const char *why, uint64_t ns);
	/* Writer thread: the new ratings of a rated game's two accounts (see store_rec_finish).
	 * Pure: it must not touch anything the loop uses. Optional (no rating without it). */
	void (*rate)(void *ud, const struct store_rec_finish *fin,
	             const struct store_rating cur[STORE_SEATS],
	             struct store_rating out[STORE_SEATS]);
};

struct store_writer_stats {
	uint64_t queued;   /* records queued */
	uint64_t records;  /* records reported for good (committed or dropped) */
	uint64_t refused;  /* of those, refused by the store one by one */
	uint64_t batches;  /* transactions tried */
	uint64_t commits;  /* transactions committed (under always: one fsync each) */
	uint64_t failures; /* transactions failed */
	uint64_t syncs;    /* batch=MS: explicit fsyncs */
	uint64_t largest;  /* records in the largest transaction */
};

struct store_writer;

/*
 * Starts the writer thread on db, which it owns from now on (closed by
 * store_writer_stop(), or here on failure). db must be opened with
 * store_fsync_sync(&cfg->fsync) and nothing else may use it. The first block
 * of game ids is reserved here, synchronously. 0 or a negative store_err.
 */
int store_writer_start(uv_loop_t *loop, struct store *db, const struct store_writer_config *cfg,
                       struct store_writer **out);
/*
 * Writes what is still queued, then stops the thread, closes the store and
 * the async handle; the memory is freed when the loop has run the handle's
 * close (run the loop once more). on_batch runs for what was still pending;
 * under retry_ms a batch that fails now is tried once more and dropped
 * (reported without retrying). NULL is fine.
 */
void store_writer_stop(struct store_writer *w);

/* A record of type, zeroed but for type (NULL when out of memory). */
struct store_rec *store_writer_rec(struct store_writer *w, enum store_rec_type type);
/* Returns a record that was not queued. */
void store_writer_drop(struct store_writer *w, struct store_rec *r);
/* Queues r (the writer owns it now) and wakes the writer; returns its seq. */
uint64_t store_writer_queue(struct store_writer *w, struct store_rec *r);
/*
 * A new game id, without waiting. Fails (STORE_EBUSY, or the store's error
 * that keeps the next block from being reserved) only when the block is
 * used up and the next one could not be reserved.
 */
int store_writer_game_id(struct store_writer *w, int64_t *id);

/* The last seq given out (0 before the first). */
uint64_t store_writer_last(const struct store_writer *w);
/* Everything up to this seq has been reported to on_batch for good (committed or dropped). */
uint64_t store_writer_done(const struct store_writer *w);
/*
 * Blocks until everything queued so far is reported for good and runs the
 * callbacks (tests, exit). Under retry_ms it waits as long as the store fails.
 */
void store_writer_flush(struct store_writer *w);
void store_writer_stats(struct store_writer *w, struct store_writer_stats *out);
/* Tests: takes (hold) or gives back the lock the writer thread takes between batches, from
   the calling thread, which must not be the loop's. */
void store_writer_test_hold(struct store_writer *w, bool hold);

#endif
