/*
 * metrics.h - a registry of named numbers: counters (only ever go up: requests refused,
 * frames that broke the protocol) and gauges (go up and down). Any layer registers its own
 * and changes them where the thing happens; nothing here renders them: a layer above
 * (the HTTP API's /metrics, in Prometheus's text format) walks the registry. What an
 * operator would otherwise read in the log, one line per bad request anyone can make, is
 * counted here instead.
 *
 * A metric is the registering layer's storage (usually a field of its own struct, or a
 * static beside the code that counts): metrics_register() links it into the registry and
 * it must outlive the registry's use. A registry is the server's (server.c owns one and
 * hands it down with each layer's configuration); none is global.
 *
 * Names follow Prometheus's rules ([a-zA-Z_:][a-zA-Z0-9_:]*, counters ending in _total by
 * convention, "bitarena_" first) and are unique within a registry. Help is one line of
 * plain text.
 *
 * Threads: a registry and its metrics are the loop thread's; a worker's numbers reach them
 * through the loop. No allocation: a metric is a few words, a registry a list head.
 */
#ifndef BITARENA_SERVER_METRICS_H
#define BITARENA_SERVER_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum metric_type { METRIC_COUNTER, METRIC_GAUGE };

struct metric {
	const char *name;
	const char *help;
	enum metric_type type;
	int64_t value;
	struct metric *next; /* the registry's, in the order of registration */
};

/* Sets m up (value 0, in no registry); name and help are kept, not copied. */
void metric_init(struct metric *m, enum metric_type type, const char *name, const char *help);

struct metrics {
	struct metric *head, *tail;
	size_t n;
};

void metrics_init(struct metrics *r);
/*
 * Links m into r; its value is kept. false (nothing linked) when its name is not a valid
 * Prometheus name, is taken in r already, or m is in r already (a metric belongs to one
 * registry).
 */
bool metrics_register(struct metrics *r, struct metric *m);
/* The metric of r named name, or NULL. */
const struct metric *metrics_find(const struct metrics *r, const char *name);
/* r's metrics in the order they were registered: for (m = metrics_first(r); m; m = m->next). */
static inline const struct metric *metrics_first(const struct metrics *r)
{
	return r->head;
}

/* A counter goes up by n (n >= 0); a gauge by n, or to v. */
static inline void metric_add(struct metric *m, int64_t n)
{
	m->value += n;
}
static inline void metric_inc(struct metric *m)
{
	m->value++;
}
static inline void metric_set(struct metric *m, int64_t v)
{
	m->value = v;
}

#endif
