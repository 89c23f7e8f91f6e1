/*
 * cluster_shared.c - the lobby shared through Redis: every node's open seeks
 * (the seeks: hash, N/G on the lobby channel), users (users:, a guest name
 * taken cluster-wide, an account's older connection closed: K), games in
 * progress (list:, seats:), and who / seeks / list answered from all of them.
 */
#include "server/cluster/cluster_internal.h"

#include <sodium.h>

#include "server/records/journal.h"
#include "server/play/identity.h"
#include "server/play/session_view.h"
#include "server/play/session_watch.h"
#include "server/store/store_writer.h"

/* ---- what the other nodes tell us: K, and seeks on the lobby channel ------------------------- */

/* K: the account logged in on another node; its connection here closes. */
void shared_kick(struct cluster *c, const char *name, const char *where)
{
	struct client *old = lobby_find_user(c->ly.lobby, name);
	if (old == NULL || !old->registered)
		return;
	send_info(old, ERR_SESSION_TAKEN,
	          "%s logged in from elsewhere (node %s); this connection closes", name, where);
	client_close(old, true);
}

/* N/G on the lobby channel: a seek of another node, told to our users. */
void shared_lobby_msg(struct cluster *c, const char *h, const char *body, size_t len)
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
		struct cstate *s = h[0] == 'G' ? home_cs_get(c, cn->id, false) : NULL;
		if (s != NULL && s->fwd != 0 && s->takes_seek && s->game == id &&
		    s->after == NULL && cl->fe == NULL) {
			/* it took that seek: its end comes after the answer */
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

/* ---- our seeks and users, written to Redis --------------------------------------------------- */

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
		redis_call(c, NULL, NULL, "HSET " KEY("seeks:%s") " %" PRIu64 " %s", c->name, k->id,
		           s);
	free(s);
	cJSON_Delete(v);
}

void shared_on_seek(void *ud, const struct seek *k, bool gone, struct msg *told)
{
	struct cluster *c = ud;
	if (!redis_up(c)) /* (an open seek is written again when Redis is back: resync) */
		return;
	/* a challenge stays between its two sides, on this node; its id is known so that its
	   author on another node can withdraw it */
	if (k->to != NULL) {
		if (gone)
			redis_call(c, NULL, NULL, "HDEL " KEY("challenges:%s") " %" PRIu64, c->name,
			           k->id);
		else
			redis_call(c, NULL, NULL, "HSET " KEY("challenges:%s") " %" PRIu64 " 1",
			           c->name, k->id);
		return;
	}
	if (gone)
		redis_call(c, NULL, NULL, "HDEL " KEY("seeks:%s") " %" PRIu64, c->name, k->id);
	else
		seek_put(c, k);
	cJSON *b = cJSON_CreateObject();
	cJSON_AddItemReferenceToObject(b, "json", told->json);
	cJSON_AddStringToObject(b, "text", told->text ? told->text : "");
	char *s = cJSON_PrintUnformatted(b);
	char h[96];
	snprintf(h, sizeof h, "%c %s %" PRIu64, gone ? 'G' : 'N', c->name, k->id);
	if (s != NULL)
		redis_publish(c, KEY("lobby"), h, s, strlen(s), NULL, NULL);
	free(s);
	cJSON_Delete(b);
}

uint64_t shared_seek_id(void *ud)
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
	cluster_key(u->name, key, sizeof key);
	if (row != NULL)
		redis_call(c, NULL, NULL, "HSET " KEY("users:%s") " %s %s", c->name, key, row);
	free(row);
}

void shared_on_login(void *ud, struct client *cl)
{
	struct cluster *c = ud;
	if (cl->remote || !redis_up(c))
		return;
	user_put(c, cl);
	char h[256];
	if (cl->registered) { /* the account's connection elsewhere closes */
		snprintf(h, sizeof h, "K %s %s", cl->name, c->name);
		redis_to_others(c, h);
	}
	/* its seats in games of other nodes come back (a guest's with its token) */
	cluster_resume_header(c, cl, h, sizeof h);
	redis_to_others(c, h);
}

/* cl logs in here, to an account or as a guest with its token: its seats in our games held
 * for its connection on another node come to it (the relay clients standing for that one
 * close; K closes an account's). */
void shared_on_claim(void *ud, struct client *cl)
{
	struct cluster *c = ud;
	if (cl->remote || (!cl->registered && strlen(cl->token) != PROTO_TOKEN_LEN))
		return;
	owner_claim(c, cl->name, cl->registered ? NULL : cl->token, NULL, 0);
}

/*
 * cl logs out: what stands for it on other nodes goes, as if its connection had (X to every
 * node: its relay clients close, their seats wait through the grace for their player to log
 * in again, anywhere), and it plays and watches no remote game here. Whoever logs in next on
 * the connection gets relay clients of its own: nobody acts on another node under the name
 * that left.
 */
void shared_on_logout(void *ud, struct client *cl)
{
	struct cluster *c = ud;
	if (cl->remote)
		return;
	shared_client_gone(c, cl);
	char h[160];
	snprintf(h, sizeof h, "X %s %" PRIu64, c->instance, cl->conn->id);
	redis_to_others(c, h); /* a relay client made by R has no forward behind it */
	home_client_gone(c, cl->conn->id);
	remote_client_gone(c, cl->conn->id);
}

/* ---- who, seeks and list, and guest names: asked of every node ------------------------------- */

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

static struct client *asked_client(struct cluster *c, struct asked *a)
{
	struct client *cl = cluster_client(c, a->conn);
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

/* A CMD_SHARED row (seeks, who, list) from the values of the live nodes' hashes. */
static void on_shared(redisAsyncContext *ac, void *r, void *pd)
{
	struct asked *a = pd;
	struct client *cl = asked_client(ac->data, a);
	redisReply *rep = r;
	if (cl == NULL) {
		free(a);
		return;
	}
	if (rep == NULL || rep->type != REDIS_REPLY_ARRAY) {
		redis_down(cl, &a->rq);
		free(a);
		return;
	}
	unsigned fl = a->rq.cmd->flags;
	bool seeks = (fl & CMD_SHARED_SEEKS) != 0, who = (fl & CMD_SHARED_USERS) != 0;
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
		session_view_list_reply(cl, &a->rq, f, extra, k);
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
	a->rq = cluster_rq_keep(x->rq);
	return a;
}

bool shared_route(void *ud, struct cmd *x)
{
	struct cluster *c = ud;
	if (x->cl->remote)
		return false;
	if (!redis_up(c)) {
		redis_down(x->cl, x->rq);
		return true;
	}
	unsigned fl = x->rq->cmd->flags; /* which list: its hash, KEY(<hash>:<node>) */
	const char *hash = (fl & CMD_SHARED_SEEKS)   ? "seeks"
	                   : (fl & CMD_SHARED_USERS) ? "users"
	                                             : "list";
	shared_flush(c); /* what we know changed since the last write goes first */
	struct asked *a = ask(x);
	if (a == NULL)
		return true;
	if (!redis_call(c, on_shared, a, "EVAL %s 0 %s", LIVE_VALUES, hash)) {
		free(a);
		redis_down(x->cl, x->rq);
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
	struct cluster *c = ac->data;
	struct asked *a = pd;
	struct client *cl = asked_client(c, a);
	redisReply *rep = r;
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
		redis_down(cl, &a->rq);
	} else if (rep->element[0]->integer == 0 || lobby_find_user(c->ly.lobby, a->name) != NULL) {
		identity_refuse_connected(cl, &a->rq, a->name);
	} else if (say == SEATS_GUARDED || (say == SEATS_NONE && a->given)) {
		/* the name was ours for a moment: no more */
		char key[PROTO_NAME_MAX + 1];
		cluster_key(a->name, key, sizeof key);
		redis_call(c, NULL, NULL, "HDEL " KEY("users:%s") " %s", c->name, key);
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

bool shared_guest(void *ud, struct client *cl, const struct proto_req *rq, const char *name,
                  const char *token, bool given)
{
	struct cluster *c = ud;
	if (cl->remote)
		return false;
	if (!redis_up(c)) {
		redis_down(cl, rq);
		return true;
	}
	struct asked *a = calloc(1, sizeof *a);
	if (a == NULL) {
		reply_oom(cl, rq);
		return true;
	}
	a->conn = cl->conn->id;
	a->rq = cluster_rq_keep(rq);
	snprintf(a->name, sizeof a->name, "%s", name);
	if (token != NULL && strlen(token) == PROTO_TOKEN_LEN)
		snprintf(a->token, sizeof a->token, "%s", token);
	a->given = given;
	char key[PROTO_NAME_MAX + 1];
	cluster_key(name, key, sizeof key);
	cJSON *v = cJSON_CreateObject();
	cJSON_AddStringToObject(v, "name", name);
	cJSON_AddBoolToObject(v, "guest", true);
	cJSON_AddNullToObject(v, "rtt_ms");
	cJSON_AddArrayToObject(v, "playing");
	cJSON_AddArrayToObject(v, "watching");
	cJSON_AddStringToObject(v, "text", "");
	char *s = cJSON_PrintUnformatted(v);
	cJSON_Delete(v);
	bool sent = s != NULL && redis_call(c, on_guest, a, "EVAL %s 0 %s %s %s %d", GUEST, key,
	                                    c->name, s, 2 * c->expiry_ms);
	free(s);
	if (!sent) {
		free(a);
		redis_down(cl, rq);
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

bool shared_name_held(void *ud, struct client *cl, const char *name,
                      void (*held)(void *arg, int verdict), void *arg)
{
	struct cluster *c = ud;
	if (cl->remote)
		return false;
	struct held_ask *h = redis_up(c) ? malloc(sizeof *h) : NULL;
	if (h != NULL) {
		*h = (struct held_ask){.held = held, .arg = arg};
		char key[PROTO_NAME_MAX + 1];
		cluster_key(name, key, sizeof key);
		if (redis_call(c, on_name_held, h, "EVAL %s 0 %s %s", NAME_HELD, key, c->name))
			return true;
		free(h);
	}
	held(arg, -1); /* the bus cannot be asked */
	return true;
}

/* An /api/games/live question (cluster_live_games): whom to tell. */
struct live_ask {
	void (*done)(void *arg, cJSON *games);
	void *arg;
};

/* The API rows of the live nodes' games, by id, to the asker (NULL: Redis failed). */
static void on_live(redisAsyncContext *ac, void *r, void *pd)
{
	(void)ac;
	struct live_ask *q = pd;
	redisReply *rep = r;
	cJSON *games = NULL;
	cJSON **rows = NULL;
	size_t k = 0;
	if (rep != NULL && rep->type == REDIS_REPLY_ARRAY &&
	    (rows = calloc(rep->elements ? rep->elements : 1, sizeof *rows)) != NULL) {
		for (size_t i = 0; i < rep->elements; i++) {
			redisReply *e = rep->element[i];
			cJSON *v = e->type == REDIS_REPLY_STRING
			                   ? cJSON_ParseWithLength(e->str, e->len)
			                   : NULL;
			cJSON *api = cJSON_DetachItemFromObject(v, "api");
			cJSON_Delete(v);
			if (cJSON_IsObject(api))
				rows[k++] = api;
			else
				cJSON_Delete(api);
		}
		qsort(rows, k, sizeof *rows, by_id);
		games = cJSON_CreateArray();
		for (size_t i = 0; i < k; i++)
			cJSON_AddItemToArray(games, rows[i]);
		free(rows);
	}
	q->done(q->arg, games);
	free(q);
}

bool cluster_live_games(struct cluster *c, void (*done)(void *arg, cJSON *games), void *arg)
{
	struct live_ask *q = malloc(sizeof *q);
	if (q == NULL || !redis_up(c)) {
		free(q);
		return false;
	}
	*q = (struct live_ask){.done = done, .arg = arg};
	shared_flush(c); /* what we know changed since the last write goes first */
	if (!redis_call(c, on_live, q, "EVAL %s 0 list", LIVE_VALUES)) {
		free(q);
		return false;
	}
	return true;
}

/* ---- the rows of our users and games --------------------------------------------------------- */

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
	for (struct game *g = sessions_first(c->ly.sess); g != NULL; g = session_next(g)) {
		if (session_over(g)) /* who lists live games only, as lobby.c's who_role */
			continue;
		bool playing = session_seat_of(g, u) >= 0;
		bool watches = !playing && session_watch_has(g, u);
		if (!playing && !watches)
			continue;
		cJSON_AddItemToArray(playing ? pl : wa, cJSON_CreateNumber((double)session_id(g)));
		xappend(&line, ", %s %" PRIu64, playing ? "plays" : "watches", session_id(g));
	}
	for (struct rgame *g = c->rgames; g != NULL; g = g->next) {
		struct member *m = remote_member(g, u->conn->id);
		if (m == NULL || g->over)
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

/*
 * The list row of one of our games as the games' hash keeps it, {"json":<row>,"text":<line>,
 * "api":<row>} (the row as one node's `list` makes it, the game as it is; the HTTP API's row
 * with our name as "node"), or NULL when it is not listed.
 */
static char *game_row(struct cluster *c, const struct game *g)
{
	cJSON *j;
	char *t;
	if (!session_view_list_row(g, false, &j, &t))
		return NULL;
	cJSON *v = cJSON_CreateObject();
	cJSON_AddItemToObject(v, "json", j);
	cJSON_AddStringToObject(v, "text", t ? t : "");
	cJSON *api = session_view_live_row(g); /* the HTTP API's row (cluster_live_games) */
	cJSON_AddStringToObject(api, "node", c->name);
	cJSON_AddItemToObject(v, "api", api);
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
 * seats:<node> (inside shared_flush's MULTI): our guest seats in games not over, name key ->
 * their token hashes (distinct, space-separated; "-" a seat without one), which GUEST reads
 * so that another node refuses `login <name>` without the token (the check that gives the
 * seat back is still ours: R brings the token, session_login compares).
 */
static void seats_put(struct cluster *c)
{
	size_t n = 0, cap = 0;
	struct seat_row *v = NULL;
	for (struct game *g = sessions_first(c->ly.sess); g != NULL; g = session_next(g)) {
		for (int i = 0; !session_over(g) && i < session_ops(g)->nplayers; i++) {
			const struct player *p = session_seat(g, i);
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
			cluster_key(p->name, v[n].key, sizeof v[n].key);
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
			redis_call(c, NULL, NULL, "HSET " KEY("seats:%s") " %s %s", c->name,
			           v[i].key, val);
		free(val);
		i = j;
	}
	free(v);
}

/* Writes what changed of our live state: users and games. */
void shared_flush(struct cluster *c)
{
	if (!redis_up(c))
		return;
	int ttl = 2 * c->expiry_ms;
	if (c->users_dirty) {
		c->users_dirty = false;
		redis_call(c, NULL, NULL, "MULTI");
		if (c->users_reset) /* names of clients that left while Redis was away */
			redis_call(c, NULL, NULL, "DEL " KEY("users:%s"), c->name);
		c->users_reset = false;
		for (struct conn *cn = c->ly.hub->conns; cn != NULL; cn = cn->next) {
			struct client *u = client_of(cn);
			if (u == NULL || !u->logged_in || u->remote || cn->closing)
				continue;
			user_put(c, u);
		}
		redis_call(c, NULL, NULL, "PEXPIRE " KEY("users:%s") " %d", c->name, ttl);
		redis_call(c, NULL, NULL, "EXEC");
	}
	if (c->list_dirty) {
		c->list_dirty = false;
		redis_call(c, NULL, NULL, "MULTI");
		redis_call(c, NULL, NULL, "DEL " KEY("list:%s"), c->name);
		redis_call(c, NULL, NULL, "DEL " KEY("seats:%s"), c->name);
		seats_put(c);
		for (struct game *g = sessions_first(c->ly.sess); g != NULL; g = session_next(g)) {
			char *row = game_row(c, g);
			if (row != NULL)
				redis_call(c, NULL, NULL, "HSET " KEY("list:%s") " %" PRIu64 " %s",
				           c->name, session_id(g), row);
			free(row);
		}
		redis_call(c, NULL, NULL, "PEXPIRE " KEY("list:%s") " %d", c->name, ttl);
		redis_call(c, NULL, NULL, "PEXPIRE " KEY("seats:%s") " %d", c->name, ttl);
		redis_call(c, NULL, NULL, "EXEC");
	}
}

/* Our client cl is gone: its name leaves the users' hash (or goes to who took it over). */
void shared_client_gone(struct cluster *c, struct client *cl)
{
	if (!cl->logged_in)
		return;
	char key[PROTO_NAME_MAX + 1];
	cluster_key(cl->name, key, sizeof key);
	redis_call(c, NULL, NULL, "HDEL " KEY("users:%s") " %s", c->name, key);
	struct client *now = lobby_find_user(c->ly.lobby, cl->name); /* took it over */
	if (now != NULL && now != cl)
		user_put(c, now);
}

/* The lobby's part of the node's tick: what changed of our users and games is written. */
void shared_tick(struct cluster *c)
{
	/* a seat or a watch of our own games taken or left, a game ended: who's and list's
	   rows (players, spectators, watchers) written again */
	if (c->ly.sess->epoch != c->sess_epoch) {
		c->sess_epoch = c->ly.sess->epoch;
		c->users_dirty = c->list_dirty = true;
	}
	shared_flush(c);
}

/* Redis came back (or lost our keys): our seeks are written again now, our users and games at
 * the next flush (the users' hash whole: names that left meanwhile go). */
void shared_resync(struct cluster *c)
{
	c->users_dirty = c->list_dirty = c->users_reset = true;
	redis_call(c, NULL, NULL, "DEL " KEY("seeks:%s"), c->name);
	redis_call(c, NULL, NULL, "DEL " KEY("challenges:%s"), c->name);
	for (struct seek *k = c->ly.lobby->seeks; k != NULL; k = k->next)
		if (k->to == NULL)
			seek_put(c, k);
		else
			redis_call(c, NULL, NULL, "HSET " KEY("challenges:%s") " %" PRIu64 " 1",
			           c->name, k->id);
}
