/*
 * ladder.c - the continuous ladder's pairing (ladder.h): fewest mutual games
 * first, idle members first, colours alternating per pair, concurrency and a
 * daily cap per pair. Greedy and O(n) per game made: the free member who
 * should pick first picks its partner, both are counted, and so on until
 * nobody free has anyone left to meet. A pair that has met least is met
 * first, so over time every pair meets about as often as every other.
 */
#include "arena/ladder.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>

static bool has_slot(const struct ladder_member *m)
{
	return m->available && m->running < m->concurrency;
}

/* Whether a should pick before b (both have a free slot): idle first, then the longest
   waiting, then the lower index (a < b as indexes is the caller's order). */
static bool picks_before(const struct ladder_member *a, const struct ladder_member *b)
{
	if ((a->running == 0) != (b->running == 0))
		return a->running == 0;
	return a->idle_since < b->idle_since;
}

static struct ladder_pairing *pair_of(struct ladder_pairing *pairs, int n, int i, int j)
{
	return i < j ? &pairs[i * n + j] : &pairs[j * n + i];
}

/* Whether candidate a is a better partner than b for picker p. */
static bool better_partner(const struct ladder_member *m, struct ladder_pairing *pairs, int n,
                           int p, int a, int b)
{
	int ga = pair_of(pairs, n, p, a)->games, gb = pair_of(pairs, n, p, b)->games;
	if (ga != gb)
		return ga < gb;
	if ((m[a].running == 0) != (m[b].running == 0))
		return m[a].running == 0;
	if (m[a].idle_since != m[b].idle_since)
		return m[a].idle_since < m[b].idle_since;
	int da = abs(m[a].rating - m[p].rating), db = abs(m[b].rating - m[p].rating);
	return da < db;
}

/* Whether p may meet q today (the day's cap). */
static bool under_cap(struct ladder_pairing *pairs, int n, int pair_cap, int p, int q)
{
	return pair_cap == 0 || pair_of(pairs, n, p, q)->today < pair_cap;
}

/* The fewest games p has played with any member it may meet today, busy or not (INT_MAX:
   nobody). */
static int fewest(const struct ladder_member *m, int n, struct ladder_pairing *pairs, int pair_cap,
                  int p)
{
	int k = INT_MAX;
	for (int i = 0; i < n; i++)
		if (i != p && m[i].available && under_cap(pairs, n, pair_cap, p, i) &&
		    pair_of(pairs, n, p, i)->games < k)
			k = pair_of(pairs, n, p, i)->games;
	return k;
}

int ladder_pair(struct ladder_member *members, int n, struct ladder_pairing *pairs, int pair_cap,
                int slack, struct arena_pair *out, int cap)
{
	if (n < 0 || n > LADDER_MAX_MEMBERS || (n && (!members || !pairs)) || (cap && !out) ||
	    pair_cap < 0 || cap < 0 || slack < 0)
		return ARENA_EINVAL;
	for (int i = 0; i < n; i++)
		if (members[i].concurrency < 1)
			return ARENA_EINVAL;
	/* done[i]: i found nobody to meet in this call; it does not pick again (what it could
	   meet only shrinks as games are made) */
	unsigned char done[LADDER_MAX_MEMBERS] = {0};
	int least[LADDER_MAX_MEMBERS]; /* fewest(i): i waits rather than meet more than slack
	                                  past it */
	for (int i = 0; i < n; i++)
		least[i] = has_slot(&members[i]) ? fewest(members, n, pairs, pair_cap, i) : 0;
	int k = 0;
	while (k < cap) {
		int p = -1;
		for (int i = 0; i < n; i++)
			if (!done[i] && has_slot(&members[i]) &&
			    (p < 0 || picks_before(&members[i], &members[p])))
				p = i;
		if (p < 0)
			break;
		int q = -1;
		for (int i = 0; i < n; i++) {
			if (i == p || !has_slot(&members[i]))
				continue;
			int g = pair_of(pairs, n, p, i)->games;
			if (!under_cap(pairs, n, pair_cap, p, i) || g - least[p] > slack ||
			    g - least[i] > slack)
				continue;
			if (q < 0 || better_partner(members, pairs, n, p, i, q))
				q = i;
		}
		if (q < 0) {
			done[p] = 1;
			continue;
		}
		struct ladder_pairing *pr = pair_of(pairs, n, p, q);
		int lo = p < q ? p : q;
		int lo_whites = pr->whites, hi_whites = pr->games - pr->whites;
		int white;
		if (lo_whites != hi_whites)
			white = lo_whites < hi_whites ? lo : p + q - lo;
		else if (members[p].lean != members[q].lean)
			white = members[p].lean < members[q].lean ? p : q;
		else
			white = p;
		int black = white == p ? q : p;
		pr->games++;
		pr->today++;
		pr->whites += white == lo;
		members[white].running++;
		members[black].running++;
		members[white].lean++;
		members[black].lean--;
		least[p] = fewest(members, n, pairs, pair_cap, p);
		least[q] = fewest(members, n, pairs, pair_cap, q);
		out[k].white = white;
		out[k].black = black;
		k++;
	}
	return k;
}
