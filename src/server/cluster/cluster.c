/*
 * cluster.c - a node of a cluster (see cluster.h and docs/cluster.md):
 * Redis through hiredis on the loop (one connection to publish and command,
 * one to subscribe; both made again by themselves), heartbeats and the
 * death scan, the bus (the inbox, the games' channels, the lobby channel),
 * the router of the dispatcher (commands forwarded to the game's owner and
 * their answers back), the owner's side (relay clients running forwarded
 * lines, relay watchers publishing to the game's channel), spectators fanned
 * out at each node, seeks, presence and the list of games shared, and the
 * takeover of a dead node's games from PostgreSQL.
 *
 * Who is who below: "home" is the node holding a client's connection,
 * "owner" the node running a game. Everything runs on the loop thread but
 * the takeovers' claims (a uv work item with a store connection of its own).
 */
#include "server/cluster/cluster.h"

#include <inttypes.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/adapters/libuv.h>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>

#include "server/cmd/commands.h"
#include "server/records/journal.h"
#include "server/play/identity.h"
#include "server/play/lobby.h"
#include "server/msg/msg.h"
#include "server/cluster/relay.h"
#include "server/play/session.h"
#include "server/store/store_writer.h"

#define KEY(s)          "bitarena:" s
#define OWNER_TTL_MS    600000 /* an ended game's owner is known this long */
#define TAKEOVER_TTL_MS 30000
#define DEAD_TTL_MS     600000
#define CACHE_SLOTS     1024
#define CS_BUCKETS      256
#define NODES_FWD_MAX   8
#define SEEK_TRIES      10 /* a seek not found is looked up this many times, */
#define SEEK_RETRY_MS   20 /* this far apart, before NO_SUCH_SEEK */

/* ---- state ------------------------------------------------------------------------------ */

/* A home's client in a remote game: a player (its seat's output comes by the inbox) or a
 * spectator (fed from the game's channel; pending: its newest state while it is slow). */
struct member {
	uint64_t conn;
	bool player;
	bool json;
	struct outbuf *pending;
};

/* A remote game some of our clients play or watch. */
struct rgame {
	struct rgame *next;
	uint64_t id;
	char owner[CLUSTER_NODE_MAX + 1];
	bool subscribed;  /* the channel's subscription is confirmed */
	bool subscribing; /* asked for */
	bool resend;      /* the owner must be asked for the state again (Y), once it listens */
	bool over;        /* its end (E) came: nothing more to ask for */
	struct member *m;
	size_t n, cap;
	size_t told[2];              /* spectators per format last told to the owner (W) */
	struct pending_fwd *waiting; /* watches waiting for the subscription */
};

/* One of our clients' forward in flight (its input is held until it is answered). */
struct cstate {
	struct cstate *next;
	uint64_t conn;
	char nodes[NODES_FWD_MAX][CLUSTER_NODE_MAX + 1]; /* nodes forwarded to: told when it goes */
	int nnodes;
	uint64_t fwd;      /* the forward in flight (its number), 0: none */
	uint64_t deadline; /* uv_now by which it must be answered */
	char fwd_node[CLUSTER_NODE_MAX + 1];
	struct proto_req rq; /* its tag and verb, for an error in its stead */
	uint64_t game;
	bool watch;  /* a watch: the client becomes a spectator when it is answered */
	bool accept; /* an accept of seek `game` */
	struct outbuf
	        *after; /* that seek's end, told after the accept's answer (as one node does) */
};

/* A forward waiting for a lookup (the game's owner) or a subscription. */
struct pending_fwd {
	struct pending_fwd *next;
	uint64_t conn;
	uint64_t game;
	bool seek; /* game is a seek id */
	bool watch;
	int tries; /* lookups of a seek not found (yet) */
	char *line;
	struct proto_req rq;
};

/* The owner's relay client for (home instance, conn). */
struct rclient {
	struct rclient *next;
	char home[STORE_NODE_MAX + 1];
	uint64_t rconn;
	uint64_t conn; /* the relay connection's id here */
};

/* The owner's relay watcher of a game in one format, and who needs it. */
struct agg {
	struct agg *next;
	uint64_t game;
	bool json;
	uint64_t conn;
};

struct interest {
	struct interest *next;
	uint64_t game;
	char home[STORE_NODE_MAX + 1];
	size_t count[2];
};

struct ocache {
	uint64_t game;
	char node[CLUSTER_NODE_MAX + 1];
};

struct cluster {
	char name[CLUSTER_NODE_MAX + 1];
	char instance[STORE_NODE_MAX + 1];
	char host[256];
	int port;
	int beat_ms, expiry_ms, forward_ms;
	struct store_options store; /* for takeovers: node is the instance */
	char conninfo[1024];
	struct cluster_layers ly;
	struct session_hooks inner; /* the journal's, called first */
	struct router router;

	redisAsyncContext *pub, *sub;
	bool pub_up, sub_up;
	bool inbox_up; /* the inbox's subscription is confirmed: messages to us arrive */
	bool pub_connecting, sub_connecting;
	uint64_t pub_dialed, sub_dialed; /* uv_now when the connection was asked for */
	uv_timer_t tick;
	uint64_t healthy_since; /* the first answered heartbeat after the last trouble */
	uint64_t beat_sent;     /* a heartbeat in flight, sent then (0: none) */
	uint64_t synced_at;     /* the last resync() */
	uint64_t echo_sent;     /* an echo to our own inbox in flight, sent then (0: none) */
	uint64_t sess_epoch;    /* the sessions' epoch our users' rows were last written at */
	bool stopping;
	bool users_dirty, list_dirty;
	bool users_reset; /* the users' hash is written whole (after Redis came back) */
	bool resync;      /* Redis came back: write our live state again, ask for states */
	uint64_t next_fwd;
	unsigned takeovers; /* running */

	struct rgame *rgames;
	struct cstate *cs[CS_BUCKETS];
	struct pending_fwd *lookups;
	struct pending_fwd *retries; /* seeks looked up again at the retry timer */
	uv_timer_t retry;
	struct rclient *rclients;
	struct agg *aggs;
	struct interest *interests;
	struct ocache cache[CACHE_SLOTS];
};

static struct cluster *the_cluster; /* the relay sink's (one cluster per process) */

/* ---- small helpers ------------------------------------------------------------------------ */

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

/* The node's name of an instance ("n1#ab12" -> "n1"). */
static void name_of(const char *instance, char out[CLUSTER_NODE_MAX + 1])
{
	size_t n = strcspn(instance, "#");
	if (n > CLUSTER_NODE_MAX)
		n = CLUSTER_NODE_MAX;
	memcpy(out, instance, n);
	out[n] = '\0';
}

static uint64_t now_ms(struct cluster *c)
{
	return uv_now(c->ly.loop);
}

static void key_lower(const char *name, char *out, size_t size)
{
	size_t i = 0;
	for (; name[i] && i + 1 < size; i++)
		out[i] = (name[i] >= 'A' && name[i] <= 'Z') ? (char)(name[i] - 'A' + 'a') : name[i];
	out[i] = '\0';
}

static struct client *client_by_id(struct cluster *c, uint64_t id)
{
	struct conn *cn = conn_find(c->ly.hub, id);
	return cn != NULL ? client_of(cn) : NULL;
}

/* ---- Redis: commands and publishing ------------------------------------------------------- */

static bool up(const struct cluster *c)
{
	return c->pub_up && c->sub_up && c->inbox_up && !c->stopping;
}

/* A command on the publishing connection; false when Redis is not there. */
static bool rcall(struct cluster *c, redisCallbackFn *fn, void *pd, const char *fmt, ...)
{
	if (!c->pub_up || c->pub == NULL)
		return false;
	va_list ap;
	va_start(ap, fmt);
	int r = redisvAsyncCommand(c->pub, fn, pd, fmt, ap);
	va_end(ap);
	return r == REDIS_OK;
}

/* Publishes header "\n" body on channel; false when it could not be sent. */
static bool publish(struct cluster *c, const char *channel, const char *header, const void *body,
                    size_t blen, redisCallbackFn *fn, void *pd)
{
	size_t hlen = strlen(header);
	char *buf = malloc(hlen + 1 + blen);
	if (buf == NULL)
		return false;
	memcpy(buf, header, hlen);
	buf[hlen] = '\n';
	if (blen > 0)
		memcpy(buf + hlen + 1, body, blen);
	bool ok = rcall(c, fn, pd, "PUBLISH %s %b", channel, buf, hlen + 1 + blen);
	free(buf);
	return ok;
}

/* The channel of node's inbox. */
static void inbox_of(char ch[64], const char *node)
{
	snprintf(ch, 64, KEY("in:%.*s"), CLUSTER_NODE_MAX, node);
}

static void to_node(struct cluster *c, const char *node, const char *header, const void *body,
                    size_t blen)
{
	char ch[64];
	inbox_of(ch, node);
	publish(c, ch, header, body, blen, NULL, NULL);
}

static void to_game(struct cluster *c, uint64_t game, const char *header, const void *body,
                    size_t blen, redisCallbackFn *fn, void *pd)
{
	char ch[64];
	snprintf(ch, sizeof ch, KEY("g:%" PRIu64), game);
	if (!publish(c, ch, header, body, blen, fn, pd) && fn != NULL)
		fn(c->pub, NULL, pd);
}

/* ---- the owner cache ---------------------------------------------------------------------- */

static const char *cache_get(struct cluster *c, uint64_t game)
{
	struct ocache *e = &c->cache[game % CACHE_SLOTS];
	return e->game == game && e->node[0] ? e->node : NULL;
}

static void cache_put(struct cluster *c, uint64_t game, const char *node)
{
	struct ocache *e = &c->cache[game % CACHE_SLOTS];
	e->game = game;
	snprintf(e->node, sizeof e->node, "%.32s", node ? node : "");
}

/* ---- per-client state at home ------------------------------------------------------------- */

static struct cstate *cs_get(struct cluster *c, uint64_t conn, bool make)
{
	struct cstate **pp = &c->cs[conn % CS_BUCKETS];
	for (struct cstate *s = *pp; s != NULL; s = s->next)
		if (s->conn == conn)
			return s;
	if (!make)
		return NULL;
	struct cstate *s = calloc(1, sizeof *s);
	if (s == NULL)
		return NULL;
	s->conn = conn;
	s->next = *pp;
	*pp = s;
	return s;
}

static void cs_drop(struct cluster *c, uint64_t conn)
{
	for (struct cstate **pp = &c->cs[conn % CS_BUCKETS]; *pp != NULL; pp = &(*pp)->next)
		if ((*pp)->conn == conn) {
			struct cstate *s = *pp;
			*pp = s->next;
			outbuf_unref(s->after);
			free(s);
			return;
		}
}

static void cs_note_node(struct cstate *s, const char *node)
{
	for (int i = 0; i < s->nnodes; i++)
		if (strcmp(s->nodes[i], node) == 0)
			return;
	if (s->nnodes < NODES_FWD_MAX)
		snprintf(s->nodes[s->nnodes++], sizeof s->nodes[0], "%s", node);
}

/* ---- remote games at home ----------------------------------------------------------------- */

static struct rgame *rg_find(struct cluster *c, uint64_t id)
{
	for (struct rgame *g = c->rgames; g != NULL; g = g->next)
		if (g->id == id)
			return g;
	return NULL;
}

static void rg_subscribe(struct cluster *c, struct rgame *g);
static void reached(struct cluster *c);
static void flush_live(struct cluster *c);

static struct rgame *rg_get(struct cluster *c, uint64_t id, const char *owner)
{
	struct rgame *g = rg_find(c, id);
	if (g == NULL) {
		g = calloc(1, sizeof *g);
		if (g == NULL)
			return NULL;
		g->id = id;
		g->next = c->rgames;
		c->rgames = g;
	}
	if (owner != NULL)
		snprintf(g->owner, sizeof g->owner, "%s", owner);
	if (!g->subscribing)
		rg_subscribe(c, g);
	return g;
}

static struct member *rg_member(struct rgame *g, uint64_t conn)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->m[i].conn == conn)
			return &g->m[i];
	return NULL;
}

static bool rg_add(struct rgame *g, uint64_t conn, bool player, bool json)
{
	struct member *m = rg_member(g, conn);
	if (m != NULL) {
		m->player = m->player || player;
		m->json = json;
		return true;
	}
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 4;
		struct member *v = realloc(g->m, cap * sizeof *v);
		if (v == NULL)
			return false;
		g->m = v;
		g->cap = cap;
	}
	g->m[g->n++] = (struct member){.conn = conn, .player = player, .json = json};
	return true;
}

/* Tells the owner how many spectators of g we have per format, when that changed. */
static void rg_tell_counts(struct cluster *c, struct rgame *g)
{
	size_t n[2] = {0, 0};
	for (size_t i = 0; i < g->n; i++)
		if (!g->m[i].player)
			n[g->m[i].json]++;
	for (int k = 0; k < 2; k++) {
		if (n[k] == g->told[k] || g->owner[0] == '\0')
			continue;
		char h[160];
		snprintf(h, sizeof h, "W %s %" PRIu64 " %c %zu", c->instance, g->id, k ? 'j' : 't',
		         n[k]);
		to_node(c, g->owner, h, NULL, 0);
		g->told[k] = n[k];
	}
}

static void on_resent(redisAsyncContext *ac, void *r, void *pd)
{
	(void)ac;
	struct cluster *c = the_cluster;
	redisReply *rep = r;
	if (c == NULL || (rep != NULL && rep->type == REDIS_REPLY_INTEGER && rep->integer > 0))
		return;
	struct rgame *g = rg_find(c, (uint64_t)(uintptr_t)pd);
	if (g != NULL) /* the owner was not listening yet: asked again at the next tick */
		g->resend = true;
}

/*
 * After an outage (messages to and from the owner may have been lost): tells
 * the owner our spectators of g per format and asks for the current state,
 * in one message (Y), again at every tick until the owner got it.
 */
static void rg_resend(struct cluster *c, struct rgame *g)
{
	if (g->over) {
		g->resend = false;
		return;
	}
	if (g->owner[0] == '\0' || !g->subscribed || !up(c))
		return;
	size_t n[2] = {0, 0};
	for (size_t i = 0; i < g->n; i++)
		if (!g->m[i].player)
			n[g->m[i].json]++;
	char h[200], ch[64];
	snprintf(h, sizeof h, "Y %s %" PRIu64 " %zu %zu", c->instance, g->id, n[0], n[1]);
	inbox_of(ch, g->owner);
	g->resend = false;
	if (!publish(c, ch, h, NULL, 0, on_resent, (void *)(uintptr_t)g->id))
		g->resend = true;
	else
		g->told[0] = n[0], g->told[1] = n[1];
}

static void pending_free(struct pending_fwd *p)
{
	free(p->line);
	free(p);
}

/* Frees g and what it holds (queued states, forwards waiting); g is unlinked already. */
static void rg_destroy(struct rgame *g)
{
	for (size_t i = 0; i < g->n; i++)
		outbuf_unref(g->m[i].pending);
	while (g->waiting != NULL) {
		struct pending_fwd *p = g->waiting;
		g->waiting = p->next;
		pending_free(p);
	}
	free(g->m);
	free(g);
}

static void rg_free(struct cluster *c, struct rgame *g)
{
	for (struct rgame **pp = &c->rgames; *pp != NULL; pp = &(*pp)->next)
		if (*pp == g) {
			*pp = g->next;
			break;
		}
	if (g->subscribing && c->sub_up && c->sub != NULL)
		redisAsyncCommand(c->sub, NULL, NULL, "UNSUBSCRIBE " KEY("g:%" PRIu64), g->id);
	rg_destroy(g);
}

/* Drops client conn from g (its spectators told to the owner); g goes when nobody is left. */
static void rg_leave(struct cluster *c, struct rgame *g, uint64_t conn)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->m[i].conn == conn) {
			outbuf_unref(g->m[i].pending);
			g->m[i] = g->m[--g->n];
			break;
		}
	rg_tell_counts(c, g);
	c->users_dirty = true;
	if (g->n == 0 && g->waiting == NULL)
		rg_free(c, g);
}

/* ---- forwarding (home) -------------------------------------------------------------------- */

/* The command line of rq as the client sent it (the verb as the table spells it). */
static char *line_of(const struct proto_req *rq)
{
	char *s = rq->tagged ? xasprintf("#%s %s", rq->tag, rq->cmd->name)
	                     : xasprintf("%s", rq->cmd->name);
	for (int i = 0; i < rq->argc && s != NULL; i++)
		xappend(&s, " %s", rq->argv[i]);
	return s;
}

/* The reply's parts of rq (tag, verb), without the arguments that point into its line. */
static struct proto_req rq_keep(const struct proto_req *rq)
{
	struct proto_req k = *rq;
	k.argc = 0;
	memset(k.argv, 0, sizeof k.argv);
	return k;
}

/* Identity flags of a client, as C and R carry them. */
static void identity(const struct client *cl, bool watching, char *flags, size_t size)
{
	snprintf(flags, size, "%s%s%s%s%s", cl->json ? "j" : "", cl->registered ? "r" : "",
	         watching ? "w" : "", cl->logged_in ? "l" : "", cl->want_watchers ? "v" : "");
	if (flags[0] == '\0')
		snprintf(flags, size, "-");
}

/*
 * The token a client's home sends with its identity (C, R): a logged-in guest's, which the
 * owner's relay client keeps, so that the owner checks a guest's seats against it as it does
 * for its own clients (session_login); "-" for anyone else. The bus is the cluster's own.
 */
static const char *token_of(const struct client *cl)
{
	return cl->logged_in && !cl->registered && strlen(cl->token) == PROTO_TOKEN_LEN ? cl->token
	                                                                                : "-";
}

static void release(struct cluster *c, struct cstate *s)
{
	s->fwd = 0;
	struct client *cl = client_by_id(c, s->conn);
	if (cl != NULL && s->after != NULL)
		client_send(cl, s->after);
	outbuf_unref(s->after);
	s->after = NULL;
	if (cl != NULL)
		conn_release(cl->conn);
}

/* A forward on its way: (client, forward number). */
struct fwd_ref {
	uint64_t conn, fwd;
};

/*
 * PUBLISH's answer to a forward: nobody got it when the node is not
 * subscribed to its inbox (it is reconnecting to Redis after an outage, or
 * it is gone): the command was not run, and the client is told at once
 * rather than after the forward's deadline.
 */
static void on_fwd_sent(redisAsyncContext *ac, void *r, void *pd)
{
	(void)ac;
	struct fwd_ref ref = *(struct fwd_ref *)pd;
	free(pd);
	struct cluster *c = the_cluster;
	redisReply *rep = r;
	if (c == NULL || rep == NULL || rep->type != REDIS_REPLY_INTEGER || rep->integer > 0)
		return; /* delivered, or Redis went away (every forward is failed then) */
	struct cstate *s = cs_get(c, ref.conn, false);
	if (s == NULL || s->fwd != ref.fwd)
		return;
	struct client *cl = client_by_id(c, s->conn);
	if (cl != NULL)
		reply_err(cl, &s->rq, ERR_CLUSTER_DOWN,
		          "node %s, which runs it, is not on the cluster's bus right now "
		          "(reconnecting to Redis, or gone: then another node takes its games "
		          "over within seconds); nothing was done: try again shortly",
		          s->fwd_node);
	release(c, s);
}

/* Sends the line to node for client cl; its input waits for the answer. */
static void forward(struct cluster *c, struct client *cl, const struct proto_req *rq,
                    const char *line, const char *node, uint64_t game, bool watch)
{
	struct cstate *s = cs_get(c, cl->conn->id, true);
	if (s == NULL) {
		reply_oom(cl, rq);
		return;
	}
	bool watching = false;
	struct rgame *g = rg_find(c, game);
	if (g != NULL) {
		struct member *m = rg_member(g, cl->conn->id);
		watching = m != NULL && !m->player;
	}
	char flags[16], h[256];
	identity(cl, watching, flags, sizeof flags);
	s->fwd = ++c->next_fwd;
	s->deadline = now_ms(c) + (uint64_t)c->forward_ms;
	snprintf(s->fwd_node, sizeof s->fwd_node, "%s", node);
	s->rq = rq_keep(rq);
	s->game = game;
	s->watch = watch;
	s->accept = strcmp(rq->cmd->name, "accept") == 0;
	cs_note_node(s, node);
	snprintf(h, sizeof h, "C %s %" PRIu64 " %" PRIu64 " %s %" PRId64 " %s %s", c->instance,
	         cl->conn->id, s->fwd, flags, cl->rtt.known ? cl->rtt.ms : (int64_t)-1,
	         cl->logged_in ? cl->name : "-", token_of(cl));
	struct fwd_ref *ref = malloc(sizeof *ref);
	char ch[64];
	inbox_of(ch, node);
	if (ref != NULL) {
		*ref = (struct fwd_ref){.conn = cl->conn->id, .fwd = s->fwd};
		if (!publish(c, ch, h, line, strlen(line), on_fwd_sent, ref))
			free(ref);
	} else {
		publish(c, ch, h, line, strlen(line), NULL, NULL);
	}
	conn_hold(cl->conn);
}

static void answer_down(struct client *cl, const struct proto_req *rq)
{
	reply_err(cl, rq, ERR_CLUSTER_DOWN,
	          "the cluster's bus (Redis) cannot be reached; this node's own games go on; "
	          "try again shortly");
}

/* A forward whose owner (or subscription) is known now: sent, or answered. */
static void pending_go(struct cluster *c, struct pending_fwd *p, const char *owner)
{
	struct client *cl = client_by_id(c, p->conn);
	if (cl == NULL) {
		pending_free(p);
		return;
	}
	conn_release(cl->conn); /* held while looking up */
	if (!up(c)) {
		answer_down(cl, &p->rq);
		pending_free(p);
		return;
	}
	if (owner == NULL || owner[0] == '\0') {
		if (p->seek)
			reply_no_seek(cl, &p->rq, p->game);
		else
			reply_no_game(cl, &p->rq, p->game);
		pending_free(p);
		return;
	}
	if (strcmp(owner, c->name) == 0) { /* ours, yet not here: gone since */
		if (p->seek)
			reply_no_seek(cl, &p->rq, p->game);
		else
			reply_no_game(cl, &p->rq, p->game);
		pending_free(p);
		return;
	}
	if (!p->seek)
		cache_put(c, p->game, owner);
	if (p->watch) {
		struct rgame *g = rg_get(c, p->game, owner);
		if (g != NULL && !g->subscribed) { /* sent once the subscription is confirmed */
			conn_hold(cl->conn);
			p->next = g->waiting;
			g->waiting = p;
			return;
		}
	}
	forward(c, cl, &p->rq, p->line, owner, p->game, p->watch);
	pending_free(p);
}

static void on_retry(uv_timer_t *t);

static void on_lookup(redisAsyncContext *ac, void *r, void *pd)
{
	(void)ac;
	struct pending_fwd *p = pd;
	struct cluster *c = the_cluster;
	for (struct pending_fwd **pp = &c->lookups; *pp != NULL; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	redisReply *rep = r;
	char owner[CLUSTER_NODE_MAX + 1] = "";
	if (rep != NULL && rep->type == REDIS_REPLY_STRING)
		snprintf(owner, sizeof owner, "%.*s", (int)rep->len, rep->str);
	bool answered = rep != NULL;
	if (answered && owner[0] == '\0' && p->seek && ++p->tries < SEEK_TRIES && !c->stopping) {
		/* its id may have reached the client before its node's HSET reached Redis (a bot
		   on another node accepting at once): looked up again shortly, the client held */
		p->next = c->retries;
		c->retries = p;
		uv_timer_start(&c->retry, on_retry, SEEK_RETRY_MS, 0);
		return;
	}
	if (!answered) { /* Redis went away meanwhile */
		struct client *cl = client_by_id(c, p->conn);
		if (cl != NULL) {
			conn_release(cl->conn);
			answer_down(cl, &p->rq);
		}
		pending_free(p);
		return;
	}
	pending_go(c, p, owner); /* p is freed, or queued on its game */
}

/* The node of a live node's seek (or nil). */
static const char SEEK_NODE[] =
        "local h = redis.call('HGETALL', 'bitarena:nodes') "
        "for i = 1, #h, 2 do "
        "  if redis.call('GET', 'bitarena:node:' .. h[i]) == h[i + 1] and "
        "     redis.call('HEXISTS', 'bitarena:seeks:' .. h[i], ARGV[1]) == 1 then "
        "    return h[i] "
        "  end "
        "end "
        "return false";

/* Asks Redis for p's owner (or its seek's node); false when Redis is not there. */
static bool lookup_send(struct cluster *c, struct pending_fwd *p)
{
	bool sent = p->seek ? rcall(c, on_lookup, p, "EVAL %s 0 %" PRIu64, SEEK_NODE, p->game)
	                    : rcall(c, on_lookup, p, "GET " KEY("owner:%" PRIu64), p->game);
	if (sent) {
		p->next = c->lookups;
		c->lookups = p;
	}
	return sent;
}

static void on_retry(uv_timer_t *t)
{
	struct cluster *c = t->data;
	struct pending_fwd *list = c->retries;
	c->retries = NULL;
	while (list != NULL) {
		struct pending_fwd *p = list;
		list = p->next;
		if (c->stopping || !lookup_send(c, p)) {
			struct client *cl = client_by_id(c, p->conn);
			if (cl != NULL) {
				conn_release(cl->conn);
				answer_down(cl, &p->rq);
			}
			pending_free(p);
		}
	}
}

/* Looks the owner (or the seek's node) up, the client held meanwhile. */
static bool lookup(struct cluster *c, struct cmd *x, uint64_t id, bool seek, bool watch)
{
	struct pending_fwd *p = calloc(1, sizeof *p);
	char *line = p != NULL ? line_of(x->rq) : NULL;
	if (line == NULL) {
		free(p);
		reply_oom(x->cl, x->rq);
		return true;
	}
	p->conn = x->cl->conn->id;
	p->game = id;
	p->seek = seek;
	p->watch = watch;
	p->line = line;
	p->rq = rq_keep(x->rq);
	if (!lookup_send(c, p)) {
		pending_free(p);
		answer_down(x->cl, x->rq);
		return true;
	}
	conn_hold(x->cl->conn);
	return true;
}

/* The dispatcher's router: a game not in our memory. */
static bool route_game(void *ud, struct cmd *x)
{
	struct cluster *c = ud;
	struct client *cl = x->cl;
	if (cl->remote) /* a line forwarded to us is never forwarded again */
		return false;
	const char *verb = x->rq->cmd->name;
	bool watch = strcmp(verb, "watch") == 0;
	struct rgame *g = rg_find(c, x->id);
	if (strcmp(verb, "unwatch") == 0 && g != NULL) {
		struct member *m = rg_member(g, cl->conn->id);
		if (m != NULL && !m->player) {
			rg_leave(c, g, cl->conn->id);
			cJSON *f = cJSON_CreateObject();
			cJSON_AddNumberToObject(f, "game", (double)x->id);
			reply_ok(cl, x->rq, f, NULL, "no longer watching game %" PRIu64, x->id);
			return true;
		}
	}
	if (!up(c)) {
		answer_down(cl, x->rq);
		return true;
	}
	const char *owner = cache_get(c, x->id);
	if (owner == NULL && g != NULL && g->owner[0])
		owner = g->owner;
	if (owner == NULL || strcmp(owner, c->name) == 0)
		return lookup(c, x, x->id, false, watch);
	if (watch && (g == NULL || !g->subscribed))
		return lookup(c, x, x->id, false, watch); /* subscribes first */
	char *line = line_of(x->rq);
	if (line == NULL) {
		reply_oom(cl, x->rq);
		return true;
	}
	forward(c, cl, x->rq, line, owner, x->id, watch);
	free(line);
	return true;
}

static bool route_seek(void *ud, struct cmd *x, uint64_t id)
{
	struct cluster *c = ud;
	if (x->cl->remote)
		return false;
	if (!up(c)) {
		answer_down(x->cl, x->rq);
		return true;
	}
	return lookup(c, x, id, true, false);
}

/* ---- the owner's side: relay clients ------------------------------------------------------ */

static struct rclient *rc_find(struct cluster *c, const char *home, uint64_t rconn)
{
	for (struct rclient *r = c->rclients; r != NULL; r = r->next)
		if (r->rconn == rconn && strcmp(r->home, home) == 0)
			return r;
	return NULL;
}

static void rc_forget(struct cluster *c, uint64_t conn)
{
	for (struct rclient **pp = &c->rclients; *pp != NULL; pp = &(*pp)->next)
		if ((*pp)->conn == conn) {
			struct rclient *r = *pp;
			*pp = r->next;
			free(r);
			return;
		}
}

/*
 * The relay client standing for (home, rconn), made on first use, with its identity: a
 * guest's token as its home sent it ("-": none), which its seats here are checked against.
 */
static struct client *rc_get(struct cluster *c, const char *home, uint64_t rconn, const char *flags,
                             int64_t rtt, const char *name, const char *token)
{
	struct rclient *r = rc_find(c, home, rconn);
	struct client *cl = r != NULL ? client_by_id(c, r->conn) : NULL;
	if (cl == NULL) {
		if (r != NULL)
			rc_forget(c, r->conn);
		struct relay_id id = {.kind = RELAY_CLIENT, .conn = rconn};
		snprintf(id.home, sizeof id.home, "%s", home);
		cl = relay_open(c->ly.hub, &id);
		r = cl != NULL ? calloc(1, sizeof *r) : NULL;
		if (r == NULL) {
			if (cl != NULL)
				client_close(cl, false);
			return NULL;
		}
		snprintf(r->home, sizeof r->home, "%s", home);
		r->rconn = rconn;
		r->conn = cl->conn->id;
		r->next = c->rclients;
		c->rclients = r;
	}
	cl->json = strchr(flags, 'j') != NULL;
	cl->want_watchers = strchr(flags, 'v') != NULL;
	bool logged = strchr(flags, 'l') != NULL && strcmp(name, "-") != 0;
	if (logged && !cl->logged_in) { /* who it is never changes afterwards */
		snprintf(cl->name, sizeof cl->name, "%s", name);
		cl->logged_in = true;
		cl->registered = strchr(flags, 'r') != NULL;
	}
	if (logged && !cl->registered && strcasecmp(cl->name, name) == 0 &&
	    strlen(token) == PROTO_TOKEN_LEN) /* the guest's, as its home has it now */
		snprintf(cl->token, sizeof cl->token, "%s", token);
	if (rtt >= 0) {
		cl->rtt.known = true;
		cl->rtt.ms = rtt;
	}
	return cl;
}

/* "D": through the relay client's own output, so it leaves after the reply. */
static void send_done(struct client *cl, uint64_t n)
{
	char buf[40];
	int len = snprintf(buf, sizeof buf, "%cD %" PRIu64, '\0', n);
	struct outbuf *b = outbuf_new(buf, (size_t)len);
	client_send(cl, b);
	outbuf_unref(b);
}

static struct agg *agg_find(struct cluster *c, uint64_t game, bool json)
{
	for (struct agg *a = c->aggs; a != NULL; a = a->next)
		if (a->game == game && a->json == json)
			return a;
	return NULL;
}

/* A relay watcher of g in that format, watching it without a word (it will hear the next). */
static void agg_ensure(struct cluster *c, struct game *g, bool json)
{
	struct agg *a = agg_find(c, g->id, json);
	if (a != NULL && client_by_id(c, a->conn) != NULL)
		return;
	struct relay_id id = {.kind = RELAY_WATCHER, .game = g->id, .json = json};
	struct client *cl = relay_open(c->ly.hub, &id);
	if (cl == NULL)
		return;
	cl->json = json;
	if (a == NULL) {
		a = calloc(1, sizeof *a);
		if (a == NULL) {
			client_close(cl, false);
			return;
		}
		a->game = g->id;
		a->json = json;
		a->next = c->aggs;
		c->aggs = a;
	}
	a->conn = cl->conn->id;
	struct proto_req rq = {.cmd = proto_find(&commands_table, "watch")};
	relay_mute(cl->conn, true);
	session_watch(cl, &rq, g, -1);
	relay_mute(cl->conn, false);
}

static void agg_drop(struct cluster *c, struct agg *a)
{
	for (struct agg **pp = &c->aggs; *pp != NULL; pp = &(*pp)->next)
		if (*pp == a) {
			*pp = a->next;
			break;
		}
	struct client *cl = client_by_id(c, a->conn);
	if (cl != NULL)
		client_close(cl, false);
	free(a);
}

/* The remote spectators of game in one format, over every home. */
static size_t interest_total(struct cluster *c, uint64_t game, bool json)
{
	size_t n = 0;
	for (struct interest *i = c->interests; i != NULL; i = i->next)
		if (i->game == game)
			n += i->count[json];
	return n;
}

/* g's count of spectators: every node's, not one per relay watcher. */
static void count_remote(struct cluster *c, uint64_t game)
{
	struct game *g = session_find(c->ly.sess, game);
	if (g == NULL)
		return;
	int64_t extra = 0;
	for (int k = 0; k < 2; k++)
		if (agg_find(c, game, k) != NULL)
			extra += (int64_t)interest_total(c, game, k) - 1;
	if (extra != g->nw_extra) {
		g->nw_extra = extra;
		watch_count_changed(g);
		c->list_dirty = true;
	}
}

static void interest_set(struct cluster *c, const char *home, uint64_t game, bool json,
                         size_t count)
{
	struct interest *it = NULL;
	for (struct interest *i = c->interests; i != NULL; i = i->next)
		if (i->game == game && strcmp(i->home, home) == 0)
			it = i;
	if (it == NULL && count > 0) {
		it = calloc(1, sizeof *it);
		if (it == NULL)
			return;
		it->game = game;
		snprintf(it->home, sizeof it->home, "%s", home);
		it->next = c->interests;
		c->interests = it;
	}
	if (it != NULL)
		it->count[json] = count;
	struct game *g = session_find(c->ly.sess, game);
	if (count > 0 && g != NULL)
		agg_ensure(c, g, json);
	struct agg *a = agg_find(c, game, json);
	if (a != NULL && interest_total(c, game, json) == 0)
		agg_drop(c, a);
	count_remote(c, game);
}

/* Runs a line forwarded to us (C). */
static void run_forwarded(struct cluster *c, const char *home, uint64_t rconn, uint64_t n,
                          const char *flags, int64_t rtt, const char *name, const char *token,
                          char *line, size_t len)
{
	struct client *cl = rc_get(c, home, rconn, flags, rtt, name, token);
	if (cl == NULL)
		return;
	char copy[FRAME_MAX + 1];
	snprintf(copy, sizeof copy, "%.*s", (int)len, line);
	struct proto_req rq;
	bool parsed = proto_parse(copy, &commands_table, &rq) == PROTO_OK;
	uint64_t id = 0;
	struct game *g = NULL;
	if (parsed && rq.argc > 0 && proto_parse_id(rq.argv[0], &id))
		g = session_find(c->ly.sess, id);
	const char *verb = parsed ? rq.cmd->name : "";
	if (g != NULL && strcmp(verb, "say") == 0 && strchr(flags, 'w') != NULL && rq.argc == 2) {
		session_say(cl, &rq, g, rq.argv[1]); /* the home checked that it watches */
	} else {
		commands_line(c->ly.cmds, cl, line, len);
		if (g != NULL && strcmp(verb, "watch") == 0 && session_seat_of(g, cl) < 0 &&
		    watch_drop(g, cl))
			agg_ensure(c, g,
			           cl->json); /* it hears the game through the node's watcher */
	}
	if (client_alive(cl))
		send_done(cl, n);
}

/*
 * R: the client logged in at its home; its seats here come back to its relay client: a
 * guest's only with the token R brought (session_login checks it against the seat's hash).
 */
static void resume_remote(struct cluster *c, const char *home, uint64_t rconn, const char *flags,
                          int64_t rtt, const char *name, const char *token)
{
	bool any = false;
	for (struct game *g = c->ly.sess->games; g != NULL && !any; g = g->next)
		for (int i = 0; i < g->ops->nplayers && !g->over && !g->freeing; i++)
			if (g->pl[i].c == NULL && strcasecmp(g->pl[i].name, name) == 0)
				any = true;
	if (!any)
		return;
	struct client *cl = rc_get(c, home, rconn, flags, rtt, name, token);
	if (cl == NULL)
		return;
	cJSON *resumed = cJSON_CreateArray();
	session_login(c->ly.sess, cl, resumed);
	char hn[CLUSTER_NODE_MAX + 1];
	name_of(home, hn);
	for (int i = 0; i < cJSON_GetArraySize(resumed); i++) {
		char h[96];
		snprintf(h, sizeof h, "P %s %" PRIu64 " %.0f", c->name, rconn,
		         cJSON_GetArrayItem(resumed, i)->valuedouble);
		to_node(c, hn, h, NULL, 0);
	}
	if (cJSON_GetArraySize(resumed) > 0)
		c->list_dirty = true; /* a seat without a token took the guest's (seats:) */
	cJSON_Delete(resumed);
	session_resume_send(c->ly.sess, cl);
}

/* Y: the home lost messages; its players and spectators of game get the state again. */
static void resend(struct cluster *c, const char *home, uint64_t game)
{
	struct game *g = session_find(c->ly.sess, game);
	if (g == NULL)
		return;
	struct snapshot *sn = watch_current(g);
	if (sn == NULL)
		return;
	for (int i = 0; i < g->ops->nplayers; i++) {
		struct client *cl = g->pl[i].c;
		const struct relay_id *id = cl != NULL ? relay_id_of(cl->conn) : NULL;
		if (id != NULL && id->kind == RELAY_CLIENT && strcmp(id->home, home) == 0)
			watch_send_state(g, sn, cl, i);
	}
	for (int k = 0; k < 2; k++) {
		struct agg *a = agg_find(c, game, k);
		struct client *cl = a != NULL ? client_by_id(c, a->conn) : NULL;
		if (cl != NULL)
			watch_send_state(g, sn, cl, -1);
	}
}

/* K: the account logged in on another node; its connection here closes. */
static void kick(struct cluster *c, const char *name, const char *where)
{
	struct client *old = lobby_find_user(c->ly.lobby, name);
	if (old == NULL || !old->registered)
		return;
	send_info(old, ERR_SESSION_TAKEN,
	          "%s logged in from elsewhere (node %s); this connection closes", name, where);
	client_close(old, true);
}

/* X: a client of home is gone: its relay client here closes (its seats wait). */
static void remote_gone(struct cluster *c, const char *home, uint64_t rconn)
{
	struct rclient *r = rc_find(c, home, rconn);
	if (r == NULL)
		return;
	struct client *cl = client_by_id(c, r->conn);
	rc_forget(c, r->conn);
	if (cl != NULL)
		client_close(cl, false);
}

/* ---- the relay sink: what relay clients and watchers send ----------------------------------- */

struct sent {
	uint64_t conn;
	size_t len;
};

static void on_sent(redisAsyncContext *ac, void *r, void *pd)
{
	(void)ac;
	(void)r;
	struct sent *s = pd;
	struct cluster *c = the_cluster;
	struct conn *cn = c != NULL ? conn_find(c->ly.hub, s->conn) : NULL;
	if (cn != NULL && relay_is(cn))
		relay_sent(cn, s->len);
	free(s);
}

/* True when b is the spectator view of g's current state (so the homes may coalesce it). */
static bool is_state(struct cluster *c, uint64_t game, bool json, const struct outbuf *b)
{
	struct game *g = session_find(c->ly.sess, game);
	return g != NULL && g->snap != NULL && g->snap->out[json][0] == b;
}

static bool sink_send(void *ud, struct conn *cn, const struct relay_id *id, const struct outbuf *b)
{
	struct cluster *c = ud;
	if (!c->pub_up)
		return false;
	struct sent *s = malloc(sizeof *s);
	if (s == NULL)
		return false;
	s->conn = cn->id;
	s->len = b->len;
	char h[160], ch[64];
	bool ok;
	if (id->kind == RELAY_CLIENT) {
		char hn[CLUSTER_NODE_MAX + 1];
		name_of(id->home, hn);
		inbox_of(ch, hn);
		if (b->len > 0 && b->data[0] == '\0') /* send_done()'s marker */
			snprintf(h, sizeof h, "%s %" PRIu64, b->data + 1, id->conn);
		else
			snprintf(h, sizeof h, "O %" PRIu64, id->conn);
		bool marker = b->len > 0 && b->data[0] == '\0';
		if (marker) { /* "D <n>" becomes "D <conn> <n>" */
			uint64_t n = strtoull(b->data + 3, NULL, 10);
			snprintf(h, sizeof h, "D %" PRIu64 " %" PRIu64, id->conn, n);
		}
		ok = publish(c, ch, h, marker ? NULL : b->data, marker ? 0 : b->len, on_sent, s);
	} else {
		snprintf(ch, sizeof ch, KEY("g:%" PRIu64), id->game);
		snprintf(h, sizeof h, "%c %c", is_state(c, id->game, id->json, b) ? 'S' : 'M',
		         id->json ? 'j' : 't');
		ok = publish(c, ch, h, b->data, b->len, on_sent, s);
	}
	if (!ok)
		free(s);
	return ok;
}

/* ---- messages at home: output, answers, the game channels ---------------------------------- */

static void deliver_out(struct cluster *c, uint64_t conn, const char *body, size_t len)
{
	struct client *cl = client_by_id(c, conn);
	if (cl == NULL || len == 0)
		return;
	struct outbuf *b = outbuf_new(body, len);
	client_send(cl, b);
	outbuf_unref(b);
	struct cstate *s = cs_get(c, conn, false);
	if (s != NULL && s->fwd != 0 && s->after != NULL) {
		/* the accept's answer is out: the seek's end follows it, as on one node */
		client_send(cl, s->after);
		outbuf_unref(s->after);
		s->after = NULL;
	}
}

static void answered(struct cluster *c, uint64_t conn, uint64_t n)
{
	struct cstate *s = cs_get(c, conn, false);
	if (s == NULL || s->fwd != n)
		return;
	struct client *cl = client_by_id(c, conn);
	if (s->watch && cl != NULL) {
		struct rgame *g = rg_get(c, s->game, s->fwd_node);
		if (g != NULL) {
			/* a spectator now, unless it plays there (then it hears its seat's output)
			 */
			if (rg_member(g, conn) == NULL)
				rg_add(g, conn, false, cl->json);
			rg_tell_counts(c, g);
			c->users_dirty = true;
		}
	}
	release(c, s);
}

/* P: our client plays game (owned by owner). */
static void plays(struct cluster *c, const char *owner, uint64_t conn, uint64_t game)
{
	struct client *cl = client_by_id(c, conn);
	if (cl == NULL)
		return;
	cache_put(c, game, owner);
	struct rgame *g = rg_get(c, game, owner);
	if (g == NULL)
		return;
	struct member *m = rg_member(g, conn);
	if (m != NULL && !m->player) { /* it watched: it plays now */
		m->player = true;
		rg_tell_counts(c, g);
	} else if (m == NULL) {
		rg_add(g, conn, true, cl->json);
	}
	c->users_dirty = true;
}

static void member_send(struct cluster *c, struct member *m, bool state, const char *body,
                        size_t len)
{
	struct client *cl = client_by_id(c, m->conn);
	if (cl == NULL)
		return;
	if (state && client_slow(cl)) { /* only the newest state waits for a slow spectator */
		outbuf_unref(m->pending);
		m->pending = outbuf_new(body, len);
		return;
	}
	if (m->pending != NULL) {
		client_send(cl, m->pending);
		outbuf_unref(m->pending);
		m->pending = NULL;
	}
	struct outbuf *b = outbuf_new(body, len);
	client_send(cl, b);
	outbuf_unref(b);
}

/* The game moved to us: its players and spectators here are ours, as any local ones. */
static void moved_here(struct cluster *c, struct rgame *rg)
{
	struct game *g = session_find(c->ly.sess, rg->id);
	for (size_t i = 0; g != NULL && i < rg->n; i++) {
		struct client *cl = client_by_id(c, rg->m[i].conn);
		if (cl == NULL)
			continue;
		if (rg->m[i].player) {
			cJSON *resumed = cJSON_CreateArray();
			session_login(c->ly.sess, cl, resumed);
			cJSON_Delete(resumed);
			session_resume_send(c->ly.sess, cl);
		} else if (watch_add(g, cl)) {
			struct snapshot *sn = watch_current(g);
			if (sn != NULL)
				watch_send_state(g, sn, cl, -1);
		}
	}
	if (g != NULL)
		watch_count_changed(g);
	rg_free(c, rg);
}

/* V: the game moved (takeover); our players get their seats there, our spectators watch there. */
static void moved(struct cluster *c, struct rgame *g, const char *owner)
{
	if (strcmp(g->owner, owner) == 0)
		return;
	snprintf(g->owner, sizeof g->owner, "%s", owner);
	cache_put(c, g->id, owner);
	g->told[0] = g->told[1] = 0;
	for (size_t i = 0; i < g->n; i++) {
		struct client *cl = client_by_id(c, g->m[i].conn);
		if (cl == NULL)
			continue;
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "type", "info");
		cJSON_AddNumberToObject(j, "game", (double)g->id);
		cJSON_AddStringToObject(j, "event", "moved");
		char *t = xasprintf("game %" PRIu64 " now runs on node %s (its node went away)",
		                    g->id, owner);
		cJSON_AddStringToObject(j, "message", t ? t : "");
		send_msg(cl, j, xasprintf("info game %" PRIu64 ": %s", g->id, t ? t : ""));
		free(t);
		if (g->m[i].player && strcmp(owner, c->name) != 0) {
			char flags[16], h[256];
			identity(cl, false, flags, sizeof flags);
			snprintf(h, sizeof h, "R %s %" PRIu64 " %s %" PRId64 " %s %s", c->instance,
			         cl->conn->id, flags, cl->rtt.known ? cl->rtt.ms : (int64_t)-1,
			         cl->name, token_of(cl));
			to_node(c, owner, h, NULL, 0);
		}
	}
	if (strcmp(owner, c->name) == 0) {
		moved_here(c, g);
		return;
	}
	g->resend = true; /* our spectators, and the state */
	rg_resend(c, g);
}

static void on_game_msg(struct cluster *c, uint64_t id, const char *h, const char *body, size_t len)
{
	struct rgame *g = rg_find(c, id);
	if (g == NULL)
		return;
	if (h[0] == 'V') {
		char owner[CLUSTER_NODE_MAX + 1];
		if (sscanf(h, "V %32s", owner) == 1)
			moved(c, g, owner);
		return;
	}
	if (h[0] == 'E') {
		g->over = true;
		g->resend = false;
		c->users_dirty = true; /* its players play it no more */
		return;
	}
	if ((h[0] != 'S' && h[0] != 'M') || strlen(h) < 3)
		return;
	bool json = h[2] == 'j', state = h[0] == 'S';
	for (size_t i = 0; i < g->n; i++)
		if (!g->m[i].player && g->m[i].json == json)
			member_send(c, &g->m[i], state, body, len);
}

/* N/G on the lobby channel: a seek of another node, told to our users. */
static void on_lobby_msg(struct cluster *c, const char *h, const char *body, size_t len)
{
	char node[CLUSTER_NODE_MAX + 1];
	if (sscanf(h, "%*c %32s", node) != 1 || strcmp(node, c->name) == 0)
		return;
	cJSON *b = cJSON_ParseWithLength(body, len);
	cJSON *j = cJSON_DetachItemFromObject(b, "json");
	const char *t = cJSON_GetStringValue(cJSON_GetObjectItem(b, "text"));
	uint64_t id = 0;
	sscanf(h, "%*c %*s %" SCNu64, &id);
	struct msg m;
	msg_init(&m, j, xasprintf("%s", t ? t : ""));
	for (struct conn *cn = c->ly.hub->conns; cn != NULL; cn = cn->next) {
		struct client *cl = client_of(cn);
		if (cl == NULL || !cl->logged_in || cl->remote || cn->closing || cl->seeks_off)
			continue; /* (set seeks off: no seek news, as from this node's lobby) */
		struct cstate *s = h[0] == 'G' ? cs_get(c, cn->id, false) : NULL;
		if (s != NULL && s->fwd != 0 && s->accept && s->game == id && s->after == NULL) {
			/* it accepted that seek: its end comes after the accept's answer */
			int k = cl->json && m.json != NULL ? 1 : 0;
			if (m.out[k] == NULL)
				m.out[k] = k ? json_outbuf(m.json) : outbuf_line(m.text);
			if (m.out[k] != NULL)
				s->after = outbuf_ref(m.out[k]);
			continue;
		}
		msg_send(&m, cl);
	}
	msg_done(&m);
	cJSON_Delete(b);
}

static void on_inbox_msg(struct cluster *c, char *h, char *body, size_t len)
{
	char a[STORE_NODE_MAX + 1], name[PROTO_NAME_MAX + 2], flags[16];
	char tok[PROTO_TOKEN_LEN + 2] = "-"; /* C, R: a guest's token (none from older nodes) */
	uint64_t conn, n, game;
	int64_t rtt;
	switch (h[0]) {
	case 'C':
		if (sscanf(h, "C %64s %" SCNu64 " %" SCNu64 " %15s %" SCNd64 " %21s %21s", a, &conn,
		           &n, flags, &rtt, name, tok) >= 6)
			run_forwarded(c, a, conn, n, flags, rtt, name, tok, body, len);
		break;
	case 'O':
		if (sscanf(h, "O %" SCNu64, &conn) == 1)
			deliver_out(c, conn, body, len);
		break;
	case 'D':
		if (sscanf(h, "D %" SCNu64 " %" SCNu64, &conn, &n) == 2)
			answered(c, conn, n);
		break;
	case 'P':
		if (sscanf(h, "P %32s %" SCNu64 " %" SCNu64, a, &conn, &game) == 3)
			plays(c, a, conn, game);
		break;
	case 'X':
		if (sscanf(h, "X %64s %" SCNu64, a, &conn) == 2)
			remote_gone(c, a, conn);
		break;
	case 'R':
		if (sscanf(h, "R %64s %" SCNu64 " %15s %" SCNd64 " %21s %21s", a, &conn, flags,
		           &rtt, name, tok) >= 5)
			resume_remote(c, a, conn, flags, rtt, name, tok);
		break;
	case 'K':
		if (sscanf(h, "K %21s %32s", name, a) == 2)
			kick(c, name, a);
		break;
	case 'W': {
		char fmt;
		size_t count;
		if (sscanf(h, "W %64s %" SCNu64 " %c %zu", a, &game, &fmt, &count) == 4)
			interest_set(c, a, game, fmt == 'j', count);
		break;
	}
	case 'H': /* our own echo (on_tick): the way through Redis and back works */
		c->echo_sent = 0;
		break;
	case 'Y': {
		size_t nt, nj;
		if (sscanf(h, "Y %64s %" SCNu64 " %zu %zu", a, &game, &nt, &nj) == 4) {
			interest_set(c, a, game, false, nt);
			interest_set(c, a, game, true, nj);
			resend(c, a, game);
		}
		break;
	}
	}
}

/* Every pub/sub message and subscription answer comes here. */
static void on_sub(redisAsyncContext *ac, void *r, void *pd)
{
	(void)ac;
	(void)pd;
	struct cluster *c = the_cluster;
	redisReply *rep = r;
	if (c == NULL || rep == NULL || rep->type != REDIS_REPLY_ARRAY || rep->elements < 3)
		return;
	redisReply *kind = rep->element[0], *ch = rep->element[1], *msg = rep->element[2];
	if (kind->type != REDIS_REPLY_STRING || ch->type != REDIS_REPLY_STRING)
		return;
	const char *chan = ch->str + strlen(KEY(""));
	if (strcmp(kind->str, "subscribe") == 0) {
		uint64_t id;
		if (strncmp(chan, "in:", 3) == 0) { /* messages to us arrive from now on */
			bool was_up = up(c);
			c->inbox_up = true;
			if (!was_up && up(c))
				reached(c);
			return;
		}
		if (sscanf(chan, "g:%" SCNu64, &id) != 1)
			return;
		struct rgame *g = rg_find(c, id);
		if (g == NULL)
			return;
		g->subscribed = true;
		if (g->resend)
			rg_resend(c, g);
		while (g->waiting != NULL) { /* the watches that waited for it */
			struct pending_fwd *p = g->waiting;
			g->waiting = p->next;
			struct client *cl = client_by_id(c, p->conn);
			if (cl != NULL) {
				conn_release(cl->conn);
				if (g->owner[0] && up(c))
					forward(c, cl, &p->rq, p->line, g->owner, p->game, true);
				else
					answer_down(cl, &p->rq);
			}
			pending_free(p);
		}
		if (g->n == 0) /* nobody came after all */
			rg_free(c, g);
		return;
	}
	if (strcmp(kind->str, "message") != 0 || msg->type != REDIS_REPLY_STRING)
		return;
	char *nl = memchr(msg->str, '\n', msg->len);
	if (nl == NULL)
		return;
	*nl = '\0';
	char *body = nl + 1;
	size_t blen = msg->len - (size_t)(body - msg->str);
	uint64_t id;
	if (strncmp(chan, "in:", 3) == 0)
		on_inbox_msg(c, msg->str, body, blen);
	else if (sscanf(chan, "g:%" SCNu64, &id) == 1)
		on_game_msg(c, id, msg->str, body, blen);
	else if (strcmp(chan, "lobby") == 0)
		on_lobby_msg(c, msg->str, body, blen);
}

static void rg_subscribe(struct cluster *c, struct rgame *g)
{
	if (!c->sub_up || c->sub == NULL)
		return;
	g->subscribing = true;
	g->subscribed = false;
	redisAsyncCommand(c->sub, on_sub, NULL, "SUBSCRIBE " KEY("g:%" PRIu64), g->id);
}

/* ---- the lobby: seeks, presence, who, list --------------------------------------------------- */

/* The instances alive at the last scan (for messages to every other node). */
#define ALIVE_MAX 64
static char alive_names[ALIVE_MAX][CLUSTER_NODE_MAX + 1];
static int nalive;

/* The live nodes' names from SCAN's answer ({name, instance, alive} triples). */
static void alive_set(const redisReply *rep)
{
	nalive = 0;
	for (size_t i = 0; i + 2 < rep->elements; i += 3) {
		const redisReply *n = rep->element[i], *alive = rep->element[i + 2];
		if (n->type == REDIS_REPLY_STRING && alive->type == REDIS_REPLY_INTEGER &&
		    alive->integer == 1 && nalive < ALIVE_MAX)
			snprintf(alive_names[nalive++], sizeof alive_names[0], "%.*s", (int)n->len,
			         n->str);
	}
}

static void to_others(struct cluster *c, const char *header)
{
	for (int i = 0; i < nalive; i++)
		if (strcmp(alive_names[i], c->name) != 0)
			to_node(c, alive_names[i], header, NULL, 0);
}

/* Our open seek k in the seeks' hash (the lobby's JSON and text of it). */
static void seek_put(struct cluster *c, const struct seek *k)
{
	cJSON *v = cJSON_CreateObject();
	cJSON_AddItemToObject(v, "seek", lobby_seek_json(k));
	char *t = lobby_seek_text(k);
	cJSON_AddStringToObject(v, "text", t ? t : "");
	free(t);
	char *s = cJSON_PrintUnformatted(v);
	if (s != NULL)
		rcall(c, NULL, NULL, "HSET " KEY("seeks:%s") " %" PRIu64 " %s", c->name, k->id, s);
	free(s);
	cJSON_Delete(v);
}

static void on_seek_news(void *ud, const struct seek *k, bool gone, struct msg *told)
{
	struct cluster *c = ud;
	if (!up(c) || k->to != NULL) /* a challenge stays between its two sides, on this node */
		return; /* (an open seek is written again when Redis is back: resync) */
	if (gone)
		rcall(c, NULL, NULL, "HDEL " KEY("seeks:%s") " %" PRIu64, c->name, k->id);
	else
		seek_put(c, k);
	cJSON *b = cJSON_CreateObject();
	cJSON_AddItemReferenceToObject(b, "json", told->json);
	cJSON_AddStringToObject(b, "text", told->text ? told->text : "");
	char *s = cJSON_PrintUnformatted(b);
	char h[96];
	snprintf(h, sizeof h, "%c %s %" PRIu64, gone ? 'G' : 'N', c->name, k->id);
	if (s != NULL)
		publish(c, KEY("lobby"), h, s, strlen(s), NULL, NULL);
	free(s);
	cJSON_Delete(b);
}

static uint64_t new_seek_id(void *ud)
{
	struct cluster *c = ud;
	int64_t id = 0;
	if (c->ly.journal == NULL || c->ly.journal->w == NULL ||
	    store_writer_game_id(c->ly.journal->w, &id) != STORE_OK)
		return 0;
	return (uint64_t)id;
}

static char *user_row(struct cluster *c, struct client *u);

/* One of our users' row in the users' hash, now (a name is taken the moment it is used). */
static void user_put(struct cluster *c, struct client *u)
{
	char key[PROTO_NAME_MAX + 1], *row = user_row(c, u);
	key_lower(u->name, key, sizeof key);
	if (row != NULL)
		rcall(c, NULL, NULL, "HSET " KEY("users:%s") " %s %s", c->name, key, row);
	free(row);
}

static void on_login(void *ud, struct client *cl)
{
	struct cluster *c = ud;
	if (cl->remote || !up(c))
		return;
	user_put(c, cl);
	char flags[16], h[256];
	identity(cl, false, flags, sizeof flags);
	if (cl->registered) { /* the account's connection elsewhere closes */
		snprintf(h, sizeof h, "K %s %s", cl->name, c->name);
		to_others(c, h);
	}
	/* its seats in games of other nodes come back (a guest's with its token) */
	snprintf(h, sizeof h, "R %s %" PRIu64 " %s %" PRId64 " %s %s", c->instance, cl->conn->id,
	         flags, cl->rtt.known ? cl->rtt.ms : (int64_t)-1, cl->name, token_of(cl));
	to_others(c, h);
}

/* Every value of the hashes KEY(<prefix>:<node>) of the live nodes (an array of strings). */
static const char LIVE_VALUES[] =
        "local out = {} "
        "local h = redis.call('HGETALL', 'bitarena:nodes') "
        "for i = 1, #h, 2 do "
        "  if redis.call('GET', 'bitarena:node:' .. h[i]) == h[i + 1] then "
        "    for _, v in ipairs(redis.call('HVALS', 'bitarena:' .. ARGV[1] .. ':' .. h[i])) do "
        "      out[#out + 1] = v "
        "    end "
        "  end "
        "end "
        "return out";

/*
 * A guest name for this node unless a live node has a user of that name: {0} when one has;
 * else the name is ours ({1, seats}), seats being what the other nodes' seats: hashes hold
 * for it (their guest seats of that name: token hashes, "-" for a seat without one; any
 * node still listed, alive or not, as a dead node's hash lasts until its games are taken).
 */
static const char GUEST[] =
        "local h = redis.call('HGETALL', 'bitarena:nodes') "
        "local seats = {} "
        "for i = 1, #h, 2 do "
        "  if h[i] ~= ARGV[2] then "
        "    if redis.call('GET', 'bitarena:node:' .. h[i]) == h[i + 1] and "
        "       redis.call('HEXISTS', 'bitarena:users:' .. h[i], ARGV[1]) == 1 then "
        "      return {0} "
        "    end "
        "    local s = redis.call('HGET', 'bitarena:seats:' .. h[i], ARGV[1]) "
        "    if s then seats[#seats + 1] = s end "
        "  end "
        "end "
        "redis.call('HSET', 'bitarena:users:' .. ARGV[2], ARGV[1], ARGV[3]) "
        "redis.call('PEXPIRE', 'bitarena:users:' .. ARGV[2], ARGV[4]) "
        "return {1, table.concat(seats, ' ')}";

/*
 * Whether a guest on another node holds a name (key: lowercased): 1 when a
 * live node has a user of that name (a guest: an account's name is refused
 * before), or any node still listed has guest seats of that name in games not
 * ended (seats:, as GUEST reads them); else 0.
 */
static const char NAME_HELD[] =
        "local h = redis.call('HGETALL', 'bitarena:nodes') "
        "for i = 1, #h, 2 do "
        "  if h[i] ~= ARGV[2] then "
        "    if redis.call('GET', 'bitarena:node:' .. h[i]) == h[i + 1] and "
        "       redis.call('HEXISTS', 'bitarena:users:' .. h[i], ARGV[1]) == 1 then "
        "      return 1 "
        "    end "
        "    if redis.call('HEXISTS', 'bitarena:seats:' .. h[i], ARGV[1]) == 1 then "
        "      return 1 "
        "    end "
        "  end "
        "end "
        "return 0";

/* A request answered from Redis, its client held meanwhile. */
struct asked {
	uint64_t conn;
	struct proto_req rq;
	char name[PROTO_NAME_MAX + 1];
	char token[PROTO_TOKEN_LEN + 1]; /* a guest login: the token to try on other nodes' seats */
	bool given;                      /* it came with the login (hooks.guest) */
};

static struct client *asked_client(struct asked *a)
{
	struct cluster *c = the_cluster;
	struct client *cl = c != NULL ? client_by_id(c, a->conn) : NULL;
	if (cl != NULL)
		conn_release(cl->conn);
	return cl;
}

static int by_id(const void *a, const void *b)
{
	double x = cJSON_GetNumberValue(cJSON_GetObjectItem(*(cJSON *const *)a, "id"));
	double y = cJSON_GetNumberValue(cJSON_GetObjectItem(*(cJSON *const *)b, "id"));
	return x < y ? -1 : x > y;
}

static int by_name(const void *a, const void *b)
{
	const char *x = cJSON_GetStringValue(cJSON_GetObjectItem(*(cJSON *const *)a, "name"));
	const char *y = cJSON_GetStringValue(cJSON_GetObjectItem(*(cJSON *const *)b, "name"));
	return strcasecmp(x ? x : "", y ? y : "");
}

/* seeks / who / list from the values of the live nodes' hashes. */
static void on_verb(redisAsyncContext *ac, void *r, void *pd)
{
	(void)ac;
	struct asked *a = pd;
	struct client *cl = asked_client(a);
	redisReply *rep = r;
	if (cl == NULL) {
		free(a);
		return;
	}
	if (rep == NULL || rep->type != REDIS_REPLY_ARRAY) {
		answer_down(cl, &a->rq);
		free(a);
		return;
	}
	const char *verb = a->rq.cmd->name;
	bool seeks = strcmp(verb, "seeks") == 0, who = strcmp(verb, "who") == 0;
	size_t n = rep->elements;
	cJSON **rows = calloc(n ? n : 1, sizeof *rows);
	size_t k = 0;
	for (size_t i = 0; rows != NULL && i < n; i++) {
		redisReply *e = rep->element[i];
		if (e->type != REDIS_REPLY_STRING)
			continue;
		cJSON *v = cJSON_ParseWithLength(e->str, e->len);
		if (v != NULL)
			rows[k++] = v;
	}
	if (rows != NULL && !who) /* by the row's own id: seeks' in "seek", games' in "json" */
		for (size_t i = 0; i < k; i++) {
			cJSON *inner = cJSON_GetObjectItem(rows[i], seeks ? "seek" : "json");
			cJSON_AddNumberToObject(
			        rows[i], "id",
			        cJSON_GetNumberValue(cJSON_GetObjectItem(inner, "id")));
		}
	if (rows != NULL)
		qsort(rows, k, sizeof *rows, who ? by_name : by_id);
	cJSON *f = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(f, seeks ? "seeks" : who ? "users" : "games");
	char *extra = NULL;
	/* seeks: the first LOBBY_SEEKS_LISTED, all counted, as one node's `seeks` */
	size_t shown = seeks && k > LOBBY_SEEKS_LISTED ? LOBBY_SEEKS_LISTED : k;
	for (size_t i = 0; i < k; i++) {
		if (i >= shown) {
			cJSON_Delete(rows[i]);
			continue;
		}
		const char *t = cJSON_GetStringValue(cJSON_GetObjectItem(rows[i], "text"));
		xappend(&extra, "%s%s%s", extra ? "\n" : "", seeks ? "  " : "", t ? t : "");
		cJSON *item;
		if (who) { /* the row itself, without its text */
			cJSON_DeleteItemFromObject(rows[i], "text");
			item = rows[i];
			rows[i] = NULL;
		} else {
			item = cJSON_DetachItemFromObject(rows[i], seeks ? "seek" : "json");
		}
		cJSON_AddItemToArray(arr, item);
		cJSON_Delete(rows[i]);
	}
	free(rows);
	if (seeks)
		lobby_seeks_reply(cl, &a->rq, f, extra, k, shown);
	else if (who)
		reply_ok(cl, &a->rq, f, extra, "%zu user%s online", k, k == 1 ? "" : "s");
	else
		reply_ok(cl, &a->rq, f, extra, "%zu game%s in progress", k, k == 1 ? "" : "s");
	free(a);
}

static struct asked *ask(struct cmd *x)
{
	struct asked *a = calloc(1, sizeof *a);
	if (a == NULL) {
		reply_oom(x->cl, x->rq);
		return NULL;
	}
	a->conn = x->cl->conn->id;
	a->rq = rq_keep(x->rq);
	return a;
}

static bool route_verb(void *ud, struct cmd *x)
{
	struct cluster *c = ud;
	if (x->cl->remote)
		return false;
	if (!up(c)) {
		answer_down(x->cl, x->rq);
		return true;
	}
	const char *verb = x->rq->cmd->name;
	const char *hash = strcmp(verb, "seeks") == 0 ? "seeks"
	                   : strcmp(verb, "who") == 0 ? "users"
	                                              : "list";
	flush_live(c); /* what we know changed since the last write goes first */
	struct asked *a = ask(x);
	if (a == NULL)
		return true;
	if (!rcall(c, on_verb, a, "EVAL %s 0 %s", LIVE_VALUES, hash)) {
		free(a);
		answer_down(x->cl, x->rq);
		return true;
	}
	conn_hold(x->cl->conn);
	return true;
}

/* What the other nodes' guest seats of a name (GUEST's seats) say of token. */
enum seats_say {
	SEATS_NONE,    /* no seat of that name */
	SEATS_OPEN,    /* seats without a token only: the first guest claims them */
	SEATS_FIT,     /* token fits a seat's hash */
	SEATS_GUARDED, /* seats held by a token, and token (or none) fits none */
};

static enum seats_say seats_say(const char *seats, const char *token)
{
	enum seats_say say = SEATS_NONE;
	char hash[SESSION_TOKEN_HASH + 1];
	for (const char *p = seats; *p != '\0';) {
		size_t n = strcspn(p, " ");
		if (n == 1 && *p == '-') {
			if (say == SEATS_NONE)
				say = SEATS_OPEN;
		} else if (n == SESSION_TOKEN_HASH) {
			memcpy(hash, p, n);
			hash[n] = '\0';
			if (token[0] != '\0' && session_token_fits(hash, token))
				return SEATS_FIT;
			say = SEATS_GUARDED;
		}
		p += n;
		p += strspn(p, " ");
	}
	return say;
}

static void on_guest(redisAsyncContext *ac, void *r, void *pd)
{
	(void)ac;
	struct asked *a = pd;
	struct client *cl = asked_client(a);
	redisReply *rep = r;
	struct cluster *c = the_cluster;
	if (cl == NULL || cl->logged_in) {
		sodium_memzero(a, sizeof *a);
		free(a);
		return;
	}
	bool ok = rep != NULL && rep->type == REDIS_REPLY_ARRAY && rep->elements >= 1 &&
	          rep->element[0]->type == REDIS_REPLY_INTEGER;
	const char *seats = ok && rep->elements >= 2 && rep->element[1]->type == REDIS_REPLY_STRING
	                            ? rep->element[1]->str
	                            : "";
	enum seats_say say = ok ? seats_say(seats, a->token) : SEATS_NONE;
	if (!ok) {
		answer_down(cl, &a->rq);
	} else if (rep->element[0]->integer == 0 || lobby_find_user(c->ly.lobby, a->name) != NULL) {
		identity_refuse_connected(cl, &a->rq, a->name);
	} else if (say == SEATS_GUARDED || (say == SEATS_NONE && a->given)) {
		/* the name was ours for a moment: no more */
		char key[PROTO_NAME_MAX + 1];
		key_lower(a->name, key, sizeof key);
		rcall(c, NULL, NULL, "HDEL " KEY("users:%s") " %s", c->name, key);
		c->users_dirty = true; /* (a login of the name here since is written again) */
		if (a->given && c->ly.lobby->login_failed != NULL) /* a failed login (accounts) */
			c->ly.lobby->login_failed(c->ly.lobby->login_failed_ud, cl, a->name);
		identity_refuse_guarded(cl, &a->rq, a->name, a->given);
	} else {
		/* the guest whose token fits seats of another node is that guest: R takes the
		   token there, and that node checks it again against the seats */
		if (say == SEATS_FIT)
			snprintf(cl->token, sizeof cl->token, "%s", a->token);
		lobby_login_checked(c->ly.lobby, cl, &a->rq, a->name, false);
	}
	sodium_memzero(a, sizeof *a);
	free(a);
}

static bool check_guest(void *ud, struct client *cl, const struct proto_req *rq, const char *name,
                        const char *token, bool given)
{
	struct cluster *c = ud;
	if (cl->remote)
		return false;
	if (!up(c)) {
		answer_down(cl, rq);
		return true;
	}
	struct asked *a = calloc(1, sizeof *a);
	if (a == NULL) {
		reply_oom(cl, rq);
		return true;
	}
	a->conn = cl->conn->id;
	a->rq = rq_keep(rq);
	snprintf(a->name, sizeof a->name, "%s", name);
	if (token != NULL && strlen(token) == PROTO_TOKEN_LEN)
		snprintf(a->token, sizeof a->token, "%s", token);
	a->given = given;
	char key[PROTO_NAME_MAX + 1];
	key_lower(name, key, sizeof key);
	cJSON *v = cJSON_CreateObject();
	cJSON_AddStringToObject(v, "name", name);
	cJSON_AddBoolToObject(v, "guest", true);
	cJSON_AddNullToObject(v, "rtt_ms");
	cJSON_AddArrayToObject(v, "playing");
	cJSON_AddArrayToObject(v, "watching");
	cJSON_AddStringToObject(v, "text", "");
	char *s = cJSON_PrintUnformatted(v);
	cJSON_Delete(v);
	bool sent = s != NULL && rcall(c, on_guest, a, "EVAL %s 0 %s %s %s %d", GUEST, key, c->name,
	                               s, 2 * c->expiry_ms);
	free(s);
	if (!sent) {
		free(a);
		answer_down(cl, rq);
		return true;
	}
	conn_hold(cl->conn);
	return true;
}

/* NAME_HELD's question, for accounts.c (lobby_hooks.name_held). */
struct held_ask {
	void (*held)(void *arg, int verdict);
	void *arg;
};

static void on_name_held(redisAsyncContext *ac, void *r, void *pd)
{
	(void)ac;
	struct held_ask *h = pd;
	redisReply *rep = r;
	int verdict = rep != NULL && rep->type == REDIS_REPLY_INTEGER ? (rep->integer != 0) : -1;
	h->held(h->arg, verdict);
	free(h);
}

static bool name_held(void *ud, struct client *cl, const char *name,
                      void (*held)(void *arg, int verdict), void *arg)
{
	struct cluster *c = ud;
	if (cl->remote)
		return false;
	struct held_ask *h = up(c) ? malloc(sizeof *h) : NULL;
	if (h != NULL) {
		*h = (struct held_ask){.held = held, .arg = arg};
		char key[PROTO_NAME_MAX + 1];
		key_lower(name, key, sizeof key);
		if (rcall(c, on_name_held, h, "EVAL %s 0 %s %s", NAME_HELD, key, c->name))
			return true;
		free(h);
	}
	held(arg, -1); /* the bus cannot be asked */
	return true;
}

/* A who row of one of our users: its games here and elsewhere. */
static char *user_row(struct cluster *c, struct client *u)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "name", u->name);
	cJSON_AddBoolToObject(j, "guest", !u->registered);
	char *line = xasprintf("  %s", u->name);
	if (u->rtt.known) {
		cJSON_AddNumberToObject(j, "rtt_ms", (double)u->rtt.ms);
		xappend(&line, ", rtt %" PRId64 " ms", u->rtt.ms);
	} else {
		cJSON_AddNullToObject(j, "rtt_ms");
	}
	cJSON *pl = cJSON_AddArrayToObject(j, "playing");
	cJSON *wa = cJSON_AddArrayToObject(j, "watching");
	for (struct game *g = c->ly.sess->games; g != NULL; g = g->next) {
		if (g->freeing)
			continue;
		bool plays = !g->over && session_seat_of(g, u) >= 0;
		bool watches = !plays && session_is_watching(g, u);
		if (!plays && !watches)
			continue;
		cJSON_AddItemToArray(plays ? pl : wa, cJSON_CreateNumber((double)g->id));
		xappend(&line, ", %s %" PRIu64, plays ? "plays" : "watches", g->id);
	}
	for (struct rgame *g = c->rgames; g != NULL; g = g->next) {
		struct member *m = rg_member(g, u->conn->id);
		if (m == NULL || (m->player && g->over))
			continue;
		cJSON_AddItemToArray(m->player ? pl : wa, cJSON_CreateNumber((double)g->id));
		xappend(&line, ", %s %" PRIu64, m->player ? "plays" : "watches", g->id);
	}
	cJSON_AddStringToObject(j, "text", line ? line : "");
	free(line);
	char *s = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	return s;
}

static cJSON *clocks_of(const struct game *g)
{
	if (!g->so.timed)
		return cJSON_CreateNull();
	int64_t left[GAME_MAX_PLAYERS];
	clock_left(g, left);
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; i < g->ops->nplayers; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)left[i]));
	return a;
}

/* The list row of one of our games (as `list` shows it on a single node). */
static char *game_row(struct cluster *c, struct game *g)
{
	size_t watchers = session_watchers(g);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "id", (double)g->id);
	cJSON_AddStringToObject(j, "kind", g->ops->name);
	cJSON *pl = cJSON_AddArrayToObject(j, "players");
	for (int i = 0; i < g->ops->nplayers; i++)
		cJSON_AddItemToArray(pl, cJSON_CreateString(g->pl[i].name));
	cJSON_AddNumberToObject(j, "ply", g->ply);
	cJSON *tm = cJSON_AddArrayToObject(j, "to_move");
	unsigned mask = g->ops->to_move(g->st);
	for (int i = 0; i < g->ops->nplayers; i++)
		if (mask & (1u << i))
			cJSON_AddItemToArray(tm, cJSON_CreateNumber(i));
	cJSON_AddNumberToObject(j, "watchers", (double)watchers);
	cJSON_AddItemToObject(j, "clocks", clocks_of(g));
	if (g->so.timed) {
		cJSON *t = cJSON_AddObjectToObject(j, "time");
		cJSON_AddNumberToObject(t, "base_ms", (double)g->so.base_ms);
		cJSON_AddNumberToObject(t, "inc_ms", (double)g->so.inc_ms);
	} else {
		cJSON_AddNullToObject(j, "time");
	}
	if (session_simultaneous(g))
		cJSON_AddNumberToObject(j, "turn_ms", (double)g->so.turn_ms);
	else
		cJSON_AddNullToObject(j, "turn_ms");
	cJSON *v = cJSON_CreateObject();
	cJSON_AddItemToObject(v, "json", j);
	char *t = xasprintf("  %" PRIu64 " %s: %s (%s) vs %s (%s), ply %d, %zu watching", g->id,
	                    g->ops->name, g->pl[0].name, g->ops->seat_names[0], g->pl[1].name,
	                    g->ops->seat_names[1], g->ply, watchers);
	cJSON_AddStringToObject(v, "text", t ? t : "");
	free(t);
	char *s = cJSON_PrintUnformatted(v);
	cJSON_Delete(v);
	return s;
}

/* A guest seat of ours: its name's key and its token hash ("-": none), for seats:<node>. */
struct seat_row {
	char key[PROTO_NAME_MAX + 1];
	const char *hash;
};

static int seat_cmp(const void *a, const void *b)
{
	const struct seat_row *x = a, *y = b;
	int k = strcmp(x->key, y->key);
	return k != 0 ? k : strcmp(x->hash, y->hash);
}

/*
 * seats:<node> (inside flush_live's MULTI): our guest seats in games not over, name key ->
 * their token hashes (distinct, space-separated; "-" a seat without one), which GUEST reads
 * so that another node refuses `login <name>` without the token (the check that gives the
 * seat back is still ours: R brings the token, session_login compares).
 */
static void seats_put(struct cluster *c)
{
	size_t n = 0, cap = 0;
	struct seat_row *v = NULL;
	for (struct game *g = c->ly.sess->games; g != NULL; g = g->next) {
		for (int i = 0; !g->over && !g->freeing && i < g->ops->nplayers; i++) {
			const struct player *p = &g->pl[i];
			if (p->registered)
				continue;
			if (n == cap) {
				size_t ncap = cap ? 2 * cap : 16;
				struct seat_row *nv = realloc(v, ncap * sizeof *nv);
				if (nv == NULL)
					break;
				v = nv;
				cap = ncap;
			}
			if (n == cap)
				break;
			key_lower(p->name, v[n].key, sizeof v[n].key);
			v[n].hash = p->token_hash[0] != '\0' ? p->token_hash : "-";
			n++;
		}
	}
	if (n > 0)
		qsort(v, n, sizeof *v, seat_cmp);
	for (size_t i = 0; i < n;) {
		char *val = NULL;
		size_t j = i;
		for (; j < n && strcmp(v[j].key, v[i].key) == 0; j++)
			if (j == i || strcmp(v[j].hash, v[j - 1].hash) != 0)
				xappend(&val, "%s%s", val != NULL ? " " : "", v[j].hash);
		if (val != NULL)
			rcall(c, NULL, NULL, "HSET " KEY("seats:%s") " %s %s", c->name, v[i].key,
			      val);
		free(val);
		i = j;
	}
	free(v);
}

/* Writes what changed of our live state: users and games. */
static void flush_live(struct cluster *c)
{
	if (!up(c))
		return;
	int ttl = 2 * c->expiry_ms;
	if (c->users_dirty) {
		c->users_dirty = false;
		rcall(c, NULL, NULL, "MULTI");
		if (c->users_reset) /* names of clients that left while Redis was away */
			rcall(c, NULL, NULL, "DEL " KEY("users:%s"), c->name);
		c->users_reset = false;
		for (struct conn *cn = c->ly.hub->conns; cn != NULL; cn = cn->next) {
			struct client *u = client_of(cn);
			if (u == NULL || !u->logged_in || u->remote || cn->closing)
				continue;
			char key[PROTO_NAME_MAX + 1], *row = user_row(c, u);
			key_lower(u->name, key, sizeof key);
			if (row != NULL)
				rcall(c, NULL, NULL, "HSET " KEY("users:%s") " %s %s", c->name, key,
				      row);
			free(row);
		}
		rcall(c, NULL, NULL, "PEXPIRE " KEY("users:%s") " %d", c->name, ttl);
		rcall(c, NULL, NULL, "EXEC");
	}
	if (c->list_dirty) {
		c->list_dirty = false;
		rcall(c, NULL, NULL, "MULTI");
		rcall(c, NULL, NULL, "DEL " KEY("list:%s"), c->name);
		rcall(c, NULL, NULL, "DEL " KEY("seats:%s"), c->name);
		seats_put(c);
		for (struct game *g = c->ly.sess->games; g != NULL; g = g->next) {
			if (g->over || g->freeing)
				continue;
			char *row = game_row(c, g);
			if (row != NULL)
				rcall(c, NULL, NULL, "HSET " KEY("list:%s") " %" PRIu64 " %s",
				      c->name, g->id, row);
			free(row);
		}
		rcall(c, NULL, NULL, "PEXPIRE " KEY("list:%s") " %d", c->name, ttl);
		rcall(c, NULL, NULL, "PEXPIRE " KEY("seats:%s") " %d", c->name, ttl);
		rcall(c, NULL, NULL, "EXEC");
	}
}

/* ---- the session hooks around the journal's ---------------------------------------------------
 */

static int h_start(void *ud, const struct game *g, uint64_t *id)
{
	struct cluster *c = ud;
	int r = c->inner.on_start != NULL ? c->inner.on_start(c->inner.ud, g, id) : 0;
	if (r < 0)
		return r;
	rcall(c, NULL, NULL, "SET " KEY("owner:%" PRIu64) " %s", *id, c->name);
	for (int i = 0; i < g->ops->nplayers; i++) { /* players of other nodes: their homes */
		const struct relay_id *rid = g->pl[i].c ? relay_id_of(g->pl[i].c->conn) : NULL;
		if (rid == NULL || rid->kind != RELAY_CLIENT)
			continue;
		char hn[CLUSTER_NODE_MAX + 1], h[96];
		name_of(rid->home, hn);
		snprintf(h, sizeof h, "P %s %" PRIu64 " %" PRIu64, c->name, rid->conn, *id);
		to_node(c, hn, h, NULL, 0);
	}
	c->list_dirty = c->users_dirty = true;
	return r;
}

static int h_move(void *ud, const struct game *g, const struct move_rec *m)
{
	struct cluster *c = ud;
	c->list_dirty = true;
	return c->inner.on_move != NULL ? c->inner.on_move(c->inner.ud, g, m) : 0;
}

static void h_end(void *ud, const struct game *g)
{
	struct cluster *c = ud;
	if (c->inner.on_end != NULL)
		c->inner.on_end(c->inner.ud, g);
	rcall(c, NULL, NULL, "PEXPIRE " KEY("owner:%" PRIu64) " %d", g->id, OWNER_TTL_MS);
	to_game(c, g->id, "E", NULL, 0, NULL, NULL);
	c->list_dirty = c->users_dirty = true;
}

static int h_undo(void *ud, const struct game *g, int nplies)
{
	struct cluster *c = ud;
	c->list_dirty = true;
	return c->inner.on_undo != NULL ? c->inner.on_undo(c->inner.ud, g, nplies) : 0;
}

/* ---- heartbeats, the death scan, takeovers ------------------------------------------------ */

/* Renews our key; -1: we were declared dead, -2: another instance has our name, 0: our key had
 * gone (Redis lost it, or we were too slow), 1: renewed. */
static const char BEAT[] =
        "if redis.call('EXISTS', 'bitarena:dead:' .. ARGV[1]) == 1 then return -1 end "
        "local v = redis.call('GET', 'bitarena:node:' .. ARGV[2]) "
        "if v and v ~= ARGV[1] then return -2 end "
        "redis.call('SET', 'bitarena:node:' .. ARGV[2], ARGV[1], 'PX', ARGV[3]) "
        "redis.call('HSET', 'bitarena:nodes', ARGV[2], ARGV[1]) "
        "for _, k in ipairs({'users', 'list', 'seats', 'seeks'}) do "
        "  redis.call('PEXPIRE', 'bitarena:' .. k .. ':' .. ARGV[2], ARGV[4]) "
        "end "
        "if v then return 1 end "
        "return 0";

/* Every node seen: {name, instance, alive 0|1} triples. */
static const char SCAN[] =
        "local out = {} "
        "local h = redis.call('HGETALL', 'bitarena:nodes') "
        "for i = 1, #h, 2 do "
        "  out[#out + 1] = h[i] "
        "  out[#out + 1] = h[i + 1] "
        "  out[#out + 1] = (redis.call('GET', 'bitarena:node:' .. h[i]) == h[i + 1]) and 1 or 0 "
        "end "
        "return out";

/* The taker's last steps: the dead instance is marked, and leaves the list of nodes. */
static const char BURY[] = "redis.call('SET', 'bitarena:dead:' .. ARGV[1], ARGV[3], 'PX', ARGV[4]) "
                           "if redis.call('HGET', 'bitarena:nodes', ARGV[2]) == ARGV[1] then "
                           "  redis.call('HDEL', 'bitarena:nodes', ARGV[2]) "
                           "end "
                           "local ids = redis.call('HKEYS', 'bitarena:seeks:' .. ARGV[2]) "
                           "redis.call('DEL', 'bitarena:seeks:' .. ARGV[2]) "
                           "return ids";

static void resync(struct cluster *c);

static void on_beat(redisAsyncContext *ac, void *r, void *pd)
{
	(void)ac;
	(void)pd;
	struct cluster *c = the_cluster;
	redisReply *rep = r;
	if (c == NULL || c->stopping)
		return;
	uint64_t took = c->beat_sent ? now_ms(c) - c->beat_sent : 0;
	c->beat_sent = 0;
	if (rep == NULL || rep->type != REDIS_REPLY_INTEGER) {
		c->healthy_since = 0;
		return;
	}
	if (rep->integer < 0) {
		log_error("cluster node exits node=%s instance=%s why=%s", c->name, c->instance,
		          rep->integer == -1 ? "\"declared dead; its games are elsewhere now\""
		                             : "\"its name is held by another instance\"");
		exit(1);
	}
	if (took > (uint64_t)c->expiry_ms / 2 || rep->integer == 0)
		c->healthy_since = 0; /* a stall, or Redis lost our key: not healthy yet */
	if (c->healthy_since == 0)
		c->healthy_since = now_ms(c);
	if (rep->integer == 0 && now_ms(c) - c->synced_at > (uint64_t)c->expiry_ms)
		resync(c); /* Redis lost our key (not just after we wrote everything again) */
}

static void fail_forwards_to(struct cluster *c, const char *node, enum err_code code,
                             const char *why)
{
	for (int b = 0; b < CS_BUCKETS; b++)
		for (struct cstate *s = c->cs[b]; s != NULL; s = s->next) {
			if (s->fwd == 0 || (node != NULL && strcmp(s->fwd_node, node) != 0))
				continue;
			struct client *cl = client_by_id(c, s->conn);
			if (cl != NULL)
				reply_err(cl, &s->rq, code, "%s", why);
			release(c, s);
		}
}

/* A home's instance is gone: its relay clients close (their seats wait), its spectators go. */
static void home_gone(struct cluster *c, const char *instance)
{
	for (struct rclient *r = c->rclients, *next; r != NULL; r = next) {
		next = r->next;
		if (strcmp(r->home, instance) != 0)
			continue;
		struct client *cl = client_by_id(c, r->conn);
		rc_forget(c, r->conn);
		if (cl != NULL)
			client_close(cl, false);
	}
	for (struct interest *i = c->interests; i != NULL; i = i->next)
		if (strcmp(i->home, instance) == 0 && (i->count[0] || i->count[1])) {
			interest_set(c, instance, i->game, false, 0);
			interest_set(c, instance, i->game, true, 0);
		}
}

struct takeover {
	uv_work_t req;
	struct cluster *c;
	char from[STORE_NODE_MAX + 1];
	struct store_options o;
	char conninfo[1024];
	char node[STORE_NODE_MAX + 1];
	struct store_game *v;
	size_t n;
	int err;
	char why[300];
};

static void takeover_work(uv_work_t *req)
{
	struct takeover *t = req->data;
	struct store *db = NULL;
	t->err = store_open_opts(&t->o, &db);
	if (t->err == STORE_OK)
		t->err = store_games_claim(db, t->from, &t->v, &t->n);
	if (t->err != STORE_OK && db != NULL)
		snprintf(t->why, sizeof t->why, "%s", store_last_error(db));
	store_close(db);
}

static void on_buried(redisAsyncContext *ac, void *r, void *pd)
{
	(void)ac;
	(void)pd;
	struct cluster *c = the_cluster;
	redisReply *rep = r;
	if (c == NULL || rep == NULL || rep->type != REDIS_REPLY_ARRAY)
		return;
	for (size_t i = 0; i < rep->elements; i++) { /* its seeks are gone: everyone is told */
		redisReply *e = rep->element[i];
		if (e->type != REDIS_REPLY_STRING)
			continue;
		uint64_t id = strtoull(e->str, NULL, 10);
		cJSON *b = cJSON_CreateObject();
		cJSON *j = cJSON_AddObjectToObject(b, "json");
		cJSON_AddStringToObject(j, "type", "seek");
		cJSON_AddStringToObject(j, "event", "gone");
		cJSON_AddNumberToObject(j, "id", (double)id);
		char text[64], h[96];
		snprintf(text, sizeof text, "seek %" PRIu64 " gone", id);
		cJSON_AddStringToObject(b, "text", text);
		char *s = cJSON_PrintUnformatted(b);
		snprintf(h, sizeof h, "G - %" PRIu64,
		         id); /* from "-": every node tells its users */
		if (s != NULL)
			publish(c, KEY("lobby"), h, s, strlen(s), NULL, NULL);
		free(s);
		cJSON_Delete(b);
	}
}

static void takeover_done(uv_work_t *req, int status)
{
	struct takeover *t = req->data;
	struct cluster *c = t->c;
	c->takeovers--;
	if (status != 0 || t->err != STORE_OK) {
		log_warn("cluster takeover failed from=%s why=%s detail=%s retry=later", t->from,
		         LOG_Q(store_strerror(t->err)), LOG_Q(t->why));
	} else if (!c->stopping) {
		int restored = 0;
		for (size_t i = 0; i < t->n; i++) {
			if (!journal_restore(c->ly.journal, &t->v[i]))
				continue;
			restored++;
			uint64_t id = (uint64_t)t->v[i].id;
			rcall(c, NULL, NULL, "SET " KEY("owner:%" PRIu64) " %s", id, c->name);
			char h[64];
			snprintf(h, sizeof h, "V %s", c->name);
			to_game(c, id, h, NULL, 0, NULL, NULL);
		}
		char name[CLUSTER_NODE_MAX + 1];
		name_of(t->from, name);
		rcall(c, on_buried, NULL, "EVAL %s 0 %s %s %s %d", BURY, t->from, name, c->instance,
		      DEAD_TTL_MS);
		c->list_dirty = true;
		journal_settle(c->ly.journal, false);
		log_info("cluster takeover node=%s games=%d from=%s", c->name, restored, t->from);
	}
	store_games_free(t->v, t->n);
	free(t);
}

static void on_takeover_lock(redisAsyncContext *ac, void *r, void *pd)
{
	(void)ac;
	struct takeover *t = pd;
	struct cluster *c = the_cluster;
	redisReply *rep = r;
	bool mine = rep != NULL && rep->type == REDIS_REPLY_STATUS && c != NULL && !c->stopping;
	if (!mine) { /* another node takes it over, or Redis went */
		free(t);
		return;
	}
	t->req.data = t;
	c->takeovers++;
	if (uv_queue_work(c->ly.loop, &t->req, takeover_work, takeover_done) != 0) {
		c->takeovers--;
		free(t);
	}
}

static void try_takeover(struct cluster *c, const char *instance)
{
	struct takeover *t = calloc(1, sizeof *t);
	if (t == NULL)
		return;
	t->c = c;
	snprintf(t->from, sizeof t->from, "%s", instance);
	t->o = c->store;
	snprintf(t->conninfo, sizeof t->conninfo, "%s", c->conninfo);
	snprintf(t->node, sizeof t->node, "%s", c->instance);
	t->o.conninfo = t->conninfo;
	t->o.node = t->node;
	t->o.reader = false;
	if (!rcall(c, on_takeover_lock, t, "SET " KEY("takeover:%s") " %s NX PX %d", instance,
	           c->instance, TAKEOVER_TTL_MS))
		free(t);
}

static void on_scan(redisAsyncContext *ac, void *r, void *pd)
{
	(void)ac;
	(void)pd;
	struct cluster *c = the_cluster;
	redisReply *rep = r;
	if (c == NULL || c->stopping || rep == NULL || rep->type != REDIS_REPLY_ARRAY)
		return;
	alive_set(rep);
	bool judge =
	        c->healthy_since != 0 && now_ms(c) >= c->healthy_since + 2 * (uint64_t)c->expiry_ms;
	for (size_t i = 0; i + 2 < rep->elements; i += 3) {
		redisReply *n = rep->element[i], *inst = rep->element[i + 1],
		           *alive = rep->element[i + 2];
		if (n->type != REDIS_REPLY_STRING || inst->type != REDIS_REPLY_STRING)
			continue;
		char name[CLUSTER_NODE_MAX + 1], instance[STORE_NODE_MAX + 1];
		snprintf(name, sizeof name, "%.*s", (int)n->len, n->str);
		snprintf(instance, sizeof instance, "%.*s", (int)inst->len, inst->str);
		bool live = alive->type == REDIS_REPLY_INTEGER && alive->integer == 1;
		if (live || strcmp(instance, c->instance) == 0 || !judge)
			continue;
		home_gone(c, instance);
		fail_forwards_to(
		        c, name, ERR_NODE_GONE,
		        "the game's node went away; the game goes on at another node within "
		        "seconds: look at its next state before playing again");
		try_takeover(c, instance);
	}
	/* relay clients of a node's earlier instance (it restarted: those clients are gone) */
	for (struct rclient *rc = c->rclients, *next; rc != NULL; rc = next) {
		next = rc->next;
		char hn[CLUSTER_NODE_MAX + 1];
		name_of(rc->home, hn);
		for (size_t i = 0; i + 2 < rep->elements; i += 3) {
			redisReply *n = rep->element[i], *inst = rep->element[i + 1];
			if (n->type == REDIS_REPLY_STRING && strlen(hn) == n->len &&
			    memcmp(hn, n->str, n->len) == 0 &&
			    (strlen(rc->home) != inst->len ||
			     memcmp(rc->home, inst->str, inst->len))) {
				home_gone(c, rc->home);
				break;
			}
		}
	}
}

/* Forwards not answered in time. */
static void expire_forwards(struct cluster *c)
{
	uint64_t now = now_ms(c);
	for (int b = 0; b < CS_BUCKETS; b++)
		for (struct cstate *s = c->cs[b]; s != NULL; s = s->next) {
			if (s->fwd == 0 || now < s->deadline)
				continue;
			struct client *cl = client_by_id(c, s->conn);
			if (cl != NULL)
				reply_err(cl, &s->rq, ERR_NODE_GONE,
				          "node %s did not answer in time; the command's outcome "
				          "is not "
				          "known: look at the game's next state",
				          s->fwd_node);
			release(c, s);
		}
}

/* Relay watchers of games gone from memory. */
static void drop_stale_aggs(struct cluster *c)
{
	for (struct agg *a = c->aggs, *next; a != NULL; a = next) {
		next = a->next;
		if (session_find(c->ly.sess, a->game) == NULL)
			agg_drop(c, a);
	}
}

static void connect_redis(struct cluster *c);

/*
 * Both connections closed, to be made again at once: one of them is dead
 * without hiredis knowing (its libuv adapter drops a poll error, such as the
 * reset of a connection that had unsent commands when Redis was killed), so
 * commands would wait on it for ever.
 */
static void drop_redis(struct cluster *c, const char *why)
{
	log_warn("cluster redis dropped node=%s why=%s retry=now", c->name, LOG_Q(why));
	redisAsyncContext *p = c->pub, *s = c->sub;
	if (p != NULL) /* on_disconnected: forwards failed, the state reset */
		redisAsyncFree(p);
	if (s != NULL)
		redisAsyncFree(s);
	c->pub = c->sub = NULL;
	c->pub_up = c->sub_up = c->inbox_up = false;
	c->pub_connecting = c->sub_connecting = false;
	c->beat_sent = c->echo_sent = 0;
}

static void on_tick(uv_timer_t *t)
{
	struct cluster *c = t->data;
	if (c->stopping)
		return;
	uint64_t now = now_ms(c), late = 2 * (uint64_t)c->expiry_ms;
	if (up(c) && ((c->beat_sent != 0 && now - c->beat_sent > late) ||
	              (c->echo_sent != 0 && now - c->echo_sent > late)))
		drop_redis(c, c->echo_sent != 0 && now - c->echo_sent > late
		                      ? "does not bring our own messages back"
		                      : "does not answer our heartbeat");
	connect_redis(c);
	expire_forwards(c);
	drop_stale_aggs(c);
	if (!up(c)) {
		c->healthy_since = 0;
		return;
	}
	if (c->beat_sent != 0 && now_ms(c) - c->beat_sent > (uint64_t)c->expiry_ms / 2)
		c->healthy_since = 0; /* the last one is late: a stall */
	if (c->beat_sent == 0 && rcall(c, on_beat, NULL, "EVAL %s 0 %s %s %d %d", BEAT, c->instance,
	                               c->name, c->expiry_ms, 2 * c->expiry_ms))
		c->beat_sent = now_ms(c);
	/* a seat or a watch of our own games taken or left, a game ended: who's and list's
	   rows (players, spectators, watchers) written again */
	if (c->ly.sess->epoch != c->sess_epoch) {
		c->sess_epoch = c->ly.sess->epoch;
		c->users_dirty = c->list_dirty = true;
	}
	flush_live(c);
	if (c->echo_sent == 0) {
		char ch[64];
		inbox_of(ch, c->name);
		if (publish(c, ch, "H", NULL, 0, NULL, NULL))
			c->echo_sent = now_ms(c);
	}
	for (struct rgame *g = c->rgames; g != NULL; g = g->next)
		if (g->resend)
			rg_resend(c, g);
	rcall(c, on_scan, NULL, "EVAL %s 0", SCAN);
}

/* ---- Redis connections -------------------------------------------------------------------- */

/* Everything of ours written again, every subscription made again, every owner asked. */
static void resync(struct cluster *c)
{
	c->synced_at = now_ms(c);
	c->users_dirty = c->list_dirty = c->users_reset = true;
	for (struct game *g = c->ly.sess->games; g != NULL; g = g->next)
		if (!g->freeing)
			rcall(c, NULL, NULL, "SET " KEY("owner:%" PRIu64) " %s", g->id, c->name);
	rcall(c, NULL, NULL, "DEL " KEY("seeks:%s"), c->name);
	for (struct seek *k = c->ly.lobby->seeks; k != NULL; k = k->next)
		if (k->to == NULL)
			seek_put(c, k);
	for (struct rgame *g = c->rgames; g != NULL; g = g->next) {
		g->resend = true; /* once its subscription is confirmed (on_sub) */
		rg_resend(c, g);
	}
	flush_live(c);
}

/* Both connections up and our inbox subscribed: everything of ours written again. */
static void reached(struct cluster *c)
{
	log_info("cluster redis reached node=%s redis=%s:%d", c->name, c->host, c->port);
	c->healthy_since = 0;
	resync(c);
}

static void on_connected(const redisAsyncContext *ac, int status)
{
	struct cluster *c = ac->data;
	bool pub = ac == c->pub;
	if (pub)
		c->pub_connecting = false;
	else
		c->sub_connecting = false;
	if (status != REDIS_OK) { /* hiredis frees it */
		if (pub)
			c->pub = NULL;
		else
			c->sub = NULL;
		return;
	}
	bool was_up = up(c);
	if (pub) {
		c->pub_up = true;
	} else {
		c->inbox_up = false;
		c->sub_up = true;
		redisAsyncCommand(c->sub, on_sub, NULL, "SUBSCRIBE " KEY("in:%s") " " KEY("lobby"),
		                  c->name);
		for (struct rgame *g = c->rgames; g != NULL; g = g->next)
			rg_subscribe(c, g);
	}
	if (!was_up && up(c))
		reached(c);
}

static void on_disconnected(const redisAsyncContext *ac, int status)
{
	(void)status;
	struct cluster *c = ac->data;
	bool was_up = up(c);
	if (ac == c->pub) {
		c->pub = NULL;
		c->pub_up = false;
		c->pub_connecting = false;
		c->beat_sent = 0;
		c->echo_sent = 0;
	} else {
		c->sub = NULL;
		c->sub_up = false;
		c->inbox_up = false;
		c->sub_connecting = false;
		c->echo_sent = 0;
		for (struct rgame *g = c->rgames; g != NULL; g = g->next)
			g->subscribed = g->subscribing = false;
	}
	c->healthy_since = 0;
	if (was_up && !c->stopping) {
		log_warn("cluster redis lost node=%s retry=now", c->name);
		fail_forwards_to(
		        c, NULL, ERR_CLUSTER_DOWN,
		        "the cluster's bus (Redis) went away; the command's outcome is not "
		        "known: look at the game's next state");
		/* watches waiting for a subscription */
		for (struct rgame *g = c->rgames; g != NULL; g = g->next)
			while (g->waiting != NULL) {
				struct pending_fwd *p = g->waiting;
				g->waiting = p->next;
				struct client *cl = client_by_id(c, p->conn);
				if (cl != NULL) {
					conn_release(cl->conn);
					answer_down(cl, &p->rq);
				}
				pending_free(p);
			}
	}
}

static redisAsyncContext *dial(struct cluster *c)
{
	redisAsyncContext *ac = redisAsyncConnect(c->host, c->port);
	if (ac == NULL)
		return NULL;
	if (ac->err || redisLibuvAttach(ac, c->ly.loop) != REDIS_OK) {
		redisAsyncFree(ac);
		return NULL;
	}
	ac->data = c;
	redisAsyncSetConnectCallback(ac, on_connected);
	redisAsyncSetDisconnectCallback(ac, on_disconnected);
	return ac;
}

/*
 * A connection asked for and still not made after this long is given up and
 * asked for again: hiredis's libuv adapter drops an error of the socket's
 * poll, so a refused connection would otherwise never report.
 */
#define DIAL_MS 1500

static void redial(struct cluster *c, redisAsyncContext **ac, bool *connecting, uint64_t *dialed)
{
	if (*ac != NULL && *connecting && now_ms(c) - *dialed > DIAL_MS) {
		redisAsyncFree(*ac); /* not connected: no callback comes */
		*ac = NULL;
		*connecting = false;
	}
	if (*ac == NULL && !*connecting) {
		*ac = dial(c);
		*connecting = *ac != NULL;
		*dialed = now_ms(c);
	}
}

static void connect_redis(struct cluster *c)
{
	if (c->stopping)
		return;
	redial(c, &c->pub, &c->pub_connecting, &c->pub_dialed);
	redial(c, &c->sub, &c->sub_connecting, &c->sub_dialed);
}

/* ---- start, recovery, stop ----------------------------------------------------------------- */

static const struct relay_sink sink = {.send = sink_send};

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
		redisReply *r =
		        redisCommand(rc, "HSET " KEY("nodes") " %s %s", c->name, c->instance);
		freeReplyObject(r);
		/* the live nodes known before the first login: a login's R reaches them (the
		   death scan keeps the list from the first beat on) */
		r = redisCommand(rc, "EVAL %s 0", SCAN);
		if (r != NULL && r->type == REDIS_REPLY_ARRAY)
			alive_set(r);
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
	                          .on_start = h_start,
	                          .on_move = h_move,
	                          .on_end = h_end,
	                          .on_undo = h_undo};
	sessions_set_hooks(c->ly.sess, &h);
	c->router = (struct router){
	        .ud = c, .game = route_game, .seek = route_seek, .verb = route_verb};
	c->ly.cmds->router = &c->router;
	struct lobby_hooks lh = {.ud = c,
	                         .on_login = on_login,
	                         .on_seek = on_seek_news,
	                         .seek_id = new_seek_id,
	                         .guest = check_guest,
	                         .name_held = name_held};
	lobby_set_hooks(c->ly.lobby, &lh);
	struct relay_sink rs = sink;
	rs.ud = c;
	relay_set_sink(&rs);
	the_cluster = c;
	uv_timer_init(c->ly.loop, &c->tick);
	c->tick.data = c;
	uv_timer_init(c->ly.loop, &c->retry);
	c->retry.data = c;
	uv_timer_start(&c->tick, on_tick, 0, (uint64_t)c->beat_ms);
	connect_redis(c);
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
	return restored;
}

void cluster_client_gone(struct cluster *c, struct client *cl)
{
	if (c == NULL)
		return;
	uint64_t id = cl->conn->id;
	if (cl->remote) {
		rc_forget(c, id);
		for (struct agg *a = c->aggs; a != NULL; a = a->next)
			if (a->conn == id)
				a->conn = 0;
		return;
	}
	if (cl->logged_in) {
		char key[PROTO_NAME_MAX + 1];
		key_lower(cl->name, key, sizeof key);
		rcall(c, NULL, NULL, "HDEL " KEY("users:%s") " %s", c->name, key);
		struct client *now = lobby_find_user(c->ly.lobby, cl->name); /* took it over */
		if (now != NULL && now != cl)
			user_put(c, now);
	}
	struct cstate *s = cs_get(c, id, false);
	if (s != NULL) {
		for (int i = 0; i < s->nnodes; i++) {
			char h[160];
			snprintf(h, sizeof h, "X %s %" PRIu64, c->instance, id);
			to_node(c, s->nodes[i], h, NULL, 0);
		}
		cs_drop(c, id);
	}
	for (struct rgame *g = c->rgames, *next; g != NULL; g = next) {
		next = g->next;
		if (rg_member(g, id) != NULL)
			rg_leave(c, g, id);
	}
}

void cluster_drain(struct cluster *c, struct client *cl)
{
	if (c == NULL || cl->remote)
		return;
	for (struct rgame *g = c->rgames; g != NULL; g = g->next) {
		struct member *m = rg_member(g, cl->conn->id);
		if (m != NULL && m->pending != NULL) {
			client_send(cl, m->pending);
			outbuf_unref(m->pending);
			m->pending = NULL;
		}
	}
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
	rcall(c, NULL, NULL, "EVAL %s 0 %s %s",
	      "if redis.call('GET', 'bitarena:node:' .. ARGV[1]) "
	      "== ARGV[2] then redis.call('DEL', 'bitarena:node:' "
	      ".. ARGV[1]) end return 1",
	      c->name, c->instance);
	c->stopping = true;
	uv_close((uv_handle_t *)&c->tick, on_tick_closed);
	uv_close((uv_handle_t *)&c->retry, on_tick_closed);
	on_retry(&c->retry); /* answered now */
	fail_forwards_to(c, NULL, ERR_CLUSTER_DOWN, "the server is shutting down");
	if (c->pub != NULL)
		redisAsyncDisconnect(c->pub);
	if (c->sub != NULL)
		redisAsyncDisconnect(c->sub);
}

void cluster_free(struct cluster *c)
{
	if (c == NULL)
		return;
	while (c->rgames != NULL) {
		struct rgame *g = c->rgames;
		c->rgames = g->next;
		rg_destroy(g);
	}
	for (int b = 0; b < CS_BUCKETS; b++)
		while (c->cs[b] != NULL) {
			struct cstate *s = c->cs[b];
			c->cs[b] = s->next;
			free(s);
		}
	while (c->rclients != NULL) {
		struct rclient *r = c->rclients;
		c->rclients = r->next;
		free(r);
	}
	while (c->aggs != NULL) {
		struct agg *a = c->aggs;
		c->aggs = a->next;
		free(a);
	}
	while (c->interests != NULL) {
		struct interest *i = c->interests;
		c->interests = i->next;
		free(i);
	}
	if (the_cluster == c)
		the_cluster = NULL;
	free(c);
}
