/*
 * session_watch.c - who hears a game (see session_watch.h): its players and its
 * spectators. A new state is rendered once per (format, viewer) and shared; a
 * spectator whose output is backed up gets only the newest state once it
 * drains (coalescing), and any other message to it, or answer to its next
 * command (server.c), is preceded by that state so the game's order holds.
 * Each client's list of its games (seats and watches). watch (at most
 * max_watches at once), unwatch, say (the latest lines are kept and resent
 * to whoever comes in), the spectator count for those who asked, and the news
 * of a player leaving or coming back.
 */
#include "server/play/session_watch.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/play/session_clock.h"
#include "server/play/session_internal.h"
#include "server/play/session_view.h"

bool session_watch_member_add(struct client *c, struct game *g)
{
	for (unsigned i = 0; i < c->ngames; i++)
		if (c->games[i] == g)
			return true;
	if (c->ngames == c->capgames) {
		unsigned cap = c->capgames ? 2 * c->capgames : 4;
		struct game **n = realloc(c->games, cap * sizeof *n);
		if (n == NULL)
			return false;
		c->games = n;
		c->capgames = cap;
	}
	c->games[c->ngames++] = g;
	g->sess->epoch++;
	return true;
}

void session_watch_member_del(struct client *c, const struct game *g)
{
	for (unsigned i = 0; i < c->ngames; i++)
		if (c->games[i] == g) {
			c->games[i] = c->games[--c->ngames];
			g->sess->epoch++;
			return;
		}
}

bool session_watch_has(const struct game *g, const struct client *c)
{
	for (size_t i = 0; i < g->nw; i++)
		if (g->w[i].c == c)
			return true;
	return false;
}

void session_watch_want_counts(struct client *c, bool on)
{
	c->want_watchers = on;
}

void session_watch_send_state(struct game *g, struct snapshot *sn, struct client *c, int viewer)
{
	if (c->fe != NULL) { /* another protocol renders it for this client (msg.h) */
		struct outbuf *b = c->fe->render_state(c, g, sn, viewer);
		client_send(c, b);
		outbuf_unref(b);
		return;
	}
	client_send(c, session_view_snap_out(g, sn, viewer, c->json));
}

void session_watch_broadcast_state(struct game *g)
{
	struct snapshot *sn = session_view_snap_build(g);
	if (sn == NULL)
		return;
	sn->seq = ++g->seq;
	session_view_snap_unref(g->snap);
	g->snap = sn;
	for (int i = 0; i < g->ops->nplayers; i++)
		if (g->pl[i].c != NULL)
			session_watch_send_state(g, sn, g->pl[i].c, i);
	for (size_t i = 0; i < g->nw; i++) {
		struct watcher *w = &g->w[i];
		if (session_seat_of(g, w->c) >= 0)
			continue;
		session_view_snap_unref(w->pending);
		w->pending = NULL;
		if (client_slow(w->c)) {
			w->pending = sn;
			sn->refs++;
			w->c->has_pending_states = true;
		} else {
			session_watch_send_state(g, sn, w->c, -1);
		}
	}
}

bool session_watch_is_current(const struct game *g, bool json, const struct outbuf *b)
{
	return g->snap != NULL && g->snap->out[json][0] == b;
}

/* Does sn no longer show g as it stands (beyond the spectator count)? */
static bool snap_stale(const struct game *g, const struct snapshot *sn)
{
	if (sn->over != g->over || sn->draw_offer != g->draw_offer ||
	    sn->undo_offer != g->undo_offer || sn->undo_n != g->undo_n ||
	    sn->rematch_offer != g->rematch_offer)
		return true;
	if (!g->over && session_simultaneous(g) && memcmp(sn->acted, g->acted, sizeof sn->acted))
		return true;
	if (g->over || sn->built == session_clock_now(g))
		return false;
	/* time has passed: a running clock or turn shows less, an action may be in */
	return session_simultaneous(g) || (g->so.timed && !g->clock_held);
}

struct snapshot *session_watch_current(struct game *g)
{
	/* sent to one client (watch, refresh, return): its spectator count is now's too (a
	   broadcast's state need not be rebuilt for it: the count goes in a watchers event) */
	if (g->snap == NULL ||
	    (!snap_stale(g, g->snap) && g->snap->watchers == session_watchers(g)))
		return g->snap;
	struct snapshot *sn = session_view_snap_build(g);
	if (sn == NULL)
		return g->snap;
	session_view_snap_unref(g->snap);
	g->snap = sn;
	return sn;
}

void session_watch_send_current(struct game *g, struct client *c, int viewer)
{
	uint64_t need = client_barrier_push(g->sess->bar, g->jseq);
	struct snapshot *sn = session_watch_current(g);
	if (sn != NULL)
		session_watch_send_state(g, sn, c, viewer);
	client_barrier_pop(g->sess->bar, need);
}

void session_watch_flush(struct sessions *s, struct client *c)
{
	(void)s;
	c->has_pending_states = false;
	for (unsigned k = 0; k < c->ngames; k++) {
		struct game *g = c->games[k];
		for (size_t i = 0; i < g->nw; i++)
			if (g->w[i].c == c && g->w[i].pending != NULL) {
				/* a coalesced state may be one that waits for the store */
				uint64_t need = client_barrier_push(s->bar, g->jseq);
				session_watch_send_state(g, g->w[i].pending, c, -1);
				client_barrier_pop(s->bar, need);
				session_view_snap_unref(g->w[i].pending);
				g->w[i].pending = NULL;
			}
	}
}

/*
 * One message (owned: json, text) to g's connected players and spectators but except (may be
 * NULL), and when asked only to those who asked for spectator counts. A spectator's coalesced
 * state is sent before it: the game's order holds.
 */
static void broadcast(struct game *g, cJSON *json, char *text, const struct client *except,
                      bool asked, const char *from)
{
	const struct sessions *s = g->sess;
	/* chat (from set) skips those who block its author (the hides callback) */
#define HIDES(c) (from != NULL && s->hides != NULL && s->hides(s->hides_ud, (c), from))
	struct msg m;
	msg_init(&m, json, text);
	for (int i = 0; i < g->ops->nplayers; i++) {
		struct client *c = g->pl[i].c;
		if (c != NULL && c != except && (!asked || c->want_watchers) && !HIDES(c))
			msg_send(&m, c);
	}
	for (size_t i = 0; i < g->nw; i++) {
		struct watcher *w = &g->w[i];
		if (session_seat_of(g, w->c) >= 0 || w->c == except ||
		    (asked && !w->c->want_watchers) || HIDES(w->c))
			continue;
		if (w->pending != NULL) {
			session_watch_send_state(g, w->pending, w->c, -1);
			session_view_snap_unref(w->pending);
			w->pending = NULL;
		}
		msg_send(&m, w->c);
	}
	msg_done(&m);
#undef HIDES
}

void session_watch_notify(struct game *g, cJSON *json, char *text)
{
	struct msg m;
	msg_init(&m, json, text);
	for (int i = 0; i < g->ops->nplayers; i++)
		if (g->pl[i].c != NULL)
			msg_send_now(&m, g->pl[i].c);
	for (size_t i = 0; i < g->nw; i++)
		if (session_seat_of(g, g->w[i].c) < 0)
			msg_send_now(&m, g->w[i].c);
	msg_done(&m);
}

void session_watch_broadcast(struct game *g, cJSON *json, char *text, const struct client *except)
{
	broadcast(g, json, text, except, false, NULL);
}

/* ---- the spectator count -------------------------------------------------------------- */

void session_watch_tell_count(struct game *g)
{
	g->nw_due = false;
	size_t nw = session_watchers(g);
	if (nw == g->nw_told)
		return;
	g->nw_told = nw;
	g->nw_told_at = session_clock_now(g);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "watchers");
	cJSON_AddNumberToObject(j, "game", (double)g->id);
	cJSON_AddNumberToObject(j, "watchers", (double)nw);
	broadcast(g, j, xasprintf("watchers game %" PRIu64 ": %zu", g->id, nw), NULL, true, NULL);
}

void session_watch_count_changed(struct game *g)
{
	if (g->nw_due || g->freeing)
		return;
	if (session_clock_now(g) >= g->nw_told_at + SESSION_WATCHERS_MS) {
		session_watch_tell_count(g);
		/* a quiet period follows even when nothing changed */
		g->nw_told_at = session_clock_now(g);
	} else {
		g->nw_due = true; /* told when the period ends (the game's timer) */
		session_clock_arm(g);
	}
}

bool session_watch_set_remote(struct game *g, int64_t extra)
{
	if (extra == g->nw_extra)
		return false;
	g->nw_extra = extra;
	session_watch_count_changed(g);
	return true;
}

/* ---- chat ------------------------------------------------------------------------------ */

/* Keeps c's line as the newest of g's chat, dropping the oldest beyond SESSION_CHAT_KEEP. */
static void chat_keep(struct game *g, const struct client *c, const char *text)
{
	char *t = strdup(text);
	if (t == NULL)
		return;
	struct chat_line *l = &g->chat[g->chat_total % SESSION_CHAT_KEEP];
	free(l->text);
	snprintf(l->from, sizeof l->from, "%s", c->name);
	l->text = t;
	g->chat_total++;
}

void session_watch_send_chat(struct game *g, struct client *c)
{
	uint64_t n = g->chat_total < SESSION_CHAT_KEEP ? g->chat_total : SESSION_CHAT_KEEP;
	if (n == 0)
		return;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "chat_history");
	cJSON_AddNumberToObject(j, "game", (double)g->id);
	cJSON_AddNumberToObject(j, "total", (double)g->chat_total);
	cJSON *a = cJSON_AddArrayToObject(j, "lines");
	char *t = xasprintf("chat of game %" PRIu64 ", the last %" PRIu64 " line%s:", g->id, n,
	                    n == 1 ? "" : "s");
	for (uint64_t k = g->chat_total - n; k < g->chat_total; k++) {
		const struct chat_line *l = &g->chat[k % SESSION_CHAT_KEEP];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "from", l->from);
		cJSON_AddStringToObject(o, "text", l->text);
		cJSON_AddItemToArray(a, o);
		xappend(&t, "\n[%" PRIu64 "] %s: %s", g->id, l->from, l->text);
	}
	send_msg(c, j, t);
}

void session_watch_chat_free(struct game *g)
{
	for (int i = 0; i < SESSION_CHAT_KEEP; i++) {
		free(g->chat[i].text);
		g->chat[i].text = NULL;
	}
}

/* ---- spectators ------------------------------------------------------------------------ */

bool session_watch_add(struct game *g, struct client *c)
{
	if (session_watch_has(g, c))
		return true;
	if (g->nw == g->cap_w) {
		size_t cap = g->cap_w ? g->cap_w * 2 : 4;
		struct watcher *n = realloc(g->w, cap * sizeof *n);
		if (n == NULL)
			return false;
		g->w = n;
		g->cap_w = cap;
	}
	if (!session_watch_member_add(c, g))
		return false;
	g->w[g->nw++] = (struct watcher){.c = c, .pending = NULL};
	c->nwatching++;
	g->sess->epoch++;
	return true;
}

void session_watch_start(struct client *c, const struct proto_req *rq, struct game *g, int seat)
{
	bool added = false;
	if (seat < 0 && !session_watch_has(g, c)) {
		unsigned most = g->sess->lim.max_watches;
		if (most > 0 && c->nwatching >= most) {
			reply_err(c, rq, ERR_WATCH_LIMIT,
			          "you watch %u games, the most one connection may; unwatch one "
			          "first",
			          c->nwatching);
			return;
		}
		if (!session_watch_add(g, c)) {
			reply_oom(c, rq);
			return;
		}
		added = true;
	}
	/* the game as it stands, once what it waits for is stored */
	uint64_t need = client_barrier_push(g->sess->bar, g->jseq);
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "game", (double)g->id);
	reply_ok(c, rq, f, NULL, "%s game %" PRIu64, seat >= 0 ? "you play in" : "watching", g->id);
	struct snapshot *sn = session_watch_current(g);
	if (sn != NULL)
		session_watch_send_state(g, sn, c, seat);
	session_watch_send_chat(g, c);
	client_barrier_pop(g->sess->bar, need);
	if (added)
		session_watch_count_changed(g);
}

void session_watch_refresh(struct client *c, const struct proto_req *rq, struct game *g, int seat)
{
	/* the game as it stands, once what it waits for is stored */
	uint64_t need = client_barrier_push(g->sess->bar, g->jseq);
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "game", (double)g->id);
	reply_ok(c, rq, f, NULL, "game %" PRIu64 " as it stands", g->id);
	struct snapshot *sn = session_watch_current(g);
	if (sn != NULL)
		session_watch_send_state(g, sn, c, seat);
	client_barrier_pop(g->sess->bar, need);
}

bool session_watch_drop(struct game *g, struct client *c)
{
	for (size_t i = 0; i < g->nw; i++)
		if (g->w[i].c == c) {
			session_view_snap_unref(g->w[i].pending);
			g->w[i] = g->w[--g->nw];
			c->nwatching--;
			g->sess->epoch++;
			if (session_seat_of(g, c) < 0)
				session_watch_member_del(c, g);
			session_watch_count_changed(g);
			return true;
		}
	return false;
}

void session_watch_stop(struct client *c, const struct proto_req *rq, struct game *g)
{
	if (!session_watch_drop(g, c)) {
		reply_err(c, rq, ERR_NOT_WATCHING, "you do not watch game %" PRIu64, g->id);
		return;
	}
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "game", (double)g->id);
	reply_ok(c, rq, f, NULL, "no longer watching game %" PRIu64, g->id);
}

void session_watch_say(struct client *c, const struct proto_req *rq, struct game *g,
                       const char *text)
{
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "game", (double)g->id);
	reply_ok(c, rq, f, NULL, "said in game %" PRIu64, g->id);
	chat_keep(g, c, text);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "chat");
	cJSON_AddNumberToObject(j, "game", (double)g->id);
	cJSON_AddStringToObject(j, "from", c->name);
	cJSON_AddStringToObject(j, "text", text);
	broadcast(g, j, xasprintf("[%" PRIu64 "] %s: %s", g->id, c->name, text), NULL, false,
	          c->name);
}

/* ---- leaving and coming back ------------------------------------------------------- */

void session_watch_tell_presence(struct game *g, int seat, bool back)
{
	const struct player *p = &g->pl[seat];
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "info");
	cJSON_AddNumberToObject(j, "game", (double)g->id);
	cJSON_AddStringToObject(j, "event", back ? "back" : "gone");
	cJSON_AddStringToObject(j, "player", p->name);
	cJSON_AddNumberToObject(j, "seat", seat);
	char *t;
	if (back) {
		t = xasprintf("%s (%s) is back", p->name, g->ops->seat_names[seat]);
	} else {
		cJSON_AddNumberToObject(j, "grace_ms", (double)g->sess->grace_ms);
		t = xasprintf("%s (%s) left; they lose in %" PRId64 " s unless they come back",
		              p->name, g->ops->seat_names[seat], g->sess->grace_ms / 1000);
	}
	cJSON_AddStringToObject(j, "message", t ? t : "");
	char *text = xasprintf("info game %" PRIu64 ": %s", g->id, t ? t : "");
	free(t);
	session_watch_broadcast(g, j, text, p->c);
}
