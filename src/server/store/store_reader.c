/*
 * store_reader.c - reader threads for the store (see store_reader.h): one
 * queue of jobs under a mutex, each thread with its own reader connection
 * taking one job at a time, finished jobs handed back to the loop through a
 * uv_async. Fields marked (mu) are shared; (loop) only on the loop thread;
 * the rest is set before the threads start.
 *
 * The loop never waits on a reader: it only tries the mutex (handoff(),
 * deliver()), and when a reader holds it the jobs wait in the loop's own
 * list and an idle handle tries again on the next pass; a reader holds it
 * for a list operation only. Readers sleep on a semaphore, one post per job,
 * and sem_post never waits: pthread_cond_signal may (glibc waits there for
 * waiters woken before to leave), and under a flood of history and finger
 * requests perf saw the loop asleep in the signal and on the mutex about 27
 * times a second, each time while every connection waited.
 */
#include "server/store/store_reader.h"

#include <stdlib.h>

#include "server/store/loop_lock.h"

#define READERS_MAX 16

struct worker {
	struct store_reader *r;
	struct store *db;
	uv_thread_t thread;
	bool started;
};

struct store_reader {
	uv_loop_t *loop;
	uv_async_t async;
	uv_idle_t retry;  /* tries handoff() and deliver() again while a reader holds mu */
	int open_handles; /* async and retry, until closed */
	uv_mutex_t mu;
	uv_sem_t jobs; /* posted once for each job handed over, and once a reader at the stop */
	int n;
	struct worker w[READERS_MAX];
	/* (mu) */
	struct store_read *head, **tailp;
	struct store_read *done, **done_tail;
	/* (loop) */
	bool stopping;
	struct store_read *out, **out_tail; /* submitted, not handed over yet */
	unsigned nout;
	bool done_due; /* a reader finished a job that deliver() has not taken yet */
};

static void reader_main(void *arg)
{
	struct worker *wk = arg;
	struct store_reader *r = wk->r;
	for (;;) {
		uv_sem_wait(&r->jobs);
		uv_mutex_lock(&r->mu);
		struct store_read *job = r->head;
		if (job == NULL) { /* the stop's post: nothing is left */
			uv_mutex_unlock(&r->mu);
			break;
		}
		r->head = job->next;
		if (r->head == NULL)
			r->tailp = &r->head;
		uv_mutex_unlock(&r->mu);
		job->work(wk->db, job);
		job->next = NULL;
		uv_mutex_lock(&r->mu);
		*r->done_tail = job;
		r->done_tail = &job->next;
		uv_mutex_unlock(&r->mu);
		uv_async_send(&r->async);
	}
}

/*
 * Hands the submitted jobs to the readers. wait: may wait for mu (the stop);
 * otherwise only tries it, false when a reader holds it.
 */
static bool handoff(struct store_reader *r, bool wait)
{
	if (r->out == NULL)
		return true;
	if (!loop_lock(&r->mu, wait))
		return false;
	*r->tailp = r->out;
	r->tailp = r->out_tail;
	uv_mutex_unlock(&r->mu);
	for (; r->nout > 0; r->nout--)
		uv_sem_post(&r->jobs);
	r->out = NULL;
	r->out_tail = &r->out;
	return true;
}

/* Runs done() of every finished job (loop thread). wait: as handoff(). */
static bool deliver(struct store_reader *r, bool wait)
{
	if (!loop_lock(&r->mu, wait))
		return false;
	struct store_read *job = r->done;
	r->done = NULL;
	r->done_tail = &r->done;
	uv_mutex_unlock(&r->mu);
	r->done_due = false;
	while (job != NULL) {
		struct store_read *next = job->next; /* done() may free job */
		job->done(job);
		job = next;
	}
	return true;
}

static void retry_cb(uv_idle_t *h);

/* Something waits for mu: the next loop pass tries again (and does not sleep meanwhile). */
static void retry_later(struct store_reader *r)
{
	loop_retry(&r->retry, retry_cb);
}

static void retry_cb(uv_idle_t *h)
{
	struct store_reader *r = h->data;
	bool handed = handoff(r, false);
	bool taken = !r->done_due || deliver(r, false);
	if (handed && taken)
		uv_idle_stop(h);
}

static void on_async(uv_async_t *h)
{
	struct store_reader *r = h->data;
	r->done_due = true;
	if (!deliver(r, false))
		retry_later(r);
}

static void on_closed(uv_handle_t *h)
{
	struct store_reader *r = h->data;
	if (--r->open_handles > 0)
		return;
	uv_sem_destroy(&r->jobs);
	uv_mutex_destroy(&r->mu);
	free(r);
}

static void close_handles(struct store_reader *r)
{
	uv_close((uv_handle_t *)&r->async, on_closed);
	uv_close((uv_handle_t *)&r->retry, on_closed);
}

/* Joins the threads that run, closes every connection (the handles stay). */
static void stop_workers(struct store_reader *r)
{
	r->stopping = true; /* no job comes after: a reader that finds none left ends */
	for (int i = 0; i < r->n; i++)
		if (r->w[i].started)
			uv_sem_post(&r->jobs);
	for (int i = 0; i < r->n; i++) {
		if (r->w[i].started)
			uv_thread_join(&r->w[i].thread);
		store_close(r->w[i].db);
		r->w[i].db = NULL;
	}
}

int store_reader_start(uv_loop_t *loop, const struct store_options *o, int nthreads,
                       struct store_reader **out)
{
	*out = NULL;
	if (nthreads == 0)
		nthreads = STORE_READER_THREADS;
	if (nthreads < 1 || nthreads > READERS_MAX)
		return STORE_EINVAL;
	struct store_reader *r = calloc(1, sizeof *r);
	if (r == NULL)
		return STORE_ENOMEM;
	r->loop = loop;
	r->tailp = &r->head;
	r->done_tail = &r->done;
	r->out_tail = &r->out;
	if (uv_mutex_init(&r->mu) != 0) {
		free(r);
		return STORE_ENOMEM;
	}
	if (uv_sem_init(&r->jobs, 0) != 0) {
		uv_mutex_destroy(&r->mu);
		free(r);
		return STORE_ENOMEM;
	}
	r->async.data = r;
	r->retry.data = r;
	if (uv_async_init(loop, &r->async, on_async) != 0) {
		uv_sem_destroy(&r->jobs);
		uv_mutex_destroy(&r->mu);
		free(r);
		return STORE_ENOMEM;
	}
	uv_idle_init(loop, &r->retry); /* cannot fail */
	r->open_handles = 2;
	struct store_options ro = *o;
	ro.reader = true;
	int err = STORE_OK;
	for (r->n = 0; r->n < nthreads && err == STORE_OK; r->n++) {
		struct worker *wk = &r->w[r->n];
		wk->r = r;
		err = store_open_opts(&ro, &wk->db);
		if (err == STORE_OK && uv_thread_create(&wk->thread, reader_main, wk) != 0)
			err = STORE_ENOMEM;
		wk->started = err == STORE_OK;
	}
	if (err != STORE_OK) {
		stop_workers(r);
		close_handles(r);
		return err;
	}
	*out = r;
	return STORE_OK;
}

int store_reader_submit(struct store_reader *r, struct store_read *job)
{
	if (r->stopping)
		return STORE_EINVAL;
	job->next = NULL;
	*r->out_tail = job;
	r->out_tail = &job->next;
	r->nout++;
	if (!handoff(r, false))
		retry_later(r);
	return STORE_OK;
}

void store_reader_stop(struct store_reader *r)
{
	if (r == NULL)
		return;
	handoff(r, true);
	stop_workers(r);
	deliver(r, true);
	close_handles(r);
}

void store_reader_test_hold(struct store_reader *r, bool hold)
{
	if (hold)
		uv_mutex_lock(&r->mu);
	else
		uv_mutex_unlock(&r->mu);
}
