/*
 * journal.c - the game journal (see journal.h): the session hooks that write
 * every game to the store (its start, every move before anyone is told, a
 * takeback, the end with Glicko-2 ratings), game ends the store refused kept
 * and written later, and the recovery of the games in progress at start.
 */
#include "server/journal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/game_replay.h"
#include "server/glicko.h"

void journal_log_failure(struct store *db, const char *what, int r)
{
	/* always logged: a storage failure is worth an operator's attention */
	log_error("storage: %s: %s (%s)", what, store_strerror(r), store_last_error(db));
}

static void log_store(struct journal *jn, const char *what, int r)
{
	journal_log_failure(jn->db, what, r);
}

/* ---- hooks: the journal ------------------------------------------------------------ */

/*
 * A game end the store could not write (disk full, locked, ...). Left alone, the game would
 * stay "in progress" in the store and come back at the next start, so it is kept (owned by
 * jn->unfinished) and written again before every later write and at close.
 */
struct unfinished {
	struct unfinished *next;
	int64_t id;
	struct store_finish f; /* result and reason point into the buffers below */
	char result[STORE_RESULT_MAX];
	char reason[STORE_REASON_MAX];
};

static void finish_later(struct journal *jn, int64_t id, const struct store_finish *f)
{
	struct unfinished *u = calloc(1, sizeof *u);
	if (u == NULL)
		return;
	u->id = id;
	u->f = *f;
	snprintf(u->result, sizeof u->result, "%s", f->result);
	snprintf(u->reason, sizeof u->reason, "%s", f->reason);
	u->f.result = u->result;
	u->f.reason = u->reason;
	u->next = jn->unfinished;
	jn->unfinished = u;
}

void journal_retry(struct journal *jn)
{
	struct unfinished **pp = &jn->unfinished;
	while (*pp != NULL) {
		struct unfinished *u = *pp;
		int r = store_game_finish(jn->db, u->id, &u->f);
		if (r < 0 && r != STORE_ESTATE && r != STORE_ENOTFOUND) {
			pp = &u->next;
			continue;
		}
		*pp = u->next;
		free(u);
	}
}

/* The options as stored: the engine's words, plus turn_ms/strict for simultaneous games. */
static void options_text(const struct game *g, char *buf, size_t len)
{
	if (game_params_text(g->ops, &g->so.params, buf, len) < 0)
		buf[0] = '\0';
	if (g->ops->flags & GAME_SIMULTANEOUS) {
		size_t n = strlen(buf);
		n += (size_t)snprintf(buf + n, len - n, "%sturn_ms=%" PRId64 " strict=%d",
		                      n ? " " : "", g->so.turn_ms, g->so.strict ? 1 : 0);
		if (g->so.first_turn_ms > 0 && n < len)
			snprintf(buf + n, len - n, " first_turn_ms=%" PRId64, g->so.first_turn_ms);
	}
}

static int hook_start(void *ud, const struct game *g, uint64_t *id)
{
	struct journal *jn = ud;
	journal_retry(jn);
	struct store_game sg;
	memset(&sg, 0, sizeof sg);
	snprintf(sg.kind, sizeof sg.kind, "%s", g->ops->name);
	options_text(g, sg.options, sizeof sg.options);
	sg.seed = g->seed;
	for (int i = 0; i < STORE_SEATS && i < g->ops->nplayers; i++) {
		snprintf(sg.players[i], sizeof sg.players[i], "%s", g->pl[i].name);
		sg.guest[i] = !g->pl[i].registered;
	}
	sg.rated = g->so.rated;
	if (g->so.timed) {
		sg.time_base_ms = g->so.base_ms;
		sg.time_inc_ms = g->so.inc_ms;
	}
	sg.started = g->started_at;
	int64_t nid = 0;
	int r = store_game_begin(jn->db, &sg, &nid);
	if (r < 0) {
		log_store(jn, "game begin", r);
		return -1;
	}
	*id = (uint64_t)nid;
	return 0;
}

static int hook_move(void *ud, const struct game *g, const struct move_rec *m)
{
	struct journal *jn = ud;
	journal_retry(jn);
	struct store_move sm;
	memset(&sm, 0, sizeof sm);
	sm.ply = m->ply;
	sm.seat = m->seat;
	if (m->act == GAME_ACT_MOVE)
		snprintf(sm.text, sizeof sm.text, "%s", m->text);
	else if (m->act == GAME_ACT_INVALID)
		snprintf(sm.text, sizeof sm.text, "%s", STORE_INVALID_ACTION);
	sm.ms_used = m->ms_used;
	for (int i = 0; i < STORE_SEATS; i++)
		sm.clock_ms[i] = m->clock_ms[i];
	sm.at = m->at;
	int r = store_move_append(jn->db, (int64_t)g->id, &sm);
	if (r < 0) {
		char what[64];
		snprintf(what, sizeof what, "game %" PRIu64 " ply %d", g->id, m->ply);
		log_store(jn, what, r);
		return -1;
	}
	return 0;
}

/* An agreed takeback: the journal loses its last nplies rows too. */
static int hook_undo(void *ud, const struct game *g, int nplies)
{
	struct journal *jn = ud;
	for (int i = 0; i < nplies; i++) {
		int r = store_move_remove_last(jn->db, (int64_t)g->id);
		if (r < 0) {
			char what[64];
			snprintf(what, sizeof what, "game %" PRIu64 " takeback", g->id);
			log_store(jn, what, r);
			return -1;
		}
	}
	return 0;
}

/* A rating as stored, grown for the days since its last game (glicko.h). */
static void rating_load(struct journal *jn, const char *name, const char *kind, int64_t now,
                        struct store_rating *r, struct glicko *gl)
{
	if (store_rating_get(jn->db, name, kind, r) < 0)
		store_rating_default(r);
	gl->rating = r->rating;
	gl->rd = r->rd;
	gl->vol = r->volatility;
	if (r->updated > 0 && now > r->updated)
		glicko_decay(gl, (double)(now - r->updated) / (double)GLICKO_IDLE_PERIOD_MS, gl);
}

static bool aborted_reason(const char *reason)
{
	return strcmp(reason, "abort") == 0 || strcmp(reason, "aborted") == 0;
}

static void hook_end(void *ud, const struct game *g)
{
	struct journal *jn = ud;
	journal_retry(jn);
	int64_t now = store_now_ms();
	struct store_finish f;
	memset(&f, 0, sizeof f);
	bool aborted = aborted_reason(g->reason);
	f.status = aborted ? STORE_ABORTED : STORE_FINISHED;
	f.result = g->score;
	f.winner = g->winner;
	f.reason = g->reason;
	f.ended = now;
	for (int i = 0; i < STORE_SEATS && i < g->ops->nplayers; i++)
		f.clock_ms[i] = g->so.timed ? g->left[i] : 0;
	/* rated: asked for by the seek, both seats accounts, and a real result */
	bool rate = g->so.rated && !aborted && g->ops->nplayers == 2;
	for (int i = 0; rate && i < 2; i++)
		rate = store_name_valid(g->pl[i].name) &&
		       store_account_exists(jn->db, g->pl[i].name, NULL) == 1;
	if (rate) {
		struct glicko a, b, na, nb;
		rating_load(jn, g->pl[0].name, g->ops->name, now, &f.rating[0], &a);
		rating_load(jn, g->pl[1].name, g->ops->name, now, &f.rating[1], &b);
		double score = g->winner == 0 ? 1.0 : g->winner == 1 ? 0.0 : 0.5;
		glicko_game(&a, &b, score, GLICKO_TAU, &na, &nb);
		const struct glicko *n[2] = {&na, &nb};
		for (int i = 0; i < 2; i++) {
			f.rate[i] = true;
			f.rating[i].rating = n[i]->rating;
			f.rating[i].rd = n[i]->rd;
			f.rating[i].volatility = n[i]->vol;
			f.rating[i].games++;
			f.rating[i].updated = now;
		}
	}
	int r = store_game_finish(jn->db, (int64_t)g->id, &f);
	if (r < 0) {
		char what[64];
		snprintf(what, sizeof what, "game %" PRIu64 " finish", g->id);
		log_store(jn, what, r);
		finish_later(jn, (int64_t)g->id, &f);
	}
}

/* ---- open, close ------------------------------------------------------------------- */

void journal_init(struct journal *jn, struct store *db, struct sessions *s)
{
	memset(jn, 0, sizeof *jn);
	jn->db = db;
	jn->sess = s;
	struct session_hooks h = {.ud = jn,
	                          .on_start = hook_start,
	                          .on_move = hook_move,
	                          .on_end = hook_end,
	                          .on_undo = hook_undo};
	sessions_set_hooks(s, &h);
}

void journal_close(struct journal *jn)
{
	if (jn->sess != NULL && jn->sess->hooks.ud == jn)
		sessions_set_hooks(jn->sess, NULL);
	if (jn->db != NULL)
		journal_retry(jn);
	while (jn->unfinished != NULL) {
		struct unfinished *u = jn->unfinished;
		log_error("game %" PRId64 " ended but its end is not stored", u->id);
		jn->unfinished = u->next;
		free(u);
	}
	jn->db = NULL;
}

/* ---- recovery ---------------------------------------------------------------------- */

int journal_seek_opts(const struct game_ops *ops, const struct store_game *sg, struct seek_opts *so)
{
	char buf[STORE_OPTIONS_MAX];
	char *argv[PROTO_MAX_ARGS];
	int argc = 0;
	snprintf(buf, sizeof buf, "%s", sg->options);
	for (char *save = NULL, *w = strtok_r(buf, " ", &save); w != NULL && argc < PROTO_MAX_ARGS;
	     w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	char why[160];
	if (seek_opts_parse(ops, argc, argv, so, why, sizeof why) < 0)
		return -1;
	so->timed = sg->time_base_ms > 0;
	so->base_ms = sg->time_base_ms;
	so->inc_ms = sg->time_inc_ms;
	so->rated = sg->rated;
	return 0;
}

/* Ends a stored game that cannot be played on (unknown kind, bad options). */
static void give_up(struct journal *jn, const struct store_game *sg, const char *why)
{
	log_error("game %" PRId64 " cannot be restored (%s); aborted", sg->id, why);
	struct store_finish f = {.status = STORE_ABORTED,
	                         .result = "",
	                         .winner = -1,
	                         .reason = "unrecoverable",
	                         .ended = store_now_ms()};
	for (int i = 0; i < STORE_SEATS; i++)
		f.clock_ms[i] = sg->clock_ms[i];
	int r = store_game_finish(jn->db, sg->id, &f);
	if (r < 0)
		log_store(jn, "abort", r);
}

/* Drops the journal rows from ply `from` on (they do not fit the game, or end a half turn). */
static void trim_journal(struct journal *jn, const struct store_game *sg, int from)
{
	for (int k = sg->plies; k > from; k--) {
		int r = store_move_remove_last(jn->db, sg->id);
		if (r < 0) {
			log_store(jn, "trim journal", r);
			return;
		}
	}
}

static bool restore_one(struct journal *jn, struct store_game *sg)
{
	const struct game_ops *ops = game_find(sg->kind);
	struct game_spec spec;
	memset(&spec, 0, sizeof spec);
	if (ops == NULL || ops->nplayers != STORE_SEATS) {
		give_up(jn, sg, "unknown game kind");
		return false;
	}
	if (journal_seek_opts(ops, sg, &spec.so) < 0) {
		give_up(jn, sg, "options");
		return false;
	}
	spec.ops = ops;
	spec.seed = sg->seed;
	spec.id = (uint64_t)sg->id;
	for (int i = 0; i < STORE_SEATS; i++) {
		spec.names[i] = sg->players[i];
		spec.registered[i] = !sg->guest[i];
	}
	struct move_rec *recs = calloc((size_t)sg->plies + 1, sizeof *recs);
	if (recs == NULL) {
		give_up(jn, sg, "out of memory");
		return false;
	}
	for (int k = 0; k < sg->plies; k++) {
		const struct store_move *m = &sg->moves[k];
		struct move_rec *r = &recs[k];
		r->ply = m->ply;
		r->seat = m->seat;
		r->act = game_act_of_text(m->text);
		r->ms_used = m->ms_used;
		r->at = m->at;
		snprintf(r->text, sizeof r->text, "%s", m->text);
		for (int i = 0; i < STORE_SEATS; i++)
			r->clock_ms[i] = m->clock_ms[i];
	}
	size_t kept = 0;
	struct game *g =
	        session_restore(jn->sess, &spec, sg->started, recs, (size_t)sg->plies, &kept);
	free(recs);
	if (g == NULL) {
		give_up(jn, sg, "out of memory");
		return false;
	}
	if (kept < (size_t)sg->plies)
		trim_journal(jn, sg, (int)kept);
	session_restart(g);
	return true;
}

int journal_recover(struct journal *jn)
{
	struct store_game *v = NULL;
	size_t n = 0;
	int r = store_games_in_progress(jn->db, &v, &n);
	if (r < 0) {
		log_store(jn, "recovery", r);
		return r;
	}
	int restored = 0;
	for (size_t i = 0; i < n; i++)
		restored += restore_one(jn, &v[i]);
	store_games_free(v, n);
	return restored;
}
