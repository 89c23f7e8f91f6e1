/*
 * arena_bench.c - how long the Dutch Swiss pairing (src/arena) takes for one
 * round, on random tournaments paired by itself and played with random
 * results: a 64-player Swiss of 7 rounds and a 200-player one of 10 rounds,
 * several tournaments each; prints the CPU time per round (median, p99, max)
 * beside the reference measured in the same run: one maximum-weight matching
 * (arena_match) of the field's size with one-limb weights, the floor under
 * any pairing by matching. Last, the live arena's pairing of 200 free players.
 *
 *   bench/arena_bench [--tournaments N] [--seed S]
 *   bench/arena_bench --trf DIR --count N [--seed S] [--min P --max P]
 *                     [--rmin R --rmax R]
 *
 * The second form writes N random tournaments (TRF-16, one file each, with
 * late entries, half-point byes, withdrawals and forfeits) as the engine
 * paired them: input for an independent pairing checker.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arena/arena.h"
#include "arena/matching.h"
#include "core/rng.h"

struct sim {
	int n, rounds, played;
	struct arena_player *players;
	struct arena_game *games; /* n * rounds */
	char (*names)[24];
	int *state; /* 0 not yet entered, 1 playing, 2 withdrawn */
	int *enter; /* round of entry */
	char *entry_code; /* 'Z' or 'H' for the rounds before entry */
};

/* CPU time of this thread: the machine is shared, wall time would count the
 * other processes' turns. */
static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_int_desc(const void *a, const void *b)
{
	return *(const int *)b - *(const int *)a;
}

static void sim_init(struct sim *s, struct rng *r, int n, int rounds, int events)
{
	s->n = n;
	s->rounds = rounds;
	s->played = 0;
	s->players = calloc((size_t)n, sizeof *s->players);
	s->games = calloc((size_t)n * (size_t)rounds, sizeof *s->games);
	s->names = calloc((size_t)n, sizeof *s->names);
	s->state = calloc((size_t)n, sizeof *s->state);
	s->enter = calloc((size_t)n, sizeof *s->enter);
	s->entry_code = calloc((size_t)n, 1);
	int *ratings = malloc(sizeof(int) * (size_t)n);
	for (int i = 0; i < n; i++)
		ratings[i] = 1000 + (int)(rng_next(r) % 1800);
	qsort(ratings, (size_t)n, sizeof(int), cmp_int_desc);
	for (int i = 0; i < n; i++) {
		snprintf(s->names[i], sizeof s->names[i], "Player %d", i + 1);
		s->players[i].name = s->names[i];
		s->players[i].rating = ratings[i];
		s->players[i].games = s->games + (size_t)i * (size_t)rounds;
		s->enter[i] = 0;
		if (events && rounds > 2 && rng_next(r) % 100 < 8) {
			s->enter[i] = 1 + (int)(rng_next(r) % (unsigned)(rounds / 2));
			s->entry_code[i] = rng_next(r) % 2 ? 'H' : 'Z';
		}
	}
	free(ratings);
}

static void sim_free(struct sim *s)
{
	free(s->players);
	free(s->games);
	free(s->names);
	free(s->state);
	free(s->enter);
	free(s->entry_code);
}

/* Pairs and plays the next round; returns the pairing's time (ms), or -1
 * when no pairing exists. */
static double sim_round(struct sim *s, struct rng *r, int events)
{
	int n = s->n, rd = s->played;
	for (int i = 0; i < n; i++) {
		struct arena_game *g = s->games + (size_t)i * (size_t)s->rounds + rd;
		g->opp = -1;
		g->color = '-';
		g->result = 0;
		if (s->state[i] == 0 && rd >= s->enter[i])
			s->state[i] = 1;
		if (s->state[i] == 1 && events && rd > 0 && rng_next(r) % 1000 < 15)
			s->state[i] = 2; /* withdraws */
		s->players[i].active = s->state[i] == 1;
		if (s->state[i] == 0)
			g->result = s->entry_code[i];
		else if (s->state[i] == 2)
			g->result = 'Z';
		else if (events && rd > 0 && rd < s->rounds - 1 && rng_next(r) % 100 < 2) {
			s->players[i].active = 0; /* a half-point bye, asked for */
			g->result = 'H';
		}
	}
	struct arena_swiss t = {n, s->players, rd, s->rounds, 'w', arena_points_default()};
	struct arena_pair *pairs = malloc(sizeof *pairs * (size_t)(n / 2 + 1));
	double t0 = now_ms();
	int k = arena_dutch_pair(&t, pairs, n / 2 + 1);
	double dt = now_ms() - t0;
	if (k < 0) {
		free(pairs);
		if (k != ARENA_ENOPAIRING)
			fprintf(stderr, "pairing failed: %s\n", arena_strerror(k));
		return -1;
	}
	for (int i = 0; i < k; i++) {
		int w = pairs[i].white, b = pairs[i].black;
		struct arena_game *gw = s->games + (size_t)w * (size_t)s->rounds + rd;
		if (b < 0) {
			gw->result = 'U';
			continue;
		}
		struct arena_game *gb = s->games + (size_t)b * (size_t)s->rounds + rd;
		gw->opp = b, gb->opp = w;
		gw->color = 'w', gb->color = 'b';
		unsigned x = (unsigned)(rng_next(r) % 100);
		if (events && x < 3) {
			gw->result = '+', gb->result = '-';
		} else if (events && x < 5) {
			gw->result = '-', gb->result = '+';
		} else if (x < 45) {
			gw->result = '1', gb->result = '0';
		} else if (x < 75) {
			gw->result = '=', gb->result = '=';
		} else {
			gw->result = '0', gb->result = '1';
		}
	}
	free(pairs);
	s->played++;
	return dt;
}

static int write_trf(struct sim *s, const char *path, int next_absences)
{
	struct arena_swiss t = {s->n, s->players, s->played, s->rounds, 'w', arena_points_default()};
	struct arena_trf_info info = {"bitarena random Swiss", "Loopback", "", "2026/01/01",
				      "2026/01/02", "arena_bench", next_absences};
	size_t cap = (size_t)s->n * (size_t)(100 + 10 * s->rounds) + 4096;
	char *buf = malloc(cap);
	int len = arena_trf_write(&t, &info, buf, cap);
	int rc = -1;
	if (len >= 0) {
		FILE *f = fopen(path, "w");
		if (f) {
			rc = fwrite(buf, 1, (size_t)len, f) == (size_t)len ? 0 : -1;
			if (fclose(f))
				rc = -1;
		}
	}
	free(buf);
	return rc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* One plain matching of n vertices, complete graph, random one-limb weights. */
static double reference_ms(int n, struct rng *r)
{
	int m = n * (n - 1) / 2, k = 0;
	int *eu = malloc(sizeof(int) * (size_t)m), *ev = malloc(sizeof(int) * (size_t)m);
	uint64_t *w = malloc(sizeof(uint64_t) * (size_t)m);
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++, k++)
			eu[k] = i, ev[k] = j, w[k] = rng_next(r) >> 24;
	struct arena_graph g = {n, m, 1, eu, ev, w};
	size_t sz = arena_match_worksize(n, m, 1);
	void *work = malloc(sz);
	int *mate = malloc(sizeof(int) * (size_t)n);
	double t0 = now_ms();
	arena_match(&g, 0, mate, work, sz);
	double dt = now_ms() - t0;
	free(eu), free(ev), free(w), free(work), free(mate);
	return dt;
}

static void bench(int n, int rounds, int tournaments, uint64_t seed)
{
	struct rng r;
	rng_seed(&r, seed);
	double *times = malloc(sizeof(double) * (size_t)(tournaments * rounds));
	int nt = 0;
	for (int t = 0; t < tournaments; t++) {
		struct sim s;
		sim_init(&s, &r, n, rounds, 0);
		for (int rd = 0; rd < rounds; rd++) {
			double dt = sim_round(&s, &r, 0);
			if (dt < 0)
				break;
			times[nt++] = dt;
		}
		sim_free(&s);
	}
	qsort(times, (size_t)nt, sizeof(double), cmp_double);
	double ref = reference_ms(n, &r);
	printf("%4d players, %2d rounds, %d tournaments: pairing a round (CPU): median "
	       "%.2f ms, p99 %.2f ms, max %.2f ms (reference: one %d-vertex matching %.2f ms)\n",
	       n, rounds, tournaments, nt ? times[nt / 2] : 0, nt ? times[(nt * 99) / 100] : 0,
	       nt ? times[nt - 1] : 0, n, ref);
	free(times);
}

/* The live arena: n free players paired at once (the worst moment of an
 * arena: everyone free together). */
static void bench_live(int n, uint64_t seed)
{
	struct rng r;
	rng_seed(&r, seed);
	struct arena_live_player *f = malloc(sizeof *f * (size_t)n);
	struct arena_pair *out = malloc(sizeof *out * (size_t)n);
	for (int i = 0; i < n; i++) {
		f[i].id = i;
		f[i].rank = i;
		f[i].last_opp = (int)(rng_next(&r) % (unsigned)n);
		f[i].waiting = (int64_t)(rng_next(&r) % 10000);
	}
	int reps = 200, k = 0;
	double t0 = now_ms();
	for (int i = 0; i < reps; i++)
		k = arena_live_pair(f, n, 5000, out, n);
	double dt = (now_ms() - t0) / reps;
	printf("%4d free players in a live arena: %d pairs in %.3f ms (CPU)\n", n, k, dt);
	free(f);
	free(out);
}

int main(int argc, char **argv)
{
	const char *dir = NULL;
	int count = 0, tournaments = 5, pmin = 9, pmax = 64, rmin = 5, rmax = 11;
	uint64_t seed = 1;
	static const struct option opts[] = {{"trf", 1, 0, 't'},	 {"count", 1, 0, 'c'},
					     {"seed", 1, 0, 's'},	 {"tournaments", 1, 0, 'n'},
					     {"min", 1, 0, 'a'},	 {"max", 1, 0, 'b'},
					     {"rmin", 1, 0, 'x'},	 {"rmax", 1, 0, 'y'},
					     {0, 0, 0, 0}};
	int c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			dir = optarg;
			break;
		case 'c':
			count = atoi(optarg);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 10);
			break;
		case 'n':
			tournaments = atoi(optarg);
			break;
		case 'a':
			pmin = atoi(optarg);
			break;
		case 'b':
			pmax = atoi(optarg);
			break;
		case 'x':
			rmin = atoi(optarg);
			break;
		case 'y':
			rmax = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [--tournaments N] [--seed S] | --trf DIR --count N\n",
				argv[0]);
			return 2;
		}
	}
	if (dir) {
		struct rng r;
		rng_seed(&r, seed);
		int stopped = 0;
		for (int i = 0; i < count; i++) {
			int n = pmin + (int)(rng_next(&r) % (unsigned)(pmax - pmin + 1));
			int rounds = rmin + (int)(rng_next(&r) % (unsigned)(rmax - rmin + 1));
			struct sim s;
			sim_init(&s, &r, n, rounds, 1);
			int stop = 0;
			for (int rd = 0; rd < rounds && !stop; rd++)
				if (sim_round(&s, &r, 1) < 0)
					stop = 1;
			stopped += stop;
			char path[4096];
			/* A tournament stopped by ARENA_ENOPAIRING: the state the
			 * engine could not pair, for a checker to try (-stop.trf). */
			snprintf(path, sizeof path, "%s/t%04d%s.trf", dir, i, stop ? "-stop" : "");
			if (write_trf(&s, path, stop) < 0) {
				fprintf(stderr, "%s: %s\n", path, strerror(errno));
				sim_free(&s);
				return 1;
			}
			sim_free(&s);
		}
		printf("%d tournaments written to %s (%d stopped early: no legal pairing left)\n",
		       count, dir, stopped);
		return 0;
	}
	bench(64, 7, tournaments, seed);
	bench(200, 10, tournaments, seed + 1);
	bench_live(200, seed + 2);
	return 0;
}
