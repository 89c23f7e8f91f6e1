/*
 * search.c - negamax with alpha-beta pruning and iterative deepening over the
 * game vtable, by copy-make. Scratch space (moves and a child state per ply)
 * is allocated once per call.
 */
#include "games/search.h"

#include <stdlib.h>
#include <string.h>

struct search_ctx {
	const struct game_ops *ops;
	unsigned char *scratch;
	size_t per_ply;
	uint64_t nodes, max_nodes;
	bool out_of_nodes; /* out of nodes or of time, or stopped: the depth is discarded */
	const struct search_limits *lim;
	long long until; /* now_ms() past which the search stops (hard_ms; 0: no cap) */
};

/* The time cap and the caller's poll, every 1024 nodes. */
static bool stopped(const struct search_ctx *c)
{
	const struct search_limits *l = c->lim;
	if ((c->nodes & 1023) != 0)
		return false;
	if (c->until != 0 && l->now_ms() >= c->until)
		return true;
	return l->poll != NULL && l->poll(l->arg);
}

/* Score of a finished game for the seat `me`, preferring quick wins and slow losses. */
static int terminal_score(const struct game_ops *ops, const void *st, int me, int ply)
{
	struct game_result r;
	ops->result(st, &r);
	if (r.winner < 0)
		return 0;
	return r.winner == me ? SEARCH_WIN - ply : -(SEARCH_WIN - ply);
}

static int negamax(struct search_ctx *c, const void *st, int me, int depth, int ply, int alpha,
                   int beta)
{
	const struct game_ops *ops = c->ops;
	c->nodes++;
	if ((c->max_nodes && c->nodes > c->max_nodes) || stopped(c)) {
		c->out_of_nodes = true;
		return 0;
	}
	if (ops->to_move(st) == 0)
		return terminal_score(ops, st, me, ply);
	if (depth == 0)
		return ops->evaluate ? ops->evaluate(st) : 0;
	unsigned char *mine = c->scratch + (size_t)ply * c->per_ply;
	game_move *moves = (game_move *)mine;
	unsigned char *child = mine + ops->max_moves * sizeof *moves;
	int n = ops->legal_moves(st, moves, ops->max_moves);
	if (n <= 0)
		return 0;
	int best = -SEARCH_WIN - 1;
	for (int i = 0; i < n && !c->out_of_nodes; i++) {
		memcpy(child, st, ops->state_size);
		ops->apply(child, moves[i]);
		int v = -negamax(c, child, !me, depth - 1, ply + 1, -beta, -alpha);
		if (v > best)
			best = v;
		if (v > alpha)
			alpha = v;
		if (alpha >= beta)
			break;
	}
	return best;
}

/* One root iteration: scores every move with a full window, so ties can be told apart. */
static int search_root(struct search_ctx *c, const void *st, int me, int depth, game_move *moves,
                       int n, int *scores)
{
	const struct game_ops *ops = c->ops;
	unsigned char *child = c->scratch + c->per_ply - ops->state_size;
	int best = -SEARCH_WIN - 1;
	for (int i = 0; i < n; i++) {
		memcpy(child, st, ops->state_size);
		ops->apply(child, moves[i]);
		/* window just below best keeps equal-best moves exact */
		scores[i] = -negamax(c, child, !me, depth - 1, 1, -SEARCH_WIN - 1,
		                     -(best > -SEARCH_WIN ? best - 1 : -SEARCH_WIN - 1));
		if (c->out_of_nodes)
			return 0;
		if (scores[i] > best)
			best = scores[i];
	}
	return best;
}

int search_best(const struct game_ops *ops, const void *st, const struct search_limits *lim,
                struct rng *rng, struct search_result *out)
{
	if (ops->to_move(st) == 0 || ops->apply == NULL)
		return GAME_EOVER;
	struct search_ctx c = {.ops = ops, .max_nodes = lim->max_nodes, .lim = lim};
	if (lim->hard_ms > 0 && lim->now_ms != NULL)
		c.until = lim->now_ms() + lim->hard_ms;
	int max_depth = lim->max_depth > 0 ? lim->max_depth : 1;
	c.per_ply = ops->max_moves * sizeof(game_move) + ops->state_size;
	c.per_ply = (c.per_ply + 15) & ~(size_t)15;
	c.scratch = malloc(c.per_ply * (size_t)(max_depth + 1));
	game_move *moves = malloc(ops->max_moves * sizeof *moves);
	int *scores = malloc(ops->max_moves * sizeof *scores);
	int rc = GAME_OK;
	if (c.scratch == NULL || moves == NULL || scores == NULL) {
		rc = GAME_ENOSPACE;
		goto out;
	}
	int n = ops->legal_moves(st, moves, ops->max_moves);
	if (n <= 0) {
		rc = n < 0 ? n : GAME_EOVER;
		goto out;
	}
	int me = game_seat_to_move(ops, st);
	memset(out, 0, sizeof *out);
	out->best = moves[0];
	/* The root uses the last ply's slot for its child; plies below start at slot 1. */
	for (int depth = 1; depth <= max_depth; depth++) {
		int best = search_root(&c, st, me, depth, moves, n, scores);
		if (c.out_of_nodes)
			break;
		int ties = 0, pick = 0;
		for (int i = 0; i < n; i++)
			if (scores[i] == best &&
			    (ties++ == 0 || (rng && rng_below(rng, (uint32_t)ties) == 0)))
				pick = i;
		out->best = moves[pick];
		out->score = best;
		out->depth = depth;
		if (best >= SEARCH_WIN - depth || best <= -(SEARCH_WIN - depth))
			break; /* the result is proven */
	}
	out->nodes = c.nodes;
out:
	free(c.scratch);
	free(moves);
	free(scores);
	return rc;
}
