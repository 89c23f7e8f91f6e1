/*
 * game_replay.c - the move-list replayer of game_replay.h: one entry at a
 * time through the engine's parse_move, then apply (sequential) or, once a
 * simultaneous turn has every seat's act, resolve.
 */
#include "games/game_replay.h"

#include <string.h>

enum game_act game_act_of_text(const char *text)
{
	if (text[0] == '\0')
		return GAME_ACT_NONE;
	return strcmp(text, GAME_ACT_TEXT_INVALID) == 0 ? GAME_ACT_INVALID : GAME_ACT_MOVE;
}

const char *game_act_text(enum game_act act, const char *text)
{
	switch (act) {
	case GAME_ACT_MOVE:
		return text;
	case GAME_ACT_INVALID:
		return GAME_ACT_TEXT_INVALID;
	case GAME_ACT_NONE:
		break;
	}
	return GAME_ACT_TEXT_NONE;
}

void game_replay_attach(struct game_replay *rp, const struct game_ops *ops, void *st)
{
	memset(rp, 0, sizeof *rp);
	rp->ops = ops;
	rp->st = st; /* acts all GAME_ACT_NONE (0) */
}

int game_replay_start(struct game_replay *rp, const struct game_ops *ops, void *st,
                      const struct game_params *p, uint64_t seed)
{
	game_replay_attach(rp, ops, st);
	return ops->init(st, p, seed) == 0 ? GAME_OK : GAME_EOPT;
}

/* A sequential ply: parse for the seat to move, apply. */
static int step_ply(struct game_replay *rp, const struct game_ply *e, const char **why)
{
	const struct game_ops *ops = rp->ops;
	int seat = game_seat_to_move(ops, rp->st);
	if (e->seat >= 0 && e->seat != seat)
		return GAME_ETURN;
	if (e->act != GAME_ACT_MOVE)
		return GAME_ESYNTAX;
	game_move m;
	int r = ops->parse_move(rp->st, seat, e->text, &m, why);
	if (r < 0 || (r = ops->apply(rp->st, m)) < 0)
		return r;
	rp->entries++;
	rp->whole = rp->entries;
	rp->ply++;
	return GAME_REPLAY_MADE;
}

/* One seat's act of a simultaneous turn; the turn resolves with the last seat's. */
static int step_turn(struct game_replay *rp, const struct game_ply *e, const char **why)
{
	const struct game_ops *ops = rp->ops;
	unsigned open = ops->to_move(rp->st) & ~rp->acted;
	int seat = e->seat;
	if (seat < 0)
		seat = __builtin_ctz(open);
	if (seat >= ops->nplayers || !(open & (1u << seat)))
		return GAME_ETURN;
	game_move m = 0;
	if (e->act == GAME_ACT_MOVE) {
		int r = ops->parse_move(rp->st, seat, e->text, &m, why);
		if (r < 0)
			return r;
	}
	if ((open & ~(1u << seat)) == 0) { /* the last seat of the turn */
		game_move moves[GAME_MAX_PLAYERS];
		enum game_act acts[GAME_MAX_PLAYERS];
		memcpy(moves, rp->moves, sizeof moves);
		memcpy(acts, rp->acts, sizeof acts);
		moves[seat] = m;
		acts[seat] = e->act;
		int r = ops->resolve(rp->st, moves, acts);
		if (r < 0)
			return r;
		rp->entries++;
		rp->whole = rp->entries;
		rp->ply++;
		game_replay_drop_open_turn(rp);
		return GAME_REPLAY_MADE;
	}
	rp->moves[seat] = m;
	rp->acts[seat] = e->act;
	rp->acted |= 1u << seat;
	rp->entries++;
	return GAME_REPLAY_PENDING;
}

int game_replay_step(struct game_replay *rp, const struct game_ply *e, const char **why)
{
	if (why != NULL)
		*why = NULL;
	if (rp->ops->to_move(rp->st) == 0)
		return GAME_EOVER;
	if (rp->ops->flags & GAME_SIMULTANEOUS)
		return step_turn(rp, e, why);
	return step_ply(rp, e, why);
}

size_t game_replay_drop_open_turn(struct game_replay *rp)
{
	size_t n = rp->entries - rp->whole;
	rp->entries = rp->whole;
	rp->acted = 0;
	memset(rp->moves, 0, sizeof rp->moves);
	memset(rp->acts, 0, sizeof rp->acts); /* GAME_ACT_NONE */
	return n;
}

int game_replay_moves(const struct game_ops *ops, const struct game_params *p, uint64_t seed,
                      const struct game_ply *list, size_t n, void *st,
                      struct game_replay_stop *stop)
{
	struct game_replay rp;
	memset(stop, 0, sizeof *stop);
	stop->err = game_replay_start(&rp, ops, st, p, seed);
	for (size_t i = 0; i < n && stop->err == GAME_OK; i++) {
		int r = game_replay_step(&rp, &list[i], &stop->why);
		if (r < 0)
			stop->err = r;
	}
	if (stop->err == GAME_OK && rp.entries > rp.whole)
		stop->err = GAME_EPARTIAL;
	stop->at = stop->err == GAME_OK || stop->err == GAME_EPARTIAL ? n : rp.entries;
	stop->whole = rp.whole;
	stop->ply = rp.ply;
	return stop->err;
}
