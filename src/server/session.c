/*
 * session.c - games in progress on the server: creation from a seek, moves
 * and simultaneous turns through game_ops, clocks, the per-game timer,
 * snapshots shared among subscribers, spectators (with coalescing for slow
 * ones), chat, resignation, disconnection with a grace period, coming back,
 * and the end of a game. See session.h.
 */
#include "server/session.h"
#include "server/offers.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static bool simultaneous(const struct game *g)
{
	return (g->ops->flags & GAME_SIMULTANEOUS) != 0;
}

static uint64_t now_ms(const struct game *g)
{
	return uv_now(g->srv->loop);
}

struct game *session_find(struct server *s, uint64_t id)
{
	for (struct game *g = s->games; g != NULL; g = g->next)
		if (g->id == id && !g->freeing)
			return g;
	return NULL;
}

int session_seat_of(const struct game *g, const struct client *c)
{
	for (int i = 0; i < g->ops->nplayers; i++)
		if (g->pl[i].c == c)
			return i;
	return -1;
}

bool session_is_watching(const struct game *g, const struct client *c)
{
	for (size_t i = 0; i < g->nw; i++)
		if (g->w[i].c == c)
			return true;
	return false;
}

cJSON *session_options_json(const struct game_ops *ops, const struct game_params *p)
{
	cJSON *o = cJSON_CreateObject();
	for (int i = 0; i < ops->nopts; i++)
		cJSON_AddNumberToObject(o, ops->opts[i].name, (double)p->v[i]);
	return o;
}

char *session_options_text(const struct game_ops *ops, const struct seek_opts *so)
{
	char opts[512], tc[64] = "untimed";
	if (game_params_text(ops, &so->params, opts, sizeof opts) < 0)
		opts[0] = '\0';
	if (ops->flags & GAME_SIMULTANEOUS && so->first_turn_ms > 0)
		snprintf(tc, sizeof tc, "turn_ms=%" PRId64 " first_turn_ms=%" PRId64 "%s",
		         so->turn_ms, so->first_turn_ms, so->strict ? " strict" : "");
	else if (ops->flags & GAME_SIMULTANEOUS)
		snprintf(tc, sizeof tc, "turn_ms=%" PRId64 "%s", so->turn_ms,
		         so->strict ? " strict" : "");
	else if (so->timed) {
		char t[24];
		seek_format_time(so->base_ms, so->inc_ms, t, sizeof t);
		snprintf(tc, sizeof tc, "time=%s", t);
	}
	return xasprintf("%s%s%s%s", opts, opts[0] ? ", " : "", tc, so->rated ? ", rated" : "");
}

/* "1:05" or "0:09.4" (tenths under ten seconds). */
static void fmt_clock(int64_t ms, char *buf, size_t len)
{
	if (ms < 0)
		ms = 0;
	if (ms < 10000)
		snprintf(buf, len, "0:%02" PRId64 ".%" PRId64, ms / 1000, (ms / 100) % 10);
	else
		snprintf(buf, len, "%" PRId64 ":%02" PRId64, ms / 60000, (ms / 1000) % 60);
}

/* Clocks as they stand now: the running one is charged up to uv_now. */
static void clocks_now(const struct game *g, int64_t out[GAME_MAX_PLAYERS])
{
	for (int i = 0; i < GAME_MAX_PLAYERS; i++)
		out[i] = g->left[i];
	if (!g->so.timed || g->over || simultaneous(g) || g->clock_held)
		return;
	int seat = game_seat_to_move(g->ops, g->st);
	if (seat >= 0) {
		out[seat] -= (int64_t)(now_ms(g) - g->turn_started);
		if (out[seat] < 0)
			out[seat] = 0;
	}
}

/* The players' round-trip times as the server measured them; -1 unknown. */
static void rtts_now(const struct game *g, int64_t out[GAME_MAX_PLAYERS])
{
	for (int i = 0; i < GAME_MAX_PLAYERS; i++) {
		out[i] = rtt_ms(i < g->ops->nplayers ? g->pl[i].c : NULL);
	}
}

static cJSON *rtt_json(const struct game *g, const int64_t rtt[GAME_MAX_PLAYERS])
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; i < g->ops->nplayers; i++)
		cJSON_AddItemToArray(a, rtt[i] >= 0 ? cJSON_CreateNumber((double)rtt[i])
		                                    : cJSON_CreateNull());
	return a;
}

/* ---- snapshots --------------------------------------------------------------------- */

static void snap_unref(struct snapshot *sn)
{
	if (sn == NULL || --sn->refs > 0)
		return;
	for (int f = 0; f < 2; f++)
		for (int v = 0; v <= GAME_MAX_PLAYERS; v++)
			outbuf_unref(sn->out[f][v]);
	free(sn);
}

static struct snapshot *snap_build(struct game *g)
{
	struct snapshot *sn = calloc(1, sizeof *sn + g->ops->state_size);
	if (sn == NULL)
		return NULL;
	sn->refs = 1;
	sn->seq = g->seq;
	sn->ply = g->ply;
	sn->over = g->over;
	sn->to_move = g->over ? 0 : g->ops->to_move(g->st);
	clocks_now(g, sn->clocks);
	rtts_now(g, sn->rtt);
	if (g->nmoves > 0) {
		if (simultaneous(g)) {
			int turn = g->moves[g->nmoves - 1].turn;
			for (size_t i = g->nmoves; i-- > 0 && g->moves[i].turn == turn;) {
				const struct move_rec *m = &g->moves[i];
				if (m->act == GAME_ACT_MOVE) {
					sn->has_last[m->seat] = true;
					snprintf(sn->last[m->seat], GAME_MOVE_TEXT, "%s", m->text);
				}
			}
		} else {
			sn->has_last[0] = true;
			memcpy(sn->last[0], g->moves[g->nmoves - 1].text, GAME_MOVE_TEXT);
		}
	}
	memcpy(sn->st, g->st, g->ops->state_size);
	return sn;
}

static cJSON *result_json(const struct game *g)
{
	cJSON *r = cJSON_CreateObject();
	if (g->winner >= 0) {
		cJSON_AddNumberToObject(r, "winner", g->winner);
		cJSON_AddStringToObject(r, "winner_name", g->pl[g->winner].name);
	} else {
		cJSON_AddNullToObject(r, "winner");
		cJSON_AddNullToObject(r, "winner_name");
	}
	cJSON_AddStringToObject(r, "score", g->score);
	cJSON_AddStringToObject(r, "reason", g->reason);
	return r;
}

static char *result_text(const struct game *g)
{
	if (strcmp(g->reason, "aborted") == 0)
		return xasprintf("aborted, no result");
	if (g->winner >= 0)
		return xasprintf("%s, %s (%s) wins (%s)", g->score, g->pl[g->winner].name,
		                 g->ops->seat_names[g->winner], g->reason);
	return xasprintf("%s, draw (%s)", g->score, g->reason);
}

static cJSON *players_json(const struct game *g)
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; i < g->ops->nplayers; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(g->pl[i].name));
	return a;
}

static cJSON *seats_json(unsigned mask)
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; i < GAME_MAX_PLAYERS; i++)
		if (mask & (1u << i))
			cJSON_AddItemToArray(a, cJSON_CreateNumber(i));
	return a;
}

static cJSON *clocks_json(const struct game *g, const int64_t clocks[GAME_MAX_PLAYERS])
{
	if (!g->so.timed)
		return cJSON_CreateNull();
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; i < g->ops->nplayers; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)clocks[i]));
	return a;
}

/* Every legal move's text when viewer is to move in a sequential game; else NULL. */
static cJSON *legal_json(const struct game *g, const struct snapshot *sn, int viewer)
{
	if (simultaneous(g) || sn->over || viewer < 0 || !(sn->to_move & (1u << viewer)))
		return NULL;
	game_move *mv = malloc(g->ops->max_moves * sizeof *mv);
	if (mv == NULL)
		return NULL;
	cJSON *a = cJSON_CreateArray();
	int n = g->ops->legal_moves(sn->st, mv, g->ops->max_moves);
	for (int i = 0; i < n; i++) {
		char t[GAME_MOVE_TEXT];
		if (g->ops->format_move(sn->st, mv[i], t, sizeof t) >= 0)
			cJSON_AddItemToArray(a, cJSON_CreateString(t));
	}
	free(mv);
	return a;
}

/* {"type":type,"game","kind","options","players"}: how game_start and state begin. */
static cJSON *game_head(const char *type, const struct game *g)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", type);
	cJSON_AddNumberToObject(j, "game", (double)g->id);
	cJSON_AddStringToObject(j, "kind", g->ops->name);
	cJSON_AddItemToObject(j, "options", session_options_json(g->ops, &g->so.params));
	cJSON_AddItemToObject(j, "players", players_json(g));
	return j;
}

static cJSON *state_json(const struct game *g, const struct snapshot *sn, int viewer)
{
	cJSON *j = game_head("state", g);
	if (viewer >= 0)
		cJSON_AddNumberToObject(j, "seat", viewer);
	else
		cJSON_AddNullToObject(j, "seat");
	cJSON_AddNumberToObject(j, "seq", (double)sn->seq);
	cJSON_AddNumberToObject(j, "ply", sn->ply);
	cJSON_AddItemToObject(j, "to_move", seats_json(sn->to_move));
	if (simultaneous(g)) {
		if (sn->ply == 0) {
			cJSON_AddNullToObject(j, "last_move");
		} else {
			cJSON *lm = cJSON_CreateObject();
			for (int i = 0; i < g->ops->nplayers; i++) {
				char k[12];
				snprintf(k, sizeof k, "%d", i);
				if (sn->has_last[i])
					cJSON_AddStringToObject(lm, k, sn->last[i]);
				else
					cJSON_AddNullToObject(lm, k);
			}
			cJSON_AddItemToObject(j, "last_move", lm);
		}
		cJSON_AddNumberToObject(j, "turn_ms", (double)g->so.turn_ms);
	} else if (sn->has_last[0]) {
		cJSON_AddStringToObject(j, "last_move", sn->last[0]);
	} else {
		cJSON_AddNullToObject(j, "last_move");
	}
	cJSON *pos = g->ops->to_json(sn->st, viewer);
	cJSON_AddItemToObject(j, "position", pos ? pos : cJSON_CreateNull());
	cJSON *legal = legal_json(g, sn, viewer);
	if (legal)
		cJSON_AddItemToObject(j, "legal", legal);
	cJSON_AddItemToObject(j, "clocks", clocks_json(g, sn->clocks));
	cJSON_AddItemToObject(j, "rtt_ms", rtt_json(g, sn->rtt));
	cJSON_AddBoolToObject(j, "over", sn->over);
	cJSON_AddItemToObject(j, "result", sn->over ? result_json(g) : cJSON_CreateNull());
	return j;
}

static char *state_text(const struct game *g, const struct snapshot *sn, int viewer)
{
	const struct game_ops *ops = g->ops;
	char *t = xasprintf("game %" PRIu64 " %s, ply %d:", g->id, ops->name, sn->ply);
	for (int i = 0; i < ops->nplayers; i++)
		xappend(&t, "%s %s (%s)", i ? " vs" : "", g->pl[i].name, ops->seat_names[i]);
	xappend(&t, "\n");
	size_t cap = 16384;
	char *board = malloc(cap);
	if (board != NULL && ops->render_text(sn->st, viewer, board, cap) >= 0) {
		size_t n = strlen(board);
		while (n > 0 && board[n - 1] == '\n')
			board[--n] = '\0';
		xappend(&t, "%s\n", board);
	}
	free(board);
	if (simultaneous(g)) {
		if (sn->ply > 0) {
			xappend(&t, "last actions:");
			for (int i = 0; i < ops->nplayers; i++)
				xappend(&t, "%s %s %s", i ? ";" : "", ops->seat_names[i],
				        sn->has_last[i] ? sn->last[i] : "(none)");
			xappend(&t, "; ");
		}
	} else if (sn->has_last[0]) {
		xappend(&t, "last move: %s; ", sn->last[0]);
	}
	if (sn->over) {
		char *r = result_text(g);
		xappend(&t, "game over: %s", r ? r : "");
		free(r);
	} else {
		xappend(&t, "to move:");
		bool first = true;
		for (int i = 0; i < ops->nplayers; i++)
			if (sn->to_move & (1u << i)) {
				xappend(&t, "%s %s (%s)", first ? "" : ",", ops->seat_names[i],
				        g->pl[i].name);
				first = false;
			}
		if (g->so.timed) {
			xappend(&t, "; clocks:");
			for (int i = 0; i < ops->nplayers; i++) {
				char cb[24];
				fmt_clock(sn->clocks[i], cb, sizeof cb);
				xappend(&t, " %s %s", ops->seat_names[i], cb);
			}
		}
		if (simultaneous(g))
			xappend(&t, "; %" PRId64 " s per turn", g->so.turn_ms / 1000);
		if (sn->rtt[0] >= 0 || sn->rtt[1] >= 0) {
			xappend(&t, "; rtt:");
			for (int i = 0; i < ops->nplayers; i++)
				if (sn->rtt[i] >= 0)
					xappend(&t, " %s %" PRId64 " ms", ops->seat_names[i],
					        sn->rtt[i]);
				else
					xappend(&t, " %s ?", ops->seat_names[i]);
		}
		if (viewer >= 0 && (sn->to_move & (1u << viewer)))
			xappend(&t, "\nyour move: move %" PRIu64 " <move>", g->id);
	}
	return t;
}

/* The rendering of sn for viewer in one format, built once and cached in sn. */
static struct outbuf *snap_out(const struct game *g, struct snapshot *sn, int viewer, bool json)
{
	struct outbuf **slot = &sn->out[json ? 1 : 0][viewer + 1];
	if (*slot != NULL)
		return *slot;
	char *s = NULL;
	if (json) {
		cJSON *j = state_json(g, sn, viewer);
		char *p = cJSON_PrintUnformatted(j);
		s = p ? xasprintf("%s", p) : NULL;
		cJSON_free(p);
		cJSON_Delete(j);
	} else {
		s = state_text(g, sn, viewer);
	}
	if (s != NULL) {
		size_t n = strlen(s);
		while (n > 0 && s[n - 1] == '\n')
			n--;
		s[n] = '\n'; /* the NUL (or a newline) becomes the line's end */
		*slot = outbuf_new(s, n + 1);
		free(s);
	}
	return *slot;
}

static void send_state(struct game *g, struct snapshot *sn, struct client *c, int viewer)
{
	client_send(c, snap_out(g, sn, viewer, c->json));
}

/* A new snapshot of g (seq + 1) to players and spectators; slow spectators coalesce. */
static void broadcast_state(struct game *g)
{
	struct snapshot *sn = snap_build(g);
	if (sn == NULL)
		return;
	sn->seq = ++g->seq;
	snap_unref(g->snap);
	g->snap = sn;
	for (int i = 0; i < g->ops->nplayers; i++)
		if (g->pl[i].c != NULL)
			send_state(g, sn, g->pl[i].c, i);
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
			send_state(g, sn, w->c, -1);
		}
	}
}

void session_flush_pending(struct client *c)
{
	c->has_pending_states = false;
	for (struct game *g = c->srv->games; g != NULL; g = g->next)
		for (size_t i = 0; i < g->nw; i++)
			if (g->w[i].c == c && g->w[i].pending != NULL) {
				send_state(g, g->w[i].pending, c, -1);
				snap_unref(g->w[i].pending);
				g->w[i].pending = NULL;
			}
}

/*
 * One message to the players (connected) and the spectators who do not play; a
 * spectator's coalesced state is sent before it.
 */
static void broadcast_msg(struct game *g, cJSON *json, char *text, const struct client *except)
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
			send_state(g, w->pending, w->c, -1);
			snap_unref(w->pending);
			w->pending = NULL;
		}
		msg_send(&m, w->c);
	}
	msg_done(&m);
}

void session_broadcast(struct game *g, cJSON *json, char *text)
{
	broadcast_msg(g, json, text, NULL);
}

/* ---- the game timer ---------------------------------------------------------------- */

/* The deadline of the simultaneous turn being played: first_turn_ms for the first one. */
static int64_t turn_limit(const struct game *g)
{
	return g->ply == 0 && g->so.first_turn_ms > 0 ? g->so.first_turn_ms : g->so.turn_ms;
}

enum deadline_kind { DL_NONE, DL_FLAG, DL_TURN, DL_GRACE };

/* The earliest pending deadline of g (uv_now ms) and what it is; seat for FLAG/GRACE. */
static enum deadline_kind next_deadline(const struct game *g, uint64_t *when, int *seat)
{
	enum deadline_kind k = DL_NONE;
	uint64_t best = UINT64_MAX;
	if (g->over)
		return DL_NONE;
	if (simultaneous(g)) {
		best = g->turn_started + (uint64_t)turn_limit(g);
		k = DL_TURN;
	} else if (g->so.timed && !g->clock_held) {
		int s = game_seat_to_move(g->ops, g->st);
		if (s >= 0) {
			int64_t left = g->left[s] > 0 ? g->left[s] : 0;
			best = g->turn_started + (uint64_t)left;
			k = DL_FLAG;
			*seat = s;
		}
	}
	for (int i = 0; i < g->ops->nplayers; i++) {
		if (!g->pl[i].absent)
			continue;
		uint64_t d = g->pl[i].gone_at + (uint64_t)g->srv->cfg.grace_ms;
		if (d < best) {
			best = d;
			k = DL_GRACE;
			*seat = i;
		}
	}
	*when = best;
	return k;
}

static void game_end(struct game *g, int winner, const char *score, const char *reason);
static void sim_resolve(struct game *g);
static void timer_cb(uv_timer_t *t);

static void arm_timer(struct game *g)
{
	uint64_t when;
	int seat = -1;
	if (g->freeing)
		return;
	if (next_deadline(g, &when, &seat) == DL_NONE) {
		uv_timer_stop(&g->timer);
		return;
	}
	uint64_t now = now_ms(g);
	uv_timer_start(&g->timer, timer_cb, when > now ? when - now : 0, 0);
}

static const char *score_for(int winner)
{
	return winner == 0 ? "1-0" : winner == 1 ? "0-1" : "1/2-1/2";
}

static void timer_cb(uv_timer_t *t)
{
	struct game *g = t->data;
	uint64_t when, now = now_ms(g);
	int seat = -1;
	enum deadline_kind k = next_deadline(g, &when, &seat);
	if (k == DL_NONE)
		return;
	if (when > now) {
		arm_timer(g);
		return;
	}
	switch (k) {
	case DL_FLAG:
		g->left[seat] = 0;
		game_end(g, 1 - seat, score_for(1 - seat), "timeout");
		break;
	case DL_GRACE:
		game_end(g, 1 - seat, score_for(1 - seat), "abandoned");
		break;
	case DL_TURN:
		sim_resolve(g);
		break;
	case DL_NONE:
		break;
	}
	arm_timer(g);
}

/* ---- creation and the end ---------------------------------------------------------- */

static void game_free_cb(uv_handle_t *h)
{
	struct game *g = h->data;
	for (size_t i = 0; i < g->nw; i++)
		snap_unref(g->w[i].pending);
	free(g->w);
	snap_unref(g->snap);
	free(g->moves);
	free(g->st);
	free(g->tmp);
	free(g);
}

/* Unlinks g and frees it once its timer is closed. */
static void game_free(struct game *g)
{
	struct server *s = g->srv;
	for (struct game **pp = &s->games; *pp != NULL; pp = &(*pp)->next)
		if (*pp == g) {
			*pp = g->next;
			break;
		}
	if (g->over && s->nfinished > 0)
		s->nfinished--;
	g->freeing = true;
	uv_close((uv_handle_t *)&g->timer, game_free_cb);
}

struct game *session_create(struct server *s, const struct game_spec *spec)
{
	const struct game_ops *ops = spec->ops;
	struct game *g = calloc(1, sizeof *g);
	if (g == NULL)
		return NULL;
	g->srv = s;
	g->ops = ops;
	g->so = spec->so;
	g->seed = spec->seed;
	g->started_at = wall_ms();
	g->winner = -1;
	g->st = calloc(1, ops->state_size);
	g->tmp = calloc(1, ops->state_size);
	if (g->st == NULL || g->tmp == NULL || ops->init(g->st, &g->so.params, g->seed) != 0)
		goto fail;
	for (int i = 0; i < ops->nplayers; i++) {
		snprintf(g->pl[i].name, sizeof g->pl[i].name, "%s", spec->names[i]);
		g->pl[i].c = spec->conns[i];
		if (g->pl[i].c == NULL) {
			g->pl[i].absent = true;
			g->pl[i].gone_at = uv_now(s->loop);
		}
		g->left[i] = g->so.timed ? g->so.base_ms : 0;
	}
	uint64_t id = spec->id != 0 ? spec->id : s->next_game_id + 1;
	if (spec->id == 0 && s->hooks.on_start != NULL &&
	    s->hooks.on_start(s->hooks.ud, g, &id) < 0)
		goto fail;
	g->id = id;
	if (id > s->next_game_id)
		s->next_game_id = id;
	uv_timer_init(s->loop, &g->timer);
	g->timer.data = g;
	g->next = s->games;
	s->games = g;
	return g;
fail:
	free(g->st);
	free(g->tmp);
	free(g);
	return NULL;
}

static cJSON *time_json(const struct game *g)
{
	if (!g->so.timed)
		return cJSON_CreateNull();
	cJSON *t = cJSON_CreateObject();
	cJSON_AddNumberToObject(t, "base_ms", (double)g->so.base_ms);
	cJSON_AddNumberToObject(t, "inc_ms", (double)g->so.inc_ms);
	return t;
}

static void send_game_start(struct game *g, int seat)
{
	struct client *c = g->pl[seat].c;
	if (c == NULL)
		return;
	cJSON *j = game_head("game_start", g);
	cJSON_AddNumberToObject(j, "seat", seat);
	cJSON_AddItemToObject(j, "time", time_json(g));
	int64_t rtt[GAME_MAX_PLAYERS];
	rtts_now(g, rtt);
	cJSON_AddItemToObject(j, "rtt_ms", rtt_json(g, rtt));
	if (simultaneous(g)) {
		cJSON_AddNumberToObject(j, "turn_ms", (double)g->so.turn_ms);
		cJSON_AddNumberToObject(j, "first_turn_ms", (double)(g->so.first_turn_ms > 0
		                                                            ? g->so.first_turn_ms
		                                                            : g->so.turn_ms));
	} else {
		cJSON_AddNullToObject(j, "turn_ms");
	}
	char *opts = session_options_text(g->ops, &g->so);
	char *t = xasprintf("game %" PRIu64 " started: %s (%s), %s (%s) vs %s (%s); you play %s; "
	                    "moves: move %" PRIu64 " <move>",
	                    g->id, g->ops->name, opts ? opts : "", g->pl[0].name,
	                    g->ops->seat_names[0], g->pl[1].name, g->ops->seat_names[1],
	                    g->ops->seat_names[seat], g->id);
	free(opts);
	send_msg(c, j, t);
}

void session_begin(struct game *g)
{
	g->turn_started = now_ms(g);
	for (int i = 0; i < g->ops->nplayers; i++)
		send_game_start(g, i);
	broadcast_state(g);
	arm_timer(g);
}

/* Frees the oldest finished games beyond SERVER_KEEP_FINISHED. */
static void prune_finished(struct server *s)
{
	while (s->nfinished > SERVER_KEEP_FINISHED) {
		struct game *oldest = NULL;
		for (struct game *g = s->games; g != NULL; g = g->next)
			if (g->over)
				oldest = g;
		if (oldest == NULL)
			break;
		game_free(oldest);
	}
}

/* Records the result (clocks stop as they stand). */
static void set_result(struct game *g, int winner, const char *score, const char *reason)
{
	if (!g->over)
		clocks_now(g, g->left);
	g->over = true;
	g->winner = winner;
	snprintf(g->score, sizeof g->score, "%s", score);
	snprintf(g->reason, sizeof g->reason, "%s", reason);
}

/* The end of g is recorded: stop the timer, call the hook, tell everyone. */
static void announce_end(struct game *g)
{
	struct server *s = g->srv;
	uv_timer_stop(&g->timer);
	if (s->hooks.on_end != NULL)
		s->hooks.on_end(s->hooks.ud, g);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "game_over");
	cJSON_AddNumberToObject(j, "game", (double)g->id);
	cJSON_AddItemToObject(j, "result", result_json(g));
	cJSON_AddItemToObject(j, "clocks", clocks_json(g, g->left));
	char *r = result_text(g);
	char *t = xasprintf("game %" PRIu64 " over: %s", g->id, r ? r : "");
	free(r);
	for (int i = 0; g->so.timed && !simultaneous(g) && i < g->ops->nplayers; i++) {
		char cb[24];
		fmt_clock(g->left[i], cb, sizeof cb);
		xappend(&t, "%s %s %s", i ? "" : "; clocks:", g->ops->seat_names[i], cb);
	}
	broadcast_msg(g, j, t, NULL);
	s->nfinished++;
	prune_finished(s); /* may free g itself (after this call stack: the close callback) */
}

/* Ends g without a new position (resign, flag, abandonment). */
static void game_end(struct game *g, int winner, const char *score, const char *reason)
{
	if (g->over)
		return;
	set_result(g, winner, score, reason);
	announce_end(g);
}

void session_end(struct game *g, int winner, const char *score, const char *reason)
{
	game_end(g, winner, score, reason);
}

/* After a position change: the state to everyone, then the end or the next deadline. */
static void after_change(struct game *g)
{
	struct game_result r;
	memset(&r, 0, sizeof r);
	g->ops->result(g->st, &r);
	if (r.over)
		set_result(g, r.winner, r.score[0] ? r.score : score_for(r.winner),
		           r.reason ? r.reason : "over");
	broadcast_state(g);
	if (g->over)
		announce_end(g);
	else
		arm_timer(g);
}

static bool append_move(struct game *g, const struct move_rec *m)
{
	if (g->nmoves == g->cap_moves) {
		size_t cap = g->cap_moves ? g->cap_moves * 2 : 32;
		struct move_rec *n = realloc(g->moves, cap * sizeof *n);
		if (n == NULL)
			return false;
		g->moves = n;
		g->cap_moves = cap;
	}
	g->moves[g->nmoves++] = *m;
	return true;
}

/* ---- moves ------------------------------------------------------------------------- */

static void reply_parse_error(struct client *c, const struct proto_req *rq, int r, const char *why)
{
	switch (r) {
	case GAME_EILLEGAL:
		reply_err(c, rq, "ILLEGAL_MOVE", "%s", why ? why : game_strerror(r));
		break;
	case GAME_ETURN:
		reply_err(c, rq, "NOT_YOUR_TURN", "%s", why ? why : game_strerror(r));
		break;
	case GAME_EOVER:
		reply_err(c, rq, "GAME_OVER", "%s", why ? why : game_strerror(r));
		break;
	default:
		reply_err(c, rq, "BAD_MOVE", "%s", why ? why : game_strerror(r));
		break;
	}
}

/* ops->parse_move for seat; a failure is answered with the engine's sentence. */
static int parse_or_reply(struct client *c, const struct proto_req *rq, const struct game *g,
                          int seat, const char *text, game_move *m)
{
	const char *why = NULL;
	int r = g->ops->parse_move(g->st, seat, text, m, &why);
	if (r < 0)
		reply_parse_error(c, rq, r, why);
	return r;
}

static void sim_move(struct client *c, const struct proto_req *rq, struct game *g, int seat,
                     const char *text)
{
	unsigned mask = g->ops->to_move(g->st);
	if (!(mask & (1u << seat))) {
		reply_err(c, rq, "NOT_YOUR_TURN", "your seat does not act this turn");
		return;
	}
	if (g->acted[seat]) {
		reply_err(c, rq, "ALREADY_ACTED", "your action for this turn is already in");
		return;
	}
	game_move m = 0;
	if (parse_or_reply(c, rq, g, seat, text, &m) < 0) {
		if (g->so.strict) {
			g->acted[seat] = true;
			g->act[seat] = GAME_ACT_INVALID;
			g->act_text[seat][0] = '\0';
			g->act_ms[seat] = (int64_t)(now_ms(g) - g->turn_started);
		}
	} else {
		g->acted[seat] = true;
		g->act[seat] = GAME_ACT_MOVE;
		g->action[seat] = m;
		if (g->ops->format_move(g->st, m, g->act_text[seat], GAME_MOVE_TEXT) < 0)
			snprintf(g->act_text[seat], GAME_MOVE_TEXT, "%s", text);
		g->act_ms[seat] = (int64_t)(now_ms(g) - g->turn_started);
		cJSON *f = cJSON_CreateObject();
		cJSON_AddNumberToObject(f, "game", (double)g->id);
		cJSON_AddBoolToObject(f, "pending", true);
		reply_ok(c, rq, f, NULL,
		         "action received for game %" PRIu64 "; the turn resolves when every seat "
		         "has acted or the time is up",
		         g->id);
	}
	for (int i = 0; i < g->ops->nplayers; i++)
		if ((mask & (1u << i)) && !g->acted[i])
			return;
	sim_resolve(g);
}

/* Resolves the current simultaneous turn with what is in (missing = timeout). */
static void sim_resolve(struct game *g)
{
	struct server *s = g->srv;
	unsigned mask = g->ops->to_move(g->st);
	game_move moves[GAME_MAX_PLAYERS] = {0};
	enum game_act acts[GAME_MAX_PLAYERS] = {GAME_ACT_NONE};
	int64_t at = wall_ms();
	for (int i = 0; i < g->ops->nplayers; i++) {
		if (!(mask & (1u << i)))
			continue;
		struct move_rec rec = {.ply = (int)g->nmoves, .turn = g->ply, .seat = i, .at = at};
		if (g->acted[i]) {
			acts[i] = g->act[i];
			moves[i] = g->action[i];
			rec.act = g->act[i];
			rec.ms_used = g->act_ms[i];
			if (rec.act == GAME_ACT_MOVE)
				memcpy(rec.text, g->act_text[i], GAME_MOVE_TEXT);
		} else {
			rec.act = GAME_ACT_NONE;
			rec.ms_used = turn_limit(g);
		}
		if (s->hooks.on_move != NULL && s->hooks.on_move(s->hooks.ud, g, &rec) < 0)
			log_info("game %" PRIu64 ": the move hook failed", g->id);
		append_move(g, &rec);
	}
	memcpy(g->tmp, g->st, g->ops->state_size);
	int r = g->ops->resolve(g->tmp, moves, acts);
	if (r < 0)
		log_info("game %" PRIu64 ": resolve: %s", g->id, game_strerror(r));
	else
		memcpy(g->st, g->tmp, g->ops->state_size);
	g->ply++;
	memset(g->acted, 0, sizeof g->acted);
	g->turn_started = now_ms(g);
	offers_moved(g, mask);
	after_change(g);
}

int session_replay(struct game *g, const struct move_rec *m)
{
	const struct game_ops *ops = g->ops;
	if (g->over || ops->to_move(g->st) == 0)
		return GAME_EOVER;
	unsigned mask = ops->to_move(g->st);
	if (m->seat < 0 || m->seat >= ops->nplayers || !(mask & (1u << m->seat)))
		return GAME_ETURN;
	game_move mv = 0;
	int r;
	if (m->act == GAME_ACT_MOVE &&
	    (r = ops->parse_move(g->st, m->seat, m->text, &mv, NULL)) < 0)
		return r;
	if (!simultaneous(g)) {
		if (m->act != GAME_ACT_MOVE)
			return GAME_ESYNTAX;
		if ((r = ops->apply(g->st, mv)) < 0)
			return r;
		if (!append_move(g, m))
			return GAME_ENOSPACE;
		if (g->so.timed)
			for (int i = 0; i < ops->nplayers; i++)
				g->left[i] = m->clock_ms[i];
		g->ply++;
		return 0;
	}
	if (g->acted[m->seat])
		return GAME_ETURN;
	if (!append_move(g, m))
		return GAME_ENOSPACE;
	g->acted[m->seat] = true;
	g->act[m->seat] = m->act;
	g->action[m->seat] = mv;
	for (int i = 0; i < ops->nplayers; i++)
		if ((mask & (1u << i)) && !g->acted[i])
			return 0;
	game_move moves[GAME_MAX_PLAYERS] = {0};
	enum game_act acts[GAME_MAX_PLAYERS] = {GAME_ACT_NONE};
	for (int i = 0; i < ops->nplayers; i++)
		if (mask & (1u << i)) {
			moves[i] = g->action[i];
			acts[i] = g->act[i];
		}
	memset(g->acted, 0, sizeof g->acted);
	g->ply++;
	return ops->resolve(g->st, moves, acts);
}

int session_takeback(struct game *g, int n)
{
	const struct game_ops *ops = g->ops;
	struct server *s = g->srv;
	if (simultaneous(g) || g->over || n < 1 || (size_t)n > g->nmoves)
		return GAME_ETURN;
	size_t keep = g->nmoves - (size_t)n;
	int r = ops->init(g->tmp, &g->so.params, g->seed) != 0 ? GAME_EOPT : 0;
	for (size_t i = 0; r >= 0 && i < keep; i++) {
		game_move mv = 0;
		r = ops->parse_move(g->tmp, g->moves[i].seat, g->moves[i].text, &mv, NULL);
		if (r >= 0)
			r = ops->apply(g->tmp, mv);
	}
	if (r < 0)
		return r;
	if (s->hooks.on_undo != NULL && s->hooks.on_undo(s->hooks.ud, g, n) < 0)
		return GAME_EOVER;
	void *t = g->st;
	g->st = g->tmp;
	g->tmp = t;
	g->nmoves = keep;
	g->ply = (int)keep;
	for (int i = 0; g->so.timed && i < ops->nplayers; i++)
		g->left[i] = keep > 0 ? g->moves[keep - 1].clock_ms[i] : g->so.base_ms;
	g->turn_started = now_ms(g);
	return 0;
}

void session_push_state(struct game *g)
{
	broadcast_state(g);
	arm_timer(g);
}

/* c's seat in g, still being played; else answers NOT_YOUR_GAME or GAME_OVER and gives -1. */
static int playing_seat(struct client *c, const struct proto_req *rq, const struct game *g)
{
	int seat = session_seat_of(g, c);
	if (seat < 0)
		reply_err(c, rq, "NOT_YOUR_GAME", "you do not play in game %" PRIu64, g->id);
	else if (g->over)
		reply_err(c, rq, "GAME_OVER", "game %" PRIu64 " is over", g->id);
	return g->over ? -1 : seat;
}

void session_move(struct client *c, const struct proto_req *rq, struct game *g, const char *text)
{
	struct server *s = g->srv;
	int seat = playing_seat(c, rq, g);
	if (seat < 0)
		return;
	if (simultaneous(g)) {
		sim_move(c, rq, g, seat, text);
		return;
	}
	int to_move = game_seat_to_move(g->ops, g->st);
	if (to_move != seat) {
		reply_err(c, rq, "NOT_YOUR_TURN", "it is %s's move in game %" PRIu64,
		          to_move >= 0 ? g->pl[to_move].name : "nobody", g->id);
		return;
	}
	int64_t used = (int64_t)(now_ms(g) - g->turn_started);
	if (g->so.timed && used >= g->left[seat]) {
		reply_err(c, rq, "GAME_OVER", "your time ran out in game %" PRIu64, g->id);
		g->left[seat] = 0;
		game_end(g, 1 - seat, score_for(1 - seat), "timeout");
		return;
	}
	used = rtt_charge(c, used); /* the lag allowance (offers.h) */
	game_move m = 0;
	int r = parse_or_reply(c, rq, g, seat, text, &m);
	if (r < 0)
		return;
	struct move_rec rec = {.ply = (int)g->nmoves,
	                       .turn = g->ply,
	                       .seat = seat,
	                       .act = GAME_ACT_MOVE,
	                       .ms_used = used,
	                       .at = wall_ms()};
	if (g->ops->format_move(g->st, m, rec.text, sizeof rec.text) < 0)
		snprintf(rec.text, sizeof rec.text, "%s", text);
	for (int i = 0; i < g->ops->nplayers; i++)
		rec.clock_ms[i] = g->left[i];
	if (g->so.timed)
		rec.clock_ms[seat] = g->left[seat] - used + g->so.inc_ms;
	memcpy(g->tmp, g->st, g->ops->state_size);
	if ((r = g->ops->apply(g->tmp, m)) < 0) {
		reply_err(c, rq, "INTERNAL", "the engine refused the move: %s", game_strerror(r));
		return;
	}
	if (s->hooks.on_move != NULL && s->hooks.on_move(s->hooks.ud, g, &rec) < 0) {
		reply_err(c, rq, "INTERNAL",
		          "the move could not be recorded, so it was not played");
		return;
	}
	if (!append_move(g, &rec)) {
		reply_err(c, rq, "INTERNAL", "out of memory; the move was not played");
		return;
	}
	void *t = g->st;
	g->st = g->tmp;
	g->tmp = t;
	if (g->so.timed)
		g->left[seat] = rec.clock_ms[seat];
	g->ply++;
	g->turn_started = now_ms(g);
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "game", (double)g->id);
	cJSON_AddStringToObject(f, "move", rec.text);
	reply_ok(c, rq, f, NULL, "%s played in game %" PRIu64, rec.text, g->id);
	offers_moved(g, 1u << seat);
	after_change(g);
}

void session_resign(struct client *c, const struct proto_req *rq, struct game *g)
{
	int seat = playing_seat(c, rq, g);
	if (seat < 0)
		return;
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "game", (double)g->id);
	reply_ok(c, rq, f, NULL, "you resigned game %" PRIu64, g->id);
	game_end(g, 1 - seat, score_for(1 - seat), "resign");
}

/* ---- spectators and chat ----------------------------------------------------------- */

void session_watch(struct client *c, const struct proto_req *rq, struct game *g)
{
	int seat = session_seat_of(g, c);
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
		send_state(g, g->snap, c, seat);
}

static bool drop_watcher(struct game *g, const struct client *c)
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
	if (!drop_watcher(g, c)) {
		reply_err(c, rq, "NOT_WATCHING", "you do not watch game %" PRIu64, g->id);
		return;
	}
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "game", (double)g->id);
	reply_ok(c, rq, f, NULL, "no longer watching game %" PRIu64, g->id);
}

void session_say(struct client *c, const struct proto_req *rq, struct game *g, const char *text)
{
	if (session_seat_of(g, c) < 0 && !session_is_watching(g, c)) {
		reply_err(c, rq, "NOT_YOUR_GAME", "watch game %" PRIu64 " to talk there", g->id);
		return;
	}
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "game", (double)g->id);
	reply_ok(c, rq, f, NULL, "said in game %" PRIu64, g->id);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "chat");
	cJSON_AddNumberToObject(j, "game", (double)g->id);
	cJSON_AddStringToObject(j, "from", c->name);
	cJSON_AddStringToObject(j, "text", text);
	broadcast_msg(g, j, xasprintf("[%" PRIu64 "] %s: %s", g->id, c->name, text), NULL);
}

/* ---- leaving and coming back ------------------------------------------------------- */

static void tell_presence(struct game *g, int seat, bool back)
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
		cJSON_AddNumberToObject(j, "grace_ms", (double)g->srv->cfg.grace_ms);
		t = xasprintf("%s (%s) left; they lose in %" PRId64 " s unless they come back",
		              p->name, g->ops->seat_names[seat], g->srv->cfg.grace_ms / 1000);
	}
	cJSON_AddStringToObject(j, "message", t ? t : "");
	char *text = xasprintf("info game %" PRIu64 ": %s", g->id, t ? t : "");
	free(t);
	broadcast_msg(g, j, text, p->c);
}

void session_conn_gone(struct client *c)
{
	struct server *s = c->srv;
	for (struct game *g = s->games; g != NULL; g = g->next) {
		if (g->freeing)
			continue;
		drop_watcher(g, c);
		int seat = session_seat_of(g, c);
		if (seat < 0)
			continue;
		g->pl[seat].c = NULL;
		if (g->over)
			continue;
		g->pl[seat].absent = true;
		g->pl[seat].gone_at = now_ms(g);
		tell_presence(g, seat, false);
		arm_timer(g);
	}
}

void session_login(struct client *c, cJSON *resumed)
{
	for (struct game *g = c->srv->games; g != NULL; g = g->next) {
		if (g->freeing || g->over)
			continue;
		for (int i = 0; i < g->ops->nplayers; i++) {
			struct player *p = &g->pl[i];
			if (!p->absent || strcasecmp(p->name, c->name) != 0)
				continue;
			p->absent = false;
			p->c = c;
			if (g->clock_held && game_seat_to_move(g->ops, g->st) == i) {
				g->clock_held = false; /* restored game: the mover is back */
				g->turn_started = now_ms(g);
			}
			drop_watcher(g, c);
			cJSON_AddItemToArray(resumed, cJSON_CreateNumber((double)g->id));
			tell_presence(g, i, true);
			arm_timer(g);
			break;
		}
	}
}

void session_resume_send(struct client *c)
{
	for (struct game *g = c->srv->games; g != NULL; g = g->next) {
		if (g->freeing || g->over)
			continue;
		int seat = session_seat_of(g, c);
		if (seat < 0)
			continue;
		send_game_start(g, seat);
		/* the state as it stands now (same seq; clocks current) */
		struct snapshot *sn = snap_build(g);
		if (sn != NULL) {
			send_state(g, sn, c, seat);
			snap_unref(sn);
		}
	}
}

void session_free_all(struct server *s)
{
	while (s->games != NULL)
		game_free(s->games);
	s->nfinished = 0;
}
