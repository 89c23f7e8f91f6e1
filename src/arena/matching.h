/*
 * matching.h - maximum-weight matching on a general (non-bipartite) graph:
 * Edmonds' blossom algorithm with dual variables, O(n^3) (the formulation of
 * Galil, "Efficient algorithms for finding maximum matching in graphs", 1986,
 * section 3, with the best-edge bookkeeping that makes each stage O(n^2)).
 *
 * Why it is written here: no well-kept C library in Debian computes a
 * maximum-weight matching on a general graph. igraph (libigraph-dev
 * 0.10.2, checked in its igraph_matching.h) offers only
 * igraph_maximum_bipartite_matching(), bipartite graphs only, with double
 * weights (53 bits, too few for our criteria); LEMON (liblemon-dev,
 * MaxWeightedMatching) and Boost.Graph (maximum_weighted_matching) are C++
 * template libraries; GLPK would solve it as an integer program without the
 * blossom inequalities (exponential in the worst case). So the Dutch
 * pairing (dutch.c) carries its own, tested against exhaustive search on
 * random graphs (tests/unit/check_arena_matching.c).
 *
 * Weights: the Dutch criteria are compared lexicographically, so their edge
 * weights are sums of fields shifted past one another; for 200 players they
 * need a few hundred bits. A weight here is therefore a fixed-width
 * two's-complement integer of `words` 64-bit limbs (least significant first),
 * the width chosen per call by the caller: 1 limb is plain int64 speed, and
 * nothing overflows as long as every weight is below 2^(64*words - 4) (the
 * dual variables need two more bits than the weights, and one for the sign).
 * A multi-limb integer rather than __int128 because 128 bits do not hold the
 * criteria of a large field; rather than a vector of separate fields because
 * the fields pack into few limbs and the algorithm only adds, subtracts,
 * compares and halves (halving is exact: with integer weights the slack it
 * halves is even).
 *
 * Allocation: none. The caller gives a work area of
 * arena_match_worksize(n, m, words) bytes (any alignment of malloc's):
 * about 25 + 24 * words bytes per edge (each doubled weight is kept twice,
 * in edge order and in the order of the adjacency lists, so that scanning a
 * vertex's edges, the algorithm's inner loop, reads memory in sequence)
 * and 16 n^2 bytes for the blossoms' lists.
 */
#ifndef BITARENA_ARENA_MATCHING_H
#define BITARENA_ARENA_MATCHING_H

#include <stddef.h>
#include <stdint.h>

struct arena_graph {
	int n;           /* vertices 0..n-1 */
	int m;           /* edges */
	int words;       /* 64-bit limbs per weight, >= 1 */
	const int *eu;   /* edge k joins eu[k] and ev[k] (eu[k] != ev[k]) */
	const int *ev;
	const uint64_t *w; /* m * words limbs: edge k's weight at w + k * words, >= 0 */
};

/* Bytes of work area arena_match() needs. */
size_t arena_match_worksize(int n, int m, int words);

/* Computes a matching of maximum total weight (maxcard = 0), or of maximum
 * weight among those of maximum cardinality (maxcard = 1). mate[v] receives
 * v's partner or -1. Returns the number of matched pairs, or ARENA_EINVAL
 * (bad graph, work area too small). */
int arena_match(const struct arena_graph *g, int maxcard, int *mate, void *work, size_t worksize);

#endif
