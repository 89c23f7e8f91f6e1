/*
 * identity.c - guests' tokens and taking an identity over (see identity.h).
 */
#include "server/play/identity.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "games/accept.h"
#include "server/msg/msg.h"

void identity_token_new(char out[PROTO_TOKEN_LEN + 1])
{
	static const char alphabet[] = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
	for (int i = 0; i < PROTO_TOKEN_LEN; i++)
		out[i] = alphabet[randombytes_uniform(sizeof alphabet - 1)];
	out[PROTO_TOKEN_LEN] = '\0';
}

/* Who holds name as a guest: a connected guest other than except (*u), or a seat (*p). */
static bool guest_holder(struct lobby *l, const char *name, const struct client *except,
                         struct client **u, const struct player **p)
{
	*u = NULL;
	*p = NULL;
	struct client *c = lobby_find_user(l, name);
	if (c != NULL && c != except && !c->registered) {
		*u = c;
		return true;
	}
	for (struct game *g = sessions_first(l->sess); g != NULL; g = session_next(g)) {
		for (int i = 0; !session_over(g) && i < session_ops(g)->nplayers; i++) {
			const struct player *pl = session_seat(g, i);
			if (pl->registered || strcasecmp(pl->name, name) != 0)
				continue;
			*p = pl;
			return true;
		}
	}
	return false;
}

bool identity_guest_holds(struct lobby *l, const char *name, const struct client *except,
                          bool *guarded)
{
	struct client *u;
	const struct player *p;
	if (!guest_holder(l, name, except, &u, &p))
		return false;
	if (guarded != NULL)
		*guarded = u != NULL ? u->token[0] != '\0' : p->token_hash[0] != '\0';
	return true;
}

/* Constant time for equal lengths: a token is not guessed a character at a time. */
static bool token_eq(const char *held, const char *given)
{
	size_t n = strlen(held);
	return n == PROTO_TOKEN_LEN && strlen(given) == n && sodium_memcmp(held, given, n) == 0;
}

void identity_take_over(struct lobby *l, struct client *c, const char *name)
{
	struct client *old = lobby_find_user(l, name);
	if (old == NULL || old == c)
		return;
	send_info(old, ERR_SESSION_TAKEN,
	          "%s logged in from elsewhere (%s); this connection closes", name, c->conn->peer);
	log_debug("session taken over conn=%llu user=%s from=%llu", (unsigned long long)c->conn->id,
	          name, (unsigned long long)old->conn->id);
	client_close(old, true);
}

void identity_refuse_login(struct client *c, const struct proto_req *rq)
{
	reply_err(c, rq, ERR_BAD_LOGIN, "wrong name or password");
}

void identity_refuse_connected(struct client *c, const struct proto_req *rq, const char *name)
{
	reply_err(c, rq, ERR_NAME_TAKEN, "%s is connected already; pick another name", name);
}

void identity_refuse_guarded(struct client *c, const struct proto_req *rq, const char *name,
                             bool given)
{
	if (given)
		identity_refuse_login(c, rq);
	else
		reply_err(c, rq, ERR_NAME_TAKEN,
		          "%s is a guest's, with seats in games not yet ended; only its token "
		          "brings them back: login %s <token>",
		          name, name);
}

/*
 * A guest who lost its token, back from the address it left from (identity.h): `login
 * <name>` without a token (token NULL), the name held by seats alone (hu NULL: no connection
 * has it), and those seats the only guest's left in grace from c's address.
 */
static bool by_address(struct lobby *l, const struct client *c, const char *name, const char *token,
                       const struct client *hu)
{
	/* in a cluster (hooks.guest) a guest's seats may be any node's and the address
	   is not carried over: off there */
	if (token != NULL || hu != NULL || c->remote || c->conn->t->no_address ||
	    l->hooks.guest != NULL)
		return false;
	const char *one = session_guest_left_from(l->sess, &c->conn->addr);
	return one != NULL && strcasecmp(one, name) == 0;
}

bool identity_guest_login(struct lobby *l, struct client *c, const struct proto_req *rq,
                          const char *name, const char *token)
{
	if (proto_name_house(name)) { /* the house's bots log in by themselves (house.c) */
		reply_err(c, rq, ERR_NAME_TAKEN,
		          "%s is one of the server's own bots; 'match " PROTO_HOUSE_NAME
		          " <kind> level=N' plays them",
		          name);
		return false;
	}
	struct client *u = lobby_find_user(l, name);
	if (u != NULL && u->registered) {
		identity_refuse_connected(c, rq, name);
		return false;
	}
	const char *given = token != NULL ? token : c->token;
	struct client *hu;
	const struct player *hp;
	bool held = guest_holder(l, name, c, &hu, &hp);
	bool guarded = held && (hu != NULL ? hu->token[0] != '\0' : hp->token_hash[0] != '\0');
	/* in a cluster, the token to try against the name's seats on other nodes */
	char probe[PROTO_TOKEN_LEN + 1] = "";
	if (guarded) {
		/* a connected guest's token as given; a seat's as its hash (a restored game's
		   seat has nothing else) */
		bool fits = hu != NULL ? token_eq(hu->token, given)
		                       : session_token_fits(hp->token_hash, given);
		if (!fits && by_address(l, c, name, token, hu)) {
			identity_token_new(c->token); /* a new token; the seats take it */
			session_guest_rekey(l->sess, name, &c->conn->addr, c->token);
			log_info("guest seats recovered by address user=%s conn=%llu", name,
			         (unsigned long long)c->conn->id);
			fits = true;
		}
		if (!fits) {
			if (token == NULL && u != NULL)
				identity_refuse_connected(c, rq, name);
			else
				identity_refuse_guarded(c, rq, name, token != NULL);
			return false;
		}
		if (given != c->token)
			snprintf(c->token, sizeof c->token, "%s", given);
		identity_take_over(l, c, name);
		snprintf(probe, sizeof probe, "%s", c->token);
	} else if (u != NULL && u != c) { /* a tokenless seat's name, its claimer connected */
		identity_refuse_connected(c, rq, name);
		return false;
	} else if (token != NULL && !held && l->hooks.guest == NULL) {
		/* no guest has it (in a cluster, another node may: hooks.guest asks) */
		identity_refuse_login(c, rq);
		return false;
	} else {
		/* a new guest, or a seat without a token (stored before tokens were) claimed;
		   the token given, or the connection's own from an earlier login, is what a
		   seat of the name on another node of a cluster wants */
		if (strlen(given) == PROTO_TOKEN_LEN)
			snprintf(probe, sizeof probe, "%s", given);
		identity_token_new(c->token);
	}
	if (l->hooks.guest != NULL &&
	    l->hooks.guest(l->hooks.ud, c, rq, name, probe[0] != '\0' ? probe : NULL,
	                   token != NULL && !held))
		return true; /* the cluster answers (it checks the name on every node) */
	lobby_login_checked(l, c, rq, name, false);
	return true;
}

/* ---- bots and who meets them ---------------------------------------------------------- */

/* c's choices, or NULL for no one (or not logged in). */
static const struct store_prefs *prefs_of(const struct client *c)
{
	return c != NULL && c->logged_in ? &c->prefs : NULL;
}

bool identity_is_bot(const struct client *c)
{
	const struct store_prefs *p = prefs_of(c);
	return p != NULL && p->bot;
}

bool identity_refuses_bots(const struct client *c)
{
	const struct store_prefs *p = prefs_of(c);
	return p != NULL && p->bots_off;
}

const char *identity_accept(const struct client *c)
{
	const struct store_prefs *p = prefs_of(c);
	return p != NULL ? p->accept : "";
}

bool identity_name_is_bot(struct lobby *l, const char *name)
{
	return identity_is_bot(lobby_find_user(l, name));
}

bool identity_bots_meet(const struct client *a, const struct client *b)
{
	return lobby_bots_meet(a, b);
}

bool identity_accepts(const struct client *c, const struct client *opp, const struct game_ops *ops,
                      const struct seek_opts *so, enum err_code *code, char *why, size_t len)
{
	if (!identity_bots_meet(c, opp)) {
		*code = ERR_NO_BOTS;
		if (identity_refuses_bots(c))
			snprintf(why, len, "%s refuses bots (set bots off), and %s is a bot",
			         c->name, opp->name);
		else
			snprintf(why, len, "%s is a bot, and %s refuses bots (set bots off)",
			         c->name, opp->name);
		return false;
	}
	const char *filter = identity_accept(c);
	if (filter[0] == '\0')
		return true;
	char options[256];
	if (game_params_text(ops, &so->params, false, options, sizeof options) < 0)
		options[0] = '\0';
	struct accept_game g = {.kind = ops->name,
	                        .options = options,
	                        .timed = so->timed,
	                        .base_ms = so->base_ms,
	                        .inc_ms = so->inc_ms,
	                        .rated = so->rated,
	                        .opponent_bot = identity_is_bot(opp)};
	char reason[ACCEPT_WHY_MAX];
	if (accept_allows(filter, &g, reason, sizeof reason))
		return true;
	*code = ERR_FILTERED;
	snprintf(why, len, "%s's accept filter declines this game: it %s", c->name, reason);
	return false;
}
