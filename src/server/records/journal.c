/*
 * journal.c - the game journal (see journal.h): the session hooks that queue
 * every game to the writer thread (its start under an id reserved ahead,
 * with its guest seats' token hashes, every move, a takeback, the end with
 * Glicko-2 ratings computed on the writer thread), the barrier raised to
 * each record's number, what the writer reports (durable: held output goes
 * out; failing: the games told, new writes refused; working again), and the
 * recovery of the games in progress at start (a guest seat keeps its token
 * hash: it comes back only with its token).
 */
#include "server/records/journal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/game_replay.h"
#include "server/play/session_clock.h"
#include "server/play/session_watch.h"
#include "server/util/glicko.h"

_Static_assert(STORE_TOKEN_HASH == SESSION_TOKEN_HASH, "a seat's token hash fits the store's");

void journal_log_failure(const char *what, int r, const char *why)
{
	/* always logged: a storage failure is worth an operator's attention */
	log_error("storage failed what=%s err=%s why=%s", LOG_Q(what), LOG_Q(store_strerror(r)),
	          LOG_Q(why ? why : ""));
}

bool journal_failing(const struct journal *jn, const char **why)
{
	if (why != NULL)
		*why = jn->failing ? jn->fail_why : "";
	return jn->failing;
}

/* ---- hooks: records queued ------------------------------------------------------------ */

/* Queues r and makes the output of this event wait for it. */
static void queue(struct journal *jn, struct store_rec *r)
{
	client_barrier_need(jn->bar, store_writer_queue(jn->w, r));
}

/* The options as stored: the engine's words, plus turn_ms/strict for simultaneous games and
   an engine match's adjudication when on. */
static void options_text(const struct game *g, char *buf, size_t len)
{
	const struct seek_opts *so = session_opts(g);
	if (game_params_text(session_ops(g), &so->params, false, buf, len) < 0)
		buf[0] = '\0';
	for (int k = 0; k < 2; k++) {
		int v = k ? so->repetition : so->max_plies;
		size_t n = strlen(buf);
		if (v > 0 && n < len)
			snprintf(buf + n, len - n, "%s%s=%d", n ? " " : "",
			         k ? "repetition" : "max_plies", v);
	}
	if (session_simultaneous(g)) {
		size_t n = strlen(buf);
		n += (size_t)snprintf(buf + n, len - n, "%sturn_ms=%" PRId64 " strict=%d",
		                      n ? " " : "", so->turn_ms, so->strict ? 1 : 0);
		if (so->first_turn_ms > 0 && n < len)
			snprintf(buf + n, len - n, " first_turn_ms=%" PRId64, so->first_turn_ms);
	}
}

static int hook_start(void *ud, const struct game *g, uint64_t *id)
{
	struct journal *jn = ud;
	uint64_t nid = *id; /* reserved ahead, or 0: reserved now */
	int r = nid == 0 ? journal_game_id(jn, &nid) : jn->failing ? jn->fail_err : STORE_OK;
	struct store_rec *rec = r == STORE_OK ? store_writer_rec(jn->w, STORE_REC_GAME) : NULL;
	if (rec == NULL) {
		journal_log_failure("game begin", r ? r : STORE_ENOMEM,
		                    jn->failing ? jn->fail_why : "");
		return -1;
	}
	struct store_game *sg = &rec->u.game;
	const struct game_ops *ops = session_ops(g);
	const struct seek_opts *so = session_opts(g);
	rec->game = (int64_t)nid;
	snprintf(sg->kind, sizeof sg->kind, "%s", ops->name);
	options_text(g, sg->options, sizeof sg->options);
	sg->seed = session_seed(g);
	for (int i = 0; i < STORE_SEATS && i < ops->nplayers; i++) {
		const struct player *p = session_seat(g, i);
		snprintf(sg->players[i], sizeof sg->players[i], "%s", p->name);
		sg->guest[i] = !p->registered;
		if (sg->guest[i]) /* the hash, never the token */
			snprintf(sg->token_hash[i], sizeof sg->token_hash[i], "%s", p->token_hash);
	}
	sg->rated = so->rated;
	if (so->timed) {
		sg->time_base_ms = so->base_ms;
		sg->time_inc_ms = so->inc_ms;
	}
	sg->started = session_started_at(g);
	queue(jn, rec);
	*id = nid;
	return 0;
}

static int hook_move(void *ud, const struct game *g, const struct move_rec *m)
{
	struct journal *jn = ud;
	/* a move can be refused while the store fails; a turn whose time is up cannot */
	if (jn->failing && !session_simultaneous(g))
		return -1;
	struct store_rec *rec = store_writer_rec(jn->w, STORE_REC_MOVE);
	if (rec == NULL)
		return -1;
	struct store_move *sm = &rec->u.move;
	rec->game = (int64_t)session_id(g);
	sm->ply = m->ply;
	sm->seat = m->seat;
	if (m->act == GAME_ACT_MOVE)
		snprintf(sm->text, sizeof sm->text, "%s", m->text);
	else if (m->act == GAME_ACT_INVALID)
		snprintf(sm->text, sizeof sm->text, "%s", STORE_INVALID_ACTION);
	sm->ms_used = m->ms_used;
	for (int i = 0; i < STORE_SEATS; i++)
		sm->clock_ms[i] = m->clock_ms[i];
	sm->at = m->at;
	queue(jn, rec);
	return 0;
}

/* An agreed takeback: the journal loses its last nplies rows too (g's moves still have them). */
static int hook_undo(void *ud, const struct game *g, int nplies)
{
	struct journal *jn = ud;
	if (jn->failing)
		return -1;
	struct store_rec *rec = store_writer_rec(jn->w, STORE_REC_TAKEBACK);
	if (rec == NULL)
		return -1;
	size_t nmoves;
	session_moves(g, &nmoves);
	rec->game = (int64_t)session_id(g);
	rec->u.takeback.plies = (int)nmoves;
	rec->u.takeback.from = (int)nmoves - nplies;
	queue(jn, rec);
	return 0;
}

static bool aborted_reason(const char *reason)
{
	return strcmp(reason, "abort") == 0 || strcmp(reason, "aborted") == 0;
}

/* An end cannot be refused: it is queued even while the store fails, and waits. */
static void hook_end(void *ud, const struct game *g)
{
	struct journal *jn = ud;
	struct store_rec *rec = store_writer_rec(jn->w, STORE_REC_FINISH);
	if (rec == NULL) {
		log_error("game end not stored game=%" PRIu64 " why=\"out of memory\"",
		          session_id(g));
		return;
	}
	struct store_rec_finish *fin = &rec->u.finish;
	const struct game_ops *ops = session_ops(g);
	const struct seek_opts *so = session_opts(g);
	struct session_result res = session_result(g);
	int64_t left[GAME_MAX_PLAYERS]; /* as they stopped */
	session_clock_left(g, left);
	bool aborted = aborted_reason(res.reason);
	rec->game = (int64_t)session_id(g);
	fin->f.status = aborted ? STORE_ABORTED : STORE_FINISHED;
	snprintf(fin->result, sizeof fin->result, "%s", res.score);
	snprintf(fin->reason, sizeof fin->reason, "%s", res.reason);
	fin->f.winner = res.winner;
	fin->f.ended = wall_ms();
	for (int i = 0; i < STORE_SEATS && i < ops->nplayers; i++) {
		fin->f.clock_ms[i] = so->timed ? left[i] : 0;
		snprintf(fin->players[i], sizeof fin->players[i], "%s", session_seat(g, i)->name);
	}
	snprintf(fin->kind, sizeof fin->kind, "%s", ops->name);
	/* rated: asked for by the seek, both seats accounts, and a real result; the writer
	 * reads both ratings in the batch and computes the new ones (rate, below) */
	fin->rate = so->rated && !aborted && ops->nplayers == 2 && session_seat(g, 0)->registered &&
	            session_seat(g, 1)->registered;
	fin->score = res.winner == 0 ? 1.0 : res.winner == 1 ? 0.0 : 0.5;
	queue(jn, rec);
	/* the news goes up after the end is queued: what it writes is queued behind it */
	for (int i = 0; i < JOURNAL_END_LISTENERS; i++)
		if (jn->on_end[i] != NULL)
			jn->on_end[i](jn->end_ud[i], g);
}

/*
 * The writer thread's rating of an end (store_writer.h): each rating as
 * stored, grown for the days since its last game (glicko.h), then one
 * Glicko-2 period with this game. Pure.
 */
static void rate(void *ud, const struct store_rec_finish *fin,
                 const struct store_rating cur[STORE_SEATS], struct store_rating out[STORE_SEATS])
{
	(void)ud;
	int64_t now = fin->f.ended;
	struct glicko in[2], res[2];
	for (int i = 0; i < 2; i++) {
		in[i].rating = cur[i].rating;
		in[i].rd = cur[i].rd;
		in[i].vol = cur[i].volatility;
		if (cur[i].updated > 0 && now > cur[i].updated)
			glicko_decay(&in[i],
			             (double)(now - cur[i].updated) / (double)GLICKO_IDLE_PERIOD_MS,
			             &in[i]);
	}
	glicko_game(&in[0], &in[1], fin->score, GLICKO_TAU, &res[0], &res[1]);
	for (int i = 0; i < 2; i++) {
		out[i].rating = res[i].rating;
		out[i].rd = res[i].rd;
		out[i].volatility = res[i].vol;
		out[i].games = cur[i].games + 1;
		out[i].updated = now;
	}
}

int journal_add_account(struct journal *jn, const char *name, const char *hash, bool bot, void *ud)
{
	if (jn->w == NULL)
		return STORE_EINVAL;
	if (jn->failing)
		return jn->fail_err;
	struct store_rec *rec = store_writer_rec(jn->w, STORE_REC_ACCOUNT);
	if (rec == NULL)
		return STORE_ENOMEM;
	snprintf(rec->u.account.name, sizeof rec->u.account.name, "%s", name);
	snprintf(rec->u.account.hash, sizeof rec->u.account.hash, "%s", hash);
	rec->u.account.created = wall_ms();
	rec->u.account.bot = bot;
	rec->ud = ud;
	store_writer_queue(jn->w, rec);
	return STORE_OK;
}

int journal_add_prefs(struct journal *jn, const char *name, const struct store_prefs *p, void *ud)
{
	if (jn->w == NULL)
		return STORE_EINVAL;
	if (jn->failing)
		return jn->fail_err;
	struct store_rec *rec = store_writer_rec(jn->w, STORE_REC_PREFS);
	if (rec == NULL)
		return STORE_ENOMEM;
	snprintf(rec->u.prefs.name, sizeof rec->u.prefs.name, "%s", name);
	rec->u.prefs.p = *p;
	rec->ud = ud;
	store_writer_queue(jn->w, rec);
	return STORE_OK;
}

int journal_add_mod(struct journal *jn, const struct store_mod *m)
{
	if (jn->w == NULL)
		return STORE_EINVAL;
	if (jn->failing)
		return jn->fail_err;
	struct store_rec *rec = store_writer_rec(jn->w, STORE_REC_MOD);
	if (rec == NULL)
		return STORE_ENOMEM;
	rec->u.mod = *m;
	queue(jn, rec); /* what the command sends from now on (the admin's ok) waits for it */
	return STORE_OK;
}

/* ---- what the writer reports ------------------------------------------------------------- */

/* One notice to g's players and spectators, ahead of what they have held. */
static void tell_game(struct journal *jn, uint64_t id, const char *event, enum err_code code,
                      const char *sentence)
{
	struct game *g = session_find(jn->sess, id);
	if (g == NULL)
		return;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "info");
	cJSON_AddStringToObject(j, "event", event);
	cJSON_AddNumberToObject(j, "game", (double)id);
	cJSON_AddStringToObject(j, "code", err_name(code));
	cJSON_AddStringToObject(j, "message", sentence);
	session_watch_notify(
	        g, j, xasprintf("info %s: game %" PRIu64 ": %s", err_name(code), id, sentence));
}

static bool told(const struct journal *jn, uint64_t id)
{
	for (size_t i = 0; i < jn->ntold; i++)
		if (jn->told[i] == id)
			return true;
	return false;
}

/* A batch failed and will be tried again: the failure begins (logged), its games are told. */
static void batch_failing(struct journal *jn, const struct store_batch *b)
{
	jn->fail_batches++;
	if (!jn->failing) {
		jn->failing = true;
		jn->fail_err = b->err;
		snprintf(jn->fail_why, sizeof jn->fail_why, "%s", b->why);
		/* meanwhile new moves, games and accounts are refused and clocks stop */
		log_error("storage failing, the journal waits err=%s why=%s retry_ms=%d",
		          LOG_Q(store_strerror(b->err)), LOG_Q(b->why), JOURNAL_RETRY_MS);
		sessions_pause(jn->sess, true);
		client_barrier_stuck(jn->bar, true); /* pings, chat and reads go on (§10) */
	}
	char *sentence = xasprintf("the server cannot store this game right now (%s); what "
	                           "happened since its last stored move is told once it is "
	                           "stored; meanwhile new moves are refused and the clocks "
	                           "stand still",
	                           store_strerror(b->err));
	for (const struct store_rec *r = b->recs; r != NULL; r = r->next) {
		uint64_t id = (uint64_t)r->game;
		if (r->type == STORE_REC_ACCOUNT || r->type == STORE_REC_TOURNEY ||
		    r->type == STORE_REC_MOD || r->type == STORE_REC_PREFS ||
		    r->type == STORE_REC_LADDER || told(jn, id))
			continue;
		if (jn->ntold == jn->cap_told) {
			size_t cap = jn->cap_told ? 2 * jn->cap_told : 16;
			uint64_t *t = realloc(jn->told, cap * sizeof *t);
			if (t == NULL)
				break;
			jn->told = t;
			jn->cap_told = cap;
		}
		jn->told[jn->ntold++] = id;
		tell_game(jn, id, "store_failing", ERR_STORE_FAILING, sentence ? sentence : "");
	}
	free(sentence);
}

/* A batch committed after a failure: the failure ends, the games told are told. */
static void failure_over(struct journal *jn)
{
	log_error("storage works again failed_batches=%" PRIu64, jn->fail_batches);
	for (size_t i = 0; i < jn->ntold; i++)
		tell_game(jn, jn->told[i], "store_ok", ERR_STORE_OK,
		          "the server stores this game again; what waited follows");
	sessions_pause(jn->sess, false);
	client_barrier_stuck(jn->bar, false);
	jn->failing = false;
	jn->fail_err = STORE_OK;
	jn->fail_why[0] = '\0';
	jn->fail_batches = 0;
	jn->ntold = 0;
}

/* What a record is, for the log. */
static void rec_what(const struct store_rec *r, char *buf, size_t len)
{
	switch (r->type) {
	case STORE_REC_GAME:
		snprintf(buf, len, "game %" PRId64 " begin", r->game);
		break;
	case STORE_REC_MOVE:
		snprintf(buf, len, "game %" PRId64 " ply %d", r->game, r->u.move.ply);
		break;
	case STORE_REC_TAKEBACK:
		snprintf(buf, len, "game %" PRId64 " takeback", r->game);
		break;
	case STORE_REC_FINISH:
		snprintf(buf, len, "game %" PRId64 " end", r->game);
		break;
	case STORE_REC_ACCOUNT:
		snprintf(buf, len, "account %s", r->u.account.name);
		break;
	case STORE_REC_TOURNEY:
		snprintf(buf, len, "tournament %" PRId64, r->game);
		break;
	case STORE_REC_MOD:
		snprintf(buf, len, "moderation %.15s %.30s", r->u.mod.action, r->u.mod.target);
		break;
	case STORE_REC_PREFS:
		snprintf(buf, len, "preferences of %s", r->u.prefs.name);
		break;
	case STORE_REC_LADDER:
		snprintf(buf, len, "ladder %" PRId64, r->game);
		break;
	}
}

/* A game's record (not an account's, a tournament's or a moderation change) the store refused. */
static bool refused_game_rec(const struct store_rec *r)
{
	return r->type != STORE_REC_ACCOUNT && r->type != STORE_REC_TOURNEY &&
	       r->type != STORE_REC_MOD && r->type != STORE_REC_PREFS &&
	       r->type != STORE_REC_LADDER && r->err != STORE_OK;
}

/* The records of a committed batch the store refused: what waited for each is dropped (or
 * gives way to its refusal), then each one's game is told lost (on_lost). */
static void refused(struct journal *jn, const struct store_batch *b)
{
	for (const struct store_rec *r = b->recs; r != NULL; r = r->next)
		if (refused_game_rec(r))
			client_barrier_refused(jn->bar, r->seq);
	for (const struct store_rec *r = b->recs; r != NULL && jn->on_lost != NULL; r = r->next)
		if (refused_game_rec(r))
			jn->on_lost(jn->lost_ud, (uint64_t)r->game);
}

/* What a transaction's report tells the metrics: the writer's clock, read on the loop. */
static void count_batch(struct journal_metrics *m, const struct store_batch *b, bool synced)
{
	if (b->err != STORE_OK) {
		metric_inc(&m->failures);
		return;
	}
	metric_inc(&m->batches);
	metric_add(&m->records, (int64_t)b->n);
	metric_observe(&m->size, (double)b->n);
	metric_observe(&m->wait, (double)b->wait_ns / 1e9);
	if (synced)
		metric_observe(&m->sync, (double)b->commit_ns / 1e9);
}

static void on_batch(void *ud, const struct store_batch *b)
{
	struct journal *jn = ud;
	count_batch(&jn->met, b, b->synced);
	if (b->retrying) {
		batch_failing(jn, b);
		return;
	}
	if (b->err == STORE_OK && jn->failing)
		failure_over(jn);
	for (const struct store_rec *r = b->recs; r != NULL; r = r->next) {
		if ((r->type == STORE_REC_ACCOUNT || r->type == STORE_REC_PREFS) &&
		    jn->on_account != NULL)
			jn->on_account(jn->acct_ud, r);
		else if (r->err != STORE_OK) { /* dropped at shutdown, or the store disagrees */
			char what[64];
			rec_what(r, what, sizeof what);
			journal_log_failure(what, r->err, b->err != STORE_OK ? b->why : "refused");
		}
	}
	/* what waited for these records goes out (a failed batch is one dropped at shutdown:
	 * its output is dropped with the clients); never what waited for a record the store
	 * refused: nothing is told that is not stored, and the game's copy here is not the
	 * store's (a cluster node that lost it: on_lost, before anyone is answered) */
	if (b->err == STORE_OK) {
		refused(jn, b);
		client_barrier_durable(jn->bar, b->last);
		session_journal_released(jn->sess, b->last);
	}
}

static void on_sync(void *ud, uint64_t upto, int err, const char *why, uint64_t ns)
{
	struct journal *jn = ud;
	if (err == STORE_OK)
		metric_observe(&jn->met.sync, (double)ns / 1e9);
	else
		metric_inc(&jn->met.failures);
	if (err != STORE_OK)
		log_error("journal fsync failed upto=%" PRIu64 " err=%s why=%s", upto,
		          LOG_Q(store_strerror(err)), LOG_Q(why));
}

/* ---- open, close ---------------------------------------------------------------------- */

/* Seconds: 100 us to 10 s (an fsync on an SSD takes tens of microseconds to milliseconds, on
   a disk or a busy network volume tens of milliseconds and more). */
static const double seconds_le[] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                    0.05,   0.1,     0.25,   0.5,   1,      2.5,   5,    10};
/* Records per transaction: powers of two up to STORE_WRITER_MAX_BATCH. */
static const double records_le[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192};

static void metrics_setup(struct journal_metrics *m)
{
	metric_init(&m->batches, METRIC_COUNTER, "bitarena_journal_batches_total",
	            "the journal's transactions committed (group commit: each holds every write "
	            "queued while the one before it ran)");
	metric_init(&m->records, METRIC_COUNTER, "bitarena_journal_records_total",
	            "records committed: games begun and ended, moves, takebacks, accounts, "
	            "tournaments, moderation");
	metric_init(&m->failures, METRIC_COUNTER, "bitarena_store_failures_total",
	            "the journal's transactions and fsyncs the store failed (each try of a batch "
	            "retried)");
	metric_histogram_init(&m->size, "bitarena_journal_batch_records",
	                      "records per committed transaction", records_le,
	                      sizeof records_le / sizeof records_le[0]);
	metric_histogram_init(
	        &m->wait, "bitarena_journal_commit_seconds",
	        "from the oldest record of a transaction queued to its commit: what a "
	        "move waits to be durable before its reply goes out",
	        seconds_le, sizeof seconds_le / sizeof seconds_le[0]);
	metric_histogram_init(&m->sync, "bitarena_journal_fsync_seconds",
	                      "the fsync: the commit of a transaction under --fsync always (SQLite "
	                      "and PostgreSQL sync in their commit), the fsync under batch=MS",
	                      seconds_le, sizeof seconds_le / sizeof seconds_le[0]);
}

void journal_register_metrics(struct journal *jn, struct metrics *r)
{
	struct journal_metrics *m = &jn->met;
	metrics_register(r, &m->batches);
	metrics_register(r, &m->records);
	metrics_register(r, &m->failures);
	metrics_register(r, &m->size.m);
	metrics_register(r, &m->wait.m);
	metrics_register(r, &m->sync.m);
}

int journal_open(struct journal *jn, uv_loop_t *loop, struct store *db,
                 const struct store_options *o, const struct store_fsync *fsync, struct sessions *s,
                 struct client_barrier *bar)
{
	memset(jn, 0, sizeof *jn);
	metrics_setup(&jn->met);
	jn->sess = s;
	jn->bar = bar;
	jn->opts = *o;
	snprintf(jn->dir, sizeof jn->dir, "%s", o->dir ? o->dir : "");
	snprintf(jn->conninfo, sizeof jn->conninfo, "%s", o->conninfo ? o->conninfo : "");
	jn->opts.dir = o->dir ? jn->dir : NULL;
	jn->opts.conninfo = o->conninfo ? jn->conninfo : NULL;
	struct store_writer_config cfg = {.fsync = *fsync,
	                                  .retry_ms = JOURNAL_RETRY_MS,
	                                  .ud = jn,
	                                  .on_batch = on_batch,
	                                  .on_sync = on_sync,
	                                  .rate = rate};
	int r = store_writer_start(loop, db, &cfg, &jn->w);
	if (r < 0) {
		log_error("journal cannot start err=%s", LOG_Q(store_strerror(r)));
		return r;
	}
	struct session_hooks h = {.ud = jn,
	                          .on_start = hook_start,
	                          .on_move = hook_move,
	                          .on_end = hook_end,
	                          .on_undo = hook_undo};
	sessions_set_hooks(s, &h);
	return 0;
}

void journal_close(struct journal *jn)
{
	if (jn->w == NULL)
		return;
	if (jn->sess != NULL && jn->sess->hooks.ud == jn)
		sessions_set_hooks(jn->sess, NULL);
	store_writer_stop(jn->w);
	jn->w = NULL;
	free(jn->told);
	jn->told = NULL;
	jn->ntold = jn->cap_told = 0;
}

/* ---- tournaments -------------------------------------------------------------------- */

void journal_set_on_end(struct journal *jn, void (*on_end)(void *ud, const struct game *g),
                        void *ud)
{
	for (int i = 0; i < JOURNAL_END_LISTENERS; i++)
		if (on_end == NULL ? jn->end_ud[i] == ud : jn->on_end[i] == NULL) {
			jn->on_end[i] = on_end;
			jn->end_ud[i] = on_end == NULL ? NULL : ud;
			if (on_end != NULL)
				return;
		}
}

/* Queues a document (a tournament's, a ladder's) as a record of type t. */
static int doc_put(struct journal *jn, enum store_rec_type t, int64_t id, const char *state,
                   char *doc)
{
	struct store_rec *rec = jn->w != NULL ? store_writer_rec(jn->w, t) : NULL;
	if (rec == NULL) {
		free(doc);
		return STORE_ENOMEM;
	}
	rec->game = id;
	snprintf(rec->u.tourney.state, sizeof rec->u.tourney.state, "%s", state);
	rec->u.tourney.doc = doc;
	rec->u.tourney.at = wall_ms();
	queue(jn, rec);
	return STORE_OK;
}

int journal_game_id(struct journal *jn, uint64_t *id)
{
	*id = 0;
	if (jn->w == NULL)
		return STORE_OK;
	if (jn->failing)
		return jn->fail_err;
	int64_t nid;
	int r = store_writer_game_id(jn->w, &nid);
	if (r == STORE_OK)
		*id = (uint64_t)nid;
	return r;
}

int journal_tourney_put(struct journal *jn, int64_t id, const char *state, char *doc)
{
	return doc_put(jn, STORE_REC_TOURNEY, id, state, doc);
}

int journal_ladder_put(struct journal *jn, int64_t id, const char *state, char *doc)
{
	return doc_put(jn, STORE_REC_LADDER, id, state, doc);
}

/* A connection of recovery's own, that only reads (before the server listens). */
static int open_reader(struct journal *jn, struct store **db)
{
	struct store_options ro = jn->opts;
	ro.reader = true;
	*db = NULL;
	return store_open_opts(&ro, db);
}

/* The stored tournaments not over, or (ladders) every ladder. */
static int docs_open(struct journal *jn, bool ladders, struct store_tourney **out, size_t *n,
                     int64_t *max_id)
{
	*out = NULL;
	*n = 0;
	*max_id = 0;
	if (jn->w == NULL)
		return 0;
	struct store *db;
	int r = open_reader(jn, &db);
	if (r == STORE_OK)
		r = ladders ? store_ladders_open(db, out, n, max_id)
		            : store_tourneys_open(db, out, n, max_id);
	if (r < 0)
		journal_log_failure(ladders ? "ladders" : "tournaments", r,
		                    db ? store_last_error(db) : "");
	store_close(db);
	return r;
}

int journal_tourneys_open(struct journal *jn, struct store_tourney **out, size_t *n,
                          int64_t *max_id)
{
	return docs_open(jn, false, out, n, max_id);
}

int journal_ladders_open(struct journal *jn, struct store_tourney **out, size_t *n, int64_t *max_id)
{
	return docs_open(jn, true, out, n, max_id);
}

int journal_game_read(struct journal *jn, int64_t id, struct store_game *out)
{
	memset(out, 0, sizeof *out);
	if (jn->w == NULL)
		return STORE_ENOTFOUND;
	struct store *db;
	int r = open_reader(jn, &db);
	if (r == STORE_OK)
		r = store_game_fetch(db, id, out);
	store_close(db);
	return r;
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
	log_error("game not restored, aborted game=%" PRId64 " why=%s", sg->id, LOG_Q(why));
	struct store_rec *rec = store_writer_rec(jn->w, STORE_REC_FINISH);
	if (rec == NULL)
		return;
	rec->game = sg->id;
	rec->u.finish.f.status = STORE_ABORTED;
	rec->u.finish.f.winner = -1;
	rec->u.finish.f.ended = wall_ms();
	snprintf(rec->u.finish.reason, sizeof rec->u.finish.reason, "unrecoverable");
	for (int i = 0; i < STORE_SEATS; i++)
		rec->u.finish.f.clock_ms[i] = sg->clock_ms[i];
	queue(jn, rec);
}

/* Drops the journal rows from ply `from` on (they do not fit the game, or end a half turn). */
static void trim_journal(struct journal *jn, const struct store_game *sg, int from)
{
	struct store_rec *rec = store_writer_rec(jn->w, STORE_REC_TAKEBACK);
	if (rec == NULL)
		return;
	rec->game = sg->id;
	rec->u.takeback.from = from;
	rec->u.takeback.plies = sg->plies;
	queue(jn, rec);
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
		if (sg->guest[i] && sg->token_hash[i][0] != '\0') /* its seat wants its token */
			spec.token_hashes[i] = sg->token_hash[i];
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
	if (jn->w == NULL)
		return 0;
	struct store *db;
	int r = open_reader(jn, &db);
	struct store_game *v = NULL;
	size_t n = 0;
	if (r == STORE_OK)
		r = store_games_in_progress(db, &v, &n);
	if (r < 0) {
		journal_log_failure("recovery", r, db ? store_last_error(db) : "");
		store_close(db);
		return r;
	}
	store_close(db);
	int restored = 0;
	for (size_t i = 0; i < n; i++)
		restored += restore_one(jn, &v[i]);
	store_games_free(v, n);
	journal_settle(jn, true);
	return restored;
}

bool journal_restore(struct journal *jn, struct store_game *sg)
{
	return jn->w != NULL && restore_one(jn, sg);
}

void journal_settle(struct journal *jn, bool wait)
{
	if (jn->w == NULL)
		return;
	/* before anyone connects, what recovery wrote (ends, trimmed rows) is durable */
	if (wait)
		store_writer_flush(jn->w);
	client_barrier_clear(jn->bar);
}
