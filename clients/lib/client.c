/*
 * client.c - the client library of client.h on top of the line client of
 * net.c: the JSON session (welcome, JSON mode, login under a free name),
 * reading one message, the dispatcher on the message type, and the small
 * readers of message fields.
 */
#include "lib/client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Messages one cli_pump() call handles at most, so that one busy connection cannot starve
 * the others of a poll() loop (net_buffered() tells whether more are waiting). */
#define CLI_PUMP_BATCH 64

const char *cli_jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

long long cli_jint(const cJSON *o, const char *key, long long def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? (long long)v->valuedouble : def;
}

bool cli_to_move_has(const cJSON *state, int seat)
{
	const cJSON *s;
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(state, "to_move"))
	{
		if (cJSON_IsNumber(s) && (int)s->valuedouble == seat)
			return true;
	}
	return false;
}

bool cli_params_from_json(const struct game_ops *ops, const cJSON *opts, struct game_params *p)
{
	game_params_default(ops, p);
	const cJSON *o;
	cJSON_ArrayForEach(o, opts)
	{
		char word[128];
		const char *why = NULL;
		if (cJSON_IsNumber(o))
			snprintf(word, sizeof word, "%s=%lld", o->string,
			         (long long)o->valuedouble);
		else if (cJSON_IsString(o))
			snprintf(word, sizeof word, "%s=%s", o->string, o->valuestring);
		else
			continue;
		if (game_param_word(ops, p, word, &why) < 0)
			return false;
	}
	return true;
}

int cli_read_json(struct net_conn *c, const char *prog, int timeout_ms, cJSON **msg)
{
	long long deadline = timeout_ms < 0 ? -1 : net_now_ms() + timeout_ms;
	for (;;) {
		long long left = deadline < 0 ? -1 : deadline - net_now_ms();
		char *line;
		int n = net_read_line(c, deadline < 0 ? -1 : left < 0 ? 0 : (int)left, &line);
		if (n == NET_ETOOLONG) {
			fprintf(stderr, "%s: skipped a server line over %zu bytes\n", prog,
			        c->max_line);
			continue;
		}
		if (n < 0)
			return n;
		if (n == 0)
			continue;
		cJSON *m = cJSON_ParseWithLength(line, (size_t)n);
		if (m != NULL && cJSON_IsObject(m) && cli_jstr(m, "type") != NULL) {
			*msg = m;
			return NET_OK;
		}
		cJSON_Delete(m);
		fprintf(stderr, "%s: ignoring a line that is not a JSON message: %.80s\n", prog,
		        line);
	}
}

int cli_dispatch(const struct cli_route *routes, void *ud, const cJSON *msg)
{
	const char *type = cli_jstr(msg, "type"), *cmd = cli_jstr(msg, "cmd");
	if (type == NULL)
		return 0;
	for (const struct cli_route *r = routes; r->type != NULL; r++)
		if (strcmp(r->type, type) == 0 &&
		    (r->cmd == NULL || (cmd != NULL && strcmp(r->cmd, cmd) == 0)))
			return r->fn(ud, msg);
	return 0;
}

int cli_pump(struct net_conn *c, const char *prog, int timeout_ms, const struct cli_route *routes,
             void *ud)
{
	int wait = timeout_ms;
	for (int i = 0; i < CLI_PUMP_BATCH; i++) {
		cJSON *m = NULL;
		int r = cli_read_json(c, prog, wait, &m);
		if (r == NET_ETIMEOUT)
			return 0;
		if (r < 0)
			return r;
		wait = 0;
		r = cli_dispatch(routes, ud, m);
		cJSON_Delete(m);
		if (r != 0)
			return r;
	}
	return 0;
}

/* ---- the session ------------------------------------------------------------------ */

/* What await_reply() keeps: the direct reply to verb. */
struct reply_wait {
	const char *verb;
	cJSON *reply;
};

/* Keeps the first ok/error for the awaited verb (or naming none); stops the pump. */
static int keep_reply(void *ud, const cJSON *m)
{
	struct reply_wait *w = ud;
	const char *cmd = cli_jstr(m, "cmd");
	if (cmd != NULL && strcmp(cmd, w->verb) != 0)
		return 0;
	w->reply = cJSON_Duplicate(m, true);
	return 1;
}

/* Waits for the direct reply (ok/error) to verb; other messages are dropped. */
static int await_reply(struct net_conn *c, const char *prog, const char *verb, int timeout_ms,
                       cJSON **reply)
{
	static const struct cli_route routes[] = {
	        {"ok", NULL, keep_reply},
	        {"error", NULL, keep_reply},
	        {NULL, NULL, NULL},
	};
	struct reply_wait w = {verb, NULL};
	long long deadline = net_now_ms() + timeout_ms;
	for (;;) {
		long long left = deadline - net_now_ms();
		if (left <= 0)
			return NET_ETIMEOUT;
		int r = cli_pump(c, prog, (int)left, routes, &w);
		if (r < 0)
			return r;
		if (r > 0) {
			if (w.reply == NULL)
				return NET_ENOMEM;
			*reply = w.reply;
			return NET_OK;
		}
	}
}

/* Connects, reads the welcome and switches to JSON. Returns NET_OK, or < 0 with c closed. */
static int session_start(struct net_conn *c, const char *prog, const char *server, int timeout_ms)
{
	char err[256], *line;
	int r = net_connect(c, server, 0, timeout_ms, err, sizeof err);
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return r;
	}
	r = net_read_line(c, timeout_ms, &line);
	if (r < 0 || strncmp(line, "bitarenad ", 10) != 0) {
		fprintf(stderr, "%s: %s did not greet like bitarenad (%s)\n", prog, server,
		        r < 0 ? net_strerror(r) : "unexpected welcome");
		goto fail;
	}
	cJSON *rep = NULL;
	if ((r = net_send_line(c, "set format json")) < 0 ||
	    (r = await_reply(c, prog, "set", timeout_ms, &rep)) < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, server, net_strerror(r));
		goto fail;
	}
	bool ok = strcmp(cli_jstr(rep, "type"), "ok") == 0;
	cJSON_Delete(rep);
	if (ok)
		return NET_OK;
	fprintf(stderr, "%s: the server refused JSON mode\n", prog);
fail:
	net_close(c);
	return r < 0 ? r : NET_EIO;
}

/*
 * Sends "login <words>" and reads the answer into *reply (the caller's to delete): NET_OK when
 * it is an ok (the name given and a guest's token copied out when asked), 1 when refused, or < 0
 * (*reply NULL).
 */
static int login_as(struct net_conn *c, const char *prog, const char *words, int timeout_ms,
                    char *got, size_t gotlen, char *token, size_t toklen, cJSON **reply)
{
	int r = net_sendf(c, "login %s", words);
	*reply = NULL;
	if (r < 0 || (r = await_reply(c, prog, "login", timeout_ms, reply)) < 0)
		return r;
	if (strcmp(cli_jstr(*reply, "type"), "ok") != 0)
		return 1;
	if (got != NULL && cli_jstr(*reply, "name") != NULL)
		snprintf(got, gotlen, "%s", cli_jstr(*reply, "name"));
	if (token != NULL)
		snprintf(token, toklen, "%s", cli_jstr(*reply, "token") ? cli_jstr(*reply, "token") : "");
	return NET_OK;
}

static const char *refusal_text(const cJSON *rep)
{
	return cli_jstr(rep, "message") ? cli_jstr(rep, "message") : "refused";
}

int cli_session_open(struct net_conn *c, const char *prog, const char *server, const char *name,
                     char *got, size_t gotlen, int timeout_ms)
{
	return cli_session_open_token(c, prog, server, name, got, gotlen, NULL, 0, timeout_ms);
}

int cli_session_open_token(struct net_conn *c, const char *prog, const char *server,
                           const char *name, char *got, size_t gotlen, char *token, size_t toklen,
                           int timeout_ms)
{
	char want[PROTO_NAME_MAX + 1], words[PROTO_NAME_MAX + 300];
	cJSON *rep = NULL;
	int r = session_start(c, prog, server, timeout_ms);
	if (r < 0)
		return r;
	if (token != NULL && toklen > 0)
		token[0] = '\0';
	const char *pw = getenv("BITARENA_PASSWORD"); /* not argv: ps shows that */
	if (pw != NULL && pw[0] != '\0') {
		snprintf(words, sizeof words, "%s %s", name, pw);
		snprintf(got, gotlen, "%s", name);
		if ((r = login_as(c, prog, words, timeout_ms, got, gotlen, NULL, 0, &rep)) > 0)
			fprintf(stderr, "%s: login %s with BITARENA_PASSWORD: %s\n", prog, name,
			        refusal_text(rep));
		goto out;
	}
	/* Keep room for a numeric suffix. */
	char base[PROTO_NAME_MAX - 3];
	snprintf(base, sizeof base, "%s", name);
	snprintf(want, sizeof want, "%s", base);
	for (int attempt = 2; attempt < 1000; attempt++) {
		snprintf(got, gotlen, "%s", want);
		if ((r = login_as(c, prog, want, timeout_ms, got, gotlen, token, toklen, &rep)) <= 0)
			goto out;
		const char *code = cli_jstr(rep, "code");
		if (code == NULL || strcmp(code, "NAME_TAKEN") != 0) {
			fprintf(stderr, "%s: login %s: %s\n", prog, want, refusal_text(rep));
			goto out;
		}
		cJSON_Delete(rep);
		rep = NULL;
		snprintf(want, sizeof want, "%s%d", base, attempt);
	}
	fprintf(stderr, "%s: no free name starting with %s\n", prog, base);
	r = 1;
out:
	cJSON_Delete(rep);
	if (r == NET_OK)
		return NET_OK;
	if (r < 0)
		fprintf(stderr, "%s: %s: %s\n", prog, server, net_strerror(r));
	net_close(c);
	return r < 0 ? r : NET_EIO;
}

int cli_session_again(struct net_conn *c, const char *prog, const char *server, const char *name,
                      const char *token, int timeout_ms, cJSON **ok)
{
	char words[PROTO_NAME_MAX + 300];
	const char *pw = getenv("BITARENA_PASSWORD");
	cJSON *rep = NULL;
	int r = session_start(c, prog, server, timeout_ms);
	if (r < 0)
		return r;
	snprintf(words, sizeof words, "%s%s%s", name, pw && pw[0] ? " " : token[0] ? " " : "",
	         pw && pw[0] ? pw : token);
	r = login_as(c, prog, words, timeout_ms, NULL, 0, NULL, 0, &rep);
	if (r == NET_OK) {
		*ok = rep; /* handed to the caller */
		return NET_OK;
	}
	if (r > 0)
		fprintf(stderr, "%s: login %s again: %s\n", prog, name, refusal_text(rep));
	cJSON_Delete(rep);
	net_close(c);
	return r;
}

void cli_tally_game(struct cli_tally *t, const cJSON *m, long long game, int seat, bool quiet)
{
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(m, "result");
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(res, "winner");
	const char *outcome;
	if (cJSON_IsNumber(w) && (int)w->valuedouble == seat) {
		t->wins++;
		outcome = "win";
	} else if (cJSON_IsNumber(w)) {
		t->losses++;
		outcome = "loss";
	} else {
		t->draws++;
		outcome = "draw";
	}
	t->played++;
	if (quiet)
		return;
	const char *score = cli_jstr(res, "score"), *reason = cli_jstr(res, "reason");
	printf("game %lld: %s as seat %d (%s, %s)\n", game, outcome, seat, score ? score : "?",
	       reason ? reason : "?");
	fflush(stdout);
}

void cli_tally_print(const struct cli_tally *t)
{
	printf("games %d wins %d losses %d draws %d\n", t->played, t->wins, t->losses, t->draws);
}

int cli_tourney_join(struct net_conn *c, long long id)
{
	return net_send_line(c, "set tourneys on") < 0 ? -1 : net_sendf(c, "tourney join %lld", id);
}

bool cli_tourney_over(const cJSON *m, long long id)
{
	const char *type = cli_jstr(m, "type"), *ev = cli_jstr(m, "event");
	return type != NULL && strcmp(type, "tourney") == 0 && cli_jint(m, "tourney", 0) == id &&
	       ev != NULL && (strcmp(ev, "finished") == 0 || strcmp(ev, "cancelled") == 0);
}
