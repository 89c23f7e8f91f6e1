/*
 * cluster_redis.c - the node's two Redis connections (one to command and
 * publish, one to subscribe) through hiredis on the loop: dialled, dialled
 * again when they hang or drop, the commands and the publishing every other
 * part uses, the subscriptions and the pub/sub messages that come on them,
 * messages to every other node (the channel all).
 */
#include "server/cluster/cluster_internal.h"

#include <hiredis/adapters/libuv.h>

/* ---- commands and publishing -------------------------------------------------------------- */

bool redis_up(const struct cluster *c)
{
	return c->pub_up && c->sub_up && c->inbox_up && !c->stopping;
}

/* A command on the publishing connection; false when Redis is not there. */
bool redis_call(struct cluster *c, redisCallbackFn *fn, void *pd, const char *fmt, ...)
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
bool redis_publish(struct cluster *c, const char *channel, const char *header, const void *body,
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
	bool ok = redis_call(c, fn, pd, "PUBLISH %s %b", channel, buf, hlen + 1 + blen);
	free(buf);
	return ok;
}

/* The channel of node's inbox. */
void redis_inbox(char ch[64], const char *node)
{
	snprintf(ch, 64, KEY("in:%.*s"), CLUSTER_NODE_MAX, node);
}

/* A message to node's inbox. */
void redis_to_node(struct cluster *c, const char *node, const char *header, const void *body,
                   size_t blen)
{
	char ch[64];
	redis_inbox(ch, node);
	redis_publish(c, ch, header, body, blen, NULL, NULL);
}

/* A message without a body on game's channel. */
void redis_to_game(struct cluster *c, uint64_t game, const char *header)
{
	char ch[64];
	snprintf(ch, sizeof ch, KEY("g:%" PRIu64), game);
	redis_publish(c, ch, header, NULL, 0, NULL, NULL);
}

/* The answer to a request that needs Redis while it is not there. */
void redis_down(struct client *cl, const struct proto_req *rq)
{
	reply_err(cl, rq, ERR_CLUSTER_DOWN,
	          "the cluster's bus (Redis) cannot be reached; this node's own games go on; "
	          "try again shortly");
}

/* ---- messages to every other node ------------------------------------------------------- */

/*
 * A message without a body to every other node: published once on the channel `all` that
 * every node subscribes to with its inbox, the sender's name before the header (a node drops
 * its own). Not to each node named by the last death scan: a node whose heartbeat was late at
 * that scan (a loaded machine, a pause) was left out and never had the message (a lost K: the
 * account's older connection stayed open, its seats held for it).
 */
void redis_to_others(struct cluster *c, const char *header)
{
	char h[512];
	int n = snprintf(h, sizeof h, "%s %s", c->name, header);
	if (n > 0 && (size_t)n < sizeof h)
		redis_publish(c, KEY("all"), h, NULL, 0, NULL, NULL);
}

/* ---- subscriptions and the messages that come on them ------------------------------------- */

/* Every pub/sub message and subscription answer comes here. */
static void on_sub(redisAsyncContext *ac, void *r, void *pd)
{
	(void)pd;
	struct cluster *c = ac->data;
	redisReply *rep = r;
	if (rep == NULL || rep->type != REDIS_REPLY_ARRAY || rep->elements < 3)
		return;
	redisReply *kind = rep->element[0], *ch = rep->element[1], *msg = rep->element[2];
	if (kind->type != REDIS_REPLY_STRING || ch->type != REDIS_REPLY_STRING)
		return;
	const char *chan = ch->str + strlen(KEY(""));
	if (strcmp(kind->str, "subscribe") == 0) {
		uint64_t id;
		if (strncmp(chan, "in:", 3) == 0) { /* messages to us arrive from now on */
			bool was_up = redis_up(c);
			c->inbox_up = true;
			if (!was_up && redis_up(c))
				c->news.reached(c);
			return;
		}
		if (sscanf(chan, "g:%" SCNu64, &id) == 1)
			c->news.subscribed(c, id);
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
	char *sp = strncmp(chan, "all", 4) == 0 ? strchr(msg->str, ' ') : NULL;
	if (strncmp(chan, "in:", 3) == 0)
		c->news.inbox(c, msg->str, body, blen);
	else if (sp != NULL) { /* another node's message to every node (not our own) */
		*sp = '\0';
		if (strcmp(msg->str, c->name) != 0)
			c->news.inbox(c, sp + 1, body, blen);
	} else if (sscanf(chan, "g:%" SCNu64, &id) == 1)
		c->news.game(c, id, msg->str, body, blen);
	else if (strcmp(chan, "lobby") == 0)
		c->news.lobby(c, msg->str, body, blen);
}

/* Subscribes to game's channel; false when the subscribing connection is not there. */
bool redis_subscribe_game(struct cluster *c, uint64_t game)
{
	if (!c->sub_up || c->sub == NULL)
		return false;
	redisAsyncCommand(c->sub, on_sub, NULL, "SUBSCRIBE " KEY("g:%" PRIu64), game);
	return true;
}

void redis_unsubscribe_game(struct cluster *c, uint64_t game)
{
	if (c->sub_up && c->sub != NULL)
		redisAsyncCommand(c->sub, NULL, NULL, "UNSUBSCRIBE " KEY("g:%" PRIu64), game);
}

/* ---- the connections ---------------------------------------------------------------------- */

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
	bool was_up = redis_up(c);
	if (pub) {
		c->pub_up = true;
	} else {
		c->inbox_up = false;
		c->sub_up = true;
		redisAsyncCommand(c->sub, on_sub, NULL,
		                  "SUBSCRIBE " KEY("all") " " KEY("in:%s") " " KEY("lobby"),
		                  c->name);
		c->news.subscriber(c, true);
	}
	if (!was_up && redis_up(c))
		c->news.reached(c);
}

static void on_disconnected(const redisAsyncContext *ac, int status)
{
	(void)status;
	struct cluster *c = ac->data;
	bool was_up = redis_up(c);
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
		c->news.subscriber(c, false);
	}
	c->healthy_since = 0;
	if (was_up && !c->stopping) {
		log_warn("cluster redis lost node=%s retry=now", c->name);
		c->news.lost(c);
	}
}

/*
 * Both connections closed, to be made again at once: one of them is dead
 * without hiredis knowing (its libuv adapter drops a poll error, such as the
 * reset of a connection that had unsent commands when Redis was killed), so
 * commands would wait on it for ever.
 */
static void redis_drop(struct cluster *c, const char *why)
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
	if (*ac != NULL && *connecting && cluster_now(c) - *dialed > DIAL_MS) {
		redisAsyncFree(*ac); /* not connected: no callback comes */
		*ac = NULL;
		*connecting = false;
	}
	if (*ac == NULL && !*connecting) {
		*ac = dial(c);
		*connecting = *ac != NULL;
		*dialed = cluster_now(c);
	}
}

void redis_connect(struct cluster *c)
{
	if (c->stopping)
		return;
	redial(c, &c->pub, &c->pub_connecting, &c->pub_dialed);
	redial(c, &c->sub, &c->sub_connecting, &c->sub_dialed);
}

/* A connection made (not dialling any more) this long ago while Redis is still not reached. */
static bool made_unreached(const redisAsyncContext *ac, bool connecting, uint64_t dialed,
                           uint64_t now)
{
	return ac != NULL && !connecting && now - dialed > 2 * DIAL_MS;
}

/*
 * The connections' part of the node's tick: both are dropped when Redis has kept our
 * heartbeat's answer or our own echo (H) for two expiries, or when a connection made long ago
 * has still not brought Redis back (a peer that accepted it and reset it at once, as a proxy
 * cut off from Redis or a Redis at maxclients does: the adapter drops that error, and the
 * connection would look made for ever, never redialled); one not there is dialled.
 */
void redis_tick(struct cluster *c)
{
	uint64_t now = cluster_now(c), late = 2 * (uint64_t)c->expiry_ms;
	if (redis_up(c) && ((c->beat_sent != 0 && now - c->beat_sent > late) ||
	                    (c->echo_sent != 0 && now - c->echo_sent > late)))
		redis_drop(c, c->echo_sent != 0 && now - c->echo_sent > late
		                      ? "does not bring our own messages back"
		                      : "does not answer our heartbeat");
	else if (!c->stopping && !redis_up(c) &&
	         (made_unreached(c->pub, c->pub_connecting, c->pub_dialed, now) ||
	          made_unreached(c->sub, c->sub_connecting, c->sub_dialed, now)))
		redis_drop(c, "connected but not reached (no answer to our subscription)");
	redis_connect(c);
}

/* An echo (H) to our own inbox unless one is on its way: the way through Redis and back. */
void redis_echo(struct cluster *c)
{
	if (c->echo_sent == 0) {
		char ch[64];
		redis_inbox(ch, c->name);
		if (redis_publish(c, ch, "H", NULL, 0, NULL, NULL))
			c->echo_sent = cluster_now(c);
	}
}
