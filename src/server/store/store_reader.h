/*
 * store_reader.h - reads off the event loop: login lookups, history,
 * records, finger, ratings and replays run on reader threads, each with its
 * own read-only connection to the store, and their results come back to the
 * loop by callback (through a uv_async), in the order each thread finished
 * them.
 *
 * A job is the caller's struct with a struct store_read in it (container_of
 * style): work() runs on a reader thread with that thread's connection and
 * stores its results in the caller's struct; done() runs on the loop thread
 * afterwards. The caller owns the job throughout: it must stay valid until
 * done() has run, and done() is where it is usually freed. A job whose
 * caller went away meanwhile (a closed connection) still completes: done()
 * finds that out from what the job holds (an id, not a pointer).
 *
 * What a read sees: every commit made before the read starts, so a result a
 * writer reported (store_writer.h) is visible to every read submitted after.
 * Reads never wait for the writer (SQLite WAL: readers and the writer do not
 * block each other).
 */
#ifndef BITARENA_SERVER_STORE_READER_H
#define BITARENA_SERVER_STORE_READER_H

#include <stdbool.h>
#include <uv.h>

#include "server/store/store.h"

#define STORE_READER_THREADS 2 /* reader threads by default */

struct store_read {
	/* Reader thread: the job's reads on db (a reader connection: writes are refused). */
	void (*work)(struct store *db, struct store_read *job);
	/* Loop thread, after work(). */
	void (*done)(struct store_read *job);
	struct store_read *next; /* the reader's */
};

struct store_reader;

/*
 * Opens nthreads (1..16; 0: STORE_READER_THREADS) reader connections with o
 * (o->reader is forced true; the schema must exist: open the writer's store
 * first) and starts their threads. 0 or a negative store_err.
 */
int store_reader_start(uv_loop_t *loop, const struct store_options *o, int nthreads,
                       struct store_reader **out);
/* Queues job (loop thread). 0, or STORE_EINVAL once the reader is stopping. */
int store_reader_submit(struct store_reader *r, struct store_read *job);
/*
 * Runs every queued job, then stops the threads and closes their
 * connections; done() has run for every job when it returns. The memory is
 * freed once the loop has run the async handle's close. NULL is fine.
 */
void store_reader_stop(struct store_reader *r);
/* Tests: takes (hold) or gives back the lock the readers take to pass jobs, from the
   calling thread, which must not be the loop's. */
void store_reader_test_hold(struct store_reader *r, bool hold);

#endif
