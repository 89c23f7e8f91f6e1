/*
 * pools.c - rating pools for quick pairing (see pools.h): the list of pools,
 * the waiting players, their ratings read off the loop, the pairing timer,
 * the games started by a pairing, the verbs pool and pools.
 */
#include "server/events/pools.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arena/pool.h"
#include "games/game.h"
#include "server/events/events.h"
#include "server/msg/msg.h"
#include "server/play/identity.h"
#include "server/play/session.h"
#include "server/store/store_reader.h"
#include "server/util/log.h"
#include "server/util/text.h"

#define POOL_GAMES_MAX 4096 /* games of one pool counted as playing at once */

struct pool_def {
	char name[POOL_NAME_MAX + 1];
	char words[200]; /* "tak size=5 time=5+3" as given */
	const struct game_ops *ops;
	struct seek_opts so;
	uint64_t *games; /* ids of its games (the playing count), ngames of them */
	int ngames;
};

struct pool_waiter {
	struct pool_waiter *next;
	struct client *c; /* valid while waiting: pools_client_gone() takes it out */
	uint64_t conn_id;
	char name[PROTO_NAME_MAX + 1];
	int pool;
	double rating;
	int64_t since;
	bool guest, ready; /* ready: its rating is known */
	bool told;         /* a declined pairing was told (once a wait) */
};

/* What a name played in the pools (kept while the server runs). */
struct pool_hist {
	struct pool_hist *next;
	char name[PROTO_NAME_MAX + 1];
	bool guest;
	uint64_t id, last_opp;
	int color_diff;
};

/* A rating read off the loop (store_reader.h): owned by the reader until done(). */
struct rating_job {
	struct store_read rd;
	struct pools *ps;
	uint64_t conn_id;
	char name[PROTO_NAME_MAX + 1];
	const char *kind;
	struct store_rating r;
	int err;
};

static int64_t now_ms(const struct pools *ps)
{
	return (int64_t)uv_now(ps->tick.loop);
}

/* ---- the list of pools --------------------------------------------------------------- */

/* Parses one "NAME:KIND OPTIONS" into d; false with a sentence in why. */
static bool parse_def(const char *item, struct pool_def *d, char *why, size_t len)
{
	const char *colon = strchr(item, ':');
	size_t n = colon != NULL ? (size_t)(colon - item) : 0;
	if (colon == NULL || n == 0 || n > POOL_NAME_MAX) {
		snprintf(why, len, "a pool is NAME:KIND OPTIONS (a name of 1-%d characters): '%s'",
		         POOL_NAME_MAX, item);
		return false;
	}
	memset(d, 0, sizeof *d);
	memcpy(d->name, item, n);
	for (size_t i = 0; i < n; i++)
		if (!(d->name[i] == '-' || d->name[i] == '_' ||
		      (d->name[i] >= '0' && d->name[i] <= '9') ||
		      ((d->name[i] | 32) >= 'a' && (d->name[i] | 32) <= 'z'))) {
			snprintf(why, len, "pool names are of A-Z a-z 0-9 _ -: '%s'", d->name);
			return false;
		}
	snprintf(d->words, sizeof d->words, "%s", colon + 1);
	char buf[sizeof d->words + 8];
	snprintf(buf, sizeof buf, "%s", d->words);
	char *argv[PROTO_MAX_ARGS + 1];
	int argc = 0;
	char *save = NULL, *kind = strtok_r(buf, " ", &save);
	d->ops = kind != NULL ? game_find(kind) : NULL;
	if (d->ops == NULL || d->ops->nplayers != 2) {
		snprintf(why, len, "pool %s: no game kind of two players '%s'", d->name,
		         kind != NULL ? kind : "");
		return false;
	}
	char rated1[] = "rated=1"; /* a pool is rated unless it says rated=0 */
	argv[argc++] = rated1;
	for (char *w = strtok_r(NULL, " ", &save); w != NULL && argc < PROTO_MAX_ARGS;
	     w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	char err[160];
	if (seek_opts_parse(d->ops, argc, argv, &d->so, err, sizeof err) < 0) {
		snprintf(why, len, "pool %s: %s", d->name, err);
		return false;
	}
	d->so.color = 0;
	return true;
}

/* Parses spec into defs (room for POOLS_MAX); how many, or -1 with why. */
static int parse_spec(const char *spec, struct pool_def *defs, char *why, size_t len)
{
	if (spec == NULL)
		spec = POOLS_DEFAULT;
	if (strlen(spec) > POOLS_SPEC_MAX) {
		snprintf(why, len, "--pools is longer than %d characters", POOLS_SPEC_MAX);
		return -1;
	}
	char *buf = xasprintf("%s", spec);
	if (buf == NULL) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	int n = 0;
	for (char *save = NULL, *it = strtok_r(buf, ";", &save); it != NULL;
	     it = strtok_r(NULL, ";", &save)) {
		while (*it == ' ')
			it++;
		if (*it == '\0')
			continue;
		if (n == POOLS_MAX) {
			snprintf(why, len, "at most %d pools", POOLS_MAX);
			n = -1;
			break;
		}
		if (!parse_def(it, &defs[n], why, len)) {
			n = -1;
			break;
		}
		for (int i = 0; i < n; i++)
			if (strcasecmp(defs[i].name, defs[n].name) == 0) {
				snprintf(why, len, "two pools named %s", defs[n].name);
				free(buf);
				return -1;
			}
		n++;
	}
	free(buf);
	return n;
}

int pools_spec_check(const char *spec, char *why, size_t len)
{
	struct pool_def *defs = calloc(POOLS_MAX, sizeof *defs);
	if (defs == NULL) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	int n = parse_spec(spec, defs, why, len);
	free(defs);
	return n < 0 ? -1 : 0;
}

static int find_pool(const struct pools *ps, const char *name)
{
	for (int i = 0; i < ps->ndefs; i++)
		if (strcasecmp(ps->defs[i].name, name) == 0)
			return i;
	return -1;
}

/* Games of pool d still being played (finished ones are dropped from its list). */
static int playing(struct pools *ps, struct pool_def *d)
{
	int k = 0;
	for (int i = 0; i < d->ngames; i++) {
		struct game *g = session_find(ps->sess, d->games[i]);
		if (g != NULL && !session_over(g))
			d->games[k++] = d->games[i];
	}
	d->ngames = k;
	return k;
}

static int waiting(const struct pools *ps, int pool)
{
	int n = 0;
	for (const struct pool_waiter *w = ps->waiting; w != NULL; w = w->next)
		n += w->pool == pool;
	return n;
}

/* ---- what names played ---------------------------------------------------------------- */

static struct pool_hist *hist_of(struct pools *ps, const char *name, bool guest)
{
	for (struct pool_hist *h = ps->hist; h != NULL; h = h->next)
		if (h->guest == guest && strcmp(h->name, name) == 0)
			return h;
	struct pool_hist *h = calloc(1, sizeof *h);
	if (h == NULL)
		return NULL;
	snprintf(h->name, sizeof h->name, "%s", name);
	h->guest = guest;
	h->id = ++ps->next_hist_id;
	h->next = ps->hist;
	ps->hist = h;
	return h;
}

/* ---- pairing ------------------------------------------------------------------------ */

static void unlink_waiter(struct pools *ps, struct pool_waiter *w)
{
	for (struct pool_waiter **p = &ps->waiting; *p != NULL; p = &(*p)->next)
		if (*p == w) {
			*p = w->next;
			return;
		}
}

/* The game two waiters of pool d would play. */
static struct seek_opts game_opts(const struct pool_def *d, const struct pool_waiter *a,
                                  const struct pool_waiter *b)
{
	struct seek_opts so = d->so;
	so.rated = d->so.rated && !a->guest && !b->guest;
	return so;
}

/* Starts the game of white and black in pool d; false when it could not be. */
static bool start_game(struct pools *ps, struct pool_def *d, struct pool_waiter *white,
                       struct pool_waiter *black)
{
	struct game_spec spec = {.ops = d->ops, .so = game_opts(d, white, black)};
	spec.seed = session_new_seed(d->ops, &spec.so.params);
	struct pool_waiter *seat[2] = {white, black};
	for (int s = 0; s < 2; s++) {
		spec.names[s] = seat[s]->name;
		spec.clients[s] = seat[s]->c;
		spec.registered[s] = !seat[s]->guest;
	}
	struct game *g = session_create(ps->sess, &spec);
	if (g == NULL) {
		log_error("pool %s: a game could not be started", d->name);
		return false;
	}
	if (d->ngames < POOL_GAMES_MAX) {
		uint64_t *a = realloc(d->games, (size_t)(d->ngames + 1) * sizeof *a);
		if (a != NULL) {
			d->games = a;
			d->games[d->ngames++] = session_id(g);
		}
	}
	struct pool_hist *hw = hist_of(ps, white->name, white->guest);
	struct pool_hist *hb = hist_of(ps, black->name, black->guest);
	if (hw != NULL && hb != NULL) {
		hw->last_opp = hb->id;
		hb->last_opp = hw->id;
		hw->color_diff++;
		hb->color_diff--;
	}
	ps->paired++;
	int64_t now = now_ms(ps);
	metric_observe(&ps->wait, (double)(now - white->since) / 1e3);
	metric_observe(&ps->wait, (double)(now - black->since) / 1e3);
	session_begin(g);
	return true;
}

/* Tells w (once a wait) why a pairing was declined. */
static void tell_declined(const struct pool_def *d, struct pool_waiter *w,
                          const struct pool_waiter *opp, enum err_code code, const char *why)
{
	if (w->told)
		return;
	w->told = true;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "pool");
	cJSON_AddStringToObject(j, "event", "declined");
	cJSON_AddStringToObject(j, "pool", d->name);
	cJSON_AddStringToObject(j, "opponent", opp->name);
	cJSON_AddStringToObject(j, "code", err_name(code));
	cJSON_AddStringToObject(j, "reason", why);
	send_msg(w->c, j,
	         xasprintf("pool %s: a pairing with %s declined: %s", d->name, opp->name, why));
}

struct pairing {
	const struct pool_def *d;
	struct pool_waiter **who;
};

/* pool_pair()'s allowed(): bots and those who refuse them, each one's accept filter
   (identity_accepts(), both ways); a refusal is told to both. */
static bool may_pair(void *ud, int i, int j)
{
	struct pairing *pg = ud;
	struct pool_waiter *a = pg->who[i], *b = pg->who[j];
	struct seek_opts so = game_opts(pg->d, a, b);
	enum err_code code;
	char why[300];
	if (identity_accepts(a->c, b->c, pg->d->ops, &so, &code, why, sizeof why) &&
	    identity_accepts(b->c, a->c, pg->d->ops, &so, &code, why, sizeof why))
		return true;
	tell_declined(pg->d, a, b, code, why);
	tell_declined(pg->d, b, a, code, why);
	return false;
}

/* Pairs pool p's ready waiters; the pairing's CPU time (not the games' starts) is counted. */
static void pair_pool(struct pools *ps, int p)
{
	double t0 = events_cpu_now();
	static struct pool_entry e[POOL_MAX_ENTRIES];
	static struct pool_waiter *who[POOL_MAX_ENTRIES];
	static struct pool_pair out[POOL_MAX_ENTRIES / 2];
	int n = 0;
	for (struct pool_waiter *w = ps->waiting; w != NULL && n < POOL_MAX_ENTRIES; w = w->next) {
		if (w->pool != p || !w->ready)
			continue;
		struct pool_hist *h = hist_of(ps, w->name, w->guest);
		if (h == NULL)
			continue;
		e[n] = (struct pool_entry){.id = h->id,
		                           .last_opp = h->last_opp,
		                           .rating = w->rating,
		                           .since_ms = w->since,
		                           .color_diff = h->color_diff,
		                           .guest = w->guest};
		who[n++] = w;
	}
	if (n < 2)
		return;
	struct pairing pg = {&ps->defs[p], who};
	int np = pool_pair(e, n, now_ms(ps), may_pair, &pg, out, POOL_MAX_ENTRIES / 2);
	double cpu = events_cpu_now() - t0;
	ps->pair_ns += (uint64_t)(cpu * 1e9);
	metric_observe(&ps->pairing, cpu);
	for (int i = 0; i < np; i++) {
		struct pool_waiter *w = who[out[i].white], *b = who[out[i].black];
		if (!start_game(ps, &ps->defs[p], w, b))
			continue;
		unlink_waiter(ps, w);
		unlink_waiter(ps, b);
		free(w);
		free(b);
	}
}

/* Those who waited computer_after_ms unpaired play the house bot (pools.h). */
static void pair_computer(struct pools *ps)
{
	int64_t now = now_ms(ps);
	for (struct pool_waiter **p = &ps->waiting; *p != NULL;) {
		struct pool_waiter *w = *p;
		struct pool_def *d = &ps->defs[w->pool];
		struct client *bot = w->ready && now - w->since >= ps->computer_after_ms
		                             ? ps->computer(ps->computer_ud, d->ops, w->rating)
		                             : NULL;
		struct pool_waiter b = {.c = bot, .guest = true, .rating = w->rating};
		struct seek_opts so = game_opts(d, w, &b);
		enum err_code code;
		char why[8];
		if (bot != NULL)
			snprintf(b.name, sizeof b.name, "%s", bot->name);
		struct pool_hist *h = bot != NULL ? hist_of(ps, w->name, w->guest) : NULL;
		bool white = h == NULL || h->color_diff <= 0;
		if (bot == NULL || !identity_accepts(w->c, bot, d->ops, &so, &code, why, sizeof why) ||
		    !start_game(ps, d, white ? w : &b, white ? &b : w)) {
			p = &w->next;
			continue;
		}
		*p = w->next;
		free(w);
	}
}

static void pair_all(struct pools *ps)
{
	bool any[POOLS_MAX] = {false};
	for (struct pool_waiter *w = ps->waiting; w != NULL; w = w->next)
		any[w->pool] = true;
	for (int p = 0; p < ps->ndefs; p++)
		if (any[p])
			pair_pool(ps, p);
	if (ps->computer != NULL && ps->computer_after_ms > 0)
		pair_computer(ps);
}

static void on_tick(uv_timer_t *t)
{
	struct pools *ps = t->data;
	pair_all(ps);
}

/* ---- ratings --------------------------------------------------------------------------- */

static void rating_work(struct store *db, struct store_read *rd)
{
	struct rating_job *j = (struct rating_job *)rd;
	j->err = store_rating_get(db, j->name, j->kind, &j->r);
}

static struct pool_waiter *waiter_of_conn(struct pools *ps, uint64_t conn_id)
{
	for (struct pool_waiter *w = ps->waiting; w != NULL; w = w->next)
		if (w->conn_id == conn_id)
			return w;
	return NULL;
}

static void rating_done(struct store_read *rd)
{
	struct rating_job *j = (struct rating_job *)rd;
	struct pools *ps = j->ps;
	if (!ps->closed) {
		struct pool_waiter *w = waiter_of_conn(ps, j->conn_id);
		if (w != NULL && !w->ready && strcmp(w->name, j->name) == 0) {
			w->rating = j->err == 0 ? j->r.rating : 1500;
			w->ready = true;
			pair_pool(ps, w->pool);
		}
	}
	free(j);
}

/* ---- the verbs -------------------------------------------------------------------------- */

static cJSON *pool_json(struct pools *ps, int p)
{
	struct pool_def *d = &ps->defs[p];
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "name", d->name);
	cJSON_AddStringToObject(j, "game", d->words);
	cJSON_AddStringToObject(j, "kind", d->ops->name);
	cJSON_AddBoolToObject(j, "rated", d->so.rated);
	cJSON_AddNumberToObject(j, "waiting", waiting(ps, p));
	cJSON_AddNumberToObject(j, "playing", playing(ps, d));
	return j;
}

void pools_list(struct pools *ps, struct client *c, const struct proto_req *rq)
{
	cJSON *f = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(f, "pools");
	size_t cap = 64 + (size_t)ps->ndefs * 300, off = 0;
	char *extra = malloc(cap);
	if (extra != NULL)
		extra[0] = '\0';
	for (int p = 0; p < ps->ndefs; p++) {
		struct pool_def *d = &ps->defs[p];
		int np = playing(ps, d), nw = waiting(ps, p);
		cJSON_AddItemToArray(arr, pool_json(ps, p));
		if (extra != NULL && off < cap)
			off += (size_t)snprintf(extra + off, cap - off,
			                        "%s%-12s %-28s %s waiting %d playing %d",
			                        p ? "\n" : "", d->name, d->words,
			                        d->so.rated ? "rated  " : "unrated", nw, np);
	}
	reply_ok(c, rq, f, extra, "%d pool%s (pool join <name>)", ps->ndefs,
	         ps->ndefs == 1 ? "" : "s");
}

static struct pool_waiter *waiter_of(struct pools *ps, const struct client *c)
{
	for (struct pool_waiter *w = ps->waiting; w != NULL; w = w->next)
		if (w->c == c)
			return w;
	return NULL;
}

static void pool_join(struct pools *ps, struct client *c, const struct proto_req *rq,
                      const char *name)
{
	int p = find_pool(ps, name);
	if (p < 0) {
		reply_err(c, rq, ERR_NO_SUCH_POOL, "no pool %s (pools lists them)", name);
		return;
	}
	struct pool_waiter *w = waiter_of(ps, c);
	if (w != NULL) {
		reply_err(c, rq, ERR_IN_POOL, "you wait in pool %s already (pool leave first)",
		          ps->defs[w->pool].name);
		return;
	}
	w = calloc(1, sizeof *w);
	struct rating_job *j = NULL;
	bool read = ps->rd != NULL && c->registered;
	if (w == NULL || (read && (j = calloc(1, sizeof *j)) == NULL)) {
		free(w);
		reply_oom(c, rq);
		return;
	}
	w->c = c;
	w->conn_id = c->conn->id;
	snprintf(w->name, sizeof w->name, "%s", c->name);
	w->pool = p;
	w->since = now_ms(ps);
	w->guest = !c->registered;
	w->rating = 1500;
	w->ready = !read;
	if (read) {
		j->ps = ps;
		j->conn_id = w->conn_id;
		snprintf(j->name, sizeof j->name, "%s", c->name);
		j->kind = ps->defs[p].ops->name;
		j->rd.work = rating_work;
		j->rd.done = rating_done;
		if (store_reader_submit(ps->rd, &j->rd) != STORE_OK) {
			free(j);
			w->ready = true; /* the default rating rather than no game */
		}
	}
	struct pool_waiter **tail = &ps->waiting;
	while (*tail != NULL)
		tail = &(*tail)->next;
	*tail = w;
	cJSON *f = cJSON_CreateObject();
	cJSON_AddItemToObject(f, "pool", pool_json(ps, p));
	reply_ok(c, rq, f, NULL, "waiting in pool %s (%s); the game starts when a partner is found",
	         ps->defs[p].name, ps->defs[p].words);
	if (w->ready)
		pair_pool(ps, p);
}

void pools_command(struct pools *ps, struct client *c, const struct proto_req *rq)
{
	const char *sub = rq->argv[0];
	if (strcasecmp(sub, "join") == 0 && rq->argc == 2) {
		pool_join(ps, c, rq, rq->argv[1]);
	} else if (strcasecmp(sub, "leave") == 0 && rq->argc == 1) {
		struct pool_waiter *w = waiter_of(ps, c);
		if (w == NULL) {
			reply_err(c, rq, ERR_NOT_IN_POOL, "you wait in no pool");
			return;
		}
		cJSON *f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "pool", ps->defs[w->pool].name);
		reply_ok(c, rq, f, NULL, "left pool %s", ps->defs[w->pool].name);
		unlink_waiter(ps, w);
		free(w);
	} else {
		reply_usage(c, rq);
	}
}

void pools_client_gone(struct pools *ps, struct client *c)
{
	struct pool_waiter *w = waiter_of(ps, c);
	if (w == NULL)
		return;
	unlink_waiter(ps, w);
	free(w);
}

/* ---- life ----------------------------------------------------------------------------- */

/* A wait's buckets (seconds): a join paired at once up to the window's widest (90 s). */
static const double wait_le[] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
                                 0.025,  0.05,    0.1,    0.25,  0.5,    1,     2.5,
                                 5,      10,      20,     30,    60,     90};

int pools_init(struct pools *ps, uv_loop_t *loop, struct sessions *sess, struct store_reader *rd,
               const char *spec, char *why, size_t len)
{
	memset(ps, 0, sizeof *ps);
	ps->sess = sess;
	ps->rd = rd;
	ps->defs = calloc(POOLS_MAX, sizeof *ps->defs);
	if (ps->defs == NULL) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	ps->ndefs = parse_spec(spec, ps->defs, why, len);
	if (ps->ndefs < 0) {
		free(ps->defs);
		ps->defs = NULL;
		ps->ndefs = 0;
		return -1;
	}
	uv_timer_init(loop, &ps->tick);
	ps->tick.data = ps;
	ps->tick_open = true;
	uv_timer_start(&ps->tick, on_tick, POOL_TICK_MS, POOL_TICK_MS);
	uv_unref((uv_handle_t *)&ps->tick);
	metric_histogram_init(&ps->pairing, "bitarena_pool_pairing_seconds",
	                      "CPU time of a pool's pairing pass (on a join, a rating read back, "
	                      "the timer), the games' starts not counted",
	                      events_cpu_le, EVENTS_CPU_LE_N);
	metric_histogram_init(&ps->wait, "bitarena_pool_wait_seconds",
	                      "a paired player's wait from `pool join` to its pairing (its game "
	                      "starts once the game's first record is durable)",
	                      wait_le, sizeof wait_le / sizeof wait_le[0]);
	return 0;
}

void pools_register_metrics(struct pools *ps, struct metrics *r)
{
	metrics_register(r, &ps->pairing.m);
	metrics_register(r, &ps->wait.m);
}

void pools_close(struct pools *ps)
{
	if (ps->tick_open) {
		uv_timer_stop(&ps->tick);
		uv_close((uv_handle_t *)&ps->tick, NULL);
		ps->tick_open = false;
	}
	if (!ps->closed && ps->paired > 0)
		log_info("pools: %" PRIu64 " games paired, pairing took %.3f ms", ps->paired,
		         (double)ps->pair_ns / 1e6);
	ps->closed = true;
	while (ps->waiting != NULL) {
		struct pool_waiter *w = ps->waiting;
		ps->waiting = w->next;
		free(w);
	}
	while (ps->hist != NULL) {
		struct pool_hist *h = ps->hist;
		ps->hist = h->next;
		free(h);
	}
	for (int i = 0; i < ps->ndefs; i++)
		free(ps->defs[i].games);
	free(ps->defs);
	ps->defs = NULL;
	ps->ndefs = 0;
}
