/*
 * cmd_book.c - `bitarena book`: makes the opening books of data/books/
 * (docs/books.md tells how each shipped one was made) and checks book files.
 *
 *   bitarena book tak size=N [komi=K] [--plies P] [--depth D] [--keep K]
 *                 [--sample S] [--trial-nodes T] [--nodes N] [--max-plies M]
 *       1. every opening of P flat placements (default 4), one per position up
 *       to the board's symmetries and transpositions, scored by the Tak search
 *       (tak_search.h) at depths D and D + 1 (2), averaged (one depth alone
 *       swings by a tempo between odd and even depths), and put in score
 *       order. 2. Windows of K (300) consecutive openings are tried: S (100)
 *       of a window played four times each, colours swapped, by the search at
 *       T and 2T nodes a move (1000), then at 1.5T and 3T. White's score is
 *       taken to grow with the search's score; the window where it comes
 *       closest to half (the lowest one when White scores more even there) is
 *       found by bisection, and is the book. 3. The book is played again by
 *       the search at N and 2N nodes a move (5000), each opening twice, to
 *       measure what White scores over it. Games are drawn at M plies (300)
 *       and at the third repetition (adjudicate.h).
 *   bitarena book ttt|mnk [m=.. n=.. k=..] [--plies P] [--depth D]
 *       every opening of P moves (default 1) up to symmetry, each named with
 *       its value for X by the game's search (search.h) to depth D (9).
 *   bitarena book xmas [pool=.. league=..] [--count N] [--seed S]
 *       N (64) map seeds drawn from the seeded generator of core/rng.h.
 *   bitarena book check FILE... [--kind "tak size=6"]
 *       reads each book through book.h and says how many openings it holds
 *       or which line it refuses.
 * A book goes to stdout, its header comment holding the command and the
 * figures measured while making it; progress goes to stderr. Everything is
 * deterministic (fixed depths and node counts, tables cleared before each
 * search or game): the same command makes the same book.
 *
 * Why a subcommand and not a bench/ script: the generator needs the engine's
 * replayer, its search and the boards' symmetries over tens of thousands of
 * positions; a script would drive `bitarena tei` through pipes and still
 * need the rules for the symmetries. As a subcommand it also serves anyone
 * who wants a book for another size or komi.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arena/stats.h"
#include "cli.h"
#include "config.h"
#include "core/rng.h"
#include "games/adjudicate.h"
#include "games/book.h"
#include "games/game.h"
#include "games/game_replay.h"
#include "games/search.h"
#include "games/tak/tak.h"
#include "games/tak/tak_search.h"

int cmd_book(int argc, char **argv);

#define KEY_MAX   256 /* a position text */
#define LIST_MAX  64  /* a move list of at most MAX_PLIES squares */
#define MAX_PLIES 8
#define TT_MB     4 /* the generator's searchers: small, cleared before every search */

/* One opening while the book is made. */
struct cand {
	char key[KEY_MAX];    /* the least position text over the board's symmetries */
	char moves[LIST_MAX]; /* a move list that reaches the position */
	double score;         /* Tak: the search's score, centiflats for White */
};

struct cands {
	struct cand *v;
	size_t n, cap;
};

/* The maker's settings and scratch. */
struct gen {
	const struct game_ops *ops;
	struct game_params p;
	char kind[128]; /* "tak size=5 komi=0" */
	int w, h, nsym;
	unsigned char *st;
	int plies;
	char command[512]; /* the command line, for the header */
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int push(struct cands *c, const struct cand *x)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 1024;
		struct cand *v = realloc(c->v, cap * sizeof *v);
		if (v == NULL)
			return -1;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = *x;
	return 0;
}

/* --- positions up to symmetry -------------------------------------------------------- */

/* Symmetry s of the board: a transposition (square boards only) and flips. */
static void sym_map(const struct gen *g, int s, int *x, int *y)
{
	if (s & 4) {
		int t = *x;
		*x = *y;
		*y = t;
	}
	if (s & 1)
		*x = g->w - 1 - *x;
	if (s & 2)
		*y = g->h - 1 - *y;
}

/* Plays the squares of list, seen through symmetry s, from the start into g->st. */
static int play_list(struct gen *g, const char *list, int s)
{
	char buf[LIST_MAX], texts[MAX_PLIES][16], *save = NULL;
	struct game_ply plies[MAX_PLIES];
	size_t n = 0;
	snprintf(buf, sizeof buf, "%s", list);
	for (char *w = strtok_r(buf, " ", &save); w && n < MAX_PLIES;
	     w = strtok_r(NULL, " ", &save)) {
		int x = w[0] - 'a', y = atoi(w + 1) - 1;
		sym_map(g, s, &x, &y);
		snprintf(texts[n], sizeof texts[n], "%c%d", 'a' + x, y + 1);
		plies[n] = (struct game_ply){.seat = -1, .act = GAME_ACT_MOVE, .text = texts[n]};
		n++;
	}
	struct game_replay_stop stop;
	return game_replay_moves(g->ops, &g->p, 0, plies, n, g->st, &stop);
}

/* The class of list: the least position text over the symmetries. */
static int class_key(struct gen *g, const char *list, char *key)
{
	char text[KEY_MAX];
	key[0] = '\0';
	for (int s = 0; s < g->nsym; s++) {
		if (play_list(g, list, s) != GAME_OK || g->ops->save(g->st, text, sizeof text) < 0)
			return -1;
		if (s == 0 || strcmp(text, key) < 0)
			memcpy(key, text, sizeof text);
	}
	return 0;
}

static int by_key_then_moves(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : strcmp(x->moves, y->moves);
}

/* A bare square ("c3"): a flat placement in Tak, any move of m,n,k. */
static bool bare_square(const char *t)
{
	return t[0] >= 'a' && t[0] <= 'h' && t[1] >= '1' && t[1] <= '8' && t[2] == '\0';
}

/* Every opening of g->plies placements, one per class, in key order. */
static int enumerate(struct gen *g, struct cands *out)
{
	struct cands level = {0};
	struct cand start = {0};
	game_move *moves = malloc(g->ops->max_moves * sizeof *moves);
	unsigned char *parent = malloc(g->ops->state_size), *child = malloc(g->ops->state_size);
	int rc = -1;
	if (moves == NULL || parent == NULL || child == NULL || class_key(g, "", start.key) < 0 ||
	    push(&level, &start) < 0)
		goto out;
	for (int ply = 1; ply <= g->plies; ply++) {
		struct cands next = {0};
		for (size_t i = 0; i < level.n; i++) {
			play_list(g, level.v[i].moves, 0);
			memcpy(parent, g->st, g->ops->state_size);
			int n = g->ops->legal_moves(parent, moves, g->ops->max_moves);
			for (int k = 0; k < n; k++) {
				char text[GAME_MOVE_TEXT];
				struct cand c = {0};
				if (g->ops->format_move(parent, moves[k], text, sizeof text) < 0 ||
				    !bare_square(text))
					continue;
				memcpy(child, parent, g->ops->state_size);
				if (g->ops->apply(child, moves[k]) != 0 ||
				    g->ops->to_move(child) == 0)
					continue; /* the game ended */
				/* at most MAX_PLIES squares of 2 characters and their spaces */
				snprintf(c.moves, sizeof c.moves, "%.40s%s%.2s", level.v[i].moves,
				         ply > 1 ? " " : "", text);
				if (class_key(g, c.moves, c.key) < 0 || push(&next, &c) < 0) {
					free(next.v);
					goto out;
				}
			}
		}
		qsort(next.v, next.n, sizeof *next.v, by_key_then_moves);
		size_t u = 0;
		for (size_t i = 0; i < next.n; i++)
			if (u == 0 || strcmp(next.v[i].key, next.v[u - 1].key) != 0)
				next.v[u++] = next.v[i];
		next.n = u;
		fprintf(stderr, "bitarena book: %d plies: %zu positions up to symmetry\n", ply, u);
		free(level.v);
		level = next;
	}
	*out = level;
	level.v = NULL;
	rc = 0;
out:
	free(level.v);
	free(moves);
	free(parent);
	free(child);
	return rc;
}

/* --- Tak: scores and self-play ------------------------------------------------------ */

/* The search's score of the position after list, for White, averaged over depths d, d+1. */
static double tak_score(struct gen *g, struct tak_search *ts, const char *list, int d)
{
	double sum = 0;
	play_list(g, list, 0);
	const struct tak_state *st = (const void *)g->st;
	for (int k = 0; k < 2; k++) {
		struct tak_search_limits lim = {.depth = d + k};
		struct tak_search_result r;
		tak_search_clear(ts);
		tak_search_best(ts, st, &lim, &r);
		sum += (st->ply & 1) ? -r.score : r.score;
	}
	return sum / 2;
}

/* What the self-play of Tak openings measured. */
struct selfplay {
	struct stats_wdl white;  /* White's results */
	uint64_t adjudicated[3]; /* by enum adjudication */
	uint64_t plies;
};

/* Two search players, A and B, with their node budgets. */
struct players {
	struct tak_search *ts[2];
	uint64_t nodes[2];
};

/* One game from the opening list, p->ts[white] White. Returns White's half points or -1. */
static int tak_game(struct gen *g, const char *list, const struct players *p, int white,
                    int max_plies, struct selfplay *sp)
{
	struct adjudicator adj;
	play_list(g, list, 0);
	struct tak_state *st = (void *)g->st;
	if (adjudicator_init(&adj, g->ops, max_plies, 3) != GAME_OK)
		return -1;
	tak_search_clear(p->ts[0]);
	tak_search_clear(p->ts[1]);
	int verdict = adjudicator_position(&adj, st, (int)st->ply);
	while (verdict == ADJ_NONE && g->ops->to_move(st) != 0) {
		int who = (int)(st->ply & 1) ^ white; /* the player to move: A (0) or B (1) */
		struct tak_search_limits lim = {.nodes = p->nodes[who], .seed = 1};
		struct tak_search_result r;
		if (tak_search_best(p->ts[who], st, &lim, &r) != 0 || tak_apply(st, r.best) != 0)
			verdict =
			        GAME_EILLEGAL; /* cannot happen: the search answers a legal move */
		else
			verdict = adjudicator_position(&adj, st, (int)st->ply);
	}
	adjudicator_free(&adj);
	if (verdict < 0)
		return -1;
	sp->plies += st->ply;
	int half = 1;
	if (verdict != ADJ_NONE) {
		sp->adjudicated[verdict]++;
	} else {
		struct game_result res;
		g->ops->result(st, &res);
		half = res.winner < 0 ? 1 : res.winner == 0 ? 2 : 0;
	}
	stats_wdl_add(&sp->white, half);
	return half;
}

/* The opening played twice, A White then B White. Returns White's half points or -1. */
static int tak_pair(struct gen *g, const char *list, const struct players *p, int max_plies,
                    struct selfplay *sp)
{
	int a = tak_game(g, list, p, 0, max_plies, sp), b = tak_game(g, list, p, 1, max_plies, sp);
	return a < 0 || b < 0 ? -1 : a + b;
}

/* How a Tak book is made (the options of `bitarena book tak`). */
struct tak_plan {
	int keep, sample, depth, max_plies;
	uint64_t trial_nodes, nodes;
};

static int by_score(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	return x->score < y->score ? -1 : x->score > y->score ? 1 : strcmp(x->key, y->key);
}

/* One window of the openings in score order, and what White scored on a sample of it. */
struct probe {
	size_t at;    /* the window: openings [at, at + keep) */
	double white; /* White's score in the trial games */
	uint64_t games;
};

#define MAX_PROBES 24

/* Plays a sample of the window at p->at, each opening twice with each pair of players. */
static int probe_window(struct gen *g, const struct cands *c, const struct tak_plan *plan,
                        const struct players trial[2], struct probe *p, struct selfplay *all)
{
	struct selfplay sp = {0};
	size_t n = (size_t)plan->sample < (size_t)plan->keep ? (size_t)plan->sample
	                                                     : (size_t)plan->keep;
	for (size_t k = 0; k < n; k++) {
		const char *list = c->v[p->at + k * (size_t)plan->keep / n].moves;
		for (int t = 0; t < 2; t++)
			if (tak_pair(g, list, &trial[t], plan->max_plies, &sp) < 0)
				return -1;
	}
	struct stats_elo e;
	stats_elo_wdl(&sp.white, &e);
	p->white = e.score;
	p->games = stats_wdl_games(&sp.white);
	all->white.wins += sp.white.wins;
	all->white.draws += sp.white.draws;
	all->white.losses += sp.white.losses;
	for (int i = 0; i < 3; i++)
		all->adjudicated[i] += sp.adjudicated[i];
	fprintf(stderr, "bitarena book: window %zu: White %.1f%% of %llu games\n", p->at,
	        100 * p->white, (unsigned long long)p->games);
	return 0;
}

/*
 * The window where White's trial score is closest to half, assuming it grows with the
 * search's score: the lowest window when White scores half or more even there, the highest
 * when less even there, else a bisection between the two. Returns the number of probes.
 */
static int find_window(struct gen *g, const struct cands *c, const struct tak_plan *plan,
                       const struct players trial[2], struct probe *probes, size_t *best,
                       struct selfplay *all)
{
	size_t lo = 0, hi = c->n - (size_t)plan->keep;
	int n = 0;
	probes[n].at = lo;
	if (probe_window(g, c, plan, trial, &probes[n++], all) < 0)
		return -1;
	if (probes[0].white < 0.5 && hi > lo) {
		probes[n].at = hi;
		if (probe_window(g, c, plan, trial, &probes[n++], all) < 0)
			return -1;
		if (probes[1].white > 0.5)
			while (hi - lo > (size_t)plan->keep / 2 && n < MAX_PROBES) {
				probes[n].at = lo + (hi - lo) / 2;
				if (probe_window(g, c, plan, trial, &probes[n], all) < 0)
					return -1;
				if (probes[n].white > 0.5)
					hi = probes[n].at;
				else
					lo = probes[n].at;
				n++;
			}
	}
	*best = 0;
	for (int i = 1; i < n; i++)
		if (fabs(probes[i].white - 0.5) < fabs(probes[*best].white - 0.5))
			*best = (size_t)i;
	return n;
}

static int make_tak(struct gen *g, const struct tak_plan *plan)
{
	struct cands c = {0};
	struct tak_search *ts = tak_search_new(TT_MB);
	struct players trial[2] = {
	        {{NULL, NULL}, {plan->trial_nodes, 2 * plan->trial_nodes}},
	        {{NULL, NULL}, {3 * plan->trial_nodes / 2, 3 * plan->trial_nodes}}};
	struct players check = {{NULL, NULL}, {plan->nodes, 2 * plan->nodes}};
	struct selfplay sp = {0}, tried = {0};
	struct probe probes[MAX_PROBES];
	double t0 = now_s();
	int rc = 1;
	for (int k = 0; k < 2; k++) {
		trial[0].ts[k] = trial[1].ts[k] = check.ts[k] = tak_search_new(TT_MB);
		if (check.ts[k] == NULL)
			goto out;
	}
	if (ts == NULL || enumerate(g, &c) < 0 || c.n < (size_t)plan->keep)
		goto out;
	/* 1. every position scored, in score order */
	for (size_t i = 0; i < c.n; i++) {
		c.v[i].score = tak_score(g, ts, c.v[i].moves, plan->depth);
		if (i % 1000 == 999)
			fprintf(stderr, "bitarena book: depths %d-%d: %zu of %zu\n", plan->depth,
			        plan->depth + 1, i + 1, c.n);
	}
	qsort(c.v, c.n, sizeof *c.v, by_score);
	/* 2. the window of keep openings where White's trial score is closest to half */
	size_t best;
	int nprobes = find_window(g, &c, plan, trial, probes, &best, &tried);
	if (nprobes < 0)
		goto out;
	struct cand *book = c.v + probes[best].at;
	size_t keep = (size_t)plan->keep;
	double sum = 0, sum2 = 0;
	for (size_t i = 0; i < keep; i++) {
		sum += book[i].score;
		sum2 += book[i].score * book[i].score;
	}
	double mean = sum / (double)keep;
	double sd = keep > 1 ? sqrt((sum2 - (double)keep * mean * mean) / (double)(keep - 1)) : 0;
	/* 3. the book measured by other players */
	for (size_t i = 0; i < keep; i++) {
		if (tak_pair(g, book[i].moves, &check, plan->max_plies, &sp) < 0)
			goto out;
		if (i % 25 == 24)
			fprintf(stderr, "bitarena book: self-play: %zu of %zu openings\n", i + 1,
			        keep);
	}
	struct stats_elo e;
	stats_elo_wdl(&sp.white, &e);
	uint64_t games = stats_wdl_games(&sp.white);

	printf("# %zu openings of %d flat placements for %s (docs/books.md).\n", keep, g->plies,
	       g->kind);
	printf("# Made by `bitarena book %s` (bitarena %s).\n", g->command, PACKAGE_VERSION);
	printf("# 1. Every opening of %d flat placements, one per position up to the board's\n"
	       "# symmetries and transpositions: %zu positions, each scored by the Tak search\n"
	       "# (the mean of depths %d and %d, centiflats for White; a flat is about 100):\n"
	       "# from %+.1f to %+.1f, median %+.1f.\n",
	       g->plies, c.n, plan->depth, plan->depth + 1, c.v[0].score, c.v[c.n - 1].score,
	       c.v[c.n / 2].score);
	printf("# 2. In score order, windows of %zu positions; a sample of %d from a window\n"
	       "# played four times each, colours swapped, by the search at %llu and %llu\n"
	       "# nodes a move, then at %llu and %llu. White's score by window:\n",
	       keep, plan->sample < plan->keep ? plan->sample : plan->keep,
	       (unsigned long long)trial[0].nodes[0], (unsigned long long)trial[0].nodes[1],
	       (unsigned long long)trial[1].nodes[0], (unsigned long long)trial[1].nodes[1]);
	for (int i = 0; i < nprobes; i++)
		printf("#      scores %+7.1f to %+7.1f: White %.1f%% of %llu games%s\n",
		       c.v[probes[i].at].score, c.v[probes[i].at + keep - 1].score,
		       100 * probes[i].white, (unsigned long long)probes[i].games,
		       (size_t)i == best ? "  <- this book" : "");
	printf("# The window closest to half is this book: scores mean %+.1f, standard\n"
	       "# deviation %.1f.\n",
	       mean, sd);
	printf("# 3. Measured again by other players, the search at %llu and %llu nodes a move,\n"
	       "# each opening twice, colours swapped: White won %llu, drew %llu, lost %llu of\n"
	       "# %llu games, %.1f%%, %+.1f +/- %.1f Elo for White (%.1f plies a game).\n",
	       (unsigned long long)plan->nodes, (unsigned long long)(2 * plan->nodes),
	       (unsigned long long)sp.white.wins, (unsigned long long)sp.white.draws,
	       (unsigned long long)sp.white.losses, (unsigned long long)games, 100 * e.score, e.elo,
	       e.elo_err, games ? (double)sp.plies / (double)games : 0.0);
	printf("# Games are drawn at %d plies or the third repetition (%llu and %llu of all).\n",
	       plan->max_plies,
	       (unsigned long long)(sp.adjudicated[ADJ_MAX_PLIES] +
	                            tried.adjudicated[ADJ_MAX_PLIES]),
	       (unsigned long long)(sp.adjudicated[ADJ_REPETITION] +
	                            tried.adjudicated[ADJ_REPETITION]));
	printf("[Game \"%s\"]\n", g->kind);
	for (size_t i = 0; i < keep; i++)
		printf("%-16s # %+.1f\n", book[i].moves, book[i].score);
	fprintf(stderr, "bitarena book: %zu openings in %.0f s\n", keep, now_s() - t0);
	rc = 0;
out:
	free(c.v);
	tak_search_free(ts);
	tak_search_free(check.ts[0]);
	tak_search_free(check.ts[1]);
	return rc;
}

/* --- m,n,k ---------------------------------------------------------------------------- */

static int make_mnk(struct gen *g, int depth)
{
	struct cands c = {0};
	if (enumerate(g, &c) < 0)
		return 1;
	printf("# %zu openings of %d move%s for %s, every one up to the board's symmetries\n"
	       "# (docs/books.md), each named with its value for X by the game's search to\n"
	       "# depth %d. Made by `bitarena book %s` (bitarena %s).\n",
	       c.n, g->plies, g->plies > 1 ? "s" : "", g->kind, depth, g->command, PACKAGE_VERSION);
	printf("[Game \"%s\"]\n", g->kind);
	for (size_t i = 0; i < c.n; i++) {
		struct search_limits lim = {.max_depth = depth};
		struct search_result r;
		game_move list[64];
		play_list(g, c.v[i].moves, 0);
		int empty = g->ops->legal_moves(g->st, list, 64);
		if (search_best(g->ops, g->st, &lim, NULL, &r) != 0)
			continue;
		int x = (g->plies & 1) ? -r.score : r.score; /* X moves at even plies */
		if (x >= SEARCH_WIN - 1000)
			printf("%-12s # X wins\n", c.v[i].moves);
		else if (x <= -(SEARCH_WIN - 1000))
			printf("%-12s # O wins\n", c.v[i].moves);
		else if (depth >= empty)
			printf("%-12s # draw\n", c.v[i].moves);
		else
			printf("%-12s # %+d at depth %d\n", c.v[i].moves, x, depth);
	}
	free(c.v);
	return 0;
}

/* --- Xmas Rush ------------------------------------------------------------------------ */

static int make_xmas(struct gen *g, int count, uint64_t seed)
{
	struct rng rng;
	rng_seed(&rng, seed);
	int k = game_opt_index(g->ops, "seed");
	printf("# %d map seeds for %s (docs/books.md): fixed and public, for engine matches\n"
	       "# that ask for this book; every other game's seed comes from the OS (issue 27).\n"
	       "# Made by `bitarena book %s` (bitarena %s): xoshiro256** (core/rng.h) seeded\n"
	       "# with %llu, each draw a Java long.\n",
	       count, g->kind, g->command, PACKAGE_VERSION, (unsigned long long)seed);
	printf("[Game \"%s\"]\n", g->kind);
	for (int i = 0; i < count; i++) {
		int64_t s = (int64_t)rng_next(&rng);
		struct game_params p = g->p;
		p.v[k] = s;
		p.set[k] = true;
		if (g->ops->init(g->st, &p, 0) != 0)
			return 1;
		printf("%lld\n", (long long)s);
	}
	return 0;
}

/* --- check ---------------------------------------------------------------------------- */

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;
	if (f == NULL)
		return NULL;
	for (;;) {
		if (n + 4096 > cap) {
			char *b = realloc(buf, cap = 2 * cap + 4096);
			if (b == NULL)
				break;
			buf = b;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0) {
			fclose(f);
			*len = n;
			return buf;
		}
	}
	fclose(f);
	free(buf);
	return NULL;
}

static int check_books(int argc, char **argv)
{
	const char *kind = NULL;
	int rc = 0, files = 0;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--kind") == 0 && i + 1 < argc)
			kind = argv[++i];
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--kind") == 0) {
			i++;
			continue;
		}
		size_t len;
		char *text = read_file(argv[i], &len);
		struct book b;
		struct book_error err;
		files++;
		if (text == NULL) {
			fprintf(stderr, "bitarena book: %s: cannot read it\n", argv[i]);
			rc = 1;
			continue;
		}
		if (book_parse(text, len, kind, &b, &err) < 0) {
			fprintf(stderr, "bitarena book: %s: %s\n", argv[i], err.msg);
			rc = 1;
		} else {
			printf("%s: %zu openings for %s\n", argv[i], b.n, b.game);
			book_free(&b);
		}
		free(text);
	}
	return files ? rc : cli_usage("book");
}

/* --- arguments ------------------------------------------------------------------------ */

/* The board's width and height: the options size, or m and n, else 3 x 3. */
static void board_of(struct gen *g)
{
	int size = game_opt_index(g->ops, "size"), m = game_opt_index(g->ops, "m"),
	    n = game_opt_index(g->ops, "n");
	g->w = g->h = 3;
	if (size >= 0)
		g->w = g->h = (int)g->p.v[size];
	if (m >= 0 && n >= 0) {
		g->w = (int)g->p.v[m];
		g->h = (int)g->p.v[n];
	}
	g->nsym = g->w == g->h ? 8 : 4;
}

int cmd_book(int argc, char **argv)
{
	if (argc < 2)
		return cli_usage("book");
	if (strcmp(argv[1], "check") == 0)
		return check_books(argc - 1, argv + 1);
	struct gen g = {.ops = game_find(argv[1]), .plies = -1};
	long long keep = 300, sample = 100, trial_nodes = 1000, nodes = 5000, max_plies = 300;
	long long depth = -1, count = 64, seed = 20181221;
	if (g.ops == NULL) {
		fprintf(stderr, "bitarena book: unknown game '%s'\n", argv[1]);
		return 2;
	}
	game_params_default(g.ops, &g.p);
	size_t at = (size_t)snprintf(g.kind, sizeof g.kind, "%s", g.ops->name), cat = 0;
	for (int i = 1; i < argc && cat < sizeof g.command; i++)
		cat += (size_t)snprintf(g.command + cat, sizeof g.command - cat, "%s%s",
		                        i > 1 ? " " : "", argv[i]);
	for (int i = 2; i < argc; i++) {
		const char *why = NULL;
		struct {
			const char *flag;
			long long *v, min, max;
		} nums[] = {
		        {"--keep", &keep, 1, BOOK_MAX_OPEN},
		        {"--sample", &sample, 1, BOOK_MAX_OPEN},
		        {"--trial-nodes", &trial_nodes, 100, 100000000},
		        {"--nodes", &nodes, 100, 100000000},
		        {"--max-plies", &max_plies, 10, 10000},
		        {"--depth", &depth, 1, 12},
		        {"--count", &count, 1, BOOK_MAX_OPEN},
		        {"--seed", &seed, 0, (1LL << 62)},
		};
		long long plies = 0;
		bool done = false;
		if (strcmp(argv[i], "--plies") == 0 && i + 1 < argc) {
			if (cli_parse_num(argv[i + 1], 1, MAX_PLIES, &plies) < 0)
				return cli_usage("book");
			g.plies = (int)plies;
			done = true;
		}
		for (size_t k = 0; !done && k < sizeof nums / sizeof nums[0]; k++) {
			if (strcmp(argv[i], nums[k].flag) != 0)
				continue;
			if (i + 1 >= argc ||
			    cli_parse_num(argv[i + 1], nums[k].min, nums[k].max, nums[k].v) < 0)
				return cli_usage("book");
			done = true;
		}
		if (done) {
			i++;
			continue;
		}
		if (game_param_word(g.ops, &g.p, argv[i], &why) != 1) {
			fprintf(stderr, "bitarena book: %s: %s\n", argv[i],
			        why ? why : "not an option of this game");
			return 2;
		}
		if (at < sizeof g.kind)
			at += (size_t)snprintf(g.kind + at, sizeof g.kind - at, " %s", argv[i]);
	}
	if (at >= sizeof g.kind || cat >= sizeof g.command)
		return cli_usage("book");
	if ((g.st = calloc(1, g.ops->state_size)) == NULL)
		return 1;
	int rc = 2;
	if (g.ops->init(g.st, &g.p, 0) != 0) {
		fprintf(stderr, "bitarena book: %s refuses these options\n", g.ops->name);
	} else if (g.ops->flags & GAME_SIMULTANEOUS) {
		rc = game_opt_index(g.ops, "seed") < 0 ? 2
		                                       : make_xmas(&g, (int)count, (uint64_t)seed);
	} else {
		board_of(&g);
		if (g.ops == &game_tak) {
			struct tak_plan plan = {
			        .keep = (int)keep,
			        .sample = (int)sample,
			        .depth = depth < 0 ? 2 : (int)depth,
			        .max_plies = (int)max_plies,
			        .trial_nodes = (uint64_t)trial_nodes,
			        .nodes = (uint64_t)nodes,
			};
			g.plies = g.plies < 0 ? 4 : g.plies;
			rc = make_tak(&g, &plan);
		} else {
			g.plies = g.plies < 0 ? 1 : g.plies;
			rc = make_mnk(&g, depth < 0 ? 9 : (int)depth);
		}
	}
	free(g.st);
	return rc;
}
