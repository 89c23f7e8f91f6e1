/*
 * identity.c - guests' tokens and taking an identity over (see identity.h).
 */
#include "server/identity.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server/msg.h"

void identity_token_new(char out[PROTO_TOKEN_LEN + 1])
{
	static const char alphabet[] = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
	for (int i = 0; i < PROTO_TOKEN_LEN; i++)
		out[i] = alphabet[randombytes_uniform(sizeof alphabet - 1)];
	out[PROTO_TOKEN_LEN] = '\0';
}

bool identity_guest_holds(struct lobby *l, const char *name, const struct client *except,
                          const char **token)
{
	struct client *u = lobby_find_user(l, name);
	if (u != NULL && u != except && !u->registered) {
		if (token != NULL)
			*token = u->token;
		return true;
	}
	for (struct game *g = l->sess->games; g != NULL; g = g->next) {
		for (int i = 0; !g->freeing && !g->over && i < g->ops->nplayers; i++) {
			const struct player *p = &g->pl[i];
			if (p->registered || strcasecmp(p->name, name) != 0)
				continue;
			if (token != NULL)
				*token = p->token;
			return true;
		}
	}
	return false;
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
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "info");
	cJSON_AddStringToObject(j, "event", "session_taken");
	cJSON_AddStringToObject(j, "code", "SESSION_TAKEN");
	char *t = xasprintf("%s logged in from elsewhere (%s); this connection closes", name,
	                    c->conn->peer);
	cJSON_AddStringToObject(j, "message", t ? t : "");
	send_msg(old, j, xasprintf("info SESSION_TAKEN: %s", t ? t : ""));
	free(t);
	log_info("conn %llu takes over %s from conn %llu", (unsigned long long)c->conn->id, name,
	         (unsigned long long)old->conn->id);
	client_close(old, true);
}

bool identity_guest_login(struct lobby *l, struct client *c, const struct proto_req *rq,
                          const char *name, const char *token)
{
	const char *held = NULL;
	struct client *u = lobby_find_user(l, name);
	if (u != NULL && u->registered) {
		reply_err(c, rq, "NAME_TAKEN", "%s is connected already; pick another name", name);
		return false;
	}
	const char *given = token != NULL ? token : c->token;
	if (identity_guest_holds(l, name, c, &held) && held[0] != '\0') {
		if (!token_eq(held, given)) {
			if (token != NULL)
				reply_err(c, rq, "BAD_LOGIN", "wrong name or password");
			else if (u != NULL)
				reply_err(c, rq, "NAME_TAKEN",
				          "%s is connected already; pick another name", name);
			else
				reply_err(
				        c, rq, "NAME_TAKEN",
				        "%s is a guest's, with seats in games not yet ended; only "
				        "its token brings them back: login %s <token>",
				        name, name);
			return false;
		}
		snprintf(c->token, sizeof c->token, "%s", held); /* before: held may be u's */
		identity_take_over(l, c, name);
	} else if (u != NULL && u != c) { /* a restored seat's name, its claimer connected */
		reply_err(c, rq, "NAME_TAKEN", "%s is connected already; pick another name", name);
		return false;
	} else if (token != NULL && held == NULL) { /* no guest has it: a wrong account login */
		reply_err(c, rq, "BAD_LOGIN", "wrong name or password");
		return false;
	} else {
		identity_token_new(
		        c->token); /* a new guest, or a restored seat (no token) claimed */
	}
	lobby_login(l, c, rq, name, false);
	return true;
}
