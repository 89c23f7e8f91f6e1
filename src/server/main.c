/*
 * main.c - bitarenad's entry point: argument parsing and start-up only; the
 * server itself is in server.c and the layers it wires.
 */
#include "config.h"

#include "server/server.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: bitarenad [options]\n"
	        "  --listen HOST:PORT  address to listen on (default 127.0.0.1:7777;\n"
	        "                      IPv6 as [::1]:7777; port 0 picks a free port)\n"
	        "  --grace SECONDS     how long a disconnected player keeps the seat (default %d)\n"
	        "  --ping SECONDS      how often connections that asked ('set ping on') are\n"
	        "                      pinged to measure their round-trip time (default %d)\n"
	        "  --grace-ms MS, --ping-ms MS  the same in milliseconds (tests)\n"
	        "  --busy-timeout-ms MS  how long a write waits for a database another process\n"
	        "                      has locked before it fails (default %d)\n"
	        "  --port-file PATH    write the bound port number to PATH once listening\n"
	        "  --out-cap BYTES     output a connection may have queued before spectators get\n"
	        "                      only the newest state and its commands wait (default %d)\n"
	        "  --out-hard BYTES    output that drops a connection at once\n"
	        "                      (default 16 x --out-cap)\n"
	        "  --out-soft-seconds S  above --out-cap this long: dropped (default %d; 0 never)\n"
	        "  --out-total BYTES   all connections' output; above it the biggest is dropped\n"
	        "                      (default %u; 0 no limit)\n"
	        "  --max-clients N     connections at once (default %d, lowered to fit the file\n"
	        "                      descriptor limit; 0 no limit)\n"
	        "  --max-per-address N connections from one address, an IPv6 /64 (default %d;\n"
	        "                      loopback is not limited; 0 no limit)\n"
	        "  --login-timeout S   a connection that has not logged in (and watches nothing)\n"
	        "                      this long after connecting is closed (default %d; 0 never)\n"
	        "  --idle-timeout S    a connection that sends nothing this long is closed\n"
	        "                      (default %d: never)\n"
	        "  --ping-timeout S    after 'set ping on', a ping unanswered this long\n"
	        "                      closes the connection (default %d; 0 never)\n"
	        "  --max-watches N     games one connection may watch at once (default %d)\n"
	        "  --max-replays N     replays one connection may run at once (default %d)\n"
	        "  --max-plies N       plies (turns) after which a game is drawn (default %d)\n"
	        "  --cmd-rate N        each connection's command budget: N tokens a second\n"
	        "                      (default %d; 0 no budget); a command costs 1 to 20\n"
	        "  --cmd-burst N       the budget's bucket (default %d)\n"
	        "  --max-seeks N       open seeks on the server (default %d; 8 per user)\n"
	        "  --sndbuf BYTES      socket send buffer of connections (default: the system's)\n"
	        "  --data DIR          accounts, ratings, games and the journal: DIR/bitarena.db\n"
	        "                      (default ./%s, created when missing)\n"
	        "  --db postgresql://CONNINFO  the store in PostgreSQL instead of --data\n"
	        "                      (a libpq URI: postgresql://user@host:port/db?...)\n"
	        "  --cluster redis://HOST:PORT  a node of a cluster: games, seeks and users\n"
	        "                      shared through Redis with the other nodes (needs --db\n"
	        "                      and --node; docs/cluster.md)\n"
	        "  --node NAME         this node's name in the cluster (1-32 of A-Z a-z 0-9 _ -)\n"
	        "  --cluster-beat-ms MS  heartbeats this often, a node silent 3 times as long is\n"
	        "                      dead (default %d; tests use less)\n"
	        "  --fsync always      a move is acknowledged once its journal batch is fsync'd\n"
	        "                      (the default: nothing acknowledged is lost, even by a\n"
	        "                      power cut)\n"
	        "  --fsync batch=MS    acknowledged once written, fsync'd at most MS ms later:\n"
	        "                      kill -9 loses nothing, a power cut at most MS ms\n"
	        "  --fast-hash         weakest Argon2id cost for new passwords (tests only)\n"
	        "  --login-limit N     failed logins of one account from one address in a\n"
	        "                      minute (default %d; 1..%d, 0 no limit)\n"
	        "  --login-limit-address N  failed logins from one address in 10 minutes,\n"
	        "                      any accounts (default %d)\n"
	        "  --login-limit-account N  failed logins of one account in 10 minutes from\n"
	        "                      addresses it has not logged in from (default %d)\n"
	        "  --register-limit N  accounts registered from one address in an hour\n"
	        "                      (default %d)\n"
	        "  --http HOST:PORT    serve the web page and its WebSocket endpoint /ws there\n"
	        "                      (port 0 picks a free port)\n"
	        "  --http-port-file PATH  write the HTTP port number to PATH once listening\n"
	        "  --http-origin URL   the Origin allowed to open /ws (default: the page's own,\n"
	        "                      http://<the Host the browser asked for>)\n"
	        "  --http-root DIR     the page's files (default: the source tree's web/ when\n"
	        "                      run from the build, else %s)\n"
	        "  --playtak HOST:PORT speak the playtak.com protocol there too, for playtak\n"
	        "                      clients and bots (Tak only; port 0 picks a free port)\n"
	        "  --playtak-port-file PATH  write the playtak port number to PATH once listening\n"
	        "  --verbose           log connections to stderr\n"
	        "  --help, --version\n"
	        "Protocol: protocol/PROTOCOL.md; try 'nc 127.0.0.1 7777' and type 'help'.\n",
	        SERVER_GRACE_DEFAULT, SERVER_PING_DEFAULT, STORE_BUSY_DEFAULT_MS, CONN_OUT_SOFT,
	        CONN_OUT_SOFT_MS / 1000, CONN_OUT_TOTAL, CONN_MAX_CLIENTS, CONN_MAX_PER_ADDR,
	        CONN_LOGIN_MS / 1000, CONN_IDLE_MS / 1000, SERVER_PING_TIMEOUT_DEFAULT,
	        SESSION_MAX_WATCHES, SERVER_MAX_REPLAYS_DEFAULT, SESSION_MAX_PLIES, BUDGET_RATE,
	        BUDGET_BURST, LOBBY_MAX_SEEKS_TOTAL, SERVER_DATA_DEFAULT, CLUSTER_BEAT_MS,
	        ACCOUNTS_LOGIN_PAIR_DEFAULT, ACCOUNTS_LIMIT_MAX, ACCOUNTS_LOGIN_ADDR_DEFAULT,
	        ACCOUNTS_LOGIN_ACCT_DEFAULT, ACCOUNTS_REGISTER_DEFAULT, WEB_PKGDIR);
}

/* A whole decimal number in least..most into *v; false for anything else. */
static bool parse_long(const char *s, long least, long most, long *v)
{
	char *end;
	errno = 0;
	*v = strtol(s, &end, 10);
	return *s != '\0' && *end == '\0' && errno == 0 && *v >= least && *v <= most;
}

/* The options that take a duration: their name, range and unit (ms per unit). */
static const struct duration_opt {
	int opt;
	const char *name;
	long least, most, unit;
} durations[] = {
        {'g', "grace", 0, 86400, 1000},         {'G', "grace-ms", 0, 86400000, 1},
        {'P', "ping", 1, 86400, 1000},          {'Q', "ping-ms", 10, 86400000, 1},
        {'B', "busy-timeout-ms", 1, 600000, 1},
};

/* The duration option opt's argument in ms into *ms; false (said on stderr) when out of range. */
static bool parse_duration(int opt, const char *arg, int64_t *ms)
{
	for (size_t i = 0; i < sizeof durations / sizeof durations[0]; i++) {
		const struct duration_opt *d = &durations[i];
		long v;
		if (d->opt != opt)
			continue;
		if (!parse_long(arg, d->least, d->most, &v)) {
			fprintf(stderr, "bitarenad: --%s takes %ld..%ld %s\n", d->name, d->least,
			        d->most, d->unit == 1000 ? "seconds" : "ms");
			return false;
		}
		*ms = v * d->unit;
		return true;
	}
	return false;
}

/* The numeric options of the limits: name, range, where it goes, the unit it is in. */
enum unit { U_COUNT, U_BYTES, U_SECONDS };
struct num_opt {
	const char *name;
	long least, most;
	enum unit unit;
};
static const struct num_opt num_opts[] = {
        {"out-hard", 1024, 1L << 32, U_BYTES},      {"out-soft-seconds", 0, 86400, U_SECONDS},
        {"out-total", 0, 1L << 40, U_BYTES},        {"max-clients", 0, 1000000, U_COUNT},
        {"max-per-address", 0, 1000000, U_COUNT},   {"login-timeout", 0, 86400, U_SECONDS},
        {"idle-timeout", 0, 86400 * 30, U_SECONDS}, {"ping-timeout", 0, 86400, U_SECONDS},
        {"max-watches", 0, 100000, U_COUNT},        {"max-replays", 0, 100000, U_COUNT},
        {"max-plies", 0, 10000000, U_COUNT},        {"cmd-rate", 0, 1000000, U_COUNT},
        {"cmd-burst", 1, 1000000, U_COUNT},         {"max-seeks", 0, 1000000, U_COUNT},
};
#define NUM_OPT_BASE 1000 /* getopt's value of num_opts[i] is NUM_OPT_BASE + i */

/* Stores the value of num_opts[i] in cfg. */
static void set_num_opt(struct server_config *cfg, size_t i, long v)
{
	uint64_t ms = (uint64_t)v * 1000;
	switch (i) {
	case 0:
		cfg->conn.out_hard = (size_t)v;
		break;
	case 1:
		cfg->conn.out_soft_ms = ms;
		break;
	case 2:
		cfg->conn.out_total = (size_t)v;
		break;
	case 3:
		cfg->conn.max_clients = (unsigned)v;
		break;
	case 4:
		cfg->conn.max_per_addr = (unsigned)v;
		break;
	case 5:
		cfg->conn.login_ms = ms;
		break;
	case 6:
		cfg->conn.idle_ms = ms;
		break;
	case 7:
		cfg->ping_timeout_ms = (int64_t)ms;
		break;
	case 8:
		cfg->sess.max_watches = (unsigned)v;
		break;
	case 9:
		cfg->max_replays = (unsigned)v;
		break;
	case 10:
		cfg->sess.max_plies = (unsigned)v;
		break;
	case 11:
		cfg->budget.rate = (unsigned)v;
		break;
	case 12:
		cfg->budget.burst = (unsigned)v;
		break;
	case 13:
		cfg->max_seeks = (unsigned)v;
		break;
	}
}

/*
 * Room for max_clients connections in the file descriptor limit: the soft
 * limit is raised as far as the hard one allows, and max_clients lowered to
 * what fits (as Redis does with maxclients), with a warning.
 */
static void fit_fd_limit(struct server_config *cfg)
{
	const rlim_t reserve = 64; /* listeners, the store, libuv, logs */
	struct rlimit rl;
	if (cfg->conn.max_clients == 0 || getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return;
	rlim_t want = (rlim_t)cfg->conn.max_clients + reserve;
	if (rl.rlim_cur < want) {
		rl.rlim_cur =
		        rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur < want) {
		unsigned fit = rl.rlim_cur > reserve ? (unsigned)(rl.rlim_cur - reserve) : 1;
		fprintf(stderr,
		        "bitarenad: the file descriptor limit is %lu: at most %u connections "
		        "(--max-clients %u asked; raise ulimit -n)\n",
		        (unsigned long)rl.rlim_cur, fit, cfg->conn.max_clients);
		cfg->conn.max_clients = fit;
	}
	/*
	 * The kernel grows a process's descriptor table by doubling it, and once
	 * the process has threads each growth waits for an RCU grace period
	 * (expand_files -> synchronize_rcu): an accept() that crossed 256, 512,
	 * 1024... stalled the loop 12-27 ms as a thousand flooders connected. So
	 * the table is grown once, here, before any thread: a descriptor
	 * duplicated to the highest number needed, and closed.
	 */
	rlim_t top = rl.rlim_cur < want ? rl.rlim_cur : want;
	if (top > 3 && top <= INT_MAX) {
		int fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, (int)(top - 1));
		if (fd >= 0)
			close(fd);
	}
}

/* Splits "HOST:PORT" or "[V6]:PORT" into host (buffer) and port. */
static int parse_listen(const char *s, char *host, size_t hlen, int *port)
{
	const char *colon;
	size_t n;
	if (s[0] == '[') {
		const char *end = strchr(s, ']');
		if (end == NULL || end[1] != ':')
			return -1;
		n = (size_t)(end - s - 1);
		if (n == 0 || n >= hlen)
			return -1;
		memcpy(host, s + 1, n);
		colon = end + 1;
	} else {
		colon = strrchr(s, ':');
		if (colon == NULL)
			return -1;
		n = (size_t)(colon - s);
		if (n == 0 || n >= hlen)
			return -1;
		memcpy(host, s, n);
	}
	host[n] = '\0';
	long p;
	if (!parse_long(colon + 1, 0, 65535, &p))
		return -1;
	*port = (int)p;
	return 0;
}

/* The page's directory: --http-root, else the source tree's web/ (a build), else the
 * installed one. */
static const char *web_root(const char *given)
{
	if (given != NULL)
		return given;
	return access(WEB_SRCDIR "/index.html", R_OK) == 0 ? WEB_SRCDIR : WEB_PKGDIR;
}

/* Writes "port\n" to path; false when it cannot. */
static bool write_port(const char *path, int port)
{
	FILE *f = fopen(path, "w");
	bool ok = f != NULL && fprintf(f, "%d\n", port) >= 0;
	if (f != NULL && fclose(f) != 0)
		ok = false;
	if (!ok)
		fprintf(stderr, "bitarenad: cannot write %s\n", path);
	return ok;
}

/*
 * Start-up failed once the loop was made: stops the server (srv may be
 * NULL), lets the loop close its handles, closes the store and the loop, and
 * frees srv. Returns main's exit status, 1.
 */
static int start_failed(uv_loop_t *loop, struct server *srv)
{
	if (srv != NULL) {
		server_stop(srv);
		uv_run(loop, UV_RUN_DEFAULT);
		server_free(srv);
	}
	uv_loop_close(loop);
	free(srv);
	return 1;
}

/* getopt values of the options without a letter (beyond any character) */
enum {
	OPT_LOGIN_LIMIT = 2001,
	OPT_LOGIN_LIMIT_ADDR,
	OPT_LOGIN_LIMIT_ACCT,
	OPT_REGISTER_LIMIT,
};

/*
 * glibc's allocator gives freed memory back to the kernel as soon as 128 KiB
 * are free at the top of a heap, and maps each block over its (moving)
 * threshold on its own: under a flood of costly verbs the loop then took
 * 40-170 page faults in one pass, refilling pages it had just returned
 * (passes of 0.6-1.6 ms, 88 of them over 1 ms in 10 s; with the settings
 * below, 7). So up to 64 MiB of free memory is kept at the top, the heap
 * grows 4 MiB at a time, and only blocks of 4 MiB or more get their own
 * mapping. A memory peak (a flood of replies held for slow readers) is kept
 * until reused, up to those 64 MiB.
 */
static void tune_malloc(void)
{
#ifdef M_TRIM_THRESHOLD
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	mallopt(M_TOP_PAD, 4 << 20);
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
#endif
}

int main(int argc, char **argv)
{
	static struct option longopts[64] = {
	        {"listen", required_argument, NULL, 'l'},
	        {"grace", required_argument, NULL, 'g'},
	        {"ping", required_argument, NULL, 'P'},
	        {"grace-ms", required_argument, NULL, 'G'},
	        {"ping-ms", required_argument, NULL, 'Q'},
	        {"busy-timeout-ms", required_argument, NULL, 'B'},
	        {"port-file", required_argument, NULL, 'p'},
	        {"out-cap", required_argument, NULL, 'o'},
	        {"sndbuf", required_argument, NULL, 's'},
	        {"http", required_argument, NULL, 'H'},
	        {"http-port-file", required_argument, NULL, 'F'},
	        {"http-origin", required_argument, NULL, 'O'},
	        {"http-root", required_argument, NULL, 'R'},
	        {"playtak", required_argument, NULL, 'T'},
	        {"playtak-port-file", required_argument, NULL, 'U'},
	        {"verbose", no_argument, NULL, 'v'},
	        {"data", required_argument, NULL, 'd'},
	        {"fsync", required_argument, NULL, 'y'},
	        {"fast-hash", no_argument, NULL, 'f'},
	        {"db", required_argument, NULL, 'D'},
	        {"cluster", required_argument, NULL, 'C'},
	        {"node", required_argument, NULL, 'N'},
	        {"cluster-beat-ms", required_argument, NULL, 'E'},
	        {"login-limit", required_argument, NULL, OPT_LOGIN_LIMIT},
	        {"login-limit-address", required_argument, NULL, OPT_LOGIN_LIMIT_ADDR},
	        {"login-limit-account", required_argument, NULL, OPT_LOGIN_LIMIT_ACCT},
	        {"register-limit", required_argument, NULL, OPT_REGISTER_LIMIT},
	        {"help", no_argument, NULL, 'h'},
	        {"version", no_argument, NULL, 'V'},
	        {NULL, 0, NULL, 0},
	};
	size_t nlong = 0;
	while (longopts[nlong].name != NULL)
		nlong++;
	for (size_t i = 0; i < sizeof num_opts / sizeof num_opts[0]; i++)
		longopts[nlong++] = (struct option){num_opts[i].name, required_argument, NULL,
		                                    NUM_OPT_BASE + (int)i};
	const char *listen = "127.0.0.1:7777", *port_file = NULL, *data = SERVER_DATA_DEFAULT;
	const char *http = NULL, *http_port_file = NULL, *http_origin = NULL, *http_root = NULL;
	const char *playtak = NULL, *playtak_port_file = NULL;
	bool fast_hash = false;
	const char *db = NULL, *cluster = NULL, *node = NULL;
	long beat_ms = CLUSTER_BEAT_MS;
	int64_t busy_ms = 0; /* the store's default */
	struct server_config cfg;
	server_config_default(&cfg);
	int opt;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (opt >= NUM_OPT_BASE &&
		    (size_t)(opt - NUM_OPT_BASE) < sizeof num_opts / sizeof num_opts[0]) {
			const struct num_opt *o = &num_opts[opt - NUM_OPT_BASE];
			long v;
			if (!parse_long(optarg, o->least, o->most, &v)) {
				fprintf(stderr, "bitarenad: --%s takes %ld..%ld%s\n", o->name,
				        o->least, o->most,
				        o->unit == U_BYTES     ? " bytes"
				        : o->unit == U_SECONDS ? " seconds"
				                               : "");
				return 2;
			}
			set_num_opt(&cfg, (size_t)(opt - NUM_OPT_BASE), v);
			continue;
		}
		switch (opt) {
		case 'l':
			listen = optarg;
			break;
		case 'g':
		case 'G':
		case 'P':
		case 'Q':
		case 'B': {
			int64_t *into = opt == 'g' || opt == 'G'   ? &cfg.grace_ms
			                : opt == 'P' || opt == 'Q' ? &cfg.ping_ms
			                                           : &busy_ms;
			if (!parse_duration(opt, optarg, into))
				return 2;
			break;
		}
		case 'p':
			port_file = optarg;
			break;
		case 'o':
		case 's': {
			long v;
			if (!parse_long(optarg, 1024, 64L * 1024 * 1024, &v)) {
				fprintf(stderr, "bitarenad: --%s takes 1024..67108864 bytes\n",
				        opt == 'o' ? "out-cap" : "sndbuf");
				return 2;
			}
			if (opt == 'o')
				cfg.conn.out_soft = (size_t)v;
			else
				cfg.sndbuf = (int)v;
			break;
		}
		case 'H':
			http = optarg;
			break;
		case 'F':
			http_port_file = optarg;
			break;
		case 'O':
			http_origin = optarg;
			break;
		case 'R':
			http_root = optarg;
			break;
		case 'T':
			playtak = optarg;
			break;
		case 'U':
			playtak_port_file = optarg;
			break;
		case 'v':
			cfg.verbose = true;
			break;
		case 'd':
			data = optarg;
			break;
		case 'y':
			if (store_fsync_parse(optarg, &cfg.fsync) < 0) {
				fprintf(stderr,
				        "bitarenad: --fsync takes always or batch=MS (0..%d)\n",
				        STORE_FSYNC_BATCH_MAX_MS);
				return 2;
			}
			break;
		case 'f':
			fast_hash = true;
			break;
		case 'D':
			db = optarg;
			break;
		case 'C':
			cluster = optarg;
			break;
		case 'N':
			node = optarg;
			break;
		case 'E':
			if (!parse_long(optarg, 50, 60000, &beat_ms)) {
				fprintf(stderr, "bitarenad: --cluster-beat-ms takes 50..60000\n");
				return 2;
			}
			break;
		case OPT_LOGIN_LIMIT:
		case OPT_LOGIN_LIMIT_ADDR:
		case OPT_LOGIN_LIMIT_ACCT:
		case OPT_REGISTER_LIMIT: {
			struct accounts_limits *al = &cfg.acct_limits;
			int *into = opt == OPT_LOGIN_LIMIT        ? &al->login_pair
			            : opt == OPT_LOGIN_LIMIT_ADDR ? &al->login_addr
			            : opt == OPT_LOGIN_LIMIT_ACCT ? &al->login_acct
			                                          : &al->register_addr;
			long v;
			if (!parse_long(optarg, 0, ACCOUNTS_LIMIT_MAX, &v)) {
				fprintf(stderr,
				        "bitarenad: the login and register limits take 0..%d\n",
				        ACCOUNTS_LIMIT_MAX);
				return 2;
			}
			*into = v == 0 ? -1 : (int)v; /* 0: no limit */
			break;
		}
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("bitarenad %s (protocol %d)\n", PACKAGE_VERSION, SERVER_PROTOCOL);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	char host[128];
	int port;
	if (parse_listen(listen, host, sizeof host, &port) < 0) {
		fprintf(stderr, "bitarenad: --listen wants HOST:PORT or [V6ADDR]:PORT, not '%s'\n",
		        listen);
		return 2;
	}
	char http_host[128];
	int http_port = 0;
	if (http != NULL && parse_listen(http, http_host, sizeof http_host, &http_port) < 0) {
		fprintf(stderr, "bitarenad: --http wants HOST:PORT or [V6ADDR]:PORT, not '%s'\n",
		        http);
		return 2;
	}
	char playtak_host[128];
	int playtak_port = 0;
	if (playtak != NULL &&
	    parse_listen(playtak, playtak_host, sizeof playtak_host, &playtak_port) < 0) {
		fprintf(stderr, "bitarenad: --playtak wants HOST:PORT or [V6ADDR]:PORT, not '%s'\n",
		        playtak);
		return 2;
	}
	if (db != NULL && strncmp(db, "postgresql://", 13) != 0 &&
	    strncmp(db, "postgres://", 11) != 0) {
		fprintf(stderr, "bitarenad: --db wants postgresql://CONNINFO, not '%s'\n", db);
		return 2;
	}
	char redis_host[256];
	int redis_port;
	if (cluster != NULL &&
	    (db == NULL || node == NULL || !cluster_node_valid(node) ||
	     cluster_parse_redis(cluster, redis_host, sizeof redis_host, &redis_port) < 0)) {
		fprintf(stderr,
		        "bitarenad: --cluster redis://HOST:PORT needs --db postgresql://... and "
		        "--node NAME (1-32 of A-Z a-z 0-9 _ -)\n");
		return 2;
	}
	if (node != NULL && cluster == NULL) {
		fprintf(stderr, "bitarenad: --node is for a cluster's node (--cluster)\n");
		return 2;
	}
	char instance[STORE_NODE_MAX + 1] = "";
	if (cluster != NULL)
		cluster_instance(node, instance);
	signal(SIGPIPE, SIG_IGN);
	fit_fd_limit(&cfg);
	tune_malloc();

	uv_loop_t loop;
	if (uv_loop_init(&loop) != 0) {
		fprintf(stderr, "bitarenad: cannot start the event loop\n");
		return 1;
	}
	struct server *srv = malloc(sizeof *srv);
	int r = srv ? server_init(srv, &loop, &cfg) : UV_ENOMEM;
	const struct store_options so = {.dir = data,
	                                 .backend = db != NULL ? "postgresql" : NULL,
	                                 .conninfo = db,
	                                 .node = cluster != NULL ? instance : NULL,
	                                 .busy_timeout_ms = (int)busy_ms};
	if (r == 0 && server_open_store(srv, &so, fast_hash) < 0)
		return start_failed(&loop, srv);
	if (r == 0 && cluster != NULL) {
		char why[300];
		const struct cluster_config cc = {.redis = cluster,
		                                  .node = node,
		                                  .instance = instance,
		                                  .beat_ms = (int)beat_ms,
		                                  .expiry_ms = 3 * (int)beat_ms,
		                                  .store = &so};
		if (server_join_cluster(srv, &cc, why, sizeof why) < 0) {
			fprintf(stderr, "bitarenad: %s\n", why);
			return start_failed(&loop, srv);
		}
		fprintf(stderr, "bitarenad: node %s (%s) of the cluster on %s\n", node, instance,
		        cluster);
	}
	if (r == 0) {
		int n = server_recover(srv);
		if (n < 0 && cluster != NULL)
			return start_failed(&loop, srv);
		if (n > 0)
			fprintf(stderr, "bitarenad: %d game%s in progress restored from %s\n", n,
			        n == 1 ? "" : "s", db != NULL ? "PostgreSQL" : data);
	}
	int bound = 0;
	if (r == 0)
		r = server_listen(srv, host, port, &bound);
	if (r != 0) {
		fprintf(stderr, "bitarenad: cannot listen on %s: %s\n", listen, uv_strerror(r));
		return start_failed(&loop, srv);
	}
	if (port_file != NULL && !write_port(port_file, bound))
		return start_failed(&loop, srv);
	fprintf(stderr, "bitarenad %s listening on %s%s%s:%d\n", PACKAGE_VERSION,
	        strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "", bound);
	if (http != NULL) {
		char why[200];
		const struct ws_config wc = {.host = http_host,
		                             .port = http_port,
		                             .webroot = web_root(http_root),
		                             .origin = http_origin,
		                             .verbose = cfg.verbose};
		char index[PATH_MAX];
		snprintf(index, sizeof index, "%s/index.html", wc.webroot);
		if (access(index, R_OK) != 0) {
			fprintf(stderr, "bitarenad: no web page in %s (--http-root)\n", wc.webroot);
			return start_failed(&loop, srv);
		}
		if (server_listen_http(srv, &wc, &bound, why, sizeof why) != 0) {
			fprintf(stderr, "bitarenad: %s\n", why);
			return start_failed(&loop, srv);
		}
		if (http_port_file != NULL && !write_port(http_port_file, bound))
			return start_failed(&loop, srv);
		fprintf(stderr, "bitarenad: the web page on http://%s%s%s:%d/ (files in %s)\n",
		        strchr(http_host, ':') ? "[" : "", http_host,
		        strchr(http_host, ':') ? "]" : "", bound, wc.webroot);
	}
	if (playtak != NULL) {
		if ((r = server_listen_playtak(srv, playtak_host, playtak_port, &bound)) != 0) {
			fprintf(stderr, "bitarenad: cannot listen on %s (playtak): %s\n", playtak,
			        uv_strerror(r));
			return start_failed(&loop, srv);
		}
		if (playtak_port_file != NULL && !write_port(playtak_port_file, bound))
			return start_failed(&loop, srv);
		fprintf(stderr, "bitarenad: the playtak protocol on %s%s%s:%d\n",
		        strchr(playtak_host, ':') ? "[" : "", playtak_host,
		        strchr(playtak_host, ':') ? "]" : "", bound);
	}
	uv_run(&loop, UV_RUN_DEFAULT);
	server_free(srv);
	r = uv_loop_close(&loop);
	free(srv);
	if (r != 0) {
		fprintf(stderr, "bitarenad: handles left open at exit\n");
		return 1;
	}
	fprintf(stderr, "bitarenad: stopped\n");
	return 0;
}
