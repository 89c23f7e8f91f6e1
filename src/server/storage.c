/*
 * storage.c - the server's storage glue (see storage.h): opening the store,
 * the session hooks that journal games (begin, every move before it is
 * announced, the end with ratings), recovery of games in progress after a
 * restart, and accounts: register and password login, whose Argon2id work
 * runs on a libuv worker while the connection's further input waits.
 */
#include "server/storage.h"

#include "server/glicko.h"
#include "server/ratelimit.h"
#include "server/session.h"

#include <inttypes.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void log_store(struct storage *st, const char *what, int r)
{
	/* always logged: a storage failure is worth an operator's attention */
	fprintf(stderr, "bitarenad: storage: %s: %s (%s)\n", what, store_strerror(r),
	        store_last_error(st->db));
}

/* ---- hooks: the journal ------------------------------------------------------------ */

/*
 * A game end the store could not write (disk full, locked, ...). Left alone, the game would
 * stay "in progress" in the store and come back at the next start, so it is kept (owned by
 * st->unfinished) and written again before every later write and at close.
 */
struct unfinished {
	struct unfinished *next;
	int64_t id;
	struct store_finish f; /* result and reason point into the buffers below */
	char result[STORE_RESULT_MAX];
	char reason[STORE_REASON_MAX];
};

static void finish_later(struct storage *st, int64_t id, const struct store_finish *f)
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
	u->next = st->unfinished;
	st->unfinished = u;
}

/* Writes the game ends that failed before; those that still fail stay. */
static void finish_retry(struct storage *st)
{
	struct unfinished **pp = &st->unfinished;
	while (*pp != NULL) {
		struct unfinished *u = *pp;
		int r = store_game_finish(st->db, u->id, &u->f);
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
	struct storage *st = ud;
	finish_retry(st);
	struct store_game sg;
	memset(&sg, 0, sizeof sg);
	snprintf(sg.kind, sizeof sg.kind, "%s", g->ops->name);
	options_text(g, sg.options, sizeof sg.options);
	sg.seed = g->seed;
	for (int i = 0; i < STORE_SEATS && i < g->ops->nplayers; i++) {
		snprintf(sg.players[i], sizeof sg.players[i], "%s", g->pl[i].name);
		sg.guest[i] = g->pl[i].c == NULL || !g->pl[i].c->registered;
	}
	sg.rated = g->so.rated;
	if (g->so.timed) {
		sg.time_base_ms = g->so.base_ms;
		sg.time_inc_ms = g->so.inc_ms;
	}
	sg.started = g->started_at;
	int64_t nid = 0;
	int r = store_game_begin(st->db, &sg, &nid);
	if (r < 0) {
		log_store(st, "game begin", r);
		return -1;
	}
	*id = (uint64_t)nid;
	return 0;
}

/* What a journalled text stands for (see struct store_move). */
static enum game_act journal_act(const char *text)
{
	if (text[0] == '\0')
		return GAME_ACT_NONE;
	return strcmp(text, STORE_INVALID_ACTION) == 0 ? GAME_ACT_INVALID : GAME_ACT_MOVE;
}

static int hook_move(void *ud, const struct game *g, const struct move_rec *m)
{
	struct storage *st = ud;
	finish_retry(st);
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
	int r = store_move_append(st->db, (int64_t)g->id, &sm);
	if (r < 0) {
		char what[64];
		snprintf(what, sizeof what, "game %" PRIu64 " ply %d", g->id, m->ply);
		log_store(st, what, r);
		return -1;
	}
	return 0;
}

/* An agreed takeback: the journal loses its last nplies rows too. */
static int hook_undo(void *ud, const struct game *g, int nplies)
{
	struct storage *st = ud;
	for (int i = 0; i < nplies; i++) {
		int r = store_move_remove_last(st->db, (int64_t)g->id);
		if (r < 0) {
			char what[64];
			snprintf(what, sizeof what, "game %" PRIu64 " takeback", g->id);
			log_store(st, what, r);
			return -1;
		}
	}
	return 0;
}

/* A rating as stored, grown for the days since its last game (glicko.h). */
static void rating_load(struct storage *st, const char *name, const char *kind, int64_t now,
                        struct store_rating *r, struct glicko *gl)
{
	if (store_rating_get(st->db, name, kind, r) < 0)
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
	struct storage *st = ud;
	finish_retry(st);
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
		rate = storage_is_account(g->srv, g->pl[i].name) == 1;
	if (rate) {
		struct glicko a, b, na, nb;
		rating_load(st, g->pl[0].name, g->ops->name, now, &f.rating[0], &a);
		rating_load(st, g->pl[1].name, g->ops->name, now, &f.rating[1], &b);
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
	int r = store_game_finish(st->db, (int64_t)g->id, &f);
	if (r < 0) {
		char what[64];
		snprintf(what, sizeof what, "game %" PRIu64 " finish", g->id);
		log_store(st, what, r);
		finish_later(st, (int64_t)g->id, &f);
	}
}

/* ---- open, close, recovery --------------------------------------------------------- */

int storage_open(struct server *s, const char *dir, bool fast_hash, struct storage **out)
{
	*out = NULL;
	struct storage *st = calloc(1, sizeof *st);
	if (st == NULL)
		return STORE_ENOMEM;
	st->srv = s;
	int r = store_open(dir, &st->db);
	if (r < 0) {
		fprintf(stderr, "bitarenad: cannot open the store in %s: %s\n", dir,
		        store_strerror(r));
		free(st);
		return r;
	}
	st->opslimit = fast_hash ? crypto_pwhash_OPSLIMIT_MIN : crypto_pwhash_OPSLIMIT_INTERACTIVE;
	st->memlimit = fast_hash ? crypto_pwhash_MEMLIMIT_MIN : crypto_pwhash_MEMLIMIT_INTERACTIVE;
	store_set_hash_cost(st->db, st->opslimit, st->memlimit);
	st->rl = ratelimit_new(RATELIMIT_MAX_FAILURES, RATELIMIT_WINDOW_MS, RATELIMIT_MAX_ENTRIES);
	/* a hash of a random password: unknown names are checked against it */
	unsigned char rnd[24];
	char pw[2 * sizeof rnd + 1];
	randombytes_buf(rnd, sizeof rnd);
	sodium_bin2hex(pw, sizeof pw, rnd, sizeof rnd);
	r = st->rl == NULL ? STORE_ENOMEM
	                   : store_password_hash(pw, st->opslimit, st->memlimit, st->dummy_hash);
	sodium_memzero(pw, sizeof pw);
	if (r < 0) {
		fprintf(stderr, "bitarenad: cannot set up accounts: %s\n", store_strerror(r));
		storage_close(st);
		return r;
	}
	struct session_hooks h = {.ud = st,
	                          .on_start = hook_start,
	                          .on_move = hook_move,
	                          .on_end = hook_end,
	                          .on_undo = hook_undo};
	server_set_hooks(s, &h);
	s->storage = st;
	*out = st;
	return 0;
}

void storage_close(struct storage *st)
{
	if (st == NULL)
		return;
	if (st->srv != NULL && st->srv->storage == st) {
		st->srv->storage = NULL;
		server_set_hooks(st->srv, NULL);
	}
	if (st->db != NULL)
		finish_retry(st);
	while (st->unfinished != NULL) {
		struct unfinished *u = st->unfinished;
		fprintf(stderr, "bitarenad: game %" PRId64 " ended but its end is not stored\n",
		        u->id);
		st->unfinished = u->next;
		free(u);
	}
	store_close(st->db);
	ratelimit_free(st->rl);
	free(st);
}

int storage_seek_opts(const struct game_ops *ops, const struct store_game *sg, struct seek_opts *so)
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
static void give_up(struct storage *st, const struct store_game *sg, const char *why)
{
	fprintf(stderr, "bitarenad: game %" PRId64 " cannot be restored (%s); aborted\n", sg->id,
	        why);
	struct store_finish f = {.status = STORE_ABORTED,
	                         .result = "",
	                         .winner = -1,
	                         .reason = "unrecoverable",
	                         .ended = store_now_ms()};
	for (int i = 0; i < STORE_SEATS; i++)
		f.clock_ms[i] = sg->clock_ms[i];
	int r = store_game_finish(st->db, sg->id, &f);
	if (r < 0)
		log_store(st, "abort", r);
}

/* Drops the journal rows from ply `from` on (they do not fit the game, or end a half turn). */
static void trim_journal(struct storage *st, const struct store_game *sg, int from)
{
	for (int k = sg->plies; k > from; k--) {
		int r = store_move_remove_last(st->db, sg->id);
		if (r < 0) {
			log_store(st, "trim journal", r);
			return;
		}
	}
}

static bool restore_one(struct storage *st, struct store_game *sg)
{
	struct server *s = st->srv;
	const struct game_ops *ops = game_find(sg->kind);
	struct game_spec spec;
	memset(&spec, 0, sizeof spec);
	if (ops == NULL || ops->nplayers != STORE_SEATS) {
		give_up(st, sg, "unknown game kind");
		return false;
	}
	if (storage_seek_opts(ops, sg, &spec.so) < 0) {
		give_up(st, sg, "options");
		return false;
	}
	spec.ops = ops;
	spec.seed = sg->seed;
	spec.id = (uint64_t)sg->id;
	for (int i = 0; i < STORE_SEATS; i++)
		spec.names[i] = sg->players[i];
	struct game *g = session_create(s, &spec);
	if (g == NULL) {
		give_up(st, sg, "out of memory");
		return false;
	}
	g->started_at = sg->started;
	int done = 0;
	for (; done < sg->plies; done++) {
		const struct store_move *m = &sg->moves[done];
		struct move_rec rec = {.ply = m->ply,
		                       .turn = g->ply,
		                       .seat = m->seat,
		                       .act = journal_act(m->text),
		                       .ms_used = m->ms_used,
		                       .at = m->at};
		snprintf(rec.text, sizeof rec.text, "%s", m->text);
		for (int i = 0; i < STORE_SEATS; i++)
			rec.clock_ms[i] = m->clock_ms[i];
		int r = session_replay(g, &rec);
		if (r < 0) {
			fprintf(stderr, "bitarenad: game %" PRId64 " ply %d does not replay (%s)\n",
			        sg->id, m->ply, game_strerror(r));
			break;
		}
	}
	/* a simultaneous turn cut by the crash was never announced: it is played again */
	int half = 0;
	for (int i = 0; i < STORE_SEATS; i++)
		half += g->acted[i];
	if (half > 0) {
		memset(g->acted, 0, sizeof g->acted);
		g->nmoves -= (size_t)half;
		done -= half;
	}
	if (done < sg->plies)
		trim_journal(st, sg, done);
	/* states go on numbering where they stopped: the start was 1, each ply or turn one more */
	g->seq = (uint64_t)g->ply;
	/* the downtime is nobody's: the mover's clock waits until the mover is back */
	g->clock_held = g->so.timed && !(ops->flags & GAME_SIMULTANEOUS);
	session_begin(g);
	log_info("game %" PRIu64 " restored at ply %d", g->id, g->ply);
	/* the crash came between the last move and the end being written */
	struct game_result res;
	memset(&res, 0, sizeof res);
	ops->result(g->st, &res);
	if (res.over && !g->over)
		session_end(g, res.winner,
		            res.score[0]      ? res.score
		            : res.winner == 0 ? "1-0"
		            : res.winner == 1 ? "0-1"
		                              : "1/2-1/2",
		            res.reason ? res.reason : "over");
	return true;
}

int storage_recover(struct storage *st)
{
	struct store_game *v = NULL;
	size_t n = 0;
	int r = store_games_in_progress(st->db, &v, &n);
	if (r < 0) {
		log_store(st, "recovery", r);
		return r;
	}
	int restored = 0;
	for (size_t i = 0; i < n; i++)
		restored += restore_one(st, &v[i]);
	store_games_free(v, n);
	return restored;
}

/* ---- accounts ---------------------------------------------------------------------- */

int storage_is_account(struct server *s, const char *name)
{
	if (s->storage == NULL || !store_name_valid(name))
		return 0;
	return store_account_exists(s->storage->db, name, NULL);
}

void storage_conn_gone(struct client *c)
{
	if (c->srv->storage != NULL)
		replay_conn_gone(c->srv->storage, c);
}

/* One Argon2id job: hashing a new password, or checking one against a hash. */
struct auth_job {
	uv_work_t req;
	struct storage *st;
	uint64_t conn_id;
	struct proto_req rq; /* tag and verb only (argv cleared) */
	bool reg;            /* register (hash) or login (check) */
	bool known;          /* login: the name is an account */
	char name[STORE_NAME_MAX + 1];
	char password[STORE_PASS_MAX + 1]; /* wiped once used */
	char hash[STORE_HASH_MAX];
	int result;
};

static void auth_work(uv_work_t *req)
{
	struct auth_job *j = req->data;
	if (j->reg)
		j->result =
		        store_password_hash(j->password, j->st->opslimit, j->st->memlimit, j->hash);
	else
		j->result = store_password_check(j->hash, j->password) == 0 && j->known
		                    ? 0
		                    : STORE_EAUTH;
	sodium_memzero(j->password, sizeof j->password);
}


/* The account's other connection is told why and closed; its seats wait for c. */
static void take_over(struct client *c, const char *name)
{
	struct client *old = server_find_user(c->srv, name);
	if (old == NULL || old == c)
		return;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "info");
	cJSON_AddStringToObject(j, "event", "session_taken");
	cJSON_AddStringToObject(j, "code", "SESSION_TAKEN");
	char *t = xasprintf("%s logged in from elsewhere (%s); this connection closes", name,
	                    c->conn->peer);
	cJSON_AddStringToObject(j, "message", t ? t : "");
	send_msg(old, j, xasprintf("info SESSION_TAKEN: %s", t ? t : ""));
	free(t);
	log_info("conn %llu takes over %s from conn %llu", (unsigned long long)c->conn->id,
	         name, (unsigned long long)old->conn->id);
	client_close(old, true);
}

static void auth_done(uv_work_t *req, int status)
{
	struct auth_job *j = req->data;
	struct storage *st = j->st;
	struct server *s = st->srv;
	st->jobs--;
	struct conn *cn = conn_find(&s->hub, j->conn_id);
	struct client *c = cn != NULL ? client_of(cn) : NULL;
	if (c == NULL || s->stopping) { /* gone meanwhile: nothing to tell */
		sodium_memzero(j, sizeof *j);
		free(j);
		return;
	}
	const struct proto_req *rq = &j->rq;
	if (status < 0) {
		reply_err(c, rq, "INTERNAL", "the password could not be checked");
	} else if (j->reg) {
		int r = j->result;
		finish_retry(st);
		if (r == 0)
			r = store_account_insert(st->db, j->name, j->hash, store_now_ms());
		if (r == STORE_EEXISTS) {
			reply_err(c, rq, "NAME_TAKEN", "%s is registered already", j->name);
		} else if (r < 0) {
			log_store(st, "register", r);
			reply_err(c, rq, "INTERNAL", "the account could not be stored");
		} else if (c->logged_in) {
			cJSON *f = cJSON_CreateObject();
			cJSON_AddStringToObject(f, "name", j->name);
			log_info("account %s registered", j->name);
			reply_ok(c, rq, f, NULL,
			         "registered %s; log in with it: login %s <password>", j->name,
			         j->name);
		} else {
			log_info("account %s registered", j->name);
			c->registered = true;
			lobby_logged_in(c, rq, j->name, true);
		}
	} else if (j->result == 0) {
		ratelimit_success(st->rl, c->conn->peer);
		take_over(c, j->name);
		c->registered = true;
		lobby_logged_in(c, rq, j->name, true);
	} else {
		ratelimit_fail(st->rl, c->conn->peer, (int64_t)uv_now(s->loop));
		reply_err(c, rq, "BAD_LOGIN", "wrong name or password");
	}
	sodium_memzero(j, sizeof *j);
	free(j);
	conn_release(c->conn);
}

/* Queues j; the connection's input waits until auth_done. False (and j freed) on failure. */
static bool auth_queue(struct client *c, const struct proto_req *rq, struct auth_job *j)
{
	j->st = c->srv->storage;
	j->conn_id = c->conn->id;
	j->rq = *rq;
	j->rq.argc = 0;
	memset(j->rq.argv, 0, sizeof j->rq.argv);
	j->req.data = j;
	if (uv_queue_work(c->srv->loop, &j->req, auth_work, auth_done) != 0) {
		sodium_memzero(j, sizeof *j);
		free(j);
		reply_err(c, rq, "INTERNAL", "the password could not be checked");
		return false;
	}
	j->st->jobs++;
	conn_hold(c->conn);
	return true;
}

/* Storage present? Else answers NO_STORAGE. */
static struct storage *need_storage(struct client *c, const struct proto_req *rq)
{
	if (c->srv->storage == NULL)
		reply_err(c, rq, "NO_STORAGE", "this server keeps no accounts or records");
	return c->srv->storage;
}

void acct_register(struct client *c, const struct proto_req *rq)
{
	struct storage *st = need_storage(c, rq);
	if (st == NULL)
		return;
	const char *name = rq->argv[0], *password = rq->argv[1];
	if (!store_name_valid(name)) {
		reply_err(c, rq, "BAD_NAME",
		          "account names are %d to %d characters of A-Z a-z 0-9 _", STORE_NAME_MIN,
		          STORE_NAME_MAX);
		return;
	}
	if (!store_password_valid(password)) {
		reply_err(c, rq, "BAD_PASSWORD", "passwords are %d to %d bytes", STORE_PASS_MIN,
		          STORE_PASS_MAX);
		return;
	}
	int r = store_account_exists(st->db, name, NULL);
	if (r < 0) {
		log_store(st, "register", r);
		reply_err(c, rq, "INTERNAL", "the accounts could not be read");
		return;
	}
	struct client *u = server_find_user(c->srv, name);
	if (r == 1 || (u != NULL && u != c)) {
		reply_err(c, rq, "NAME_TAKEN", "%s is %s already", name,
		          r == 1 ? "registered" : "in use by a guest");
		return;
	}
	struct auth_job *j = calloc(1, sizeof *j);
	if (j == NULL) {
		reply_err(c, rq, "INTERNAL", "out of memory");
		return;
	}
	j->reg = true;
	snprintf(j->name, sizeof j->name, "%s", name);
	snprintf(j->password, sizeof j->password, "%s", password);
	auth_queue(c, rq, j);
}

void acct_login(struct client *c, const struct proto_req *rq)
{
	struct storage *st = need_storage(c, rq);
	if (st == NULL)
		return;
	if (c->logged_in) {
		reply_err(c, rq, "ALREADY_LOGGED_IN", "you are %s already", c->name);
		return;
	}
	int64_t retry = 0;
	if (ratelimit_check(st->rl, c->conn->peer, (int64_t)uv_now(c->srv->loop), &retry) ==
	    RATELIMIT_THROTTLED) {
		int64_t secs = (retry + 999) / 1000;
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "type", "error");
		cJSON_AddStringToObject(j, "code", "LOGIN_THROTTLED");
		char *t = xasprintf(
		        "too many failed logins from your address; try again in %" PRId64 " s",
		        secs);
		cJSON_AddStringToObject(j, "message", t ? t : "");
		cJSON_AddNumberToObject(j, "retry_s", (double)secs);
		cJSON_AddStringToObject(j, "cmd", rq->cmd->name);
		if (rq->tagged)
			cJSON_AddStringToObject(j, "id", rq->tag);
		send_msg(c, j,
		         xasprintf("%s%s%serror LOGIN_THROTTLED: %s", rq->tagged ? "#" : "",
		                   rq->tagged ? rq->tag : "", rq->tagged ? " " : "", t ? t : ""));
		free(t);
		return;
	}
	struct auth_job *j = calloc(1, sizeof *j);
	if (j == NULL) {
		reply_err(c, rq, "INTERNAL", "out of memory");
		return;
	}
	const char *name = rq->argv[0], *password = rq->argv[1];
	int r = store_name_valid(name) && store_password_valid(password)
	                ? store_account_hash(st->db, name, j->name, j->hash)
	                : STORE_ENOTFOUND;
	if (r < 0 && r != STORE_ENOTFOUND) {
		log_store(st, "login", r);
		free(j);
		reply_err(c, rq, "INTERNAL", "the accounts could not be read");
		return;
	}
	j->known = r == 0;
	if (!j->known) /* the same work as for a real account: no timing tells names apart */
		snprintf(j->hash, sizeof j->hash, "%s", st->dummy_hash);
	snprintf(j->password, sizeof j->password, "%s", password);
	auth_queue(c, rq, j);
}
