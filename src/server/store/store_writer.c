/*
 * store_writer.c - the journal queue and its writer thread (see
 * store_writer.h): records queued by the loop and handed to the writer under
 * a mutex the loop never waits for, written by one thread in one transaction
 * per batch, reports handed back through a uv_async in seq order, game ids
 * given out on the loop from blocks the writer reserves, and the delayed
 * fsync of --fsync batch=MS.
 *
 * Who touches what: fields marked (mu) are shared and read or written under
 * w->mu; (loop) only on the loop thread; (thread) only on the writer thread.
 *
 * The loop only ever tries the mutex (handoff(), deliver()): when the writer
 * holds it, the records wait in the loop's own list and an idle handle tries
 * again on the next loop pass. The writer holds it for a few list
 * operations, never across I/O or an allocation, so the next pass gets it.
 * A loop thread that blocked on it went to sleep instead (perf saw it a few
 * times a second, queueing the end of a game right after its last move,
 * which had woken the writer), and every connection waited for it to be
 * woken again.
 */
#include "server/store/store_writer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/store/loop_lock.h"

#define FREE_RECS_MAX 1024 /* records kept for reuse */

/* One thing the loop hears: a batch (with the id block reserved in it), or an fsync. */
struct report {
	struct report *next;
	bool is_sync;
	uint64_t sync_upto; /* is_sync: everything up to here is fsync'd, or not (sync_err) */
	int sync_err;
	uint64_t sync_ns; /* is_sync: how long the fsync took */
	bool ids_tried; /* the batch tried to reserve the next block of ids */
	int64_t ids_first, ids_n;
	struct store_batch b;
};

struct store_writer {
	uv_loop_t *loop;
	uv_async_t async;
	uv_idle_t retry;  /* tries handoff() and deliver() again while the writer holds mu */
	int open_handles; /* async and retry, until closed */
	uv_thread_t thread;
	uv_mutex_t mu;
	uv_cond_t wake;     /* the writer waits here for records, ids or stop */
	uv_cond_t reported; /* store_writer_flush() waits here */
	struct store_writer_config cfg;

	/* (mu) */
	struct store_rec *head, **tailp;
	size_t nq;          /* records queued (head...) */
	size_t gather_want; /* gathering: wake the writer once this many are queued */
	bool stopping;
	bool retry_wait; /* a failed batch is at the loop, on its way back to the head */
	bool ids_wanted;
	struct report *done, **done_tail;
	uint64_t reported_upto; /* the last seq of the newest report */
	struct store_writer_stats st;

	/* (loop) */
	struct store_rec *out, **out_tail; /* queued, not handed over yet (handoff()) */
	size_t nout;
	struct store_rec *back; /* a failed batch on its way back to the head of the queue */
	size_t nback;
	bool want_ids;    /* ask_ids(): the writer is to be told */
	bool reports_due; /* the writer reported: deliver() has not taken it yet */
	uint64_t last_seq, done_seq;
	struct store_rec *free_recs;
	size_t nfree;
	int64_t id_next, id_end;       /* the block ids are given from */
	int64_t spare_next, spare_end; /* the next block, once reserved */
	bool ids_asked;
	int ids_err;

	/* (thread) */
	struct store *db;
	bool sync_pending;  /* batch=MS: commits not fsync'd yet */
	uint64_t sync_at;   /* uv_hrtime() by which they are */
	uint64_t committed; /* the last seq committed */
	bool failing;       /* the last batch failed and is to be tried again */
	size_t last_n;      /* records in the last batch written */
	uint64_t last_ns;   /* how long it took, commit and fsync included */
	uint64_t retry_at;  /* uv_hrtime() of that try */
};

int store_fsync_parse(const char *text, struct store_fsync *out)
{
	if (text == NULL)
		return -1;
	if (strcmp(text, "always") == 0) {
		*out = (struct store_fsync){.batch = false, .batch_ms = 0};
		return 0;
	}
	if (strncmp(text, "batch=", 6) != 0)
		return -1;
	char *end;
	errno = 0;
	long ms = strtol(text + 6, &end, 10);
	if (text[6] < '0' || text[6] > '9' || *end != '\0' || errno != 0 || ms < 0 ||
	    ms > STORE_FSYNC_BATCH_MAX_MS)
		return -1;
	*out = (struct store_fsync){.batch = true, .batch_ms = (int)ms};
	return 0;
}

enum store_sync store_fsync_sync(const struct store_fsync *f)
{
	return f->batch ? STORE_SYNC_LAZY : STORE_SYNC_FULL;
}

/* ---- the writer thread ------------------------------------------------------------------ */

static int apply_finish(struct store_writer *w, struct store_rec *r)
{
	struct store_rec_finish *fin = &r->u.finish;
	fin->f.result = fin->result;
	fin->f.reason = fin->reason;
	if (fin->rate && w->cfg.rate != NULL) {
		struct store_rating cur[STORE_SEATS], out[STORE_SEATS];
		bool accounts = true;
		for (int i = 0; i < STORE_SEATS && accounts; i++) {
			int err = store_rating_get(w->db, fin->players[i], fin->kind, &cur[i]);
			if (err == STORE_ENOTFOUND)
				accounts = false; /* a guest: the game is not rated */
			else if (err < 0)
				return err;
		}
		for (int i = 0; i < STORE_SEATS; i++)
			fin->f.rate[i] = false;
		if (accounts) {
			memcpy(out, cur, sizeof out);
			w->cfg.rate(w->cfg.ud, fin, cur, out);
			for (int i = 0; i < STORE_SEATS; i++) {
				fin->f.rate[i] = true;
				fin->f.rating[i] = out[i];
			}
		}
	}
	return store_game_finish(w->db, r->game, &fin->f);
}

static int apply(struct store_writer *w, struct store_rec *r)
{
	switch (r->type) {
	case STORE_REC_GAME:
		return store_game_insert(w->db, &r->u.game, r->game);
	case STORE_REC_MOVE:
		return store_move_append(w->db, r->game, &r->u.move);
	case STORE_REC_TAKEBACK:
		return store_moves_truncate(w->db, r->game, r->u.takeback.from,
		                            r->u.takeback.plies);
	case STORE_REC_FINISH:
		return apply_finish(w, r);
	case STORE_REC_ACCOUNT: {
		int err = store_account_insert(w->db, r->u.account.name, r->u.account.hash,
		                               r->u.account.created);
		if (err == STORE_OK && r->u.account.bot)
			err = store_prefs_put(w->db, r->u.account.name,
			                      &(struct store_prefs){.bot = true});
		return err;
	}
	case STORE_REC_PREFS:
		return store_prefs_put(w->db, r->u.prefs.name, &r->u.prefs.p);
	case STORE_REC_TOURNEY:
		return store_tourney_put(w->db, r->game, r->u.tourney.state, r->u.tourney.doc,
		                         r->u.tourney.at);
	case STORE_REC_MOD:
		return store_mod_write(w->db, &r->u.mod);
	case STORE_REC_LADDER:
		return store_ladder_put(w->db, r->game, r->u.tourney.state, r->u.tourney.doc,
		                        r->u.tourney.at);
	}
	return STORE_EINVAL;
}

/*
 * One transaction: every record of the list, and the next id block when
 * asked. final: a failure is not tried again (no retry mode, or stopping).
 */
static void write_batch(struct store_writer *w, struct report *rep, bool ids, bool final)
{
	struct store_batch *b = &rep->b;
	int err = store_begin(w->db);
	for (struct store_rec *r = b->recs; r != NULL && err == STORE_OK; r = r->next) {
		int e = apply(w, r);
		if (store_err_is_failure(e))
			err = e;
		else
			r->err = e;
	}
	if (ids && err == STORE_OK) {
		rep->ids_tried = true;
		err = store_reserve_ids(w->db, w->cfg.id_block, &rep->ids_first);
		rep->ids_n = err == STORE_OK ? w->cfg.id_block : 0;
	}
	if (err == STORE_OK) {
		uint64_t t0 = uv_hrtime();
		err = store_commit(w->db);
		b->commit_ns = uv_hrtime() - t0;
	}
	if (b->recs != NULL)
		b->wait_ns = uv_hrtime() - b->recs->queued_ns;
	if (err != STORE_OK) {
		snprintf(b->why, sizeof b->why, "%s", store_last_error(w->db));
		store_rollback(w->db);
		rep->ids_tried = ids;
		rep->ids_n = 0;
		for (struct store_rec *r = b->recs; r != NULL; r = r->next)
			r->err = err;
	}
	b->err = err;
	b->retrying = err != STORE_OK && !final && w->cfg.retry_ms > 0 && b->n > 0;
	b->synced = err == STORE_OK && !w->cfg.fsync.batch;
	w->failing = b->retrying;
	if (b->retrying)
		w->retry_at = uv_hrtime() + (uint64_t)w->cfg.retry_ms * 1000000u;
	if (err == STORE_OK && b->n > 0)
		w->committed = b->last;
	if (err == STORE_OK && w->cfg.fsync.batch && !w->sync_pending) {
		w->sync_pending = true;
		w->sync_at = uv_hrtime() + (uint64_t)w->cfg.fsync.batch_ms * 1000000u;
	}
}

static void do_sync(struct store_writer *w, struct report *rep)
{
	rep->is_sync = true;
	rep->sync_upto = w->committed;
	uint64_t t0 = uv_hrtime();
	rep->sync_err = store_sync(w->db);
	rep->sync_ns = uv_hrtime() - t0;
	if (rep->sync_err != STORE_OK)
		snprintf(rep->b.why, sizeof rep->b.why, "%s", store_last_error(w->db));
	w->sync_pending = false;
}

/* Hands a report to the loop (and to store_writer_flush()). */
static void publish(struct store_writer *w, struct report *rep)
{
	uint64_t refused = 0;
	for (const struct store_rec *r = rep->b.recs; r != NULL && rep->b.err == STORE_OK;
	     r = r->next)
		refused += r->err != STORE_OK;
	uv_mutex_lock(&w->mu);
	if (rep->is_sync) {
		w->st.syncs++;
	} else {
		const struct store_batch *b = &rep->b;
		w->st.batches++;
		if (b->err == STORE_OK)
			w->st.commits++;
		else
			w->st.failures++;
		if (!b->retrying)
			w->st.records += b->n;
		w->st.refused += refused;
		if (b->n > w->st.largest)
			w->st.largest = b->n;
		if (b->retrying)
			w->retry_wait = true; /* the records come back through the loop */
		else if (b->n > 0)
			w->reported_upto = b->last;
	}
	rep->next = NULL;
	*w->done_tail = rep;
	w->done_tail = &rep->next;
	uv_cond_broadcast(&w->reported);
	uv_mutex_unlock(&w->mu);
	uv_async_send(&w->async);
}

/* Takes up to max_batch queued records into rep's batch (under mu). */
static void take(struct store_writer *w, struct report *rep)
{
	struct store_batch *b = &rep->b;
	struct store_rec *r = w->head, *last = NULL;
	size_t n = 0;
	while (r != NULL && n < w->cfg.max_batch) {
		last = r;
		r = r->next;
		n++;
	}
	if (n == 0)
		return;
	w->nq -= n;
	b->recs = w->head;
	b->n = n;
	b->first = w->head->seq;
	b->last = last->seq;
	last->next = NULL;
	w->head = r;
	if (r == NULL)
		w->tailp = &w->head;
}

/*
 * Waits (under mu) until there is something to do: records or an id block
 * to write (not while a failed batch is on its way back or waiting for its
 * retry time), an fsync that is due, or the stop.
 */
static void wait_for_work(struct store_writer *w)
{
	for (;;) {
		if (w->stopping)
			return;
		uint64_t now = uv_hrtime(), until = 0;
		if (!w->retry_wait && (w->head != NULL || w->ids_wanted)) {
			if (!w->failing || now >= w->retry_at)
				return;
			until = w->retry_at;
		}
		if (w->sync_pending) {
			if (now >= w->sync_at)
				return;
			if (until == 0 || w->sync_at < until)
				until = w->sync_at;
		}
		if (until == 0)
			uv_cond_wait(&w->wake, &w->mu);
		else
			uv_cond_timedwait(&w->wake, &w->mu, until - now);
	}
}

/*
 * Gathering (under mu), group commit's other half (PostgreSQL's commit_delay,
 * MySQL's binlog_group_commit_sync_delay, here adaptive): players answer a
 * batch's states within a millisecond or so, and the first answer wakes the
 * writer, which would commit it alone while the others queue behind that
 * commit: every move would wait for two fsyncs. So when fewer records are
 * queued than seven eighths of the last batch, the writer waits until that
 * many are, at most a quarter of the last batch's time (its fsync) and
 * STORE_WRITER_GATHER_MAX_US. A lone player (batches of one) never waits; a
 * lull costs at most that wait; nothing changes in what is written or in
 * which order.
 */
static void gather(struct store_writer *w)
{
	size_t want = w->last_n - w->last_n / 8;
	if (w->stopping || w->failing || w->retry_wait || w->nq == 0 || w->nq >= want)
		return;
	uint64_t wait = w->last_ns / 4;
	if (wait > STORE_WRITER_GATHER_MAX_US * 1000u)
		wait = STORE_WRITER_GATHER_MAX_US * 1000u;
	uint64_t until = uv_hrtime() + wait;
	w->gather_want = want;
	for (;;) {
		uint64_t now = uv_hrtime();
		if (w->stopping || w->nq >= want || now >= until)
			break;
		uv_cond_timedwait(&w->wake, &w->mu, until - now);
	}
	w->gather_want = 0;
}

static void writer_main(void *arg)
{
	struct store_writer *w = arg;
	/* allocated outside mu, so the loop never finds mu held across malloc */
	struct report *rep = calloc(1, sizeof *rep);
	uv_mutex_lock(&w->mu);
	for (;;) {
		wait_for_work(w);
		/* stopping with a failed batch at the loop: store_writer_stop() finishes */
		if (w->stopping && w->retry_wait)
			break;
		if (rep == NULL) { /* the records wait in the queue until memory is back */
			uv_mutex_unlock(&w->mu);
			uv_sleep(10);
			rep = calloc(1, sizeof *rep);
			uv_mutex_lock(&w->mu);
			continue;
		}
		gather(w);
		take(w, rep);
		bool ids = w->ids_wanted && !w->stopping;
		w->ids_wanted = false;
		bool final = w->stopping;
		bool stop = w->stopping && w->head == NULL;
		uv_mutex_unlock(&w->mu);

		if (rep->b.n > 0 || ids) {
			uint64_t t0 = uv_hrtime();
			write_batch(w, rep, ids, final);
			w->last_n = rep->b.err == STORE_OK ? rep->b.n : 0;
			w->last_ns = uv_hrtime() - t0;
			publish(w, rep);
			rep = NULL;
		}
		/* the acknowledgement went out first; the fsync follows (batch=MS) */
		if (w->sync_pending && (stop || uv_hrtime() >= w->sync_at)) {
			if (rep == NULL)
				rep = calloc(1, sizeof *rep);
			if (rep != NULL) {
				do_sync(w, rep);
				publish(w, rep);
				rep = NULL;
			}
		}
		if (rep == NULL) /* the next report (an unused one is kept) */
			rep = calloc(1, sizeof *rep);
		uv_mutex_lock(&w->mu);
		if (stop && !w->sync_pending)
			break;
	}
	uv_mutex_unlock(&w->mu);
	free(rep);
}

/* ---- the loop side ------------------------------------------------------------------------ */

/* What a record owns (a tournament's document), freed once it is written or dropped. */
static void rec_release(struct store_rec *r)
{
	if (r->type == STORE_REC_TOURNEY || r->type == STORE_REC_LADDER) {
		free(r->u.tourney.doc);
		r->u.tourney.doc = NULL;
	}
}

static void recycle(struct store_writer *w, struct store_rec *r)
{
	rec_release(r);
	if (w->nfree >= FREE_RECS_MAX) {
		free(r);
		return;
	}
	r->next = w->free_recs;
	w->free_recs = r;
	w->nfree++;
}

/*
 * Hands the loop's records (a failed batch back to the head of the queue,
 * the new ones to its tail) and its wish for ids to the writer, and wakes
 * it. wait: may wait for mu (exit, tests); otherwise only tries it and
 * returns false when the writer holds it (the idle handle tries again).
 */
static bool handoff(struct store_writer *w, bool wait)
{
	if (w->out == NULL && w->back == NULL && !w->want_ids)
		return true;
	if (!loop_lock(&w->mu, wait))
		return false;
	bool wake = w->head == NULL || w->back != NULL || w->want_ids;
	if (w->back != NULL) {
		struct store_rec *last = w->back;
		while (last->next != NULL)
			last = last->next;
		last->next = w->head;
		if (w->head == NULL)
			w->tailp = &last->next;
		w->head = w->back;
		w->nq += w->nback;
		w->retry_wait = false;
		w->back = NULL;
		w->nback = 0;
	}
	if (w->out != NULL) {
		size_t before = w->nq;
		*w->tailp = w->out;
		w->tailp = w->out_tail;
		w->nq += w->nout;
		w->st.queued += w->nout;
		/* gathering: the writer waits for gather_want records */
		wake |= w->gather_want > 0 && before < w->gather_want && w->nq >= w->gather_want;
		w->out = NULL;
		w->out_tail = &w->out;
		w->nout = 0;
	}
	if (w->want_ids) {
		w->ids_wanted = true;
		w->want_ids = false;
	}
	uv_mutex_unlock(&w->mu);
	if (wake) /* after the unlock: the writer wakes to a free mu */
		uv_cond_signal(&w->wake);
	return true;
}

static void retry_cb(uv_idle_t *h);

/* Something waits for mu: the next loop pass tries again (and does not sleep meanwhile). */
static void retry_later(struct store_writer *w)
{
	loop_retry(&w->retry, retry_cb);
}

/* A failed batch goes back to the head of the queue, to be tried again first. */
static void requeue(struct store_writer *w, struct store_batch *b)
{
	struct store_rec **pp = &w->back;
	while (*pp != NULL)
		pp = &(*pp)->next;
	*pp = b->recs;
	w->nback += b->n;
	if (!handoff(w, false))
		retry_later(w);
}

/*
 * Runs the callbacks of every report waiting, in order. wait: as handoff();
 * false when the writer held mu and nothing was taken.
 */
static bool deliver(struct store_writer *w, bool wait)
{
	if (!loop_lock(&w->mu, wait))
		return false;
	struct report *rep = w->done;
	w->done = NULL;
	w->done_tail = &w->done;
	uv_mutex_unlock(&w->mu);
	w->reports_due = false;
	while (rep != NULL) {
		struct report *next = rep->next;
		if (rep->is_sync) {
			if (w->cfg.on_sync != NULL)
				w->cfg.on_sync(w->cfg.ud, rep->sync_upto, rep->sync_err, rep->b.why,
				               rep->sync_ns);
		} else {
			if (rep->ids_tried) {
				w->ids_asked = false;
				w->ids_err = rep->ids_n > 0 ? STORE_OK : rep->b.err;
				if (rep->ids_n > 0) {
					w->spare_next = rep->ids_first;
					w->spare_end = rep->ids_first + rep->ids_n;
				}
			}
			if (rep->b.n > 0 && !rep->b.retrying)
				w->done_seq = rep->b.last;
			if (rep->b.n > 0)
				w->cfg.on_batch(w->cfg.ud, &rep->b);
			if (rep->b.retrying)
				requeue(w, &rep->b);
			else
				for (struct store_rec *r = rep->b.recs, *rn; r != NULL; r = rn) {
					rn = r->next;
					recycle(w, r);
				}
		}
		free(rep);
		rep = next;
	}
	return true;
}

static void on_async(uv_async_t *h)
{
	struct store_writer *w = h->data;
	w->reports_due = true;
	if (!deliver(w, false))
		retry_later(w);
}

static void retry_cb(uv_idle_t *h)
{
	struct store_writer *w = h->data;
	bool done = handoff(w, false);
	if (w->reports_due)
		done = deliver(w, false) && done;
	if (done)
		uv_idle_stop(h);
}

static void writer_free(struct store_writer *w)
{
	while (w->free_recs != NULL) {
		struct store_rec *r = w->free_recs;
		w->free_recs = r->next;
		free(r);
	}
	uv_cond_destroy(&w->reported);
	uv_cond_destroy(&w->wake);
	uv_mutex_destroy(&w->mu);
	free(w);
}

static void on_closed(uv_handle_t *h)
{
	struct store_writer *w = h->data;
	if (--w->open_handles == 0)
		writer_free(w);
}

static void close_handles(struct store_writer *w)
{
	w->open_handles = 2;
	uv_close((uv_handle_t *)&w->async, on_closed);
	uv_close((uv_handle_t *)&w->retry, on_closed);
}

int store_writer_start(uv_loop_t *loop, struct store *db, const struct store_writer_config *cfg,
                       struct store_writer **out)
{
	*out = NULL;
	if (cfg->on_batch == NULL || cfg->fsync.batch_ms < 0 || cfg->retry_ms < 0 ||
	    cfg->fsync.batch_ms > STORE_FSYNC_BATCH_MAX_MS ||
	    store_options_of(db)->sync != store_fsync_sync(&cfg->fsync)) {
		store_close(db);
		return STORE_EINVAL;
	}
	struct store_writer *w = calloc(1, sizeof *w);
	if (w == NULL) {
		store_close(db);
		return STORE_ENOMEM;
	}
	w->loop = loop;
	w->cfg = *cfg;
	if (w->cfg.max_batch == 0)
		w->cfg.max_batch = STORE_WRITER_MAX_BATCH;
	if (w->cfg.id_block <= 0)
		w->cfg.id_block = STORE_WRITER_ID_BLOCK;
	w->db = db;
	w->tailp = &w->head;
	w->done_tail = &w->done;
	w->out_tail = &w->out;
	int err = store_reserve_ids(db, w->cfg.id_block, &w->id_next);
	if (err) {
		store_close(db);
		free(w);
		return err;
	}
	w->id_end = w->id_next + w->cfg.id_block;
	if (uv_mutex_init(&w->mu) != 0) {
		store_close(db);
		free(w);
		return STORE_ENOMEM;
	}
	if (uv_cond_init(&w->wake) != 0) {
		uv_mutex_destroy(&w->mu);
		store_close(db);
		free(w);
		return STORE_ENOMEM;
	}
	if (uv_cond_init(&w->reported) != 0) {
		uv_cond_destroy(&w->wake);
		uv_mutex_destroy(&w->mu);
		store_close(db);
		free(w);
		return STORE_ENOMEM;
	}
	w->async.data = w;
	w->retry.data = w;
	if (uv_async_init(loop, &w->async, on_async) != 0) {
		store_close(db);
		writer_free(w);
		return STORE_ENOMEM;
	}
	uv_idle_init(loop, &w->retry); /* cannot fail */
	if (uv_thread_create(&w->thread, writer_main, w) != 0) {
		store_close(db);
		close_handles(w);
		return STORE_ENOMEM;
	}
	*out = w;
	return STORE_OK;
}

void store_writer_stop(struct store_writer *w)
{
	if (w == NULL)
		return;
	handoff(w, true);
	uv_mutex_lock(&w->mu);
	w->stopping = true;
	uv_cond_signal(&w->wake);
	uv_mutex_unlock(&w->mu);
	uv_thread_join(&w->thread);
	deliver(w, true);
	handoff(w, true);
	/* A batch that failed and came back: one last try each, here, as the thread is gone. */
	while (w->head != NULL) {
		struct report *rep = calloc(1, sizeof *rep);
		if (rep == NULL)
			break;
		take(w, rep);
		write_batch(w, rep, false, true);
		publish(w, rep);
		deliver(w, true);
		handoff(w, true);
	}
	if (w->sync_pending) {
		struct report *rep = calloc(1, sizeof *rep);
		if (rep != NULL) {
			do_sync(w, rep);
			publish(w, rep);
			deliver(w, true);
		}
	}
	for (struct store_rec *r = w->head, *rn; r != NULL; r = rn) { /* out of memory only */
		rn = r->next;
		rec_release(r);
		free(r);
	}
	store_close(w->db);
	w->db = NULL;
	close_handles(w);
}

struct store_rec *store_writer_rec(struct store_writer *w, enum store_rec_type type)
{
	struct store_rec *r = w->free_recs;
	if (r != NULL) {
		w->free_recs = r->next;
		w->nfree--;
	} else {
		r = malloc(sizeof *r);
		if (r == NULL)
			return NULL;
	}
	memset(r, 0, sizeof *r);
	r->type = type;
	return r;
}

void store_writer_drop(struct store_writer *w, struct store_rec *r)
{
	if (r != NULL)
		recycle(w, r);
}

uint64_t store_writer_queue(struct store_writer *w, struct store_rec *r)
{
	r->seq = ++w->last_seq;
	r->queued_ns = uv_hrtime();
	r->next = NULL;
	r->err = STORE_OK;
	*w->out_tail = r;
	w->out_tail = &r->next;
	w->nout++;
	if (!handoff(w, false))
		retry_later(w);
	return r->seq;
}

static void ask_ids(struct store_writer *w)
{
	if (w->ids_asked)
		return;
	w->ids_asked = true;
	w->want_ids = true;
	if (!handoff(w, false))
		retry_later(w);
}

int store_writer_game_id(struct store_writer *w, int64_t *id)
{
	if (w->id_next >= w->id_end && w->spare_next < w->spare_end) {
		w->id_next = w->spare_next;
		w->id_end = w->spare_end;
		w->spare_next = w->spare_end = 0;
	}
	bool spare = w->spare_next < w->spare_end;
	if (!spare && w->id_end - w->id_next <= w->cfg.id_block / 2)
		ask_ids(w);
	if (w->id_next >= w->id_end)
		return w->ids_err != STORE_OK ? w->ids_err : STORE_EBUSY;
	*id = w->id_next++;
	return STORE_OK;
}

uint64_t store_writer_last(const struct store_writer *w)
{
	return w->last_seq;
}

uint64_t store_writer_done(const struct store_writer *w)
{
	return w->done_seq;
}

void store_writer_flush(struct store_writer *w)
{
	uint64_t target = w->last_seq;
	for (;;) {
		handoff(w, true);
		uv_mutex_lock(&w->mu);
		/* a failed batch must come back through us (deliver) to be retried */
		while (w->reported_upto < target && w->done == NULL)
			uv_cond_wait(&w->reported, &w->mu);
		bool reached = w->reported_upto >= target;
		uv_mutex_unlock(&w->mu);
		deliver(w, true);
		if (reached)
			break;
	}
}

void store_writer_stats(struct store_writer *w, struct store_writer_stats *out)
{
	uv_mutex_lock(&w->mu);
	*out = w->st;
	uv_mutex_unlock(&w->mu);
}

void store_writer_test_hold(struct store_writer *w, bool hold)
{
	if (hold)
		uv_mutex_lock(&w->mu);
	else
		uv_mutex_unlock(&w->mu);
}
