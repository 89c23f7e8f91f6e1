/*
 * events.c - what the events' files share (events.h).
 */
#include "server/events/events.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "server/msg/proto.h"
#include "server/store/store.h"

const double events_cpu_le[EVENTS_CPU_LE_N] = {0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005,
                                               0.001,   0.0025,   0.005,   0.01,   0.025,   0.05,
                                               0.1,     0.25,     0.5,     1,      2.5};

double events_cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int events_json_int(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valueint : 0;
}

const char *events_json_str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : "";
}

bool events_seek_opts(const struct game_ops *ops, const char *words, struct seek_opts *so,
                      char *why, size_t len)
{
	char buf[STORE_OPTIONS_MAX];
	char *argv[PROTO_MAX_ARGS];
	int argc = 0;
	snprintf(buf, sizeof buf, "%s", words);
	for (char *save = NULL, *w = strtok_r(buf, " ", &save); w != NULL && argc < PROTO_MAX_ARGS;
	     w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	return seek_opts_parse(ops, argc, argv, so, why, len) >= 0;
}
