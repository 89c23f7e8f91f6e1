/*
 * match.c - JSON-subset and glob matching of the server's lines, typed field reads,
 * command lines from a printf (match.h).
 */
#include <check.h>
#include <fnmatch.h>
#include <stdio.h>

#include "match.h"

bool ts_json_match(const cJSON *pat, const cJSON *got)
{
	if (got == NULL)
		return false;
	if (cJSON_IsObject(pat)) {
		if (!cJSON_IsObject(got))
			return false;
		for (const cJSON *f = pat->child; f != NULL; f = f->next)
			if (!ts_json_match(f, cJSON_GetObjectItemCaseSensitive(got, f->string)))
				return false;
		return true;
	}
	if (cJSON_IsArray(pat)) {
		if (!cJSON_IsArray(got) || cJSON_GetArraySize(pat) != cJSON_GetArraySize(got))
			return false;
		const cJSON *g = got->child;
		for (const cJSON *f = pat->child; f != NULL; f = f->next, g = g->next)
			if (!ts_json_match(f, g))
				return false;
		return true;
	}
	return cJSON_Compare(pat, got, true);
}

bool ts_match(const char *pattern, const char *line)
{
	if (pattern[0] == '{') {
		cJSON *p = cJSON_Parse(pattern), *g = cJSON_Parse(line);
		ck_assert_msg(p != NULL, "bad JSON in a pattern: %s", pattern);
		bool ok = g != NULL && ts_json_match(p, g);
		cJSON_Delete(p);
		cJSON_Delete(g);
		return ok;
	}
	return fnmatch(pattern, line, 0) == 0;
}

size_t ts_format_line(char *line, size_t size, const char *fmt, va_list ap)
{
	int n = vsnprintf(line, size - 1, fmt, ap);
	ck_assert(n >= 0 && (size_t)n < size - 1);
	line[n++] = '\n';
	return (size_t)n;
}

int ts_jint(const cJSON *j, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, k);
	ck_assert_msg(cJSON_IsNumber(v), "no number %s", k);
	return v->valueint;
}

double ts_jnum(const cJSON *j, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, k);
	ck_assert_msg(cJSON_IsNumber(v), "no number %s", k);
	return v->valuedouble;
}

const char *ts_jstr(const cJSON *j, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, k);
	ck_assert_msg(cJSON_IsString(v), "no string %s", k);
	return v->valuestring;
}
