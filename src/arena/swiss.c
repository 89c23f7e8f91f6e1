/*
 * swiss.c - a Swiss tournament's state as the pairing sees it (swiss.h):
 * scores, the checks of arena_swiss_check(), colour preferences and floats.
 *
 * Definitions (FIDE Handbook C.04.3, 2017, section A):
 *  - only games played over the board count for colours (A.6); forfeits,
 *    byes and absences do not;
 *  - colour preference: absolute when the colour difference is beyond +-1 or
 *    the last two played games had the same colour (the difference decides
 *    when both apply); strong when the difference is +-1; mild (alternate)
 *    when it is 0; none before the first played game;
 *  - a player downfloats in a round he did not play (A.4.b: bye, forfeit,
 *    absence), or when his opponent had fewer points when that round was
 *    paired; upfloats when the opponent had more;
 *  - the PAB goes only to a player who had no PAB and no forfeit win
 *    before (C2).
 */
#include <string.h>

#include "arena/swiss.h"

struct arena_points arena_points_default(void)
{
	struct arena_points p = {
		.win = 10,
		.draw = 5,
		.loss = 0,
		.forfeit_win = 10,
		.forfeit_loss = 0,
		.pab = 10,
		.full_bye = 10,
		.half_bye = 5,
		.zero_bye = 0,
	};
	return p;
}

int sw_result_points(const struct arena_points *pts, char result)
{
	switch (result) {
	case '1':
	case 'W':
		return pts->win;
	case '=':
	case 'D':
		return pts->draw;
	case '0':
	case 'L':
		return pts->loss;
	case '+':
		return pts->forfeit_win;
	case '-':
		return pts->forfeit_loss;
	case 'U':
		return pts->pab;
	case 'F':
		return pts->full_bye;
	case 'H':
		return pts->half_bye;
	case 'Z':
		return pts->zero_bye;
	default:
		return -1;
	}
}

int arena_score(const struct arena_swiss *t, int p, int upto)
{
	int s = 0;
	for (int r = 0; r < upto && r < t->played; r++) {
		int v = sw_result_points(&t->points, t->players[p].games[r].result);
		s += v > 0 ? v : 0;
	}
	return s;
}

/* The result the opponent must have recorded for result c, 0 if none fits. */
static char mirror(char c)
{
	switch (c) {
	case '1':
		return '0';
	case '0':
		return '1';
	case '=':
		return '=';
	case 'W':
		return 'L';
	case 'L':
		return 'W';
	case 'D':
		return 'D';
	case '+':
		return '-';
	case '-':
		return '+';
	default:
		return 0;
	}
}

int arena_swiss_check(const struct arena_swiss *t)
{
	if (!t || t->n < 0 || t->played < 0 || (t->n && !t->players))
		return ARENA_EINVAL;
	if (t->n > ARENA_SWISS_MAX || t->played >= ARENA_MAX_ROUNDS || t->rounds > ARENA_MAX_ROUNDS)
		return ARENA_ERANGE;
	for (int p = 0; p < t->n; p++) {
		if (t->played && !t->players[p].games)
			return ARENA_EINVAL;
		for (int r = 0; r < t->played; r++) {
			const struct arena_game *g = &t->players[p].games[r];
			if (sw_result_points(&t->points, g->result) < 0)
				return ARENA_EINVAL;
			if (g->opp < 0) {
				if (g->opp != -1 || !strchr("UFHZ", g->result) || g->color == 'w' ||
				    g->color == 'b')
					return ARENA_EINVAL;
				continue;
			}
			if (g->opp >= t->n || g->opp == p)
				return ARENA_EINVAL;
			const struct arena_game *o = &t->players[g->opp].games[r];
			if (o->opp != p)
				return ARENA_EINVAL;
			/* a double forfeit is '-' on both sides */
			if (!(mirror(g->result) == o->result || (g->result == '-' && o->result == '-')))
				return ARENA_EINVAL;
			if (sw_played(g)) {
				if (!((g->color == 'w' && o->color == 'b') ||
				      (g->color == 'b' && o->color == 'w')))
					return ARENA_EINVAL;
			}
		}
	}
	return 0;
}

void sw_player_init(const struct arena_swiss *t, int id, struct sw_player *p)
{
	const struct arena_game *games = t->players[id].games;
	memset(p, 0, sizeof *p);
	p->id = id;
	p->score = arena_score(t, id, t->played);
	p->bye_ok = 1;
	int last = SW_NONE, run = 0;
	for (int r = 0; r < t->played; r++) {
		const struct arena_game *g = &games[r];
		if (!sw_played(g) && sw_participated(g) &&
		    sw_result_points(&t->points, g->result) >= 0 && (g->result == 'U' || g->result == '+'))
			p->bye_ok = 0;
		if (!sw_played(g))
			continue;
		int c = g->color == 'w' ? SW_WHITE : SW_BLACK;
		if (c == SW_WHITE)
			p->white++;
		else
			p->black++;
		run = (run && c == last) ? run + 1 : 1;
		last = c;
	}
	int lower = p->white > p->black ? SW_BLACK : SW_WHITE;
	p->imbalance = p->white > p->black ? p->white - p->black : p->black - p->white;
	p->pref = p->imbalance > 1 ? lower
		  : run > 1        ? sw_invert(last)
		  : p->imbalance   ? lower
		  : run            ? sw_invert(last)
				   : SW_NONE;
	p->repeated = run > 1 ? last : SW_NONE;
	p->absolute = p->imbalance > 1 || p->repeated != SW_NONE;
	p->strong = !p->absolute && p->imbalance > 0;
	for (int k = 1; k <= 2; k++) {
		if (t->played < k)
			continue;
		int r = t->played - k;
		const struct arena_game *g = &games[r];
		if (!sw_played(g)) {
			p->fl[k] = SW_FLOAT_DOWN;
			continue;
		}
		int mine = arena_score(t, id, r), theirs = arena_score(t, g->opp, r);
		p->fl[k] = mine > theirs ? SW_FLOAT_DOWN : mine < theirs ? SW_FLOAT_UP : SW_FLOAT_NONE;
	}
}
