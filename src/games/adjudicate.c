/*
 * adjudicate.c - max_plies and the repetition rule of engine matches
 * (adjudicate.h): each position's text hashed (FNV-1a, 64 bits) and
 * counted among the hashes of the positions before it.
 */
#include "games/adjudicate.h"

#include <stdlib.h>
#include <string.h>

#define REPETITION_MAX 1000

const char *adjudication_reason(enum adjudication a)
{
	switch (a) {
	case ADJ_MAX_PLIES:
		return "max_plies";
	case ADJ_REPETITION:
		return "repetition";
	case ADJ_NONE:
		break;
	}
	return NULL;
}

int adjudicator_init(struct adjudicator *a, const struct game_ops *ops, int max_plies,
                     int repetition)
{
	memset(a, 0, sizeof *a);
	if (max_plies < 0 || repetition < 0 || repetition == 1 || repetition > REPETITION_MAX)
		return GAME_EOPT;
	a->ops = ops;
	a->max_plies = max_plies;
	/* the rule needs a position text and one mover at a time */
	if (ops->save != NULL && !(ops->flags & GAME_SIMULTANEOUS))
		a->repetition = repetition;
	if (a->repetition > 0) {
		a->text_size = 4096;
		if ((a->text = malloc(a->text_size)) == NULL)
			return GAME_ENOSPACE;
	}
	return GAME_OK;
}

void adjudicator_free(struct adjudicator *a)
{
	free(a->keys);
	free(a->text);
	memset(a, 0, sizeof *a);
}

/* The position's text into a->text, without a move counter; its length or < 0. */
static int position_text(struct adjudicator *a, const void *st)
{
	int len;
	while ((len = a->ops->save(st, a->text, a->text_size)) == GAME_ENOSPACE &&
	       a->text_size < (1u << 20)) {
		char *t = realloc(a->text, 2 * a->text_size);
		if (t == NULL)
			return GAME_ENOSPACE;
		a->text = t;
		a->text_size *= 2;
	}
	if (len < 0)
		return len;
	if (strcmp(a->ops->name, "tak") == 0) { /* TPS "board turn move": the number goes */
		char *sp = strrchr(a->text, ' ');
		if (sp != NULL)
			len = (int)(sp - a->text);
	}
	return len;
}

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

int adjudicator_position(struct adjudicator *a, const void *st, int ply)
{
	a->last_count = 1;
	if (a->repetition > 0) {
		int len = position_text(a, st);
		if (len < 0)
			return len;
		uint64_t key = fnv1a(a->text, (size_t)len);
		for (size_t i = 0; i < a->n; i++)
			a->last_count += a->keys[i] == key;
		if (a->n == a->cap) {
			size_t cap = a->cap ? 2 * a->cap : 64;
			uint64_t *k = realloc(a->keys, cap * sizeof *k);
			if (k == NULL)
				return GAME_ENOSPACE;
			a->keys = k;
			a->cap = cap;
		}
		a->keys[a->n++] = key;
	}
	if (a->max_plies > 0 && ply >= a->max_plies)
		return ADJ_MAX_PLIES;
	if (a->repetition > 0 && a->last_count >= a->repetition)
		return ADJ_REPETITION;
	return ADJ_NONE;
}

int adjudicate_moves(const struct game_ops *ops, const struct game_params *p, uint64_t seed,
                     const struct game_ply *list, size_t n, int max_plies, int repetition, void *st,
                     struct adjudication_stop *stop)
{
	struct adjudicator a;
	struct game_replay rp;
	memset(stop, 0, sizeof *stop);
	memset(&rp, 0, sizeof rp);
	int e = adjudicator_init(&a, ops, max_plies, repetition);
	if (e == GAME_OK && (e = game_replay_start(&rp, ops, st, p, seed)) == GAME_OK)
		e = adjudicator_position(&a, st, 0);
	for (size_t i = 0; i < n && e == ADJ_NONE; i++) {
		int r = game_replay_step(&rp, &list[i], &stop->replay.why);
		if (r < 0) {
			stop->replay.err = e = r;
			break;
		}
		if (r == GAME_REPLAY_MADE)
			e = adjudicator_position(&a, st, rp.ply);
	}
	stop->replay.at = rp.entries; /* the refused entry, or the entries taken */
	stop->replay.whole = rp.whole;
	stop->replay.ply = stop->ply = rp.ply;
	stop->count = a.last_count;
	adjudicator_free(&a);
	if (e < 0)
		return e;
	stop->verdict = e;
	return GAME_OK;
}
