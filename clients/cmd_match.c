/*
 * cmd_match.c - `bitarena match --engine NAME=CMD --engine NAME=CMD --kind "tak size=6"
 * [--tc BASE+INC] [--games N] [--openings NAME] [--sprt elo0,elo1,alpha,beta[,model]]
 * [--ptnout FILE] [--server HOST:PORT] [--concurrency C] [--quiet]`: an engine match between
 * two TEI engines, as cutechess-cli or racetrack runs one, on bitarenad.
 *
 * Without --server it starts a private server: bitarenad (the BITARENAD environment
 * variable, else the one beside this program, else the PATH's) on 127.0.0.1:0 with a
 * temporary data directory, stopped (SIGTERM) and its directory removed at the end. It
 * creates the match (`tourney create <kind> time=... format=match games=N openings=NAME
 * sprt=...`, PROTOCOL.md §15), runs one TEI bridge per engine (cmd_tei_bridge.c's code, in
 * a child process of its own: fork(), no exec, so the bridge's crash and hang handling,
 * restarts included, is exactly tei-bridge's), the first engine's first (the first to join
 * has white in each pair's first game), starts the match once both have joined, prints
 * after every game the W-D-L, Elo, LOS and the SPRT's LLR with a progress line, and at the
 * end writes every game's record to --ptnout (`tourney record`: the server's archive of the
 * match, PTN for Tak). Exits 0 when the match finished, 1 on failure, 2 on a usage error.
 *
 * --concurrency C: a match's players play one game at a time, and a bridge runs
 * one engine process; so C games at once are C matches of the same settings, each with its
 * own two bridges (the engines' players named NAME, then NAME-2 ... NAME-C), its own
 * contiguous block of the game pairs and of the book (`opening=K`: games 2k and 2k + 1 of
 * the whole match play opening k + 1, whichever match plays them). The statistics are of
 * all of them together (src/arena/stats.h, from the first engine's side) and the SPRT is
 * checked here over every complete pair: once it is decided the matches still on are
 * cancelled (their games on are played out, not counted), as cutechess-cli stops. The
 * archive is in the whole match's order of games (block after block). With C = 1 the one
 * match's server-side sprt= ends it.
 *
 * The time control is in seconds, BASE+INC, whole seconds (the server's clocks give whole
 * seconds of increment).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena/stats.h"
#include "cli.h"

int cmd_match(int argc, char **argv);
int cmd_tei_bridge(int argc, char **argv);

#define PROG            "bitarena match"
#define START_MS        15000 /* the private server's port file, the bridges' joining */
#define ARGS_MAX        64
#define REPLY_MS        30000
#define DIRECTOR        "match"
#define MATCH_PARTS_MAX 16 /* --concurrency at most */

struct engine {
	char name[PROTO_NAME_MAX + 1];
	char *cmd; /* the command line (owned copy, split in place) */
	pid_t pid;
};

/* Runs a bridge for e in a child process: cmd_tei_bridge() with its arguments. */
static pid_t start_bridge(const struct engine *e, const char *server, long long tid, bool quiet)
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	char tbuf[32], fixed[] = "tei-bridge\0--server\0--name\0--tourney\0--quiet\0--";
	char *av[ARGS_MAX];
	int ac = 0;
	snprintf(tbuf, sizeof tbuf, "%lld", tid);
	av[ac++] = fixed;
	av[ac++] = fixed + 11;
	av[ac++] = (char *)server;
	av[ac++] = fixed + 20;
	av[ac++] = (char *)e->name;
	av[ac++] = fixed + 27;
	av[ac++] = tbuf;
	if (quiet)
		av[ac++] = fixed + 37;
	av[ac++] = fixed + 45;
	char *copy = strdup(e->cmd), *save = NULL;
	for (char *w = strtok_r(copy, " ", &save); w != NULL && ac < ARGS_MAX - 1;
	     w = strtok_r(NULL, " ", &save))
		av[ac++] = w;
	av[ac] = NULL;
	if (quiet && freopen("/dev/null", "w", stdout) == NULL)
		_exit(1);
	_exit(cmd_tei_bridge(ac, av));
}

/* The bitarenad to start: $BITARENAD, the one beside this program, else the PATH's. */
static const char *server_program(char *buf, size_t len)
{
	const char *env = getenv("BITARENAD");
	if (env != NULL && *env != '\0')
		return env;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash != NULL) {
			*slash = '\0';
			snprintf(buf, len, "%s/bitarenad", exe);
			if (access(buf, X_OK) == 0)
				return buf;
		}
	}
	return "bitarenad";
}

/* Starts a private bitarenad in dir; its port into hostport. The pid, or -1. */
static pid_t start_server(const char *dir, char *hostport, size_t len)
{
	char prog[PATH_MAX + 16], portfile[PATH_MAX], logfile[PATH_MAX];
	const char *bin = server_program(prog, sizeof prog);
	snprintf(portfile, sizeof portfile, "%s/port", dir);
	snprintf(logfile, sizeof logfile, "%s/bitarenad.log", dir);
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		if (freopen(logfile, "w", stderr) == NULL ||
		    freopen("/dev/null", "w", stdout) == NULL)
			_exit(127);
		execlp(bin, bin, "--listen", "127.0.0.1:0", "--port-file", portfile, "--data", dir,
		       (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	for (long long t0 = net_now_ms(); net_now_ms() - t0 < START_MS;) {
		FILE *f = fopen(portfile, "r");
		int port = 0;
		if (f != NULL) {
			if (fscanf(f, "%d", &port) != 1)
				port = 0;
			fclose(f);
		}
		if (port > 0) {
			snprintf(hostport, len, "127.0.0.1:%d", port);
			return pid;
		}
		if (waitpid(pid, NULL, WNOHANG) == pid) {
			fprintf(stderr, PROG ": %s did not start (its log: %s)\n", bin, logfile);
			return -1;
		}
		usleep(20000);
	}
	fprintf(stderr, PROG ": %s gave no port within %d s\n", bin, START_MS / 1000);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	return -1;
}

/* Sends a command and reads up to its reply (ok/error for cmd), skipping other messages;
   a RATE_LIMITED one is sent again after the wait the server names. The reply (the
   caller's to cJSON_Delete), or NULL on failure (said). */
static cJSON *request(struct net_conn *c, const char *cmd, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static cJSON *request(struct net_conn *c, const char *cmd, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	int r = net_send_line(c, line);
	while (r >= 0) {
		cJSON *m = NULL;
		if ((r = cli_read_json(c, PROG, REPLY_MS, &m)) < 0)
			break;
		const char *type = cli_jstr(m, "type"), *mc = cli_jstr(m, "cmd");
		bool error = strcmp(type, "error") == 0;
		if (mc == NULL || strcmp(mc, cmd) != 0 || (!error && strcmp(type, "ok") != 0)) {
			cJSON_Delete(m);
			continue;
		}
		const char *code = cli_jstr(m, "code");
		if (error && code != NULL && strcmp(code, "RATE_LIMITED") == 0) {
			long long wait = cli_jint(m, "retry_after_ms", 1000);
			cJSON_Delete(m);
			usleep((useconds_t)((wait > 0 ? wait : 1) * 1000));
			r = net_send_line(c, line);
			continue;
		}
		if (error) {
			fprintf(stderr, PROG ": %s: %s\n", cmd,
			        cli_jstr(m, "message") ? cli_jstr(m, "message") : "refused");
			cJSON_Delete(m);
			return NULL;
		}
		return m;
	}
	fprintf(stderr, PROG ": %s: %s\n", cmd, net_strerror(r));
	return NULL;
}

/* Appends every game of tournament tid to f as the server's archive of its records
   (`tourney record`, a page at a time: PROTOCOL.md §15), in its order: the games' numbers;
   the games written into *ngames. */
static int write_records(struct net_conn *c, long long tid, FILE *f, int *ngames)
{
	for (long long from = 0;;) {
		cJSON *m = request(c, "tourney", "tourney record %lld from=%lld", tid, from);
		const char *text = m != NULL ? cli_jstr(m, "records") : NULL;
		if (text == NULL) {
			cJSON_Delete(m);
			return -1;
		}
		if (text[0] != '\0')
			fprintf(f, "%s%s\n", ftell(f) > 0 ? "\n" : "", text);
		*ngames += (int)cli_jint(m, "count", 0);
		long long next = cli_jint(m, "next", -1);
		cJSON_Delete(m);
		if (next <= from)
			return ferror(f) ? -1 : 0;
		from = next;
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: " PROG " --engine NAME=CMD --engine NAME=CMD --kind \"tak "
	                "size=N [opt=value ...]\" [--tc BASE+INC] [--games N] [--openings NAME] "
	                "[--sprt elo0,elo1,alpha,beta[,model]] [--ptnout FILE] "
	                "[--server HOST:PORT] [--concurrency C] [--quiet]\n");
}

/*
 * One of the --concurrency C matches the whole one is cut into: its games (whole pairs, a
 * contiguous block of the pairs, so of the book's openings: opening=K), its tournament,
 * its two bridges (engine i as eng[i]'s name, "-k" after it from the second match on) and
 * its results from eng[0]'s side (its "first" may be either: who joined first).
 */
struct part {
	int games, first_opening; /* first_opening: 1-based */
	long long tid;
	char name[2][PROTO_NAME_MAX + 1];
	pid_t pid[2];
	bool started, over;
	int played;
	struct stats_wdl w;
	struct stats_penta pp;
};

/* Runs the bridge of engine i (e) for part p, as p's player. */
static pid_t part_bridge(const struct part *p, const struct engine *e, int i, const char *server,
                         bool quiet)
{
	struct engine as = *e;
	memcpy(as.name, p->name[i], sizeof as.name);
	return start_bridge(&as, server, p->tid, quiet);
}

/* The part whose tournament is tid, or NULL. */
static struct part *part_of(struct part *pt, int n, long long tid)
{
	for (int k = 0; k < n; k++)
		if (pt[k].tid == tid)
			return &pt[k];
	return NULL;
}

/* A standings or finished event's "match": the part's results so far, from its eng[0]. */
static void part_results(struct part *p, const cJSON *mt)
{
	const char *first = cli_jstr(mt, "first");
	bool flip = first != NULL && strcmp(first, p->name[1]) == 0;
	long long w = cli_jint(mt, "wins", 0), l = cli_jint(mt, "losses", 0);
	p->w = (struct stats_wdl){.wins = (uint64_t)(flip ? l : w),
	                          .draws = (uint64_t)cli_jint(mt, "draws", 0),
	                          .losses = (uint64_t)(flip ? w : l)};
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(mt, "pentanomial");
	for (int k = 0; k < 5; k++) {
		const cJSON *v = cJSON_GetArrayItem(a, flip ? 4 - k : k);
		p->pp.n[k] = cJSON_IsNumber(v) ? (uint64_t)v->valuedouble : 0;
	}
}

/* The whole match's line: W-D-L of the first engine, Elo +/-, LOS, the SPRT's LLR; where
   the SPRT stands (CONTINUE without one). */
static enum stats_sprt_state print_line(const struct part *pt, int n, int games, long long t0,
                                        const char *name, const struct stats_sprt *sp)
{
	struct stats_wdl w = {0};
	struct stats_penta pp = {{0}};
	int played = 0;
	for (int k = 0; k < n; k++) {
		played += pt[k].played;
		w.wins += pt[k].w.wins;
		w.draws += pt[k].w.draws;
		w.losses += pt[k].w.losses;
		for (int i = 0; i < 5; i++)
			pp.n[i] += pt[k].pp.n[i];
	}
	long long secs = (net_now_ms() - t0) / 1000;
	printf("[%d/%d games, %lld:%02lld] %s %" PRIu64 "-%" PRIu64 "-%" PRIu64, played, games,
	       secs / 60, secs % 60, name, w.wins, w.draws, w.losses);
	struct stats_elo e;
	if ((stats_penta_pairs(&pp) > 0 ? stats_elo_penta(&pp, &e) : stats_elo_wdl(&w, &e)) ==
	    STATS_OK)
		printf("  Elo %+.1f +/- %.1f  LOS %.1f%%", e.elo, e.elo_err, e.los * 100);
	enum stats_sprt_state st = STATS_SPRT_CONTINUE;
	double llr = 0;
	if (sp != NULL && stats_llr_penta(sp, &pp, &llr) == STATS_OK) {
		st = stats_sprt_state(sp, llr);
		printf("  LLR %.2f (%.2f, %.2f) %s", llr, stats_sprt_lower(sp),
		       stats_sprt_upper(sp),
		       st == STATS_SPRT_H1   ? "H1"
		       : st == STATS_SPRT_H0 ? "H0"
		                             : "continue");
	}
	printf("\n");
	fflush(stdout);
	return st;
}

int cmd_match(int argc, char **argv)
{
	struct engine eng[2];
	int neng = 0, games = 2, conc = 1;
	const char *kind = NULL, *tc = NULL, *openings = NULL, *sprt = NULL, *ptnout = NULL,
	           *server = NULL;
	bool quiet = false;
	memset(eng, 0, sizeof eng);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--quiet") == 0) {
			quiet = true;
			continue;
		}
		if (v == NULL) {
			usage();
			return 2;
		}
		i++;
		if (strcmp(a, "--engine") == 0) {
			const char *eq = strchr(v, '=');
			if (neng == 2 || eq == NULL || eq == v || eq[1] == '\0' ||
			    (size_t)(eq - v) > PROTO_NAME_MAX) {
				fprintf(stderr, PROG ": --engine NAME=CMD, twice\n");
				return 2;
			}
			snprintf(eng[neng].name, sizeof eng[neng].name, "%.*s", (int)(eq - v), v);
			eng[neng++].cmd = (char *)eq + 1;
		} else if (strcmp(a, "--kind") == 0) {
			kind = v;
		} else if (strcmp(a, "--tc") == 0) {
			tc = v;
		} else if (strcmp(a, "--games") == 0) {
			games = atoi(v);
		} else if (strcmp(a, "--concurrency") == 0) {
			conc = atoi(v);
		} else if (strcmp(a, "--openings") == 0) {
			openings = v;
		} else if (strcmp(a, "--sprt") == 0) {
			sprt = v;
		} else if (strcmp(a, "--ptnout") == 0 || strcmp(a, "--pgnout") == 0) {
			ptnout = v;
		} else if (strcmp(a, "--server") == 0) {
			server = v;
		} else {
			usage();
			return 2;
		}
	}
	if (neng != 2 || kind == NULL || games < 2 || games % 2 != 0) {
		if (games < 2 || games % 2 != 0)
			fprintf(stderr, PROG ": --games is even (game pairs) and at least 2\n");
		usage();
		return 2;
	}
	if (strcasecmp(eng[0].name, eng[1].name) == 0) {
		fprintf(stderr, PROG ": the engines need two names\n");
		return 2;
	}
	if (conc < 1 || conc > MATCH_PARTS_MAX || conc > games / 2) {
		fprintf(stderr,
		        PROG ": --concurrency is 1 to %d games at once, and at most the game "
		             "pairs (%d)\n",
		        MATCH_PARTS_MAX, games / 2);
		return 2;
	}
	struct stats_sprt sp;
	const char *why = NULL;
	if (sprt != NULL && stats_sprt_parse(sprt, &sp, &why) < 0) {
		fprintf(stderr, PROG ": --sprt elo0,elo1,alpha,beta[,model]: %s\n", why);
		return 2;
	}
	struct part pt[MATCH_PARTS_MAX];
	memset(pt, 0, sizeof pt);
	for (int k = 0, pairs = games / 2, first = 1; k < conc; k++) {
		int mine = pairs / conc + (k < pairs % conc);
		pt[k].games = 2 * mine;
		pt[k].first_opening = first;
		first += mine;
		for (int i = 0; i < 2; i++) {
			char suffix[8] = "";
			if (k > 0)
				snprintf(suffix, sizeof suffix, "-%d", k + 1);
			if (strlen(eng[i].name) + strlen(suffix) > PROTO_NAME_MAX) {
				fprintf(stderr,
				        PROG ": --concurrency names the engines' players NAME-2, "
				             "...: %s is too long for it (%d characters at most)\n",
				        eng[i].name, PROTO_NAME_MAX - (int)strlen(suffix));
				return 2;
			}
			strcat(strcpy(pt[k].name[i], eng[i].name), suffix); /* fits: checked */
		}
	}
	char time_word[80] = "";
	if (tc != NULL) {
		long base = 0, inc = 0;
		int k = 0;
		if (!(sscanf(tc, "%ld+%ld%n", &base, &inc, &k) == 2 && tc[k] == '\0') &&
		    !(sscanf(tc, "%ld%n", &base, &k) == 1 && tc[k] == '\0' && (inc = 0) == 0)) {
			fprintf(stderr, PROG ": --tc is BASE+INC in whole seconds (10+1)\n");
			return 2;
		}
		if (base < 1 || inc < 0 || base > 100000 || inc > 1000) {
			fprintf(stderr, PROG ": --tc: at least a second on the clock\n");
			return 2;
		}
		snprintf(time_word, sizeof time_word, " time=%ld:%02ld+%ld", base / 60, base % 60,
		         inc);
	}

	/* the server: the one given, else a private one */
	char dir[] = "/tmp/bitarena-match-XXXXXX", hostport[64];
	pid_t srv = -1;
	if (server == NULL) {
		if (mkdtemp(dir) == NULL) {
			fprintf(stderr, PROG ": temporary directory: %s\n", strerror(errno));
			return 1;
		}
		if ((srv = start_server(dir, hostport, sizeof hostport)) < 0)
			return 1;
		server = hostport;
	}
	/* the director's connection for the requests, a watcher's for the events (so that no
	   event is lost while a request waits for its reply) */
	int rc = 1;
	struct net_conn c, ev;
	char got[PROTO_NAME_MAX + 1];
	long long t0 = net_now_ms();
	if (cli_session_open(&c, PROG, server, DIRECTOR, got, sizeof got, 10000) < 0)
		goto out_server;
	if (cli_session_open(&ev, PROG, server, DIRECTOR "-events", got, sizeof got, 10000) < 0)
		goto out_conn;
	cJSON *m = request(&ev, "set", "set tourneys on");
	if (m == NULL)
		goto out_ev;
	cJSON_Delete(m);
	for (int k = 0; k < conc; k++) {
		char first[32] = "";
		if (openings != NULL && pt[k].first_opening > 1)
			snprintf(first, sizeof first, " opening=%d", pt[k].first_opening);
		m = request(&c, "tourney",
		            "tourney create %s%s format=match games=%d%s%s%s%s%s name=%s-%s", kind,
		            time_word, pt[k].games, openings ? " openings=" : "",
		            openings ? openings : "", first, sprt && conc == 1 ? " sprt=" : "",
		            sprt && conc == 1 ? sprt : "", pt[k].name[0], pt[k].name[1]);
		if (m == NULL)
			goto out_bridges;
		pt[k].tid = cli_jint(m, "tourney", 0);
		cJSON_Delete(m);
	}
	printf("match %lld", pt[0].tid);
	if (conc > 1)
		printf("-%lld (%d at once)", pt[conc - 1].tid, conc);
	printf(" on %s: %s vs %s, %s%s, %d games%s%s%s%s\n", server, eng[0].name, eng[1].name, kind,
	       time_word, games, openings ? ", openings " : "", openings ? openings : "",
	       sprt ? ", SPRT " : "", sprt ? sprt : "");
	fflush(stdout);
	/* the first engine's bridge first: the first to join has white in each pair's first
	   game (cutechess-cli's and racetrack's first engine); the second's once it is in */
	for (int k = 0; k < conc; k++)
		pt[k].pid[0] = part_bridge(&pt[k], &eng[0], 0, server, quiet);

	/* each part starts once its two have joined; then the events until every part is over */
	int left = conc;
	bool decided = false;
	while (left > 0) {
		bool waiting = false;
		for (int k = 0; k < conc; k++)
			waiting |= !pt[k].started;
		cJSON *e = NULL;
		int r = cli_read_json(&ev, PROG, waiting ? START_MS : -1, &e);
		if (r < 0) {
			fprintf(stderr, PROG ": %s\n",
			        r == NET_ETIMEOUT ? "the engines did not join" : net_strerror(r));
			goto out_bridges;
		}
		const char *type = cli_jstr(e, "type"), *evn = cli_jstr(e, "event");
		struct part *p = part_of(pt, conc, cli_jint(e, "tourney", 0));
		if (strcmp(type, "tourney") != 0 || evn == NULL || p == NULL || p->over) {
			cJSON_Delete(e);
			continue;
		}
		if (strcmp(evn, "joined") == 0 && cli_jint(e, "players", 0) == 1 &&
		    p->pid[1] == 0) {
			p->pid[1] = part_bridge(p, &eng[1], 1, server, quiet);
		} else if (strcmp(evn, "joined") == 0 && cli_jint(e, "players", 0) == 2 &&
		           !p->started) {
			cJSON *s = request(&c, "tourney", "tourney start %lld", p->tid);
			p->started = s != NULL;
			cJSON_Delete(s);
			if (!p->started) {
				cJSON_Delete(e);
				goto out_bridges;
			}
		} else if (strcmp(evn, "result") == 0) {
			p->played++;
		} else if (strcmp(evn, "standings") == 0 || strcmp(evn, "finished") == 0) {
			part_results(p, cJSON_GetObjectItemCaseSensitive(e, "match"));
			bool fin = strcmp(evn, "finished") == 0;
			if (fin) {
				p->over = true;
				left--;
			}
			if (!fin || conc == 1) {
				enum stats_sprt_state st = print_line(
				        pt, conc, games, t0, eng[0].name, sprt ? &sp : NULL);
				/* the parts have no SPRT: the whole match's ends them */
				if (st != STATS_SPRT_CONTINUE && conc > 1 && !decided) {
					decided = true;
					for (int k = 0; k < conc; k++)
						if (!pt[k].over)
							cJSON_Delete(request(&c, "tourney",
							                     "tourney cancel %lld",
							                     pt[k].tid));
				}
			}
			if (fin && conc == 1)
				printf("%s\n", cli_jstr(e, "text") ? cli_jstr(e, "text") : "");
		} else if (strcmp(evn, "cancelled") == 0) {
			p->over = true;
			left--;
			if (!decided) {
				fprintf(stderr, PROG ": match %lld was cancelled\n", p->tid);
				cJSON_Delete(e);
				goto out_bridges;
			}
		}
		cJSON_Delete(e);
	}
	rc = 0;
	int played = 0;
	for (int k = 0; k < conc; k++)
		played += pt[k].played;
	printf("match over after %d games\n", played);
	if (conc > 1)
		print_line(pt, conc, games, t0, eng[0].name, sprt ? &sp : NULL);
	if (ptnout != NULL) {
		FILE *f = fopen(ptnout, "w");
		int n = 0;
		if (f == NULL) {
			fprintf(stderr, PROG ": %s: %s\n", ptnout, strerror(errno));
			rc = 1;
		} else {
			for (int k = 0; k < conc && rc == 0; k++)
				if (write_records(&c, pt[k].tid, f, &n) < 0)
					rc = 1;
			if (fclose(f) != 0)
				rc = 1;
			if (rc == 0)
				printf("%d game record(s) written to %s\n", n, ptnout);
		}
	}
out_bridges:
	for (int k = 0; k < conc; k++)
		for (int i = 0; i < 2; i++) {
			pid_t pid = pt[k].pid[i];
			if (pid <= 0)
				continue;
			if (rc != 0)
				kill(pid, SIGTERM);
			int st = 0;
			/* a bridge leaves at the end of its last game; a hung one is stopped */
			for (long long w0 = net_now_ms(); waitpid(pid, &st, WNOHANG) == 0;) {
				if (net_now_ms() - w0 > START_MS) {
					kill(pid, SIGKILL);
					waitpid(pid, &st, 0);
					break;
				}
				usleep(20000);
			}
		}
out_ev:
	net_close(&ev);
out_conn:
	net_close(&c);
out_server:
	if (srv > 0) {
		kill(srv, SIGTERM);
		waitpid(srv, NULL, 0);
		char cmd[sizeof dir + 16];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (rc == 0 && system(cmd) != 0)
			fprintf(stderr, PROG ": %s left behind\n", dir);
		else if (rc != 0)
			fprintf(stderr, PROG ": the private server's files are in %s\n", dir);
	}
	return rc;
}
