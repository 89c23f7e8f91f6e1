/*
 * api_internal.h - what the API's files share (api.h has the folder): one exchange's state,
 * and each file's entries. Calls go down this list, never up: api.c > api_games.c,
 * api_live.c > api_out.c > api_query.c, api_limit.c, api_render.c, api_metrics.c.
 */
#ifndef BITARENA_SERVER_API_INTERNAL_H
#define BITARENA_SERVER_API_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "proto/errors.h"
#include "server/api/api.h"
#include "server/api/api_query.h"
#include "server/msg/msg.h"
#include "server/net/http.h"

#define API_JSON   "application/json"
#define API_NDJSON "application/x-ndjson"
#define API_PTN    "application/x-ptn"

enum api_kind {
	API_ANSWER, /* one answer, then the close */
	API_LIST,   /* /api/games: pages of the store (api_games.c) */
	API_STREAM, /* /api/stream/game/{id}: a game's states until its end (api_live.c) */
	API_TV,     /* /api/tv: the featured game's states, game after game (api_live.c) */
};

struct api_list;

/* One exchange: its client's fe_data (freed when the connection closes). */
struct api_x {
	struct api *a;
	struct client *cl;
	enum api_kind kind;
	bool answered;                   /* its head is out */
	bool private_;                   /* no CORS header: not for other origins' pages */
	bool ending;                     /* it closes once its output is out (api_out.c) */
	struct api_x *end_next;          /* a->ending */
	struct api_list *list;           /* API_LIST's (api_games.c) */
	uint64_t game;                   /* API_STREAM, API_TV: the game followed (0: none) */
	struct api_x *tv_next, *tv_prev; /* API_TV: a->tv.viewers */
};

/* ---- api_out.c: answers ---------------------------------------------------------------- */

/* A whole answer: status, its type, its body (taken; NULL: empty), then the close. */
void api_answer(struct api_x *x, int status, const char *type, struct outbuf *body);
/* api_answer() of j (taken) as JSON. */
void api_json(struct api_x *x, int status, cJSON *j);
/*
 * An error answer {"type":"error","code":..,"message":..} and the fields (taken, may be
 * NULL); retry_s > 0: a retry-after header.
 */
void api_error(struct api_x *x, int status, enum err_code code, cJSON *fields, int retry_s,
               const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* The head of a stream of type (200, until the close); false when it cannot go. */
bool api_begin(struct api_x *x, const char *type);
/* Sends b (a reference is taken; NULL is ignored) on x. */
void api_send(struct api_x *x, struct outbuf *b);
/* x closes once its output is out (never at once: it may be inside a broadcast). */
void api_end(struct api_x *x);
/* The exchanges that ended and whose output is out close (the idle handle, a drain). */
void api_out_close_ended(struct api *a);
/* x is going: it leaves the list of those that end. */
void api_out_gone(struct api_x *x);

/* ---- api_games.c: the store's endpoints ------------------------------------------------- */

void api_games(struct api_x *x, const char *query, bool ptn);
void api_game(struct api_x *x, const char *arg);
void api_user(struct api_x *x, const char *arg);
void api_ratings(struct api_x *x, const char *arg, const char *query);
/* A list's output drained: the next games go. */
void api_games_drain(struct api_x *x);
/* x is going: its pages go (a read in flight frees itself). */
void api_games_gone(struct api_x *x);

/* ---- api_live.c: what is in memory ----------------------------------------------------- */

void api_online(struct api_x *x);
void api_live_games(struct api_x *x);
void api_stream(struct api_x *x, const char *arg);
void api_tv(struct api_x *x);
/* A message for a stream or TV exchange (its front-end's render): the line, or NULL. */
struct outbuf *api_live_render(struct api_x *x, const struct msg *m);
/* A stream's head is out (a remote game's waits for the watch's answer): false if it cannot. */
bool api_live_head(struct api_x *x);
/* Lines another node rendered for a stream (the front-end's foreign): states, the end. */
void api_live_foreign(struct api_x *x, const struct outbuf *b);
/* The deferred part of the TV: a pick after the featured game ended. */
void api_tv_later(struct api *a);
/* x is going: it leaves the TV's viewers. */
void api_live_gone(struct api_x *x);
/* Shutdown: the TV's timer closes. */
void api_live_stop(struct api *a);

#endif
