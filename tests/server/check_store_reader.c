/*
 * check_store_reader.c - reads off the loop (src/server/store_reader.c) on
 * each back end (storetest.h: SQLite in a temporary directory, PostgreSQL on
 * a throw-away server): jobs run on reader threads
 * (not the loop's), results come back to the loop; reads are not held up
 * by a write lock another connection holds, and see every commit the
 * writer reported; reader connections refuse writes; stopping runs what is
 * queued; the loop never waits for the readers' lock.
 */
#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "server/store/store.h"
#include "server/store/store_reader.h"
#include "server/store/store_writer.h"
#include "storetest.h"
#include "check_main.h"

static void setup_sqlite(void)
{
	st_setup(ST_SQLITE, "check_store_reader", "db");
}

static void setup_pg(void)
{
	st_setup(ST_PG, "check_store_reader", "db");
}

static void teardown(void)
{
	st_teardown();
}

/* The running test's store options (busy: the lock wait). */
static struct store_options options(int busy_ms)
{
	struct store_options o = {.busy_timeout_ms = busy_ms};
	st_options(&o);
	return o;
}

/* A store with accounts user0..user9, each with one finished game against the next. */
static void populate(void)
{
	struct store *s = NULL;
	struct store_options o = options(0);
	ck_assert_int_eq(store_open_opts(&o, &s), STORE_OK);
	for (int i = 0; i < 10; i++) {
		char name[16];
		snprintf(name, sizeof name, "user%d", i);
		ck_assert_int_eq(store_account_insert(s, name, "$argon2id$fake", 1), STORE_OK);
	}
	for (int i = 0; i < 10; i++) {
		struct store_game g;
		memset(&g, 0, sizeof g);
		snprintf(g.kind, sizeof g.kind, "ttt");
		snprintf(g.players[0], sizeof g.players[0], "user%d", i);
		snprintf(g.players[1], sizeof g.players[1], "user%d", (i + 1) % 10);
		int64_t id;
		ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_OK);
		struct store_move m = {.ply = 0, .seat = 0, .text = "b2"};
		ck_assert_int_eq(store_move_append(s, id, &m), STORE_OK);
		struct store_finish f = {.status = STORE_FINISHED,
		                         .result = "1-0",
		                         .winner = 0,
		                         .reason = "resign",
		                         .ended = 100 + i};
		ck_assert_int_eq(store_game_finish(s, id, &f), STORE_OK);
	}
	store_close(s);
}

struct lookup {
	struct store_read job; /* first: the job is the struct */
	int i;
	uv_thread_t ran_on;
	int found; /* store_account_hash */
	char canon[STORE_NAME_MAX + 1];
	size_t games; /* store_history */
	int write;    /* a write attempted on the reader's connection */
	int *done_count;
};

static uv_thread_t loop_thread;

static void lookup_work(struct store *db, struct store_read *job)
{
	struct lookup *l = (struct lookup *)job;
	l->ran_on = uv_thread_self();
	char name[16], hash[STORE_HASH_MAX];
	snprintf(name, sizeof name, "USER%d", l->i % 12); /* user10, user11 do not exist */
	l->found = store_account_hash(db, name, l->canon, hash);
	struct store_game *v = NULL;
	size_t n = 0;
	if (store_history(db, name, 20, &v, &n) == STORE_OK)
		l->games = n;
	store_games_free(v, n);
	struct store_move m = {.ply = 1, .seat = 1, .text = "a1"};
	l->write = store_move_append(db, 1, &m);
}

static void lookup_done(struct store_read *job)
{
	struct lookup *l = (struct lookup *)job;
	uv_thread_t self = uv_thread_self();
	ck_assert(uv_thread_equal(&l->ran_on, &loop_thread) == 0); /* not on the loop */
	ck_assert(uv_thread_equal(&self, &loop_thread) != 0);
	int k = l->i % 12;
	if (k < 10) {
		ck_assert_int_eq(l->found, STORE_OK);
		char want[16];
		snprintf(want, sizeof want, "user%d", k);
		ck_assert_str_eq(l->canon, want);
		ck_assert_uint_eq(l->games, 2); /* one as each colour */
	} else {
		ck_assert_int_eq(l->found, STORE_ENOTFOUND);
		ck_assert_uint_eq(l->games, 0);
	}
	ck_assert_int_eq(l->write, STORE_EINVAL); /* readers never write */
	(*l->done_count)++;
	free(l);
}

static void submit_lookups(struct store_reader *r, int n, int *count)
{
	for (int i = 0; i < n; i++) {
		struct lookup *l = calloc(1, sizeof *l);
		ck_assert_ptr_nonnull(l);
		l->job.work = lookup_work;
		l->job.done = lookup_done;
		l->i = i;
		l->done_count = count;
		ck_assert_int_eq(store_reader_submit(r, &l->job), STORE_OK);
	}
}

/* The populated store's reader with two threads on loop (the test's thread: loop_thread). */
static struct store_reader *start_reader(uv_loop_t *loop)
{
	populate();
	loop_thread = uv_thread_self();
	ck_assert_int_eq(uv_loop_init(loop), 0);
	struct store_options o = options(0);
	struct store_reader *r = NULL;
	ck_assert_int_eq(store_reader_start(loop, &o, 2, &r), STORE_OK);
	return r;
}

START_TEST(test_reads_off_the_loop)
{
	uv_loop_t loop;
	struct store_reader *r = start_reader(&loop);
	int count = 0;
	submit_lookups(r, 60, &count);
	while (count < 60)
		uv_run(&loop, UV_RUN_ONCE);
	/* stopping runs what is still queued */
	submit_lookups(r, 30, &count);
	store_reader_stop(r);
	ck_assert_int_eq(count, 90);
	uv_run(&loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/* Reads go on while another process holds the write lock, and see only what is committed. */
struct count_job {
	struct store_read job;
	int64_t id;
	int plies;
	int err;
	bool done;
};

static void count_work(struct store *db, struct store_read *job)
{
	struct count_job *c = (struct count_job *)job;
	struct store_game g;
	c->err = store_game_fetch(db, c->id, &g);
	c->plies = g.plies;
	store_game_clear(&g);
}

static void count_done(struct store_read *job)
{
	((struct count_job *)job)->done = true;
}

static int read_plies(uv_loop_t *loop, struct store_reader *r, int64_t id)
{
	struct count_job c = {.job = {.work = count_work, .done = count_done}, .id = id};
	ck_assert_int_eq(store_reader_submit(r, &c.job), STORE_OK);
	while (!c.done)
		uv_run(loop, UV_RUN_ONCE);
	ck_assert_int_eq(c.err, STORE_OK);
	return c.plies;
}

struct after {
	bool acked;
};

static void after_batch(void *ud, const struct store_batch *b)
{
	struct after *a = ud;
	ck_assert_int_eq(b->err, STORE_OK);
	a->acked = true;
}

START_TEST(test_reads_beside_writes)
{
	populate();
	uv_loop_t loop;
	ck_assert_int_eq(uv_loop_init(&loop), 0);
	struct store_options o = options(20);
	struct store *ws = NULL;
	ck_assert_int_eq(store_open_opts(&o, &ws), STORE_OK);
	struct after a = {.acked = false};
	struct store_writer_config cfg = {.ud = &a, .on_batch = after_batch};
	struct store_writer *w = NULL;
	ck_assert_int_eq(store_writer_start(&loop, ws, &cfg, &w), STORE_OK);
	struct store_reader *r = NULL;
	ck_assert_int_eq(store_reader_start(&loop, &o, 1, &r), STORE_OK);
	/* a game in progress, written through the writer */
	int64_t id;
	ck_assert_int_eq(store_writer_game_id(w, &id), STORE_OK);
	struct store_rec *rec = store_writer_rec(w, STORE_REC_GAME);
	rec->game = id;
	snprintf(rec->u.game.kind, sizeof rec->u.game.kind, "ttt");
	snprintf(rec->u.game.players[0], sizeof rec->u.game.players[0], "a1");
	snprintf(rec->u.game.players[1], sizeof rec->u.game.players[1], "b2");
	store_writer_queue(w, rec);
	rec = store_writer_rec(w, STORE_REC_MOVE);
	rec->game = id;
	rec->u.move.ply = 0;
	store_writer_queue(w, rec);
	while (!a.acked || store_writer_done(w) < 2)
		uv_run(&loop, UV_RUN_ONCE);
	/* what the writer reported is what any later read sees */
	ck_assert_int_eq(read_plies(&loop, r, id), 1);
	/* another process holds the write lock with a move of its own, uncommitted */
	struct st_other other;
	st_lock(&other);
	st_other_sql(&other, "INSERT INTO moves(game, ply, seat, move, ms_used, clock0_ms,"
	                     " clock1_ms, at) SELECT max(id), 1, 1, 'x', 0, 0, 0, 0 FROM games");
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(read_plies(&loop, r, id), 1); /* not blocked, not dirty */
	st_other_sql(&other, "COMMIT");
	st_other_close(&other);
	ck_assert_int_eq(read_plies(&loop, r, id), 2);
	store_reader_stop(r);
	store_writer_stop(w);
	uv_run(&loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

START_TEST(test_reader_needs_a_store)
{
	uv_loop_t loop;
	ck_assert_int_eq(uv_loop_init(&loop), 0);
	struct store_options o = options(0);
	struct store_reader *r = (struct store_reader *)1;
	/* no schema yet: a reader does not create one */
	ck_assert_int_ne(store_reader_start(&loop, &o, 1, &r), STORE_OK);
	ck_assert_ptr_null(r);
	ck_assert_int_eq(store_reader_start(&loop, &o, 17, &r), STORE_EINVAL);
	uv_run(&loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/* Another thread (a reader, passing a job) holds the readers' lock for a while. */
struct holder {
	struct store_reader *r;
	uv_sem_t held, release;
};

static void hold_main(void *arg)
{
	struct holder *x = arg;
	store_reader_test_hold(x->r, true);
	uv_sem_post(&x->held);
	uv_sem_wait(&x->release);
	store_reader_test_hold(x->r, false);
}

static void hold(struct holder *x, uv_thread_t *t)
{
	ck_assert_int_eq(uv_sem_init(&x->held, 0), 0);
	ck_assert_int_eq(uv_sem_init(&x->release, 0), 0);
	ck_assert_int_eq(uv_thread_create(t, hold_main, x), 0);
	uv_sem_wait(&x->held);
}

static void release(struct holder *x, uv_thread_t *t)
{
	uv_sem_post(&x->release);
	uv_thread_join(t);
	uv_sem_destroy(&x->held);
	uv_sem_destroy(&x->release);
}

/*
 * The loop never waits for the readers' lock (a loop asleep on it, or in the
 * condition variable's signal, kept every connection waiting): jobs submitted
 * while another thread holds it are taken at once, and the loop goes on; so
 * are finished jobs waiting to be delivered. Once the lock is free, an idle
 * handle hands them over and delivers them with no further call. The old
 * reader waited for the lock in the submit until the test timed out.
 */
START_TEST(test_submit_never_waits)
{
	uv_loop_t loop;
	struct store_reader *r = start_reader(&loop);
	struct holder x = {.r = r};
	uv_thread_t t;
	int count = 0;
	/* submitted while held */
	hold(&x, &t);
	submit_lookups(r, 10, &count);
	for (int i = 0; i < 100; i++)
		uv_run(&loop, UV_RUN_NOWAIT);
	ck_assert_int_eq(count, 0);
	release(&x, &t);
	while (count < 10)
		uv_run(&loop, UV_RUN_ONCE);
	/* finished while held: the readers wait to pass them, the loop does not */
	submit_lookups(r, 10, &count);
	uv_sleep(100); /* the readers run them meanwhile */
	hold(&x, &t);
	for (int i = 0; i < 100; i++)
		uv_run(&loop, UV_RUN_NOWAIT);
	ck_assert_int_eq(count, 10); /* none delivered while held */
	release(&x, &t);
	while (count < 20)
		uv_run(&loop, UV_RUN_ONCE);
	store_reader_stop(r);
	uv_run(&loop, UV_RUN_DEFAULT);
	ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

static Suite *reader_suite(void)
{
	Suite *s = suite_create("store_reader");
	const TTest *const tests[] = {test_reads_off_the_loop, test_reads_beside_writes,
	                              test_reader_needs_a_store, test_submit_never_waits, NULL};
	st_cases(s, "check_store_reader", setup_sqlite, setup_pg, teardown, 60, tests, NULL, NULL);
	return s;
}

int main(void)
{
	return check_run(reader_suite());
}
