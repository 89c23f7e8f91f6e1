/*
 * cmd_tei.c - `bitarena tei [--hash MB]`: the Tak player of tak_search.h as
 * a TEI engine on stdin/stdout (rules file tak.md section 4), so any TEI
 * tool (racetrack, a TEI bridge) can run it.
 *
 *   tei                         -> id name / id author / options / teiok
 *   isready                     -> readyok (also answered during a search)
 *   setoption name HalfKomi value N    komi in half flats, 0..8 (spin)
 *   setoption name Hash value MB       transposition table size
 *   teinewgame <size>           a new game on a size x size board (3..8)
 *   position startpos [moves M ...]
 *   position tps <board> <turn> <move> [moves M ...]
 *   go [wtime W] [btime B] [winc I] [binc I] [movetime T] [depth D]
 *      [nodes N] [infinite]     -> info ... lines, then bestmove <ptn>
 *   stop                        ends a search at once (its bestmove follows)
 *   quit
 *
 * Moves are read in every PTN form (a1, Fa1, Sa1, Ca1, a1>, 3a1>12, 1a1>1)
 * and written in canonical PTN. `go` with a clock budgets the mover's time
 * (tak_search_budget); `go` with no limit at all thinks for 1 s; `go
 * infinite` until stop. While searching, the engine keeps reading its input:
 * stop, quit and isready are handled at once, other commands wait for the
 * bestmove. A command it cannot carry out is answered with an "info string"
 * line saying why; unknown commands are ignored, as in UCI.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "config.h"
#include "games/tak/tak.h"
#include "games/tak/tak_search.h"

int cmd_tei(int argc, char **argv);

#define TEI_LINE_MAX  (64 * 1024) /* a position with a long move list */
#define TEI_PENDING   16          /* commands that arrive during a search and wait */
#define DEFAULT_GO_MS 1000

struct tei {
	struct net_conn in;
	struct tak_search *ts;
	size_t hash_mb;
	int size, komi;
	struct tak_state pos;
	bool have_pos, quit, stop, searching;
	char *pending[TEI_PENDING]; /* owned copies, in arrival order */
	int npending;
	uint64_t games;
};

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* Splits line into at most max words (in place); returns the count. */
static int words(char *line, char **w, int max)
{
	int n = 0;
	char *save = NULL;
	for (char *t = strtok_r(line, " \t\r", &save); t && n < max;
	     t = strtok_r(NULL, " \t\r", &save))
		w[n++] = t;
	return n;
}

static bool parse_int(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static void new_position(struct tei *t, struct tak_state *st)
{
	struct game_params p;
	game_params_default(&game_tak, &p);
	p.v[TAK_OPT_SIZE] = t->size;
	p.v[TAK_OPT_KOMI] = t->komi;
	tak_setup(st, &p, NULL);
}

/* position startpos|tps ... [moves ...] */
static void cmd_position(struct tei *t, char **w, int n)
{
	struct tak_state st;
	int i = 1;
	if (n >= 2 && strcmp(w[1], "startpos") == 0) {
		new_position(t, &st);
		i = 2;
	} else if (n >= 5 && strcmp(w[1], "tps") == 0) {
		struct game_params p;
		char text[1024];
		game_params_default(&game_tak, &p);
		p.v[TAK_OPT_KOMI] = t->komi;
		snprintf(text, sizeof text, "%s %s %s", w[2], w[3], w[4]);
		if (tak_load_tps(&st, &p, text) < 0) {
			say("info string cannot read the TPS %s", text);
			t->have_pos = false;
			return;
		}
		i = 5;
	} else {
		say("info string position needs startpos or tps <board> <turn> <move>");
		t->have_pos = false;
		return;
	}
	if (i < n && strcmp(w[i], "moves") == 0)
		i++;
	for (; i < n; i++) {
		game_move m;
		const char *why = NULL;
		if (tak_parse_ptn(&st, w[i], &m, &why) < 0 || tak_apply(&st, m) < 0) {
			say("info string move %s: %s", w[i], why ? why : "not playable here");
			t->have_pos = false;
			return;
		}
	}
	t->pos = st;
	t->have_pos = true;
}

/* --- searching ------------------------------------------------------------------ */

/* Reads what has arrived during a search: stop, quit, isready at once, the rest later. */
static bool tei_poll(void *arg)
{
	struct tei *t = arg;
	char *line;
	int r;
	while ((r = net_read_line(&t->in, 0, &line)) != NET_ETIMEOUT) {
		if (r == NET_ETOOLONG)
			continue;
		if (r < 0) { /* input closed: finish as if told to quit */
			t->quit = t->stop = true;
			break;
		}
		char *s = line;
		while (isspace((unsigned char)*s))
			s++;
		if (strncmp(s, "stop", 4) == 0 && (s[4] == '\0' || isspace((unsigned char)s[4])))
			t->stop = true;
		else if (strncmp(s, "quit", 4) == 0 &&
		         (s[4] == '\0' || isspace((unsigned char)s[4])))
			t->quit = t->stop = true;
		else if (strncmp(s, "isready", 7) == 0)
			say("readyok");
		else if (*s != '\0' && t->npending < TEI_PENDING)
			t->pending[t->npending++] = strdup(s);
	}
	return t->stop;
}

static void format_score(int score, char *buf, size_t len)
{
	if (score >= TAK_SCORE_PROVEN)
		snprintf(buf, len, "mate %d", (TAK_SCORE_WIN - score + 1) / 2);
	else if (score <= -TAK_SCORE_PROVEN)
		snprintf(buf, len, "mate -%d", (TAK_SCORE_WIN + score) / 2);
	else
		snprintf(buf, len, "cp %d", score);
}

static void tei_info(void *arg, const struct tak_search_info *in)
{
	struct tei *t = arg;
	char line[4096], sc[32];
	format_score(in->score, sc, sizeof sc);
	unsigned long long nps = in->ms > 0 ? in->nodes * 1000ULL / (unsigned long long)in->ms : 0;
	int at = snprintf(line, sizeof line,
	                  "info depth %d seldepth %d score %s nodes %llu time %lld nps %llu pv",
	                  in->depth, in->seldepth, sc, (unsigned long long)in->nodes, in->ms, nps);
	struct tak_state st = t->pos;
	for (int i = 0; i < in->npv && at < (int)sizeof line - GAME_MOVE_TEXT - 2; i++) {
		char mv[GAME_MOVE_TEXT];
		if (st.result != TAK_ONGOING || tak_format_ptn(&st, in->pv[i], mv, sizeof mv) < 0 ||
		    tak_apply(&st, in->pv[i]) < 0)
			break;
		at += snprintf(line + at, sizeof line - (size_t)at, " %s", mv);
	}
	say("%s", line);
}

/* go ...: searches the current position and answers bestmove. */
static void cmd_go(struct tei *t, char **w, int n)
{
	long long v, left[2] = {-1, -1}, inc[2] = {0, 0}, movetime = -1;
	struct tak_search_limits lim = {
	        .now_ms = net_now_ms, .poll = tei_poll, .arg = t, .info = tei_info};
	bool infinite = false;
	for (int i = 1; i < n; i++) {
		const char *key = w[i], *val = i + 1 < n ? w[i + 1] : "";
		if (strcmp(key, "infinite") == 0) {
			infinite = true;
			continue;
		}
		if (!parse_int(val, -1000000000LL, 1LL << 50, &v)) {
			continue; /* a word we do not know, or one without a number */
		}
		i++;
		if (strcmp(key, "wtime") == 0)
			left[TAK_WHITE] = v;
		else if (strcmp(key, "btime") == 0)
			left[TAK_BLACK] = v;
		else if (strcmp(key, "winc") == 0)
			inc[TAK_WHITE] = v;
		else if (strcmp(key, "binc") == 0)
			inc[TAK_BLACK] = v;
		else if (strcmp(key, "movetime") == 0)
			movetime = v;
		else if (strcmp(key, "depth") == 0)
			lim.depth = v > 0 && v < TAK_SEARCH_MAX_PLY ? (int)v : 0;
		else if (strcmp(key, "nodes") == 0)
			lim.nodes = v > 0 ? (uint64_t)v : 0;
	}
	if (!t->have_pos) {
		say("info string no position to search: send position first");
		say("bestmove (none)");
		return;
	}
	const int me = (int)(t->pos.ply & 1);
	if (infinite) {
		/* until stop */
	} else if (movetime >= 0) {
		lim.soft_ms = lim.hard_ms = movetime > 20 ? movetime - 10 : movetime + 1;
	} else if (left[me] >= 0) {
		tak_search_budget(&t->pos, left[me], inc[me], &lim.soft_ms, &lim.hard_ms);
	} else if (lim.depth == 0 && lim.nodes == 0) {
		lim.soft_ms = lim.hard_ms = DEFAULT_GO_MS;
	}
	lim.seed = t->games * 0x9E3779B97F4A7C15ULL + t->pos.ply;
	struct tak_search_result res;
	t->stop = false;
	t->searching = true;
	int r = tak_search_best(t->ts, &t->pos, &lim, &res);
	t->searching = false;
	char mv[GAME_MOVE_TEXT];
	if (r < 0 || tak_format_ptn(&t->pos, res.best, mv, sizeof mv) < 0) {
		say("info string the game is over: no move to make");
		say("bestmove (none)");
		return;
	}
	say("bestmove %s", mv);
}

/* --- commands ------------------------------------------------------------------- */

static void cmd_setoption(struct tei *t, char **w, int n)
{
	/* setoption name <Name> value <N> */
	long long v;
	if (n < 5 || strcmp(w[1], "name") != 0 || strcmp(w[3], "value") != 0) {
		say("info string setoption name <option> value <value>");
		return;
	}
	if (strcasecmp(w[2], "HalfKomi") == 0 && parse_int(w[4], 0, 8, &v)) {
		t->komi = (int)v;
		t->have_pos = false;
	} else if (strcasecmp(w[2], "Hash") == 0 && parse_int(w[4], 1, 4096, &v)) {
		struct tak_search *ts = tak_search_new((size_t)v);
		if (ts == NULL) {
			say("info string no memory for a %lld MiB table; keeping %zu MiB", v,
			    t->hash_mb);
			return;
		}
		tak_search_free(t->ts);
		t->ts = ts;
		t->hash_mb = (size_t)v;
	} else {
		say("info string unknown option or value: %s %s", w[2], w[4]);
	}
}

static void handle(struct tei *t, char *line)
{
	char *w[1024];
	int n = words(line, w, (int)(sizeof w / sizeof w[0]));
	long long v;
	if (n == 0)
		return;
	if (strcmp(w[0], "tei") == 0) {
		say("id name bitarena %s", PACKAGE_VERSION);
		say("id author the bitarena authors");
		say("option name HalfKomi type spin default 0 min 0 max 8");
		say("option name Hash type spin default %zu min 1 max 4096", t->hash_mb);
		say("teiok");
	} else if (strcmp(w[0], "isready") == 0) {
		say("readyok");
	} else if (strcmp(w[0], "setoption") == 0) {
		cmd_setoption(t, w, n);
	} else if (strcmp(w[0], "teinewgame") == 0) {
		if (n >= 2 && parse_int(w[1], TAK_MIN_SIZE, TAK_MAX_SIZE, &v))
			t->size = (int)v;
		else if (n >= 2)
			say("info string board sizes are 3 to 8; keeping %d", t->size);
		tak_search_clear(t->ts);
		t->have_pos = false;
		t->games++;
	} else if (strcmp(w[0], "position") == 0) {
		cmd_position(t, w, n);
	} else if (strcmp(w[0], "go") == 0) {
		cmd_go(t, w, n);
	} else if (strcmp(w[0], "quit") == 0) {
		t->quit = true;
	}
	/* stop outside a search, and unknown commands: nothing to do */
}

int cmd_tei(int argc, char **argv)
{
	struct tei t = {.size = 5, .hash_mb = 64};
	long long v;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--hash") == 0 && i + 1 < argc &&
		    parse_int(argv[i + 1], 1, 4096, &v)) {
			t.hash_mb = (size_t)v;
			i++;
		} else {
			fprintf(stderr, "bitarena tei: bad argument '%s'\n", argv[i]);
			return cli_usage("tei");
		}
	}
	if ((t.ts = tak_search_new(t.hash_mb)) == NULL) {
		fprintf(stderr, "bitarena tei: no memory for the search\n");
		return 1;
	}
	if (net_open_fd(&t.in, 0, TEI_LINE_MAX) < 0) {
		tak_search_free(t.ts);
		return 1;
	}
	while (!t.quit) {
		if (t.npending > 0) { /* commands that came during the last search */
			char *l = t.pending[0];
			memmove(&t.pending[0], &t.pending[1], (size_t)(--t.npending) * sizeof l);
			handle(&t, l);
			free(l);
			continue;
		}
		char *line;
		int r = net_read_line(&t.in, -1, &line);
		if (r == NET_ETOOLONG) {
			say("info string a line over %d bytes was skipped", TEI_LINE_MAX);
			continue;
		}
		if (r < 0)
			break;
		char *copy = strdup(line); /* a search reads more input into the same buffer */
		if (copy == NULL)
			break;
		handle(&t, copy);
		free(copy);
	}
	for (int i = 0; i < t.npending; i++)
		free(t.pending[i]);
	net_close(&t.in);
	tak_search_free(t.ts);
	return 0;
}
