/*
 * metrics.c - the registry of named counters and gauges (see metrics.h): a list in the
 * order of registration, names checked once, when they are registered.
 */
#include "server/util/metrics.h"

#include <string.h>

void metric_init(struct metric *m, enum metric_type type, const char *name, const char *help)
{
	*m = (struct metric){.name = name, .help = help, .type = type};
}

void metrics_init(struct metrics *r)
{
	r->head = r->tail = NULL;
	r->n = 0;
}

/* [a-zA-Z_:][a-zA-Z0-9_:]*: Prometheus's metric names. */
static bool name_valid(const char *s)
{
	if (s == NULL || *s == '\0' || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == ':'))
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

bool metrics_register(struct metrics *r, struct metric *m)
{
	if (!name_valid(m->name) || metrics_find(r, m->name) != NULL || m->next != NULL ||
	    m == r->tail)
		return false;
	if (r->tail != NULL)
		r->tail->next = m;
	else
		r->head = m;
	r->tail = m;
	r->n++;
	return true;
}
