/*
 * session_watch.c - who hears a game (see session.h): its players and its
 * spectators. A new state is rendered once per (format, viewer) and shared; a
 * spectator whose output is backed up gets only the newest state once it
 * drains (coalescing), and any other message to it is preceded by that state
 * so the game's order holds. watch, unwatch, say, and the news of a player
 * leaving or coming back.
 */
#include "server/session.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool session_is_watching(const struct game *g, const struct client *c)
{
	for (size_t i = 0; i < g->nw; i++)
		if (g->w[i].c == c)
			return true;
	return false;
}

void watch_send_state(struct game *g, struct snapshot *sn, struct client *c, int viewer)
{
	client_send(c, snap_out(g, sn, viewer, c->json));
}

void watch_broadcast_state(struct game *g)
{
	struct snapshot *sn = snap_build(g);
	if (sn == NULL)
		return;
	sn->seq = ++g->seq;
	snap_unref(g->snap);
	g->snap = sn;
	for (int i = 0; i < g->ops->nplayers; i++)
		if (g->pl[i].c != NULL)
			watch_send_state(g, sn, g->pl[i].c, i);
	for (size_t i = 0; i < g->nw; i++) {
		struct watcher *w = &g->w[i];
		if (session_seat_of(g, w->c) >= 0)
			continue;
		snap_unref(w->pending);
		w->pending = NULL;
		if (client_slow(w->c)) {
			w->pending = sn;
			sn->refs++;
			w->c->has_pending_states = true;
		} else {
			watch_send_state(g, sn, w->c, -1);
		}
	}
}

void session_flush_pending(struct sessions *s, struct client *c)
{
	c->has_pending_states = false;
	for (struct game *g = s->games; g != NULL; g = g->next)
		for (size_t i = 0; i < g->nw; i++)
			if (g->w[i].c == c && g->w[i].pending != NULL) {
				watch_send_state(g, g->w[i].pending, c, -1);
				snap_unref(g->w[i].pending);
				g->w[i].pending = NULL;
			}
}

/* A spectator's coalesced state is sent before the message. */
void watch_broadcast(struct game *g, cJSON *json, char *text, const struct client *except)
{
	struct msg m;
	msg_init(&m, json, text);
	for (int i = 0; i < g->ops->nplayers; i++)
		if (g->pl[i].c != NULL && g->pl[i].c != except)
			msg_send(&m, g->pl[i].c);
	for (size_t i = 0; i < g->nw; i++) {
		struct watcher *w = &g->w[i];
		if (session_seat_of(g, w->c) >= 0 || w->c == except)
			continue;
		if (w->pending != NULL) { /* a coalesced state goes first: the game's order holds */
			watch_send_state(g, w->pending, w->c, -1);
			snap_unref(w->pending);
			w->pending = NULL;
		}
		msg_send(&m, w->c);
	}
	msg_done(&m);
}

/* ---- spectators and chat ----------------------------------------------------------- */

void session_watch(struct client *c, const struct proto_req *rq, struct game *g, int seat)
{
	if (seat < 0 && !session_is_watching(g, c)) {
		if (g->nw == g->cap_w) {
			size_t cap = g->cap_w ? g->cap_w * 2 : 4;
			struct watcher *n = realloc(g->w, cap * sizeof *n);
			if (n == NULL) {
				reply_err(c, rq, "INTERNAL", "out of memory");
				return;
			}
			g->w = n;
			g->cap_w = cap;
		}
		g->w[g->nw++] = (struct watcher){.c = c, .pending = NULL};
	}
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "game", (double)g->id);
	reply_ok(c, rq, f, NULL, "%s game %" PRIu64, seat >= 0 ? "you play in" : "watching", g->id);
	if (g->snap != NULL)
		watch_send_state(g, g->snap, c, seat);
}

bool watch_drop(struct game *g, const struct client *c)
{
	for (size_t i = 0; i < g->nw; i++)
		if (g->w[i].c == c) {
			snap_unref(g->w[i].pending);
			g->w[i] = g->w[--g->nw];
			return true;
		}
	return false;
}

void session_unwatch(struct client *c, const struct proto_req *rq, struct game *g)
{
	if (!watch_drop(g, c)) {
		reply_err(c, rq, "NOT_WATCHING", "you do not watch game %" PRIu64, g->id);
		return;
	}
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "game", (double)g->id);
	reply_ok(c, rq, f, NULL, "no longer watching game %" PRIu64, g->id);
}

void session_say(struct client *c, const struct proto_req *rq, struct game *g, const char *text)
{
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "game", (double)g->id);
	reply_ok(c, rq, f, NULL, "said in game %" PRIu64, g->id);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "chat");
	cJSON_AddNumberToObject(j, "game", (double)g->id);
	cJSON_AddStringToObject(j, "from", c->name);
	cJSON_AddStringToObject(j, "text", text);
	watch_broadcast(g, j, xasprintf("[%" PRIu64 "] %s: %s", g->id, c->name, text), NULL);
}

/* ---- leaving and coming back ------------------------------------------------------- */

void watch_tell_presence(struct game *g, int seat, bool back)
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
	watch_broadcast(g, j, text, p->c);
}
