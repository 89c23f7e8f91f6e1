/*
 * cluster_owner.c - the owner side of a game: relay clients standing for
 * other nodes' clients (they run the lines forwarded here, hold their seats,
 * get their seats back on R), relay watchers standing for every remote
 * spectator of a game in one format (their output published once on the
 * game's channel), the remote spectators' counts (W, Y), the relay sink, and
 * the session hooks around the journal's (the owner key, P, E, the list).
 */
#include "server/cluster/cluster_internal.h"

#include <sodium.h>

#include "server/play/session_watch.h"

/* ---- the owner's side: relay clients ------------------------------------------------------ */

static struct rclient *rc_find(struct cluster *c, const char *home, uint64_t rconn)
{
	for (struct rclient *r = c->rclients; r != NULL; r = r->next)
		if (r->rconn == rconn && strcmp(r->home, home) == 0)
			return r;
	return NULL;
}

static void rc_forget(struct cluster *c, uint64_t conn)
{
	for (struct rclient **pp = &c->rclients; *pp != NULL; pp = &(*pp)->next)
		if ((*pp)->conn == conn) {
			struct rclient *r = *pp;
			*pp = r->next;
			free(r);
			return;
		}
}

/* r's relay client closes (its seats wait through the grace: at once, not when the close is
 * done, so that an R right behind finds them free) and r goes. */
static void rc_close(struct cluster *c, struct rclient *r)
{
	struct client *cl = cluster_client(c, r->conn);
	rc_forget(c, r->conn);
	if (cl != NULL) {
		session_client_gone(c->ly.sess, cl);
		client_close(cl, false);
	}
}

/*
 * The relay client standing for (home, rconn), made on first use, with its identity: a
 * guest's token as its home sent it ("-": none), which its seats here are checked against.
 */
static struct client *rc_get(struct cluster *c, const char *home, uint64_t rconn, const char *flags,
                             int64_t rtt, const char *name, const char *token, bool *made)
{
	struct rclient *r = rc_find(c, home, rconn);
	struct client *cl = r != NULL ? cluster_client(c, r->conn) : NULL;
	if (made != NULL)
		*made = cl == NULL;
	if (cl == NULL) {
		if (r != NULL)
			rc_forget(c, r->conn);
		struct relay_id id = {.kind = RELAY_CLIENT, .conn = rconn};
		snprintf(id.home, sizeof id.home, "%s", home);
		cl = relay_open(c->ly.hub, &id, &c->sink);
		r = cl != NULL ? calloc(1, sizeof *r) : NULL;
		if (r == NULL) {
			if (cl != NULL)
				client_close(cl, false);
			return NULL;
		}
		snprintf(r->home, sizeof r->home, "%s", home);
		r->rconn = rconn;
		r->conn = cl->conn->id;
		r->next = c->rclients;
		c->rclients = r;
	}
	cl->json = strchr(flags, 'j') != NULL;
	cl->want_watchers = strchr(flags, 'v') != NULL;
	bool logged = strchr(flags, 'l') != NULL && strcmp(name, "-") != 0;
	if (logged && !cl->logged_in) { /* who it is never changes afterwards */
		snprintf(cl->name, sizeof cl->name, "%s", name);
		cl->logged_in = true;
		cl->registered = strchr(flags, 'r') != NULL;
	}
	if (logged) { /* what the events' pairings ask of an account (bot, bots off) */
		cl->prefs.bot = strchr(flags, 'b') != NULL;
		cl->prefs.bots_off = strchr(flags, 'o') != NULL;
	}
	if (logged && !cl->registered && strcasecmp(cl->name, name) == 0 &&
	    strlen(token) == PROTO_TOKEN_LEN) /* the guest's, as its home has it now */
		snprintf(cl->token, sizeof cl->token, "%s", token);
	if (rtt >= 0) {
		cl->rtt.known = true;
		cl->rtt.ms = rtt;
	}
	return cl;
}

/* "D": through the relay client's own output, so it leaves after the reply. */
static void send_done(struct client *cl, uint64_t n)
{
	char buf[40];
	int len = snprintf(buf, sizeof buf, "%cD %" PRIu64, '\0', n);
	struct outbuf *b = outbuf_new(buf, (size_t)len);
	client_send_else(cl, b, b); /* it goes even when the write the reply waits for is refused */
	outbuf_unref(b);
}

static struct agg *agg_find(struct cluster *c, uint64_t game, bool json)
{
	for (struct agg *a = c->aggs; a != NULL; a = a->next)
		if (a->game == game && a->json == json)
			return a;
	return NULL;
}

/*
 * Runs the handler of rq's row for cl on g (seat: cl's there, or -1), the dispatcher's checks
 * left out: the callers say why each is made already or does not apply.
 */
static void run_row(struct cluster *c, struct client *cl, const struct proto_req *rq,
                    struct game *g, int seat)
{
	struct cmd x = {
	        .cx = c->ly.cmds, .cl = cl, .rq = rq, .id = session_id(g), .g = g, .seat = seat};
	rq->cmd->handler(&x);
}

/* A relay watcher of g in that format, watching it without a word (it will hear the next). */
static void agg_ensure(struct cluster *c, struct game *g, bool json)
{
	struct agg *a = agg_find(c, session_id(g), json);
	if (a != NULL && cluster_client(c, a->conn) != NULL)
		return;
	struct relay_id id = {.kind = RELAY_WATCHER, .game = session_id(g), .json = json};
	struct client *cl = relay_open(c->ly.hub, &id, &c->sink);
	if (cl == NULL)
		return;
	cl->json = json;
	if (a == NULL) {
		a = calloc(1, sizeof *a);
		if (a == NULL) {
			client_close(cl, false);
			return;
		}
		a->game = session_id(g);
		a->json = json;
		a->next = c->aggs;
		c->aggs = a;
	}
	a->conn = cl->conn->id;
	/* it joins as the CMD_SPECTATE row does: the node's own client, on a game here */
	struct proto_req rq = {.cmd = commands_flagged(CMD_SPECTATE)};
	relay_mute(cl->conn, true);
	run_row(c, cl, &rq, g, -1);
	relay_mute(cl->conn, false);
}

static void agg_drop(struct cluster *c, struct agg *a)
{
	for (struct agg **pp = &c->aggs; *pp != NULL; pp = &(*pp)->next)
		if (*pp == a) {
			*pp = a->next;
			break;
		}
	struct client *cl = cluster_client(c, a->conn);
	if (cl != NULL)
		client_close(cl, false);
	free(a);
}

/* The remote spectators of game in one format, over every home. */
static size_t interest_total(struct cluster *c, uint64_t game, bool json)
{
	size_t n = 0;
	for (struct interest *i = c->interests; i != NULL; i = i->next)
		if (i->game == game)
			n += i->count[json];
	return n;
}

/* g's count of spectators: every node's, not one per relay watcher. */
static void count_remote(struct cluster *c, uint64_t game)
{
	struct game *g = session_find(c->ly.sess, game);
	if (g == NULL)
		return;
	int64_t extra = 0;
	for (int k = 0; k < 2; k++)
		if (agg_find(c, game, k) != NULL)
			extra += (int64_t)interest_total(c, game, k) - 1;
	if (session_watch_set_remote(g, extra))
		c->list_dirty = true;
}

void owner_interest_set(struct cluster *c, const char *home, uint64_t game, bool json, size_t count)
{
	struct interest *it = NULL;
	for (struct interest *i = c->interests; i != NULL; i = i->next)
		if (i->game == game && strcmp(i->home, home) == 0)
			it = i;
	if (it == NULL && count > 0) {
		it = calloc(1, sizeof *it);
		if (it == NULL)
			return;
		it->game = game;
		snprintf(it->home, sizeof it->home, "%s", home);
		it->next = c->interests;
		c->interests = it;
	}
	if (it != NULL)
		it->count[json] = count;
	struct game *g = session_find(c->ly.sess, game);
	if (count > 0 && g != NULL)
		agg_ensure(c, g, json);
	struct agg *a = agg_find(c, game, json);
	if (a != NULL && interest_total(c, game, json) == 0)
		agg_drop(c, a);
	count_remote(c, game);
}

/* Runs a line forwarded to us (C). */
void owner_run(struct cluster *c, const char *home, uint64_t rconn, uint64_t n, const char *flags,
               int64_t rtt, const char *name, const char *token, char *line, size_t len)
{
	bool made;
	struct client *cl = rc_get(c, home, rconn, flags, rtt, name, token, &made);
	if (cl == NULL)
		return;
	/* a client of home new here, logged in: its seats here first (as R gives them), in case
	 * its home could not know that we forgot it (we restarted: a new instance) */
	if (made && cl->logged_in)
		owner_resume(c, home, rconn, flags, rtt, name, token, false);
	char copy[FRAME_MAX + 1];
	snprintf(copy, sizeof copy, "%.*s", (int)len, line);
	struct proto_req rq;
	bool parsed = proto_parse(copy, &commands_table, &rq) == PROTO_OK;
	uint64_t id = 0;
	struct game *g = NULL;
	if (parsed && rq.argc > 0 && proto_parse_id(rq.argv[0], &id))
		g = session_find(c->ly.sess, id);
	unsigned fl = parsed ? rq.cmd->flags : 0;
	if (g != NULL && (fl & CMD_VOUCHED) && strchr(flags, 'w') != NULL) {
		/* the home checked that it watches (its budget and the arity were checked too) */
		run_row(c, cl, &rq, g, session_seat_of(g, cl));
	} else {
		commands_line(c->ly.cmds, cl, line, len);
		if (g != NULL && (fl & CMD_SPECTATE) && session_seat_of(g, cl) < 0 &&
		    session_watch_drop(g, cl))
			agg_ensure(c, g,
			           cl->json); /* it hears the game through the node's watcher */
	}
	if (client_alive(cl))
		send_done(cl, n);
}

/*
 * Whether relay client cl stands for the same player as a login of name proven by token (a
 * guest's, PROTO_TOKEN_LEN long) or, token NULL, by an account's password: a guest's relay
 * client only with the same token, an account's with the account.
 */
static bool same_player(const struct client *cl, const char *name, const char *token)
{
	if (cl == NULL || !cl->logged_in || strcasecmp(cl->name, name) != 0)
		return false;
	if (token == NULL)
		return cl->registered;
	return !cl->registered && strlen(token) == PROTO_TOKEN_LEN &&
	       strlen(cl->token) == PROTO_TOKEN_LEN &&
	       sodium_memcmp(cl->token, token, PROTO_TOKEN_LEN) == 0;
}

/*
 * The player name logged in at (home, rconn) (home NULL: a client of ours), proven by token (a
 * guest's) or by its account's password (token NULL): the relay clients standing here for its
 * other connections close, so that their seats wait for the login to take them, as a second
 * login takes the seats of the first on one node. Seats follow a player's newest connection
 * on any node: an account's older connection is closed by K (SESSION_TAKEN); a guest's can
 * only be gone (its name is taken cluster-wide while it is connected), though its relay client
 * here may not know it yet (its node was killed, and we have not judged it dead: a pause of
 * ours, or another node buried it first).
 */
void owner_claim(struct cluster *c, const char *name, const char *token, const char *home,
                 uint64_t rconn)
{
	for (struct rclient *r = c->rclients, *next; r != NULL; r = next) {
		next = r->next;
		if (home != NULL && r->rconn == rconn && strcmp(r->home, home) == 0)
			continue; /* the login's own */
		if (same_player(cluster_client(c, r->conn), name, token))
			rc_close(c, r);
	}
}

/* Relay client cl of (home, rconn) takes the seats waiting for its name (a guest's only with
 * its token: session_login checks it); its home is told (P) and it gets them (game_start, the
 * state, the chat). */
static void rc_seat(struct cluster *c, struct client *cl, const char *home, uint64_t rconn)
{
	cJSON *resumed = cJSON_CreateArray();
	session_login(c->ly.sess, cl, resumed);
	char hn[CLUSTER_NODE_MAX + 1];
	cluster_node_name(home, hn);
	for (int i = 0; i < cJSON_GetArraySize(resumed); i++) {
		char h[96];
		snprintf(h, sizeof h, "P %s %" PRIu64 " %.0f", c->name, rconn,
		         cJSON_GetArrayItem(resumed, i)->valuedouble);
		redis_to_node(c, hn, h, NULL, 0);
	}
	if (cJSON_GetArraySize(resumed) > 0)
		c->list_dirty = true; /* a seat without a token took the guest's (seats:) */
	cJSON_Delete(resumed);
	session_resume_send(c->ly.sess, cl);
}

/*
 * Game id was restored here by a takeover: its seats wait for their players. One logged in
 * here takes its seat at once, as after a login (a player whose node died and who logged in
 * here before the takeover, while its game was still the dead node's, had nothing else to
 * bring it back but logging in again: locked out until then); a relay client standing for a
 * player of another node takes it as R does; for anyone else, the other nodes are asked (A,
 * as for an event's game): the player's home answers with its R.
 */
void owner_call_seats(struct cluster *c, uint64_t id)
{
	struct game *g = session_find(c->ly.sess, id);
	for (int i = 0; g != NULL && !session_over(g) && i < session_ops(g)->nplayers; i++) {
		const struct player *p = session_seat(g, i);
		if (p->c != NULL)
			continue;
		struct client *cl = lobby_find_user(c->ly.lobby, p->name);
		const struct relay_id *rid = cl != NULL ? relay_id_of(cl->conn) : NULL;
		struct rgame *rg = remote_find(c, id);
		if (cl != NULL && rg != NULL && remote_member(rg, cl->conn->id) != NULL)
			continue; /* it played the game from here: V brings it (info moved) */
		if (rid != NULL && rid->kind == RELAY_CLIENT) {
			rc_seat(c, cl, rid->home, rid->conn);
		} else if (cl != NULL && rid == NULL) {
			cJSON *resumed = cJSON_CreateArray();
			session_login(c->ly.sess, cl, resumed);
			if (cJSON_GetArraySize(resumed) > 0)
				session_resume_send(c->ly.sess, cl);
			cJSON_Delete(resumed);
		} else {
			char h[96];
			snprintf(h, sizeof h, "A %s %s", c->name, p->name);
			redis_to_others(c, h);
		}
	}
}

/* A seat of name (waiting for its player) in a game not over. */
static bool seat_waits(struct cluster *c, const char *name)
{
	for (struct game *g = sessions_first(c->ly.sess); g != NULL; g = session_next(g))
		for (int i = 0; i < session_ops(g)->nplayers && !session_over(g); i++) {
			const struct player *p = session_seat(g, i);
			if (p->c == NULL && strcasecmp(p->name, name) == 0)
				return true;
		}
	return false;
}

/*
 * R: the client logged in at its home; its seats here come back to its relay client: a
 * guest's only with the token R brought (session_login checks it against the seat's hash).
 * login: R itself (the seats held for the player's older connection, an account's or a guest's
 * with the same token, are taken from it); false: a relay client new here, given the seats
 * nobody holds.
 */
void owner_resume(struct cluster *c, const char *home, uint64_t rconn, const char *flags,
                  int64_t rtt, const char *name, const char *token, bool login)
{
	if (login && strchr(flags, 'l') != NULL) {
		if (strchr(flags, 'r') != NULL)
			owner_claim(c, name, NULL, home, rconn);
		else if (strlen(token) == PROTO_TOKEN_LEN)
			owner_claim(c, name, token, home, rconn);
	}
	if (!seat_waits(c, name))
		return;
	struct client *cl = rc_get(c, home, rconn, flags, rtt, name, token, NULL);
	if (cl != NULL)
		rc_seat(c, cl, home, rconn);
}

/* Y: the home lost messages; its players and spectators of game get the state again (once
 * what the game waits for is stored: a paused owner's move may yet be refused). */
void owner_resend(struct cluster *c, const char *home, uint64_t game)
{
	struct game *g = session_find(c->ly.sess, game);
	if (g == NULL)
		return;
	for (int i = 0; i < session_ops(g)->nplayers; i++) {
		struct client *cl = session_seat(g, i)->c;
		const struct relay_id *id = cl != NULL ? relay_id_of(cl->conn) : NULL;
		if (id != NULL && id->kind == RELAY_CLIENT && strcmp(id->home, home) == 0)
			session_watch_send_current(g, cl, i);
	}
	for (int k = 0; k < 2; k++) {
		struct agg *a = agg_find(c, game, k);
		struct client *cl = a != NULL ? cluster_client(c, a->conn) : NULL;
		if (cl != NULL)
			session_watch_send_current(g, cl, -1);
	}
}

/* X: a client of home is gone: its relay client here closes (its seats wait). */
void owner_gone(struct cluster *c, const char *home, uint64_t rconn)
{
	struct rclient *r = rc_find(c, home, rconn);
	if (r != NULL)
		rc_close(c, r);
}

/* ---- the relay sink: what relay clients and watchers send ----------------------------------- */

struct sent {
	uint64_t conn;
	size_t len;
};

static void on_sent(redisAsyncContext *ac, void *r, void *pd)
{
	(void)r;
	struct sent *s = pd;
	struct cluster *c = ac->data;
	struct conn *cn = conn_find(c->ly.hub, s->conn);
	if (cn != NULL && relay_is(cn))
		relay_sent(cn, s->len);
	free(s);
}

/* True when b is the spectator view of g's current state (so the homes may coalesce it). */
static bool is_state(struct cluster *c, uint64_t game, bool json, const struct outbuf *b)
{
	struct game *g = session_find(c->ly.sess, game);
	return g != NULL && session_watch_is_current(g, json, b);
}

bool owner_sink_send(void *ud, struct conn *cn, const struct relay_id *id, const struct outbuf *b)
{
	struct cluster *c = ud;
	if (!c->pub_up)
		return false;
	struct sent *s = malloc(sizeof *s);
	if (s == NULL)
		return false;
	s->conn = cn->id;
	s->len = b->len;
	char h[160], ch[64];
	bool ok;
	if (id->kind == RELAY_CLIENT) {
		char hn[CLUSTER_NODE_MAX + 1];
		cluster_node_name(id->home, hn);
		redis_inbox(ch, hn);
		if (b->len > 0 && b->data[0] == '\0') /* send_done()'s marker */
			snprintf(h, sizeof h, "%s %" PRIu64, b->data + 1, id->conn);
		else
			snprintf(h, sizeof h, "O %" PRIu64, id->conn);
		bool marker = b->len > 0 && b->data[0] == '\0';
		if (marker) { /* "D <n>" becomes "D <conn> <n>" */
			uint64_t n = strtoull(b->data + 3, NULL, 10);
			snprintf(h, sizeof h, "D %" PRIu64 " %" PRIu64, id->conn, n);
		}
		ok = redis_publish(c, ch, h, marker ? NULL : b->data, marker ? 0 : b->len, on_sent,
		                   s);
	} else {
		snprintf(ch, sizeof ch, KEY("g:%" PRIu64), id->game);
		snprintf(h, sizeof h, "%c %c", is_state(c, id->game, id->json, b) ? 'S' : 'M',
		         id->json ? 'j' : 't');
		ok = redis_publish(c, ch, h, b->data, b->len, on_sent, s);
	}
	if (!ok)
		free(s);
	return ok;
}

/* ---- the session hooks around the journal's ------------------------------------------------ */

int owner_on_start(void *ud, const struct game *g, uint64_t *id)
{
	struct cluster *c = ud;
	int r = c->inner.on_start != NULL ? c->inner.on_start(c->inner.ud, g, id) : 0;
	if (r < 0)
		return r;
	/* NX: a game's id is new, so the key can only be a taker's already: a SET held in a
	   partition and delivered after the takeover wrote it sent the game's players back to
	   us, who had lost it, for ever (NO_SUCH_GAME; seen in a nemesis run) */
	redis_call(c, NULL, NULL, "SET " KEY("owner:%" PRIu64) " %s NX", *id, c->name);
	/* players of other nodes: their homes */
	for (int i = 0; i < session_ops(g)->nplayers; i++) {
		const struct client *pc = session_seat(g, i)->c;
		if (pc == NULL) { /* an event's game: its player may be on another node (A) */
			char h[96];
			snprintf(h, sizeof h, "A %s %s", c->name, session_seat(g, i)->name);
			redis_to_others(c, h);
			continue;
		}
		const struct relay_id *rid = pc != NULL ? relay_id_of(pc->conn) : NULL;
		if (rid == NULL || rid->kind != RELAY_CLIENT)
			continue;
		char hn[CLUSTER_NODE_MAX + 1], h[96];
		cluster_node_name(rid->home, hn);
		snprintf(h, sizeof h, "P %s %" PRIu64 " %" PRIu64, c->name, rid->conn, *id);
		redis_to_node(c, hn, h, NULL, 0);
	}
	c->list_dirty = c->users_dirty = true;
	return r;
}

int owner_on_move(void *ud, const struct game *g, const struct move_rec *m)
{
	struct cluster *c = ud;
	c->list_dirty = true;
	return c->inner.on_move != NULL ? c->inner.on_move(c->inner.ud, g, m) : 0;
}

void owner_on_end(void *ud, const struct game *g)
{
	struct cluster *c = ud;
	if (c->inner.on_end != NULL)
		c->inner.on_end(c->inner.ud, g);
	redis_call(c, NULL, NULL, "PEXPIRE " KEY("owner:%" PRIu64) " %d", session_id(g),
	           OWNER_TTL_MS);
	redis_to_game(c, session_id(g), "E");
	c->list_dirty = c->users_dirty = true;
}

int owner_on_undo(void *ud, const struct game *g, int nplies)
{
	struct cluster *c = ud;
	c->list_dirty = true;
	return c->inner.on_undo != NULL ? c->inner.on_undo(c->inner.ud, g, nplies) : 0;
}

/*
 * The store refused our write to game (journal.h's on_lost): another node took it over while
 * we could not see it (we were stopped, or cut off) and runs it now. What waited for the write
 * is not told (the mover gets NODE_GONE instead of its ok); our copy goes, and our own players
 * and spectators of it follow it to its node as those of any remote game do when it moves
 * (info moved, their seats back there, the state). Relay clients' homes follow it themselves
 * (the taker's V on the game's channel).
 */
void owner_lost(void *ud, uint64_t game)
{
	struct cluster *c = ud;
	struct game *g = session_find(c->ly.sess, game);
	if (g == NULL)
		return;
	log_warn("cluster game lost node=%s game=%" PRIu64
	         " why=\"the store refused our write: another node runs it now\"",
	         c->name, game);
	struct rgame *rg = remote_get(c, game, NULL);
	for (int i = 0; rg != NULL && i < session_ops(g)->nplayers; i++) {
		struct client *cl = session_seat(g, i)->c;
		if (cl != NULL && !cl->remote)
			remote_add(rg, cl->conn->id, true, cl->json);
	}
	struct client *w;
	for (size_t i = 0; rg != NULL && (w = session_watcher(g, i)) != NULL; i++)
		if (!w->remote)
			remote_add(rg, w->conn->id, false, w->json);
	session_forget(g);
	owner_drop_stale(c);
	c->list_dirty = c->users_dirty = true;
	if (rg != NULL && rg->n == 0)
		remote_free(c, rg);
	else if (rg != NULL)
		remote_find_owner(c, rg);
}

/*
 * A home's instance is gone: its relay clients close (their seats wait), its spectators go.
 * A seat they held whose player is back through another relay client already (it logged in
 * elsewhere before we knew the instance was gone) goes to that one at once.
 */
void owner_home_gone(struct cluster *c, const char *instance)
{
	bool closed = false;
	for (struct rclient *r = c->rclients, *next; r != NULL; r = next) {
		next = r->next;
		if (strcmp(r->home, instance) == 0) {
			rc_close(c, r);
			closed = true;
		}
	}
	for (struct rclient *r = c->rclients; closed && r != NULL; r = r->next) {
		struct client *cl = cluster_client(c, r->conn);
		if (cl != NULL && cl->logged_in && seat_waits(c, cl->name))
			rc_seat(c, cl, r->home, r->rconn);
	}
	for (struct interest *i = c->interests; i != NULL; i = i->next)
		if (strcmp(i->home, instance) == 0 && (i->count[0] || i->count[1])) {
			owner_interest_set(c, instance, i->game, false, 0);
			owner_interest_set(c, instance, i->game, true, 0);
		}
}

/* Relay watchers of games gone from memory. */
void owner_drop_stale(struct cluster *c)
{
	for (struct agg *a = c->aggs, *next; a != NULL; a = next) {
		next = a->next;
		if (session_find(c->ly.sess, a->game) == NULL)
			agg_drop(c, a);
	}
}

/* A relay connection (conn) is gone: it stands for nobody now. */
void owner_client_gone(struct cluster *c, uint64_t conn)
{
	rc_forget(c, conn);
	for (struct agg *a = c->aggs; a != NULL; a = a->next)
		if (a->conn == conn)
			a->conn = 0;
}

/* The relay clients', relay watchers' and remote spectators' records freed (cluster_free()). */
void owner_clear(struct cluster *c)
{
	while (c->rclients != NULL) {
		struct rclient *r = c->rclients;
		c->rclients = r->next;
		free(r);
	}
	while (c->aggs != NULL) {
		struct agg *a = c->aggs;
		c->aggs = a->next;
		free(a);
	}
	while (c->interests != NULL) {
		struct interest *i = c->interests;
		c->interests = i->next;
		free(i);
	}
}

/* Redis came back (or lost our keys): the owner key of each of our games is written again,
 * where it is missing only (NX: one that names a taker stays; we learn we lost that game when
 * the store refuses our next write). */
void owner_resync(struct cluster *c)
{
	for (struct game *g = sessions_first(c->ly.sess); g != NULL; g = session_next(g))
		redis_call(c, NULL, NULL, "SET " KEY("owner:%" PRIu64) " %s NX", session_id(g),
		           c->name);
}
