/*
 * api_live.c - the API's endpoints on what is in memory (see api.h): who is online, the
 * games being played, and the streams of states. A stream (/api/stream/game/{id}) is a
 * spectator of its game through the session's fan-out (session_watch.h): it gets the
 * spectators' rendering of each state (viewer -1: game_ops.view() has taken out what is
 * hidden, the same bytes every spectator gets), coalesced when its reader is slow, then the
 * game_over line, and the exchange ends. Chat and every other message are not written.
 * In a cluster (struct api_cluster, wired by server.c) /api/games/live is every live node's
 * games, read from the cluster's bus and answered when Redis has answered (the exchange found
 * again by its connection's id: gone meanwhile, nothing is written); a stream of a game this
 * node does not run is a spectator of the cluster (the `watch` verb, as a client of this node
 * does it): the lines another node rendered come through the front-end's foreign hook, its
 * states and the end are kept, and the head waits for the watch's answer (an error is a 404
 * or a 503 instead).
 *
 * The TV (/api/tv) is one featured game for all its viewers: the game in progress whose
 * seats have the highest ratings in its kind (their mean, a guest's counting as 0, read on a
 * reader thread; ties go to more spectators, then the newer game), a line {"type":"featured"}
 * when it starts being shown, then its states; when it ends the next one is picked, and
 * while there is none a timer looks again every API_TV_RETRY_MS.
 */
#include "server/api/api_internal.h"

#include <stdlib.h>
#include <string.h>

#include "server/play/session_clock.h"
#include "server/play/session_view.h"
#include "server/play/session_watch.h"
#include "server/store/store.h"

#define API_TV_RETRY_MS   1000 /* no game to feature: looked for again this often */
#define API_TV_CANDIDATES 256  /* games in progress a pick considers at most */

/* ---- who is online, the games being played ---------------------------------------------- */

void api_online(struct api_x *x)
{
	cJSON *j = cJSON_CreateObject();
	cJSON *users = cJSON_AddArrayToObject(j, "users");
	int n = 0;
	for (struct conn *c = x->a->hub->conns; c != NULL; c = c->next) {
		const struct client *u = client_of(c);
		if (u == NULL || !u->logged_in || u->remote || !conn_alive(c))
			continue;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", u->name);
		cJSON_AddBoolToObject(o, "registered", u->registered);
		cJSON *playing = cJSON_AddArrayToObject(o, "playing");
		for (unsigned k = 0; k < u->ngames; k++)
			if (session_seat_of(u->games[k], u) >= 0 && !session_over(u->games[k]))
				cJSON_AddItemToArray(playing, cJSON_CreateNumber((double)session_id(
				                                      u->games[k])));
		cJSON_AddNumberToObject(o, "watching", u->nwatching);
		cJSON_AddItemToArray(users, o);
		n++;
	}
	cJSON_AddNumberToObject(j, "count", n);
	api_json(x, 200, j);
}

/* The answer of /api/games/live: games (an array, taken) and their count. */
static void live_answer(struct api_x *x, cJSON *games)
{
	cJSON *j = cJSON_CreateObject();
	int n = cJSON_GetArraySize(games);
	cJSON_AddItemToObject(j, "games", games);
	cJSON_AddNumberToObject(j, "count", n);
	api_json(x, 200, j);
}

/* An /api/games/live asked of the cluster: its exchange found again by its connection's id. */
struct live_wait {
	struct api *a;
	uint64_t conn;
};

static void live_done(void *arg, cJSON *games)
{
	struct live_wait *w = arg;
	struct conn *c = w->a->stopping ? NULL : conn_find(w->a->hub, w->conn);
	struct client *cl = c != NULL ? client_of(c) : NULL;
	struct api_x *x = cl != NULL ? cl->fe_data : NULL;
	free(w);
	if (x == NULL || x->answered) { /* gone meanwhile: nobody to answer */
		cJSON_Delete(games);
		return;
	}
	if (games == NULL) {
		api_error(x, 503, ERR_CLUSTER_DOWN, NULL, 1,
		          "the cluster's bus (Redis) cannot be reached; try again shortly");
		return;
	}
	live_answer(x, games);
}

void api_live_games(struct api_x *x)
{
	struct api *a = x->a;
	if (a->cluster.live_games != NULL) { /* every node's, from the cluster's bus */
		struct live_wait *w = malloc(sizeof *w);
		if (w == NULL) {
			api_error(x, 500, ERR_INTERNAL, NULL, 0, "out of memory");
			return;
		}
		*w = (struct live_wait){.a = a, .conn = x->cl->conn->id};
		if (!a->cluster.live_games(a->cluster.ud, live_done, w)) {
			free(w);
			api_error(x, 503, ERR_CLUSTER_DOWN, NULL, 1,
			          "the cluster's bus (Redis) cannot be reached; try again shortly");
		}
		return;
	}
	cJSON *games = cJSON_CreateArray();
	for (struct game *g = sessions_first(a->sess); g != NULL; g = session_next(g))
		if (!session_over(g))
			cJSON_AddItemToArray(games, session_view_live_row(g));
	live_answer(x, games);
}

/* ---- streams ---------------------------------------------------------------------------- */

/* x follows g as a spectator: its current state now, every state after. */
static void follow(struct api_x *x, struct game *g)
{
	x->game = session_id(g);
	session_watch_start(x->cl, NULL, g, -1); /* the reply is not written (api_live_render) */
	if (!session_over(g))
		return;
	/* a game that ended already (kept a while): its end, and that is all */
	cJSON *j;
	char *t;
	session_view_game_over(g, &j, &t);
	struct outbuf *b = json_outbuf(j);
	cJSON_Delete(j);
	free(t);
	api_send(x, b);
	outbuf_unref(b);
	if (x->kind == API_STREAM)
		api_end(x);
}

void api_stream(struct api_x *x, const char *arg)
{
	uint64_t id;
	if (!proto_parse_id(arg, &id)) {
		api_error(x, 400, ERR_BAD_ARGS, NULL, 0, "game ids are positive whole numbers");
		return;
	}
	struct game *g = session_find(x->a->sess, id);
	if (g == NULL && x->a->cluster.watch != NULL) {
		/* another node's, maybe: a spectator of the cluster; the head waits for the
		   watch's answer (an error is the whole answer) */
		x->kind = API_STREAM;
		x->game = id;
		x->a->cluster.watch(x->a->cluster.ud, x->cl, id);
		return;
	}
	if (g == NULL) {
		api_error(x, 404, ERR_NO_SUCH_GAME, NULL, 0,
		          "game %llu is not being played on this server; /api/game/%llu has its "
		          "record once stored",
		          (unsigned long long)id, (unsigned long long)id);
		return;
	}
	x->kind = API_STREAM;
	if (api_begin(x, API_NDJSON))
		follow(x, g);
	else
		api_end(x);
}

bool api_live_head(struct api_x *x)
{
	if (x->answered)
		return !x->ending;
	if (api_begin(x, API_NDJSON))
		return true;
	api_end(x);
	return false;
}

struct outbuf *api_live_render(struct api_x *x, const struct msg *m)
{
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(m->json, "type");
	if (!cJSON_IsString(type))
		return NULL;
	bool error = strcmp(type->valuestring, "error") == 0;
	if (x->kind == API_STREAM && !x->answered && x->game != 0) { /* a remote game's watch */
		if (error) { /* refused (no such game, the cluster down): that is the answer */
			const char *code =
			        cJSON_GetStringValue(cJSON_GetObjectItem(m->json, "code"));
			bool none = code != NULL && strcmp(code, err_name(ERR_NO_SUCH_GAME)) == 0;
			cJSON *e = cJSON_Duplicate(m->json, true); /* without the watch's "cmd" */
			cJSON_DeleteItemFromObject(e, "cmd");
			api_answer(x, none ? 404 : 503, API_JSON, json_outbuf(e));
			cJSON_Delete(e);
			return NULL;
		}
		if (strcmp(type->valuestring, "game_over") != 0)
			return NULL; /* the watch's ok: the head waits for the first state */
	}
	if (x->kind == API_STREAM && !api_live_head(x))
		return NULL;
	if (strcmp(type->valuestring, "game_over") == 0) {
		const cJSON *game = cJSON_GetObjectItemCaseSensitive(m->json, "game");
		if (!cJSON_IsNumber(game) || (uint64_t)game->valuedouble != x->game)
			return NULL;
		if (x->kind == API_STREAM) {
			api_end(x);
		} else if (x->game == x->a->tv.game) { /* the featured game ended */
			x->a->tv.stale = true;
			if (x->a->later_open)
				uv_idle_start(&x->a->later, x->a->later_cb);
		}
		return json_outbuf(m->json);
	}
	if (error && x->game != 0 && x->kind == API_STREAM) {
		api_end(x); /* the watch was refused (memory): said, and the stream ends */
		return json_outbuf(m->json);
	}
	return NULL; /* replies, chat, spectator counts, presence: not a stream's */
}

/* One line another node rendered for x: a state of its game as it is, the rest as a message. */
static void foreign_line(void *arg, cJSON *j, const char *line, size_t len)
{
	struct api_x *x = arg;
	const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(j, "type"));
	const cJSON *game = cJSON_GetObjectItem(j, "game");
	struct outbuf *out = NULL;
	if (type != NULL && strcmp(type, "state") == 0) { /* a spectator's state, as is */
		if (cJSON_IsNumber(game) && (uint64_t)game->valuedouble == x->game &&
		    api_live_head(x))
			out = outbuf_new(line, len);
	} else if (j != NULL) {
		struct msg m = {.json = j};
		out = api_live_render(x, &m);
	}
	api_send(x, out);
	outbuf_unref(out);
	cJSON_Delete(j);
}

void api_live_foreign(struct api_x *x, const struct outbuf *b)
{
	msg_json_lines(b, foreign_line, x);
}

/* ---- the TV ------------------------------------------------------------------------------- */

/* One game a pick considers, and what is read for it. */
struct candidate {
	uint64_t id;
	char kind[STORE_KIND_MAX];
	char names[GAME_MAX_PLAYERS][PROTO_NAME_MAX + 1];
	bool registered[GAME_MAX_PLAYERS];
	size_t watchers;
	double score;
};

struct pick {
	struct store_read rd;
	struct api *a;
	size_t n;
	struct candidate c[API_TV_CANDIDATES];
};

/* Shows g to x: a featured line, then its states. */
static void tv_show(struct api_x *x, struct game *g)
{
	if (x->game == session_id(g))
		return;
	struct game *old = x->game != 0 ? session_find(x->a->sess, x->game) : NULL;
	if (old != NULL)
		session_watch_drop(old, x->cl);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "featured");
	cJSON_AddNumberToObject(j, "game", (double)session_id(g));
	cJSON_AddStringToObject(j, "kind", session_ops(g)->name);
	cJSON_AddItemToObject(j, "players", session_view_players_json(g));
	struct outbuf *b = json_outbuf(j);
	cJSON_Delete(j);
	api_send(x, b);
	outbuf_unref(b);
	follow(x, g);
}

static void tv_retry_cb(uv_timer_t *t);

/* The pick is made: every viewer is shown the best game still being played. */
static void tv_choose(struct api *a, struct pick *p)
{
	struct game *best = NULL;
	const struct candidate *bc = NULL;
	for (size_t i = 0; i < p->n; i++) {
		const struct candidate *c = &p->c[i];
		struct game *g = session_find(a->sess, c->id);
		if (g == NULL || session_over(g))
			continue;
		if (bc == NULL || c->score > bc->score ||
		    (c->score == bc->score && (c->watchers > bc->watchers ||
		                               (c->watchers == bc->watchers && c->id > bc->id)))) {
			bc = c;
			best = g;
		}
	}
	a->tv.picking = false;
	a->tv.game = best != NULL ? session_id(best) : 0;
	if (best == NULL) {
		if (a->tv.viewers != NULL && a->tv.retry_open && !a->stopping)
			uv_timer_start(&a->tv.retry, tv_retry_cb, API_TV_RETRY_MS, 0);
		return;
	}
	for (struct api_x *x = a->tv.viewers; x != NULL; x = x->tv_next)
		tv_show(x, best);
}

static void pick_work(struct store *db, struct store_read *rd)
{
	struct pick *p = (struct pick *)rd;
	for (size_t i = 0; i < p->n; i++) {
		struct candidate *c = &p->c[i];
		double sum = 0;
		for (int s = 0; s < GAME_MAX_PLAYERS; s++) {
			struct store_rating r;
			if (c->registered[s] && store_rating_get(db, c->names[s], c->kind, &r) == 0)
				sum += r.rating;
		}
		c->score = sum / GAME_MAX_PLAYERS;
	}
}

static void pick_done(struct store_read *rd)
{
	struct pick *p = (struct pick *)rd;
	if (!p->a->stopping)
		tv_choose(p->a, p);
	else
		p->a->tv.picking = false;
	free(p);
}

/* Looks for the game to feature (its ratings read on a reader thread). */
static void tv_pick(struct api *a)
{
	if (a->tv.picking || a->tv.viewers == NULL || a->stopping)
		return;
	struct pick *p = calloc(1, sizeof *p);
	if (p == NULL)
		return;
	p->a = a;
	for (struct game *g = sessions_first(a->sess); g != NULL && p->n < API_TV_CANDIDATES;
	     g = session_next(g)) {
		if (session_over(g))
			continue;
		struct candidate *c = &p->c[p->n++];
		c->id = session_id(g);
		snprintf(c->kind, sizeof c->kind, "%s", session_ops(g)->name);
		for (int s = 0; s < session_ops(g)->nplayers && s < GAME_MAX_PLAYERS; s++) {
			snprintf(c->names[s], sizeof c->names[s], "%s", session_seat(g, s)->name);
			c->registered[s] = session_seat(g, s)->registered;
		}
		c->watchers = session_watchers(g);
	}
	a->tv.picking = true;
	p->rd.work = pick_work;
	p->rd.done = pick_done;
	if (p->n == 0 || a->rd == NULL || store_reader_submit(a->rd, &p->rd) != STORE_OK) {
		tv_choose(a, p); /* nothing to read (or no store): the scores stay 0 */
		free(p);
	}
}

static void tv_retry_cb(uv_timer_t *t)
{
	tv_pick(t->data);
}

void api_tv(struct api_x *x)
{
	struct api *a = x->a;
	x->kind = API_TV;
	if (!api_begin(x, API_NDJSON)) {
		api_end(x);
		return;
	}
	x->tv_next = a->tv.viewers;
	if (a->tv.viewers != NULL)
		a->tv.viewers->tv_prev = x;
	a->tv.viewers = x;
	if (!a->tv.retry_open && uv_timer_init(a->loop, &a->tv.retry) == 0) {
		a->tv.retry.data = a;
		a->tv.retry_open = true;
	}
	struct game *g = a->tv.game != 0 ? session_find(a->sess, a->tv.game) : NULL;
	if (g != NULL && !session_over(g) && !a->tv.stale)
		tv_show(x, g);
	else
		tv_pick(a);
}

void api_tv_later(struct api *a)
{
	if (!a->tv.stale)
		return;
	a->tv.stale = false;
	tv_pick(a);
}

void api_live_gone(struct api_x *x)
{
	if (x->kind != API_TV)
		return;
	if (x->tv_prev != NULL)
		x->tv_prev->tv_next = x->tv_next;
	else if (x->a->tv.viewers == x)
		x->a->tv.viewers = x->tv_next;
	if (x->tv_next != NULL)
		x->tv_next->tv_prev = x->tv_prev;
	x->tv_next = x->tv_prev = NULL;
}

void api_live_stop(struct api *a)
{
	if (a->tv.retry_open) {
		uv_close((uv_handle_t *)&a->tv.retry, NULL);
		a->tv.retry_open = false;
	}
}
