/*
 * tiebreak.c - tie-breaks of a Swiss (or round-robin) tournament
 * (arena_tiebreak, arena.h): Buchholz, Buchholz cut-1, Sonneborn-Berger,
 * direct encounter, number of wins.
 *
 * Version followed: the FIDE tie-break regulations as in force until
 * 30 June 2023 (Handbook C.07, formerly C.02 article 13), whose rule for
 * unplayed games is the "virtual opponent":
 *  - an unplayed game of an opponent (forfeit, bye, absence) counts as a
 *    draw when that opponent's score enters someone's Buchholz or
 *    Sonneborn-Berger (the opponent's "adjusted" score);
 *  - a player's own unplayed round R counts as a game against a virtual
 *    opponent who had the player's score before round R, got the opposite
 *    result in round R and drew every later round:
 *        Svon = S(P, before R) + (1 - SfPR) + 0.5 (n - R)
 *    (n rounds played; SfPR the player's points in round R; with other point
 *    systems "1 -" is the opposite result and 0.5 a draw's points), and the
 *    player's own result in that round counts as it stands.
 * (The regulations of July 2023 replaced the virtual opponent by a "dummy"
 * with the player's own score; this file does not implement them.)
 *
 * Units: Buchholz and its cut in tenths of a point; Sonneborn-Berger in
 * hundredths (the opponent's tenths times the fraction of a win scored);
 * direct encounter in tenths (the points a player scored in played games
 * against the others tied with him on points, 0 for the whole group unless
 * every two of them met); wins as a count (wins over the board and by
 * forfeit; byes are not wins).
 */
#include "arena/swiss.h"

/* The points of the opposite result: a win's opposite is a loss and back,
 * anything between is a draw. */
static int opposite(const struct arena_points *pts, int x)
{
	if (x >= pts->win)
		return pts->loss;
	if (x <= pts->loss)
		return pts->win;
	return pts->draw;
}

/* An opponent's score with his unplayed rounds counted as draws. */
static int adjusted_score(const struct arena_swiss *t, int q)
{
	int s = 0;
	for (int r = 0; r < t->played; r++) {
		const struct arena_game *g = &t->players[q].games[r];
		s += sw_played(g) ? sw_result_points(&t->points, g->result) : t->points.draw;
	}
	return s;
}

/* The score the tie-break uses for p's opponent in round r. */
static int opponent_score(const struct arena_swiss *t, int p, int r)
{
	const struct arena_game *g = &t->players[p].games[r];
	if (sw_played(g))
		return adjusted_score(t, g->opp);
	int before = arena_score(t, p, r);
	int mine = sw_result_points(&t->points, g->result);
	return before + opposite(&t->points, mine) + t->points.draw * (t->played - 1 - r);
}

int arena_tiebreak(const struct arena_swiss *t, enum arena_tiebreak kind, int64_t *out)
{
	int err = arena_swiss_check(t);
	if (err < 0)
		return err;
	if (!out || t->points.win <= 0)
		return ARENA_EINVAL;
	for (int p = 0; p < t->n; p++) {
		int64_t v = 0, low = -1;
		const struct arena_game *games = t->players[p].games;
		switch (kind) {
		case ARENA_TB_BUCHHOLZ:
		case ARENA_TB_BUCHHOLZ_CUT1:
			for (int r = 0; r < t->played; r++) {
				int s = opponent_score(t, p, r);
				v += s;
				if (low < 0 || s < low)
					low = s;
			}
			if (kind == ARENA_TB_BUCHHOLZ_CUT1 && low >= 0)
				v -= low;
			break;
		case ARENA_TB_SONNEBORN:
			for (int r = 0; r < t->played; r++) {
				int mine = sw_result_points(&t->points, games[r].result);
				v += (int64_t)opponent_score(t, p, r) * mine * 10 / t->points.win;
			}
			break;
		case ARENA_TB_WINS:
			for (int r = 0; r < t->played; r++)
				v += games[r].opp >= 0 &&
				     (games[r].result == '1' || games[r].result == 'W' || games[r].result == '+');
			break;
		case ARENA_TB_DIRECT: {
			int mine = arena_score(t, p, t->played);
			int complete = 1;
			/* Every two players of the tied group must have met. */
			for (int a = 0; a < t->n && complete; a++) {
				if (arena_score(t, a, t->played) != mine)
					continue;
				for (int b = a + 1; b < t->n && complete; b++) {
					if (arena_score(t, b, t->played) != mine)
						continue;
					int met = 0;
					for (int r = 0; r < t->played && !met; r++)
						met = sw_played(&t->players[a].games[r]) &&
						      t->players[a].games[r].opp == b;
					complete = met;
				}
			}
			for (int r = 0; r < t->played && complete; r++) {
				const struct arena_game *g = &games[r];
				if (sw_played(g) && arena_score(t, g->opp, t->played) == mine)
					v += sw_result_points(&t->points, g->result);
			}
			break;
		}
		default:
			return ARENA_EINVAL;
		}
		out[p] = v;
	}
	return 0;
}
