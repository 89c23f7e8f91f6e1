/*
 * cmd_load.c - `bitarena load`: a load generator and latency benchmark for a
 * bitarenad on this machine. P pairs of connections (a seeker and an
 * accepter each) play G games per pair as fast as they can, choosing random
 * moves from each state's "legal" list, all driven from one poll() loop. It
 * times every move from sending `move` to receiving the resulting `state`
 * and prints moves/s and the latency percentiles. Bounded: at most 256 pairs,
 * 100000 games per pair, a total time limit, and loopback servers only.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "core/rng.h"

#define LOAD_MAX_PAIRS 256

struct lconn {
	struct net_conn c;
	char name[PROTO_NAME_MAX + 1];
	int pair;
	bool seeker;
	long long game;
	int seat;
	bool timing;        /* a move was sent; waiting for the state after it */
	long long sent_ns;  /* when */
	long long sent_seq; /* the seq of the state it answered */
};

struct load {
	const char *prog, *kind;
	int pairs, games;
	struct lconn *conns; /* 2 per pair: [2p] seeks, [2p + 1] accepts */
	int *done;           /* games finished per pair */
	double *lat;         /* latency samples in ms */
	size_t nlat, caplat;
	long long moves, errors;
	struct rng rng;
};

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* True when the connected peer is a loopback address (127/8, ::1, ::ffff:127/104). */
static bool peer_is_loopback(int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	if (getpeername(fd, (struct sockaddr *)&ss, &sl) < 0)
		return false;
	if (ss.ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;
		return (ntohl(a->sin_addr.s_addr) >> 24) == 127;
	}
	if (ss.ss_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)&ss)->sin6_addr;
		return IN6_IS_ADDR_LOOPBACK(a) ||
		       (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return false;
}

static void add_sample(struct load *l, double ms)
{
	if (l->nlat == l->caplat) {
		size_t cap = l->caplat ? 2 * l->caplat : 4096;
		double *p = realloc(l->lat, cap * sizeof *p);
		if (p == NULL)
			return; /* a lost sample only thins the statistics */
		l->lat = p;
		l->caplat = cap;
	}
	l->lat[l->nlat++] = ms;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Nearest-rank percentile of the sorted samples. */
static double percentile(const double *v, size_t n, double pct)
{
	size_t rank = (size_t)(pct / 100.0 * (double)n + 0.999999);
	return v[rank == 0 ? 0 : rank > n ? n - 1 : rank - 1];
}

static int send_or_count(struct load *l, struct lconn *x, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static int send_or_count(struct load *l, struct lconn *x, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = net_vsendf(&x->c, fmt, ap);
	va_end(ap);
	if (r < 0) {
		fprintf(stderr, "%s: %s: %s\n", l->prog, x->name, net_strerror(r));
		l->errors++;
	}
	return r;
}

static void on_state(struct load *l, struct lconn *x, const cJSON *m)
{
	long long seq = cli_jint(m, "seq", 0);
	if (cli_jint(m, "game", -1) != x->game)
		return;
	if (x->timing && seq > x->sent_seq) {
		add_sample(l, (double)(now_ns() - x->sent_ns) / 1e6);
		x->timing = false;
	}
	const cJSON *legal = cJSON_GetObjectItemCaseSensitive(m, "legal");
	int n = cJSON_GetArraySize(legal);
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "over")) ||
	    !cli_to_move_has(m, x->seat) || n <= 0 || x->timing)
		return;
	const cJSON *mv = cJSON_GetArrayItem(legal, (int)rng_below(&l->rng, (uint32_t)n));
	if (!cJSON_IsString(mv))
		return;
	x->timing = true;
	x->sent_seq = seq;
	x->sent_ns = now_ns();
	if (send_or_count(l, x, "move %lld %s", x->game, mv->valuestring) == 0)
		l->moves++;
}

static void on_message(struct load *l, struct lconn *x, const cJSON *m)
{
	const char *type = cli_jstr(m, "type"), *cmd = cli_jstr(m, "cmd");
	if (strcmp(type, "state") == 0) {
		on_state(l, x, m);
	} else if (strcmp(type, "game_start") == 0) {
		x->game = cli_jint(m, "game", -1);
		x->seat = (int)cli_jint(m, "seat", -1);
		x->timing = false;
	} else if (strcmp(type, "game_over") == 0) {
		if (cli_jint(m, "game", -1) != x->game)
			return;
		x->game = -1;
		x->timing = false;
		if (x->seeker && ++l->done[x->pair] < l->games)
			send_or_count(l, x, "seek %s", l->kind);
	} else if (strcmp(type, "ok") == 0 && cmd != NULL && strcmp(cmd, "seek") == 0 &&
	           x->seeker) {
		const cJSON *seek = cJSON_GetObjectItemCaseSensitive(m, "seek");
		send_or_count(l, &l->conns[2 * x->pair + 1], "accept %lld",
		              cli_jint(seek, "id", 0));
	} else if (strcmp(type, "error") == 0) {
		l->errors++;
		fprintf(stderr, "%s: %s: server error %s on %s: %s\n", l->prog, x->name,
		        cli_jstr(m, "code") ? cli_jstr(m, "code") : "?", cmd ? cmd : "?",
		        cli_jstr(m, "message") ? cli_jstr(m, "message") : "");
		if (cmd != NULL && strcmp(cmd, "move") == 0 && x->game > 0) {
			x->timing = false; /* do not stall the pair: give the game up */
			send_or_count(l, x, "resign %lld", x->game);
		}
	}
}

static bool all_done(const struct load *l)
{
	for (int p = 0; p < l->pairs; p++)
		if (l->done[p] < l->games)
			return false;
	return true;
}

/* Reads and handles every complete line of x; < 0 when the connection is gone. */
static int drain(struct load *l, struct lconn *x)
{
	for (;;) {
		cJSON *m = NULL;
		int r = cli_read_json(&x->c, l->prog, 0, &m);
		if (r == NET_ETIMEOUT)
			return 0;
		if (r < 0) {
			fprintf(stderr, "%s: %s lost the server: %s\n", l->prog, x->name,
			        net_strerror(r));
			return -1;
		}
		on_message(l, x, m);
		cJSON_Delete(m);
	}
}

static int run(struct load *l, const char *server, int timeout_ms)
{
	long long deadline = net_now_ms() + timeout_ms;
	int n = 2 * l->pairs;
	struct net_conn probe;
	char err[256];
	if (net_connect(&probe, server, 0, 10000, err, sizeof err) < 0) {
		fprintf(stderr, "%s: %s\n", l->prog, err);
		return 1;
	}
	bool local = peer_is_loopback(probe.fd);
	net_close(&probe);
	if (!local) {
		fprintf(stderr, "%s: %s is not a loopback address; load runs only locally\n",
		        l->prog, server);
		return 2;
	}
	for (int i = 0; i < n; i++) {
		struct lconn *x = &l->conns[i];
		char want[PROTO_NAME_MAX + 1];
		x->pair = i / 2;
		x->seeker = i % 2 == 0;
		x->game = -1;
		snprintf(want, sizeof want, "load%d%c", x->pair, x->seeker ? 's' : 'a');
		if (cli_session_open(&x->c, l->prog, server, want, x->name, sizeof x->name, 10000) <
		    0)
			return 1;
	}
	struct pollfd *pf = calloc((size_t)n, sizeof *pf);
	if (pf == NULL)
		return 1;
	int rc = 1;
	long long t0 = now_ns();
	for (int p = 0; p < l->pairs; p++)
		if (send_or_count(l, &l->conns[2 * p], "seek %s", l->kind) < 0)
			goto out;
	while (!all_done(l)) {
		long long left = deadline - net_now_ms();
		if (left <= 0) {
			fprintf(stderr, "%s: time limit reached before all games ended\n", l->prog);
			goto out;
		}
		for (int i = 0; i < n; i++)
			pf[i] = (struct pollfd){.fd = l->conns[i].c.fd, .events = POLLIN};
		int r = poll(pf, (nfds_t)n, left > 1000 ? 1000 : (int)left);
		if (r < 0)
			continue; /* EINTR */
		for (int i = 0; i < n; i++)
			if ((pf[i].revents || net_buffered(&l->conns[i].c)) &&
			    drain(l, &l->conns[i]) < 0)
				goto out;
		if (l->errors > 100) {
			fprintf(stderr, "%s: too many errors; stopping\n", l->prog);
			goto out;
		}
	}
	double secs = (double)(now_ns() - t0) / 1e9;
	printf("load: %d pairs x %d games of %s: %d games, %lld moves in %.3f s: %.0f moves/s, "
	       "%.0f games/s\n",
	       l->pairs, l->games, l->kind, l->pairs * l->games, l->moves, secs,
	       secs > 0 ? (double)l->moves / secs : 0.0,
	       secs > 0 ? (double)(l->pairs * l->games) / secs : 0.0);
	if (l->nlat > 0) {
		qsort(l->lat, l->nlat, sizeof *l->lat, cmp_double);
		printf("latency move->state (ms): p50 %.3f p90 %.3f p99 %.3f max %.3f (n=%zu)\n",
		       percentile(l->lat, l->nlat, 50), percentile(l->lat, l->nlat, 90),
		       percentile(l->lat, l->nlat, 99), l->lat[l->nlat - 1], l->nlat);
	}
	if (l->errors > 0)
		fprintf(stderr, "%s: %lld errors\n", l->prog, l->errors);
	rc = l->errors > 0;
out:
	free(pf);
	return rc;
}

int cmd_load(int argc, char **argv)
{
	struct load l = {.prog = "bitarena load", .kind = "ttt", .pairs = 4, .games = 100};
	const char *server = CLI_DEFAULT_SERVER;
	long long seed = (long long)time(NULL), timeout_s = 120;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		char *end = NULL;
		long long v = val ? strtoll(val, &end, 10) : 0;
		bool num = val != NULL && *val != '\0' && *end == '\0';
		if (strcmp(a, "--server") == 0 && val) {
			server = val;
		} else if (strcmp(a, "--kind") == 0 && val && strpbrk(val, "\r\n") == NULL) {
			l.kind = val;
		} else if (strcmp(a, "--pairs") == 0 && num && v >= 1 && v <= LOAD_MAX_PAIRS) {
			l.pairs = (int)v;
		} else if (strcmp(a, "--games") == 0 && num && v >= 1 && v <= 100000) {
			l.games = (int)v;
		} else if (strcmp(a, "--seed") == 0 && num) {
			seed = v;
		} else if (strcmp(a, "--timeout") == 0 && num && v >= 1 && v <= 3600) {
			timeout_s = v;
		} else {
			fprintf(stderr, "%s: bad argument '%s'\n", l.prog, a);
			return cli_usage("load");
		}
		i++;
	}
	rng_seed(&l.rng, (uint64_t)seed);
	l.conns = calloc((size_t)(2 * l.pairs), sizeof *l.conns);
	l.done = calloc((size_t)l.pairs, sizeof *l.done);
	int rc = 1;
	if (l.conns != NULL && l.done != NULL) {
		for (int i = 0; i < 2 * l.pairs; i++)
			l.conns[i].c.fd = -1;
		rc = run(&l, server, (int)timeout_s * 1000);
		for (int i = 0; i < 2 * l.pairs; i++) {
			if (l.conns[i].c.fd >= 0)
				net_send_line(&l.conns[i].c, "quit");
			net_close(&l.conns[i].c);
		}
	}
	free(l.conns);
	free(l.done);
	free(l.lat);
	return rc;
}
