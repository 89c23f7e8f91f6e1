/*
 * commands.c - the command table, the dispatcher that resolves a row's flags
 * once, the one resolution of "the game named by the first argument", and
 * the handlers: each hands its request to the layer that owns what it acts on
 * (see commands.h).
 */
#include "server/cmd/commands.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <sodium.h>

#include "games/accept.h"
#include "server/events/ladder.h"
#include "server/events/pools.h"
#include "server/events/tourney.h"
#include "server/records/accounts.h"
#include "server/records/archive.h"
#include "server/records/moderation.h"
#include "server/play/direct.h"
#include "server/play/identity.h"
#include "server/play/lobby.h"
#include "server/msg/msg.h"
#include "server/play/offers.h"
#include "server/msg/rtt.h"
#include "server/play/session.h"
#include "server/play/session_view.h"
#include "server/play/session_watch.h"
#include "server/store/store.h"

/* ---- handlers: the lobby ------------------------------------------------------------ */

/* NO_STORAGE: a command that needs the store (CMD_STORE, or an account's login) without one. */
static void refuse_no_storage(struct client *c, const struct proto_req *rq)
{
	reply_err(c, rq, ERR_NO_STORAGE, "this server keeps no accounts or records");
}

/* A user's name as an argument: false (answered BAD_NAME) when it can be nobody's. */
static bool name_arg(struct cmd *x, const char *name)
{
	if (proto_name_valid(name))
		return true;
	reply_err(x->cl, x->rq, ERR_BAD_NAME,
	          "names are %d to %d characters of A-Z, a-z, 0-9, _ and -", PROTO_NAME_MIN,
	          PROTO_NAME_MAX);
	return false;
}

static bool refuse_banned(struct cmd *x, const char *name);
static bool refuse_blocked(struct cmd *x, const char *by);

static void cmd_login(struct cmd *x)
{
	struct client *c = x->cl;
	const struct proto_req *rq = x->rq;
	const char *name = rq->argv[0];
	if (c->logged_in) {
		reply_err(c, rq, ERR_ALREADY_LOGGED_IN, "you are %s already", c->name);
		return;
	}
	if (!name_arg(x, name) || refuse_banned(x, name))
		return;
	if (x->cx->acct != NULL) { /* the store says whether the name is an account's */
		if (rq->argc == 2) /* a password (or a guest's token), checked off the loop */
			accounts_login(x->cx->acct, c, rq);
		else
			accounts_login_guest(x->cx->acct, c, rq);
		return;
	}
	if (rq->argc == 2 && !identity_guest_holds(x->cx->lobby, name, NULL, NULL)) {
		refuse_no_storage(c, rq);
		return;
	}
	identity_guest_login(x->cx->lobby, c, rq, name, rq->argc == 2 ? rq->argv[1] : NULL);
}

static void cmd_register(struct cmd *x)
{
	struct client *c = x->cl;
	if (x->rq->argc == 2) {
		accounts_register(x->cx->acct, c, x->rq);
	} else if (c->json || c->fe != NULL) { /* a program gives the password on the line */
		reply_usage(c, x->rq);
	} else if (c->logged_in) {
		reply_err(
		        c, x->rq, ERR_ALREADY_LOGGED_IN,
		        "you are %s already; to register another name: register <name> <password>",
		        c->name);
	} else if (name_arg(x, x->rq->argv[0])) {
		msg_ask_password(
		        c, x->rq->cmd->name, x->rq->argv[0],
		        "choose a password for %s (6-128 bytes) and type it on the next line:",
		        x->rq->argv[0]);
	}
}

static void cmd_games(struct cmd *x)
{
	lobby_games(x->cl, x->rq);
}

static void cmd_seek(struct cmd *x)
{
	lobby_seek(x->cx->lobby, x->cl, x->rq);
}

static void cmd_seeks(struct cmd *x)
{
	lobby_seeks(x->cx->lobby, x->cl, x->rq);
}

static void cmd_unseek(struct cmd *x)
{
	if (x->seek->to != NULL && x->seek->by == x->cl)
		direct_withdraw(x->cx->lobby, x->cl, x->rq, x->seek);
	else
		lobby_unseek(x->cx->lobby, x->cl, x->rq, x->seek);
}

/* match computer ...: the house bots' (struct commands' computer), on every node its own. */
static bool to_computer(const struct cmd *x)
{
	return x->cx->computer != NULL && strcasecmp(x->rq->argv[0], COMMANDS_COMPUTER) == 0;
}

static void cmd_match(struct cmd *x)
{
	if (to_computer(x)) {
		x->cx->computer(x->cx->computer_ud, x->cl, x->rq);
		return;
	}
	if (name_arg(x, x->rq->argv[0]) && !refuse_blocked(x, x->rq->argv[0]))
		direct_match(x->cx->lobby, x->cl, x->rq);
}

static void cmd_decline(struct cmd *x)
{
	direct_decline(x->cx->lobby, x->cl, x->rq, x->seek);
}

static void cmd_tell(struct cmd *x)
{
	if (name_arg(x, x->rq->argv[0]) && !refuse_blocked(x, x->rq->argv[0]))
		direct_tell(x->cx->lobby, x->cl, x->rq, x->rq->argv[0], x->rq->argv[1]);
}

static void cmd_logout(struct cmd *x)
{
	direct_client_gone(x->cx->lobby, x->cl);
	if (x->cx->pools != NULL)
		pools_client_gone(x->cx->pools, x->cl);
	lobby_logout(x->cx->lobby, x->cl, x->rq);
}

/* NO_BOTS or FILTERED: the author of open seek k does not take a game against the caller
   (identity_accepts: bots off either way, its accept filter). A challenge's target accepts
   what it was offered: it was checked when made. */
static bool refuse_unaccepted(struct cmd *x, const struct seek *k)
{
	enum err_code code;
	char why[320];
	if (k->to != NULL || identity_accepts(k->by, x->cl, k->ops, &k->so, &code, why, sizeof why))
		return false;
	reply_err(x->cl, x->rq, code, "%s", why);
	return true;
}

static void cmd_accept(struct cmd *x)
{
	if (!refuse_blocked(x, x->seek->by->name) && !refuse_unaccepted(x, x->seek))
		lobby_accept(x->cx->lobby, x->cl, x->rq, x->seek);
}

static void who_addresses(struct cmd *x);

static void cmd_who(struct cmd *x)
{
	if (x->admin)
		who_addresses(x);
	else
		lobby_who(x->cx->lobby, x->cl, x->rq);
}

/* ---- handlers: games ---------------------------------------------------------------- */

static void cmd_list(struct cmd *x)
{
	session_view_list(x->cx->sess, x->cl, x->rq);
}

static void cmd_move(struct cmd *x)
{
	session_move(x->cl, x->rq, x->g, x->seat, x->rq->argv[1]);
}

static void cmd_resign(struct cmd *x)
{
	session_resign(x->cl, x->rq, x->g, x->seat);
}

static void cmd_draw(struct cmd *x)
{
	offers_draw(x->cl, x->rq, x->g, x->seat);
}

static void cmd_undo(struct cmd *x)
{
	offers_undo(x->cl, x->rq, x->g, x->seat);
}

static void admin_abort(struct cmd *x);

static void cmd_abort(struct cmd *x)
{
	if (x->seat < 0) /* an admin's, of a game they do not play (CMD_ADMIN_MAY) */
		admin_abort(x);
	else
		offers_abort(x->cl, x->rq, x->g, x->seat);
}

static void cmd_rematch(struct cmd *x)
{
	offers_rematch(x->cl, x->rq, x->g, x->seat);
}

static void cmd_watch(struct cmd *x)
{
	session_watch_start(x->cl, x->rq, x->g, x->seat);
}

static void cmd_refresh(struct cmd *x)
{
	session_watch_refresh(x->cl, x->rq, x->g, x->seat);
}

static void cmd_unwatch(struct cmd *x)
{
	session_watch_stop(x->cl, x->rq, x->g);
}

static void cmd_say(struct cmd *x)
{
	session_watch_say(x->cl, x->rq, x->g, x->rq->argv[1]);
}

/* ---- handlers: the store ------------------------------------------------------------ */

static void cmd_ratings(struct cmd *x)
{
	archive_ratings(x->cx->arch, x->cl, x->rq);
}

static void cmd_finger(struct cmd *x)
{
	if (name_arg(x, x->rq->argv[0]))
		archive_finger(x->cx->arch, x->cl, x->rq);
}

static void cmd_history(struct cmd *x)
{
	if (x->rq->argc == 0 || name_arg(x, x->rq->argv[0]))
		archive_history(x->cx->arch, x->cl, x->rq);
}

static void cmd_record(struct cmd *x)
{
	archive_record(x->cx->arch, x->cl, x->rq, x->id);
}

static void cmd_replay(struct cmd *x)
{
	archive_replay(x->cx->arch, x->cl, x->rq, x->id);
}

/* ---- handlers: tournaments (events/) -------------------------------------------------- */

/* In a cluster, the node running the events takes the request (forwarded there). */
static bool event_routed(struct cmd *x, enum err_code code)
{
	const struct router *r = x->cx->router;
	return r != NULL && r->event != NULL && r->event(r->ud, x, code);
}

static void cmd_tourney(struct cmd *x)
{
	if (!event_routed(x, ERR_TOURNEY_UNAVAILABLE))
		tourney_command(x->cx->tourneys, x->cl, x->rq);
}

/* ---- handlers: pools (events/pools.h) ------------------------------------------------ */

static void cmd_pool(struct cmd *x)
{
	if (!event_routed(x, ERR_TOURNEY_UNAVAILABLE))
		pools_command(x->cx->pools, x->cl, x->rq);
}

static void cmd_pools(struct cmd *x)
{
	if (!event_routed(x, ERR_TOURNEY_UNAVAILABLE))
		pools_list(x->cx->pools, x->cl, x->rq);
}

static void cmd_ladder(struct cmd *x)
{
	if (!event_routed(x, ERR_LADDER_UNAVAILABLE))
		ladder_command(x->cx->ladders, x->cl, x->rq, identity_is_bot(x->cl));
}

/* ---- handlers: moderation (records/moderation.h) ----------------------------------- */

#define DURATION_MAX_S (10LL * 365 * 24 * 3600) /* a longer ban is one without an end */

/* "30s", "15m", "2h", "7d", "4w": seconds into *s; false for anything else. */
static bool duration_parse(const char *t, int64_t *s)
{
	char *end;
	if (t[0] < '0' || t[0] > '9')
		return false;
	long long n = strtoll(t, &end, 10);
	static const struct {
		char unit;
		int64_t s;
	} units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}, {'w', 7 * 86400}};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (end[0] == units[i].unit && end[1] == '\0' && n > 0 &&
		    n <= DURATION_MAX_S / units[i].s) {
			*s = n * units[i].s;
			return true;
		}
	return false;
}

/* "until 2026-11-28 12:00 UTC" or "for good", for sentences. */
static const char *until_text(int64_t until, char *buf, size_t len)
{
	if (until == 0)
		return "for good";
	time_t t = (time_t)(until / 1000);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "until %Y-%m-%d %H:%M UTC", &tm);
	return buf;
}

/* {"reason":..,"until":ms (0: no end),"by":..}, what a refusal or a notice carries. */
static cJSON *sanction_fields(const struct store_mod *r)
{
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "reason", r->reason);
	cJSON_AddNumberToObject(f, "until", (double)r->until);
	cJSON_AddStringToObject(f, "by", r->actor);
	return f;
}

/* BANNED: a login of name from x's address while a ban holds it out. */
static bool refuse_banned(struct cmd *x, const char *name)
{
	if (x->cx->mod == NULL)
		return false;
	const struct store_mod *b =
	        moderation_banned(x->cx->mod, name, x->cl->conn->peer, store_now_ms());
	if (b == NULL)
		return false;
	char u[48];
	reply_err_fields(x->cl, x->rq, ERR_BANNED, sanction_fields(b), "%s is banned %s: %s",
	                 strncmp(b->target, MODERATION_ADDR_PREFIX, 5) == 0 ? "your address" : name,
	                 until_text(b->until, u, sizeof u), b->reason);
	return true;
}

/* BLOCKED: the user `by` blocks the caller (tells, challenges). */
static bool refuse_blocked(struct cmd *x, const char *by)
{
	if (x->cx->mod == NULL ||
	    moderation_find(x->cx->mod, STORE_MOD_BLOCK, by, x->cl->name, 0) == NULL)
		return false;
	reply_err(x->cl, x->rq, ERR_BLOCKED, "%s does not take tells or challenges from you", by);
	return true;
}

/* A row of x's caller about target, stamped now. */
static struct store_mod mod_row(const struct cmd *x, enum store_mod_kind kind, const char *action,
                                const char *target, const char *reason)
{
	struct store_mod r = {.kind = kind, .at = store_now_ms()};
	snprintf(r.actor, sizeof r.actor, "%s", x->cl->name);
	snprintf(r.action, sizeof r.action, "%s", action);
	snprintf(r.target, sizeof r.target, "%s", target);
	snprintf(r.reason, sizeof r.reason, "%s", reason != NULL ? reason : "");
	return r;
}

/* Applies r and answers: false (answered) when it could not be. */
static bool mod_apply(struct cmd *x, const struct store_mod *r, const char *missing)
{
	int err = moderation_apply(x->cx->mod, r);
	if (err == STORE_ENOTFOUND)
		reply_err(x->cl, x->rq, ERR_BAD_ARGS, "%s", missing);
	else if (err < 0)
		reply_err(x->cl, x->rq, ERR_INTERNAL,
		          "it could not be stored (%s); nothing changed", store_strerror(err));
	return err == 0;
}

/* A target as an argument: a user's name, or "addr:" and an address. */
static bool target_arg(struct cmd *x, const char *t)
{
	size_t n = strlen(MODERATION_ADDR_PREFIX);
	if (strncasecmp(t, MODERATION_ADDR_PREFIX, n) != 0)
		return name_arg(x, t);
	size_t len = strlen(t + n);
	if (len > 0 && len + n <= STORE_TARGET_MAX &&
	    strspn(t + n, "0123456789abcdefABCDEF.:") == len)
		return true;
	reply_err(x->cl, x->rq, ERR_BAD_ARGS, "an address target is addr:<IPv4 or IPv6 address>");
	return false;
}

/* Closes every connection target names (a user, or an address's), telling each why. */
static int close_target(struct cmd *x, const char *target, const char *why)
{
	int n = 0;
	size_t plen = strlen(MODERATION_ADDR_PREFIX);
	bool addr = strncasecmp(target, MODERATION_ADDR_PREFIX, plen) == 0;
	for (struct conn *k = x->cl->conn->hub->conns, *next; k != NULL; k = next) {
		next = k->next;
		struct client *u = client_of(k);
		if (u == NULL || u == x->cl || u->remote)
			continue;
		if (addr ? strcasecmp(k->peer, target + plen) != 0
		         : !u->logged_in || strcasecmp(u->name, target) != 0)
			continue;
		send_info(u, ERR_KICKED, "%s; this connection closes", why);
		client_close(u, true);
		n++;
	}
	return n;
}

/*
 * ban|mute <target> [duration] <reason>: argv[1] is the duration when it reads as one,
 * else the reason's first word.
 */
static void sanction(struct cmd *x, enum store_mod_kind kind)
{
	const struct proto_req *rq = x->rq;
	const char *target = rq->argv[0], *verb = kind == STORE_MOD_BAN ? "ban" : "mute";
	if (!target_arg(x, target))
		return;
	int64_t secs = 0;
	char *joined = NULL;
	const char *reason = rq->argv[1];
	if (rq->argc == 3 && duration_parse(rq->argv[1], &secs))
		reason = rq->argv[2];
	else if (rq->argc == 3)
		reason = joined = xasprintf("%s %s", rq->argv[1], rq->argv[2]);
	struct store_mod r = mod_row(x, kind, verb, target, reason ? reason : "");
	free(joined);
	r.until = secs > 0 ? r.at + secs * 1000 : 0;
	/* a ban closes the target's connections first: what they are told is not held behind
	   the ban's write (their output would go with them) */
	char u[48], *why = xasprintf("banned by %s %s: %s", r.actor,
	                             until_text(r.until, u, sizeof u), r.reason);
	int closed = kind == STORE_MOD_BAN ? close_target(x, target, why ? why : "banned") : 0;
	free(why);
	if (!mod_apply(x, &r, ""))
		return;
	log_info("%s user=%s target=%s until=%lld reason=%s",
	         kind == STORE_MOD_BAN ? "ban" : "mute", r.actor, LOG_Q(target), (long long)r.until,
	         LOG_Q(r.reason));
	cJSON *f = sanction_fields(&r);
	cJSON_AddStringToObject(f, "target", target);
	if (kind == STORE_MOD_BAN)
		cJSON_AddNumberToObject(f, "closed", closed);
	reply_ok(x->cl, rq, f, NULL, "%s %s %s: %s", kind == STORE_MOD_BAN ? "banned" : "muted",
	         target, until_text(r.until, u, sizeof u), r.reason);
}

static void lift(struct cmd *x, enum store_mod_kind kind)
{
	const struct proto_req *rq = x->rq;
	const char *target = rq->argv[0], *verb = kind == STORE_MOD_BAN ? "unban" : "unmute";
	if (!target_arg(x, target))
		return;
	struct store_mod r = mod_row(x, kind, verb, target, rq->argc == 2 ? rq->argv[1] : "");
	r.remove = true;
	char *missing =
	        xasprintf("%s is not %s", target, kind == STORE_MOD_BAN ? "banned" : "muted");
	bool ok = mod_apply(x, &r, missing ? missing : "not there");
	free(missing);
	if (!ok)
		return;
	log_info("%s user=%s target=%s", verb, r.actor, LOG_Q(target));
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "target", target);
	reply_ok(x->cl, rq, f, NULL, "%s %s", kind == STORE_MOD_BAN ? "unbanned" : "unmuted",
	         target);
}

static void cmd_ban(struct cmd *x)
{
	sanction(x, STORE_MOD_BAN);
}

static void cmd_unban(struct cmd *x)
{
	lift(x, STORE_MOD_BAN);
}

static void cmd_mute(struct cmd *x)
{
	sanction(x, STORE_MOD_MUTE);
}

static void cmd_unmute(struct cmd *x)
{
	lift(x, STORE_MOD_MUTE);
}

static void cmd_kick(struct cmd *x)
{
	const struct proto_req *rq = x->rq;
	const char *target = rq->argv[0];
	if (!target_arg(x, target))
		return;
	struct store_mod r =
	        mod_row(x, STORE_MOD_AUDIT, "kick", target, rq->argc == 2 ? rq->argv[1] : "");
	char *why = xasprintf("kicked by %s%s%s", r.actor, r.reason[0] ? ": " : "", r.reason);
	int n = close_target(x, target, why ? why : "kicked");
	free(why);
	if (n == 0) {
		reply_err(x->cl, rq, ERR_NO_SUCH_USER, "%s is not connected", target);
		return;
	}
	if (!mod_apply(x, &r, ""))
		return;
	log_info("kick user=%s target=%s connections=%d", r.actor, LOG_Q(target), n);
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "target", target);
	cJSON_AddNumberToObject(f, "closed", n);
	reply_ok(x->cl, rq, f, NULL, "kicked %s (%d connection%s)", target, n, n == 1 ? "" : "s");
}

static void admin_abort(struct cmd *x)
{
	char id[24];
	snprintf(id, sizeof id, "%" PRIu64, x->id);
	struct store_mod r = mod_row(x, STORE_MOD_AUDIT, "abort", id, "");
	if (!mod_apply(x, &r, ""))
		return;
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "game", (double)x->id);
	reply_ok(x->cl, x->rq, f, NULL, "game %" PRIu64 " aborted", x->id);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "info");
	cJSON_AddStringToObject(j, "event", "aborted");
	cJSON_AddNumberToObject(j, "game", (double)x->id);
	cJSON_AddStringToObject(j, "by", r.actor);
	session_watch_broadcast(
	        x->g, j,
	        xasprintf("info game %" PRIu64 ": an admin (%s) aborted the game", x->id, r.actor),
	        NULL);
	log_info("abort user=%s game=%" PRIu64, r.actor, x->id);
	session_end(x->g, -1, "*", "aborted"); /* stored as aborted: no rating changes */
}

static void cmd_announce(struct cmd *x)
{
	const char *text = x->rq->argv[0];
	struct store_mod r = mod_row(x, STORE_MOD_AUDIT, "announce", "*", text);
	if (!mod_apply(x, &r, ""))
		return;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "announce");
	cJSON_AddStringToObject(j, "from", r.actor);
	cJSON_AddStringToObject(j, "text", text);
	struct msg m;
	msg_init(&m, j, xasprintf("announcement from %s: %s", r.actor, text));
	int n = 0;
	for (struct conn *k = x->cl->conn->hub->conns; k != NULL; k = k->next) {
		struct client *u = client_of(k);
		if (u != NULL && !u->remote) {
			msg_send(&m, u);
			n++;
		}
	}
	msg_done(&m);
	log_info("announce user=%s connections=%d", r.actor, n);
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "connections", n);
	reply_ok(x->cl, x->rq, f, NULL, "announced to %d connection%s", n, n == 1 ? "" : "s");
}

static void cmd_motd(struct cmd *x)
{
	struct moderation *m = x->cx->mod;
	if (x->rq->argc == 1) {
		const char *text = strcmp(x->rq->argv[0], "-") == 0 ? "" : x->rq->argv[0];
		struct store_mod r = mod_row(x, STORE_MOD_AUDIT, "motd", "*", text);
		if (!mod_apply(x, &r, ""))
			return;
		lobby_set_motd(x->cx->lobby, text);
		log_info("motd set user=%s text=%s", r.actor, LOG_Q(text));
	}
	const char *now = lobby_motd(x->cx->lobby);
	(void)m;
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "motd", now);
	reply_ok(x->cl, x->rq, f, NULL, "motd: %s", now[0] ? now : "(none)");
}

/* who for an admin: every connection with its address, logged in or not. */
static void who_addresses(struct cmd *x)
{
	cJSON *f = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(f, "users");
	char *extra = NULL;
	int n = 0;
	for (struct conn *k = x->cl->conn->hub->conns; k != NULL; k = k->next) {
		struct client *u = client_of(k);
		if (u == NULL || u->remote)
			continue;
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "name", u->logged_in ? u->name : "");
		cJSON_AddBoolToObject(j, "guest", u->logged_in && !u->registered);
		cJSON_AddStringToObject(j, "address", k->peer);
		cJSON_AddNumberToObject(j, "conn", (double)k->id);
		cJSON_AddItemToArray(arr, j);
		xappend(&extra, "%s  %-20s %-8s conn %llu  %s", extra ? "\n" : "",
		        u->logged_in ? u->name : "-",
		        !u->logged_in   ? ""
		        : u->registered ? "account"
		                        : "guest",
		        (unsigned long long)k->id, k->peer);
		n++;
	}
	reply_ok(x->cl, x->rq, f, extra, "%d connection%s", n, n == 1 ? "" : "s");
}

/* block|unblock <user>: an account's own list (stored), not audited. */
static void blocking(struct cmd *x, bool on)
{
	const char *target = x->rq->argv[0];
	if (!name_arg(x, target))
		return;
	if (!x->cl->registered || x->cx->mod == NULL) {
		reply_err(x->cl, x->rq, ERR_NOT_LOGGED_IN,
		          "blocks are kept for accounts: log in to yours (register one first)");
		return;
	}
	if (strcasecmp(target, x->cl->name) == 0) {
		reply_err(x->cl, x->rq, ERR_BAD_ARGS, "you cannot block yourself");
		return;
	}
	struct store_mod r = mod_row(x, STORE_MOD_BLOCK, "", target, "");
	r.remove = !on;
	char *missing = xasprintf("you do not block %s", target);
	bool ok = mod_apply(x, &r, missing ? missing : "not blocked");
	free(missing);
	if (!ok)
		return;
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "user", target);
	cJSON_AddBoolToObject(f, "blocked", on);
	reply_ok(x->cl, x->rq, f, NULL,
	         on ? "blocked %s: no tells, chat or challenges from them reach you"
	            : "unblocked %s",
	         target);
}

static void cmd_block(struct cmd *x)
{
	blocking(x, true);
}

static void cmd_unblock(struct cmd *x)
{
	blocking(x, false);
}

/* ---- handlers: the connection ------------------------------------------------------- */

/* on or off (*on); false (answered with usage) for anything else. */
static bool on_off(struct cmd *x, const char *v, bool *on, const char *usage)
{
	*on = strcasecmp(v, "on") == 0;
	if (*on || strcasecmp(v, "off") == 0)
		return true;
	reply_err(x->cl, x->rq, ERR_BAD_ARGS, "usage: %s", usage);
	return false;
}

/* set bot on|off, set bots on|off, set accept <filter>|-: the user's choices about opponents
   (identity.h), an account's kept with it (accounts_set_prefs). */
static void set_prefs(struct cmd *x, const char *what, const char *v)
{
	struct client *c = x->cl;
	if (!c->logged_in) {
		reply_err(c, x->rq, ERR_NOT_LOGGED_IN, "log in first");
		return;
	}
	struct store_prefs want = c->prefs;
	bool on;
	if (strcasecmp(what, "bot") == 0) {
		if (!on_off(x, v, &on, "set bot on|off"))
			return;
		want.bot = on;
		accounts_set_prefs(x->cx->acct, c, x->rq, &want, "bot");
	} else if (strcasecmp(what, "bots") == 0) {
		if (!on_off(x, v, &on, "set bots on|off"))
			return;
		want.bots_off = !on;
		accounts_set_prefs(x->cx->acct, c, x->rq, &want, "bots");
	} else {
		size_t n = strlen(v);
		if (n >= 2 && v[0] == '"' && v[n - 1] == '"') { /* set accept "tak size=5" */
			v++;
			n -= 2;
		}
		if (n == 1 && v[0] == '-')
			n = 0;
		char err[ACCEPT_WHY_MAX];
		if (n >= sizeof want.accept) {
			reply_err(c, x->rq, ERR_BAD_FILTER, "a filter is at most %zu bytes",
			          sizeof want.accept - 1);
			return;
		}
		snprintf(want.accept, sizeof want.accept, "%.*s", (int)n, v);
		if (accept_check(want.accept, err, sizeof err) < 0) {
			reply_err(c, x->rq, ERR_BAD_FILTER,
			          "%s; PROTOCOL.md section 17 has the words", err);
			return;
		}
		accounts_set_prefs(x->cx->acct, c, x->rq, &want, "accept");
	}
}

static void cmd_set(struct cmd *x)
{
	struct client *c = x->cl;
	const struct proto_req *rq = x->rq;
	if (strcasecmp(rq->argv[0], "bot") == 0 || strcasecmp(rq->argv[0], "bots") == 0 ||
	    strcasecmp(rq->argv[0], "accept") == 0) {
		set_prefs(x, rq->argv[0], rq->argv[1]);
		return;
	}
	if (strcasecmp(rq->argv[0], "ping") == 0) {
		rtt_set(c, rq, rq->argv[1]);
		return;
	}
	if (strcasecmp(rq->argv[0], "watchers") == 0) {
		bool on = strcasecmp(rq->argv[1], "on") == 0;
		if (!on && strcasecmp(rq->argv[1], "off") != 0) {
			reply_err(c, rq, ERR_BAD_ARGS, "usage: set watchers on|off");
			return;
		}
		session_watch_want_counts(c, on);
		cJSON *f = cJSON_CreateObject();
		cJSON_AddBoolToObject(f, "watchers", on);
		reply_ok(c, rq, f, NULL, "spectator counts %s", on ? "on" : "off");
		return;
	}
	if (strcasecmp(rq->argv[0], "seeks") == 0) {
		lobby_set_seeks(c, rq, rq->argv[1]);
		return;
	}
	if (strcasecmp(rq->argv[0], "tourneys") == 0) {
		tourney_set_events(c, rq, rq->argv[1]);
		return;
	}
	if (strcasecmp(rq->argv[0], "format") != 0 ||
	    (strcasecmp(rq->argv[1], "json") != 0 && strcasecmp(rq->argv[1], "text") != 0)) {
		reply_err(c, rq, ERR_BAD_FORMAT, "usage: set format text|json");
		return;
	}
	bool json = strcasecmp(rq->argv[1], "json") == 0;
	msg_set_json(c, json);
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "format", json ? "json" : "text");
	reply_ok(c, rq, f, NULL, "format %s", json ? "json" : "text");
}

static void cmd_ping(struct cmd *x)
{
	const struct proto_req *rq = x->rq;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "pong");
	char *text;
	if (rq->tagged) {
		cJSON_AddStringToObject(j, "id", rq->tag);
		text = xasprintf("#%s pong", rq->tag);
	} else {
		text = xasprintf("pong");
	}
	send_msg(x->cl, j, text);
}

static void cmd_pong(struct cmd *x)
{
	rtt_pong(x->cl, x->rq, x->rq->argv[0]);
}

#define HELP_WIDTH 80 /* the columns of `help` in text (a terminal's) */

static void cmd_help(struct cmd *x)
{
	struct client *c = x->cl;
	const struct proto_req *rq = x->rq;
	const struct proto_cmd *only = NULL;
	if (rq->argc == 1) {
		only = proto_find(&commands_table, rq->argv[0]);
		if (only == NULL) {
			reply_err(c, rq, ERR_UNKNOWN_COMMAND, "no command '%.*s'",
			          (int)text_cut(rq->argv[0], 24), rq->argv[0]);
			return;
		}
	}
	cJSON *f = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(f, "verbs");
	char *extra = NULL;
	for (size_t i = 0; i < commands_table.n; i++) {
		const struct proto_cmd *pc = &commands_table.cmds[i];
		if (only != NULL && pc != only)
			continue;
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "name", pc->name);
		cJSON_AddStringToObject(j, "usage", pc->usage);
		cJSON_AddStringToObject(j, "help", pc->help);
		cJSON_AddNumberToObject(j, "cost", pc->cost); /* of the command budget (§13) */
		cJSON_AddItemToArray(arr, j);
		/* "  usage   help" in 80 columns: the help from column 31, wrapped there, or
		   from the next line when the usage is longer than its column */
		if (strlen(pc->usage) > 28)
			xappend(&extra, "%s  %s\n%31s", extra ? "\n" : "", pc->usage, "");
		else
			xappend(&extra, "%s  %-28s ", extra ? "\n" : "", pc->usage);
		xappend_wrapped(&extra, pc->help, 31, HELP_WIDTH);
	}
	reply_ok(c, rq, f, extra, "%s",
	         only ? only->usage : "commands (a leading #tag is echoed):");
}

static void cmd_quit(struct cmd *x)
{
	reply_ok(x->cl, x->rq, NULL, NULL, "bye");
	client_close(x->cl, true); /* x->cl is freed: nothing after this */
}

/* ---- the table ------------------------------------------------------------------------ */

#define LOGIN  CMD_LOGIN
#define REST   CMD_REST
#define STORE  CMD_STORE
#define GAME   CMD_GAME
#define PLAYER (CMD_LOGIN | CMD_GAME | CMD_SEAT) /* the caller's own game */
#define PACED  CMD_PACED
#define ADMIN  (CMD_LOGIN | CMD_ADMIN)

static const struct proto_cmd table[] = {
        {"login", 1, 2, REST, 2, cmd_login, "login <name> [password | token]",
         "with a password: log in to your account; without: take a guest name (2-20 of "
         "A-Z a-z 0-9 _ -) and get its token; gives back your seats if you had left (a "
         "guest's with its token)"},
        {"register", 1, 2, REST | STORE, 10, cmd_register, "register <name> [password] [bot]",
         "create an account (2-20 of A-Z a-z 0-9 _, password 6-128 bytes) and log in; "
         "without the password (text), it is asked for, unseen in telnet; bot: a bot's "
         "account"},
        {"games", 0, 0, 0, 1, cmd_games, "games", "game kinds with their seats and options"},
        {"seek", 1, PROTO_MAX_ARGS, LOGIN, 3, cmd_seek, "seek <kind> [opt=value ...]",
         "offer a game: time=MIN+INC color=white|black|random turn_ms=N rated=0|1 and the "
         "game's options"},
        {"seeks", 0, 0, CMD_SHARED_SEEKS, 3, cmd_seeks, "seeks", "open seeks"},
        {"unseek", 1, 1, LOGIN | CMD_SEEK, 1, cmd_unseek, "unseek <seek-id>", "withdraw your seek"},
        {"accept", 1, 1, LOGIN | CMD_SEEK | CMD_TAKES_SEEK, 2, cmd_accept, "accept <seek-id>",
         "accept a seek or a challenge to you: the game starts"},
        {"match", 2, PROTO_MAX_ARGS, LOGIN | CMD_TO_USER, 3, cmd_match,
         "match <user> <kind> [opt=value ...]",
         "challenge one user (the options of seek): only they see it, and accept or decline; "
         "match computer <kind> [opt=value ...] level=1-8: a game at once against the "
         "server's bot"},
        {"decline", 1, 1, LOGIN | CMD_SEEK, 1, cmd_decline, "decline <seek-id>",
         "turn down a challenge made to you"},
        {"list", 0, 0, CMD_SHARED_GAMES, 3, cmd_list, "list", "games in progress"},
        {"move", 2, 2, PLAYER | CMD_LIVE | REST | PACED, 1, cmd_move, "move <game> <move>",
         "play a move (the rest of the line); in your only game the move alone does: e5"},
        {"resign", 1, 1, PLAYER | CMD_LIVE, 1, cmd_resign, "resign <game>", "resign a game"},
        {"draw", 1, 2, PLAYER | CMD_LIVE, 1, cmd_draw,
         "draw <game> [offer|accept|decline|withdraw]",
         "offer a draw or answer one; two offers make a draw by agreement"},
        {"undo", 1, 2, PLAYER | CMD_LIVE, 1, cmd_undo, "undo <game> [decline|withdraw]",
         "ask to take back your last move; the opponent's undo accepts"},
        {"abort", 1, 1, PLAYER | CMD_LIVE | CMD_ADMIN_MAY, 1, cmd_abort, "abort <game>",
         "end a game with no result before both sides have moved (an admin: any game, any "
         "time)"},
        {"rematch", 1, 2, PLAYER | CMD_OVER, 2, cmd_rematch, "rematch <game> [decline|withdraw]",
         "after a game: offer it again with seats swapped; the opponent's rematch accepts"},
        {"watch", 1, 1, GAME | CMD_SPECTATE, 2, cmd_watch, "watch <game>",
         "follow a game's moves, chat and end"},
        {"unwatch", 1, 1, GAME | CMD_UNSPECTATE, 1, cmd_unwatch, "unwatch <game>",
         "stop watching a game"},
        {"refresh", 1, 1, GAME | CMD_MEMBER, 2, cmd_refresh, "refresh <game>",
         "your game, or one you watch, drawn again as it stands (clocks now)"},
        {"who", 0, 0, CMD_SHARED_USERS | CMD_ADMIN_MAY, 5, cmd_who, "who",
         "connected users and their games (an admin: every connection and its address)"},
        {"ratings", 1, 2, STORE, 5, cmd_ratings, "ratings <kind> [bots]",
         "the best rated players of a game kind (bots: bots' accounts apart)"},
        {"finger", 1, 1, STORE, 5, cmd_finger, "finger <name>",
         "a player: account or guest, online, ratings, recent games"},
        {"history", 0, 1, STORE, 5, cmd_history, "history [name]",
         "recent finished games (yours when logged in and no name)"},
        {"record", 1, 1, STORE | CMD_GAME_ID, 5, cmd_record, "record <game-id>",
         "a game's record: tags and moves (PTN for Tak)"},
        {"replay", 1, 2, STORE | CMD_GAME_ID, 10, cmd_replay, "replay <game-id> [delay_ms]",
         "the game's positions one by one, every delay_ms (default 1000, 0..60000)"},
        /* tournaments (events/): one block */
        {"tourney", 1, PROTO_MAX_ARGS, STORE, 3, cmd_tourney,
         "tourney create|list|show|join|withdraw|start|cancel|games|record|trf ...",
         "tournaments: create <kind> [game opts] format=roundrobin|double|gauntlet|swiss "
         "[rounds=N] [max=N] [rated=0|1] [name=...]; list; show, join, withdraw, games, "
         "record (every game in one archive), trf (a Swiss's FIDE TRF-16) <id>; start and "
         "cancel <id> (its director)"},
        /* rating pools (events/): quick pairing */
        {"pool", 1, 2, LOGIN, 2, cmd_pool, "pool join <pool> | pool leave",
         "wait in a pool (pools lists them) until the server pairs you by rating: the game "
         "starts by itself; leave stops waiting"},
        {"pools", 0, 0, 0, 2, cmd_pools, "pools",
         "the pools: game, time control, how many wait and how many play"},
        {"ladder", 1, PROTO_MAX_ARGS, STORE, 3, cmd_ladder,
         "ladder join <kind> [game opts] [concurrency=N] / leave / show [kind|id]",
         "the continuous ladder: join one (games start by themselves, rated, colours "
         "alternating; a bot account up to 16 at once), leave (games on are played out), "
         "show members, results, ratings and games on"},
        {"say", 2, 2, LOGIN | GAME | CMD_MEMBER | REST | CMD_VOUCHED | CMD_VOICE, 1, cmd_say,
         "say <game> <text>", "talk to a game's players and spectators"},
        {"tell", 2, 2, LOGIN | REST | CMD_VOICE | CMD_TO_USER, 1, cmd_tell, "tell <user> <text>",
         "a private message to a user who is online"},
        {"block", 1, 1, LOGIN, 2, cmd_block, "block <user>",
         "no tells, chat or challenges from that user reach you (kept with your account)"},
        {"unblock", 1, 1, LOGIN, 2, cmd_unblock, "unblock <user>", "lift your block of a user"},
        {"ban", 2, 3, ADMIN | REST, 1, cmd_ban, "ban <user|addr:ADDRESS> [duration] <reason>",
         "admins: refuse logins of a user or an address, for a duration (30m, 12h, 7d, 2w) or "
         "for good; their connections close"},
        {"unban", 1, 2, ADMIN | REST, 1, cmd_unban, "unban <user|addr:ADDRESS> [note]",
         "admins: lift a ban"},
        {"mute", 2, 3, ADMIN | REST, 1, cmd_mute, "mute <user> [duration] <reason>",
         "admins: refuse a user's say and tell, for a duration or for good"},
        {"unmute", 1, 2, ADMIN | REST, 1, cmd_unmute, "unmute <user> [note]",
         "admins: lift a mute"},
        {"kick", 1, 2, ADMIN | REST, 1, cmd_kick, "kick <user|addr:ADDRESS> [reason]",
         "admins: close a user's (or an address's) connections"},
        {"announce", 1, 1, ADMIN | REST, 1, cmd_announce, "announce <text>",
         "admins: a message to every connection"},
        {"motd", 0, 1, ADMIN | REST, 1, cmd_motd, "motd [text | -]",
         "admins: the message of the day shown at login: show it, set it, or clear it (-)"},
        {"set", 2, 2, REST, 1, cmd_set,
         "set format|ping|watchers|seeks|tourneys|bot|bots|accept <value>",
         "format text|json, accept <filter>|-, the others on|off: "
         "choose how the server writes to you; ask for the server's pings (round-trip time) "
         "or for your games' spectator counts as they change; hear of seeks as they come and "
         "go (on by default); hear tournaments' events (off by default); mark your account a "
         "bot's (before its first game); refuse bots (bots off); the games you take (accept "
         "filter, - for all)"},
        {"ping", 0, 0, 0, 1, cmd_ping, "ping", "the server answers pong"},
        {"pong", 1, 1, 0, 1, cmd_pong, "pong <token>",
         "answer the server's 'ping <token>' (after set ping on): measures your round-trip time"},
        {"help", 0, 1, 0, 1, cmd_help, "help [verb]", "this list, or one command's usage"},
        {"logout", 0, 0, LOGIN, 1, cmd_logout, "logout",
         "stop being who you are; your seats wait through the grace period, you stay connected"},
        {"quit", 0, 0, 0, 1, cmd_quit, "quit",
         "leave (your seats wait for you through the grace period)"},
};

const struct proto_table commands_table = {table, sizeof table / sizeof table[0]};

const struct proto_cmd *commands_flagged(unsigned flag)
{
	for (size_t i = 0; i < commands_table.n; i++)
		if (commands_table.cmds[i].flags & flag)
			return &commands_table.cmds[i];
	return NULL;
}

/* ---- the dispatcher ------------------------------------------------------------------ */

enum cmd_resolved commands_resolve_game(struct cmd *x, bool lookup)
{
	if (!proto_parse_id(x->rq->argv[0], &x->id)) {
		reply_err(x->cl, x->rq, ERR_BAD_ARGS, "game ids are positive whole numbers");
		return CMD_ANSWERED;
	}
	if (!lookup)
		return CMD_RESOLVED;
	x->g = session_find(x->cx->sess, x->id);
	/* in a cluster, a game of another node is forwarded, not refused */
	const struct router *rt = x->cx->router;
	if (x->g == NULL && rt != NULL && rt->game(rt->ud, x))
		return CMD_FORWARDED;
	if (x->g == NULL) {
		reply_no_game(x->cl, x->rq, x->id);
		return CMD_ANSWERED;
	}
	x->seat = session_seat_of(x->g, x->cl);
	return CMD_RESOLVED;
}

/* The row's flags, in the order commands.h gives; false when answered. */
static bool resolve(struct cmd *x)
{
	struct client *c = x->cl;
	const struct proto_req *rq = x->rq;
	unsigned fl = rq->cmd->flags;
	if ((fl & CMD_LOGIN) && !c->logged_in) {
		reply_err(c, rq, ERR_NOT_LOGGED_IN, "log in first: login <name>");
		return false;
	}
	if ((fl & CMD_STORE) && x->cx->arch == NULL) {
		refuse_no_storage(c, rq);
		return false;
	}
	if (fl & (CMD_ADMIN | CMD_ADMIN_MAY))
		x->admin = c->logged_in && c->registered && x->cx->mod != NULL &&
		           moderation_is_admin(x->cx->mod, c->name);
	if ((fl & CMD_ADMIN) && !x->admin) {
		reply_err(c, rq, ERR_NOT_ADMIN, "%s is not an admin of this server", c->name);
		return false;
	}
	if ((fl & CMD_VOICE) && x->cx->mod != NULL) {
		const struct store_mod *m =
		        moderation_find(x->cx->mod, STORE_MOD_MUTE, NULL, c->name, store_now_ms());
		if (m != NULL) {
			char u[48];
			reply_err_fields(c, rq, ERR_MUTED, sanction_fields(m),
			                 "you are muted %s: %s", until_text(m->until, u, sizeof u),
			                 m->reason);
			return false;
		}
	}
	if ((fl & (CMD_GAME | CMD_GAME_ID)) &&
	    commands_resolve_game(x, (fl & CMD_GAME) != 0) != CMD_RESOLVED)
		return false;
	if ((fl & CMD_SEAT) && x->seat < 0 && !((fl & CMD_ADMIN_MAY) && x->admin)) {
		reply_err(c, rq, ERR_NOT_YOUR_GAME, "you do not play in game %" PRIu64, x->id);
		return false;
	}
	if ((fl & CMD_MEMBER) && x->seat < 0 && !session_watch_has(x->g, c)) {
		reply_err(c, rq, ERR_NOT_YOUR_GAME, "watch game %" PRIu64 " to talk there", x->id);
		return false;
	}
	if ((fl & CMD_LIVE) && session_over(x->g)) {
		reply_err(c, rq, ERR_GAME_OVER, "game %" PRIu64 " is over", x->id);
		return false;
	}
	if ((fl & CMD_OVER) && !session_over(x->g)) {
		reply_err(c, rq, ERR_NOT_NOW, "game %" PRIu64 " is still being played", x->id);
		return false;
	}
	if (fl & CMD_SEEK) {
		uint64_t id;
		if (!proto_parse_id(rq->argv[0], &id)) {
			reply_err(c, rq, ERR_BAD_ARGS, "seek ids are positive whole numbers");
			return false;
		}
		x->seek = lobby_seek_find(x->cx->lobby, id);
		if (x->seek != NULL && x->seek->to != NULL && x->seek->to != c && x->seek->by != c)
			x->seek = NULL; /* someone else's challenge is not there for c */
		const struct router *rt = x->cx->router;
		if (x->seek == NULL && rt != NULL && rt->seek(rt->ud, x, id))
			return false; /* forwarded to the seek's node */
		if (x->seek == NULL) {
			reply_no_seek(c, rq, id);
			return false;
		}
	}
	const struct router *rt = x->cx->router;
	if ((fl & CMD_SHARED) && rt != NULL && rt->shared(rt->ud, x))
		return false; /* answered for the whole cluster */
	if ((fl & CMD_TO_USER) && rt != NULL && rt->user != NULL && proto_name_valid(rq->argv[0]) &&
	    !to_computer(x) && lobby_find_user(x->cx->lobby, rq->argv[0]) == NULL &&
	    rt->user(rt->ud, x))
		return false; /* passed on to the node the user is connected to */
	return true;
}

/* Takes cost from cl's budget for rq (may be NULL): true to go on; false when refused. */
static bool charge(struct commands *cx, struct client *cl, const struct proto_req *rq,
                   unsigned cost)
{
	uint64_t now = uv_now(cl->conn->hub->loop), wait = 0;
	enum budget_result r = budget_take(&cl->budget, &cx->budget, now, cost, &wait);
	/* one who spends fast waits behind the others (conn.h): a flood costs them a slice */
	conn_set_heavy(cl->conn, budget_heavy(&cl->budget, &cx->budget));
	conn_set_spending(cl->conn, budget_spending(&cl->budget, &cx->budget));
	switch (r) {
	case BUDGET_OK:
		return true;
	case BUDGET_LIMITED: {
		cJSON *f = cJSON_CreateObject();
		cJSON_AddNumberToObject(f, "retry_after_ms", (double)wait);
		cJSON_AddNumberToObject(f, "cost", cost); /* so a client can pace itself */
		cJSON_AddNumberToObject(f, "rate", cx->budget.rate);
		reply_err_fields(cl, rq, ERR_RATE_LIMITED, f,
		                 "too many commands (%u a second, bursts of %u); this one was not "
		                 "run: retry after %" PRIu64 " ms",
		                 cx->budget.rate, cx->budget.burst, wait);
		conn_defer(cl->conn, now + wait); /* nothing more is read from it until then */
		metric_inc(&cx->rate_limited);
		return false;
	}
	case BUDGET_FLOOD:
		reply_err(cl, rq, ERR_FLOODING,
		          "%u commands in a row came faster than allowed, each after a "
		          "RATE_LIMITED; disconnected",
		          cx->budget.strikes);
		log_info("connection dropped conn=%llu why=flooding",
		         (unsigned long long)cl->conn->id);
		metric_inc(&cx->flooding);
		client_close(cl, true); /* cl is freed */
		return false;
	}
	return false;
}

void commands_register_metrics(struct commands *cx, struct metrics *r)
{
	metric_init_labelled(&cx->rate_limited, METRIC_COUNTER, "bitarena_rate_limited_total",
	                     "requests refused for a spent budget: commands answered RATE_LIMITED, "
	                     "connections dropped for FLOODING, HTTP API requests answered 429",
	                     "what", "command");
	metric_init_labelled(&cx->flooding, METRIC_COUNTER, "bitarena_rate_limited_total", NULL,
	                     "what", "flooding");
	metrics_register(r, &cx->rate_limited);
	metrics_register(r, &cx->flooding);
}

bool commands_charge(struct commands *cx, struct client *cl, unsigned cost)
{
	return charge(cx, cl, NULL, cost);
}

/* A move of x that was played: the game moved, or the seat's action is in. */
static bool move_played(const struct cmd *x, size_t nmoves, bool acted)
{
	size_t now;
	session_moves(x->g, &now);
	return now != nmoves || (!acted && x->seat >= 0 && session_acted(x->g, x->seat));
}

/* ---- bare moves --------------------------------------------------------------------- */

#define BARE_MAX 256 /* a bare move's line at most (an Xmas Rush MOVE of 20 steps fits) */

/* The one game in progress where cl has a seat; NULL with *n the count when not one. */
static struct game *only_game(const struct client *cl, unsigned *n)
{
	struct game *one = NULL;
	*n = 0;
	for (unsigned i = 0; i < cl->ngames; i++) {
		struct game *g = cl->games[i];
		if (!session_over(g) && session_seat_of(g, cl) >= 0) {
			one = g;
			++*n;
		}
	}
	return *n == 1 ? one : NULL;
}

/*
 * A line that is no command, or `move` without a game ("e4", "3c3>12", "PUSH 3 RIGHT",
 * "move b2"), by one who plays exactly one game: rewritten into out as "move <game> ..."
 * (FICS' bare moves). orig is the line as it came (before proto_parse cut it). Returns
 * true when rewritten; false leaves the error to the caller, *games saying how many games
 * the user plays (more than one: the error names the form to use).
 */
static bool bare_move(const struct client *cl, const struct proto_req *rq, int parsed,
                      const char *orig, char *out, size_t len, unsigned *games)
{
	*games = 0;
	/* "MOVE UP LEFT" parses as `move` with two words: an Xmas Rush action when the one
	   game is one (elsewhere "move x a1" stays a bad game id) */
	bool move_words = parsed == PROTO_OK && strcmp(rq->cmd->name, "move") == 0 &&
	                  !proto_parse_id(rq->argv[0], &(uint64_t){0});
	bool unknown = parsed == PROTO_EUNKNOWN || (parsed == PROTO_EARGS &&
	                                            strcmp(rq->verb, "move") == 0);
	if (!cl->logged_in || orig == NULL || !(unknown || move_words))
		return false;
	struct game *g = only_game(cl, games);
	if (g == NULL || (move_words && !session_simultaneous(g)))
		return false;
	const char *p = orig + strspn(orig, " \t");
	if (rq->tagged) /* "#t e4": the tag stays in front */
		p += strcspn(p, " \t"), p += strspn(p, " \t");
	/* "move b2": the verb given without the game (an Xmas Rush MOVE is the action's own) */
	if (!session_simultaneous(g) && strncasecmp(p, "move", 4) == 0 &&
	    (p[4] == ' ' || p[4] == '\t'))
		p += 4 + strspn(p + 4, " \t");
	int n = snprintf(out, len, "%s%s%smove %" PRIu64 " %s", rq->tagged ? "#" : "",
	                 rq->tagged ? rq->tag : "", rq->tagged ? " " : "", session_id(g), p);
	return n > 0 && (size_t)n < len;
}

/*
 * The line that answers a password prompt (client.h: pw_verb): the password of `<verb>
 * <name>`, run as that command with the line, blanks around it dropped as the parser drops
 * them, as its last argument (an erase typed into telnet without its echo, DEL or BS,
 * takes back the character before it). Never parsed, never shown, never logged: the line
 * (the connection's, lent for this call) is wiped before it returns.
 */
static void password_line(struct commands *cx, struct client *cl, char *line, size_t len,
                          bool charged)
{
	char name[PROTO_NAME_MAX + 1];
	snprintf(name, sizeof name, "%s", cl->pw_name);
	struct proto_req rq = {.argc = 2, .argv = {name, NULL}};
	rq.cmd = proto_find(&commands_table, cl->pw_verb);
	snprintf(rq.verb, sizeof rq.verb, "%s", cl->pw_verb);
	msg_password_read(cl); /* the echo is back before any answer */
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		if (line[i] != '\x7f' && line[i] != '\b')
			line[n++] = line[i];
		else
			while (n > 0 && ((unsigned char)line[--n] & 0xC0) == 0x80)
				; /* the continuation bytes of a UTF-8 character, then its first */
	}
	line[n] = '\0';
	size_t at = strspn(line, " \t");
	while (n > at && (line[n - 1] == ' ' || line[n - 1] == '\t'))
		line[--n] = '\0';
	rq.argv[1] = line + at;
	if (rq.cmd != NULL && (!charged || charge(cx, cl, &rq, rq.cmd->cost))) {
		struct cmd x = {.cx = cx, .cl = cl, .rq = &rq, .seat = -1};
		if (resolve(&x))
			rq.cmd->handler(&x);
		client_barrier_clear(cx->bar);
	}
	sodium_memzero(line, len);
}

/* One line of cl; charged: its cost is taken from the budget here (else its caller took it). */
static void line_run(struct commands *cx, struct client *cl, char *line, size_t len, bool charged)
{
	if (cl->pw_verb != NULL) {
		password_line(cx, cl, line, len, charged);
		return;
	}
	size_t at = 0;
	while (at < len && (line[at] == ' ' || line[at] == '\t'))
		at++;
	if (at == len)
		return; /* an empty line: no reply, no cost */
	int bad = text_check(line, len, NULL);
	if (bad != TEXT_OK) {
		if (charged && !charge(cx, cl, NULL, 1))
			return;
		reply_err(cl, NULL, ERR_BAD_INPUT, "%s; it was ignored", text_strerror(bad));
		return;
	}
	char orig[BARE_MAX], bare[BARE_MAX + 32];
	bool short_line = len < sizeof orig;
	if (short_line) /* kept whole: proto_parse cuts the line into words */
		memcpy(orig, line, len), orig[len] = '\0';
	struct proto_req rq;
	int parsed = proto_parse(line, &commands_table, &rq);
	if (parsed == PROTO_EMPTY)
		return;
	unsigned games = 0;
	if (bare_move(cl, &rq, parsed, short_line ? orig : NULL, bare, sizeof bare, &games))
		parsed = proto_parse(bare, &commands_table, &rq);
	/* a paced command (a move) runs unless the budget is in debt; it pays if refused */
	bool paced = charged && parsed == PROTO_OK && (rq.cmd->flags & CMD_PACED);
	if (charged && !charge(cx, cl, parsed == PROTO_EBADTAG ? NULL : &rq,
	                       paced                ? 0
	                       : parsed == PROTO_OK ? rq.cmd->cost
	                                            : 1))
		return;
	switch (parsed) {
	case PROTO_EBADTAG:
		rq.tagged = false;
		reply_err(cl, NULL, ERR_BAD_TAG,
		          "a tag is #<1-32 of A-Z a-z 0-9 _ -> followed by a space and a command");
		return;
	case PROTO_EUNKNOWN:
		if (games > 1)
			reply_err(cl, &rq, ERR_UNKNOWN_COMMAND,
			          "no command '%s'; a bare move goes to your only game, and you play "
			          "%u: move <game> <move>",
			          rq.verb, games);
		else
			reply_err(cl, &rq, ERR_UNKNOWN_COMMAND, "no command '%s'; 'help' lists them",
			          rq.verb);
		return;
	case PROTO_EARGS:
		reply_usage(cl, &rq);
		return;
	default:
		break;
	}
	struct cmd x = {.cx = cx, .cl = cl, .rq = &rq, .seat = -1};
	bool ok = resolve(&x);
	/* a player's command on a game whose last write waits for the store: what it sends
	 * follows that write (a resignation's ok after the move it answers), even while the
	 * store fails and output that waits for nothing passes what is held (client.h) */
	if (ok && (rq.cmd->flags & CMD_SEAT) && x.g != NULL)
		session_follow_stored(x.g);
	if (!ok) {
		/* refused here (a move passed on to another node is charged there if refused) */
		if (paced && !x.forwarded)
			budget_charge(&cl->budget, &cx->budget, rq.cmd->cost);
	} else if (!paced) {
		rq.cmd->handler(&x);
	} else {
		/* g is still there after the handler: a game is freed on a later loop pass */
		size_t nmoves;
		session_moves(x.g, &nmoves);
		bool acted = x.seat >= 0 && session_acted(x.g, x.seat);
		rq.cmd->handler(&x);
		if (!move_played(&x, nmoves, acted))
			budget_charge(&cl->budget, &cx->budget, rq.cmd->cost);
	}
	/* what the command journalled held its output (client.h); the next one starts afresh */
	client_barrier_clear(cx->bar);
}

void commands_line(struct commands *cx, struct client *cl, char *line, size_t len)
{
	line_run(cx, cl, line, len, true);
}

void commands_line_paid(struct commands *cx, struct client *cl, char *line, size_t len)
{
	line_run(cx, cl, line, len, false);
}

unsigned commands_cost(const char *verb)
{
	const struct proto_cmd *pc = verb != NULL ? proto_find(&commands_table, verb) : NULL;
	return pc != NULL ? pc->cost : 1;
}
