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
 * restarts included, is exactly tei-bridge's), starts the match once both have joined,
 * prints every standings event's match line (W-D-L, Elo, LOS, the SPRT's LLR) with a
 * progress line, and at the end writes every game's record (`record <game>`, PTN for Tak)
 * to --ptnout. Exits 0 when the match finished, 1 on failure, 2 on a usage error.
 *
 * The time control is in seconds, BASE+INC, whole seconds (the server's clocks give whole
 * seconds of increment). --concurrency: the server plays a match one game at a time (each
 * engine is one player, one bridge); a value above 1 is refused rather than ignored.
 */
#include <errno.h>
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

#include "cli.h"

int cmd_match(int argc, char **argv);
int cmd_tei_bridge(int argc, char **argv);

#define PROG       "bitarena match"
#define START_MS   15000 /* the private server's port file, the bridges' joining */
#define ARGS_MAX   64
#define REPLY_MS   30000
#define DIRECTOR   "match"

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
		if (freopen(logfile, "w", stderr) == NULL || freopen("/dev/null", "w", stdout) == NULL)
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

/* Writes every game of tournament tid as its record, one after another, to path. */
static int write_records(struct net_conn *c, long long tid, const char *path, int *ngames)
{
	*ngames = 0;
	cJSON *gl = request(c, "tourney", "tourney games %lld", tid);
	if (gl == NULL)
		return -1;
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		cJSON_Delete(gl);
		return -1;
	}
	const cJSON *g;
	int bad = 0;
	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(gl, "games"))
	{
		long long id = cli_jint(g, "game", 0);
		if (id <= 0)
			continue;
		cJSON *rec = request(c, "record", "record %lld", id);
		const char *text = rec != NULL ? cli_jstr(rec, "record") : NULL;
		if (text == NULL) {
			bad++;
		} else {
			fprintf(f, "%s%s", *ngames ? "\n" : "", text);
			if (text[0] != '\0' && text[strlen(text) - 1] != '\n')
				fputc('\n', f);
			(*ngames)++;
		}
		cJSON_Delete(rec);
	}
	cJSON_Delete(gl);
	if (fclose(f) != 0)
		bad++;
	return bad ? -1 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: " PROG " --engine NAME=CMD --engine NAME=CMD --kind \"tak "
	                "size=N [opt=value ...]\" [--tc BASE+INC] [--games N] [--openings NAME] "
	                "[--sprt elo0,elo1,alpha,beta[,model]] [--ptnout FILE] "
	                "[--server HOST:PORT] [--concurrency 1] [--quiet]\n");
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
	if (conc != 1) {
		fprintf(stderr, PROG ": --concurrency: a match is played one game at a time (each "
		                "engine is one player); only 1 is possible\n");
		return 2;
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
	int rc = 1;
	struct net_conn c;
	char got[PROTO_NAME_MAX + 1];
	long long tid = 0, t0 = net_now_ms();
	if (cli_session_open(&c, PROG, server, DIRECTOR, got, sizeof got, 10000) < 0)
		goto out_server;
	cJSON *m = request(&c, "set", "set tourneys on");
	cJSON_Delete(m);
	m = request(&c, "tourney", "tourney create %s%s format=match games=%d%s%s%s%s name=%s-%s",
	            kind, time_word, games, openings ? " openings=" : "", openings ? openings : "",
	            sprt ? " sprt=" : "", sprt ? sprt : "", eng[0].name, eng[1].name);
	if (m == NULL)
		goto out_conn;
	tid = cli_jint(m, "tourney", 0);
	cJSON_Delete(m);
	printf("match %lld on %s: %s vs %s, %s%s, %d games%s%s%s%s\n", tid, server, eng[0].name,
	       eng[1].name, kind, time_word, games, openings ? ", openings " : "",
	       openings ? openings : "", sprt ? ", SPRT " : "", sprt ? sprt : "");
	fflush(stdout);
	for (int i = 0; i < 2; i++)
		eng[i].pid = start_bridge(&eng[i], server, tid, quiet);

	/* both joined: start; then the events until the end */
	int joined = 0, played = 0;
	bool started = false, over = false;
	while (!over) {
		cJSON *e = NULL;
		int r = cli_read_json(&c, PROG, started ? -1 : START_MS, &e);
		if (r < 0) {
			fprintf(stderr, PROG ": %s\n",
			        r == NET_ETIMEOUT ? "the engines did not join" : net_strerror(r));
			goto out_bridges;
		}
		const char *type = cli_jstr(e, "type"), *ev = cli_jstr(e, "event");
		if (strcmp(type, "tourney") != 0 || ev == NULL || cli_jint(e, "tourney", 0) != tid) {
			cJSON_Delete(e);
			continue;
		}
		if (strcmp(ev, "joined") == 0 && (joined = (int)cli_jint(e, "players", 0)) == 2 &&
		    !started) {
			cJSON *s = request(&c, "tourney", "tourney start %lld", tid);
			started = s != NULL;
			cJSON_Delete(s);
			if (!started)
				goto out_bridges;
		} else if (strcmp(ev, "result") == 0) {
			played++;
		} else if (strcmp(ev, "standings") == 0 || strcmp(ev, "finished") == 0) {
			const char *text = cli_jstr(e, "text");
			const cJSON *mt = cJSON_GetObjectItemCaseSensitive(e, "match");
			const cJSON *sp = cJSON_GetObjectItemCaseSensitive(mt, "sprt");
			long long secs = (net_now_ms() - t0) / 1000;
			printf("[%d/%d games, %lld:%02lld] %s %lld-%lld-%lld",
			       played, games, secs / 60, secs % 60, cli_jstr(mt, "first"),
			       cli_jint(mt, "wins", 0), cli_jint(mt, "draws", 0),
			       cli_jint(mt, "losses", 0));
			const cJSON *elo = cJSON_GetObjectItemCaseSensitive(mt, "elo");
			const cJSON *err = cJSON_GetObjectItemCaseSensitive(mt, "elo_err");
			const cJSON *los = cJSON_GetObjectItemCaseSensitive(mt, "los");
			if (cJSON_IsNumber(elo) && cJSON_IsNumber(err) && cJSON_IsNumber(los))
				printf("  Elo %+.1f +/- %.1f  LOS %.1f%%", elo->valuedouble,
				       err->valuedouble, los->valuedouble * 100);
			const cJSON *llr = cJSON_GetObjectItemCaseSensitive(sp, "llr");
			if (cJSON_IsNumber(llr))
				printf("  LLR %.2f (%.2f, %.2f) %s", llr->valuedouble,
				       (double)cJSON_GetObjectItemCaseSensitive(sp, "lower")->valuedouble,
				       (double)cJSON_GetObjectItemCaseSensitive(sp, "upper")->valuedouble,
				       cli_jstr(sp, "result"));
			printf("\n");
			if (strcmp(ev, "finished") == 0) {
				printf("match over after %d games\n%s\n", played, text ? text : "");
				over = true;
				rc = 0;
			}
			fflush(stdout);
		} else if (strcmp(ev, "cancelled") == 0) {
			fprintf(stderr, PROG ": the match was cancelled\n");
			over = true;
		}
		cJSON_Delete(e);
	}
	if (rc == 0 && ptnout != NULL) {
		int n = 0;
		if (write_records(&c, tid, ptnout, &n) < 0)
			rc = 1;
		else
			printf("%d game record(s) written to %s\n", n, ptnout);
	}
out_bridges:
	for (int i = 0; i < 2; i++) {
		if (eng[i].pid <= 0)
			continue;
		if (rc != 0)
			kill(eng[i].pid, SIGTERM);
		int st = 0;
		/* a bridge leaves at the end of its last game; a hung one is stopped */
		for (long long w0 = net_now_ms(); waitpid(eng[i].pid, &st, WNOHANG) == 0;) {
			if (net_now_ms() - w0 > START_MS) {
				kill(eng[i].pid, SIGKILL);
				waitpid(eng[i].pid, &st, 0);
				break;
			}
			usleep(20000);
		}
	}
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
