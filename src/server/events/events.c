/*
 * events.c - what the events' files share (events.h).
 */
#include "server/events/events.h"

#include <stdio.h>
#include <string.h>

#include "server/msg/proto.h"
#include "server/store/store.h"

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
