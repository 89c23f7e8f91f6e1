/*
 * tei.c - TEI lines, engine declarations and the bridge's clock, as pure
 * functions; see tei.h.
 */
#include "lib/tei.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "games/tak/tak.h"

/* --- words ------------------------------------------------------------------------ */

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* The next word of *p into w (cut to TEI_TEXT_MAX - 1); false at the end of the line. */
static bool next_word(const char **p, char w[TEI_TEXT_MAX])
{
	const char *s = *p;
	while (*s && blank(*s))
		s++;
	if (*s == '\0') {
		*p = s;
		return false;
	}
	size_t n = 0;
	while (*s && !blank(*s)) {
		if (n + 1 < TEI_TEXT_MAX)
			w[n++] = *s;
		s++;
	}
	w[n] = '\0';
	*p = s;
	return true;
}

/* Copies s without leading and trailing blanks into out (cut to TEI_TEXT_MAX - 1). */
static void copy_trimmed(char out[TEI_TEXT_MAX], const char *s)
{
	while (*s && blank(*s))
		s++;
	size_t n = strlen(s);
	while (n > 0 && blank(s[n - 1]))
		n--;
	if (n >= TEI_TEXT_MAX)
		n = TEI_TEXT_MAX - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

/* Appends word to a blank-separated value (cut at TEI_TEXT_MAX - 1). */
static void append_word(char v[TEI_TEXT_MAX], const char *word)
{
	size_t n = strlen(v);
	if (n > 0 && n + 1 < TEI_TEXT_MAX)
		v[n++] = ' ';
	for (; *word && n + 1 < TEI_TEXT_MAX; word++)
		v[n++] = *word;
	v[n] = '\0';
}

static bool parse_ll(const char *s, long long *v)
{
	char *end;
	if (*s == '\0')
		return false;
	long long x = strtoll(s, &end, 10);
	if (*end != '\0')
		return false;
	*v = x;
	return true;
}

/* --- engine lines ----------------------------------------------------------------- */

static enum tei_opt_type opt_type(const char *w)
{
	static const char *const names[] = {"", "check", "spin", "combo", "button", "string"};
	for (int i = 1; i < (int)(sizeof names / sizeof names[0]); i++)
		if (strcasecmp(w, names[i]) == 0)
			return (enum tei_opt_type)i;
	return TEI_OPT_UNKNOWN;
}

/* "option name N type T default D min a max b var v ..." (after the word "option"). */
static void parse_option(const char *p, struct tei_option *o)
{
	enum { NONE, NAME, TYPE, DEF, MIN, MAX, VAR } field = NONE;
	char w[TEI_TEXT_MAX], val[TEI_TEXT_MAX] = "";
	memset(o, 0, sizeof *o);
	for (;;) {
		bool more = next_word(&p, w);
		int kw = !more                       ? -1
		         : strcmp(w, "name") == 0    ? NAME
		         : strcmp(w, "type") == 0    ? TYPE
		         : strcmp(w, "default") == 0 ? DEF
		         : strcmp(w, "min") == 0     ? MIN
		         : strcmp(w, "max") == 0     ? MAX
		         : strcmp(w, "var") == 0     ? VAR
		                                     : 0;
		if (kw > 0 && field == NAME && kw != TYPE)
			kw = 0; /* a name runs up to "type": it may hold other keywords */
		if (kw == 0) {
			append_word(val, w);
			continue;
		}
		switch (field) { /* the field that ends here */
		case NAME:
			snprintf(o->name, sizeof o->name, "%s", val);
			break;
		case TYPE:
			o->type = opt_type(val);
			break;
		case DEF:
			snprintf(o->def, sizeof o->def, "%s", val);
			break;
		case MIN:
			o->has_min = parse_ll(val, &o->min);
			break;
		case MAX:
			o->has_max = parse_ll(val, &o->max);
			break;
		case VAR:
			if (o->nvars < TEI_MAX_VARS)
				snprintf(o->vars[o->nvars++], TEI_TEXT_MAX, "%s", val);
			break;
		case NONE:
			break;
		}
		if (kw < 0)
			return;
		field = kw;
		val[0] = '\0';
	}
}

enum tei_line_kind tei_parse_line(const char *line, struct tei_line *out)
{
	char w[TEI_TEXT_MAX];
	const char *p = line;
	memset(out, 0, sizeof *out);
	if (!next_word(&p, w))
		return out->kind = TEI_LINE_OTHER;
	if (strcmp(w, "teiok") == 0) {
		out->kind = TEI_LINE_TEIOK;
	} else if (strcmp(w, "readyok") == 0) {
		out->kind = TEI_LINE_READYOK;
	} else if (strcmp(w, "info") == 0) {
		out->kind = TEI_LINE_INFO;
	} else if (strcmp(w, "bestmove") == 0) {
		out->kind = TEI_LINE_BESTMOVE;
		if (!next_word(&p, out->move))
			out->move[0] = '\0';
	} else if (strcmp(w, "id") == 0 && next_word(&p, out->id_key)) {
		out->kind = TEI_LINE_ID;
		copy_trimmed(out->id_value, p);
	} else if (strcmp(w, "option") == 0) {
		parse_option(p, &out->opt);
		out->kind = out->opt.name[0] ? TEI_LINE_OPTION : TEI_LINE_OTHER;
	} else {
		out->kind = TEI_LINE_OTHER;
	}
	return out->kind;
}

/* --- what an engine declared ------------------------------------------------------- */

void tei_engine_init(struct tei_engine *e)
{
	memset(e, 0, sizeof *e);
	e->sizes = TEI_ALL_SIZES;
	e->half_komi = LLONG_MIN;
}

void tei_engine_add(struct tei_engine *e, const struct tei_line *l)
{
	if (l->kind == TEI_LINE_ID && strcmp(l->id_key, "name") == 0) {
		memcpy(e->name, l->id_value, sizeof e->name);
	} else if (l->kind == TEI_LINE_ID && strcmp(l->id_key, "author") == 0) {
		memcpy(e->author, l->id_value, sizeof e->author);
	} else if (l->kind == TEI_LINE_OPTION) {
		int i = 0;
		while (i < e->nopts && strcasecmp(e->opts[i].name, l->opt.name) != 0)
			i++;
		if (i == TEI_MAX_OPTS)
			return;
		e->opts[i] = l->opt;
		if (i == e->nopts)
			e->nopts++;
	}
}

const struct tei_option *tei_engine_option(const struct tei_engine *e, const char *name)
{
	for (int i = 0; i < e->nopts; i++)
		if (strcasecmp(e->opts[i].name, name) == 0)
			return &e->opts[i];
	return NULL;
}

/* Engines known by their id name: the sizes they play (tak.md section 4.1). */
static const struct {
	const char *name;
	unsigned sizes;
} known[] = {
        {"Tiltak", 0x70u},           /* 4..6: other sizes panic */
        {"BreadBot", TEI_ALL_SIZES}, /* takbag */
        {"Taktician", TEI_ALL_SIZES},
};

void tei_engine_ready(struct tei_engine *e, unsigned user_sizes)
{
	e->sizes = TEI_ALL_SIZES;
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		size_t n = strlen(known[i].name);
		if (strncasecmp(e->name, known[i].name, n) == 0 &&
		    (e->name[n] == '\0' || blank(e->name[n])))
			e->sizes = known[i].sizes;
	}
	if (user_sizes != 0)
		e->sizes = user_sizes & TEI_ALL_SIZES;
	const struct tei_option *k = tei_engine_option(e, "HalfKomi");
	long long v;
	e->half_komi = k != NULL && parse_ll(k->def, &v) ? v : k != NULL ? LLONG_MIN : 0;
}

bool tei_option_takes(const struct tei_option *o, long long v)
{
	long long x;
	switch (o->type) {
	case TEI_OPT_SPIN:
		return (!o->has_min || v >= o->min) && (!o->has_max || v <= o->max);
	case TEI_OPT_COMBO:
		for (int i = 0; i < o->nvars; i++)
			if (parse_ll(o->vars[i], &x) && x == v)
				return true;
		return false;
	case TEI_OPT_CHECK:
		return v == 0 || v == 1;
	case TEI_OPT_STRING:
		return true;
	default:
		return false;
	}
}

/* "3-8", "4-6", "5", "4,6" from a mask. */
static void sizes_text(unsigned mask, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	for (int s = 3; s <= 8; s++) {
		if (!(mask & 1u << s))
			continue;
		int e = s;
		while (e < 8 && (mask & 1u << (e + 1)))
			e++;
		int n = e > s ? snprintf(buf + at, len - at, "%s%d-%d", at ? "," : "", s, e)
		              : snprintf(buf + at, len - at, "%s%d", at ? "," : "", s);
		if (n < 0 || (size_t)n >= len - at)
			return;
		at += (size_t)n;
		s = e;
	}
}

const char *tei_cannot_play(const struct tei_engine *e, int size, long long half_komi, int stones,
                            int caps, char *buf, size_t len)
{
	char sz[32];
	if (size < 3 || size > 8 || !(e->sizes & 1u << size)) {
		sizes_text(e->sizes, sz, sizeof sz);
		snprintf(buf, len, "%s plays sizes %s, not %d", e->name[0] ? e->name : "the engine",
		         sz[0] ? sz : "(none)", size);
		return buf;
	}
	const struct tei_option *k = tei_engine_option(e, "HalfKomi");
	if (k == NULL && half_komi != 0) {
		snprintf(buf, len,
		         "%s declares no HalfKomi option, so it plays komi 0 only (not %lld half "
		         "flats)",
		         e->name[0] ? e->name : "the engine", half_komi);
		return buf;
	}
	if (k != NULL && !tei_option_takes(k, half_komi)) {
		snprintf(buf, len, "%s's HalfKomi option does not take %lld",
		         e->name[0] ? e->name : "the engine", half_komi);
		return buf;
	}
	if (stones > 0 && stones != tak_std_stones(size)) {
		snprintf(buf, len,
		         "TEI cannot tell an engine the piece count: %d stones instead of the "
		         "standard %d",
		         stones, tak_std_stones(size));
		return buf;
	}
	if (caps >= 0 && caps != tak_std_caps(size)) {
		snprintf(buf, len,
		         "TEI cannot tell an engine the piece count: %d capstones instead of the "
		         "standard %d",
		         caps, tak_std_caps(size));
		return buf;
	}
	return NULL;
}

bool tei_komi_line(struct tei_engine *e, long long half_komi, char *buf, size_t len)
{
	const struct tei_option *k = tei_engine_option(e, "HalfKomi");
	if (k == NULL || e->half_komi == half_komi)
		return false;
	snprintf(buf, len, "setoption name %s value %lld", k->name, half_komi);
	e->half_komi = half_komi;
	return true;
}

unsigned tei_parse_sizes(const char *text)
{
	unsigned mask = 0;
	const char *p = text;
	for (;;) {
		if (*p < '3' || *p > '8')
			return 0;
		int a = *p++ - '0', b = a;
		if (*p == '-') {
			p++;
			if (*p < '3' || *p > '8')
				return 0;
			b = *p++ - '0';
			if (b < a)
				return 0;
		}
		for (int s = a; s <= b; s++)
			mask |= 1u << s;
		if (*p == '\0')
			return mask;
		if (*p++ != ',')
			return 0;
	}
}

/* --- the clock ----------------------------------------------------------------- */

static long long told(long long ms, int margin_pct)
{
	long long t = (ms - TEI_CLOCK_RESERVE_MS) / 100 * (100 - margin_pct) +
	              (ms - TEI_CLOCK_RESERVE_MS) % 100 * (100 - margin_pct) / 100;
	return t < TEI_CLOCK_MIN_MS ? TEI_CLOCK_MIN_MS : t;
}

void tei_clock_told(bool timed, const long long clocks[2], long long inc_ms, int margin_pct,
                    long long untimed_ms, struct tei_clock *out)
{
	if (margin_pct < 0)
		margin_pct = 0;
	if (margin_pct > 90)
		margin_pct = 90;
	if (!timed) {
		*out = (struct tei_clock){untimed_ms, untimed_ms, 0, 0};
		return;
	}
	long long inc = inc_ms < 0 ? 0 : inc_ms / 100 * (100 - margin_pct);
	*out = (struct tei_clock){told(clocks[0], margin_pct), told(clocks[1], margin_pct), inc,
	                          inc};
}

long long tei_hang_ms(const struct tei_clock *c, int seat)
{
	return 2 * (seat == 0 ? c->wtime : c->btime) + 2000;
}

int tei_format_go(const struct tei_clock *c, char *buf, size_t len)
{
	return snprintf(buf, len, "go wtime %lld btime %lld winc %lld binc %lld", c->wtime,
	                c->btime, c->winc, c->binc);
}
