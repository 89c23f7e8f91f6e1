/*
 * api_query.h - the query string of an API request, read against the endpoint's list of
 * parameters: each name known to the endpoint, given once, its value of its type (a user's
 * name, a game kind, a boolean, a time, a count in a range). Whatever is wrong is one
 * sentence that says what was expected, and a protocol code (BAD_ARGS, BAD_NAME,
 * UNKNOWN_GAME), so the API answers 400 with it. Also the times of the API and of
 * `bitarenad export --since`. Pure: no I/O, no allocation.
 */
#ifndef BITARENA_SERVER_API_QUERY_H
#define BITARENA_SERVER_API_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/errors.h"
#include "proto/limits.h"

#define API_PARAMS_MAX 8  /* parameters an endpoint takes at most */
#define API_VALUE_MAX  64 /* a text value's bytes at most */

enum api_param_type {
	AP_NAME,  /* a user's name (PROTO_NAME_MIN..PROTO_NAME_MAX of [A-Za-z0-9_-]) */
	AP_KIND,  /* a game kind the server has (game_find) */
	AP_BOOL,  /* true, false, 1 or 0 */
	AP_TIME,  /* a time: ms since the epoch, or a UTC date YYYY-MM-DD[THH:MM[:SS]][Z] */
	AP_COUNT, /* a whole number from min to max */
};

struct api_param {
	const char *name;
	enum api_param_type type;
	int64_t min, max; /* AP_COUNT's range */
};

/* What a query gave: for spec[i], set[i], its text (AP_NAME, AP_KIND) and its number. */
struct api_args {
	bool set[API_PARAMS_MAX];
	char text[API_PARAMS_MAX][API_VALUE_MAX];
	int64_t num[API_PARAMS_MAX]; /* AP_BOOL: 0 or 1; AP_TIME: ms since the epoch */
};

/*
 * Reads query ("a=1&b=x", "" for none) against spec[0..n-1] (n <= API_PARAMS_MAX) into out.
 * ERR_COUNT when it is all good; else the code, and why (len bytes) says what is wrong.
 */
enum err_code api_query_parse(const char *query, const struct api_param *spec, size_t n,
                              struct api_args *out, char *why, size_t len);

/* A time as AP_TIME reads it, into *ms; false for anything else (a negative number too). */
bool api_time_parse(const char *s, int64_t *ms);

#endif
