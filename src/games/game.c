/*
 * game.c - what every engine shares: option parsing, error strings, scores,
 * the engines' bounded text buffer and perft by copy-make through the vtable.
 * Below the engines (they call it); it calls none of them, nor the table of
 * games (games.c) above them.
 */
#include "games/game.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *game_strerror(int err)
{
	switch (err) {
	case GAME_OK:
		return "ok";
	case GAME_ESYNTAX:
		return "not a move of this game";
	case GAME_EILLEGAL:
		return "illegal move";
	case GAME_EOVER:
		return "the game is over";
	case GAME_ETURN:
		return "not your turn";
	case GAME_EOPT:
		return "bad game options";
	case GAME_ENOSPACE:
		return "buffer too small";
	case GAME_EPOSITION:
		return "bad position";
	case GAME_EPARTIAL:
		return "the moves end inside a simultaneous turn";
	case GAME_EPHASE:
		return "not that kind of action in this turn";
	default:
		return "unknown error";
	}
}

void game_opts_default(const struct game_optdef *opts, int nopts, struct game_params *p)
{
	memset(p, 0, sizeof *p);
	for (int i = 0; i < nopts && i < GAME_MAX_OPTS; i++)
		p->v[i] = opts[i].def;
}

void game_params_default(const struct game_ops *ops, struct game_params *p)
{
	game_opts_default(ops->opts, ops->nopts, p);
}

long game_options_value(const char *options, const char *name, long def)
{
	size_t n = strlen(name);
	for (const char *p = options; *p;) {
		while (*p == ' ')
			p++;
		if (strncmp(p, name, n) == 0 && p[n] == '=')
			return strtol(p + n + 1, NULL, 10);
		while (*p && *p != ' ')
			p++;
	}
	return def;
}

int game_opt_index(const struct game_ops *ops, const char *name)
{
	for (int i = 0; i < ops->nopts; i++)
		if (strcasecmp(ops->opts[i].name, name) == 0)
			return i;
	return -1;
}

bool game_param_random(const struct game_ops *ops, const struct game_params *p, int i)
{
	return (ops->opts[i].flags & GAME_OPT_RANDOM) && !p->set[i];
}

const char *game_seed_text(uint64_t seed, char *buf)
{
	snprintf(buf, GAME_SEED_TEXT, "%" PRId64, (int64_t)seed);
	return buf;
}

bool game_seed_parse(const char *text, uint64_t *seed)
{
	const char *p = text[0] == '-' ? text + 1 : text;
	if (*p < '0' || *p > '9')
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(p, &end, 10);
	if (*end != '\0' || errno != 0 || (text[0] == '-' && v > (1ULL << 63)))
		return false;
	*seed = text[0] == '-' ? 0 - (uint64_t)v : (uint64_t)v;
	return true;
}

int game_ply_count(const struct game_ops *ops, int nmoves)
{
	if (ops != NULL && (ops->flags & GAME_SIMULTANEOUS) && ops->nplayers > 0)
		return nmoves / ops->nplayers;
	return nmoves;
}

const char *game_opt_word(const struct game_optdef *d, int64_t v)
{
	if (d->words == NULL || v < d->min)
		return NULL;
	for (int64_t k = d->min; d->words[k - d->min] != NULL; k++)
		if (k == v)
			return d->words[k - d->min];
	return NULL;
}

int game_param_word(const struct game_ops *ops, struct game_params *p, const char *word,
                    const char **why)
{
	const char *eq = strchr(word, '=');
	if (eq == NULL || eq == word) {
		if (why)
			*why = "options are written name=value";
		return GAME_EOPT;
	}
	char name[32];
	size_t nlen = (size_t)(eq - word);
	if (nlen >= sizeof name)
		return 0;
	memcpy(name, word, nlen);
	name[nlen] = '\0';
	int i = game_opt_index(ops, name);
	if (i < 0)
		return 0;
	const char *val = eq + 1;
	if ((ops->opts[i].flags & GAME_OPT_RANDOM) && strcasecmp(val, GAME_OPT_RANDOM_WORD) == 0) {
		p->v[i] = ops->opts[i].def; /* as if not given: the game's seed decides */
		p->set[i] = false;
		return 1;
	}
	if (ops->opts[i].words != NULL) { /* a word, never a number */
		for (int64_t k = ops->opts[i].min; k <= ops->opts[i].max; k++) {
			const char *w = game_opt_word(&ops->opts[i], k);
			if (w != NULL && strcasecmp(val, w) == 0) {
				p->v[i] = k;
				p->set[i] = true;
				return 1;
			}
		}
		if (why)
			*why = "not one of the option's words (see 'games')";
		return GAME_EOPT;
	}
	char *end;
	errno = 0;
	long long v = strtoll(val, &end, 10);
	if (*val == '\0' || *end != '\0' || errno != 0) {
		if (why)
			*why = "option values are whole numbers";
		return GAME_EOPT;
	}
	if (v < ops->opts[i].min || v > ops->opts[i].max) {
		if (why)
			*why = "option value out of range (see 'games')";
		return GAME_EOPT;
	}
	p->v[i] = v;
	p->set[i] = true;
	return 1;
}

const char *game_score_text(int winner)
{
	return winner == 0 ? "1-0" : winner == 1 ? "0-1" : "1/2-1/2";
}

double game_score_value(int winner, int seat)
{
	return winner < 0 ? 0.5 : winner == seat ? 1.0 : 0.0;
}

const char *game_result_score(const struct game_result *r)
{
	return r->score[0] != '\0' ? r->score : game_score_text(r->winner);
}

void game_text_init(struct game_text *t, char *buf, size_t len)
{
	t->buf = buf;
	t->len = len;
	t->at = 0;
	if (len > 0)
		buf[0] = '\0';
}

void game_text_put(struct game_text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bool room = t->at < t->len;
	int n = vsnprintf(room ? t->buf + t->at : NULL, room ? t->len - t->at : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->at += (size_t)n;
}

int game_text_end(const struct game_text *t)
{
	return t->at < t->len && t->at <= INT32_MAX ? (int)t->at : GAME_ENOSPACE;
}

int game_seat_to_move(const struct game_ops *ops, const void *st)
{
	unsigned m = ops->to_move(st);
	return m == 0 ? -1 : __builtin_ctz(m);
}

/* One scratch block per remaining ply, allocated once by game_perft_generic(). */
static uint64_t perft_rec(const struct game_ops *ops, const void *st, int depth,
                          unsigned char *scratch, size_t per_ply)
{
	if (depth == 0)
		return 1;
	if (ops->to_move(st) == 0)
		return 0;
	game_move *moves = (game_move *)scratch;
	unsigned char *child = scratch + ops->max_moves * sizeof *moves;
	int n = ops->legal_moves(st, moves, ops->max_moves);
	if (n <= 0)
		return 0;
	if (depth == 1)
		return (uint64_t)n;
	uint64_t total = 0;
	for (int i = 0; i < n; i++) {
		memcpy(child, st, ops->state_size);
		ops->apply(child, moves[i]);
		total += perft_rec(ops, child, depth - 1, scratch + per_ply, per_ply);
	}
	return total;
}

uint64_t game_perft_generic(const struct game_ops *ops, const void *st, int depth)
{
	if (depth <= 0)
		return 1;
	size_t per_ply = ops->max_moves * sizeof(game_move) + ops->state_size;
	per_ply = (per_ply + 15) & ~(size_t)15;
	unsigned char *scratch = malloc(per_ply * (size_t)depth);
	if (scratch == NULL)
		return 0;
	uint64_t n = perft_rec(ops, st, depth, scratch, per_ply);
	free(scratch);
	return n;
}

uint64_t game_perft(const struct game_ops *ops, const void *st, int depth)
{
	if (ops->perft != NULL)
		return ops->perft(st, depth);
	return game_perft_generic(ops, st, depth);
}
