/*
 * cluster_home.c - the home side of a client's request: a command on a game
 * (or a seek) this node does not hold is forwarded to its owner (C), the
 * owner looked up first when it is not known, the client's input held until
 * the answer (D) comes back, with the output (O) in between; a forward not
 * answered in time, or lost with its node or with Redis, is answered in its
 * stead.
 */
#include "server/cluster/cluster_internal.h"

/* ---- per-client state at home ------------------------------------------------------------- */

struct cstate *home_cs_get(struct cluster *c, uint64_t conn, bool make)
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

static void release(struct cluster *c, struct cstate *s)
{
	s->fwd = 0;
	struct client *cl = cluster_client(c, s->conn);
	if (cl != NULL && s->after != NULL)
		client_send(cl, s->after);
	outbuf_unref(s->after);
	s->after = NULL;
	if (cl != NULL)
		conn_release(cl->conn);
}

/* s's forward answered here instead of by its node (code, why), the client let in again. */
static void fwd_answer(struct cluster *c, struct cstate *s, enum err_code code, const char *why)
{
	struct client *cl = cluster_client(c, s->conn);
	if (cl != NULL)
		reply_err(cl, &s->rq, code, "%s", why);
	release(c, s);
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
	struct fwd_ref ref = *(struct fwd_ref *)pd;
	free(pd);
	struct cluster *c = ac->data;
	redisReply *rep = r;
	if (rep == NULL || rep->type != REDIS_REPLY_INTEGER || rep->integer > 0)
		return; /* delivered, or Redis went away (every forward is failed then) */
	struct cstate *s = home_cs_get(c, ref.conn, false);
	if (s == NULL || s->fwd != ref.fwd)
		return;
	char why[256];
	snprintf(why, sizeof why,
	         "node %s, which runs it, is not on the cluster's bus right now (reconnecting to "
	         "Redis, or gone: then another node takes its games over within seconds); nothing "
	         "was done: try again shortly",
	         s->fwd_node);
	fwd_answer(c, s, ERR_CLUSTER_DOWN, why);
}

/* Sends the line to node for client cl; its input waits for the answer. False: answered. */
static bool forward(struct cluster *c, struct client *cl, const struct proto_req *rq,
                    const char *line, const char *node, uint64_t game, bool watch)
{
	struct cstate *s = home_cs_get(c, cl->conn->id, true);
	if (s == NULL) {
		reply_oom(cl, rq);
		return false;
	}
	bool watching = false;
	struct rgame *g = remote_find(c, game);
	if (g != NULL) {
		struct member *m = remote_member(g, cl->conn->id);
		watching = m != NULL && !m->player;
	}
	char flags[16], h[256];
	cluster_identity(cl, watching, flags, sizeof flags);
	s->fwd = ++c->next_fwd;
	metric_inc(&c->m_forwards);
	s->deadline = cluster_now(c) + (uint64_t)c->forward_ms;
	snprintf(s->fwd_node, sizeof s->fwd_node, "%s", node);
	s->rq = cluster_rq_keep(rq);
	s->game = game;
	s->watch = watch;
	s->takes_seek = (rq->cmd->flags & CMD_TAKES_SEEK) != 0;
	cs_note_node(s, node);
	snprintf(h, sizeof h, "C %s %" PRIu64 " %" PRIu64 " %s %" PRId64 " %s %s", c->instance,
	         cl->conn->id, s->fwd, flags, cl->rtt.known ? cl->rtt.ms : (int64_t)-1,
	         cl->logged_in ? cl->name : "-", cluster_token(cl));
	struct fwd_ref *ref = malloc(sizeof *ref);
	char ch[64];
	redis_inbox(ch, node);
	if (ref != NULL) {
		*ref = (struct fwd_ref){.conn = cl->conn->id, .fwd = s->fwd};
		if (!redis_publish(c, ch, h, line, strlen(line), on_fwd_sent, ref))
			free(ref);
	} else {
		redis_publish(c, ch, h, line, strlen(line), NULL, NULL);
	}
	conn_hold(cl->conn);
	return true;
}

char *home_line_of(const struct proto_req *rq)
{
	return line_of(rq);
}

bool home_forward_line(struct cluster *c, struct client *cl, const struct proto_req *rq,
                       const char *line, const char *node)
{
	return forward(c, cl, rq, line, node, 0, false);
}

/* A forward whose owner (or subscription) is known now: sent, or answered. */
static void pending_go(struct cluster *c, struct pending_fwd *p, const char *owner)
{
	struct client *cl = cluster_client(c, p->conn);
	if (cl == NULL) {
		cluster_pending_free(p);
		return;
	}
	conn_release(cl->conn); /* held while looking up */
	if (!redis_up(c)) {
		redis_down(cl, &p->rq);
		cluster_pending_free(p);
		return;
	}
	/* nobody's, or ours yet not here: gone since */
	if (owner == NULL || owner[0] == '\0' || strcmp(owner, c->name) == 0) {
		if (p->user[0] != '\0')
			reply_err(cl, &p->rq, ERR_NO_SUCH_USER, "%s is not online", p->user);
		else if (p->seek)
			reply_no_seek(cl, &p->rq, p->game);
		else
			reply_no_game(cl, &p->rq, p->game);
		cluster_pending_free(p);
		return;
	}
	if (!p->seek && p->user[0] == '\0')
		remote_cache_put(c, p->game, owner);
	if (p->watch) {
		struct rgame *g = remote_get(c, p->game, owner);
		if (g != NULL && !g->subscribed) { /* sent once the subscription is confirmed */
			conn_hold(cl->conn);
			p->next = g->waiting;
			g->waiting = p;
			return;
		}
	}
	forward(c, cl, &p->rq, p->line, owner, p->game, p->watch);
	cluster_pending_free(p);
}

/* p cannot go on, Redis being away: its client (held meanwhile) gets CLUSTER_DOWN; p is freed. */
static void pending_down(struct cluster *c, struct pending_fwd *p)
{
	struct client *cl = cluster_client(c, p->conn);
	if (cl != NULL) {
		conn_release(cl->conn);
		redis_down(cl, &p->rq);
	}
	cluster_pending_free(p);
}

static void on_lookup(redisAsyncContext *ac, void *r, void *pd)
{
	struct pending_fwd *p = pd;
	struct cluster *c = ac->data;
	for (struct pending_fwd **pp = &c->lookups; *pp != NULL; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	redisReply *rep = r;
	char owner[CLUSTER_NODE_MAX + 1] = "";
	if (rep != NULL && rep->type == REDIS_REPLY_STRING)
		snprintf(owner, sizeof owner, "%.*s", (int)rep->len, rep->str);
	bool heard = rep != NULL;
	if (heard && owner[0] == '\0' && p->seek && ++p->tries < SEEK_TRIES && !c->stopping) {
		/* its id may have reached the client before its node's HSET reached Redis (a bot
		   on another node accepting at once): looked up again shortly, the client held */
		p->next = c->retries;
		c->retries = p;
		uv_timer_start(&c->retry, home_retry, SEEK_RETRY_MS, 0);
		return;
	}
	if (!heard) { /* Redis went away meanwhile */
		pending_down(c, p);
		return;
	}
	pending_go(c, p, owner); /* p is freed, or queued on its game */
}

/*
 * The live node other than ARGV[2] ("#": none) whose hash KEY(<ARGV[3]>:<node>) or
 * KEY(<ARGV[4]>:<node>) has field ARGV[1] (or nil): a seek's node (seeks:, or challenges: for a
 * challenge, which is not listed), a user's (users:).
 */
static const char FIELD_NODE[] =
        "local h = redis.call('HGETALL', 'bitarena:nodes') "
        "for i = 1, #h, 2 do "
        "  if h[i] ~= ARGV[2] and redis.call('GET', 'bitarena:node:' .. h[i]) == h[i + 1] then "
        "    for k = 3, #ARGV do "
        "      if redis.call('HEXISTS', 'bitarena:' .. ARGV[k] .. ':' .. h[i], ARGV[1]) == 1 "
        "      then return h[i] end "
        "    end "
        "  end "
        "end "
        "return false";

/* Asks Redis for p's owner (or its seek's node, or its user's); false when Redis is not there. */
static bool lookup_send(struct cluster *c, struct pending_fwd *p)
{
	char key[PROTO_NAME_MAX + 1];
	cluster_key(p->user, key, sizeof key);
	bool sent =
	        p->user[0] != '\0' ? redis_call(c, on_lookup, p, "EVAL %s 0 %s %s users",
	                                        FIELD_NODE, key, c->name)
	        : p->seek ? redis_call(c, on_lookup, p, "EVAL %s 0 %" PRIu64 " # seeks challenges",
	                               FIELD_NODE, p->game)
	                  : redis_call(c, on_lookup, p, "GET " KEY("owner:%" PRIu64), p->game);
	if (sent) {
		p->next = c->lookups;
		c->lookups = p;
	}
	return sent;
}

void home_retry(uv_timer_t *t)
{
	struct cluster *c = t->data;
	struct pending_fwd *list = c->retries;
	c->retries = NULL;
	while (list != NULL) {
		struct pending_fwd *p = list;
		list = p->next;
		if (c->stopping || !lookup_send(c, p))
			pending_down(c, p);
	}
}

/* Looks the owner (or the seek's node, or user's: not NULL) up, the client held meanwhile
 * (x->forwarded). */
static bool lookup(struct cluster *c, struct cmd *x, uint64_t id, bool seek, bool watch,
                   const char *user)
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
	snprintf(p->user, sizeof p->user, "%s", user != NULL ? user : "");
	p->line = line;
	p->rq = cluster_rq_keep(x->rq);
	if (!lookup_send(c, p)) {
		cluster_pending_free(p);
		redis_down(x->cl, x->rq);
		return true;
	}
	conn_hold(x->cl->conn);
	x->forwarded = true;
	return true;
}

/* The dispatcher's router: a game not in our memory. */
bool home_route_game(void *ud, struct cmd *x)
{
	struct cluster *c = ud;
	struct client *cl = x->cl;
	if (cl->remote) /* a line forwarded to us is never forwarded again */
		return false;
	unsigned fl = x->rq->cmd->flags;
	bool watch = (fl & CMD_SPECTATE) != 0;
	struct rgame *g = remote_find(c, x->id);
	if ((fl & CMD_UNSPECTATE) && g != NULL) {
		struct member *m = remote_member(g, cl->conn->id);
		if (m != NULL && !m->player) {
			remote_leave(c, g, cl->conn->id);
			cJSON *f = cJSON_CreateObject();
			cJSON_AddNumberToObject(f, "game", (double)x->id);
			reply_ok(cl, x->rq, f, NULL, "no longer watching game %" PRIu64, x->id);
			return true;
		}
	}
	if (!redis_up(c)) {
		redis_down(cl, x->rq);
		return true;
	}
	const char *owner = remote_cache_get(c, x->id);
	if (owner == NULL && g != NULL && g->owner[0])
		owner = g->owner;
	if (owner == NULL || strcmp(owner, c->name) == 0)
		return lookup(c, x, x->id, false, watch, NULL);
	if (watch && (g == NULL || !g->subscribed))
		return lookup(c, x, x->id, false, watch, NULL); /* subscribes first */
	char *line = line_of(x->rq);
	if (line == NULL) {
		reply_oom(cl, x->rq);
		return true;
	}
	x->forwarded = forward(c, cl, x->rq, line, owner, x->id, watch);
	free(line);
	return true;
}

/* x names a seek (id) or a user not here: looked up, then forwarded to its node. */
static bool route_lookup(struct cluster *c, struct cmd *x, uint64_t id, const char *user)
{
	if (x->cl->remote) /* a line forwarded to us is never forwarded again */
		return false;
	if (!redis_up(c)) {
		redis_down(x->cl, x->rq);
		return true;
	}
	return lookup(c, x, id, user == NULL, false, user);
}

bool home_route_seek(void *ud, struct cmd *x, uint64_t id)
{
	return route_lookup(ud, x, id, NULL);
}

/* A user not connected here (tell, match): the line goes to the node holding its connection. */
bool home_route_user(void *ud, struct cmd *x)
{
	return route_lookup(ud, x, 0, x->rq->argv[0]);
}

/* ---- messages at home: output, answers, the game channels ---------------------------------- */

void home_out(struct cluster *c, uint64_t conn, const char *body, size_t len)
{
	struct client *cl = cluster_client(c, conn);
	if (cl == NULL || len == 0)
		return;
	/* through its front-end's foreign hook: the API's streams, the playtak port (which
	   renders the JSON lines of its clients, forwarded with the JSON flag, cluster_identity) */
	struct outbuf *b = outbuf_new(body, len);
	client_send_foreign(cl, b);
	outbuf_unref(b);
	struct cstate *s = home_cs_get(c, conn, false);
	if (s != NULL && s->fwd != 0 && s->after != NULL) {
		/* the accept's answer is out: the seek's end follows it, as on one node */
		client_send(cl, s->after);
		outbuf_unref(s->after);
		s->after = NULL;
	}
}

void home_answered(struct cluster *c, uint64_t conn, uint64_t n)
{
	struct cstate *s = home_cs_get(c, conn, false);
	if (s == NULL || s->fwd != n)
		return;
	struct client *cl = cluster_client(c, conn);
	if (s->watch && cl != NULL) {
		struct rgame *g = remote_get(c, s->game, s->fwd_node);
		if (g != NULL) {
			/* a spectator now, unless it plays there (then it hears its seat's output)
			 */
			if (remote_member(g, conn) == NULL)
				remote_add(g, conn, false, cl->json);
			remote_tell_counts(c, g);
			c->users_dirty = true;
		}
	}
	release(c, s);
}

/* The watches that waited for g's subscription: forwarded now, or answered when Redis is away. */
static void waiting_go(struct cluster *c, struct rgame *g)
{
	while (g->waiting != NULL) {
		struct pending_fwd *p = g->waiting;
		g->waiting = p->next;
		struct client *cl = cluster_client(c, p->conn);
		if (cl != NULL) {
			conn_release(cl->conn);
			if (g->owner[0] && redis_up(c))
				forward(c, cl, &p->rq, p->line, g->owner, p->game, true);
			else
				redis_down(cl, &p->rq);
		}
		cluster_pending_free(p);
	}
}

/* News from Redis: our subscription to game's channel is confirmed. */
void home_subscribed(struct cluster *c, uint64_t game)
{
	struct rgame *g = remote_find(c, game);
	if (g == NULL)
		return;
	g->subscribed = true;
	if (g->resend)
		remote_resend(c, g);
	waiting_go(c, g);
	if (g->n == 0) /* nobody came after all */
		remote_free(c, g);
}

void home_fail_forwards(struct cluster *c, const char *node, enum err_code code, const char *why)
{
	for (int b = 0; b < CS_BUCKETS; b++)
		for (struct cstate *s = c->cs[b]; s != NULL; s = s->next) {
			if (s->fwd != 0 && (node == NULL || strcmp(s->fwd_node, node) == 0))
				fwd_answer(c, s, code, why);
		}
}

/* Forwards not answered in time. */
void home_expire_forwards(struct cluster *c)
{
	uint64_t now = cluster_now(c);
	for (int b = 0; b < CS_BUCKETS; b++)
		for (struct cstate *s = c->cs[b]; s != NULL; s = s->next) {
			if (s->fwd == 0 || now < s->deadline)
				continue;
			char why[160];
			snprintf(why, sizeof why,
			         "node %s did not answer in time; the command's outcome is not "
			         "known: look at the game's next state",
			         s->fwd_node);
			fwd_answer(c, s, ERR_NODE_GONE, why);
		}
}

/* News from Redis: it went away (up() is false): forwards in flight and watches waiting fail. */
void home_lost(struct cluster *c)
{
	home_fail_forwards(c, NULL, ERR_CLUSTER_DOWN,
	                   "the cluster's bus (Redis) went away; the command's outcome is not "
	                   "known: look at the game's next state");
	for (struct rgame *g = c->rgames; g != NULL; g = g->next)
		waiting_go(c, g);
}

/* Our client conn is gone: the nodes it sent lines to close their relay clients for it (X). */
void home_client_gone(struct cluster *c, uint64_t conn)
{
	struct cstate *s = home_cs_get(c, conn, false);
	if (s == NULL)
		return;
	for (int i = 0; i < s->nnodes; i++) {
		char h[160];
		snprintf(h, sizeof h, "X %s %" PRIu64, c->instance, conn);
		redis_to_node(c, s->nodes[i], h, NULL, 0);
	}
	cs_drop(c, conn);
}

/* Every client's state freed (cluster_free(): the loop has ended). */
void home_clear(struct cluster *c)
{
	for (int b = 0; b < CS_BUCKETS; b++)
		while (c->cs[b] != NULL) {
			struct cstate *s = c->cs[b];
			c->cs[b] = s->next;
			free(s);
		}
}
