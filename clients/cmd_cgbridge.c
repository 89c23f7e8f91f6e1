/*
 * cmd_cgbridge.c - `bitarena cg-bridge --game xmas [--server HOST:PORT]
 * [--name NAME] [--league N] [--seek "opt=value ..." | --accept | --pool NAME |
 * --tourney ID] [--games N]
 * [--turn-ms MS] [--first-turn-ms MS] [--timeout SEC] [--quiet] [--verbose]
 * -- <bot command ...>`: runs a CodinGame Xmas Rush bot (contest input on
 * stdin, one action line on stdout per turn) as a client of bitarenad, under
 * the referee's conditions. It seeks or accepts one xmas game, or plays the
 * games of an event (lib/event.h: a pool joined again after each game, a
 * tournament; not the ladder, whose games alternate moves), each game with a bot
 * process of its own, started afresh for every game as on CodinGame; in an
 * event it goes on until SIGINT/SIGTERM (or --games N when given: the first
 * signal leaves the event and plays out the games on, a second ends at once)
 * and connects again by itself, as the same player, when the connection drops
 * or the server restarts. Every state
 * that asks our seat to act carries the engine's exact contest input for that
 * seat (position.input, see xmas_input()), which is written to the bot; the
 * bot's next line goes back as `move <game> <line>`.
 *
 * The referee's conditions:
 *  - --league N plays the referee's league N (the engine's league= option:
 *    1 one quest, 2 six quests, 3 twelve on pool 1, 4-5 pool 2, 6 pool 3);
 *    with --accept only seeks of that league are taken;
 *  - a turn lasts 1000 ms for the first turn and 50 ms after, as on
 *    CodinGame (the seek's first_turn_ms and turn_ms; --first-turn-ms and
 *    --turn-ms, or turn_ms= in --seek, set other times); the server keeps
 *    the time, the same for both seats;
 *  - the bot's lines are read as the SDK reads them (cgio.h): one line per
 *    turn, any further line left for the next turn, so a second line printed
 *    in one turn always answers the next one, however fast it comes; a line
 *    the server's framing would change is sent as INVALID; seeks carry
 *    strict=1, so such a line is fatal at once, as on CodinGame;
 *  - a bot that cannot start is reported with the reason (and what it wrote
 *    on stderr) before anything is sought; a bot that exits or crashes during
 *    the game has its turns answered as invalid at once (fatal, as its
 *    timeout would be) instead of waiting for the deadline; a hung bot meets
 *    the server's deadline, the referee's timeout;
 *  - a bridge waiting for an opponent gives up after --timeout seconds
 *    (default 120).
 * The bot itself runs through proc.h (a pseudo-terminal, stderr drained, kept
 * for reports, shown with --verbose); it is started before the seek (or the
 * event's join) and stopped (SIGTERM, then SIGKILL) when the game ends.
 * Prints one line per game and exits 0 when the games ended, 1 otherwise.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cgio.h"
#include "cli.h"
#include "lib/proc.h"

int cmd_cg_bridge(int argc, char **argv);

#define PROG         "bitarena cg-bridge"
#define START_SETTLE 300 /* ms a new bot must stay up before the seek is posted */

/* What a message handler returns to stop the pump (0 goes on; < 0 is a failed send). */
enum {
	BRIDGE_OVER = 1,
	BRIDGE_REFUSED = 2, /* the server refused our seek or the event */
	BRIDGE_FAILED = 3   /* the bot died before its game, or no opponent came */
};

struct bridge;

/* One game at once and its bot process (a slot of struct cli_games). */
struct cg_slot {
	struct bridge *b;
	long long game; /* -1 until game_start */
	int seat;
	long long answered_seq; /* the state seq the bot's last line answered */
	long long due_seq;      /* the state seq whose answer is awaited, -1 if none */
	bool bot_dead_said;
	struct proc bot;
	struct cg_lines lines; /* printed and not yet read */
};

struct bridge {
	struct cli_link link;
	const char *seek;    /* user options for "seek xmas ...", or NULL to accept or in an event */
	struct cli_event ev; /* --pool, --tourney */
	int league;          /* 0: none asked */
	int want_games;      /* --games (1 without an event) */
	bool games_given;
	bool quiet, verbose;
	char **cmd; /* the bot's argv (borrowed from ours) */
	bool accept_sent;
	int played;
	struct cli_games games;
	struct cg_slot s[CLI_GAMES_MAX];
};

static void note(const struct bridge *b, const char *what, const char *text)
{
	if (b->verbose)
		fprintf(stderr, PROG ": %s %s\n", what, text);
}

/* --- the bot ------------------------------------------------------------------ */

/* One line the bot printed: kept until a turn reads it. */
static int on_bot_line(void *ud, char *line, bool cut)
{
	struct cg_slot *e = ud;
	note(e->b, "bot:", line);
	if (!cg_lines_push(&e->lines, cg_action_text(line, cut)))
		note(e->b, "dropped (too much unread output):", line);
	if (cg_lines_full(&e->lines))
		e->bot.hold_out = true; /* as a full pipe: the bot blocks until turns read */
	return 0;
}

/*
 * Why the bot stopped, with its last stderr words, into buf. Its output closes a moment
 * before it can be reaped: proc_end_text() waits for that, or a crashed bot could be told
 * as one that "is running".
 */
static const char *bot_end_text(struct cg_slot *e, char *buf, size_t len)
{
	char ex[128], tail[PROC_ERR_TAIL + 1];
	proc_end_text(&e->bot, ex, sizeof ex);
	proc_err_tail(&e->bot, tail, sizeof tail);
	snprintf(buf, len, "it %s%s%s", ex, tail[0] ? "; its last words: " : "", tail);
	return buf;
}

/* Answers the due turn with the oldest unread line, or at once as invalid if the bot is gone. */
static int answer(struct cg_slot *e)
{
	char text[CG_ACTION_MAX + 1];
	if (e->game < 0 || e->due_seq < 0 || e->due_seq <= e->answered_seq)
		return 0;
	if (cg_lines_pop(&e->lines, text, sizeof text)) {
		if (!cg_lines_full(&e->lines))
			e->bot.hold_out = false;
	} else if (!proc_alive(&e->bot)) {
		if (!e->bot_dead_said) {
			char why[PROC_ERR_TAIL + 200];
			fprintf(stderr, PROG ": the bot is gone (%s): its turns are invalid\n",
			        bot_end_text(e, why, sizeof why));
			e->bot_dead_said = true;
		}
		snprintf(text, sizeof text, "%s", CG_INVALID);
	} else {
		return 0;
	}
	e->answered_seq = e->due_seq;
	e->due_seq = -1;
	return e->b->link.up ? net_sendf(&e->b->link.c, "move %lld %s", e->game, text) : 0;
}

/* Starts a slot's bot and checks it stays up START_SETTLE ms; prints why not and returns -1. */
static int bot_start(struct cg_slot *e)
{
	char why[PROC_ERR_TAIL + 200];
	proc_stop(&e->bot, 300);
	proc_init(&e->bot);
	cg_lines_init(&e->lines);
	e->game = -1;
	e->due_seq = -1;
	e->answered_seq = 0;
	e->bot_dead_said = false;
	e->bot.echo_err = e->b->verbose;
	if (proc_start(&e->bot, e->b->cmd, why, sizeof why) < 0) {
		fprintf(stderr, PROG ": the bot cannot start: %s\n", why);
		return -1;
	}
	long long end = net_now_ms() + START_SETTLE;
	while (net_now_ms() < end) {
		struct pollfd pf[2];
		proc_pollfds(&e->bot, pf);
		poll(pf, 2, 10);
		proc_events(&e->bot, pf, on_bot_line, e);
		if (!proc_alive(&e->bot)) {
			proc_stop(&e->bot, 100);
			fprintf(stderr, PROG ": the bot cannot start: %s\n",
			        bot_end_text(e, why, sizeof why));
			return -1;
		}
	}
	return 0;
}

/* --- the server ------------------------------------------------------------------ */

static int on_error(void *ud, const cJSON *m)
{
	struct bridge *b = ud;
	const char *cmd = cli_jstr(m, "cmd");
	if (cli_event_message(&b->ev, PROG, m) < 0)
		return BRIDGE_REFUSED;
	if (!b->quiet || (cmd && strcmp(cmd, "seek") == 0))
		fprintf(stderr, PROG ": server: %s: %s\n", cli_jstr(m, "code"),
		        cli_jstr(m, "message") ? cli_jstr(m, "message") : "");
	if (cmd && (strcmp(cmd, "seek") == 0))
		return BRIDGE_REFUSED;
	if (cmd && strcmp(cmd, "accept") == 0)
		b->accept_sent = false;
	return 0;
}

/* Accepts seek sk when it is someone else's xmas seek of our league (if one was asked). */
static int try_accept(struct bridge *b, const cJSON *sk)
{
	const char *kind = cli_jstr(sk, "kind"), *by = cli_jstr(sk, "by");
	const cJSON *opts = cJSON_GetObjectItemCaseSensitive(sk, "options");
	if (b->seek != NULL || b->ev.kind != CLI_EV_NONE || cli_games_on(&b->games) > 0 ||
	    b->accept_sent || kind == NULL || strcmp(kind, "xmas") != 0 ||
	    (by && strcmp(by, b->link.name) == 0) ||
	    (b->league > 0 && cli_jint(opts, "league", 0) != b->league))
		return 0;
	b->accept_sent = true;
	return net_sendf(&b->link.c, "accept %lld", cli_jint(sk, "id", 0));
}

static int on_seek(void *ud, const cJSON *m)
{
	const char *ev = cli_jstr(m, "event");
	if (ev == NULL || strcmp(ev, "new") != 0)
		return 0;
	return try_accept(ud, cJSON_GetObjectItemCaseSensitive(m, "seek"));
}

/* The answer to "seeks": accept the first open seek that fits. */
static int on_seeks(void *ud, const cJSON *m)
{
	const cJSON *sk;
	cJSON_ArrayForEach(sk, cJSON_GetObjectItemCaseSensitive(m, "seeks"))
	{
		int r = try_accept(ud, sk);
		if (r != 0)
			return r;
	}
	return 0;
}

/* The slot of message m's game, or NULL. */
static struct cg_slot *slot_of(struct bridge *b, const cJSON *m)
{
	int s = cli_games_find(&b->games, cli_jint(m, "game", -2));
	return s < 0 ? NULL : &b->s[s];
}

static int on_game_start(void *ud, const cJSON *m)
{
	struct bridge *b = ud;
	const char *kind = cli_jstr(m, "kind");
	long long id = cli_jint(m, "game", -1);
	if (kind == NULL || strcmp(kind, "xmas") != 0 || cli_games_find(&b->games, id) >= 0)
		return 0; /* not ours, or given back after a reconnect (its states follow) */
	int slot = cli_games_take(&b->games, id);
	if (slot < 0)
		return 0; /* more games than bots: its turns time out */
	struct cg_slot *e = &b->s[slot];
	e->game = id;
	e->seat = (int)cli_jint(m, "seat", 0);
	b->accept_sent = false;
	if (!b->quiet)
		fprintf(stderr,
		        PROG ": game %lld started, seat %d, %lld ms per turn (%lld the first) (%d "
		             "on)\n",
		        e->game, e->seat, cli_jint(m, "turn_ms", 0),
		        cli_jint(m, "first_turn_ms", cli_jint(m, "turn_ms", 0)),
		        cli_games_on(&b->games));
	return cli_event_game_changed(&b->ev, &b->link.c, cli_games_on(&b->games));
}

static bool want_more(const struct bridge *b)
{
	if (cli_games_on(&b->games) > 0)
		return true;
	if (b->ev.kind == CLI_EV_NONE || (b->games_given && b->played >= b->want_games))
		return b->played < b->want_games;
	return !b->ev.left && !b->ev.over;
}

/* A slot's game is done: a fresh bot for its next game (as on CodinGame), when one comes. */
static int slot_done(struct bridge *b, struct cg_slot *e)
{
	cli_games_drop(&b->games, (int)(e - b->s));
	proc_stop(&e->bot, 300);
	e->game = -1;
	if (b->ev.kind != CLI_EV_NONE && b->games_given && b->played >= b->want_games)
		cli_event_leave(&b->ev, &b->link.c);
	if (!want_more(b))
		return BRIDGE_OVER;
	if (bot_start(e) < 0)
		return BRIDGE_FAILED;
	return cli_event_game_changed(&b->ev, &b->link.c, cli_games_on(&b->games));
}

static int on_game_over(void *ud, const cJSON *m)
{
	struct bridge *b = ud;
	struct cg_slot *e = slot_of(b, m);
	if (e == NULL)
		return 0;
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(m, "result");
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(r, "winner");
	const char *outcome =
	        cJSON_IsNumber(w) ? ((int)w->valuedouble == e->seat ? "win" : "loss") : "draw";
	printf("game %lld: %s %s (%s), seat %d\n", e->game, outcome,
	       cli_jstr(r, "score") ? cli_jstr(r, "score") : "?",
	       cli_jstr(r, "reason") ? cli_jstr(r, "reason") : "?", e->seat);
	fflush(stdout);
	b->played++;
	return slot_done(b, e);
}

static int on_state(void *ud, const cJSON *m)
{
	struct cg_slot *e = slot_of(ud, m);
	if (e == NULL)
		return 0;
	long long seq = cli_jint(m, "seq", -1);
	const cJSON *pos = cJSON_GetObjectItemCaseSensitive(m, "position");
	const char *input = cli_jstr(pos, "input");
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "over")))
		return 0; /* game_over follows */
	if (!cli_to_move_has(m, e->seat) || input == NULL || seq <= e->answered_seq ||
	    seq == e->due_seq)
		return 0;
	e->due_seq = seq; /* a later state replaces an unanswered one */
	if (proc_alive(&e->bot) && proc_write(&e->bot, input, strlen(input)) < 0)
		note(e->b, "the bot is not reading its input;", "this turn's input is dropped");
	return answer(e);
}

static int on_tourney(void *ud, const cJSON *m)
{
	struct bridge *b = ud;
	cli_event_message(&b->ev, PROG, m);
	return want_more(b) ? 0 : BRIDGE_OVER;
}

/* clang-format off */
static const struct cli_route bridge_routes[] = {
        {"error", NULL, on_error},
        {"seek", NULL, on_seek},
        {"ok", "seeks", on_seeks},
        {"game_start", NULL, on_game_start},
        {"game_over", NULL, on_game_over},
        {"state", NULL, on_state},
        {"tourney", NULL, on_tourney},
        {NULL, NULL, NULL},
};
/* clang-format on */

/* On a (new) connection: the seek, the event's join, or a look at the seeks. */
static int bridge_begin(struct bridge *b, const char *seek)
{
	for (int s; (s = cli_games_not_resumed(&b->games, &b->link)) >= 0;) {
		fprintf(stderr, PROG ": game %lld ended while we were away\n", b->games.id[s]);
		int r = slot_done(b, &b->s[s]);
		if (r != 0)
			return r;
	}
	if (b->ev.kind != CLI_EV_NONE)
		return cli_event_join(&b->ev, &b->link.c, cli_games_on(&b->games));
	if (b->seek)
		note(b, "server<", seek);
	return b->seek ? net_send_line(&b->link.c, seek) : net_send_line(&b->link.c, "seeks");
}

/*
 * Runs until the games are over: BRIDGE_OVER, BRIDGE_REFUSED, BRIDGE_FAILED
 * when the bot died before its game or no opponent came in time, < 0 on a
 * failed connection (without an event: an event connects again).
 */
static int bridge_loop(struct bridge *b, const char *seek, int timeout_ms)
{
	long long start = net_now_ms(), last_poll = start;
	int r = bridge_begin(b, seek);
	if (r != 0)
		return r;
	for (;;) {
		if (cli_stop_count() > 1)
			return BRIDGE_OVER;
		if (cli_stop_count() == 1 && !b->ev.left && b->link.up) {
			cli_event_leave(&b->ev, &b->link.c);
			if (!want_more(b))
				return BRIDGE_OVER;
		}
		if (!b->link.up) {
			int up = cli_link_retry(&b->link);
			if (up < 0)
				return NET_EIO;
			if (up > 0 && (r = bridge_begin(b, seek)) != 0) {
				if (r > 0)
					return r;
				cli_link_lost(&b->link, r);
			}
		}
		int n = b->games.nslots, srv = 2 * n;
		struct pollfd pf[2 * CLI_GAMES_MAX + 1];
		for (int i = 0; i < n; i++)
			proc_pollfds(&b->s[i].bot, pf + 2 * i);
		pf[srv] = (struct pollfd){.fd = b->link.up ? b->link.c.fd : -1, .events = POLLIN};
		bool buffered = b->link.up && net_buffered(&b->link.c);
		if (poll(pf, (nfds_t)srv + 1, buffered ? 0 : 100) < 0 && errno != EINTR)
			return NET_EIO;
		for (int i = 0; i < n; i++)
			proc_events(&b->s[i].bot, pf + 2 * i, on_bot_line, &b->s[i]);
		if (b->link.up && (pf[srv].revents || net_buffered(&b->link.c))) {
			r = cli_pump(&b->link.c, PROG, 0, bridge_routes, b);
			if (r < 0 && b->ev.kind != CLI_EV_NONE)
				cli_link_lost(&b->link, r);
			else if (r != 0)
				return r;
		}
		for (int i = 0; i < n; i++) { /* a line that came, or a bot that went */
			if ((r = answer(&b->s[i])) < 0 && b->ev.kind == CLI_EV_NONE)
				return r;
		}
		if (cli_games_on(&b->games) > 0 || b->ev.kind != CLI_EV_NONE)
			continue;
		char why[PROC_ERR_TAIL + 200];
		if (!proc_alive(&b->s[0].bot)) {
			fprintf(stderr, PROG ": the bot stopped before its game (%s)\n",
			        bot_end_text(&b->s[0], why, sizeof why));
			return BRIDGE_FAILED;
		}
		long long now = net_now_ms();
		if (now - start > timeout_ms) {
			fprintf(stderr, PROG ": no opponent within %d s; giving up\n",
			        timeout_ms / 1000);
			return BRIDGE_FAILED;
		}
		if (b->seek == NULL && !b->accept_sent && now - last_poll >= 1000) {
			last_poll = now;
			if ((r = net_send_line(&b->link.c, "seeks")) < 0)
				return r;
		}
	}
}

static bool has_word(const char *text, const char *prefix)
{
	size_t k = strlen(prefix);
	for (const char *p = text; p && *p; p += strcspn(p, " \t"), p += strspn(p, " \t"))
		if (strncmp(p, prefix, k) == 0)
			return true;
	return false;
}

int cmd_cg_bridge(int argc, char **argv)
{
	static struct bridge b; /* the line buffers are big; one bridge per process */
	memset(&b, 0, sizeof b);
	for (int k = 0; k < CLI_GAMES_MAX; k++) {
		b.s[k].b = &b;
		b.s[k].game = -1;
		proc_init(&b.s[k].bot);
		cg_lines_init(&b.s[k].lines);
	}
	b.want_games = 1;
	const char *server = CLI_DEFAULT_SERVER, *name = "cgbot", *game = NULL;
	bool accept = false;
	long long turn_ms = 50, first_ms = 1000, timeout_s = 120, v;
	bool turn_set = false, first_set = false;
	b.seek = "";
	int i;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		int ev = cli_event_arg(&b.ev, PROG, a, val);
		if (ev < 0)
			return cli_usage(argv[0]);
		if (ev > 0) {
			i++;
		} else if (strcmp(a, "--") == 0) {
			i++;
			break;
		} else if (strcmp(a, "--accept") == 0) {
			accept = true;
		} else if (strcmp(a, "--quiet") == 0) {
			b.quiet = true;
		} else if (strcmp(a, "--verbose") == 0) {
			b.verbose = true;
		} else if (val == NULL) {
			return cli_usage(argv[0]);
		} else if (strcmp(a, "--game") == 0) {
			game = argv[++i];
		} else if (strcmp(a, "--server") == 0) {
			server = argv[++i];
		} else if (strcmp(a, "--name") == 0) {
			name = argv[++i];
		} else if (strcmp(a, "--seek") == 0) {
			b.seek = argv[++i];
		} else if (strcmp(a, "--league") == 0 && cli_parse_num(val, 1, 6, &v) == 0) {
			b.league = (int)v;
			i++;
		} else if (strcmp(a, "--games") == 0 && cli_parse_num(val, 1, 1000000, &v) == 0) {
			b.want_games = (int)v;
			b.games_given = true;
			i++;
		} else if (strcmp(a, "--turn-ms") == 0 &&
		           cli_parse_num(val, 10, 3600000, &v) == 0) {
			turn_ms = v;
			turn_set = true;
			i++;
		} else if (strcmp(a, "--first-turn-ms") == 0 &&
		           cli_parse_num(val, 10, 3600000, &v) == 0) {
			first_ms = v;
			first_set = true;
			i++;
		} else if (strcmp(a, "--timeout") == 0 && cli_parse_num(val, 1, 86400, &v) == 0) {
			timeout_s = v;
			i++;
		} else {
			fprintf(stderr, PROG ": bad argument '%s %s'\n", a, val);
			return cli_usage(argv[0]);
		}
	}
	if (game == NULL || strcmp(game, "xmas") != 0) {
		fprintf(stderr, PROG ": only --game xmas is bridged\n");
		return cli_usage(argv[0]);
	}
	if (i >= argc) {
		fprintf(stderr, PROG ": no bot command after --\n");
		return cli_usage(argv[0]);
	}
	if (cli_event_check(&b.ev, PROG) < 0)
		return cli_usage(argv[0]);
	if (b.ev.kind == CLI_EV_LADDER) { /* the server would refuse the join, for ever */
		fprintf(stderr, PROG ": the ladder plays games of alternate moves, not Xmas Rush "
		                     "(use --pool or --tourney)\n");
		return cli_usage(argv[0]);
	}
	if (b.ev.kind != CLI_EV_NONE && (accept || b.seek[0] != '\0')) {
		fprintf(stderr, PROG ": an event (--pool, --tourney) neither seeks nor "
		                     "accepts\n");
		return cli_usage(argv[0]);
	}
	b.cmd = argv + i;
	if (accept || b.ev.kind != CLI_EV_NONE)
		b.seek = NULL;
	if (b.seek != NULL && strpbrk(b.seek, "\r\n") != NULL) {
		fprintf(stderr, PROG ": --seek options are one line\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (b.ev.kind != CLI_EV_NONE)
		cli_stop_catch();

	/* the seek: the referee's turn times unless told otherwise, its league if asked */
	char seek[1200] = "";
	if (b.seek != NULL) {
		bool user_turn = has_word(b.seek, "turn_ms="),
		     user_first = has_word(b.seek, "first_turn_ms=");
		int n = snprintf(seek, sizeof seek, "seek xmas strict=1");
		if (b.league > 0)
			n += snprintf(seek + n, sizeof seek - (size_t)n, " league=%d", b.league);
		if (!user_turn)
			n += snprintf(seek + n, sizeof seek - (size_t)n, " turn_ms=%lld", turn_ms);
		if (!user_first && (first_set || (!user_turn && !turn_set)))
			n += snprintf(seek + n, sizeof seek - (size_t)n, " first_turn_ms=%lld",
			              first_ms);
		if ((size_t)snprintf(seek + n, sizeof seek - (size_t)n, " %s", b.seek) >=
		    sizeof seek - (size_t)n) {
			fprintf(stderr, PROG ": --seek options are too long\n");
			return 2;
		}
	}
	cli_games_init(&b.games, cli_event_slots(&b.ev));
	int r = 0;
	for (int k = 0; k < b.games.nslots && r == 0; k++)
		r = bot_start(&b.s[k]);
	if (r == 0 && cli_link_open(&b.link, PROG, server, name) < 0)
		r = -1;
	if (r == 0)
		r = bridge_loop(&b, seek, (int)timeout_s * 1000);
	for (int k = 0; k < CLI_GAMES_MAX; k++)
		proc_stop(&b.s[k].bot, 300);
	cli_link_close(&b.link);
	if (r < -1)
		fprintf(stderr, PROG ": %s: %s\n", server, net_strerror(r));
	return r == BRIDGE_OVER ? 0 : 1;
}
