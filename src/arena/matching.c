/*
 * matching.c - maximum-weight matching on a general graph (matching.h):
 * Edmonds' blossom algorithm with the primal-dual method, O(n^3).
 *
 * The structure is the textbook one (Galil 1986, section 3): stages, each
 * growing alternating trees from every free vertex over tight edges (slack 0)
 * until an augmenting path is found, shrinking odd cycles into blossoms and
 * expanding T-blossoms whose dual reaches 0; when no tight edge helps, the
 * duals move by the largest delta that keeps them feasible (the four delta
 * kinds). Each top-level S-blossom keeps, per neighbouring S-blossom, its
 * least-slack edge so that a stage costs O(n^2). Vertex duals are kept as
 * twice their textbook value (slack = u + v - 2w), so that with integer
 * weights every quantity stays an integer.
 *
 * Numbers are fixed-width multi-limb integers (matching.h says why); the
 * helpers w_* below work on `words` limbs, two's complement.
 *
 * Speed: the inner loop scans the edges of a vertex just labelled S and
 * computes their slacks; the adjacency lists carry the remote vertex and
 * the doubled weight beside each edge so that this loop reads in sequence
 * (on a complete graph the random reads of endpoint[] and w2[] were most of
 * the time), and a slack of several limbs is one pass with the carry in a
 * 128-bit accumulator.
 *
 * Memory: every array lives in the caller's work area. Per blossom the child
 * and endpoint lists have room for n entries (a blossom has at most n
 * children), and so does its list of best edges.
 */
#include <string.h>

#include "arena/arena.h"
#include "arena/matching.h"

/* ---- multi-limb integers --------------------------------------------------- */

__extension__ typedef __int128 wide; /* a limb and its carry */

static inline void w_add(uint64_t *d, const uint64_t *a, const uint64_t *b, int W)
{
	unsigned carry = 0;
	for (int i = 0; i < W; i++) {
		uint64_t s = a[i] + b[i];
		unsigned c1 = s < a[i];
		uint64_t t = s + carry;
		unsigned c2 = t < s;
		d[i] = t;
		carry = c1 | c2;
	}
}

static inline void w_sub(uint64_t *d, const uint64_t *a, const uint64_t *b, int W)
{
	unsigned borrow = 0;
	for (int i = 0; i < W; i++) {
		uint64_t s = a[i] - b[i];
		unsigned b1 = a[i] < b[i];
		uint64_t t = s - borrow;
		unsigned b2 = s < (uint64_t)borrow;
		d[i] = t;
		borrow = b1 | b2;
	}
}

static inline int w_cmp(const uint64_t *a, const uint64_t *b, int W)
{
	int64_t ha = (int64_t)a[W - 1], hb = (int64_t)b[W - 1];
	if (ha != hb)
		return ha < hb ? -1 : 1;
	for (int i = W - 2; i >= 0; i--)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

static inline int w_sign(const uint64_t *a, int W)
{
	if ((int64_t)a[W - 1] < 0)
		return -1;
	for (int i = 0; i < W; i++)
		if (a[i])
			return 1;
	return 0;
}

/* Arithmetic shift right by one (exact on even numbers). */
static void w_half(uint64_t *d, const uint64_t *a, int W)
{
	for (int i = 0; i < W; i++) {
		uint64_t hi = (i + 1 < W) ? a[i + 1] << 63 : (a[i] & (1ull << 63));
		d[i] = (a[i] >> 1) | hi;
	}
}

static inline void w_copy(uint64_t *d, const uint64_t *a, int W)
{
	memcpy(d, a, sizeof(uint64_t) * (size_t)W);
}

/* ---- state ---------------------------------------------------------------- */

struct mstate {
	int n, m, W, maxcard;
	const int *eu, *ev;
	uint64_t *w2;        /* m * W: twice each weight */
	int *endpoint;       /* 2m: endpoint[2k] = eu[k], endpoint[2k+1] = ev[k] */
	int *nbstart, *nb;   /* CSR: the remote endpoints p of edges at v */
	int *nbv;            /* 2m: the vertex at nb[q] (endpoint[nb[q]]) */
	uint64_t *nbw;       /* 2m * W: twice the weight of edge nb[q] / 2 */
	int *mate;           /* n: remote endpoint of v's matched edge, or -1 */
	int *label;          /* 2n: 0 free, 1 S, 2 T (5: breadcrumb in scan) */
	int *labelend;       /* 2n */
	int *inblossom;      /* n */
	int *bparent;        /* 2n */
	int *bchilds;        /* n * n: blossom b's children at (b - n) * n */
	int *bnchild;        /* n */
	int *bendps;         /* n * n */
	int *bbase;          /* 2n */
	int *bestedge;       /* 2n */
	int *bbest;          /* 2n * n: best edges to neighbouring S-blossoms */
	int *bnbest;         /* 2n: count, -1 for none (use the vertex lists) */
	int *unused;         /* n: free blossom numbers */
	int nunused;
	uint64_t *dual;      /* 2n * W */
	unsigned char *allow; /* m */
	int *queue;          /* n */
	int nqueue;
	int *stack;          /* 2n: scratch for blossom leaves */
	int *leaves;         /* n: scratch */
	int *path;           /* 2n: scratch for scan/add */
	int *bestto;         /* 2n: scratch for addBlossom */
	uint64_t *t1, *t2, *t3; /* W each: temporaries */
};

#define DUAL(s, b) ((s)->dual + (size_t)(b) * (size_t)(s)->W)
#define CHILD(s, b, i) ((s)->bchilds[(size_t)((b) - (s)->n) * (size_t)(s)->n + (size_t)(i)])
#define ENDP(s, b, i) ((s)->bendps[(size_t)((b) - (s)->n) * (size_t)(s)->n + (size_t)(i)])
#define BEST(s, b, i) ((s)->bbest[(size_t)(b) * (size_t)(s)->n + (size_t)(i)])

/* u(a) + u(b) - w2, the slack of an edge between vertices a and b of
 * doubled weight w. */
static inline void slack_of(struct mstate *s, int va, int vb, const uint64_t *w, uint64_t *out)
{
	const int W = s->W;
	const uint64_t *a = DUAL(s, va), *b = DUAL(s, vb);
	if (W == 1) {
		out[0] = a[0] + b[0] - w[0];
		return;
	}
	/* One pass, the carry (-1, 0 or 1) in the high half of a 128-bit
	 * accumulator: the hottest loop of the algorithm. (>> on a negative
	 * __int128 is an arithmetic shift in GCC and Clang, the compilers of
	 * this tree.) */
	wide acc = 0;
	for (int i = 0; i < W; i++) {
		acc += (wide)a[i] + (wide)b[i] - (wide)w[i];
		out[i] = (uint64_t)acc;
		acc >>= 64;
	}
}

static inline void slack(struct mstate *s, int k, uint64_t *out)
{
	slack_of(s, s->endpoint[2 * k], s->endpoint[2 * k + 1], s->w2 + (size_t)k * (size_t)s->W,
		 out);
}

/* Is the slack value d (not in t2) < slack(j)? */
static inline int less_than(struct mstate *s, const uint64_t *d, int j)
{
	slack(s, j, s->t2);
	if (s->W == 1)
		return (int64_t)d[0] < (int64_t)s->t2[0];
	return w_cmp(d, s->t2, s->W) < 0;
}

/* Is slack(k) < slack(j)? */
static int slack_less(struct mstate *s, int k, int j)
{
	slack(s, k, s->t1);
	slack(s, j, s->t2);
	return w_cmp(s->t1, s->t2, s->W) < 0;
}

/* The vertices inside blossom b, into s->leaves; returns their number. */
static int leaves(struct mstate *s, int b)
{
	int sp = 0, k = 0;
	s->stack[sp++] = b;
	while (sp) {
		int t = s->stack[--sp];
		if (t < s->n) {
			s->leaves[k++] = t;
			continue;
		}
		for (int i = s->bnchild[t - s->n] - 1; i >= 0; i--)
			s->stack[sp++] = CHILD(s, t, i);
	}
	return k;
}

static void assign_label(struct mstate *s, int w, int t, int p)
{
	for (;;) {
		int b = s->inblossom[w];
		s->label[w] = s->label[b] = t;
		s->labelend[w] = s->labelend[b] = p;
		s->bestedge[w] = s->bestedge[b] = -1;
		if (t == 1) {
			int k = leaves(s, b);
			for (int i = 0; i < k; i++)
				s->queue[s->nqueue++] = s->leaves[i];
			return;
		}
		/* T: its base's mate becomes S. */
		int base = s->bbase[b];
		int mp = s->mate[base];
		w = s->endpoint[mp];
		t = 1;
		p = mp ^ 1;
	}
}

/* Traces back from v and w: the base of a new blossom, or -1 for an
 * augmenting path. */
static int scan_blossom(struct mstate *s, int v, int w)
{
	int np = 0, base = -1;
	while (v != -1 || w != -1) {
		int b = s->inblossom[v];
		if (s->label[b] & 4) {
			base = s->bbase[b];
			break;
		}
		s->path[np++] = b;
		s->label[b] = 5;
		if (s->labelend[b] == -1) {
			v = -1;
		} else {
			v = s->endpoint[s->labelend[b]];
			b = s->inblossom[v];
			v = s->endpoint[s->labelend[b]];
		}
		if (w != -1) {
			int t = v;
			v = w;
			w = t;
		}
	}
	for (int i = 0; i < np; i++)
		s->label[s->path[i]] = 1;
	return base;
}

static void add_blossom(struct mstate *s, int base, int k)
{
	int n = s->n;
	int v = s->endpoint[2 * k], w = s->endpoint[2 * k + 1];
	int bb = s->inblossom[base], bv = s->inblossom[v], bw = s->inblossom[w];
	int b = s->unused[--s->nunused];
	s->bbase[b] = base;
	s->bparent[b] = -1;
	s->bparent[bb] = b;
	/* Children from bb round the cycle: first the path from v back to bb
	 * (reversed), then from w back to bb. */
	int nc = 0;
	int *ch = &CHILD(s, b, 0), *ep = &ENDP(s, b, 0);
	while (bv != bb) {
		s->bparent[bv] = b;
		ch[nc] = bv;
		ep[nc] = s->labelend[bv];
		nc++;
		v = s->endpoint[s->labelend[bv]];
		bv = s->inblossom[v];
	}
	ch[nc++] = bb;
	/* reverse ch[0..nc) and ep[0..nc-1) */
	for (int i = 0, j = nc - 1; i < j; i++, j--) {
		int t = ch[i];
		ch[i] = ch[j];
		ch[j] = t;
	}
	for (int i = 0, j = nc - 2; i < j; i++, j--) {
		int t = ep[i];
		ep[i] = ep[j];
		ep[j] = t;
	}
	int ne = nc - 1;
	ep[ne++] = 2 * k;
	while (bw != bb) {
		s->bparent[bw] = b;
		ch[nc++] = bw;
		ep[ne++] = s->labelend[bw] ^ 1;
		w = s->endpoint[s->labelend[bw]];
		bw = s->inblossom[w];
	}
	s->bnchild[b - n] = nc;
	s->label[b] = 1;
	s->labelend[b] = s->labelend[bb];
	memset(DUAL(s, b), 0, sizeof(uint64_t) * (size_t)s->W);
	int nl = leaves(s, b);
	for (int i = 0; i < nl; i++) {
		int x = s->leaves[i];
		if (s->label[s->inblossom[x]] == 2)
			s->queue[s->nqueue++] = x;
		s->inblossom[x] = b;
	}
	/* The least-slack edge to each neighbouring S-blossom. */
	for (int i = 0; i < 2 * n; i++)
		s->bestto[i] = -1;
	for (int c = 0; c < nc; c++) {
		int sub = ch[c];
		if (s->bnbest[sub] < 0) {
			int nl2 = leaves(s, sub);
			for (int li = 0; li < nl2; li++) {
				int x = s->leaves[li];
				for (int q = s->nbstart[x]; q < s->nbstart[x + 1]; q++) {
					int e = s->nb[q] / 2;
					int j = s->endpoint[s->nb[q]];
					int bj = s->inblossom[j];
					if (bj != b && s->label[bj] == 1 &&
					    (s->bestto[bj] == -1 || slack_less(s, e, s->bestto[bj])))
						s->bestto[bj] = e;
				}
			}
		} else {
			for (int q = 0; q < s->bnbest[sub]; q++) {
				int e = BEST(s, sub, q);
				int i = s->endpoint[2 * e], j = s->endpoint[2 * e + 1];
				if (s->inblossom[j] == b)
					j = i;
				int bj = s->inblossom[j];
				if (bj != b && s->label[bj] == 1 &&
				    (s->bestto[bj] == -1 || slack_less(s, e, s->bestto[bj])))
					s->bestto[bj] = e;
			}
		}
		s->bnbest[sub] = -1;
		s->bestedge[sub] = -1;
	}
	int cnt = 0;
	s->bestedge[b] = -1;
	for (int i = 0; i < 2 * n; i++) {
		int e = s->bestto[i];
		if (e < 0)
			continue;
		BEST(s, b, cnt++) = e;
		if (s->bestedge[b] == -1 || slack_less(s, e, s->bestedge[b]))
			s->bestedge[b] = e;
	}
	s->bnbest[b] = cnt;
}

static int idx_of(struct mstate *s, int b, int child)
{
	int nc = s->bnchild[b - s->n];
	for (int i = 0; i < nc; i++)
		if (CHILD(s, b, i) == child)
			return i;
	return -1;
}

/* Python-style index into blossom b's lists. */
static int wrap(struct mstate *s, int b, int j)
{
	int nc = s->bnchild[b - s->n];
	return ((j % nc) + nc) % nc;
}

/* The direction round blossom b from child index j back to its base (index
 * 0) along the even-length side: returns the start index (negative for
 * Python-style indexing, see wrap()) and sets the step and the endpoint
 * trick (which end of each edge in the endpoint list faces the walk). */
static int walk_from(struct mstate *s, int b, int j, int *jstep, int *trick)
{
	if (j & 1) {
		*jstep = 1;
		*trick = 0;
		return j - s->bnchild[b - s->n];
	}
	*jstep = -1;
	*trick = 1;
	return j;
}

static void expand_blossom(struct mstate *s, int b, int endstage)
{
	int n = s->n, W = s->W;
	int nc = s->bnchild[b - n];
	for (int i = 0; i < nc; i++) {
		int c = CHILD(s, b, i);
		s->bparent[c] = -1;
		if (c < n) {
			s->inblossom[c] = c;
		} else if (endstage && w_sign(DUAL(s, c), W) == 0) {
			expand_blossom(s, c, endstage);
		} else {
			int nl = leaves(s, c);
			for (int li = 0; li < nl; li++)
				s->inblossom[s->leaves[li]] = c;
		}
	}
	if (!endstage && s->label[b] == 2) {
		int entry = s->inblossom[s->endpoint[s->labelend[b] ^ 1]];
		int jstep, trick;
		int j = walk_from(s, b, idx_of(s, b, entry), &jstep, &trick);
		int p = s->labelend[b];
		while (j != 0) {
			s->label[s->endpoint[p ^ 1]] = 0;
			s->label[s->endpoint[ENDP(s, b, wrap(s, b, j - trick)) ^ trick ^ 1]] = 0;
			assign_label(s, s->endpoint[p ^ 1], 2, p);
			s->allow[ENDP(s, b, wrap(s, b, j - trick)) / 2] = 1;
			j += jstep;
			p = ENDP(s, b, wrap(s, b, j - trick)) ^ trick;
			s->allow[p / 2] = 1;
			j += jstep;
		}
		int bv = CHILD(s, b, wrap(s, b, j));
		s->label[s->endpoint[p ^ 1]] = s->label[bv] = 2;
		s->labelend[s->endpoint[p ^ 1]] = s->labelend[bv] = p;
		s->bestedge[bv] = -1;
		j += jstep;
		while (CHILD(s, b, wrap(s, b, j)) != entry) {
			bv = CHILD(s, b, wrap(s, b, j));
			if (s->label[bv] == 1) {
				j += jstep;
				continue;
			}
			int nl = leaves(s, bv), v = -1;
			for (int li = 0; li < nl; li++)
				if (s->label[s->leaves[li]] != 0) {
					v = s->leaves[li];
					break;
				}
			if (v >= 0) {
				s->label[v] = 0;
				s->label[s->endpoint[s->mate[s->bbase[bv]]]] = 0;
				assign_label(s, v, 2, s->labelend[v]);
			}
			j += jstep;
		}
	}
	s->label[b] = s->labelend[b] = -1;
	s->bnchild[b - n] = 0;
	s->bbase[b] = -1;
	s->bnbest[b] = -1;
	s->bestedge[b] = -1;
	s->unused[s->nunused++] = b;
}

/* Swaps matched and unmatched edges inside blossom b so that v becomes its
 * base (v is a vertex inside b). */
static void augment_blossom(struct mstate *s, int b, int v)
{
	int n = s->n;
	int t = v;
	while (s->bparent[t] != b)
		t = s->bparent[t];
	if (t >= n)
		augment_blossom(s, t, v);
	int nc = s->bnchild[b - n];
	int i = idx_of(s, b, t), jstep, trick;
	int j = walk_from(s, b, i, &jstep, &trick);
	while (j != 0) {
		j += jstep;
		t = CHILD(s, b, wrap(s, b, j));
		int p = ENDP(s, b, wrap(s, b, j - trick)) ^ trick;
		if (t >= n)
			augment_blossom(s, t, s->endpoint[p]);
		j += jstep;
		t = CHILD(s, b, wrap(s, b, j));
		if (t >= n)
			augment_blossom(s, t, s->endpoint[p ^ 1]);
		s->mate[s->endpoint[p]] = p ^ 1;
		s->mate[s->endpoint[p ^ 1]] = p;
	}
	/* Rotate the lists so that child i comes first. */
	if (i > 0) {
		int *ch = &CHILD(s, b, 0), *ep = &ENDP(s, b, 0);
		int *tmp = s->path; /* 2n scratch, nc <= n */
		memcpy(tmp, ch + i, sizeof(int) * (size_t)(nc - i));
		memcpy(tmp + (nc - i), ch, sizeof(int) * (size_t)i);
		memcpy(ch, tmp, sizeof(int) * (size_t)nc);
		memcpy(tmp, ep + i, sizeof(int) * (size_t)(nc - i));
		memcpy(tmp + (nc - i), ep, sizeof(int) * (size_t)i);
		memcpy(ep, tmp, sizeof(int) * (size_t)nc);
	}
	s->bbase[b] = s->bbase[CHILD(s, b, 0)];
}

static void augment_matching(struct mstate *s, int k)
{
	int n = s->n;
	for (int side = 0; side < 2; side++) {
		int sv = s->endpoint[2 * k + side];
		int p = 2 * k + 1 - side;
		for (;;) {
			int bs = s->inblossom[sv];
			if (bs >= n)
				augment_blossom(s, bs, sv);
			s->mate[sv] = p;
			if (s->labelend[bs] == -1)
				break;
			int t = s->endpoint[s->labelend[bs]];
			int bt = s->inblossom[t];
			sv = s->endpoint[s->labelend[bt]];
			int j = s->endpoint[s->labelend[bt] ^ 1];
			if (bt >= n)
				augment_blossom(s, bt, j);
			s->mate[j] = s->labelend[bt];
			p = s->labelend[bt] ^ 1;
		}
	}
}

/* ---- layout ----------------------------------------------------------------- */

struct layout {
	size_t w2, endpoint, nbstart, nb, nbv, nbw, mate, label, labelend, inblossom, bparent, bchilds,
		bnchild, bendps, bbase, bestedge, bbest, bnbest, unused, dual, allow, queue, stack,
		leaves, path, bestto, tmp, total;
};

static size_t put(size_t *off, size_t bytes)
{
	size_t at = (*off + 15) & ~(size_t)15;
	*off = at + bytes;
	return at;
}

static void plan(struct layout *L, int n, int m, int W)
{
	size_t o = 0, N = (size_t)n, M = (size_t)m, I = sizeof(int), U = sizeof(uint64_t) * (size_t)W;
	L->w2 = put(&o, M * U);
	L->endpoint = put(&o, 2 * M * I);
	L->nbstart = put(&o, (N + 1) * I);
	L->nb = put(&o, 2 * M * I);
	L->nbv = put(&o, 2 * M * I);
	L->nbw = put(&o, 2 * M * U);
	L->mate = put(&o, N * I);
	L->label = put(&o, 2 * N * I);
	L->labelend = put(&o, 2 * N * I);
	L->inblossom = put(&o, N * I);
	L->bparent = put(&o, 2 * N * I);
	L->bchilds = put(&o, N * N * I);
	L->bnchild = put(&o, N * I);
	L->bendps = put(&o, N * N * I);
	L->bbase = put(&o, 2 * N * I);
	L->bestedge = put(&o, 2 * N * I);
	L->bbest = put(&o, 2 * N * N * I);
	L->bnbest = put(&o, 2 * N * I);
	L->unused = put(&o, N * I);
	L->dual = put(&o, 2 * N * U);
	L->allow = put(&o, M);
	L->queue = put(&o, (2 * N + 1) * I);
	L->stack = put(&o, 2 * N * I);
	L->leaves = put(&o, N * I);
	L->path = put(&o, 2 * N * I);
	L->bestto = put(&o, 2 * N * I);
	L->tmp = put(&o, 3 * U);
	L->total = o + 16;
}

size_t arena_match_worksize(int n, int m, int words)
{
	if (n < 0 || m < 0 || words < 1)
		return 0;
	struct layout L;
	plan(&L, n < 1 ? 1 : n, m, words);
	return L.total;
}

int arena_match(const struct arena_graph *g, int maxcard, int *mate, void *work, size_t worksize)
{
	if (!g || !mate || g->n < 0 || g->m < 0 || g->words < 1 || (g->m && (!g->eu || !g->ev || !g->w)))
		return ARENA_EINVAL;
	int n = g->n, m = g->m, W = g->words;
	for (int v = 0; v < n; v++)
		mate[v] = -1;
	if (n == 0)
		return 0;
	struct layout L;
	plan(&L, n, m, W);
	if (!work || worksize < L.total)
		return ARENA_EINVAL;
	char *base = (char *)(((uintptr_t)work + 15) & ~(uintptr_t)15);
	struct mstate S, *s = &S;
	s->n = n, s->m = m, s->W = W, s->maxcard = maxcard;
	s->eu = g->eu, s->ev = g->ev;
	s->w2 = (uint64_t *)(base + L.w2);
	s->endpoint = (int *)(base + L.endpoint);
	s->nbstart = (int *)(base + L.nbstart);
	s->nb = (int *)(base + L.nb);
	s->nbv = (int *)(base + L.nbv);
	s->nbw = (uint64_t *)(base + L.nbw);
	s->mate = (int *)(base + L.mate);
	s->label = (int *)(base + L.label);
	s->labelend = (int *)(base + L.labelend);
	s->inblossom = (int *)(base + L.inblossom);
	s->bparent = (int *)(base + L.bparent);
	s->bchilds = (int *)(base + L.bchilds);
	s->bnchild = (int *)(base + L.bnchild);
	s->bendps = (int *)(base + L.bendps);
	s->bbase = (int *)(base + L.bbase);
	s->bestedge = (int *)(base + L.bestedge);
	s->bbest = (int *)(base + L.bbest);
	s->bnbest = (int *)(base + L.bnbest);
	s->unused = (int *)(base + L.unused);
	s->dual = (uint64_t *)(base + L.dual);
	s->allow = (unsigned char *)(base + L.allow);
	s->queue = (int *)(base + L.queue);
	s->stack = (int *)(base + L.stack);
	s->leaves = (int *)(base + L.leaves);
	s->path = (int *)(base + L.path);
	s->bestto = (int *)(base + L.bestto);
	s->t1 = (uint64_t *)(base + L.tmp);
	s->t2 = s->t1 + W;
	s->t3 = s->t2 + W;

	/* Edges, their doubled weights, the adjacency lists, the largest weight. */
	uint64_t *maxw = s->t3;
	memset(maxw, 0, sizeof(uint64_t) * (size_t)W);
	memset(s->nbstart, 0, sizeof(int) * (size_t)(n + 1));
	for (int k = 0; k < m; k++) {
		int u = g->eu[k], v = g->ev[k];
		const uint64_t *wk = g->w + (size_t)k * (size_t)W;
		if (u < 0 || u >= n || v < 0 || v >= n || u == v || w_sign(wk, W) < 0)
			return ARENA_EINVAL;
		s->endpoint[2 * k] = u;
		s->endpoint[2 * k + 1] = v;
		w_add(s->w2 + (size_t)k * (size_t)W, wk, wk, W);
		if (w_cmp(wk, maxw, W) > 0)
			w_copy(maxw, wk, W);
		s->nbstart[u + 1]++;
		s->nbstart[v + 1]++;
	}
	for (int v = 0; v < n; v++)
		s->nbstart[v + 1] += s->nbstart[v];
	{
		int *fill = s->bestto; /* scratch: next free slot per vertex */
		for (int v = 0; v < n; v++)
			fill[v] = s->nbstart[v];
		for (int k = 0; k < m; k++) {
			const uint64_t *wk = s->w2 + (size_t)k * (size_t)W;
			int qu = fill[g->eu[k]]++, qv = fill[g->ev[k]]++;
			s->nb[qu] = 2 * k + 1;
			s->nbv[qu] = g->ev[k];
			w_copy(s->nbw + (size_t)qu * (size_t)W, wk, W);
			s->nb[qv] = 2 * k;
			s->nbv[qv] = g->eu[k];
			w_copy(s->nbw + (size_t)qv * (size_t)W, wk, W);
		}
	}
	for (int v = 0; v < n; v++) {
		s->mate[v] = -1;
		s->inblossom[v] = v;
	}
	for (int b = 0; b < 2 * n; b++) {
		s->label[b] = 0;
		s->labelend[b] = -1;
		s->bparent[b] = -1;
		s->bbase[b] = b < n ? b : -1;
		s->bestedge[b] = -1;
		s->bnbest[b] = -1;
		if (b < n)
			w_copy(DUAL(s, b), maxw, W);
		else
			memset(DUAL(s, b), 0, sizeof(uint64_t) * (size_t)W);
	}
	for (int b = 0; b < n; b++)
		s->bnchild[b] = 0;
	s->nunused = 0;
	for (int b = 2 * n - 1; b >= n; b--)
		s->unused[s->nunused++] = b;

	uint64_t *delta = s->t3, *d = s->t1; /* t2 is used by slack_less */
	for (int stage = 0; stage < n; stage++) {
		for (int b = 0; b < 2 * n; b++) {
			s->label[b] = 0;
			s->bestedge[b] = -1;
			if (b >= n)
				s->bnbest[b] = -1;
		}
		memset(s->allow, 0, (size_t)m);
		s->nqueue = 0;
		for (int v = 0; v < n; v++)
			if (s->mate[v] == -1 && s->label[s->inblossom[v]] == 0)
				assign_label(s, v, 1, -1);
		int augmented = 0;
		for (;;) {
			while (s->nqueue && !augmented) {
				int v = s->queue[--s->nqueue];
				for (int q = s->nbstart[v]; q < s->nbstart[v + 1]; q++) {
					int p = s->nb[q], k = p / 2, w = s->nbv[q];
					if (s->inblossom[v] == s->inblossom[w])
						continue;
					int kzero = 0;
					if (!s->allow[k]) {
						slack_of(s, v, w, s->nbw + (size_t)q * (size_t)W, d);
						if (w_sign(d, W) <= 0)
							s->allow[k] = 1;
						else
							kzero = 1;
					}
					if (s->allow[k]) {
						int bw = s->inblossom[w];
						if (s->label[bw] == 0) {
							assign_label(s, w, 2, p ^ 1);
						} else if (s->label[bw] == 1) {
							int bs = scan_blossom(s, v, w);
							if (bs >= 0) {
								add_blossom(s, bs, k);
							} else {
								augment_matching(s, k);
								augmented = 1;
								break;
							}
						} else if (s->label[w] == 0) {
							s->label[w] = 2;
							s->labelend[w] = p ^ 1;
						}
					} else if (kzero && s->label[s->inblossom[w]] == 1) {
						int b = s->inblossom[v];
						if (s->bestedge[b] == -1 || less_than(s, d, s->bestedge[b]))
							s->bestedge[b] = k;
					} else if (kzero && s->label[w] == 0) {
						if (s->bestedge[w] == -1 || less_than(s, d, s->bestedge[w]))
							s->bestedge[w] = k;
					}
				}
			}
			if (augmented)
				break;
			/* The largest dual change that keeps every slack >= 0. */
			int dtype = -1, dedge = -1, dblossom = -1;
			if (!maxcard) {
				dtype = 1;
				w_copy(delta, DUAL(s, 0), W);
				for (int v = 1; v < n; v++)
					if (w_cmp(DUAL(s, v), delta, W) < 0)
						w_copy(delta, DUAL(s, v), W);
			}
			for (int v = 0; v < n; v++) {
				if (s->label[s->inblossom[v]] == 0 && s->bestedge[v] != -1) {
					slack(s, s->bestedge[v], d);
					if (dtype == -1 || w_cmp(d, delta, W) < 0) {
						w_copy(delta, d, W);
						dtype = 2;
						dedge = s->bestedge[v];
					}
				}
			}
			for (int b = 0; b < 2 * n; b++) {
				if (s->bparent[b] == -1 && s->label[b] == 1 && s->bestedge[b] != -1 &&
				    (b < n || s->bbase[b] >= 0)) {
					slack(s, s->bestedge[b], d);
					w_half(d, d, W);
					if (dtype == -1 || w_cmp(d, delta, W) < 0) {
						w_copy(delta, d, W);
						dtype = 3;
						dedge = s->bestedge[b];
					}
				}
			}
			for (int b = n; b < 2 * n; b++) {
				if (s->bbase[b] >= 0 && s->bparent[b] == -1 && s->label[b] == 2 &&
				    (dtype == -1 || w_cmp(DUAL(s, b), delta, W) < 0)) {
					w_copy(delta, DUAL(s, b), W);
					dtype = 4;
					dblossom = b;
				}
			}
			if (dtype == -1) {
				/* maxcard: no further augmenting path; finish with type 1. */
				dtype = 1;
				w_copy(delta, DUAL(s, 0), W);
				for (int v = 1; v < n; v++)
					if (w_cmp(DUAL(s, v), delta, W) < 0)
						w_copy(delta, DUAL(s, v), W);
				if (w_sign(delta, W) < 0)
					memset(delta, 0, sizeof(uint64_t) * (size_t)W);
			}
			for (int v = 0; v < n; v++) {
				int lb = s->label[s->inblossom[v]];
				if (lb == 1)
					w_sub(DUAL(s, v), DUAL(s, v), delta, W);
				else if (lb == 2)
					w_add(DUAL(s, v), DUAL(s, v), delta, W);
			}
			for (int b = n; b < 2 * n; b++) {
				if (s->bbase[b] >= 0 && s->bparent[b] == -1) {
					if (s->label[b] == 1)
						w_add(DUAL(s, b), DUAL(s, b), delta, W);
					else if (s->label[b] == 2)
						w_sub(DUAL(s, b), DUAL(s, b), delta, W);
				}
			}
			if (dtype == 1)
				break;
			if (dtype == 2) {
				s->allow[dedge] = 1;
				int i = s->endpoint[2 * dedge], j = s->endpoint[2 * dedge + 1];
				if (s->label[s->inblossom[i]] == 0)
					i = j;
				s->queue[s->nqueue++] = i;
			} else if (dtype == 3) {
				s->allow[dedge] = 1;
				s->queue[s->nqueue++] = s->endpoint[2 * dedge];
			} else {
				expand_blossom(s, dblossom, 0);
			}
		}
		if (!augmented)
			break;
		for (int b = n; b < 2 * n; b++)
			if (s->bparent[b] == -1 && s->bbase[b] >= 0 && s->label[b] == 1 &&
			    w_sign(DUAL(s, b), W) == 0)
				expand_blossom(s, b, 1);
	}
	int pairs = 0;
	for (int v = 0; v < n; v++) {
		mate[v] = s->mate[v] >= 0 ? s->endpoint[s->mate[v]] : -1;
		if (mate[v] > v)
			pairs++;
	}
	return pairs;
}
