/*
 * book.c - opening books (book.h): the file read line by line, each opening
 * played through its engine as it is read (parse_move for the canonical
 * text, then the replayer), duplicates found through a hash table of the
 * openings read so far.
 */
#include "games/book.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *book_strerror(int err)
{
	switch (err) {
	case BOOK_OK:
		return "ok";
	case BOOK_ESYNTAX:
		return "not an opening of this game";
	case BOOK_EILLEGAL:
		return "illegal opening";
	case BOOK_EGAME:
		return "bad game line";
	case BOOK_EOVER:
		return "the game is over after the opening";
	case BOOK_EDUP:
		return "the same opening twice";
	case BOOK_EEMPTY:
		return "no opening in the book";
	case BOOK_ENOMEM:
		return "out of memory";
	case BOOK_ELIMIT:
		return "book too large";
	}
	return "unknown error";
}

/* The reading of one book. */
struct reader {
	struct book *b;
	struct book_error *err;
	size_t cap;       /* entries of b->open */
	size_t *table;    /* hash table of openings: index + 1, 0 empty */
	size_t tsize;     /* a power of two, at least twice b->n */
	const char *kind; /* the game when the book names none */
	unsigned char *st;
	int line;
};

static int fail(struct reader *r, int code, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static int fail(struct reader *r, int code, const char *fmt, ...)
{
	va_list ap;
	int at = 0;
	r->err->code = code;
	r->err->line = r->line;
	if (r->line > 0)
		at = snprintf(r->err->msg, sizeof r->err->msg, "line %d: ", r->line);
	va_start(ap, fmt);
	vsnprintf(r->err->msg + at, sizeof r->err->msg - (size_t)at, fmt, ap);
	va_end(ap);
	return code;
}

static void opening_free(struct book_opening *o)
{
	free(o->name);
	free(o->position);
	if (o->nmoves > 0)
		free(o->moves[0]); /* the texts' one buffer */
	free(o->moves);
	free(o->plies);
}

void book_free(struct book *b)
{
	for (size_t i = 0; i < b->n; i++)
		opening_free(&b->open[i]);
	free(b->open);
	free(b->game);
	memset(b, 0, sizeof *b);
}

/* --- the game line ------------------------------------------------------------------- */

/* "tak size=5 komi=0": the game and its options into b. */
static int set_game(struct reader *r, const char *kind)
{
	struct book *b = r->b;
	char word[64];
	const char *s = kind;
	int len;
	if (sscanf(s, " %63s%n", word, &len) != 1)
		return fail(r, BOOK_EGAME, "no game named");
	if ((b->ops = game_find(word)) == NULL)
		return fail(r, BOOK_EGAME, "unknown game '%s'", word);
	game_params_default(b->ops, &b->params);
	for (s += len; sscanf(s, " %63s%n", word, &len) == 1; s += len) {
		const char *why = NULL;
		int k = game_param_word(b->ops, &b->params, word, &why);
		if (k == 0)
			return fail(r, BOOK_EGAME, "'%s' is no option of %s", word, b->ops->name);
		if (k < 0)
			return fail(r, BOOK_EGAME, "'%s': %s", word, why ? why : "bad option");
	}
	if ((r->st = malloc(b->ops->state_size)) == NULL)
		return fail(r, BOOK_ENOMEM, "out of memory");
	if (b->ops->init(r->st, &b->params, 0) != 0)
		return fail(r, BOOK_EGAME, "%s refuses these options", b->ops->name);
	if ((b->ops->flags & GAME_SIMULTANEOUS) && game_opt_index(b->ops, "seed") < 0)
		return fail(r, BOOK_EGAME, "%s has no seed to open with", b->ops->name);
	if ((b->game = strdup(kind)) == NULL)
		return fail(r, BOOK_ENOMEM, "out of memory");
	return BOOK_OK;
}

/* A [Tag "value"] line; the Game tag names the game. */
static int tag_line(struct reader *r, const char *s)
{
	char key[32], value[BOOK_LINE_MAX];
	int end = 0;
	if (sscanf(s, "[%31[A-Za-z0-9_] \"%4095[^\"]\"]%n", key, value, &end) != 2 || end == 0 ||
	    s[end] != '\0')
		return fail(r, BOOK_ESYNTAX, "a tag line is [Name \"value\"]");
	if (strcasecmp(key, "Game") != 0)
		return BOOK_OK;
	if (r->b->ops != NULL)
		return fail(r, BOOK_EGAME,
		            r->b->n ? "the [Game] line comes before the openings"
		                    : "a second [Game] line");
	return set_game(r, value);
}

/* --- openings ------------------------------------------------------------------------ */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t opening_hash(const struct book_opening *o)
{
	uint64_t h = 0xcbf29ce484222325ull;
	if (o->position)
		h = fnv(h, o->position, strlen(o->position) + 1);
	if (o->has_seed)
		h = fnv(h, &o->seed, sizeof o->seed);
	for (size_t i = 0; i < o->nmoves; i++)
		h = fnv(h, o->moves[i], strlen(o->moves[i]) + 1);
	return h;
}

static bool opening_same(const struct book_opening *a, const struct book_opening *b)
{
	if ((a->position == NULL) != (b->position == NULL) ||
	    (a->position && strcmp(a->position, b->position) != 0))
		return false;
	if (a->has_seed != b->has_seed || (a->has_seed && a->seed != b->seed))
		return false;
	if (a->nmoves != b->nmoves)
		return false;
	for (size_t i = 0; i < a->nmoves; i++)
		if (strcmp(a->moves[i], b->moves[i]) != 0)
			return false;
	return true;
}

/* Finds the slot of o in the table: the equal opening's or an empty one. */
static size_t *table_slot(struct reader *r, const struct book_opening *o)
{
	size_t mask = r->tsize - 1, i = (size_t)opening_hash(o) & mask;
	while (r->table[i] != 0 && !opening_same(&r->b->open[r->table[i] - 1], o))
		i = (i + 1) & mask;
	return &r->table[i];
}

/* Makes room for one more opening (array and table). */
static int grow(struct reader *r)
{
	struct book *b = r->b;
	if (b->n >= BOOK_MAX_OPEN)
		return fail(r, BOOK_ELIMIT, "more than %d openings", BOOK_MAX_OPEN);
	if (b->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct book_opening *open = realloc(b->open, cap * sizeof *open);
		if (open == NULL)
			return fail(r, BOOK_ENOMEM, "out of memory");
		b->open = open;
		r->cap = cap;
	}
	if (2 * (b->n + 1) > r->tsize) {
		size_t tsize = r->tsize ? 2 * r->tsize : 256;
		size_t *table = calloc(tsize, sizeof *table);
		if (table == NULL)
			return fail(r, BOOK_ENOMEM, "out of memory");
		free(r->table);
		r->table = table;
		r->tsize = tsize;
		for (size_t i = 0; i < b->n; i++)
			*table_slot(r, &b->open[i]) = i + 1;
	}
	return BOOK_OK;
}

/* A PTN move number ("1.", "12."): skipped. */
static bool move_number(const char *w)
{
	size_t n = strspn(w, "0123456789");
	return n > 0 && w[n] == '.' && w[n + 1] == '\0';
}

/* Plays the words of s (a move list) from the position in r->st into o. */
static int read_moves(struct reader *r, struct book_opening *o, char *s)
{
	const struct game_ops *ops = r->b->ops;
	char texts[BOOK_LINE_MAX], *save = NULL;
	size_t used = 0, n = 0, at[BOOK_MAX_PLIES]; /* the moves' offsets in texts */
	struct game_replay rp;
	game_replay_attach(&rp, ops, r->st);
	for (char *w = strtok_r(s, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (move_number(w))
			continue;
		if (n == BOOK_MAX_PLIES)
			return fail(r, BOOK_ELIMIT, "more than %d moves", BOOK_MAX_PLIES);
		const char *why = NULL;
		int seat = game_seat_to_move(ops, r->st);
		game_move m;
		if (seat < 0)
			return fail(r, BOOK_EOVER, "'%s': the game is over before it", w);
		int e = ops->parse_move(r->st, seat, w, &m, &why);
		if (e < 0)
			return fail(r, e == GAME_ESYNTAX ? BOOK_ESYNTAX : BOOK_EILLEGAL,
			            "move %zu '%s': %s", n + 1, w, why ? why : game_strerror(e));
		char *text = texts + used;
		int len = ops->format_move(r->st, m, text, sizeof texts - used);
		if (len < 0)
			return fail(r, BOOK_ELIMIT, "move %zu '%s': too long", n + 1, w);
		struct game_ply ply = {.seat = -1, .act = GAME_ACT_MOVE, .text = text};
		if ((e = game_replay_step(&rp, &ply, &why)) < 0) /* the canonical text replays */
			return fail(r, BOOK_EILLEGAL, "move %zu '%s': %s", n + 1, w,
			            why ? why : game_strerror(e));
		at[n++] = used;
		used += (size_t)len + 1;
	}
	if (n == 0)
		return BOOK_OK;
	/* one buffer for the texts, pointed into by moves[] and plies[] */
	char *buf = malloc(used);
	o->moves = calloc(n, sizeof *o->moves);
	o->plies = calloc(n, sizeof *o->plies);
	if (buf == NULL || o->moves == NULL || o->plies == NULL) {
		free(buf);
		return fail(r, BOOK_ENOMEM, "out of memory");
	}
	memcpy(buf, texts, used);
	for (size_t i = 0; i < n; i++) {
		o->moves[i] = buf + at[i];
		o->plies[i] =
		        (struct game_ply){.seat = -1, .act = GAME_ACT_MOVE, .text = o->moves[i]};
	}
	o->nmoves = n;
	return BOOK_OK;
}

/* A seed line: one Java long. */
static int read_seed(struct reader *r, struct book_opening *o, const char *s)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end != '\0' || errno != 0)
		return fail(r, BOOK_ESYNTAX, "'%s': a %s opening is one seed, a whole number", s,
		            r->b->ops->name);
	o->has_seed = true;
	o->seed = v;
	return BOOK_OK;
}

/* The opening s (trimmed, its name apart) into a new entry of the book. */
static int opening_line(struct reader *r, char *s, const char *name)
{
	struct book *b = r->b;
	int e = BOOK_OK;
	if (b->ops == NULL && r->kind == NULL)
		return fail(r, BOOK_EGAME, "an opening before the [Game \"...\"] line");
	if (b->ops == NULL && (e = set_game(r, r->kind)) < 0)
		return e;
	if ((e = grow(r)) < 0)
		return e;
	if (e < 0)
		return e;
	struct book_opening *o = &b->open[b->n];
	memset(o, 0, sizeof *o);
	o->line = r->line;
	if (name != NULL && (o->name = strdup(name)) == NULL)
		return fail(r, BOOK_ENOMEM, "out of memory");
	if (b->ops->flags & GAME_SIMULTANEOUS) {
		e = read_seed(r, o, s);
	} else if (strchr(s, '/') != NULL) {
		if (b->ops->load == NULL)
			e = fail(r, BOOK_ESYNTAX, "%s has no position text", b->ops->name);
		else if ((o->position = strdup(s)) == NULL)
			e = fail(r, BOOK_ENOMEM, "out of memory");
		else if (b->ops->load(r->st, &b->params, s) < 0)
			e = fail(r, BOOK_EILLEGAL, "'%s': not a position of %s", s, b->game);
	} else {
		if (b->ops->init(r->st, &b->params, 0) != 0)
			e = fail(r, BOOK_EGAME, "%s refuses these options", b->ops->name);
		else
			e = read_moves(r, o, s);
	}
	if (e == BOOK_OK && o->has_seed && book_start(b, b->n, 0, r->st) < 0)
		e = fail(r, BOOK_EILLEGAL, "seed %lld: refused by %s", (long long)o->seed,
		         b->ops->name);
	if (e == BOOK_OK && b->ops->to_move(r->st) == 0)
		e = fail(r, BOOK_EOVER, "the game is over after this opening");
	size_t *slot = e == BOOK_OK ? table_slot(r, o) : NULL;
	if (slot != NULL && *slot != 0)
		e = fail(r, BOOK_EDUP, "the same opening as line %d", b->open[*slot - 1].line);
	if (e < 0) {
		opening_free(o);
		return e;
	}
	*slot = ++b->n;
	return BOOK_OK;
}

/* Trims the blanks at both ends of s in place. */
static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

static int read_line(struct reader *r, char *line)
{
	char *hash = strchr(line, '#');
	const char *name = NULL;
	if (hash != NULL) {
		*hash = '\0';
		name = trim(hash + 1);
		if (*name == '\0')
			name = NULL;
	}
	char *s = trim(line);
	if (*s == '\0')
		return BOOK_OK;
	if (*s == '[')
		return tag_line(r, s);
	for (char *c = s; *c; c++)
		if (*c == '\t')
			*c = ' ';
	return opening_line(r, s, name);
}

int book_parse(const char *text, size_t len, const char *kind, struct book *out,
               struct book_error *err)
{
	struct reader r = {.b = out, .err = err, .kind = kind};
	char line[BOOK_LINE_MAX];
	int e = BOOK_OK;
	memset(out, 0, sizeof *out);
	memset(err, 0, sizeof *err);
	for (size_t at = 0; at < len && e == BOOK_OK;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = (nl ? (size_t)(nl - text) : len) - at;
		r.line++;
		if (n >= sizeof line)
			e = fail(&r, BOOK_ESYNTAX, "longer than %d bytes", BOOK_LINE_MAX - 1);
		else if (memchr(text + at, '\0', n) != NULL)
			e = fail(&r, BOOK_ESYNTAX, "a NUL byte");
		else {
			memcpy(line, text + at, n);
			line[n] = '\0';
			e = read_line(&r, line);
		}
		at += n + 1;
	}
	r.line = 0;
	if (e == BOOK_OK && out->n == 0)
		e = fail(&r, BOOK_EEMPTY, "no opening in the book");
	free(r.table);
	free(r.st);
	if (e < 0)
		book_free(out);
	return e;
}

int book_start(const struct book *b, size_t i, uint64_t seed, void *st)
{
	const struct book_opening *o = &b->open[i];
	const struct game_ops *ops = b->ops;
	struct game_params p = b->params;
	struct game_replay rp;
	if (o->has_seed) {
		int k = game_opt_index(ops, "seed");
		if (k < 0)
			return GAME_EOPT;
		p.v[k] = o->seed;
		p.set[k] = true;
	}
	if (o->position != NULL) {
		int e = ops->load(st, &p, o->position);
		if (e < 0)
			return e;
		game_replay_attach(&rp, ops, st);
	} else if (game_replay_start(&rp, ops, st, &p, seed) < 0) {
		return GAME_EOPT;
	}
	for (size_t k = 0; k < o->nmoves; k++) {
		int e = game_replay_step(&rp, &o->plies[k], NULL);
		if (e < 0)
			return e;
	}
	return GAME_OK;
}
