/*
 * cluster_takeover.c - heartbeats and the death scan, the takeover of a dead
 * node's games from PostgreSQL (a storage connection of its own on a uv work
 * item), the node going on after it was declared dead while alive (it gives
 * up the games taken from it), and the node's live state written again when
 * Redis is back.
 */
#include "server/cluster/cluster_internal.h"

#include "server/records/journal.h"

/* ---- heartbeats, the death scan, takeovers ------------------------------------------------ */

/* Renews our key; -1: we were declared dead, -2: another instance has our name, 0: our key had
 * gone (Redis lost it, or we were too slow), 1: renewed. */
static const char BEAT[] =
        "if redis.call('EXISTS', 'bitarena:dead:' .. ARGV[1]) == 1 then return -1 end "
        "local v = redis.call('GET', 'bitarena:node:' .. ARGV[2]) "
        "if v and v ~= ARGV[1] then return -2 end "
        "redis.call('SET', 'bitarena:node:' .. ARGV[2], ARGV[1], 'PX', ARGV[3]) "
        "redis.call('HSET', 'bitarena:nodes', ARGV[2], ARGV[1]) "
        "for _, k in ipairs({'users', 'list', 'seats', 'seeks', 'challenges'}) do "
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
static void revive(struct cluster *c, bool declared);

static void on_beat(redisAsyncContext *ac, void *r, void *pd)
{
	(void)pd;
	struct cluster *c = ac->data;
	redisReply *rep = r;
	if (c->stopping)
		return;
	uint64_t sent = c->beat_sent, took = sent ? cluster_now(c) - sent : 0;
	c->beat_sent = 0;
	if (rep == NULL || rep->type != REDIS_REPLY_INTEGER) {
		c->healthy_since = 0;
		return;
	}
	if (rep->integer == -1) {
		c->lease_at = 0;
		/* it writes our live state again once we gave up what is not ours */
		revive(c, true);
		return;
	}
	if (rep->integer < 0) {
		log_error("cluster node exits node=%s instance=%s why=%s", c->name, c->instance,
		          "\"its name is held by another instance\"");
		exit(1);
	}
	if (took > (uint64_t)c->expiry_ms / 2 || rep->integer == 0)
		c->healthy_since = 0; /* a stall, or Redis lost our key: not healthy yet */
	/* Redis lost our key (not just after a resync): a restart, which took the tombstone of a
	 * takeover with it when another node had declared us dead just before (a nemesis run:
	 * cut off, taken over, Redis restarted, back: our copies of the games taken went on
	 * serving our players for ever) */
	if (rep->integer == 0 &&
	    (c->resync_due || cluster_now(c) - c->synced_at > (uint64_t)c->expiry_ms))
		c->ours_unsure = true;
	/* our key never lapsed: nobody took our games */
	if (rep->integer == 1 && sent != 0 && !c->ours_unsure && !c->reviving) {
		c->lease_at = sent;
		if (c->lease_renewed != NULL)
			c->lease_renewed(c);
	}
	if (c->healthy_since == 0)
		c->healthy_since = cluster_now(c);
	if (c->ours_unsure)
		revive(c, false); /* then resync(), with the games not ours given up */
	else if (c->resync_due)
		resync(c); /* Redis reached again */
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
	uint64_t durable; /* a revival's: the journal's records durable before its claim began */
	bool declared;    /* a revival's: a tombstone says we were declared dead */
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
	(void)pd;
	struct cluster *c = ac->data;
	redisReply *rep = r;
	if (rep == NULL || rep->type != REDIS_REPLY_ARRAY)
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
			redis_publish(c, KEY("lobby"), h, s, strlen(s), NULL, NULL);
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
			redis_call(c, NULL, NULL, "SET " KEY("owner:%" PRIu64) " %s", id, c->name);
			char h[64];
			snprintf(h, sizeof h, "V %s", c->name);
			redis_to_game(c, id, h);
			owner_call_seats(c, id);
		}
		/* its events, whose games came with the rest; before it leaves `nodes`, so that no
		   node starting meanwhile takes the lease of a dead node nobody takes over */
		cevents_taken(c, t->from);
		char name[CLUSTER_NODE_MAX + 1];
		cluster_node_name(t->from, name);
		redis_call(c, on_buried, NULL, "EVAL %s 0 %s %s %s %d", BURY, t->from, name,
		           c->instance, DEAD_TTL_MS);
		/* every node closes its relay clients of the dead instance (Z): one that did not
		   judge it dead (paused, or just unhealthy) no longer finds it in the scan */
		char z[STORE_NODE_MAX + 8];
		snprintf(z, sizeof z, "Z %s", t->from);
		redis_to_others(c, z);
		c->list_dirty = true;
		shared_flush(c); /* the guest seats taken over (seats:) now: a guest logging in
		                    with its token on another node is checked against them */
		journal_settle(c->ly.journal, false);
		log_info("cluster takeover node=%s games=%d from=%s", c->name, restored, t->from);
		metric_inc(&c->m_takeovers);
		metric_add(&c->m_taken, restored);
	}
	store_games_free(t->v, t->n);
	free(t);
}

static void on_takeover_lock(redisAsyncContext *ac, void *r, void *pd)
{
	(void)ac;
	struct takeover *t = pd;
	struct cluster *c = t->c;
	redisReply *rep = r;
	bool mine = rep != NULL && rep->type == REDIS_REPLY_STATUS && !c->stopping;
	if (!mine) { /* another node takes it over, or Redis went */
		free(t);
		return;
	}
	c->takeovers++;
	if (uv_queue_work(c->ly.loop, &t->req, takeover_work, takeover_done) != 0) {
		c->takeovers--;
		free(t);
	}
}

/* A claim of instance's games for us, on a storage connection of its own (takeover_work). */
static struct takeover *claim_new(struct cluster *c, const char *instance)
{
	struct takeover *t = calloc(1, sizeof *t);
	if (t == NULL)
		return NULL;
	t->c = c;
	snprintf(t->from, sizeof t->from, "%s", instance);
	t->o = c->store;
	snprintf(t->conninfo, sizeof t->conninfo, "%s", c->conninfo);
	snprintf(t->node, sizeof t->node, "%s", c->instance);
	t->o.conninfo = t->conninfo;
	t->o.node = t->node;
	t->o.reader = false;
	t->req.data = t;
	return t;
}

static void try_takeover(struct cluster *c, const char *instance)
{
	struct takeover *t = claim_new(c, instance);
	if (t == NULL)
		return;
	if (!redis_call(c, on_takeover_lock, t, "SET " KEY("takeover:%s") " %s NX PX %d", instance,
	                c->instance, TAKEOVER_TTL_MS))
		free(t);
}

/*
 * Each live node's instance, from the scan: one not seen before under a known name is that
 * node restarted (a new incarnation: a process's instance is drawn at its start), which holds
 * our clients' games again (it claimed them back) but none of their relay clients: our players
 * of its games are seated there again (R) and the state asked for (Y). Without this a restart
 * faster than the death scan leaves them out of their games (NOT_YOUR_GAME for every move).
 */
static void incarnations(struct cluster *c, const redisReply *rep)
{
	for (size_t i = 0; i + 2 < rep->elements; i += 3) {
		const redisReply *n = rep->element[i], *inst = rep->element[i + 1],
		                 *alive = rep->element[i + 2];
		if (n->type != REDIS_REPLY_STRING || inst->type != REDIS_REPLY_STRING ||
		    alive->type != REDIS_REPLY_INTEGER || alive->integer != 1)
			continue;
		char name[CLUSTER_NODE_MAX + 1], instance[STORE_NODE_MAX + 1];
		snprintf(name, sizeof name, "%.*s", (int)n->len, n->str);
		snprintf(instance, sizeof instance, "%.*s", (int)inst->len, inst->str);
		int k = 0;
		while (k < c->nseen && strcmp(c->seen[k].name, name) != 0)
			k++;
		if (k == c->nseen) { /* first seen: nothing of ours can be out of date there */
			if (c->nseen == ALIVE_MAX)
				continue;
			c->nseen++;
		} else if (strcmp(c->seen[k].instance, instance) != 0 &&
		           strcmp(name, c->name) != 0) {
			log_info("cluster node restarted node=%s instance=%s", name, instance);
			remote_reseat(c, name);
		}
		snprintf(c->seen[k].name, sizeof c->seen[k].name, "%s", name);
		snprintf(c->seen[k].instance, sizeof c->seen[k].instance, "%s", instance);
	}
}

static void on_scan(redisAsyncContext *ac, void *r, void *pd)
{
	(void)pd;
	struct cluster *c = ac->data;
	redisReply *rep = r;
	if (c->stopping || rep == NULL || rep->type != REDIS_REPLY_ARRAY)
		return;
	incarnations(c, rep);
	bool judge = c->healthy_since != 0 &&
	             cluster_now(c) >= c->healthy_since + 2 * (uint64_t)c->expiry_ms;
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
		owner_home_gone(c, instance);
		home_fail_forwards(
		        c, name, ERR_NODE_GONE,
		        "the game's node went away; the game goes on at another node within "
		        "seconds: look at its next state before playing again");
		try_takeover(c, instance);
	}
	/* relay clients of a node's earlier instance (it restarted: those clients are gone) */
	for (struct rclient *rc = c->rclients, *next; rc != NULL; rc = next) {
		next = rc->next;
		char hn[CLUSTER_NODE_MAX + 1];
		cluster_node_name(rc->home, hn);
		for (size_t i = 0; i + 2 < rep->elements; i += 3) {
			redisReply *n = rep->element[i], *inst = rep->element[i + 1];
			if (n->type == REDIS_REPLY_STRING && strlen(hn) == n->len &&
			    memcmp(hn, n->str, n->len) == 0 &&
			    (strlen(rc->home) != inst->len ||
			     memcmp(rc->home, inst->str, inst->len))) {
				owner_home_gone(c, rc->home);
				break;
			}
		}
	}
}

/* ---- declared dead while alive ------------------------------------------------------------ */

/* Revived: our live state written again, our clients' seats on other nodes asked again. */
static void revived(struct cluster *c)
{
	c->reviving = false;
	if (c->stopping)
		return;
	log_info("cluster node back node=%s instance=%s", c->name, c->instance);
	c->healthy_since = 0;
	resync(c);
	remote_reseat(c, NULL); /* the others closed our clients' relay clients when we died */
}

static void on_tombstone_gone(redisAsyncContext *ac, void *r, void *pd)
{
	(void)r;
	(void)pd;
	revived(ac->data);
}

/* The games in progress still ours in the store (claimed from ourselves: nothing changes). */
static void revive_done(uv_work_t *req, int status)
{
	struct takeover *t = req->data;
	struct cluster *c = t->c;
	c->takeovers--;
	if (status != 0 || t->err != STORE_OK || c->stopping) {
		c->reviving = false; /* tried again at the next heartbeat */
	} else {
		for (struct game *g = sessions_first(c->ly.sess), *next; g != NULL; g = next) {
			next = session_next(g);
			/* a game whose records were not all stored when the claim began may be
			 * missing from it (one started since): its next refused write tells */
			bool ours = session_over(g) || session_journal_seq(g) > t->durable;
			for (size_t i = 0; i < t->n && !ours; i++)
				ours = (uint64_t)t->v[i].id == session_id(g);
			if (!ours)
				owner_lost(c, session_id(g));
		}
		if (!t->declared) { /* no tombstone to take away: we may have had none */
			c->ours_unsure = false;
			revived(c);
		} else if (!redis_call(c, on_tombstone_gone, NULL, "DEL " KEY("dead:%s"),
		                       c->instance)) {
			c->reviving = false;
		}
	}
	store_games_free(t->v, t->n);
	free(t);
}

/*
 * Our heartbeat found us declared dead while we were alive (declared: stopped, or cut off from
 * Redis longer than the expiry), or could not tell (Redis lost our key and any tombstone with
 * it): another node may have taken over the games we ran then (PostgreSQL refused our writes
 * to them since). We go on as the same instance, having given up every game the store no
 * longer says is ours (their players and spectators here follow them to their node,
 * owner_lost) and written our live state again; a tombstone goes last, so nobody sees us
 * alive before that.
 */
static void revive(struct cluster *c, bool declared)
{
	if (c->reviving || c->stopping)
		return;
	struct takeover *t = claim_new(c, c->instance);
	if (t == NULL)
		return;
	t->declared = declared;
	if (declared)
		log_warn("cluster node declared dead while alive node=%s instance=%s "
		         "what=\"our games were taken over: we give them up and go on\"",
		         c->name, c->instance);
	else
		log_warn("cluster redis lost our key node=%s instance=%s "
		         "what=\"the store says which games are still ours before we go on\"",
		         c->name, c->instance);
	t->durable = c->ly.sess->bar != NULL ? c->ly.sess->bar->durable : 0;
	c->reviving = true;
	c->takeovers++;
	if (uv_queue_work(c->ly.loop, &t->req, takeover_work, revive_done) != 0) {
		c->takeovers--;
		c->reviving = false;
		free(t);
	}
}

/* Everything of ours written again, every subscription made again, every owner asked. */
static void resync(struct cluster *c)
{
	c->resync_due = false;
	c->synced_at = cluster_now(c);
	owner_resync(c);
	shared_resync(c);
	remote_resync(c);
	shared_flush(c);
}

/*
 * Both connections up and our inbox subscribed: everything of ours written again, once the
 * heartbeat sent now says we were not declared dead meanwhile (cut off from Redis longer than
 * the expiry). Written at once, our owner:<game> keys would take back the games another node
 * took over from us, before revive() gives them up: their players here, and every node's
 * forwards, would then be sent to us for ever.
 */
void takeover_reached(struct cluster *c)
{
	log_info("cluster redis reached node=%s redis=%s:%d", c->name, c->host, c->port);
	c->healthy_since = 0;
	c->resync_due = true;
	takeover_beat(c);
}

/* The heartbeat of this tick, unless the last one is still unanswered (then, if it is late,
 * we are not healthy: a stall). */
void takeover_beat(struct cluster *c)
{
	if (c->beat_sent != 0 && cluster_now(c) - c->beat_sent > (uint64_t)c->expiry_ms / 2)
		c->healthy_since = 0; /* the last one is late: a stall */
	if (c->beat_sent == 0 && redis_call(c, on_beat, NULL, "EVAL %s 0 %s %s %d %d", BEAT,
	                                    c->instance, c->name, c->expiry_ms, 2 * c->expiry_ms))
		c->beat_sent = cluster_now(c);
}

/* The death scan of this tick. */
void takeover_scan(struct cluster *c)
{
	redis_call(c, on_scan, NULL, "EVAL %s 0", SCAN);
}
