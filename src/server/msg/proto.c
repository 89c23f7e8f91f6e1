/*
 * proto.c - looking a verb up in a table, line splitting, ids, names and
 * seek options (see proto.h). No I/O.
 */
#include "server/msg/proto.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server/util/text.h"

const struct proto_cmd *proto_find(const struct proto_table *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcasecmp(t->cmds[i].name, name) == 0)
			return &t->cmds[i];
	return NULL;
}

const char *proto_strerror(int err)
{
	switch (err) {
	case PROTO_OK:
		return "ok";
	case PROTO_EMPTY:
		return "empty line";
	case PROTO_EBADTAG:
		return "bad tag";
	case PROTO_EUNKNOWN:
		return "unknown command";
	case PROTO_EARGS:
		return "wrong number of arguments";
	default:
		return "unknown error";
	}
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* Cuts the word at *p (NUL after it), moves *p past the blanks that follow; returns the word. */
static char *next_word(char **p)
{
	char *w = *p, *s = w;
	while (*s != '\0' && !is_blank(*s))
		s++;
	if (*s != '\0') {
		*s++ = '\0';
		while (is_blank(*s))
			s++;
	}
	*p = s;
	return w;
}

int proto_parse(char *line, const struct proto_table *t, struct proto_req *req)
{
	memset(req, 0, sizeof *req);
	char *p = line;
	while (is_blank(*p))
		p++;
	size_t n = strlen(p);
	while (n > 0 && is_blank(p[n - 1]))
		p[--n] = '\0';
	if (n == 0)
		return PROTO_EMPTY;

	if (*p == '#') {
		char *tag = next_word(&p) + 1;
		size_t tl = strlen(tag);
		bool ok = tl >= 1 && tl <= PROTO_TAG_MAX;
		for (size_t i = 0; ok && i < tl; i++)
			ok = is_word_char(tag[i]);
		if (!ok)
			return PROTO_EBADTAG;
		memcpy(req->tag, tag, tl + 1);
		req->tagged = true;
		if (*p == '\0')
			return PROTO_EBADTAG;
	}

	char *verb = next_word(&p);
	size_t i, vl = text_cut(verb, sizeof req->verb - 1); /* an echo stays UTF-8 */
	for (i = 0; i < vl; i++)
		req->verb[i] = (char)tolower((unsigned char)verb[i]);
	req->verb[i] = '\0';
	req->cmd = proto_find(t, verb);
	if (req->cmd == NULL)
		return PROTO_EUNKNOWN;

	const struct proto_cmd *c = req->cmd;
	while (*p != '\0') {
		if (req->argc == c->max)
			return PROTO_EARGS;
		if ((c->flags & PROTO_REST) && req->argc == c->max - 1) {
			req->argv[req->argc++] = p; /* already trimmed at the end */
			break;
		}
		req->argv[req->argc++] = next_word(&p);
	}
	if (req->argc < c->min)
		return PROTO_EARGS;
	return PROTO_OK;
}

bool proto_parse_id(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > PROTO_MAX_ID)
			return false;
	}
	if (v == 0)
		return false;
	*out = v;
	return true;
}

bool proto_name_valid(const char *name)
{
	size_t n = strlen(name);
	if (n < PROTO_NAME_MIN || n > PROTO_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_word_char(name[i]))
			return false;
	return true;
}

bool proto_name_house(const char *name)
{
	size_t k = strlen(PROTO_HOUSE_NAME);
	if (strncasecmp(name, PROTO_HOUSE_NAME, k) != 0 || name[k] == '\0')
		return false;
	return strspn(name + k, "0123456789") == strlen(name + k);
}

/* ---- seek options ----------------------------------------------------------------- */

/* Digits only, into *v; false when empty, not digits, or above max. */
static bool parse_uint(const char *s, size_t n, int64_t max, int64_t *v)
{
	int64_t x = 0;
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		x = x * 10 + (s[i] - '0');
		if (x > max)
			return false;
	}
	*v = x;
	return true;
}

bool seek_parse_time(const char *s, int64_t *base_ms, int64_t *inc_ms)
{
	const char *plus = strchr(s, '+');
	bool no_inc = plus == NULL; /* "5" is 5+0, as FICS and lichess read it */
	if (no_inc)
		plus = s + strlen(s);
	const char *colon = memchr(s, ':', (size_t)(plus - s));
	int64_t min, sec = 0, inc;
	size_t mlen = (size_t)((colon ? colon : plus) - s);
	if (!parse_uint(s, mlen, SEEK_BASE_MS_MAX / 60000, &min))
		return false;
	if (colon != NULL) {
		size_t slen = (size_t)(plus - colon - 1);
		if (slen != 2 || !parse_uint(colon + 1, slen, 59, &sec))
			return false;
	}
	if (no_inc)
		inc = 0;
	else if (!parse_uint(plus + 1, strlen(plus + 1), SEEK_INC_MS_MAX / 1000, &inc))
		return false;
	int64_t base = min * 60000 + sec * 1000;
	if (base < 1000 || base > SEEK_BASE_MS_MAX)
		return false;
	*base_ms = base;
	*inc_ms = inc * 1000;
	return true;
}

void seek_format_time(int64_t base_ms, int64_t inc_ms, char *buf, size_t len)
{
	int64_t s = base_ms / 1000;
	if (s % 60 == 0)
		snprintf(buf, len, "%" PRId64 "+%" PRId64, s / 60, inc_ms / 1000);
	else
		snprintf(buf, len, "%" PRId64 ":%02" PRId64 "+%" PRId64, s / 60, s % 60,
		         inc_ms / 1000);
}

/* "0"/"1" into *b. */
static bool parse_bool(const char *s, bool *b)
{
	if (strcmp(s, "0") == 0 || strcmp(s, "1") == 0) {
		*b = s[0] == '1';
		return true;
	}
	return false;
}

static int parse_color(const char *s)
{
	if (strcasecmp(s, "white") == 0 || strcasecmp(s, "first") == 0)
		return 0;
	if (strcasecmp(s, "black") == 0 || strcasecmp(s, "second") == 0)
		return 1;
	if (strcasecmp(s, "random") == 0)
		return -1;
	return -2;
}

int seek_opts_parse(const struct game_ops *ops, int argc, char *const argv[], struct seek_opts *so,
                    char *err, size_t errlen)
{
	bool simultaneous = (ops->flags & GAME_SIMULTANEOUS) != 0;
	memset(so, 0, sizeof *so);
	game_params_default(ops, &so->params);
	so->color = -1;
	so->turn_ms = simultaneous ? SEEK_TURN_MS_DEFAULT : 0;
	bool turn_given = false;

	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];
		const char *eq = strchr(w, '=');
		if (eq == NULL || eq == w) {
			snprintf(err, errlen, "'%.*s' is not name=value", (int)text_cut(w, 40), w);
			return -1;
		}
		const char *val = eq + 1;
		size_t nlen = (size_t)(eq - w);
#define IS(name) (nlen == strlen(name) && strncasecmp(w, name, nlen) == 0)
		if (IS("time")) {
			if (simultaneous) {
				snprintf(err, errlen, "%s has no clock; its turns last turn_ms",
				         ops->name);
				return -1;
			}
			if (!seek_parse_time(val, &so->base_ms, &so->inc_ms)) {
				snprintf(err, errlen,
				         "time is MIN+INC: minutes (or M:SS, at least 0:01) plus "
				         "seconds per move, e.g. time=5+3 (time=5: no increment)");
				return -1;
			}
			so->timed = true;
		} else if (IS("color")) {
			int c = parse_color(val);
			if (c == -2) {
				snprintf(err, errlen,
				         "color is white, black, first, second or random");
				return -1;
			}
			so->color = c;
		} else if (IS("turn_ms") || IS("first_turn_ms")) {
			bool first = IS("first_turn_ms");
			int64_t *ms = first ? &so->first_turn_ms : &so->turn_ms;
			turn_given |= !first;
			if (!simultaneous) {
				snprintf(err, errlen, "%s is for simultaneous games; use time=",
				         first ? "first_turn_ms" : "turn_ms");
				return -1;
			}
			if (!parse_uint(val, strlen(val), SEEK_TURN_MS_MAX, ms) ||
			    *ms < SEEK_TURN_MS_MIN) {
				snprintf(err, errlen, "%s is a whole number from %d to %d",
				         first ? "first_turn_ms" : "turn_ms", SEEK_TURN_MS_MIN,
				         SEEK_TURN_MS_MAX);
				return -1;
			}
		} else if (IS("rated")) {
			if (!parse_bool(val, &so->rated)) {
				snprintf(err, errlen, "rated is 0 or 1");
				return -1;
			}
		} else if (IS("max_plies") || IS("repetition")) {
			bool rep = IS("repetition");
			int64_t v = 0;
			if (rep && simultaneous) {
				snprintf(err, errlen, "%s has no repetition rule", ops->name);
				return -1;
			}
			if (!parse_uint(val, strlen(val), rep ? 1000 : 100000, &v) ||
			    (rep && v == 1)) {
				snprintf(err, errlen,
				         rep ? "repetition is 0 (off) or 2..1000: a draw at that "
				               "occurrence of a position"
				             : "max_plies is 0 (off) to 100000: a draw after that "
				               "many plies");
				return -1;
			}
			*(rep ? &so->repetition : &so->max_plies) = (int)v;
		} else if (IS("strict")) {
			if (!simultaneous) {
				snprintf(err, errlen, "strict is for simultaneous games");
				return -1;
			}
			if (!parse_bool(val, &so->strict)) {
				snprintf(err, errlen, "strict is 0 or 1");
				return -1;
			}
		} else {
			const char *why = NULL;
			int r = game_param_word(ops, &so->params, w, &why);
			if (r == 0) {
				snprintf(err, errlen, "%s has no option '%.*s' (see 'games')",
				         ops->name, (int)text_cut(w, nlen > 32 ? 32 : nlen), w);
				return -1;
			}
			if (r < 0) {
				snprintf(err, errlen, "%.*s: %s",
				         (int)text_cut(w, nlen > 32 ? 32 : nlen), w,
				         why ? why : game_strerror(r));
				return -1;
			}
		}
#undef IS
	}

	/* A game for people (simultaneous, not strict=1: PROTOCOL.md §3): a friendlier turn
	   and the people's value of the referee's harsh rules, unless given */
	if (simultaneous && !so->strict) {
		if (!turn_given)
			so->turn_ms = SEEK_TURN_MS_PEOPLE;
		for (int i = 0; i < ops->nopts; i++)
			if ((ops->opts[i].flags & GAME_OPT_PEOPLE) && !so->params.set[i]) {
				so->params.v[i] = ops->opts[i].max;
				so->params.set[i] = true;
			}
	}
	/* Options that are each in range may still not fit together (k > max(m, n)). */
	_Alignas(max_align_t) unsigned char scratch[GAME_STATE_MAX];
	if (ops->state_size > sizeof scratch || ops->init(scratch, &so->params, 0) != 0) {
		snprintf(err, errlen, "these options do not make a %s game (see 'games')",
		         ops->name);
		return -1;
	}
	return 0;
}

int game_params_text(const struct game_ops *ops, const struct game_params *p, bool brief,
                     char *buf, size_t len)
{
	size_t at = 0;
	if (len == 0)
		return -1;
	buf[0] = '\0';
	for (int i = 0; i < ops->nopts; i++) {
		const struct game_optdef *d = &ops->opts[i];
		if (brief && !(d->flags & GAME_OPT_SHOWN) &&
		    (d->flags & GAME_OPT_RANDOM ? game_param_random(ops, p, i) : p->v[i] == d->def))
			continue;
		const char *sep = at ? " " : "";
		const char *word = game_opt_word(d, p->v[i]);
		int n = game_param_random(ops, p, i)
		                ? snprintf(buf + at, len - at, "%s%s=" GAME_OPT_RANDOM_WORD, sep,
		                           ops->opts[i].name)
		        : word != NULL ? snprintf(buf + at, len - at, "%s%s=%s", sep,
		                                  ops->opts[i].name, word)
		                       : snprintf(buf + at, len - at, "%s%s=%" PRId64, sep,
		                                  ops->opts[i].name, p->v[i]);
		if (n < 0 || (size_t)n >= len - at)
			return -1;
		at += (size_t)n;
	}
	return (int)at;
}
