/*
 * check_arena_matching.c - the blossom algorithm (src/arena/matching.c)
 * against exhaustive search: random graphs of up to 12 vertices, every
 * matching enumerated, the best total weight (or the best weight among the
 * maximum-cardinality matchings) compared with the algorithm's; weights one
 * limb wide and two limbs wide (carries across limbs), dense and sparse
 * graphs, small weights (many ties) and large ones.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "arena/arena.h"
#include "arena/matching.h"
#include "check_main.h"
#include "core/rng.h"

#define NMAX 12
#define MMAX (NMAX * (NMAX - 1) / 2)

/* Weights as unsigned __int128 in the search (two limbs at most here). */
typedef unsigned __int128 u128;

struct graph {
	int n, m;
	int eu[MMAX], ev[MMAX];
	u128 w[MMAX];
	int adj[NMAX][NMAX]; /* edge index or -1 */
};

static int best_card;
static u128 best_w;

static void search(const struct graph *g, int *used, int card, u128 w, int maxcard)
{
	int v = 0;
	while (v < g->n && used[v])
		v++;
	if (v == g->n) {
		if (maxcard ? (card > best_card || (card == best_card && w > best_w)) : w > best_w) {
			best_card = card;
			best_w = w;
		}
		return;
	}
	used[v] = 1;
	search(g, used, card, w, maxcard); /* v stays single */
	for (int u = v + 1; u < g->n; u++) {
		if (used[u] || g->adj[v][u] < 0)
			continue;
		used[u] = 1;
		search(g, used, card + 1, w + g->w[g->adj[v][u]], maxcard);
		used[u] = 0;
	}
	used[v] = 0;
}

static void random_graph(struct graph *g, struct rng *r, int n, int density, int wbits)
{
	g->n = n;
	g->m = 0;
	memset(g->adj, -1, sizeof g->adj);
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			if ((int)(rng_next(r) % 100) >= density)
				continue;
			int k = g->m++;
			g->eu[k] = i;
			g->ev[k] = j;
			u128 w = rng_next(r);
			if (wbits > 64)
				w = (w << (wbits - 64)) ^ rng_next(r);
			else if (wbits < 64)
				w &= ((u128)1 << wbits) - 1;
			g->w[k] = w;
			g->adj[i][j] = g->adj[j][i] = k;
		}
}

/* Runs the algorithm with `words` limbs; checks the matching and returns its
 * cardinality and weight. */
static void run(const struct graph *g, int words, int maxcard, int *card, u128 *w)
{
	uint64_t limbs[MMAX * 2];
	for (int k = 0; k < g->m; k++) {
		limbs[k * words] = (uint64_t)g->w[k];
		if (words > 1)
			limbs[k * words + 1] = (uint64_t)(g->w[k] >> 64);
	}
	struct arena_graph ag = {g->n, g->m, words, g->eu, g->ev, limbs};
	size_t sz = arena_match_worksize(g->n, g->m, words);
	void *work = malloc(sz);
	int mate[NMAX];
	int pairs = arena_match(&ag, maxcard, mate, work, sz);
	free(work);
	ck_assert_int_ge(pairs, 0);
	*card = 0;
	*w = 0;
	for (int v = 0; v < g->n; v++) {
		if (mate[v] < 0)
			continue;
		ck_assert_int_eq(mate[mate[v]], v);
		ck_assert_int_ge(g->adj[v][mate[v]], 0);
		if (mate[v] > v) {
			(*card)++;
			*w += g->w[g->adj[v][mate[v]]];
		}
	}
	ck_assert_int_eq(pairs, *card);
}

static void compare(int seed, int wbits, int words)
{
	struct rng r;
	rng_seed(&r, (uint64_t)seed * 7919 + (uint64_t)wbits);
	struct graph g;
	int used[NMAX];
	for (int iter = 0; iter < 120; iter++) {
		int n = 1 + (int)(rng_next(&r) % NMAX);
		int density = 20 + (int)(rng_next(&r) % 81);
		random_graph(&g, &r, n, density, wbits);
		for (int maxcard = 0; maxcard <= 1; maxcard++) {
			memset(used, 0, sizeof used);
			best_card = 0;
			best_w = 0;
			search(&g, used, 0, 0, maxcard);
			int card;
			u128 w;
			run(&g, words, maxcard, &card, &w);
			ck_assert_msg(w == best_w && (!maxcard || card == best_card),
				      "seed %d iter %d n=%d m=%d maxcard=%d: card %d/%d", seed, iter, n,
				      g.m, maxcard, card, best_card);
		}
	}
}

/* Small weights: many ties and zero-weight edges. */
START_TEST(test_small_weights)
{
	compare(_i, 3, 1);
}
END_TEST

/* Weights up to 2^40: no ties, one limb. */
START_TEST(test_large_weights)
{
	compare(100 + _i, 40, 1);
}
END_TEST

/* Weights of 100 bits over two limbs: the carries and the halving across the
 * limb boundary. */
START_TEST(test_wide_weights)
{
	compare(200 + _i, 100, 2);
}
END_TEST

/* Weights that differ only in the low limb while the high limb is large. */
START_TEST(test_wide_ties)
{
	struct rng r;
	rng_seed(&r, 4242 + (uint64_t)_i);
	struct graph g;
	int used[NMAX];
	for (int iter = 0; iter < 60; iter++) {
		random_graph(&g, &r, 2 + (int)(rng_next(&r) % (NMAX - 1)), 70, 2);
		for (int k = 0; k < g.m; k++)
			g.w[k] += (u128)1 << 90;
		memset(used, 0, sizeof used);
		best_card = 0;
		best_w = 0;
		search(&g, used, 0, 0, 0);
		int card;
		u128 w;
		run(&g, 2, 0, &card, &w);
		ck_assert(w == best_w);
	}
}
END_TEST

/* Known small cases (the classic ones: a triangle with a tail, a blossom that
 * has to be expanded, a nested blossom). */
START_TEST(test_known)
{
	struct graph g = {0};
	memset(g.adj, -1, sizeof g.adj);
	static const int e[][3] = {{0, 1, 8}, {0, 2, 9}, {1, 2, 10}, {2, 3, 7}};
	g.n = 4;
	for (int k = 0; k < 4; k++) {
		g.eu[k] = e[k][0], g.ev[k] = e[k][1], g.w[k] = (u128)e[k][2];
		g.adj[e[k][0]][e[k][1]] = g.adj[e[k][1]][e[k][0]] = k;
	}
	g.m = 4;
	int card;
	u128 w;
	run(&g, 1, 0, &card, &w);
	ck_assert(card == 2 && w == 15); /* 0-1 and 2-3 */
	/* An empty graph and a graph without edges. */
	int mate[3] = {7, 7, 7};
	struct arena_graph ag = {3, 0, 1, NULL, NULL, NULL};
	char work[4096];
	ck_assert_int_eq(arena_match(&ag, 0, mate, work, sizeof work), 0);
	ck_assert(mate[0] == -1 && mate[1] == -1 && mate[2] == -1);
	/* A loop is refused. */
	int u = 1, v = 1;
	uint64_t one = 1;
	struct arena_graph bad = {3, 1, 1, &u, &v, &one};
	ck_assert_int_eq(arena_match(&bad, 0, mate, work, sizeof work), ARENA_EINVAL);
	ck_assert_int_eq(arena_match(&ag, 0, mate, work, 8), ARENA_EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("arena_matching");
	TCase *tc = tcase_create("exhaustive");
	tcase_set_timeout(tc, 600);
	tcase_add_loop_test(tc, test_small_weights, 0, 3);
	tcase_add_loop_test(tc, test_large_weights, 0, 2);
	tcase_add_loop_test(tc, test_wide_weights, 0, 2);
	tcase_add_loop_test(tc, test_wide_ties, 0, 2);
	tcase_add_test(tc, test_known);
	suite_add_tcase(s, tc);
	return check_run(s);
}
