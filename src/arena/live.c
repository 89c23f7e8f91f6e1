/*
 * live.c - the lichess-style arena (arena.h): its scoring and the pairing of
 * the players who are free.
 *
 * Scoring, as lichess publishes it (lichess.org/tournament/help, "How are
 * scores calculated?"): a win has a base score of 2 points, a draw 1, a loss
 * 0; after two wins in a row the player is "on fire" and every following
 * game is worth double (a win 4, a draw 2, a loss 0) until a game that is
 * not a win ends the streak; e.g. win, win, draw = 2 + 2 + 2 = 6. Berserk
 * (an extra point for a win after halving one's clock) and lichess' special
 * cases for draws (short draws, repeated draws) need facts about the game
 * that a result does not carry; they are not part of this function.
 *
 * Pairing ("as soon as you finish a game ... you will be paired with a player
 * close to your ranking"): the free player who has waited longest picks
 * first, the closest-ranked free player who was not his last opponent; the
 * last opponent is taken again only after waiting rematch_after.
 */
#include "arena/arena.h"

int arena_live_score(const char *results, int *streak)
{
	int total = 0, wins = 0;
	for (const char *c = results ? results : ""; *c; c++) {
		int fire = wins >= 2;
		int base = *c == '1' ? 2 : *c == '=' ? 1 : 0;
		total += fire ? 2 * base : base;
		wins = *c == '1' ? wins + 1 : 0;
	}
	if (streak)
		*streak = wins >= 2;
	return total;
}

static long long absdiff(int a, int b)
{
	return a > b ? (long long)a - b : (long long)b - a;
}

int arena_live_pair(const struct arena_live_player *free, int n, int64_t rematch_after,
		    struct arena_pair *out, int cap)
{
	if (n < 0 || (n && !free) || (cap && !out) || n > ARENA_MAX_PLAYERS)
		return ARENA_EINVAL;
	/* Who is already taken: one bit per player, on the stack (n is bounded). */
	unsigned char taken[ARENA_MAX_PLAYERS];
	for (int i = 0; i < n; i++)
		taken[i] = 0;
	int k = 0;
	for (;;) {
		/* The free player who has waited longest (then the better rank,
		 * then the first given) picks next. */
		int p = -1;
		for (int i = 0; i < n; i++) {
			if (taken[i])
				continue;
			if (p < 0 || free[i].waiting > free[p].waiting ||
			    (free[i].waiting == free[p].waiting && free[i].rank < free[p].rank))
				p = i;
		}
		if (p < 0)
			break;
		taken[p] = 1; /* picks once, paired or not */
		int best = -1, again = -1;
		for (int i = 0; i < n; i++) {
			if (i == p || taken[i] == 1 || taken[i] == 2)
				continue;
			int rematch = free[i].id == free[p].last_opp || free[p].id == free[i].last_opp;
			int *slot = rematch ? &again : &best;
			if (*slot < 0 || absdiff(free[i].rank, free[p].rank) <
					     absdiff(free[*slot].rank, free[p].rank) ||
			    (absdiff(free[i].rank, free[p].rank) ==
				     absdiff(free[*slot].rank, free[p].rank) &&
			     free[i].waiting > free[*slot].waiting))
				*slot = i;
		}
		if (best < 0 && again >= 0 && free[p].waiting >= rematch_after)
			best = again;
		if (best < 0) {
			taken[p] = 2; /* waits; may still be picked by nobody else */
			continue;
		}
		if (k >= cap)
			return ARENA_ENOSPACE;
		taken[best] = 1;
		out[k].white = free[p].id;
		out[k].black = free[best].id;
		k++;
	}
	return k;
}
