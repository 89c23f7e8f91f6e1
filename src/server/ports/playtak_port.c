/*
 * playtak_port.c - the playtak port (see playtak_port.h): its listener and
 * connections, playtak lines turned into the command table's commands, the
 * port's own verbs (guests, lists, chat), and the front-end that renders the
 * server's messages and states for each of its clients in playtak lines.
 * The line shapes are the playtak server's (Client.java, Game.java,
 * Seek.java; tak.md section 3); playtak.h writes the longer ones. On a cluster node it
 * also renders other nodes' seeks, and a game another node runs for its client, from the
 * JSON those nodes send (docs/cluster.md section 6).
 */
#include "server/ports/playtak_port.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sodium.h>

#include "games/tak/tak.h"
#include "server/records/accounts.h"
#include "server/play/identity.h"
#include "server/msg/msg.h"
#include "server/ports/playtak.h"
#include "server/play/session.h"
#include "server/play/session_clock.h"
#include "server/play/session_view.h"
#include "server/play/session_watch.h"

/* A Login Guest token and the guest name it keeps, with the table's token of that guest. */
struct pt_guest {
	char token[21];
	char name[PROTO_NAME_MAX + 1];
	char ours[PROTO_TOKEN_LEN + 1]; /* identity.h: the guest's seats come back with it */
	uint64_t used; /* when it was last given out (p->guest_uses): the oldest goes first */
};

/* A game a client hears of (plays or observes) and how much of it it has been told. */
struct pt_seen {
	uint64_t game;
	size_t told;  /* plies the client knows */
	bool quiet;   /* a new game's start: no clock line before its first move */
	bool resumed; /* given back at login: "Your game is resumed" once its moves are sent */
	int seat;     /* a game of another node the client plays: its seat (from game_start) */
};

/* A challenge (a seek for one opponent), or another node's open seek (remote), shown to a
   client, as its Seek new showed it. */
struct pt_shown {
	uint64_t id;
	char fields[200];
	bool remote;
};

/* The port's part of a client (cl->fe_data). */
struct pt_client {
	struct playtak_port *port;
	long protocol;              /* Protocol <n>: 0 by default */
	char token[21];             /* its Login Guest token, or "" */
	char password[24];          /* the password Register made, until its reply */
	char told[PT_TEXT_MAX + 1]; /* a Tell's text, for its "Told" */
	struct pt_seen *seen;
	size_t nseen, capseen;
	/* challenges from or to the client it was shown: their end is not news of the lobby,
	   so the client is told from here (a "Seek remove" once they are gone); and the
	   seeks of a cluster's other nodes, whose end is news without their fields */
	struct pt_shown *shown;
	size_t nshown;
};

/*
 * The playtak verb a command of the table was made from: its tag, by which
 * the reply (even a later one: a password is checked on a worker) is rendered.
 */
enum op {
	OP_NONE,
	OP_LOGIN,
	OP_GUEST,
	OP_REGISTER,
	OP_SEEK,
	OP_ACCEPT,
	OP_MOVE,
	OP_DRAW,
	OP_REMOVE_DRAW,
	OP_UNDO,
	OP_REMOVE_UNDO,
	OP_RESIGN,
	OP_OBSERVE,
	OP_UNOBSERVE,
	OP_SAY,
	OP_REMATCH,
	OP_TELL,
	OP_UNSEEK,
	OP_LIST,
	OP_COUNT
};
static const char *const op_tag[OP_COUNT] = {
        [OP_LOGIN] = "ptLogin",         [OP_GUEST] = "ptGuest",
        [OP_REGISTER] = "ptRegister",   [OP_SEEK] = "ptSeek",
        [OP_ACCEPT] = "ptAccept",       [OP_MOVE] = "ptMove",
        [OP_DRAW] = "ptDraw",           [OP_REMOVE_DRAW] = "ptRemoveDraw",
        [OP_UNDO] = "ptUndo",           [OP_REMOVE_UNDO] = "ptRemoveUndo",
        [OP_RESIGN] = "ptResign",       [OP_OBSERVE] = "ptObserve",
        [OP_UNOBSERVE] = "ptUnobserve", [OP_SAY] = "ptSay",
        [OP_REMATCH] = "ptRematch",     [OP_TELL] = "ptTell",
        [OP_UNSEEK] = "ptUnseek",       [OP_LIST] = "ptList",
};

static const struct msg_frontend pt_frontend;

/* ---- output ----------------------------------------------------------------------------- */

/* Lines being built for one client (or one broadcast). */
struct pt_out {
	char *s;
	size_t len, cap;
	bool oom;
};

/* Appends printf text (no newline). */
static void vput(struct pt_out *o, const char *fmt, va_list ap)
        __attribute__((format(printf, 2, 0)));
static void vput(struct pt_out *o, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0 || o->oom)
		return;
	if (o->len + (size_t)n + 2 > o->cap) {
		size_t cap = o->cap ? o->cap : 256;
		while (cap < o->len + (size_t)n + 2)
			cap *= 2;
		char *s = realloc(o->s, cap);
		if (s == NULL) {
			o->oom = true;
			return;
		}
		o->s = s;
		o->cap = cap;
	}
	vsnprintf(o->s + o->len, o->cap - o->len, fmt, ap);
	o->len += (size_t)n;
}

static void put(struct pt_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct pt_out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vput(o, fmt, ap);
	va_end(ap);
}

/* Appends one line (printf; the newline is added). */
static void say(struct pt_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct pt_out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vput(o, fmt, ap);
	va_end(ap);
	put(o, "\n");
}

/* The lines as an outbuf (the caller's reference), NULL when there are none. */
static struct outbuf *out_done(struct pt_out *o)
{
	struct outbuf *b = o->len > 0 && !o->oom ? outbuf_new(o->s, o->len) : NULL;
	free(o->s);
	*o = (struct pt_out){0};
	return b;
}

/* Sends the lines of o to cl (o is emptied). */
static void out_send(struct client *cl, struct pt_out *o)
{
	struct outbuf *b = out_done(o);
	client_send(cl, b);
	outbuf_unref(b);
}

/* One line to cl. */
static void send_line(struct client *cl, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
static void send_line(struct client *cl, const char *fmt, ...)
{
	struct pt_out o = {0};
	va_list ap;
	va_start(ap, fmt);
	vput(&o, fmt, ap);
	va_end(ap);
	put(&o, "\n");
	out_send(cl, &o);
}

static struct pt_client *pt_of(const struct client *cl)
{
	return cl->fe == &pt_frontend ? cl->fe_data : NULL;
}

/*
 * A logged-in client that stays (a closing one is still linked while the
 * layers leave it: leaving is that client, named by the news of its going),
 * and is this node's (a cluster's relay client stands for another node's).
 */
static bool staying(const struct client *c, const struct client *leaving)
{
	return c != NULL && c != leaving && c->logged_in && !c->remote && conn_alive(c->conn);
}

/* The port's logged-in clients, one by one: for (c = NULL; (c = next_user(p, c, x));). */
static struct client *next_user(const struct playtak_port *p, const struct client *after,
                                const struct client *leaving)
{
	struct conn *cn = after != NULL ? after->conn->next : p->hub->conns;
	for (; cn != NULL; cn = cn->next) {
		struct client *c = client_of(cn);
		if (staying(c, leaving) && pt_of(c) != NULL && pt_of(c)->port == p)
			return c;
	}
	return NULL;
}

/* What a broadcast tells: rendered for a protocol version into o; false for nothing. */
struct news {
	bool (*line)(const struct news *n, long protocol, struct pt_out *o);
	const struct playtak_port *port;
	const struct client *leaving; /* a client going away: not told, not counted */
	const struct seek *seek;
	const struct game *game;
	bool gone;
	const struct client *from; /* a Shout's author, and its text */
	const char *text;
};

/*
 * Sends n to every logged-in client of the port, rendered for protocol
 * versions up to 1 (old) and from 2 (new); each shape is built once.
 */
static void broadcast(struct playtak_port *p, const struct news *n)
{
	struct outbuf *shape[2] = {NULL, NULL};
	bool tried[2] = {false, false};
	for (struct client *c = NULL; (c = next_user(p, c, n->leaving)) != NULL;) {
		int k = pt_of(c)->protocol >= 2;
		if (!tried[k]) {
			struct pt_out o = {0};
			tried[k] = true;
			if (n->line(n, k ? 2 : 0, &o))
				shape[k] = out_done(&o);
			else
				free(o.s);
		}
		client_send(c, shape[k]);
	}
	outbuf_unref(shape[0]);
	outbuf_unref(shape[1]);
}

static bool shout_news(const struct news *n, long protocol, struct pt_out *o)
{
	(void)protocol;
	say(o, "Shout <%s> %s", n->from->name, n->text);
	return true;
}

/* ---- games and seeks as playtak shows them ------------------------------------------------ */

static bool is_tak(const struct game_ops *ops)
{
	return ops == &game_tak;
}

static int opt(const struct game_params *p, int i)
{
	return (int)p->v[i];
}

/* The stones and capstones a Tak game is played with (the standard counts resolved). */
static void tak_counts(const struct game_params *gp, int *size, int *pieces, int *caps)
{
	*size = opt(gp, TAK_OPT_SIZE);
	*pieces = opt(gp, TAK_OPT_PIECES) > 0 ? opt(gp, TAK_OPT_PIECES) : tak_std_stones(*size);
	*caps = opt(gp, TAK_OPT_CAPS) >= 0 ? opt(gp, TAK_OPT_CAPS) : tak_std_caps(*size);
}

static void game_info(const struct game *g, struct pt_gameinfo *gi)
{
	const struct seek_opts *so = session_opts(g);
	memset(gi, 0, sizeof *gi);
	gi->id = (long long)session_id(g);
	gi->white = session_seat(g, 0)->name;
	gi->black = session_seat(g, 1)->name;
	tak_counts(&so->params, &gi->size, &gi->pieces, &gi->caps);
	gi->komi = opt(&so->params, TAK_OPT_KOMI);
	gi->time_s = so->timed ? (long)(so->base_ms / 1000) : 0;
	gi->incr_s = so->timed ? (long)(so->inc_ms / 1000) : 0;
	gi->unrated = !so->rated;
}

static void seek_info(const struct seek *k, struct pt_seekinfo *si)
{
	memset(si, 0, sizeof *si);
	si->id = (long long)k->id;
	si->name = k->by->name;
	tak_counts(&k->so.params, &si->size, &si->pieces, &si->caps);
	si->komi = opt(&k->so.params, TAK_OPT_KOMI);
	si->time_s = k->so.timed ? (long)(k->so.base_ms / 1000) : 0;
	si->incr_s = k->so.timed ? (long)(k->so.inc_ms / 1000) : 0;
	si->color = k->so.color == 0 ? 'W' : k->so.color == 1 ? 'B' : 'A';
	si->unrated = !k->so.rated;
	si->opponent = k->to != NULL ? k->to->name : "";
}

/* "Seek new|remove <fields>" for protocol. */
static bool seek_line(long protocol, const struct seek *k, bool gone, struct pt_out *o)
{
	struct pt_seekinfo si;
	char buf[256];
	seek_info(k, &si);
	if (pt_format_seek(buf, sizeof buf, protocol, &si) < 0)
		return false;
	say(o, "Seek %s %s", gone ? "remove" : "new", buf);
	return true;
}

/* A seek si is shown: "Seek new", remembered until it is gone (remote: another node's). */
static void shown_new(struct pt_out *o, struct pt_client *pc, const struct pt_seekinfo *si,
                      bool remote)
{
	char buf[sizeof pc->shown[0].fields];
	if (pt_format_seek(buf, sizeof buf, pc->protocol, si) < 0)
		return;
	say(o, "Seek new %s", buf);
	for (size_t i = 0; i < pc->nshown; i++)
		if (pc->shown[i].id == (uint64_t)si->id)
			return;
	struct pt_shown *n = realloc(pc->shown, (pc->nshown + 1) * sizeof *n);
	if (n == NULL)
		return;
	pc->shown = n;
	pc->shown[pc->nshown] = (struct pt_shown){.id = (uint64_t)si->id, .remote = remote};
	snprintf(pc->shown[pc->nshown++].fields, sizeof n->fields, "%s", buf);
}

/* Was another node's open seek id shown to the client (and not gone since)? */
static bool shown_remote(const struct pt_client *pc, uint64_t id)
{
	for (size_t i = 0; i < pc->nshown; i++)
		if (pc->shown[i].id == id && pc->shown[i].remote)
			return true;
	return false;
}

/* A challenge k to or from the client is shown. */
static void challenge_shown(struct pt_out *o, struct pt_client *pc, const struct seek *k)
{
	struct pt_seekinfo si;
	seek_info(k, &si);
	shown_new(o, pc, &si, false);
}

/* The seek id shown went (id 0: every challenge that the lobby no longer has): "Seek remove". */
static void challenge_gone(struct pt_out *o, const struct playtak_port *p, struct pt_client *pc,
                           uint64_t id)
{
	for (size_t i = pc->nshown; i-- > 0;) {
		struct pt_shown *e = &pc->shown[i];
		if (id != 0 ? e->id != id
		            : e->remote || lobby_seek_find(p->cx->lobby, e->id) != NULL)
			continue;
		say(o, "Seek remove %s", e->fields);
		*e = pc->shown[--pc->nshown];
	}
}

/* "<prefix> <fields of g>". */
static void game_line(struct pt_out *o, const char *prefix, const struct game *g)
{
	struct pt_gameinfo gi;
	char buf[256];
	game_info(g, &gi);
	if (pt_format_game(buf, sizeof buf, &gi) >= 0)
		say(o, "%s %s", prefix, buf);
}

/* A Tak game not over. */
static bool live(const struct game *g)
{
	return !session_over(g) && is_tak(session_ops(g));
}

/* The live Tak game cl plays, or NULL (a playtak client plays one game at a time). */
static struct game *playing(const struct playtak_port *p, const struct client *cl)
{
	for (struct game *g = sessions_first(p->cx->sess); g != NULL; g = session_next(g))
		if (live(g) && session_seat_of(g, cl) >= 0)
			return g;
	return NULL;
}

/* A live Tak game by id, or NULL. */
static struct game *live_tak(const struct playtak_port *p, uint64_t id)
{
	struct game *g = session_find(p->cx->sess, id);
	return g != NULL && live(g) ? g : NULL;
}

/* A game's chat room as playtak clients name it: the players' names, sorted, joined by '-'. */
static void room_of(const struct game *g, char *buf, size_t len)
{
	const char *a = session_seat(g, 0)->name, *b = session_seat(g, 1)->name;
	if (strcmp(a, b) > 0) {
		const char *t = a;
		a = b;
		b = t;
	}
	snprintf(buf, len, "%s-%s", a, b);
}

/* ---- what a client has been told of its games ------------------------------------------------ */

static struct pt_seen *seen_find(struct pt_client *pc, uint64_t game)
{
	for (size_t i = 0; i < pc->nseen; i++)
		if (pc->seen[i].game == game)
			return &pc->seen[i];
	return NULL;
}

/* The client's entry for game, made (nothing told) when it has none; NULL out of memory. */
static struct pt_seen *seen_get(struct pt_client *pc, uint64_t game)
{
	struct pt_seen *e = seen_find(pc, game);
	if (e != NULL)
		return e;
	if (pc->nseen == pc->capseen) {
		size_t cap = pc->capseen ? pc->capseen * 2 : 4;
		struct pt_seen *n = realloc(pc->seen, cap * sizeof *n);
		if (n == NULL)
			return NULL;
		pc->seen = n;
		pc->capseen = cap;
	}
	e = &pc->seen[pc->nseen++];
	*e = (struct pt_seen){.game = game, .seat = -1};
	return e;
}

static void seen_drop(struct pt_client *pc, uint64_t game)
{
	struct pt_seen *e = seen_find(pc, game);
	if (e != NULL)
		*e = pc->seen[--pc->nseen];
}

/*
 * The moves of g the client has not been told, as playtak relays them: a
 * game that went back (an undo) first, one "Undo" per ply taken back.
 */
static void catch_up(struct pt_out *o, const struct game *g, struct pt_seen *e, size_t upto)
{
	uint64_t id = session_id(g);
	size_t n;
	const struct move_rec *moves = session_moves(g, &n);
	for (; e->told > upto; e->told--)
		say(o, "Game#%" PRIu64 " Undo", id);
	for (; e->told < upto; e->told++) {
		char mv[40];
		if (pt_from_ptn(moves[e->told].text, mv, sizeof mv) > 0)
			say(o, "Game#%" PRIu64 " %s", id, mv);
		else
			log_error("move has no playtak form game=%" PRIu64 " move=%s", id,
			          LOG_Q(moves[e->told].text));
	}
}

/* The number of g's move records. */
static size_t nmoves(const struct game *g)
{
	size_t n;
	session_moves(g, &n);
	return n;
}

/* "Game#N Time w b" in seconds (protocol 0) or "Game#N Timems w b" (protocol >= 1). */
static void clock_line(struct pt_out *o, const struct pt_client *pc, uint64_t game, int64_t w,
                       int64_t b)
{
	w = w > 0 ? w : 0;
	b = b > 0 ? b : 0;
	if (pc->protocol >= 1)
		say(o, "Game#%" PRIu64 " Timems %" PRId64 " %" PRId64, game, w, b);
	else
		say(o, "Game#%" PRIu64 " Time %" PRId64 " %" PRId64, game, w / 1000, b / 1000);
}

/* A seek the client may see: an open one, or a challenge from or to it. */
static bool seek_for(const struct seek *k, const struct client *cl)
{
	return is_tak(k->ops) && (k->to == NULL || k->to == cl || k->by == cl);
}

/* The Seek new lines of every Tak seek cl may see, and the GameList Add of every Tak game. */
static void lists(struct pt_out *o, const struct playtak_port *p, const struct client *cl,
                  struct pt_client *pc, bool seeks, bool games)
{
	for (const struct seek *k = p->cx->lobby->seeks; seeks && k != NULL; k = k->next)
		if (seek_for(k, cl) && k->to != NULL)
			challenge_shown(o, pc, k);
		else if (seek_for(k, cl))
			seek_line(pc->protocol, k, false, o);
	for (const struct game *g = sessions_first(p->cx->sess); games && g != NULL;
	     g = session_next(g))
		if (live(g))
			game_line(o, "GameList Add", g);
}

/* ---- rendering: replies --------------------------------------------------------------------- */

static const char *jstr(const cJSON *j, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static uint64_t jid(const cJSON *j, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
	return cJSON_IsNumber(v) && v->valuedouble >= 1 ? (uint64_t)v->valuedouble : 0;
}

static int64_t jint(const cJSON *j, const char *key, int64_t def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
	return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : def;
}

static enum op op_of(const cJSON *j)
{
	const char *tag = jstr(j, "id");
	for (int i = 1; tag != NULL && i < OP_COUNT; i++)
		if (strcmp(tag, op_tag[i]) == 0)
			return (enum op)i;
	return OP_NONE;
}

/* A login is done (Login, Login Guest, Register): Welcome, then the lists. */
static void welcome(struct pt_out *o, struct client *cl, struct pt_client *pc, const cJSON *j)
{
	say(o, "Welcome %s!", cl->name);
	const cJSON *r, *ids = cJSON_GetObjectItemCaseSensitive(j, "resumed");
	cJSON_ArrayForEach(r, ids)
	{
		struct pt_seen *e =
		        cJSON_IsNumber(r) ? seen_get(pc, (uint64_t)r->valuedouble) : NULL;
		if (e != NULL) {
			e->told = 0;
			e->resumed = true;
		}
	}
	lists(o, pc->port, cl, pc, true, true);
}

/*
 * Is g's token in use: its guest connected with it, or (gone) with seats in
 * games not yet ended that wait for it? Such a token is never forgotten.
 */
static bool guest_in_use(struct playtak_port *p, const struct pt_guest *g)
{
	struct client *u = lobby_find_user(p->cx->lobby, g->name);
	if (u != NULL) /* someone else has the name now: the token's guest is gone */
		return pt_of(u) != NULL && strcmp(pt_of(u)->token, g->token) == 0;
	return identity_guest_holds(p->cx->lobby, g->name, NULL, NULL);
}

/*
 * Remembers token as the guest name. When PLAYTAK_GUESTS_MAX are remembered,
 * the token used least recently that is not in use goes; when all are in use,
 * the table grows (they are as many as such guests, which connections bound).
 */
static void guest_remember(struct playtak_port *p, const char *token, const char *name,
                           const char *ours)
{
	struct pt_guest *slot = NULL;
	for (size_t i = 0; i < p->nguests && slot == NULL; i++)
		if (strcmp(p->guests[i].token, token) == 0)
			slot = &p->guests[i];
	struct pt_guest *old = NULL; /* full: the least recently used token not in use */
	for (size_t i = 0; slot == NULL && p->nguests >= PLAYTAK_GUESTS_MAX && i < p->nguests; i++)
		if ((old == NULL || p->guests[i].used < old->used) &&
		    !guest_in_use(p, &p->guests[i]))
			old = &p->guests[i];
	if (slot == NULL)
		slot = old;
	if (slot == NULL && p->nguests == p->capguests) {
		size_t cap = p->capguests ? 2 * p->capguests : 64;
		struct pt_guest *n = realloc(p->guests, cap * sizeof *n);
		if (n == NULL)
			return;
		p->guests = n;
		p->capguests = cap;
	}
	if (slot == NULL)
		slot = &p->guests[p->nguests++];
	snprintf(slot->token, sizeof slot->token, "%s", token);
	snprintf(slot->name, sizeof slot->name, "%s", name);
	snprintf(slot->ours, sizeof slot->ours, "%s", ours != NULL ? ours : "");
	slot->used = ++p->guest_uses;
}

/* The error of a command: NOK, then the reason as playtak clients show it. */
static void remote_seek_shown(struct pt_out *o, struct pt_client *pc, const cJSON *k);

static void nok(struct pt_out *o, const cJSON *j)
{
	const char *why = jstr(j, "message");
	say(o, "NOK");
	if (why != NULL && why[0] != '\0')
		say(o, "Error:%s", why);
}

static void render_reply(struct pt_out *o, struct client *cl, struct pt_client *pc, const cJSON *j,
                         bool ok)
{
	struct playtak_port *p = pc->port;
	enum op op = op_of(j);
	enum err_code code = err_code_of(jstr(j, "code")); /* ERR_COUNT for ok */
	switch (op) {
	case OP_LOGIN:
	case OP_GUEST:
		if (ok) {
			if (op == OP_GUEST && pc->token[0] != '\0')
				guest_remember(p, pc->token, cl->name, jstr(j, "token"));
			welcome(o, cl, pc, j);
		} else if (op == OP_LOGIN) {
			if (code == ERR_LOGIN_THROTTLED)
				say(o, "Message %s", jstr(j, "message") ? jstr(j, "message") : "");
			say(o, "Authentication failure");
		} else {
			nok(o, j);
		}
		return;
	case OP_REGISTER:
		if (ok && cl->logged_in)
			say(o,
			    "Registered %s. Your password is %s (this server sends no email: "
			    "keep it)",
			    cl->name, pc->password);
		else
			say(o, "Registration Error: %s",
			    jstr(j, "message") ? jstr(j, "message") : "");
		sodium_memzero(pc->password, sizeof pc->password);
		if (ok && cl->logged_in)
			welcome(o, cl, pc, j);
		return;
	case OP_MOVE:
		if (ok) { /* the client knows its own move: it is not relayed back */
			struct game *g = session_find(p->cx->sess, jid(j, "game"));
			struct pt_seen *e = g != NULL ? seen_get(pc, session_id(g)) : NULL;
			size_t n = g != NULL ? nmoves(g) : 0;
			if (e != NULL && n > 0) {
				if (e->told < n - 1)
					catch_up(o, g, e, n - 1);
				e->told = n;
			} else if (g == NULL && (e = seen_find(pc, jid(j, "game"))) != NULL &&
			           jint(j, "ply", 0) > (int64_t)e->told)
				e->told = (size_t)jint(j, "ply", 0); /* another node's game */
			say(o, "OK");
		} else {
			nok(o, j);
		}
		return;
	case OP_DRAW:
	case OP_UNDO:
		if (ok)
			say(o, "OK");
		else
			nok(o, j);
		return;
	case OP_REMOVE_DRAW:
	case OP_REMOVE_UNDO:
	case OP_UNOBSERVE:
		/* playtak answers OK whether or not there was anything to remove */
		if (ok || code == ERR_NO_OFFER || code == ERR_NOT_WATCHING)
			say(o, "OK");
		else
			nok(o, j);
		if (op == OP_UNOBSERVE)
			seen_drop(pc, jid(j, "game"));
		return;
	case OP_OBSERVE:
		if (ok) {
			struct game *g = session_find(p->cx->sess, jid(j, "game"));
			if (g != NULL) {
				game_line(o, "Observe", g);
				struct pt_seen *e = seen_get(pc, session_id(g));
				if (e != NULL && session_seat_of(g, cl) < 0)
					e->told = 0; /* the whole move list follows */
			}
		} else {
			nok(o, j);
		}
		return;
	case OP_SEEK:
		if (ok) { /* an open seek is the lobby's news; a challenge is not */
			const struct seek *k = lobby_seek_find(
			        p->cx->lobby,
			        jid(cJSON_GetObjectItemCaseSensitive(j, "seek"), "id"));
			if (k != NULL && k->to != NULL)
				challenge_shown(o, pc, k);
		} else {
			nok(o, j);
		}
		return;
	case OP_LIST: { /* after this node's seeks (lists()), the others' from the cluster's */
		const cJSON *k;
		cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(j, "seeks"))
		{
			remote_seek_shown(o, pc, k);
		}
		return;
	}
	case OP_UNSEEK: /* the client's own seek, withdrawn by the port */
		if (ok)
			challenge_gone(o, p, pc, jid(j, "seek"));
		return;
	case OP_TELL:
		if (ok && jstr(j, "to") != NULL)
			say(o, "Told <%s> %s", jstr(j, "to"), pc->told);
		else if (!ok && (code == ERR_NO_SUCH_USER || code == ERR_BAD_NAME))
			say(o, "No such player");
		else if (!ok)
			nok(o, j);
		return;
	case OP_REMATCH:
		if (ok && jid(j, "new_game") == 0)
			say(o, "Rematch seek created with ID: %" PRIu64, jid(j, "game"));
		else if (!ok)
			nok(o, j);
		return;
	case OP_ACCEPT:
	case OP_RESIGN:
	case OP_SAY:
	case OP_NONE:
	case OP_COUNT:
		/* a seek is shown by the lobby's news, a game by its Game Start, an end by Over */
		if (!ok)
			nok(o, j);
		return;
	}
}

/* ---- rendering: news ------------------------------------------------------------------------ */

/* A Tak game's size, stones, capstones, komi and clock from its JSON options and time (the
   lobby's and the sessions' forms); false when they are no Tak board's. */
static bool json_tak(const cJSON *opts, const cJSON *t, struct pt_gameinfo *gi)
{
	memset(gi, 0, sizeof *gi);
	gi->size = (int)jint(opts, "size", 5);
	gi->pieces = (int)jint(opts, "pieces", 0);
	gi->pieces = gi->pieces > 0 ? gi->pieces : tak_std_stones(gi->size);
	gi->caps = (int)jint(opts, "caps", -1);
	gi->caps = gi->caps >= 0 ? gi->caps : tak_std_caps(gi->size);
	gi->komi = (int)jint(opts, "komi", 0);
	gi->time_s = cJSON_IsObject(t) ? (long)(jint(t, "base_ms", 0) / 1000) : 0;
	gi->incr_s = cJSON_IsObject(t) ? (long)(jint(t, "inc_ms", 0) / 1000) : 0;
	return gi->size >= 3 && gi->size <= 8;
}

/*
 * The game_start of a game another node runs (a cluster: the client accepted a seek made
 * there, and the owner's relay client speaks JSON to this node), rendered from its JSON.
 */
static void remote_game_start(struct pt_out *o, struct pt_client *pc, const cJSON *j)
{
	const cJSON *opts = cJSON_GetObjectItemCaseSensitive(j, "options");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "time");
	const cJSON *pl = cJSON_GetObjectItemCaseSensitive(j, "players");
	const char *kind = jstr(j, "kind");
	const char *w = cJSON_GetStringValue(cJSON_GetArrayItem(pl, 0));
	const char *b = cJSON_GetStringValue(cJSON_GetArrayItem(pl, 1));
	int seat = (int)jint(j, "seat", -1);
	struct pt_seen *e = jid(j, "game") != 0 ? seen_get(pc, jid(j, "game")) : NULL;
	struct pt_gameinfo gi;
	if (kind == NULL || strcmp(kind, game_tak.name) != 0 || w == NULL || b == NULL ||
	    e == NULL || !json_tak(opts, t, &gi))
		return;
	e->seat = seat;
	e->quiet = true;
	gi.id = (long long)e->game;
	gi.white = w;
	gi.black = b;
	char line[512];
	if (pt_format_game_start(line, sizeof line, pc->protocol, &gi, seat == 0) > 0)
		say(o, "%s", line);
}

/*
 * A state of a game another node runs: its last move, unless the client made it (its OK
 * said so), and the clocks. States come one per move, so the last move is all the client
 * has not been told; one taken back is an Undo.
 */
static void remote_state(struct pt_out *o, struct pt_client *pc, const cJSON *j)
{
	struct pt_seen *e = seen_find(pc, jid(j, "game"));
	const char *kind = jstr(j, "kind"), *last = jstr(j, "last_move");
	int64_t ply = jint(j, "ply", -1);
	if (e == NULL || kind == NULL || strcmp(kind, game_tak.name) != 0 || ply < 0)
		return;
	for (; (int64_t)e->told > ply; e->told--)
		say(o, "Game#%" PRIu64 " Undo", e->game);
	if ((int64_t)e->told + 1 == ply && last != NULL) {
		int mover = (int)((ply - 1) % 2); /* Tak: white plays the odd plies */
		char mv[40];
		if (mover != e->seat && pt_from_ptn(last, mv, sizeof mv) > 0)
			say(o, "Game#%" PRIu64 " %s", e->game, mv);
	}
	e->told = (size_t)ply; /* (a jump, a seat given back: the moves between are not told) */
	const cJSON *clocks = cJSON_GetObjectItemCaseSensitive(j, "clocks");
	if (cJSON_GetArraySize(clocks) == 2 && !(e->quiet && ply == 0))
		clock_line(o, pc, e->game, (int64_t)cJSON_GetArrayItem(clocks, 0)->valuedouble,
		           (int64_t)cJSON_GetArrayItem(clocks, 1)->valuedouble);
	e->quiet = false;
}

static void render_game_start(struct pt_out *o, struct client *cl, struct pt_client *pc,
                              const cJSON *j)
{
	struct game *g = session_find(pc->port->cx->sess, jid(j, "game"));
	if (g == NULL) {
		challenge_gone(o, pc->port, pc, 0);
		remote_game_start(o, pc, j);
		return;
	}
	if (!is_tak(session_ops(g)))
		return;
	struct pt_seen *e = seen_find(pc, session_id(g));
	if (e == NULL) {
		e = seen_get(pc, session_id(g));
		if (e != NULL)
			e->quiet = nmoves(g) == 0; /* a new game: the clocks start with its moves */
	}
	challenge_gone(o, pc->port, pc, 0); /* the one accepted, if it was a challenge */
	struct pt_gameinfo gi;
	char line[512];
	game_info(g, &gi);
	if (pt_format_game_start(line, sizeof line, pc->protocol, &gi,
	                         session_seat_of(g, cl) == 0) > 0)
		say(o, "%s", line);
}

static void render_game_over(struct pt_out *o, struct client *cl, struct pt_client *pc,
                             const cJSON *j)
{
	uint64_t id = jid(j, "game");
	struct game *g = session_find(pc->port->cx->sess, id);
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(j, "result");
	const char *score = jstr(res, "score"), *reason = jstr(res, "reason");
	int winner = (int)jint(res, "winner", -1);
	bool theirs = g == NULL && seen_find(pc, id) != NULL; /* another node's game */
	seen_drop(pc, id);
	if (theirs && score != NULL)
		say(o, "Game#%" PRIu64 " Over %s", id, strcmp(score, "*") == 0 ? "0-0" : score);
	if (g == NULL || !is_tak(session_ops(g)) || score == NULL || reason == NULL)
		return;
	if (strcmp(reason, "timeout") == 0 && session_opts(g)->timed) {
		int64_t left[GAME_MAX_PLAYERS]; /* as they stopped */
		session_clock_left(g, left);
		clock_line(o, pc, id, left[0], left[1]);
	}
	if (strcmp(reason, "abandoned") == 0 && winner >= 0) {
		const char *quitter = session_seat(g, 1 - winner)->name;
		if (strcmp(quitter, cl->name) != 0)
			say(o, "Game#%" PRIu64 " Abandoned. %s quit", id, quitter);
		return;
	}
	say(o, "Game#%" PRIu64 " Over %s", id, strcmp(score, "*") == 0 ? "0-0" : score);
}

/* An offer of the opponent, as playtak tells the other player (spectators are not told). */
static void render_offer(struct pt_out *o, struct client *cl, struct pt_client *pc, const cJSON *j)
{
	uint64_t id = jid(j, "game");
	struct game *g = session_find(pc->port->cx->sess, id);
	const char *what = jstr(j, "what"), *event = jstr(j, "event"), *by = jstr(j, "by");
	int seat = (int)jint(j, "seat", -1), mine = g != NULL ? session_seat_of(g, cl) : -1;
	if (mine < 0 || seat == mine || what == NULL || event == NULL || by == NULL)
		return;
	bool draw = strcmp(what, "draw") == 0, undo = strcmp(what, "undo") == 0;
	if (draw || undo) {
		if (strcmp(event, "offer") == 0)
			say(o, "Game#%" PRIu64 " %s", id, draw ? "OfferDraw" : "RequestUndo");
		else if (strcmp(event, "withdraw") == 0 || strcmp(event, "lapse") == 0)
			say(o, "Game#%" PRIu64 " %s", id, draw ? "RemoveDraw" : "RemoveUndo");
		else if (strcmp(event, "decline") == 0)
			say(o, "Message %s declines your %s", by,
			    draw ? "draw offer" : "undo request");
		return;
	}
	if (strcmp(what, "abort") == 0)
		say(o, "Message %s aborted the game", by);
	else if (strcmp(what, "rematch") == 0 && strcmp(event, "offer") == 0)
		say(o, "Message %s offers a rematch (Rematch %" PRIu64 " accepts it)", by, id);
}

/* A challenge to the client (a seek naming it as the opponent), or its end by the other side. */
static void render_match(struct pt_out *o, struct client *cl, struct pt_client *pc, const cJSON *j)
{
	const char *event = jstr(j, "event"), *by = jstr(j, "by");
	if (strcmp(event, "new") == 0) {
		const struct seek *k =
		        lobby_seek_find(pc->port->cx->lobby,
		                        jid(cJSON_GetObjectItemCaseSensitive(j, "seek"), "id"));
		if (k != NULL && k->to == cl && is_tak(k->ops))
			challenge_shown(o, pc, k);
		return;
	}
	challenge_gone(o, pc->port, pc, jid(j, "id"));
	if (strcmp(event, "decline") == 0 && by != NULL)
		say(o, "Message %s declined your seek", by);
}

/*
 * A seek's news as a message: only a cluster's other nodes send it to the port's clients (this
 * node's seeks are the lobby's news, on_seek). An open Tak seek, from the seek's JSON (the
 * lobby's, PROTOCOL.md §5); its end names only its id, so the fields shown are kept.
 */
static void render_remote_seek(struct pt_out *o, struct pt_client *pc, const cJSON *j)
{
	const char *event = jstr(j, "event");
	if (event != NULL && strcmp(event, "gone") == 0) {
		uint64_t id = jid(j, "id");
		if (id != 0)
			challenge_gone(o, pc->port, pc, id);
		return;
	}
	if (event != NULL && strcmp(event, "new") == 0)
		remote_seek_shown(o, pc, cJSON_GetObjectItemCaseSensitive(j, "seek"));
}

/* Another node's seek k (its JSON: the lobby's) is shown, when it is an open Tak seek. */
static void remote_seek_shown(struct pt_out *o, struct pt_client *pc, const cJSON *k)
{
	const cJSON *opts = cJSON_GetObjectItemCaseSensitive(k, "options");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(k, "time");
	const char *kind = jstr(k, "kind"), *color = jstr(k, "color");
	if (kind == NULL || strcmp(kind, game_tak.name) != 0 || jstr(k, "by") == NULL ||
	    jstr(k, "to") != NULL || jid(k, "id") == 0 ||
	    lobby_seek_find(pc->port->cx->lobby, jid(k, "id")) != NULL)
		return;
	struct pt_gameinfo gi;
	if (!json_tak(opts, t, &gi))
		return;
	struct pt_seekinfo si = {.id = (long long)jid(k, "id"), .name = jstr(k, "by")};
	si.size = gi.size;
	si.pieces = gi.pieces;
	si.caps = gi.caps;
	si.komi = gi.komi;
	si.time_s = gi.time_s;
	si.incr_s = gi.incr_s;
	si.color = color == NULL                  ? 'A'
	           : strcmp(color, "first") == 0  ? 'W'
	           : strcmp(color, "second") == 0 ? 'B'
	                                          : 'A';
	si.unrated = cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(k, "rated"));
	si.opponent = "";
	shown_new(o, pc, &si, true);
}

static void render_info(struct pt_out *o, const cJSON *j)
{
	const char *event = jstr(j, "event"), *player = jstr(j, "player");
	const char *message = jstr(j, "message");
	if (event == NULL)
		event = "";
	if (strcmp(event, "gone") == 0 && player != NULL)
		say(o, "Message %s has disconnected. They have %" PRId64 " seconds to reconnect",
		    player, jint(j, "grace_ms", 0) / 1000);
	else if (strcmp(event, "back") == 0 && player != NULL)
		say(o, "Message %s has reconnected.", player);
	else if (strcmp(event, "session_taken") == 0)
		say(o, "Message You've logged in from another window. Disconnecting");
	else if (message != NULL)
		say(o, "Message %s", message);
}

static struct outbuf *fe_render(struct client *cl, const struct msg *m)
{
	struct pt_client *pc = cl->fe_data;
	const cJSON *j = m->json;
	const char *type = j != NULL ? jstr(j, "type") : NULL;
	if (type == NULL)
		return NULL; /* text-only messages are the main port's */
	struct pt_out o = {0};
	if (strcmp(type, "ok") == 0 || strcmp(type, "error") == 0) {
		render_reply(&o, cl, pc, j, type[0] == 'o');
	} else if (strcmp(type, "game_start") == 0) {
		render_game_start(&o, cl, pc, j);
	} else if (strcmp(type, "game_over") == 0) {
		render_game_over(&o, cl, pc, j);
	} else if (strcmp(type, "offer") == 0) {
		render_offer(&o, cl, pc, j);
	} else if (strcmp(type, "info") == 0) {
		render_info(&o, j);
	} else if (strcmp(type, "seek") == 0) {
		render_remote_seek(&o, pc, j);
	} else if (strcmp(type, "state") == 0) { /* (this node's games: render_state) */
		if (session_find(pc->port->cx->sess, jid(j, "game")) == NULL)
			remote_state(&o, pc, j);
	} else if (strcmp(type, "match") == 0 && jstr(j, "event") != NULL) {
		render_match(&o, cl, pc, j);
	} else if (strcmp(type, "tell") == 0 && jstr(j, "from") && jstr(j, "text")) {
		say(&o, "Tell <%s> %s", jstr(j, "from"), jstr(j, "text"));
	} else if (strcmp(type, "chat") == 0 && jstr(j, "from") && jstr(j, "text")) {
		struct game *g = session_find(pc->port->cx->sess, jid(j, "game"));
		char room[2 * PROTO_NAME_MAX + 2];
		if (g != NULL && is_tak(session_ops(g))) {
			room_of(g, room, sizeof room);
			say(&o, "ShoutRoom %s <%s> %s", room, jstr(j, "from"), jstr(j, "text"));
		}
	}
	/* this node's seeks come as the lobby's news (seek_news); states through render_state */
	return out_done(&o);
}

static struct outbuf *fe_render_state(struct client *cl, struct game *g, struct snapshot *sn,
                                      int viewer)
{
	struct pt_client *pc = cl->fe_data;
	(void)viewer;
	if (!is_tak(session_ops(g)))
		return NULL;
	struct pt_seen *e = seen_get(pc, session_id(g));
	if (e == NULL)
		return NULL;
	struct pt_out o = {0};
	size_t n = nmoves(g);
	catch_up(&o, g, e, n);
	if (session_opts(g)->timed && !(e->quiet && n == 0)) {
		const int64_t *clocks = session_view_snap_clocks(sn);
		clock_line(&o, pc, session_id(g), clocks[0], clocks[1]);
	}
	e->quiet = false;
	if (e->resumed) {
		say(&o, "Message Your game is resumed");
		e->resumed = false;
	}
	return out_done(&o);
}

/* ---- input: playtak lines into the command table ----------------------------------------------
 */

/*
 * Runs one command line of the server's table for cl, tagged with op (printf
 * after the tag). paid: the line that asked for it paid its cost (fe_line);
 * else (a move) the table paces it and charges what it refuses.
 */
static void vrun(struct client *cl, bool paid, enum op op, const char *fmt, va_list ap)
        __attribute__((format(printf, 4, 0)));
static void vrun(struct client *cl, bool paid, enum op op, const char *fmt, va_list ap)
{
	struct pt_client *pc = cl->fe_data;
	char line[FRAME_MAX];
	int n = snprintf(line, sizeof line, "#%s ", op_tag[op]);
	int m = vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
	if (m < 0 || (size_t)(n + m) >= sizeof line) {
		send_line(cl, "NOK");
		return;
	}
	if (paid)
		commands_line_paid(pc->port->cx, cl, line, (size_t)(n + m));
	else
		commands_line(pc->port->cx, cl, line, (size_t)(n + m));
}

static void run(struct client *cl, enum op op, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static void run(struct client *cl, enum op op, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vrun(cl, true, op, fmt, ap);
	va_end(ap);
}

static void run_move(struct client *cl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void run_move(struct client *cl, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vrun(cl, false, OP_MOVE, fmt, ap);
	va_end(ap);
}

/*
 * True when name is free for a new guest: no one has it and no seat waits for
 * it. Whether an account has it is the store's to say, off the loop: the
 * table's guest login refuses it (NAME_REGISTERED, a NOK here).
 */
static bool guest_name_free(const struct playtak_port *p, const char *name)
{
	if (lobby_find_user(p->cx->lobby, name) != NULL)
		return false;
	for (const struct game *g = sessions_first(p->cx->sess); g != NULL; g = session_next(g))
		for (int i = 0; !session_over(g) && i < session_ops(g)->nplayers; i++)
			if (strcasecmp(session_seat(g, i)->name, name) == 0)
				return false;
	for (size_t i = 0; i < p->nguests; i++)
		if (strcasecmp(p->guests[i].name, name) == 0)
			return false;
	return true;
}

/*
 * May cl's address have one more new guest now? Counted when it may (a new
 * guest is never taken back); when not, cl is told when to try again.
 */
static bool new_guest_allowed(struct playtak_port *p, struct client *cl)
{
	char key[2 * ADDR_KEY_LEN + 1]; /* the address as --max-per-address counts it */
	int64_t retry = 0;
	sodium_bin2hex(key, sizeof key, cl->conn->addr.b, ADDR_KEY_LEN);
	if (p->guest_rl == NULL ||
	    ratelimit_attempt(p->guest_rl, key, (int64_t)uv_now(p->hub->loop), &retry) !=
	            RATELIMIT_THROTTLED)
		return true;
	send_line(cl,
	          "Message Too many new guests from your address (%d a minute); try again in "
	          "%" PRId64 " s\nAuthentication failure",
	          PLAYTAK_GUEST_LIMIT * 60000 / PLAYTAK_GUEST_WINDOW_MS, (retry + 999) / 1000);
	return false;
}

/* Login Guest [token]: the token's guest name back (its other window closed), or a new one. */
static void login_guest(struct client *cl, struct pt_client *pc, const char *token)
{
	struct playtak_port *p = pc->port;
	char name[PROTO_NAME_MAX + 1] = "", ours[PROTO_TOKEN_LEN + 1] = "";
	for (size_t i = 0; token[0] != '\0' && i < p->nguests; i++) {
		if (strcmp(p->guests[i].token, token) != 0)
			continue;
		struct client *u = lobby_find_user(p->cx->lobby, p->guests[i].name);
		if (u != NULL && (pt_of(u) == NULL || strcmp(pt_of(u)->token, token) != 0))
			break; /* someone else has the name now: a new one */
		if (u != NULL) {
			send_line(u, "Message You've logged in from another window. Disconnecting");
			client_close(u, true);
		}
		snprintf(name, sizeof name, "%s", p->guests[i].name);
		if (identity_guest_holds(p->cx->lobby, name, NULL, NULL))
			snprintf(ours, sizeof ours, "%s", p->guests[i].ours);
		break;
	}
	if (name[0] == '\0' && !new_guest_allowed(p, cl))
		return;
	/* in a cluster each node's port names guests: the number is drawn from the cluster's
	   sequence of ids (as seek ids are: unique on every node), not this port's count */
	const struct lobby_hooks *lh = &p->cx->lobby->hooks;
	for (int tries = 0; name[0] == '\0' && tries < 1000; tries++) {
		char n[PROTO_NAME_MAX + 1];
		uint64_t k = lh->seek_id != NULL ? lh->seek_id(lh->ud) : 0;
		snprintf(n, sizeof n, "Guest%" PRIu64, k != 0 ? k : ++p->next_guest);
		if (guest_name_free(p, n))
			snprintf(name, sizeof name, "%s", n);
	}
	if (name[0] == '\0') {
		send_line(cl, "NOK");
		return;
	}
	snprintf(pc->token, sizeof pc->token, "%s", token);
	if (ours[0] != '\0') /* its seats wait: the table's token brings them back */
		run(cl, OP_GUEST, "login %s %s", name, ours);
	else
		run(cl, OP_GUEST, "login %s", name);
}

/* Register <name> <email>: an account with a password made here, told to the client. */
static void register_account(struct client *cl, struct pt_client *pc, const struct pt_line *l)
{
	static const char alphabet[] = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
	if (pc->port->cx->acct == NULL) {
		send_line(cl, "Registration Error: this server keeps no accounts");
		return;
	}
	if (strchr(l->pass, '@') == NULL || strlen(l->name) > STORE_NAME_MAX) {
		send_line(cl, "Registration Error: Unknown format for username/email. Only "
		              "[a-z][A-Z][0-9][_] allowed for username, it should be 4-16 "
		              "characters and should start with letter");
		return;
	}
	if (strcasestr(l->name, "guest") != NULL) {
		send_line(cl, "Registration Error: Can't register with guest in the name");
		return;
	}
	size_t n = 12;
	for (size_t i = 0; i < n; i++)
		pc->password[i] = alphabet[randombytes_uniform(sizeof alphabet - 1)];
	pc->password[n] = '\0';
	run(cl, OP_REGISTER, "register %s %s", l->name, pc->password);
}

/* The seek's time control as the table's time= option ("M:SS+I"). */
static void seek_time(const struct pt_seek *k, char *buf, size_t len)
{
	snprintf(buf, len, " time=%ld:%02ld+%ld", k->time_s / 60, k->time_s % 60, k->incr_s);
}

/* cl's seeks (one at the most, made on the port) are withdrawn, through the table. */
static void withdraw_seeks(const struct playtak_port *p, struct client *cl)
{
	for (struct seek *k = p->cx->lobby->seeks, *next; k != NULL; k = next) {
		next = k->next;
		if (k->by == cl)
			run(cl, OP_UNSEEK, "unseek %" PRIu64, k->id);
	}
}

/* Seek ...: the client's seek replaces its last one (size 0: only removes it). */
static void seek(struct client *cl, struct pt_client *pc, const struct pt_seek *k)
{
	struct playtak_port *p = pc->port;
	struct game *g = playing(p, cl);
	if (g != NULL) {
		send_line(cl, "NOK\nError:You are playing game %" PRIu64, session_id(g));
		return;
	}
	withdraw_seeks(p, cl);
	if (k->size == 0)
		return;
	/* playtak's own bounds (Seek.java): komi at most 8, 10..80 stones, at most 5 caps */
	int size = k->size >= 3 && k->size <= 8 ? k->size : 5;
	int komi = k->komi < 8 ? k->komi : 8;
	int pieces = k->pieces == 0 ? 0 : k->pieces < 10 ? 10 : k->pieces > 80 ? 80 : k->pieces;
	int caps = k->caps < 0 ? -1 : k->caps > 5 ? 5 : k->caps;
	char tc[64] = "";
	if (k->time_s > 0 || k->incr_s > 0)
		seek_time(k, tc, sizeof tc);
	if (k->trigger > 0 && k->amount > 0)
		send_line(cl,
		          "Message Extra time is not played on this server: your seek has none");
	/* for one opponent: a challenge (match), which only the two of them see */
	char verb[PT_NAME_MAX + 8] = "seek";
	if (k->opponent[0] != '\0')
		snprintf(verb, sizeof verb, "match %s", k->opponent);
	run(cl, OP_SEEK, "%s tak size=%d komi=%d pieces=%d caps=%d stale=1 color=%s rated=%d%s",
	    verb, size, komi, pieces, caps,
	    k->color == 'W'   ? "white"
	    : k->color == 'B' ? "black"
	                      : "random",
	    !k->unrated && cl->registered, tc);
}

/* A live Tak game's chat room named room that cl plays or watches, or NULL. */
static struct game *room_game(const struct playtak_port *p, const struct client *cl,
                              const char *room)
{
	char name[2 * PROTO_NAME_MAX + 2];
	for (struct game *g = sessions_first(p->cx->sess); g != NULL; g = session_next(g)) {
		if (!live(g))
			continue;
		if (session_seat_of(g, cl) < 0 && !session_watch_has(g, cl))
			continue;
		room_of(g, name, sizeof name);
		if (strcmp(name, room) == 0)
			return g;
	}
	return NULL;
}

/* Before login: Client, Protocol, Login, Login Guest, Register (PING and quit any time). */
static void line_guest(struct client *cl, struct pt_client *pc, const struct pt_line *l)
{
	switch (l->cmd) {
	case PT_CLIENT:
		send_line(cl, "OK");
		return;
	case PT_PROTOCOL:
		pc->protocol = l->protocol;
		send_line(cl, "OK");
		return;
	case PT_LOGIN:
		run(cl, OP_LOGIN, "login %s %s", l->name, l->pass);
		return;
	case PT_LOGIN_GUEST:
		login_guest(cl, pc, l->name);
		return;
	case PT_REGISTER:
		register_account(cl, pc, l);
		return;
	default:
		send_line(cl, "NOK");
		return;
	}
}

/* The lines that are one command of the table about a game: "<verb> <game><word>". */
static const struct {
	enum pt_cmd cmd;
	enum op op;
	const char *verb, *word;
} game_verbs[] = {
        {PT_OFFER_DRAW, OP_DRAW, "draw", ""},
        {PT_REMOVE_DRAW, OP_REMOVE_DRAW, "draw", " withdraw"},
        {PT_REQUEST_UNDO, OP_UNDO, "undo", ""},
        {PT_REMOVE_UNDO, OP_REMOVE_UNDO, "undo", " withdraw"},
        {PT_RESIGN, OP_RESIGN, "resign", ""},
        {PT_REMATCH, OP_REMATCH, "rematch", ""},
};

static void line_user(struct client *cl, struct pt_client *pc, const struct pt_line *l)
{
	struct playtak_port *p = pc->port;
	uint64_t id = l->game > 0 ? (uint64_t)l->game : 0;
	char ptn[32];
	struct pt_out o = {0};
	for (size_t i = 0; i < sizeof game_verbs / sizeof game_verbs[0]; i++)
		if (game_verbs[i].cmd == l->cmd) {
			run(cl, game_verbs[i].op, "%s %" PRIu64 "%s", game_verbs[i].verb, id,
			    game_verbs[i].word);
			return;
		}
	switch (l->cmd) {
	case PT_LIST:
	case PT_GAMELIST:
		lists(&o, p, cl, pc, l->cmd == PT_LIST, l->cmd == PT_GAMELIST);
		out_send(cl, &o);
		if (l->cmd ==
		    PT_LIST) /* a cluster's other nodes' seeks: `seeks` answers from all */
			run(cl, OP_LIST, "seeks");
		return;
	case PT_SEEK:
		seek(cl, pc, &l->seek);
		return;
	case PT_ACCEPT: {
		struct seek *k = lobby_seek_find(p->cx->lobby, id);
		struct game *g = playing(p, cl);
		if (k == NULL ? !shown_remote(pc, id) : !is_tak(k->ops))
			send_line(cl, "NOK");
		else if (g != NULL)
			send_line(cl, "NOK\nError:You are playing game %" PRIu64, session_id(g));
		else
			run(cl, OP_ACCEPT, "accept %" PRIu64, id);
		return;
	}
	case PT_PLACE:
	case PT_MOVE: /* paced by the table; one that is no move pays as a refused move */
		if (pt_to_ptn(l, ptn, sizeof ptn) >= 0)
			run_move(cl, "move %" PRIu64 " %s", id, ptn);
		else if (commands_charge(p->cx, cl, commands_cost("move")))
			send_line(cl, "NOK\nError:Invalid move");
		return;
	case PT_OBSERVE:
		if (live_tak(p, id) == NULL)
			send_line(cl, "NOK");
		else
			run(cl, OP_OBSERVE, "watch %" PRIu64, id);
		return;
	case PT_UNOBSERVE:
		if (session_find(p->cx->sess, id) == NULL)
			send_line(cl, "NOK");
		else
			run(cl, OP_UNOBSERVE, "unwatch %" PRIu64, id);
		return;
	case PT_SHOUT: { /* one line, rendered once, to every user of the port */
		struct news n = {.line = shout_news, .from = cl, .text = l->text};
		broadcast(p, &n);
		return;
	}
	case PT_TELL:
		snprintf(pc->told, sizeof pc->told, "%s", l->text);
		run(cl, OP_TELL, "tell %s %s", l->name, l->text);
		return;
	case PT_JOIN_ROOM:
		send_line(cl, "Joined room %s", l->name);
		return;
	case PT_LEAVE_ROOM:
		send_line(cl, "OK");
		return;
	case PT_SHOUT_ROOM: {
		/* a game's room is its chat (say); other rooms are not kept here */
		struct game *g = room_game(p, cl, l->name);
		if (g != NULL)
			run(cl, OP_SAY, "say %" PRIu64 " %s", session_id(g), l->text);
		return;
	}
	case PT_SHOW:
		send_line(cl, "NOK\nError:Show is not supported on this server");
		return;
	default: /* Client, Protocol, Login... once logged in, and anything unknown */
		send_line(cl, "NOK");
		return;
	}
}

static void fe_line(struct client *cl, char *line, size_t len)
{
	struct pt_client *pc = cl->fe_data;
	struct pt_line l;
	bool valid = frame_line_valid(line, len);
	/* the line pays first, whatever it turns out to be (playtak_port.h); a refusal is
	   answered NOK, and a flood closes cl */
	if (!commands_charge(pc->port->cx, cl, pc->port->cost[valid ? pt_parse(line, &l) : 0]))
		return;
	if (!valid) {
		send_line(cl, "NOK\nError:Lines are UTF-8 text without control bytes");
		return;
	}
	switch (l.cmd) {
	case PT_PING:
		send_line(cl, "OK");
		return;
	case PT_QUIT:
		client_close(cl, true); /* cl is freed: nothing after this */
		return;
	default:
		break;
	}
	if (cl->logged_in)
		line_user(cl, pc, &l);
	else
		line_guest(cl, pc, &l);
}

static void fe_gone(struct client *cl)
{
	struct pt_client *pc = cl->fe_data;
	if (pc == NULL)
		return;
	sodium_memzero(pc->password, sizeof pc->password);
	free(pc->seen);
	free(pc->shown);
	free(pc);
	cl->fe_data = NULL;
}

static void foreign_line(void *arg, cJSON *j, const char *line, size_t len)
{
	(void)line;
	(void)len;
	if (j != NULL)
		send_msg(arg, j, xasprintf("%s", ""));
}

/* Output another node rendered for cl: JSON lines (its commands are forwarded with the JSON
 * flag, cluster_identity), each rendered here as a message of this node. */
static void fe_foreign(struct client *cl, struct outbuf *b)
{
	msg_json_lines(b, foreign_line, cl);
}

static const struct msg_frontend pt_frontend = {
        .name = "playtak",
        .render = fe_render,
        .render_state = fe_render_state,
        .line = fe_line,
        .gone = fe_gone,
        .foreign = fe_foreign,
};

/* ---- the lobby's and the sessions' news --------------------------------------------------- */

static bool seek_news(const struct news *n, long protocol, struct pt_out *o)
{
	return seek_line(protocol, n->seek, n->gone, o);
}

static void on_seek(void *ud, const struct seek *k, bool gone)
{
	struct news n = {.line = seek_news, .seek = k, .gone = gone};
	if (is_tak(k->ops))
		broadcast(ud, &n);
}

/* "Online <n>" and "OnlinePlayers ["a", "b"]": the logged-in users of both ports. */
static bool online_news(const struct news *n, long protocol, struct pt_out *o)
{
	(void)protocol;
	int count = 0;
	for (struct conn *cn = n->port->hub->conns; cn != NULL; cn = cn->next)
		count += staying(client_of(cn), n->leaving);
	say(o, "Online %d", count);
	put(o, "OnlinePlayers [");
	count = 0;
	for (struct conn *cn = n->port->hub->conns; cn != NULL; cn = cn->next)
		if (staying(client_of(cn), n->leaving))
			put(o, "%s\"%s\"", count++ ? ", " : "", client_of(cn)->name);
	say(o, "]");
	return true;
}

static void on_presence(void *ud, struct client *c, bool here)
{
	struct news n = {.line = online_news, .port = ud, .leaving = here ? NULL : c};
	broadcast(ud, &n);
}

static bool game_news(const struct news *n, long protocol, struct pt_out *o)
{
	(void)protocol;
	game_line(o, n->gone ? "GameList Remove" : "GameList Add", n->game);
	return true;
}

static void on_begin(void *ud, struct game *g)
{
	struct playtak_port *p = ud;
	if (!is_tak(session_ops(g)))
		return;
	/* a playtak player's seeks go when its game starts, as on playtak: the challenge it
	   came from if it did, then the rest */
	for (int i = 0; i < session_ops(g)->nplayers; i++) {
		struct client *c = session_seat(g, i)->c;
		if (c == NULL || pt_of(c) == NULL)
			continue;
		struct pt_out o = {0};
		challenge_gone(&o, p, pt_of(c), 0);
		out_send(c, &o);
		withdraw_seeks(p, c);
	}
	struct news n = {.line = game_news, .game = g};
	broadcast(p, &n);
}

static void on_over(void *ud, struct game *g)
{
	struct news n = {.line = game_news, .game = g, .gone = true};
	if (is_tak(session_ops(g)))
		broadcast(ud, &n);
}

/* ---- the port ------------------------------------------------------------------------------- */

/* The main port's verb each line stands for, whose cost it pays (NULL: a line that is no
   command, 1); moves pay in the table (paced). See playtak_port.h. */
static const char *const cost_verb[PT_NCMDS] = {
        [PT_CLIENT] = "set",        [PT_PROTOCOL] = "set",      [PT_LOGIN] = "login",
        [PT_LOGIN_GUEST] = "login", [PT_REGISTER] = "register", [PT_SEEK] = "seek",
        [PT_ACCEPT] = "accept",     [PT_LIST] = "seeks",        [PT_GAMELIST] = "list",
        [PT_OBSERVE] = "watch",     [PT_UNOBSERVE] = "unwatch", [PT_OFFER_DRAW] = "draw",
        [PT_REMOVE_DRAW] = "draw",  [PT_REQUEST_UNDO] = "undo", [PT_REMOVE_UNDO] = "undo",
        [PT_RESIGN] = "resign",     [PT_SHOUT] = "seek",        [PT_TELL] = "tell",
        [PT_JOIN_ROOM] = "set",     [PT_LEAVE_ROOM] = "set",    [PT_SHOUT_ROOM] = "say",
        [PT_REMATCH] = "rematch",   [PT_PING] = "ping",         [PT_QUIT] = "quit",
};

void playtak_port_init(struct playtak_port *p, struct commands *cx)
{
	memset(p, 0, sizeof *p);
	p->cx = cx;
	p->hub = cx->lobby->hub;
	for (int i = 0; i < PT_NCMDS; i++)
		p->cost[i] = i == PT_PLACE || i == PT_MOVE ? 0 : commands_cost(cost_verb[i]);
	p->guest_rl =
	        ratelimit_new(PLAYTAK_GUEST_LIMIT, PLAYTAK_GUEST_WINDOW_MS, RATELIMIT_MAX_ENTRIES);
	if (p->guest_rl == NULL)
		log_error("playtak: out of memory: new guests are not limited per address");
	if (sodium_init() < 0)
		log_error("libsodium did not start port=playtak effect=\"Register fails\"");
	cx->lobby->news =
	        (struct lobby_news){.ud = p, .on_seek = on_seek, .on_presence = on_presence};
	struct session_news news = {.ud = p, .on_begin = on_begin, .on_over = on_over};
	sessions_set_news(cx->sess, &news);
}

int playtak_port_listen(struct playtak_port *p, const char *host, int port, int sndbuf, int *bound)
{
	return tcp_listen(&p->tcp, p->hub, host, port, sndbuf, bound);
}

bool playtak_port_owns(const struct playtak_port *p, const struct conn *c)
{
	return p != NULL && tcp_listener_of(c) == &p->tcp;
}

void playtak_port_open(struct playtak_port *p, struct client *cl)
{
	struct pt_client *pc = calloc(1, sizeof *pc);
	if (pc == NULL) {
		client_close(cl, false);
		return;
	}
	pc->port = p;
	conn_count_as(cl->conn, CONN_KIND_PLAYTAK);
	cl->fe = &pt_frontend;
	cl->fe_data = pc;
	send_line(cl, "Welcome!\nLogin or Register");
}

void playtak_port_stop(struct playtak_port *p)
{
	tcp_unlisten(&p->tcp);
}

void playtak_port_free(struct playtak_port *p)
{
	free(p->guests);
	p->guests = NULL;
	p->nguests = p->capguests = 0;
	ratelimit_free(p->guest_rl);
	p->guest_rl = NULL;
}
