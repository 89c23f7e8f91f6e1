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
 * Games come from a --seek it posts, from others' seeks it accepts (--accept), or by
 * themselves from an event (lib/event.h): --pool NAME (joined again after each game),
 * --ladder "<kind opts>" [--concurrency N] (up to N games at once, each with its own
 * search) or --tourney ID. In an event it plays until SIGINT/SIGTERM (or --games N, when
 * given): the first signal leaves the event and plays out the games on, a second one ends
 * at once; a connection that drops, or a server that restarts, is connected again with a
 * back-off, as the same player, its games resumed and the event joined again.
 *
 * Messages reach their handlers through the client library's dispatcher
 * (client.h): one table row per message type.
 */
#include <ctype.h>
#include <signal.h>
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

/* One game on (a slot of struct cli_games). */
struct bot_game {
	long long game; /* its id */
	int seat;
	long long inc_ms;    /* the game's increment, 0 when untimed */
	long long seq_moved; /* the state seq we last answered */
	long long last_seq;  /* the last state seq seen */
	bool history_ok;     /* every move of the game was seen in order */
	char **history;      /* move texts in order (owned) */
	size_t nhistory, caphistory;
	cJSON *last_state; /* the game's latest state (owned) */
	int move_errors;
	struct tak_search *tak; /* made at the first Tak move, cleared at each game */
	struct xmas_bot_memory xmas;
};

struct bot {
	const char *prog;
	struct cli_link link;
	const char *seek;    /* seek text, or NULL when accepting or in an event */
	struct cli_event ev; /* --pool, --ladder, --tourney */
	const char *kind;    /* accept only this kind (NULL: any sequential kind we know) */
	int want_games;
	bool games_given; /* --games: in an event, stop after that many */
	int depth;        /* 0: automatic */
	uint64_t nodes;
	bool nodes_given;   /* --nodes: Tak searches are bounded by nodes, not time */
	long long movetime; /* Tak, untimed: ms per move */
	size_t hash_mb;
	int timeout_ms; /* longest wait for any progress */
	bool quiet;
	bool random; /* play random legal moves (a weak opponent for tests) */
	bool greedy; /* one ply of the generic search on the static evaluation */
	struct rng rng;

	struct cli_tally tally;
	bool seek_open, accept_pending;
	struct cli_games games;
	struct bot_game g[CLI_GAMES_MAX];
	long long engine_moves, random_moves; /* how moves were chosen */
	long long last_progress, last_poll;
	long long seek_gap_ms;  /* the server's budget, learnt from RATE_LIMITED: seeks this far
	                           apart */
	long long last_seek_ms; /* when the last seek went */
};

static void history_clear(struct bot_game *g)
{
	for (size_t i = 0; i < g->nhistory; i++)
		free(g->history[i]);
	g->nhistory = 0;
	g->history_ok = true;
	g->last_seq = 0;
}

static void history_add(struct bot_game *g, const char *text)
{
	if (g->nhistory == g->caphistory) {
		size_t cap = g->caphistory ? 2 * g->caphistory : 64;
		char **h = realloc(g->history, cap * sizeof *h);
		if (h == NULL) {
			g->history_ok = false;
			return;
		}
		g->history = h;
		g->caphistory = cap;
	}
	if ((g->history[g->nhistory] = strdup(text)) == NULL)
		g->history_ok = false;
	else
		g->nhistory++;
}

/* Rebuilds the position of a state into st: load its position text, else replay the moves. */
static bool rebuild(const struct bot_game *g, const struct game_ops *ops, const cJSON *state,
                    void *st)
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
	if (!g->history_ok || ops->init(st, &p, 0) < 0)
		return false;
	for (size_t i = 0; i < g->nhistory; i++) {
		game_move m;
		int seat = game_seat_to_move(ops, st);
		if (seat < 0 || ops->parse_move(st, seat, g->history[i], &m, NULL) < 0 ||
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
static int tak_move(struct bot *b, struct bot_game *g, const cJSON *state,
                    const struct tak_state *st, game_move *m)
{
	if (g->tak == NULL && (g->tak = tak_search_new(b->hash_mb)) == NULL)
		return GAME_ENOSPACE;
	struct tak_search_limits lim = {.now_ms = net_now_ms, .seed = rng_next(&b->rng)};
	const cJSON *clocks = cJSON_GetObjectItemCaseSensitive(state, "clocks");
	const cJSON *left = cJSON_GetArrayItem(clocks, g->seat);
	if (b->depth > 0 || b->nodes_given) {
		lim.depth = b->depth;
		lim.nodes = b->nodes_given ? b->nodes : 0;
	} else if (cJSON_IsNumber(left)) {
		tak_search_budget(st, (long long)left->valuedouble, g->inc_ms, &lim.soft_ms,
		                  &lim.hard_ms);
	} else {
		lim.soft_ms = lim.hard_ms = b->movetime;
	}
	struct tak_search_result res;
	int r = tak_search_best(g->tak, st, &lim, &res);
	*m = res.best;
	return r;
}

/* The Xmas Rush player's action for our seat, from the contest input in the state. */
static bool xmas_move(struct bot *b, struct bot_game *g, const cJSON *state, char *out,
                      size_t len)
{
	const cJSON *pos = cJSON_GetObjectItemCaseSensitive(state, "position");
	const char *input = cli_jstr(pos, "input");
	struct xmas_view v;
	if (input == NULL || xmas_view_parse(&v, input) < 0)
		return false;
	return xmas_bot_play(&v, &g->xmas, rng_next(&b->rng), out, len) > 0;
}

/* The engine's choice for the state, written to out; false when it has none. */
static bool engine_move(struct bot *b, struct bot_game *g, const cJSON *state,
                        const cJSON *legal, char *out, size_t len)
{
	const struct game_ops *ops =
	        game_find(cli_jstr(state, "kind") ? cli_jstr(state, "kind") : "");
	if (ops == NULL || ops->nplayers != 2)
		return false;
	if (ops == &game_xmas) /* its walks are checked step by step on the input's board */
		return !b->greedy && xmas_move(b, g, state, out, len);
	if (ops->apply == NULL)
		return false;
	void *st = calloc(1, ops->state_size);
	bool ok = false;
	if (st == NULL || !rebuild(g, ops, state, st) || game_seat_to_move(ops, st) != g->seat)
		goto out;
	struct search_limits lim = {.max_depth = b->greedy ? 1 : b->depth, .max_nodes = b->nodes};
	int nlegal = cJSON_GetArraySize(legal);
	game_move m;
	if (ops == &game_tak && !b->greedy) {
		if (tak_move(b, g, state, st, &m) < 0)
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

static int play_state(struct bot *b, struct bot_game *g, const cJSON *state, bool use_engine)
{
	const cJSON *legal = cJSON_GetObjectItemCaseSensitive(state, "legal");
	char move[GAME_MOVE_TEXT];
	if (use_engine && engine_move(b, g, state, legal, move, sizeof move))
		b->engine_moves++;
	else if (random_move(b, state, legal, move, sizeof move))
		b->random_moves++;
	else
		return 0;
	g->seq_moved = cli_jint(state, "seq", 0);
	return cli_link_sendf(&b->link, "move %lld %s", g->game, move);
}

/* What a handler returns to stop the pump (0 goes on). */
enum { BOT_DONE = 1, BOT_FAIL = 2 };

/* The game of message m, or NULL when it is none of ours. */
static struct bot_game *game_of(struct bot *b, const cJSON *m)
{
	int s = cli_games_find(&b->games, cli_jint(m, "game", -1));
	return s < 0 ? NULL : &b->g[s];
}

static int on_state(void *ud, const cJSON *m)
{
	struct bot *b = ud;
	struct bot_game *g = game_of(b, m);
	long long seq = cli_jint(m, "seq", 0);
	b->last_progress = net_now_ms();
	if (g == NULL)
		return 0;
	const char *last = cli_jstr(m, "last_move");
	if (seq == g->last_seq + 1 && last != NULL)
		history_add(g, last);
	else if (seq != g->last_seq + 1 && seq != g->last_seq)
		g->history_ok = false;
	if (seq > g->last_seq)
		g->last_seq = seq;
	cJSON_Delete(g->last_state);
	g->last_state = cJSON_Duplicate(m, true);
	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "over")) &&
	    cli_to_move_has(m, g->seat) && seq != g->seq_moved)
		play_state(b, g, m, !b->random);
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

/* Whether the bot goes on: games wanted, an event not over, games still on. */
static bool want_more(const struct bot *b)
{
	int on = cli_games_on(&b->games);
	if (b->ev.kind == CLI_EV_NONE)
		return b->tally.played < b->want_games;
	if (on > 0)
		return true;
	if (b->ev.left || b->ev.over || (b->games_given && b->tally.played >= b->want_games))
		return false;
	return true;
}

static void try_accept(struct bot *b, const cJSON *seek)
{
	if (cli_games_on(&b->games) > 0 || b->accept_pending || !want_more(b) ||
	    !seek_matches(b, seek))
		return;
	if (cli_link_sendf(&b->link, "accept %lld", cli_jint(seek, "id", 0)) == 0)
		b->accept_pending = true;
}

static void post_seek(struct bot *b)
{
	if (b->seek == NULL || b->seek_open || cli_games_on(&b->games) > 0 || !want_more(b))
		return;
	/* paced once the server has said how fast seeks may come: a client that waits only
	   after each refusal is refused every game, and refusals in a row add up (§13) */
	long long wait = b->last_seek_ms + b->seek_gap_ms - net_now_ms();
	if (wait > 0)
		nanosleep(&(struct timespec){.tv_sec = wait / 1000,
		                             .tv_nsec = (wait % 1000) * 1000000},
		          NULL);
	b->last_seek_ms = net_now_ms();
	if (cli_link_sendf(&b->link, "seek %s", b->seek) == 0)
		b->seek_open = true;
}

static void game_clear(struct bot_game *g)
{
	history_clear(g);
	cJSON_Delete(g->last_state);
	g->last_state = NULL;
	if (g->tak != NULL)
		tak_search_clear(g->tak);
	memset(&g->xmas, 0, sizeof g->xmas);
}

static int on_game_start(void *ud, const cJSON *m)
{
	struct bot *b = ud;
	long long id = cli_jint(m, "game", 0);
	bool known = cli_games_find(&b->games, id) >= 0;
	int slot = cli_games_take(&b->games, id);
	if (slot < 0) /* more games than slots (a resumed extra game): left alone */
		return 0;
	b->last_progress = net_now_ms();
	b->seek_open = b->accept_pending = false;
	if (known) { /* a game given back after a reconnect: its states follow */
		/* a move sent before the server went away may not have been stored: the state
		   given back can carry the seq we answered, and must be answered again */
		b->g[slot].seq_moved = -1;
		return 0;
	}
	struct bot_game *g = &b->g[slot];
	game_clear(g);
	g->game = id;
	g->seat = (int)cli_jint(m, "seat", -1);
	g->seq_moved = -1;
	g->move_errors = 0;
	const cJSON *time = cJSON_GetObjectItemCaseSensitive(m, "time");
	g->inc_ms = cli_jint(time, "inc_ms", 0);
	if (b->ev.kind != CLI_EV_NONE && !b->quiet)
		fprintf(stderr, "%s: game %lld started%s as seat %d (%d on)\n", b->prog, id,
		        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "resumed")) ? " again"
		                                                                     : "",
		        g->seat, cli_games_on(&b->games));
	return cli_event_game_changed(&b->ev, &b->link.c, cli_games_on(&b->games)) < 0 ? BOT_FAIL
	                                                                               : 0;
}

/* The end of one of our games: counted and printed; BOT_DONE after the last one wanted. */
static int on_game_over(void *ud, const cJSON *m)
{
	struct bot *b = ud;
	struct bot_game *g = game_of(b, m);
	b->last_progress = net_now_ms();
	if (g == NULL)
		return 0;
	cli_tally_game(&b->tally, m, g->game, g->seat, b->quiet);
	cli_games_drop(&b->games, (int)(g - b->g));
	game_clear(g);
	if (b->ev.kind != CLI_EV_NONE && b->games_given && b->tally.played >= b->want_games &&
	    cli_event_leave(&b->ev, &b->link.c) < 0)
		return BOT_FAIL;
	if (want_more(b) && !b->ev.left &&
	    cli_event_game_changed(&b->ev, &b->link.c, cli_games_on(&b->games)) < 0)
		return BOT_FAIL;
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
	cli_event_message(&b->ev, b->prog, m);
	return want_more(b) ? 0 : BOT_DONE;
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
	if (cli_event_message(&b->ev, b->prog, m) < 0)
		return BOT_FAIL; /* not in the event: nothing will start */
	fprintf(stderr, "%s: server error %s%s%s: %s\n", b->prog, code, cmd ? " on " : "",
	        cmd ? cmd : "", cli_jstr(m, "message") ? cli_jstr(m, "message") : "");
	if (cmd == NULL)
		return 0;
	struct bot_game *g = game_of(b, m);
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
		} else if (strcmp(cmd, "move") == 0 && g != NULL && g->last_state != NULL) {
			return play_state(b, g, g->last_state, !b->random) < 0 ? BOT_FAIL : 0;
		}
		return 0;
	}
	if (strcmp(cmd, "seek") == 0) {
		b->seek_open = false;
		return BOT_FAIL; /* a seek the server refuses will be refused again */
	}
	if (strcmp(cmd, "accept") == 0) {
		b->accept_pending = false; /* someone was quicker: look again */
		return 0;
	}
	/* a refused move (not a late one, not out of turn: those wait for the next state) is
	 * replaced by a random legal one from the same state */
	if (strcmp(cmd, "move") == 0 && g != NULL && g->last_state != NULL &&
	    strcmp(code, "GAME_OVER") != 0 && strcmp(code, "NOT_YOUR_TURN") != 0) {
		if (++g->move_errors > 3) { /* give the game up rather than loop */
			fprintf(stderr, "%s: resigning game %lld after repeated move errors\n",
			        b->prog, g->game);
			return cli_link_sendf(&b->link, "resign %lld", g->game) < 0 ? BOT_FAIL : 0;
		}
		return play_state(b, g, g->last_state, false) < 0 ? BOT_FAIL : 0;
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

/* What the bot does on a (new) connection: its seek, its event, a look at the seeks. */
static int bot_begin(struct bot *b)
{
	b->last_progress = b->last_poll = net_now_ms();
	b->seek_open = b->accept_pending = false;
	post_seek(b);
	if (b->ev.kind != CLI_EV_NONE)
		return cli_event_join(&b->ev, &b->link.c, cli_games_on(&b->games));
	return b->seek == NULL ? cli_link_sendf(&b->link, "seeks") : 0;
}

static int bot_loop(struct bot *b)
{
	bool events = b->ev.kind != CLI_EV_NONE; /* long runs: they reconnect and stop by signal */
	if (bot_begin(b) < 0)
		return 1;
	while (want_more(b)) {
		if (cli_stop_count() > 1) {
			fprintf(stderr, "%s: stopped with %d game(s) on\n", b->prog,
			        cli_games_on(&b->games));
			return 0;
		}
		if (cli_stop_count() == 1 && !b->ev.left && b->link.up) {
			if (!b->quiet)
				fprintf(stderr, "%s: leaving; %d game(s) on are played out\n",
				        b->prog, cli_games_on(&b->games));
			cli_event_leave(&b->ev, &b->link.c);
			if (!want_more(b))
				break;
		}
		if (!b->link.up) {
			int up = cli_link_retry(&b->link);
			if (up < 0)
				return 1;
			if (up == 0) {
				int w = cli_link_wait_ms(&b->link);
				nanosleep(&(struct timespec){0, (w > 200 ? 200 : w) * 1000000L},
				          NULL);
				continue;
			}
			for (int s; (s = cli_games_not_resumed(&b->games, &b->link)) >= 0;) {
				fprintf(stderr, "%s: game %lld ended while we were away\n", b->prog,
				        b->games.id[s]);
				cli_games_drop(&b->games, s);
				game_clear(&b->g[s]);
			}
			if (bot_begin(b) < 0)
				cli_link_lost(&b->link, NET_EIO);
			continue;
		}
		int r = cli_pump(&b->link.c, b->prog, 250, bot_routes, b);
		long long now = net_now_ms();
		if (r == BOT_DONE)
			break;
		if (r == BOT_FAIL)
			return 1;
		if (r < 0 && events) {
			cli_link_lost(&b->link, r);
			continue;
		}
		if (r < 0) {
			fprintf(stderr, "%s: lost the server: %s\n", b->prog,
			        r == NET_ECLOSED ? "it closed the connection" : net_strerror(r));
			return 1;
		}
		/* waiting in an event is no stall (pairings come when they come); a game is */
		if ((!events || cli_games_on(&b->games) > 0) &&
		    now - b->last_progress > b->timeout_ms) {
			fprintf(stderr, "%s: nothing happened for %d s (%s); giving up\n", b->prog,
			        b->timeout_ms / 1000,
			        cli_games_on(&b->games) > 0 ? "game stalled" : "no opponent");
			return 1;
		}
		if (b->seek == NULL && !events && cli_games_on(&b->games) == 0 &&
		    !b->accept_pending && now - b->last_poll >= 1000) {
			b->last_poll = now;
			if (cli_link_sendf(&b->link, "seeks") < 0)
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
	static struct bot b; /* the game slots are big; one bot per process */
	memset(&b, 0, sizeof b);
	b.prog = "bitarena bot";
	b.want_games = 1;
	b.nodes = 1000000;
	b.movetime = BOT_DEFAULT_MOVETIME_MS;
	b.hash_mb = BOT_DEFAULT_HASH_MB;
	b.timeout_ms = 60000;
	const char *server = CLI_DEFAULT_SERVER, *name = "bot";
	bool accept = false;
	long long seed = (long long)time(NULL) ^ ((long long)getpid() << 16), v;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		bool has = val != NULL;
		int ev = cli_event_arg(&b.ev, b.prog, a, val);
		if (ev < 0)
			return cli_usage("bot");
		if (ev > 0) {
			i++;
		} else if (strcmp(a, "--accept") == 0) {
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
		} else if (strcmp(a, "--kind") == 0 && has) {
			b.kind = argv[++i];
		} else if (strcmp(a, "--games") == 0 && has &&
		           parse_long(val, 1, 1000000, &v) == 0) {
			b.want_games = (int)v;
			b.games_given = true;
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
	if (cli_event_check(&b.ev, b.prog) < 0)
		return cli_usage("bot");
	if ((b.seek != NULL) + accept + (b.ev.kind != CLI_EV_NONE) != 1 ||
	    (b.seek != NULL && b.kind != NULL)) {
		fprintf(stderr,
		        "%s: give one of --seek \"<kind> [opt=value ...]\", --accept [--kind K], "
		        "--pool NAME, --ladder \"<kind> [opt=value ...]\" or --tourney ID\n",
		        b.prog);
		return cli_usage("bot");
	}
	if (b.seek != NULL && strpbrk(b.seek, "\r\n") != NULL)
		return cli_usage("bot");
	rng_seed(&b.rng, (uint64_t)seed);
	cli_games_init(&b.games, cli_event_slots(&b.ev));
	if (b.ev.kind != CLI_EV_NONE) {
		cli_stop_catch();
		signal(SIGPIPE, SIG_IGN);
	}
	if (cli_link_open(&b.link, b.prog, server, name) < 0)
		return 1;
	if (!b.quiet)
		fprintf(stderr, "%s: logged in to %s as %s\n", b.prog, server, b.link.name);
	int rc = bot_loop(&b);
	if (rc == 0 && b.link.up)
		net_send_line(&b.link.c, "quit"); /* best effort: the summary does not depend on it */
	if (!b.quiet && !b.random && b.random_moves > 0)
		fprintf(stderr,
		        "%s: %lld of %lld moves were random (no engine position for them)\n",
		        b.prog, b.random_moves, b.random_moves + b.engine_moves);
	if (!b.quiet && b.ev.kind != CLI_EV_NONE)
		fprintf(stderr, "%s: at most %d game(s) at once, %d reconnection(s)\n", b.prog,
		        b.games.max_on, b.link.reconnects);
	cli_tally_print(&b.tally);
	cli_link_close(&b.link);
	for (int i = 0; i < CLI_GAMES_MAX; i++) {
		game_clear(&b.g[i]);
		free(b.g[i].history);
		tak_search_free(b.g[i].tak);
	}
	return rc;
}
