/*
 * cluster_events.c - the cluster's events (tournaments, ladders, pools: src/server/events/)
 * run by one node, the holder of the events' lease (docs/cluster.md, 12): the key
 * `bitarena:events` names its instance. The lease has no expiry of its own: it goes with its
 * holder's games, to the node that takes them over (cevents_taken(): the games of the events
 * were all the holder's, so the taker has them in memory when it brings the events back from
 * the store), or to the holder's next incarnation (cevents_claim(), at a restart faster than
 * the death scan), or to the first node to start when nobody holds it.
 *
 * Here too: the events' verbs forwarded to the holder (the router's event()); the names logged
 * in on other nodes, which the holder pairs (the lobby's elsewhere() hook, read every beat);
 * tournament events told to every node's subscribers (T on `all`); and a seat of a game that
 * started here for a player connected elsewhere given to it (A on `all`: the player's home
 * answers with R, as after a login).
 *
 * Why one node for every event rather than one lease per event: a new tournament's id, a new
 * ladder (created by its first `ladder join`) and `tourney list` need no agreement between
 * nodes, there is one takeover to get right, and the pools pair everyone who waits anywhere.
 * What it costs: every event's games run on that node (their players may be anywhere).
 */
#include "server/cluster/cluster_internal.h"

#include "server/events/ladder.h"
#include "server/events/tourney.h"

/* Takes the lease for ARGV[1] (our instance; ARGV[2] our name) when nobody holds it, an
 * earlier instance of ours does, or a dead instance nobody will take over (gone from the nodes'
 * hash); 1 when ours. */
static const char CLAIM[] =
        "local v = redis.call('GET', 'bitarena:events') "
        "if v and v ~= ARGV[1] and string.sub(v, 1, #ARGV[2] + 1) ~= ARGV[2] .. '#' then "
        "  local n = string.match(v, '^[^#]*') "
        "  if redis.call('GET', 'bitarena:node:' .. n) == v or "
        "     redis.call('HGET', 'bitarena:nodes', n) == v then return 0 end "
        "end "
        "redis.call('SET', 'bitarena:events', ARGV[1]) "
        "return 1";

/* The lease of dead instance ARGV[1] goes to ARGV[2] (its taker); 1 when it moved. */
static const char MOVE[] = "if redis.call('GET', 'bitarena:events') == ARGV[1] then "
                           "  redis.call('SET', 'bitarena:events', ARGV[2]) return 1 "
                           "end return 0";

/* The names (keys of users:) logged in on every live node but ARGV[1]. */
static const char AWAY[] =
        "local out = {} "
        "local h = redis.call('HGETALL', 'bitarena:nodes') "
        "for i = 1, #h, 2 do "
        "  if h[i] ~= ARGV[1] and redis.call('GET', 'bitarena:node:' .. h[i]) == h[i + 1] then "
        "    for _, k in ipairs(redis.call('HKEYS', 'bitarena:users:' .. h[i])) do "
        "      out[#out + 1] = k "
        "    end "
        "  end "
        "end "
        "return out";

/* The events come back from the store (the lease is ours now): as after a restart. */
static int recover(struct cluster *c)
{
	c->ev_mine = true;
	snprintf(c->ev_node, sizeof c->ev_node, "%s", c->name);
	int t = c->ly.tourneys != NULL ? tourneys_recover(c->ly.tourneys) : 0;
	int l = c->ly.ladders != NULL ? ladders_recover(c->ly.ladders) : 0;
	log_info("cluster events node=%s tourneys=%d ladders=%d", c->name, t, l);
	return t < 0 ? t : l < 0 ? l : t + l;
}

int cevents_claim(struct cluster *c)
{
	struct timeval tv = {2, 0};
	redisContext *rc = redisConnectWithTimeout(c->host, c->port, tv);
	redisReply *r = rc != NULL && !rc->err
	                        ? redisCommand(rc, "EVAL %s 0 %s %s", CLAIM, c->instance, c->name)
	                        : NULL;
	bool mine = r != NULL && r->type == REDIS_REPLY_INTEGER && r->integer == 1;
	freeReplyObject(r);
	redisFree(rc);
	return mine ? recover(c) : 0;
}

static void on_moved(redisAsyncContext *ac, void *r, void *pd)
{
	(void)pd;
	struct cluster *c = ac->data;
	redisReply *rep = r;
	if (!c->stopping && rep != NULL && rep->type == REDIS_REPLY_INTEGER && rep->integer == 1)
		recover(c);
}

void cevents_taken(struct cluster *c, const char *dead)
{
	redis_call(c, on_moved, NULL, "EVAL %s 0 %s %s", MOVE, dead, c->instance);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void away_free(struct cluster *c)
{
	for (size_t i = 0; i < c->ev_naway; i++)
		free(c->ev_away[i]);
	free(c->ev_away);
	c->ev_away = NULL;
	c->ev_naway = 0;
}

static void on_away(redisAsyncContext *ac, void *r, void *pd)
{
	(void)pd;
	struct cluster *c = ac->data;
	redisReply *rep = r;
	if (c->stopping || rep == NULL || rep->type != REDIS_REPLY_ARRAY)
		return;
	char **v = calloc(rep->elements + 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; v != NULL && i < rep->elements; i++)
		if (rep->element[i]->type == REDIS_REPLY_STRING &&
		    (v[n] = strndup(rep->element[i]->str, rep->element[i]->len)) != NULL)
			n++;
	if (v == NULL)
		return;
	qsort(v, n, sizeof *v, by_name);
	bool same = n == c->ev_naway;
	for (size_t i = 0; i < n && same; i++)
		same = strcmp(v[i], c->ev_away[i]) == 0;
	away_free(c);
	c->ev_away = v;
	c->ev_naway = n;
	if (!same) /* someone came or went elsewhere: the ladder pairs again (its epoch test) */
		c->ly.lobby->epoch++;
}

bool cevents_elsewhere(void *ud, const char *name)
{
	struct cluster *c = ud;
	char key[PROTO_NAME_MAX + 1];
	cluster_key(name, key, sizeof key);
	const char *k = key;
	return c->ev_mine && c->ev_naway > 0 &&
	       bsearch(&k, c->ev_away, c->ev_naway, sizeof *c->ev_away, by_name) != NULL;
}

static void on_holder(redisAsyncContext *ac, void *r, void *pd)
{
	(void)pd;
	struct cluster *c = ac->data;
	redisReply *rep = r;
	if (c->stopping || rep == NULL)
		return;
	if (rep->type == REDIS_REPLY_STRING) {
		char inst[STORE_NODE_MAX + 1];
		snprintf(inst, sizeof inst, "%.*s", (int)rep->len, rep->str);
		cluster_node_name(inst, c->ev_node);
		if (c->ev_mine && strcmp(inst, c->instance) != 0) {
			/* declared dead while alive: the taker runs them now (our games of theirs
			   were given up: revive()) */
			log_warn("cluster events lease lost node=%s holder=%s", c->name, inst);
			if (c->ly.tourneys != NULL)
				tourneys_forget(c->ly.tourneys);
			if (c->ly.ladders != NULL)
				ladders_forget(c->ly.ladders);
			away_free(c);
		}
		c->ev_mine = strcmp(inst, c->instance) == 0;
	} else if (rep->type == REDIS_REPLY_NIL) {
		c->ev_node[0] = '\0';
		uint64_t now = cluster_now(c);
		if (c->ev_nil_since == 0)
			c->ev_nil_since = now;
		if (c->ev_mine) /* Redis lost it (a restart): ours again */
			redis_call(c, NULL, NULL, "SET " KEY("events") " %s NX", c->instance);
		else if (now - c->ev_nil_since > 2 * (uint64_t)c->expiry_ms)
			/* nobody wrote it again for that long (Redis lost it, and its holder too):
			   the first node to ask takes it */
			redis_call(c, on_moved, NULL, "EVAL %s 0 %s %s", CLAIM, c->instance,
			           c->name);
		return;
	}
	c->ev_nil_since = 0;
}

void cevents_tick(struct cluster *c)
{
	redis_call(c, on_holder, NULL, "GET " KEY("events"));
	if (c->ev_mine)
		redis_call(c, on_away, NULL, "EVAL %s 0 %s", AWAY, c->name);
}

/* A request of the events while its holder is asked of Redis (the client held). */
struct evwait {
	uint64_t conn;
	struct proto_req rq; /* its tag and verb */
	char *line;
	enum err_code code;
};

/* line (of cl's rq) to the events' node, or answered when there is none (code). */
static bool route_to_holder(struct cluster *c, struct client *cl, const struct proto_req *rq,
                            const char *line, enum err_code code)
{
	if (c->ev_node[0] != '\0' && strcmp(c->ev_node, c->name) != 0)
		return home_forward_line(c, cl, rq, line, c->ev_node);
	reply_err(cl, rq, code,
	          "no node of the cluster runs its tournaments, ladders and pools right now "
	          "(another takes them over within seconds): try again shortly");
	return false;
}

static void on_holder_asked(redisAsyncContext *ac, void *r, void *pd)
{
	struct evwait *w = pd;
	struct cluster *c = ac->data;
	redisReply *rep = r;
	struct client *cl = cluster_client(c, w->conn);
	if (rep != NULL && rep->type == REDIS_REPLY_STRING) {
		char inst[STORE_NODE_MAX + 1];
		snprintf(inst, sizeof inst, "%.*s", (int)rep->len, rep->str);
		cluster_node_name(inst, c->ev_node);
	} else if (rep != NULL && rep->type == REDIS_REPLY_NIL) {
		c->ev_node[0] = '\0';
	}
	if (cl != NULL) {
		conn_release(cl->conn);
		if (rep == NULL || c->stopping)
			redis_down(cl, &w->rq);
		else
			route_to_holder(c, cl, &w->rq, w->line, w->code);
	}
	free(w->line);
	free(w);
}

bool cevents_route(void *ud, struct cmd *x, enum err_code code)
{
	struct cluster *c = ud;
	if (x->cl->remote || c->ev_mine) /* forwarded here, or ours: run here */
		return false;
	if (!redis_up(c)) {
		redis_down(x->cl, x->rq);
		return true;
	}
	/* The holder is asked of Redis for every request rather than taken from the beat's last
	   read: a takeover moves the lease between two beats, and a request sent to the dead
	   holder in that window would fail although the taker runs the events already (one round
	   trip to Redis for a verb people send a few times a game). */
	char *line = home_line_of(x->rq);
	struct evwait *w = line != NULL ? calloc(1, sizeof *w) : NULL;
	if (w == NULL) {
		reply_oom(x->cl, x->rq);
	} else {
		*w = (struct evwait){.conn = x->cl->conn->id,
		                     .rq = cluster_rq_keep(x->rq),
		                     .line = line,
		                     .code = code};
		if (redis_call(c, on_holder_asked, w, "GET " KEY("events"))) {
			conn_hold(x->cl->conn);
			x->forwarded = true;
			return true;
		}
		free(w);
		redis_down(x->cl, x->rq);
	}
	free(line);
	return true;
}

void cevents_tell(void *ud, const cJSON *j, const char *text)
{
	struct cluster *c = ud;
	char *s = cJSON_PrintUnformatted(j);
	char *body = s != NULL ? xasprintf("%s\n%s", s, text) : NULL;
	char h[64];
	snprintf(h, sizeof h, "%s T", c->name);
	if (body != NULL)
		redis_publish(c, KEY("all"), h, body, strlen(body), NULL, NULL);
	free(body);
	free(s);
}

/* T: a tournament's event, for our subscribers. */
static void told(struct cluster *c, const char *body, size_t len)
{
	const char *nl = memchr(body, '\n', len);
	if (nl == NULL || c->ly.tourneys == NULL)
		return;
	cJSON *j = cJSON_ParseWithLength(body, (size_t)(nl - body));
	char *text = strndup(nl + 1, len - (size_t)(nl + 1 - body));
	if (j == NULL || text == NULL) {
		cJSON_Delete(j);
		free(text);
		return;
	}
	tourney_tell_here(c->ly.tourneys, j, text);
}

void cevents_msg(struct cluster *c, const char *h, const char *body, size_t len)
{
	char node[CLUSTER_NODE_MAX + 1], name[PROTO_NAME_MAX + 1];
	if (h[0] == 'T') {
		told(c, body, len);
	} else if (h[0] == 'A' && sscanf(h, "A %32s %20s", node, name) == 2) {
		/* a game at node has a seat for our client name: it takes it as after a login */
		struct client *cl = lobby_find_user(c->ly.lobby, name);
		char r[256];
		if (cl != NULL) {
			cluster_resume_header(c, cl, r, sizeof r);
			redis_to_node(c, node, r, NULL, 0);
		}
	}
}

void cevents_clear(struct cluster *c)
{
	away_free(c);
}
