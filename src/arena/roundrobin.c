/*
 * roundrobin.c - round-robin schedules by the Berger tables (FIDE Handbook
 * C.05, Annex 1), single and multiple cycles, and the gauntlet.
 *
 * The Berger table for N players (N even; an odd field plays the table of
 * N = n + 1 and number N is the bye) is built the way the annex's tables are:
 * round 1 pairs 1-N, 2-(N-1), ..., N/2-(N/2+1), the first named white. Each
 * next round moves every number k other than N to k + N/2 (mod N - 1, within
 * 1..N-1) on the same board and the same side, and N changes side on board 1
 * every round (black in odd rounds, white in even ones). This reproduces the
 * published tables for 4..14 exactly (tests/unit/check_arena_rr.c holds them).
 */
#include "arena/arena.h"

static int rr_size(int n)
{
	return n + (n & 1);
}

int arena_rr_rounds(int n, int cycles)
{
	if (n < 2 || cycles < 1)
		return ARENA_EINVAL;
	if (n > ARENA_MAX_PLAYERS || (long)(rr_size(n) - 1) * cycles > ARENA_MAX_ROUNDS * 8L)
		return ARENA_ERANGE;
	return (rr_size(n) - 1) * cycles;
}

int arena_rr_round(int n, int cycles, int round, unsigned flags, struct arena_pair *out, int cap)
{
	int total = arena_rr_rounds(n, cycles);
	if (total < 0)
		return total;
	if (round < 0 || round >= total || !out)
		return ARENA_EINVAL;
	int N = rr_size(n), per = N - 1, half = N / 2;
	if (cap < n / 2 + (n & 1))
		return ARENA_ENOSPACE;
	int cycle = round / per, r = round % per;
	/* The recommended swap of the first cycle's last two rounds (double RR). */
	if (cycles > 1 && cycle == 0 && !(flags & ARENA_RR_KEEP_ORDER) && per >= 2 && r >= per - 2)
		r = (r == per - 1) ? per - 2 : per - 1;
	/* Board 1's left number in round r: 1 + r*half (mod per); board b's
	 * numbers follow from it: left(b) = left(1) + (b-1), right(b) = left(1) - b
	 * (the round-1 pattern 1+i / N-1-i, turned). */
	int shift = (int)(((long)r * half) % per);
	int k = 0, bye = -1;
	for (int b = 0; b < half; b++) {
		int w, bl;
		if (b == 0) {
			int x = shift + 1; /* the number facing N */
			if (r % 2 == 0)
				w = x, bl = N;
			else
				w = N, bl = x;
		} else {
			w = (shift + b) % per + 1;
			bl = ((shift - b) % per + per) % per + 1;
		}
		if (cycle % 2) {
			int t = w;
			w = bl, bl = t;
		}
		if (w > n || bl > n) {
			bye = (w > n) ? bl - 1 : w - 1;
			continue;
		}
		out[k].white = w - 1;
		out[k].black = bl - 1;
		k++;
	}
	if (bye >= 0) {
		out[k].white = bye;
		out[k].black = -1;
		k++;
	}
	return k;
}

int arena_gauntlet_rounds(int n, int cycles)
{
	if (n < 2 || cycles < 1)
		return ARENA_EINVAL;
	if (n > ARENA_MAX_PLAYERS || 2L * (n - 1) * cycles > ARENA_MAX_PLAYERS * 16L)
		return ARENA_ERANGE;
	return 2 * (n - 1) * cycles;
}

int arena_gauntlet_round(int n, int cycles, int round, struct arena_pair *out)
{
	int total = arena_gauntlet_rounds(n, cycles);
	if (total < 0)
		return total;
	if (round < 0 || round >= total || !out)
		return ARENA_EINVAL;
	int opp = 1 + (round / 2) % (n - 1);
	out->white = (round % 2) ? opp : 0;
	out->black = (round % 2) ? 0 : opp;
	return 1;
}
