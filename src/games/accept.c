/*
 * accept.c - accept filters (see accept.h): one walk over the filter's words
 * that checks each and, given a game, says whether it holds. Nothing is kept
 * between calls: the text is the filter.
 */
#include "games/accept.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "games/game.h"

#define WORD_MAX  64 /* bytes of one word of a filter */
#define EST_MOVES 40 /* a clock's estimated length: base + 40 x increment (lichess) */

/* One word of the filter: n bytes from p (not NUL-terminated). */
struct word {
	const char *p;
	size_t n;
};

static bool word_is(struct word w, const char *s)
{
	return strlen(s) == w.n && strncasecmp(w.p, s, w.n) == 0;
}

/* The next word of *s ('|' is a word of its own), false at the end. */
static bool next_word(const char **s, struct word *w)
{
	const char *p = *s;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\0')
		return false;
	w->p = p;
	if (*p == '|')
		p++;
	else
		while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '|')
			p++;
	w->n = (size_t)(p - w->p);
	*s = p;
	return true;
}

static void say(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *buf, size_t len, const char *fmt, ...)
{
	if (len == 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* n bytes from p as a whole number (a decimal; not inf or nan). */
static bool number(const char *p, size_t n, double *out)
{
	char buf[WORD_MAX + 1];
	if (n == 0 || n > WORD_MAX)
		return false;
	memcpy(buf, p, n);
	buf[n] = '\0';
	char *end;
	double v = strtod(buf, &end);
	if (*end != '\0' || !isfinite(v) || strchr(buf, 'x') || strchr(buf, 'X'))
		return false;
	*out = v;
	return true;
}

/* ---- keys and their values ---------------------------------------------------------- */

enum key { KEY_TIME, KEY_BASE, KEY_INC, KEY_OPT };
enum op { OP_EQ, OP_NE, OP_GE, OP_LE, OP_GT, OP_LT };

/* Minutes, or M:SS, as milliseconds. */
static bool minutes(const char *p, size_t n, double *ms)
{
	const char *colon = memchr(p, ':', n);
	double m, s = 0;
	if (colon == NULL)
		return number(p, n, &m) && m >= 0 && (*ms = m * 60000, true);
	size_t mn = (size_t)(colon - p), sn = n - mn - 1;
	if (!number(p, mn, &m) || m < 0 || m != floor(m) || sn != 2 || !number(colon + 1, 2, &s) ||
	    s < 0 || s >= 60 || s != floor(s))
		return false;
	*ms = m * 60000 + s * 1000;
	return true;
}

/* A value of key written in a filter, as a number (clocks in milliseconds). */
static bool clock_value(enum key k, const char *p, size_t n, double *out)
{
	double inc = 0;
	if (k == KEY_INC)
		return number(p, n, &inc) && inc >= 0 && (*out = inc * 1000, true);
	if (k == KEY_BASE)
		return minutes(p, n, out);
	const char *plus = memchr(p, '+', n);
	size_t bn = plus != NULL ? (size_t)(plus - p) : n;
	double base;
	if (!minutes(p, bn, &base))
		return false;
	if (plus != NULL && (!number(plus + 1, n - bn - 1, &inc) || inc < 0))
		return false;
	*out = base + EST_MOVES * inc * 1000;
	return true;
}

/* name is an option of some game kind (of any, when none is named first). */
static bool option_known(const char *name)
{
	for (size_t i = 0; game_table[i] != NULL; i++)
		if (game_opt_index(game_table[i], name) >= 0)
			return true;
	return false;
}

/* The value of option name in an options text ("size=6 komi=0"), into buf; false when absent. */
static bool option_value(const char *options, const char *name, char *buf, size_t len)
{
	size_t nl = strlen(name);
	for (const char *p = options; p != NULL && *p != '\0';) {
		while (*p == ' ')
			p++;
		const char *end = strchr(p, ' ');
		size_t wl = end != NULL ? (size_t)(end - p) : strlen(p);
		if (wl > nl && p[nl] == '=' && strncasecmp(p, name, nl) == 0) {
			snprintf(buf, len, "%.*s", (int)(wl - nl - 1), p + nl + 1);
			return true;
		}
		p = end;
	}
	return false;
}

/* The game's side of a term on key: its value as text (for reasons) and as a number. */
struct side {
	bool present;
	bool numeric;
	double num;
	char text[WORD_MAX];
};

static void clock_text(int64_t base_ms, int64_t inc_ms, char *buf, size_t len)
{
	int64_t s = base_ms / 1000;
	if (s % 60 != 0)
		snprintf(buf, len, "%lld:%02lld+%lld", (long long)(s / 60), (long long)(s % 60),
		         (long long)(inc_ms / 1000));
	else
		snprintf(buf, len, "%lld+%lld", (long long)(s / 60), (long long)(inc_ms / 1000));
}

static void game_side(const struct accept_game *g, enum key k, const char *name, struct side *sd)
{
	memset(sd, 0, sizeof *sd);
	if (k != KEY_OPT) {
		sd->present = g->timed;
		sd->numeric = true;
		sd->num = k == KEY_TIME   ? (double)g->base_ms + EST_MOVES * (double)g->inc_ms
		          : k == KEY_BASE ? (double)g->base_ms
		                          : (double)g->inc_ms;
		if (g->timed)
			clock_text(g->base_ms, g->inc_ms, sd->text, sizeof sd->text);
		else
			snprintf(sd->text, sizeof sd->text, "untimed");
		return;
	}
	sd->present = option_value(g->options != NULL ? g->options : "", name, sd->text,
	                           sizeof sd->text);
	sd->numeric = sd->present && number(sd->text, strlen(sd->text), &sd->num);
}

/* One item of a value list: a value, or a range a..b (numbers). */
static bool item_holds(enum key k, struct word it, const struct side *sd)
{
	const char *dots = NULL;
	for (size_t i = 0; i + 1 < it.n && dots == NULL; i++)
		if (it.p[i] == '.' && it.p[i + 1] == '.')
			dots = it.p + i;
	double a, b;
	if (dots != NULL) {
		size_t an = (size_t)(dots - it.p);
		bool ok = k == KEY_OPT ? number(it.p, an, &a) && number(dots + 2, it.n - an - 2, &b)
		                       : clock_value(k, it.p, an, &a) &&
		                                 clock_value(k, dots + 2, it.n - an - 2, &b);
		return ok && sd->numeric && sd->num >= a && sd->num <= b;
	}
	if (k != KEY_OPT)
		return clock_value(k, it.p, it.n, &a) && sd->num == a;
	if (number(it.p, it.n, &a))
		return sd->numeric && sd->num == a;
	return strlen(sd->text) == it.n && strncasecmp(sd->text, it.p, it.n) == 0;
}

/* The items of a value list are well formed: false with a sentence in err. */
static bool items_check(enum key k, enum op op, struct word w, struct word vals, char *err,
                        size_t len)
{
	if (vals.n == 0) {
		say(err, len, "'%.*s' has no value after its sign", (int)w.n, w.p);
		return false;
	}
	bool list = op == OP_EQ || op == OP_NE;
	const char *p = vals.p, *end = vals.p + vals.n;
	while (p <= end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		struct word it = {p, (size_t)((c != NULL ? c : end) - p)};
		const char *dots = NULL;
		for (size_t i = 0; i + 1 < it.n && dots == NULL; i++)
			if (it.p[i] == '.' && it.p[i + 1] == '.')
				dots = it.p + i;
		double a, b;
		bool ok = it.n > 0;
		if (ok && (c != NULL || dots != NULL) && !list) {
			say(err, len, "'%.*s': a comparison takes one value (lists and ranges go with = or !=)",
			    (int)w.n, w.p);
			return false;
		}
		if (ok && dots != NULL) {
			size_t an = (size_t)(dots - it.p);
			ok = k == KEY_OPT ? number(it.p, an, &a) && number(dots + 2, it.n - an - 2, &b)
			                  : clock_value(k, it.p, an, &a) &&
			                            clock_value(k, dots + 2, it.n - an - 2, &b);
			ok = ok && a <= b;
		} else if (ok && k != KEY_OPT) {
			ok = clock_value(k, it.p, it.n, &a);
		} else if (ok && !list) {
			ok = number(it.p, it.n, &a);
		}
		if (!ok) {
			const char *what = k == KEY_TIME   ? "a clock as MIN+INC (5+3, 0:30+1)"
			                   : k == KEY_BASE ? "minutes (5, 0:30)"
			                   : k == KEY_INC  ? "seconds"
			                   : list          ? "values or ranges of numbers (5..7)"
			                                   : "a number";
			say(err, len, "'%.*s' wants %s", (int)w.n, w.p, what);
			return false;
		}
		if (c == NULL)
			break;
		p = c + 1;
	}
	return true;
}

/* ---- a word -------------------------------------------------------------------------- */

/* What one word of a filter is. */
struct term {
	bool is_kind; /* a kind word (kinds of an alternative: one must hold) */
	int flag;     /* a flag word: its index in flag_words, else -1 */
	bool holds;   /* with a game: it holds for it */
	char game[WORD_MAX + 16]; /* with a game: what the game has there, for a reason */
};

/* In pairs, each the other's negation (index ^ 1), with what a failure of each says. */
static const char *const flag_words[] = {"rated", "unrated", "bots", "humans", "timed", "untimed"};
static const char *const flag_why[] = {
        "takes only rated games",      "takes only unrated games", "takes only games against bots",
        "takes no games against bots", "takes only timed games",   "takes only untimed games"};

/* A kind word: kind names separated by ','. */
static bool kind_word(struct word w, const struct accept_game *g, struct term *t)
{
	bool any = false;
	const char *p = w.p, *end = w.p + w.n;
	while (p < end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		size_t n = (size_t)((c != NULL ? c : end) - p);
		char name[WORD_MAX + 1];
		if (n == 0 || n > WORD_MAX)
			return false;
		snprintf(name, sizeof name, "%.*s", (int)n, p);
		if (game_find(name) == NULL)
			return false;
		any |= g != NULL && strcasecmp(name, g->kind) == 0;
		p = c != NULL ? c + 1 : end;
		if (c != NULL && p == end)
			return false; /* "tak," */
	}
	t->is_kind = true;
	t->holds = any;
	if (g != NULL)
		snprintf(t->game, sizeof t->game, "%s", g->kind);
	return true;
}

/* Reads word w (its negation taken off) into *t: -1 with err when it is no filter's word. */
static int term_read(struct word w, const struct accept_game *g, struct term *t, char *err,
                     size_t len)
{
	memset(t, 0, sizeof *t);
	t->flag = -1;
	if (w.n > WORD_MAX) {
		say(err, len, "'%.20s...' is too long a word", w.p);
		return -1;
	}
	for (size_t i = 0; i < sizeof flag_words / sizeof flag_words[0]; i++) {
		if (!word_is(w, flag_words[i]))
			continue;
		t->flag = (int)i;
		if (g != NULL) {
			bool v[] = {g->rated, !g->rated, g->opponent_bot, !g->opponent_bot, g->timed,
			            !g->timed};
			t->holds = v[i];
		}
		return 0;
	}
	/* KEY OP VALUES */
	size_t i = 0;
	while (i < w.n && strchr("=!<>", w.p[i]) == NULL)
		i++;
	if (i == w.n) {
		if (kind_word(w, g, t))
			return 0;
		say(err, len,
		    "'%.*s' is no game kind (%s), no option comparison (size=5,6, time>=1+0), nor one "
		    "of rated, unrated, bots, humans, timed, untimed",
		    (int)w.n, w.p, "ttt, mnk, tak, xmas");
		return -1;
	}
	struct word key = {w.p, i};
	const char *o = w.p + i, *end = w.p + w.n;
	enum op op;
	size_t on = 1;
	if (o + 1 < end && o[1] == '=')
		on = 2;
	if (on == 2)
		op = o[0] == '!' ? OP_NE : o[0] == '>' ? OP_GE : o[0] == '<' ? OP_LE : OP_EQ;
	else
		op = o[0] == '>' ? OP_GT : o[0] == '<' ? OP_LT : OP_EQ;
	if ((on == 1 && o[0] == '!') || (on == 2 && o[0] == '=')) {
		say(err, len, "'%.*s': the signs are = != >= <= > <", (int)w.n, w.p);
		return -1;
	}
	struct word vals = {o + on, (size_t)(end - o - on)};
	char name[WORD_MAX + 1];
	snprintf(name, sizeof name, "%.*s", (int)key.n, key.p);
	enum key k = word_is(key, "time")   ? KEY_TIME
	             : word_is(key, "base") ? KEY_BASE
	             : word_is(key, "inc")  ? KEY_INC
	                                    : KEY_OPT;
	if (k == KEY_OPT && !option_known(name)) {
		say(err, len, "'%s' is no option of any game kind (nor time, base or inc)", name);
		return -1;
	}
	if (!items_check(k, op, w, vals, err, len))
		return -1;
	if (g == NULL)
		return 0;
	struct side sd;
	game_side(g, k, name, &sd);
	if (k == KEY_OPT)
		snprintf(t->game, sizeof t->game, sd.present ? "%s=%s" : "no %s", name, sd.text);
	else
		snprintf(t->game, sizeof t->game, "%s", sd.text);
	if (!sd.present) {
		t->holds = op == OP_NE;
		return 0;
	}
	if (op == OP_EQ || op == OP_NE) {
		bool any = false;
		const char *p = vals.p, *ve = vals.p + vals.n;
		while (p <= ve && !any) {
			const char *c = memchr(p, ',', (size_t)(ve - p));
			struct word it = {p, (size_t)((c != NULL ? c : ve) - p)};
			any = item_holds(k, it, &sd);
			if (c == NULL)
				break;
			p = c + 1;
		}
		t->holds = op == OP_EQ ? any : !any;
		return 0;
	}
	double v = 0;
	if (k == KEY_OPT)
		number(vals.p, vals.n, &v);
	else
		clock_value(k, vals.p, vals.n, &v);
	t->holds = sd.numeric && (op == OP_GE   ? sd.num >= v
	                          : op == OP_LE ? sd.num <= v
	                          : op == OP_GT ? sd.num > v
	                                        : sd.num < v);
	return 0;
}

/* ---- the walk ------------------------------------------------------------------------ */

/* An alternative as walked: its kinds, whether all its other words hold, its first failure. */
struct alt {
	size_t words;
	bool kinds_seen, kind_ok, all_ok;
	char kinds[ACCEPT_WHY_MAX / 2];
	char why[ACCEPT_WHY_MAX];
};

static void alt_start(struct alt *a)
{
	memset(a, 0, sizeof *a);
	a->all_ok = true;
}

static bool alt_holds(const struct alt *a)
{
	return a->all_ok && (!a->kinds_seen || a->kind_ok);
}

/* Walks filter, for game g (NULL: only checks it). -1 with err when it does not read; else 0
   and (with a game) *pass, and why when it fails. */
static int walk(const char *filter, const struct accept_game *g, bool *pass, char *why,
                size_t len)
{
	struct alt a, first;
	alt_start(&a);
	size_t nalts = 0;
	bool any = false, neg = false;
	const char *s = filter != NULL ? filter : "";
	if (strlen(s) > ACCEPT_TEXT_MAX) {
		say(why, len, "a filter is at most %d bytes", ACCEPT_TEXT_MAX);
		return -1;
	}
	struct word w;
	for (;;) {
		bool more = next_word(&s, &w);
		bool sep = more && (word_is(w, "|") || word_is(w, "or"));
		if (!more || sep) {
			if (neg || (a.words == 0 && (sep || nalts > 0))) {
				say(why, len, "%s", neg ? "a negation (! or not) before nothing"
				                        : "an empty alternative around '|'");
				return -1;
			}
			if (a.words > 0) {
				if (nalts++ == 0)
					first = a;
				any |= alt_holds(&a);
			}
			if (!more)
				break;
			alt_start(&a);
			continue;
		}
		if (word_is(w, "not") || word_is(w, "!")) {
			if (neg) {
				say(why, len, "a negation twice in a row");
				return -1;
			}
			neg = true;
			continue;
		}
		if (w.p[0] == '!' && w.n > 1 && w.p[1] != '=') {
			if (neg || w.p[1] == '!') {
				say(why, len, "a negation twice in a row");
				return -1;
			}
			neg = true;
			w.p++;
			w.n--;
		}
		struct term t;
		if (term_read(w, g, &t, why, len) < 0)
			return -1;
		a.words++;
		if (t.is_kind && !neg) {
			a.kinds_seen = true;
			a.kind_ok |= t.holds;
			size_t kl = strlen(a.kinds);
			snprintf(a.kinds + kl, sizeof a.kinds - kl, "%s%.*s", kl ? " or " : "", (int)w.n,
			         w.p);
		} else if ((neg ? !t.holds : t.holds) == false && a.all_ok && g != NULL) {
			a.all_ok = false;
			if (t.flag >= 0)
				snprintf(a.why, sizeof a.why, "%s", flag_why[neg ? t.flag ^ 1 : t.flag]);
			else if (neg)
				snprintf(a.why, sizeof a.why, "takes no %.*s games (this one: %s)",
				         (int)w.n, w.p, t.game);
			else
				snprintf(a.why, sizeof a.why, "takes only %.*s, not %s", (int)w.n, w.p,
				         t.game);
		}
		neg = false;
	}
	if (g == NULL)
		return 0;
	*pass = nalts == 0 || any;
	if (*pass)
		return 0;
	if (nalts > 1)
		say(why, len, "takes none of its alternatives (%s)", filter);
	else if (first.kinds_seen && !first.kind_ok)
		say(why, len, "takes only %s games, not %s", first.kinds, g->kind);
	else
		say(why, len, "%s", first.why);
	return 0;
}

int accept_check(const char *filter, char *err, size_t len)
{
	return walk(filter, NULL, NULL, err, len);
}

bool accept_allows(const char *filter, const struct accept_game *g, char *why, size_t len)
{
	bool pass = false;
	char err[ACCEPT_WHY_MAX];
	if (walk(filter, g, &pass, err, sizeof err) < 0) {
		say(why, len, "its filter does not read (%s)", err);
		return false;
	}
	if (!pass)
		say(why, len, "%s", err);
	return pass;
}
