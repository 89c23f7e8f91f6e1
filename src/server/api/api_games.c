/*
 * api_games.c - the API's endpoints on the store (see api.h), every read on a reader
 * thread (store_reader.h), never on the loop:
 *   /api/games       ended games, newest first, as NDJSON or one PTN archive: a page of
 *                    API_PAGE games is read (store_games_find, the next page after the last
 *                    id of this one) while the one before is written, and a game is written
 *                    only while the reader keeps up (client_slow: its output under the
 *                    cap), so an export of any size holds two pages at most and a stalled
 *                    reader holds the reads, not the server's memory;
 *   /api/game/{id}   one game with its moves, as JSON or (.ptn) its record;
 *   /api/user/{name} a player: account or guest, online, playing, ratings, counts;
 *   /api/ratings/{kind}  the leaderboard of a kind.
 * A read finds its exchange again by the connection's id when it is done (conn_find), or
 * frees itself when the exchange has gone.
 */
#include "server/api/api_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/game.h"
#include "server/api/api_render.h"
#include "server/store/store.h"

#define API_PAGE         100        /* games read at once for /api/games */
#define API_GAMES_MAX    1000000000 /* max= at most */
#define API_RATINGS_DEF  50         /* rows of /api/ratings by default */
#define API_RATINGS_MAX  200
#define API_USER_RATINGS 16 /* kinds of ratings a user shows at most */

/* One read: what was asked, and what the reader found. */
struct job {
	struct store_read rd; /* first: the reader hands back this pointer */
	struct api *a;
	uint64_t conn_id;
	void (*work)(struct store *db, struct job *j);
	void (*done)(struct job *j, struct api_x *x); /* the exchange still there */
	/* asked */
	struct store_game_query q;
	char player[PROTO_NAME_MAX + 1], kind[STORE_KIND_MAX];
	int limit;
	int64_t id;
	/* found */
	int err;
	char why[160];
	bool found;
	struct store_game *v; /* a page (owned) */
	size_t n;
	struct store_game g; /* one game (owned) */
	struct store_rating_row rows[API_RATINGS_MAX];
	int nrows;
	struct store_counts counts;
	int acct;
	char canon[STORE_NAME_MAX + 1];
};

/* /api/games's state: the query, what is left, the page being written and the next. */
struct api_list {
	struct store_game_query q;
	char player[PROTO_NAME_MAX + 1], kind[STORE_KIND_MAX];
	int64_t left; /* games still to send (the max) */
	bool ptn;
	bool reading;     /* a page's read is under way */
	bool more;        /* the store may hold more (the last page was full) */
	int64_t last_id;  /* the last game read */
	struct job *cur;  /* being written */
	size_t at;        /* its next game */
	struct job *next; /* read, waiting for cur */
	uint64_t sent;
};

static void job_free(struct job *j)
{
	if (j == NULL)
		return;
	store_games_free(j->v, j->n);
	store_game_clear(&j->g);
	free(j);
}

static void job_err(struct job *j, struct store *db, int r)
{
	if (r < 0 && j->err == 0) {
		j->err = r;
		snprintf(j->why, sizeof j->why, "%s", store_last_error(db));
	}
}

static void job_work(struct store *db, struct store_read *rd)
{
	struct job *j = (struct job *)rd;
	j->work(db, j);
}

static void job_done(struct store_read *rd)
{
	struct job *j = (struct job *)rd;
	struct conn *c = conn_find(j->a->hub, j->conn_id);
	struct client *cl = c != NULL ? client_of(c) : NULL;
	if (cl != NULL && cl->fe_data != NULL) {
		j->done(j, cl->fe_data); /* may keep j (a page) */
		return;
	}
	job_free(j);
}

static struct job *job_new(struct api_x *x, void (*work)(struct store *, struct job *),
                           void (*done)(struct job *, struct api_x *))
{
	struct job *j = calloc(1, sizeof *j);
	if (j == NULL)
		return NULL;
	j->a = x->a;
	j->conn_id = x->cl->conn->id;
	j->work = work;
	j->done = done;
	j->rd.work = job_work;
	j->rd.done = job_done;
	return j;
}

/* Queues j; false (answered 500 and j freed) when it cannot be. */
static bool job_submit(struct api_x *x, struct job *j)
{
	if (j != NULL && store_reader_submit(x->a->rd, &j->rd) == STORE_OK)
		return true;
	job_free(j);
	api_error(x, 500, ERR_INTERNAL, NULL, 0, "the store could not be read");
	return false;
}

/* True (answered) when the server keeps no store. */
static bool no_store(struct api_x *x)
{
	if (x->a->rd != NULL)
		return false;
	api_error(x, 503, ERR_NO_STORAGE, NULL, 0, "this server keeps no accounts or records");
	return true;
}

/* True (answered 500, logged) when j's reads failed. */
static bool failed(struct api_x *x, struct job *j)
{
	if (j->err == 0)
		return false;
	log_error("api: a read of the store failed: %s (%s)", store_strerror(j->err), j->why);
	api_error(x, 500, ERR_INTERNAL, NULL, 0, "the store could not be read");
	return true;
}

/* ---- /api/games -------------------------------------------------------------------------- */

static void page_work(struct store *db, struct job *j)
{
	j->q.player = j->player[0] ? j->player : NULL;
	j->q.kind = j->kind[0] ? j->kind : NULL;
	job_err(j, db, store_games_find(db, &j->q, j->limit, &j->v, &j->n));
}

static void page_done(struct job *j, struct api_x *x);

/* The next page's read, when one is wanted and none is under way or waiting. */
static void list_read(struct api_x *x)
{
	struct api_list *l = x->list;
	if (l->reading || l->next != NULL || !l->more || l->left <= 0 || x->ending)
		return;
	struct job *j = job_new(x, page_work, page_done);
	if (j == NULL)
		return; /* the list ends with what it has */
	j->q = l->q;
	j->q.before = l->last_id;
	memcpy(j->player, l->player, sizeof j->player);
	memcpy(j->kind, l->kind, sizeof j->kind);
	j->limit = l->left < API_PAGE ? (int)l->left : API_PAGE;
	if (store_reader_submit(x->a->rd, &j->rd) != STORE_OK) {
		job_free(j);
		return;
	}
	l->reading = true;
	l->more = false;
}

/* One game of the list as its NDJSON line or its record. */
static struct outbuf *list_line(struct api_list *l, const struct store_game *g)
{
	struct outbuf *b = NULL;
	if (l->ptn) { /* the archive's records are apart by a blank line */
		char *text = NULL;
		size_t len = 0;
		if (api_game_ptn(g, &text, &len) == 0) {
			char *t = l->sent > 0 ? xasprintf("\n%s", text) : NULL;
			b = l->sent > 0 ? (t != NULL ? outbuf_new(t, len + 1) : NULL)
			                : outbuf_new(text, len);
			free(t);
		}
		free(text);
		return b;
	}
	char space[16384];
	struct json_buf jb;
	json_buf_init(&jb, space, sizeof space);
	if (api_game_json(&jb, g, l->q.moves))
		b = outbuf_new(jb.p, jb.len);
	json_buf_free(&jb);
	return b;
}

/* Writes games while the reader keeps up; reads on; ends once all is out. */
static void list_pump(struct api_x *x)
{
	struct api_list *l = x->list;
	while (l->cur != NULL && !client_slow(x->cl) && client_alive(x->cl)) {
		if (l->at < l->cur->n && l->left > 0) {
			struct outbuf *b = list_line(l, &l->cur->v[l->at++]);
			api_send(x, b);
			outbuf_unref(b);
			l->left--;
			l->sent++;
			continue;
		}
		job_free(l->cur);
		l->cur = l->next;
		l->at = 0;
		l->next = NULL;
		list_read(x);
	}
	list_read(x);
	if (l->cur == NULL && !l->reading && (!l->more || l->left <= 0))
		api_end(x);
}

static void page_done(struct job *j, struct api_x *x)
{
	struct api_list *l = x->list;
	if (l == NULL) { /* not a list (cannot be: its id was a list's) */
		job_free(j);
		return;
	}
	l->reading = false;
	if (j->err != 0) {
		log_error("api: a page of games could not be read: %s (%s)", store_strerror(j->err),
		          j->why);
		if (!x->answered) {
			failed(x, j);
		} else if (!l->ptn) { /* the stream says why it stops short */
			cJSON *e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "type", "error");
			cJSON_AddStringToObject(e, "code", err_name(ERR_INTERNAL));
			cJSON_AddStringToObject(e, "message", "the store could not be read");
			struct outbuf *b = json_outbuf(e);
			cJSON_Delete(e);
			api_send(x, b);
			outbuf_unref(b);
		}
		job_free(j);
		l->more = false;
		api_end(x);
		return;
	}
	if (!x->answered && !api_begin(x, l->ptn ? API_PTN : API_NDJSON)) {
		job_free(j);
		api_end(x);
		return;
	}
	l->more = (int)j->n == j->limit;
	if (j->n > 0)
		l->last_id = j->v[j->n - 1].id;
	if (l->cur == NULL)
		l->cur = j;
	else
		l->next = j;
	l->at = l->cur == j ? 0 : l->at;
	list_pump(x);
}

static const struct api_param games_params[] = {
        {"user", AP_NAME, 0, 0},  {"kind", AP_KIND, 0, 0},  {"rated", AP_BOOL, 0, 0},
        {"since", AP_TIME, 0, 0}, {"until", AP_TIME, 0, 0}, {"max", AP_COUNT, 1, API_GAMES_MAX},
        {"moves", AP_BOOL, 0, 0},
};
enum { GP_USER, GP_KIND, GP_RATED, GP_SINCE, GP_UNTIL, GP_MAX, GP_MOVES, GP_N };

void api_games(struct api_x *x, const char *query, bool ptn)
{
	struct api_args args;
	char why[300];
	enum err_code e = api_query_parse(query, games_params, GP_N, &args, why, sizeof why);
	if (e != ERR_COUNT) {
		api_error(x, 400, e, NULL, 0, "%s", why);
		return;
	}
	if (args.set[GP_SINCE] && args.set[GP_UNTIL] && args.num[GP_SINCE] > args.num[GP_UNTIL]) {
		api_error(x, 400, ERR_BAD_ARGS, NULL, 0, "since is after until: no game fits");
		return;
	}
	if (ptn && args.set[GP_MOVES] && args.num[GP_MOVES] == 0) {
		api_error(x, 400, ERR_BAD_ARGS, NULL, 0,
		          "a PTN archive has its moves (moves=false "
		          "is for NDJSON)");
		return;
	}
	if (no_store(x))
		return;
	struct api_list *l = calloc(1, sizeof *l);
	if (l == NULL) {
		api_error(x, 500, ERR_INTERNAL, NULL, 0, "out of memory");
		return;
	}
	x->kind = API_LIST;
	x->list = l;
	l->ptn = ptn;
	l->q.rated = args.set[GP_RATED] ? (int)args.num[GP_RATED] : -1;
	l->q.since = args.set[GP_SINCE] ? args.num[GP_SINCE] : 0;
	l->q.until = args.set[GP_UNTIL] ? args.num[GP_UNTIL] : 0;
	l->q.moves = ptn || !args.set[GP_MOVES] || args.num[GP_MOVES] != 0;
	if (args.set[GP_USER]) /* the parser checked it is a name */
		snprintf(l->player, sizeof l->player, "%.*s", PROTO_NAME_MAX, args.text[GP_USER]);
	if (args.set[GP_KIND]) /* and a kind's */
		snprintf(l->kind, sizeof l->kind, "%.*s", STORE_KIND_MAX - 1, args.text[GP_KIND]);
	l->left = args.set[GP_MAX] ? args.num[GP_MAX] : INT64_MAX;
	l->more = true;
	list_read(x);
	if (!l->reading)
		api_error(x, 500, ERR_INTERNAL, NULL, 0, "the store could not be read");
}

void api_games_drain(struct api_x *x)
{
	if (x->list != NULL && !x->ending)
		list_pump(x);
}

void api_games_gone(struct api_x *x)
{
	if (x->list == NULL)
		return;
	job_free(x->list->cur);
	job_free(x->list->next);
	free(x->list);
	x->list = NULL;
}

/* ---- /api/game/{id} ---------------------------------------------------------------------- */

static void game_work(struct store *db, struct job *j)
{
	int r = store_game_fetch(db, j->id, &j->g);
	j->found = r == STORE_OK;
	if (r != STORE_ENOTFOUND)
		job_err(j, db, r);
}

static void game_done(struct job *j, struct api_x *x)
{
	bool ptn = j->limit == 1;
	if (failed(x, j)) {
	} else if (!j->found) {
		api_error(x, 404, ERR_NO_SUCH_GAME, NULL, 0, "no game %lld in the records",
		          (long long)j->id);
	} else if (ptn) {
		char *text = NULL;
		size_t len = 0;
		if (api_game_ptn(&j->g, &text, &len) == 0)
			api_answer(x, 200, API_PTN, outbuf_new(text, len));
		else
			api_error(x, 500, ERR_INTERNAL, NULL, 0, "the record could not be written");
		free(text);
	} else {
		char space[16384];
		struct json_buf jb;
		json_buf_init(&jb, space, sizeof space);
		if (api_game_json(&jb, &j->g, true))
			api_answer(x, 200, API_JSON, outbuf_new(jb.p, jb.len));
		else
			api_error(x, 500, ERR_INTERNAL, NULL, 0, "out of memory");
		json_buf_free(&jb);
	}
	job_free(j);
}

void api_game(struct api_x *x, const char *arg)
{
	char id[32];
	size_t n = strlen(arg);
	bool ptn = n > 4 && strcmp(arg + n - 4, ".ptn") == 0;
	snprintf(id, sizeof id, "%.*s", (int)(ptn ? n - 4 : n), arg);
	uint64_t v;
	if (n >= sizeof id || !proto_parse_id(id, &v)) {
		api_error(x, 400, ERR_BAD_ARGS, NULL, 0,
		          "game ids are positive whole numbers: /api/game/ID or /api/game/ID.ptn");
		return;
	}
	if (no_store(x))
		return;
	struct job *j = job_new(x, game_work, game_done);
	if (j != NULL) {
		j->id = (int64_t)v;
		j->limit = ptn ? 1 : 0;
	}
	job_submit(x, j);
}

/* ---- /api/user/{name} -------------------------------------------------------------------- */

static void user_work(struct store *db, struct job *j)
{
	j->acct = store_name_valid(j->player) ? store_account_exists(db, j->player, j->canon) : 0;
	job_err(j, db, j->acct);
	if (j->acct == 1)
		snprintf(j->player, sizeof j->player, "%s", j->canon);
	j->nrows = j->acct == 1 ? store_ratings_of(db, j->player, j->rows, API_USER_RATINGS) : 0;
	job_err(j, db, j->nrows);
	if (j->err == 0)
		job_err(j, db, store_player_counts(db, j->player, &j->counts));
}

static cJSON *rating_json(const struct store_rating_row *row, bool name)
{
	cJSON *o = cJSON_CreateObject();
	if (name)
		cJSON_AddStringToObject(o, "name", row->name);
	else
		cJSON_AddStringToObject(o, "kind", row->kind);
	cJSON_AddNumberToObject(o, "rating", row->r.rating);
	cJSON_AddNumberToObject(o, "rd", row->r.rd);
	cJSON_AddNumberToObject(o, "volatility", row->r.volatility);
	cJSON_AddNumberToObject(o, "games", row->r.games);
	return o;
}

static void user_done(struct job *j, struct api_x *x)
{
	if (failed(x, j)) {
		job_free(j);
		return;
	}
	struct client *u = lobby_find_user(x->a->lobby, j->player);
	if (j->acct != 1 && u == NULL && j->counts.games == 0) {
		api_error(x, 404, ERR_NO_SUCH_USER, NULL, 0,
		          "nobody called %s is registered, online or in the records", j->player);
		job_free(j);
		return;
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", u != NULL ? u->name : j->player);
	cJSON_AddBoolToObject(o, "registered", j->acct == 1);
	cJSON_AddBoolToObject(o, "online", u != NULL);
	cJSON *playing = cJSON_AddArrayToObject(o, "playing");
	for (unsigned k = 0; u != NULL && k < u->ngames; k++)
		if (session_seat_of(u->games[k], u) >= 0 && !session_over(u->games[k]))
			cJSON_AddItemToArray(playing,
			                     cJSON_CreateNumber((double)session_id(u->games[k])));
	cJSON *ra = cJSON_AddArrayToObject(o, "ratings");
	for (int i = 0; i < j->nrows; i++)
		cJSON_AddItemToArray(ra, rating_json(&j->rows[i], false));
	cJSON *c = cJSON_AddObjectToObject(o, "counts");
	cJSON_AddNumberToObject(c, "games", (double)j->counts.games);
	cJSON_AddNumberToObject(c, "rated", (double)j->counts.rated);
	cJSON_AddNumberToObject(c, "wins", (double)j->counts.wins);
	cJSON_AddNumberToObject(c, "losses", (double)j->counts.losses);
	cJSON_AddNumberToObject(c, "draws", (double)j->counts.draws);
	job_free(j);
	api_json(x, 200, o);
}

void api_user(struct api_x *x, const char *arg)
{
	if (!proto_name_valid(arg)) {
		api_error(x, 400, ERR_BAD_NAME, NULL, 0,
		          "names are %d to %d characters of A-Z, a-z, 0-9, _ and -", PROTO_NAME_MIN,
		          PROTO_NAME_MAX);
		return;
	}
	if (no_store(x))
		return;
	struct job *j = job_new(x, user_work, user_done);
	if (j != NULL)
		snprintf(j->player, sizeof j->player, "%s", arg);
	job_submit(x, j);
}

/* ---- /api/ratings/{kind} ----------------------------------------------------------------- */

static void ratings_work(struct store *db, struct job *j)
{
	j->nrows = store_rating_top(db, j->kind, j->rows, (size_t)j->limit);
	job_err(j, db, j->nrows);
}

static void ratings_done(struct job *j, struct api_x *x)
{
	if (!failed(x, j)) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "kind", j->kind);
		cJSON *a = cJSON_AddArrayToObject(o, "ratings");
		for (int i = 0; i < j->nrows; i++)
			cJSON_AddItemToArray(a, rating_json(&j->rows[i], true));
		api_json(x, 200, o);
	}
	job_free(j);
}

static const struct api_param ratings_params[] = {{"max", AP_COUNT, 1, API_RATINGS_MAX}};

void api_ratings(struct api_x *x, const char *arg, const char *query)
{
	const struct game_ops *ops = game_find(arg);
	if (ops == NULL) {
		api_error(x, 404, ERR_UNKNOWN_GAME, NULL, 0, "no game called '%.32s'", arg);
		return;
	}
	struct api_args args;
	char why[300];
	enum err_code e = api_query_parse(query, ratings_params, 1, &args, why, sizeof why);
	if (e != ERR_COUNT) {
		api_error(x, 400, e, NULL, 0, "%s", why);
		return;
	}
	if (no_store(x))
		return;
	struct job *j = job_new(x, ratings_work, ratings_done);
	if (j != NULL) {
		snprintf(j->kind, sizeof j->kind, "%s", ops->name);
		j->limit = args.set[0] ? (int)args.num[0] : API_RATINGS_DEF;
	}
	job_submit(x, j);
}
