/*
 * session_view.c - rendering a game (see session_view.h): snapshots of a state,
 * the state in JSON and in text for each viewer (the legal moves or actions
 * for a seat to move, the offers standing, the spectator count), game_start,
 * game_over, the options of a game, and the rows of `list`. Nothing is sent
 * from here.
 */
#include "server/play/session_view.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/util/json_out.h"
#include "server/msg/rtt.h"
#include "server/play/session_clock.h"
#include "server/play/session_internal.h"

/*
 * Option i of p as JSON shows it: a number; but a seed (a GAME_OPT_RANDOM option) is a
 * string, "random" or the number in a seed's one form (game_seed_text: 64 bits, which a
 * JSON number, a double, does not keep); an option with words is its word ("pass"). Into buf
 * (GAME_SEED_TEXT bytes); NULL: a number.
 */
static const char *option_string(const struct game_ops *ops, const struct game_params *p, int i,
                                 char *buf)
{
	if (!(ops->opts[i].flags & GAME_OPT_RANDOM))
		return game_opt_word(&ops->opts[i], p->v[i]); /* a word, or a number (NULL) */
	return p->set[i] ? game_seed_text((uint64_t)p->v[i], buf) : GAME_OPT_RANDOM_WORD;
}

cJSON *session_view_options_json(const struct game_ops *ops, const struct game_params *p)
{
	cJSON *o = cJSON_CreateObject();
	char buf[GAME_SEED_TEXT];
	for (int i = 0; i < ops->nopts; i++) {
		const char *str = option_string(ops, p, i, buf);
		if (str != NULL)
			cJSON_AddStringToObject(o, ops->opts[i].name, str);
		else
			cJSON_AddNumberToObject(o, ops->opts[i].name, (double)p->v[i]);
	}
	return o;
}

char *session_view_options_text(const struct game_ops *ops, const struct seek_opts *so)
{
	char opts[512], tc[64] = "untimed";
	if (game_params_text(ops, &so->params, true, opts, sizeof opts) < 0)
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

void session_view_clock(int64_t ms, char *buf, size_t len)
{
	if (ms < 0)
		ms = 0;
	if (ms < 10000)
		snprintf(buf, len, "0:%02" PRId64 ".%" PRId64, ms / 1000, (ms / 100) % 10);
	else
		snprintf(buf, len, "%" PRId64 ":%02" PRId64, ms / 60000, (ms / 1000) % 60);
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

void session_view_snap_unref(struct snapshot *sn)
{
	if (sn == NULL || --sn->refs > 0)
		return;
	for (int f = 0; f < 2; f++)
		for (int v = 0; v <= GAME_MAX_PLAYERS; v++)
			outbuf_unref(sn->out[f][v]);
	free(sn);
}

struct snapshot *session_view_snap_build(struct game *g)
{
	struct snapshot *sn = calloc(1, sizeof *sn + g->ops->state_size);
	if (sn == NULL)
		return NULL;
	sn->refs = 1;
	sn->seq = g->seq;
	sn->ply = g->ply;
	sn->over = g->over;
	sn->to_move = g->over ? 0 : g->ops->to_move(g->st);
	session_clock_left(g, sn->clocks);
	rtts_now(g, sn->rtt);
	sn->built = session_clock_now(g);
	sn->watchers = session_watchers(g);
	if (session_simultaneous(g) && !g->over) {
		int64_t left = session_clock_turn_limit(g) - (int64_t)(sn->built - g->turn_started);
		sn->turn_left = left > 0 ? left : 0;
		memcpy(sn->acted, g->acted, sizeof sn->acted);
	}
	sn->draw_offer = g->draw_offer;
	sn->undo_offer = g->undo_offer;
	sn->undo_n = g->undo_n;
	sn->rematch_offer = g->rematch_offer;
	if (g->nmoves > 0) {
		if (session_simultaneous(g)) {
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

/*
 * Each seat's score when the engine keeps scores (GAME_SCORES) and its rules
 * ended g ("5-3", "-1--1" tell them apart only by the position of a '-');
 * false for any other end (a resignation, a flag, a game of wins).
 */
static bool seat_scores(const struct game *g, int scores[GAME_MAX_PLAYERS])
{
	struct game_result r;
	if (!(g->ops->flags & GAME_SCORES))
		return false;
	memset(&r, 0, sizeof r);
	g->ops->result(g->st, &r);
	if (!r.over || r.reason == NULL || strcmp(r.reason, g->reason) != 0)
		return false;
	memcpy(scores, r.scores, sizeof r.scores);
	return true;
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
	int sc[GAME_MAX_PLAYERS];
	if (seat_scores(g, sc))
		cJSON_AddItemToObject(r, "scores", cJSON_CreateIntArray(sc, g->ops->nplayers));
	cJSON_AddStringToObject(r, "reason", g->reason);
	return r;
}

static char *result_text(const struct game *g)
{
	int sc[GAME_MAX_PLAYERS];
	if (strcmp(g->reason, "aborted") == 0)
		return xasprintf("aborted, no result");
	if (seat_scores(g, sc)) { /* "alice (player0) 5, bob (player1) 3: alice wins (max_turns)" */
		char *t = NULL;
		for (int i = 0; i < g->ops->nplayers; i++)
			if (sc[i] < 0) /* put out (game.h): the number means nothing to people */
				xappend(&t, "%s%s (%s) out", i ? ", " : "", g->pl[i].name,
				        g->ops->seat_names[i]);
			else
				xappend(&t, "%s%s (%s) %d", i ? ", " : "", g->pl[i].name,
				        g->ops->seat_names[i], sc[i]);
		if (g->winner >= 0)
			xappend(&t, ": %s wins (%s)", g->pl[g->winner].name, g->reason);
		else
			xappend(&t, ": draw (%s)", g->reason);
		return t;
	}
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

/* "bots": [false, true]: which seats are bots' accounts (PROTOCOL.md §17). */
static cJSON *bots_json(const struct game *g)
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; i < g->ops->nplayers; i++)
		cJSON_AddItemToArray(a, cJSON_CreateBool(g->pl[i].bot));
	return a;
}

/* "BOT " before a bot's name in text, as lichess titles bots. */
static const char *bot_mark(const struct game *g, int seat)
{
	return g->pl[seat].bot ? "BOT " : "";
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

static cJSON *time_json(const struct game *g)
{
	if (!g->so.timed)
		return cJSON_CreateNull();
	cJSON *t = cJSON_CreateObject();
	cJSON_AddNumberToObject(t, "base_ms", (double)g->so.base_ms);
	cJSON_AddNumberToObject(t, "inc_ms", (double)g->so.inc_ms);
	return t;
}

/* {"type":type,"game","kind","options","players"}: how game_start and state begin. */
static cJSON *game_head(const char *type, const struct game *g)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", type);
	cJSON_AddNumberToObject(j, "game", (double)g->id);
	cJSON_AddStringToObject(j, "kind", g->ops->name);
	cJSON_AddItemToObject(j, "options", session_view_options_json(g->ops, &g->so.params));
	cJSON_AddItemToObject(j, "players", players_json(g));
	cJSON_AddItemToObject(j, "bots", bots_json(g));
	return j;
}

/* ---- the state in JSON, written straight into a buffer (json_out.h: no tree) ---------- */

static void jw_options(struct jw *w, const struct game_ops *ops, const struct game_params *p)
{
	jw_obj(w);
	char buf[GAME_SEED_TEXT];
	for (int i = 0; i < ops->nopts; i++) {
		jw_key(w, ops->opts[i].name);
		const char *str = option_string(ops, p, i, buf);
		if (str != NULL)
			jw_str(w, str);
		else
			jw_num(w, (double)p->v[i]);
	}
	jw_end(w, '}');
}

/* As clocks_json, time_json and result_json above (game_start, game_over). */
static void jw_clocks(struct jw *w, const struct game *g, const int64_t clocks[GAME_MAX_PLAYERS])
{
	if (!g->so.timed) {
		jw_null(w);
		return;
	}
	jw_arr(w);
	for (int i = 0; i < g->ops->nplayers; i++)
		jw_num(w, (double)clocks[i]);
	jw_end(w, ']');
}

static void jw_time(struct jw *w, const struct game *g)
{
	if (!g->so.timed) {
		jw_null(w);
		return;
	}
	jw_obj(w);
	jw_key(w, "base_ms");
	jw_num(w, (double)g->so.base_ms);
	jw_key(w, "inc_ms");
	jw_num(w, (double)g->so.inc_ms);
	jw_end(w, '}');
}

static void jw_offers(struct jw *w, const struct game *g, const struct snapshot *sn)
{
	static const char *const what[] = {"draw", "undo", "rematch"};
	const unsigned masks[] = {sn->draw_offer, sn->undo_offer, sn->rematch_offer};
	jw_arr(w);
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < g->ops->nplayers; i++) {
			if (!(masks[k] & (1u << i)))
				continue;
			jw_obj(w);
			jw_key(w, "what");
			jw_str(w, what[k]);
			jw_key(w, "by");
			jw_str(w, g->pl[i].name);
			jw_key(w, "seat");
			jw_num(w, i);
			if (k == 1) {
				jw_key(w, "plies");
				jw_num(w, sn->undo_n);
			}
			jw_end(w, '}');
		}
	jw_end(w, ']');
}

static void jw_result(struct jw *w, const struct game *g)
{
	jw_obj(w);
	jw_key(w, "winner");
	if (g->winner >= 0)
		jw_num(w, g->winner);
	else
		jw_null(w);
	jw_key(w, "winner_name");
	if (g->winner >= 0)
		jw_str(w, g->pl[g->winner].name);
	else
		jw_null(w);
	jw_key(w, "score");
	jw_str(w, g->score);
	int sc[GAME_MAX_PLAYERS];
	if (seat_scores(g, sc)) {
		jw_key(w, "scores");
		jw_arr(w);
		for (int i = 0; i < g->ops->nplayers; i++)
			jw_num(w, sc[i]);
		jw_end(w, ']');
	}
	jw_key(w, "reason");
	jw_str(w, g->reason);
	jw_end(w, '}');
}

/*
 * "legal": every move's text when viewer is to move: the legal moves of a sequential game,
 * or in a simultaneous one the actions of the engine's seat_moves until the seat has acted;
 * false (no member) otherwise.
 */
static bool jw_legal(struct jw *w, const struct game *g, const struct snapshot *sn, int viewer)
{
	bool sim = session_simultaneous(g);
	if (sn->over || viewer < 0 || !(sn->to_move & (1u << viewer)) ||
	    (sim && (g->ops->seat_moves == NULL || sn->acted[viewer])))
		return false;
	game_move stack[256];
	game_move *mv = g->ops->max_moves <= 256 ? stack : malloc(g->ops->max_moves * sizeof *mv);
	if (mv == NULL)
		return false;
	jw_key(w, "legal");
	jw_arr(w);
	int n = sim ? g->ops->seat_moves(sn->st, viewer, mv, g->ops->max_moves)
	            : g->ops->legal_moves(sn->st, mv, g->ops->max_moves);
	for (int i = 0; i < n; i++) {
		char t[GAME_MOVE_TEXT];
		if (g->ops->format_move(sn->st, mv[i], t, sizeof t) >= 0)
			jw_str(w, t);
	}
	jw_end(w, ']');
	if (mv != stack)
		free(mv);
	return true;
}

/* The state as viewer sees it, one line (the members in the order PROTOCOL.md lists). */
static struct outbuf *state_out(const struct game *g, const struct snapshot *sn, int viewer)
{
	char space[8192];
	struct jw w;
	jw_init(&w, space, sizeof space);
	jw_obj(&w);
	jw_key(&w, "type");
	jw_str(&w, "state");
	jw_key(&w, "game");
	jw_num(&w, (double)g->id);
	jw_key(&w, "kind");
	jw_str(&w, g->ops->name);
	jw_key(&w, "options");
	jw_options(&w, g->ops, &g->so.params);
	jw_key(&w, "players");
	jw_arr(&w);
	for (int i = 0; i < g->ops->nplayers; i++)
		jw_str(&w, g->pl[i].name);
	jw_end(&w, ']');
	jw_key(&w, "bots");
	jw_arr(&w);
	for (int i = 0; i < g->ops->nplayers; i++)
		jw_bool(&w, g->pl[i].bot);
	jw_end(&w, ']');
	jw_key(&w, "seat");
	if (viewer >= 0)
		jw_num(&w, viewer);
	else
		jw_null(&w);
	jw_key(&w, "seq");
	jw_num(&w, (double)sn->seq);
	jw_key(&w, "ply");
	jw_num(&w, sn->ply);
	jw_key(&w, "to_move");
	jw_arr(&w);
	for (int i = 0; i < GAME_MAX_PLAYERS; i++)
		if (sn->to_move & (1u << i))
			jw_num(&w, i);
	jw_end(&w, ']');
	jw_key(&w, "last_move");
	if (session_simultaneous(g)) {
		if (sn->ply == 0) {
			jw_null(&w);
		} else {
			jw_obj(&w);
			for (int i = 0; i < g->ops->nplayers; i++) {
				char k[12];
				snprintf(k, sizeof k, "%d", i);
				jw_key(&w, k);
				if (sn->has_last[i])
					jw_str(&w, sn->last[i]);
				else
					jw_null(&w);
			}
			jw_end(&w, '}');
		}
		jw_key(&w, "turn_ms");
		jw_num(&w, (double)g->so.turn_ms);
		jw_key(&w, "turn_left_ms");
		jw_num(&w, (double)sn->turn_left);
		if (viewer >= 0) {
			jw_key(&w, "acted");
			jw_bool(&w, sn->acted[viewer]);
		}
	} else if (sn->has_last[0]) {
		jw_str(&w, sn->last[0]);
	} else {
		jw_null(&w);
	}
	cJSON *pos = g->ops->to_json(sn->st, viewer);
	jw_key(&w, "position");
	jw_json(&w, pos);
	cJSON_Delete(pos);
	jw_legal(&w, g, sn, viewer);
	jw_key(&w, "clocks");
	jw_clocks(&w, g, sn->clocks);
	jw_key(&w, "time");
	jw_time(&w, g);
	jw_key(&w, "rtt_ms");
	jw_arr(&w);
	for (int i = 0; i < g->ops->nplayers; i++)
		if (sn->rtt[i] >= 0)
			jw_num(&w, (double)sn->rtt[i]);
		else
			jw_null(&w);
	jw_end(&w, ']');
	jw_key(&w, "watchers");
	jw_num(&w, (double)sn->watchers);
	jw_key(&w, "offers");
	jw_offers(&w, g, sn);
	jw_key(&w, "over");
	jw_bool(&w, sn->over);
	jw_key(&w, "result");
	if (sn->over)
		jw_result(&w, g);
	else
		jw_null(&w);
	jw_end(&w, '}');
	json_buf_put(&w.b, "\n", 1);
	struct outbuf *b = jw_ok(&w) ? outbuf_new(w.b.p, w.b.len) : NULL;
	json_buf_free(&w.b);
	return b;
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
	/* the last move(s), then who is to move; once over, the game_over line that follows
	   says the result (once: not here too) */
	const char *sep = sn->over ? "" : "; ";
	if (session_simultaneous(g)) {
		if (sn->ply > 0) {
			xappend(&t, "last actions:");
			for (int i = 0; i < ops->nplayers; i++)
				xappend(&t, "%s %s %s", i ? ";" : "", ops->seat_names[i],
				        sn->has_last[i] ? sn->last[i] : "(none)");
			xappend(&t, "%s", sep);
		}
	} else if (sn->has_last[0]) {
		xappend(&t, "last move: %s%s", sn->last[0], sep);
	}
	if (!sn->over) {
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
				session_view_clock(sn->clocks[i], cb, sizeof cb);
				xappend(&t, " %s %s", ops->seat_names[i], cb);
			}
		}
		if (session_simultaneous(g))
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

const int64_t *session_view_snap_clocks(const struct snapshot *sn)
{
	return sn->clocks;
}

struct outbuf *session_view_snap_out(const struct game *g, struct snapshot *sn, int viewer,
                                     bool json)
{
	struct outbuf **slot = &sn->out[json ? 1 : 0][viewer + 1];
	if (*slot != NULL)
		return *slot;
	if (json) {
		*slot = state_out(g, sn, viewer);
	} else {
		char *t = state_text(g, sn, viewer);
		*slot = t != NULL ? outbuf_line(t) : NULL;
		free(t);
	}
	return *slot;
}

/* ---- game_start and game_over ------------------------------------------------------------ */

void session_view_game_start(const struct game *g, int seat, bool resumed, cJSON **json,
                             char **text)
{
	cJSON *j = game_head("game_start", g);
	cJSON_AddNumberToObject(j, "seat", seat);
	if (resumed)
		cJSON_AddTrueToObject(j, "resumed");
	cJSON_AddItemToObject(j, "time", time_json(g));
	int64_t rtt[GAME_MAX_PLAYERS];
	rtts_now(g, rtt);
	cJSON_AddItemToObject(j, "rtt_ms", rtt_json(g, rtt));
	if (session_simultaneous(g)) {
		cJSON_AddNumberToObject(j, "turn_ms", (double)g->so.turn_ms);
		cJSON_AddNumberToObject(j, "first_turn_ms", (double)(g->so.first_turn_ms > 0
		                                                            ? g->so.first_turn_ms
		                                                            : g->so.turn_ms));
	} else {
		cJSON_AddNullToObject(j, "turn_ms");
	}
	char *opts = session_view_options_text(g->ops, &g->so);
	*text = xasprintf("%s %" PRIu64 "%s: %s (%s), %s%s (%s) vs %s%s (%s); you play %s; "
	                  "moves: move %" PRIu64 " <move>",
	                  resumed ? "back in game" : "game", g->id, resumed ? "" : " started",
	                  g->ops->name, opts ? opts : "", bot_mark(g, 0), g->pl[0].name,
	                  g->ops->seat_names[0], bot_mark(g, 1), g->pl[1].name,
	                  g->ops->seat_names[1], g->ops->seat_names[seat], g->id);
	free(opts);
	*json = j;
}

void session_view_game_over(const struct game *g, cJSON **json, char **text)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "game_over");
	cJSON_AddNumberToObject(j, "game", (double)g->id);
	cJSON_AddItemToObject(j, "result", result_json(g));
	cJSON_AddItemToObject(j, "clocks", clocks_json(g, g->left));
	char *r = result_text(g);
	char *t = xasprintf("game %" PRIu64 " over: %s", g->id, r ? r : "");
	free(r);
	for (int i = 0; g->so.timed && !session_simultaneous(g) && i < g->ops->nplayers; i++) {
		char cb[24];
		session_view_clock(g->left[i], cb, sizeof cb);
		xappend(&t, "%s %s %s", i ? "" : "; clocks:", g->ops->seat_names[i], cb);
	}
	*json = j;
	*text = t;
}

/* ---- list ---------------------------------------------------------------------------- */

bool session_view_list_row(const struct game *g, bool as_stored, cJSON **json, char **text)
{
	/* a game whose latest records wait for the store is listed as stored */
	bool stored = as_stored && session_journal_pending(g);
	int ply = stored ? g->stored_ply : g->ply;
	unsigned mask = stored ? g->stored_to_move : g->ops->to_move(g->st);
	if ((stored ? g->stored_over : g->over) || g->freeing)
		return false;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "id", (double)g->id);
	cJSON_AddStringToObject(j, "kind", g->ops->name);
	cJSON *pl = cJSON_AddArrayToObject(j, "players");
	for (int i = 0; i < g->ops->nplayers; i++)
		cJSON_AddItemToArray(pl, cJSON_CreateString(g->pl[i].name));
	cJSON_AddItemToObject(j, "bots", bots_json(g));
	cJSON_AddNumberToObject(j, "ply", ply);
	cJSON *tm = cJSON_AddArrayToObject(j, "to_move");
	for (int i = 0; i < g->ops->nplayers; i++)
		if (mask & (1u << i))
			cJSON_AddItemToArray(tm, cJSON_CreateNumber(i));
	cJSON_AddNumberToObject(j, "watchers", (double)session_watchers(g));
	int64_t left[GAME_MAX_PLAYERS];
	session_clock_left(g, left);
	cJSON_AddItemToObject(j, "clocks", clocks_json(g, left));
	cJSON_AddItemToObject(j, "time", time_json(g));
	if (session_simultaneous(g))
		cJSON_AddNumberToObject(j, "turn_ms", (double)g->so.turn_ms);
	else
		cJSON_AddNullToObject(j, "turn_ms");
	*json = j;
	*text = xasprintf("  %" PRIu64 " %s: %s%s (%s) vs %s%s (%s), ply %d, %zu watching", g->id,
	                  g->ops->name, bot_mark(g, 0), g->pl[0].name, g->ops->seat_names[0],
	                  bot_mark(g, 1), g->pl[1].name, g->ops->seat_names[1], ply,
	                  session_watchers(g));
	return true;
}

cJSON *session_view_players_json(const struct game *g)
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; i < g->ops->nplayers; i++) {
		const struct player *p = &g->pl[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", p->name);
		cJSON_AddBoolToObject(o, "registered", p->registered);
		cJSON_AddBoolToObject(o, "present", p->c != NULL);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

cJSON *session_view_live_row(const struct game *g)
{
	const struct game_ops *ops = g->ops;
	const struct seek_opts *so = &g->so;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "id", (double)g->id);
	cJSON_AddStringToObject(o, "kind", ops->name);
	cJSON_AddItemToObject(o, "options", session_view_options_json(ops, &so->params));
	cJSON_AddItemToObject(o, "players", session_view_players_json(g));
	cJSON_AddBoolToObject(o, "rated", so->rated);
	if (so->timed) {
		cJSON *t = cJSON_AddObjectToObject(o, "time");
		cJSON_AddNumberToObject(t, "base_ms", (double)so->base_ms);
		cJSON_AddNumberToObject(t, "inc_ms", (double)so->inc_ms);
		int64_t left[GAME_MAX_PLAYERS];
		session_clock_left(g, left);
		cJSON *cl = cJSON_AddArrayToObject(o, "clock_ms");
		for (int i = 0; i < ops->nplayers; i++)
			cJSON_AddItemToArray(cl, cJSON_CreateNumber((double)left[i]));
	} else {
		cJSON_AddNullToObject(o, "time");
	}
	cJSON_AddNumberToObject(o, "ply", session_ply(g));
	cJSON_AddNumberToObject(o, "started", (double)session_started_at(g));
	cJSON_AddNumberToObject(o, "watchers", (double)session_watchers(g));
	return o;
}

void session_view_list_reply(struct client *c, const struct proto_req *rq, cJSON *f, char *extra,
                             size_t n)
{
	reply_ok(c, rq, f, extra, "%zu game%s in progress", n, n == 1 ? "" : "s");
}

void session_view_list(struct sessions *s, struct client *c, const struct proto_req *rq)
{
	cJSON *f = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(f, "games");
	char *extra = NULL;
	size_t n = 0;
	for (struct game *g = s->games; g != NULL; g = g->next) {
		cJSON *j;
		char *t;
		if (!session_view_list_row(g, true, &j, &t))
			continue;
		n++;
		cJSON_AddItemToArray(arr, j);
		xappend(&extra, "%s%s", extra ? "\n" : "", t ? t : "");
		free(t);
	}
	session_view_list_reply(c, rq, f, extra, n);
}
