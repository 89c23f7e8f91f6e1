/*
 * commands.c - the dispatcher and the lobby: one input line is checked
 * (content, tag, verb, arity, login) once from the table in proto.c, then
 * handed to its handler. Lobby commands live here (login, games, seeks,
 * accept, list, who, set, ping, help, quit); game commands go to session.c.
 */
#include "server/server.h"
#include "server/session.h"
#include "server/offers.h"
#include "server/storage.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct seek {
	struct seek *next;
	uint64_t id;
	struct client *by;
	const struct game_ops *ops;
	struct seek_opts so;
};

struct client *server_find_user(struct server *s, const char *name)
{
	for (struct conn *cn = s->hub.conns; cn != NULL; cn = cn->next) {
		struct client *c = client_of(cn);
		if (c != NULL && c->logged_in && !cn->closing && strcasecmp(c->name, name) == 0)
			return c;
	}
	return NULL;
}

/* ---- seeks ------------------------------------------------------------------------ */

static const char *color_word(int color)
{
	return color == 0 ? "first" : color == 1 ? "second" : "random";
}

static cJSON *seek_json(const struct seek *k)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "id", (double)k->id);
	cJSON_AddStringToObject(j, "by", k->by->name);
	cJSON_AddStringToObject(j, "kind", k->ops->name);
	cJSON_AddItemToObject(j, "options", session_options_json(k->ops, &k->so.params));
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

/* "3 by alice: ttt m=3 n=3 k=3, untimed, seeker plays random" (malloc'd). */
static char *seek_text(const struct seek *k)
{
	char *o = session_options_text(k->ops, &k->so);
	char *t = xasprintf("%" PRIu64 " by %s: %s %s, seeker plays %s", k->id, k->by->name,
	                    k->ops->name, o ? o : "", color_word(k->so.color));
	free(o);
	return t;
}

/* Tells every logged-in connection but the author about a new or vanished seek. */
static void seek_announce(struct server *s, const struct seek *k, bool gone)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "seek");
	cJSON_AddStringToObject(j, "event", gone ? "gone" : "new");
	char *text;
	if (gone) {
		cJSON_AddNumberToObject(j, "id", (double)k->id);
		text = xasprintf("seek %" PRIu64 " gone", k->id);
	} else {
		cJSON_AddItemToObject(j, "seek", seek_json(k));
		char *d = seek_text(k);
		text = xasprintf("seek %s (accept %" PRIu64 " to play)", d ? d : "", k->id);
		free(d);
	}
	struct msg m;
	msg_init(&m, j, text);
	for (struct conn *cn = s->hub.conns; cn != NULL; cn = cn->next) {
		struct client *c = client_of(cn);
		if (c != NULL && c->logged_in && !cn->closing && c != k->by)
			msg_send(&m, c);
	}
	msg_done(&m);
}

/* Unlinks and frees seek k; tells the others when announce. */
static void seek_remove(struct server *s, struct seek *k, bool announce)
{
	for (struct seek **pp = &s->seeks; *pp != NULL; pp = &(*pp)->next)
		if (*pp == k) {
			*pp = k->next;
			break;
		}
	if (announce)
		seek_announce(s, k, true);
	free(k);
}

static struct seek *seek_find(struct server *s, uint64_t id)
{
	for (struct seek *k = s->seeks; k != NULL; k = k->next)
		if (k->id == id)
			return k;
	return NULL;
}

void lobby_conn_gone(struct client *c)
{
	struct server *s = c->srv;
	struct seek *k = s->seeks;
	while (k != NULL) {
		struct seek *next = k->next;
		if (k->by == c)
			seek_remove(s, k, true);
		k = next;
	}
}

void lobby_free(struct server *s)
{
	while (s->seeks != NULL)
		seek_remove(s, s->seeks, false);
}

/* ---- handlers ----------------------------------------------------------------------- */

static void cmd_login(struct client *c, const struct proto_req *rq)
{
	const char *name = rq->argv[0];
	if (c->logged_in) {
		reply_err(c, rq, "ALREADY_LOGGED_IN", "you are %s already", c->name);
		return;
	}
	if (rq->argc == 2) { /* an account: the password is checked on a worker */
		acct_login(c, rq);
		return;
	}
	if (!proto_name_valid(name)) {
		reply_err(c, rq, "BAD_NAME",
		          "names are %d to %d characters of A-Z, a-z, 0-9, _ and -", PROTO_NAME_MIN,
		          PROTO_NAME_MAX);
		return;
	}
	int acct = storage_is_account(c->srv, name);
	if (acct != 0) {
		if (acct < 0)
			reply_err(c, rq, "INTERNAL", "the accounts could not be read");
		else
			reply_err(c, rq, "NAME_REGISTERED",
			          "%s is a registered account: login %s <password>", name, name);
		return;
	}
	if (server_find_user(c->srv, name) != NULL) {
		reply_err(c, rq, "NAME_TAKEN", "%s is connected already; pick another name", name);
		return;
	}
	lobby_logged_in(c, rq, name, false);
}

void lobby_logged_in(struct client *c, const struct proto_req *rq, const char *name, bool registered)
{
	snprintf(c->name, sizeof c->name, "%s", name);
	c->logged_in = true;
	c->registered = registered;
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "name", c->name);
	cJSON_AddBoolToObject(f, "guest", !registered);
	cJSON *resumed = cJSON_AddArrayToObject(f, "resumed");
	session_login(c, resumed);
	int n = cJSON_GetArraySize(resumed);
	char *back = NULL;
	if (n > 0) {
		back = xasprintf("; back in game%s", n > 1 ? "s" : "");
		for (int i = 0; i < n; i++)
			xappend(&back, "%s %.0f", i ? "," : "",
			        cJSON_GetArrayItem(resumed, i)->valuedouble);
	}
	log_info("conn %llu is %s", (unsigned long long)c->conn->id, c->name);
	reply_ok(c, rq, f, NULL, "logged in as %s%s%s", c->name, registered ? "" : " (guest)",
	         back ? back : "");
	free(back);
	session_resume_send(c);
}

static void cmd_games(struct client *c, const struct proto_req *rq)
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
		char *line = xasprintf("  %-6s %s, seats %s/%s%s", ops->name, ops->title,
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

static void cmd_seek(struct client *c, const struct proto_req *rq)
{
	struct server *s = c->srv;
	const struct game_ops *ops = game_find(rq->argv[0]);
	if (ops == NULL) {
		reply_err(c, rq, "UNKNOWN_GAME", "no game called '%.32s'; 'games' lists them",
		          rq->argv[0]);
		return;
	}
	struct seek_opts so;
	char why[160];
	if (seek_opts_parse(ops, rq->argc - 1, rq->argv + 1, &so, why, sizeof why) < 0) {
		reply_err(c, rq, "BAD_OPTION", "%s", why);
		return;
	}
	if (so.rated && !c->registered) {
		reply_err(c, rq, "RATED_NEEDS_ACCOUNT",
		          "rated games are between accounts: register first, or seek rated=0");
		return;
	}
	int mine = 0;
	for (struct seek *k = s->seeks; k != NULL; k = k->next)
		mine += k->by == c;
	if (mine >= SERVER_MAX_SEEKS) {
		reply_err(c, rq, "TOO_MANY_SEEKS", "you have %d open seeks already", mine);
		return;
	}
	struct seek *k = calloc(1, sizeof *k);
	if (k == NULL) {
		reply_err(c, rq, "INTERNAL", "out of memory");
		return;
	}
	k->id = ++s->next_seek_id;
	k->by = c;
	k->ops = ops;
	k->so = so;
	struct seek **pp = &s->seeks;
	while (*pp != NULL)
		pp = &(*pp)->next;
	*pp = k;
	cJSON *f = cJSON_CreateObject();
	cJSON_AddItemToObject(f, "seek", seek_json(k));
	char *d = seek_text(k);
	reply_ok(c, rq, f, NULL, "seek %s", d ? d : "");
	free(d);
	seek_announce(s, k, false);
}

static void cmd_seeks(struct client *c, const struct proto_req *rq)
{
	cJSON *f = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(f, "seeks");
	char *extra = NULL;
	int n = 0;
	for (struct seek *k = c->srv->seeks; k != NULL; k = k->next, n++) {
		cJSON_AddItemToArray(arr, seek_json(k));
		char *d = seek_text(k);
		xappend(&extra, "%s  %s", extra ? "\n" : "", d ? d : "");
		free(d);
	}
	reply_ok(c, rq, f, extra, "%d open seek%s", n, n == 1 ? "" : "s");
}

static bool arg_id(struct client *c, const struct proto_req *rq, const char *what, uint64_t *id)
{
	if (proto_parse_id(rq->argv[0], id))
		return true;
	reply_err(c, rq, "BAD_ARGS", "%s ids are positive whole numbers", what);
	return false;
}

static void cmd_unseek(struct client *c, const struct proto_req *rq)
{
	uint64_t id;
	if (!arg_id(c, rq, "seek", &id))
		return;
	struct seek *k = seek_find(c->srv, id);
	if (k == NULL) {
		reply_err(c, rq, "NO_SUCH_SEEK", "there is no seek %" PRIu64, id);
		return;
	}
	if (k->by != c) {
		reply_err(c, rq, "NOT_YOUR_SEEK", "seek %" PRIu64 " is %s's", id, k->by->name);
		return;
	}
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "seek", (double)id);
	reply_ok(c, rq, f, NULL, "seek %" PRIu64 " withdrawn", id);
	seek_remove(c->srv, k, true);
}

static void cmd_accept(struct client *c, const struct proto_req *rq)
{
	struct server *s = c->srv;
	uint64_t id;
	if (!arg_id(c, rq, "seek", &id))
		return;
	struct seek *k = seek_find(s, id);
	if (k == NULL) {
		reply_err(c, rq, "NO_SUCH_SEEK", "there is no seek %" PRIu64, id);
		return;
	}
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
	spec.conns[seeker] = k->by;
	spec.names[1 - seeker] = c->name;
	spec.conns[1 - seeker] = c;
	struct game *g = session_create(s, &spec);
	if (g == NULL) {
		reply_err(c, rq, "INTERNAL", "the game could not be started");
		return;
	}
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "game", (double)g->id);
	reply_ok(c, rq, f, NULL, "accepted seek %" PRIu64 ": game %" PRIu64, id, g->id);
	seek_remove(s, k, true);
	session_begin(g);
}

static void cmd_list(struct client *c, const struct proto_req *rq)
{
	cJSON *f = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(f, "games");
	char *extra = NULL;
	int n = 0;
	for (struct game *g = c->srv->games; g != NULL; g = g->next) {
		if (g->over || g->freeing)
			continue;
		n++;
		cJSON *j = cJSON_CreateObject();
		cJSON_AddNumberToObject(j, "id", (double)g->id);
		cJSON_AddStringToObject(j, "kind", g->ops->name);
		cJSON *pl = cJSON_AddArrayToObject(j, "players");
		for (int i = 0; i < g->ops->nplayers; i++)
			cJSON_AddItemToArray(pl, cJSON_CreateString(g->pl[i].name));
		cJSON_AddNumberToObject(j, "ply", g->ply);
		cJSON *tm = cJSON_AddArrayToObject(j, "to_move");
		unsigned mask = g->ops->to_move(g->st);
		for (int i = 0; i < g->ops->nplayers; i++)
			if (mask & (1u << i))
				cJSON_AddItemToArray(tm, cJSON_CreateNumber(i));
		cJSON_AddNumberToObject(j, "watchers", (double)g->nw);
		cJSON_AddItemToArray(arr, j);
		xappend(&extra, "%s  %" PRIu64 " %s: %s (%s) vs %s (%s), ply %d, %zu watching",
		        extra ? "\n" : "", g->id, g->ops->name, g->pl[0].name,
		        g->ops->seat_names[0], g->pl[1].name, g->ops->seat_names[1], g->ply, g->nw);
	}
	reply_ok(c, rq, f, extra, "%d game%s in progress", n, n == 1 ? "" : "s");
}

static void cmd_who(struct client *c, const struct proto_req *rq)
{
	struct server *s = c->srv;
	cJSON *f = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(f, "users");
	char *extra = NULL;
	int n = 0;
	for (struct conn *un = s->hub.conns; un != NULL; un = un->next) {
		struct client *u = client_of(un);
		if (u == NULL || !u->logged_in || un->closing)
			continue;
		n++;
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "name", u->name);
		cJSON_AddBoolToObject(j, "guest", !u->registered);
		cJSON *pl = cJSON_AddArrayToObject(j, "playing");
		cJSON *wa = cJSON_AddArrayToObject(j, "watching");
		char *line = xasprintf("  %s", u->name);
		rtt_describe(u, j, &line);
		for (struct game *g = s->games; g != NULL; g = g->next) {
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

static void cmd_set(struct client *c, const struct proto_req *rq)
{
	if (strcasecmp(rq->argv[0], "ping") == 0) {
		rtt_set(c, rq, rq->argv[1]); /* rtt.c */
		return;
	}
	bool json;
	if (strcasecmp(rq->argv[0], "format") != 0 ||
	    (strcasecmp(rq->argv[1], "json") != 0 && strcasecmp(rq->argv[1], "text") != 0)) {
		reply_err(c, rq, "BAD_FORMAT", "usage: set format text|json");
		return;
	}
	json = strcasecmp(rq->argv[1], "json") == 0;
	c->json = json;
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "format", json ? "json" : "text");
	reply_ok(c, rq, f, NULL, "format %s", json ? "json" : "text");
}

static void cmd_ping(struct client *c, const struct proto_req *rq)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "pong");
	char *text;
	if (rq->tagged) {
		cJSON_AddStringToObject(j, "id", rq->tag);
		text = xasprintf("#%s pong", rq->tag);
	} else {
		text = xasprintf("pong");
	}
	send_msg(c, j, text);
}

static void cmd_pong(struct client *c, const struct proto_req *rq)
{
	rtt_pong(c, rq, rq->argv[0]);
}

static void cmd_help(struct client *c, const struct proto_req *rq)
{
	cJSON *f = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(f, "verbs");
	const struct proto_cmd *only = NULL;
	if (rq->argc == 1) {
		only = proto_find(rq->argv[0]);
		if (only == NULL) {
			cJSON_Delete(f);
			reply_err(c, rq, "UNKNOWN_COMMAND", "no command '%.24s'", rq->argv[0]);
			return;
		}
	}
	char *extra = NULL;
	for (size_t i = 0; i < proto_ncmds; i++) {
		const struct proto_cmd *pc = &proto_cmds[i];
		if (only != NULL && pc != only)
			continue;
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "name", pc->name);
		cJSON_AddStringToObject(j, "usage", pc->usage);
		cJSON_AddStringToObject(j, "help", pc->help);
		cJSON_AddItemToArray(arr, j);
		xappend(&extra, "%s  %-28s %s", extra ? "\n" : "", pc->usage, pc->help);
	}
	reply_ok(c, rq, f, extra, "%s",
	         only ? only->usage : "commands (a leading #tag is echoed):");
}

static void cmd_quit(struct client *c, const struct proto_req *rq)
{
	reply_ok(c, rq, NULL, NULL, "bye");
	client_close(c, true);
}

/* move/resign/watch/unwatch/say: the game id argument, then session.c. */
static void cmd_game(struct client *c, const struct proto_req *rq)
{
	uint64_t id;
	if (!arg_id(c, rq, "game", &id))
		return;
	struct game *g = session_find(c->srv, id);
	if (g == NULL) {
		reply_err(c, rq, "NO_SUCH_GAME", "there is no game %" PRIu64, id);
		return;
	}
	switch (rq->cmd->verb) {
	case V_MOVE:
		session_move(c, rq, g, rq->argv[1]);
		break;
	case V_RESIGN:
		session_resign(c, rq, g);
		break;
	case V_WATCH:
		session_watch(c, rq, g);
		break;
	case V_UNWATCH:
		session_unwatch(c, rq, g);
		break;
	case V_SAY:
		session_say(c, rq, g, rq->argv[1]);
		break;
	default:
		break;
	}
}

typedef void (*cmd_fn)(struct client *c, const struct proto_req *rq);

static const cmd_fn handlers[V__COUNT] = {
        [V_LOGIN] = cmd_login,        [V_GAMES] = cmd_games,
        [V_SEEK] = cmd_seek,          [V_SEEKS] = cmd_seeks,
        [V_UNSEEK] = cmd_unseek,      [V_ACCEPT] = cmd_accept,
        [V_LIST] = cmd_list,          [V_MOVE] = cmd_game,
        [V_RESIGN] = cmd_game,        [V_WATCH] = cmd_game,
        [V_UNWATCH] = cmd_game,       [V_WHO] = cmd_who,
        [V_SAY] = cmd_game,           [V_SET] = cmd_set,
        [V_PING] = cmd_ping,          [V_HELP] = cmd_help,
        [V_QUIT] = cmd_quit,          [V_DRAW] = offers_cmd,
        [V_UNDO] = offers_cmd,        [V_ABORT] = offers_cmd,
        [V_REMATCH] = offers_cmd,     [V_PONG] = cmd_pong,
        [V_REGISTER] = acct_register, [V_RATINGS] = acct_ratings,
        [V_FINGER] = acct_finger,     [V_HISTORY] = acct_history,
        [V_RECORD] = acct_record,     [V_REPLAY] = acct_replay,
};

void commands_line(struct client *c, char *line, size_t len)
{
	if (!frame_line_valid(line, len)) {
		reply_err(c, NULL, "BAD_INPUT",
		          "the line holds control bytes or is not UTF-8; it was ignored");
		return;
	}
	struct proto_req rq;
	switch (proto_parse(line, &rq)) {
	case PROTO_EMPTY:
		return;
	case PROTO_EBADTAG:
		rq.tagged = false;
		reply_err(c, NULL, "BAD_TAG",
		          "a tag is #<1-32 of A-Z a-z 0-9 _ -> followed by a space and a command");
		return;
	case PROTO_EUNKNOWN:
		reply_err(c, &rq, "UNKNOWN_COMMAND", "no command '%s'; 'help' lists them", rq.verb);
		return;
	case PROTO_EARGS:
		reply_err(c, &rq, "BAD_ARGS", "usage: %s", rq.cmd->usage);
		return;
	default:
		break;
	}
	if ((rq.cmd->flags & PROTO_NEED_LOGIN) && !c->logged_in) {
		reply_err(c, &rq, "NOT_LOGGED_IN", "log in first: login <name>");
		return;
	}
	handlers[rq.cmd->verb](c, &rq);
}
