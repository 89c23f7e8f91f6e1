/*
 * house_level.c - the house bots' eight levels per kind and one turn's move
 * (house_level.h). How each level is set, weakest first (PROTOCOL.md §17
 * prints the same table):
 *
 *   level  ttt/mnk: depth nodes cap ms noise | Tak: depth nodes  cap ms noise | Xmas: noise
 *   1      1        -      -      100%       | 1     -      -      100%       | 100%
 *   2      1        -      -       60%       | 1     -      -       50%       |  80%
 *   3      2        -      -       40%       | 2     -      -       30%       |  60%
 *   4      3        -      -       25%       | 3     5k     -       15%       |  45%
 *   5      4        20k    -       10%       | -     20k    1000     5%       |  30%
 *   6      6        100k   -        5%       | -     100k   2000     0        |  15%
 *   7      8        500k   3000     0        | -     400k   3000     0        |   5%
 *   8      all      2M     5000     0        | -     1.5M   5000     0        |   0
 *
 * Noise is a uniformly random legal move (Xmas Rush: a random push, or a random
 * walk among the seat's actions) in that share of turns, drawn from the turn's
 * seed. The generic search (m,n,k) discards a depth that runs out of nodes,
 * so a node limit caps the depth on big boards; level 8 on 3x3 is perfect
 * play; its time cap discards the depth it cuts the same way (a 5x5 board at
 * level 8 took up to 9 s a move without it). Tak's node and time limits stop
 * the search keeping its best move so far; in a timed game the time cap is
 * also kept under the seat's clock
 * (tak_search_budget). Measured level against level: bench/house_levels.c,
 * README.
 */
#include "server/house/house_level.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "games/mnk/mnk.h"
#include "games/search.h"
#include "games/tak/tak.h"
#include "games/tak/tak_search.h"
#include "games/xmas/xmas.h"

static const struct house_level mnk_levels[HOUSE_LEVELS] = {
        {1, 0, 0, 100},    {1, 0, 0, 60},     {2, 0, 0, 40},        {3, 0, 0, 25},
        {4, 20000, 0, 10}, {6, 100000, 0, 5}, {8, 500000, 3000, 0}, {0, 2000000, 5000, 0},
};

static const struct house_level tak_levels[HOUSE_LEVELS] = {
        {1, 0, 0, 100},      {1, 0, 0, 50},        {2, 0, 0, 30},        {3, 5000, 0, 15},
        {0, 20000, 1000, 5}, {0, 100000, 2000, 0}, {0, 400000, 3000, 0}, {0, 1500000, 5000, 0},
};

static const struct house_level xmas_levels[HOUSE_LEVELS] = {
        {0, 0, 0, 100}, {0, 0, 0, 80}, {0, 0, 0, 60}, {0, 0, 0, 45},
        {0, 0, 0, 30},  {0, 0, 0, 15}, {0, 0, 0, 5},  {0, 0, 0, 0},
};

const struct house_level *house_level_of(const struct game_ops *ops, int level)
{
	if (level < 1 || level > HOUSE_LEVELS || ops == NULL)
		return NULL;
	if (ops == &game_ttt || ops == &game_mnk)
		return &mnk_levels[level - 1];
	if (ops == &game_tak)
		return &tak_levels[level - 1];
	if (ops == &game_xmas)
		return &xmas_levels[level - 1];
	return NULL;
}

/* The searches' poll: the loop's cancel flag. */
static bool cancelled(void *arg)
{
	return atomic_load((const atomic_bool *)arg);
}

static int tak_think(const struct house_turn *t, const struct house_level *lv,
                     const struct tak_state *st, game_move *m)
{
	struct tak_search *ts = tak_search_new(lv->nodes > 100000 ? 8 : 1);
	if (ts == NULL)
		return GAME_ENOSPACE;
	struct tak_search_limits lim = {.depth = lv->depth,
	                                .nodes = lv->nodes,
	                                .hard_ms = lv->ms,
	                                .soft_ms = lv->ms / 2,
	                                .now_ms = t->now_ms,
	                                .poll = cancelled,
	                                .arg = (void *)t->cancel,
	                                .seed = t->seed};
	if (t->left_ms > 0 && lv->ms > 0) { /* never past what the clock allows */
		long long soft, hard;
		tak_search_budget(st, t->left_ms, t->inc_ms, &soft, &hard);
		if (hard < lim.hard_ms)
			lim.hard_ms = hard;
		if (soft < lim.soft_ms)
			lim.soft_ms = soft;
	}
	struct tak_search_result r;
	int rc = tak_search_best(ts, st, &lim, &r);
	tak_search_free(ts);
	*m = r.best;
	return rc;
}

static int mnk_think(const struct house_turn *t, const struct house_level *lv, const void *st,
                     struct rng *rng, game_move *m)
{
	const struct game_ops *ops = t->ops;
	game_move *moves = malloc(ops->max_moves * sizeof *moves);
	if (moves == NULL)
		return GAME_ENOSPACE;
	int n = ops->legal_moves(st, moves, ops->max_moves);
	free(moves);
	if (n <= 0)
		return n < 0 ? n : GAME_EOVER;
	/* every move fills a cell: the game lasts at most n plies more */
	struct search_limits lim = {.max_depth = lv->depth > 0 && lv->depth < n ? lv->depth : n,
	                            .max_nodes = lv->nodes,
	                            .hard_ms = lv->ms,
	                            .now_ms = t->now_ms,
	                            .poll = cancelled,
	                            .arg = (void *)t->cancel};
	if (t->left_ms > 0 && lv->ms > 0 && t->left_ms / 20 < lim.hard_ms)
		lim.hard_ms = t->left_ms / 20 > 0 ? t->left_ms / 20 : 1; /* never past the clock */
	struct search_result r;
	int rc = search_best(ops, st, &lim, rng, &r);
	*m = r.best;
	return rc;
}

/* A uniformly random action of seat: its legal moves, or a simultaneous game's seat_moves. */
static int random_move(const struct game_ops *ops, const void *st, int seat, struct rng *rng,
                       game_move *m)
{
	game_move *moves = malloc(ops->max_moves * sizeof *moves);
	if (moves == NULL)
		return GAME_ENOSPACE;
	int n = ops->seat_moves != NULL ? ops->seat_moves(st, seat, moves, ops->max_moves)
	                                : ops->legal_moves(st, moves, ops->max_moves);
	if (n > 0)
		*m = moves[rng_below(rng, (uint32_t)n)];
	free(moves);
	return n > 0 ? GAME_OK : n < 0 ? n : GAME_EOVER;
}

/* The Xmas Rush player on the seat's contest input. */
static int xmas_think(const struct house_turn *t, const void *st, struct house_memory *mem,
                      char *out, size_t len)
{
	char in[XMAS_INPUT_MAX];
	struct xmas_view v;
	if (xmas_input(st, t->seat, in, sizeof in) < 0 || xmas_view_parse(&v, in) < 0)
		return GAME_EPOSITION;
	return xmas_bot_play(&v, &mem->xmas, t->seed, out, len);
}

int house_think(const struct house_turn *t, const void *st, struct house_memory *mem, char *out,
                size_t len)
{
	const struct game_ops *ops = t->ops;
	const struct house_level *lv = house_level_of(ops, t->level);
	if (lv == NULL)
		return GAME_EOPT;
	unsigned to_move = ops->to_move(st);
	if (to_move == 0)
		return GAME_EOVER;
	if (!(to_move & (1u << t->seat)))
		return GAME_ETURN;
	struct rng rng;
	rng_seed(&rng, t->seed);
	game_move m = 0;
	int rc;
	if ((int)rng_below(&rng, 100) < lv->noise)
		rc = random_move(ops, st, t->seat, &rng, &m);
	else if (ops == &game_xmas)
		return xmas_think(t, st, mem, out, len);
	else if (ops == &game_tak)
		rc = tak_think(t, lv, st, &m);
	else
		rc = mnk_think(t, lv, st, &rng, &m);
	if (rc < 0)
		return rc;
	return ops->format_move(st, m, out, len);
}
