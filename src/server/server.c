/*
 * server.c - wires the layers of bitarenad together (see server.h): each
 * layer is set up on those below it, the connection layer's events go to the
 * layers that own what they concern, signals start the clean shutdown. The
 * cluster (HAVE_REDIS) and the web page with the HTTP API (HAVE_WEBSOCKETS) are
 * wired only in builds that have them; main.c refuses their options in the others.
 */
#include "config.h"

#include "server/server.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "server/play/direct.h"
#include "server/play/offers.h"
#include "server/cluster/relay.h"
#include "server/play/session_watch.h"

/* ---- the connection layer's events ---------------------------------------------------- */

static void ev_open(void *ud, struct conn *c)
{
	struct server *s = ud;
	struct client *cl = client_new(c);
	if (cl == NULL) {
		conn_close(c, false);
		return;
	}
	cl->bar = &s->bar;
#if HAVE_REDIS
	if (relay_is(c)) /* stands for a client of another node, greeted there */
		return;
#endif
#if HAVE_WEBSOCKETS
	if (api_owns(c)) { /* an HTTP request under /api: the API's front-end */
		api_open(&s->api, cl);
		return;
	}
#endif
	if (playtak_port_owns(s->pt, c)) { /* it speaks playtak: the port's front-end */
		playtak_port_open(s->pt, cl);
		return;
	}
	send_msg(cl, NULL,
	         xasprintf("bitarenad %s (protocol %d) ready; 'help' lists commands, "
	                   "'login <name>' to begin",
	                   PACKAGE_VERSION, SERVER_PROTOCOL));
}

/* Refused at the door: one text line (a new connection reads text), then it closes. */
static void ev_refuse(void *ud, struct conn *c, enum conn_refusal why)
{
	struct server *s = ud;
#if HAVE_WEBSOCKETS
	if (api_owns(c)) { /* an HTTP request: an HTTP answer */
		api_refuse(&s->api, c, why);
		return;
	}
#endif
	char *t;
	if (why == CONN_REFUSED_FULL)
		t = xasprintf("error %s: the server has %u connections, the most it takes "
		              "(--max-clients); try again later",
		              err_name(ERR_SERVER_FULL), s->hub.lim.max_clients);
	else
		t = xasprintf("error %s: %u connections come from your address already, the most "
		              "it may have (--max-per-address)",
		              err_name(ERR_TOO_MANY_CONNECTIONS), s->hub.lim.max_per_addr);
	struct outbuf *b = t ? outbuf_line(t) : NULL;
	conn_send(c, b);
	outbuf_unref(b);
	free(t);
}

/* A deadline of c passed: a notice and close, unless it has settled (login). */
static bool ev_timeout(void *ud, struct conn *c, enum conn_timeout what)
{
	struct server *s = ud;
	struct client *cl = client_of(c);
	if (cl == NULL)
		return true;
	if (house_owns(c)) /* the house bots speak when they have a move */
		return false;
	if (what == CONN_TIMEOUT_LOGIN && (cl->logged_in || cl->nwatching > 0))
		return false; /* logged in, or an anonymous spectator */
#if HAVE_WEBSOCKETS
	if (what == CONN_TIMEOUT_LOGIN && api_owns(c))
		return false; /* an HTTP request (a list being streamed) has no login */
#endif
	bool login = what == CONN_TIMEOUT_LOGIN;
	uint64_t ms = login ? s->hub.lim.login_ms : s->hub.lim.idle_ms;
	bool whole = ms % 1000 == 0;
	unsigned long long n = whole ? ms / 1000 : ms;
	const char *unit = whole ? "s" : "ms";
	if (login)
		send_info(cl, ERR_LOGIN_TIMEOUT,
		          "no login within %llu %s of connecting; this connection closes", n, unit);
	else
		send_info(cl, ERR_IDLE_TIMEOUT, "nothing sent for %llu %s; this connection closes",
		          n, unit);
	return true;
}

/*
 * What slow spectator cl is owed, once it can take more or before the answer to its next
 * command: the newest state of each game it watches, here (session_watch.c) or on another
 * node (the cluster).
 */
static void send_owed(struct server *s, struct client *cl)
{
	if (!cl->has_pending_states)
		return;
	session_watch_flush(&s->sess, cl);
#if HAVE_REDIS
	cluster_drain(s->cluster, cl);
#endif
}

static void ev_line(void *ud, struct conn *c, char *line, size_t len)
{
	struct server *s = ud;
	struct client *cl = client_of(c);
	/* a connection may stop being slow (below --out-cap) before it drains (to half) */
	send_owed(s, cl);
	if (cl->fe != NULL)
		cl->fe->line(cl, line, len);
	else
		commands_line(&s->cmds, cl, line, len);
}

static void ev_bad_frame(void *ud, struct conn *c, enum frame_event what)
{
	struct server *s = ud;
	if (!commands_charge(&s->cmds, client_of(c), 1))
		return;
	if (what == FRAME_SB_TOO_LONG)
		reply_err(client_of(c), NULL, ERR_TELNET_UNTERMINATED,
		          "a telnet subnegotiation (IAC SB) ran past %d bytes without its end "
		          "(IAC SE); it and the rest of its line were ignored",
		          FRAME_SB_MAX);
	else
		reply_err(client_of(c), NULL, ERR_LINE_TOO_LONG,
		          "lines are at most %d bytes; the rest of this one is ignored", FRAME_MAX);
}

/* The telnet answer goes through the client's one door, after the replies before it. */
static void ev_telnet(void *ud, struct conn *c, const unsigned char *answer, size_t len)
{
	struct server *s = ud;
	if (!commands_charge(&s->cmds, client_of(c), 1))
		return;
	struct outbuf *b = outbuf_new((const char *)answer, len);
	client_send(client_of(c), b);
	outbuf_unref(b);
}

static void ev_drain(void *ud, struct conn *c)
{
	struct server *s = ud;
	struct client *cl = client_of(c);
	send_owed(s, cl);
#if HAVE_WEBSOCKETS
	if (api_owns(c))
		api_drain(&s->api, cl);
#endif
}

static void ev_close(void *ud, struct conn *c)
{
	struct server *s = ud;
	struct client *cl = client_of(c);
	if (cl == NULL)
		return;
	log_debug("connection closed conn=%llu user=%s", (unsigned long long)c->id,
	          cl->logged_in ? cl->name : "-");
	/* Leave everything while still able to tell the others. */
	direct_client_gone(&s->lobby, cl);
	pools_client_gone(&s->pools, cl);
	lobby_client_gone(&s->lobby, cl);
	session_client_gone(&s->sess, cl);
	if (s->stored)
		archive_client_gone(&s->arch, cl);
	if (cl->fe != NULL)
		cl->fe->gone(cl);
#if HAVE_REDIS
	cluster_client_gone(s->cluster, cl);
#endif
	client_free(cl);
}

/* ---- the server ------------------------------------------------------------------- */

void server_config_default(struct server_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->log_level = LOG_LEVEL_DEFAULT;
	cfg->grace_ms = SERVER_GRACE_DEFAULT * 1000LL;
	cfg->ping_ms = RTT_PING_DEFAULT_MS;
	cfg->ping_timeout_ms = SERVER_PING_TIMEOUT_DEFAULT * 1000LL;
	cfg->acct_limits = (struct accounts_limits){.login_pair = ACCOUNTS_LOGIN_PAIR_DEFAULT,
	                                            .login_addr = ACCOUNTS_LOGIN_ADDR_DEFAULT,
	                                            .login_acct = ACCOUNTS_LOGIN_ACCT_DEFAULT,
	                                            .register_addr = ACCOUNTS_REGISTER_DEFAULT};
	conn_limits_default(&cfg->conn);
	cfg->conn.out_hard = 0; /* 16 x the output cap, whatever --out-cap says */
	cfg->sess.max_watches = SESSION_MAX_WATCHES;
	cfg->sess.max_plies = SESSION_MAX_PLIES;
	cfg->max_replays = SERVER_MAX_REPLAYS_DEFAULT;
	cfg->ladder_pair_cap = LADDER_PAIR_CAP;
	cfg->replay_memory = ARCHIVE_REPLAY_MEMORY;
	budget_config_default(&cfg->budget);
	cfg->seek_feed_ms = LOBBY_FEED_MS;
	cfg->max_seeks = LOBBY_MAX_SEEKS_TOTAL;
}

static void signal_cb(uv_signal_t *h, int signum)
{
	struct server *s = h->data;
	if (signum == SIGHUP) {
		if (s->on_reload != NULL)
			s->on_reload(s->reload_ud, s);
		else
			log_info("reload skipped signal=SIGHUP why=\"no configuration file\"");
		return;
	}
	log_info("shutting down signal=%s", signum == SIGINT ? "SIGINT" : "SIGTERM");
	server_stop(s);
}

/* The connection limits cfg gives, the defaults of the output limits resolved. */
static struct conn_limits conn_limits_of(const struct server_config *cfg)
{
	struct conn_limits lim = cfg->conn;
	if (lim.out_soft == 0)
		lim.out_soft = CONN_OUT_SOFT;
	if (lim.out_hard == 0) /* the hard limit is always there */
		lim.out_hard = CONN_OUT_HARD_FACTOR * lim.out_soft;
	return lim;
}

void server_reconfigure(struct server *s, const struct server_config *cfg)
{
	struct server_config c = s->cfg; /* what only a restart changes stays */
	c.log_level = cfg->log_level;
	c.grace_ms = cfg->grace_ms;
	c.ping_ms = cfg->ping_ms;
	c.ping_timeout_ms = cfg->ping_timeout_ms;
	c.conn = cfg->conn;
	c.conn.max_clients = s->cfg.conn.max_clients; /* fitted to the descriptors at start */
	c.sess = cfg->sess;
	c.max_replays = cfg->max_replays;
	c.ladder_pair_cap = cfg->ladder_pair_cap;
	c.budget = cfg->budget;
	c.max_seeks = cfg->max_seeks;
	c.admins = cfg->admins;
	c.motd = cfg->motd;
	c.pool_computer_after_ms = cfg->pool_computer_after_ms;
	bool motd_changed = (s->cfg.motd == NULL) != (c.motd == NULL) ||
	                    (c.motd != NULL && strcmp(s->cfg.motd, c.motd) != 0);
	/* the file's motd replaces the motd verb's only when the file's changed */
	if (motd_changed)
		lobby_set_motd(&s->lobby, c.motd);
	moderation_set_config_admins(&s->mod, c.admins);
	s->cfg = c;
	log_set_level((enum log_level)c.log_level);
	s->sess.grace_ms = c.grace_ms;
	s->sess.lim = c.sess;
	s->lobby.max_seeks = c.max_seeks;
	if (s->stored) {
		s->arch.max_replays = c.max_replays;
		s->ladders.pair_cap = (int)c.ladder_pair_cap;
	}
	s->cmds.budget = c.budget;
	s->pools.computer_after_ms = c.pool_computer_after_ms;
	rtt_configure(&s->rtt, c.ping_ms, c.ping_timeout_ms);
	struct conn_limits lim = conn_limits_of(&c);
	conn_hub_set_limits(&s->hub, &lim);
}

/* struct commands' computer: `match computer ...` to the house bots. */
static void house_match_cb(void *ud, struct client *c, const struct proto_req *rq)
{
	house_match(ud, c, rq);
}

int server_init(struct server *s, uv_loop_t *loop, const struct server_config *cfg)
{
	memset(s, 0, sizeof *s);
	s->loop = loop;
	s->cfg = *cfg;
	metrics_init(&s->metrics);
	log_set_level((enum log_level)cfg->log_level);
	if (sodium_init() < 0) { /* every seed, seat and token comes from its CSPRNG */
		log_error("random source failed lib=libsodium why=%s",
		          LOG_Q("no random numbers for seeds and tokens"));
		return UV_EIO;
	}
	const struct conn_events ev = {.ud = s,
	                               .on_open = ev_open,
	                               .on_refuse = ev_refuse,
	                               .on_timeout = ev_timeout,
	                               .on_line = ev_line,
	                               .on_bad_frame = ev_bad_frame,
	                               .on_telnet = ev_telnet,
	                               .on_drain = ev_drain,
	                               .on_close = ev_close};
	struct conn_limits lim = conn_limits_of(cfg);
	int r;
	if ((r = conn_hub_init(&s->hub, loop, &lim, &ev)) != 0)
		return r;
	conn_hub_register_metrics(&s->hub, &s->metrics);
	rtt_init(&s->rtt, &s->hub, cfg->ping_ms, cfg->ping_timeout_ms);
	sessions_init(&s->sess, loop, cfg->grace_ms);
	s->sess.bar = &s->bar;
	s->sess.lim = cfg->sess;
	offers_init(&s->sess);
	session_metrics_register(&s->sess.met, &s->metrics);
	lobby_init(&s->lobby, &s->hub, &s->sess, cfg->seek_feed_ms, cfg->max_seeks);
	s->cmds = (struct commands){.lobby = &s->lobby,
	                            .sess = &s->sess,
	                            .bar = &s->bar,
	                            .mod = &s->mod,
	                            .budget = cfg->budget};
	commands_register_metrics(&s->cmds, &s->metrics);
	char why[200];
	if (pools_init(&s->pools, loop, &s->sess, NULL, cfg->pools, why, sizeof why) < 0) {
		log_error("--pools: %s", why);
		return -1;
	}
	s->cmds.pools = &s->pools;
	house_init(&s->house, loop, &s->hub, &s->lobby, &s->sess);
	s->cmds.computer = house_match_cb;
	s->cmds.computer_ud = &s->house;
	s->pools.computer = house_for_pool;
	s->pools.computer_ud = &s->house;
	s->pools.computer_after_ms = cfg->pool_computer_after_ms;
	pools_register_metrics(&s->pools, &s->metrics);
	moderation_set_config_admins(&s->mod, cfg->admins);
	lobby_set_motd(&s->lobby, cfg->motd);
	s->sess.hides = moderation_hides;
	s->sess.hides_ud = &s->mod;
#if HAVE_WEBSOCKETS
	if ((r = api_init(&s->api, loop, &s->hub, &s->sess, &s->lobby, &cfg->budget)) != 0)
		return r;
#endif
	uv_signal_init(loop, &s->sig_int);
	uv_signal_init(loop, &s->sig_term);
	uv_signal_init(loop, &s->sig_hup);
	s->sig_int.data = s->sig_term.data = s->sig_hup.data = s;
	uv_signal_start(&s->sig_int, signal_cb, SIGINT);
	uv_signal_start(&s->sig_term, signal_cb, SIGTERM);
	uv_signal_start(&s->sig_hup, signal_cb, SIGHUP);
	return 0;
}

int server_open_store(struct server *s, const struct store_options *o, bool fast_hash)
{
	struct store_options wo = *o;
	wo.sync = store_fsync_sync(&s->cfg.fsync);
	struct store *db = NULL;
	int r = store_open_opts(&wo, &db);
	if (r < 0) {
		log_error("store cannot open dir=%s why=%s%s", LOG_Q(o->dir),
		          LOG_Q(store_strerror(r)),
		          r == STORE_EGONE
		                  ? " hint=\"a 0-byte database, or a WAL without its database, is "
		                    "what is left of a lost store: restore it from a backup, or "
		                    "move it away to start an empty store\""
		                  : "");
		return r;
	}
	/* what admins decided, read before the journal's writer owns the connection */
	char *admins = s->mod.config_admins;
	s->mod.config_admins = NULL;
	if ((r = moderation_load(&s->mod, db)) < 0) {
		free(admins);
		log_error("moderation cannot load why=%s", LOG_Q(store_strerror(r)));
		store_close(db);
		return r;
	}
	s->mod.config_admins = admins;
	s->mod.jn = &s->journal;
	/* readers open their own connections once the writer's made the schema */
	if ((r = store_reader_start(s->loop, &wo, 0, &s->rd)) < 0) {
		log_error("store readers cannot start why=%s", LOG_Q(store_strerror(r)));
		store_close(db);
		return r;
	}
	if ((r = journal_open(&s->journal, s->loop, db, &wo, &s->cfg.fsync, &s->sess, &s->bar)) <
	    0) {
		store_reader_stop(s->rd);
		s->rd = NULL;
		return r;
	}
	journal_register_metrics(&s->journal, &s->metrics);
	if ((r = accounts_init(&s->acct, s->rd, &s->journal, &s->lobby, &s->hub, fast_hash,
	                       &s->cfg.acct_limits)) < 0) {
		journal_close(&s->journal);
		store_reader_stop(s->rd);
		s->rd = NULL;
		return r;
	}
	archive_init(&s->arch, s->rd, &s->lobby, &s->hub, s->loop);
	s->arch.max_replays = s->cfg.max_replays;
	s->arch.max_bytes = s->cfg.replay_memory;
	s->arch.budget = &s->cmds.budget;
	s->stored = true;
	s->cmds.acct = &s->acct;
	s->cmds.arch = &s->arch;
	tourneys_init(&s->tourneys, s->loop, &s->sess, &s->lobby, &s->journal);
	tourneys_register_metrics(&s->tourneys, &s->metrics);
	s->tourneys.books = s->cfg.books;
	s->tourneys.arch = &s->arch;
	s->cmds.tourneys = &s->tourneys;
	s->pools.rd = s->rd; /* ratings read from now */
	ladders_init(&s->ladders, s->loop, &s->sess, &s->lobby, &s->journal, s->rd, &s->hub);
	s->ladders.pair_cap = (int)s->cfg.ladder_pair_cap;
	ladders_register_metrics(&s->ladders, &s->metrics);
	s->cmds.ladders = &s->ladders;
#if HAVE_WEBSOCKETS
	api_set_store(&s->api, s->rd);
#endif
	return 0;
}

#if HAVE_REDIS
/* The API's struct api_cluster: the cluster's games, and a watch as the verb does it. */
static bool api_cluster_live(void *ud, api_games_done done, void *arg)
{
	struct server *s = ud;
	return cluster_live_games(s->cluster, done, arg);
}

static void api_cluster_watch(void *ud, struct client *cl, uint64_t game)
{
	struct server *s = ud;
	char line[48];
	int n = snprintf(line, sizeof line, "watch %" PRIu64, game);
	commands_line_paid(&s->cmds, cl, line, (size_t)n); /* the API took its cost */
}
#endif

int server_join_cluster(struct server *s, const struct cluster_config *cfg, char *why, size_t len)
{
#if !HAVE_REDIS
	snprintf(why, len, "this bitarenad was built without the cluster (hiredis)");
	return -1;
#else
	const struct cluster_layers ly = {.loop = s->loop,
	                                  .hub = &s->hub,
	                                  .cmds = &s->cmds,
	                                  .lobby = &s->lobby,
	                                  .sess = &s->sess,
	                                  .journal = &s->journal,
	                                  .tourneys = s->stored ? &s->tourneys : NULL,
	                                  .ladders = s->stored ? &s->ladders : NULL};
	int r = cluster_start(cfg, &ly, &s->cluster, why, len);
	if (r == 0) {
		cluster_register_metrics(s->cluster, &s->metrics);
		/* /api/games/live lists every node's games, a stream follows any node's game */
		api_set_cluster(&s->api, &(struct api_cluster){.ud = s,
		                                               .live_games = api_cluster_live,
		                                               .watch = api_cluster_watch});
	}
	return r;
#endif
}

int server_recover(struct server *s)
{
#if HAVE_REDIS
	if (s->cluster != NULL)
		return cluster_recover(s->cluster);
#endif
	if (!s->stored)
		return 0;
	int r = journal_recover(&s->journal);
	/* then the tournaments, whose games in progress are back now */
	int t = r < 0 ? 0 : tourneys_recover(&s->tourneys);
	if (t > 0)
		log_info("%d tournament(s) back", t);
	int l = r < 0 ? 0 : ladders_recover(&s->ladders);
	if (l > 0)
		log_info("%d ladder(s) back", l);
	return r < 0 ? r : t < 0 ? t : l < 0 ? l : r;
}

int server_listen(struct server *s, const char *host, int port, int *bound)
{
	return tcp_listen(&s->tcp, &s->hub, host, port, s->cfg.sndbuf, bound);
}

int server_listen_http(struct server *s, const struct ws_config *cfg, int *bound, char *why,
                       size_t len)
{
#if HAVE_WEBSOCKETS
	struct ws_config c = *cfg;
	c.metrics = &s->metrics;
	if (api_set_metrics(&s->api, &s->metrics, s->cfg.metrics_from, why, len) < 0)
		return -1;
	return ws_listen(&s->ws, &s->hub, &c, bound, why, len);
#else
	snprintf(why, len, "this bitarenad was built without WebSocket support (libwebsockets)");
	return -1;
#endif
}

int server_listen_playtak(struct server *s, const char *host, int port, int *bound)
{
	if (s->pt == NULL) {
		if ((s->pt = malloc(sizeof *s->pt)) == NULL)
			return UV_ENOMEM;
		playtak_port_init(s->pt, &s->cmds);
	}
	return playtak_port_listen(s->pt, host, port, s->cfg.sndbuf, bound);
}

static void close_if_open(uv_handle_t *h)
{
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

void server_stop(struct server *s)
{
	if (s->stopping)
		return;
	s->stopping = true;
	tcp_unlisten(&s->tcp);
	if (s->pt != NULL)
		playtak_port_stop(s->pt);
#if HAVE_WEBSOCKETS
	ws_stop(s->ws);
	api_stop(&s->api);
#endif
	close_if_open((uv_handle_t *)&s->sig_int);
	close_if_open((uv_handle_t *)&s->sig_term);
	close_if_open((uv_handle_t *)&s->sig_hup);
	rtt_stop(&s->rtt);
	struct msg m;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "info");
	cJSON_AddStringToObject(j, "event", "shutdown");
	cJSON_AddStringToObject(j, "message", "the server is shutting down");
	msg_init(&m, j, xasprintf("info: the server is shutting down"));
	for (struct conn *c = s->hub.conns; c != NULL; c = c->next)
		if (!c->closing && client_of(c) != NULL)
			msg_send(&m, client_of(c));
	msg_done(&m);
	house_stop(&s->house); /* its searches cancelled before the games go */
	lobby_free(&s->lobby);
	pools_close(&s->pools);
	if (s->stored) { /* before the games go: their ends are not results */
		tourneys_close(&s->tourneys);
		ladders_close(&s->ladders);
	}
	sessions_free_all(&s->sess);
	/* the journal's last writes, and the output they held, before the connections close */
	journal_close(&s->journal);
	store_reader_stop(s->rd);
	s->rd = NULL;
#if HAVE_WEBSOCKETS
	api_set_store(&s->api, NULL);
#endif
#if HAVE_REDIS
	/* then the cluster: our games are the others' to take over */
	cluster_stop(s->cluster);
#endif
	conn_hub_stop(&s->hub);
}

void server_free(struct server *s)
{
#if HAVE_WEBSOCKETS
	ws_free(s->ws);
	s->ws = NULL;
#endif
	if (s->pt != NULL)
		playtak_port_free(s->pt);
	free(s->pt);
	s->pt = NULL;
#if HAVE_REDIS
	cluster_free(s->cluster);
	s->cluster = NULL;
#endif
	moderation_free(&s->mod);
	if (!s->stored)
		return;
	accounts_close(&s->acct);
	s->stored = false;
	s->cmds.acct = NULL;
	s->cmds.arch = NULL;
	s->cmds.tourneys = NULL;
	s->cmds.ladders = NULL;
}
