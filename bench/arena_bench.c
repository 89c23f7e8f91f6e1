/*
 * arena_bench.c - how fast src/arena pairs, and whether its Dutch pairings
 * are the ones an independent engine makes.
 *
 *   bench/arena_bench [--tournaments N] [--big-rounds R] [--seed S] [--bbp PATH]
 *       Random Swiss tournaments, N (5) of 100 players and 9 rounds, one of
 *       1000 players and 11 rounds of which the first R (3) are paired (a
 *       round of 1000 takes tens of seconds; the first rounds, one big score
 *       group, are the slowest), each round paired by arena_dutch_pair()
 *       and played with random results: the CPU time
 *       of a round's pairing (median, p99, max) and rounds paired per
 *       second; one maximum-weight matching (arena_match) of 100 and 1000
 *       vertices, the floor under any pairing by matching; the live arena's
 *       pairing of 200 free players. With --bbp, the reference measured in
 *       the same run: every one of those rounds is also written as a TRF-16
 *       file and paired by that bbpPairings binary (`PATH --dutch FILE -p
 *       OUT`, its process CPU time from wait4(), which includes its start
 *       and its reading of the file: the floor of that is shown, a 2-player
 *       file), and the two pairings compared.
 *   bench/arena_bench --compare N --bbp PATH [--seed S] [--min P] [--max P]
 *                     [--rmin R] [--rmax R] [--keep DIR]
 *       N random tournaments with late entries (half-point or zero-point
 *       byes before entry), requested half-point byes, withdrawals and
 *       forfeits; every round paired by both engines from the same state
 *       and compared (colours and the PAB included); the tournament goes on
 *       with this library's pairing. Prints how many rounds were identical;
 *       --keep writes each differing state there as a TRF file.
 *   bench/arena_bench --check FILE...
 *       Pairs again every round of TRF-16 files (those of bbpPairings'
 *       random tournament generator, say: each round its pairing) from the
 *       state before it, and compares with the round in the file.
 *   bench/arena_bench --trf DIR --count N [--seed S] [--min P --max P]
 *                     [--rmin R --rmax R]
 *       Writes N random tournaments (TRF-16, one file each) as this library
 *       paired them: input for a pairing checker (bbpPairings -c). A
 *       tournament stopped by ARENA_ENOPAIRING is written with the round it
 *       could not pair (its announced absences) as DIR/tNNNN-stop.trf.
 *
 * The benchmark never fetches or builds bbpPairings: the path is given or
 * that part is skipped. docs/arena.md has the figures and how they were made.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arena/arena.h"
#include "arena/matching.h"
#include "core/rng.h"

/* ---- a random tournament ----------------------------------------------------- */

struct sim {
	int n, rounds, played, events;
	struct arena_player *players;
	struct arena_game *games; /* n * rounds */
	char (*names)[24];
	int *state;       /* 0 not yet entered, 1 playing, 2 withdrawn */
	int *enter;       /* round of entry */
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

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p) {
		perror("calloc");
		exit(1);
	}
	return p;
}

static void sim_init(struct sim *s, struct rng *r, int n, int rounds, int events)
{
	s->n = n;
	s->rounds = rounds;
	s->played = 0;
	s->events = events;
	s->players = xcalloc((size_t)n, sizeof *s->players);
	s->games = xcalloc((size_t)n * (size_t)rounds, sizeof *s->games);
	s->names = xcalloc((size_t)n, sizeof *s->names);
	s->state = xcalloc((size_t)n, sizeof *s->state);
	s->enter = xcalloc((size_t)n, sizeof *s->enter);
	s->entry_code = xcalloc((size_t)n, 1);
	int *ratings = xcalloc((size_t)n, sizeof(int));
	for (int i = 0; i < n; i++)
		ratings[i] = 1000 + (int)rng_below(r, 1800);
	qsort(ratings, (size_t)n, sizeof(int), cmp_int_desc);
	for (int i = 0; i < n; i++) {
		snprintf(s->names[i], sizeof s->names[i], "Player %d", i + 1);
		s->players[i].name = s->names[i];
		s->players[i].rating = ratings[i];
		s->players[i].games = s->games + (size_t)i * (size_t)rounds;
		s->enter[i] = 0;
		if (events && rounds > 2 && rng_below(r, 100) < 8) {
			s->enter[i] = 1 + (int)rng_below(r, (uint32_t)(rounds / 2));
			s->entry_code[i] = rng_below(r, 2) ? 'H' : 'Z';
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

static struct arena_game *sim_game(struct sim *s, int p, int rd)
{
	return s->games + (size_t)p * (size_t)s->rounds + rd;
}

/* The state before the next round: who enters, withdraws or asks for a
 * half-point bye (their entries of that round written), who is active. */
static struct arena_swiss sim_prepare(struct sim *s, struct rng *r)
{
	int rd = s->played;
	for (int i = 0; i < s->n; i++) {
		struct arena_game *g = sim_game(s, i, rd);
		*g = (struct arena_game){-1, '-', 0};
		if (s->state[i] == 0 && rd >= s->enter[i])
			s->state[i] = 1;
		if (s->state[i] == 1 && s->events && rd > 0 && rng_below(r, 1000) < 15)
			s->state[i] = 2; /* withdraws */
		s->players[i].active = s->state[i] == 1;
		if (s->state[i] == 0)
			g->result = s->entry_code[i];
		else if (s->state[i] == 2)
			g->result = 'Z';
		else if (s->events && rd > 0 && rd < s->rounds - 1 && rng_below(r, 100) < 2) {
			s->players[i].active = 0; /* a half-point bye, asked for */
			g->result = 'H';
		}
	}
	struct arena_swiss t = {s->n, s->players, rd, s->rounds, 'w', arena_points_default()};
	return t;
}

/* Plays the round paired as pairs[0..k): random results. */
static void sim_play(struct sim *s, struct rng *r, const struct arena_pair *pairs, int k)
{
	int rd = s->played;
	for (int i = 0; i < k; i++) {
		int w = pairs[i].white, b = pairs[i].black;
		struct arena_game *gw = sim_game(s, w, rd);
		if (b < 0) {
			gw->result = 'U';
			continue;
		}
		struct arena_game *gb = sim_game(s, b, rd);
		gw->opp = b, gb->opp = w;
		gw->color = 'w', gb->color = 'b';
		unsigned x = rng_below(r, 100);
		if (s->events && x < 3) {
			gw->result = '+', gb->result = '-';
		} else if (s->events && x < 5) {
			gw->result = '-', gb->result = '+';
		} else if (x < 45) {
			gw->result = '1', gb->result = '0';
		} else if (x < 75) {
			gw->result = '=', gb->result = '=';
		} else {
			gw->result = '0', gb->result = '1';
		}
	}
	s->played++;
}

/* The TRF-16 text of t, with the announced byes and absences of the round
 * to pair when absences is set; NULL when it cannot be written. */
static char *trf_text(const struct arena_swiss *t, int absences, int *len)
{
	struct arena_trf_info info = {
	        "bitarena random Swiss", "Loopback", "", "2026/01/01", "2026/01/02",
	        "arena_bench",           absences};
	size_t cap = (size_t)t->n * (size_t)(100 + 10 * (t->played + 1)) + 4096;
	char *buf = xcalloc(cap, 1);
	*len = arena_trf_write(t, &info, buf, cap);
	if (*len < 0) {
		fprintf(stderr, "arena_trf_write: %s\n", arena_strerror(*len));
		free(buf);
		return NULL;
	}
	return buf;
}

static int write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	int rc = fwrite(text, 1, len, f) == len ? 0 : -1;
	if (fclose(f))
		rc = -1;
	return rc;
}

static int write_trf(const struct arena_swiss *t, int absences, const char *path)
{
	int len;
	char *text = trf_text(t, absences, &len);
	if (!text)
		return -1;
	int rc = write_file(path, text, (size_t)len);
	free(text);
	return rc;
}

/* ---- the reference engine: a bbpPairings binary ------------------------------ */

struct bbp {
	const char *path;
	char dir[256];   /* where the TRF files go, made by mkdtemp */
	double floor_ms; /* its CPU time on a 2-player file */
};

/* Runs `path --dutch in -p out`: returns its exit status (0 paired, 1 no
 * valid pairing, other: failure), its user + system CPU time in *ms. */
static int bbp_run(const struct bbp *b, const char *in, const char *out, double *ms)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execl(b->path, b->path, "--dutch", in, "-p", out, (char *)NULL);
		_exit(127);
	}
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0)
		return -1;
	*ms = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	      (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Reads bbpPairings' output: the number of pairs, then "white black" per
 * line by pairing number, "p 0" for the PAB. Returns the pairs, -1 on error. */
static int bbp_read(const char *path, struct arena_pair *out, int cap)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int k, w, b, got = 0;
	if (fscanf(f, "%d", &k) != 1 || k < 0 || k > cap)
		k = -1;
	while (k >= 0 && got < k && fscanf(f, "%d %d", &w, &b) == 2)
		out[got++] = (struct arena_pair){w - 1, b - 1};
	fclose(f);
	return k >= 0 && got == k ? k : -1;
}

/* Pairs t with bbpPairings: the count of pairs (the PAB included), -1 for
 * "no valid pairing", -2 on failure. */
static int bbp_pair(const struct bbp *b, const struct arena_swiss *t, struct arena_pair *out,
                    int cap, double *ms)
{
	char in[300], res[300];
	snprintf(in, sizeof in, "%s/round.trf", b->dir);
	snprintf(res, sizeof res, "%s/pairs.txt", b->dir);
	unlink(res);
	if (write_trf(t, 1, in) < 0)
		return -2;
	int st = bbp_run(b, in, res, ms);
	if (st == 1)
		return -1;
	if (st != 0)
		return -2;
	return bbp_read(res, out, cap);
}

static int cmp_pair(const void *a, const void *b)
{
	const struct arena_pair *x = a, *y = b;
	return x->white != y->white ? x->white - y->white : x->black - y->black;
}

/* The same games with the same colours and the same PAB, in any order? */
static int same_pairing(struct arena_pair *a, int ka, struct arena_pair *b, int kb)
{
	if (ka != kb)
		return 0;
	qsort(a, (size_t)ka, sizeof *a, cmp_pair);
	qsort(b, (size_t)kb, sizeof *b, cmp_pair);
	return memcmp(a, b, sizeof *a * (size_t)ka) == 0;
}

static void bbp_close(struct bbp *b);

static int bbp_open(struct bbp *b, const char *path)
{
	b->path = path;
	const char *tmp = getenv("TMPDIR");
	snprintf(b->dir, sizeof b->dir, "%s/arena_bench.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(b->dir)) {
		perror("mkdtemp");
		return -1;
	}
	/* The floor: two players, round 1. */
	struct arena_player two[2] = {{"A", 2000, NULL, 1}, {"B", 1900, NULL, 1}};
	struct arena_swiss t = {2, two, 0, 1, 'w', arena_points_default()};
	struct arena_pair p[2];
	b->floor_ms = 1e9;
	for (int i = 0; i < 5; i++) {
		double ms;
		if (bbp_pair(b, &t, p, 2, &ms) != 1) {
			fprintf(stderr, "%s does not pair a 2-player TRF: is it bbpPairings?\n",
			        path);
			bbp_close(b);
			return -1;
		}
		if (ms < b->floor_ms)
			b->floor_ms = ms;
	}
	return 0;
}

static void bbp_close(struct bbp *b)
{
	char path[300];
	snprintf(path, sizeof path, "%s/round.trf", b->dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/pairs.txt", b->dir);
	unlink(path);
	rmdir(b->dir);
}

/* ---- figures ------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

struct times {
	double *v;
	int n;
};

static void times_print(const char *what, struct times *t)
{
	qsort(t->v, (size_t)t->n, sizeof(double), cmp_double);
	double sum = 0;
	for (int i = 0; i < t->n; i++)
		sum += t->v[i];
	printf("  %-22s median %8.2f ms  p99 %8.2f ms  max %8.2f ms  %8.3g rounds/s\n", what,
	       t->n ? t->v[t->n / 2] : 0, t->n ? t->v[(t->n * 99) / 100] : 0,
	       t->n ? t->v[t->n - 1] : 0, sum > 0 ? t->n * 1e3 / sum : 0);
}

/* One plain matching of n vertices, complete graph, random one-limb weights. */
static double matching_ms(int n, struct rng *r)
{
	int m = n * (n - 1) / 2, k = 0;
	int *eu = xcalloc((size_t)m, sizeof(int)), *ev = xcalloc((size_t)m, sizeof(int));
	uint64_t *w = xcalloc((size_t)m, sizeof(uint64_t));
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++, k++)
			eu[k] = i, ev[k] = j, w[k] = rng_next(r) >> 24;
	struct arena_graph g = {n, m, 1, eu, ev, w};
	size_t sz = arena_match_worksize(n, m, 1);
	void *work = xcalloc(sz, 1);
	int *mate = xcalloc((size_t)n, sizeof(int));
	double t0 = now_ms();
	int pairs = arena_match(&g, 0, mate, work, sz);
	double dt = now_ms() - t0;
	if (pairs != n / 2)
		fprintf(stderr, "matching: %d pairs of %d vertices\n", pairs, n);
	free(eu), free(ev), free(w), free(work), free(mate);
	return dt;
}

/* Swiss tournaments of n players: every round paired by this library (and
 * by bbpPairings when b is given), timed, compared. */
static void bench_swiss(int n, int rounds, int upto, int tournaments, uint64_t seed,
                        const struct bbp *b)
{
	struct rng r;
	rng_seed(&r, seed);
	struct times ours = {xcalloc((size_t)(tournaments * rounds), sizeof(double)), 0};
	struct times theirs = {xcalloc((size_t)(tournaments * rounds), sizeof(double)), 0};
	int same = 0, failed = 0;
	struct arena_pair *p = xcalloc((size_t)(n / 2 + 1), sizeof *p);
	struct arena_pair *q = xcalloc((size_t)(n / 2 + 1), sizeof *q);
	for (int tn = 0; tn < tournaments; tn++) {
		struct sim s;
		sim_init(&s, &r, n, rounds, 0);
		for (int rd = 0; rd < upto; rd++) {
			struct arena_swiss t = sim_prepare(&s, &r);
			double t0 = now_ms();
			int k = arena_dutch_pair(&t, p, n / 2 + 1);
			ours.v[ours.n++] = now_ms() - t0;
			if (b) {
				double ms = 0;
				int kb = bbp_pair(b, &t, q, n / 2 + 1, &ms);
				failed += kb == -2;
				theirs.v[theirs.n++] = ms;
				same += (k < 0 && kb == -1) ||
				        (k >= 0 && same_pairing(p, k, q, kb));
			}
			if (k < 0)
				break;
			sim_play(&s, &r, p, k);
		}
		sim_free(&s);
	}
	printf("Dutch Swiss, %d players, %d rounds planned, %d tournament%s (rounds 1-%d paired: "
	       "%d):\n",
	       n, rounds, tournaments, tournaments > 1 ? "s" : "", upto, ours.n);
	times_print("this library (CPU)", &ours);
	if (b) {
		times_print("bbpPairings (process)", &theirs);
		printf("  bbpPairings' process floor (start, a 2-player file): %.2f ms; "
		       "pairings identical: %d of %d rounds%s\n",
		       b->floor_ms, same, theirs.n, failed ? " (bbpPairings failed on some)" : "");
	}
	free(ours.v), free(theirs.v), free(p), free(q);
}

/* The live arena: n free players paired at once (the worst moment of an
 * arena: everyone free together). */
static void bench_live(int n, uint64_t seed)
{
	struct rng r;
	rng_seed(&r, seed);
	struct arena_live_player *f = xcalloc((size_t)n, sizeof *f);
	struct arena_pair *out = xcalloc((size_t)n, sizeof *out);
	for (int i = 0; i < n; i++) {
		f[i].id = i;
		f[i].rank = i;
		f[i].last_opp = (int)rng_below(&r, (uint32_t)n);
		f[i].waiting = (int64_t)rng_below(&r, 10000);
	}
	int reps = 200, k = 0;
	double t0 = now_ms();
	for (int i = 0; i < reps; i++)
		k = arena_live_pair(f, n, 5000, out, n);
	double dt = (now_ms() - t0) / reps;
	printf("Live arena, %d free players: %d pairs in %.3f ms (CPU), %.0f pairings/s\n", n, k,
	       dt, dt > 0 ? 1e3 / dt : 0);
	free(f);
	free(out);
}

/* ---- --compare: this library against bbpPairings on random tournaments ------ */

struct range {
	int pmin, pmax, rmin, rmax;
};

static int compare(int count, uint64_t seed, const struct range *rg, const struct bbp *b,
                   const char *keep)
{
	struct rng r;
	rng_seed(&r, seed);
	long rounds = 0, same = 0, failed = 0, players = 0;
	for (int i = 0; i < count; i++) {
		int n = rg->pmin + (int)rng_below(&r, (uint32_t)(rg->pmax - rg->pmin + 1));
		int nr = rg->rmin + (int)rng_below(&r, (uint32_t)(rg->rmax - rg->rmin + 1));
		struct sim s;
		sim_init(&s, &r, n, nr, 1);
		players += n;
		struct arena_pair *p = xcalloc((size_t)(n / 2 + 1), sizeof *p);
		struct arena_pair *q = xcalloc((size_t)(n / 2 + 1), sizeof *q);
		for (int rd = 0; rd < nr; rd++) {
			struct arena_swiss t = sim_prepare(&s, &r);
			int k = arena_dutch_pair(&t, p, n / 2 + 1);
			if (k < 0 && k != ARENA_ENOPAIRING) {
				fprintf(stderr, "tournament %d round %d: %s\n", i, rd + 1,
				        arena_strerror(k));
				return 1;
			}
			double ms;
			int kb = bbp_pair(b, &t, q, n / 2 + 1, &ms);
			rounds++;
			if (kb == -2) {
				failed++;
			} else if ((k < 0 && kb == -1) ||
			           (k >= 0 && kb >= 0 && same_pairing(p, k, q, kb))) {
				same++;
			} else {
				printf("tournament %d (%d players), round %d: the pairings "
				       "differ\n",
				       i, n, rd + 1);
				if (keep) {
					char path[4200];
					snprintf(path, sizeof path, "%s/t%04d-r%02d.trf", keep, i,
					         rd + 1);
					if (write_trf(&t, 1, path) < 0)
						perror(path);
				}
			}
			if (k < 0)
				break;
			sim_play(&s, &r, p, k);
		}
		free(p), free(q);
		sim_free(&s);
	}
	printf("%d tournaments (%d-%d players, %ld in all; %d-%d rounds planned): %ld of %ld "
	       "rounds "
	       "paired identically by bbpPairings%s\n",
	       count, rg->pmin, rg->pmax, players, rg->rmin, rg->rmax, same, rounds,
	       failed ? " (it failed on some)" : "");
	return same == rounds ? 0 : 1;
}

/* ---- --check: the rounds of TRF files paired again --------------------------- */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = xcalloc(cap, 1);
	size_t got;
	while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
	}
	fclose(f);
	*len = n;
	return buf;
}

/* The pairs of round rd as the file has them into q; returns their count.
 * A forfeited game written without colours is taken in either order: its
 * pair in p[0..k) is put in the same order. */
static int file_pairs(const struct arena_trf_doc *doc, int rd, struct arena_pair *q,
                      struct arena_pair *p, int k)
{
	int kf = 0;
	for (int pl = 0; pl < doc->n; pl++) {
		const struct arena_game *g = &doc->players[pl].games[rd];
		if (g->opp < 0) {
			if (g->result == 'U')
				q[kf++] = (struct arena_pair){pl, -1};
		} else if (g->color == 'w') {
			q[kf++] = (struct arena_pair){pl, g->opp};
		} else if (g->color != 'b' && pl < g->opp) {
			q[kf++] = (struct arena_pair){pl, g->opp};
			for (int i = 0; i < k; i++)
				if (p[i].white == g->opp && p[i].black == pl)
					p[i] = q[kf - 1];
		}
	}
	return kf;
}

static int check_files(int nfiles, char **files)
{
	long rounds = 0, same = 0;
	int bad = 0;
	for (int i = 0; i < nfiles; i++) {
		size_t len;
		char *text = slurp(files[i], &len);
		if (!text) {
			perror(files[i]);
			return 2;
		}
		struct arena_trf_doc doc = {0};
		doc.cap_players = ARENA_SWISS_MAX;
		doc.cap_rounds = ARENA_MAX_ROUNDS;
		doc.players = xcalloc(ARENA_SWISS_MAX, sizeof *doc.players);
		doc.games = xcalloc((size_t)ARENA_SWISS_MAX * ARENA_MAX_ROUNDS, sizeof *doc.games);
		int err = arena_trf_read(text, len, &doc);
		struct arena_pair *p = xcalloc((size_t)(doc.n / 2 + 1), sizeof *p);
		struct arena_pair *q = xcalloc((size_t)(doc.n / 2 + 1), sizeof *q);
		for (int rd = 0; err == 0 && rd < doc.played; rd++) {
			struct arena_swiss t;
			err = arena_trf_round(&doc, rd, &t);
			if (err < 0)
				break;
			int k = arena_dutch_pair(&t, p, doc.n / 2 + 1);
			int kf = file_pairs(&doc, rd, q, p, k);
			rounds++;
			if (k >= 0 && same_pairing(p, k, q, kf)) {
				same++;
			} else {
				printf("%s: round %d differs\n", files[i], rd + 1);
			}
		}
		if (err < 0) {
			fprintf(stderr, "%s: %s\n", files[i], arena_strerror(err));
			bad++;
		}
		free(p), free(q), free(doc.players), free(doc.games), free(text);
	}
	printf("%d files: %ld of %ld rounds paired identically%s\n", nfiles, same, rounds,
	       bad ? " (some files could not be read)" : "");
	return same == rounds && !bad ? 0 : 1;
}

/* ---- --trf: random tournaments written out ----------------------------------- */

static int write_tournaments(const char *dir, int count, uint64_t seed, const struct range *rg)
{
	struct rng r;
	rng_seed(&r, seed);
	int stopped = 0;
	for (int i = 0; i < count; i++) {
		int n = rg->pmin + (int)rng_below(&r, (uint32_t)(rg->pmax - rg->pmin + 1));
		int rounds = rg->rmin + (int)rng_below(&r, (uint32_t)(rg->rmax - rg->rmin + 1));
		struct sim s;
		sim_init(&s, &r, n, rounds, 1);
		struct arena_pair *p = xcalloc((size_t)(n / 2 + 1), sizeof *p);
		int stop = 0;
		struct arena_swiss t;
		for (int rd = 0; rd < rounds && !stop; rd++) {
			t = sim_prepare(&s, &r);
			int k = arena_dutch_pair(&t, p, n / 2 + 1);
			if (k < 0)
				stop = 1;
			else
				sim_play(&s, &r, p, k);
		}
		free(p);
		stopped += stop;
		t = (struct arena_swiss){s.n,      s.players, s.played,
		                         s.rounds, 'w',       arena_points_default()};
		char path[4200];
		snprintf(path, sizeof path, "%s/t%04d%s.trf", dir, i, stop ? "-stop" : "");
		if (write_trf(&t, stop, path) < 0) {
			fprintf(stderr, "%s: %s\n", path, strerror(errno));
			sim_free(&s);
			return 1;
		}
		sim_free(&s);
	}
	printf("%d tournaments written to %s (%d stopped early: no legal pairing left)\n", count,
	       dir, stopped);
	return 0;
}

static void usage(const char *argv0)
{
	fprintf(stderr,
	        "usage: %s [--tournaments N] [--big-rounds R] [--seed S] [--bbp PATH]\n"
	        "       %s --compare N --bbp PATH [--seed S] [--min P] [--max P] [--rmin R] "
	        "[--rmax R] [--keep DIR]\n"
	        "       %s --check FILE...\n"
	        "       %s --trf DIR --count N [--seed S] [--min P] [--max P] [--rmin R] [--rmax "
	        "R]\n",
	        argv0, argv0, argv0, argv0);
}

int main(int argc, char **argv)
{
	const char *dir = NULL, *bbp_path = NULL, *keep = NULL;
	int count = 0, tournaments = 5, compare_n = 0, check = 0, big_rounds = 3;
	struct range rg = {9, 64, 5, 11};
	uint64_t seed = 1;
	static const struct option opts[] = {
	        {"trf", 1, 0, 't'},         {"count", 1, 0, 'c'}, {"seed", 1, 0, 's'},
	        {"tournaments", 1, 0, 'n'}, {"min", 1, 0, 'a'},   {"max", 1, 0, 'b'},
	        {"rmin", 1, 0, 'x'},        {"rmax", 1, 0, 'y'},  {"bbp", 1, 0, 'p'},
	        {"compare", 1, 0, 'C'},     {"keep", 1, 0, 'k'},  {"check", 0, 0, 'K'},
	        {"big-rounds", 1, 0, 'B'},  {0, 0, 0, 0}};
	int c;
	setvbuf(stdout, NULL, _IOLBF, 0); /* figures as they come, into a pipe too */
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
			rg.pmin = atoi(optarg);
			break;
		case 'b':
			rg.pmax = atoi(optarg);
			break;
		case 'x':
			rg.rmin = atoi(optarg);
			break;
		case 'y':
			rg.rmax = atoi(optarg);
			break;
		case 'p':
			bbp_path = optarg;
			break;
		case 'C':
			compare_n = atoi(optarg);
			break;
		case 'k':
			keep = optarg;
			break;
		case 'K':
			check = 1;
			break;
		case 'B':
			big_rounds = atoi(optarg);
			break;
		default:
			usage(argv[0]);
			return 2;
		}
	}
	if (rg.pmin < 2 || rg.pmax < rg.pmin || rg.pmax > ARENA_SWISS_MAX || rg.rmin < 1 ||
	    rg.rmax < rg.rmin || rg.rmax >= ARENA_MAX_ROUNDS || tournaments < 1 || big_rounds < 1 ||
	    big_rounds > 11) {
		usage(argv[0]);
		return 2;
	}
	if (check)
		return check_files(argc - optind, argv + optind);
	if (dir)
		return write_tournaments(dir, count, seed, &rg);
	struct bbp b;
	if (bbp_path && bbp_open(&b, bbp_path) < 0)
		return 1;
	int rc = 0;
	if (compare_n > 0) {
		if (!bbp_path) {
			usage(argv[0]);
			return 2;
		}
		rc = compare(compare_n, seed, &rg, &b, keep);
	} else {
		bench_swiss(100, 9, 9, tournaments, seed, bbp_path ? &b : NULL);
		bench_swiss(1000, 11, big_rounds, 1, seed + 1, bbp_path ? &b : NULL);
		struct rng r;
		rng_seed(&r, seed + 2);
		for (int n = 100; n <= 1000; n *= 10) {
			double ms = matching_ms(n, &r);
			printf("Maximum-weight matching (reference), complete graph of %d "
			       "vertices, "
			       "one-limb weights: %.2f ms (CPU), %.3g matchings/s\n",
			       n, ms, ms > 0 ? 1e3 / ms : 0);
		}
		bench_live(200, seed + 3);
	}
	if (bbp_path)
		bbp_close(&b);
	return rc;
}
