/*
 * metrics.h - a registry of named numbers: counters (only ever go up: requests refused,
 * frames that broke the protocol), gauges (go up and down) and histograms (observations
 * counted in buckets fixed when they are registered, with their sum). Any layer registers
 * its own and changes them where the thing happens; nothing here renders them: a layer
 * above (the HTTP API's /metrics, api/api_metrics.c, in Prometheus's text format) walks the
 * registry. What an operator would otherwise read in the log, one line per bad request
 * anyone can make, is counted here instead.
 *
 * A metric is the registering layer's storage (usually a field of its own struct, or a
 * static beside the code that counts): metrics_register() links it into the registry and
 * it must outlive the registry's use. A registry is the server's (server.c owns one and
 * hands it down with each layer's configuration); none is global.
 *
 * Names follow Prometheus's rules ([a-zA-Z_:][a-zA-Z0-9_:]*, counters ending in _total by
 * convention, "bitarena_" first). Help is one line of plain text.
 *
 * Families: metrics may share a name when each has one constant label, the same label
 * name with a different value each (connections by transport="tcp", "ws", ...): they are
 * one family, rendered under one HELP (the first member's) and TYPE, and the registry keeps
 * them next to each other in the order they were registered. A name is either one metric
 * without a label or a family of labelled ones. The label's value is any text (the renderer
 * escapes it); both strings are kept, not copied.
 *
 * Histograms: struct metric_histogram, its upper bounds (ascending, finite, at most
 * METRIC_BUCKETS_MAX, kept not copied) fixed at its init; metric_observe() finds the bucket
 * of a value by a scan of those few bounds and adds it to the sum; the renderer makes the
 * cumulative _bucket{le=..} series, +Inf, _sum and _count.
 *
 * Threads: a registry and its metrics are the loop thread's; a worker's numbers reach them
 * through the loop. No allocation: a metric is a few words, a registry a list head.
 */
#ifndef BITARENA_SERVER_METRICS_H
#define BITARENA_SERVER_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum metric_type { METRIC_COUNTER, METRIC_GAUGE, METRIC_HISTOGRAM };

#define METRIC_BUCKETS_MAX 20 /* a histogram's finite upper bounds at most */

struct metric {
	const char *name;
	const char *help;
	enum metric_type type;
	const char *label, *label_value; /* a family member's one label (NULL: none) */
	int64_t value;       /* a counter's or a gauge's; a histogram's count of observations */
	struct metric *next; /* the registry's, in the order of registration (families kept
	                        together) */
};

/* A histogram: m first (a struct metric of type METRIC_HISTOGRAM is one of these). */
struct metric_histogram {
	struct metric m;
	const double *le; /* the buckets' upper bounds, ascending */
	size_t nle;
	uint64_t counts[METRIC_BUCKETS_MAX + 1]; /* per bucket, not cumulative; [nle]: above all */
	double sum;
};

/* Sets m up (value 0, in no registry); name and help are kept, not copied. */
void metric_init(struct metric *m, enum metric_type type, const char *name, const char *help);
/* The same, a member of the family name with label="value" (both kept, not copied). */
void metric_init_labelled(struct metric *m, enum metric_type type, const char *name,
                          const char *help, const char *label, const char *value);
/* Sets h up with the n upper bounds le (kept, not copied); metrics_register() checks them. */
void metric_histogram_init(struct metric_histogram *h, const char *name, const char *help,
                           const double *le, size_t n);

struct metrics {
	struct metric *head, *tail;
	size_t n;
};

void metrics_init(struct metrics *r);
/*
 * Links m into r; its value is kept. false (nothing linked) when its name or label is not
 * valid in Prometheus's rules, the name is taken in r by a metric that is not of its family
 * (a metric without a label, another type or label name) or by the same label value, a
 * histogram's bounds are not 1..METRIC_BUCKETS_MAX finite ascending numbers, or m is in r
 * already (a metric belongs to one registry).
 */
bool metrics_register(struct metrics *r, struct metric *m);
/* The metric of r named name (a family's first member), or NULL. */
const struct metric *metrics_find(const struct metrics *r, const char *name);
/* The member of family name whose label's value is value (NULL: the one without), or NULL. */
const struct metric *metrics_find_member(const struct metrics *r, const char *name,
                                         const char *value);
/* r's metrics in the order they were registered: for (m = metrics_first(r); m; m = m->next). */
static inline const struct metric *metrics_first(const struct metrics *r)
{
	return r->head;
}
/* m as a histogram (m->type is METRIC_HISTOGRAM). */
static inline const struct metric_histogram *metric_histogram_of(const struct metric *m)
{
	return (const struct metric_histogram *)m;
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
/* One observation of v in h: its bucket (the first bound >= v), the sum, the count. */
static inline void metric_observe(struct metric_histogram *h, double v)
{
	size_t i = 0;
	while (i < h->nle && v > h->le[i])
		i++;
	h->counts[i]++;
	h->sum += v;
	h->m.value++;
}

#endif
