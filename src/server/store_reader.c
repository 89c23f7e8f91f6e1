/*
 * store_reader.c - reader threads for the store (see store_reader.h): one
 * queue of jobs under a mutex, each thread with its own reader connection
 * taking one job at a time, finished jobs handed back to the loop through a
 * uv_async. Fields marked (mu) are shared; the rest is set before the
 * threads start or used by the loop only.
 */
#include "server/store_reader.h"

#include <stdlib.h>

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
	uv_mutex_t mu;
	uv_cond_t wake;
	int n;
	struct worker w[READERS_MAX];
	/* (mu) */
	struct store_read *head, **tailp;
	struct store_read *done, **done_tail;
	bool stopping;
};

static void reader_main(void *arg)
{
	struct worker *wk = arg;
	struct store_reader *r = wk->r;
	uv_mutex_lock(&r->mu);
	for (;;) {
		while (r->head == NULL && !r->stopping)
			uv_cond_wait(&r->wake, &r->mu);
		struct store_read *job = r->head;
		if (job == NULL)
			break; /* stopping, and nothing left */
		r->head = job->next;
		if (r->head == NULL)
			r->tailp = &r->head;
		uv_mutex_unlock(&r->mu);
		job->work(wk->db, job);
		uv_mutex_lock(&r->mu);
		job->next = NULL;
		*r->done_tail = job;
		r->done_tail = &job->next;
		uv_async_send(&r->async);
	}
	uv_mutex_unlock(&r->mu);
}

/* Runs done() of every finished job (loop thread). */
static void deliver(struct store_reader *r)
{
	uv_mutex_lock(&r->mu);
	struct store_read *job = r->done;
	r->done = NULL;
	r->done_tail = &r->done;
	uv_mutex_unlock(&r->mu);
	while (job != NULL) {
		struct store_read *next = job->next; /* done() may free job */
		job->done(job);
		job = next;
	}
}

static void on_async(uv_async_t *h)
{
	deliver(h->data);
}

static void on_closed(uv_handle_t *h)
{
	struct store_reader *r = h->data;
	uv_cond_destroy(&r->wake);
	uv_mutex_destroy(&r->mu);
	free(r);
}

/* Joins the threads that run, closes every connection (the async handle stays). */
static void stop_workers(struct store_reader *r)
{
	uv_mutex_lock(&r->mu);
	r->stopping = true;
	uv_cond_broadcast(&r->wake);
	uv_mutex_unlock(&r->mu);
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
	if (uv_mutex_init(&r->mu) != 0) {
		free(r);
		return STORE_ENOMEM;
	}
	if (uv_cond_init(&r->wake) != 0) {
		uv_mutex_destroy(&r->mu);
		free(r);
		return STORE_ENOMEM;
	}
	r->async.data = r;
	if (uv_async_init(loop, &r->async, on_async) != 0) {
		uv_cond_destroy(&r->wake);
		uv_mutex_destroy(&r->mu);
		free(r);
		return STORE_ENOMEM;
	}
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
		uv_close((uv_handle_t *)&r->async, on_closed);
		return err;
	}
	*out = r;
	return STORE_OK;
}

int store_reader_submit(struct store_reader *r, struct store_read *job)
{
	uv_mutex_lock(&r->mu);
	if (r->stopping) {
		uv_mutex_unlock(&r->mu);
		return STORE_EINVAL;
	}
	job->next = NULL;
	*r->tailp = job;
	r->tailp = &job->next;
	uv_cond_signal(&r->wake);
	uv_mutex_unlock(&r->mu);
	return STORE_OK;
}

void store_reader_stop(struct store_reader *r)
{
	if (r == NULL)
		return;
	stop_workers(r);
	deliver(r);
	uv_close((uv_handle_t *)&r->async, on_closed);
}
