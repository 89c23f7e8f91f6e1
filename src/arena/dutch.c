/*
 * dutch.c - the FIDE Dutch Swiss system (Handbook C.04.3, rules of 2017) for
 * one round: arena_dutch_pair() (arena.h).
 *
 * Method: weighted matching, bracket by bracket (the approach of
 * bbpPairings, the FIDE-endorsed engine, described in its documentation;
 * this is an implementation of that idea from the rules, not of its code).
 *
 *  1. The active players are sorted by score, then pairing number (A.2). A
 *     first matching on the "may meet" graph (C1 no rematch, C3 no two
 *     non-topscorers with the same absolute colour preference, plus a bye
 *     vertex joined to the players who may get the PAB, C2) decides whether
 *     any legal pairing exists (ARENA_ENOPAIRING otherwise).
 *  2. Each bracket (the score group plus the players moved down into it) is
 *     paired by a maximum-weight matching over the bracket and the next
 *     score group, whose edge weights encode the quality criteria C5-C19 of
 *     section B.3 lexicographically, each in its own bit field, most
 *     significant first: pairs in this bracket (C5), its pairing score
 *     difference (C6, one field per distinct score difference so that the
 *     sorted list of differences compares as the rules say), pairs and score
 *     differences in the next bracket (C7), the colour criteria (C8-C11),
 *     the float criteria (C12-C19). In the penultimate pairing bracket
 *     (when pairing a bracket leaves the rest unpairable) and in the last
 *     one, the bracket is joined with everyone below and completing the
 *     round (C4) comes first, preferring that the one left out may have the
 *     bye.
 *  3. Among the matchings of best quality the rules (C.04.3 section D) take
 *     the first in their order of transpositions and exchanges. That choice
 *     is made by further matchings that add small terms to the weights, in
 *     the lowest bits: which moved-down players are paired (the highest
 *     first), their opponents (the highest-ranked possible), how many
 *     players are exchanged between S1 and S2 and which (the smallest
 *     exchanges first), and each S1 player's opponent (the first possible
 *     in S2). Each decision is fixed before the next is taken.
 *  4. Colours by section E: both preferences, the stronger one (the wider
 *     colour difference between two absolute ones), alternation to the last
 *     round where the two differ, the higher-ranked player's preference,
 *     and last the pairing number's parity against the initial colour.
 *
 * The weights are multi-limb integers (matching.h): the fields of a 200-player
 * bracket need more than 128 bits. Working memory (the weight matrices, the
 * matching's work area) is malloc'd on entry, again wider when a bracket's
 * fields need more limbs, and freed on return.
 */
#include <stdlib.h>
#include <string.h>

#include "arena/matching.h"
#include "arena/swiss.h"

#define ONE_POINT 10 /* A.8: the artificial score one point below the bracket */

struct dutch {
	const struct arena_swiss *t;
	int N;                 /* active players */
	struct sw_player *pl;  /* N, sorted by score then rank */
	unsigned char *met;    /* N * N: played each other */
	int top_threshold;     /* topscorer: score above it, in the last round */
	int last_round;

	/* The current bracket computation over `size` vertices. */
	int size, W;
	int *pbi;          /* vertex -> sorted index */
	uint64_t *base;    /* triangular [larger][smaller] weights */
	uint64_t *cw;      /* current weights */
	unsigned char *alive_base, *alive_cw;
	int *fixed;        /* vertex -> partner fixed in this bracket, -1 */
	unsigned char *matched; /* vertex -> paired in this bracket */
	int *remv;         /* the remainder's vertices */
	uint64_t *w1;      /* one weight of scratch */
	int *mate;         /* vertex -> partner in the last matching, self if none */

	/* The matching call. */
	int *eu, *ev;
	uint64_t *ew;
	int *vmap, *vback, *vmate;
	void *work;
	size_t worksize;
	int capsize; /* the largest size the buffers hold */
	int capW;
};

/* ---- small helpers -------------------------------------------------------- */

static int bits_for(long v)
{
	int b = 0;
	while (v > 0) {
		b++;
		v >>= 1;
	}
	return b;
}

static size_t tri(int larger, int smaller)
{
	return (size_t)larger * (size_t)(larger - 1) / 2 + (size_t)smaller;
}

static uint64_t *wbase(struct dutch *d, int a, int b)
{
	return d->base + tri(a, b) * (size_t)d->W;
}

static uint64_t *wcur(struct dutch *d, int a, int b)
{
	return d->cw + tri(a, b) * (size_t)d->W;
}

/* dst += v * 2^off (v signed; two's complement over W limbs). */
static void w_addshift(uint64_t *dst, int W, long long v, int off)
{
	if (!v)
		return;
	uint64_t mag = (uint64_t)(v < 0 ? -(v + 1) : v - 1) + 1; /* |v| without overflow */
	int limb = off / 64, sh = off % 64;
	uint64_t lo = mag << sh, hi = sh ? mag >> (64 - sh) : 0;
	if (v > 0) {
		uint64_t carry = 0;
		for (int i = limb; i < W; i++) {
			uint64_t a = i == limb ? lo : i == limb + 1 ? hi : 0;
			if (!a && !carry && i > limb + 1)
				break;
			uint64_t s = dst[i] + a;
			uint64_t c1 = s < a;
			uint64_t r = s + carry;
			carry = c1 | (r < s);
			dst[i] = r;
		}
	} else {
		uint64_t borrow = 0;
		for (int i = limb; i < W; i++) {
			uint64_t a = i == limb ? lo : i == limb + 1 ? hi : 0;
			if (!a && !borrow && i > limb + 1)
				break;
			uint64_t s = dst[i] - a;
			uint64_t b1 = dst[i] < a;
			uint64_t r = s - borrow;
			borrow = b1 | (s < borrow);
			dst[i] = r;
		}
	}
}

static void w_set(uint64_t *dst, const uint64_t *src, int W)
{
	memcpy(dst, src, sizeof(uint64_t) * (size_t)W);
}

/* ---- the players ------------------------------------------------------------ */

static int compatible(const struct dutch *d, int a, int b)
{
	const struct sw_player *p = &d->pl[a], *q = &d->pl[b];
	if (d->met[(size_t)a * (size_t)d->N + (size_t)b])
		return 0;
	if (!p->absolute || !q->absolute || p->pref != q->pref)
		return 1;
	return d->last_round && (p->score > d->top_threshold || q->score > d->top_threshold);
}

/* Is player a ranked above player b (score, then rank)? */
static int ranks_above(const struct sw_player *a, const struct sw_player *b)
{
	return a->score > b->score || (a->score == b->score && a->rank < b->rank);
}

/* The colours of the last round in which both played and their colours
 * differed (E.3): a's colour then, or SW_NONE. */
static int last_difference(const struct arena_swiss *t, int a, int b)
{
	const struct arena_game *ga = t->players[a].games, *gb = t->players[b].games;
	int i = t->played - 1, j = t->played - 1;
	for (;;) {
		while (i >= 0 && !sw_played(&ga[i]))
			i--;
		while (j >= 0 && !sw_played(&gb[j]))
			j--;
		if (i < 0 || j < 0)
			return SW_NONE;
		if (ga[i].color != gb[j].color)
			return ga[i].color == 'w' ? SW_WHITE : SW_BLACK;
		i--, j--;
	}
}

/* Section E: the colour player p gets against q. */
static int choose_color(const struct dutch *d, const struct sw_player *p, const struct sw_player *q)
{
	int c = SW_NONE;
	if (p->pref == SW_NONE || q->pref == SW_NONE || p->pref != q->pref) {
		/* E.1: both preferences can be granted (or one has none). */
		c = p->pref != SW_NONE ? p->pref : sw_invert(q->pref);
	} else if (p->absolute && (p->imbalance > q->imbalance || !q->absolute)) {
		c = p->pref; /* E.2 */
	} else if (q->absolute && (q->imbalance > p->imbalance || !p->absolute)) {
		c = sw_invert(q->pref);
	} else if (p->strong && !q->strong) {
		c = p->pref;
	} else if (q->strong && !p->strong) {
		c = sw_invert(q->pref);
	} else {
		int mine = last_difference(d->t, p->id, q->id); /* E.3: alternate */
		if (mine != SW_NONE)
			c = sw_invert(mine);
	}
	if (c != SW_NONE)
		return c;
	int initial = d->t->first_color == 'b' ? SW_BLACK : SW_WHITE;
	const struct sw_player *hi = ranks_above(p, q) ? p : q;
	if (p->pref != SW_NONE) /* E.4: the higher-ranked player's preference */
		return hi == p ? p->pref : sw_invert(q->pref);
	/* E.5: the higher-ranked player gets the initial colour with an odd
	 * pairing number (rank even, 0-based), the other one otherwise. */
	int hic = (hi->rank % 2 == 0) ? initial : sw_invert(initial);
	return hi == p ? hic : sw_invert(hic);
}

static int grow_weights(struct dutch *d, int W);

/* ---- one bracket ------------------------------------------------------------ */

struct layout {
	int G;        /* width of a counting field */
	int nsd;      /* distinct score differences */
	int sdval[1024]; /* ascending; more distinct score differences in one
	                    bracket than this is ARENA_ERANGE */
	int pcb;      /* bits for the residents' count (the ordering fields) */
	int lo;       /* where the ordering fields start: below them, a tie-break
	                 that only chooses among equally good matchings */
	int off_compl, off_pairs, off_psd, off_npairs, off_npsd, off_col[4], off_fl[4],
		off_flsd[4];
	int total;
};

static int sd_index(const struct layout *L, int v)
{
	for (int i = 0; i < L->nsd; i++)
		if (L->sdval[i] == v)
			return i;
	return -1;
}

/* Adds v to the distinct score differences; -1 when there are too many. */
static int add_sd(struct layout *L, int v)
{
	if (sd_index(L, v) >= 0)
		return 0;
	if (L->nsd >= (int)(sizeof L->sdval / sizeof L->sdval[0]))
		return -1;
	int i = L->nsd++;
	while (i > 0 && L->sdval[i - 1] > v) {
		L->sdval[i] = L->sdval[i - 1];
		i--;
	}
	L->sdval[i] = v;
	return 0;
}

static int score_of(const struct dutch *d, int v)
{
	return d->pl[d->pbi[v]].score;
}

/* Places float criterion k (0, 1: the previous round; 2, 3: the one before)
 * of `width` bits at *o when that round exists; its offset or -1. */
static int float_field(int played, int k, int width, int *o)
{
	if (played < (k >= 2 ? 2 : 1))
		return -1;
	int at = *o;
	*o += width;
	return at;
}

/* Field offsets from the bottom, least significant first. */
static void plan_fields(struct dutch *d, struct layout *L, int sgb, int nsgb, int special,
			int final)
{
	int played = d->t->played;
	L->G = bits_for(d->size) + 3;
	L->pcb = bits_for(nsgb - sgb);
	int G = L->G, SDW = L->nsd * G, o = 0;
	L->lo = 3 * bits_for(d->size) + 1; /* the tie-break (edge_weight) */
	o = L->lo;
	o += 3 * L->pcb + 1; /* the ordering terms */
	/* The float criteria, least significant first: the score differences
	 * (C19, C18: two rounds back; C17, C16), then the counts (C15 ... C12);
	 * a criterion about a round not played yet has no field (-1). */
	for (int k = 3; k >= 0; k--)
		L->off_flsd[k] = float_field(played, k, SDW, &o);
	for (int k = 3; k >= 0; k--)
		L->off_fl[k] = float_field(played, k, G, &o);
	for (int k = 3; k >= 0; k--) {
		L->off_col[k] = o; /* C11, C10, C9, C8 */
		o += G;
	}
	L->off_npsd = L->off_npairs = -1;
	if (!special) {
		L->off_npsd = o;
		o += SDW;
		L->off_npairs = o;
		o += G + (final ? 3 : 0);
	}
	L->off_psd = o;
	o += SDW;
	L->off_pairs = o;
	o += G;
	L->off_compl = -1;
	if (special) {
		L->off_compl = o;
		o += G + 2;
	}
	L->total = o;
}

/* The basic weight of the edge between vertices h < l (C.04.3 B.3). */
static void edge_weight(struct dutch *d, const struct layout *L, int h, int l, int nsgb,
			int special, int final, int minscore, int mincur, uint64_t *w)
{
	int W = d->W;
	memset(w, 0, sizeof(uint64_t) * (size_t)W);
	const struct sw_player *H = &d->pl[d->pbi[h]], *P = &d->pl[d->pbi[l]];
	int lcur = l < nsgb, hcur = h < nsgb;
	int sh = H->score, sl = P->score;
	int played = d->t->played;
#define SD(v) (sd_index(L, (v)) * L->G)
	if (special)
		w_addshift(w, W, 1 + !H->bye_ok + !P->bye_ok, L->off_compl);
	if (lcur) {
		w_addshift(w, W, 1, L->off_pairs);
		w_addshift(w, W, 1, L->off_psd + SD(sh - mincur + ONE_POINT));
		w_addshift(w, W, 1, L->off_psd + SD(sl - mincur + ONE_POINT));
		w_addshift(w, W, -1, L->off_psd + SD(sh - sl));
	}
	if (!special) {
		if (final)
			w_addshift(w, W, 1 + !H->bye_ok + !P->bye_ok, L->off_npairs);
		else if (!lcur)
			w_addshift(w, W, 1, L->off_npairs);
		if (hcur)
			w_addshift(w, W, 1, L->off_npsd + SD(sh - minscore + ONE_POINT));
		if (lcur)
			w_addshift(w, W, 1, L->off_npsd + SD(sl - minscore + ONE_POINT));
	}
	if (lcur) {
		/* Colours, seen from the lower player p against h. */
		const struct sw_player *p = P, *o = H;
		int same = p->pref == o->pref;
		int c8 = !(p->imbalance > 1 && o->imbalance > 1 && same);
		int c9 = !p->absolute || !o->absolute || !same;
		if (!c9) {
			if (p->imbalance == o->imbalance)
				c9 = p->repeated == SW_NONE || p->repeated != o->repeated;
			else
				c9 = (p->imbalance > o->imbalance ? o : p)->repeated != sw_invert(p->pref);
		}
		int c10 = p->pref == SW_NONE || o->pref == SW_NONE || !same;
		int c11 = (!p->strong && !p->absolute) || (!o->strong && !o->absolute) ||
			  (p->absolute && o->absolute) || !same;
		w_addshift(w, W, c8, L->off_col[0]);
		w_addshift(w, W, c9, L->off_col[1]);
		w_addshift(w, W, c10, L->off_col[2]);
		w_addshift(w, W, c11, L->off_col[3]);
	}
	for (int back = 1; back <= 2; back++) {
		if (played < back || !lcur)
			continue;
		int kd = back == 1 ? 0 : 2, ku = kd + 1;
		/* C12/C14: repeated downfloats avoided; C13/C15: repeated upfloats. */
		w_addshift(w, W, (P->fl[back] == SW_FLOAT_DOWN) + (sh <= sl && H->fl[back] == SW_FLOAT_DOWN),
			   L->off_fl[kd]);
		if (sh > sl && P->fl[back] == SW_FLOAT_UP)
			w_addshift(w, W, -1, L->off_fl[ku]);
		/* C16/C18 and C17/C19: their score differences. */
		if (P->fl[back] == SW_FLOAT_DOWN)
			w_addshift(w, W, 1, L->off_flsd[kd] + SD(sl - minscore + ONE_POINT));
		if (H->fl[back] == SW_FLOAT_DOWN) {
			w_addshift(w, W, 1, L->off_flsd[kd] + SD(sh - minscore + ONE_POINT));
			if (sh > sl)
				w_addshift(w, W, -1, L->off_flsd[kd] + SD(sh - sl));
		}
		if (P->fl[back] == SW_FLOAT_UP && sh > sl)
			w_addshift(w, W, -1, L->off_flsd[ku] + SD(sh - sl));
	}
#undef SD
	/* The tie-break below every criterion: among equally good matchings,
	 * players close in the ranking. It makes the matching the rules' order
	 * picks the likely optimum, so that most of the ordering steps below
	 * find their choice made and skip a matching; it never changes a
	 * choice (they compare only the fields above it). */
	long long span = (long long)(l - h) * (l - h);
	w_addshift(w, W, (long long)d->size * d->size - span, 0);
}

/* Runs the matching over the bracket's vertices that are not fixed yet, on
 * the current weights; d->mate[v] = partner, or v itself. */
static int rematch(struct dutch *d)
{
	int n = 0, m = 0, W = d->W;
	for (int v = 0; v < d->size; v++) {
		d->vmap[v] = -1;
		if (d->fixed[v] < 0) {
			d->vmap[v] = n;
			d->vback[n++] = v;
		}
	}
	for (int a = 1; a < d->size; a++) {
		if (d->vmap[a] < 0)
			continue;
		for (int b = 0; b < a; b++) {
			if (d->vmap[b] < 0 || !d->alive_cw[tri(a, b)])
				continue;
			d->eu[m] = d->vmap[b];
			d->ev[m] = d->vmap[a];
			w_set(d->ew + (size_t)m * (size_t)W, wcur(d, a, b), W);
			m++;
		}
	}
	struct arena_graph g = {n, m, W, d->eu, d->ev, d->ew};
	int r = arena_match(&g, 0, d->vmate, d->work, d->worksize);
	if (r < 0)
		return r;
	for (int v = 0; v < d->size; v++)
		d->mate[v] = d->fixed[v] >= 0 ? d->fixed[v] : v;
	for (int i = 0; i < n; i++)
		if (d->vmate[i] >= 0)
			d->mate[d->vback[i]] = d->vback[d->vmate[i]];
	return 0;
}

static void set_cur(struct dutch *d, int a, int b, const uint64_t *w, int alive)
{
	if (a < b) {
		int t = a;
		a = b;
		b = t;
	}
	size_t k = tri(a, b);
	d->alive_cw[k] = (unsigned char)alive;
	w_set(d->cw + k * (size_t)d->W, w, d->W);
}

static void kill_base(struct dutch *d, int a, int b)
{
	if (a < b) {
		int t = a;
		a = b;
		b = t;
	}
	d->alive_base[tri(a, b)] = 0;
}

static int base_alive(struct dutch *d, int a, int b)
{
	return a > b ? d->alive_base[tri(a, b)] : d->alive_base[tri(b, a)];
}

/* The base weight of (smaller s, larger l) plus the exchange terms: one for
 * an S1 player (remainder index ri < rpairs) shifted above the terms that
 * prefer small remainder indices. tmp receives it; returns alive. */
static int exch_weight(struct dutch *d, const struct layout *L, int s, int l, int ri, int rpairs,
		       uint64_t *tmp)
{
	if (!base_alive(d, s, l))
		return 0;
	w_set(tmp, wbase(d, l, s), d->W);
	w_addshift(tmp, d->W, (long long)(ri < rpairs) << (2 * L->pcb + 1), L->lo);
	w_addshift(tmp, d->W, -2LL * ri, L->lo);
	return 1;
}

/* ---- the round ---------------------------------------------------------------- */

static int cmp_rank(const void *a, const void *b)
{
	const struct sw_player *p = a, *q = b;
	if (p->score != q->score)
		return p->score > q->score ? -1 : 1;
	return p->rank - q->rank;
}

/* Whether the players not fixed yet (plus a bye vertex when their number is
 * odd) can all be paired: the completion check of C4. */
static int completable(struct dutch *d, const int *vfixed)
{
	int N = d->N, n = 0, m = 0;
	for (int v = 0; v < N; v++) {
		d->vmap[v] = -1;
		if (vfixed[v] < 0) {
			d->vmap[v] = n;
			d->vback[n++] = v;
		}
	}
	int bye = -1;
	if (n % 2)
		bye = n++;
	for (int a = 0; a < N; a++) {
		if (d->vmap[a] < 0)
			continue;
		for (int b = a + 1; b < N; b++)
			if (d->vmap[b] >= 0 && compatible(d, a, b)) {
				d->eu[m] = d->vmap[a];
				d->ev[m] = d->vmap[b];
				d->ew[m] = 1;
				m++;
			}
		if (bye >= 0 && d->pl[a].bye_ok) {
			d->eu[m] = d->vmap[a];
			d->ev[m] = bye;
			d->ew[m] = 1;
			m++;
		}
	}
	struct arena_graph g = {n, m, 1, d->eu, d->ev, d->ew};
	int r = arena_match(&g, 0, d->vmate, d->work, d->worksize);
	if (r < 0)
		return r;
	return 2 * r == n;
}

static int run_round(struct dutch *d, int *partner, int *byep)
{
	int N = d->N;
	int *vfixed = partner; /* sorted index -> partner (sorted index), -1 */
	for (int i = 0; i < N; i++)
		vfixed[i] = -1;
	int ok = completable(d, vfixed);
	if (ok < 0)
		return ok;
	if (!ok)
		return ARENA_ENOPAIRING;

	int *pbi = d->pbi, size = 0, iter = 0, sgb = 0;
	while (iter < N && d->pl[iter].score >= d->pl[0].score)
		pbi[size++] = iter++;
	int special = iter == N;
	unsigned char *matched = d->matched;
	while (size > 1 || iter < N) {
		int nsgb = size, sgiter = iter;
		while (iter < N && (special || d->pl[iter].score >= d->pl[sgiter].score))
			pbi[size++] = iter++;
		int final = iter == N;
		d->size = size;
		/* A.8: a downfloater's score difference is taken against one point
		 * below the lowest score of the current bracket (mincur); for the
		 * next bracket's and the float criteria, below the lowest score the
		 * matching sees (minscore). (bbpPairings takes the latter for C6
		 * too; no tournament of the checks showed a difference.) */
		int minscore = score_of(d, size - 1), mincur = score_of(d, nsgb - 1);

		/* The score differences that occur: downfloaters against the
		 * artificial value, pairs inside the bracket (A.8). */
		struct layout L;
		L.nsd = 0;
		int sderr = 0;
		for (int p = 0; p < nsgb; p++) {
			sderr |= add_sd(&L, score_of(d, p) - minscore + ONE_POINT);
			sderr |= add_sd(&L, score_of(d, p) - mincur + ONE_POINT);
			int first = p + 1 > sgb ? p + 1 : sgb;
			for (int o = first; o < nsgb; o++)
				sderr |= add_sd(&L, score_of(d, p) - score_of(d, o));
		}
		if (sderr)
			return ARENA_ERANGE;
		plan_fields(d, &L, sgb, nsgb, special, final);
		d->W = (L.total + 4 + 63) / 64;
		if (d->W > d->capW && grow_weights(d, d->W) < 0)
			return ARENA_ENOMEM;
		int W = d->W;

		for (int l = 1; l < size; l++)
			for (int h = 0; h < l; h++) {
				size_t k = tri(l, h);
				int alive = l >= sgb && compatible(d, d->pbi[h], d->pbi[l]);
				d->alive_base[k] = d->alive_cw[k] = (unsigned char)alive;
				if (alive) {
					edge_weight(d, &L, h, l, nsgb, special, final, minscore, mincur,
						    d->base + k * (size_t)W);
					w_set(d->cw + k * (size_t)W, d->base + k * (size_t)W, W);
				}
			}
		for (int v = 0; v < size; v++) {
			d->fixed[v] = -1;
			if (v < nsgb)
				matched[v] = 0;
		}
		int r = rematch(d);
		if (r < 0)
			return r;
		int R = nsgb - sgb;
		uint64_t *w1 = d->w1;

		/* Which moved-down players are paired inside the bracket. */
		int mdscore = 0, rem = 0, remmatched = 0;
		for (int i = 0; i < sgb; i++) {
			if (i == 0 || score_of(d, i) < mdscore) {
				mdscore = score_of(d, i);
				rem = remmatched = 0;
				for (int j = i; j < size && score_of(d, j) >= mdscore; j++) {
					rem++;
					if (d->mate[j] >= sgb && d->mate[j] < nsgb)
						remmatched++;
				}
			}
			if (!remmatched)
				continue;
			if (rem <= remmatched) {
				matched[i] = 1;
				continue;
			}
			rem--;
			if (d->mate[i] < sgb || d->mate[i] >= nsgb) {
				for (int o = sgb; o < nsgb; o++) {
					if (!base_alive(d, i, o))
						continue;
					w_set(w1, wbase(d, o, i), W);
					w_addshift(w1, W, 1, L.lo);
					set_cur(d, i, o, w1, 1);
				}
				if ((r = rematch(d)) < 0)
					return r;
			}
			if (d->mate[i] >= sgb && d->mate[i] < nsgb) {
				matched[i] = 1;
				remmatched--;
				for (int o = sgb; o < nsgb; o++) {
					if (!base_alive(d, i, o))
						continue;
					w_set(w1, wbase(d, o, i), W);
					w_addshift(w1, W, R + 1, L.lo);
					set_cur(d, i, o, w1, 1);
				}
			}
		}

		/* Their opponents: the highest-ranked resident possible. */
		for (int i = 0; i < sgb; i++) {
			if (!matched[i])
				continue;
			long long addend = size;
			int first = -1;
			for (int o = nsgb - 1; o >= sgb; o--) {
				if (matched[o])
					continue;
				if (base_alive(d, i, o)) {
					w_set(w1, wbase(d, o, i), W);
					w_addshift(w1, W, addend, L.lo);
					set_cur(d, i, o, w1, 1);
					addend++;
					first = o;
				}
			}
			/* Already with the first choice: the matching stays optimal
			 * under the new weights and no other partner is (skip). */
			if (d->mate[i] != first && (r = rematch(d)) < 0)
				return r;
			int m = d->mate[i];
			matched[m] = 1;
			d->fixed[i] = m;
			d->fixed[m] = i;
			vfixed[d->pbi[i]] = d->pbi[m];
			vfixed[d->pbi[m]] = d->pbi[i];
		}

		/* The remainder: residents not paired with a moved-down player.
		 * S1 is its first `rpairs` players. */
		int *remv = d->remv;
		int nrem = 0, rpairs = 0;
		for (int p = sgb; p < nsgb; p++) {
			if (d->mate[p] < sgb)
				continue;
			remv[nrem++] = p;
			if (d->mate[p] < p)
				rpairs++;
		}
		for (int a = 0; a < nrem; a++)
			for (int b = 0; b < a; b++) {
				int al = exch_weight(d, &L, remv[b], remv[a], b, rpairs, w1);
				set_cur(d, remv[b], remv[a], w1, al);
			}
		if ((r = rematch(d)) < 0)
			return r;
		int exchanges = 0;
		for (int a = 0; a < rpairs && a < nrem; a++) {
			int p = remv[a];
			exchanges += d->mate[p] <= p || d->mate[p] >= nsgb;
		}
		/* The lowest S1 players to move into S2, where possible. */
		int left = exchanges;
		for (int a = rpairs - 1; a >= 0 && left; a--) {
			int p = remv[a];
			if (d->mate[p] > p && d->mate[p] < nsgb) {
				for (int b = a + 1; b < nrem; b++) {
					if (!exch_weight(d, &L, p, remv[b], a, rpairs, w1))
						continue;
					w_addshift(w1, W, -1, L.lo);
					set_cur(d, p, remv[b], w1, 1);
				}
				if ((r = rematch(d)) < 0)
					return r;
			}
			int ex = d->mate[p] <= p || d->mate[p] >= nsgb;
			left -= ex;
			for (int b = a + 1; b < nrem; b++) {
				if (ex)
					kill_base(d, p, remv[b]);
				int al = exch_weight(d, &L, p, remv[b], a, rpairs, w1);
				set_cur(d, p, remv[b], w1, al);
			}
		}
		/* The highest S2 players to move into S1, where possible. */
		left = exchanges;
		for (int a = rpairs; a < nrem && left > 1; a++) {
			int p = remv[a];
			int already = d->mate[p] > p && d->mate[p] < nsgb;
			if (!already) {
				for (int b = a + 1; b < nrem; b++) {
					if (!exch_weight(d, &L, p, remv[b], a, rpairs, w1))
						continue;
					w_addshift(w1, W, 1, L.lo);
					set_cur(d, p, remv[b], w1, 1);
				}
				if ((r = rematch(d)) < 0)
					return r;
			}
			int ex = d->mate[p] > p && d->mate[p] < nsgb;
			if (ex) {
				left--;
				for (int b = 0; b < a; b++) {
					kill_base(d, p, remv[b]);
					set_cur(d, p, remv[b], w1, 0);
				}
				for (int o = nsgb; o < size; o++) {
					kill_base(d, p, o);
					set_cur(d, p, o, w1, 0);
				}
			}
			if (!already)
				for (int b = a + 1; b < nrem; b++) {
					int al = exch_weight(d, &L, p, remv[b], a, rpairs, w1);
					set_cur(d, p, remv[b], w1, al);
				}
		}
		/* Fix the roles: an S1 player may only meet an S2 player now. */
		for (int a = 0; a < nrem; a++)
			for (int b = a + 1; b < nrem; b++) {
				int p = remv[a], o = remv[b];
				if (d->mate[p] <= p || d->mate[p] >= nsgb ||
				    (d->mate[o] > o && d->mate[o] < nsgb))
					kill_base(d, p, o);
				int al = base_alive(d, p, o);
				set_cur(d, p, o, wbase(d, o, p), al);
			}
		/* Each S1 player, in order, meets the first S2 player possible. */
		for (int a = 0; a < nrem; a++) {
			int p = remv[a];
			if (!(d->mate[p] > p && d->mate[p] < nsgb))
				continue;
			long long addend = 0;
			int first = -1;
			for (int b = nrem - 1; b >= 0; b--) {
				int o = remv[b];
				if (o <= p || matched[o])
					continue;
				if (base_alive(d, p, o)) {
					w_set(w1, wbase(d, o, p), W);
					w_addshift(w1, W, addend, L.lo);
					set_cur(d, p, o, w1, 1);
					first = o;
				}
				addend++;
			}
			if (d->mate[p] != first && (r = rematch(d)) < 0)
				return r;
			int m = d->mate[p];
			matched[p] = matched[m] = 1;
			d->fixed[p] = m;
			d->fixed[m] = p;
			vfixed[d->pbi[p]] = d->pbi[m];
			vfixed[d->pbi[m]] = d->pbi[p];
		}

		if (!special) {
			/* C4: can the rest still be paired? If not, this is the
			 * penultimate bracket: pair it again with everyone below. */
			int okc = completable(d, vfixed);
			if (okc < 0)
				return okc;
			if (!okc) {
				for (int v = 0; v < nsgb; v++)
					if (d->fixed[v] >= 0)
						vfixed[d->pbi[v]] = -1;
				size = nsgb;
				iter = sgiter;
				special = 1;
				continue;
			}
		}
		special = iter == N;
		int nsize = 0, nsg = 0;
		for (int v = 0; v < size; v++) {
			if (v < nsgb && matched[v])
				continue;
			pbi[nsize++] = pbi[v];
			if (v < nsgb)
				nsg++;
		}
		size = nsize;
		sgb = nsg;
	}
	*byep = size == 1 ? pbi[0] : -1; /* the bye, or none */
	return 0;
}

/* (Re)allocates what depends on the weights' width: the two weight
 * matrices, the matching's edges and work area. */
static int grow_weights(struct dutch *d, int W)
{
	int n = d->capsize;
	size_t tris = (size_t)n * (size_t)(n - 1) / 2 + 1, medges = tris + (size_t)n;
	free(d->base);
	free(d->cw);
	free(d->ew);
	free(d->work);
	free(d->w1);
	d->capW = W;
	d->base = malloc(sizeof(uint64_t) * tris * (size_t)W);
	d->cw = malloc(sizeof(uint64_t) * tris * (size_t)W);
	d->ew = malloc(sizeof(uint64_t) * medges * (size_t)W);
	d->w1 = malloc(sizeof(uint64_t) * (size_t)W);
	d->worksize = arena_match_worksize(n + 1, (int)medges, W);
	d->work = malloc(d->worksize);
	return d->base && d->cw && d->ew && d->w1 && d->work ? 0 : ARENA_ENOMEM;
}

/* Sizes the buffers for brackets of up to n vertices. */
static int alloc_buffers(struct dutch *d, int n, int W)
{
	size_t tris = (size_t)n * (size_t)(n - 1) / 2 + 1;
	size_t medges = tris + (size_t)n;
	d->capsize = n;
	d->pbi = malloc(sizeof(int) * (size_t)n);
	d->alive_base = malloc(tris);
	d->alive_cw = malloc(tris);
	d->fixed = malloc(sizeof(int) * (size_t)n);
	d->matched = malloc((size_t)n);
	d->remv = malloc(sizeof(int) * (size_t)n);
	d->mate = malloc(sizeof(int) * (size_t)n);
	d->eu = malloc(sizeof(int) * medges);
	d->ev = malloc(sizeof(int) * medges);
	d->vmap = malloc(sizeof(int) * (size_t)(n + 1));
	d->vback = malloc(sizeof(int) * (size_t)(n + 1));
	d->vmate = malloc(sizeof(int) * (size_t)(n + 1));
	d->met = calloc((size_t)n * (size_t)n, 1);
	d->pl = malloc(sizeof(struct sw_player) * (size_t)n);
	return grow_weights(d, W) == 0 && d->pbi && d->alive_base && d->alive_cw && d->fixed &&
	       d->matched && d->remv && d->mate && d->eu && d->ev && d->vmap && d->vback &&
	       d->vmate && d->met && d->pl;
}

static void free_buffers(struct dutch *d)
{
	free(d->pbi);
	free(d->base);
	free(d->cw);
	free(d->w1);
	free(d->alive_base);
	free(d->alive_cw);
	free(d->fixed);
	free(d->matched);
	free(d->remv);
	free(d->mate);
	free(d->eu);
	free(d->ev);
	free(d->ew);
	free(d->vmap);
	free(d->vback);
	free(d->vmate);
	free(d->work);
	free(d->met);
	free(d->pl);
}

/* Board order (C.04.2): the pair's higher score, its lower score, the
 * higher player's rank; the bye last. */
struct board {
	int hi_score, lo_score, hi_rank;
	struct arena_pair pair;
};

static int cmp_board(const void *a, const void *b)
{
	const struct board *x = a, *y = b;
	if (x->hi_score != y->hi_score)
		return x->hi_score > y->hi_score ? -1 : 1;
	if (x->lo_score != y->lo_score)
		return x->lo_score > y->lo_score ? -1 : 1;
	return x->hi_rank - y->hi_rank;
}

int arena_dutch_pair(const struct arena_swiss *t, struct arena_pair *out, int cap)
{
	int err = arena_swiss_check(t);
	if (err < 0)
		return err;
	if (!out && cap)
		return ARENA_EINVAL;
	struct dutch D, *d = &D;
	memset(d, 0, sizeof D);
	d->t = t;
	int N = 0;
	for (int p = 0; p < t->n; p++)
		N += t->players[p].active != 0;
	if (cap < (N + 1) / 2)
		return ARENA_ENOSPACE;
	if (N == 0)
		return 0;
	/* Limbs for a typical bracket; a wider one grows them (grow_weights). */
	int W = 4;
	if (!alloc_buffers(d, N + 1, W)) {
		free_buffers(d);
		return ARENA_ENOMEM;
	}
	/* The players that count for the ranks: those paired now and those who
	 * took part in an earlier pairing. */
	int rank = 0, k = 0;
	for (int p = 0; p < t->n; p++) {
		int counts = t->players[p].active != 0;
		for (int r = 0; r < t->played && !counts; r++)
			counts = sw_participated(&t->players[p].games[r]);
		int myrank = counts ? rank++ : -1;
		if (!t->players[p].active)
			continue;
		sw_player_init(t, p, &d->pl[k]);
		d->pl[k].rank = myrank;
		k++;
	}
	d->N = N;
	qsort(d->pl, (size_t)N, sizeof d->pl[0], cmp_rank);
	{
		int *idx = malloc(sizeof(int) * (size_t)t->n);
		if (!idx) {
			free_buffers(d);
			return ARENA_ENOMEM;
		}
		for (int p = 0; p < t->n; p++)
			idx[p] = -1;
		for (int i = 0; i < N; i++)
			idx[d->pl[i].id] = i;
		for (int i = 0; i < N; i++) {
			const struct arena_game *g = t->players[d->pl[i].id].games;
			for (int r = 0; r < t->played; r++)
				if (sw_played(&g[r]) && idx[g[r].opp] >= 0)
					d->met[(size_t)i * (size_t)N + (size_t)idx[g[r].opp]] = 1;
		}
		free(idx);
	}
	int win = t->points.win > t->points.draw ? t->points.win : t->points.draw;
	d->top_threshold = t->played * win / 2;
	d->last_round = t->rounds > 0 && t->played >= t->rounds - 1;

	int *partner = malloc(sizeof(int) * (size_t)N);
	struct board *boards = malloc(sizeof(struct board) * (size_t)(N / 2 + 1));
	if (!partner || !boards) {
		free(partner);
		free(boards);
		free_buffers(d);
		return ARENA_ENOMEM;
	}
	int bye = -1;
	int rr = run_round(d, partner, &bye);
	int nb = 0;
	if (rr == 0) {
		for (int i = 0; i < N; i++) {
			int j = partner[i];
			if (j < 0 || i > j)
				continue;
			const struct sw_player *a = &d->pl[i], *b = &d->pl[j];
			/* Colour from the side of the smaller pairing number. */
			const struct sw_player *p = a->id < b->id ? a : b, *q = p == a ? b : a;
			int c = choose_color(d, p, q);
			struct board *bd = &boards[nb++];
			bd->pair.white = c == SW_WHITE ? p->id : q->id;
			bd->pair.black = c == SW_WHITE ? q->id : p->id;
			const struct sw_player *hi = ranks_above(a, b) ? a : b, *lo = hi == a ? b : a;
			bd->hi_score = hi->score;
			bd->lo_score = lo->score;
			bd->hi_rank = hi->rank;
		}
		qsort(boards, (size_t)nb, sizeof boards[0], cmp_board);
		for (int i = 0; i < nb; i++)
			out[i] = boards[i].pair;
		if (bye >= 0) {
			out[nb].white = d->pl[bye].id;
			out[nb].black = -1;
			nb++;
		}
	}
	free(partner);
	free(boards);
	free_buffers(d);
	return rr == 0 ? nb : rr;
}
