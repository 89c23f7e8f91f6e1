/*
 * store_rows.c - the store's rows as plain values (store.h): a status's name,
 * the default rating, freeing a game's moves, a list of games and a list of
 * tournaments, growing a
 * list of games. Shared by the interface (store.c) and every back end
 * (store_backend.h), and calling neither, so a back end never calls back up
 * into the interface that calls it.
 */
#include "server/store/store.h"

#include <stdlib.h>

#include "server/store/store_backend.h"

const char *store_status_name(enum store_status st)
{
	switch (st) {
	case STORE_IN_PROGRESS:
		return "in_progress";
	case STORE_FINISHED:
		return "finished";
	case STORE_ABORTED:
		return "aborted";
	}
	return "in_progress";
}

void store_rating_default(struct store_rating *r)
{
	r->rating = 1500.0;
	r->rd = 350.0;
	r->volatility = 0.06;
	r->games = 0;
	r->updated = 0;
}

void store_game_clear(struct store_game *g)
{
	if (!g)
		return;
	free(g->moves);
	g->moves = NULL;
}

void store_games_free(struct store_game *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		store_game_clear(&v[i]);
	free(v);
}

int store_games_push(struct store_game **v, size_t *len, size_t *cap, const struct store_game *g)
{
	if (*len == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		struct store_game *nv = realloc(*v, ncap * sizeof(*nv));
		if (!nv)
			return STORE_ENOMEM;
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*len)++] = *g;
	return STORE_OK;
}

void store_tourneys_free(struct store_tourney *v, size_t n)
{
	for (size_t i = 0; v != NULL && i < n; i++)
		free(v[i].doc);
	free(v);
}

int store_mod_push(struct store_mod **v, size_t *len, size_t *cap, const struct store_mod *m)
{
	if (*len == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		struct store_mod *nv = realloc(*v, ncap * sizeof(*nv));
		if (!nv)
			return STORE_ENOMEM;
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*len)++] = *m;
	return STORE_OK;
}
