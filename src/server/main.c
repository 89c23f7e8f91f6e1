/*
 * main.c - bitarenad's entry point: the option table, argument parsing and
 * start-up only; the server itself is in server.c and the layers it wires.
 *
 * The option table (opts[] below) is the one definition of every option:
 * its long name (also its key in a future config file: `key value` lines),
 * short letter, type, the field it sets, range, metavar, help line, the
 * build part it needs and whether it may change at run time (a config file
 * re-read on SIGHUP). --help, the parser, the range checks, the refusal of
 * an option this build lacks and --dump-options (the rows as JSON lines,
 * for a man page generator) all read it. A row's default is the value its
 * field holds before parsing (options_default(): the layers' own defaults
 * through server_config_default(), and main's), so --help shows what runs.
 */
#include "config.h"

#include "server/api/export.h"
#include "server/records/moderation.h"
#include "server/server.h"
#include "server/util/conf.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cjson/cJSON.h>

/* What the command line sets: the server's config and what start-up needs. */
struct options {
	struct server_config cfg;
	const char *listen, *port_file;                              /* TCP */
	const char *playtak, *playtak_port_file;                     /* the playtak protocol */
	const char *http, *http_port_file, *http_origin, *http_root; /* the web page */
	const char *http_host;                                       /* its names behind a proxy */
	const char *data, *db; /* the store: SQLite in data, or PostgreSQL */
	int64_t busy_ms;
	bool fast_hash;
	const char *cluster, *node; /* a cluster's node */
	int64_t beat_ms;
	const char *config; /* --config FILE */
	bool verbose;       /* the same as --log-level debug */
	const char *since, *format; /* bitarenad export */
};

/* The defaults: every option's value before the command line. */
static void options_default(struct options *o)
{
	memset(o, 0, sizeof *o);
	server_config_default(&o->cfg);
	o->listen = "127.0.0.1:7777";
	o->busy_ms = STORE_BUSY_DEFAULT_MS;
	o->beat_ms = CLUSTER_BEAT_MS;
}

/* The parts a build may lack (./configure --without-...), and the core every build has. */
enum part { PART_CORE, PART_POSTGRESQL, PART_REDIS, PART_WEBSOCKETS };
static const struct part_info {
	const char *name;    /* what it is called in --version and in a refusal */
	const char *lib;     /* the library it is built on */
	const char *with;    /* the configure switch that builds it */
	const char *options; /* what it serves, for --version */
	bool built;
} parts[] = {
        [PART_CORE] = {"SQLite", "sqlite3", NULL, "--data", true},
        [PART_POSTGRESQL] = {"PostgreSQL", "libpq", "--with-postgresql", "--db", HAVE_POSTGRESQL},
        [PART_REDIS] = {"Redis", "hiredis", "--with-redis", "--cluster", HAVE_REDIS},
        [PART_WEBSOCKETS] = {"WebSocket", "libwebsockets", "--with-websockets", "--http",
                             HAVE_WEBSOCKETS},
};

enum opt_type {
	OPT_SECTION, /* not an option: the heading of the rows after it */
	OPT_FLAG,    /* no argument: sets a bool */
	OPT_COUNT,   /* a whole number */
	OPT_LIMIT,   /* a whole number, 0 for no limit (kept as -1: the layer's 0 is its default) */
	OPT_BYTES,   /* a size in bytes */
	OPT_SECONDS, /* a duration in seconds, kept in milliseconds */
	OPT_MS,      /* a duration in milliseconds */
	OPT_STRING,  /* text kept as given: a path, a name, a URL */
	OPT_ADDRESS, /* HOST:PORT or [V6ADDR]:PORT, kept as given once it parses */
	OPT_FSYNC,   /* always or batch=MS (store_fsync_parse()) */
	OPT_LEVEL,   /* a level of the log: error, warn, info or debug (log.h), kept as an int */
	OPT_HELP,    /* the actions: done at once, then bitarenad exits */
	OPT_VERSION,
	OPT_DUMP,
	OPT_DUMP_CONFIG,
};

static const char *const type_names[] = {
        [OPT_SECTION] = "section", [OPT_FLAG] = "flag",     [OPT_COUNT] = "count",
        [OPT_LIMIT] = "limit",     [OPT_BYTES] = "bytes",   [OPT_SECONDS] = "seconds",
        [OPT_MS] = "ms",           [OPT_STRING] = "string", [OPT_ADDRESS] = "address",
        [OPT_FSYNC] = "fsync",     [OPT_LEVEL] = "level",   [OPT_HELP] = "action",
        [OPT_VERSION] = "action",  [OPT_DUMP] = "action",   [OPT_DUMP_CONFIG] = "action",
};

struct opt {
	const char *name; /* the long option (--name), and the config file's key */
	char letter;      /* the short option (-x), or 0 */
	enum opt_type type;
	size_t off, size;    /* the field it sets in struct options (AT()) */
	int64_t min, max;    /* numbers: the range, in the option's unit */
	const char *metavar; /* the argument in --help */
	const char *help;    /* what it does; the range and the default are added */
	const char *zero;    /* what 0 (or none) means: "no limit", "the system's"; or NULL */
	enum part part;      /* the build part it needs */
	bool runtime;        /* may change at run time (SIGHUP): server_reconfigure() applies it */
	bool cmdline;        /* only on the command line (--config, export's), not a key of the file */
};

#define AT(field)                                                                                  \
	.off = offsetof(struct options, field), .size = sizeof(((struct options *)0)->field)

static const struct opt opts[] = {
        {.type = OPT_SECTION, .help = "Listening"},
        {"listen", 0, OPT_ADDRESS, AT(listen), .metavar = "HOST:PORT",
         .help = "the address to listen on; IPv6 as [::1]:7777; port 0 picks a free port"},
        {"port-file", 0, OPT_STRING, AT(port_file), .metavar = "PATH",
         .help = "write the bound port number to PATH once listening"},
        {"playtak", 0, OPT_ADDRESS, AT(playtak), .metavar = "HOST:PORT",
         .help = "speak the playtak.com protocol there too, for playtak clients and bots (Tak "
                 "only; port 0 picks a free port)"},
        {"playtak-port-file", 0, OPT_STRING, AT(playtak_port_file), .metavar = "PATH",
         .help = "write the playtak port number to PATH once listening"},
        {"http", 0, OPT_ADDRESS, AT(http), .metavar = "HOST:PORT", .part = PART_WEBSOCKETS,
         .help = "serve the web page and its WebSocket endpoint /ws there (port 0 picks a "
                 "free port)"},
        {"http-port-file", 0, OPT_STRING, AT(http_port_file), .metavar = "PATH",
         .part = PART_WEBSOCKETS, .help = "write the HTTP port number to PATH once listening"},
        {"http-origin", 0, OPT_STRING, AT(http_origin), .metavar = "URL", .part = PART_WEBSOCKETS,
         .help = "the Origin allowed to open /ws",
         .zero = "the page's own, http://<the Host the browser asked for>"},
        {"http-host", 0, OPT_STRING, AT(http_host), .metavar = "NAME[,NAME...]",
         .part = PART_WEBSOCKETS,
         .help = "the names (a request's Host) the page and /ws answer to besides the "
                 "listener's own, such as a proxy's public name; NAME:PORT for that port "
                 "only",
         .zero = "the listener's address, localhost on a loopback or any address, the "
                 "machine's names on any address"},
        {"http-root", 0, OPT_STRING, AT(http_root), .metavar = "DIR", .part = PART_WEBSOCKETS,
         .help = "the page's files",
         .zero = WEB_PKGDIR " when installed, the source tree's web/ when run from the build"},
        {"metrics-from", 0, OPT_STRING, AT(cfg.metrics_from), .metavar = "ADDR[/PREFIX][,...]",
         .part = PART_WEBSOCKETS,
         .help = "the addresses that may GET /metrics (Prometheus's text format) on --http; "
                 "others get 403. The page tells the load, the players and the store's "
                 "failures: name your Prometheus (e.g. 10.0.0.5 or 10.0.0.0/24). A proxy on "
                 "this machine comes from loopback: keep /metrics from its public side",
         .zero = "loopback only: 127.0.0.0/8 and ::1"},
        {"sndbuf", 0, OPT_BYTES, AT(cfg.sndbuf), 1024, 64 << 20, "BYTES",
         "the socket send buffer of connections (and of HTTP API requests)", "the system's"},

        {.type = OPT_SECTION, .help = "Log"},
        {"log-level", 0, OPT_LEVEL, AT(cfg.log_level), .metavar = LOG_LEVEL_NAMES,
         .help = "what the log on stderr says: error, warn (and errors), info (the service's "
                 "life: listening, reloads, drops for a limit), debug (every connection)",
         .runtime = true},
        {"verbose", 'v', OPT_FLAG, AT(verbose), .help = "the same as --log-level debug",
         .runtime = true},

        {.type = OPT_SECTION, .help = "Games"},
        {"grace", 0, OPT_SECONDS, AT(cfg.grace_ms), 0, 86400, "SECONDS",
         "how long a disconnected player keeps the seat", .runtime = true},
        {"grace-ms", 0, OPT_MS, AT(cfg.grace_ms), 0, 86400000, "MS",
         "--grace in milliseconds, for tests", .runtime = true},
        {"max-plies", 0, OPT_COUNT, AT(cfg.sess.max_plies), 0, 10000000, "N",
         "plies (turns) after which a game is drawn", .runtime = true},
        {"max-seeks", 0, OPT_COUNT, AT(cfg.max_seeks), 0, 1000000, "N",
         "open seeks on the server, 8 per user", "no limit", .runtime = true},
        {"max-watches", 0, OPT_COUNT, AT(cfg.sess.max_watches), 0, 100000, "N",
         "games one connection may watch at once", "no limit", .runtime = true},
        {"max-replays", 0, OPT_COUNT, AT(cfg.max_replays), 0, 100000, "N",
         "replays one connection may run at once", "no limit", .runtime = true},
        {"ladder-pair-cap", 0, OPT_COUNT, AT(cfg.ladder_pair_cap), 0, 100000, "N",
         "games two members of a ladder play each other a day (UTC)", "no cap", .runtime = true},
        {"replay-memory", 0, OPT_BYTES, AT(cfg.replay_memory), 0, INT64_C(1) << 40, "BYTES",
         "what all running replays may hold together (each connection's at most 1 MiB)", "no limit",
         .runtime = true},

        {.type = OPT_SECTION, .help = "Connections"},
        {"max-clients", 0, OPT_COUNT, AT(cfg.conn.max_clients), 0, 1000000, "N",
         "connections at once, lowered to fit the file descriptor limit", "no limit"},
        {"max-per-address", 0, OPT_COUNT, AT(cfg.conn.max_per_addr), 0, 1000000, "N",
         "connections from one address, an IPv6 /64; loopback is not limited", "no limit",
         .runtime = true},
        {"login-timeout", 0, OPT_SECONDS, AT(cfg.conn.login_ms), 0, 86400, "SECONDS",
         "a connection that has not logged in (and watches nothing) this long after "
         "connecting is closed",
         "never", .runtime = true},
        {"idle-timeout", 0, OPT_SECONDS, AT(cfg.conn.idle_ms), 0, 86400 * 30, "SECONDS",
         "a connection that sends nothing this long is closed", "never", .runtime = true},
        {"ping", 0, OPT_SECONDS, AT(cfg.ping_ms), 1, 86400, "SECONDS",
         "how often connections that asked ('set ping on') are pinged to measure their "
         "round-trip time",
         .runtime = true},
        {"ping-ms", 0, OPT_MS, AT(cfg.ping_ms), 10, 86400000, "MS",
         "--ping in milliseconds, for tests", .runtime = true},
        {"ping-timeout", 0, OPT_SECONDS, AT(cfg.ping_timeout_ms), 0, 86400, "SECONDS",
         "after 'set ping on', a ping unanswered this long closes the connection", "never",
         .runtime = true},
        {"out-cap", 0, OPT_BYTES, AT(cfg.conn.out_soft), 1024, 64 << 20, "BYTES",
         "output a connection may have queued before spectators get only the newest state "
         "and its commands wait",
         .runtime = true},
        {"out-hard", 0, OPT_BYTES, AT(cfg.conn.out_hard), 1024, INT64_C(1) << 32, "BYTES",
         "output that drops a connection at once", "16 x --out-cap", .runtime = true},
        {"out-soft-seconds", 0, OPT_SECONDS, AT(cfg.conn.out_soft_ms), 0, 86400, "SECONDS",
         "above --out-cap this long: dropped", "never", .runtime = true},
        {"out-total", 0, OPT_BYTES, AT(cfg.conn.out_total), 0, INT64_C(1) << 40, "BYTES",
         "all connections' output; above it the biggest is dropped", "no limit", .runtime = true},
        {"cmd-rate", 0, OPT_COUNT, AT(cfg.budget.rate), 0, 1000000, "N",
         "each connection's command budget: N tokens a second; a command costs 1 to 20",
         "no budget", .runtime = true},
        {"cmd-burst", 0, OPT_COUNT, AT(cfg.budget.burst), 1, 1000000, "N", "the budget's bucket",
         .runtime = true},

        /* the accounts make their limiters once, at start (records/accounts.c): a restart */
        {.type = OPT_SECTION, .help = "Accounts"},
        {"login-limit", 0, OPT_LIMIT, AT(cfg.acct_limits.login_pair), 0, ACCOUNTS_LIMIT_MAX, "N",
         "failed logins of one account from one address in a minute", "no limit"},
        {"login-limit-address", 0, OPT_LIMIT, AT(cfg.acct_limits.login_addr), 0, ACCOUNTS_LIMIT_MAX,
         "N", "failed logins from one address in 10 minutes, any accounts", "no limit"},
        {"login-limit-account", 0, OPT_LIMIT, AT(cfg.acct_limits.login_acct), 0, ACCOUNTS_LIMIT_MAX,
         "N",
         "failed logins of one account in 10 minutes from addresses it has not logged in "
         "from",
         "no limit"},
        {"register-limit", 0, OPT_LIMIT, AT(cfg.acct_limits.register_addr), 0, ACCOUNTS_LIMIT_MAX,
         "N", "accounts registered from one address in an hour", "no limit"},
        {"fast-hash", 0, OPT_FLAG, AT(fast_hash),
         .help = "the weakest Argon2id cost for new passwords (tests only)"},

        {.type = OPT_SECTION, .help = "Storage"},
        {"data", 0, OPT_STRING, AT(data), .metavar = "DIR",
         .help = "accounts, ratings, games and the journal: DIR/bitarena.db, created when "
                 "missing",
         .zero = STATE_DIR " when installed, ./data when run from the build"},
        {"books", 0, OPT_STRING, AT(cfg.books), .metavar = "DIR",
         .help = "the opening books an engine match names (tourney create ... openings=NAME: "
                 "DIR/NAME.ptn, .txt or .seeds; docs/books.md)",
         .zero = BOOKS_PKGDIR " when installed, the source tree's data/books when run from "
                 "the build"},
        {"db", 0, OPT_STRING, AT(db), .metavar = "postgresql://CONNINFO", .part = PART_POSTGRESQL,
         .help = "the store in PostgreSQL instead of --data (a libpq URI: "
                 "postgresql://user@host:port/db?...)"},
        {"fsync", 0, OPT_FSYNC, AT(cfg.fsync), 0, STORE_FSYNC_BATCH_MAX_MS, "always|batch=MS",
         "always: a move is acknowledged once its journal batch is fsync'd (nothing "
         "acknowledged is lost, even by a power cut); batch=MS: acknowledged once written, "
         "fsync'd at most MS ms later (kill -9 loses nothing, a power cut at most MS ms)"},
        {"busy-timeout-ms", 0, OPT_MS, AT(busy_ms), 1, 600000, "MS",
         "how long a write waits for a database another process has locked before it fails"},

        {.type = OPT_SECTION, .help = "Cluster (docs/cluster.md)"},
        {"cluster", 0, OPT_STRING, AT(cluster), .metavar = "redis://HOST:PORT", .part = PART_REDIS,
         .help = "a node of a cluster: games, seeks and users shared through Redis with the "
                 "other nodes (needs --db and --node)"},
        {"node", 0, OPT_STRING, AT(node), .metavar = "NAME", .part = PART_REDIS,
         .help = "this node's name in the cluster (1-32 of A-Z a-z 0-9 _ -)"},
        {"cluster-beat-ms", 0, OPT_MS, AT(beat_ms), 50, 60000, "MS",
         "heartbeats this often; a node silent 3 times as long is dead", .part = PART_REDIS},

        {.type = OPT_SECTION, .help = "Moderation (bitarenad admin add NAME)"},
        {"admins", 0, OPT_STRING, AT(cfg.admins), .metavar = "NAMES",
         .help = "accounts that are admins besides those bitarenad admin add made (names "
                 "split by commas)",
         .runtime = true},
        {"motd", 0, OPT_STRING, AT(cfg.motd), .metavar = "TEXT",
         .help = "the message of the day, sent after each login (an admin's motd verb "
                 "changes it until the file's changes on a reload)",
         .runtime = true},

        {.type = OPT_SECTION, .help = "Pools (quick pairing)"},
        {"pools", 0, OPT_STRING, AT(cfg.pools), .metavar = "POOLS",
         .help = "the rating pools, POOLS: NAME:KIND OPTIONS each, separated by ';' "
                 "(default " POOLS_DEFAULT ")"},
        {"pool-computer-after", 0, OPT_SECONDS, AT(cfg.pool_computer_after_ms), 0, 86400,
         "SECONDS",
         "a player unpaired in a pool this long plays the server's bot whose level fits their "
         "rating (unrated; not those who set bots off)",
         "never", .runtime = true},

        {.type = OPT_SECTION, .help = "Configuration"},
        {"config", 0, OPT_STRING, AT(config), .metavar = "FILE", .cmdline = true,
         .help = "read options from FILE, one 'key value' a line whose keys are the long "
                 "options (bitarenad.conf); options given here win; SIGHUP reads it again"},

        {.type = OPT_SECTION, .help = "Exports (bitarenad export; bitarenad backup DEST)"},
        {"since", 0, OPT_STRING, AT(since), .metavar = "TIME", .cmdline = true,
         .help = "export: the games ended since TIME (ms since 1970-01-01 UTC, or a UTC date "
                 "YYYY-MM-DD[THH:MM:SS])",
         .zero = "every game"},
        {"format", 0, OPT_STRING, AT(format), .metavar = "ndjson|ptn", .cmdline = true,
         .help = "export: one JSON object a line, or one PTN archive", .zero = "ndjson"},

        {.type = OPT_SECTION, .help = "Information"},
        {"help", 'h', OPT_HELP, .help = "this help, and what this build has"},
        {"version", 'V', OPT_VERSION, .help = "the version, and the back ends this build has"},
        {"dump-options", 0, OPT_DUMP,
         .help = "every option as one line of JSON (for a man page or a config file)"},
        {"dump-config", 0, OPT_DUMP_CONFIG,
         .help = "a config file with every option at its default, commented out, and its "
                 "help (the installed bitarenad.conf is made so)"},
};

#define NOPTS        (sizeof opts / sizeof opts[0])
#define OPT_VAL_BASE 256 /* getopt's value of opts[i]: beyond any letter */

/* A whole decimal number in least..most into *v; false for anything else. */
static bool parse_int(const char *s, int64_t least, int64_t most, int64_t *v)
{
	char *end;
	errno = 0;
	long long n = strtoll(s, &end, 10);
	*v = n;
	return *s != '\0' && *end == '\0' && errno == 0 && n >= least && n <= most;
}

/* A number option's unit: the word after its range in a refusal. */
static const char *unit_word(enum opt_type t)
{
	return t == OPT_BYTES ? " bytes" : t == OPT_SECONDS ? " seconds" : t == OPT_MS ? " ms" : "";
}

static bool is_number(enum opt_type t)
{
	return t == OPT_COUNT || t == OPT_LIMIT || t == OPT_BYTES || t == OPT_SECONDS ||
	       t == OPT_MS;
}

static bool takes_arg(enum opt_type t)
{
	return is_number(t) || t == OPT_STRING || t == OPT_ADDRESS || t == OPT_FSYNC ||
	       t == OPT_LEVEL;
}

/* A number field (int, unsigned, int64_t, uint64_t or size_t: 4 or 8 bytes) of the row. */
static void store_number(const struct opt *r, struct options *o, int64_t v)
{
	char *p = (char *)o + r->off;
	if (r->size == sizeof(int32_t)) {
		int32_t n = (int32_t)v; /* the ranges keep every value within it */
		memcpy(p, &n, sizeof n);
	} else {
		memcpy(p, &v, sizeof v);
	}
}

static int64_t load_number(const struct opt *r, const struct options *o)
{
	const char *p = (const char *)o + r->off;
	if (r->size == sizeof(int32_t)) {
		int32_t n;
		memcpy(&n, p, sizeof n);
		return n;
	}
	int64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* A number option's value in o in the option's own unit (a limit's "none" is 0). */
static int64_t number_value(const struct opt *r, const struct options *o)
{
	int64_t v = load_number(r, o);
	if (r->type == OPT_SECONDS)
		return v / 1000;
	return r->type == OPT_LIMIT && v < 0 ? 0 : v;
}

static const char *load_string(const struct opt *r, const struct options *o)
{
	const char *s;
	memcpy(&s, (const char *)o + r->off, sizeof s);
	return s;
}

/* The value of r in o as the option's argument would say it, in buf; NULL: none. */
static const char *show_value(const struct opt *r, const struct options *o, char *buf, size_t len)
{
	if (is_number(r->type)) {
		snprintf(buf, len, "%" PRId64, number_value(r, o));
		return buf;
	}
	if (r->type == OPT_STRING || r->type == OPT_ADDRESS)
		return load_string(r, o);
	if (r->type == OPT_LEVEL) {
		int lv;
		memcpy(&lv, (const char *)o + r->off, sizeof lv);
		return log_level_name((enum log_level)lv);
	}
	if (r->type == OPT_FSYNC) {
		const struct store_fsync *f = (const void *)((const char *)o + r->off);
		if (f->batch)
			snprintf(buf, len, "batch=%d", f->batch_ms);
		else
			snprintf(buf, len, "always");
		return buf;
	}
	return NULL;
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
	int64_t p;
	if (!parse_int(colon + 1, 0, 65535, &p))
		return -1;
	*port = (int)p;
	return 0;
}

static const char *web_root(const char *given);
static const char *data_dir(const char *given);

/* ---- --help, --version, --dump-options ------------------------------------------------ */

#define HELP_WIDTH 80
#define HELP_COL   28 /* where the help texts begin */

/*
 * Writes text from column col on (the cursor is at column at), its words
 * wrapped to width, the lines after the first indented to col + hang.
 */
static void wrap(FILE *f, int width, int at, int col, int hang, const char *text)
{
	if (at > 0 && at > col - 2) { /* no room for the text beside what was written */
		fputc('\n', f);
		at = 0;
	}
	fprintf(f, "%*s", col - at, "");
	at = col;
	bool first = true;
	while (*text != '\0') {
		while (*text == ' ')
			text++;
		size_t n = strcspn(text, " ");
		if (n == 0)
			break;
		if (!first && at + 1 + (int)n > width) {
			fprintf(f, "\n%*s", col + hang, "");
			at = col + hang;
		} else if (!first) {
			fputc(' ', f);
			at++;
		}
		fwrite(text, 1, n, f);
		at += (int)n;
		text += n;
		first = false;
	}
	fputc('\n', f);
}

/*
 * r's help as --help prints it, into buf: its text, then its range, what 0
 * means and its default (its value in dflt): "(0..86400, 0: never, default
 * 300)", "(1024..67108864, default: the system's)".
 */
static const char *help_text(const struct opt *r, const struct options *dflt, char *buf, size_t len)
{
	char v[64];
	const char *value = show_value(r, dflt, v, sizeof v);
	bool number = is_number(r->type),
	     none = value == NULL || (number && strcmp(value, "0") == 0);
	size_t at = (size_t)snprintf(buf, len, "%s", r->help);
	const char *sep = " (";
	if (number && at < len) {
		at += (size_t)snprintf(buf + at, len - at, "%s%" PRId64 "..%" PRId64, sep, r->min,
		                       r->max);
		sep = ", ";
		if (r->zero != NULL && r->min <= 0 && at < len)
			at += (size_t)snprintf(buf + at, len - at, ", 0: %s", r->zero);
	}
	if (none && r->zero != NULL && (!number || r->min > 0) && at < len)
		at += (size_t)snprintf(buf + at, len - at, "%sdefault: %s", sep, r->zero);
	else if (value != NULL && r->type != OPT_FLAG && at < len)
		at += (size_t)snprintf(buf + at, len - at, "%sdefault %s", sep, value);
	else if (!number)
		return buf;
	if (at < len)
		snprintf(buf + at, len - at, ")");
	return buf;
}

/* The parts a build has (built) or lacks, for --help and --version, into buf. */
static const char *part_list(bool built, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		if (parts[i].built == built && at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s (%s)", at ? ", " : "",
			                       parts[i].name,
			                       built ? parts[i].lib : parts[i].options);
	return buf;
}

static void usage(FILE *f)
{
	struct options dflt;
	options_default(&dflt);
	fprintf(f, "usage: bitarenad [options]\n"
	           "       bitarenad export [--data DIR | --db URI] [--since TIME] [--format F]\n"
	           "       bitarenad backup [--data DIR] DEST\n"
	           "       bitarenad admin add|remove NAME | admin list [--data DIR | --db URI]\n"
	           "       bitarenad audit [--data DIR | --db URI]\n"
	           "  export: every ended game, newest first, to stdout as /api/games gives them;\n"
	           "  backup: a consistent copy of the SQLite store, while a server runs;\n"
	           "  admin: make an account an admin of the server (or no more), list them;\n"
	           "  audit: what admins did, newest first\n");
	for (size_t i = 0; i < NOPTS; i++) {
		const struct opt *r = &opts[i];
		if (r->type == OPT_SECTION) {
			fprintf(f, "\n%s:\n", r->help);
			continue;
		}
		if (!parts[r->part].built)
			continue; /* said once, below */
		char left[80], text[600];
		int n = snprintf(left, sizeof left, "  %c%c%s--%s%s%s", r->letter ? '-' : ' ',
		                 r->letter ? r->letter : ' ', r->letter ? ", " : "  ", r->name,
		                 r->metavar ? " " : "", r->metavar ? r->metavar : "");
		fputs(left, f);
		wrap(f, HELP_WIDTH, n, HELP_COL, 0, help_text(r, &dflt, text, sizeof text));
	}
	char list[300], text[600];
	snprintf(text, sizeof text, "This build has: %s.", part_list(true, list, sizeof list));
	fputc('\n', f);
	wrap(f, HELP_WIDTH, 0, 0, 2, text);
	if (*part_list(false, list, sizeof list) != '\0')
		fprintf(f, "Not in this build:\n");
	for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
		if (parts[p].built)
			continue;
		int at =
		        snprintf(text, sizeof text,
		                 "%s (rebuild with ./configure %s):", parts[p].name, parts[p].with);
		const char *sep = " ";
		for (size_t i = 0; i < NOPTS; i++)
			if (opts[i].type != OPT_SECTION && opts[i].part == p &&
			    at < (int)sizeof text) {
				at += snprintf(text + at, sizeof text - (size_t)at, "%s--%s", sep,
				               opts[i].name);
				sep = ", ";
			}
		wrap(f, HELP_WIDTH, 0, 2, 2, text);
	}
	fprintf(f, "Protocol: bitarena-protocol(7); try 'nc 127.0.0.1 7777' and type 'help'.\n"
	           "Manual: bitarenad(8). Vulnerabilities: privately, as SECURITY.md says.\n");
}

static void version(void)
{
	char list[300];
	printf("bitarenad %s (protocol %d)\n", PACKAGE_VERSION, SERVER_PROTOCOL);
	printf("built with: %s\n", part_list(true, list, sizeof list));
	if (*part_list(false, list, sizeof list) != '\0')
		printf("built without: %s\n", list);
	printf("web page: %s\nstore: %s\n", web_root(NULL), data_dir(NULL));
}

/* A JSON string, or null for NULL. */
static cJSON *json_text(const char *s)
{
	return s != NULL ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static bool in_file(const struct opt *r);

/*
 * Every option as one line of JSON: name, letter, type, metavar, default (in the option's
 * unit), zero (what 0 or none means), min and max (numbers), needs (the optional part it
 * needs, or null), built (whether this build has it), runtime, file (a key of the config
 * file), section, help, and text (the help as --help says it, with range and default).
 */
static int dump_options(void)
{
	struct options dflt;
	options_default(&dflt);
	const char *section = NULL;
	for (size_t i = 0; i < NOPTS; i++) {
		const struct opt *r = &opts[i];
		if (r->type == OPT_SECTION) {
			section = r->help;
			continue;
		}
		char letter[2] = {r->letter, '\0'}, v[64];
		const char *value = show_value(r, &dflt, v, sizeof v);
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "name", r->name);
		cJSON_AddItemToObject(j, "letter", json_text(r->letter ? letter : NULL));
		cJSON_AddStringToObject(j, "type", type_names[r->type]);
		cJSON_AddItemToObject(j, "metavar", json_text(r->metavar));
		if (is_number(r->type))
			cJSON_AddNumberToObject(j, "default", (double)number_value(r, &dflt));
		else if (r->type == OPT_FLAG)
			cJSON_AddBoolToObject(j, "default", false);
		else
			cJSON_AddItemToObject(j, "default", json_text(value));
		cJSON_AddItemToObject(j, "zero", json_text(r->zero));
		if (is_number(r->type) || r->type == OPT_FSYNC) {
			cJSON_AddNumberToObject(j, "min", (double)r->min);
			cJSON_AddNumberToObject(j, "max", (double)r->max);
		}
		cJSON_AddItemToObject(j, "needs",
		                      json_text(r->part != PART_CORE ? parts[r->part].name : NULL));
		cJSON_AddBoolToObject(j, "built", parts[r->part].built);
		cJSON_AddBoolToObject(j, "runtime", r->runtime);
		cJSON_AddBoolToObject(j, "file", in_file(r));
		cJSON_AddStringToObject(j, "section", section ? section : "");
		cJSON_AddStringToObject(j, "help", r->help);
		char text[700];
		cJSON_AddStringToObject(j, "text", help_text(r, &dflt, text, sizeof text));
		char *line = cJSON_PrintUnformatted(j);
		cJSON_Delete(j);
		if (line == NULL)
			return 1;
		puts(line);
		free(line);
	}
	return 0;
}

/* text as comment lines of a config file: "# " and the text wrapped to fit 80 columns. */
static void comment(const char *text)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);
	if (m == NULL)
		return;
	wrap(m, HELP_WIDTH - 2, 0, 0, 0, text);
	fclose(m);
	for (char *l = buf, *nl; l != NULL && *l != '\0'; l = nl + 1) {
		nl = strchr(l, '\n');
		if (nl == NULL)
			break;
		printf("# %.*s\n", (int)(nl - l), l);
	}
	free(buf);
}

/*
 * A config file (the installed bitarenad.conf): what the format is, then
 * every key of the file by section, each with its help as --help gives it
 * and the key at its default, commented out ("#max-seeks 10000"; a key
 * without a default shows its argument: "#port-file PATH").
 */
static int dump_config(void)
{
	struct options dflt;
	options_default(&dflt);
	printf("# bitarenad.conf - the configuration of bitarenad, read with --config FILE\n"
	       "# (bitarenad(8)). One setting a line: a long option of bitarenad without its\n"
	       "# --, blanks, then its value, the rest of the line as it is (no quotes):\n"
	       "#     max-seeks 5000\n"
	       "# A flag is its key alone (yes), or with yes or no. Lines starting with # are\n"
	       "# comments. Options on the command line win over this file.\n"
	       "#\n"
	       "# SIGHUP (systemctl reload bitarena) reads the file again and applies at once\n"
	       "# the settings marked [run time] below; the log says what changed and what\n"
	       "# waits for a restart. A file with a mistake is refused whole, with the line\n"
	       "# and why: at start bitarenad does not start, on SIGHUP it keeps its settings.\n"
	       "#\n"
	       "# Every setting is shown at its default, commented out.\n"
	       "# Made by bitarenad --dump-config from its table of options.\n");
	for (size_t i = 0; i < NOPTS; i++) {
		const struct opt *r = &opts[i];
		if (r->type == OPT_SECTION) {
			bool any = false; /* a section of actions only has no key */
			for (size_t k = i + 1; k < NOPTS && opts[k].type != OPT_SECTION; k++)
				any |= in_file(&opts[k]);
			if (any)
				printf("\n## %s\n", r->help);
			continue;
		}
		if (!in_file(r))
			continue;
		char text[700], v[64], more[160] = "";
		help_text(r, &dflt, text, sizeof text);
		if (r->runtime || r->part != PART_CORE)
			snprintf(more, sizeof more, "%s%s%s%s", r->runtime ? " [run time]" : "",
			         r->part != PART_CORE ? " [needs " : "",
			         r->part != PART_CORE ? parts[r->part].name : "",
			         r->part != PART_CORE ? "]" : "");
		size_t at = strlen(text);
		snprintf(text + at, sizeof text - at, "%s", more);
		fputc('\n', stdout);
		comment(text);
		const char *value = r->type == OPT_FLAG ? NULL : show_value(r, &dflt, v, sizeof v);
		if (is_number(r->type) && number_value(r, &dflt) < r->min)
			value = NULL; /* the default is none of its values ("the system's") */
		if (r->type == OPT_FLAG)
			printf("#%s no\n", r->name);
		else
			printf("#%s %s\n", r->name, value != NULL ? value : r->metavar);
	}
	return 0;
}

/* ---- parsing: the command line and the config file ------------------------------------ */

/*
 * Sets r's field in o from arg (a flag: NULL is yes); true, or false with
 * what is wrong in why, to follow the option's name ("takes 0..86400
 * seconds"). Sections and actions never come here.
 */
static bool opt_set(const struct opt *r, struct options *o, const char *arg, char *why, size_t len)
{
	const struct part_info *pt = &parts[r->part];
	if (!pt->built) {
		snprintf(why, len,
		         "needs %s support (%s), which this bitarenad was built without; rebuild "
		         "with ./configure %s",
		         pt->name, pt->lib, pt->with);
		return false;
	}
	char *field = (char *)o + r->off;
	switch (r->type) {
	case OPT_FLAG: {
		static const char *const yes[] = {"yes", "true", "on", "1"};
		static const char *const no[] = {"no", "false", "off", "0"};
		bool on = arg == NULL, known = arg == NULL;
		for (size_t i = 0; i < 4 && !known; i++)
			if (strcmp(arg, yes[i]) == 0 || strcmp(arg, no[i]) == 0)
				known = true, on = strcmp(arg, yes[i]) == 0;
		if (!known) {
			snprintf(why, len, "takes yes or no (or nothing, for yes), not '%.64s'",
			         arg);
			return false;
		}
		*(bool *)(void *)field = on;
		return true;
	}
	case OPT_ADDRESS:
	case OPT_STRING: {
		char host[128];
		int port;
		if (r->type == OPT_ADDRESS && parse_listen(arg, host, sizeof host, &port) < 0) {
			snprintf(why, len, "wants HOST:PORT or [V6ADDR]:PORT, not '%.200s'", arg);
			return false;
		}
		memcpy(field, &arg, sizeof arg); /* kept as given */
		return true;
	}
	case OPT_LEVEL: {
		int lv = log_level_parse(arg);
		if (lv < 0) {
			snprintf(why, len, "takes %s, not '%.64s'", LOG_LEVEL_NAMES, arg);
			return false;
		}
		memcpy(field, &lv, sizeof lv);
		return true;
	}
	case OPT_FSYNC:
		if (store_fsync_parse(arg, (struct store_fsync *)(void *)field) < 0) {
			snprintf(why, len, "takes always or batch=MS (%" PRId64 "..%" PRId64 ")",
			         r->min, r->max);
			return false;
		}
		return true;
	default:
		break;
	}
	int64_t v;
	if (!parse_int(arg, r->min, r->max, &v)) {
		snprintf(why, len, "takes %" PRId64 "..%" PRId64 "%s", r->min, r->max,
		         unit_word(r->type));
		return false;
	}
	if (r->type == OPT_SECONDS)
		v *= 1000;
	else if (r->type == OPT_LIMIT && v == 0)
		v = -1; /* no limit */
	store_number(r, o, v);
	return true;
}

/* Whether each row's field has the size its type writes (a table that lies fails at once). */
static bool table_ok(void)
{
	for (size_t i = 0; i < NOPTS; i++) {
		const struct opt *r = &opts[i];
		size_t want = is_number(r->type)                                ? r->size
		              : r->type == OPT_FLAG                             ? sizeof(bool)
		              : r->type == OPT_STRING || r->type == OPT_ADDRESS ? sizeof(char *)
		              : r->type == OPT_FSYNC ? sizeof(struct store_fsync)
		              : r->type == OPT_LEVEL ? sizeof(int)
		                                     : 0;
		if (r->size != want || (is_number(r->type) && want != 4 && want != 8)) {
			fprintf(stderr,
			        "bitarenad: the option table's --%s has a field of %zu bytes\n",
			        r->name, r->size);
			return false;
		}
	}
	return true;
}

/* Whether r is a key of the config file: an option that is not an action nor --config. */
static bool in_file(const struct opt *r)
{
	return r->type != OPT_SECTION && r->type < OPT_HELP && !r->cmdline;
}

/* What the command line said: each option with its argument, in order; and --config. */
struct cmdline {
	struct setting {
		const struct opt *r;
		const char *arg; /* argv's; NULL for a flag */
	} * v;
	size_t n;
	const char *config; /* --config FILE, or NULL */
	enum sub {
		SUB_SERVER,
		SUB_EXPORT,
		SUB_BACKUP,
		SUB_ADMIN,
		SUB_AUDIT
	} sub;                /* the first
	                          word */
	const char *dest;     /* bitarenad backup's DEST */
	const char *words[2]; /* bitarenad admin's: add|remove|list and NAME */
};

/*
 * Reads the command line into cl (its settings checked on a scratch copy of
 * the options; cl->v is malloc'd, argc entries): -1 to go on, else the exit
 * status: 0 after an action (--help ...), 2 for a bad argument or an
 * option this build lacks (said on stderr in one line).
 */
static int parse_args(struct cmdline *cl, int argc, char **argv)
{
	static const struct {
		const char *word;
		enum sub sub;
	} subs[] = {{"export", SUB_EXPORT},
	            {"backup", SUB_BACKUP},
	            {"admin", SUB_ADMIN},
	            {"audit", SUB_AUDIT}};
	cl->sub = SUB_SERVER;
	for (size_t i = 0; argc > 1 && i < sizeof subs / sizeof subs[0]; i++)
		if (strcmp(argv[1], subs[i].word) == 0)
			cl->sub = subs[i].sub;
	if (cl->sub != SUB_SERVER) {
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	if (!table_ok())
		return 1;
	struct option longopts[NOPTS + 1];
	char letters[2 * NOPTS + 1];
	size_t n = 0, nl = 0;
	for (size_t i = 0; i < NOPTS; i++) {
		const struct opt *r = &opts[i];
		if (r->type == OPT_SECTION)
			continue;
		bool arg = takes_arg(r->type);
		longopts[n++] = (struct option){r->name, arg ? required_argument : no_argument,
		                                NULL, OPT_VAL_BASE + (int)i};
		if (r->letter) {
			letters[nl++] = r->letter;
			if (arg)
				letters[nl++] = ':';
		}
	}
	longopts[n] = (struct option){0};
	letters[nl] = '\0';
	if ((cl->v = calloc((size_t)argc, sizeof *cl->v)) == NULL)
		return 1;
	struct options scratch;
	options_default(&scratch);
	int v;
	while ((v = getopt_long(argc, argv, letters, longopts, NULL)) != -1) {
		const struct opt *r = NULL;
		if (v >= OPT_VAL_BASE && (size_t)(v - OPT_VAL_BASE) < NOPTS)
			r = &opts[v - OPT_VAL_BASE];
		for (size_t i = 0; r == NULL && v > 0 && v < OPT_VAL_BASE && i < NOPTS; i++)
			if (opts[i].letter == v && opts[i].type != OPT_SECTION)
				r = &opts[i];
		if (r == NULL) { /* unknown, or its argument missing: getopt said which */
			usage(stderr);
			return 2;
		}
		switch (r->type) {
		case OPT_HELP:
			usage(stdout);
			return 0;
		case OPT_VERSION:
			version();
			return 0;
		case OPT_DUMP:
			return dump_options();
		case OPT_DUMP_CONFIG:
			return dump_config();
		default:
			break;
		}
		char why[300];
		if (!opt_set(r, &scratch, optarg, why, sizeof why)) {
			fprintf(stderr, "bitarenad: --%s %s\n", r->name, why);
			return 2;
		}
		if (r->off == offsetof(struct options, config)) /* --config */
			cl->config = optarg;
		else
			cl->v[cl->n++] = (struct setting){r, optarg};
	}
	if (cl->sub == SUB_BACKUP && optind == argc - 1) {
		cl->dest = argv[optind];
		return -1;
	}
	if (cl->sub == SUB_ADMIN && optind < argc && argc - optind <= 2) {
		cl->words[0] = argv[optind];
		cl->words[1] = optind + 1 < argc ? argv[optind + 1] : NULL;
		return -1;
	}
	if (optind != argc || cl->sub == SUB_BACKUP || cl->sub == SUB_ADMIN) {
		usage(stderr);
		return 2;
	}
	return -1;
}

/*
 * bitarenad export, backup, admin and audit: the store of --data or --db, read (admin:
 * written) while a server may run.
 */
static int subcommand(const struct options *o, const struct cmdline *cl)
{
	enum sub sub = cl->sub;
	const char *dest = cl->dest;
	const struct store_options so = {.dir = sub >= SUB_ADMIN ? data_dir(o->data) : o->data,
	                                 .backend = o->db != NULL ? "postgresql" : NULL,
	                                 .conninfo = o->db,
	                                 .busy_timeout_ms = (int)o->busy_ms};
	char why[600];
	int64_t n = 0;
	if (sub == SUB_ADMIN || sub == SUB_AUDIT) {
		static const struct {
			const char *word;
			enum moderation_offline op;
		} ops[] = {{"add", MODERATION_ADD},
		           {"remove", MODERATION_REMOVE},
		           {"list", MODERATION_LIST}};
		enum moderation_offline op = MODERATION_AUDIT;
		for (size_t i = 0; sub == SUB_ADMIN; i++) {
			if (i == sizeof ops / sizeof ops[0]) {
				fprintf(stderr,
				        "bitarenad: admin add NAME | admin remove NAME | admin "
				        "list\n");
				return 2;
			}
			if (strcmp(cl->words[0], ops[i].word) == 0) {
				op = ops[i].op;
				break;
			}
		}
		int st = moderation_offline(&so, op, sub == SUB_AUDIT ? NULL : cl->words[1], 0,
		                            stdout, why, sizeof why);
		if (st != 0)
			fprintf(stderr, "bitarenad: %s\n", why);
		return st;
	}
	int st = sub == SUB_EXPORT
	                 ? api_export(&so, o->since, o->format, stdout, &n, why, sizeof why)
	                 : api_backup(&so, dest, why, sizeof why);
	if (st != 0)
		fprintf(stderr, "bitarenad: %s\n", why);
	else if (sub == SUB_EXPORT)
		fprintf(stderr, "bitarenad: %lld game%s exported\n", (long long)n,
		        n == 1 ? "" : "s");
	else
		fprintf(stderr, "bitarenad: %s is a copy of the store\n", dest);
	return st;
}

/* The row of the long option name, or NULL. */
static const struct opt *opt_find(const char *name)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (opts[i].type != OPT_SECTION && strcmp(opts[i].name, name) == 0)
			return &opts[i];
	return NULL;
}

/*
 * The options in force: the defaults, then the config file's settings (file
 * may be NULL), then the command line's, which win. 0, or -1 with the file's
 * first mistake in why ("line 3: max-seeks takes 0..1000000"). o's strings
 * point into argv and file.
 */
static int options_build(struct options *o, const struct cmdline *cl, const struct conf *file,
                         char *why, size_t len)
{
	options_default(o);
	for (size_t i = 0; file != NULL && i < file->n; i++) {
		const struct conf_entry *e = &file->v[i];
		const struct opt *r = opt_find(e->key);
		char what[300];
		if (r == NULL || !in_file(r)) {
			snprintf(why, len, "line %d: %s is %s", e->line, e->key,
			         r == NULL ? "not an option of bitarenad (bitarenad --help)"
			                   : "for the command line only");
			return -1;
		}
		if (e->value == NULL && takes_arg(r->type)) {
			snprintf(why, len, "line %d: %s needs a value (%s)", e->line, e->key,
			         r->metavar);
			return -1;
		}
		if (!opt_set(r, o, e->value, what, sizeof what)) {
			snprintf(why, len, "line %d: %s %s", e->line, e->key, what);
			return -1;
		}
	}
	for (size_t i = 0; i < cl->n; i++) {
		char what[300];
		opt_set(cl->v[i].r, o, cl->v[i].arg, what, sizeof what); /* checked by parse_args */
	}
	if (o->verbose)
		o->cfg.log_level = LOG_LEVEL_DEBUG;
	return 0;
}

/* ---- SIGHUP: the config file read again ----------------------------------------------- */

/*
 * What a re-reading needs: the command line (it still wins), the options as
 * last configured (before start-up fitted them to the system: max-clients),
 * and the file last read, whose strings those options point to (the file read
 * at start is kept for the life of the process: the settings that need a
 * restart keep pointing into it).
 */
struct reloader {
	const struct cmdline *cl;
	struct options asked;
	struct conf boot, file;
};

/* r's value in o as the log shows it: its argument's form, yes or no, or - for none. */
static const char *shown(const struct opt *r, const struct options *o, char *buf, size_t len)
{
	if (r->type == OPT_FLAG)
		return *(const bool *)(const void *)((const char *)o + r->off) ? "yes" : "no";
	const char *v = show_value(r, o, buf, len);
	return v != NULL ? v : "-";
}

/*
 * SIGHUP: reads the file again and builds the options as at start. A file
 * that cannot be read or has a mistake changes nothing (logged, with why).
 * Else each option whose value differs is logged: applied at once when it
 * may change at run time (server_reconfigure()), else left as it is until a
 * restart.
 */
static void reload(void *ud, struct server *srv)
{
	struct reloader *rl = ud;
	struct conf file;
	struct options fresh;
	char why[400];
	if (conf_read(rl->cl->config, &file, why, sizeof why) < 0 ||
	    options_build(&fresh, rl->cl, &file, why, sizeof why) < 0) {
		log_error("config not reloaded file=%s why=%s kept=\"the settings in force\"",
		          LOG_Q(rl->cl->config), LOG_Q(why));
		conf_free(&file);
		return;
	}
	int changed = 0, restart = 0;
	for (size_t i = 0; i < NOPTS; i++) {
		const struct opt *r = &opts[i];
		char a[64], b[64];
		const char *was = in_file(r) ? shown(r, &rl->asked, a, sizeof a) : NULL,
		           *now = was != NULL ? shown(r, &fresh, b, sizeof b) : NULL;
		if (was == NULL || strcmp(was, now) == 0)
			continue;
		if (r->runtime) {
			log_info("option changed key=%s old=%s new=%s", r->name, LOG_Q(was),
			         LOG_Q(now));
			memcpy((char *)&rl->asked + r->off, (char *)&fresh + r->off, r->size);
			changed++;
		} else {
			log_warn("option needs a restart key=%s running=%s file=%s", r->name,
			         LOG_Q(was), LOG_Q(now));
			restart++;
		}
	}
	server_reconfigure(srv, &rl->asked.cfg);
	log_info("config reloaded file=%s changed=%d restart=%d", LOG_Q(rl->cl->config), changed,
	         restart);
	conf_free(&rl->file); /* the runtime settings point into the new one now */
	rl->file = file;
}

/* ---- start-up ------------------------------------------------------------------------ */

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
		log_warn("max-clients lowered to fit the file descriptor limit max_clients=%u "
		         "asked=%u nofile=%lu hint=\"raise ulimit -n (LimitNOFILE= in the unit)\"",
		         fit, cfg->conn.max_clients, (unsigned long)rl.rlim_cur);
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

/*
 * Where the files of a bitarenad are when no option names them. Run from its
 * build directory (make, make check, ./run.sh), it serves the source tree's
 * web/ and keeps its store in ./data. Installed, it finds them where make
 * install put them ($(pkgdatadir)/web, $(localstatedir)/lib/bitarena) under
 * the root it runs from: a bitarenad run as DESTDIR/usr/sbin/bitarenad
 * (make install DESTDIR=..., a package unpacked with dpkg -x) serves
 * DESTDIR/usr/share/bitarena/web, never the source tree's; one run from
 * anywhere else uses the configured paths as they are.
 */
static struct {
	bool resolved, build;
	char root[PATH_MAX]; /* what comes before the configured paths: "" or DESTDIR */
	char web[PATH_MAX + sizeof WEB_PKGDIR], data[PATH_MAX + sizeof STATE_DIR];
	char books[PATH_MAX + sizeof BOOKS_PKGDIR];
} where;

static void where_resolve(void)
{
	if (where.resolved)
		return;
	where.resolved = true;
	char exe[PATH_MAX], build[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = '\0';
	char *slash = strrchr(exe, '/');
	if (slash != NULL)
		*slash = '\0'; /* its directory */
	size_t len = strlen(exe), sb = strlen(BITARENA_SBINDIR);
	if (realpath(BITARENA_BUILDDIR, build) != NULL && strcmp(exe, build) == 0)
		where.build = true;
	else if (len >= sb && strcmp(exe + len - sb, BITARENA_SBINDIR) == 0)
		snprintf(where.root, sizeof where.root, "%.*s", (int)(len - sb), exe);
	if (where.build) {
		snprintf(where.web, sizeof where.web, "%s", WEB_SRCDIR);
		snprintf(where.data, sizeof where.data, "data");
		snprintf(where.books, sizeof where.books, "%s", BOOKS_SRCDIR);
	} else {
		snprintf(where.web, sizeof where.web, "%s%s", where.root, WEB_PKGDIR);
		snprintf(where.data, sizeof where.data, "%s%s", where.root, STATE_DIR);
		snprintf(where.books, sizeof where.books, "%s%s", where.root, BOOKS_PKGDIR);
	}
}

/* The page's directory: --http-root, else this bitarenad's own (above). */
static const char *web_root(const char *given)
{
	where_resolve();
	return given != NULL ? given : where.web;
}

/* The store's directory: --data, else this bitarenad's own (above). */
static const char *data_dir(const char *given)
{
	where_resolve();
	return given != NULL ? given : where.data;
}

/* Writes "port\n" to path; false when it cannot. */
static bool write_port(const char *path, int port)
{
	FILE *f = fopen(path, "w");
	bool ok = f != NULL && fprintf(f, "%d\n", port) >= 0;
	if (f != NULL && fclose(f) != 0)
		ok = false;
	if (!ok)
		log_error("cannot write the port file path=%s", LOG_Q(path));
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
	/* static: what the options point into lives as long as the process */
	static struct cmdline cl;
	static struct reloader rl = {.cl = &cl};
	int st = parse_args(&cl, argc, argv);
	if (st >= 0)
		return st;
	struct options o;
	char why[400];
	if ((cl.config != NULL && conf_read(cl.config, &rl.boot, why, sizeof why) < 0) ||
	    options_build(&o, &cl, cl.config != NULL ? &rl.boot : NULL, why, sizeof why) < 0) {
		log_error("config refused file=%s why=%s", LOG_Q(cl.config), LOG_Q(why));
		return 2;
	}
	log_set_level((enum log_level)o.cfg.log_level);
	if (cl.config != NULL)
		log_info("config read file=%s settings=%zu", LOG_Q(cl.config), rl.boot.n);
	if (cl.sub != SUB_SERVER)
		return subcommand(&o, &cl);
	if (o.since != NULL || o.format != NULL) {
		fprintf(stderr, "bitarenad: --since and --format are bitarenad export's\n");
		return 2;
	}
	rl.asked = o;
	char host[128];
	int port;
	parse_listen(o.listen, host, sizeof host, &port); /* the table checked it */
	char http_host[128];
	int http_port = 0;
	if (o.http != NULL)
		parse_listen(o.http, http_host, sizeof http_host, &http_port);
	char playtak_host[128];
	int playtak_port = 0;
	if (o.playtak != NULL)
		parse_listen(o.playtak, playtak_host, sizeof playtak_host, &playtak_port);
	const char *db = o.db, *cluster = o.cluster, *node = o.node, *data = data_dir(o.data);
	if (db != NULL && strncmp(db, "postgresql://", 13) != 0 &&
	    strncmp(db, "postgres://", 11) != 0) {
		fprintf(stderr, "bitarenad: --db wants postgresql://CONNINFO, not '%s'\n", db);
		return 2;
	}
	char instance[STORE_NODE_MAX + 1] = "";
#if HAVE_REDIS /* else --cluster and --node were refused */
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
	if (cluster != NULL)
		cluster_instance(node, instance);
#endif
	signal(SIGPIPE, SIG_IGN);
	fit_fd_limit(&o.cfg);
	where_resolve();
	if (o.cfg.books == NULL) /* --books, else this bitarenad's own (above) */
		o.cfg.books = where.books;
	tune_malloc();

	uv_loop_t loop;
	if (uv_loop_init(&loop) != 0) {
		log_error("cannot start the event loop");
		return 1;
	}
	struct server *srv = malloc(sizeof *srv);
	int r = srv ? server_init(srv, &loop, &o.cfg) : UV_ENOMEM;
	if (r == 0 && cl.config != NULL) {
		srv->on_reload = reload;
		srv->reload_ud = &rl;
	}
	const struct store_options so = {.dir = data,
	                                 .backend = db != NULL ? "postgresql" : NULL,
	                                 .conninfo = db,
	                                 .node = cluster != NULL ? instance : NULL,
	                                 .busy_timeout_ms = (int)o.busy_ms};
	if (r == 0 && server_open_store(srv, &so, o.fast_hash) < 0)
		return start_failed(&loop, srv);
	if (r == 0 && cluster != NULL) {
		const struct cluster_config cc = {.redis = cluster,
		                                  .node = node,
		                                  .instance = instance,
		                                  .beat_ms = (int)o.beat_ms,
		                                  .expiry_ms = 3 * (int)o.beat_ms,
		                                  .store = &so};
		if (server_join_cluster(srv, &cc, why, sizeof why) < 0) {
			log_error("cluster join failed why=%s", LOG_Q(why));
			return start_failed(&loop, srv);
		}
		log_info("cluster node node=%s instance=%s redis=%s", node, instance,
		         LOG_Q(cluster));
	}
	if (r == 0) {
		int n = server_recover(srv);
		if (n < 0 && cluster != NULL)
			return start_failed(&loop, srv);
		if (n > 0)
			log_info("games restored count=%d from=%s", n,
			         db != NULL ? "postgresql" : LOG_Q(data));
	}
	int bound = 0;
	if (r == 0)
		r = server_listen(srv, host, port, &bound);
	if (r != 0) {
		log_error("cannot listen addr=%s why=%s", LOG_Q(o.listen), LOG_Q(uv_strerror(r)));
		return start_failed(&loop, srv);
	}
	if (o.port_file != NULL && !write_port(o.port_file, bound))
		return start_failed(&loop, srv);
	log_info("listening addr=%s%s%s:%d version=%s store=%s", strchr(host, ':') ? "[" : "", host,
	         strchr(host, ':') ? "]" : "", bound, PACKAGE_VERSION,
	         db != NULL ? "postgresql" : LOG_Q(data));
	if (o.http != NULL) {
		const struct ws_config wc = {.host = http_host,
		                             .port = http_port,
		                             .webroot = web_root(o.http_root),
		                             .origin = o.http_origin,
		                             .hosts = o.http_host,
		                             .verbose = o.cfg.log_level >= LOG_LEVEL_DEBUG,
		                             .sndbuf = o.cfg.sndbuf};
		char index[PATH_MAX];
		if (snprintf(index, sizeof index, "%s/index.html", wc.webroot) >= (int)sizeof index ||
		    access(index, R_OK) != 0) {
			log_error("no web page root=%s hint=--http-root", LOG_Q(wc.webroot));
			return start_failed(&loop, srv);
		}
		if (server_listen_http(srv, &wc, &bound, why, sizeof why) != 0) {
			log_error("cannot serve http addr=%s why=%s", LOG_Q(o.http), LOG_Q(why));
			return start_failed(&loop, srv);
		}
		if (o.http_port_file != NULL && !write_port(o.http_port_file, bound))
			return start_failed(&loop, srv);
		log_info("web page url=http://%s%s%s:%d/ root=%s",
		         strchr(http_host, ':') ? "[" : "", http_host,
		         strchr(http_host, ':') ? "]" : "", bound, LOG_Q(wc.webroot));
	}
	if (o.playtak != NULL) {
		if ((r = server_listen_playtak(srv, playtak_host, playtak_port, &bound)) != 0) {
			log_error("cannot listen addr=%s port=playtak why=%s", LOG_Q(o.playtak),
			          LOG_Q(uv_strerror(r)));
			return start_failed(&loop, srv);
		}
		if (o.playtak_port_file != NULL && !write_port(o.playtak_port_file, bound))
			return start_failed(&loop, srv);
		log_info("listening addr=%s%s%s:%d port=playtak",
		         strchr(playtak_host, ':') ? "[" : "", playtak_host,
		         strchr(playtak_host, ':') ? "]" : "", bound);
	}
	uv_run(&loop, UV_RUN_DEFAULT);
	server_free(srv);
	r = uv_loop_close(&loop);
	free(srv);
	if (r != 0) {
		log_error("handles left open at exit");
		return 1;
	}
	conf_free(&rl.boot);
	conf_free(&rl.file);
	free(cl.v);
	log_info("stopped");
	return 0;
}
