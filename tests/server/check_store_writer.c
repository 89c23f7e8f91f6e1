/*
 * check_store_writer.c - the journal queue (src/server/store_writer.c) on
 * its own, without the server, on each back end (storetest.h: real SQLite
 * files in a temporary directory, a throw-away PostgreSQL server): group
 * commit (commits counted; under SQLite its WAL fsyncs too, through a
 * counting SQLite VFS, not timed), order and the durability reports,
 * records refused one by one, a database locked by another connection
 * (failure reported, recovery after unlock), a full disk (a small tmpfs in
 * a private mount namespace when allowed, else RLIMIT_FSIZE), the database
 * file removed, replaced or emptied, kill -9 in the middle of a stream
 * under both --fsync modes, game ids, rated game ends, failed batches tried
 * again until they commit (retry_ms); PostgreSQL stopped and started again
 * while the writer has batches (every acknowledged record stored, the
 * failures reported, service back by itself).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#include "server/store/store.h"
#include "server/store/store_writer.h"
#include "smallfs.h"
#include "storetest.h"
#include "check_main.h"

/* ---- a VFS that counts fsyncs (registered as the default: every connection uses it) ---- */

static sqlite3_vfs *real_vfs;
static sqlite3_vfs counting_vfs;
static atomic_uint wal_syncs; /* xSync on write-ahead logs */
static atomic_uint db_syncs;  /* xSync on database files */

struct cfile {
	sqlite3_file base;
	sqlite3_file *real; /* the real file object, right after this struct */
	bool wal;
};

#define REAL(f) (((struct cfile *)(f))->real)

static int c_close(sqlite3_file *f)
{
	return REAL(f)->pMethods->xClose(REAL(f));
}
static int c_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o)
{
	return REAL(f)->pMethods->xRead(REAL(f), b, n, o);
}
static int c_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o)
{
	return REAL(f)->pMethods->xWrite(REAL(f), b, n, o);
}
static int c_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	return REAL(f)->pMethods->xTruncate(REAL(f), size);
}
static int c_sync(sqlite3_file *f, int flags)
{
	atomic_fetch_add(((struct cfile *)f)->wal ? &wal_syncs : &db_syncs, 1);
	return REAL(f)->pMethods->xSync(REAL(f), flags);
}
static int c_size(sqlite3_file *f, sqlite3_int64 *size)
{
	return REAL(f)->pMethods->xFileSize(REAL(f), size);
}
static int c_lock(sqlite3_file *f, int l)
{
	return REAL(f)->pMethods->xLock(REAL(f), l);
}
static int c_unlock(sqlite3_file *f, int l)
{
	return REAL(f)->pMethods->xUnlock(REAL(f), l);
}
static int c_reserved(sqlite3_file *f, int *out)
{
	return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}
static int c_fcntl(sqlite3_file *f, int op, void *arg)
{
	return REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}
static int c_sector(sqlite3_file *f)
{
	return REAL(f)->pMethods->xSectorSize(REAL(f));
}
static int c_devchar(sqlite3_file *f)
{
	return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}
static int c_shmmap(sqlite3_file *f, int pg, int sz, int ext, void volatile **out)
{
	return REAL(f)->pMethods->xShmMap(REAL(f), pg, sz, ext, out);
}
static int c_shmlock(sqlite3_file *f, int off, int n, int flags)
{
	return REAL(f)->pMethods->xShmLock(REAL(f), off, n, flags);
}
static void c_shmbarrier(sqlite3_file *f)
{
	REAL(f)->pMethods->xShmBarrier(REAL(f));
}
static int c_shmunmap(sqlite3_file *f, int del)
{
	return REAL(f)->pMethods->xShmUnmap(REAL(f), del);
}
static int c_fetch(sqlite3_file *f, sqlite3_int64 o, int n, void **out)
{
	return REAL(f)->pMethods->xFetch(REAL(f), o, n, out);
}
static int c_unfetch(sqlite3_file *f, sqlite3_int64 o, void *p)
{
	return REAL(f)->pMethods->xUnfetch(REAL(f), o, p);
}

static const sqlite3_io_methods counting_methods = {
        .iVersion = 3,
        .xClose = c_close,
        .xRead = c_read,
        .xWrite = c_write,
        .xTruncate = c_truncate,
        .xSync = c_sync,
        .xFileSize = c_size,
        .xLock = c_lock,
        .xUnlock = c_unlock,
        .xCheckReservedLock = c_reserved,
        .xFileControl = c_fcntl,
        .xSectorSize = c_sector,
        .xDeviceCharacteristics = c_devchar,
        .xShmMap = c_shmmap,
        .xShmLock = c_shmlock,
        .xShmBarrier = c_shmbarrier,
        .xShmUnmap = c_shmunmap,
        .xFetch = c_fetch,
        .xUnfetch = c_unfetch,
};

static int c_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
	struct cfile *c = (struct cfile *)f;
	c->real = (sqlite3_file *)(c + 1);
	c->wal = (flags & SQLITE_OPEN_WAL) != 0;
	int rc = real_vfs->xOpen(real_vfs, name, c->real, flags, out);
	f->pMethods = c->real->pMethods != NULL ? &counting_methods : NULL;
	return rc;
}

static void counting_vfs_install(void)
{
	if (real_vfs != NULL) /* once per process */
		return;
	real_vfs = sqlite3_vfs_find(NULL);
	ck_assert_ptr_nonnull(real_vfs);
	ck_assert_int_ge(real_vfs->iVersion, 2);
	counting_vfs = *real_vfs;
	counting_vfs.zName = "counting";
	counting_vfs.szOsFile = (int)sizeof(struct cfile) + real_vfs->szOsFile;
	counting_vfs.xOpen = c_open;
	ck_assert_int_eq(sqlite3_vfs_register(&counting_vfs, 1), SQLITE_OK);
}

/* ---- the harness: a loop, a writer, and what it reported -------------------------------- */

static void setup_sqlite(void)
{
	st_setup(ST_SQLITE, "check_store_writer", "db");
	counting_vfs_install();
}

static void setup_pg(void)
{
	st_setup(ST_PG, "check_store_writer", "db");
}

static void teardown(void)
{
	st_teardown();
}

#define MAX_SEQ 20000

struct harness {
	uv_loop_t loop;
	struct store_writer *w;
	/* what on_batch saw */
	size_t batches, failed;
	size_t retries;       /* failure reports of batches tried again */
	uint64_t next_first;  /* the seq the next batch must start at */
	int err[MAX_SEQ + 1]; /* per seq: the record's err */
	bool seen[MAX_SEQ + 1];
	bool synced[MAX_SEQ + 1];
	uint64_t tag[MAX_SEQ + 1];
	int last_batch_err;
	char last_why[160];
	uint64_t synced_upto;
	size_t syncs;
	struct store_rating rated[STORE_SEATS]; /* the ratings of the last rated end */
};

static void on_batch(void *ud, const struct store_batch *b)
{
	struct harness *h = ud;
	/* consecutive, in order */
	ck_assert_uint_eq(b->first, h->next_first);
	if (b->retrying) { /* failed, to be tried again: reported again later */
		ck_assert_int_ne(b->err, STORE_OK);
		h->retries++;
		h->last_batch_err = b->err;
		for (const struct store_rec *r = b->recs; r != NULL; r = r->next) {
			ck_assert(!h->seen[r->seq]);
			ck_assert_int_eq(r->err, b->err);
		}
		return;
	}
	ck_assert_uint_ge(b->last, b->first);
	ck_assert_uint_eq(b->n, b->last - b->first + 1);
	h->next_first = b->last + 1;
	h->batches++;
	h->failed += b->err != STORE_OK;
	h->last_batch_err = b->err;
	snprintf(h->last_why, sizeof h->last_why, "%s", b->why);
	uint64_t want = b->first;
	size_t n = 0;
	for (const struct store_rec *r = b->recs; r != NULL; r = r->next, n++) {
		ck_assert_uint_eq(r->seq, want++);
		ck_assert_uint_le(r->seq, MAX_SEQ);
		ck_assert(!h->seen[r->seq]);
		h->seen[r->seq] = true;
		h->err[r->seq] = r->err;
		h->synced[r->seq] = b->synced;
		h->tag[r->seq] = r->tag;
		if (b->err != STORE_OK)
			ck_assert_int_eq(r->err, b->err);
		if (r->type == STORE_REC_FINISH && r->err == STORE_OK && r->u.finish.f.rate[0])
			memcpy(h->rated, r->u.finish.f.rating, sizeof h->rated);
	}
	ck_assert_uint_eq(n, b->n);
}

static void on_sync(void *ud, uint64_t upto, int err, const char *why, uint64_t ns)
{
	(void)ns;
	struct harness *h = ud;
	ck_assert_int_eq(err, STORE_OK);
	ck_assert_uint_ge(upto, h->synced_upto);
	h->synced_upto = upto;
	h->syncs++;
}

/* A test rating rule (the server's is Glicko-2): +-16 for a win, games counted. */
static void rate(void *ud, const struct store_rec_finish *fin,
                 const struct store_rating cur[STORE_SEATS], struct store_rating out[STORE_SEATS])
{
	(void)ud;
	for (int i = 0; i < STORE_SEATS; i++) {
		double s = i == 0 ? fin->score : 1.0 - fin->score;
		out[i] = cur[i];
		out[i].rating = cur[i].rating + 32.0 * (s - 0.5);
		out[i].rd = cur[i].rd - 10.0;
		out[i].games = cur[i].games + 1;
		out[i].updated = fin->f.ended;
	}
}

static struct store *open_store(enum store_sync sync, int busy_ms)
{
	struct store_options o = {.sync = sync, .busy_timeout_ms = busy_ms};
	st_options(&o);
	struct store *s = NULL;
	ck_assert_int_eq(store_open_opts(&o, &s), STORE_OK);
	return s;
}

static struct harness *start_retrying(const char *fsync, int busy_ms, int64_t id_block,
                                      int retry_ms)
{
	struct harness *h = calloc(1, sizeof *h);
	ck_assert_ptr_nonnull(h);
	ck_assert_int_eq(uv_loop_init(&h->loop), 0);
	h->next_first = 1;
	struct store_writer_config cfg = {.ud = h,
	                                  .on_batch = on_batch,
	                                  .on_sync = on_sync,
	                                  .rate = rate,
	                                  .id_block = id_block,
	                                  .retry_ms = retry_ms};
	ck_assert_int_eq(store_fsync_parse(fsync, &cfg.fsync), 0);
	struct store *s = open_store(store_fsync_sync(&cfg.fsync), busy_ms);
	ck_assert_int_eq(store_writer_start(&h->loop, s, &cfg, &h->w), STORE_OK);
	return h;
}

static struct harness *start_with(const char *fsync, int busy_ms, int64_t id_block)
{
	return start_retrying(fsync, busy_ms, id_block, 0);
}

static struct harness *start(void)
{
	return start_with("always", 200, 0);
}

static void stop(struct harness *h)
{
	store_writer_stop(h->w);
	uv_run(&h->loop, UV_RUN_DEFAULT); /* the async handle's close */
	ck_assert_int_eq(uv_loop_close(&h->loop), 0);
	free(h);
}

/* Runs the loop until everything up to seq has been reported. */
static void wait_for(struct harness *h, uint64_t seq)
{
	while (store_writer_done(h->w) < seq)
		uv_run(&h->loop, UV_RUN_ONCE);
}

static void game_fields(struct store_game *g, const char *p0, const char *p1)
{
	memset(g, 0, sizeof *g);
	snprintf(g->kind, sizeof g->kind, "ttt");
	snprintf(g->players[0], sizeof g->players[0], "%s", p0);
	snprintf(g->players[1], sizeof g->players[1], "%s", p1);
	g->seed = 7;
	g->started = 1000;
}

/* Queues the begin of a new game; returns its id. */
static int64_t queue_game(struct harness *h, const char *p0, const char *p1)
{
	int64_t id = 0;
	ck_assert_int_eq(store_writer_game_id(h->w, &id), STORE_OK);
	struct store_rec *r = store_writer_rec(h->w, STORE_REC_GAME);
	ck_assert_ptr_nonnull(r);
	r->game = id;
	game_fields(&r->u.game, p0, p1);
	store_writer_queue(h->w, r);
	return id;
}

static uint64_t queue_move(struct harness *h, int64_t game, int ply)
{
	struct store_rec *r = store_writer_rec(h->w, STORE_REC_MOVE);
	ck_assert_ptr_nonnull(r);
	r->game = game;
	r->tag = (uint64_t)game * 1000 + (uint64_t)ply;
	r->u.move.ply = ply;
	r->u.move.seat = ply % 2;
	snprintf(r->u.move.text, sizeof r->u.move.text, "m%d-%d", (int)game, ply);
	r->u.move.at = 2000 + ply;
	return store_writer_queue(h->w, r);
}

static uint64_t queue_finish(struct harness *h, int64_t game, double score, bool rated,
                             const char *p0, const char *p1)
{
	struct store_rec *r = store_writer_rec(h->w, STORE_REC_FINISH);
	ck_assert_ptr_nonnull(r);
	r->game = game;
	struct store_rec_finish *fin = &r->u.finish;
	fin->f.status = STORE_FINISHED;
	fin->f.winner = score == 1.0 ? 0 : score == 0.0 ? 1 : -1;
	fin->f.ended = 5000;
	snprintf(fin->result, sizeof fin->result, "%s",
	         score == 1.0   ? "1-0"
	         : score == 0.0 ? "0-1"
	                        : "1/2-1/2");
	snprintf(fin->reason, sizeof fin->reason, "line");
	fin->rate = rated;
	fin->score = score;
	snprintf(fin->kind, sizeof fin->kind, "ttt");
	snprintf(fin->players[0], sizeof fin->players[0], "%s", p0);
	snprintf(fin->players[1], sizeof fin->players[1], "%s", p1);
	return store_writer_queue(h->w, r);
}

static uint64_t queue_account(struct harness *h, const char *name)
{
	struct store_rec *r = store_writer_rec(h->w, STORE_REC_ACCOUNT);
	ck_assert_ptr_nonnull(r);
	snprintf(r->u.account.name, sizeof r->u.account.name, "%s", name);
	/* any hash string will do: nobody logs in here */
	snprintf(r->u.account.hash, sizeof r->u.account.hash, "$argon2id$v=19$test");
	r->u.account.created = 10;
	return store_writer_queue(h->w, r);
}

/* The number of moves journalled for game id, read through a connection of its own. */
static int plies_of(int64_t id)
{
	struct store *s = open_store(STORE_SYNC_FULL, 0);
	struct store_game g;
	ck_assert_int_eq(store_game_fetch(s, id, &g), STORE_OK);
	int n = g.plies;
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(g.moves[i].ply, i);
	store_game_clear(&g);
	store_close(s);
	return n;
}

/* ---- tests -------------------------------------------------------------------------------- */

START_TEST(test_fsync_parse)
{
	struct store_fsync f;
	ck_assert_int_eq(store_fsync_parse("always", &f), 0);
	ck_assert(!f.batch);
	ck_assert_int_eq(store_fsync_sync(&f), STORE_SYNC_FULL);
	ck_assert_int_eq(store_fsync_parse("batch=250", &f), 0);
	ck_assert(f.batch);
	ck_assert_int_eq(f.batch_ms, 250);
	ck_assert_int_eq(store_fsync_sync(&f), STORE_SYNC_LAZY);
	ck_assert_int_eq(store_fsync_parse("batch=0", &f), 0);
	ck_assert_int_eq(f.batch_ms, 0);
	const char *bad[] = {"",         "never",     "batch",       "batch=", "batch=-1",
	                     "batch=+5", "batch=5ms", "batch=10001", "Always", "batch= 5"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(store_fsync_parse(bad[i], &f) == -1, "%s accepted", bad[i]);
	ck_assert_int_eq(store_fsync_parse(NULL, &f), -1);
}
END_TEST

/*
 * 10 games of 100 moves queued in one go: every record reported once, in
 * order, committed; far fewer transactions than records, and (counted by
 * the VFS) about one WAL fsync per transaction.
 */
START_TEST(test_group_commit)
{
	struct harness *h = start();
	unsigned wal0 = atomic_load(&wal_syncs);
	int64_t ids[10];
	for (int g = 0; g < 10; g++)
		ids[g] = queue_game(h, "ann", "bob");
	uint64_t last = 0;
	for (int ply = 0; ply < 100; ply++)
		for (int g = 0; g < 10; g++)
			last = queue_move(h, ids[g], ply);
	ck_assert_uint_eq(last, 1010);
	ck_assert_uint_eq(store_writer_last(h->w), 1010);
	wait_for(h, last);
	struct store_writer_stats st;
	store_writer_stats(h->w, &st);
	unsigned wal = atomic_load(&wal_syncs) - wal0;
	fprintf(stderr, "group commit: %llu records in %llu commits, %u WAL fsyncs, largest %llu\n",
	        (unsigned long long)st.records, (unsigned long long)st.commits, wal,
	        (unsigned long long)st.largest);
	ck_assert_uint_eq(st.queued, 1010);
	ck_assert_uint_eq(st.records, 1010);
	ck_assert_uint_eq(st.failures, 0);
	ck_assert_uint_eq(st.refused, 0);
	ck_assert_uint_eq(st.batches, h->batches);
	ck_assert_uint_le(st.commits, 20); /* a commit takes far longer than queueing 1010 */
	ck_assert_uint_ge(st.largest, 50);
	/* SQLite: one fsync of the WAL per commit; a checkpoint or a WAL restart may add a few */
	ck_assert(st_is_pg() || wal >= st.commits);
	ck_assert(st_is_pg() || wal <= 2 * st.commits + 4);
	for (uint64_t s = 1; s <= last; s++) {
		ck_assert(h->seen[s]);
		ck_assert_int_eq(h->err[s], STORE_OK);
		ck_assert(h->synced[s]);
	}
	ck_assert_uint_eq(h->tag[11], (uint64_t)ids[0] * 1000); /* the caller's tag comes back */
	ck_assert_uint_eq(store_writer_done(h->w), last);
	for (int g = 0; g < 10; g++)
		ck_assert_int_eq(plies_of(ids[g]), 100);
	stop(h);
}
END_TEST

/*
 * One record at a time, each waited for: one commit and one WAL fsync per
 * record (the queue adds no fsync of its own), ids in order.
 */
/* Another thread (the writer, between batches) holds the writer's lock for a while. */
struct holder {
	struct store_writer *w;
	uv_sem_t held, release;
};

static void hold_main(void *arg)
{
	struct holder *x = arg;
	store_writer_test_hold(x->w, true);
	uv_sem_post(&x->held);
	uv_sem_wait(&x->release);
	store_writer_test_hold(x->w, false);
}

/*
 * The loop never waits for the writer's lock (a loop thread asleep on it let
 * its core idle, and every move waited for the wake-up): records queued while
 * another thread holds it come back at once with their seqs, wait on the
 * loop's side, and are handed over in order on a later loop pass, with no
 * further call. The old queue waited for the lock here until the test timed
 * out.
 */
START_TEST(test_queue_never_waits)
{
	struct harness *h = start();
	int64_t g = queue_game(h, "ann", "bob");
	wait_for(h, 1);
	struct holder x = {.w = h->w};
	ck_assert_int_eq(uv_sem_init(&x.held, 0), 0);
	ck_assert_int_eq(uv_sem_init(&x.release, 0), 0);
	uv_thread_t t;
	ck_assert_int_eq(uv_thread_create(&t, hold_main, &x), 0);
	uv_sem_wait(&x.held);
	uint64_t s1 = queue_move(h, g, 0);
	uint64_t s2 = queue_move(h, g, 1);
	ck_assert_uint_eq(s1, 2);
	ck_assert_uint_eq(s2, 3);
	for (int i = 0; i < 100; i++)
		uv_run(&h->loop, UV_RUN_NOWAIT); /* the loop goes on; they cannot be handed over */
	ck_assert_uint_eq(store_writer_done(h->w), 1);
	ck_assert(!h->seen[s1]);
	uv_sem_post(&x.release);
	uv_thread_join(&t);
	wait_for(h, s2);
	ck_assert(h->seen[s1] && h->seen[s2]);
	ck_assert_int_eq(h->err[s1], STORE_OK);
	ck_assert_int_eq(h->err[s2], STORE_OK);
	ck_assert_uint_eq(h->batches, 2); /* the game, then both moves in one batch */
	uv_sem_destroy(&x.held);
	uv_sem_destroy(&x.release);
	stop(h);
}
END_TEST

START_TEST(test_one_by_one)
{
	struct harness *h = start();
	unsigned wal0 = atomic_load(&wal_syncs);
	int64_t id = queue_game(h, "ann", "bob");
	wait_for(h, 1);
	for (int ply = 0; ply < 20; ply++)
		wait_for(h, queue_move(h, id, ply));
	struct store_writer_stats st;
	store_writer_stats(h->w, &st);
	ck_assert_uint_eq(st.commits, 21);
	ck_assert_uint_eq(st.largest, 1);
	unsigned wal = atomic_load(&wal_syncs) - wal0;
	ck_assert(st_is_pg() || wal >= 21);
	ck_assert(st_is_pg() || wal <= 21 + 4);
	ck_assert_int_eq(plies_of(id), 20);
	stop(h);
}
END_TEST

/* Records the store refuses one by one get their own error; the rest of the batch commits. */
START_TEST(test_refusals_in_a_batch)
{
	struct harness *h = start();
	int64_t id = queue_game(h, "ann", "bob");
	uint64_t m0 = queue_move(h, id, 0);
	uint64_t gap = queue_move(h, id, 2); /* ply 1 is missing: refused */
	uint64_t m1 = queue_move(h, id, 1);
	uint64_t nogame = queue_move(h, 999999, 0); /* no such game */
	uint64_t a1 = queue_account(h, "Carol");
	uint64_t a2 = queue_account(h, "CAROL"); /* the name is taken, in any case */
	/* a takeback of ply 1 when the journal holds 2 moves: fine; one that expects 5: refused */
	struct store_rec *r = store_writer_rec(h->w, STORE_REC_TAKEBACK);
	r->game = id;
	r->u.takeback.from = 1;
	r->u.takeback.plies = 5;
	uint64_t tb_bad = store_writer_queue(h->w, r);
	r = store_writer_rec(h->w, STORE_REC_TAKEBACK);
	r->game = id;
	r->u.takeback.from = 1;
	r->u.takeback.plies = 2;
	uint64_t tb = store_writer_queue(h->w, r);
	uint64_t dup = queue_game(h, "x", "y");
	wait_for(h, dup);
	/* the same id again: refused, the first game is untouched */
	r = store_writer_rec(h->w, STORE_REC_GAME);
	r->game = id;
	game_fields(&r->u.game, "eve", "fay");
	uint64_t same = store_writer_queue(h->w, r);
	uint64_t fin = queue_finish(h, id, 1.0, false, "ann", "bob");
	uint64_t fin2 = queue_finish(h, id, 0.0, false, "ann", "bob"); /* over already */
	uint64_t late = queue_move(h, id, 1);                          /* over: refused */
	wait_for(h, late);
	ck_assert_int_eq(h->err[m0], STORE_OK);
	ck_assert_int_eq(h->err[gap], STORE_ESTATE);
	ck_assert_int_eq(h->err[m1], STORE_OK);
	ck_assert_int_eq(h->err[nogame], STORE_ENOTFOUND);
	ck_assert_int_eq(h->err[a1], STORE_OK);
	ck_assert_int_eq(h->err[a2], STORE_EEXISTS);
	ck_assert_int_eq(h->err[tb_bad], STORE_ESTATE);
	ck_assert_int_eq(h->err[tb], STORE_OK);
	ck_assert_int_eq(h->err[dup], STORE_OK);
	ck_assert_int_eq(h->err[same], STORE_EEXISTS);
	ck_assert_int_eq(h->err[fin], STORE_OK);
	ck_assert_int_eq(h->err[fin2], STORE_ESTATE);
	ck_assert_int_eq(h->err[late], STORE_ESTATE);
	ck_assert_uint_eq(h->failed, 0);
	stop(h);
	struct store *s = open_store(STORE_SYNC_FULL, 0);
	struct store_game g;
	ck_assert_int_eq(store_game_fetch(s, id, &g), STORE_OK);
	ck_assert_int_eq(g.plies, 1); /* m0, m1, then the takeback of ply 1 */
	ck_assert_str_eq(g.players[0], "ann");
	ck_assert_int_eq(g.status, STORE_FINISHED);
	ck_assert_str_eq(g.result, "1-0");
	store_game_clear(&g);
	char canon[STORE_NAME_MAX + 1];
	ck_assert_int_eq(store_account_exists(s, "carol", canon), 1);
	ck_assert_str_eq(canon, "Carol");
	store_close(s);
}
END_TEST

/*
 * Another connection holds the write lock: the batch waits the busy timeout
 * (ms), fails with STORE_EBUSY and is reported with every record it held;
 * nothing of it is stored; once the lock is gone the same records go in.
 */
START_TEST(test_locked_database)
{
	struct harness *h = start_with("always", 30, 0);
	int64_t id = queue_game(h, "ann", "bob");
	wait_for(h, queue_move(h, id, 0));
	struct st_other other;
	st_lock(&other);
	uint64_t first = queue_move(h, id, 1);
	uint64_t last = queue_move(h, id, 2);
	wait_for(h, last);
	ck_assert_uint_ge(h->failed, 1);
	for (uint64_t s = first; s <= last; s++)
		ck_assert_int_eq(h->err[s], STORE_EBUSY);
	ck_assert_int_eq(h->last_batch_err, STORE_EBUSY);
	ck_assert_msg(strstr(h->last_why, st_lock_words()) != NULL, "why: %s", h->last_why);
	/* still locked: every try fails, the writer keeps answering */
	uint64_t again = queue_move(h, id, 1);
	wait_for(h, again);
	ck_assert_int_eq(h->err[again], STORE_EBUSY);
	/* reads go on meanwhile (WAL), and show nothing of the failed batches */
	ck_assert_int_eq(plies_of(id), 1);
	st_unlock(&other);
	queue_move(h, id, 1);
	uint64_t done = queue_move(h, id, 2);
	wait_for(h, done);
	ck_assert_int_eq(h->err[done - 1], STORE_OK);
	ck_assert_int_eq(h->err[done], STORE_OK);
	ck_assert_int_eq(plies_of(id), 3);
	struct store_writer_stats st;
	store_writer_stats(h->w, &st);
	ck_assert_uint_eq(st.failures, h->failed);
	ck_assert_uint_eq(st.records, done);
	stop(h);
}
END_TEST

/*
 * A full disk (smallfs.h): a 1 MiB tmpfs filled up, where mounting is
 * allowed (ENOSPC: SQLite reports SQLITE_FULL), else RLIMIT_FSIZE (EFBIG: an
 * I/O error). Either way: the batch fails and is reported, nothing of it is
 * stored, and writing works again once there is room.
 */
START_TEST(test_disk_full)
{
	char mnt[400], filler[450];
	snprintf(mnt, sizeof mnt, "%s/small", ste.tmpdir);
	ck_assert_int_eq(mkdir(mnt, 0700), 0);
	bool tmpfs = smallfs_mount(mnt);
	fprintf(stderr, "disk full: %s\n",
	        tmpfs ? "1 MiB tmpfs, ENOSPC" : "no mount allowed: RLIMIT_FSIZE, EFBIG");
	snprintf(ste.dir, sizeof ste.dir, "%s/db", mnt);
	snprintf(filler, sizeof filler, "%s/filler", mnt);
	struct harness *h = start();
	int64_t id = queue_game(h, "ann", "bob");
	wait_for(h, queue_move(h, id, 0));
	struct rlimit old;
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	if (tmpfs) {
		smallfs_fill(filler);
	} else {
		signal(SIGXFSZ, SIG_IGN);
		struct stat sb;
		char wal[700];
		snprintf(wal, sizeof wal, "%s/%s-wal", ste.dir, STORE_DB_FILE);
		ck_assert_int_eq(stat(wal, &sb), 0);
		struct rlimit lim = {.rlim_cur = (rlim_t)sb.st_size + 4096,
		                     .rlim_max = old.rlim_max};
		ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	}
	/* far more than the room left: 400 moves of 150 bytes */
	uint64_t first = store_writer_last(h->w) + 1, last = 0;
	for (int ply = 1; ply <= 400; ply++) {
		struct store_rec *r = store_writer_rec(h->w, STORE_REC_MOVE);
		r->game = id;
		r->u.move.ply = ply;
		r->u.move.seat = ply % 2;
		memset(r->u.move.text, 'x', 150);
		last = store_writer_queue(h->w, r);
	}
	wait_for(h, last);
	ck_assert_uint_ge(h->failed, 1);
	/* the first batch failed; later ones were refused (their plies do not follow) or failed */
	ck_assert_int_eq(h->err[first], tmpfs ? STORE_EFULL : STORE_EIO);
	for (uint64_t s = first; s <= last; s++)
		ck_assert_int_ne(h->err[s], STORE_OK);
	ck_assert_int_eq(plies_of(id), 1);
	/* room again */
	if (tmpfs)
		ck_assert_int_eq(unlink(filler), 0);
	else
		ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
	uint64_t ok = queue_move(h, id, 1);
	wait_for(h, ok);
	ck_assert_int_eq(h->err[ok], STORE_OK);
	ck_assert_int_eq(plies_of(id), 2);
	stop(h);
	if (tmpfs)
		ck_assert_int_eq(umount2(mnt, MNT_DETACH), 0);
}
END_TEST

/* The database file removed, replaced or emptied under the writer: every batch is refused. */
static void gone_case(int how)
{
	struct harness *h = start();
	int64_t id = queue_game(h, "ann", "bob");
	wait_for(h, queue_move(h, id, 0));
	char path[700], other[700];
	snprintf(path, sizeof path, "%s/%s", ste.dir, STORE_DB_FILE);
	snprintf(other, sizeof other, "%s/other.db", ste.tmpdir);
	if (how == 0) {
		ck_assert_int_eq(unlink(path), 0);
	} else if (how == 1) {
		/* a valid database of its own, renamed over ours */
		sqlite3 *db;
		ck_assert_int_eq(sqlite3_open(other, &db), SQLITE_OK);
		ck_assert_int_eq(sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL),
		                 SQLITE_OK);
		sqlite3_close(db);
		ck_assert_int_eq(rename(other, path), 0);
	} else {
		ck_assert_int_eq(truncate(path, 0), 0);
	}
	for (int round = 0; round < 2; round++) {
		uint64_t s = queue_move(h, id, 1);
		wait_for(h, s);
		ck_assert_int_eq(h->err[s], STORE_EGONE);
		ck_assert_msg(strstr(h->last_why, how == 0   ? "removed"
		                                  : how == 1 ? "replaced"
		                                             : "emptied") != NULL,
		              "why: %s", h->last_why);
	}
	stop(h);
	char wal[720];
	snprintf(wal, sizeof wal, "%s-wal", path);
	struct store_options o = {.dir = ste.dir};
	struct store *s = (struct store *)1;
	if (how == 2) {
		/* the next start refuses the emptied store; the WAL is kept for a rescue */
		ck_assert_int_eq(store_open_opts(&o, &s), STORE_EGONE);
		ck_assert_ptr_null(s);
		ck_assert_int_eq(access(wal, F_OK), 0);
		return;
	}
	if (how == 0) {
		/* the WAL with the last writes stays, alone: the next start refuses it rather than
		 * replay it into a new, empty file */
		ck_assert_int_eq(access(wal, F_OK), 0);
		ck_assert_int_eq(store_open_opts(&o, &s), STORE_EGONE);
		ck_assert_ptr_null(s);
		return;
	}
	/* the file put in our place is untouched and opens clean: our WAL was put aside */
	char aside[740];
	snprintf(aside, sizeof aside, "%s.orphaned", wal);
	ck_assert_int_eq(access(aside, F_OK), 0);
	ck_assert_int_eq(access(wal, F_OK), -1);
	sqlite3 *db;
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "SELECT x FROM t", NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_ne(sqlite3_exec(db, "SELECT 1 FROM games", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

START_TEST(test_file_removed)
{
	gone_case(0);
}
END_TEST

START_TEST(test_file_replaced)
{
	gone_case(1);
}
END_TEST

START_TEST(test_file_emptied)
{
	gone_case(2);
}
END_TEST

/*
 * kill -9 mid-stream: a child queues moves as fast as it can and writes to a
 * pipe the ply of every move reported committed; after 2000 it is
 * SIGKILLed. Every acknowledged move is in the store. Under batch=MS the
 * fsync comes a second after the acknowledgement, so the kill lands before
 * it: what was written to the WAL is in the OS cache and survives the
 * process.
 */
struct child {
	uv_loop_t loop;
	uv_idle_t idle;
	struct store_writer *w;
	int64_t game;
	int next_ply;
	int fd;
};

static void child_batch(void *ud, const struct store_batch *b)
{
	struct child *c = ud;
	if (b->err != STORE_OK)
		_exit(3);
	for (const struct store_rec *r = b->recs; r != NULL; r = r->next) {
		if (r->err != STORE_OK)
			_exit(4);
		if (r->type == STORE_REC_MOVE &&
		    write(c->fd, &r->u.move.ply, sizeof r->u.move.ply) != sizeof r->u.move.ply)
			_exit(5);
	}
}

static void child_idle(uv_idle_t *t)
{
	struct child *c = t->data;
	/* a bounded queue: at most 500 moves in flight */
	if ((int64_t)(store_writer_last(c->w) - store_writer_done(c->w)) > 500)
		return;
	for (int i = 0; i < 20; i++) {
		struct store_rec *r = store_writer_rec(c->w, STORE_REC_MOVE);
		if (r == NULL)
			_exit(6);
		r->game = c->game;
		r->u.move.ply = c->next_ply++;
		r->u.move.seat = r->u.move.ply % 2;
		snprintf(r->u.move.text, sizeof r->u.move.text, "p%d", r->u.move.ply);
		store_writer_queue(c->w, r);
	}
}

static void kill9_case(const char *fsync)
{
	struct store *s = open_store(STORE_SYNC_FULL, 0);
	struct store_game g;
	game_fields(&g, "ann", "bob");
	int64_t id;
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_OK);
	store_close(s);
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		static struct child c;
		c.fd = fds[1];
		c.game = id;
		struct store_writer_config cfg = {.ud = &c, .on_batch = child_batch};
		if (uv_loop_init(&c.loop) != 0 || store_fsync_parse(fsync, &cfg.fsync) != 0)
			_exit(2);
		struct store_options o = {.sync = store_fsync_sync(&cfg.fsync)};
		st_options(&o);
		struct store *cs = NULL;
		if (store_open_opts(&o, &cs) != STORE_OK ||
		    store_writer_start(&c.loop, cs, &cfg, &c.w) != STORE_OK)
			_exit(2);
		c.idle.data = &c;
		uv_idle_init(&c.loop, &c.idle);
		uv_idle_start(&c.idle, child_idle);
		uv_run(&c.loop, UV_RUN_DEFAULT); /* until killed */
		_exit(7);
	}
	close(fds[1]);
	int acked = -1, ply;
	while (acked < 2000 && read(fds[0], &ply, sizeof ply) == sizeof ply) {
		ck_assert_int_eq(ply, acked + 1); /* acknowledged in order */
		acked = ply;
	}
	kill(pid, SIGKILL);
	int status;
	waitpid(pid, &status, 0);
	while (read(fds[0], &ply, sizeof ply) == sizeof ply)
		acked = ply; /* acknowledgements already in the pipe count too */
	close(fds[0]);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "child status %d",
	              status);
	ck_assert_int_ge(acked, 2000);
	int plies = plies_of(id);
	fprintf(stderr, "kill -9 (%s): %d moves acknowledged, %d in the store\n", fsync, acked + 1,
	        plies);
	ck_assert_int_ge(plies, acked + 1);
}

START_TEST(test_kill9_always)
{
	kill9_case("always");
}
END_TEST

START_TEST(test_kill9_batch)
{
	kill9_case("batch=1000");
}
END_TEST

/*
 * --fsync batch=MS: batches are reported unsynced right after their commit;
 * one fsync of the WAL follows within MS and covers them all.
 */
START_TEST(test_fsync_batch)
{
	struct harness *h = start_with("batch=300", 0, 0);
	int64_t id = queue_game(h, "ann", "bob");
	wait_for(h, 1);
	unsigned wal0 = atomic_load(&wal_syncs);
	uint64_t last = 0;
	for (int ply = 0; ply < 30; ply++)
		wait_for(h, last = queue_move(h, id, ply)); /* 30 commits, one after the other */
	struct store_writer_stats st;
	store_writer_stats(h->w, &st);
	ck_assert_uint_ge(st.commits, 31);
	for (uint64_t s = 1; s <= last; s++) {
		ck_assert_int_eq(h->err[s], STORE_OK);
		ck_assert(!h->synced[s]);
	}
	/* acknowledged well before the fsync: none of the WAL yet, unless a checkpoint ran */
	unsigned before = atomic_load(&wal_syncs) - wal0;
	ck_assert(st_is_pg() || before <= 2);
	/* the fsync comes (and is reported) by itself */
	while (h->synced_upto < last)
		uv_run(&h->loop, UV_RUN_ONCE);
	store_writer_stats(h->w, &st);
	ck_assert_uint_ge(st.syncs, 1);
	ck_assert_uint_lt(st.syncs, st.commits / 3); /* one per 300 ms, not one per commit */
	ck_assert(st_is_pg() || atomic_load(&wal_syncs) - wal0 >= before + 1);
	ck_assert_uint_eq(h->syncs, st.syncs);
	ck_assert_int_eq(plies_of(id), 30);
	stop(h);
}
END_TEST

/* Ids come from the loop at once, from blocks reserved ahead; never twice, not even after a
 * restart. */
START_TEST(test_game_ids)
{
	struct harness *h = start_with("always", 0, 8);
	int64_t prev = 0, id;
	for (int i = 0; i < 40; i++) {
		int tries = 0;
		while (store_writer_game_id(h->w, &id) != STORE_OK) {
			/* the next block is on its way: let the loop hear of it */
			ck_assert_int_lt(tries++, 100);
			uv_run(&h->loop, UV_RUN_ONCE);
		}
		ck_assert_int_gt(id, prev);
		prev = id;
		if (i % 3 == 0) { /* some of them used */
			struct store_rec *r = store_writer_rec(h->w, STORE_REC_GAME);
			r->game = id;
			game_fields(&r->u.game, "ann", "bob");
			store_writer_queue(h->w, r);
		}
	}
	store_writer_flush(h->w);
	ck_assert_uint_eq(h->failed, 0);
	stop(h);
	/* a new writer starts past every id given out, used or not */
	h = start_with("always", 0, 8);
	ck_assert_int_eq(store_writer_game_id(h->w, &id), STORE_OK);
	ck_assert_int_gt(id, prev);
	stop(h);
	/* and so does the synchronous path */
	struct store *s = open_store(STORE_SYNC_FULL, 0);
	struct store_game g;
	game_fields(&g, "ann", "bob");
	int64_t sid;
	ck_assert_int_eq(store_game_begin(s, &g, &sid), STORE_OK);
	ck_assert_int_gt(sid, id);
	store_close(s);
}
END_TEST

/* A rated end reads both ratings in the batch, asks the rate callback, stores them with the end. */
START_TEST(test_rated_end)
{
	struct harness *h = start();
	queue_account(h, "Ann");
	queue_account(h, "Bob");
	int64_t g1 = queue_game(h, "Ann", "Bob");
	int64_t g2 = queue_game(h, "Ann", "Bob");
	int64_t g3 = queue_game(h, "Ann", "guest-1");
	queue_finish(h, g1, 1.0, true, "Ann", "Bob");
	/* the second game in the same batch sees the first one's ratings */
	queue_finish(h, g2, 0.5, true, "Ann", "Bob");
	uint64_t last = queue_finish(h, g3, 1.0, true, "Ann", "guest-1"); /* a guest: unrated */
	wait_for(h, last);
	for (uint64_t s = 1; s <= last; s++)
		ck_assert_int_eq(h->err[s], STORE_OK);
	ck_assert_double_eq(h->rated[0].rating, 1516.0); /* the last rated end: g2 */
	ck_assert_double_eq(h->rated[1].rating, 1484.0);
	stop(h);
	struct store *s = open_store(STORE_SYNC_FULL, 0);
	struct store_rating r;
	ck_assert_int_eq(store_rating_get(s, "ann", "ttt", &r), STORE_OK);
	ck_assert_double_eq(r.rating, 1516.0);
	ck_assert_double_eq(r.rd, 330.0);
	ck_assert_int_eq(r.games, 2);
	ck_assert_int_eq(r.updated, 5000);
	ck_assert_int_eq(store_rating_get(s, "bob", "ttt", &r), STORE_OK);
	ck_assert_double_eq(r.rating, 1484.0);
	ck_assert_int_eq(r.games, 2);
	struct store_game g;
	ck_assert_int_eq(store_game_fetch(s, g3, &g), STORE_OK);
	ck_assert_int_eq(g.status, STORE_FINISHED);
	store_game_clear(&g);
	store_close(s);
}
END_TEST

/* Stopping writes what is still queued and reports it. */
START_TEST(test_stop_drains)
{
	struct harness *h = start();
	int64_t id = queue_game(h, "ann", "bob");
	for (int ply = 0; ply < 50; ply++)
		queue_move(h, id, ply);
	struct store_writer *w = h->w;
	store_writer_stop(w);
	ck_assert(h->seen[51]);
	ck_assert_int_eq(h->err[51], STORE_OK);
	uv_run(&h->loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&h->loop), 0);
	free(h);
	ck_assert_int_eq(plies_of(id), 50);
}
END_TEST

/*
 * retry_ms: a batch that fails is reported as retrying and tried again,
 * with what queued behind it, until the lock is gone; then every record is
 * reported committed once, in order, and nothing was written out of order.
 */
START_TEST(test_retry_until_stored)
{
	struct harness *h = start_retrying("always", 20, 0, 10);
	int64_t id = queue_game(h, "ann", "bob");
	wait_for(h, queue_move(h, id, 0));
	struct st_other other;
	st_lock(&other);
	for (int ply = 1; ply <= 5; ply++)
		queue_move(h, id, ply);
	while (h->retries < 3)
		uv_run(&h->loop, UV_RUN_ONCE);
	ck_assert_int_eq(h->last_batch_err, STORE_EBUSY);
	ck_assert_uint_eq(store_writer_done(h->w), 2); /* nothing more is done */
	uint64_t last = 0;
	for (int ply = 6; ply <= 10; ply++) /* queued behind the failing batch */
		last = queue_move(h, id, ply);
	while (h->retries < 5)
		uv_run(&h->loop, UV_RUN_ONCE);
	ck_assert_int_eq(plies_of(id), 1);
	st_unlock(&other);
	wait_for(h, last);
	for (uint64_t s = 1; s <= last; s++) {
		ck_assert(h->seen[s]);
		ck_assert_int_eq(h->err[s], STORE_OK);
	}
	ck_assert_uint_eq(h->failed, 0); /* no batch dropped */
	ck_assert_int_eq(plies_of(id), 11);
	struct store_writer_stats st;
	store_writer_stats(h->w, &st);
	ck_assert_uint_eq(st.records, last);
	ck_assert_uint_ge(st.failures, 5);
	stop(h);
}
END_TEST

/* flush waits through the retries (the failed batch comes back through the loop's thread). */
static void unlock_later(void *arg)
{
	uv_sleep(100);
	st_unlock(arg);
}

START_TEST(test_retry_flush)
{
	struct harness *h = start_retrying("always", 10, 0, 5);
	int64_t id = queue_game(h, "ann", "bob");
	struct st_other other;
	st_lock(&other);
	for (int ply = 0; ply < 3; ply++)
		queue_move(h, id, ply);
	uv_thread_t t;
	ck_assert_int_eq(uv_thread_create(&t, unlock_later, &other), 0);
	store_writer_flush(h->w);
	uv_thread_join(&t);
	ck_assert_uint_ge(h->retries, 1);
	ck_assert_uint_eq(store_writer_done(h->w), 4);
	ck_assert_int_eq(h->err[4], STORE_OK);
	ck_assert_int_eq(plies_of(id), 3);
	stop(h);
}
END_TEST

/* Stopping while the store fails: one last try, then the batch is dropped and reported so. */
START_TEST(test_retry_stop)
{
	struct harness *h = start_retrying("always", 10, 0, 5);
	int64_t id = queue_game(h, "ann", "bob");
	wait_for(h, 1);
	struct st_other other;
	st_lock(&other);
	uint64_t last = 0;
	for (int ply = 0; ply < 3; ply++)
		last = queue_move(h, id, ply);
	while (h->retries < 1)
		uv_run(&h->loop, UV_RUN_ONCE);
	store_writer_stop(h->w);
	for (uint64_t s = 2; s <= last; s++) {
		ck_assert(h->seen[s]);
		ck_assert_int_eq(h->err[s], STORE_EBUSY);
	}
	ck_assert_uint_ge(h->failed, 1);
	uv_run(&h->loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&h->loop), 0);
	free(h);
	st_unlock(&other);
	ck_assert_int_eq(plies_of(id), 0);
}
END_TEST

/* The store must be opened with the sync mode the fsync mode needs. */
START_TEST(test_start_refuses_mismatch)
{
	uv_loop_t loop;
	ck_assert_int_eq(uv_loop_init(&loop), 0);
	struct store_writer_config cfg = {.on_batch = on_batch};
	ck_assert_int_eq(store_fsync_parse("batch=10", &cfg.fsync), 0);
	struct store_writer *w = (struct store_writer *)1;
	ck_assert_int_eq(store_writer_start(&loop, open_store(STORE_SYNC_FULL, 0), &cfg, &w),
	                 STORE_EINVAL);
	ck_assert_ptr_null(w);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/*
 * PostgreSQL stopped (as a crash: -m immediate) and started again while
 * the writer has batches: moves keep coming the whole time; the batches
 * that meet the dead server are reported failed (STORE_EUNAVAIL, the
 * server's words), nothing is acknowledged that is not stored, and once the
 * server is back everything queued commits, in order, by itself.
 */
static int64_t stream_game;
static int stream_ply;

static void stream(struct harness *h, int n)
{
	for (int i = 0; i < n; i++)
		queue_move(h, stream_game, stream_ply++);
}

START_TEST(test_pg_restart_under_load)
{
	struct harness *h = start_retrying("always", 200, 0, 20);
	stream_game = queue_game(h, "ann", "bob");
	stream_ply = 0;
	while (store_writer_done(h->w) < 300) {
		if (store_writer_last(h->w) - store_writer_done(h->w) < 50)
			stream(h, 10);
		uv_run(&h->loop, UV_RUN_NOWAIT);
	}
	pgtest_stop(&st_pg, "immediate");
	while (h->retries < 3) { /* the writer keeps trying; moves keep coming */
		stream(h, 5);
		uv_run(&h->loop, UV_RUN_ONCE);
	}
	ck_assert_int_eq(h->last_batch_err, STORE_EUNAVAIL);
	uint64_t done = store_writer_done(h->w);
	for (int i = 0; i < 3; i++) { /* nothing is acknowledged while the server is away */
		stream(h, 5);
		uv_run(&h->loop, UV_RUN_ONCE);
	}
	ck_assert_uint_eq(store_writer_done(h->w), done);
	ck_assert(pgtest_restart(&st_pg));
	stream(h, 100);
	uint64_t last = store_writer_last(h->w);
	wait_for(h, last);
	for (uint64_t s = 1; s <= last; s++) {
		ck_assert(h->seen[s]);
		ck_assert_int_eq(h->err[s], STORE_OK);
	}
	ck_assert_uint_eq(h->failed, 0);
	fprintf(stderr, "postgresql restart: %d moves, %zu failure reports on the way\n",
	        stream_ply, h->retries);
	stop(h);
	ck_assert_int_eq(plies_of(stream_game), stream_ply);
}
END_TEST

/*
 * A commit whose answer is lost: a proxy between the writer and PostgreSQL
 * forwards everything, but once asked it swallows the server's "COMMIT"
 * answer and cuts the connection, and (when asked) refuses connections for
 * a while after. The commit happened; the writer cannot know until the
 * server answers again. Quickly back: the commit is reported committed at
 * once. Back after the writer gave up waiting: the batch is reported failed
 * (retrying), tried again, and its records get the answers they had (the
 * moves are not refused as duplicates of themselves): every move is stored
 * once and reported committed once.
 */
struct proxy {
	uv_thread_t t;
	int lfd, port, target;
	atomic_bool stop;
	atomic_bool drop_commit; /* swallow the next COMMIT answer and cut */
	atomic_int refuse_ms;    /* after cutting: refuse connections this long */
	atomic_int dropped;
};

static int connect_to(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

static bool has_commit(const char *buf, size_t n)
{
	static const char tag[] = "C\0\0\0\x0b"
	                          "COMMIT"; /* CommandComplete "COMMIT" */
	for (size_t i = 0; i + sizeof tag <= n; i++)
		if (memcmp(buf + i, tag, sizeof tag) == 0)
			return true;
	return false;
}

static void proxy_main(void *arg)
{
	struct proxy *px = arg;
	int cfd = -1, sfd = -1;
	uint64_t refuse_until = 0;
	char buf[65536];
	while (!atomic_load(&px->stop)) {
		struct pollfd p[3] = {{.fd = px->lfd, .events = POLLIN},
		                      {.fd = cfd, .events = POLLIN},
		                      {.fd = sfd, .events = POLLIN}};
		if (poll(p, 3, 20) <= 0)
			continue;
		if (p[0].revents & POLLIN) {
			int fd = accept(px->lfd, NULL, NULL);
			if (fd >= 0 && (uv_hrtime() < refuse_until || cfd >= 0)) {
				close(fd);
			} else if (fd >= 0) {
				cfd = fd;
				sfd = connect_to(px->target);
			}
		}
		for (int k = 1; k <= 2 && cfd >= 0; k++) {
			if (!(p[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ssize_t n = read(p[k].fd, buf, sizeof buf);
			bool cut = n <= 0;
			if (!cut && k == 2 && atomic_load(&px->drop_commit) &&
			    has_commit(buf, (size_t)n)) {
				atomic_store(&px->drop_commit, false);
				atomic_fetch_add(&px->dropped, 1);
				refuse_until = uv_hrtime() +
				               (uint64_t)atomic_load(&px->refuse_ms) * 1000000u;
				cut = true;
			}
			if (!cut && write(k == 1 ? sfd : cfd, buf, (size_t)n) != n)
				cut = true;
			if (cut) {
				close(cfd);
				close(sfd);
				cfd = sfd = -1;
			}
		}
	}
	if (cfd >= 0)
		close(cfd);
	if (sfd >= 0)
		close(sfd);
}

static void proxy_start(struct proxy *px, int target)
{
	memset(px, 0, sizeof *px);
	px->target = target;
	px->lfd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof a;
	ck_assert_int_eq(bind(px->lfd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(px->lfd, 16), 0);
	ck_assert_int_eq(getsockname(px->lfd, (struct sockaddr *)&a, &len), 0);
	px->port = ntohs(a.sin_port);
	ck_assert_int_eq(uv_thread_create(&px->t, proxy_main, px), 0);
}

static void proxy_stop(struct proxy *px)
{
	atomic_store(&px->stop, true);
	uv_thread_join(&px->t);
	close(px->lfd);
}

START_TEST(test_pg_commit_answer_lost)
{
	static struct proxy px;
	proxy_start(&px, st_pg.port);
	/* the writer reaches the server through the proxy, over TCP */
	snprintf(
	        ste.uri, sizeof ste.uri,
	        "postgresql://%s@127.0.0.1:%d/postgres?sslmode=disable&options=-csearch_path%%3D%s",
	        PGTEST_USER, px.port, ste.schema);
	struct harness *h = start_retrying("always", 200, 0, 20);
	int64_t id = queue_game(h, "ann", "bob");
	for (int ply = 0; ply < 5; ply++)
		queue_move(h, id, ply);
	wait_for(h, 6);
	/* lost, and the server answers again at once: learnt, committed, nothing failed */
	atomic_store(&px.drop_commit, true);
	uint64_t last = 0;
	for (int ply = 5; ply < 10; ply++)
		last = queue_move(h, id, ply);
	wait_for(h, last);
	ck_assert_int_eq(atomic_load(&px.dropped), 1);
	ck_assert_uint_eq(h->retries, 0);
	/* lost, and no answer for longer than the commit waits: failed, tried again, answered */
	atomic_store(&px.refuse_ms, 3000);
	atomic_store(&px.drop_commit, true);
	for (int ply = 10; ply < 15; ply++)
		last = queue_move(h, id, ply);
	wait_for(h, last);
	ck_assert_int_eq(atomic_load(&px.dropped), 2);
	ck_assert_uint_ge(h->retries, 1);
	for (uint64_t s = 1; s <= last; s++)
		ck_assert_int_eq(h->err[s], STORE_OK);
	ck_assert_uint_eq(h->failed, 0);
	stop(h);
	proxy_stop(&px);
	pgtest_uri(&st_pg, ste.schema, ste.uri, sizeof ste.uri);
	ck_assert_int_eq(plies_of(id), 15);
}
END_TEST

static Suite *writer_suite(void)
{
	Suite *s = suite_create("store_writer");
	const TTest *const both[] = {test_fsync_parse,        test_group_commit,
	                             test_one_by_one,         test_refusals_in_a_batch,
	                             test_locked_database,    test_kill9_always,
	                             test_kill9_batch,        test_fsync_batch,
	                             test_game_ids,           test_rated_end,
	                             test_stop_drains,        test_start_refuses_mismatch,
	                             test_retry_until_stored, test_retry_flush,
	                             test_retry_stop,         NULL};
	const TTest *const sqlite_only[] = {test_queue_never_waits, test_disk_full,
	                                    test_file_removed,      test_file_replaced,
	                                    test_file_emptied,      NULL};
	const TTest *const pg_only[] = {test_pg_restart_under_load, test_pg_commit_answer_lost,
	                                NULL};
	st_cases(s, "check_store_writer", setup_sqlite, setup_pg, teardown, 60, both, sqlite_only,
	         pg_only);
	return s;
}

int main(void)
{
	return check_run(writer_suite());
}
