/*
 * api/ - results for everyone's tools: the read-only HTTP API under /api on the --http
 * listener (PROTOCOL.md §14, protocol/openapi.yaml) and the exports of `bitarenad export`
 * and `bitarenad backup`. Beside ports/ (a front door of its own, they never call each
 * other), above the cluster and everything below: it reads the sessions and the lobby (the
 * games being played, who is online), watches games as a spectator through the session's
 * fan-out, and reads the store on its reader threads. Only server.c (and main.c, for the
 * exports) calls it; news reaches it as a front-end (struct msg_frontend) of its exchanges
 * and through the callbacks of the store's reads.
 *   api.c         the front door: routes, the rate limit, CORS, the front-end of exchanges
 *   api_games.c   the store's endpoints: /api/games (a stream of pages), /api/game/{id},
 *                 /api/user/{name}, /api/ratings/{kind}
 *   api_live.c    what is in memory: /api/online, /api/games/live, and the streams
 *                 /api/stream/game/{id} and /api/tv (a spectator's view, never a seat's)
 *   api_out.c     answers: JSON, NDJSON heads, errors with the protocol's codes, the end
 *   api_query.c   query strings against each endpoint's parameters (400s), times
 *   api_limit.c   the command budget per address
 *   api_render.c  a stored game as JSON or as PTN with clocks (the API and the exports)
 *   api_metrics.c GET /metrics: the registry in Prometheus's text format, --metrics-from
 *   export.c      bitarenad export and bitarenad backup
 *
 * api.h - the HTTP API of bitarenad. Each request is a connection of the hub (an HTTP
 * exchange, net/http.h) with a struct client whose front-end is the API's: on_open reads
 * the request and routes it; an answer that needs the store waits for a reader thread; a
 * list streams page by page as its reader catches up, each page read once the last is
 * written; a stream of states is a spectator of the game (it hears what spectators hear,
 * rendered once for all of them, and a slow reader gets only the newest state, as a slow
 * spectator does, and is dropped past the output caps).
 *
 * Every endpoint takes its cost from the command budget of its peer's address
 * (api_limit.h): 429 RATE_LIMITED with the wait when it runs out. Errors are JSON objects
 * {"type":"error","code":..,"message":..} with the protocol's codes (errors.def); unknown
 * paths are 404 UNKNOWN_COMMAND. Every answer carries access-control-allow-origin: *
 * (read-only, no credentials) and OPTIONS answers a preflight.
 *
 * Memory: struct api is the server's; each exchange's state (its client's fe_data) is freed
 * when its connection closes; a read in flight finds its exchange again by the connection's
 * id, or frees itself. api_stop() closes the handles (uv_run() can then return).
 */
#ifndef BITARENA_SERVER_API_H
#define BITARENA_SERVER_API_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "server/msg/client.h"
#include "server/net/conn.h"
#include "server/play/lobby.h"
#include "server/play/session.h"
#include "server/store/store_reader.h"
#include "server/api/api_metrics.h"
#include "server/util/budget.h"
#include "server/util/metrics.h"

struct api_x;
struct api_limit;

/* The featured game of /api/tv and its viewers (api_live.c). */
struct api_tv {
	uint64_t game;         /* the featured game, 0: none yet */
	bool picking;          /* a pick's reads are under way */
	bool stale;            /* the featured game ended: pick again */
	struct api_x *viewers; /* every /api/tv exchange */
	uv_timer_t retry;      /* no game to feature: look again a second later */
	bool retry_open;
};

/*
 * What the cluster answers for the API (server.c wires it in cluster mode; the API is above
 * the cluster and never names it; ud is given to both). live_games asks for every live node's
 * games in progress and returns true, then calls done(arg, games) once, later, with an array of
 * session_view_live_row()s (taken by done), or NULL when the cluster's bus cannot be read;
 * false: not asked (the bus is down), done is never called.
 */
typedef void (*api_games_done)(void *arg, cJSON *games);
struct api_cluster {
	void *ud;
	bool (*live_games)(void *ud, api_games_done done, void *arg);
	/* cl (an exchange) watches game, not ours, as a spectator of the cluster (the `watch`
	   verb: its answers and the game's lines come back through the front-end) */
	void (*watch)(void *ud, struct client *cl, uint64_t game);
};

struct api {
	uv_loop_t *loop;
	struct conn_hub *hub;
	struct sessions *sess;
	struct lobby *lobby;
	struct store_reader *rd;     /* NULL: no store (its endpoints answer NO_STORAGE) */
	struct budget_config budget; /* the command budget's rules, per address */
	struct api_limit *lim;
	uv_idle_t later;     /* what waits for the end of a broadcast: closing, the TV's switch */
	uv_idle_cb later_cb; /* api.c's, started by the files below it */
	bool later_open;
	struct api_x *ending; /* exchanges to close once their output is out */
	uv_timer_t recheck;   /* an ending one's output is held behind the journal: look again */
	struct api_tv tv;
	struct api_cluster cluster;          /* .live_games NULL: a single node */
	const struct metrics *metrics;       /* GET /metrics' (NULL: 404) */
	struct api_metrics_acl metrics_from; /* who may read it (--metrics-from) */
	struct metric rate_limited;          /* requests answered 429 */
	bool stopping;
};

/* Sets up a on the server's layers; the store comes later (api_set_store). 0 or UV_ENOMEM. */
int api_init(struct api *a, uv_loop_t *loop, struct conn_hub *hub, struct sessions *sess,
             struct lobby *lobby, const struct budget_config *budget);
/* The cluster's answers (api_cluster above); a copy of *cl is kept. */
void api_set_cluster(struct api *a, const struct api_cluster *cl);
/* The store's readers (NULL: none). */
void api_set_store(struct api *a, struct store_reader *rd);
/*
 * GET /metrics renders r, for the addresses of from (api_metrics.h: NULL, loopback only);
 * the API's own counts join r. 0, or -1 with a sentence in why (from does not parse).
 */
int api_set_metrics(struct api *a, struct metrics *r, const char *from, char *why, size_t len);
/* Whether connection c is an exchange of the API (an HTTP request under /api). */
bool api_owns(const struct conn *c);
/* c's exchange opens (on_open): its request is read and answered, or begun. */
void api_open(struct api *a, struct client *cl);
/* c was refused at the door (on_refuse): 503 with the code of why. */
void api_refuse(struct api *a, struct conn *c, enum conn_refusal why);
/* cl's output drained (on_drain): a list goes on, an exchange that ended closes. */
void api_drain(struct api *a, struct client *cl);
/* Shutdown: the handles close; the exchanges close with the hub. */
void api_stop(struct api *a);

#endif
