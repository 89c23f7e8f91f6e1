/*
 * cluster.c - a node of a cluster (see cluster.h and docs/cluster.md): its
 * life-cycle (start, recovery, stop, free), the tick that drives every part,
 * the messages of the node's inbox handed to the part they are for, and the
 * server's connection events passed on.
 */
#include "server/cluster/cluster_internal.h"

#include <time.h>
#include <unistd.h>

#include "server/events/tourney.h"
#include "server/records/journal.h"

/* ---- names ---------------------------------------------------------------------------------- */

bool cluster_node_valid(const char *name)
{
	size_t n = 0;
	for (; name[n]; n++) {
		char ch = name[n];
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		          (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';
		if (!ok || n >= CLUSTER_NODE_MAX)
			return false;
	}
	return n > 0;
}

int cluster_parse_redis(const char *url, char *host, size_t hlen, int *port)
{
	if (strncmp(url, "redis://", 8) == 0)
		url += 8;
	const char *colon = strrchr(url, ':');
	if (colon == NULL || colon == url || (size_t)(colon - url) >= hlen)
		return -1;
	char *end;
	long p = strtol(colon + 1, &end, 10);
	if (colon[1] == '\0' || (*end != '\0' && strcmp(end, "/") != 0) || p < 1 || p > 65535)
		return -1;
	memcpy(host, url, (size_t)(colon - url));
	host[colon - url] = '\0';
	*port = (int)p;
	return 0;
}

void cluster_instance(const char *name, char out[STORE_NODE_MAX + 1])
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t x =
	        (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ ((uint64_t)getpid() << 40);
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	snprintf(out, STORE_NODE_MAX + 1, "%s#%012" PRIx64, name,
	         (uint64_t)(x & 0xffffffffffffULL));
}

/* ---- the inbox and the tick ----------------------------------------------------------------- */

/* A message to our inbox, handed to the part it is for (docs/cluster.md, 3). */
static void dispatch(struct cluster *c, char *h, char *body, size_t len)
{
	char a[STORE_NODE_MAX + 1], name[PROTO_NAME_MAX + 2], flags[16];
	char tok[PROTO_TOKEN_LEN + 2] = "-"; /* C, R: a guest's token (none from older nodes) */
	uint64_t conn, n, game;
	int64_t rtt;
	switch (h[0]) {
	case 'C':
		if (sscanf(h, "C %64s %" SCNu64 " %" SCNu64 " %15s %" SCNd64 " %21s %21s", a, &conn,
		           &n, flags, &rtt, name, tok) >= 6)
			owner_run(c, a, conn, n, flags, rtt, name, tok, body, len);
		break;
	case 'O':
		if (sscanf(h, "O %" SCNu64, &conn) == 1)
			home_out(c, conn, body, len);
		break;
	case 'D':
		if (sscanf(h, "D %" SCNu64 " %" SCNu64, &conn, &n) == 2)
			home_answered(c, conn, n);
		break;
	case 'P':
		if (sscanf(h, "P %32s %" SCNu64 " %" SCNu64, a, &conn, &game) == 3)
			remote_plays(c, a, conn, game);
		break;
	case 'X':
		if (sscanf(h, "X %64s %" SCNu64, a, &conn) == 2)
			owner_gone(c, a, conn);
		break;
	case 'R':
		if (sscanf(h, "R %64s %" SCNu64 " %15s %" SCNd64 " %21s %21s", a, &conn, flags,
		           &rtt, name, tok) >= 5)
			owner_resume(c, a, conn, flags, rtt, name, tok, true);
		break;
	case 'Z': /* a node's instance was buried: what stands for its clients here goes */
		if (sscanf(h, "Z %64s", a) == 1 && strcmp(a, c->instance) != 0)
			owner_home_gone(c, a);
		break;
	case 'K':
		if (sscanf(h, "K %21s %32s", name, a) == 2)
			shared_kick(c, name, a);
		break;
	case 'W': {
		char fmt;
		size_t count;
		if (sscanf(h, "W %64s %" SCNu64 " %c %zu", a, &game, &fmt, &count) == 4)
			owner_interest_set(c, a, game, fmt == 'j', count);
		break;
	}
	case 'T': /* a tournament's event (from `all`) */
	case 'A': /* a seat for one of our clients (from `all`) */
		cevents_msg(c, h, body, len);
		break;
	case 'H': /* our own echo (on_tick): the way through Redis and back works */
		c->echo_sent = 0;
		break;
	case 'Y': {
		size_t nt, nj;
		if (sscanf(h, "Y %64s %" SCNu64 " %zu %zu", a, &game, &nt, &nj) == 4) {
			owner_interest_set(c, a, game, false, nt);
			owner_interest_set(c, a, game, true, nj);
			owner_resend(c, a, game);
		}
		break;
	}
	}
}

/*
 * What is asked of us as the owner of games (a command forwarded, a seat resumed, a state
 * asked again, a client gone, spectators counted) waits while our lease is in doubt: a
 * process paused (SIGSTOP, a stopped VM) finds, when it runs again, what other nodes asked
 * meanwhile, and would answer from games another node may have taken over since. The next
 * heartbeat tells: ours still (they go on as they came), or declared dead (revive() first
 * gives up what is not ours, and they go on once the lease is back).
 */
#define HELD_MAX 65536

static bool lease_ok(struct cluster *c)
{
	return c->lease_at != 0 && cluster_now(c) < c->lease_at + (uint64_t)c->expiry_ms;
}

static void hold(struct cluster *c, const char *h, const char *body, size_t len)
{
	size_t hl = strlen(h) + 1;
	struct held *m = c->nheld < HELD_MAX ? malloc(sizeof *m + hl) : NULL;
	char *b = m != NULL ? malloc(len + 1) : NULL; /* NUL-ended, as it came */
	if (m == NULL || b == NULL) {
		free(m);
		log_warn("cluster inbox message dropped node=%s why=\"%s\"", c->name,
		         c->nheld < HELD_MAX ? "out of memory" : "too many held");
		return;
	}
	memcpy(m->h, h, hl);
	if (len > 0)
		memcpy(b, body, len);
	b[len] = '\0';
	m->body = b;
	m->len = len;
	m->next = NULL;
	if (c->held == NULL)
		c->held_tail = &c->held;
	*c->held_tail = m;
	c->held_tail = &m->next;
	c->nheld++;
}

static void on_inbox_msg(struct cluster *c, char *h, char *body, size_t len)
{
	if (h[0] != '\0' && strchr("CRXWY", h[0]) != NULL && (c->held != NULL || !lease_ok(c))) {
		hold(c, h, body, len);
		return;
	}
	dispatch(c, h, body, len);
}

static void drop_held(struct cluster *c)
{
	while (c->held != NULL) {
		struct held *m = c->held;
		c->held = m->next;
		free(m->body);
		free(m);
	}
	c->nheld = 0;
}

/* The lease renewed (a heartbeat found our key ours): what the inbox held goes on. */
static void lease_renewed(struct cluster *c)
{
	while (c->held != NULL && lease_ok(c) && !c->stopping) {
		struct held *m = c->held;
		c->held = m->next;
		c->nheld--;
		dispatch(c, m->h, m->body, m->len);
		free(m->body);
		free(m);
	}
}

/* Every beat: each part's round, in this order. */
static void on_tick(uv_timer_t *t)
{
	struct cluster *c = t->data;
	if (c->stopping)
		return;
	redis_tick(c);
	home_expire_forwards(c);
	owner_drop_stale(c);
	if (!redis_up(c)) {
		c->healthy_since = 0;
		return;
	}
	takeover_beat(c);
	shared_tick(c);
	redis_echo(c);
	remote_resend_due(c);
	takeover_scan(c);
	cevents_tick(c);
}

/* ---- start, recovery, stop ----------------------------------------------------------------- */

int cluster_start(const struct cluster_config *cfg, const struct cluster_layers *ly,
                  struct cluster **out, char *why, size_t len)
{
	*out = NULL;
	struct cluster *c = calloc(1, sizeof *c);
	if (c == NULL) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	if (!cluster_node_valid(cfg->node) ||
	    cluster_parse_redis(cfg->redis, c->host, sizeof c->host, &c->port) < 0) {
		snprintf(why, len,
		         "--cluster wants redis://HOST:PORT and --node 1..%d of "
		         "A-Z a-z 0-9 _ -",
		         CLUSTER_NODE_MAX);
		free(c);
		return -1;
	}
	snprintf(c->name, sizeof c->name, "%s", cfg->node);
	snprintf(c->instance, sizeof c->instance, "%s", cfg->instance);
	c->beat_ms = cfg->beat_ms > 0 ? cfg->beat_ms : CLUSTER_BEAT_MS;
	c->expiry_ms = cfg->expiry_ms > 0 ? cfg->expiry_ms : CLUSTER_EXPIRY_MS;
	c->forward_ms = cfg->forward_ms > 0 ? cfg->forward_ms : CLUSTER_FORWARD_MS;
	c->store = *cfg->store;
	snprintf(c->conninfo, sizeof c->conninfo, "%s",
	         cfg->store->conninfo ? cfg->store->conninfo : "");
	c->store.conninfo = c->conninfo;
	c->store.node = c->instance;
	c->ly = *ly;
	/* once, synchronously: Redis is there, and the name is ours */
	struct timeval tv = {2, 0};
	redisContext *rc = redisConnectWithTimeout(c->host, c->port, tv);
	if (rc == NULL || rc->err) {
		snprintf(why, len, "cannot reach Redis at %s:%d: %s", c->host, c->port,
		         rc ? rc->errstr : "out of memory");
		redisFree(rc);
		free(c);
		return -1;
	}
	bool taken = false;
	for (int waited = 0; waited <= c->expiry_ms + 1000 && !taken; waited += 100) {
		redisReply *r = redisCommand(rc, "SET " KEY("node:%s") " %s NX PX %d", c->name,
		                             c->instance, c->expiry_ms);
		taken = r != NULL && r->type == REDIS_REPLY_STATUS;
		bool failed = r == NULL || r->type == REDIS_REPLY_ERROR;
		freeReplyObject(r);
		if (failed) {
			snprintf(why, len, "Redis at %s:%d: %s", c->host, c->port,
			         rc->err ? rc->errstr : "refused SET");
			redisFree(rc);
			free(c);
			return -1;
		}
		if (!taken)
			usleep(100000);
	}
	if (taken) {
		c->lease_at = cluster_now(c); /* the loop's time, from before the SET: earlier */
		c->lease_renewed = lease_renewed;
		redisReply *r =
		        redisCommand(rc, "HSET " KEY("nodes") " %s %s", c->name, c->instance);
		freeReplyObject(r);
	}
	redisFree(rc);
	if (!taken) {
		snprintf(why, len, "node %s is running elsewhere (its heartbeat is alive)",
		         c->name);
		free(c);
		return -1;
	}
	/* the journal's hooks are called from ours */
	c->inner = c->ly.sess->hooks;
	struct session_hooks h = {.ud = c,
	                          .on_start = owner_on_start,
	                          .on_move = owner_on_move,
	                          .on_end = owner_on_end,
	                          .on_undo = owner_on_undo};
	sessions_set_hooks(c->ly.sess, &h);
	if (c->ly.journal != NULL) { /* a write refused: the game is another node's now */
		c->ly.journal->on_lost = owner_lost;
		c->ly.journal->lost_ud = c;
	}
	c->router = (struct router){.ud = c,
	                            .game = home_route_game,
	                            .seek = home_route_seek,
	                            .shared = shared_route,
	                            .user = home_route_user,
	                            .event = cevents_route};
	c->ly.cmds->router = &c->router;
	struct lobby_hooks lh = {.ud = c,
	                         .on_login = shared_on_login,
	                         .on_claim = shared_on_claim,
	                         .on_logout = shared_on_logout,
	                         .on_seek = shared_on_seek,
	                         .seek_id = shared_seek_id,
	                         .guest = shared_guest,
	                         .name_held = shared_name_held,
	                         .elsewhere = cevents_elsewhere};
	lobby_set_hooks(c->ly.lobby, &lh);
	if (c->ly.tourneys != NULL) { /* the events node tells every node's subscribers */
		c->ly.tourneys->on_tell = cevents_tell;
		c->ly.tourneys->tell_ud = c;
	}
	c->sink = (struct relay_sink){.ud = c, .send = owner_sink_send};
	c->news = (struct redis_news){.reached = takeover_reached,
	                              .lost = home_lost,
	                              .subscriber = remote_subscriber,
	                              .subscribed = home_subscribed,
	                              .inbox = on_inbox_msg,
	                              .game = remote_game_msg,
	                              .lobby = shared_lobby_msg};
	uv_timer_init(c->ly.loop, &c->tick);
	c->tick.data = c;
	uv_timer_init(c->ly.loop, &c->retry);
	c->retry.data = c;
	uv_timer_start(&c->tick, on_tick, 0, (uint64_t)c->beat_ms);
	redis_connect(c);
	*out = c;
	return 0;
}

int cluster_recover(struct cluster *c)
{
	struct store_options o = c->store;
	o.reader = false;
	struct store *db = NULL;
	struct store_game *v = NULL;
	size_t n = 0;
	char from[CLUSTER_NODE_MAX + 3];
	snprintf(from, sizeof from, "%s#*", c->name);
	int r = store_open_opts(&o, &db);
	if (r == STORE_OK)
		r = store_games_claim(db, from, &v, &n);
	if (r < 0) {
		log_error("cluster recovery failed why=%s detail=%s", LOG_Q(store_strerror(r)),
		          LOG_Q(db ? store_last_error(db) : ""));
		store_close(db);
		return r;
	}
	store_close(db);
	int restored = 0;
	for (size_t i = 0; i < n; i++)
		restored += journal_restore(c->ly.journal, &v[i]);
	store_games_free(v, n);
	journal_settle(c->ly.journal, true);
	int e = cevents_claim(c); /* the events, if they are ours, after their games */
	return e < 0 ? e : restored;
}

void cluster_client_gone(struct cluster *c, struct client *cl)
{
	if (c == NULL)
		return;
	if (cl->remote) {
		owner_client_gone(c, cl->conn->id);
		return;
	}
	shared_client_gone(c, cl);
	home_client_gone(c, cl->conn->id);
	remote_client_gone(c, cl->conn->id);
}

void cluster_drain(struct cluster *c, struct client *cl)
{
	if (c == NULL || cl->remote)
		return;
	remote_drain(c, cl);
}

static void on_tick_closed(uv_handle_t *h)
{
	(void)h;
}

void cluster_stop(struct cluster *c)
{
	if (c == NULL || c->stopping)
		return;
	/* our heartbeat goes: the others take our games over at once */
	redis_call(c, NULL, NULL, "EVAL %s 0 %s %s",
	           "if redis.call('GET', 'bitarena:node:' .. ARGV[1]) "
	           "== ARGV[2] then redis.call('DEL', 'bitarena:node:' "
	           ".. ARGV[1]) end return 1",
	           c->name, c->instance);
	c->stopping = true;
	uv_close((uv_handle_t *)&c->tick, on_tick_closed);
	uv_close((uv_handle_t *)&c->retry, on_tick_closed);
	home_retry(&c->retry); /* answered now */
	home_fail_forwards(c, NULL, ERR_CLUSTER_DOWN, "the server is shutting down");
	if (c->pub != NULL)
		redisAsyncDisconnect(c->pub);
	if (c->sub != NULL)
		redisAsyncDisconnect(c->sub);
}

void cluster_register_metrics(struct cluster *c, struct metrics *r)
{
	metric_init(&c->m_forwards, METRIC_COUNTER, "bitarena_cluster_forwards_total",
	            "commands forwarded to the node of their game or seek");
	metric_init(&c->m_takeovers, METRIC_COUNTER, "bitarena_cluster_takeovers_total",
	            "takeovers of a dead node's games done by this node");
	metric_init(&c->m_taken, METRIC_COUNTER, "bitarena_cluster_games_taken_over_total",
	            "games in progress this node took over from dead nodes");
	metrics_register(r, &c->m_forwards);
	metrics_register(r, &c->m_takeovers);
	metrics_register(r, &c->m_taken);
}

void cluster_free(struct cluster *c)
{
	if (c == NULL)
		return;
	drop_held(c);
	remote_clear(c);
	home_clear(c);
	owner_clear(c);
	cevents_clear(c);
	free(c);
}
