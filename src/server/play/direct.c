/*
 * direct.c - tells and challenges between two users (see direct.h). A
 * challenge is a seek of the lobby's list with a target (struct seek.to):
 * the lobby lists it to its two sides only and never announces it; this file
 * tells the target when it is made and each side when the other ends it.
 */
#include "server/play/direct.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "server/play/identity.h"

/* The logged-in user called name, or NULL with NO_SUCH_USER answered. */
static struct client *online(struct lobby *l, struct client *c, const struct proto_req *rq,
                             const char *name)
{
	struct client *u = lobby_find_user(l, name);
	if (u == NULL)
		reply_err(c, rq, ERR_NO_SUCH_USER, "%s is not online", name);
	return u;
}

void direct_tell(struct lobby *l, struct client *c, const struct proto_req *rq, const char *to,
                 const char *text)
{
	struct client *u = online(l, c, rq, to);
	if (u == NULL)
		return;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "tell");
	cJSON_AddStringToObject(j, "from", c->name);
	cJSON_AddStringToObject(j, "text", text);
	char *t = xasprintf("%s tells you: %s", c->name, text);
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "to", u->name);
	reply_ok(c, rq, f, NULL, "told %s", u->name);
	send_msg(u, j, t);
}

/* {"type":"match","event":event,"id":..,"by":who} and its text, to c. */
static void tell_end(struct client *c, const struct seek *k, const char *event,
                     const struct client *who, const char *what)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "match");
	cJSON_AddStringToObject(j, "event", event);
	cJSON_AddNumberToObject(j, "id", (double)k->id);
	cJSON_AddStringToObject(j, "by", who->name);
	send_msg(c, j, xasprintf("match %" PRIu64 ": %s %s", k->id, who->name, what));
}

void direct_match(struct lobby *l, struct client *c, const struct proto_req *rq)
{
	struct client *u = online(l, c, rq, rq->argv[0]);
	if (u == NULL)
		return;
	if (u == c) {
		reply_err(c, rq, ERR_BAD_ARGS,
		          "a challenge is for someone else; seek to play anyone");
		return;
	}
	struct seek *k = lobby_seek_new(l, c, rq, rq->argc - 1, rq->argv + 1, u);
	if (k == NULL)
		return;
	enum err_code code;
	char why[320];
	if (!identity_accepts(u, c, k->ops, &k->so, &code, why, sizeof why)) {
		lobby_seek_remove(l, k); /* never told to anyone */
		reply_err(c, rq, code, "%s", why);
		return;
	}
	char *d = lobby_seek_text(k);
	cJSON *f = cJSON_CreateObject();
	cJSON_AddItemToObject(f, "seek", lobby_seek_json(k));
	reply_ok(c, rq, f, NULL, "match %s", d ? d : "");
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "match");
	cJSON_AddStringToObject(j, "event", "new");
	cJSON_AddItemToObject(j, "seek", lobby_seek_json(k));
	send_msg(u, j,
	         xasprintf("match %s (accept %" PRIu64 " or decline %" PRIu64 ")", d ? d : "",
	                   k->id, k->id));
	free(d);
	/* a cluster learns where it is (its author may be on another node) */
	if (l->hooks.on_seek != NULL)
		l->hooks.on_seek(l->hooks.ud, k, false, NULL);
}

void direct_decline(struct lobby *l, struct client *c, const struct proto_req *rq, struct seek *k)
{
	if (k->to != c) {
		reply_err(c, rq, ERR_NOT_YOUR_SEEK,
		          "seek %" PRIu64 " is no challenge to you (unseek withdraws your own)",
		          k->id);
		return;
	}
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "seek", (double)k->id);
	reply_ok(c, rq, f, NULL, "declined %s's challenge %" PRIu64, k->by->name, k->id);
	tell_end(k->by, k, "decline", c, "declines");
	lobby_seek_remove(l, k);
}

void direct_withdraw(struct lobby *l, struct client *c, const struct proto_req *rq, struct seek *k)
{
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "seek", (double)k->id);
	reply_ok(c, rq, f, NULL, "challenge %" PRIu64 " to %s withdrawn", k->id, k->to->name);
	tell_end(k->to, k, "withdraw", c, "withdraws the challenge");
	lobby_seek_remove(l, k);
}

void direct_client_gone(struct lobby *l, struct client *c)
{
	for (struct seek *k = l->seeks; k != NULL; k = k->next) {
		if (k->to == NULL || (k->by != c && k->to != c))
			continue;
		struct client *other = k->by == c ? k->to : k->by;
		if (client_alive(other))
			tell_end(other, k, "gone", c, "left; the challenge is gone");
	}
}
