/*
 * server.h - the bitarenad server object: the one file that wires the layers
 * together. It registers the connection layer's events (a new connection gets
 * its client and the welcome (or the playtak port's front-end), a line goes to
 * the dispatcher (or the front-end), a drained output
 * gets its coalesced states, a closing connection leaves the lobby, its games
 * and its replays), links each layer to those below it, owns the signals and
 * the clean shutdown. main.c only parses arguments.
 *
 * Who calls whom: the layers are the folders of src/server, top to bottom
 * ports/ > cluster/ > cmd/ > records/ > play/ > msg/ > net/ > store/ > util/,
 * each calling only those below it; news goes up only through callbacks. The
 * one map of them, with the callbacks, is DEVELOPERS.md (Layout); each
 * folder's main header has the detail; tests/layers.py checks the order.
 * server.c sits above them all: it registers the connection layer's events,
 * links each layer to those below it and calls every layer's init, open, stop
 * and free.
 */
#ifndef BITARENA_SERVER_SERVER_H
#define BITARENA_SERVER_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "proto/limits.h"
#include "server/api/api.h"
#include "server/records/accounts.h"
#include "server/cluster/cluster.h"
#include "server/records/archive.h"
#include "server/cmd/commands.h"
#include "server/net/conn.h"
#include "server/events/tourney.h"
#include "server/events/ladder.h"
#include "server/records/journal.h"
#include "server/records/moderation.h"
#include "server/play/lobby.h"
#include "server/ports/playtak_port.h"
#include "server/events/pools.h"
#include "server/house/house.h"
#include "server/msg/rtt.h"
#include "server/play/session.h"
#include "server/net/tcp.h"
#include "server/net/ws.h"
#include "server/util/metrics.h"

#define SERVER_PROTOCOL      PROTO_VERSION
#define SERVER_GRACE_DEFAULT 120                          /* seconds (--grace) */
#define SERVER_PING_DEFAULT  (RTT_PING_DEFAULT_MS / 1000) /* seconds (--ping) */

/*
 * What bitarenad is started with. A zeroed config is a server without limits
 * but the output cap (the unit tests); main.c starts from server_config_default().
 */
struct server_config {
	int64_t grace_ms;         /* disconnect forfeit grace */
	int sndbuf;               /* SO_SNDBUF of accepted sockets; 0 = the system's */
	int log_level;            /* enum log_level (util/log.h): what the log says */
	int64_t ping_ms;          /* between pings (set ping on); 0 = RTT_PING_DEFAULT_MS */
	struct store_fsync fsync; /* --fsync: always (default) or batch=MS */
	struct accounts_limits acct_limits; /* --login-limit*, --register-limit */
	int64_t ping_timeout_ms;     /* a ping unanswered this long drops the client; 0: never */
	struct conn_limits conn;     /* output, clients, per address, login and idle timeouts;
	                                conn.out_soft 0 = CONN_OUT_SOFT, out_hard 0 = 16 x that */
	struct session_limits sess;  /* watches per connection, plies per game */
	unsigned max_replays;        /* replays running per connection; 0: no limit */
	unsigned ladder_pair_cap;    /* games a ladder's pair plays a day; 0: no cap */
	size_t replay_memory;        /* what all running replays may hold; 0: no limit */
	struct budget_config budget; /* each connection's command budget; rate 0: none */
	uint64_t seek_feed_ms;       /* seek news goes out at most this often; 0: next pass */
	unsigned max_seeks;          /* open seeks in all; 0: no limit */
	const char *admins;          /* --admins: names split by commas (NULL: none; copied) */
	const char *motd;            /* --motd: the message of the day (NULL: none; copied) */
	const char *pools;           /* --pools: the pools (NULL: POOLS_DEFAULT; events/pools.h) */
	int64_t pool_computer_after_ms; /* --pool-computer-after: a pool's waiter then plays the
	                                   house bot (pools.h); 0: never */
	const char *books;           /* --books: the opening books' directory (tourney.h; NULL:
	                                no book can be named) */
	const char *metrics_from;    /* --metrics-from: who may GET /metrics (api_metrics.h;
	                                NULL: loopback only); read when --http listens */
};

#define SERVER_PING_TIMEOUT_DEFAULT 30 /* seconds (--ping-timeout) */
#define SERVER_MAX_REPLAYS_DEFAULT  2  /* --max-replays */

/* The defaults of every limit (what bitarenad runs with unless told otherwise). */
void server_config_default(struct server_config *cfg);

struct server {
	uv_loop_t *loop;
	struct server_config cfg;
	/* the layers, bottom up */
	struct conn_hub hub;
	struct tcp_listener tcp;
	struct ws_listener *ws;  /* --http: the page and /ws; NULL without */
	struct api api;          /* the HTTP API of --http's /api (HAVE_WEBSOCKETS) */
	struct playtak_port *pt; /* --playtak: the playtak protocol's port; NULL without */
	struct rtt rtt;
	struct sessions sess;
	struct lobby lobby;
	struct client_barrier bar; /* the journal's: output held until its writes are durable */
	bool stored;               /* false: games in memory only, no accounts */
	struct store_reader *rd;   /* the store's reads (accounts, archive) */
	struct journal journal;    /* the store's writes (its writer thread owns the store) */
	struct accounts acct;
	struct archive arch;
	struct tourneys tourneys; /* tournaments (with a store only) */
	struct pools pools;       /* rating pools for quick pairing */
	struct ladders ladders;   /* the continuous ladders (with a store only) */
	struct house house;       /* the server's own bots (house/house.h) */
	struct moderation mod;   /* admins, bans, mutes, blocks (records/moderation.h) */
	struct cluster *cluster; /* --cluster: this node's; NULL: a single server */
	struct commands cmds;
	struct metrics metrics; /* every layer's counters and gauges (metrics.h) */
	uv_signal_t sig_int, sig_term, sig_hup;
	/* SIGHUP: main.c's re-reading of the config file (NULL: the signal is only logged) */
	void (*on_reload)(void *ud, struct server *s);
	void *reload_ud;
	bool stopping;
};

/* Sets up s on loop (the layers, signals); games in memory until server_open_store(). */
int server_init(struct server *s, uv_loop_t *loop, const struct server_config *cfg);
/*
 * Opens the store o says (SQLite in o->dir, created when missing; its busy
 * timeout; the sync mode follows cfg.fsync): games are journalled through
 * the writer thread, accounts and the store's verbs read on reader threads.
 * fast_hash: the weakest Argon2id cost (tests only). 0 or a negative enum
 * store_err (the reason is logged to stderr).
 */
int server_open_store(struct server *s, const struct store_options *o, bool fast_hash);
/*
 * Joins a cluster (after server_open_store(), whose options carry the node's
 * instance): shared state in Redis, commands forwarded to the games' nodes.
 * 0, or -1 with a sentence in why.
 */
int server_join_cluster(struct server *s, const struct cluster_config *cfg, char *why, size_t len);
/*
 * Brings back the games in progress in the store: how many, or a negative
 * enum store_err. In a cluster: the node's own games (those of any earlier
 * instance of its name), the others' stay theirs.
 */
int server_recover(struct server *s);
/*
 * Listens on host:port (IPv4 dotted or IPv6 text); port 0 picks a free one,
 * written to *bound (may be NULL). 0 or a libuv error code.
 */
int server_listen(struct server *s, const char *host, int port, int *bound);
/* Serves the page and /ws on HTTP (see ws.h); 0, or -1 with a sentence in why. */
int server_listen_http(struct server *s, const struct ws_config *cfg, int *bound, char *why,
                       size_t len);
/*
 * Speaks the playtak.com protocol on host:port as well (playtak_port.h); port
 * 0 picks a free one, written to *bound. 0 or a libuv error code.
 */
int server_listen_playtak(struct server *s, const char *host, int port, int *bound);
/*
 * Applies what may change while the server runs (the options marked so in
 * main.c's table): the log level, the grace, the game and connection limits,
 * the output limits, pings, the command budget. Each applies from now on;
 * what cfg holds beyond these (addresses, the store, max_clients, the
 * accounts' limits) is kept as the server started with it. cfg is copied.
 */
void server_reconfigure(struct server *s, const struct server_config *cfg);
/* Begins a clean shutdown: tells everyone, closes every handle; uv_run then returns. */
void server_stop(struct server *s);
/* After uv_run() has returned: frees what is left and closes the store (every handle is
   closed by then). */
void server_free(struct server *s);

#endif
