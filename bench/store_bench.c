/*
 * store_bench.c - how many journal records per second the store takes, and
 * in how many commits: the reference first (one transaction and one fsync
 * per move, what the server did on its loop before the writer thread),
 * then the journal queue (store_writer.h) with group commit under
 * --fsync always and --fsync batch=MS, with C clients that each wait for
 * their move's acknowledgement before they send the next (as players do).
 * Prints records/s, commits/s, records per commit and the queue-to-ack
 * latency; the journal is a real SQLite file (on disk unless DIR is on a
 * tmpfs: the file system is printed).
 *
 *   bench/store_bench [--dir DIR] [--seconds S] [--clients N,N,...]
 */
#include <errno.h>
#include <getopt.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <uv.h>

#include "server/store/store.h"
#include "server/store/store_writer.h"

#define TMPFS_MAGIC 0x01021994
#define MAX_CLIENTS 10000

struct client {
	int64_t game;
	int ply;
	uint64_t sent; /* uv_hrtime() of the move in flight */
};

struct run {
	uv_loop_t loop;
	uv_timer_t timer;
	struct store_writer *w;
	struct client *clients;
	int nclients;
	bool over;        /* the time is up: no new moves */
	uint64_t pending; /* moves in flight */
	uint64_t acked, failed;
	double *lat; /* ms, one per acknowledged move */
	size_t nlat, caplat;
};

static void send_move(struct run *r, int c)
{
	struct client *cl = &r->clients[c];
	struct store_rec *rec = store_writer_rec(r->w, STORE_REC_MOVE);
	if (rec == NULL) {
		fprintf(stderr, "store_bench: out of memory\n");
		exit(1);
	}
	rec->game = cl->game;
	rec->tag = (uint64_t)c;
	rec->u.move.ply = cl->ply;
	rec->u.move.seat = cl->ply % 2;
	snprintf(rec->u.move.text, sizeof rec->u.move.text, "%c%d", 'a' + cl->ply % 8,
	         1 + cl->ply % 8);
	rec->u.move.ms_used = 1234;
	rec->u.move.clock_ms[0] = rec->u.move.clock_ms[1] = 300000;
	rec->u.move.at = 1700000000000LL + cl->ply;
	cl->sent = uv_hrtime();
	store_writer_queue(r->w, rec);
	r->pending++;
}

static void on_batch(void *ud, const struct store_batch *b)
{
	struct run *r = ud;
	uint64_t now = uv_hrtime();
	for (const struct store_rec *rec = b->recs; rec != NULL; rec = rec->next) {
		if (rec->type != STORE_REC_MOVE)
			continue;
		r->pending--;
		if (rec->err != STORE_OK) {
			r->failed++;
			continue;
		}
		r->acked++;
		int c = (int)rec->tag;
		if (r->nlat == r->caplat) {
			r->caplat = r->caplat ? 2 * r->caplat : 1 << 16;
			r->lat = realloc(r->lat, r->caplat * sizeof *r->lat);
			if (r->lat == NULL)
				exit(1);
		}
		r->lat[r->nlat++] = (double)(now - r->clients[c].sent) / 1e6;
		r->clients[c].ply++;
		if (!r->over)
			send_move(r, c);
	}
}

static void on_time(uv_timer_t *t)
{
	struct run *r = t->data;
	r->over = true;
	uv_close((uv_handle_t *)t, NULL);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double pct(const double *v, size_t n, double p)
{
	if (n == 0)
		return 0;
	size_t i = (size_t)(p * (double)(n - 1));
	return v[i];
}

static void row(const char *mode, int clients, double secs, uint64_t records, uint64_t commits,
                const double *lat, size_t nlat)
{
	printf("%-22s %7d %11.0f %10.0f %12.1f %8.2f %8.2f\n", mode, clients,
	       (double)records / secs, (double)commits / secs,
	       commits ? (double)records / (double)commits : 0.0, pct(lat, nlat, 0.5),
	       pct(lat, nlat, 0.99));
	fflush(stdout);
}

static struct store *open_store(const char *dir, enum store_sync sync)
{
	struct store_options o = {.dir = dir, .sync = sync};
	struct store *s = NULL;
	int err = store_open_opts(&o, &s);
	if (err) {
		fprintf(stderr, "store_bench: cannot open the store in %s: %s\n", dir,
		        store_strerror(err));
		exit(1);
	}
	return s;
}

static int64_t new_game(struct store *s)
{
	struct store_game g;
	memset(&g, 0, sizeof g);
	snprintf(g.kind, sizeof g.kind, "ttt");
	snprintf(g.players[0], sizeof g.players[0], "white");
	snprintf(g.players[1], sizeof g.players[1], "black");
	g.started = 1700000000000LL;
	int64_t id = 0;
	if (store_game_begin(s, &g, &id) != STORE_OK) {
		fprintf(stderr, "store_bench: game begin: %s\n", store_last_error(s));
		exit(1);
	}
	return id;
}

/* The reference: every move its own transaction and fsync, one after the other. */
static void reference(const char *dir, double secs)
{
	struct store *s = open_store(dir, STORE_SYNC_FULL);
	int64_t id = new_game(s);
	uint64_t start = uv_hrtime(), end = start + (uint64_t)(secs * 1e9), n = 0;
	size_t cap = 1 << 16;
	double *lat = malloc(cap * sizeof *lat);
	if (lat == NULL)
		exit(1);
	while (uv_hrtime() < end) {
		struct store_move m = {.ply = (int)n, .seat = (int)(n % 2), .text = "a1"};
		uint64_t t0 = uv_hrtime();
		if (store_move_append(s, id, &m) != STORE_OK) {
			fprintf(stderr, "store_bench: append: %s\n", store_last_error(s));
			exit(1);
		}
		if (n == cap) {
			cap *= 2;
			lat = realloc(lat, cap * sizeof *lat);
			if (lat == NULL)
				exit(1);
		}
		lat[n++] = (double)(uv_hrtime() - t0) / 1e6;
	}
	double took = (double)(uv_hrtime() - start) / 1e9;
	store_close(s);
	qsort(lat, n, sizeof *lat, cmp_double);
	row("one commit per move", 1, took, n, n, lat, n);
	free(lat);
}

static void queued(const char *dir, const char *fsync, int nclients, double secs)
{
	struct run r;
	memset(&r, 0, sizeof r);
	struct store_writer_config cfg = {.ud = &r, .on_batch = on_batch};
	if (store_fsync_parse(fsync, &cfg.fsync) != 0)
		exit(2);
	struct store *s = open_store(dir, store_fsync_sync(&cfg.fsync));
	r.nclients = nclients;
	r.clients = calloc((size_t)nclients, sizeof *r.clients);
	if (r.clients == NULL)
		exit(1);
	uv_loop_init(&r.loop);
	if (store_writer_start(&r.loop, s, &cfg, &r.w) != STORE_OK) {
		fprintf(stderr, "store_bench: cannot start the writer\n");
		exit(1);
	}
	/* the games exist before the clock starts */
	for (int c = 0; c < nclients; c++) {
		struct store_rec *rec = store_writer_rec(r.w, STORE_REC_GAME);
		if (rec == NULL || store_writer_game_id(r.w, &r.clients[c].game) != STORE_OK)
			exit(1);
		rec->game = r.clients[c].game;
		snprintf(rec->u.game.kind, sizeof rec->u.game.kind, "ttt");
		snprintf(rec->u.game.players[0], sizeof rec->u.game.players[0], "white");
		snprintf(rec->u.game.players[1], sizeof rec->u.game.players[1], "black");
		store_writer_queue(r.w, rec);
	}
	store_writer_flush(r.w);
	struct store_writer_stats st0, st1;
	store_writer_stats(r.w, &st0);
	uint64_t start = uv_hrtime();
	r.timer.data = &r;
	uv_timer_init(&r.loop, &r.timer);
	uv_timer_start(&r.timer, on_time, (uint64_t)(secs * 1000), 0);
	for (int c = 0; c < nclients; c++)
		send_move(&r, c);
	while (!r.over || r.pending > 0)
		uv_run(&r.loop, UV_RUN_ONCE);
	double took = (double)(uv_hrtime() - start) / 1e9;
	store_writer_stats(r.w, &st1);
	store_writer_stop(r.w);
	uv_run(&r.loop, UV_RUN_DEFAULT);
	uv_loop_close(&r.loop);
	if (r.failed > 0)
		fprintf(stderr, "store_bench: %llu moves failed\n", (unsigned long long)r.failed);
	qsort(r.lat, r.nlat, sizeof *r.lat, cmp_double);
	char mode[40];
	snprintf(mode, sizeof mode, "queue, fsync %s", fsync);
	row(mode, nclients, took, r.acked, st1.commits - st0.commits, r.lat, r.nlat);
	free(r.lat);
	free(r.clients);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {{"dir", required_argument, NULL, 'd'},
	                                         {"seconds", required_argument, NULL, 's'},
	                                         {"clients", required_argument, NULL, 'c'},
	                                         {"help", no_argument, NULL, 'h'},
	                                         {NULL, 0, NULL, 0}};
	const char *dir = NULL, *list = "1,2,50,200,1000";
	double secs = 2.0;
	int opt;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			dir = optarg;
			break;
		case 's':
			secs = atof(optarg);
			break;
		case 'c':
			list = optarg;
			break;
		default:
			fprintf(opt == 'h' ? stdout : stderr,
			        "usage: store_bench [--dir DIR] [--seconds S] [--clients "
			        "N,N,...]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (secs <= 0 || secs > 600) {
		fprintf(stderr, "store_bench: --seconds takes 0..600\n");
		return 2;
	}
	char tmp[256];
	if (dir == NULL) {
		const char *base = getenv("TMPDIR");
		snprintf(tmp, sizeof tmp, "%s/store_bench.XXXXXX", base && *base ? base : "/tmp");
		if (mkdtemp(tmp) == NULL) {
			perror("store_bench: mkdtemp");
			return 1;
		}
		dir = tmp;
	}
	struct statfs fs;
	bool tmpfs = statfs(dir, &fs) == 0 && fs.f_type == TMPFS_MAGIC;
	printf("store_bench: journal in %s (%s), SQLite %s, %.1f s per row\n", dir,
	       tmpfs ? "tmpfs: no real fsync" : "on disk", sqlite3_libversion(), secs);
	printf("%-22s %7s %11s %10s %12s %8s %8s\n", "mode", "clients", "records/s", "commits/s",
	       "records/commit", "p50 ms", "p99 ms");
	reference(dir, secs);
	char *copy = strdup(list);
	for (char *save = NULL, *t = strtok_r(copy, ",", &save); t != NULL;
	     t = strtok_r(NULL, ",", &save)) {
		int n = atoi(t);
		if (n < 1 || n > MAX_CLIENTS) {
			fprintf(stderr, "store_bench: clients are 1..%d\n", MAX_CLIENTS);
			return 2;
		}
		queued(dir, "always", n, secs);
	}
	free(copy);
	queued(dir, "batch=10", 200, secs);
	if (dir == tmp) {
		char path[300];
		const char *files[] = {"", "-wal", "-shm"};
		for (size_t i = 0; i < 3; i++) {
			snprintf(path, sizeof path, "%s/%s%s", tmp, STORE_DB_FILE, files[i]);
			unlink(path);
		}
		rmdir(tmp);
	}
	return 0;
}
