/*
 * match.h - matching the server's lines in tests: a pattern that is a JSON
 * object matches a line holding at least its fields with the same values
 * (nested objects likewise, arrays element by element), any other pattern is
 * a shell glob; typed reads of a JSON reply's fields; a command line from a
 * printf. Shared by the loopback harness (testserver.h) and the in-process
 * one (fakeconn.h). Test code only (match.c, in libtest.a).
 */
#ifndef BITARENA_TESTS_MATCH_H
#define BITARENA_TESTS_MATCH_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* Does got hold every field of pat with the same value (objects: pat's fields only)? */
bool ts_json_match(const cJSON *pat, const cJSON *got);

/* A JSON subset when the pattern is an object, else a shell glob. */
bool ts_match(const char *pattern, const char *line);

/* A command line printf'd into line (size bytes) with its newline; returns its length. */
size_t ts_format_line(char *line, size_t size, const char *fmt, va_list ap);

/* The number, number or string field k of the object j; the test fails when it is not one. */
int ts_jint(const cJSON *j, const char *k);
double ts_jnum(const cJSON *j, const char *k);
const char *ts_jstr(const cJSON *j, const char *k);

#endif
