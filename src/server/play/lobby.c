/*
 * lobby.c - presence and seeks (see lobby.h): logging in, finding a user by
 * name, who; the list of game kinds; seeks offered, listed, withdrawn and
 * accepted, and the feed that tells the subscribers (every logged-in client
 * but those who turned it off) of each new or vanished open seek but their own.
 */
#include "server/play/lobby.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server/util/json_out.h"
#include "server/msg/rtt.h"
#include "server/play/session_view.h"
#include "server/play/session_watch.h"

static void feed_cb(uv_timer_t *t);

void lobby_init(struct lobby *l, struct conn_hub *hub, struct sessions *sess, uint64_t feed_ms,
                unsigned max_seeks)
{
	memset(l, 0, sizeof *l);
	l->hub = hub;
	l->sess = sess;
	l->feed_ms = l->feed_gap = feed_ms;
	l->feed_burst = l->feed_credit = LOBBY_FEED_BURST;
	l->credit_at = uv_now(hub->loop);
	l->max_seeks = max_seeks;
	l->feed_open = uv_timer_init(hub->loop, &l->feed_timer) == 0;
	l->feed_timer.data = l;
}

void lobby_set_hooks(struct lobby *l, const struct lobby_hooks *h)
{
	l->hooks = *h;
}

/* The client of cn when it is logged in and staying, else NULL. */
static struct client *user_at(struct conn *cn)
{
	struct client *c = client_of(cn);
	return c != NULL && c->logged_in && !c->remote && !cn->closing ? c : NULL;
}

struct client *lobby_find_user(struct lobby *l, const char *name)
{
	for (struct conn *cn = l->hub->conns; cn != NULL; cn = cn->next) {
		struct client *c = user_at(cn);
		if (c != NULL && strcasecmp(c->name, name) == 0)
			return c;
	}
	return NULL;
}

bool lobby_user_online(struct lobby *l, const char *name)
{
	return lobby_find_user(l, name) != NULL ||
	       (l->hooks.elsewhere != NULL && l->hooks.elsewhere(l->hooks.ud, name));
}

/* ---- seeks ------------------------------------------------------------------------ */

static bool is_bot(const struct client *c)
{
	return c != NULL && c->logged_in && c->prefs.bot;
}

static bool refuses_bots(const struct client *c)
{
	return c != NULL && c->logged_in && c->prefs.bots_off;
}

bool lobby_bots_meet(const struct client *a, const struct client *b)
{
	return !(is_bot(a) && refuses_bots(b)) && !(is_bot(b) && refuses_bots(a));
}

const char *lobby_bot_mark(const struct client *c)
{
	return is_bot(c) ? "BOT " : "";
}

static const char *color_word(int color)
{
	return color == 0 ? "first" : color == 1 ? "second" : "random";
}

cJSON *lobby_seek_json(const struct seek *k)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "id", (double)k->id);
	cJSON_AddStringToObject(j, "by", k->by->name);
	cJSON_AddBoolToObject(j, "bot", is_bot(k->by));
	if (k->to != NULL)
		cJSON_AddStringToObject(j, "to", k->to->name);
	cJSON_AddStringToObject(j, "kind", k->ops->name);
	cJSON_AddItemToObject(j, "options", session_view_options_json(k->ops, &k->so.params));
	if (k->so.timed) {
		cJSON *t = cJSON_AddObjectToObject(j, "time");
		cJSON_AddNumberToObject(t, "base_ms", (double)k->so.base_ms);
		cJSON_AddNumberToObject(t, "inc_ms", (double)k->so.inc_ms);
	} else {
		cJSON_AddNullToObject(j, "time");
	}
	cJSON_AddStringToObject(j, "color", color_word(k->so.color));
	if (k->ops->flags & GAME_SIMULTANEOUS) {
		cJSON_AddNumberToObject(j, "turn_ms", (double)k->so.turn_ms);
		if (k->so.first_turn_ms > 0)
			cJSON_AddNumberToObject(j, "first_turn_ms", (double)k->so.first_turn_ms);
	} else {
		cJSON_AddNullToObject(j, "turn_ms");
	}
	cJSON_AddBoolToObject(j, "rated", k->so.rated);
	return j;
}

/* "3 by alice: ttt m=3 n=3 k=3, untimed, seeker plays random[, to bob]" (malloc'd). */
char *lobby_seek_text(const struct seek *k)
{
	char *o = session_view_options_text(k->ops, &k->so);
	char *t = xasprintf("%" PRIu64 " by %s%s: %s %s, seeker plays %s%s%s", k->id,
	                    lobby_bot_mark(k->by), k->by->name, k->ops->name, o ? o : "",
	                    color_word(k->so.color), k->to != NULL ? ", to " : "",
	                    k->to != NULL ? k->to->name : "");
	free(o);
	return t;
}

/* The news of a seek, new or gone, as one message. */
static void news_msg(struct msg *m, const struct seek_news *n)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "seek");
	cJSON_AddStringToObject(j, "event", n->gone ? "gone" : "new");
	char *text;
	if (n->gone) {
		cJSON_AddNumberToObject(j, "id", (double)n->id);
		text = xasprintf("seek %" PRIu64 " gone", n->id);
	} else {
		cJSON_AddItemToObject(j, "seek", lobby_seek_json(n->k));
		char *d = lobby_seek_text(n->k);
		text = xasprintf("seek %s (accept %" PRIu64 " to play)", d ? d : "", n->id);
		free(d);
	}
	msg_init(m, j, text);
}

/* Does news n go to c? Not to its author, nor to who was told at once, nor across bots off. */
static bool news_for(const struct seek_news *n, const struct client *c)
{
	return n->skip_id[0] != c->conn->id && n->skip_id[1] != c->conn->id &&
	       !(n->by_bot && refuses_bots(c)) && !(n->by_bots_off && is_bot(c));
}

/* The subscribers: logged in, staying, not `set seeks off`, no front-end (a front-end's
   clients hear of seeks through lobby_news, in its own lines). */
static struct client *subscriber_at(struct conn *cn)
{
	struct client *c = user_at(cn);
	return c != NULL && !c->seeks_off && c->fe == NULL && conn_alive(cn) ? c : NULL;
}

/* Concatenates the renderings in parts (NULLs and those in skip left out) into one outbuf;
   NULL out of memory. */
static struct outbuf *concat(struct outbuf *const *parts, size_t n, uint32_t skip)
{
	size_t len = 0;
	for (size_t i = 0; i < n; i++)
		if (parts[i] != NULL && !(skip & (1u << i)))
			len += parts[i]->len;
	struct outbuf *b = malloc(sizeof *b + len + 1);
	if (b == NULL)
		return NULL;
	b->refs = 1;
	b->len = 0;
	for (size_t i = 0; i < n; i++)
		if (parts[i] != NULL && !(skip & (1u << i))) {
			memcpy(b->data + b->len, parts[i]->data, parts[i]->len);
			b->len += parts[i]->len;
		}
	b->data[b->len] = '\0';
	return b;
}

/* Many seeks at once: one summary to every subscriber instead of each. */
static void feed_summary(struct lobby *l, size_t count)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "seek");
	cJSON_AddStringToObject(j, "event", "changed");
	cJSON_AddNumberToObject(j, "count", (double)count);
	cJSON_AddNumberToObject(j, "open", l->nseeks);
	struct msg m;
	msg_init(&m, j,
	         xasprintf("seeks: %zu came or went; %u open ('seeks' lists them)", count,
	                   l->nseeks));
	for (struct conn *cn = l->hub->conns; cn != NULL; cn = cn->next) {
		struct client *c = subscriber_at(cn);
		if (c != NULL)
			msg_send(&m, c);
	}
	msg_done(&m);
}

/* Sends the news waiting in the feed: one write per subscriber. */
static void feed_flush(struct lobby *l)
{
	size_t n = l->nfeed;
	if (n == 0)
		return;
	l->nfeed = 0;
	for (size_t i = 0; i < n; i++)
		if (!l->feed[i].gone)
			l->feed[i].k->told = true;
	/* a flood of seeks: the summaries come further apart while it lasts, so it costs the
	   subscribers' writes once a second at most, not every feed_ms */
	if (n > LOBBY_FEED_MAX) {
		l->feed_gap = l->feed_gap * 2 < LOBBY_FEED_SLOW_MS ? l->feed_gap * 2
		                                                   : LOBBY_FEED_SLOW_MS;
		feed_summary(l, n);
		return;
	}
	if (n <= LOBBY_FEED_MAX / 2)
		l->feed_gap = l->feed_ms;
	struct msg m[LOBBY_FEED_MAX];
	struct outbuf *parts[2][LOBBY_FEED_MAX], *all[2];
	for (size_t i = 0; i < n; i++) {
		news_msg(&m[i], &l->feed[i]);
		parts[0][i] = outbuf_line(m[i].text ? m[i].text : "");
		parts[1][i] = json_outbuf(m[i].json);
	}
	all[0] = concat(parts[0], n, 0);
	all[1] = concat(parts[1], n, 0);
	for (struct conn *cn = l->hub->conns; cn != NULL; cn = cn->next) {
		struct client *c = subscriber_at(cn);
		if (c == NULL)
			continue;
		uint32_t skip = 0;
		for (size_t i = 0; i < n; i++)
			if (!news_for(&l->feed[i], c))
				skip |= 1u << i;
		if (skip == 0) {
			client_send(c, all[c->json]);
		} else if (skip != (1u << n) - 1) { /* its own news left out */
			struct outbuf *b = concat(parts[c->json], n, skip);
			client_send(c, b);
			outbuf_unref(b);
		}
	}
	for (size_t i = 0; i < n; i++) {
		msg_done(&m[i]);
		outbuf_unref(parts[0][i]);
		outbuf_unref(parts[1][i]);
	}
	outbuf_unref(all[0]);
	outbuf_unref(all[1]);
}

/* The sends at once the time has earned since credit_at: one every feed_gap. */
static void feed_refill(struct lobby *l)
{
	uint64_t now = uv_now(l->hub->loop);
	if (l->feed_ms == 0 || l->feed_credit >= l->feed_burst) {
		l->feed_credit = l->feed_burst;
		l->credit_at = now;
		return;
	}
	uint64_t earned = (now - l->credit_at) / l->feed_gap;
	if (earned >= l->feed_burst - l->feed_credit) {
		l->feed_credit = l->feed_burst;
		l->credit_at = now;
	} else {
		l->feed_credit += (unsigned)earned;
		l->credit_at += earned * l->feed_gap;
	}
}

static void feed_cb(uv_timer_t *t)
{
	struct lobby *l = t->data;
	l->feed_armed = false;
	if (l->nfeed == 0) /* what waited was taken back */
		return;
	feed_refill(l);
	if (l->feed_credit > 0)
		l->feed_credit--;
	feed_flush(l);
}

/* News joins the feed: it goes at once while there is credit, else with the next batch. */
static void feed_add(struct lobby *l, const struct seek_news *n)
{
	if (l->nfeed == l->capfeed) {
		size_t cap = l->capfeed ? 2 * l->capfeed : 16;
		struct seek_news *f = realloc(l->feed, cap * sizeof *f);
		if (f == NULL) { /* cannot wait: what waits goes now, and this one is not told */
			feed_flush(l);
			return;
		}
		l->feed = f;
		l->capfeed = cap;
	}
	l->feed[l->nfeed++] = *n;
	if (l->feed_armed)
		return; /* a batch waits for its time */
	feed_refill(l);
	if (l->feed_credit > 0 || !l->feed_open) {
		if (l->feed_credit > 0)
			l->feed_credit--;
		feed_flush(l);
		return;
	}
	uint64_t now = uv_now(l->hub->loop), due = l->credit_at + l->feed_gap;
	l->feed_armed = true;
	uv_timer_start(&l->feed_timer, feed_cb, due > now ? due - now : 0, 0);
}

/* The news of a new seek, or of one that went (withdrawn, its author gone, accepted:
   acceptor is told at once and not again). A seek whose "new" is still in the feed
   goes unnoticed. */
static void seek_announce(struct lobby *l, struct seek *k, bool gone, uint64_t acceptor)
{
	if (gone && !k->told) {
		for (size_t i = 0; i < l->nfeed; i++)
			if (!l->feed[i].gone && l->feed[i].k == k) {
				memmove(&l->feed[i], &l->feed[i + 1],
				        (l->nfeed - i - 1) * sizeof *l->feed);
				l->nfeed--;
				break;
			}
		return;
	}
	struct seek_news n = {.gone = gone,
	                      .id = k->id,
	                      .k = gone ? NULL : k,
	                      .skip_id = {k->by->conn->id, acceptor},
	                      .by_bot = is_bot(k->by),
	                      .by_bots_off = refuses_bots(k->by)};
	feed_add(l, &n);
}

/* A new or vanished open seek: the feed, and a cluster's and a front-end's news at once. */
static void seek_news_of(struct lobby *l, struct seek *k, bool gone, uint64_t acceptor)
{
	seek_announce(l, k, gone, acceptor);
	if (l->hooks.on_seek != NULL) {
		struct seek_news n = {.gone = gone, .id = k->id, .k = k};
		struct msg m;
		news_msg(&m, &n);
		l->hooks.on_seek(l->hooks.ud, k, gone, &m);
		msg_done(&m);
	}
	if (l->news.on_seek != NULL)
		l->news.on_seek(l->news.ud, k, gone);
}

/* Unlinks and frees seek k; tells the others when announce (never of a challenge;
   acceptor: the connection id told at once, or 0). */
static void seek_remove(struct lobby *l, struct seek *k, bool announce, uint64_t acceptor)
{
	for (struct seek **pp = &l->seeks; *pp != NULL; pp = &(*pp)->next)
		if (*pp == k) {
			*pp = k->next;
			l->nseeks--;
			break;
		}
	if (announce && k->to == NULL)
		seek_news_of(l, k, true, acceptor);
	else if (announce && l->hooks.on_seek != NULL) /* a challenge: a cluster's news only */
		l->hooks.on_seek(l->hooks.ud, k, true, NULL);
	free(k);
}

void lobby_seek_remove(struct lobby *l, struct seek *k)
{
	seek_remove(l, k, true, 0);
}

struct seek *lobby_seek_find(struct lobby *l, uint64_t id)
{
	for (struct seek *k = l->seeks; k != NULL; k = k->next)
		if (k->id == id)
			return k;
	return NULL;
}

void lobby_client_gone(struct lobby *l, struct client *c)
{
	l->epoch++;
	struct seek *k = l->seeks;
	while (k != NULL) {
		struct seek *next = k->next;
		if (k->by == c || k->to == c)
			seek_remove(l, k, true, 0);
		k = next;
	}
	if (c->logged_in && l->news.on_presence != NULL)
		l->news.on_presence(l->news.ud, c, false);
}

/* Frees what w holds; it is invalid after. */
static void who_clear(struct lobby_who_cache *w)
{
	free(w->users);
	free(w->text);
	if (w->has_reply)
		msg_done(&w->reply);
	*w = (struct lobby_who_cache){0};
}

void lobby_free(struct lobby *l)
{
	l->nfeed = 0;
	while (l->seeks != NULL)
		seek_remove(l, l->seeks, false, 0);
	free(l->feed);
	l->feed = NULL;
	free(l->motd);
	l->motd = NULL;
	l->capfeed = 0;
	who_clear(&l->who);
	if (l->feed_open && !uv_is_closing((uv_handle_t *)&l->feed_timer))
		uv_close((uv_handle_t *)&l->feed_timer, NULL);
}

void lobby_set_motd(struct lobby *l, const char *text)
{
	free(l->motd);
	l->motd = text != NULL && text[0] != '\0' ? strdup(text) : NULL;
}

const char *lobby_motd(const struct lobby *l)
{
	return l->motd != NULL ? l->motd : "";
}

/* ---- presence ------------------------------------------------------------------------ */

void lobby_login(struct lobby *l, struct client *c, const struct proto_req *rq, const char *name,
                 bool registered)
{
	if (!registered && l->hooks.guest != NULL &&
	    l->hooks.guest(l->hooks.ud, c, rq, name, NULL, false))
		return;
	lobby_login_checked(l, c, rq, name, registered);
}

void lobby_login_checked(struct lobby *l, struct client *c, const struct proto_req *rq,
                         const char *name, bool registered)
{
	l->epoch++;
	snprintf(c->name, sizeof c->name, "%s", name);
	c->logged_in = true;
	c->registered = registered;
	metric_inc(&l->sess->met.logins[registered]);
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "name", c->name);
	cJSON_AddBoolToObject(f, "guest", !registered);
	cJSON_AddBoolToObject(f, "bot", c->prefs.bot); /* identity.h */
	cJSON_AddStringToObject(f, "bots", c->prefs.bots_off ? "off" : "on");
	cJSON_AddStringToObject(f, "accept", c->prefs.accept);
	if (!registered && c->token[0] != '\0') /* identity.h: seats come back with it */
		cJSON_AddStringToObject(f, "token", c->token);
	cJSON *resumed = cJSON_AddArrayToObject(f, "resumed");
	if (l->hooks.on_claim != NULL)
		l->hooks.on_claim(l->hooks.ud, c);
	session_login(l->sess, c, resumed);
	int n = cJSON_GetArraySize(resumed);
	char *back = NULL;
	if (n > 0) {
		back = xasprintf("; back in game%s", n > 1 ? "s" : "");
		for (int i = 0; i < n; i++)
			xappend(&back, "%s %.0f", i ? "," : "",
			        cJSON_GetArrayItem(resumed, i)->valuedouble);
	}
	log_debug("logged in conn=%llu user=%s account=%s", (unsigned long long)c->conn->id,
	          c->name, registered ? "yes" : "no");
	reply_ok(c, rq, f, NULL, "logged in as %s%s%s%s%s%s", c->name, registered ? "" : " (guest)",
	         c->prefs.bot ? " (bot)" : "", back ? back : "",
	         !registered && c->token[0] ? "; token " : "", registered ? "" : c->token);
	free(back);
	session_resume_send(l->sess, c);
	if (l->motd != NULL) {
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "type", "motd");
		cJSON_AddStringToObject(j, "text", l->motd);
		send_msg(c, j, xasprintf("motd: %s", l->motd));
	}
	if (l->news.on_presence != NULL)
		l->news.on_presence(l->news.ud, c, true);
	if (l->hooks.on_login != NULL)
		l->hooks.on_login(l->hooks.ud, c);
}

void lobby_logout(struct lobby *l, struct client *c, const struct proto_req *rq)
{
	log_debug("logged out conn=%llu user=%s", (unsigned long long)c->conn->id, c->name);
	lobby_client_gone(l, c);
	session_client_gone(l->sess, c);
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "name", c->name);
	cJSON_AddNumberToObject(f, "grace_ms", (double)l->sess->grace_ms);
	reply_ok(c, rq, f, NULL,
	         "%s logged out; seats you left wait %" PRId64 " s for you to log in again",
	         c->name, l->sess->grace_ms / 1000);
	if (l->hooks.on_logout != NULL)
		l->hooks.on_logout(l->hooks.ud, c);
	c->logged_in = false;
	c->registered = false;
	c->name[0] = '\0';
	memset(&c->prefs, 0, sizeof c->prefs);
	l->epoch++;
}

/*
 * What who says u does in game g: WHO_PLAYS, WHO_WATCHES, or nothing (0). A game that has
 * ended is neither played nor watched, though it stays in memory a while and its spectators
 * are still in it (for its chat and rematch): who lists only live games.
 */
enum { WHO_PLAYS = 1, WHO_WATCHES };
static int who_role(const struct game *g, const struct client *u)
{
	if (session_over(g))
		return 0;
	if (session_seat_of(g, u) >= 0)
		return WHO_PLAYS;
	return session_watch_has(g, u) ? WHO_WATCHES : 0;
}

/* Appends the ids of u's games in which it has role to the array in j. */
static void who_games(struct jw *j, struct client *u, int role)
{
	jw_arr(j);
	for (unsigned k = 0; k < u->ngames; k++)
		if (who_role(u->games[k], u) == role)
			jw_num(j, (double)session_id(u->games[k]));
	jw_end(j, ']');
}

/*
 * Makes who's answer again from the clients, into l->who: the users array
 * written as JSON text and the text lines, without a cJSON tree or a printf
 * per user (for a thousand users a tree took 0.75 ms, and under a flood of
 * who the answer was made again 14 times a second, as games began and ended).
 */
static void who_build(struct lobby *l)
{
	struct lobby_who_cache *w = &l->who;
	who_clear(w);
	struct jw j;
	struct json_buf t;
	jw_init(&j, NULL, 0);
	json_buf_init(&t, NULL, 0);
	char num[48];
	int n = 0, more = 0;
	jw_arr(&j);
	for (struct conn *un = l->hub->conns; un != NULL; un = un->next) {
		struct client *u = user_at(un);
		if (u == NULL)
			continue;
		if (n == LOBBY_WHO_MAX) { /* the reply stays bounded: the rest are counted */
			more++;
			continue;
		}
		session_sort_games(u); /* its own games, newest first: not every game's players */
		int64_t rtt = rtt_ms(u);
		jw_obj(&j);
		jw_key(&j, "name");
		jw_str(&j, u->name);
		jw_key(&j, "guest");
		jw_bool(&j, !u->registered);
		jw_key(&j, "bot");
		jw_bool(&j, is_bot(u));
		jw_key(&j, "playing");
		who_games(&j, u, WHO_PLAYS);
		jw_key(&j, "watching");
		who_games(&j, u, WHO_WATCHES);
		jw_key(&j, "rtt_ms");
		if (rtt >= 0)
			jw_num(&j, (double)rtt);
		else
			jw_null(&j);
		jw_end(&j, '}');
		/* "  name, rtt N ms, plays 12, watches 9" */
		json_buf_put(&t, n > 0 ? "\n  " : "  ", n > 0 ? 3 : 2);
		json_buf_put(&t, lobby_bot_mark(u), strlen(lobby_bot_mark(u)));
		json_buf_put(&t, u->name, strlen(u->name));
		if (rtt >= 0)
			json_buf_put(&t, num, (size_t)snprintf(num, sizeof num, ", rtt %" PRId64 " ms", rtt));
		for (unsigned k = 0; k < u->ngames; k++) {
			const struct game *g = u->games[k];
			int role = who_role(g, u);
			if (role != 0)
				json_buf_put(&t, num,
				             (size_t)snprintf(num, sizeof num, ", %s %" PRIu64,
				                              role == WHO_PLAYS ? "plays" : "watches",
				                              session_id(g)));
		}
		n++;
	}
	jw_end(&j, ']');
	if (more > 0)
		json_buf_put(&t, num,
		             (size_t)snprintf(num, sizeof num, "%s  and %d more", n > 0 ? "\n" : "", more));
	/* both buffers started empty, so what they hold is malloc'd: it becomes w's */
	if (jw_ok(&j) && json_buf_put(&j.b, "", 1) && json_buf_put(&t, "", 1)) {
		w->users = j.b.p;
		w->text = n + more > 0 ? t.p : NULL;
		if (w->text == NULL)
			json_buf_free(&t);
	} else {
		json_buf_free(&j.b);
		json_buf_free(&t);
	}
	w->n = n;
	w->more = more;
	w->epoch = l->epoch;
	w->sess_epoch = l->sess->epoch;
	w->rtt_gen = rtt_generation();
	w->valid = w->users != NULL;
}

void lobby_who(struct lobby *l, struct client *c, const struct proto_req *rq)
{
	struct lobby_who_cache *w = &l->who;
	if (!w->valid || w->epoch != l->epoch || w->sess_epoch != l->sess->epoch ||
	    w->rtt_gen != rtt_generation())
		who_build(l);
	if (!w->valid) {
		reply_oom(c, rq);
		return;
	}
	int all = w->n + w->more;
	struct msg one, *m = rq->tagged ? &one : &w->reply;
	if (rq->tagged || !w->has_reply) {
		cJSON *f = cJSON_CreateObject();
		cJSON_AddItemToObject(f, "users", cJSON_CreateRaw(w->users));
		if (w->more > 0)
			cJSON_AddNumberToObject(f, "more", w->more);
		reply_ok_msg(m, rq, f, w->text ? strdup(w->text) : NULL, "%d user%s online", all,
		             all == 1 ? "" : "s");
		w->has_reply |= !rq->tagged;
	}
	msg_send(m, c);
	if (m == &one)
		msg_done(&one);
}

void lobby_set_seeks(struct client *c, const struct proto_req *rq, const char *word)
{
	bool on = strcasecmp(word, "on") == 0;
	if (!on && strcasecmp(word, "off") != 0) {
		reply_err(c, rq, ERR_BAD_ARGS, "usage: set seeks on|off");
		return;
	}
	c->seeks_off = !on;
	cJSON *f = cJSON_CreateObject();
	cJSON_AddBoolToObject(f, "seeks", on);
	reply_ok(c, rq, f, NULL, "%s",
	         on ? "you hear of seeks as they come and go"
	            : "no more seek news ('seeks' lists them)");
}

/* ---- seeks ------------------------------------------------------------------------- */

void lobby_games(struct client *c, const struct proto_req *rq)
{
	cJSON *f = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(f, "games");
	char *extra = NULL;
	int count = 0;
	for (size_t i = 0; game_table[i] != NULL; i++, count++) {
		const struct game_ops *ops = game_table[i];
		bool sim = (ops->flags & GAME_SIMULTANEOUS) != 0;
		cJSON *g = cJSON_CreateObject();
		cJSON_AddStringToObject(g, "name", ops->name);
		cJSON_AddStringToObject(g, "title", ops->title);
		cJSON_AddNumberToObject(g, "players", ops->nplayers);
		cJSON *seats = cJSON_AddArrayToObject(g, "seats");
		for (int k = 0; k < ops->nplayers; k++)
			cJSON_AddItemToArray(seats, cJSON_CreateString(ops->seat_names[k]));
		cJSON_AddBoolToObject(g, "simultaneous", sim);
		cJSON *opts = cJSON_AddArrayToObject(g, "options");
		char *line =
		        xasprintf("  %-6s %s, seats %s/%s%s", ops->name, ops->title,
		                  ops->seat_names[0], ops->seat_names[1],
		                  sim ? ", simultaneous turns (turn_ms=, first_turn_ms=, strict=)"
		                      : " (time=MIN+INC)");
		for (int k = 0; k < ops->nopts; k++) {
			const struct game_optdef *d = &ops->opts[k];
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "name", d->name);
			if (d->words != NULL) /* a word option's values are its words */
				cJSON_AddStringToObject(o, "default", game_opt_word(d, d->def));
			else
				cJSON_AddNumberToObject(o, "default", (double)d->def);
			if ((d->flags & GAME_OPT_PEOPLE) && d->words != NULL) /* people's games' */
				cJSON_AddStringToObject(o, "people", game_opt_word(d, d->max));
			else if (d->flags & GAME_OPT_PEOPLE)
				cJSON_AddNumberToObject(o, "people", (double)d->max);
			cJSON_AddNumberToObject(o, "min", (double)d->min);
			cJSON_AddNumberToObject(o, "max", (double)d->max);
			cJSON_AddStringToObject(o, "help", d->help ? d->help : "");
			cJSON_AddItemToArray(opts, o);
			if (d->words != NULL) { /* written by word: "values", the words in order */
				cJSON *v = cJSON_AddArrayToObject(o, "values");
				char *alt = NULL;
				for (int64_t w = d->min; w <= d->max; w++) {
					cJSON_AddItemToArray(
					        v, cJSON_CreateString(game_opt_word(d, w)));
					xappend(&alt, "%s%s", w > d->min ? "|" : "",
					        game_opt_word(d, w));
				}
				xappend(&line, "\n    %s=%s (%s) %s", d->name,
				        game_opt_word(d, d->def), alt ? alt : "",
				        d->help ? d->help : "");
				free(alt);
				continue;
			}
			xappend(&line, "\n    %s=%" PRId64 " (%" PRId64 "..%" PRId64 ") %s",
			        d->name, d->def, d->min, d->max, d->help ? d->help : "");
		}
		cJSON_AddItemToArray(arr, g);
		xappend(&extra, "%s%s", i ? "\n" : "", line ? line : "");
		free(line);
	}
	reply_ok(c, rq, f, extra, "%d game kinds; seek <kind> [opt=value ...]", count);
}

struct seek *lobby_seek_new(struct lobby *l, struct client *c, const struct proto_req *rq, int argc,
                            char *const argv[], struct client *to)
{
	const struct game_ops *ops = game_find(argv[0]);
	if (ops == NULL) {
		reply_err(c, rq, ERR_UNKNOWN_GAME, "no game called '%.*s'; 'games' lists them",
		          (int)text_cut(argv[0], 32), argv[0]);
		return NULL;
	}
	struct seek_opts so;
	char why[160];
	if (seek_opts_parse(ops, argc - 1, argv + 1, &so, why, sizeof why) < 0) {
		reply_err(c, rq, ERR_BAD_OPTION, "%s", why);
		return NULL;
	}
	if (so.rated && !c->registered) {
		reply_err(c, rq, ERR_RATED_NEEDS_ACCOUNT,
		          "rated games are between accounts: register first, or seek rated=0");
		return NULL;
	}
	if (so.rated && to != NULL && !to->registered) {
		reply_err(c, rq, ERR_RATED_NEEDS_ACCOUNT,
		          "%s is a guest: rated games are between accounts", to->name);
		return NULL;
	}
	int mine = 0;
	for (struct seek *k = l->seeks; k != NULL; k = k->next)
		mine += k->by == c;
	if (mine >= LOBBY_MAX_SEEKS) {
		reply_err(c, rq, ERR_TOO_MANY_SEEKS, "you have %d open seeks already", mine);
		return NULL;
	}
	if (l->max_seeks > 0 && l->nseeks >= l->max_seeks) {
		reply_err(c, rq, ERR_TOO_MANY_SEEKS,
		          "the server holds %u open seeks, the most it keeps; accept one, or try "
		          "later",
		          l->nseeks);
		return NULL;
	}
	struct seek *k = calloc(1, sizeof *k);
	if (k == NULL) {
		reply_oom(c, rq);
		return NULL;
	}
	k->id = l->hooks.seek_id != NULL ? l->hooks.seek_id(l->hooks.ud) : 0;
	if (k->id == 0)
		k->id = ++l->next_seek_id;
	k->by = c;
	k->to = to;
	k->ops = ops;
	k->so = so;
	struct seek **pp = &l->seeks;
	while (*pp != NULL)
		pp = &(*pp)->next;
	*pp = k;
	l->nseeks++;
	return k;
}

void lobby_seek(struct lobby *l, struct client *c, const struct proto_req *rq)
{
	struct seek *k = lobby_seek_new(l, c, rq, rq->argc, rq->argv, NULL);
	if (k == NULL)
		return;
	cJSON *f = cJSON_CreateObject();
	cJSON_AddItemToObject(f, "seek", lobby_seek_json(k));
	char *d = lobby_seek_text(k);
	reply_ok(c, rq, f, NULL, "seek %s", d ? d : "");
	free(d);
	seek_news_of(l, k, false, 0);
}

void lobby_seeks(struct lobby *l, struct client *c, const struct proto_req *rq)
{
	cJSON *f = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(f, "seeks");
	char *extra = NULL;
	size_t n = 0, shown = 0;
	for (struct seek *k = l->seeks; k != NULL; k = k->next) {
		if (k->to != NULL && k->to != c && k->by != c)
			continue; /* someone else's challenge */
		if (!lobby_bots_meet(c, k->by))
			continue; /* across bots off (§17) */
		if (n++ >= LOBBY_SEEKS_LISTED)
			continue; /* counted, not listed: one reply stays small */
		shown++;
		cJSON_AddItemToArray(arr, lobby_seek_json(k));
		char *d = lobby_seek_text(k);
		xappend(&extra, "%s  %s", extra ? "\n" : "", d ? d : "");
		free(d);
	}
	lobby_seeks_reply(c, rq, f, extra, n, shown);
}

void lobby_seeks_reply(struct client *c, const struct proto_req *rq, cJSON *f, char *extra,
                       size_t open, size_t listed)
{
	if (listed < open) {
		cJSON_AddNumberToObject(f, "open", (double)open);
		reply_ok(c, rq, f, extra, "%zu open seeks, the first %zu listed", open, listed);
	} else {
		reply_ok(c, rq, f, extra, "%zu open seek%s", open, open == 1 ? "" : "s");
	}
}

void lobby_unseek(struct lobby *l, struct client *c, const struct proto_req *rq, struct seek *k)
{
	uint64_t id = k->id;
	if (k->by != c) {
		reply_err(c, rq, ERR_NOT_YOUR_SEEK, "seek %" PRIu64 " is %s's", id, k->by->name);
		return;
	}
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "seek", (double)id);
	reply_ok(c, rq, f, NULL, "seek %" PRIu64 " withdrawn", id);
	seek_remove(l, k, true, 0);
}

void lobby_accept(struct lobby *l, struct client *c, const struct proto_req *rq, struct seek *k)
{
	struct sessions *s = l->sess;
	uint64_t id = k->id;
	if (k->by == c) {
		reply_err(c, rq, ERR_OWN_SEEK, "seek %" PRIu64 " is your own; wait for someone",
		          id);
		return;
	}
	if (k->so.rated && !c->registered) {
		reply_err(c, rq, ERR_RATED_NEEDS_ACCOUNT,
		          "seek %" PRIu64 " is rated: rated games are between accounts", id);
		return;
	}
	int seeker = k->so.color >= 0 ? k->so.color : session_random_seat();
	struct game_spec spec = {
	        .ops = k->ops, .so = k->so, .seed = session_new_seed(k->ops, &k->so.params)};
	spec.names[seeker] = k->by->name;
	spec.clients[seeker] = k->by;
	spec.registered[seeker] = k->by->registered;
	spec.names[1 - seeker] = c->name;
	spec.clients[1 - seeker] = c;
	spec.registered[1 - seeker] = c->registered;
	struct game *g = session_create(s, &spec);
	if (g == NULL) {
		reply_err(c, rq, ERR_INTERNAL, "the game could not be started");
		return;
	}
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "game", (double)session_id(g));
	reply_ok(c, rq, f, NULL, "accepted seek %" PRIu64 ": game %" PRIu64, id, session_id(g));
	if (k->told && !c->seeks_off && !c->remote) { /* its end, in order with the answer (the
		                                         others: the feed; a relay's user: its node) */
		struct seek_news n = {.gone = true, .id = id};
		struct msg m;
		news_msg(&m, &n);
		msg_send(&m, c);
		msg_done(&m);
	}
	seek_remove(l, k, true, c->conn->id);
	session_begin(g);
}
