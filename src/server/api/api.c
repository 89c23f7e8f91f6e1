/*
 * api.c - the API's front door (see api.h): an exchange's request is checked (method, a
 * path and its arguments that fit), charged to its address's budget at its endpoint's cost,
 * and routed by the table below to the file that answers it. The exchange's client gets the
 * API's front-end: a stream renders the messages a spectator hears through api_live.c, and
 * nothing else an exchange is sent as a client (a reply, a notice) is written.
 */
#include "server/api/api_internal.h"

#include <stdlib.h>
#include <string.h>

#include "server/api/api_limit.h"
#include "server/play/session_view.h"

/* What a path not under a route costs (a 404 is cheap, not free). */
#define API_COST_MISS 1

/* A route: the path (exact), or a prefix and the rest as its argument. */
struct route {
	const char *path;
	bool arg;      /* path is a prefix ending in '/', the rest is the argument */
	bool query;    /* it takes parameters (its handler reads them) */
	unsigned cost; /* of the command budget, as the verb that does the same */
	void (*fn)(struct api_x *x, const char *arg, const char *query);
};

static void r_games(struct api_x *x, const char *arg, const char *q)
{
	(void)arg;
	/* Accept: application/x-ptn asks for the archive as /api/games.ptn does */
	const struct http_request *rq = http_request_of(x->cl->conn);
	api_games(x, q, rq != NULL && strstr(rq->accept, API_PTN) != NULL);
}

static void r_games_ptn(struct api_x *x, const char *arg, const char *q)
{
	(void)arg;
	api_games(x, q, true);
}

static void r_live(struct api_x *x, const char *arg, const char *q)
{
	(void)arg, (void)q;
	api_live_games(x);
}

static void r_game(struct api_x *x, const char *arg, const char *q)
{
	(void)q;
	api_game(x, arg);
}

static void r_user(struct api_x *x, const char *arg, const char *q)
{
	(void)q;
	api_user(x, arg);
}

static void r_ratings(struct api_x *x, const char *arg, const char *q)
{
	api_ratings(x, arg, q);
}

static void r_online(struct api_x *x, const char *arg, const char *q)
{
	(void)arg, (void)q;
	api_online(x);
}

static void r_stream(struct api_x *x, const char *arg, const char *q)
{
	(void)q;
	api_stream(x, arg);
}

static void r_tv(struct api_x *x, const char *arg, const char *q)
{
	(void)arg, (void)q;
	api_tv(x);
}

/* GET /metrics: the page, to the addresses of --metrics-from only (and never to another
   origin's page: no CORS header). */
static void r_metrics(struct api_x *x, const char *arg, const char *q)
{
	(void)arg, (void)q;
	struct api *a = x->a;
	if (!api_metrics_acl_allows(&a->metrics_from, x->cl->conn->peer)) {
		api_error(x, 403, ERR_ADDRESS_NOT_ALLOWED, NULL, 0,
		          "/metrics is not served to your address (%.64s): see --metrics-from",
		          x->cl->conn->peer);
		return;
	}
	struct api_process p;
	bool proc = api_metrics_process(&p);
	size_t n = api_metrics_render(a->metrics, proc ? &p : NULL, NULL, 0);
	char *page = malloc(n + 1);
	struct outbuf *b = NULL;
	if (page != NULL) {
		api_metrics_render(a->metrics, proc ? &p : NULL, page, n + 1);
		b = outbuf_new(page, n);
		free(page);
	}
	if (b == NULL) {
		api_error(x, 500, ERR_INTERNAL, NULL, 0, "out of memory");
		return;
	}
	api_answer(x, 200, API_METRICS_TYPE, b);
}

/* The costs are those of the verbs that read the same: replay 10, record, finger, ratings,
   who 5, list 3, watch 2. */
static const struct route routes[] = {
        {"/api/games", false, true, 10, r_games},
        {"/api/games.ptn", false, true, 10, r_games_ptn},
        {"/api/games/live", false, false, 3, r_live},
        {"/api/game/", true, false, 5, r_game},
        {"/api/user/", true, false, 5, r_user},
        {"/api/ratings/", true, true, 5, r_ratings},
        {"/api/online", false, false, 5, r_online},
        {"/api/stream/game/", true, false, 2, r_stream},
        {"/api/tv", false, false, 2, r_tv},
        {"/metrics", false, false, 1, r_metrics},
};

static const struct route *route_of(const char *path, const char **arg)
{
	for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
		const struct route *r = &routes[i];
		size_t n = strlen(r->path);
		if (!r->arg && strcmp(path, r->path) == 0) {
			*arg = "";
			return r;
		}
		if (r->arg && strncmp(path, r->path, n) == 0 && path[n] != '\0' &&
		    strchr(path + n, '/') == NULL) {
			*arg = path + n;
			return r;
		}
	}
	return NULL;
}

/* ---- the front-end of exchanges ----------------------------------------------------------- */

static struct outbuf *fe_render(struct client *cl, const struct msg *m)
{
	struct api_x *x = cl->fe_data;
	if (x == NULL || (x->kind != API_STREAM && x->kind != API_TV) || m->json == NULL)
		return NULL;
	return api_live_render(x, m);
}

static struct outbuf *fe_render_state(struct client *cl, struct game *g, struct snapshot *sn,
                                      int viewer)
{
	(void)viewer; /* an exchange has no seat: what spectators see, always */
	struct api_x *x = cl->fe_data;
	if (x == NULL || (x->kind != API_STREAM && x->kind != API_TV))
		return NULL;
	if (!api_live_head(x))
		return NULL;
	struct outbuf *b = session_view_snap_out(g, sn, -1, true);
	return b != NULL ? outbuf_ref(b) : NULL;
}

static void fe_foreign(struct client *cl, struct outbuf *b)
{
	struct api_x *x = cl->fe_data;
	if (x != NULL && x->kind == API_STREAM)
		api_live_foreign(x, b);
}

static void fe_line(struct client *cl, char *line, size_t len)
{
	(void)cl, (void)line, (void)len; /* an exchange sends no lines (http.h) */
}

static void fe_gone(struct client *cl)
{
	struct api_x *x = cl->fe_data;
	if (x == NULL)
		return;
	api_out_gone(x);
	api_games_gone(x);
	api_live_gone(x);
	cl->fe_data = NULL;
	free(x);
}

static const struct msg_frontend api_frontend = {
        .name = "api",
        .render = fe_render,
        .render_state = fe_render_state,
        .line = fe_line,
        .gone = fe_gone,
        .foreign = fe_foreign,
};

/* ---- requests ----------------------------------------------------------------------------- */

/* Takes cost from x's address; false when refused (answered 429). */
static bool charge(struct api_x *x, unsigned cost)
{
	struct api *a = x->a;
	uint64_t wait = 0;
	enum budget_result r = a->lim != NULL
	                               ? api_limit_take(a->lim, &a->budget, &x->cl->conn->addr,
	                                                uv_now(a->loop), cost, &wait)
	                               : BUDGET_OK;
	if (r == BUDGET_OK)
		return true;
	metric_inc(&a->rate_limited);
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "retry_after_ms", (double)wait);
	cJSON_AddNumberToObject(f, "cost", cost);
	cJSON_AddNumberToObject(f, "rate", a->budget.rate);
	api_error(
	        x, 429, ERR_RATE_LIMITED, f, (int)((wait + 999) / 1000),
	        "too many requests from your address (%u a second, bursts of %u); retry after %llu "
	        "ms",
	        a->budget.rate, a->budget.burst, (unsigned long long)wait);
	return false;
}

/* A preflight: read-only GETs from any origin, with an Accept header. */
static void preflight(struct api_x *x)
{
	struct http_head h = {.status = 204, .length = 0};
	h.headers[0][0] = "access-control-allow-origin";
	h.headers[0][1] = "*";
	h.headers[1][0] = "access-control-allow-methods";
	h.headers[1][1] = "GET, OPTIONS";
	h.headers[2][0] = "access-control-allow-headers";
	h.headers[2][1] = "Accept";
	h.headers[3][0] = "access-control-max-age";
	h.headers[3][1] = "86400";
	x->answered = true;
	http_respond(x->cl->conn, &h);
	api_end(x);
}

static void route(struct api_x *x, const struct http_request *rq)
{
	const char *arg;
	const struct route *r = rq->too_long ? NULL : route_of(rq->path, &arg);
	x->private_ = r != NULL && r->fn == r_metrics; /* every answer of /metrics: no CORS */
	if (!charge(x, r != NULL ? r->cost : API_COST_MISS))
		return;
	if (rq->too_long) {
		api_error(x, 400, ERR_BAD_ARGS, NULL, 0,
		          "the path is at most %d bytes and its arguments %d", HTTP_PATH_MAX - 1,
		          HTTP_QUERY_MAX - 1);
		return;
	}
	if (rq->method == HTTP_OPTIONS) {
		preflight(x);
		return;
	}
	if (rq->method != HTTP_GET) {
		api_error(x, 405, ERR_UNKNOWN_COMMAND, NULL, 0,
		          "the API is read-only: GET (and OPTIONS for a preflight)");
		return;
	}
	if (r == NULL || (r->fn == r_metrics && x->a->metrics == NULL)) {
		api_error(x, 404, ERR_UNKNOWN_COMMAND, NULL, 0,
		          "no endpoint %.100s; protocol/openapi.yaml lists them", rq->path);
		return;
	}
	if (!r->query && rq->query[0] != '\0') {
		api_error(x, 400, ERR_BAD_ARGS, NULL, 0, "%s takes no parameters", r->path);
		return;
	}
	r->fn(x, arg, rq->query);
}

void api_open(struct api *a, struct client *cl)
{
	const struct http_request *rq = http_request_of(cl->conn);
	struct api_x *x = calloc(1, sizeof *x);
	if (x == NULL || rq == NULL || a->stopping) {
		free(x);
		client_close(cl, false);
		return;
	}
	x->a = a;
	x->cl = cl;
	x->kind = API_ANSWER;
	cl->fe = &api_frontend;
	cl->fe_data = x;
	cl->json = true;
	route(x, rq);
}

void api_refuse(struct api *a, struct conn *c, enum conn_refusal why)
{
	(void)a;
	bool full = why == CONN_REFUSED_FULL;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "error");
	cJSON_AddStringToObject(j, "code",
	                        err_name(full ? ERR_SERVER_FULL : ERR_TOO_MANY_CONNECTIONS));
	cJSON_AddStringToObject(j, "message",
	                        full ? "the server has all the connections it takes"
	                             : "your address has all the connections it may have");
	struct outbuf *b = json_outbuf(j);
	cJSON_Delete(j);
	struct http_head h = {
	        .status = 503, .type = API_JSON, .length = b != NULL ? (int64_t)b->len : 0};
	h.headers[0][0] = "access-control-allow-origin";
	h.headers[0][1] = "*";
	h.headers[1][0] = "retry-after";
	h.headers[1][1] = "1";
	if (http_respond(c, &h) == 0 && b != NULL)
		conn_send(c, b);
	outbuf_unref(b);
}

void api_drain(struct api *a, struct client *cl)
{
	struct api_x *x = cl->fe_data;
	if (x == NULL)
		return;
	if (x->kind == API_LIST)
		api_games_drain(x);
	if (x->ending)
		api_out_close_ended(a);
}

bool api_owns(const struct conn *c)
{
	return http_is(c);
}

/* After the event that asked: the ended exchanges close, the TV picks again. */
static void later_cb(uv_idle_t *h)
{
	struct api *a = h->data;
	uv_idle_stop(h);
	api_tv_later(a);
	api_out_close_ended(a);
}

int api_init(struct api *a, uv_loop_t *loop, struct conn_hub *hub, struct sessions *sess,
             struct lobby *lobby, const struct budget_config *budget)
{
	memset(a, 0, sizeof *a);
	a->loop = loop;
	a->hub = hub;
	a->sess = sess;
	a->lobby = lobby;
	a->budget = *budget;
	a->lim = api_limit_new(API_LIMIT_ENTRIES);
	if (a->lim == NULL)
		return UV_ENOMEM;
	uv_idle_init(loop, &a->later);
	a->later.data = a;
	a->later_cb = later_cb;
	uv_timer_init(loop, &a->recheck);
	a->recheck.data = a;
	a->later_open = true;
	/* a member of the family whose help the command table's gives (commands.c) */
	metric_init_labelled(&a->rate_limited, METRIC_COUNTER, "bitarena_rate_limited_total", NULL,
	                     "what", "http");
	return 0;
}

int api_set_metrics(struct api *a, struct metrics *r, const char *from, char *why, size_t len)
{
	if (api_metrics_acl_parse(from, &a->metrics_from, why, len) < 0)
		return -1;
	a->metrics = r;
	metrics_register(r, &a->rate_limited);
	return 0;
}

void api_set_cluster(struct api *a, const struct api_cluster *cl)
{
	a->cluster = *cl;
}

void api_set_store(struct api *a, struct store_reader *rd)
{
	a->rd = rd;
}

static void limit_free_cb(uv_handle_t *h)
{
	struct api *a = h->data;
	api_limit_free(a->lim);
	a->lim = NULL;
}

void api_stop(struct api *a)
{
	if (a->stopping)
		return;
	a->stopping = true;
	api_live_stop(a);
	if (a->later_open) {
		a->later_open = false;
		uv_close((uv_handle_t *)&a->recheck, NULL);
		uv_close((uv_handle_t *)&a->later, limit_free_cb);
	}
}
