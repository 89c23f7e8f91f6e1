/*
 * cmd_bot.c - `bitarena bot`: a bot that connects to bitarenad in JSON mode,
 * seeks or accepts games and plays N of them. On its move it rebuilds the
 * position with the game's engine (the "position"/"tps" text of the state
 * through ops->load, or the moves seen so far) and picks a move with the
 * core's alpha-beta search: full depth on m,n,k boards (perfect on 3,3,3),
 * depth- and node-bounded elsewhere. Any move it cannot compute comes at
 * random from the state's "legal" list. Prints one summary line at the end.
 *
 * Also the session helpers shared with `bitarena load` (see cli.h): connect,
 * switch to JSON, log in under a free name, read one JSON message.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "core/rng.h"
#include "games/game.h"
#include "games/search.h"

/* ---- session helpers (cli.h) ------------------------------------------------ */

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

/* Waits for the direct reply (ok/error) to verb; other messages are dropped. */
static int await_reply(struct net_conn *c, const char *prog, const char *verb, int timeout_ms,
                       cJSON **reply)
{
	long long deadline = net_now_ms() + timeout_ms;
	for (;;) {
		long long left = deadline - net_now_ms();
		cJSON *m = NULL;
		int r = cli_read_json(c, prog, left < 0 ? 0 : (int)left, &m);
		if (r < 0)
			return r;
		const char *type = cli_jstr(m, "type"), *cmd = cli_jstr(m, "cmd");
		if ((strcmp(type, "ok") == 0 || strcmp(type, "error") == 0) &&
		    (cmd == NULL || strcmp(cmd, verb) == 0)) {
			*reply = m;
			return NET_OK;
		}
		cJSON_Delete(m);
	}
}

int cli_session_open(struct net_conn *c, const char *prog, const char *server, const char *name,
                     char *got, size_t gotlen, int timeout_ms)
{
	char err[256], *line, want[PROTO_NAME_MAX_CLI + 1];
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
	    (r = await_reply(c, prog, "set", timeout_ms, &rep)) < 0)
		goto io;
	bool ok = strcmp(cli_jstr(rep, "type"), "ok") == 0;
	cJSON_Delete(rep);
	if (!ok) {
		fprintf(stderr, "%s: the server refused JSON mode\n", prog);
		goto fail;
	}
	/* Names are 2..20 characters; keep room for a numeric suffix. */
	char base[PROTO_NAME_MAX_CLI - 3];
	snprintf(base, sizeof base, "%s", name);
	snprintf(want, sizeof want, "%s", base);
	for (int attempt = 2; attempt < 1000; attempt++) {
		if ((r = net_sendf(c, "login %s", want)) < 0 ||
		    (r = await_reply(c, prog, "login", timeout_ms, &rep)) < 0)
			goto io;
		const char *code = cli_jstr(rep, "code");
		if (strcmp(cli_jstr(rep, "type"), "ok") == 0) {
			snprintf(got, gotlen, "%s",
			         cli_jstr(rep, "name") ? cli_jstr(rep, "name") : want);
			cJSON_Delete(rep);
			return NET_OK;
		}
		if (code == NULL || strcmp(code, "NAME_TAKEN") != 0) {
			fprintf(stderr, "%s: login %s: %s\n", prog, want,
			        cli_jstr(rep, "message") ? cli_jstr(rep, "message") : "refused");
			cJSON_Delete(rep);
			goto fail;
		}
		cJSON_Delete(rep);
		snprintf(want, sizeof want, "%s%d", base, attempt);
	}
	fprintf(stderr, "%s: no free name starting with %s\n", prog, base);
	goto fail;
io:
	fprintf(stderr, "%s: %s: %s\n", prog, server, net_strerror(r));
fail:
	net_close(c);
	return r < 0 ? r : NET_EIO;
}

/* ---- the bot ------------------------------------------------------------------ */

struct bot {
	const char *prog;
	struct net_conn c;
	char name[PROTO_NAME_MAX_CLI + 1];
	const char *seek; /* seek text, or NULL when accepting */
	const char *kind; /* accept only this kind (NULL: any sequential kind we know) */
	int want_games;
	int depth; /* 0: automatic */
	uint64_t nodes;
	int timeout_ms; /* longest wait for any progress */
	bool quiet;
	bool random; /* play random legal moves (a weak opponent for tests) */
	struct rng rng;

	int played, wins, losses, draws;
	bool seek_open, accept_pending, in_game;
	long long game; /* current game id */
	int seat;
	long long seq_moved; /* the state seq we last answered */
	long long last_seq;  /* the last state seq seen */
	bool history_ok;     /* every move of the game was seen in order */
	char **history;      /* move texts in order (owned) */
	size_t nhistory, caphistory;
	cJSON *last_state; /* our current game's latest state (owned) */
	int move_errors;
	long long engine_moves, random_moves; /* how moves were chosen */
	long long last_progress, last_poll;
};

static void history_clear(struct bot *b)
{
	for (size_t i = 0; i < b->nhistory; i++)
		free(b->history[i]);
	b->nhistory = 0;
	b->history_ok = true;
	b->last_seq = 0;
}

static void history_add(struct bot *b, const char *text)
{
	if (b->nhistory == b->caphistory) {
		size_t cap = b->caphistory ? 2 * b->caphistory : 64;
		char **h = realloc(b->history, cap * sizeof *h);
		if (h == NULL) {
			b->history_ok = false;
			return;
		}
		b->history = h;
		b->caphistory = cap;
	}
	if ((b->history[b->nhistory] = strdup(text)) == NULL)
		b->history_ok = false;
	else
		b->nhistory++;
}

/* Game parameters from a state's "options" object; false if the engine rejects one. */
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

/* Rebuilds the position of a state into st: load its position text, else replay the moves. */
static bool rebuild(struct bot *b, const struct game_ops *ops, const cJSON *state, void *st)
{
	struct game_params p;
	if (!cli_params_from_json(ops, cJSON_GetObjectItemCaseSensitive(state, "options"), &p))
		return false;
	const cJSON *pos = cJSON_GetObjectItemCaseSensitive(state, "position");
	const char *text = cli_jstr(pos, "position");
	if (text == NULL)
		text = cli_jstr(pos, "tps");
	if (ops->load != NULL && text != NULL && ops->load(st, &p, text) == GAME_OK)
		return true;
	if (!b->history_ok || ops->init(st, &p, 0) < 0)
		return false;
	for (size_t i = 0; i < b->nhistory; i++) {
		game_move m;
		int seat = game_seat_to_move(ops, st);
		if (seat < 0 || ops->parse_move(st, seat, b->history[i], &m, NULL) < 0 ||
		    ops->apply(st, m) < 0)
			return false;
	}
	return true;
}

static bool in_legal(const cJSON *legal, const char *text)
{
	const cJSON *l;
	cJSON_ArrayForEach(l, legal)
	{
		if (cJSON_IsString(l) && strcasecmp(l->valuestring, text) == 0)
			return true;
	}
	return false;
}

/* Games where every move fills one cell: the game lasts at most as many plies as moves now. */
static bool fills_cells(const struct game_ops *ops)
{
	return strcmp(ops->name, "ttt") == 0 || strcmp(ops->name, "mnk") == 0;
}

/* The engine's choice for the state, written to out; false when it has none. */
static bool engine_move(struct bot *b, const cJSON *state, const cJSON *legal, char *out,
                        size_t len)
{
	const struct game_ops *ops =
	        game_find(cli_jstr(state, "kind") ? cli_jstr(state, "kind") : "");
	if (ops == NULL || ops->apply == NULL || ops->nplayers != 2)
		return false;
	void *st = calloc(1, ops->state_size);
	bool ok = false;
	if (st == NULL || !rebuild(b, ops, state, st) || game_seat_to_move(ops, st) != b->seat)
		goto out;
	struct search_limits lim = {.max_depth = b->depth, .max_nodes = b->nodes};
	int nlegal = cJSON_GetArraySize(legal);
	if (fills_cells(ops)) /* full depth by default, never deeper than the game can last */
		lim.max_depth = b->depth > 0 && b->depth < nlegal ? b->depth : nlegal;
	else if (lim.max_depth <= 0)
		lim.max_depth = 4;
	struct search_result res;
	if (search_best(ops, st, &lim, &b->rng, &res) < 0 ||
	    ops->format_move(st, res.best, out, len) < 0)
		goto out;
	ok = in_legal(legal, out);
	if (!ok)
		fprintf(stderr, "%s: engine move %s is not in the server's legal list\n", b->prog,
		        out);
out:
	free(st);
	return ok;
}

static bool random_move(struct bot *b, const cJSON *legal, char *out, size_t len)
{
	int n = cJSON_GetArraySize(legal);
	if (n <= 0)
		return false;
	const cJSON *m = cJSON_GetArrayItem(legal, (int)rng_below(&b->rng, (uint32_t)n));
	if (!cJSON_IsString(m))
		return false;
	snprintf(out, len, "%s", m->valuestring);
	return true;
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

static int send_cmd(struct bot *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int send_cmd(struct bot *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = net_vsendf(&b->c, fmt, ap);
	va_end(ap);
	if (r < 0)
		fprintf(stderr, "%s: sending to the server: %s\n", b->prog, net_strerror(r));
	return r;
}

static int play_state(struct bot *b, const cJSON *state, bool use_engine)
{
	const cJSON *legal = cJSON_GetObjectItemCaseSensitive(state, "legal");
	char move[GAME_MOVE_TEXT];
	if (!cJSON_IsArray(legal) || cJSON_GetArraySize(legal) == 0)
		return 0;
	if (use_engine && engine_move(b, state, legal, move, sizeof move))
		b->engine_moves++;
	else if (random_move(b, legal, move, sizeof move))
		b->random_moves++;
	else
		return 0;
	b->seq_moved = cli_jint(state, "seq", 0);
	return send_cmd(b, "move %lld %s", b->game, move);
}

static void on_state(struct bot *b, const cJSON *m)
{
	long long seq = cli_jint(m, "seq", 0);
	if (!b->in_game || cli_jint(m, "game", -1) != b->game)
		return;
	const char *last = cli_jstr(m, "last_move");
	if (seq == b->last_seq + 1 && last != NULL)
		history_add(b, last);
	else if (seq != b->last_seq + 1 && seq != b->last_seq)
		b->history_ok = false;
	if (seq > b->last_seq)
		b->last_seq = seq;
	cJSON_Delete(b->last_state);
	b->last_state = cJSON_Duplicate(m, true);
	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "over")) &&
	    cli_to_move_has(m, b->seat) && seq != b->seq_moved)
		play_state(b, m, !b->random);
}

static bool seek_matches(const struct bot *b, const cJSON *seek)
{
	/* An accepting bot posts no seeks, so every seek is someone else's (the server would
	 * answer OWN_SEEK otherwise); names are not compared. */
	const char *kind = cli_jstr(seek, "kind");
	if (kind == NULL)
		return false;
	if (b->kind != NULL)
		return strcasecmp(kind, b->kind) == 0;
	const struct game_ops *ops = game_find(kind);
	return ops != NULL && !(ops->flags & GAME_SIMULTANEOUS);
}

static bool want_more(const struct bot *b)
{
	return b->played < b->want_games;
}

static void try_accept(struct bot *b, const cJSON *seek)
{
	if (b->in_game || b->accept_pending || !want_more(b) || !seek_matches(b, seek))
		return;
	if (send_cmd(b, "accept %lld", cli_jint(seek, "id", 0)) == 0)
		b->accept_pending = true;
}

static void post_seek(struct bot *b)
{
	if (b->seek != NULL && !b->seek_open && !b->in_game && want_more(b) &&
	    send_cmd(b, "seek %s", b->seek) == 0)
		b->seek_open = true;
}

static void on_game_over(struct bot *b, const cJSON *m)
{
	if (!b->in_game || cli_jint(m, "game", -1) != b->game)
		return;
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(m, "result");
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(res, "winner");
	const char *outcome;
	if (cJSON_IsNumber(w) && (int)w->valuedouble == b->seat) {
		b->wins++;
		outcome = "win";
	} else if (cJSON_IsNumber(w)) {
		b->losses++;
		outcome = "loss";
	} else {
		b->draws++;
		outcome = "draw";
	}
	b->played++;
	b->in_game = false;
	if (!b->quiet)
		printf("game %lld: %s as seat %d (%s, %s)\n", b->game, outcome, b->seat,
		       cli_jstr(res, "score") ? cli_jstr(res, "score") : "?",
		       cli_jstr(res, "reason") ? cli_jstr(res, "reason") : "?");
	fflush(stdout);
	cJSON_Delete(b->last_state);
	b->last_state = NULL;
	post_seek(b);
	if (b->seek == NULL && want_more(b) && send_cmd(b, "seeks") == 0)
		b->last_poll = net_now_ms();
}

/* A server error: printed; returns -1 when the bot cannot go on. */
static int on_error(struct bot *b, const cJSON *m)
{
	const char *code = cli_jstr(m, "code"), *cmd = cli_jstr(m, "cmd");
	code = code ? code : "?";
	fprintf(stderr, "%s: server error %s%s%s: %s\n", b->prog, code, cmd ? " on " : "",
	        cmd ? cmd : "", cli_jstr(m, "message") ? cli_jstr(m, "message") : "");
	if (cmd == NULL)
		return 0;
	if (strcmp(cmd, "seek") == 0) {
		b->seek_open = false;
		return -1; /* a seek the server refuses will be refused again */
	}
	if (strcmp(cmd, "accept") == 0) {
		b->accept_pending = false; /* someone was quicker: look again */
		return 0;
	}
	/* a refused move (not a late one, not out of turn: those wait for the next state) is
	 * replaced by a random legal one from the same state */
	if (strcmp(cmd, "move") == 0 && b->in_game && b->last_state != NULL &&
	    strcmp(code, "GAME_OVER") != 0 && strcmp(code, "NOT_YOUR_TURN") != 0) {
		if (++b->move_errors > 3) { /* give the game up rather than loop */
			fprintf(stderr, "%s: resigning game %lld after repeated move errors\n",
			        b->prog, b->game);
			return send_cmd(b, "resign %lld", b->game) < 0 ? -1 : 0;
		}
		return play_state(b, b->last_state, false) < 0 ? -1 : 0;
	}
	return 0;
}

static int on_message(struct bot *b, const cJSON *m)
{
	const char *type = cli_jstr(m, "type"), *cmd = cli_jstr(m, "cmd");
	if (strcmp(type, "state") == 0) {
		b->last_progress = net_now_ms();
		on_state(b, m);
	} else if (strcmp(type, "game_start") == 0) {
		if (b->in_game) /* one game at a time; a resumed extra game is left alone */
			return 0;
		b->last_progress = net_now_ms();
		b->in_game = true;
		b->seek_open = b->accept_pending = false;
		b->game = cli_jint(m, "game", 0);
		b->seat = (int)cli_jint(m, "seat", -1);
		b->seq_moved = -1;
		b->move_errors = 0;
		history_clear(b);
	} else if (strcmp(type, "game_over") == 0) {
		b->last_progress = net_now_ms();
		on_game_over(b, m);
	} else if (strcmp(type, "seek") == 0) {
		const char *ev = cli_jstr(m, "event");
		if (ev != NULL && strcmp(ev, "new") == 0)
			try_accept(b, cJSON_GetObjectItemCaseSensitive(m, "seek"));
	} else if (strcmp(type, "ok") == 0 && cmd != NULL && strcmp(cmd, "seeks") == 0) {
		const cJSON *s;
		cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(m, "seeks"))
		{
			try_accept(b, s);
		}
	} else if (strcmp(type, "error") == 0) {
		return on_error(b, m);
	} else if (strcmp(type, "info") == 0 && !b->quiet) {
		fprintf(stderr, "%s: %s\n", b->prog,
		        cli_jstr(m, "message") ? cli_jstr(m, "message") : "server info");
	}
	return 0;
}

static int bot_loop(struct bot *b)
{
	b->last_progress = b->last_poll = net_now_ms();
	post_seek(b);
	if (b->seek == NULL && send_cmd(b, "seeks") < 0)
		return 1;
	while (want_more(b)) {
		cJSON *m = NULL;
		int r = cli_read_json(&b->c, b->prog, 1000, &m);
		long long now = net_now_ms();
		if (r == NET_OK) {
			int h = on_message(b, m);
			cJSON_Delete(m);
			if (h < 0)
				return 1;
		} else if (r != NET_ETIMEOUT) {
			fprintf(stderr, "%s: lost the server: %s\n", b->prog,
			        r == NET_ECLOSED ? "it closed the connection" : net_strerror(r));
			return 1;
		}
		if (now - b->last_progress > b->timeout_ms) {
			fprintf(stderr, "%s: nothing happened for %d s (%s); giving up\n", b->prog,
			        b->timeout_ms / 1000, b->in_game ? "game stalled" : "no opponent");
			return 1;
		}
		if (b->seek == NULL && !b->in_game && !b->accept_pending &&
		    now - b->last_poll >= 1000) {
			b->last_poll = now;
			if (send_cmd(b, "seeks") < 0)
				return 1;
		}
	}
	return 0;
}

static int parse_long(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int cmd_bot(int argc, char **argv)
{
	struct bot b = {
	        .prog = "bitarena bot", .want_games = 1, .nodes = 1000000, .timeout_ms = 60000};
	const char *server = CLI_DEFAULT_SERVER, *name = "bot";
	bool accept = false;
	long long seed = (long long)time(NULL) ^ ((long long)getpid() << 16), v;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		bool has = val != NULL;
		if (strcmp(a, "--accept") == 0) {
			accept = true;
		} else if (strcmp(a, "--random") == 0) {
			b.random = true;
		} else if (strcmp(a, "--quiet") == 0) {
			b.quiet = true;
		} else if (strcmp(a, "--server") == 0 && has) {
			server = argv[++i];
		} else if (strcmp(a, "--name") == 0 && has) {
			name = argv[++i];
		} else if (strcmp(a, "--seek") == 0 && has) {
			b.seek = argv[++i];
		} else if (strcmp(a, "--kind") == 0 && has) {
			b.kind = argv[++i];
		} else if (strcmp(a, "--games") == 0 && has &&
		           parse_long(val, 1, 1000000, &v) == 0) {
			b.want_games = (int)v;
			i++;
		} else if (strcmp(a, "--depth") == 0 && has && parse_long(val, 1, 64, &v) == 0) {
			b.depth = (int)v;
			i++;
		} else if (strcmp(a, "--nodes") == 0 && has &&
		           parse_long(val, 1, 1LL << 40, &v) == 0) {
			b.nodes = (uint64_t)v;
			i++;
		} else if (strcmp(a, "--seed") == 0 && has &&
		           parse_long(val, 0, 1LL << 62, &v) == 0) {
			seed = v;
			i++;
		} else if (strcmp(a, "--timeout") == 0 && has &&
		           parse_long(val, 1, 86400, &v) == 0) {
			b.timeout_ms = (int)v * 1000;
			i++;
		} else {
			fprintf(stderr, "%s: bad argument '%s'\n", b.prog, a);
			return cli_usage("bot");
		}
	}
	if ((b.seek == NULL) == !accept || (b.seek != NULL && b.kind != NULL)) {
		fprintf(stderr,
		        "%s: give either --seek \"<kind> [opt=value ...]\" or --accept [--kind "
		        "K]\n",
		        b.prog);
		return cli_usage("bot");
	}
	if (b.seek != NULL && strpbrk(b.seek, "\r\n") != NULL)
		return cli_usage("bot");
	char kind[32];
	snprintf(kind, sizeof kind, "%.*s",
	         (int)strcspn(b.seek   ? b.seek
	                      : b.kind ? b.kind
	                               : "",
	                      " \t"),
	         b.seek   ? b.seek
	         : b.kind ? b.kind
	                  : "");
	const struct game_ops *kops = game_find(kind);
	if (kops != NULL && (kops->flags & GAME_SIMULTANEOUS)) {
		fprintf(stderr,
		        "%s: %s has simultaneous turns; the bot plays sequential games only\n",
		        b.prog, kops->name);
		return 2;
	}
	rng_seed(&b.rng, (uint64_t)seed);
	history_clear(&b);
	if (cli_session_open(&b.c, b.prog, server, name, b.name, sizeof b.name, 10000) < 0)
		return 1;
	if (!b.quiet)
		fprintf(stderr, "%s: logged in to %s as %s\n", b.prog, server, b.name);
	int rc = bot_loop(&b);
	if (rc == 0)
		net_send_line(&b.c, "quit"); /* best effort: the summary does not depend on it */
	if (!b.quiet && !b.random && b.random_moves > 0)
		fprintf(stderr,
		        "%s: %lld of %lld moves were random (no engine position for them)\n",
		        b.prog, b.random_moves, b.random_moves + b.engine_moves);
	printf("games %d wins %d losses %d draws %d\n", b.played, b.wins, b.losses, b.draws);
	net_close(&b.c);
	history_clear(&b);
	free(b.history);
	cJSON_Delete(b.last_state);
	return rc;
}
