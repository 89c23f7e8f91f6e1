/*
 * mnk.c - the rules of m,n,k games (tic-tac-toe is 3,3,3): two players
 * alternately place a stone on an empty cell of an m-column by n-row board;
 * k in a row (orthogonally or diagonally) wins; a full board without one is a
 * draw. Options and set-up, move generation, moves, results and the search's
 * evaluation, as game_ops entries (mnk.h). The tables game_ttt and game_mnk are
 * mnk_ops.c; the notation is mnk_notation.c; the state is mnk.h.
 *
 * A line is found by the core's k-1 shift-ands per direction, tested only
 * for the side that just moved.
 */
#include "games/mnk/mnk.h"

#include <stdio.h>
#include <string.h>

const struct game_optdef mnk_opts[MNK_NOPTS] = {
        {"m", 3, 3, 8, "columns", GAME_OPT_SHOWN},
        {"n", 3, 3, 8, "rows", GAME_OPT_SHOWN},
        {"k", 3, 3, 8, "stones in a row to win (at most max(m, n))", GAME_OPT_SHOWN},
};

int mnk_setup(struct mnk_state *s, int m, int n, int k)
{
	if (m < 3 || m > 8 || n < 3 || n > 8 || k < 3 || k > (m > n ? m : n))
		return GAME_EOPT;
	memset(s, 0, sizeof *s);
	bb_geom_init(&s->g, m, n);
	s->k = k;
	s->last = -1;
	s->winner = -1;
	return GAME_OK;
}

int mnk_init(void *st, const struct game_params *p, uint64_t seed)
{
	return mnk_setup(st, (int)p->v[0], (int)p->v[1], (int)p->v[2]);
}

unsigned mnk_to_move(const void *st)
{
	const struct mnk_state *s = st;
	return mnk_over(s) ? 0 : 1u << (s->ply & 1);
}

int mnk_legal_moves(const void *st, game_move *out, size_t cap)
{
	const struct mnk_state *s = st;
	if (mnk_over(s))
		return 0;
	bb_t e = mnk_empty(s);
	if ((size_t)bb_popcount(e) > cap)
		return GAME_ENOSPACE;
	int n = 0, i;
	for (BB_EACH(i, t, e))
		out[n++] = (game_move)i;
	return n;
}

int mnk_apply(void *st, game_move m)
{
	struct mnk_state *s = st;
	int me = s->ply & 1;
	s->side[me] |= bb_bit((int)m);
	s->last = (int)m;
	s->ply++;
	if (bb_has_line(&s->g, s->side[me], s->k))
		s->winner = me;
	return GAME_OK;
}

void mnk_result(const void *st, struct game_result *r)
{
	const struct mnk_state *s = st;
	memset(r, 0, sizeof *r);
	r->winner = -1;
	r->over = mnk_over(s);
	if (!r->over)
		return;
	r->winner = s->winner;
	r->reason = s->winner >= 0 ? "line" : "board_full";
	snprintf(r->score, sizeof r->score, "%s", game_score_text(s->winner));
}

/*
 * Heuristic for depth-limited search: every window of k cells along a line
 * that holds stones of one side only is worth 4^stones to that side.
 */
int mnk_evaluate(const void *st)
{
	const struct mnk_state *s = st;
	static const enum bb_dir dirs[4] = {BB_E, BB_N, BB_NE, BB_NW};
	int me = s->ply & 1, score = 0;
	for (int d = 0; d < 4; d++) {
		/* starts of windows lying fully on the board */
		bb_t starts = bb_run_starts(&s->g, s->g.full, dirs[d], s->k);
		int i;
		for (BB_EACH(i, t, starts)) {
			bb_t win = 0, c = bb_bit(i);
			for (int j = 0; j < s->k; j++, c = bb_shift(&s->g, c, dirs[d]))
				win |= c;
			int a = bb_popcount(win & s->side[me]), b = bb_popcount(win & s->side[!me]);
			if (a && !b)
				score += 1 << (2 * a);
			else if (b && !a)
				score -= 1 << (2 * b);
		}
	}
	return score;
}
