/*
 * cluster_internal.h - the cluster's private header (as libuv's internal.h):
 * the node's state (struct cluster and what hangs from it), the small helpers
 * every part uses (static inline, cluster_*), and the functions one part calls
 * in another. Included by the files of src/server/cluster/ only; the rest of
 * the server sees cluster.h.
 *
 * Who is who in the parts: "home" is the node holding a client's connection,
 * "owner" the node running a game. Everything runs on the loop thread but
 * the takeovers' claims (a uv work item with a store connection of its own).
 *
 * The parts, each calling only the ones listed before it (tests/layers.py
 * fails on a circle); a function another part calls carries its part's prefix:
 *   cluster_redis.c     redis_*     the two Redis connections, commands,
 *                                   publishing, subscriptions, to every node;
 *                                   its news goes up through struct redis_news
 *   cluster_remote.c    remote_*    remote games at the home: their players and
 *                                   spectators here, the owner cache
 *   cluster_home.c      home_*      the home side of a request: forwards to the
 *                                   owner and their answers
 *   cluster_owner.c     owner_*     the owner side of a game: relay clients and
 *                                   watchers, the remote spectators, the relay
 *                                   sink, the session hooks
 *   cluster_shared.c    shared_*    the lobby shared through Redis: seeks, users,
 *                                   games in progress; who / seeks / list
 *   cluster_events.c    cevents_*   the events' lease: tournaments, ladders and pools
 *                                   run by one node, their verbs forwarded there
 *   cluster_takeover.c  takeover_*  heartbeats, the death scan, takeovers, and
 *                                   the live state written again when Redis is back
 *   cluster.c           cluster_*   the node's life-cycle and the public API
 *                                   (cluster.h): it wires the parts' callbacks
 * Why these cuts: each part owns one kind of state (the connections; struct
 * rgame; struct cstate and the lookups; struct rclient, agg and interest; the
 * Redis hashes of the lobby; the heartbeat and the takeovers), and the order
 * follows what uses what: the home forwards for its remote games, the shared
 * lobby lists the remote games a user plays, a takeover fails the forwards,
 * closes the relay clients and writes the lobby again. The remote games are
 * a part of their own, below the forwards, because more than the forwards
 * use them (who lists them, a takeover asks their owners again) and because
 * what comes on their channels never goes through a forward.
 */
#ifndef BITARENA_SERVER_CLUSTER_INTERNAL_H
#define BITARENA_SERVER_CLUSTER_INTERNAL_H

#include "server/cluster/cluster.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <hiredis/async.h>
#include <hiredis/hiredis.h>

#include "server/cmd/commands.h"
#include "server/play/lobby.h"
#include "server/msg/msg.h"
#include "server/cluster/relay.h"
#include "server/play/session.h"

#define KEY(s)          "bitarena:" s
#define OWNER_TTL_MS    600000 /* an ended game's owner is known this long */
#define TAKEOVER_TTL_MS 30000
#define DEAD_TTL_MS     600000
#define CACHE_SLOTS     1024
#define CS_BUCKETS      256
#define NODES_FWD_MAX   8
#define SEEK_TRIES      10 /* a seek not found is looked up this many times, */
#define SEEK_RETRY_MS   20 /* this far apart, before NO_SUCH_SEEK */
#define ALIVE_MAX       64 /* nodes whose incarnation is followed */

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
	bool lookup;      /* its owner is looked up at every tick (remote_find_owner) */
	bool reseat;      /* our players' R did not reach the owner: sent again at the next tick */
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
	bool watch;           /* CMD_SPECTATE: a spectator of `game` once it is answered */
	bool takes_seek;      /* CMD_TAKES_SEEK: it takes seek `game` */
	struct outbuf *after; /* that seek's end, told after the answer (as one node does) */
};

/* A forward waiting for a lookup (the game's owner) or a subscription. */
struct pending_fwd {
	struct pending_fwd *next;
	uint64_t conn;
	uint64_t game;
	bool seek;                     /* game is a seek id */
	char user[PROTO_NAME_MAX + 1]; /* not "": a user's node is looked up (CMD_TO_USER) */
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

struct cluster;

/*
 * What the Redis part (cluster_redis.c) tells the parts above it, as the
 * server's layers hear from the ones below: through callbacks, set once by
 * cluster_start(). Each gets the cluster the news is for.
 */
struct redis_news {
	void (*reached)(struct cluster *c); /* up() turned true: our live state is written again */
	void (*lost)(struct cluster *c);    /* up() turned false (not stopping): what waits fails */
	/* the subscribing connection was made (the games' channels are subscribed to again), or
	 * lost */
	void (*subscriber)(struct cluster *c, bool made);
	void (*subscribed)(struct cluster *c, uint64_t game); /* g:<game> is confirmed */
	/* a message (header h, NUL-ended; then the body) on our inbox, a game's channel, the
	 * lobby's */
	void (*inbox)(struct cluster *c, char *h, char *body, size_t len);
	void (*game)(struct cluster *c, uint64_t game, const char *h, const char *body, size_t len);
	void (*lobby)(struct cluster *c, const char *h, const char *body, size_t len);
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
	struct redis_news news;
	bool pub_up, sub_up;
	bool inbox_up; /* the inbox's subscription is confirmed: messages to us arrive */
	bool pub_connecting, sub_connecting;
	uint64_t pub_dialed, sub_dialed; /* uv_now when the connection was asked for */
	uv_timer_t tick;
	uint64_t healthy_since; /* the first answered heartbeat after the last trouble */
	uint64_t beat_sent;     /* a heartbeat in flight, sent then (0: none) */
	/* our key renewed by a heartbeat sent then (0: not since we learnt we may have lost it):
	 * until lease_at + expiry_ms nobody can have declared us dead and taken our games */
	uint64_t lease_at;
	struct held *held, **held_tail; /* what our inbox asked of an owner, held meanwhile */
	size_t nheld;
	/* news from the heartbeat (cluster_takeover.c) up to cluster.c: lease_at was renewed,
	 * what the inbox held goes on */
	void (*lease_renewed)(struct cluster *c);
	uint64_t synced_at;  /* the last resync() */
	uint64_t echo_sent;  /* an echo to our own inbox in flight, sent then (0: none) */
	uint64_t sess_epoch; /* the sessions' epoch our users' rows were last written at */
	bool stopping;
	bool reviving; /* taking back what the store says is still ours (revive()) */
	/* Redis lost our key (a restart): the tombstone of a takeover may have gone with it, so
	 * which games are still ours is asked of the store before we act as their owner again */
	bool ours_unsure;
	bool resync_due; /* Redis reached again: resync() once a heartbeat says we are not dead */
	bool users_dirty, list_dirty;
	bool users_reset; /* the users' hash is written whole (after Redis came back) */
	bool resync;      /* Redis came back: write our live state again, ask for states */
	uint64_t next_fwd;
	unsigned takeovers;                             /* running */
	struct metric m_forwards, m_takeovers, m_taken; /* cluster_register_metrics() */

	struct rgame *rgames;
	struct cstate *cs[CS_BUCKETS];
	struct pending_fwd *lookups;
	struct pending_fwd *retries; /* seeks looked up again at the retry timer */
	uv_timer_t retry;
	struct rclient *rclients;
	struct agg *aggs;
	struct interest *interests;
	struct ocache cache[CACHE_SLOTS];
	struct relay_sink sink; /* where relay connections' output goes */
	/* each node's instance last seen alive: another one is a restart (its incarnation) */
	struct {
		char name[CLUSTER_NODE_MAX + 1];
		char instance[STORE_NODE_MAX + 1];
	} seen[ALIVE_MAX];
	int nseen;
	/* the events' lease (cluster_events.c) */
	char ev_node[CLUSTER_NODE_MAX + 1]; /* its holder's name as last read ("": nobody's) */
	bool ev_mine;                       /* we hold it: the events run here */
	uint64_t ev_nil_since;              /* uv_now since Redis has had no holder (0: it has) */
	char **ev_away;                     /* while ev_mine: names logged in elsewhere, sorted */
	size_t ev_naway;
};

/* A message to our inbox held while our lease is in doubt (cluster.c). */
struct held {
	struct held *next;
	char *body;
	size_t len;
	char h[];
};

/* ---- helpers every part uses ------------------------------------------------------------- */

/* The node's name of an instance ("n1#ab12" -> "n1"). */
static inline void cluster_node_name(const char *instance, char out[CLUSTER_NODE_MAX + 1])
{
	size_t n = strcspn(instance, "#");
	if (n > CLUSTER_NODE_MAX)
		n = CLUSTER_NODE_MAX;
	memcpy(out, instance, n);
	out[n] = '\0';
}

static inline uint64_t cluster_now(struct cluster *c)
{
	return uv_now(c->ly.loop);
}

/* A user's name as the hashes key it: lowercased. */
static inline void cluster_key(const char *name, char *out, size_t size)
{
	size_t i = 0;
	for (; name[i] && i + 1 < size; i++)
		out[i] = (name[i] >= 'A' && name[i] <= 'Z') ? (char)(name[i] - 'A' + 'a') : name[i];
	out[i] = '\0';
}

/* Our connection id's client, or NULL when it is gone. */
static inline struct client *cluster_client(struct cluster *c, uint64_t id)
{
	struct conn *cn = conn_find(c->ly.hub, id);
	return cn != NULL ? client_of(cn) : NULL;
}

/* The reply's parts of rq (tag, verb), without the arguments that point into its line. */
static inline struct proto_req cluster_rq_keep(const struct proto_req *rq)
{
	struct proto_req k = *rq;
	k.argc = 0;
	memset(k.argv, 0, sizeof k.argv);
	return k;
}

/* Identity flags of a client, as C and R carry them. */
static inline void cluster_identity(const struct client *cl, bool watching, char *flags,
                                    size_t size)
{
	bool in = cl->logged_in;
	/* a front-end's client (the playtak port) is spoken to in JSON, which its front-end
	   renders at home (home_out) */
	snprintf(flags, size, "%s%s%s%s%s%s%s", cl->json || cl->fe != NULL ? "j" : "",
	         cl->registered ? "r" : "", watching ? "w" : "", in ? "l" : "",
	         cl->want_watchers ? "v" : "", in && cl->prefs.bot ? "b" : "",
	         in && cl->prefs.bots_off ? "o" : "");
	if (flags[0] == '\0')
		snprintf(flags, size, "-");
}

/*
 * The token a client's home sends with its identity (C, R): a logged-in guest's, which the
 * owner's relay client keeps, so that the owner checks a guest's seats against it as it does
 * for its own clients (session_login); "-" for anyone else. The bus is the cluster's own.
 */
static inline const char *cluster_token(const struct client *cl)
{
	return cl->logged_in && !cl->registered && strlen(cl->token) == PROTO_TOKEN_LEN ? cl->token
	                                                                                : "-";
}

/* R for our logged-in client cl: its seats on other nodes come back (a guest's with its token). */
static inline void cluster_resume_header(struct cluster *c, const struct client *cl, char *h,
                                         size_t size)
{
	char flags[16];
	cluster_identity(cl, false, flags, sizeof flags);
	snprintf(h, size, "R %s %" PRIu64 " %s %" PRId64 " %s %s", c->instance, cl->conn->id, flags,
	         cl->rtt.known ? cl->rtt.ms : (int64_t)-1, cl->name, cluster_token(cl));
}

static inline void cluster_pending_free(struct pending_fwd *p)
{
	free(p->line);
	free(p);
}

/* ---- cluster_redis.c: Redis ---------------------------------------------------------------- */

/* Both connections up and our inbox subscribed: messages to and from us get through. */
bool redis_up(const struct cluster *c);
/* A command on the publishing connection (fn gets the cluster from the context's data);
 * false when Redis is not there (fn is not called then). */
bool redis_call(struct cluster *c, redisCallbackFn *fn, void *pd, const char *fmt, ...);
bool redis_publish(struct cluster *c, const char *channel, const char *header, const void *body,
                   size_t blen, redisCallbackFn *fn, void *pd);
void redis_inbox(char ch[64], const char *node);
void redis_to_node(struct cluster *c, const char *node, const char *header, const void *body,
                   size_t blen);
void redis_to_game(struct cluster *c, uint64_t game, const char *header);
void redis_to_others(struct cluster *c, const char *header);
void redis_down(struct client *cl, const struct proto_req *rq);
bool redis_subscribe_game(struct cluster *c, uint64_t game);
void redis_unsubscribe_game(struct cluster *c, uint64_t game);
void redis_connect(struct cluster *c);
void redis_tick(struct cluster *c);
void redis_echo(struct cluster *c);

/* ---- cluster_remote.c: remote games at the home -------------------------------------------- */

const char *remote_cache_get(struct cluster *c, uint64_t game);
void remote_cache_put(struct cluster *c, uint64_t game, const char *node);
struct rgame *remote_find(struct cluster *c, uint64_t id);
/* The remote game id, made (and subscribed to) on first use; owner: known now, or NULL. */
struct rgame *remote_get(struct cluster *c, uint64_t id, const char *owner);
struct member *remote_member(struct rgame *g, uint64_t conn);
bool remote_add(struct rgame *g, uint64_t conn, bool player, bool json);
void remote_tell_counts(struct cluster *c, struct rgame *g);
void remote_resend(struct cluster *c, struct rgame *g);
void remote_resend_due(struct cluster *c);
void remote_resync(struct cluster *c);
void remote_free(struct cluster *c, struct rgame *g);
void remote_leave(struct cluster *c, struct rgame *g, uint64_t conn);
void remote_plays(struct cluster *c, const char *owner, uint64_t conn, uint64_t game);
/* g's owner is not known (a game of ours another node took over): asked of Redis now and at
 * every tick until it is another node, then g moves there (V) */
void remote_find_owner(struct cluster *c, struct rgame *g);
/* The node (NULL: every node) running games our clients play forgot them (a new instance of
 * it, or of us after we were declared dead): our players' identities are sent there again (R:
 * their seats come back), our spectators counted again and the state asked for (Y). */
void remote_reseat(struct cluster *c, const char *node);
/* struct redis_news */
void remote_subscriber(struct cluster *c, bool made);
void remote_game_msg(struct cluster *c, uint64_t id, const char *h, const char *body, size_t len);
void remote_client_gone(struct cluster *c, uint64_t conn);
void remote_drain(struct cluster *c, struct client *cl);
void remote_clear(struct cluster *c);

/* ---- cluster_home.c: forwards ------------------------------------------------------------ */

struct cstate *home_cs_get(struct cluster *c, uint64_t conn, bool make);
bool home_route_game(void *ud, struct cmd *x);              /* struct router */
bool home_route_seek(void *ud, struct cmd *x, uint64_t id); /* struct router */
bool home_route_user(void *ud, struct cmd *x);              /* struct router */
void home_retry(uv_timer_t *t);
/* The command line of rq as its client sent it (malloc'd; NULL: out of memory). */
char *home_line_of(const struct proto_req *rq);
/* line (rq's) forwarded to node, cl's input held until the answer; false: answered here. */
bool home_forward_line(struct cluster *c, struct client *cl, const struct proto_req *rq,
                       const char *line, const char *node);
void home_out(struct cluster *c, uint64_t conn, const char *body, size_t len);
void home_answered(struct cluster *c, uint64_t conn, uint64_t n);
void home_subscribed(struct cluster *c, uint64_t game); /* struct redis_news */
void home_lost(struct cluster *c);                      /* struct redis_news */
void home_fail_forwards(struct cluster *c, const char *node, enum err_code code, const char *why);
void home_expire_forwards(struct cluster *c);
void home_client_gone(struct cluster *c, uint64_t conn);
void home_clear(struct cluster *c);

/* ---- cluster_owner.c: the owner's side ----------------------------------------------------- */

void owner_interest_set(struct cluster *c, const char *home, uint64_t game, bool json,
                        size_t count);
void owner_run(struct cluster *c, const char *home, uint64_t rconn, uint64_t n, const char *flags,
               int64_t rtt, const char *name, const char *token, char *line, size_t len);
void owner_resume(struct cluster *c, const char *home, uint64_t rconn, const char *flags,
                  int64_t rtt, const char *name, const char *token, bool login);
void owner_claim(struct cluster *c, const char *name, const char *token, const char *home,
                 uint64_t rconn);
void owner_resend(struct cluster *c, const char *home, uint64_t game);
void owner_gone(struct cluster *c, const char *home, uint64_t rconn);
void owner_home_gone(struct cluster *c, const char *instance);
void owner_drop_stale(struct cluster *c);
void owner_resync(struct cluster *c);
bool owner_sink_send(void *ud, struct conn *cn, const struct relay_id *id,
                     const struct outbuf *b); /* struct relay_sink */
/* struct session_hooks, around the journal's */
int owner_on_start(void *ud, const struct game *g, uint64_t *id);
int owner_on_move(void *ud, const struct game *g, const struct move_rec *m);
void owner_on_end(void *ud, const struct game *g);
int owner_on_undo(void *ud, const struct game *g, int nplies);
void owner_lost(void *ud, uint64_t game);              /* the journal's on_lost */
void owner_call_seats(struct cluster *c, uint64_t id); /* a game a takeover restored */
void owner_client_gone(struct cluster *c, uint64_t conn);
void owner_clear(struct cluster *c);

/* ---- cluster_shared.c: the lobby shared through Redis --------------------------------------- */

void shared_flush(struct cluster *c);
void shared_resync(struct cluster *c);
void shared_tick(struct cluster *c);
void shared_kick(struct cluster *c, const char *name, const char *where);
void shared_lobby_msg(struct cluster *c, const char *h, const char *body,
                      size_t len);          /* struct redis_news */
bool shared_route(void *ud, struct cmd *x); /* struct router */
/* struct lobby_hooks */
void shared_on_seek(void *ud, const struct seek *k, bool gone, struct msg *told);
uint64_t shared_seek_id(void *ud);
void shared_on_login(void *ud, struct client *cl);
void shared_on_claim(void *ud, struct client *cl);
void shared_on_logout(void *ud, struct client *cl);
bool shared_guest(void *ud, struct client *cl, const struct proto_req *rq, const char *name,
                  const char *token, bool given);
bool shared_name_held(void *ud, struct client *cl, const char *name,
                      void (*held)(void *arg, int verdict), void *arg);
void shared_client_gone(struct cluster *c, struct client *cl);

/* ---- cluster_events.c: the events' lease ------------------------------------------------------ */

/* At the start (synchronous, before listening): the lease taken when it is free or an earlier
 * instance's of ours, then the events back from the store. Their count, or a negative
 * enum store_err. */
int cevents_claim(struct cluster *c);
/* We took dead's games over: its lease too, and the events back from the store. */
void cevents_taken(struct cluster *c, const char *dead);
void cevents_tick(struct cluster *c);
bool cevents_route(void *ud, struct cmd *x, enum err_code code); /* struct router */
bool cevents_elsewhere(void *ud, const char *name);              /* struct lobby_hooks */
void cevents_tell(void *ud, const cJSON *j, const char *text);   /* struct tourneys */
/* T and A from `all` (the sender's name taken off) */
void cevents_msg(struct cluster *c, const char *h, const char *body, size_t len);
void cevents_clear(struct cluster *c);

/* ---- cluster_takeover.c: heartbeats, takeovers ---------------------------------------------- */

void takeover_reached(struct cluster *c); /* struct redis_news */
void takeover_beat(struct cluster *c);
void takeover_scan(struct cluster *c);

#endif
