/*
 * json_out.c - cJSON trees written as cJSON_PrintUnformatted() writes them,
 * faster (see json_out.h).
 */
#include "server/util/json_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void json_buf_free(struct json_buf *b)
{
	if (b->heap)
		free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
	b->heap = false;
}

static bool grow(struct json_buf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + need)
		cap *= 2;
	char *p = b->heap ? realloc(b->p, cap) : malloc(cap);
	if (p == NULL) {
		b->failed = true;
		return false;
	}
	if (!b->heap && b->len > 0)
		memcpy(p, b->p, b->len);
	b->p = p;
	b->cap = cap;
	b->heap = true;
	return true;
}

bool json_buf_put(struct json_buf *b, const char *s, size_t n)
{
	if (b->len + n > b->cap && !grow(b, n))
		return false;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	return true;
}

static bool put_c(struct json_buf *b, char c)
{
	if (b->len == b->cap && !grow(b, 1))
		return false;
	b->p[b->len++] = c;
	return true;
}

/* What print_string_ptr() escapes: '"', '\\' and every byte below 32. */
static bool plain(unsigned char c)
{
	return c >= 32 && c != '"' && c != '\\';
}

/* s as a JSON string, escaped as cJSON escapes it (NULL is ""). */
static bool put_string(struct json_buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	if (!put_c(b, '"'))
		return false;
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	for (;;) {
		const unsigned char *run = p;
		while (plain(*p))
			p++;
		if (p > run && !json_buf_put(b, (const char *)run, (size_t)(p - run)))
			return false;
		if (*p == '\0')
			break;
		char e[6] = {'\\', 0};
		size_t n = 2;
		switch (*p) {
		case '"':
			e[1] = '"';
			break;
		case '\\':
			e[1] = '\\';
			break;
		case '\b':
			e[1] = 'b';
			break;
		case '\f':
			e[1] = 'f';
			break;
		case '\n':
			e[1] = 'n';
			break;
		case '\r':
			e[1] = 'r';
			break;
		case '\t':
			e[1] = 't';
			break;
		default: /* cJSON: "u%04x" */
			e[1] = 'u';
			e[2] = '0';
			e[3] = '0';
			e[4] = hex[*p >> 4];
			e[5] = hex[*p & 15];
			n = 6;
		}
		if (!json_buf_put(b, e, n))
			return false;
		p++;
	}
	return put_c(b, '"');
}

/* d: integers below 10^15 digit by digit (as "%1.15g" prints them), others by cJSON. */
static bool put_double(struct json_buf *b, double d, const cJSON *item)
{
	if (d > -1e15 && d < 1e15 && d == (double)(long long)d) {
		char t[24], *e = t + sizeof t, *q = e;
		long long v = (long long)d;
		unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
		do
			*--q = (char)('0' + u % 10);
		while ((u /= 10) != 0);
		if (v < 0 || (v == 0 && signbit(d))) /* -0.0 prints as "-0" */
			*--q = '-';
		return json_buf_put(b, q, (size_t)(e - q));
	}
	cJSON *own = item == NULL ? cJSON_CreateNumber(d) : NULL;
	char *s = cJSON_PrintUnformatted(item != NULL ? item : own);
	cJSON_Delete(own);
	if (s == NULL) {
		b->failed = true;
		return false;
	}
	bool ok = json_buf_put(b, s, strlen(s));
	cJSON_free(s);
	return ok;
}

static bool put_number(struct json_buf *b, const cJSON *item)
{
	return put_double(b, item->valuedouble, item);
}

bool json_out(struct json_buf *b, const cJSON *j)
{
	if (j == NULL)
		return false;
	switch (j->type & 0xFF) {
	case cJSON_NULL:
		return json_buf_put(b, "null", 4);
	case cJSON_False:
		return json_buf_put(b, "false", 5);
	case cJSON_True:
		return json_buf_put(b, "true", 4);
	case cJSON_Number:
		return put_number(b, j);
	case cJSON_Raw:
		return j->valuestring != NULL &&
		       json_buf_put(b, j->valuestring, strlen(j->valuestring));
	case cJSON_String:
		return put_string(b, j->valuestring);
	case cJSON_Array:
		if (!put_c(b, '['))
			return false;
		for (const cJSON *c = j->child; c != NULL; c = c->next)
			if (!json_out(b, c) || (c->next != NULL && !put_c(b, ',')))
				return false;
		return put_c(b, ']');
	case cJSON_Object:
		if (!put_c(b, '{'))
			return false;
		for (const cJSON *c = j->child; c != NULL; c = c->next)
			if (!put_string(b, c->string) || !put_c(b, ':') || !json_out(b, c) ||
			    (c->next != NULL && !put_c(b, ',')))
				return false;
		return put_c(b, '}');
	default:
		return false;
	}
}

/* ---- the writer ------------------------------------------------------------------------ */

/* Before a value: its comma unless it follows its key. */
static void pre(struct jw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->more[w->depth])
		put_c(&w->b, ',');
	w->more[w->depth] = true;
}

static void open_c(struct jw *w, char c)
{
	pre(w);
	put_c(&w->b, c);
	if (w->depth + 1 >= JW_DEPTH) {
		w->b.failed = true;
		return;
	}
	w->more[++w->depth] = false;
}

void jw_obj(struct jw *w)
{
	open_c(w, '{');
}

void jw_arr(struct jw *w)
{
	open_c(w, '[');
}

void jw_end(struct jw *w, char close)
{
	if (w->depth > 0)
		w->depth--;
	put_c(&w->b, close);
}

void jw_key(struct jw *w, const char *key)
{
	pre(w);
	put_string(&w->b, key);
	put_c(&w->b, ':');
	w->after_key = true;
}

void jw_num(struct jw *w, double d)
{
	pre(w);
	put_double(&w->b, d, NULL);
}

void jw_str(struct jw *w, const char *s)
{
	pre(w);
	put_string(&w->b, s);
}

void jw_null(struct jw *w)
{
	pre(w);
	json_buf_put(&w->b, "null", 4);
}

void jw_bool(struct jw *w, bool v)
{
	pre(w);
	if (v)
		json_buf_put(&w->b, "true", 4);
	else
		json_buf_put(&w->b, "false", 5);
}

void jw_json(struct jw *w, const cJSON *j)
{
	pre(w);
	if (j == NULL)
		json_buf_put(&w->b, "null", 4);
	else if (!json_out(&w->b, j))
		w->b.failed = true;
}
