/*
 * cmd_tei_bridge.c - `bitarena tei-bridge [--server H:P] [--name NAME]
 * (--seek "tak ..." | --accept | --pool NAME | --ladder "tak ..." [--concurrency N] |
 * --tourney ID) [--games N] [--sizes LIST] [--margin PCT]
 * [--untimed-ms MS] [--timeout SEC] [--quiet] [--verbose] -- <engine ...>`:
 * plays a Tak engine that speaks TEI (Tiltak, Taktician, takbag, Topaz, ...)
 * as a player of bitarenad.
 *
 * The engine is started first (tei ... teiok, isready ... readyok): what it
 * declares decides which games it can play (tei.h: sizes known by its name
 * or given with --sizes, komi through its HalfKomi option only, standard
 * piece counts only). A --seek it cannot play is refused with the reason
 * before anything is posted; with --accept, seeks it cannot play are skipped
 * with the reason. Then for each game: setoption name HalfKomi (only when the
 * engine declared it and its value must change), teinewgame <size>, isready;
 * on each of our moves `position startpos moves <the whole game>` and
 * `go wtime W btime B winc WI binc BI` (tei_clock_told: the real clocks less
 * a margin, or a made-up clock for untimed games). The engine's move is read
 * in any PTN form (explicit counts `1b2>1`, `4c2+4`, a trailing stone letter
 * or annotation), checked in our copy of the position and sent in the
 * server's canonical form.
 *
 * One engine process serves every game (one per game at once in a ladder) and gets `quit`
 * at the end (then
 * SIGTERM, SIGKILL). A crash, a hang (no answer within tei_hang_ms) or an
 * illegal or unreadable move loses that game at once (`resign`), never a stuck
 * game; a crashed or hung engine is started again for the next game. A
 * search still running when its game ended is waited for (never `stop`, which
 * not every engine knows) and its answer dropped before the next game.
 *
 * The moves of the game come from the states in order (`last_move`); if our
 * copy ever disagrees with the server's position (a takeback, a missed state)
 * the whole game is fetched again with `record <game>`.
 *
 * Events (lib/event.h): with --tourney ID it joins that tournament once the engine is ready
 * and plays every game the pairing starts for it, until the tournament's end (PROTOCOL.md
 * §15); with --pool NAME it waits in that pool, joined again after each game (§18); with
 * --ladder "tak ..." [--concurrency N] it joins the ladder (§19) and plays up to N games at
 * once, each with its own engine process (all started before the first game; a crashed one
 * is started again for its next game). In an event it plays until SIGINT/SIGTERM (or
 * --games N when given): the first signal leaves the event and plays out the games on, a
 * second one ends at once; a dropped connection or a restarted server is connected again
 * with a back-off, as the same player, its games resumed.
 *
 * Prints one line per game and a summary; exits 0 when every game was played,
 * 1 on failure, 2 on a usage error or a seek the engine cannot play.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "games/tak/tak.h"
#include "lib/proc.h"
#include "games/record.h"
#include "lib/tei.h"

int cmd_tei_bridge(int argc, char **argv);

#define PROG          "bitarena tei-bridge"
#define HELLO_MS      10000 /* tei ... teiok, and each isready ... readyok */
#define NEWGAME_MS    30000 /* teinewgame may allocate big tables */
#define QUIT_GRACE_MS 1000  /* after quit, before SIGTERM */
#define SKIP_MEMORY   64    /* seek ids whose refusal was already printed */

enum eng_state {
	ENG_DEAD,     /* not running */
	ENG_HELLO,    /* sent tei, reading id/option lines up to teiok */
	ENG_SYNC,     /* sent isready, waiting for readyok */
	ENG_IDLE,     /* waiting for us */
	ENG_THINKING, /* sent go, waiting for bestmove */
};

struct tb_game {
	bool active;   /* between game_start and game_over */
	bool resigned; /* we gave it up (crash, hang, illegal move) */
	bool ready;    /* teinewgame answered */
	bool record_wait;
	long long id;
	int seat;
	bool timed;
	long long inc_ms, clocks[2];
	long long due_seq, answered_seq;
	struct game_params params;
	struct tak_state st; /* the position after moves[] */
	char **moves;        /* the game so far, canonical PTN (owned) */
	size_t nmoves, cap;
};

struct tb;

/* One engine process and the game it plays (a slot of struct cli_games). */
struct tb_slot {
	struct tb *b;
	struct proc eng;
	struct tei_engine tei;
	enum eng_state est;
	long long deadline; /* of the current HELLO/SYNC/THINKING, ms */
	long long sync_game, think_game, think_seq;
	bool eng_ok; /* the running process completed tei ... readyok */
	struct tb_game g;
};

struct tb {
	/* settings */
	const char *seek;    /* "tak ..." or NULL to accept (or to play an event) */
	struct cli_event ev; /* --pool, --ladder, --tourney */
	bool games_given;    /* --games: in an event, stop after that many */
	int want_games, margin_pct, timeout_ms;
	long long untimed_ms;
	unsigned user_sizes;
	bool quiet, verbose;
	char **cmd;

	/* the server */
	struct cli_link link;
	bool seek_open, accept_pending;
	long long last_poll, last_progress;
	long long skipped[SKIP_MEMORY];
	int nskipped;
	struct cli_tally tally;
	struct cli_games games;

	/* the engines: one per game at once */
	bool fatal; /* the engine cannot be used any more */
	struct tb_slot s[CLI_GAMES_MAX];
};

static void say(const struct tb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct tb *b, const char *fmt, ...)
{
	if (b->quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs(PROG ": ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* --- the game record ------------------------------------------------------------ */

static void moves_clear(struct tb_game *g)
{
	for (size_t i = 0; i < g->nmoves; i++)
		free(g->moves[i]);
	g->nmoves = 0;
}

static bool moves_add(struct tb_game *g, const char *text)
{
	if (g->nmoves == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 64;
		char **m = realloc(g->moves, cap * sizeof *m);
		if (m == NULL)
			return false;
		g->moves = m;
		g->cap = cap;
	}
	if ((g->moves[g->nmoves] = strdup(text)) == NULL)
		return false;
	g->nmoves++;
	return true;
}

/* Plays text (any PTN form) on g->st and appends its canonical form; false if it fails. */
static bool play_text(struct tb_game *g, const char *text)
{
	game_move m;
	char canon[GAME_MOVE_TEXT];
	if (tak_parse_ptn(&g->st, text, &m, NULL) < 0 ||
	    tak_format_ptn(&g->st, m, canon, sizeof canon) < 0 || !moves_add(g, canon))
		return false;
	tak_apply(&g->st, m);
	return true;
}

/* Replays texts[0 .. n) from the start into g (texts must not be g->moves). */
static bool replay(struct tb_game *g, char *const *texts, size_t n)
{
	moves_clear(g);
	if (game_tak.init(&g->st, &g->params, 0) < 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!play_text(g, texts[i]))
			return false;
	return true;
}

/* Keeps the first n moves (a takeback). */
static bool truncate_to(struct tb_game *g, size_t n)
{
	char **old = g->moves;
	size_t total = g->nmoves;
	g->moves = NULL;
	g->nmoves = g->cap = 0;
	bool ok = replay(g, old, n);
	for (size_t i = 0; i < total; i++)
		free(old[i]);
	free(old);
	return ok;
}

/* --- the engine ------------------------------------------------------------------ */

static void eng_send(struct tb_slot *e, const char *line)
{
	struct tb *b = e->b;
	if (b->verbose)
		fprintf(stderr, PROG ": engine< %s\n", line);
	if (proc_send(&e->eng, line) < 0 && b->verbose)
		fprintf(stderr, PROG ": (the engine is not reading)\n");
}

static int eng_start(struct tb_slot *e)
{
	struct tb *b = e->b;
	char why[256];
	e->eng.echo_err = b->verbose;
	tei_engine_init(&e->tei);
	if (proc_start(&e->eng, b->cmd, why, sizeof why) < 0) {
		fprintf(stderr, PROG ": %s\n", why);
		b->fatal = true;
		e->est = ENG_DEAD;
		return -1;
	}
	e->est = ENG_HELLO;
	e->eng_ok = false;
	e->g.ready = false; /* a new process needs teinewgame */
	e->deadline = net_now_ms() + HELLO_MS;
	e->sync_game = -1;
	eng_send(e, "tei");
	return 0;
}

/* Loses the current game at once (the engine crashed, hung or played an illegal move). */
static void lose_game(struct tb_slot *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void lose_game(struct tb_slot *e, const char *fmt, ...)
{
	struct tb *b = e->b;
	struct tb_game *g = &e->g;
	if (!g->active || g->resigned)
		return;
	char why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	fprintf(stderr, PROG ": game %lld: %s; resigning\n", g->id, why);
	g->resigned = true;
	g->due_seq = -1;
	cli_link_sendf(&b->link, "resign %lld", g->id);
}

/* The engine is gone or must go: the game it was needed for is lost; restart it if useful. */
static void eng_failed(struct tb_slot *e, const char *what)
{
	struct tb *b = e->b;
	char ex[128], tail[PROC_ERR_TAIL + 1];
	proc_stop(&e->eng, 300);
	proc_exit_text(&e->eng, ex, sizeof ex);
	proc_err_tail(&e->eng, tail, sizeof tail);
	e->est = ENG_DEAD;
	if (!e->eng_ok) { /* it never got through tei ... readyok: it will not next time either */
		fprintf(stderr, PROG ": the engine could not start: %s (it %s)%s%s\n", what, ex,
		        tail[0] ? "; its last words: " : "", tail);
		b->fatal = true;
		return;
	}
	if (e->g.active && !e->g.resigned)
		lose_game(e, "the engine %s (it %s)", what, ex);
	else
		say(e->b, "the engine %s (it %s)", what, ex);
	if (tail[0])
		say(e->b, "its last words: %s", tail);
	/* lobby_advance() starts a new one when another game is wanted */
}

static void on_bestmove(struct tb_slot *e, const char *move)
{
	struct tb *b = e->b;
	struct tb_game *g = &e->g;
	e->est = ENG_IDLE;
	if (!g->active || g->resigned || e->think_game != g->id || e->think_seq != g->due_seq) {
		if (b->verbose)
			fprintf(stderr, PROG ": dropped the answer to a finished search\n");
		return;
	}
	game_move m;
	const char *why = NULL;
	char canon[GAME_MOVE_TEXT];
	int r = tak_parse_ptn(&g->st, move, &m, &why);
	if (r < 0) {
		lose_game(e, "the engine played \"%s\", which is %s: %s", move,
		          r == GAME_ESYNTAX ? "not a move" : "illegal",
		          why ? why : game_strerror(r));
		return;
	}
	tak_format_ptn(&g->st, m, canon, sizeof canon);
	g->answered_seq = g->due_seq;
	g->due_seq = -1;
	cli_link_sendf(&b->link, "move %lld %s", g->id, canon);
}

static int on_engine_line(void *arg, char *line, bool cut)
{
	struct tb_slot *e = arg;
	struct tb *b = e->b;
	struct tei_line l;
	if (b->verbose)
		fprintf(stderr, PROG ": engine> %s%s\n", line, cut ? " (cut)" : "");
	if (cut)
		return 0;
	tei_parse_line(line, &l);
	switch (e->est) {
	case ENG_HELLO:
		if (l.kind == TEI_LINE_ID || l.kind == TEI_LINE_OPTION) {
			tei_engine_add(&e->tei, &l);
		} else if (l.kind == TEI_LINE_TEIOK) {
			tei_engine_ready(&e->tei, b->user_sizes);
			e->est = ENG_SYNC;
			e->deadline = net_now_ms() + HELLO_MS;
			eng_send(e, "isready");
		}
		break;
	case ENG_SYNC:
		if (l.kind == TEI_LINE_READYOK) {
			e->est = ENG_IDLE;
			e->eng_ok = true;
			if (e->g.active && e->sync_game == e->g.id)
				e->g.ready = true;
		}
		break;
	case ENG_THINKING:
		if (l.kind == TEI_LINE_BESTMOVE)
			on_bestmove(e, l.move);
		break;
	default:
		break;
	}
	return 0;
}

/* The position line: "position startpos moves m1 m2 ..." (malloc'd; NULL when out of memory). */
static char *position_line(const struct tb_game *g)
{
	size_t len = sizeof "position startpos moves";
	for (size_t i = 0; i < g->nmoves; i++)
		len += strlen(g->moves[i]) + 1;
	char *s = malloc(len);
	if (s == NULL)
		return NULL;
	size_t at = (size_t)sprintf(s, "position startpos moves");
	for (size_t i = 0; i < g->nmoves; i++)
		at += (size_t)sprintf(s + at, " %s", g->moves[i]);
	return s;
}

/* Gives the engine its next job, when it has none. */
static void eng_advance(struct tb_slot *e)
{
	struct tb *b = e->b;
	struct tb_game *g = &e->g;
	char line[256];
	if (e->est != ENG_IDLE || !g->active || g->resigned)
		return;
	if (!g->ready) {
		if (tei_komi_line(&e->tei, g->st.komi, line, sizeof line))
			eng_send(e, line);
		snprintf(line, sizeof line, "teinewgame %d", g->st.size);
		eng_send(e, line);
		eng_send(e, "isready");
		e->est = ENG_SYNC;
		e->sync_game = g->id;
		e->deadline = net_now_ms() + NEWGAME_MS;
		return;
	}
	if (g->due_seq <= g->answered_seq || g->record_wait)
		return;
	char *pos = position_line(g);
	if (pos == NULL) {
		lose_game(e, "out of memory");
		return;
	}
	struct tei_clock clk;
	tei_clock_told(g->timed, g->clocks, g->inc_ms, b->margin_pct, b->untimed_ms, &clk);
	tei_format_go(&clk, line, sizeof line);
	eng_send(e, pos);
	eng_send(e, line);
	free(pos);
	e->est = ENG_THINKING;
	e->think_game = g->id;
	e->think_seq = g->due_seq;
	e->deadline = net_now_ms() + tei_hang_ms(&clk, g->seat);
}

/* Deadlines and deaths of the engine. */
static void eng_check(struct tb_slot *e)
{
	if (e->est == ENG_DEAD)
		return;
	if (!proc_alive(&e->eng)) {
		eng_failed(e, "exited");
		return;
	}
	if (net_now_ms() < e->deadline || e->est == ENG_IDLE)
		return;
	switch (e->est) {
	case ENG_HELLO:
		eng_failed(e, "did not answer tei with teiok");
		break;
	case ENG_SYNC:
		eng_failed(e, "did not answer isready with readyok");
		break;
	case ENG_THINKING:
		eng_failed(e, "did not answer go with bestmove in time (hung)");
		break;
	default:
		break;
	}
}

/* --- the lobby ------------------------------------------------------------------ */

/* Tak parameters from a JSON options object; false when they are not Tak's. */
static bool tak_params(const cJSON *opts, struct game_params *p, struct tak_state *st)
{
	return cli_params_from_json(&game_tak, opts, p) && game_tak.init(st, p, 0) == GAME_OK;
}

/* Why the engine cannot play a game with these parameters (buf), or NULL (every engine
   process runs the same program: the first one's declarations stand for all). */
static const char *cannot_play(const struct tb *b, const struct game_params *p,
                               const struct tak_state *st, char *buf, size_t len)
{
	return tei_cannot_play(&b->s[0].tei, st->size, st->komi, (int)p->v[TAK_OPT_PIECES],
	                       (int)p->v[TAK_OPT_CAPS], buf, len);
}

static bool skipped_before(struct tb *b, long long id)
{
	for (int i = 0; i < b->nskipped && i < SKIP_MEMORY; i++)
		if (b->skipped[i] == id)
			return true;
	b->skipped[b->nskipped++ % SKIP_MEMORY] = id;
	return false;
}

/* A free slot whose engine is ready for a game, or NULL. */
static struct tb_slot *idle_slot(struct tb *b)
{
	for (int i = 0; i < b->games.nslots; i++)
		if (b->games.id[i] == 0 && b->s[i].est == ENG_IDLE)
			return &b->s[i];
	return NULL;
}

/* Whether the bridge goes on: games wanted, an event not over, games still on. */
static bool want_more(const struct tb *b)
{
	if (b->ev.kind == CLI_EV_NONE)
		return b->tally.played < b->want_games;
	if (cli_games_on(&b->games) > 0)
		return true;
	return !b->ev.left && !b->ev.over && !(b->games_given && b->tally.played >= b->want_games);
}

static void try_accept(struct tb *b, const cJSON *seek)
{
	const char *kind = cli_jstr(seek, "kind"), *by = cli_jstr(seek, "by");
	long long id = cli_jint(seek, "id", 0);
	if (b->ev.kind != CLI_EV_NONE || cli_games_on(&b->games) > 0 || b->accept_pending ||
	    idle_slot(b) == NULL || !want_more(b) || kind == NULL || strcmp(kind, "tak") != 0 ||
	    (by && strcmp(by, b->link.name) == 0))
		return;
	struct game_params p;
	struct tak_state st;
	char why[256];
	const char *no = NULL;
	if (!tak_params(cJSON_GetObjectItemCaseSensitive(seek, "options"), &p, &st))
		no = "options this bridge does not know";
	else
		no = cannot_play(b, &p, &st, why, sizeof why);
	if (no != NULL) {
		if (!skipped_before(b, id))
			say(b, "not accepting seek %lld by %s: %s", id, by ? by : "?", no);
		return;
	}
	if (cli_link_sendf(&b->link, "accept %lld", id) == 0)
		b->accept_pending = true;
}

/* Engines started again where they died; the seek, the poll of seeks. */
static void lobby_advance(struct tb *b)
{
	for (int i = 0; i < b->games.nslots && !b->fatal; i++)
		if (b->games.id[i] == 0 && b->s[i].est == ENG_DEAD && want_more(b))
			eng_start(&b->s[i]); /* it crashed or hung in the last game */
	if (!b->link.up || b->ev.kind != CLI_EV_NONE || cli_games_on(&b->games) > 0 ||
	    !want_more(b) || idle_slot(b) == NULL)
		return;
	if (b->seek != NULL && !b->seek_open) {
		if (cli_link_sendf(&b->link, "seek %s", b->seek) == 0)
			b->seek_open = true;
	} else if (b->seek == NULL && !b->accept_pending && net_now_ms() - b->last_poll >= 1000) {
		b->last_poll = net_now_ms();
		cli_link_sendf(&b->link, "seeks");
	}
}

/* --- the server's messages ---------------------------------------------------------- */

/* The slot of message m's game, or NULL when it is none of ours. */
static struct tb_slot *slot_of(struct tb *b, const cJSON *m)
{
	int s = cli_games_find(&b->games, cli_jint(m, "game", -1));
	return s < 0 ? NULL : &b->s[s];
}

static int on_game_start(void *ud, const cJSON *m)
{
	struct tb *b = ud;
	const char *kind = cli_jstr(m, "kind");
	long long id = cli_jint(m, "game", -1);
	if (kind == NULL || strcmp(kind, "tak") != 0)
		return 0;
	b->last_progress = net_now_ms();
	b->seek_open = b->accept_pending = false;
	int known = cli_games_find(&b->games, id);
	if (known >= 0) { /* given back after a reconnect: states follow */
		/* a move sent before the server went away may not have been stored: the state given
		   back can carry the seq we answered, and is answered again (a search still running
		   for it is kept: its seq becomes due again) */
		b->s[known].g.answered_seq = 0;
		b->s[known].g.due_seq = -1;
		return 0;
	}
	int slot = cli_games_take(&b->games, id);
	if (slot < 0) { /* more games than engines: cannot be played */
		fprintf(stderr, PROG ": game %lld: no engine free for it; resigning\n", id);
		cli_link_sendf(&b->link, "resign %lld", id);
		return 0;
	}
	struct tb_slot *e = &b->s[slot];
	struct tb_game *g = &e->g;
	moves_clear(g);
	g->active = true;
	g->resigned = g->ready = g->record_wait = false;
	g->id = id;
	g->seat = (int)cli_jint(m, "seat", 0);
	g->due_seq = -1;
	g->answered_seq = 0;
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(m, "time");
	g->timed = cJSON_IsObject(t);
	g->inc_ms = cli_jint(t, "inc_ms", 0);
	g->clocks[0] = g->clocks[1] = cli_jint(t, "base_ms", 0);
	say(b, "game %lld started: seat %d (%d on)", g->id, g->seat, cli_games_on(&b->games));
	char why[256];
	const char *no;
	if (!tak_params(cJSON_GetObjectItemCaseSensitive(m, "options"), &g->params, &g->st))
		lose_game(e, "options this bridge does not know");
	else if ((no = cannot_play(b, &g->params, &g->st, why, sizeof why)) != NULL)
		lose_game(e, "%s", no);
	else if (e->est == ENG_DEAD || !e->eng_ok)
		lose_game(e, "its engine is not running");
	return cli_event_game_changed(&b->ev, &b->link.c, cli_games_on(&b->games)) < 0;
}

/* A slot's game is over (or gone while we were away): the slot is free again. */
static void game_done(struct tb *b, struct tb_slot *e)
{
	e->g.active = false;
	cli_games_drop(&b->games, (int)(e - b->s));
}

static int on_game_over(void *ud, const cJSON *m)
{
	struct tb *b = ud;
	struct tb_slot *e = slot_of(b, m);
	if (e == NULL)
		return 0;
	cli_tally_game(&b->tally, m, e->g.id, e->g.seat, false);
	game_done(b, e);
	b->last_progress = net_now_ms();
	if (b->ev.kind != CLI_EV_NONE && b->games_given && b->tally.played >= b->want_games)
		cli_event_leave(&b->ev, &b->link.c);
	if (want_more(b))
		return cli_event_game_changed(&b->ev, &b->link.c, cli_games_on(&b->games)) < 0;
	return 0;
}

/* Brings our copy of the game up to a state; false when it cannot follow (fetch the record). */
static bool follow(struct tb_game *g, const cJSON *m)
{
	long long ply = cli_jint(m, "ply", -1);
	const char *last = cli_jstr(m, "last_move");
	const char *tps = cli_jstr(cJSON_GetObjectItemCaseSensitive(m, "position"), "tps");
	if (ply < 0)
		return false;
	if ((size_t)ply == g->nmoves + 1 && last != NULL) {
		if (!play_text(g, last))
			return false;
	} else if ((size_t)ply < g->nmoves) {
		if (!truncate_to(g, (size_t)ply))
			return false;
	} else if ((size_t)ply != g->nmoves) {
		return false;
	}
	char mine[2048];
	return tps == NULL ||
	       (tak_save_tps(&g->st, mine, sizeof mine) >= 0 && strcmp(mine, tps) == 0);
}

static int on_state(void *ud, const cJSON *m)
{
	struct tb *b = ud;
	struct tb_slot *e = slot_of(b, m);
	if (e == NULL || !e->g.active)
		return 0;
	struct tb_game *g = &e->g;
	b->last_progress = net_now_ms();
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "over")))
		return 0; /* game_over follows */
	const cJSON *clk = cJSON_GetObjectItemCaseSensitive(m, "clocks");
	if (cJSON_GetArraySize(clk) == 2) {
		g->clocks[0] = (long long)cJSON_GetArrayItem(clk, 0)->valuedouble;
		g->clocks[1] = (long long)cJSON_GetArrayItem(clk, 1)->valuedouble;
	}
	if (!g->record_wait && !follow(g, m)) {
		g->record_wait = true;
		cli_link_sendf(&b->link, "record %lld", g->id);
	}
	long long seq = cli_jint(m, "seq", -1);
	if (cli_to_move_has(m, g->seat) && seq > g->answered_seq)
		g->due_seq = seq;
	return 0;
}

/* The answer to "record <game>": the whole game again. */
static int on_record(void *ud, const cJSON *m)
{
	struct tb *b = ud;
	struct tb_slot *e = slot_of(b, m);
	const char *text = cli_jstr(m, "record");
	if (e == NULL || !e->g.active || !e->g.record_wait || text == NULL)
		return 0;
	struct tb_game *g = &e->g;
	struct record r;
	record_init(&r);
	bool ok = record_parse(text, strlen(text), &r, NULL) == RECORD_OK &&
	          replay(g, r.moves, r.nmoves);
	record_clear(&r);
	g->record_wait = false;
	if (!ok)
		lose_game(e, "cannot follow the game (its record does not replay)");
	return 0;
}

/* A tournament's news: progress while others play; its end stops the bridge after its game. */
static int on_tourney(void *ud, const cJSON *m)
{
	struct tb *b = ud;
	b->last_progress = net_now_ms();
	cli_event_message(&b->ev, PROG, m);
	return 0;
}

static int on_seek(void *ud, const cJSON *m)
{
	const char *ev = cli_jstr(m, "event");
	if (ev != NULL && strcmp(ev, "new") == 0)
		try_accept(ud, cJSON_GetObjectItemCaseSensitive(m, "seek"));
	return 0;
}

static int on_seeks(void *ud, const cJSON *m)
{
	const cJSON *s;
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(m, "seeks"))
	{
		try_accept(ud, s);
	}
	return 0;
}

/* A refusal: BRIDGE_STOP when the bridge cannot go on. */
#define BRIDGE_STOP 1
static int on_error(void *ud, const cJSON *m)
{
	struct tb *b = ud;
	const char *code = cli_jstr(m, "code"), *cmd = cli_jstr(m, "cmd");
	if (cli_event_message(&b->ev, PROG, m) < 0)
		return BRIDGE_STOP; /* not in the event: nothing will start */
	fprintf(stderr, PROG ": server error %s%s%s: %s\n", code ? code : "?", cmd ? " on " : "",
	        cmd ? cmd : "", cli_jstr(m, "message") ? cli_jstr(m, "message") : "");
	if (cmd == NULL)
		return 0;
	if (strcmp(cmd, "seek") == 0)
		return BRIDGE_STOP; /* it would be refused again */
	if (strcmp(cmd, "accept") == 0)
		b->accept_pending = false;
	struct tb_slot *e = slot_of(b, m);
	if (e == NULL && b->games.nslots == 1 && b->games.id[0] != 0)
		e = &b->s[0]; /* an error that names no game: the one game on */
	if (e == NULL)
		return 0;
	if (strcmp(cmd, "move") == 0 && code != NULL && strcmp(code, "GAME_OVER") != 0)
		lose_game(e, "the server refused the engine's move");
	if (strcmp(cmd, "record") == 0 && e->g.record_wait) {
		e->g.record_wait = false;
		lose_game(e, "cannot follow the game (no record)");
	}
	return 0;
}

static int on_info(void *ud, const cJSON *m)
{
	say(ud, "%s", cli_jstr(m, "message") ? cli_jstr(m, "message") : "server info");
	return 0;
}

/* clang-format off */
static const struct cli_route routes[] = {
        {"state", NULL, on_state},
        {"game_start", NULL, on_game_start},
        {"game_over", NULL, on_game_over},
        {"seek", NULL, on_seek},
        {"ok", "seeks", on_seeks},
        {"ok", "record", on_record},
        {"tourney", NULL, on_tourney},
        {"error", NULL, on_error},
        {"info", NULL, on_info},
        {NULL, NULL, NULL},
};
/* clang-format on */

/* --- the loop ---------------------------------------------------------------------- */

/*
 * One pass: waits up to 100 ms for the server or the engines, handles what came. Returns 0,
 * -1 when the bridge cannot go on, 1 when the server was lost (the caller connects again).
 */
static int pump(struct tb *b)
{
	struct pollfd pf[2 * CLI_GAMES_MAX + 1];
	int n = b->games.nslots, srv = 2 * n;
	for (int i = 0; i < n; i++)
		proc_pollfds(&b->s[i].eng, pf + 2 * i);
	pf[srv] = (struct pollfd){.fd = b->link.up ? b->link.c.fd : -1, .events = POLLIN};
	int timeout = b->link.up && net_buffered(&b->link.c) ? 0 : 100;
	if (poll(pf, (nfds_t)srv + 1, timeout) < 0 && errno != EINTR)
		return -1;
	for (int i = 0; i < n; i++)
		proc_events(&b->s[i].eng, pf + 2 * i, on_engine_line, &b->s[i]);
	int lost = 0;
	if (b->link.up && (pf[srv].revents || net_buffered(&b->link.c))) {
		int r = cli_pump(&b->link.c, PROG, 0, routes, b);
		if (r < 0 && b->ev.kind != CLI_EV_NONE) {
			cli_link_lost(&b->link, r);
			lost = 1;
		} else if (r < 0) {
			fprintf(stderr, PROG ": lost the server: %s\n",
			        r == NET_ECLOSED ? "it closed the connection" : net_strerror(r));
			return -1;
		} else if (r != 0) {
			return -1;
		}
	}
	for (int i = 0; i < n; i++) {
		eng_check(&b->s[i]);
		eng_advance(&b->s[i]);
	}
	return b->fatal ? -1 : lost;
}

/* Joins the event on a (new) connection; after a reconnect, forgets the games not given back. */
static int bridge_begin(struct tb *b)
{
	b->last_progress = net_now_ms();
	b->seek_open = b->accept_pending = false;
	for (int s; (s = cli_games_not_resumed(&b->games, &b->link)) >= 0;) {
		fprintf(stderr, PROG ": game %lld ended while we were away\n", b->games.id[s]);
		game_done(b, &b->s[s]);
	}
	return cli_event_join(&b->ev, &b->link.c, cli_games_on(&b->games));
}

static int bridge_loop(struct tb *b)
{
	bool events = b->ev.kind != CLI_EV_NONE;
	b->last_progress = b->last_poll = net_now_ms();
	b->last_poll -= 1000;
	if (bridge_begin(b) < 0)
		return 1;
	while (want_more(b)) {
		if (cli_stop_count() > 1) {
			fprintf(stderr, PROG ": stopped with %d game(s) on\n",
			        cli_games_on(&b->games));
			return 0;
		}
		if (cli_stop_count() == 1 && !b->ev.left && b->link.up) {
			say(b, "leaving; %d game(s) on are played out", cli_games_on(&b->games));
			cli_event_leave(&b->ev, &b->link.c);
			continue;
		}
		if (!b->link.up) {
			int up = cli_link_retry(&b->link);
			if (up < 0)
				return 1;
			if (up > 0 && bridge_begin(b) < 0)
				cli_link_lost(&b->link, NET_EIO);
		}
		lobby_advance(b);
		int r = pump(b);
		if (r < 0)
			return 1;
		bool thinking = false;
		for (int i = 0; i < b->games.nslots; i++)
			thinking |= b->s[i].est == ENG_THINKING;
		if (!thinking && (!events || cli_games_on(&b->games) > 0) && b->link.up &&
		    net_now_ms() - b->last_progress > b->timeout_ms) {
			fprintf(stderr, PROG ": nothing happened for %d s (%s); giving up\n",
			        b->timeout_ms / 1000,
			        cli_games_on(&b->games) > 0 ? "game stalled" : "no opponent");
			return 1;
		}
	}
	return 0;
}

/* Ends an engine: quit, a grace to exit by itself, then signals. */
static void eng_quit(struct tb_slot *e)
{
	if (proc_alive(&e->eng)) {
		eng_send(e, "quit");
		e->est = ENG_DEAD;
		long long end = net_now_ms() + QUIT_GRACE_MS;
		while (net_now_ms() < end && !proc_reap(&e->eng)) {
			struct pollfd pf[2];
			proc_pollfds(&e->eng, pf);
			poll(pf, 2, 10);
			proc_events(&e->eng, pf, on_engine_line, e);
		}
	}
	proc_stop(&e->eng, 300);
}

/* A login name from the engine's id name: its [A-Za-z0-9_-] characters, else "tei". */
static void default_name(const struct tei_engine *e, char *buf, size_t len)
{
	size_t n = 0;
	for (const char *p = e->name; *p && n + 1 < len && n < 16; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '_' || *p == '-')
			buf[n++] = *p;
	buf[n] = '\0';
	if (n < 2)
		snprintf(buf, len, "tei");
}

int cmd_tei_bridge(int argc, char **argv)
{
	static struct tb b; /* big (the position); one per process */
	memset(&b, 0, sizeof b);
	for (int k = 0; k < CLI_GAMES_MAX; k++) {
		proc_init(&b.s[k].eng);
		b.s[k].b = &b;
		b.s[k].g.due_seq = -1;
	}
	b.want_games = 1;
	b.margin_pct = 25;
	b.untimed_ms = 10000;
	b.timeout_ms = 120000;
	const char *server = CLI_DEFAULT_SERVER, *name = NULL;
	bool accept = false;
	long long v;
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
			fprintf(stderr, PROG ": bad argument '%s'\n", a);
			return cli_usage(argv[0]);
		} else if (strcmp(a, "--server") == 0) {
			server = argv[++i];
		} else if (strcmp(a, "--name") == 0) {
			name = argv[++i];
		} else if (strcmp(a, "--seek") == 0) {
			b.seek = argv[++i];
		} else if (strcmp(a, "--sizes") == 0 &&
		           (b.user_sizes = tei_parse_sizes(val)) != 0) {
			i++;
		} else if (strcmp(a, "--games") == 0 && cli_parse_num(val, 1, 1000000, &v) == 0) {
			b.want_games = (int)v;
			b.games_given = true;
			i++;
		} else if (strcmp(a, "--margin") == 0 && cli_parse_num(val, 0, 90, &v) == 0) {
			b.margin_pct = (int)v;
			i++;
		} else if (strcmp(a, "--untimed-ms") == 0 &&
		           cli_parse_num(val, 10, 3600000, &v) == 0) {
			b.untimed_ms = v;
			i++;
		} else if (strcmp(a, "--timeout") == 0 && cli_parse_num(val, 1, 86400, &v) == 0) {
			b.timeout_ms = (int)v * 1000;
			i++;
		} else {
			fprintf(stderr, PROG ": bad argument '%s %s'\n", a, val);
			return cli_usage(argv[0]);
		}
	}
	if (cli_event_check(&b.ev, PROG) < 0)
		return cli_usage(argv[0]);
	if ((b.seek != NULL) + accept + (b.ev.kind != CLI_EV_NONE) != 1) {
		fprintf(stderr, PROG ": give one of --seek \"tak [opt=value ...]\", --accept, --pool "
		                     "NAME, --ladder \"tak [opt=value ...]\" or --tourney ID\n");
		return cli_usage(argv[0]);
	}
	if (i >= argc) {
		fprintf(stderr, PROG ": no engine command after --\n");
		return cli_usage(argv[0]);
	}
	b.cmd = argv + i;
	struct game_params sp;
	struct tak_state sst;
	if (b.seek != NULL) {
		/* the seek's Tak options, checked now (time=, color=, rated= are the server's) */
		char words[1024], *save = NULL;
		snprintf(words, sizeof words, "%s", b.seek);
		char *w = strtok_r(words, " \t", &save);
		if (w == NULL || strcmp(w, "tak") != 0 || strpbrk(b.seek, "\r\n") != NULL) {
			fprintf(stderr, PROG ": --seek takes \"tak [opt=value ...]\"\n");
			return 2;
		}
		game_params_default(&game_tak, &sp);
		while ((w = strtok_r(NULL, " \t", &save)) != NULL) {
			const char *why = NULL;
			if (game_param_word(&game_tak, &sp, w, &why) < 0) {
				fprintf(stderr, PROG ": --seek: %s: %s\n", w,
				        why ? why : "bad option");
				return 2;
			}
		}
		if (game_tak.init(&sst, &sp, 0) < 0) {
			fprintf(stderr, PROG ": --seek: these Tak options do not fit together\n");
			return 2;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	if (b.ev.kind != CLI_EV_NONE)
		cli_stop_catch();

	/* one engine process per game at once, all started and ready before the first game */
	int rc = 1;
	cli_games_init(&b.games, cli_event_slots(&b.ev));
	for (int k = 0; k < b.games.nslots && !b.fatal; k++)
		eng_start(&b.s[k]);
	for (bool ready = false; !b.fatal && !ready && cli_stop_count() == 0;) {
		pump(&b);
		ready = true;
		for (int k = 0; k < b.games.nslots; k++)
			ready &= b.s[k].est == ENG_IDLE;
	}
	if (b.fatal || cli_stop_count() > 0)
		goto out;
	const struct tei_engine *tei = &b.s[0].tei;
	say(&b, "engine %s%s%s ready (sizes %s, HalfKomi %s)%s", tei->name[0] ? tei->name : "?",
	    tei->author[0] ? " by " : "", tei->author, b.user_sizes ? "as given" : "as known",
	    tei_engine_option(tei, "HalfKomi") ? "declared" : "not declared",
	    b.games.nslots > 1 ? ", one process per game" : "");
	if (b.seek != NULL) {
		char why[256];
		if (cannot_play(&b, &sp, &sst, why, sizeof why) != NULL) {
			fprintf(stderr, PROG ": not seeking \"%s\": %s\n", b.seek, why);
			rc = 2;
			goto out;
		}
	}
	char want[PROTO_NAME_MAX + 1];
	if (name == NULL)
		default_name(tei, want, sizeof want);
	if (cli_link_open(&b.link, PROG, server, name ? name : want) < 0)
		goto out;
	say(&b, "logged in to %s as %s", server, b.link.name);
	rc = bridge_loop(&b);
	if (rc == 0 && b.link.up)
		net_send_line(&b.link.c, "quit");
	if (b.ev.kind != CLI_EV_NONE)
		say(&b, "at most %d game(s) at once, %d reconnection(s)", b.games.max_on,
		    b.link.reconnects);
	cli_tally_print(&b.tally);
out:
	for (int k = 0; k < CLI_GAMES_MAX; k++) {
		eng_quit(&b.s[k]);
		moves_clear(&b.s[k].g);
		free(b.s[k].g.moves);
	}
	cli_link_close(&b.link);
	return rc;
}
