/*
 * cluster_remote.c - remote games at the home: the games, owned by another
 * node, that some of this node's clients play or watch (struct rgame), with
 * the owner cache. Their players hear their seats through the inbox; their
 * spectators are fed from the game's channel (a slow one gets only the newest
 * state); the owner is told how many spectators there are per format (W), is
 * asked for the state again after lost messages (Y), and is followed when the
 * game moves to another node (V).
 */
#include "server/cluster/cluster_internal.h"

#include "server/play/session_watch.h"

/* ---- the owner cache ---------------------------------------------------------------------- */

const char *remote_cache_get(struct cluster *c, uint64_t game)
{
	struct ocache *e = &c->cache[game % CACHE_SLOTS];
	return e->game == game && e->node[0] ? e->node : NULL;
}

void remote_cache_put(struct cluster *c, uint64_t game, const char *node)
{
	struct ocache *e = &c->cache[game % CACHE_SLOTS];
	e->game = game;
	snprintf(e->node, sizeof e->node, "%.32s", node ? node : "");
}

/* ---- remote games at home ----------------------------------------------------------------- */

struct rgame *remote_find(struct cluster *c, uint64_t id)
{
	for (struct rgame *g = c->rgames; g != NULL; g = g->next)
		if (g->id == id)
			return g;
	return NULL;
}

static void rg_subscribe(struct cluster *c, struct rgame *g)
{
	if (redis_subscribe_game(c, g->id)) {
		g->subscribing = true;
		g->subscribed = false;
	}
}

struct rgame *remote_get(struct cluster *c, uint64_t id, const char *owner)
{
	struct rgame *g = remote_find(c, id);
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

struct member *remote_member(struct rgame *g, uint64_t conn)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->m[i].conn == conn)
			return &g->m[i];
	return NULL;
}

bool remote_add(struct rgame *g, uint64_t conn, bool player, bool json)
{
	struct member *m = remote_member(g, conn);
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

/* Our spectators of g per format: n[0] text, n[1] JSON. */
static void spectators(const struct rgame *g, size_t n[2])
{
	n[0] = n[1] = 0;
	for (size_t i = 0; i < g->n; i++)
		if (!g->m[i].player)
			n[g->m[i].json]++;
}

/* Tells the owner how many spectators of g we have per format, when that changed. */
void remote_tell_counts(struct cluster *c, struct rgame *g)
{
	size_t n[2];
	spectators(g, n);
	for (int k = 0; k < 2; k++) {
		if (n[k] == g->told[k] || g->owner[0] == '\0')
			continue;
		char h[160];
		snprintf(h, sizeof h, "W %s %" PRIu64 " %c %zu", c->instance, g->id, k ? 'j' : 't',
		         n[k]);
		redis_to_node(c, g->owner, h, NULL, 0);
		g->told[k] = n[k];
	}
}

/* The remote game (its id in pd) whose owner got nobody's message (PUBLISH's answer r: the
 * owner was not listening yet, it is starting or reconnecting), or NULL. */
static struct rgame *unheard(redisAsyncContext *ac, void *r, void *pd)
{
	struct cluster *c = ac->data;
	redisReply *rep = r;
	if (rep != NULL && rep->type == REDIS_REPLY_INTEGER && rep->integer > 0)
		return NULL;
	return remote_find(c, (uint64_t)(uintptr_t)pd);
}

static void on_resent(redisAsyncContext *ac, void *r, void *pd)
{
	struct rgame *g = unheard(ac, r, pd);
	if (g != NULL) /* asked again at the next tick */
		g->resend = true;
}

/*
 * After an outage (messages to and from the owner may have been lost): tells
 * the owner our spectators of g per format and asks for the current state,
 * in one message (Y), again at every tick until the owner got it.
 */
void remote_resend(struct cluster *c, struct rgame *g)
{
	if (g->over) {
		g->resend = false;
		return;
	}
	if (g->owner[0] == '\0' || !g->subscribed || !redis_up(c))
		return;
	size_t n[2];
	spectators(g, n);
	char h[200], ch[64];
	snprintf(h, sizeof h, "Y %s %" PRIu64 " %zu %zu", c->instance, g->id, n[0], n[1]);
	redis_inbox(ch, g->owner);
	g->resend = false;
	if (!redis_publish(c, ch, h, NULL, 0, on_resent, (void *)(uintptr_t)g->id))
		g->resend = true;
	else
		g->told[0] = n[0], g->told[1] = n[1];
}

/* Messages to and from the owners may have been lost (Redis came back): every owner is asked
 * for its game's state (Y), once our subscription to the game is confirmed. */
void remote_resync(struct cluster *c)
{
	for (struct rgame *g = c->rgames; g != NULL; g = g->next) {
		g->resend = true; /* once its subscription is confirmed (on_sub) */
		remote_resend(c, g);
	}
}

static void reseat(struct cluster *c, struct rgame *g);

/* The owners that did not get our Y yet are asked again, games of unknown owner looked up
 * again (at every tick). */
void remote_resend_due(struct cluster *c)
{
	for (struct rgame *g = c->rgames; g != NULL; g = g->next) {
		if (g->lookup) {
			remote_find_owner(c, g);
			continue;
		}
		if (g->reseat)
			reseat(c, g);
		if (g->resend)
			remote_resend(c, g);
	}
}

/* Frees g and what it holds (queued states, forwards waiting); g is unlinked already. */
static void remote_destroy(struct rgame *g)
{
	for (size_t i = 0; i < g->n; i++)
		outbuf_unref(g->m[i].pending);
	while (g->waiting != NULL) {
		struct pending_fwd *p = g->waiting;
		g->waiting = p->next;
		cluster_pending_free(p);
	}
	free(g->m);
	free(g);
}

void remote_free(struct cluster *c, struct rgame *g)
{
	for (struct rgame **pp = &c->rgames; *pp != NULL; pp = &(*pp)->next)
		if (*pp == g) {
			*pp = g->next;
			break;
		}
	if (g->subscribing)
		redis_unsubscribe_game(c, g->id);
	remote_destroy(g);
}

/* Drops client conn from g (its spectators told to the owner); g goes when nobody is left. */
void remote_leave(struct cluster *c, struct rgame *g, uint64_t conn)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->m[i].conn == conn) {
			outbuf_unref(g->m[i].pending);
			g->m[i] = g->m[--g->n];
			break;
		}
	remote_tell_counts(c, g);
	c->users_dirty = true;
	if (g->n == 0 && g->waiting == NULL)
		remote_free(c, g);
}

/* News from Redis: the subscribing connection was made (every game's channel is subscribed to
 * again) or lost. */
void remote_subscriber(struct cluster *c, bool made)
{
	for (struct rgame *g = c->rgames; g != NULL; g = g->next)
		if (made)
			rg_subscribe(c, g);
		else
			g->subscribed = g->subscribing = false;
}

/* P: our client plays game (owned by owner). */
void remote_plays(struct cluster *c, const char *owner, uint64_t conn, uint64_t game)
{
	struct client *cl = cluster_client(c, conn);
	if (cl == NULL)
		return;
	remote_cache_put(c, game, owner);
	struct rgame *g = remote_get(c, game, owner);
	if (g == NULL)
		return;
	struct member *m = remote_member(g, conn);
	if (m != NULL && !m->player) { /* it watched: it plays now */
		m->player = true;
		remote_tell_counts(c, g);
	} else if (m == NULL) {
		remote_add(g, conn, true, cl->json);
	}
	c->users_dirty = true;
}

static void member_send(struct cluster *c, struct member *m, bool state, const char *body,
                        size_t len)
{
	struct client *cl = cluster_client(c, m->conn);
	if (cl == NULL)
		return;
	if (state && client_slow(cl)) { /* only the newest state waits for a slow spectator */
		outbuf_unref(m->pending);
		m->pending = outbuf_new(body, len);
		cl->has_pending_states = true; /* remote_drain() sends it */
		return;
	}
	if (m->pending != NULL) {
		client_send_foreign(cl, m->pending);
		outbuf_unref(m->pending);
		m->pending = NULL;
	}
	struct outbuf *b = outbuf_new(body, len);
	client_send_foreign(cl, b);
	outbuf_unref(b);
}

/* The game moved to us: its players and spectators here are ours, as any local ones. */
static void moved_here(struct cluster *c, struct rgame *rg)
{
	struct game *g = session_find(c->ly.sess, rg->id);
	for (size_t i = 0; g != NULL && i < rg->n; i++) {
		struct client *cl = cluster_client(c, rg->m[i].conn);
		if (cl == NULL)
			continue;
		if (rg->m[i].player) {
			cJSON *resumed = cJSON_CreateArray();
			session_login(c->ly.sess, cl, resumed);
			cJSON_Delete(resumed);
			session_resume_send(c->ly.sess, cl);
		} else if (session_watch_add(g, cl)) {
			session_watch_send_current(g, cl, -1);
		}
	}
	if (g != NULL)
		session_watch_count_changed(g);
	remote_free(c, rg);
}

/* V: the game moved (takeover); our players get their seats there, our spectators watch there. */
static void moved(struct cluster *c, struct rgame *g, const char *owner)
{
	if (strcmp(g->owner, owner) == 0)
		return;
	g->lookup = false;
	snprintf(g->owner, sizeof g->owner, "%s", owner);
	remote_cache_put(c, g->id, owner);
	g->told[0] = g->told[1] = 0;
	for (size_t i = 0; i < g->n; i++) {
		struct client *cl = cluster_client(c, g->m[i].conn);
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
			char h[256];
			cluster_resume_header(c, cl, h, sizeof h);
			redis_to_node(c, owner, h, NULL, 0);
		}
	}
	if (strcmp(owner, c->name) == 0) {
		moved_here(c, g);
		return;
	}
	g->resend = true; /* our spectators, and the state */
	remote_resend(c, g);
}

static void on_owner_found(redisAsyncContext *ac, void *r, void *pd)
{
	struct cluster *c = ac->data;
	redisReply *rep = r;
	struct rgame *g = remote_find(c, (uint64_t)(uintptr_t)pd);
	if (g == NULL || !g->lookup || rep == NULL || rep->type != REDIS_REPLY_STRING)
		return;
	char owner[CLUSTER_NODE_MAX + 1];
	snprintf(owner, sizeof owner, "%.*s", (int)rep->len, rep->str);
	if (owner[0] != '\0' && strcmp(owner, c->name) != 0) /* ours: not written yet */
		moved(c, g, owner);
}

void remote_find_owner(struct cluster *c, struct rgame *g)
{
	g->lookup = true;
	redis_call(c, on_owner_found, (void *)(uintptr_t)g->id, "GET " KEY("owner:%" PRIu64),
	           g->id);
}

static void on_reseated(redisAsyncContext *ac, void *r, void *pd)
{
	struct rgame *g = unheard(ac, r, pd);
	if (g != NULL) /* sent again at the next tick */
		g->reseat = true;
}

/* R for each of our players of g to its owner (R is idempotent there: a seat taken is kept). */
static void reseat(struct cluster *c, struct rgame *g)
{
	g->reseat = false;
	if (g->over || g->owner[0] == '\0')
		return;
	char ch[64];
	redis_inbox(ch, g->owner);
	for (size_t i = 0; i < g->n; i++) {
		struct client *cl = cluster_client(c, g->m[i].conn);
		if (cl == NULL || !g->m[i].player || !cl->logged_in)
			continue;
		char h[256];
		cluster_resume_header(c, cl, h, sizeof h);
		if (!redis_publish(c, ch, h, NULL, 0, on_reseated, (void *)(uintptr_t)g->id))
			g->reseat = true;
	}
}

void remote_reseat(struct cluster *c, const char *node)
{
	for (struct rgame *g = c->rgames; g != NULL; g = g->next) {
		if (g->over || g->owner[0] == '\0' || (node != NULL && strcmp(g->owner, node) != 0))
			continue;
		reseat(c, g);
		g->resend = true; /* our spectators, and the state */
		remote_resend(c, g);
	}
}

void remote_game_msg(struct cluster *c, uint64_t id, const char *h, const char *body, size_t len)
{
	struct rgame *g = remote_find(c, id);
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

/* Our client conn is gone: it leaves every remote game it played or watched. */
void remote_client_gone(struct cluster *c, uint64_t conn)
{
	for (struct rgame *g = c->rgames, *next; g != NULL; g = next) {
		next = g->next;
		if (remote_member(g, conn) != NULL)
			remote_leave(c, g, conn);
	}
}

/* Our client cl can take more: the newest state each of its remote games kept for it. */
void remote_drain(struct cluster *c, struct client *cl)
{
	for (struct rgame *g = c->rgames; g != NULL; g = g->next) {
		struct member *m = remote_member(g, cl->conn->id);
		if (m != NULL && m->pending != NULL) {
			client_send_foreign(cl, m->pending);
			outbuf_unref(m->pending);
			m->pending = NULL;
		}
	}
}

/* Every remote game freed (cluster_free(): the loop has ended). */
void remote_clear(struct cluster *c)
{
	while (c->rgames != NULL) {
		struct rgame *g = c->rgames;
		c->rgames = g->next;
		remote_destroy(g);
	}
}
