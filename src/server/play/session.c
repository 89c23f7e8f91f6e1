/*
 * session.c - the life-cycle of a game and its moves (see session.h):
 * creation, the start, moves and simultaneous turns through game_ops, what
 * happens at a deadline (flag, end of a turn, end of a grace), the end,
 * takebacks and restoring after a restart through the one replayer
 * (games/game_replay.h), players leaving and coming back (a guest's seat
 * with its token, kept as a hash), and freeing.
 */
#include "server/play/session.h"

#include <ctype.h>
#include <inttypes.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "games/game_replay.h"
#include "server/msg/rtt.h"
#include "server/play/session_clock.h"
#include "server/play/session_internal.h"
#include "server/play/session_view.h"
#include "server/play/session_watch.h"

static void on_deadline(struct game *g);

void sessions_init(struct sessions *s, uv_loop_t *loop, int64_t grace_ms)
{
	memset(s, 0, sizeof *s);
	s->loop = loop;
	s->grace_ms = grace_ms;
	s->on_deadline = on_deadline;
	session_clock_sessions_init(s);
}

void sessions_set_hooks(struct sessions *s, const struct session_hooks *h)
{
	if (h)
		s->hooks = *h;
	else
		memset(&s->hooks, 0, sizeof s->hooks);
}

void sessions_set_news(struct sessions *s, const struct session_news *n)
{
	if (n)
		s->news = *n;
	else
		memset(&s->news, 0, sizeof s->news);
}

/* ---- the journal's barrier ----------------------------------------------------------- */

/* Before a hook: while nothing of g waits for the store, g as it is is g as stored. */
static void journal_before(struct game *g)
{
	if (session_journal_pending(g))
		return;
	g->stored_ply = g->ply;
	g->stored_to_move = g->ops->to_move(g->st);
	g->stored_over = g->over;
}

/* After a hook: the hook queued its record, whose number is the barrier's watermark now. */
static void journal_after(struct game *g)
{
	const struct client_barrier *bar = g->sess->bar;
	if (bar != NULL && bar->need > g->jseq)
		g->jseq = bar->need;
}

void session_follow_stored(struct game *g)
{
	if (g->sess->bar != NULL && session_journal_pending(g))
		client_barrier_need(g->sess->bar, g->jseq);
}

/* The turn just begun starts for real once its state is sent (it may wait for the store). */
static void turn_begins(struct game *g)
{
	g->turn_started = session_clock_now(g);
	g->turn_waits = session_journal_pending(g);
}

void session_journal_released(struct sessions *s, uint64_t upto)
{
	for (struct game *g = s->games; g != NULL; g = g->next)
		if (g->turn_waits && g->jseq <= upto && !g->freeing) {
			g->turn_waits = false;
			g->turn_started = session_clock_now(g);
			session_clock_arm(g);
		}
}

static void pause_game(struct game *g, bool paused)
{
	if (g->paused == paused || g->over || g->freeing)
		return;
	if (paused) /* a turn whose move waits has not begun for its player */
		g->pause_used = session_journal_pending(g) ? 0 : session_clock_used(g);
	else
		g->turn_started = session_clock_now(g) - (uint64_t)g->pause_used;
	g->paused = paused;
	session_clock_arm(g);
}

void sessions_pause(struct sessions *s, bool paused)
{
	for (struct game *g = s->games; g != NULL; g = g->next)
		pause_game(g, paused);
}

struct game *session_find(struct sessions *s, uint64_t id)
{
	for (struct game *g = s->games; g != NULL; g = g->next)
		if (g->id == id && !g->freeing)
			return g;
	return NULL;
}

/* ---- creation and freeing ---------------------------------------------------------- */

static void game_free_cb(uv_handle_t *h)
{
	struct game *g = h->data;
	for (size_t i = 0; i < g->nw; i++)
		session_view_snap_unref(g->w[i].pending);
	free(g->w);
	session_watch_chat_free(g);
	session_view_snap_unref(g->snap);
	free(g->moves);
	adjudicator_free(&g->adj);
	free(g->st);
	free(g->tmp);
	free(g);
}

/* Unlinks g and frees it once its timer is closed; its players and spectators
   leave it at once. */
static void game_free(struct game *g)
{
	struct sessions *s = g->sess;
	for (int i = 0; i < g->ops->nplayers; i++)
		if (g->pl[i].c != NULL) {
			session_watch_member_del(g->pl[i].c, g);
			g->pl[i].c = NULL;
		}
	for (size_t i = 0; i < g->nw; i++) {
		g->w[i].c->nwatching--;
		session_watch_member_del(g->w[i].c, g);
	}
	for (struct game **pp = &s->games; *pp != NULL; pp = &(*pp)->next)
		if (*pp == g) {
			*pp = g->next;
			break;
		}
	if (g->over && s->nfinished > 0)
		s->nfinished--;
	if (!g->over)
		session_metrics_over(&s->met, g->ops, false);
	g->freeing = true;
	uv_close((uv_handle_t *)&g->timer, game_free_cb);
}

uint64_t session_new_seed(const struct game_ops *ops, const struct game_params *p)
{
	int i = game_opt_index(ops, "seed");
	if (i >= 0 && p->set[i])
		return (uint64_t)p->v[i];
	uint64_t seed;
	randombytes_buf(&seed, sizeof seed);
	return seed;
}

int session_random_seat(void)
{
	return (int)randombytes_uniform(2);
}

struct game *session_create(struct sessions *s, const struct game_spec *spec)
{
	const struct game_ops *ops = spec->ops;
	struct game *g = calloc(1, sizeof *g);
	if (g == NULL)
		return NULL;
	g->sess = s;
	g->ops = ops;
	g->so = spec->so;
	g->seed = spec->seed;
	g->started_at = wall_ms();
	g->winner = -1;
	g->adj_fed = -1;
	g->st = calloc(1, ops->state_size);
	g->tmp = calloc(1, ops->state_size);
	if (g->st == NULL || g->tmp == NULL || ops->init(g->st, &g->so.params, g->seed) != 0)
		goto fail;
	for (int i = 0; i < ops->nplayers; i++) {
		struct player *p = &g->pl[i];
		snprintf(p->name, sizeof p->name, "%s", spec->names[i]);
		p->c = spec->clients[i];
		p->registered = spec->registered[i];
		p->bot = p->c != NULL && p->c->prefs.bot;
		if (!p->registered && p->c != NULL && p->c->token[0] != '\0')
			session_token_hash(p->c->token, p->token_hash);
		else if (!p->registered && p->c == NULL && spec->token_hashes[i] != NULL)
			snprintf(p->token_hash, sizeof p->token_hash, "%s", spec->token_hashes[i]);
		if (p->c == NULL) {
			p->absent = true;
			p->unseen = spec->id == 0;
			p->gone_at = uv_now(s->loop);
		}
		g->left[i] = g->so.timed ? g->so.base_ms : 0;
	}
	for (int i = 0; i < ops->nplayers; i++)
		if (g->pl[i].c != NULL && !session_watch_member_add(g->pl[i].c, g)) {
			while (i-- > 0)
				if (g->pl[i].c != NULL)
					session_watch_member_del(g->pl[i].c, g);
			goto fail;
		}
	uint64_t id = spec->id != 0 ? spec->id : spec->new_id;
	journal_before(g);
	if (spec->id == 0 && s->hooks.on_start != NULL &&
	    s->hooks.on_start(s->hooks.ud, g, &id) < 0) {
		for (int i = 0; i < ops->nplayers; i++)
			if (g->pl[i].c != NULL)
				session_watch_member_del(g->pl[i].c, g);
		goto fail;
	}
	journal_after(g);
	g->id = id != 0 ? id : s->next_game_id + 1;
	if (g->id > s->next_game_id)
		s->next_game_id = g->id;
	session_clock_init(g);
	g->next = s->games;
	s->games = g;
	session_metrics_begun(&s->met, ops, spec->id == 0);
	return g;
fail:
	free(g->st);
	free(g->tmp);
	free(g);
	return NULL;
}

static struct game_ply ply_of(const struct move_rec *m);
static bool append_move(struct game *g, const struct move_rec *m);
static bool position_result(const struct game *g, struct game_result *r);

/*
 * The adjudicator of so.repetition, rebuilt from g's moves (after a takeback, a restore, or
 * at the first ply): every position from the start given in order. What the last one says.
 */
static int adj_rebuild(struct game *g)
{
	const struct game_ops *ops = g->ops;
	adjudicator_free(&g->adj);
	g->adj_fed = -1;
	void *scratch = malloc(ops->state_size);
	int r = scratch != NULL ? adjudicator_init(&g->adj, ops, 0, g->so.repetition)
	                        : GAME_ENOSPACE;
	struct game_replay rp;
	if (r >= 0)
		r = game_replay_start(&rp, ops, scratch, &g->so.params, g->seed);
	if (r >= 0)
		r = adjudicator_position(&g->adj, scratch, 0);
	for (size_t i = 0; r >= 0 && i < g->nmoves; i++) {
		struct game_ply e = ply_of(&g->moves[i]);
		r = game_replay_step(&rp, &e, NULL);
		if (r >= 0)
			r = adjudicator_position(&g->adj, scratch, rp.ply);
	}
	free(scratch);
	if (r >= 0)
		g->adj_fed = g->ply;
	return r;
}

/*
 * An engine match's adjudication (so.max_plies, so.repetition; games/adjudicate.h) of g's
 * position after its last ply: the draw's reason, or NULL. The adjudicator follows the plies
 * one by one; anything else (a takeback, a restored game) rebuilds it from the moves.
 */
static const char *adjudicated(struct game *g)
{
	if (g->so.max_plies > 0 && g->ply >= g->so.max_plies)
		return "max_plies";
	if (g->so.repetition == 0 || session_simultaneous(g))
		return NULL;
	int r = g->adj_fed >= 0 && g->adj_fed == g->ply - 1
	                ? adjudicator_position(&g->adj, g->st, g->ply)
	                : adj_rebuild(g);
	if (r < 0) { /* out of memory: the rule is off for this game, never a wrong draw */
		log_error("game %" PRIu64 ": repetition not followed (%s)", g->id,
		          game_strerror(r));
		g->so.repetition = 0;
		return NULL;
	}
	g->adj_fed = g->ply;
	return r == ADJ_REPETITION || g->adj.last_count >= g->so.repetition ? "repetition"
	                                                                     : NULL;
}

int session_preplay(struct game *g, const char *const *moves, size_t n)
{
	struct sessions *s = g->sess;
	for (size_t i = 0; i < n; i++) {
		int seat = game_seat_to_move(g->ops, g->st);
		game_move m = 0;
		const char *why = NULL;
		int r = seat < 0 ? GAME_EOVER : g->ops->parse_move(g->st, seat, moves[i], &m, &why);
		if (r < 0)
			return r;
		struct move_rec rec = {.ply = (int)g->nmoves,
		                       .turn = g->ply,
		                       .seat = seat,
		                       .act = GAME_ACT_MOVE,
		                       .at = wall_ms()};
		if (g->ops->format_move(g->st, m, rec.text, sizeof rec.text) < 0)
			snprintf(rec.text, sizeof rec.text, "%s", moves[i]);
		for (int k = 0; k < g->ops->nplayers; k++)
			rec.clock_ms[k] = g->left[k];
		memcpy(g->tmp, g->st, g->ops->state_size);
		if ((r = g->ops->apply(g->tmp, m)) < 0)
			return r;
		journal_before(g);
		if (s->hooks.on_move != NULL && s->hooks.on_move(s->hooks.ud, g, &rec) < 0)
			return GAME_ENOSPACE;
		journal_after(g);
		if (!append_move(g, &rec))
			return GAME_ENOSPACE;
		void *t = g->st;
		g->st = g->tmp;
		g->tmp = t;
		g->ply++;
		adjudicated(g); /* followed from the start; a book's opening is not adjudicated */
		struct game_result res;
		if (position_result(g, &res))
			return GAME_EOVER;
	}
	return 0;
}

/* game_start to a seat: the game begins, or (resumed) its player is back in it */
static void send_game_start(struct game *g, int seat, bool resumed)
{
	struct client *c = g->pl[seat].c;
	if (c == NULL)
		return;
	cJSON *j;
	char *t;
	session_view_game_start(g, seat, resumed, &j, &t);
	send_msg(c, j, t);
}

void session_begin(struct game *g)
{
	struct sessions *s = g->sess;
	if (s->news.on_begin != NULL)
		s->news.on_begin(s->news.ud, g);
	turn_begins(g);
	for (int i = 0; i < g->ops->nplayers; i++)
		send_game_start(g, i, false);
	session_watch_broadcast_state(g);
	session_clock_arm(g);
}

void session_forget(struct game *g)
{
	g->sess->epoch++;
	game_free(g);
}

void sessions_free_all(struct sessions *s)
{
	while (s->games != NULL)
		game_free(s->games);
	s->nfinished = 0;
	session_clock_sessions_close(s);
}

/* ---- the end ----------------------------------------------------------------------- */

/* Frees the oldest finished games beyond SESSION_KEEP_FINISHED. */
static void prune_finished(struct sessions *s)
{
	while (s->nfinished > SESSION_KEEP_FINISHED) {
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
	g->sess->epoch++;
	journal_before(g);
	if (!g->over)
		session_clock_left(g, g->left);
	if (!g->over)
		session_metrics_over(&g->sess->met, g->ops, true);
	g->over = true;
	g->draw_offer = g->undo_offer = 0; /* offers end with the game (rematch offers come after) */
	g->winner = winner;
	snprintf(g->score, sizeof g->score, "%s", score);
	snprintf(g->reason, sizeof g->reason, "%s", reason);
}

/* The end of g is recorded: stop the timer, call the hook, tell everyone. */
static void announce_end(struct game *g)
{
	struct sessions *s = g->sess;
	uv_timer_stop(&g->timer);
	if (s->hooks.on_end != NULL)
		s->hooks.on_end(s->hooks.ud, g);
	journal_after(g);
	cJSON *j;
	char *t;
	session_view_game_over(g, &j, &t);
	session_watch_broadcast(g, j, t, NULL);
	if (s->news.on_over != NULL)
		s->news.on_over(s->news.ud, g);
	s->nfinished++;
	prune_finished(s); /* may free g itself (after this call stack: the close callback) */
}

void session_end(struct game *g, int winner, const char *score, const char *reason)
{
	if (g->over)
		return;
	set_result(g, winner, score, reason);
	announce_end(g);
}

/* The engine's result of the position, when it ends the game. */
static bool position_result(const struct game *g, struct game_result *r)
{
	memset(r, 0, sizeof *r);
	g->ops->result(g->st, r);
	return r->over;
}

/* After a position change: the state to everyone, then the end or the next deadline. */
static void after_change(struct game *g)
{
	struct game_result r;
	unsigned most = g->sess->lim.max_plies;
	const char *adj = NULL;
	if (position_result(g, &r))
		set_result(g, r.winner, game_result_score(&r), r.reason ? r.reason : "over");
	else if (most > 0 && g->ply >= (int)most) /* long enough: a draw (memory is bounded) */
		set_result(g, -1, game_score_text(-1), "max_plies");
	else if ((adj = adjudicated(g)) != NULL) /* an engine match's rules */
		set_result(g, -1, game_score_text(-1), adj);
	session_watch_broadcast_state(g);
	if (g->over)
		announce_end(g);
	else
		session_clock_arm(g);
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
	enum err_code code = r == GAME_EILLEGAL ? ERR_ILLEGAL_MOVE
	                     : r == GAME_ETURN  ? ERR_NOT_YOUR_TURN
	                     : r == GAME_EPHASE ? ERR_WRONG_PHASE
	                     : r == GAME_EOVER  ? ERR_GAME_OVER
	                                        : ERR_BAD_MOVE;
	reply_err(c, rq, code, "%s", why ? why : game_strerror(r));
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

/* Resolves the current simultaneous turn with what is in (missing = timeout). */
static void sim_resolve(struct game *g)
{
	struct sessions *s = g->sess;
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
			rec.ms_used = session_clock_turn_limit(g);
		}
		journal_before(g);
		if (s->hooks.on_move != NULL && s->hooks.on_move(s->hooks.ud, g, &rec) < 0)
			log_warn("move hook failed game=%" PRIu64, g->id);
		journal_after(g);
		metric_inc(&s->met.moves);
		append_move(g, &rec);
	}
	memcpy(g->tmp, g->st, g->ops->state_size);
	int r = g->ops->resolve(g->tmp, moves, acts);
	if (r < 0)
		log_warn("turn does not resolve game=%" PRIu64 " why=%s", g->id,
		         LOG_Q(game_strerror(r)));
	else
		memcpy(g->st, g->tmp, g->ops->state_size);
	g->ply++;
	memset(g->acted, 0, sizeof g->acted);
	turn_begins(g);
	if (s->on_moved != NULL)
		s->on_moved(g, mask);
	after_change(g);
}

/*
 * An action line as people type it ("push 3 right", "move  up left"): upper case, single
 * spaces, into out (len bytes). Only for games that are not strict=1: a strict game reads
 * the line exactly as the referee does, and a bot's line is upper case already.
 */
static const char *lenient_action(const char *text, char *out, size_t len)
{
	size_t n = 0;
	for (const char *p = text; *p != '\0'; p++) {
		if (*p == ' ' || *p == '\t') {
			if (n > 0 && out[n - 1] != ' ' && n + 1 < len)
				out[n++] = ' ';
			continue;
		}
		if (n + 1 >= len)
			return text; /* too long to be an action: the engine says so */
		out[n++] = (char)toupper((unsigned char)*p);
	}
	while (n > 0 && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
	return out;
}

/* seat's action of a simultaneous turn; the turn resolves once every seat has acted. */
static void sim_move(struct client *c, const struct proto_req *rq, struct game *g, int seat,
                     const char *text)
{
	char lenient[GAME_MOVE_TEXT];
	if (!g->so.strict)
		text = lenient_action(text, lenient, sizeof lenient);
	unsigned mask = g->ops->to_move(g->st);
	if (!(mask & (1u << seat))) {
		reply_err(c, rq, ERR_NOT_YOUR_TURN, "your seat does not act this turn");
		return;
	}
	if (g->acted[seat]) {
		reply_err(c, rq, ERR_ALREADY_ACTED, "your action for this turn is already in");
		return;
	}
	game_move m = 0;
	char why[160];
	if (!g->so.strict && g->ops->human_check != NULL &&
	    g->ops->parse_move(g->st, seat, text, &m, NULL) == GAME_OK &&
	    g->ops->human_check(g->st, seat, m, why, sizeof why) < 0) {
		reply_err(c, rq, ERR_ILLEGAL_MOVE, "%s", why); /* nothing is in: try again */
		return;
	}
	if (parse_or_reply(c, rq, g, seat, text, &m) < 0) {
		if (g->so.strict) {
			g->acted[seat] = true;
			g->act[seat] = GAME_ACT_INVALID;
			g->act_text[seat][0] = '\0';
			g->act_ms[seat] = session_clock_used(g);
		}
	} else {
		g->acted[seat] = true;
		g->act[seat] = GAME_ACT_MOVE;
		g->action[seat] = m;
		if (g->ops->format_move(g->st, m, g->act_text[seat], GAME_MOVE_TEXT) < 0)
			snprintf(g->act_text[seat], GAME_MOVE_TEXT, "%s", text);
		g->act_ms[seat] = session_clock_used(g);
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

void session_move(struct client *c, const struct proto_req *rq, struct game *g, int seat,
                  const char *text)
{
	struct sessions *s = g->sess;
	if (session_simultaneous(g)) {
		sim_move(c, rq, g, seat, text);
		return;
	}
	int to_move = game_seat_to_move(g->ops, g->st);
	if (to_move != seat) {
		reply_err(c, rq, ERR_NOT_YOUR_TURN, "it is %s's move in game %" PRIu64,
		          to_move >= 0 ? g->pl[to_move].name : "nobody", g->id);
		return;
	}
	int64_t used = session_clock_used(g);
	if (g->so.timed && used >= g->left[seat]) {
		reply_err(c, rq, ERR_GAME_OVER, "your time ran out in game %" PRIu64, g->id);
		g->left[seat] = 0;
		session_end(g, 1 - seat, game_score_text(1 - seat), "timeout");
		return;
	}
	used = rtt_charge(c, used); /* the lag allowance (rtt.h) */
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
		reply_err(c, rq, ERR_INTERNAL, "the engine refused the move: %s", game_strerror(r));
		return;
	}
	journal_before(g);
	if (s->hooks.on_move != NULL && s->hooks.on_move(s->hooks.ud, g, &rec) < 0) {
		reply_err(c, rq, ERR_INTERNAL,
		          "the move could not be recorded, so it was not played");
		return;
	}
	journal_after(g);
	if (!append_move(g, &rec)) {
		reply_err(c, rq, ERR_INTERNAL, "out of memory; the move was not played");
		return;
	}
	metric_inc(&s->met.moves);
	void *t = g->st;
	g->st = g->tmp;
	g->tmp = t;
	if (g->so.timed)
		g->left[seat] = rec.clock_ms[seat];
	g->ply++;
	turn_begins(g);
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "game", (double)g->id);
	cJSON_AddStringToObject(f, "move", rec.text);
	cJSON_AddNumberToObject(f, "ply", (double)g->ply);
	reply_ok(c, rq, f, NULL, "%s played in game %" PRIu64, rec.text, g->id);
	if (s->on_moved != NULL)
		s->on_moved(g, 1u << seat);
	after_change(g);
}

void session_resign(struct client *c, const struct proto_req *rq, struct game *g, int seat)
{
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "game", (double)g->id);
	reply_ok(c, rq, f, NULL, "you resigned game %" PRIu64, g->id);
	session_end(g, 1 - seat, game_score_text(1 - seat), "resign");
}

/* The timer of g fired (session_clock.c): the flag, the turn's end or a grace's end. */
static void on_deadline(struct game *g)
{
	uint64_t when, now = session_clock_now(g);
	int seat = -1;
	enum deadline_kind k = session_clock_next_deadline(g, &when, &seat);
	if (k == DL_NONE)
		return;
	if (when > now) {
		session_clock_arm(g);
		return;
	}
	switch (k) {
	case DL_FLAG:
		g->left[seat] = 0;
		session_end(g, 1 - seat, game_score_text(1 - seat), "timeout");
		break;
	case DL_GRACE:
		session_end(g, 1 - seat, game_score_text(1 - seat), "abandoned");
		break;
	case DL_TURN:
		sim_resolve(g);
		break;
	case DL_WATCHERS:
		session_watch_tell_count(g);
		break;
	case DL_NONE:
		break;
	}
	session_clock_arm(g);
	/* what this deadline journalled held its output; later events' output does not wait */
	client_barrier_clear(g->sess->bar);
}

/* ---- replaying records: takebacks and restoring ------------------------------------ */

/* The replayer's entry for a move record. */
static struct game_ply ply_of(const struct move_rec *m)
{
	return (struct game_ply){.seat = m->seat, .act = m->act, .text = m->text};
}

int session_takeback(struct game *g, int n)
{
	const struct game_ops *ops = g->ops;
	struct sessions *s = g->sess;
	if (session_simultaneous(g) || g->over || n < 1 || (size_t)n > g->nmoves)
		return GAME_ETURN;
	size_t keep = g->nmoves - (size_t)n;
	struct game_replay rp;
	int r = game_replay_start(&rp, ops, g->tmp, &g->so.params, g->seed);
	for (size_t i = 0; r >= 0 && i < keep; i++) {
		struct game_ply e = ply_of(&g->moves[i]);
		r = game_replay_step(&rp, &e, NULL);
	}
	if (r < 0)
		return r;
	journal_before(g);
	if (s->hooks.on_undo != NULL && s->hooks.on_undo(s->hooks.ud, g, n) < 0)
		return GAME_EOVER;
	journal_after(g);
	void *t = g->st;
	g->st = g->tmp;
	g->tmp = t;
	g->nmoves = keep;
	g->ply = (int)keep;
	for (int i = 0; g->so.timed && i < ops->nplayers; i++)
		g->left[i] = keep > 0 ? g->moves[keep - 1].clock_ms[i] : g->so.base_ms;
	turn_begins(g);
	return 0;
}

void session_push_state(struct game *g)
{
	session_watch_broadcast_state(g);
	session_clock_arm(g);
}

struct game *session_restore(struct sessions *s, const struct game_spec *spec, int64_t started_at,
                             const struct move_rec *recs, size_t n, size_t *kept)
{
	*kept = 0;
	struct game *g = session_create(s, spec);
	if (g == NULL)
		return NULL;
	g->started_at = started_at;
	struct game_replay rp;
	game_replay_attach(&rp, g->ops, g->st); /* session_create made the start position */
	for (size_t i = 0; i < n; i++) {
		struct move_rec rec = recs[i];
		rec.turn = rp.ply; /* the ply or turn it was made in */
		struct game_ply e = ply_of(&rec);
		int r = game_replay_step(&rp, &e, NULL);
		if (r < 0) {
			log_error("game does not replay game=%" PRIu64 " ply=%d why=%s", g->id,
			          rec.ply, LOG_Q(game_strerror(r)));
			break;
		}
		if (!append_move(g, &rec)) {
			log_error("game not restored game=%" PRIu64 " why=\"out of memory\"",
			          g->id);
			break;
		}
		if (r == GAME_REPLAY_MADE && g->so.timed && !session_simultaneous(g))
			for (int k = 0; k < g->ops->nplayers; k++)
				g->left[k] = rec.clock_ms[k];
	}
	/* a simultaneous turn cut by the crash was never announced: it is played again */
	g->nmoves -= game_replay_drop_open_turn(&rp);
	g->ply = rp.ply;
	*kept = g->nmoves;
	return g;
}

void session_restart(struct game *g)
{
	/* states go on numbering where they stopped: the start was 1, each ply or turn one more */
	g->seq = (uint64_t)g->ply;
	/* the downtime is nobody's: the mover's clock waits until the mover is back */
	g->clock_held = g->so.timed && !session_simultaneous(g);
	session_begin(g);
	log_info("game restored game=%" PRIu64 " ply=%d", g->id, g->ply);
	/* the crash came between the last move and the end being written */
	struct game_result r;
	unsigned most = g->sess->lim.max_plies;
	if (position_result(g, &r) && !g->over)
		session_end(g, r.winner, game_result_score(&r), r.reason ? r.reason : "over");
	else if (most > 0 && g->ply >= (int)most && !g->over)
		session_end(g, -1, game_score_text(-1), "max_plies");
	else if (!g->over && g->ply > 0) {
		const char *adj = adjudicated(g);
		if (adj != NULL)
			session_end(g, -1, game_score_text(-1), adj);
	}
}

/* ---- leaving and coming back ------------------------------------------------------- */

/* Orders c's games newest first (the order who and resuming give). */
static int by_id_desc(const void *a, const void *b)
{
	uint64_t x = (*(struct game *const *)a)->id, y = (*(struct game *const *)b)->id;
	return x < y ? 1 : x > y ? -1 : 0;
}

void session_sort_games(struct client *c)
{
	if (c->ngames > 1)
		qsort(c->games, c->ngames, sizeof *c->games, by_id_desc);
}

void session_client_gone(struct sessions *s, struct client *c)
{
	s->epoch++;
	/* the list is taken whole (newest game first): c leaves every game on it */
	session_sort_games(c);
	struct game **games = c->games;
	unsigned n = c->ngames;
	c->games = NULL;
	c->ngames = c->capgames = 0;
	for (unsigned k = 0; k < n; k++) {
		struct game *g = games[k];
		session_watch_drop(g, c);
		int seat = session_seat_of(g, c);
		if (seat < 0)
			continue;
		g->pl[seat].c = NULL;
		if (g->over)
			continue;
		g->pl[seat].absent = true;
		g->pl[seat].gone_at = session_clock_now(g);
		g->pl[seat].addr = c->conn->addr;
		g->pl[seat].addr_known = !c->remote && !c->conn->t->no_address;
		session_watch_tell_presence(g, seat, false);
		session_clock_arm(g);
	}
	free(games);
}

void session_token_hash(const char *token, char out[SESSION_TOKEN_HASH + 1])
{
	unsigned char h[SESSION_TOKEN_HASH / 2];
	crypto_generichash(h, sizeof h, (const unsigned char *)token, strlen(token), NULL, 0);
	sodium_bin2hex(out, SESSION_TOKEN_HASH + 1, h, sizeof h);
}

bool session_token_fits(const char *hash, const char *token)
{
	char h[SESSION_TOKEN_HASH + 1];
	session_token_hash(token, h);
	return strlen(hash) == SESSION_TOKEN_HASH &&
	       sodium_memcmp(h, hash, SESSION_TOKEN_HASH) == 0;
}

/* An absent guest seat of a game not yet ended, left from address a. */
static bool left_from(const struct game *g, const struct player *p, const struct addr_key *a)
{
	return !g->freeing && !g->over && p->absent && !p->registered && p->addr_known &&
	       memcmp(&p->addr, a, sizeof *a) == 0;
}

const char *session_guest_left_from(struct sessions *s, const struct addr_key *a)
{
	const char *one = NULL;
	for (struct game *g = s->games; g != NULL; g = g->next)
		for (int i = 0; i < g->ops->nplayers; i++) {
			const struct player *p = &g->pl[i];
			if (!left_from(g, p, a))
				continue;
			if (one != NULL && strcasecmp(one, p->name) != 0)
				return NULL; /* two guests left from there: whose is unknown */
			one = p->name;
		}
	return one;
}

void session_guest_rekey(struct sessions *s, const char *name, const struct addr_key *a,
                         const char *token)
{
	for (struct game *g = s->games; g != NULL; g = g->next)
		for (int i = 0; i < g->ops->nplayers; i++)
			if (left_from(g, &g->pl[i], a) && strcasecmp(g->pl[i].name, name) == 0)
				session_token_hash(token, g->pl[i].token_hash);
}

void session_login(struct sessions *s, struct client *c, cJSON *resumed)
{
	for (struct game *g = s->games; g != NULL; g = g->next) {
		if (g->freeing || g->over)
			continue;
		for (int i = 0; i < g->ops->nplayers; i++) {
			struct player *p = &g->pl[i];
			if (!p->absent || strcasecmp(p->name, c->name) != 0 ||
			    p->registered != c->registered)
				continue;
			/* a guest's seat: its token (identity.c checked it; a seat without one
			   takes the claimer's). A cluster's relay client has the token its home
			   sent over the bus (cluster.c): the seat's node checks it here. */
			if (!p->registered && p->token_hash[0] != '\0' &&
			    !session_token_fits(p->token_hash, c->token))
				continue;
			if (!session_watch_member_add(c, g))
				break; /* out of memory: the seat keeps waiting */
			if (!p->registered && p->token_hash[0] == '\0' && c->token[0] != '\0')
				session_token_hash(c->token, p->token_hash);
			p->absent = false;
			p->c = c;
			p->bot |= p->registered && c->prefs.bot; /* a restored game's seat */
			if (g->clock_held && game_seat_to_move(g->ops, g->st) == i) {
				g->clock_held = false; /* restored game: the mover is back */
				g->turn_started = session_clock_now(g);
			}
			session_watch_drop(g, c);
			cJSON_AddItemToArray(resumed, cJSON_CreateNumber((double)g->id));
			session_watch_tell_presence(g, i, true);
			session_clock_arm(g);
			break;
		}
	}
}

void session_resume_send(struct sessions *s, struct client *c)
{
	(void)s;
	session_sort_games(c);
	for (unsigned k = 0; k < c->ngames; k++) {
		struct game *g = c->games[k];
		if (g->over)
			continue;
		int seat = session_seat_of(g, c);
		if (seat < 0)
			continue;
		/* the state as it stands now (same seq; clocks current), and what was said, once
		 * what the game waits for is stored */
		uint64_t need = client_barrier_push(s->bar, g->jseq);
		send_game_start(g, seat, !g->pl[seat].unseen);
		g->pl[seat].unseen = false;
		struct snapshot *sn = session_watch_current(g);
		if (sn != NULL)
			session_watch_send_state(g, sn, c, seat);
		session_watch_send_chat(g, c);
		client_barrier_pop(s->bar, need);
	}
}
