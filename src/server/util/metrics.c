/*
 * metrics.c - the registry of named counters, gauges and histograms (see metrics.h): a list
 * in the order of registration with each family's members together, names, labels and
 * buckets checked once, when they are registered.
 */
#include "server/util/metrics.h"

#include <math.h>
#include <string.h>

void metric_init(struct metric *m, enum metric_type type, const char *name, const char *help)
{
	*m = (struct metric){.name = name, .help = help, .type = type};
}

void metric_init_labelled(struct metric *m, enum metric_type type, const char *name,
                          const char *help, const char *label, const char *value)
{
	*m = (struct metric){
	        .name = name, .help = help, .type = type, .label = label, .label_value = value};
}

void metric_histogram_init(struct metric_histogram *h, const char *name, const char *help,
                           const double *le, size_t n)
{
	memset(h, 0, sizeof *h);
	metric_init(&h->m, METRIC_HISTOGRAM, name, help);
	h->le = le;
	h->nle = n;
}

void metrics_init(struct metrics *r)
{
	r->head = r->tail = NULL;
	r->n = 0;
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* [a-zA-Z_:][a-zA-Z0-9_:]* (colon: a metric's name), [a-zA-Z_][a-zA-Z0-9_]* (a label's). */
static bool name_valid(const char *s, bool colon)
{
	if (s == NULL || *s == '\0' || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s != '\0'; s++)
		if (!(is_alpha(*s) || (*s >= '0' && *s <= '9') || (colon && *s == ':')))
			return false;
	return true;
}

/* A label name: valid, not reserved (__*), and not le on a histogram (its buckets'). */
static bool label_valid(const struct metric *m)
{
	if (m->label == NULL)
		return m->label_value == NULL;
	return m->label_value != NULL && name_valid(m->label, false) &&
	       strncmp(m->label, "__", 2) != 0 &&
	       !(m->type == METRIC_HISTOGRAM && strcmp(m->label, "le") == 0);
}

static bool buckets_valid(const struct metric *m)
{
	if (m->type != METRIC_HISTOGRAM)
		return true;
	const struct metric_histogram *h = metric_histogram_of(m);
	if (h->le == NULL || h->nle == 0 || h->nle > METRIC_BUCKETS_MAX)
		return false;
	for (size_t i = 0; i < h->nle; i++)
		if (!isfinite(h->le[i]) || (i > 0 && h->le[i] <= h->le[i - 1]))
			return false;
	return true;
}

const struct metric *metrics_find(const struct metrics *r, const char *name)
{
	for (const struct metric *m = r->head; m != NULL; m = m->next)
		if (strcmp(m->name, name) == 0)
			return m;
	return NULL;
}

const struct metric *metrics_find_member(const struct metrics *r, const char *name,
                                         const char *value)
{
	for (const struct metric *m = metrics_find(r, name);
	     m != NULL && strcmp(m->name, name) == 0; m = m->next)
		if (value == NULL ? m->label_value == NULL
		                  : m->label_value != NULL && strcmp(m->label_value, value) == 0)
			return m;
	return NULL;
}

bool metrics_register(struct metrics *r, struct metric *m)
{
	if (!name_valid(m->name, true) || !label_valid(m) || !buckets_valid(m) || m->next != NULL ||
	    m == r->tail)
		return false;
	/* its family: the last member, after which it goes */
	struct metric *last = NULL;
	for (struct metric *f = r->head; f != NULL; f = f->next) {
		if (strcmp(f->name, m->name) != 0)
			continue;
		if (m->label == NULL || f->label == NULL || f->type != m->type ||
		    strcmp(f->label, m->label) != 0 || strcmp(f->label_value, m->label_value) == 0)
			return false;
		last = f;
	}
	if (last == NULL)
		last = r->tail;
	if (last == NULL) {
		r->head = m;
	} else {
		m->next = last->next;
		last->next = m;
	}
	if (last == r->tail)
		r->tail = m;
	r->n++;
	return true;
}
