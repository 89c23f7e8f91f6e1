/*
 * api_query.c - an API request's query string read against its endpoint's parameters (see
 * api_query.h).
 */
#include "server/api/api_query.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "games/game.h"
#include "server/msg/proto.h"

/* A whole decimal number (digits only, no sign) into *v; false when it is none or too big. */
static bool whole(const char *s, int64_t *v)
{
	if (*s < '0' || *s > '9')
		return false;
	char *end;
	errno = 0;
	long long n = strtoll(s, &end, 10);
	*v = n;
	return *end == '\0' && errno == 0;
}

/* n digits at *p as a number (advancing p); -1 when they are not there. */
static int digits(const char **p, int n)
{
	int v = 0;
	for (int i = 0; i < n; i++, (*p)++) {
		if (**p < '0' || **p > '9')
			return -1;
		v = v * 10 + (**p - '0');
	}
	return v;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

bool api_time_parse(const char *s, int64_t *ms)
{
	if (whole(s, ms))
		return true;
	const char *p = s;
	int y = digits(&p, 4);
	if (y < 1970 || *p++ != '-')
		return false;
	int mo = digits(&p, 2);
	if (mo < 1 || mo > 12 || *p++ != '-')
		return false;
	int d = digits(&p, 2);
	static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	if (d < 1 || d > mdays[mo - 1] || (mo == 2 && d == 29 && !leap))
		return false;
	int h = 0, mi = 0, sec = 0;
	if (*p == 'T' || *p == ' ') {
		p++;
		h = digits(&p, 2);
		if (h < 0 || h > 23 || *p++ != ':')
			return false;
		mi = digits(&p, 2);
		if (mi < 0 || mi > 59)
			return false;
		if (*p == ':') {
			p++;
			sec = digits(&p, 2);
			if (sec < 0 || sec > 59)
				return false;
		}
	}
	if (*p == 'Z')
		p++;
	if (*p != '\0')
		return false;
	*ms = ((days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * 60000 + sec * 1000LL;
	return true;
}

/* The parameter names of spec as "a, b and c", into buf. */
static const char *names(const struct api_param *spec, size_t n, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
		                       i == 0      ? ""
		                       : i + 1 < n ? ", "
		                                   : " and ",
		                       spec[i].name);
	if (n == 0)
		snprintf(buf, len, "none");
	return buf;
}

/* Reads value as spec's type into out's slot i; the code when it is not one. */
static enum err_code read_value(const struct api_param *p, const char *value, struct api_args *out,
                                size_t i, char *why, size_t len)
{
	int64_t v;
	switch (p->type) {
	case AP_NAME:
		if (!proto_name_valid(value)) {
			snprintf(why, len,
			         "%s: names are %d to %d characters of A-Z, a-z, 0-9, _ and -",
			         p->name, PROTO_NAME_MIN, PROTO_NAME_MAX);
			return ERR_BAD_NAME;
		}
		break;
	case AP_KIND:
		if (strlen(value) >= API_VALUE_MAX || game_find(value) == NULL) {
			snprintf(why, len,
			         "%s: no game called '%.32s'; /api/games/live or 'games' lists "
			         "the kinds",
			         p->name, value);
			return ERR_UNKNOWN_GAME;
		}
		break;
	case AP_BOOL:
		if (strcmp(value, "true") == 0 || strcmp(value, "1") == 0) {
			out->num[i] = 1;
		} else if (strcmp(value, "false") == 0 || strcmp(value, "0") == 0) {
			out->num[i] = 0;
		} else {
			snprintf(why, len, "%s is true or false", p->name);
			return ERR_BAD_ARGS;
		}
		break;
	case AP_TIME:
		if (!api_time_parse(value, &out->num[i])) {
			snprintf(why, len,
			         "%s is a time: milliseconds since 1970-01-01 UTC (0 or more), or "
			         "a UTC "
			         "date YYYY-MM-DD with THH:MM:SS if wanted",
			         p->name);
			return ERR_BAD_ARGS;
		}
		break;
	case AP_COUNT:
		if (!whole(value, &v) || v < p->min || v > p->max) {
			snprintf(why, len, "%s is a whole number from %" PRId64 " to %" PRId64,
			         p->name, p->min, p->max);
			return ERR_BAD_ARGS;
		}
		out->num[i] = v;
		break;
	}
	snprintf(out->text[i], sizeof out->text[i], "%s", value);
	return ERR_COUNT;
}

enum err_code api_query_parse(const char *query, const struct api_param *spec, size_t n,
                              struct api_args *out, char *why, size_t len)
{
	memset(out, 0, sizeof *out);
	const char *p = query;
	while (*p != '\0') {
		size_t plen = strcspn(p, "&");
		const char *eq = memchr(p, '=', plen);
		size_t klen = eq != NULL ? (size_t)(eq - p) : plen;
		size_t i = 0;
		while (i < n &&
		       (strlen(spec[i].name) != klen || memcmp(spec[i].name, p, klen) != 0))
			i++;
		char known[200];
		if (plen == 0) {
			snprintf(why, len, "an empty parameter ('&&' or '&' at an end)");
			return ERR_BAD_ARGS;
		}
		if (i == n) {
			snprintf(why, len, "unknown parameter '%.*s'; this endpoint takes %s",
			         (int)(klen > 32 ? 32 : klen), p,
			         names(spec, n, known, sizeof known));
			return ERR_BAD_ARGS;
		}
		if (out->set[i]) {
			snprintf(why, len, "%s is given twice", spec[i].name);
			return ERR_BAD_ARGS;
		}
		size_t vlen = eq != NULL ? plen - klen - 1 : 0;
		if (vlen == 0 || vlen >= API_VALUE_MAX) {
			snprintf(why, len, "%s needs a value of 1 to %d bytes", spec[i].name,
			         API_VALUE_MAX - 1);
			return ERR_BAD_ARGS;
		}
		char value[API_VALUE_MAX];
		memcpy(value, eq + 1, vlen);
		value[vlen] = '\0';
		enum err_code e = read_value(&spec[i], value, out, i, why, len);
		if (e != ERR_COUNT)
			return e;
		out->set[i] = true;
		p += plen;
		if (*p == '&')
			p++;
		if (*p == '\0' && p[-1] == '&') {
			snprintf(why, len, "an empty parameter ('&&' or '&' at an end)");
			return ERR_BAD_ARGS;
		}
	}
	return ERR_COUNT;
}
