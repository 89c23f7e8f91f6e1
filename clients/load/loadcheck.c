/*
 * loadcheck.c - the checks of loadcheck.h that need no network: a top-level
 * JSON member scanner, the per-game seq order of a stream of states, and
 * the writing of the acknowledgement log (loadverify.c reads it back).
 */
#include "load/loadcheck.h"

#include <stdlib.h>
#include <string.h>

/* ---- top-level scan --------------------------------------------------------------- */

struct cur {
	const char *p, *end;
};

static void skip_ws(struct cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n'))
		c->p++;
}

/* Skips a string (c->p at its opening quote); its raw body is [*b, *e). */
static bool skip_string(struct cur *c, const char **b, const char **e)
{
	if (c->p >= c->end || *c->p != '"')
		return false;
	const char *s = ++c->p;
	while (c->p < c->end && *c->p != '"') {
		if ((unsigned char)*c->p < 0x20)
			return false;
		if (*c->p == '\\' && ++c->p >= c->end)
			return false;
		c->p++;
	}
	if (c->p >= c->end)
		return false;
	if (b)
		*b = s;
	if (e)
		*e = c->p;
	c->p++;
	return true;
}

/* Skips any value: scalars by their characters, objects and arrays by depth. */
static bool skip_value(struct cur *c)
{
	skip_ws(c);
	if (c->p >= c->end)
		return false;
	if (*c->p == '"')
		return skip_string(c, NULL, NULL);
	if (*c->p != '{' && *c->p != '[') {
		const char *s = c->p;
		while (c->p < c->end && strchr(",}] \t\r\n", *c->p) == NULL)
			c->p++;
		return c->p > s;
	}
	int depth = 0;
	while (c->p < c->end) {
		char ch = *c->p;
		if (ch == '"') {
			if (!skip_string(c, NULL, NULL))
				return false;
			continue;
		}
		c->p++;
		if (ch == '{' || ch == '[')
			depth++;
		else if ((ch == '}' || ch == ']') && --depth == 0)
			return true;
	}
	return false;
}

static bool key_is(const char *b, const char *e, const char *key)
{
	size_t n = strlen(key);
	return (size_t)(e - b) == n && memcmp(b, key, n) == 0;
}

/* A JSON integer at c->p into *v (a value with a fraction or exponent is refused). */
static bool read_int(struct cur *c, long long *v)
{
	skip_ws(c);
	const char *s = c->p;
	char *stop;
	if (c->p >= c->end || !(*s == '-' || (*s >= '0' && *s <= '9')))
		return false;
	*v = strtoll(s, &stop, 10);
	if (stop > c->end || stop == s || (stop < c->end && strchr(",} \t\r\n", *stop) == NULL))
		return false;
	c->p = stop;
	return true;
}

int lk_scan(const char *s, size_t n, struct lk_top *out)
{
	struct cur c = {s, s + n};
	memset(out, 0, sizeof *out);
	skip_ws(&c);
	if (c.p >= c.end || *c.p++ != '{')
		return -1;
	skip_ws(&c);
	if (c.p < c.end && *c.p == '}')
		return 0;
	for (;;) {
		const char *kb, *ke;
		skip_ws(&c);
		if (!skip_string(&c, &kb, &ke))
			return -1;
		skip_ws(&c);
		if (c.p >= c.end || *c.p++ != ':')
			return -1;
		skip_ws(&c);
		const char *vb, *ve;
		if (key_is(kb, ke, "type") && c.p < c.end && *c.p == '"') {
			if (!skip_string(&c, &vb, &ve))
				return -1;
			size_t len = (size_t)(ve - vb);
			if (len < sizeof out->type && memchr(vb, '\\', len) == NULL) {
				memcpy(out->type, vb, len);
				out->type[len] = '\0';
			}
		} else if (key_is(kb, ke, "game") && read_int(&c, &out->game)) {
			out->has_game = true;
		} else if (key_is(kb, ke, "seq") && read_int(&c, &out->seq)) {
			out->has_seq = true;
		} else if (!skip_value(&c)) {
			return -1;
		}
		skip_ws(&c);
		if (c.p >= c.end)
			return -1;
		if (*c.p == '}')
			return 0;
		if (*c.p++ != ',')
			return -1;
	}
}

/* ---- state order ------------------------------------------------------------------ */

enum lk_seq lk_stream_feed(struct lk_stream *s, long long game, long long seq)
{
	enum lk_seq r;
	if (game != s->game)
		r = LK_SEQ_FIRST;
	else if (seq == s->last_seq + 1)
		r = LK_SEQ_OK;
	else if (seq > s->last_seq)
		r = LK_SEQ_SKIP;
	else if (seq == s->last_seq)
		r = LK_SEQ_REPEAT;
	else
		r = LK_SEQ_BACK;
	s->states++;
	if (r != LK_SEQ_BACK) {
		s->game = game;
		s->last_seq = seq;
	}
	return r;
}

const char *lk_seq_str(enum lk_seq r)
{
	switch (r) {
	case LK_SEQ_OK:
		return "in order";
	case LK_SEQ_FIRST:
		return "first of its game";
	case LK_SEQ_SKIP:
		return "states were skipped";
	case LK_SEQ_REPEAT:
		return "the same state came twice";
	case LK_SEQ_BACK:
		return "an older state came after a newer one";
	}
	return "?";
}

/* ---- the acknowledgement log -------------------------------------------------------- */

void lk_ack_write(FILE *f, long long game, int ply, const char *text)
{
	fprintf(f, "%lld %d %s\n", game, ply, text);
}
