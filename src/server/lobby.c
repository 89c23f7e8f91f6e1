/*
 * lobby.c - presence and seeks (see lobby.h): logging in, finding a user by
 * name, who; the list of game kinds; seeks offered, listed, withdrawn and
 * accepted, each new or vanished seek told to every logged-in client but its
 * author.
 */
#include "server/lobby.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server/rtt.h"

void lobby_init(struct lobby *l, struct conn_hub *hub, struct sessions *sess)
{
	memset(l, 0, sizeof *l);
	l->hub = hub;
	l->sess = sess;
}

void lobby_set_hooks(struct lobby *l, const struct lobby_hooks *h)
{
	l->hooks = *h;
}

/* The client of cn when it is logged in and staying, else NULL. */
static struct client *user_at(struct conn *cn)
{
	struct client *c = client_of(cn);
	return c != NULL && c->logged_in && !c->remote && !cn->closing ? c : NULL;
}

struct client *lobby_find_user(struct lobby *l, const char *name)
{
	for (struct conn *cn = l->hub->conns; cn != NULL; cn = cn->next) {
		struct client *c = user_at(cn);
		if (c != NULL && strcasecmp(c->name, name) == 0)
			return c;
	}
	return NULL;
}

/* ---- seeks ------------------------------------------------------------------------ */

static const char *color_word(int color)
{
	return color == 0 ? "first" : color == 1 ? "second" : "random";
}

cJSON *lobby_seek_json(const struct seek *k)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "id", (double)k->id);
	cJSON_AddStringToObject(j, "by", k->by->name);
	if (k->to != NULL)
		cJSON_AddStringToObject(j, "to", k->to->name);
	cJSON_AddStringToObject(j, "kind", k->ops->name);
	cJSON_AddItemToObject(j, "options", view_options_json(k->ops, &k->so.params));
	if (k->so.timed) {
		cJSON *t = cJSON_AddObjectToObject(j, "time");
		cJSON_AddNumberToObject(t, "base_ms", (double)k->so.base_ms);
		cJSON_AddNumberToObject(t, "inc_ms", (double)k->so.inc_ms);
	} else {
		cJSON_AddNullToObject(j, "time");
	}
	cJSON_AddStringToObject(j, "color", color_word(k->so.color));
	if (k->ops->flags & GAME_SIMULTANEOUS) {
		cJSON_AddNumberToObject(j, "turn_ms", (double)k->so.turn_ms);
		if (k->so.first_turn_ms > 0)
			cJSON_AddNumberToObject(j, "first_turn_ms", (double)k->so.first_turn_ms);
	} else {
		cJSON_AddNullToObject(j, "turn_ms");
	}
	cJSON_AddBoolToObject(j, "rated", k->so.rated);
	return j;
}

/* "3 by alice: ttt m=3 n=3 k=3, untimed, seeker plays random[, to bob]" (malloc'd). */
char *lobby_seek_text(const struct seek *k)
{
	char *o = view_options_text(k->ops, &k->so);
	char *t = xasprintf("%" PRIu64 " by %s: %s %s, seeker plays %s%s%s", k->id, k->by->name,
	                    k->ops->name, o ? o : "", color_word(k->so.color),
	                    k->to != NULL ? ", to " : "", k->to != NULL ? k->to->name : "");
	free(o);
	return t;
}

/* Tells every logged-in connection but the author about a new or vanished seek. */
static void seek_announce(struct lobby *l, const struct seek *k, bool gone)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "seek");
	cJSON_AddStringToObject(j, "event", gone ? "gone" : "new");
	char *text;
	if (gone) {
		cJSON_AddNumberToObject(j, "id", (double)k->id);
		text = xasprintf("seek %" PRIu64 " gone", k->id);
	} else {
		cJSON_AddItemToObject(j, "seek", lobby_seek_json(k));
		char *d = lobby_seek_text(k);
		text = xasprintf("seek %s (accept %" PRIu64 " to play)", d ? d : "", k->id);
		free(d);
	}
	struct msg m;
	msg_init(&m, j, text);
	for (struct conn *cn = l->hub->conns; cn != NULL; cn = cn->next) {
		struct client *c = user_at(cn);
		if (c != NULL && c != k->by)
			msg_send(&m, c);
	}
	if (l->hooks.on_seek != NULL)
		l->hooks.on_seek(l->hooks.ud, k, gone, &m);
	msg_done(&m);
	if (l->news.on_seek != NULL)
		l->news.on_seek(l->news.ud, k, gone);
}

/* Unlinks and frees seek k; tells the others when announce (never of a challenge). */
static void seek_remove(struct lobby *l, struct seek *k, bool announce)
{
	for (struct seek **pp = &l->seeks; *pp != NULL; pp = &(*pp)->next)
		if (*pp == k) {
			*pp = k->next;
			break;
		}
	if (announce && k->to == NULL)
		seek_announce(l, k, true);
	free(k);
}

void lobby_seek_remove(struct lobby *l, struct seek *k)
{
	seek_remove(l, k, true);
}

struct seek *lobby_seek_find(struct lobby *l, uint64_t id)
{
	for (struct seek *k = l->seeks; k != NULL; k = k->next)
		if (k->id == id)
			return k;
	return NULL;
}

void lobby_client_gone(struct lobby *l, struct client *c)
{
	struct seek *k = l->seeks;
	while (k != NULL) {
		struct seek *next = k->next;
		if (k->by == c || k->to == c)
			seek_remove(l, k, true);
		k = next;
	}
	if (c->logged_in && l->news.on_presence != NULL)
		l->news.on_presence(l->news.ud, c, false);
}

void lobby_free(struct lobby *l)
{
	while (l->seeks != NULL)
		seek_remove(l, l->seeks, false);
}

/* ---- presence ------------------------------------------------------------------------ */

void lobby_login(struct lobby *l, struct client *c, const struct proto_req *rq, const char *name,
                 bool registered)
{
	if (!registered && l->hooks.guest != NULL && l->hooks.guest(l->hooks.ud, c, rq, name))
		return;
	lobby_login_checked(l, c, rq, name, registered);
}

void lobby_login_checked(struct lobby *l, struct client *c, const struct proto_req *rq,
                         const char *name, bool registered)
{
	snprintf(c->name, sizeof c->name, "%s", name);
	c->logged_in = true;
	c->registered = registered;
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "name", c->name);
	cJSON_AddBoolToObject(f, "guest", !registered);
	if (!registered && c->token[0] != '\0') /* identity.h: seats come back with it */
		cJSON_AddStringToObject(f, "token", c->token);
	cJSON *resumed = cJSON_AddArrayToObject(f, "resumed");
	session_login(l->sess, c, resumed);
	int n = cJSON_GetArraySize(resumed);
	char *back = NULL;
	if (n > 0) {
		back = xasprintf("; back in game%s", n > 1 ? "s" : "");
		for (int i = 0; i < n; i++)
			xappend(&back, "%s %.0f", i ? "," : "",
			        cJSON_GetArrayItem(resumed, i)->valuedouble);
	}
	log_info("conn %llu is %s", (unsigned long long)c->conn->id, c->name);
	reply_ok(c, rq, f, NULL, "logged in as %s%s%s%s%s", c->name, registered ? "" : " (guest)",
	         back ? back : "", !registered && c->token[0] ? "; token " : "",
	         registered ? "" : c->token);
	free(back);
	session_resume_send(l->sess, c);
	if (l->news.on_presence != NULL)
		l->news.on_presence(l->news.ud, c, true);
	if (l->hooks.on_login != NULL)
		l->hooks.on_login(l->hooks.ud, c);
}

void lobby_logout(struct lobby *l, struct client *c, const struct proto_req *rq)
{
	log_info("conn %llu (%s) logs out", (unsigned long long)c->conn->id, c->name);
	lobby_client_gone(l, c);
	session_client_gone(l->sess, c);
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "name", c->name);
	cJSON_AddNumberToObject(f, "grace_ms", (double)l->sess->grace_ms);
	reply_ok(c, rq, f, NULL,
	         "%s logged out; seats you left wait %" PRId64 " s for you to log in again",
	         c->name, l->sess->grace_ms / 1000);
	c->logged_in = false;
	c->registered = false;
	c->name[0] = '\0';
}

void lobby_who(struct lobby *l, struct client *c, const struct proto_req *rq)
{
	cJSON *f = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(f, "users");
	char *extra = NULL;
	int n = 0;
	for (struct conn *un = l->hub->conns; un != NULL; un = un->next) {
		struct client *u = user_at(un);
		if (u == NULL)
			continue;
		n++;
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "name", u->name);
		cJSON_AddBoolToObject(j, "guest", !u->registered);
		cJSON *pl = cJSON_AddArrayToObject(j, "playing");
		cJSON *wa = cJSON_AddArrayToObject(j, "watching");
		char *line = xasprintf("  %s", u->name);
		rtt_describe(u, j, &line);
		for (struct game *g = l->sess->games; g != NULL; g = g->next) {
			if (g->freeing)
				continue;
			bool plays = !g->over && session_seat_of(g, u) >= 0;
			bool watches = !plays && session_is_watching(g, u);
			if (!plays && !watches)
				continue;
			cJSON_AddItemToArray(plays ? pl : wa, cJSON_CreateNumber((double)g->id));
			xappend(&line, ", %s %" PRIu64, plays ? "plays" : "watches", g->id);
		}
		cJSON_AddItemToArray(arr, j);
		xappend(&extra, "%s%s", extra ? "\n" : "", line ? line : "");
		free(line);
	}
	reply_ok(c, rq, f, extra, "%d user%s online", n, n == 1 ? "" : "s");
}

/* ---- seeks ------------------------------------------------------------------------- */

void lobby_games(struct client *c, const struct proto_req *rq)
{
	cJSON *f = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(f, "games");
	char *extra = NULL;
	int count = 0;
	for (size_t i = 0; game_table[i] != NULL; i++, count++) {
		const struct game_ops *ops = game_table[i];
		bool sim = (ops->flags & GAME_SIMULTANEOUS) != 0;
		cJSON *g = cJSON_CreateObject();
		cJSON_AddStringToObject(g, "name", ops->name);
		cJSON_AddStringToObject(g, "title", ops->title);
		cJSON_AddNumberToObject(g, "players", ops->nplayers);
		cJSON *seats = cJSON_AddArrayToObject(g, "seats");
		for (int k = 0; k < ops->nplayers; k++)
			cJSON_AddItemToArray(seats, cJSON_CreateString(ops->seat_names[k]));
		cJSON_AddBoolToObject(g, "simultaneous", sim);
		cJSON *opts = cJSON_AddArrayToObject(g, "options");
		char *line =
		        xasprintf("  %-6s %s, seats %s/%s%s", ops->name, ops->title,
		                  ops->seat_names[0], ops->seat_names[1],
		                  sim ? ", simultaneous turns (turn_ms=, first_turn_ms=, strict=)"
		                      : " (time=MIN+INC)");
		for (int k = 0; k < ops->nopts; k++) {
			const struct game_optdef *d = &ops->opts[k];
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "name", d->name);
			cJSON_AddNumberToObject(o, "default", (double)d->def);
			cJSON_AddNumberToObject(o, "min", (double)d->min);
			cJSON_AddNumberToObject(o, "max", (double)d->max);
			cJSON_AddStringToObject(o, "help", d->help ? d->help : "");
			cJSON_AddItemToArray(opts, o);
			xappend(&line, "\n    %s=%" PRId64 " (%" PRId64 "..%" PRId64 ") %s",
			        d->name, d->def, d->min, d->max, d->help ? d->help : "");
		}
		cJSON_AddItemToArray(arr, g);
		xappend(&extra, "%s%s", i ? "\n" : "", line ? line : "");
		free(line);
	}
	reply_ok(c, rq, f, extra, "%d game kinds; seek <kind> [opt=value ...]", count);
}

struct seek *lobby_seek_new(struct lobby *l, struct client *c, const struct proto_req *rq, int argc,
                            char *const argv[], struct client *to)
{
	const struct game_ops *ops = game_find(argv[0]);
	if (ops == NULL) {
		reply_err(c, rq, "UNKNOWN_GAME", "no game called '%.*s'; 'games' lists them",
		          (int)text_cut(argv[0], 32), argv[0]);
		return NULL;
	}
	struct seek_opts so;
	char why[160];
	if (seek_opts_parse(ops, argc - 1, argv + 1, &so, why, sizeof why) < 0) {
		reply_err(c, rq, "BAD_OPTION", "%s", why);
		return NULL;
	}
	if (so.rated && !c->registered) {
		reply_err(c, rq, "RATED_NEEDS_ACCOUNT",
		          "rated games are between accounts: register first, or seek rated=0");
		return NULL;
	}
	if (so.rated && to != NULL && !to->registered) {
		reply_err(c, rq, "RATED_NEEDS_ACCOUNT",
		          "%s is a guest: rated games are between accounts", to->name);
		return NULL;
	}
	int mine = 0;
	for (struct seek *k = l->seeks; k != NULL; k = k->next)
		mine += k->by == c;
	if (mine >= LOBBY_MAX_SEEKS) {
		reply_err(c, rq, "TOO_MANY_SEEKS", "you have %d open seeks already", mine);
		return NULL;
	}
	struct seek *k = calloc(1, sizeof *k);
	if (k == NULL) {
		reply_err(c, rq, "INTERNAL", "out of memory");
		return NULL;
	}
	k->id = l->hooks.seek_id != NULL ? l->hooks.seek_id(l->hooks.ud) : 0;
	if (k->id == 0)
		k->id = ++l->next_seek_id;
	k->by = c;
	k->to = to;
	k->ops = ops;
	k->so = so;
	struct seek **pp = &l->seeks;
	while (*pp != NULL)
		pp = &(*pp)->next;
	*pp = k;
	return k;
}

void lobby_seek(struct lobby *l, struct client *c, const struct proto_req *rq)
{
	struct seek *k = lobby_seek_new(l, c, rq, rq->argc, rq->argv, NULL);
	if (k == NULL)
		return;
	cJSON *f = cJSON_CreateObject();
	cJSON_AddItemToObject(f, "seek", lobby_seek_json(k));
	char *d = lobby_seek_text(k);
	reply_ok(c, rq, f, NULL, "seek %s", d ? d : "");
	free(d);
	seek_announce(l, k, false);
}

void lobby_seeks(struct lobby *l, struct client *c, const struct proto_req *rq)
{
	cJSON *f = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(f, "seeks");
	char *extra = NULL;
	int n = 0;
	for (struct seek *k = l->seeks; k != NULL; k = k->next) {
		if (k->to != NULL && k->to != c && k->by != c)
			continue; /* someone else's challenge */
		n++;
		cJSON_AddItemToArray(arr, lobby_seek_json(k));
		char *d = lobby_seek_text(k);
		xappend(&extra, "%s  %s", extra ? "\n" : "", d ? d : "");
		free(d);
	}
	reply_ok(c, rq, f, extra, "%d open seek%s", n, n == 1 ? "" : "s");
}

void lobby_unseek(struct lobby *l, struct client *c, const struct proto_req *rq, struct seek *k)
{
	uint64_t id = k->id;
	if (k->by != c) {
		reply_err(c, rq, "NOT_YOUR_SEEK", "seek %" PRIu64 " is %s's", id, k->by->name);
		return;
	}
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "seek", (double)id);
	reply_ok(c, rq, f, NULL, "seek %" PRIu64 " withdrawn", id);
	seek_remove(l, k, true);
}

void lobby_accept(struct lobby *l, struct client *c, const struct proto_req *rq, struct seek *k)
{
	struct sessions *s = l->sess;
	uint64_t id = k->id;
	if (k->by == c) {
		reply_err(c, rq, "OWN_SEEK", "seek %" PRIu64 " is your own; wait for someone", id);
		return;
	}
	if (k->so.rated && !c->registered) {
		reply_err(c, rq, "RATED_NEEDS_ACCOUNT",
		          "seek %" PRIu64 " is rated: rated games are between accounts", id);
		return;
	}
	int seeker = k->so.color >= 0 ? k->so.color : (int)(rng_next(&s->rng) & 1);
	struct game_spec spec = {.ops = k->ops, .so = k->so, .seed = rng_next(&s->rng)};
	spec.names[seeker] = k->by->name;
	spec.clients[seeker] = k->by;
	spec.registered[seeker] = k->by->registered;
	spec.names[1 - seeker] = c->name;
	spec.clients[1 - seeker] = c;
	spec.registered[1 - seeker] = c->registered;
	struct game *g = session_create(s, &spec);
	if (g == NULL) {
		reply_err(c, rq, "INTERNAL", "the game could not be started");
		return;
	}
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "game", (double)g->id);
	reply_ok(c, rq, f, NULL, "accepted seek %" PRIu64 ": game %" PRIu64, id, g->id);
	seek_remove(l, k, true);
	session_begin(g);
}
