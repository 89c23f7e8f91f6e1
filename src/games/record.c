/*
 * record.c - game records as text (see record.h): the writer, the parser,
 * the tags of a game, and replay through the move-list replayer.
 */
#include "games/record.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *record_strerror(int err)
{
	switch (err) {
	case RECORD_OK:
		return "ok";
	case RECORD_ENOMEM:
		return "out of memory";
	case RECORD_ESYNTAX:
		return "not a valid game record";
	case RECORD_EINVAL:
		return "a tag or move that cannot be written in a record";
	case RECORD_EGAME:
		return "the record does not replay in its game";
	case RECORD_EPARTIAL:
		return "the record ends inside a simultaneous turn";
	}
	return "unknown error";
}

void record_init(struct record *r)
{
	memset(r, 0, sizeof(*r));
}

void record_clear(struct record *r)
{
	for (size_t i = 0; i < r->ntags; i++) {
		free(r->tags[i].key);
		free(r->tags[i].value);
	}
	free(r->tags);
	for (size_t i = 0; i < r->nmoves; i++)
		free(r->moves[i]);
	free(r->moves);
	for (size_t i = 0; i < r->cap_notes; i++)
		free(r->notes[i]);
	free(r->notes);
	free(r->result);
	record_init(r);
}

static bool key_valid(const char *key)
{
	size_t n = strlen(key);
	if (n == 0 || n > RECORD_KEY_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)key[i]) && key[i] != '_')
			return false;
	return true;
}

static bool line_free(const char *s)
{
	return strpbrk(s, "\r\n") == NULL;
}

int record_set_tag(struct record *r, const char *key, const char *value)
{
	if (!key || !value || !key_valid(key) || strlen(value) > RECORD_VALUE_MAX ||
	    !line_free(value))
		return RECORD_EINVAL;
	char *v = strdup(value);
	if (!v)
		return RECORD_ENOMEM;
	for (size_t i = 0; i < r->ntags; i++)
		if (strcmp(r->tags[i].key, key) == 0) {
			free(r->tags[i].value);
			r->tags[i].value = v;
			return RECORD_OK;
		}
	char *k = strdup(key);
	if (!k) {
		free(v);
		return RECORD_ENOMEM;
	}
	if (r->ntags == r->cap_tags) {
		size_t cap = r->cap_tags ? r->cap_tags * 2 : 16;
		struct record_tag *t = realloc(r->tags, cap * sizeof(*t));
		if (!t) {
			free(k);
			free(v);
			return RECORD_ENOMEM;
		}
		r->tags = t;
		r->cap_tags = cap;
	}
	r->tags[r->ntags].key = k;
	r->tags[r->ntags].value = v;
	r->ntags++;
	return RECORD_OK;
}

const char *record_tag(const struct record *r, const char *key)
{
	for (size_t i = 0; i < r->ntags; i++)
		if (strcmp(r->tags[i].key, key) == 0)
			return r->tags[i].value;
	return NULL;
}

int record_add_move(struct record *r, const char *text)
{
	if (!text || strlen(text) >= GAME_MOVE_TEXT || !line_free(text))
		return RECORD_EINVAL;
	if (r->nmoves == r->cap_moves) {
		size_t cap = r->cap_moves ? r->cap_moves * 2 : 64;
		char **m = realloc(r->moves, cap * sizeof(*m));
		if (!m)
			return RECORD_ENOMEM;
		r->moves = m;
		r->cap_moves = cap;
	}
	char *t = strdup(text);
	if (!t)
		return RECORD_ENOMEM;
	r->moves[r->nmoves++] = t;
	return RECORD_OK;
}

int record_set_note(struct record *r, size_t i, const char *text)
{
	if (i >= r->nmoves ||
	    (text != NULL && (strlen(text) > RECORD_VALUE_MAX || strpbrk(text, "{}\r\n") != NULL)))
		return RECORD_EINVAL;
	if (i >= r->cap_notes) {
		size_t cap = r->cap_moves;
		char **n = realloc(r->notes, cap * sizeof *n);
		if (!n)
			return RECORD_ENOMEM;
		memset(n + r->cap_notes, 0, (cap - r->cap_notes) * sizeof *n);
		r->notes = n;
		r->cap_notes = cap;
	}
	char *t = NULL;
	if (text != NULL && (t = strdup(text)) == NULL)
		return RECORD_ENOMEM;
	free(r->notes[i]);
	r->notes[i] = t;
	return RECORD_OK;
}

/* Length of a run of [0-9RF/] at t, after one optional '-' (Xmas Rush's -1 for a fault). */
static size_t score_side(const char *t, size_t n)
{
	size_t i = n > 0 && t[0] == '-' ? 1 : 0, start = i;
	while (i < n && (isdigit((unsigned char)t[i]) || t[i] == 'R' || t[i] == 'F' || t[i] == '/'))
		i++;
	return i > start ? i : 0;
}

/* A result token: "*", or "L-R" where each side is a run of [0-9RF/], maybe negative. */
static bool is_result(const char *t, size_t n)
{
	if (n == 1 && t[0] == '*')
		return true;
	size_t l = score_side(t, n);
	return l > 0 && l < n && t[l] == '-' && score_side(t + l + 1, n - l - 1) == n - l - 1;
}

int record_set_result(struct record *r, const char *result)
{
	if (result && strcmp(result, "*") != 0 && result[0]) {
		if (strlen(result) >= RECORD_RESULT_MAX || !is_result(result, strlen(result)))
			return RECORD_EINVAL;
		char *t = strdup(result);
		if (!t)
			return RECORD_ENOMEM;
		free(r->result);
		r->result = t;
		return RECORD_OK;
	}
	free(r->result);
	r->result = NULL;
	return RECORD_OK;
}

/* Length of a move-number prefix "12." / "12..." at t (0 when there is none). */
static size_t number_prefix(const char *t, size_t n)
{
	size_t i = 0;
	while (i < n && isdigit((unsigned char)t[i]))
		i++;
	if (i == 0 || i == n || t[i] != '.')
		return 0;
	while (i < n && t[i] == '.')
		i++;
	return i;
}

/* Must the move text be written in quotes to read back as itself? */
static bool needs_quotes(const char *t)
{
	size_t n = strlen(t);
	if (n == 0 || number_prefix(t, n) > 0 || is_result(t, n))
		return true;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)t[i];
		if (c <= ' ' || c == 0x7f || strchr("\"{}[];\\", c))
			return true;
	}
	return false;
}

/* A growing output buffer. */
struct buf {
	char *p;
	size_t len, cap;
	bool oom;
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* Writes s between double quotes with \ and " escaped. */
static void put_quoted(struct buf *b, const char *s)
{
	put(b, "\"", 1);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			put(b, "\\", 1);
		put(b, s, 1);
	}
	put(b, "\"", 1);
}

int record_write(const struct record *r, char **out, size_t *len)
{
	struct buf b = {0};
	*out = NULL;
	for (size_t i = 0; i < r->ntags; i++) {
		if (!key_valid(r->tags[i].key) || !line_free(r->tags[i].value))
			goto invalid;
		puts_(&b, "[");
		puts_(&b, r->tags[i].key);
		puts_(&b, " ");
		put_quoted(&b, r->tags[i].value);
		puts_(&b, "]\n");
	}
	if (r->ntags > 0)
		puts_(&b, "\n");
	char num[32];
	for (size_t i = 0; i < r->nmoves; i++) {
		const char *m = r->moves[i];
		if (!line_free(m))
			goto invalid;
		if (i % 2 == 0) {
			snprintf(num, sizeof num, "%s%zu. ", i > 0 ? "\n" : "", i / 2 + 1);
			puts_(&b, num);
		} else {
			puts_(&b, " ");
		}
		if (needs_quotes(m))
			put_quoted(&b, m);
		else
			puts_(&b, m);
		if (i < r->cap_notes && r->notes[i] != NULL) {
			puts_(&b, " {");
			puts_(&b, r->notes[i]);
			puts_(&b, "}");
		}
	}
	if (r->nmoves > 0)
		puts_(&b, " ");
	puts_(&b, r->result ? r->result : "*");
	puts_(&b, "\n");
	if (b.oom) {
		free(b.p);
		return RECORD_ENOMEM;
	}
	*out = b.p;
	if (len)
		*len = b.len;
	return RECORD_OK;
invalid:
	free(b.p);
	return RECORD_EINVAL;
}

/* ---- parser --------------------------------------------------------------------------- */

struct lexer {
	const char *p, *end;
	int line;
};

static void skip_space(struct lexer *lx)
{
	while (lx->p < lx->end && isspace((unsigned char)*lx->p)) {
		if (*lx->p == '\n')
			lx->line++;
		lx->p++;
	}
}

/*
 * Reads a quoted string at lx->p (which is '"') into a malloc'd copy with
 * escapes undone; NULL on a syntax error (unterminated, newline inside) or
 * no memory (*oom set).
 */
static char *read_quoted(struct lexer *lx, size_t max, bool *oom)
{
	lx->p++;
	char *s = malloc(max + 1);
	if (!s) {
		*oom = true;
		return NULL;
	}
	size_t n = 0;
	while (lx->p < lx->end && *lx->p != '"') {
		char c = *lx->p++;
		if (c == '\\' && lx->p < lx->end)
			c = *lx->p++;
		if (c == '\n' || c == '\r' || c == '\0' || n == max) {
			free(s);
			return NULL;
		}
		s[n++] = c;
	}
	if (lx->p == lx->end) {
		free(s);
		return NULL;
	}
	lx->p++;
	s[n] = '\0';
	return s;
}

/* Parses `[Key "value"]` at lx->p (which is '['). */
static int read_tag(struct lexer *lx, struct record *r)
{
	lx->p++;
	const char *k = lx->p;
	while (lx->p < lx->end && (isalnum((unsigned char)*lx->p) || *lx->p == '_'))
		lx->p++;
	size_t klen = (size_t)(lx->p - k);
	if (klen == 0 || klen > RECORD_KEY_MAX)
		return RECORD_ESYNTAX;
	char key[RECORD_KEY_MAX + 1];
	memcpy(key, k, klen);
	key[klen] = '\0';
	while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t'))
		lx->p++;
	if (lx->p == lx->end || *lx->p != '"')
		return RECORD_ESYNTAX;
	bool oom = false;
	char *value = read_quoted(lx, RECORD_VALUE_MAX, &oom);
	if (!value)
		return oom ? RECORD_ENOMEM : RECORD_ESYNTAX;
	while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t'))
		lx->p++;
	int err = RECORD_ESYNTAX;
	if (lx->p < lx->end && *lx->p == ']') {
		lx->p++;
		err = record_set_tag(r, key, value);
		if (err == RECORD_EINVAL)
			err = RECORD_ESYNTAX;
	}
	free(value);
	return err;
}

static bool token_char(char c)
{
	return c != '\0' && !isspace((unsigned char)c) && c != '{' && c != '}' && c != '"' &&
	       c != ';' && c != '[' && c != ']';
}

int record_parse(const char *text, size_t len, struct record *r, int *line)
{
	struct lexer lx = {text, text + len, 1};
	bool in_moves = false, have_result = false;
	int err = RECORD_OK;
	record_init(r);
	for (;;) {
		skip_space(&lx);
		if (lx.p >= lx.end)
			break;
		char c = *lx.p;
		/* A comment may span lines; an open one is reported where it opens. */
		if (c == '{') {
			int opened = lx.line;
			while (lx.p < lx.end && *lx.p != '}') {
				if (*lx.p == '\n')
					lx.line++;
				lx.p++;
			}
			if (lx.p == lx.end) {
				lx.line = opened;
				err = RECORD_ESYNTAX;
				break;
			}
			lx.p++;
			continue;
		}
		if (c == ';') { /* comment to the end of the line */
			while (lx.p < lx.end && *lx.p != '\n')
				lx.p++;
			continue;
		}
		if (c == '[') {
			if (in_moves) {
				err = RECORD_ESYNTAX;
				break;
			}
			if ((err = read_tag(&lx, r)) != RECORD_OK)
				break;
			continue;
		}
		if (have_result || c == '}' || c == ']' || c == '\0') {
			err = RECORD_ESYNTAX; /* nothing may follow the result */
			break;
		}
		in_moves = true;
		if (c == '"') {
			bool oom = false;
			char *m = read_quoted(&lx, GAME_MOVE_TEXT - 1, &oom);
			if (!m) {
				err = oom ? RECORD_ENOMEM : RECORD_ESYNTAX;
				break;
			}
			err = record_add_move(r, m);
			free(m);
			if (err)
				break;
			continue;
		}
		const char *t = lx.p;
		while (lx.p < lx.end && token_char(*lx.p))
			lx.p++;
		size_t n = (size_t)(lx.p - t);
		size_t skip = number_prefix(t, n); /* "12." or "12.a1" */
		t += skip;
		n -= skip;
		if (n == 0)
			continue;
		if (is_result(t, n)) {
			have_result = true;
			if (!(n == 1 && *t == '*')) {
				char res[RECORD_RESULT_MAX];
				if (n >= sizeof res) {
					err = RECORD_ESYNTAX;
					break;
				}
				memcpy(res, t, n);
				res[n] = '\0';
				if ((err = record_set_result(r, res)) != RECORD_OK)
					break;
			}
			continue;
		}
		if (n >= GAME_MOVE_TEXT) {
			err = RECORD_ESYNTAX;
			break;
		}
		char m[GAME_MOVE_TEXT];
		memcpy(m, t, n);
		m[n] = '\0';
		if ((err = record_add_move(r, m)) != RECORD_OK)
			break;
	}
	if (err) {
		if (line)
			*line = lx.line;
		record_clear(r);
	}
	return err;
}

/* ---- the tags of a game ---------------------------------------------------------------- */

/* record_set_tag() as a game_tag_fn, for the engines' record_tags hook. */
static int set_tag(void *r, const char *key, const char *value)
{
	return record_set_tag(r, key, value);
}

int record_set_game_tags(struct record *r, const struct record_game *g)
{
	char v[64];
	int err = RECORD_OK;
	const char *result = g->result != NULL && g->result[0] ? g->result : NULL;
	time_t secs = (time_t)(g->started_ms / 1000);
	struct tm tm;
	gmtime_r(&secs, &tm);
#define TAG(k, val)                                                                                \
	do {                                                                                       \
		if ((err = record_set_tag(r, (k), (val))) != 0)                                    \
			return err;                                                                \
	} while (0)
	snprintf(v, sizeof v, "bitarena game %" PRId64, g->id);
	TAG("Event", v);
	TAG("Site", "bitarena");
	TAG("Game", g->kind);
	snprintf(v, sizeof v, "%04d.%02d.%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
	TAG("Date", v);
	snprintf(v, sizeof v, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
	TAG("Time", v);
	TAG("Player1", g->players[0]);
	TAG("Player2", g->players[1]);
	if (g->bots[0])
		TAG("Player1Title", "BOT");
	if (g->bots[1])
		TAG("Player2Title", "BOT");
	TAG("Rated", g->rated ? "yes" : "no");
	if (g->time_base_ms > 0 || g->time_inc_ms > 0) {
		/* playtak's form: minutes:seconds +increment seconds, "10:0 +20". */
		int64_t base = g->time_base_ms / 1000;
		snprintf(v, sizeof v, "%" PRId64 ":%" PRId64 " +%" PRId64, base / 60, base % 60,
		         g->time_inc_ms / 1000);
		TAG("Clock", v);
	}
	const struct game_ops *ops = game_find(g->kind);
	if (ops != NULL && ops->record_tags != NULL &&
	    (err = ops->record_tags(g->options, set_tag, r)) != 0)
		return err;
	TAG("Options", g->options);
	if (!g->seed_hidden)
		TAG("Seed", game_seed_text(g->seed, v));
	TAG("Result", result ? result : "*");
	if (g->termination != NULL && g->termination[0])
		TAG("Termination", g->termination);
#undef TAG
	return record_set_result(r, result);
}

/* ---- replay ------------------------------------------------------------------------------ */

/* The engine options of the record's tags into p: Options, else Size; RECORD_EGAME if bad. */
static int record_params(const struct record *r, const struct game_ops *ops, struct game_params *p)
{
	game_params_default(ops, p);
	const char *opts = record_tag(r, "Options"), *size = record_tag(r, "Size");
	char word[RECORD_VALUE_MAX + 8];
	if (opts == NULL) {
		if (size == NULL || game_opt_index(ops, "size") < 0)
			return RECORD_OK;
		snprintf(word, sizeof word, "size=%s", size);
		return game_param_word(ops, p, word, NULL) < 0 ? RECORD_EGAME : RECORD_OK;
	}
	for (const char *q = opts; *q;) {
		while (*q == ' ')
			q++;
		size_t n = strcspn(q, " ");
		if (n == 0)
			break;
		memcpy(word, q, n); /* n <= RECORD_VALUE_MAX: the tag's own limit */
		word[n] = '\0';
		if (game_param_word(ops, p, word, NULL) < 0) /* 0: not the engine's, skipped */
			return RECORD_EGAME;
		q += n;
	}
	return RECORD_OK;
}

int record_replay_start(const struct record *r, const struct game_ops *ops, void *st,
                        struct game_replay *rp, const struct game_ops **ops_out)
{
	if (!ops) {
		const char *kind = record_tag(r, "Game");
		if (!kind && record_tag(r, "Size"))
			kind = "tak"; /* PTN from elsewhere carries no Game tag */
		ops = kind ? game_find(kind) : NULL;
	}
	if (ops_out)
		*ops_out = ops;
	struct game_params p;
	if (!ops || record_params(r, ops, &p) != RECORD_OK)
		return RECORD_EGAME;
	const char *seed_tag = record_tag(r, "Seed");
	uint64_t seed = 0;
	if (seed_tag != NULL && !game_seed_parse(seed_tag, &seed))
		return RECORD_EGAME;
	return game_replay_start(rp, ops, st, &p, seed) == GAME_OK ? RECORD_OK : RECORD_EGAME;
}

int record_replay_move(const struct record *r, size_t i, struct game_replay *rp, const char **why)
{
	const char *text = r->moves[i];
	struct game_ply e = {.seat = -1, .act = game_act_of_text(text), .text = text};
	int err = game_replay_step(rp, &e, why);
	if (err != GAME_ESYNTAX && err != GAME_EILLEGAL)
		return err;
	/* PTN from elsewhere may mark a move: "a1!", "c3+?" */
	char t[GAME_MOVE_TEXT];
	snprintf(t, sizeof t, "%s", text);
	size_t n = strlen(t);
	while (n > 0 && strchr("!?'", t[n - 1]))
		t[--n] = '\0';
	if (n == strlen(text) || n == 0)
		return err;
	e.text = t;
	int again = game_replay_step(rp, &e, NULL);
	return again < 0 ? err : again;
}

int record_replay(const struct record *r, const struct game_ops *ops, void *st,
                  const struct game_ops **ops_out, int *bad_ply)
{
	struct game_replay rp;
	if (bad_ply)
		*bad_ply = -1;
	if (record_replay_start(r, ops, st, &rp, ops_out) != RECORD_OK)
		return RECORD_EGAME;
	for (size_t i = 0; i < r->nmoves; i++) {
		if (record_replay_move(r, i, &rp, NULL) < 0) {
			if (bad_ply)
				*bad_ply = (int)i;
			return RECORD_EGAME;
		}
	}
	if (rp.entries > rp.whole) {
		if (bad_ply)
			*bad_ply = (int)rp.whole;
		return RECORD_EPARTIAL;
	}
	return RECORD_OK;
}
