/*
 * archive.c - the verbs that read the store (see archive.h): ratings (a
 * kind's top list), finger (a player's profile), history (recent finished
 * games), record (a game's record text, PTN for Tak) and replay (a stored
 * game's positions streamed to one client at a chosen pace by a uv_timer that
 * stops when the client goes), positions made by the one replayer
 * (games/game_replay.h).
 *
 * Every verb reads the store on a reader thread (store_reader.h): the
 * request becomes a read job, the client's input waits (conn_hold, so its
 * replies keep their order), and the reply is made on the loop when the job
 * is back, if the client is still there.
 */
#include "server/records/archive.h"

#include "games/game_replay.h"
#include "server/records/stored_record.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One verb's read: what was asked, and what the reader found. */
struct read_job {
	struct store_read rd; /* first: the reader hands back this pointer */
	struct archive *a;
	uint64_t conn_id;
	struct proto_req rq; /* tag, verb and row only (argv cleared) */
	void (*work)(struct store *db, struct read_job *j); /* reader thread */
	void (*done)(struct read_job *j, struct client *c); /* loop, the client still there */
	/* asked */
	char name[PROTO_LINE_MAX]; /* longer than a seat's name: nobody's (no read) */
	const struct game_ops *ops;
	bool bots; /* ratings: of bots' accounts only */
	uint64_t id, delay_ms;
	/* found */
	int err;       /* the first failure, or 0 */
	char why[160]; /* the store's words for it */
	int acct;      /* finger: 1 an account */
	char canon[STORE_NAME_MAX + 1];
	struct store_rating_row rows[ARCHIVE_LIST_MAX]; /* finger: 16 at most */
	int nrows;
	bool row_bot[ARCHIVE_LIST_MAX]; /* ratings: the row's account is a bot's */
	struct store_game *games;       /* history (owned) */
	size_t ngames;
	struct store_game g; /* record, replay: with its moves (owned) */
	bool seat_bot[2];    /* record: which of g's seats are bots' accounts */
	/* records: the ids asked (n of them, in ngames: games[i] is ids[i]'s, id 0 when the
	   store has none), each seat's bot flag, the reply's head (owned) and its "more" */
	uint64_t ids[ARCHIVE_RECORDS_MAX];
	bool seat_bots[ARCHIVE_RECORDS_MAX][2];
	long from, total;
	cJSON *head;
	char more[64];
};

static void job_free(struct read_job *j)
{
	cJSON_Delete(j->head);
	store_games_free(j->games, j->ngames);
	store_game_clear(&j->g);
	free(j);
}

/* Keeps the first failure of the job's reads and the store's words for it. */
static void job_err(struct read_job *j, struct store *db, int r)
{
	if (r < 0 && j->err == 0) {
		j->err = r;
		snprintf(j->why, sizeof j->why, "%s", store_last_error(db));
	}
}

static void read_work(struct store *db, struct store_read *rd)
{
	struct read_job *j = (struct read_job *)rd;
	j->work(db, j);
}

static void read_done(struct store_read *rd)
{
	struct read_job *j = (struct read_job *)rd;
	struct conn *cn = conn_find(j->a->hub, j->conn_id);
	struct client *c = cn != NULL ? client_of(cn) : NULL;
	if (c != NULL) {
		j->done(j, c);
		conn_release(c->conn);
	}
	job_free(j);
}

/* A job for rq, queued with c's input held; NULL (answered) when it cannot be. */
static struct read_job *job_new(struct archive *a, struct client *c, const struct proto_req *rq,
                                void (*work)(struct store *, struct read_job *),
                                void (*done)(struct read_job *, struct client *))
{
	struct read_job *j = calloc(1, sizeof *j);
	if (j == NULL) {
		reply_oom(c, rq);
		return NULL;
	}
	j->a = a;
	j->conn_id = c->conn->id;
	j->rq = *rq;
	j->rq.argc = 0;
	memset(j->rq.argv, 0, sizeof j->rq.argv);
	j->work = work;
	j->done = done;
	j->rd.work = read_work;
	j->rd.done = read_done;
	return j;
}

/* INTERNAL: the job's reads could not be made. */
static void refuse_unread(struct read_job *j, struct client *c)
{
	reply_err(c, &j->rq, ERR_INTERNAL, "the store could not be read");
}

static void job_submit(struct read_job *j, struct client *c)
{
	if (store_reader_submit(j->a->rd, &j->rd) != STORE_OK) {
		refuse_unread(j, c);
		job_free(j);
		return;
	}
	conn_hold(c->conn);
}

/* True (answered, logged) when the job's reads failed. */
static bool reply_store_err(struct read_job *j, struct client *c)
{
	if (j->err == 0)
		return false;
	journal_log_failure(j->rq.verb, j->err, j->why);
	refuse_unread(j, c);
	return true;
}

/* "2026-11-21 13:05" (UTC) of ms since the epoch. */
static void fmt_date(int64_t ms, char *buf, size_t len)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	if (ms <= 0 || gmtime_r(&t, &tm) == NULL || strftime(buf, len, "%Y-%m-%d %H:%M", &tm) == 0)
		snprintf(buf, len, "-");
}

/* ---- ratings ----------------------------------------------------------------------- */

static cJSON *rating_json(const char *name, const char *kind, const struct store_rating *r)
{
	cJSON *j = cJSON_CreateObject();
	if (name != NULL)
		cJSON_AddStringToObject(j, "name", name);
	cJSON_AddStringToObject(j, "kind", kind);
	cJSON_AddNumberToObject(j, "rating", r->rating);
	cJSON_AddNumberToObject(j, "rd", r->rd);
	cJSON_AddNumberToObject(j, "volatility", r->volatility);
	cJSON_AddNumberToObject(j, "games", r->games);
	return j;
}

static void ratings_work(struct store *db, struct read_job *j)
{
	j->nrows = j->bots ? store_rating_top_bots(db, j->ops->name, j->rows, ARCHIVE_LIST_MAX)
	                   : store_rating_top(db, j->ops->name, j->rows, ARCHIVE_LIST_MAX);
	/* each row's bot flag: a point read by primary key, 20 at most */
	for (int i = 0; i < j->nrows; i++) {
		struct store_prefs p;
		j->row_bot[i] = store_prefs_get(db, j->rows[i].name, &p) == STORE_OK && p.bot;
	}
	job_err(j, db, j->nrows);
}

static void ratings_done(struct read_job *j, struct client *c)
{
	if (reply_store_err(j, c))
		return;
	const char *kind = j->ops->name;
	int n = j->nrows;
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "kind", kind);
	if (j->bots)
		cJSON_AddBoolToObject(f, "bots", true);
	cJSON *arr = cJSON_AddArrayToObject(f, "ratings");
	char *extra = NULL;
	for (int i = 0; i < n; i++) {
		const struct store_rating_row *row = &j->rows[i];
		const struct store_rating *r = &row->r;
		cJSON *o = rating_json(row->name, kind, r);
		cJSON_AddBoolToObject(o, "bot", j->row_bot[i]);
		cJSON_AddItemToArray(arr, o);
		xappend(&extra, "%s  %2d. %s%-*s %6.1f  RD %5.1f  %d game%s", extra ? "\n" : "",
		        i + 1, j->row_bot[i] ? "BOT " : "", j->row_bot[i] ? 16 : 20, row->name,
		        r->rating, r->rd, r->games, r->games == 1 ? "" : "s");
	}
	reply_ok(c, &j->rq, f, extra, "%d rated %s%s in %s", n, j->bots ? "bot" : "player",
	         n == 1 ? "" : "s", kind);
}

void archive_ratings(struct archive *a, struct client *c, const struct proto_req *rq)
{
	const struct game_ops *ops = game_find(rq->argv[0]);
	if (ops == NULL) {
		reply_err(c, rq, ERR_UNKNOWN_GAME, "no game called '%.*s'; 'games' lists them",
		          (int)text_cut(rq->argv[0], 32), rq->argv[0]);
		return;
	}
	if (rq->argc > 1 && strcmp(rq->argv[1], "bots") != 0) {
		reply_err(c, rq, ERR_BAD_ARGS, "usage: ratings <kind> [bots]");
		return;
	}
	struct read_job *j = job_new(a, c, rq, ratings_work, ratings_done);
	if (j == NULL)
		return;
	j->ops = ops;
	j->bots = rq->argc > 1;
	job_submit(j, c);
}

/* ---- games: history and finger ----------------------------------------------------- */

/* The game's plies as its positions count them (turns of a simultaneous game), not its rows. */
static int plies_of(const struct store_game *g)
{
	return game_ply_count(game_find(g->kind), g->plies);
}

/* "23 plies", "1 ply", "66 turns" (a simultaneous game's) of g, into buf. */
static const char *plies_text(const struct store_game *g, char *buf, size_t len)
{
	const struct game_ops *ops = game_find(g->kind);
	int n = plies_of(g);
	if (ops != NULL && (ops->flags & GAME_SIMULTANEOUS))
		snprintf(buf, len, "%d turn%s", n, n == 1 ? "" : "s");
	else
		snprintf(buf, len, "%d pl%s", n, n == 1 ? "y" : "ies");
	return buf;
}

static cJSON *game_row_json(const struct store_game *g)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "id", (double)g->id);
	cJSON_AddStringToObject(j, "kind", g->kind);
	cJSON *pl = cJSON_AddArrayToObject(j, "players");
	cJSON *gu = cJSON_AddArrayToObject(j, "guest");
	for (int i = 0; i < STORE_SEATS; i++) {
		cJSON_AddItemToArray(pl, cJSON_CreateString(g->players[i]));
		cJSON_AddItemToArray(gu, cJSON_CreateBool(g->guest[i]));
	}
	cJSON_AddStringToObject(j, "options", g->options);
	if (g->time_base_ms > 0) {
		cJSON *t = cJSON_AddObjectToObject(j, "time");
		cJSON_AddNumberToObject(t, "base_ms", (double)g->time_base_ms);
		cJSON_AddNumberToObject(t, "inc_ms", (double)g->time_inc_ms);
	} else {
		cJSON_AddNullToObject(j, "time");
	}
	cJSON_AddBoolToObject(j, "rated", g->rated);
	cJSON_AddStringToObject(j, "status", store_status_name(g->status));
	cJSON_AddStringToObject(j, "result", g->result);
	if (g->winner >= 0)
		cJSON_AddNumberToObject(j, "winner", g->winner);
	else
		cJSON_AddNullToObject(j, "winner");
	cJSON_AddStringToObject(j, "reason", g->reason);
	cJSON_AddNumberToObject(j, "plies", plies_of(g));
	cJSON_AddNumberToObject(j, "started", (double)g->started);
	cJSON_AddNumberToObject(j, "ended", (double)g->ended);
	return j;
}

/* "  12 tak: alice vs bob, R-0 (road), 23 plies, rated, 2026-11-21 13:05" (malloc'd). */
static char *game_row_text(const struct store_game *g)
{
	char when[32], plies[32];
	fmt_date(g->ended ? g->ended : g->started, when, sizeof when);
	return xasprintf("  %" PRId64 " %s: %s vs %s, %s (%s), %s, %s, %s", g->id, g->kind,
	                 g->players[0], g->players[1], g->result[0] ? g->result : "-",
	                 g->reason[0] ? g->reason : store_status_name(g->status),
	                 plies_text(g, plies, sizeof plies), g->rated ? "rated" : "unrated", when);
}

/* Appends the rows to arr and to *extra. */
static void game_rows(const struct store_game *v, size_t n, cJSON *arr, char **extra)
{
	for (size_t i = 0; i < n; i++) {
		cJSON_AddItemToArray(arr, game_row_json(&v[i]));
		char *t = game_row_text(&v[i]);
		xappend(extra, "%s%s", *extra ? "\n" : "", t ? t : "");
		free(t);
	}
}

/* A name the store can hold (a longer one is nobody's: no read, nothing found). */
static bool storable(const char *name)
{
	return strlen(name) <= STORE_PLAYER_MAX;
}

static void history_work(struct store *db, struct read_job *j)
{
	if (storable(j->name))
		job_err(j, db, store_history(db, j->name, ARCHIVE_LIST_MAX, &j->games, &j->ngames));
}

static void history_done(struct read_job *j, struct client *c)
{
	if (reply_store_err(j, c))
		return;
	size_t n = j->ngames;
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "name", j->name);
	cJSON *arr = cJSON_AddArrayToObject(f, "games");
	char *extra = NULL;
	game_rows(j->games, n, arr, &extra);
	reply_ok(c, &j->rq, f, extra, "%zu finished game%s of %s", n, n == 1 ? "" : "s", j->name);
}

void archive_history(struct archive *a, struct client *c, const struct proto_req *rq)
{
	const char *name = rq->argc > 0 ? rq->argv[0] : c->logged_in ? c->name : NULL;
	if (name == NULL) {
		reply_err(c, rq, ERR_BAD_ARGS, "usage: history <name> (or log in first)");
		return;
	}
	struct read_job *j = job_new(a, c, rq, history_work, history_done);
	if (j == NULL)
		return;
	snprintf(j->name, sizeof j->name, "%.*s", (int)text_cut(name, sizeof j->name - 1), name);
	job_submit(j, c);
}

static void finger_work(struct store *db, struct read_job *j)
{
	j->acct = store_name_valid(j->name) ? store_account_exists(db, j->name, j->canon) : 0;
	job_err(j, db, j->acct);
	if (j->acct == 1)
		snprintf(j->name, sizeof j->name, "%s", j->canon);
	j->nrows = j->acct == 1 ? store_ratings_of(db, j->name, j->rows, 16) : 0;
	job_err(j, db, j->nrows);
	if (j->err == 0 && storable(j->name))
		job_err(j, db,
		        store_history(db, j->name, ARCHIVE_FINGER_GAMES, &j->games, &j->ngames));
}

static void finger_done(struct read_job *j, struct client *c)
{
	if (reply_store_err(j, c))
		return;
	const char *name = j->name;
	int acct = j->acct, nr = j->nrows;
	size_t n = j->ngames;
	struct client *u = lobby_find_user(j->a->lobby, name);
	if (acct != 1 && u == NULL && n == 0) {
		reply_err(c, &j->rq, ERR_NO_SUCH_USER,
		          "nobody called %.20s is registered, online or in the records", name);
		return;
	}
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "name", u != NULL ? u->name : name);
	cJSON_AddBoolToObject(f, "registered", acct == 1);
	cJSON_AddBoolToObject(f, "guest", acct != 1);
	cJSON_AddBoolToObject(f, "online", u != NULL);
	cJSON *ra = cJSON_AddArrayToObject(f, "ratings");
	char *extra = NULL;
	for (int i = 0; i < nr; i++) {
		const struct store_rating_row *row = &j->rows[i];
		cJSON_AddItemToArray(ra, rating_json(NULL, row->kind, &row->r));
		xappend(&extra, "%s  %-6s %6.1f  RD %5.1f  %d rated game%s", extra ? "\n" : "",
		        row->kind, row->r.rating, row->r.rd, row->r.games,
		        row->r.games == 1 ? "" : "s");
	}
	cJSON *arr = cJSON_AddArrayToObject(f, "games");
	if (n > 0)
		xappend(&extra, "%srecent games:", extra ? "\n" : "");
	game_rows(j->games, n, arr, &extra);
	reply_ok(c, &j->rq, f, extra, "%s: %s, %s, %d rating%s, %zu recent game%s",
	         u != NULL ? u->name : name, acct == 1 ? "registered" : "guest",
	         u != NULL ? "online" : "offline", nr, nr == 1 ? "" : "s", n, n == 1 ? "" : "s");
}

void archive_finger(struct archive *a, struct client *c, const struct proto_req *rq)
{
	struct read_job *j = job_new(a, c, rq, finger_work, finger_done);
	if (j == NULL)
		return;
	snprintf(j->name, sizeof j->name, "%.*s", (int)text_cut(rq->argv[0], sizeof j->name - 1),
	         rq->argv[0]);
	job_submit(j, c);
}

/* ---- record ------------------------------------------------------------------------ */

/* Game id into g with its seats' bot flags: a seat's is its account's, fixed from its first
   game on (store.h). */
static int fetch_game(struct store *db, uint64_t id, struct store_game *g, bool bots[2])
{
	int r = store_game_fetch(db, (int64_t)id, g);
	for (int i = 0; r == STORE_OK && i < 2; i++) {
		struct store_prefs p;
		if (!g->guest[i] && store_prefs_get(db, g->players[i], &p) == STORE_OK)
			bots[i] = p.bot;
	}
	return r;
}

static void fetch_work(struct store *db, struct read_job *j)
{
	int r = fetch_game(db, j->id, &j->g, j->seat_bot);
	if (r == STORE_ENOTFOUND)
		j->acct = -1; /* no such game */
	else
		job_err(j, db, r);
}

/* The stored game's fetch is back; false when answered (none, failure). */
static bool fetched(struct read_job *j, struct client *c)
{
	if (j->acct == -1) {
		reply_no_game(c, &j->rq, j->id);
		return false;
	}
	return !reply_store_err(j, c);
}

/* g's record text, its trailing newlines cut (malloc'd), or NULL with the error in *err. */
static char *record_text(const struct store_game *g, const bool bots[2], int *err)
{
	struct record rec;
	record_init(&rec);
	char *text = NULL;
	int r = record_from_game(g, bots, &rec);
	if (r == 0)
		r = record_write(&rec, &text, NULL);
	record_clear(&rec);
	*err = r;
	if (r < 0)
		return NULL;
	size_t n = strlen(text);
	while (n > 0 && text[n - 1] == '\n')
		text[--n] = '\0';
	return text;
}

static void record_done(struct read_job *j, struct client *c)
{
	if (!fetched(j, c))
		return;
	const struct store_game *g = &j->g;
	int r;
	char *text = record_text(g, j->seat_bot, &r);
	if (text == NULL) {
		reply_err(c, &j->rq, ERR_INTERNAL, "the record could not be written: %s",
		          record_strerror(r));
		return;
	}
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "game", (double)g->id);
	cJSON_AddStringToObject(f, "kind", g->kind);
	cJSON_AddStringToObject(f, "record", text);
	char plies[32];
	reply_ok(c, &j->rq, f, text, "record of game %" PRId64 " (%s, %s)", g->id, g->kind,
	         plies_text(g, plies, sizeof plies));
}

void archive_record(struct archive *a, struct client *c, const struct proto_req *rq, uint64_t id)
{
	struct read_job *j = job_new(a, c, rq, fetch_work, record_done);
	if (j == NULL)
		return;
	j->id = id;
	job_submit(j, c);
}

/* ---- records: a page of games as one archive --------------------------------------- */

static void records_work(struct store *db, struct read_job *j)
{
	j->games = calloc(j->ngames, sizeof *j->games);
	if (j->games == NULL) {
		j->ngames = 0;
		job_err(j, db, STORE_ENOMEM);
		return;
	}
	for (size_t i = 0; i < j->ngames && j->err == 0; i++) {
		int r = fetch_game(db, j->ids[i], &j->games[i], j->seat_bots[i]);
		if (r == STORE_ENOTFOUND)
			j->games[i].id = 0; /* left out */
		else
			job_err(j, db, r);
	}
}

static void records_done(struct read_job *j, struct client *c)
{
	/* the games read are paid beyond the verb's own cost: a token each (§13) */
	if (j->a->budget != NULL)
		budget_charge(&c->budget, j->a->budget, (unsigned)j->ngames);
	if (reply_store_err(j, c))
		return;
	char *all = NULL;
	size_t len = 0, used = 0;
	for (; used < j->ngames; used++) {
		const struct store_game *g = &j->games[used];
		if (g->id == 0)
			continue;
		int r;
		char *text = record_text(g, j->seat_bots[used], &r);
		if (text == NULL) {
			free(all);
			reply_err(c, &j->rq, ERR_INTERNAL,
			          "the record of game %" PRId64 " could not be written: %s", g->id,
			          record_strerror(r));
			return;
		}
		size_t n = strlen(text);
		if (len > 0 && len + 2 + n > ARCHIVE_RECORDS_BYTES) { /* the next page's */
			free(text);
			break;
		}
		char *grown = realloc(all, len + 2 + n + 1);
		if (grown == NULL) {
			free(text);
			free(all);
			reply_oom(c, &j->rq);
			return;
		}
		all = grown;
		len += (size_t)sprintf(all + len, "%s%s", len > 0 ? "\n\n" : "", text);
		free(text);
	}
	cJSON *f = j->head;
	j->head = NULL;
	cJSON_AddStringToObject(f, "records", all != NULL ? all : "");
	cJSON_AddNumberToObject(f, "total", (double)j->total);
	cJSON_AddNumberToObject(f, "count", (double)used);
	char *extra = all;
	if (j->from + (long)used < j->total) {
		cJSON_AddNumberToObject(f, "next", (double)(j->from + (long)used));
		size_t n = len + strlen(j->more) + 48;
		extra = malloc(n);
		if (extra != NULL)
			snprintf(extra, n, "%s%smore: %s from=%ld", all != NULL ? all : "",
			         all != NULL ? "\n" : "", j->more, j->from + (long)used);
		free(all);
	}
	reply_ok(c, &j->rq, f, extra, "%s: %zu game(s)", j->more, used);
}

void archive_records(struct archive *a, struct client *c, const struct proto_req *rq,
                     const uint64_t *ids, size_t n, long from, long total, cJSON *head,
                     const char *more)
{
	struct read_job *j = job_new(a, c, rq, records_work, records_done);
	if (j == NULL) {
		cJSON_Delete(head);
		return;
	}
	if (n > ARCHIVE_RECORDS_MAX)
		n = ARCHIVE_RECORDS_MAX;
	memcpy(j->ids, ids, n * sizeof *ids);
	j->ngames = n;
	j->from = from;
	j->total = total;
	j->head = head;
	snprintf(j->more, sizeof j->more, "%s", more);
	job_submit(j, c);
}

/* ---- replay ------------------------------------------------------------------------ */

/*
 * A running replay. What it keeps is counted (bytes) against its connection's share and the
 * server's total (archive.h): the stored game's header, its moves packed (per ply a seat
 * byte, the text and a NUL: a few bytes where the store's rows take 200) and the position.
 */
struct replay {
	uv_timer_t timer; /* data = this; the replay is freed in its close callback */
	struct replay *next;
	struct archive *a;
	struct client *c;
	struct store_game g; /* the header only: g.moves is NULL */
	const struct game_ops *ops;
	void *state; /* ops->state_size bytes (owned) */
	struct game_replay gr;
	char *moves;    /* g.plies packed moves (owned) */
	size_t next_at; /* where the next one starts in moves */
	int at;         /* journal rows applied */
	int ply;        /* positions shown after the first (plies, or turns) */
	bool started, failed;
	char last[GAME_MAX_PLAYERS][GAME_MOVE_TEXT];
	uint64_t delay_ms;
	size_t bytes; /* counted: this struct, the position and the packed moves */
};

static void replay_free_cb(uv_handle_t *h)
{
	struct replay *rp = h->data;
	free(rp->moves);
	free(rp->state);
	free(rp);
}

/* Unlinks rp, gives its bytes back and frees it once its timer is closed. */
static void replay_stop(struct replay *rp)
{
	for (struct replay **pp = &rp->a->replays; *pp != NULL; pp = &(*pp)->next)
		if (*pp == rp) {
			*pp = rp->next;
			break;
		}
	if (rp->c->nreplays > 0)
		rp->c->nreplays--;
	rp->c->replay_bytes -= rp->bytes;
	rp->a->replay_bytes -= rp->bytes;
	uv_timer_stop(&rp->timer);
	uv_close((uv_handle_t *)&rp->timer, replay_free_cb);
}

void archive_client_gone(struct archive *a, struct client *c)
{
	struct replay *rp = a->replays;
	while (rp != NULL) {
		struct replay *next = rp->next;
		if (rp->c == c)
			replay_stop(rp);
		rp = next;
	}
}

/* Applies the next ply (sequential) or turn (simultaneous); false when it does not fit. */
static bool replay_step(struct replay *rp)
{
	bool sim = (rp->ops->flags & GAME_SIMULTANEOUS) != 0;
	memset(rp->last, 0, sizeof rp->last);
	while (rp->at < rp->g.plies) {
		int seat = (unsigned char)rp->moves[rp->next_at];
		const char *text = rp->moves + rp->next_at + 1;
		rp->next_at += strlen(text) + 2;
		rp->at++;
		struct game_ply e = {.seat = seat, .act = game_act_of_text(text), .text = text};
		int r = game_replay_step(&rp->gr, &e, NULL);
		if (r < 0)
			return false;
		if (e.act == GAME_ACT_MOVE)
			snprintf(rp->last[sim ? seat : 0], GAME_MOVE_TEXT, "%s", text);
		if (r == GAME_REPLAY_MADE)
			return true;
	}
	return false; /* a turn cut short: not shown */
}

/* The position in what rp's client reads, and only that (a front-end reads the JSON). */
static void replay_send(struct replay *rp, bool done)
{
	const struct game_ops *ops = rp->ops;
	bool sim = (ops->flags & GAME_SIMULTANEOUS) != 0;
	bool want_json = rp->c->json || rp->c->fe != NULL, want_text = !rp->c->json;
	cJSON *j = want_json ? cJSON_CreateObject() : NULL;
	char *t = NULL;
	if (j != NULL) {
		cJSON_AddStringToObject(j, "type", "replay");
		cJSON_AddNumberToObject(j, "game", (double)rp->g.id);
		cJSON_AddStringToObject(j, "kind", ops->name);
		cJSON *pl = cJSON_AddArrayToObject(j, "players");
		for (int i = 0; i < STORE_SEATS; i++)
			cJSON_AddItemToArray(pl, cJSON_CreateString(rp->g.players[i]));
		cJSON_AddNumberToObject(j, "ply", rp->ply);
	}
	if (want_text)
		t = xasprintf("replay game %" PRId64 ", %s %d:", rp->g.id, sim ? "turn" : "ply",
		              rp->ply);
	if (rp->ply == 0) {
		if (j != NULL)
			cJSON_AddNullToObject(j, "last_move");
	} else if (sim) {
		cJSON *lm = j != NULL ? cJSON_AddObjectToObject(j, "last_move") : NULL;
		for (int i = 0; i < ops->nplayers; i++) {
			char k[12];
			snprintf(k, sizeof k, "%d", i);
			if (lm != NULL && rp->last[i][0])
				cJSON_AddStringToObject(lm, k, rp->last[i]);
			else if (lm != NULL)
				cJSON_AddNullToObject(lm, k);
			if (want_text)
				xappend(&t, "%s %s %s",
				        i ? ";" : " last actions:", ops->seat_names[i],
				        rp->last[i][0] ? rp->last[i] : "(none)");
		}
	} else {
		if (j != NULL)
			cJSON_AddStringToObject(j, "last_move", rp->last[0]);
		if (want_text)
			xappend(&t, " last move %s", rp->last[0]);
	}
	if (j != NULL) {
		cJSON *pos = ops->to_json(rp->state, -1);
		cJSON_AddItemToObject(j, "position", pos ? pos : cJSON_CreateNull());
		cJSON_AddBoolToObject(j, "done", done);
	}
	char board[16384];
	if (want_text && ops->render_text(rp->state, -1, board, sizeof board) >= 0) {
		size_t n = strlen(board);
		while (n > 0 && board[n - 1] == '\n')
			board[--n] = '\0';
		xappend(&t, "\n%s", board);
	}
	if (done) {
		cJSON *r = j != NULL ? cJSON_AddObjectToObject(j, "result") : NULL;
		if (r != NULL) {
			cJSON_AddStringToObject(r, "status", store_status_name(rp->g.status));
			cJSON_AddStringToObject(r, "score", rp->g.result);
			if (rp->g.winner >= 0)
				cJSON_AddNumberToObject(r, "winner", rp->g.winner);
			else
				cJSON_AddNullToObject(r, "winner");
			cJSON_AddStringToObject(r, "reason", rp->g.reason);
		}
		if (want_text && rp->failed)
			xappend(&t,
			        "\nreplay game %" PRId64 " stops: the next move does not replay",
			        rp->g.id);
		else if (want_text && rp->g.status == STORE_IN_PROGRESS)
			xappend(&t,
			        "\nreplay game %" PRId64 " done: the game is still being played",
			        rp->g.id);
		else if (want_text)
			xappend(&t, "\nreplay game %" PRId64 " done: %s (%s)", rp->g.id,
			        rp->g.result[0] ? rp->g.result : "-", rp->g.reason);
	}
	send_msg(rp->c, j, t);
}

static void replay_tick(uv_timer_t *t)
{
	struct replay *rp = t->data;
	if (!client_alive(rp->c)) {
		replay_stop(rp);
		return;
	}
	if (client_slow(rp->c)) /* a slow reader: wait for the next tick */
		return;
	/* each position is paid from the client's command budget, as it goes out: a replay
	 * costs by the size of its game, and one faster than the budget waits for it */
	uint64_t wait;
	if (rp->a->budget != NULL &&
	    !budget_spend(&rp->c->budget, rp->a->budget, uv_now(rp->a->loop),
	                  ARCHIVE_REPLAY_POSITION_COST, &wait)) {
		uv_timer_start(&rp->timer, replay_tick, wait, rp->delay_ms > 0 ? rp->delay_ms : 1);
		return;
	}
	if (rp->started) {
		if (replay_step(rp))
			rp->ply++;
		else
			rp->failed = true;
	}
	rp->started = true;
	bool done = rp->failed || rp->at >= rp->g.plies;
	if (rp->failed)
		rp->at = rp->g.plies;
	replay_send(rp, done);
	if (done)
		replay_stop(rp);
}

/* REPLAY_LIMIT with retry_after_ms: the server's replays hold all they may. */
static void refuse_replay_memory(struct archive *a, struct client *c, const struct proto_req *rq)
{
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "retry_after_ms", ARCHIVE_REPLAY_RETRY_MS);
	reply_err_fields(c, rq, ERR_REPLAY_LIMIT, f,
	                 "the replays running hold %zu bytes, the most the server gives them "
	                 "(--replay-memory); retry after %d ms",
	                 a->replay_bytes, ARCHIVE_REPLAY_RETRY_MS);
}

/* The moves of g packed as struct replay keeps them (malloc'd; *len its size), or NULL. */
static char *pack_moves(const struct store_game *g, size_t *len)
{
	size_t n = 0;
	for (int i = 0; i < g->plies; i++)
		n += strlen(g->moves[i].text) + 2;
	char *p = malloc(n + 1), *at = p;
	if (p == NULL)
		return NULL;
	for (int i = 0; i < g->plies; i++) {
		size_t k = strlen(g->moves[i].text);
		*at++ = (char)(unsigned char)g->moves[i].seat;
		memcpy(at, g->moves[i].text, k + 1);
		at += k + 1;
	}
	*len = n;
	return p;
}

static void replay_done(struct read_job *j, struct client *c)
{
	if (!fetched(j, c))
		return;
	struct archive *a = j->a;
	struct seek_opts so;
	const struct game_ops *ops = game_find(j->g.kind);
	if (ops == NULL || journal_seek_opts(ops, &j->g, &so) != 0) {
		reply_err(c, &j->rq, ERR_INTERNAL, "game %" PRId64 " cannot be replayed", j->g.id);
		return;
	}
	size_t packed = 0;
	size_t bytes = sizeof(struct replay) + ops->state_size;
	for (int i = 0; i < j->g.plies; i++)
		bytes += strlen(j->g.moves[i].text) + 2;
	if (c->replay_bytes + bytes > ARCHIVE_REPLAY_CONN_BYTES) {
		reply_err(c, &j->rq, ERR_REPLAY_LIMIT,
		          "replaying game %" PRId64
		          " takes %zu bytes, and one connection's replays "
		          "may hold %d; its record is text",
		          j->g.id, bytes, ARCHIVE_REPLAY_CONN_BYTES);
		return;
	}
	if (a->max_bytes > 0 && a->replay_bytes + bytes > a->max_bytes) {
		refuse_replay_memory(a, c, &j->rq);
		return;
	}
	struct replay *rp = calloc(1, sizeof *rp);
	if (rp != NULL) {
		rp->moves = pack_moves(&j->g, &packed);
		rp->state = calloc(1, ops->state_size);
	}
	if (rp == NULL || rp->moves == NULL || rp->state == NULL ||
	    game_replay_start(&rp->gr, ops, rp->state, &so.params, j->g.seed) != 0) {
		reply_err(c, &j->rq, ERR_INTERNAL, "game %" PRId64 " cannot be replayed", j->g.id);
		if (rp != NULL) {
			free(rp->moves);
			free(rp->state);
		}
		free(rp);
		return;
	}
	rp->g = j->g; /* the header; the store's rows stay the job's (freed with it) */
	rp->g.moves = NULL;
	rp->ops = ops;
	rp->bytes = bytes;
	rp->a = a;
	rp->c = c;
	rp->delay_ms = j->delay_ms;
	uv_timer_init(a->loop, &rp->timer);
	rp->timer.data = rp;
	rp->next = a->replays;
	a->replays = rp;
	c->nreplays++;
	c->replay_bytes += bytes;
	a->replay_bytes += bytes;
	char plies[32];
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "game", (double)rp->g.id);
	cJSON_AddNumberToObject(f, "plies", plies_of(&rp->g));
	cJSON_AddNumberToObject(f, "delay_ms", (double)rp->delay_ms);
	reply_ok(c, &j->rq, f, NULL, "replaying game %" PRId64 ": %s, one every %" PRIu64 " ms",
	         rp->g.id, plies_text(&rp->g, plies, sizeof plies), rp->delay_ms);
	uv_timer_start(&rp->timer, replay_tick, 0, rp->delay_ms > 0 ? rp->delay_ms : 1);
}

void archive_replay(struct archive *a, struct client *c, const struct proto_req *rq, uint64_t id)
{
	uint64_t delay = ARCHIVE_REPLAY_DEF_MS;
	if (rq->argc > 1) {
		char *end;
		unsigned long long v = strtoull(rq->argv[1], &end, 10);
		if (rq->argv[1][0] < '0' || rq->argv[1][0] > '9' || *end != '\0' ||
		    v > ARCHIVE_REPLAY_MAX_MS) {
			reply_err(c, rq, ERR_BAD_ARGS, "delay_ms is a whole number from 0 to %d",
			          ARCHIVE_REPLAY_MAX_MS);
			return;
		}
		delay = v;
	}
	if (a->max_replays > 0 && c->nreplays >= a->max_replays) {
		reply_err(c, rq, ERR_REPLAY_LIMIT,
		          "%u replays of yours are running, the most one connection may; wait for "
		          "one to end",
		          c->nreplays);
		return;
	}
	if (a->max_bytes > 0 && a->replay_bytes >= a->max_bytes) { /* not even worth a read */
		refuse_replay_memory(a, c, rq);
		return;
	}
	struct read_job *j = job_new(a, c, rq, fetch_work, replay_done);
	if (j == NULL)
		return;
	j->id = id;
	j->delay_ms = delay;
	job_submit(j, c);
}

void archive_init(struct archive *a, struct store_reader *rd, struct lobby *l, struct conn_hub *hub,
                  uv_loop_t *loop)
{
	memset(a, 0, sizeof *a);
	a->rd = rd;
	a->lobby = l;
	a->hub = hub;
	a->loop = loop;
}
