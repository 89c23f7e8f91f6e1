/*
 * cmd_bot.c - `bitarena bot`: a bot that connects to bitarenad in JSON mode,
 * seeks or accepts games and plays N of them, of every kind:
 *
 *  - Tak: the Tak player of tak_search.h (alpha-beta with a transposition
 *    table, iterative deepening) on the position rebuilt from the state's
 *    TPS; timed games budget the bot's own clock and increment
 *    (tak_search_budget), untimed ones think --movetime ms a move, and
 *    --depth / --nodes bound the search instead when given;
 *  - Xmas Rush (simultaneous turns): the player of xmas_bot.h on the contest
 *    input the state carries for our seat (position.input);
 *  - m,n,k games: the core's generic alpha-beta (search.h), full depth on
 *    small boards (perfect on 3,3,3), depth- and node-bounded elsewhere.
 *
 * --greedy plays the generic search one ply deep on the game's static
 * evaluation, and --random random legal moves: weak reference opponents for
 * tests and measurements. Any move the bot cannot compute comes at random
 * from the state's "legal" list. Prints one summary line at the end.
 *
 * Messages reach their handlers through the client library's dispatcher
 * (client.h): one table row per message type.
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
#include "games/tak/tak.h"
#include "games/tak/tak_search.h"
#include "games/xmas/xmas_bot.h"

#define BOT_DEFAULT_MOVETIME_MS 1000 /* Tak, untimed games */
#define BOT_DEFAULT_HASH_MB     32

/* ---- the bot ------------------------------------------------------------------ */

struct bot {
	const char *prog;
	struct net_conn c;
	char name[PROTO_NAME_MAX + 1];
	const char *seek;  /* seek text, or NULL when accepting or in a tournament */
	long long tourney; /* --tourney: the tournament it plays (0: none) */
	bool tourney_over; /* its end came: the game on is the last */
	const char *kind;  /* accept only this kind (NULL: any sequential kind we know) */
	int want_games;
	int depth; /* 0: automatic */
	uint64_t nodes;
	bool nodes_given;   /* --nodes: Tak searches are bounded by nodes, not time */
	long long movetime; /* Tak, untimed: ms per move */
	size_t hash_mb;
	int timeout_ms; /* longest wait for any progress */
	bool quiet;
	bool random; /* play random legal moves (a weak opponent for tests) */
	bool greedy; /* one ply of the generic search on the static evaluation */
	struct rng rng;
	struct tak_search *tak; /* made at the first Tak move, cleared at each game */
	struct xmas_bot_memory xmas;

	struct cli_tally tally;
	bool seek_open, accept_pending, in_game;
	long long game; /* current game id */
	int seat;
	long long inc_ms;    /* the game's increment, 0 when untimed */
	long long seq_moved; /* the state seq we last answered */
	long long last_seq;  /* the last state seq seen */
	bool history_ok;     /* every move of the game was seen in order */
	char **history;      /* move texts in order (owned) */
	size_t nhistory, caphistory;
	cJSON *last_state; /* our current game's latest state (owned) */
	int move_errors;
	long long engine_moves, random_moves; /* how moves were chosen */
	long long last_progress, last_poll;
	long long seek_gap_ms;  /* the server's budget, learnt from RATE_LIMITED: seeks this far
	                           apart */
	long long last_seek_ms; /* when the last seek went */
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

/* The Tak player's move in st, within the bot's limits or its clock. */
static int tak_move(struct bot *b, const cJSON *state, const struct tak_state *st, game_move *m)
{
	if (b->tak == NULL && (b->tak = tak_search_new(b->hash_mb)) == NULL)
		return GAME_ENOSPACE;
	struct tak_search_limits lim = {.now_ms = net_now_ms, .seed = rng_next(&b->rng)};
	const cJSON *clocks = cJSON_GetObjectItemCaseSensitive(state, "clocks");
	const cJSON *left = cJSON_GetArrayItem(clocks, b->seat);
	if (b->depth > 0 || b->nodes_given) {
		lim.depth = b->depth;
		lim.nodes = b->nodes_given ? b->nodes : 0;
	} else if (cJSON_IsNumber(left)) {
		tak_search_budget(st, (long long)left->valuedouble, b->inc_ms, &lim.soft_ms,
		                  &lim.hard_ms);
	} else {
		lim.soft_ms = lim.hard_ms = b->movetime;
	}
	struct tak_search_result res;
	int r = tak_search_best(b->tak, st, &lim, &res);
	*m = res.best;
	return r;
}

/* The Xmas Rush player's action for our seat, from the contest input in the state. */
static bool xmas_move(struct bot *b, const cJSON *state, char *out, size_t len)
{
	const cJSON *pos = cJSON_GetObjectItemCaseSensitive(state, "position");
	const char *input = cli_jstr(pos, "input");
	struct xmas_view v;
	if (input == NULL || xmas_view_parse(&v, input) < 0)
		return false;
	return xmas_bot_play(&v, &b->xmas, rng_next(&b->rng), out, len) > 0;
}

/* The engine's choice for the state, written to out; false when it has none. */
static bool engine_move(struct bot *b, const cJSON *state, const cJSON *legal, char *out,
                        size_t len)
{
	const struct game_ops *ops =
	        game_find(cli_jstr(state, "kind") ? cli_jstr(state, "kind") : "");
	if (ops == NULL || ops->nplayers != 2)
		return false;
	if (ops == &game_xmas) /* its walks are checked step by step on the input's board */
		return !b->greedy && xmas_move(b, state, out, len);
	if (ops->apply == NULL)
		return false;
	void *st = calloc(1, ops->state_size);
	bool ok = false;
	if (st == NULL || !rebuild(b, ops, state, st) || game_seat_to_move(ops, st) != b->seat)
		goto out;
	struct search_limits lim = {.max_depth = b->greedy ? 1 : b->depth, .max_nodes = b->nodes};
	int nlegal = cJSON_GetArraySize(legal);
	game_move m;
	if (ops == &game_tak && !b->greedy) {
		if (tak_move(b, state, st, &m) < 0)
			goto out;
	} else {
		if (b->greedy)
			lim.max_nodes = 0;
		else if (fills_cells(ops)) /* full depth by default, never deeper than the game */
			lim.max_depth = b->depth > 0 && b->depth < nlegal ? b->depth : nlegal;
		else if (lim.max_depth <= 0)
			lim.max_depth = 4;
		struct search_result res;
		if (search_best(ops, st, &lim, &b->rng, &res) < 0)
			goto out;
		m = res.best;
	}
	if (ops->format_move(st, m, out, len) < 0)
		goto out;
	ok = in_legal(legal, out);
	if (!ok)
		fprintf(stderr, "%s: engine move %s is not in the server's legal list\n", b->prog,
		        out);
out:
	free(st);
	return ok;
}

/* Xmas Rush has no "legal" list: a random push, or a random walk of up to 4 open steps. */
static bool random_xmas(struct bot *b, const cJSON *state, char *out, size_t len)
{
	const char *input = cli_jstr(cJSON_GetObjectItemCaseSensitive(state, "position"), "input");
	struct xmas_view v;
	if (input == NULL || xmas_view_parse(&v, input) < 0)
		return false;
	if (v.turn_type == XMAS_TURN_PUSH) {
		snprintf(out, len, "PUSH %u %s", rng_below(&b->rng, XMAS_SIZE),
		         xmas_dir_names[rng_below(&b->rng, 4)]);
		return true;
	}
	size_t at = (size_t)snprintf(out, len, "PASS");
	for (int i = 0, n = (int)rng_below(&b->rng, 5), cell = v.cell[0]; i < n && at < len; i++) {
		int d = (int)rng_below(&b->rng, 4);
		if (!xmas_step_ok(&v.b, cell, d))
			continue;
		if (at == 4)
			at = (size_t)snprintf(out, len, "MOVE");
		at += (size_t)snprintf(out + at, len - at, " %s", xmas_dir_names[d]);
		cell = xmas_step(cell, d);
	}
	return at < len;
}

static bool random_move(struct bot *b, const cJSON *state, const cJSON *legal, char *out,
                        size_t len)
{
	int n = cJSON_GetArraySize(legal);
	if (!cJSON_IsArray(legal) || n <= 0)
		return random_xmas(b, state, out, len);
	const cJSON *m = cJSON_GetArrayItem(legal, (int)rng_below(&b->rng, (uint32_t)n));
	if (!cJSON_IsString(m))
		return false;
	snprintf(out, len, "%s", m->valuestring);
	return true;
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
	if (use_engine && engine_move(b, state, legal, move, sizeof move))
		b->engine_moves++;
	else if (random_move(b, state, legal, move, sizeof move))
		b->random_moves++;
	else
		return 0;
	b->seq_moved = cli_jint(state, "seq", 0);
	return send_cmd(b, "move %lld %s", b->game, move);
}

/* What a handler returns to stop the pump (0 goes on). */
enum { BOT_DONE = 1, BOT_FAIL = 2 };

static int on_state(void *ud, const cJSON *m)
{
	struct bot *b = ud;
	long long seq = cli_jint(m, "seq", 0);
	b->last_progress = net_now_ms();
	if (!b->in_game || cli_jint(m, "game", -1) != b->game)
		return 0;
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
	return 0;
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
	return game_find(kind) != NULL;
}

static bool want_more(const struct bot *b)
{
	if (b->tourney != 0) /* every game the pairing gives, until its end */
		return !b->tourney_over || b->in_game;
	return b->tally.played < b->want_games;
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
	if (b->seek == NULL || b->seek_open || b->in_game || !want_more(b))
		return;
	/* paced once the server has said how fast seeks may come: a client that waits only
	   after each refusal is refused every game, and refusals in a row add up (§13) */
	long long wait = b->last_seek_ms + b->seek_gap_ms - net_now_ms();
	if (wait > 0)
		nanosleep(&(struct timespec){.tv_sec = wait / 1000,
		                             .tv_nsec = (wait % 1000) * 1000000},
		          NULL);
	b->last_seek_ms = net_now_ms();
	if (send_cmd(b, "seek %s", b->seek) == 0)
		b->seek_open = true;
}

static int on_game_start(void *ud, const cJSON *m)
{
	struct bot *b = ud;
	if (b->in_game) /* one game at a time; a resumed extra game is left alone */
		return 0;
	b->last_progress = net_now_ms();
	b->in_game = true;
	b->seek_open = b->accept_pending = false;
	b->game = cli_jint(m, "game", 0);
	b->seat = (int)cli_jint(m, "seat", -1);
	b->seq_moved = -1;
	b->move_errors = 0;
	const cJSON *time = cJSON_GetObjectItemCaseSensitive(m, "time");
	b->inc_ms = cli_jint(time, "inc_ms", 0);
	if (b->tak != NULL)
		tak_search_clear(b->tak);
	memset(&b->xmas, 0, sizeof b->xmas);
	history_clear(b);
	return 0;
}

/* The end of our game: counted and printed; BOT_DONE after the last one wanted. */
static int on_game_over(void *ud, const cJSON *m)
{
	struct bot *b = ud;
	b->last_progress = net_now_ms();
	if (!b->in_game || cli_jint(m, "game", -1) != b->game)
		return 0;
	cli_tally_game(&b->tally, m, b->game, b->seat, b->quiet);
	b->in_game = false;
	cJSON_Delete(b->last_state);
	b->last_state = NULL;
	post_seek(b);
	/* an accepting bot hears of new seeks as they come (seek news); the loop's poll once a
	   second is the fallback, not a "seeks" after every game: it costs 3 of the budget's
	   tokens (PROTOCOL.md §13), more than the game's accept */
	b->last_poll = net_now_ms();
	return want_more(b) ? 0 : BOT_DONE;
}

/* A tournament's news: progress (others' games count as the bot's waiting); its end. */
static int on_tourney(void *ud, const cJSON *m)
{
	struct bot *b = ud;
	b->last_progress = net_now_ms();
	if (b->tourney == 0 || !cli_tourney_over(m, b->tourney))
		return 0;
	b->tourney_over = true;
	return b->in_game ? 0 : BOT_DONE;
}

static int on_seek(void *ud, const cJSON *m)
{
	const char *ev = cli_jstr(m, "event");
	if (ev != NULL && strcmp(ev, "new") == 0)
		try_accept(ud, cJSON_GetObjectItemCaseSensitive(m, "seek"));
	return 0;
}

/* The answer to "seeks": every open seek, as if announced now. */
static int on_seeks(void *ud, const cJSON *m)
{
	const cJSON *s;
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(m, "seeks"))
	{
		try_accept(ud, s);
	}
	return 0;
}

static int on_info(void *ud, const cJSON *m)
{
	struct bot *b = ud;
	if (!b->quiet)
		fprintf(stderr, "%s: %s\n", b->prog,
		        cli_jstr(m, "message") ? cli_jstr(m, "message") : "server info");
	return 0;
}

/* A server error: printed; BOT_FAIL when the bot cannot go on. */
static int on_error(void *ud, const cJSON *m)
{
	struct bot *b = ud;
	const char *code = cli_jstr(m, "code"), *cmd = cli_jstr(m, "cmd");
	code = code ? code : "?";
	fprintf(stderr, "%s: server error %s%s%s: %s\n", b->prog, code, cmd ? " on " : "",
	        cmd ? cmd : "", cli_jstr(m, "message") ? cli_jstr(m, "message") : "");
	if (cmd == NULL)
		return 0;
	if (strcmp(code, "RATE_LIMITED") == 0) {
		/* the server reads nothing more from us until then (PROTOCOL.md §13): wait, and
		 * look at the seeks again afterwards (the loop polls them) */
		long long ms = cli_jint(m, "retry_after_ms", 1000);
		struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};
		nanosleep(&ts, NULL);
		b->accept_pending = false;
		b->last_poll = net_now_ms();
		if (strcmp(cmd, "seek") == 0) {
			long long cost = cli_jint(m, "cost", 0), rate = cli_jint(m, "rate", 0);
			if (cost > 0 && rate > 0) /* one seek's tokens, and a little more */
				b->seek_gap_ms = cost * 1000 / rate + 10;
			b->seek_open = false;
			post_seek(b);
		} else if (strcmp(cmd, "move") == 0 && b->in_game && b->last_state != NULL) {
			return play_state(b, b->last_state, !b->random) < 0 ? BOT_FAIL : 0;
		}
		return 0;
	}
	if (strcmp(cmd, "seek") == 0) {
		b->seek_open = false;
		return BOT_FAIL; /* a seek the server refuses will be refused again */
	}
	if (strcmp(cmd, "tourney") == 0 || (strcmp(cmd, "set") == 0 && b->tourney != 0))
		return BOT_FAIL; /* not in the tournament: nothing will start */
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
			return send_cmd(b, "resign %lld", b->game) < 0 ? BOT_FAIL : 0;
		}
		return play_state(b, b->last_state, false) < 0 ? BOT_FAIL : 0;
	}
	return 0;
}

/* clang-format off */
static const struct cli_route bot_routes[] = {
        {"state", NULL, on_state},
        {"game_start", NULL, on_game_start},
        {"game_over", NULL, on_game_over},
        {"seek", NULL, on_seek},
        {"ok", "seeks", on_seeks},
        {"tourney", NULL, on_tourney},
        {"error", NULL, on_error},
        {"info", NULL, on_info},
        {NULL, NULL, NULL},
};
/* clang-format on */

static int bot_loop(struct bot *b)
{
	b->last_progress = b->last_poll = net_now_ms();
	post_seek(b);
	if (b->tourney != 0 ? cli_tourney_join(&b->c, b->tourney) < 0
	                    : b->seek == NULL && send_cmd(b, "seeks") < 0)
		return 1;
	while (want_more(b)) {
		int r = cli_pump(&b->c, b->prog, 1000, bot_routes, b);
		long long now = net_now_ms();
		if (r == BOT_DONE)
			break;
		if (r == BOT_FAIL)
			return 1;
		if (r < 0) {
			fprintf(stderr, "%s: lost the server: %s\n", b->prog,
			        r == NET_ECLOSED ? "it closed the connection" : net_strerror(r));
			return 1;
		}
		if (now - b->last_progress > b->timeout_ms) {
			fprintf(stderr, "%s: nothing happened for %d s (%s); giving up\n", b->prog,
			        b->timeout_ms / 1000, b->in_game ? "game stalled" : "no opponent");
			return 1;
		}
		if (b->seek == NULL && b->tourney == 0 && !b->in_game && !b->accept_pending &&
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
	struct bot b = {.prog = "bitarena bot",
	                .want_games = 1,
	                .nodes = 1000000,
	                .movetime = BOT_DEFAULT_MOVETIME_MS,
	                .hash_mb = BOT_DEFAULT_HASH_MB,
	                .timeout_ms = 60000};
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
		} else if (strcmp(a, "--greedy") == 0) {
			b.greedy = true;
		} else if (strcmp(a, "--quiet") == 0) {
			b.quiet = true;
		} else if (strcmp(a, "--server") == 0 && has) {
			server = argv[++i];
		} else if (strcmp(a, "--name") == 0 && has) {
			name = argv[++i];
		} else if (strcmp(a, "--seek") == 0 && has) {
			b.seek = argv[++i];
		} else if (strcmp(a, "--tourney") == 0 && has &&
		           parse_long(val, 1, 1LL << 53, &v) == 0) {
			b.tourney = v;
			i++;
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
			b.nodes_given = true;
			i++;
		} else if (strcmp(a, "--movetime") == 0 && has &&
		           parse_long(val, 1, 3600000, &v) == 0) {
			b.movetime = v;
			i++;
		} else if (strcmp(a, "--hash") == 0 && has && parse_long(val, 1, 4096, &v) == 0) {
			b.hash_mb = (size_t)v;
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
	if ((b.seek != NULL) + accept + (b.tourney != 0) != 1 ||
	    (b.seek != NULL && b.kind != NULL)) {
		fprintf(stderr,
		        "%s: give one of --seek \"<kind> [opt=value ...]\", --accept [--kind K] or "
		        "--tourney ID\n",
		        b.prog);
		return cli_usage("bot");
	}
	if (b.seek != NULL && strpbrk(b.seek, "\r\n") != NULL)
		return cli_usage("bot");
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
	cli_tally_print(&b.tally);
	net_close(&b.c);
	history_clear(&b);
	free(b.history);
	cJSON_Delete(b.last_state);
	tak_search_free(b.tak);
	return rc;
}
