/*
 * loop_lock.h - how the loop thread takes a mutex that a worker thread
 * (store_writer.c, store_reader.c) holds now and then: it only tries it, and
 * when the worker holds it, what the loop was to hand over waits on the
 * loop's side while an idle handle tries again on the next pass. A loop
 * thread asleep on such a mutex let its core idle while every connection
 * waited (perf, sched_switch: a few times to 27 times a second under floods).
 */
#ifndef BITARENA_SERVER_LOOP_LOCK_H
#define BITARENA_SERVER_LOOP_LOCK_H

#include <stdbool.h>
#include <uv.h>

/* Takes mu: waits for it when wait (the stop, tests), else only tries; false when held. */
static inline bool loop_lock(uv_mutex_t *mu, bool wait)
{
	if (wait) {
		uv_mutex_lock(mu);
		return true;
	}
	return uv_mutex_trylock(mu) == 0;
}

/* Has idle handle h call cb from the next loop pass on, unless it does already or closes. */
static inline void loop_retry(uv_idle_t *h, uv_idle_cb cb)
{
	if (!uv_is_active((uv_handle_t *)h) && !uv_is_closing((uv_handle_t *)h))
		uv_idle_start(h, cb);
}

#endif
