/*
 * ladder.c - the continuous ladder (see ladder.h): the verbs' work, the pairing of free
 * members (by src/arena/ladder.c), games started through the session layer's game-start
 * path, results heard from the journal, the stored document and recovery.
 *
 * A ladder keeps its members in the order they first joined (a member who leaves keeps
 * its row, so that indexes, results and the pairs' counts stay), a matrix of struct
 * ladder_pairing over those rows (the pure pairing's own table: [i * cap + j], i < j;
 * `today` counts the games of the day `day`) and the games on. The matrix is cap x cap
 * with cap the rows allocated (it grows by doubling, to LADDER_MEMBERS_MAX).
 */
#include "server/events/ladder.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "arena/ladder.h"
#include "games/game.h"
#include "server/events/events.h"
#include "server/msg/msg.h"
#include "server/net/conn.h"
#include "server/play/lobby.h"
#include "server/play/session.h"
#include "server/records/journal.h"
#include "server/store/store_reader.h"
#include "server/util/log.h"
#include "server/util/text.h"

#define DAY_MS        (24 * 3600 * INT64_C(1000))
#define LADDER_AWAY   1 /* pair_ladder(): a member is away */
#define LADDER_FAILED 2 /* pair_ladder(): a game could not start */

enum mstate { LM_ACTIVE, LM_LEAVING, LM_LEFT };
static const char *const mstate_names[] = {"active", "leaving", "left"};

struct lmember {
	char name[PROTO_NAME_MAX + 1];
	enum mstate state;
	int concurrency;
	int running; /* games on */
	int wins, draws, losses;
	int lean;           /* whites minus blacks */
	int64_t idle_since; /* wall clock ms its oldest free slot is free (not stored) */
};

struct lgame {
	uint64_t game;
	int white, black;
};

struct ladder {
	struct ladder *next;
	uint64_t id;
	const struct game_ops *ops;
	char words[STORE_OPTIONS_MAX]; /* the game's option words, sorted */
	struct seek_opts so;
	int64_t day; /* the UTC day (days since the epoch) the pairs' `today` counts */
	int n, cap;
	struct lmember *m;            /* cap of them, n used */
	struct ladder_pairing *pairs; /* n * n: the pure pairing's own table */
	struct lgame *on;
	int non, capon;
};

/* ---- helpers ------------------------------------------------------------------------- */

static int64_t day_of(int64_t ms)
{
	return ms / DAY_MS;
}

static struct ladder_pairing *pair_at(struct ladder *l, int i, int j)
{
	return i < j ? &l->pairs[i * l->n + j] : &l->pairs[j * l->n + i];
}

static int member_of(const struct ladder *l, const char *name)
{
	for (int i = 0; i < l->n; i++)
		if (strcasecmp(l->m[i].name, name) == 0)
			return i;
	return -1;
}

static void ladder_free(struct ladder *l)
{
	if (l == NULL)
		return;
	free(l->m);
	free(l->pairs);
	free(l->on);
	free(l);
}

/* One more member, blank, at index l->n (false: out of memory, or LADDER_MEMBERS_MAX): the
   rows grow by doubling, the matrix to (n + 1) x (n + 1) (a join is rare; pairing, which is
   not, then reads the table in place). */
static bool grow(struct ladder *l)
{
	if (l->n >= LADDER_MEMBERS_MAX)
		return false;
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 8;
		struct lmember *m = realloc(l->m, (size_t)cap * sizeof *m);
		if (m == NULL)
			return false;
		l->m = m;
		l->cap = cap;
	}
	int n = l->n + 1;
	struct ladder_pairing *p = calloc((size_t)n * (size_t)n, sizeof *p);
	if (p == NULL)
		return false;
	for (int i = 0; i < l->n; i++)
		for (int j = i + 1; j < l->n; j++)
			p[i * n + j] = l->pairs[i * l->n + j];
	free(l->pairs);
	l->pairs = p;
	l->m[l->n++] = (struct lmember){0};
	return true;
}

/* Room for one more game on (false: out of memory). */
static bool room_on(struct ladder *l)
{
	if (l->non == l->capon) {
		int cap = l->capon ? 2 * l->capon : 8;
		struct lgame *v = realloc(l->on, (size_t)cap * sizeof *v);
		if (v == NULL)
			return false;
		l->on = v;
		l->capon = cap;
	}
	return true;
}

static bool add_on(struct ladder *l, struct lgame g)
{
	if (!room_on(l))
		return false;
	l->on[l->non++] = g;
	return true;
}

static int by_word(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The option words argv[0..argc) sorted and joined with spaces into out; false: too long. */
static bool sorted_words(char **argv, int argc, char *out, size_t len)
{
	qsort(argv, (size_t)argc, sizeof *argv, by_word);
	size_t k = 0;
	out[0] = '\0';
	for (int i = 0; i < argc; i++) {
		int w = snprintf(out + k, len - k, "%s%s", k ? " " : "", argv[i]);
		if (w < 0 || (size_t)w >= len - k)
			return false;
		k += (size_t)w;
	}
	return true;
}

/* l->so from l->words (rated, colours the ladder's); false with why when refused. */
static bool parse_options(struct ladder *l, char *why, size_t len)
{
	if (!events_seek_opts(l->ops, l->words, &l->so, why, len))
		return false;
	l->so.rated = true;
	l->so.color = 0;
	return true;
}

static const char *ladder_title(const struct ladder *l, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", l->ops->name, l->words[0] ? " " : "", l->words);
	return buf;
}

/* ---- the stored document ------------------------------------------------------------- */

static char *doc_of(const struct ladder *l)
{
	cJSON *d = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "ladder", (double)l->id);
	cJSON_AddStringToObject(d, "kind", l->ops->name);
	cJSON_AddStringToObject(d, "options", l->words);
	cJSON_AddNumberToObject(d, "day", (double)l->day);
	cJSON *ms = cJSON_AddArrayToObject(d, "members");
	for (int i = 0; i < l->n; i++) {
		const struct lmember *m = &l->m[i];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "name", m->name);
		cJSON_AddStringToObject(j, "state", mstate_names[m->state]);
		cJSON_AddNumberToObject(j, "concurrency", m->concurrency);
		cJSON_AddNumberToObject(j, "w", m->wins);
		cJSON_AddNumberToObject(j, "d", m->draws);
		cJSON_AddNumberToObject(j, "l", m->losses);
		cJSON_AddNumberToObject(j, "lean", m->lean);
		cJSON_AddItemToArray(ms, j);
	}
	cJSON *ps = cJSON_AddArrayToObject(d, "pairs"); /* [i, j, games, whites, today] */
	for (int i = 0; i < l->n; i++)
		for (int j = i + 1; j < l->n; j++) {
			const struct ladder_pairing *p = &l->pairs[i * l->n + j];
			if (p->games == 0 && p->today == 0)
				continue;
			int v[5] = {i, j, p->games, p->whites, p->today};
			cJSON_AddItemToArray(ps, cJSON_CreateIntArray(v, 5));
		}
	cJSON *on = cJSON_AddArrayToObject(d, "on"); /* [game, white, black] */
	for (int i = 0; i < l->non; i++) {
		cJSON *e = cJSON_CreateArray();
		cJSON_AddItemToArray(e, cJSON_CreateNumber((double)l->on[i].game));
		cJSON_AddItemToArray(e, cJSON_CreateNumber(l->on[i].white));
		cJSON_AddItemToArray(e, cJSON_CreateNumber(l->on[i].black));
		cJSON_AddItemToArray(on, e);
	}
	char *s = cJSON_PrintUnformatted(d);
	cJSON_Delete(d);
	return s;
}

/* Queues l as it stands now to the store. */
static void save(struct ladders *ls, const struct ladder *l)
{
	char *doc = doc_of(l);
	if (doc == NULL || journal_ladder_put(ls->jn, (int64_t)l->id, "open", doc) < 0)
		log_error("ladder %" PRIu64 ": out of memory: not stored", l->id);
}

/* Element k of a JSON array of numbers, or -1. */
static double json_at(const cJSON *a, int k)
{
	const cJSON *v = cJSON_GetArrayItem(a, k);
	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* A ladder from its stored document, or NULL (logged). */
static struct ladder *from_doc(const char *doc, int64_t now)
{
	cJSON *d = cJSON_Parse(doc);
	struct ladder *l = calloc(1, sizeof *l);
	char why[160] = "malformed";
	if (d == NULL || l == NULL)
		goto bad;
	l->id = (uint64_t)events_json_int(d, "ladder");
	l->ops = game_find(events_json_str(d, "kind"));
	snprintf(l->words, sizeof l->words, "%s", events_json_str(d, "options"));
	const cJSON *day = cJSON_GetObjectItemCaseSensitive(d, "day");
	l->day = cJSON_IsNumber(day) ? (int64_t)day->valuedouble : day_of(now);
	if (l->ops == NULL || !parse_options(l, why, sizeof why))
		goto bad;
	const cJSON *m;
	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(d, "members"))
	{
		if (!grow(l))
			goto bad;
		struct lmember *x = &l->m[l->n - 1];
		*x = (struct lmember){.concurrency = events_json_int(m, "concurrency"),
		                      .wins = events_json_int(m, "w"),
		                      .draws = events_json_int(m, "d"),
		                      .losses = events_json_int(m, "l"),
		                      .lean = events_json_int(m, "lean"),
		                      .idle_since = now};
		snprintf(x->name, sizeof x->name, "%s", events_json_str(m, "name"));
		const char *st = events_json_str(m, "state");
		x->state = strcmp(st, "left") == 0      ? LM_LEFT
		           : strcmp(st, "leaving") == 0 ? LM_LEAVING
		                                        : LM_ACTIVE;
		if (x->name[0] == '\0' || x->concurrency < 1 ||
		    x->concurrency > LADDER_CONCURRENCY_MAX)
			goto bad;
	}
	const cJSON *p;
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(d, "pairs"))
	{
		int i = (int)json_at(p, 0), j = (int)json_at(p, 1);
		if (i < 0 || j <= i || j >= l->n)
			goto bad;
		*pair_at(l, i, j) = (struct ladder_pairing){.games = (int)json_at(p, 2),
		                                            .whites = (int)json_at(p, 3),
		                                            .today = (int)json_at(p, 4)};
	}
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(d, "on"))
	{
		struct lgame g = {(uint64_t)json_at(p, 0), (int)json_at(p, 1), (int)json_at(p, 2)};
		if (g.game == 0 || g.white < 0 || g.white >= l->n || g.black < 0 ||
		    g.black >= l->n || g.white == g.black || !add_on(l, g))
			goto bad;
		l->m[g.white].running++;
		l->m[g.black].running++;
	}
	cJSON_Delete(d);
	return l;
bad:
	log_error("a stored ladder does not read back (%s); it is left out", why);
	cJSON_Delete(d);
	ladder_free(l);
	return NULL;
}

/* ---- results ------------------------------------------------------------------------- */

static void pump_soon(struct ladders *ls);

/* Takes back a game of w (white) and b from l's table (ladder_pair() counted it): one that
   could not start, or ended with no result. */
static void uncount_pair(struct ladder *l, int w, int b)
{
	struct ladder_pairing *p = pair_at(l, w, b);
	p->games--;
	p->whites -= w < b;
	if (p->today > 0) /* not when the game began on another day */
		p->today--;
}

/* Game k of l is over: winner the seat that won (-1 a draw), aborted: no result (the
   pair's counts forget it). */
static void count_end(struct ladder *l, int k, int winner, bool aborted, int64_t now)
{
	struct lgame g = l->on[k];
	l->on[k] = l->on[--l->non];
	struct lmember *w = &l->m[g.white], *b = &l->m[g.black];
	if (aborted) {
		uncount_pair(l, g.white, g.black);
		w->lean--;
		b->lean++;
	} else if (winner == 0) {
		w->wins++;
		b->losses++;
	} else if (winner == 1) {
		w->losses++;
		b->wins++;
	} else {
		w->draws++;
		b->draws++;
	}
	struct lmember *both[2] = {w, b};
	for (int s = 0; s < 2; s++) {
		struct lmember *m = both[s];
		if (m->running == m->concurrency || m->running == 1)
			m->idle_since = now; /* its first free slot */
		m->running--;
		if (m->state == LM_LEAVING && m->running == 0)
			m->state = LM_LEFT;
	}
}

/* The journal's news: game g ended (inside its hook: nothing here calls the sessions). */
static void on_game_end(void *ud, const struct game *g)
{
	struct ladders *ls = ud;
	uint64_t id = session_id(g);
	for (struct ladder *l = ls->list; l != NULL; l = l->next)
		for (int k = 0; k < l->non; k++) {
			if (l->on[k].game != id)
				continue;
			struct session_result res = session_result(g);
			count_end(l, k, res.winner, strcmp(res.score, "*") == 0, wall_ms());
			save(ls, l);
			pump_soon(ls);
			return;
		}
}

/* ---- pairing ------------------------------------------------------------------------- */

/* Starts game lg of l (its id reserved, or 0 without a journal: set here); false when it
   could not be. */
static bool begin_game(struct ladders *ls, struct ladder *l, struct lgame *lg)
{
	struct game_spec spec = {.ops = l->ops,
	                         .so = l->so,
	                         .seed = session_new_seed(l->ops, &l->so.params),
	                         .new_id = lg->game};
	int who[2] = {lg->white, lg->black};
	for (int s = 0; s < 2; s++) {
		struct client *c = lobby_find_user(ls->lobby, l->m[who[s]].name);
		spec.names[s] = l->m[who[s]].name;
		spec.clients[s] = c;
		spec.registered[s] = true; /* members are accounts */
	}
	struct game *g = session_create(ls->sess, &spec);
	if (g == NULL)
		return false;
	lg->game = session_id(g);
	session_begin(g);
	return true;
}

/*
 * Pairs l's free members now and starts their games. Returns LADDER_AWAY when a member is
 * away (pair again when someone logs in), LADDER_FAILED when a game could not start (pair
 * again soon), both, or 0.
 *
 * Each game's id is reserved first and the document naming the games is queued before any
 * of them starts: the journal writes in order, so a game on disk after a crash is always
 * one the stored ladder counts (ladders_recover()), never one played outside it.
 */
static int pair_ladder(struct ladders *ls, struct ladder *l, int64_t now)
{
	if (day_of(now) != l->day) { /* a new day: the caps start again */
		l->day = day_of(now);
		for (int i = 0; i < l->n; i++)
			for (int j = i + 1; j < l->n; j++)
				pair_at(l, i, j)->today = 0;
		save(ls, l);
	}
	double t0 = events_cpu_now(); /* the pairing's CPU time, the games' starts not counted */
	struct ladder_member lm[LADDER_MEMBERS_MAX];
	bool away = false;
	for (int i = 0; i < l->n; i++) {
		const struct lmember *m = &l->m[i];
		bool here = m->state == LM_ACTIVE && lobby_user_online(ls->lobby, m->name);
		away |= m->state == LM_ACTIVE && !here;
		lm[i] = (struct ladder_member){
		        .rating = 0,
		        .concurrency = m->concurrency,
		        .running = m->running < m->concurrency ? m->running : m->concurrency,
		        .lean = m->lean,
		        .idle_since = m->idle_since,
		        .available = here};
	}
	/* the pairing counts its games into l->pairs itself; one that cannot start is taken
	   out again */
	struct arena_pair out[LADDER_MEMBERS_MAX];
	int k = ladder_pair(lm, l->n, l->pairs, ls->pair_cap, LADDER_SLACK, out,
	                    LADDER_MEMBERS_MAX);
	metric_observe(&ls->pairing, events_cpu_now() - t0);
	int why = away ? LADDER_AWAY : 0, first = l->non;
	for (int i = 0; i < k; i++) {
		int w = out[i].white, b = out[i].black;
		uint64_t id;
		if (journal_game_id(ls->jn, &id) < 0 || !add_on(l, (struct lgame){id, w, b})) {
			uncount_pair(l, w, b);
			why |= LADDER_FAILED;
			continue;
		}
		l->m[w].running++;
		l->m[b].running++;
		l->m[w].lean++;
		l->m[b].lean--;
	}
	if (k > 0)
		save(ls, l);
	bool failed[LADDER_MEMBERS_MAX] = {false}, any = false;
	for (int j = first; j < l->non; j++)
		any |= failed[j - first] = !begin_game(ls, l, &l->on[j]);
	for (int j = l->non - 1; any && j >= first; j--) {
		if (!failed[j - first])
			continue;
		struct lgame g = l->on[j];
		l->on[j] = l->on[--l->non]; /* the last: started, it is kept */
		uncount_pair(l, g.white, g.black);
		l->m[g.white].running--;
		l->m[g.black].running--;
		l->m[g.white].lean--;
		l->m[g.black].lean++;
		why |= LADDER_FAILED;
	}
	if (any)
		save(ls, l);
	if (why & LADDER_FAILED)
		log_error("ladder %" PRIu64 ": a game could not be started; tried again", l->id);
	return why;
}

/*
 * Out of the hooks' way: every ladder pairs its free members when something changed (a
 * game's end, a join: pump_soon()), a day began, or, while a member is away, someone
 * logged in or out (the lobby's epoch, looked at every LADDER_RETRY_MS: a comparison, not
 * a pairing); the timer comes back at the next day otherwise.
 */
static void pump(uv_timer_t *h)
{
	struct ladders *ls = h->data;
	int64_t now = wall_ms();
	bool look = ls->dirty || day_of(now) != ls->seen_day ||
	            ((ls->waiting & LADDER_AWAY) && ls->lobby->epoch != ls->seen_epoch);
	if (look) {
		ls->dirty = false;
		ls->seen_day = day_of(now);
		ls->seen_epoch = ls->lobby->epoch;
		ls->waiting = 0;
		for (struct ladder *l = ls->list; l != NULL; l = l->next)
			ls->waiting |= pair_ladder(ls, l, now);
		ls->dirty = (ls->waiting & LADDER_FAILED) != 0;
	}
	if (ls->list == NULL)
		return;
	int64_t next = (day_of(now) + 1) * DAY_MS - now;
	if (ls->waiting && next > LADDER_RETRY_MS)
		next = LADDER_RETRY_MS;
	uv_timer_start(&ls->pump, pump, (uint64_t)next, 0);
}

static void pump_soon(struct ladders *ls)
{
	ls->dirty = true;
	uv_timer_start(&ls->pump, pump, 0, 0);
}

/* ---- the verbs ----------------------------------------------------------------------- */

/* The ladder of ops and words, or NULL. */
static struct ladder *find(struct ladders *ls, const struct game_ops *ops, const char *words)
{
	for (struct ladder *l = ls->list; l != NULL; l = l->next)
		if (l->ops == ops && strcmp(l->words, words) == 0)
			return l;
	return NULL;
}

/* Appends l to the list (kept by id). */
static void append(struct ladders *ls, struct ladder *l)
{
	struct ladder **pp = &ls->list;
	while (*pp != NULL)
		pp = &(*pp)->next;
	l->next = NULL;
	*pp = l;
}

static int count_ladders(const struct ladders *ls)
{
	int n = 0;
	for (const struct ladder *l = ls->list; l != NULL; l = l->next)
		n++;
	return n;
}

static void do_join(struct ladders *ls, struct client *c, const struct proto_req *rq, bool bot)
{
	static const char usage[] = "usage: ladder join <kind> [game opts] [concurrency=N]";
	if (rq->argc < 2) {
		reply_err(c, rq, ERR_BAD_ARGS, usage);
		return;
	}
	if (!c->registered) {
		reply_err(c, rq, ERR_RATED_NEEDS_ACCOUNT,
		          "ladder games are rated: ladders are for accounts (register first)");
		return;
	}
	const struct game_ops *ops = game_find(rq->argv[1]);
	if (ops == NULL || ops->nplayers != 2 || (ops->flags & GAME_SIMULTANEOUS)) {
		reply_err(c, rq, ERR_UNKNOWN_GAME,
		          "ladders are of two-player games of alternate moves: 'games' lists them");
		return;
	}
	int conc = 1;
	char *words[PROTO_MAX_ARGS];
	int nw = 0;
	for (int i = 2; i < rq->argc; i++) {
		const char *w = rq->argv[i];
		if (strncmp(w, "concurrency=", 12) == 0) {
			char *end;
			long x = strtol(w + 12, &end, 10);
			int most = bot ? LADDER_CONCURRENCY_MAX : 1;
			if (w[12] == '\0' || *end != '\0' || x < 1 || x > most) {
				reply_err(c, rq, ERR_BAD_OPTION,
				          "concurrency=1..%d (%s); a person's is 1, a bot "
				          "account's up "
				          "to %d",
				          most, bot ? "a bot account" : "not a bot account",
				          LADDER_CONCURRENCY_MAX);
				return;
			}
			conc = (int)x;
		} else if (strncmp(w, "color=", 6) == 0 || strncmp(w, "rated=", 6) == 0) {
			reply_err(c, rq, ERR_BAD_OPTION,
			          "'%.40s': a ladder's games are rated and its colours alternate",
			          w);
			return;
		} else {
			words[nw++] = rq->argv[i];
		}
	}
	struct ladder probe = {.ops = ops};
	char why[160];
	if (!sorted_words(words, nw, probe.words, sizeof probe.words)) {
		reply_err(c, rq, ERR_BAD_OPTION, "the game's options are too long");
		return;
	}
	if (!parse_options(&probe, why, sizeof why)) {
		reply_err(c, rq, ERR_BAD_OPTION, "%s", why);
		return;
	}
	struct ladder *l = find(ls, ops, probe.words);
	bool fresh = l == NULL;
	if (fresh) {
		if (count_ladders(ls) >= LADDER_MAX || (l = calloc(1, sizeof *l)) == NULL) {
			reply_err(c, rq, ERR_LADDER_FULL, "the server runs %d ladders already",
			          LADDER_MAX);
			return;
		}
		*l = probe;
		l->day = day_of(wall_ms());
	}
	int me = member_of(l, c->name);
	/* on it already with that concurrency (a bot back after a reconnect): the same answer,
	   nothing changed */
	bool same = me >= 0 && l->m[me].state == LM_ACTIVE && l->m[me].concurrency == conc;
	if (me < 0) {
		if (!grow(l)) {
			reply_err(c, rq, ERR_LADDER_FULL, "the ladder has its %d members",
			          LADDER_MEMBERS_MAX);
			if (fresh)
				ladder_free(l);
			return;
		}
		me = l->n - 1;
		snprintf(l->m[me].name, sizeof l->m[me].name, "%s", c->name);
	}
	if (fresh) {
		l->id = ++ls->last_id;
		append(ls, l);
	}
	struct lmember *m = &l->m[me];
	if (!same) {
		m->state = LM_ACTIVE;
		m->concurrency = conc;
		m->idle_since = wall_ms();
		save(ls, l);
		pump_soon(ls);
	}
	char title[STORE_OPTIONS_MAX + 32];
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "ladder", (double)l->id);
	cJSON_AddStringToObject(f, "kind", ops->name);
	cJSON_AddStringToObject(f, "options", l->words);
	cJSON_AddNumberToObject(f, "concurrency", conc);
	reply_ok(c, rq, f, NULL, "you are on ladder %" PRIu64 " (%s), %d game(s) at once", l->id,
	         ladder_title(l, title, sizeof title), conc);
}

static void do_leave(struct ladders *ls, struct client *c, const struct proto_req *rq)
{
	int left = 0, on = 0;
	for (struct ladder *l = ls->list; l != NULL; l = l->next) {
		int me = member_of(l, c->name);
		if (me < 0 || l->m[me].state != LM_ACTIVE)
			continue;
		l->m[me].state = l->m[me].running > 0 ? LM_LEAVING : LM_LEFT;
		on += l->m[me].running;
		left++;
		save(ls, l);
	}
	if (left == 0) {
		reply_err(c, rq, ERR_NOT_ON_LADDER, "you are on no ladder");
		return;
	}
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "left", left);
	cJSON_AddNumberToObject(f, "running", on);
	reply_ok(c, rq, f, NULL, "you left %d ladder(s); %d game(s) on are played out", left, on);
}

/* ---- ladder show: the ladders with their members' ratings, read off the loop ---------- */

struct rated {
	char name[PROTO_NAME_MAX + 1];
	const struct game_ops *ops;
	struct store_rating r;
	bool found;
};

struct show_job {
	struct store_read rd; /* first: the reader hands back this pointer */
	struct ladders *ls;
	uint64_t conn_id;
	struct proto_req rq;        /* tag, verb and row only (argv cleared) */
	const struct game_ops *ops; /* only this kind's ladders; NULL: all */
	uint64_t id;                /* only this ladder; 0: all */
	int n;
	struct rated *rows;
};

static void show_work(struct store *db, struct store_read *rd)
{
	struct show_job *j = (struct show_job *)rd;
	for (int i = 0; i < j->n; i++)
		j->rows[i].found = store_rating_get(db, j->rows[i].name, j->rows[i].ops->name,
		                                    &j->rows[i].r) == STORE_OK;
}

static const struct store_rating *rating_of(const struct show_job *j, const struct ladder *l,
                                            const char *name)
{
	for (int i = 0; i < j->n; i++)
		if (j->rows[i].found && j->rows[i].ops == l->ops &&
		    strcasecmp(j->rows[i].name, name) == 0)
			return &j->rows[i].r;
	return NULL;
}

static bool shown(const struct show_job *j, const struct ladder *l)
{
	return (j->ops == NULL || l->ops == j->ops) && (j->id == 0 || l->id == j->id);
}

/* The ladders j asked for as they stand now, with the ratings it read. */
static void show_reply(struct show_job *j, struct client *c)
{
	cJSON *f = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(f, "ladders");
	char *tx = NULL;
	int nl = 0;
	for (const struct ladder *l = j->ls->list; l != NULL; l = l->next) {
		if (!shown(j, l))
			continue;
		nl++;
		char title[STORE_OPTIONS_MAX + 32];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "ladder", (double)l->id);
		cJSON_AddStringToObject(o, "kind", l->ops->name);
		cJSON_AddStringToObject(o, "options", l->words);
		cJSON *ms = cJSON_AddArrayToObject(o, "members");
		int members = 0;
		for (int i = 0; i < l->n; i++)
			members += l->m[i].state != LM_LEFT;
		xappend(&tx, "ladder %" PRIu64 ": %s, %d member(s), %d game(s) on\n", l->id,
		        ladder_title(l, title, sizeof title), members, l->non);
		xappend(&tx, "  %-20s %5s %-14s %6s %5s  %s\n", "name", "games", "W/D/L", "rating",
		        "on", "state");
		for (int i = 0; i < l->n; i++) {
			const struct lmember *m = &l->m[i];
			if (m->state == LM_LEFT)
				continue;
			const struct store_rating *r = rating_of(j, l, m->name);
			bool here = lobby_user_online(j->ls->lobby, m->name);
			int games = m->wins + m->draws + m->losses;
			cJSON *x = cJSON_CreateObject();
			cJSON_AddStringToObject(x, "name", m->name);
			cJSON_AddStringToObject(x, "state", mstate_names[m->state]);
			cJSON_AddBoolToObject(x, "online", here);
			cJSON_AddNumberToObject(x, "concurrency", m->concurrency);
			cJSON_AddNumberToObject(x, "games", games);
			cJSON_AddNumberToObject(x, "wins", m->wins);
			cJSON_AddNumberToObject(x, "draws", m->draws);
			cJSON_AddNumberToObject(x, "losses", m->losses);
			cJSON_AddNumberToObject(x, "running", m->running);
			if (r != NULL) {
				cJSON_AddNumberToObject(x, "rating", r->rating);
				cJSON_AddNumberToObject(x, "rd", r->rd);
			} else {
				cJSON_AddNullToObject(x, "rating");
				cJSON_AddNullToObject(x, "rd");
			}
			cJSON_AddItemToArray(ms, x);
			char wdl[48], rt[24];
			snprintf(wdl, sizeof wdl, "%d/%d/%d", m->wins, m->draws, m->losses);
			snprintf(rt, sizeof rt, "%.0f", r != NULL ? r->rating : 0.0);
			xappend(&tx, "  %-20s %5d %-14s %6s %2d/%-2d  %s%s\n", m->name, games, wdl,
			        r != NULL ? rt : "-", m->running, m->concurrency,
			        mstate_names[m->state], here ? "" : " (away)");
		}
		cJSON *on = cJSON_AddArrayToObject(o, "on");
		for (int i = 0; i < l->non; i++) {
			cJSON *g = cJSON_CreateObject();
			cJSON_AddNumberToObject(g, "game", (double)l->on[i].game);
			cJSON_AddStringToObject(g, "white", l->m[l->on[i].white].name);
			cJSON_AddStringToObject(g, "black", l->m[l->on[i].black].name);
			cJSON_AddItemToArray(on, g);
			xappend(&tx, "  game %" PRIu64 ": %s - %s\n", l->on[i].game,
			        l->m[l->on[i].white].name, l->m[l->on[i].black].name);
		}
		cJSON_AddItemToArray(arr, o);
	}
	reply_ok(c, &j->rq, f, tx, "%d ladder(s)", nl);
}

static void show_done(struct store_read *rd)
{
	struct show_job *j = (struct show_job *)rd;
	struct conn *cn = conn_find(j->ls->hub, j->conn_id);
	struct client *c = cn != NULL ? client_of(cn) : NULL;
	if (c != NULL) {
		show_reply(j, c);
		conn_release(c->conn);
	}
	free(j->rows);
	free(j);
}

static void do_show(struct ladders *ls, struct client *c, const struct proto_req *rq)
{
	struct show_job *j = calloc(1, sizeof *j);
	if (j == NULL) {
		reply_oom(c, rq);
		return;
	}
	if (rq->argc >= 2 && !proto_parse_id(rq->argv[1], &j->id) &&
	    (j->ops = game_find(rq->argv[1])) == NULL) {
		reply_err(c, rq, ERR_UNKNOWN_GAME, "usage: ladder show [kind | ladder id]");
		free(j);
		return;
	}
	j->ls = ls;
	j->conn_id = c->conn->id;
	j->rq = *rq;
	j->rq.argc = 0;
	memset(j->rq.argv, 0, sizeof j->rq.argv);
	int rows = 0;
	for (const struct ladder *l = ls->list; l != NULL; l = l->next)
		rows += shown(j, l) ? l->n : 0;
	if (rows > 0 && (j->rows = calloc((size_t)rows, sizeof *j->rows)) == NULL) {
		reply_oom(c, rq);
		free(j);
		return;
	}
	for (const struct ladder *l = ls->list; l != NULL; l = l->next)
		for (int i = 0; shown(j, l) && i < l->n; i++)
			if (l->m[i].state != LM_LEFT) {
				snprintf(j->rows[j->n].name, sizeof j->rows[j->n].name, "%s",
				         l->m[i].name);
				j->rows[j->n++].ops = l->ops;
			}
	j->rd.work = show_work;
	j->rd.done = show_done;
	if (ls->rd == NULL || store_reader_submit(ls->rd, &j->rd) != STORE_OK) {
		show_reply(j, c); /* without ratings */
		free(j->rows);
		free(j);
		return;
	}
	conn_hold(c->conn);
}

void ladder_command(struct ladders *ls, struct client *c, const struct proto_req *rq, bool bot)
{
	const char *sub = rq->argv[0];
	if (strcasecmp(sub, "show") == 0) {
		do_show(ls, c, rq);
		return;
	}
	if (!c->logged_in) {
		reply_err(c, rq, ERR_NOT_LOGGED_IN, "log in first: login <name>");
		return;
	}
	if (strcasecmp(sub, "join") == 0)
		do_join(ls, c, rq, bot);
	else if (strcasecmp(sub, "leave") == 0)
		do_leave(ls, c, rq);
	else
		reply_usage(c, rq);
}

/* ---- life cycle ---------------------------------------------------------------------- */

void ladders_init(struct ladders *ls, uv_loop_t *loop, struct sessions *sess, struct lobby *lobby,
                  struct journal *jn, struct store_reader *rd, struct conn_hub *hub)
{
	*ls = (struct ladders){.sess = sess,
	                       .lobby = lobby,
	                       .jn = jn,
	                       .rd = rd,
	                       .hub = hub,
	                       .pair_cap = LADDER_PAIR_CAP};
	uv_timer_init(loop, &ls->pump);
	ls->pump.data = ls;
	ls->pump_open = true;
	journal_set_on_end(jn, on_game_end, ls);
	metric_histogram_init(&ls->pairing, "bitarena_ladder_pairing_seconds",
	                      "CPU time of a ladder's pairing pass (a game's end, a join, a login "
	                      "while a member is away), the games' starts not counted",
	                      events_cpu_le, EVENTS_CPU_LE_N);
}

void ladders_register_metrics(struct ladders *ls, struct metrics *r)
{
	metrics_register(r, &ls->pairing.m);
}

int ladders_recover(struct ladders *ls)
{
	struct store_tourney *v;
	size_t n;
	int64_t max_id;
	int r = journal_ladders_open(ls->jn, &v, &n, &max_id);
	if (r < 0)
		return r;
	if ((uint64_t)max_id > ls->last_id)
		ls->last_id = (uint64_t)max_id;
	int64_t now = wall_ms();
	int back = 0;
	for (size_t i = 0; i < n; i++) {
		bool here = false; /* a cluster's events node again: what it holds stays */
		for (const struct ladder *o = ls->list; o != NULL && !here; o = o->next)
			here = o->id == (uint64_t)v[i].id;
		struct ladder *l = here ? NULL : from_doc(v[i].doc, now);
		if (l == NULL)
			continue;
		/* games on when it was stored: still on (restored by journal_recover()), or over
		   since, counted now from their rows */
		for (int k = l->non - 1; k >= 0; k--) {
			if (session_find(ls->sess, l->on[k].game) != NULL)
				continue;
			struct store_game sg;
			int rr = journal_game_read(ls->jn, (int64_t)l->on[k].game, &sg);
			bool over = rr == STORE_OK && sg.status == STORE_FINISHED;
			count_end(l, k, over ? sg.winner : -1, !over, now);
			store_game_clear(&sg);
		}
		append(ls, l);
		save(ls, l);
		back++;
	}
	store_tourneys_free(v, n);
	if (back > 0)
		pump_soon(ls);
	return back;
}

static void pump_closed(uv_handle_t *h)
{
	(void)h;
}

void ladders_forget(struct ladders *ls)
{
	while (ls->list != NULL) {
		struct ladder *l = ls->list;
		ls->list = l->next;
		ladder_free(l);
	}
}

void ladders_close(struct ladders *ls)
{
	if (ls->jn != NULL)
		journal_set_on_end(ls->jn, NULL, ls);
	ladders_forget(ls);
	if (ls->pump_open) {
		uv_timer_stop(&ls->pump);
		uv_close((uv_handle_t *)&ls->pump, pump_closed);
		ls->pump_open = false;
	}
}
