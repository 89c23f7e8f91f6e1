/*
 * tourney.c - tournaments run by the server (see tourney.h): the verbs' work,
 * the rounds (paired by src/arena, games started through the session layer's
 * game-start path), results heard from the journal, standings with
 * tie-breaks, the stored document, recovery, and the events pushed to
 * subscribers.
 *
 * A tournament's results live in one table of struct arena_game, one row per
 * player (in the order they joined: their pairing numbers) and one column per
 * round, exactly as the pairing library, its tie-breaks and its TRF writer read
 * them; the game id of each entry sits beside it. The current round's pairings
 * are kept in board order (struct tpair). An arena has no rounds: a player's
 * row is its own games in order (ngames of them over, the next one its game
 * on), and its pairs are the games on.
 */
#include "server/events/tourney.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <dirent.h>

#include <cjson/cJSON.h>

#include "arena/arena.h"
#include "arena/stats.h"
#include "games/book.h"
#include "games/game.h"
#include "server/events/events.h"
#include "games/game_replay.h"
#include "server/msg/msg.h"
#include "server/net/conn.h"
#include "server/play/lobby.h"
#include "server/play/session.h"
#include "server/records/archive.h"
#include "server/records/journal.h"
#include "server/util/json_out.h"
#include "server/util/log.h"
#include "server/util/text.h"

enum tformat { TF_ROUNDROBIN, TF_DOUBLE, TF_GAUNTLET, TF_SWISS, TF_ARENA, TF_MATCH, NFORMATS };
static const char *const format_names[] = {"roundrobin", "double", "gauntlet",
                                           "swiss",      "arena",  "match"};
enum tstate { TS_CREATED, TS_RUNNING, TS_FINISHED, TS_CANCELLED };
static const char *const state_names[] = {"created", "running", "finished", "cancelled"};

#define TRF_MAX (64 * 1024)
#define BOOK_NAME_MAX  32                /* openings=NAME: 1-32 of A-Z a-z 0-9 _ - . */
#define BOOK_FILE_MAX  (8 * 1024 * 1024) /* a book file's bytes at most */
#define MATCH_GAMES    2                 /* a match's games without games= (one pair) */

struct tplayer {
	char name[PROTO_NAME_MAX + 1];
	bool registered;
	bool active;  /* false: withdrawn (not paired again; games left are forfeits) */
	int absences; /* forfeits in a row by absence */
	/* an arena's: its games over (its row's entries; the one at ngames is its game on) and
	   since when it waits for one (wall clock, not stored: a restart starts it again) */
	int ngames;
	int64_t free_since;
};

/* A game of the current round: player indexes; black -1 is a bye. */
struct tpair {
	int white, black;
	uint64_t game; /* 0: not started (or a bye, or a forfeit decided without a game) */
	char result;   /* 0 while not decided; else white's TRF code: 1 = 0 + - (Z: neither) */
};

struct tourney {
	struct tourney *next;
	uint64_t id;
	char name[TOURNEY_NAME_MAX + 1];
	const struct game_ops *ops;
	char words[STORE_OPTIONS_MAX]; /* the game's option words as given (seek's) */
	struct seek_opts so;
	enum tformat format;
	int rounds_asked; /* rounds= (Swiss), 0: by the field */
	int64_t start_at; /* start=: wall clock ms when it starts by itself; 0: by its director */
	int64_t length;   /* an arena's minutes=, in ms */
	int64_t ends_at;  /* a running arena's end, wall clock ms */
	int rounds;       /* planned, set at the start */
	int max;
	bool rated;
	char director[PROTO_NAME_MAX + 1];
	enum tstate state;
	int n;
	struct tplayer p[TOURNEY_MAX_PLAYERS];
	/* player i's row: room[i] entries and their game ids, allocated as the player enters
	   (add_player: enough for any round format), grown for an arena's games (row_room),
	   owned by the tournament (tourney_free) */
	struct arena_game *g[TOURNEY_MAX_PLAYERS];
	uint64_t *gid[TOURNEY_MAX_PLAYERS];
	int room[TOURNEY_MAX_PLAYERS];
	int round; /* rounds paired: the current one is round - 1 */
	struct tpair pairs[TOURNEY_MAX_PLAYERS / 2 + 1];
	int npairs;
	bool standings_due; /* an arena's: results came since its standings were last pushed */
	bool pairing;       /* a Swiss round is being paired on a worker thread (pair_job) */
	/* an engine match's (docs/books.md): openings= (the book, owned; NULL: none), sprt= */
	char openings[BOOK_NAME_MAX + 1];
	int first_opening; /* opening=K: the first pair plays the book's Kth (0-based here) */
	struct book *book;
	char sprt_text[64];
	struct stats_sprt sprt;
};

/* The rounds a format may have: a match's are its games. */
static int max_rounds(enum tformat f)
{
	return f == TF_MATCH ? TOURNEY_MAX_GAMES : TOURNEY_MAX_ROUNDS;
}

/* ---- helpers ------------------------------------------------------------------------- */

/* Makes room for player t->n (its row) and counts it in; its index, or -1 (full or out of
   memory). */
static int add_player(struct tourney *t)
{
	if (t->n == TOURNEY_MAX_PLAYERS)
		return -1;
	t->g[t->n] = calloc(TOURNEY_MAX_ROUNDS, sizeof *t->g[t->n]);
	t->gid[t->n] = calloc(TOURNEY_MAX_ROUNDS, sizeof *t->gid[t->n]);
	if (t->g[t->n] == NULL || t->gid[t->n] == NULL) {
		free(t->g[t->n]);
		free(t->gid[t->n]);
		t->g[t->n] = NULL;
		t->gid[t->n] = NULL;
		return -1;
	}
	t->room[t->n] = TOURNEY_MAX_ROUNDS;
	return t->n++;
}

/* Makes player i's row hold at least `need` entries (doubling, up to TOURNEY_MAX_GAMES);
   false when it cannot (past the cap, or out of memory: the row stays as it was). */
static bool row_room(struct tourney *t, int i, int need)
{
	if (need <= t->room[i])
		return true;
	if (need > TOURNEY_MAX_GAMES)
		return false;
	int room = 2 * t->room[i] > need ? 2 * t->room[i] : need;
	if (room > TOURNEY_MAX_GAMES)
		room = TOURNEY_MAX_GAMES;
	struct arena_game *g = realloc(t->g[i], (size_t)room * sizeof *g);
	if (g == NULL)
		return false;
	t->g[i] = g;
	uint64_t *gid = realloc(t->gid[i], (size_t)room * sizeof *gid);
	if (gid == NULL)
		return false; /* g is bigger, room[i] not yet: the next try reallocs it again */
	t->gid[i] = gid;
	memset(g + t->room[i], 0, (size_t)(room - t->room[i]) * sizeof *g);
	memset(gid + t->room[i], 0, (size_t)(room - t->room[i]) * sizeof *gid);
	t->room[i] = room;
	return true;
}

static void tourney_free(struct tourney *t)
{
	if (t == NULL)
		return;
	for (int i = 0; i < t->n; i++) {
		free(t->g[i]);
		free(t->gid[i]);
	}
	if (t->book != NULL) {
		book_free(t->book);
		free(t->book);
	}
	free(t);
}

static struct tourney *find(struct tourneys *ts, uint64_t id)
{
	for (struct tourney *t = ts->list; t != NULL; t = t->next)
		if (t->id == id)
			return t;
	return NULL;
}

static int player_of(const struct tourney *t, const char *name)
{
	for (int i = 0; i < t->n; i++)
		if (strcasecmp(t->p[i].name, name) == 0)
			return i;
	return -1;
}

/* The column of player i's current game: the round's, or an arena player's next entry. */
static int row_of(const struct tourney *t, int i)
{
	return t->format == TF_ARENA ? t->p[i].ngames : t->round - 1;
}

/* How many of player i's columns hold games: the rounds paired, or an arena player's games
   over. */
static int rows_of(const struct tourney *t, int i)
{
	return t->format == TF_ARENA ? t->p[i].ngames : t->round;
}

/* Whether every game of the current round is decided. */
static bool round_over(const struct tourney *t)
{
	for (int i = 0; i < t->npairs; i++)
		if (t->pairs[i].result == 0)
			return false;
	return true;
}

/* Rounds with every result in. */
static int played(const struct tourney *t)
{
	return t->round == 0 ? 0 : round_over(t) ? t->round : t->round - 1;
}

/* The tournament as the pairing library reads it, over its first `upto` rounds. */
static void as_swiss(const struct tourney *t, int upto, struct arena_swiss *sw,
                     struct arena_player *pl)
{
	for (int i = 0; i < t->n; i++)
		pl[i] = (struct arena_player){
		        .name = t->p[i].name, .games = t->g[i], .active = t->p[i].active};
	*sw = (struct arena_swiss){.n = t->n,
	                           .players = pl,
	                           .played = upto,
	                           .rounds = t->rounds ? t->rounds : upto,
	                           .first_color = 'w',
	                           .points = arena_points_default()};
}

/* The code the other side gets for one side's result code. */
static char opposite(char r)
{
	switch (r) {
	case '1':
		return '0';
	case '0':
		return '1';
	case '+':
		return '-';
	case '-':
		return '+';
	default:
		return r;
	}
}

/* ---- events -------------------------------------------------------------------------- */

void tourney_set_events(struct client *c, const struct proto_req *rq, const char *word)
{
	bool on = strcasecmp(word, "on") == 0;
	if (!on && strcasecmp(word, "off") != 0) {
		reply_err(c, rq, ERR_BAD_ARGS, "usage: set tourneys on|off");
		return;
	}
	c->tourneys_on = on;
	cJSON *f = cJSON_CreateObject();
	cJSON_AddBoolToObject(f, "tourneys", on);
	reply_ok(c, rq, f, NULL, "tournament events %s", on ? "on" : "off");
}

/* Sends event j (taken; "type":"tourney" and the id added) with its text line to every
   subscriber. */
static void tell(struct tourneys *ts, const struct tourney *t, const char *event, cJSON *j,
                 char *text)
{
	cJSON *e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "type", "tourney");
	cJSON_AddStringToObject(e, "event", event);
	cJSON_AddNumberToObject(e, "tourney", (double)t->id);
	if (j != NULL) {
		cJSON *it = j->child;
		while (it != NULL) {
			cJSON *next = it->next;
			cJSON_AddItemToObject(e, it->string, cJSON_DetachItemViaPointer(j, it));
			it = next;
		}
		cJSON_Delete(j);
	}
	char *line = xasprintf("tourney %" PRIu64 " %s: %s", t->id, event, text ? text : "");
	free(text);
	if (ts->on_tell != NULL && line != NULL) /* a cluster: every other node's subscribers */
		ts->on_tell(ts->tell_ud, e, line);
	tourney_tell_here(ts, e, line);
}

void tourney_tell_here(struct tourneys *ts, cJSON *j, char *text)
{
	struct msg m;
	msg_init(&m, j, text);
	for (struct conn *cn = ts->lobby->hub->conns; cn != NULL; cn = cn->next) {
		struct client *c = client_of(cn);
		if (c != NULL && c->tourneys_on && !c->remote && c->fe == NULL && conn_alive(cn))
			msg_send(&m, c);
	}
	msg_done(&m);
}

/* ---- standings ----------------------------------------------------------------------- */

struct standing {
	int player;
	int score;     /* tenths */
	int64_t tb[5]; /* by enum arena_tiebreak */
};

/* The order of the tie-breaks: a Swiss by its opponents, a round-robin by its results. */
static const enum arena_tiebreak swiss_order[] = {ARENA_TB_BUCHHOLZ_CUT1, ARENA_TB_BUCHHOLZ,
                                                  ARENA_TB_SONNEBORN, ARENA_TB_DIRECT};
static const enum arena_tiebreak rr_order[] = {ARENA_TB_SONNEBORN, ARENA_TB_DIRECT, ARENA_TB_WINS};

static const struct tourney *sort_t; /* qsort has no argument; the loop thread only */

static int by_standing(const void *a, const void *b)
{
	const struct standing *x = a, *y = b;
	if (x->score != y->score)
		return y->score - x->score;
	bool swiss = sort_t->format == TF_SWISS;
	const enum arena_tiebreak *o = swiss ? swiss_order : rr_order;
	int no = swiss ? 4 : 3;
	for (int i = 0; i < no; i++)
		if (x->tb[o[i]] != y->tb[o[i]])
			return x->tb[o[i]] > y->tb[o[i]] ? -1 : 1;
	return x->player - y->player;
}

/*
 * An arena's standings: lichess' points (arena_live_score: 2/1/0, double after two wins in a
 * row) over each player's games over, a forfeit won counted as a win; ties by wins, then by
 * fewer games (the same points in fewer games), then by entry. tb[ARENA_TB_WINS] holds the
 * wins, tb[0] the games, tb[1] whether the next game is played on fire.
 */
static int by_arena(const void *a, const void *b)
{
	const struct standing *x = a, *y = b;
	if (x->score != y->score)
		return y->score - x->score;
	if (x->tb[ARENA_TB_WINS] != y->tb[ARENA_TB_WINS])
		return x->tb[ARENA_TB_WINS] > y->tb[ARENA_TB_WINS] ? -1 : 1;
	if (x->tb[0] != y->tb[0])
		return x->tb[0] < y->tb[0] ? -1 : 1;
	return x->player - y->player;
}

static void arena_standings(const struct tourney *t, struct standing *st)
{
	for (int i = 0; i < t->n; i++) {
		char res[TOURNEY_MAX_GAMES + 1];
		int k = 0, wins = 0;
		for (int r = 0; r < t->p[i].ngames; r++) {
			char c = t->g[i][r].result;
			c = c == '+' ? '1' : c == '-' ? '0' : c;
			if (c != '1' && c != '0' && c != '=')
				continue; /* both absent: nothing */
			res[k++] = c;
			wins += c == '1';
		}
		res[k] = '\0';
		int fire = 0;
		st[i] = (struct standing){.player = i, .score = arena_live_score(res, &fire)};
		st[i].tb[0] = k;
		st[i].tb[1] = fire;
		st[i].tb[ARENA_TB_WINS] = wins;
	}
	qsort(st, (size_t)t->n, sizeof *st, by_arena);
}

/* The standings after the rounds played, best first, into st (t->n of them). */
static void standings(const struct tourney *t, struct standing *st)
{
	if (t->format == TF_ARENA) {
		arena_standings(t, st);
		return;
	}
	struct arena_player pl[TOURNEY_MAX_PLAYERS];
	struct arena_swiss sw;
	int upto = played(t);
	as_swiss(t, upto, &sw, pl);
	int64_t v[5][TOURNEY_MAX_PLAYERS];
	for (int k = 0; k < 5; k++)
		if (arena_tiebreak(&sw, (enum arena_tiebreak)k, v[k]) < 0)
			memset(v[k], 0, sizeof v[k]);
	for (int i = 0; i < t->n; i++) {
		st[i].player = i;
		st[i].score = arena_score(&sw, i, upto);
		for (int k = 0; k < 5; k++)
			st[i].tb[k] = v[k][i];
	}
	sort_t = t;
	qsort(st, (size_t)t->n, sizeof *st, by_standing);
}

/* The standings as JSON (an array) and text lines (into *text). */
static cJSON *standings_json(const struct tourney *t, char **text)
{
	struct standing st[TOURNEY_MAX_PLAYERS];
	standings(t, st);
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; i < t->n; i++) {
		const struct standing *s = &st[i];
		const struct tplayer *p = &t->p[s->player];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddNumberToObject(j, "rank", i + 1);
		cJSON_AddStringToObject(j, "name", p->name);
		if (t->format == TF_ARENA) {
			cJSON_AddNumberToObject(j, "score", s->score);
			cJSON_AddNumberToObject(j, "games", (double)s->tb[0]);
			cJSON_AddNumberToObject(j, "wins", (double)s->tb[ARENA_TB_WINS]);
			cJSON_AddBoolToObject(j, "fire", s->tb[1] != 0);
			cJSON_AddBoolToObject(j, "withdrawn", !p->active);
			cJSON_AddItemToArray(a, j);
			if (text != NULL)
				xappend(text, "%s%2d. %-20s %4d  games %d wins %d%s%s",
				        *text ? "\n" : "", i + 1, p->name, s->score, (int)s->tb[0],
				        (int)s->tb[ARENA_TB_WINS], s->tb[1] ? " (on fire)" : "",
				        p->active ? "" : " (paused)");
			continue;
		}
		cJSON_AddNumberToObject(j, "score", s->score / 10.0);
		cJSON_AddNumberToObject(j, "buchholz", (double)s->tb[ARENA_TB_BUCHHOLZ] / 10.0);
		cJSON_AddNumberToObject(j, "buchholz_cut1",
		                        (double)s->tb[ARENA_TB_BUCHHOLZ_CUT1] / 10.0);
		cJSON_AddNumberToObject(j, "sonneborn_berger",
		                        (double)s->tb[ARENA_TB_SONNEBORN] / 100.0);
		cJSON_AddNumberToObject(j, "direct", (double)s->tb[ARENA_TB_DIRECT] / 10.0);
		cJSON_AddNumberToObject(j, "wins", (double)s->tb[ARENA_TB_WINS]);
		cJSON_AddBoolToObject(j, "withdrawn", !p->active);
		cJSON_AddItemToArray(a, j);
		if (text != NULL)
			xappend(text,
			        "%s%2d. %-20s %4.1f  BH %.1f BH-1 %.1f SB %.2f DE %.1f W %d%s",
			        *text ? "\n" : "", i + 1, p->name, s->score / 10.0,
			        (double)s->tb[ARENA_TB_BUCHHOLZ] / 10.0,
			        (double)s->tb[ARENA_TB_BUCHHOLZ_CUT1] / 10.0,
			        (double)s->tb[ARENA_TB_SONNEBORN] / 100.0,
			        (double)s->tb[ARENA_TB_DIRECT] / 10.0, (int)s->tb[ARENA_TB_WINS],
			        p->active ? "" : " (withdrawn)");
	}
	return a;
}

static const char *pair_result_text(char r)
{
	switch (r) {
	case '1':
		return "1-0";
	case '0':
		return "0-1";
	case '=':
		return "1/2-1/2";
	case '+':
		return "1-0 (forfeit)";
	case '-':
		return "0-1 (forfeit)";
	case 'Z':
		return "0-0 (both absent)";
	case 'U':
		return "bye";
	default:
		return "*";
	}
}

/* The current round's pairings as JSON and text lines. */
static cJSON *pairs_json(const struct tourney *t, char **text)
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; i < t->npairs; i++) {
		const struct tpair *pr = &t->pairs[i];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddNumberToObject(j, "board", i + 1);
		cJSON_AddStringToObject(j, "white", t->p[pr->white].name);
		if (pr->black >= 0)
			cJSON_AddStringToObject(j, "black", t->p[pr->black].name);
		else
			cJSON_AddNullToObject(j, "black");
		cJSON_AddNumberToObject(j, "game", (double)pr->game);
		cJSON_AddStringToObject(j, "result",
		                        pr->black < 0 ? "bye" : pair_result_text(pr->result));
		cJSON_AddItemToArray(a, j);
		if (text != NULL) {
			if (pr->black < 0)
				xappend(text, "%s  board %d: %s has the bye", *text ? "\n" : "",
				        i + 1, t->p[pr->white].name);
			else
				xappend(text, "%s  board %d: %s - %s  game %" PRIu64 "  %s",
				        *text ? "\n" : "", i + 1, t->p[pr->white].name,
				        t->p[pr->black].name, pr->game,
				        pair_result_text(pr->result));
		}
	}
	return a;
}

/* ---- an engine match: openings and statistics ---------------------------------------- */

/* Whether name may name a book: 1-BOOK_NAME_MAX of A-Z a-z 0-9 _ - . not starting with '.'
   (no path: a file of the books' directory only). */
static bool book_name_ok(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > BOOK_NAME_MAX || name[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= '0' && name[i] <= '9') || name[i] == '_' || name[i] == '-' ||
		      name[i] == '.'))
			return false;
	return true;
}

static const char *const book_exts[] = {".ptn", ".txt", ".seeds"};

/* The books of dir by name ("tak5, tak6, ttt"), into buf. */
static void book_names(const char *dir, char *buf, size_t len)
{
	buf[0] = '\0';
	DIR *d = dir != NULL ? opendir(dir) : NULL;
	size_t n = 0;
	struct dirent *e;
	while (d != NULL && (e = readdir(d)) != NULL && n + 2 < len) {
		const char *dot = strrchr(e->d_name, '.');
		for (size_t k = 0; dot != NULL && e->d_name[0] != '.' &&
		                   k < sizeof book_exts / sizeof book_exts[0];
		     k++)
			if (strcmp(dot, book_exts[k]) == 0)
				n += (size_t)snprintf(buf + n, len - n, "%s%.*s", n ? ", " : "",
				                      (int)(dot - e->d_name), e->d_name);
	}
	if (d != NULL)
		closedir(d);
	if (n >= len)
		buf[len - 1] = '\0';
}

/* The text of file path (NUL-terminated, *len bytes; malloc'd: the caller frees), or NULL
   when it cannot be read or is bigger than BOOK_FILE_MAX. */
static char *read_small_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	char *buf = malloc(BOOK_FILE_MAX + 1);
	size_t n = buf != NULL ? fread(buf, 1, BOOK_FILE_MAX + 1, f) : 0;
	bool bad = buf == NULL || ferror(f) || n > BOOK_FILE_MAX;
	fclose(f);
	if (bad) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/*
 * Reads book `name` of the books' directory (NAME.ptn, .txt or .seeds) for t's game into
 * t->book; false with a sentence in why. Every opening must be a move list that t's options
 * accept (a book for tak size=6 in a tak size=6 game of any komi); a position (TPS) is
 * refused: a game here always starts at its start. The file is small (a few hundred lines)
 * and read once, at the creation or the recovery of the tournament, on the loop thread.
 */
static bool load_book(const struct tourneys *ts, struct tourney *t, const char *name, char *why,
                      size_t len)
{
	char names[200];
	if (!book_name_ok(name)) {
		snprintf(why, len, "openings= names a book: 1-%d of A-Z a-z 0-9 _ - .",
		         BOOK_NAME_MAX);
		return false;
	}
	char *text = NULL;
	size_t n = 0;
	for (size_t k = 0; ts->books != NULL && text == NULL &&
	                   k < sizeof book_exts / sizeof book_exts[0];
	     k++) {
		char path[4096];
		if (snprintf(path, sizeof path, "%s/%s%s", ts->books, name, book_exts[k]) <
		    (int)sizeof path)
			text = read_small_file(path, &n);
	}
	if (text == NULL) {
		book_names(ts->books, names, sizeof names);
		snprintf(why, len, "no opening book '%s'%s%.100s", name,
		         names[0] ? "; this server has: " : " (this server has none)", names);
		return false;
	}
	struct book *b = calloc(1, sizeof *b);
	struct book_error err = {0};
	int r = b != NULL ? book_parse(text, n, NULL, b, &err) : BOOK_ENOMEM;
	free(text);
	if (r < 0) {
		snprintf(why, len, "book %s: %.100s", name, err.msg[0] ? err.msg : book_strerror(r));
		free(b);
		return false;
	}
	t->book = b;
	if (b->ops != t->ops) {
		snprintf(why, len, "book %s is for %s, not %s", name, b->game, t->ops->name);
		return false;
	}
	void *st = malloc(t->ops->state_size);
	bool ok = st != NULL;
	for (size_t i = 0; ok && i < b->n; i++) {
		const struct book_opening *o = &b->open[i];
		if (o->position != NULL || o->has_seed) {
			snprintf(why, len, "book %s: line %d is a position; a tournament plays move lists",
			         name, o->line);
			ok = false;
			break;
		}
		struct game_replay rp;
		int e = game_replay_start(&rp, t->ops, st, &t->so.params, 0);
		for (size_t k = 0; e >= 0 && k < o->nmoves; k++)
			e = game_replay_step(&rp, &o->plies[k], NULL);
		struct game_result res = {0};
		if (e >= 0)
			t->ops->result(st, &res);
		if (e < 0 || res.over) {
			snprintf(why, len, "book %s: the opening of line %d does not fit %s %.60s", name,
			         o->line, t->ops->name, t->words);
			ok = false;
		}
	}
	free(st);
	if (!ok)
		return false;
	snprintf(t->openings, sizeof t->openings, "%s", name);
	return true;
}

/* The opening of round r's games (0-based), or NULL without a book: a match plays opening
   k in games 2k and 2k + 1 (a pair), counted from its opening=K; a double round-robin
   opening k in round k of each half (colours swapped by the second half); a round-robin or
   a gauntlet opening r. */
static const struct book_opening *opening_of(const struct tourney *t, int r)
{
	if (t->book == NULL || t->book->n == 0)
		return NULL;
	int k = t->format == TF_MATCH ? r / 2
	        : t->format == TF_DOUBLE && t->rounds >= 2 ? r % (t->rounds / 2)
	                                                   : r;
	return &t->book->open[((size_t)k + (size_t)t->first_opening) % t->book->n];
}

/* The first player's half points of a result code: 2, 1, 0, or -1 (no game, not decided). */
static int half_points(char r)
{
	return r == '1' || r == '+' ? 2 : r == '=' ? 1 : r == '0' || r == '-' ? 0 : -1;
}

/* A match's games and complete pairs so far, from its first player's side. */
static void match_count(const struct tourney *t, struct stats_wdl *w, struct stats_penta *pp)
{
	*w = (struct stats_wdl){0};
	*pp = (struct stats_penta){{0}};
	for (int r = 0; r < t->round; r++) {
		int h = half_points(t->g[0][r].result);
		if (h >= 0)
			stats_wdl_add(w, h);
		if (r % 2 == 1) {
			int a = half_points(t->g[0][r - 1].result);
			if (a >= 0 && h >= 0)
				stats_penta_add(pp, a, h);
		}
	}
}

/* Where a match's SPRT stands (STATS_SPRT_CONTINUE without sprt=), its LLR into *llr. */
static enum stats_sprt_state match_sprt(const struct tourney *t, double *llr)
{
	*llr = 0;
	if (t->sprt_text[0] == '\0')
		return STATS_SPRT_CONTINUE;
	struct stats_wdl w;
	struct stats_penta pp;
	match_count(t, &w, &pp);
	if (stats_llr_penta(&t->sprt, &pp, llr) < 0)
		return STATS_SPRT_CONTINUE;
	return stats_sprt_state(&t->sprt, *llr);
}

static const char *const sprt_words[] = {"continue", "H0", "H1"};

/*
 * A match's statistics as JSON, a text line into *text: W-D-L from the first player's
 * side, the pentanomial counts of its complete pairs, Elo with its 95% interval and LOS
 * (from the pairs once there is one, else from the games, as fastchess reports them), the
 * SPRT's LLR and bounds.
 */
static cJSON *match_json(const struct tourney *t, char **text)
{
	struct stats_wdl w;
	struct stats_penta pp;
	match_count(t, &w, &pp);
	struct stats_elo e = {0};
	bool pairs = stats_penta_pairs(&pp) > 0;
	bool have = (pairs ? stats_elo_penta(&pp, &e) : stats_elo_wdl(&w, &e)) == STATS_OK;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "first", t->n > 0 ? t->p[0].name : "");
	cJSON_AddStringToObject(j, "second", t->n > 1 ? t->p[1].name : "");
	cJSON_AddNumberToObject(j, "wins", (double)w.wins);
	cJSON_AddNumberToObject(j, "draws", (double)w.draws);
	cJSON_AddNumberToObject(j, "losses", (double)w.losses);
	cJSON *a = cJSON_AddArrayToObject(j, "pentanomial");
	for (int k = 0; k < 5; k++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)pp.n[k]));
	if (have) {
		cJSON_AddNumberToObject(j, "score", e.score);
		cJSON_AddNumberToObject(j, "elo", e.elo);
		cJSON_AddNumberToObject(j, "elo_err", e.elo_err);
		cJSON_AddNumberToObject(j, "elo_lo", e.elo_lo);
		cJSON_AddNumberToObject(j, "elo_hi", e.elo_hi);
		cJSON_AddNumberToObject(j, "los", e.los);
	}
	char ok[80] = "";
	if (t->book != NULL)
		snprintf(ok, sizeof ok, "  openings %s (%zu)", t->openings, t->book->n);
	xappend(text, "%s vs %s: %" PRIu64 "-%" PRIu64 "-%" PRIu64 " (W-D-L)", t->p[0].name,
	        t->n > 1 ? t->p[1].name : "?", w.wins, w.draws, w.losses);
	if (have)
		xappend(text, "  score %.1f%%  Elo %+.1f +/- %.1f  LOS %.1f%%", e.score * 100, e.elo,
		        e.elo_err, e.los * 100);
	xappend(text, "  pairs [%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "]%s",
	        pp.n[0], pp.n[1], pp.n[2], pp.n[3], pp.n[4], ok);
	if (t->sprt_text[0] != '\0') {
		double llr;
		enum stats_sprt_state v = match_sprt(t, &llr);
		cJSON *sp = cJSON_AddObjectToObject(j, "sprt");
		cJSON_AddNumberToObject(sp, "elo0", t->sprt.elo0);
		cJSON_AddNumberToObject(sp, "elo1", t->sprt.elo1);
		cJSON_AddNumberToObject(sp, "alpha", t->sprt.alpha);
		cJSON_AddNumberToObject(sp, "beta", t->sprt.beta);
		cJSON_AddStringToObject(sp, "model", stats_model_name(t->sprt.model));
		cJSON_AddNumberToObject(sp, "llr", llr);
		cJSON_AddNumberToObject(sp, "lower", stats_sprt_lower(&t->sprt));
		cJSON_AddNumberToObject(sp, "upper", stats_sprt_upper(&t->sprt));
		cJSON_AddStringToObject(sp, "result", sprt_words[v]);
		xappend(text, "\nSPRT [%g, %g] %s: LLR %.2f (%.2f, %.2f) %s", t->sprt.elo0,
		        t->sprt.elo1, stats_model_name(t->sprt.model), llr,
		        stats_sprt_lower(&t->sprt), stats_sprt_upper(&t->sprt),
		        v == STATS_SPRT_H1   ? "H1 accepted"
		        : v == STATS_SPRT_H0 ? "H0 accepted"
		                             : "continue");
	}
	return j;
}

/* ---- the stored document ------------------------------------------------------------- */

static cJSON *summary_json(const struct tourney *t);

/* The stored document: the summary (its "players" a list instead of a count), the rounds
   asked for, every player's rounds and the current round's pairs. */
static char *doc_of(const struct tourney *t)
{
	/* written straight into one buffer (json_out.h's writer): the rows hold every game of
	   the tournament and the document is stored after each round or arena wave, so a tree
	   of them (a few allocations per game) cost the loop milliseconds each time */
	cJSON *d = summary_json(t);
	cJSON_DeleteItemFromObjectCaseSensitive(d, "players");
	cJSON_AddNumberToObject(d, "rounds_asked", t->rounds_asked);
	struct jw w;
	jw_init(&w, NULL, 0);
	jw_obj(&w);
	const cJSON *it;
	cJSON_ArrayForEach(it, d)
	{
		jw_key(&w, it->string);
		jw_json(&w, it);
	}
	cJSON_Delete(d);
	jw_key(&w, "players");
	jw_arr(&w);
	for (int i = 0; i < t->n; i++) {
		const struct tplayer *p = &t->p[i];
		jw_obj(&w);
		jw_key(&w, "name");
		jw_str(&w, p->name);
		jw_key(&w, "registered");
		jw_bool(&w, p->registered);
		jw_key(&w, "active");
		jw_bool(&w, p->active);
		jw_key(&w, "absences");
		jw_num(&w, p->absences);
		jw_key(&w, "games"); /* [opp, "color", "result", game] */
		jw_arr(&w);
		for (int r = 0; r < rows_of(t, i); r++) {
			const struct arena_game *g = &t->g[i][r];
			char col[2] = {g->color ? g->color : '-', 0}, res[2] = {g->result, 0};
			jw_arr(&w);
			jw_num(&w, g->opp);
			jw_str(&w, col);
			jw_str(&w, res);
			jw_num(&w, (double)t->gid[i][r]);
			jw_end(&w, ']');
		}
		jw_end(&w, ']');
		jw_end(&w, '}');
	}
	jw_end(&w, ']');
	jw_key(&w, "pairs"); /* [white, black, game, "result"] */
	jw_arr(&w);
	for (int i = 0; i < t->npairs; i++) {
		const struct tpair *pr = &t->pairs[i];
		char res[2] = {pr->result, 0};
		jw_arr(&w);
		jw_num(&w, pr->white);
		jw_num(&w, pr->black);
		jw_num(&w, (double)pr->game);
		jw_str(&w, res);
		jw_end(&w, ']');
	}
	jw_end(&w, ']');
	jw_end(&w, '}');
	if (!json_buf_put(&w.b, "", 1) || w.b.failed) {
		json_buf_free(&w.b);
		return NULL;
	}
	return w.b.p; /* malloc'd: the buffer started empty */
}

/* Queues t as it stands now to the store. */
static void save(struct tourneys *ts, const struct tourney *t)
{
	double t0 = events_cpu_now();
	char *doc = doc_of(t);
	if (doc == NULL ||
	    journal_tourney_put(ts->jn, (int64_t)t->id, state_names[t->state], doc) < 0)
		log_error("tournament %" PRIu64 ": out of memory: not stored", t->id);
	metric_observe(&ts->saving, events_cpu_now() - t0);
}

static int index_of(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

/* Parses the words of a game's options into t->so (its kind set); false when refused. */
static bool parse_options(struct tourney *t, char *why, size_t len)
{
	if (!events_seek_opts(t->ops, t->words, &t->so, why, len))
		return false;
	t->so.rated = t->rated;
	t->so.color = 0;
	return true;
}

/* A tournament from its stored document, or NULL (logged). */
static struct tourney *from_doc(const struct tourneys *ts, const char *doc)
{
	cJSON *d = cJSON_Parse(doc);
	struct tourney *t = calloc(1, sizeof *t);
	char why[160] = "malformed";
	if (d == NULL || t == NULL)
		goto bad;
	t->id = (uint64_t)events_json_int(d, "tourney");
	snprintf(t->name, sizeof t->name, "%s", events_json_str(d, "name"));
	snprintf(t->words, sizeof t->words, "%s", events_json_str(d, "options"));
	snprintf(t->director, sizeof t->director, "%s", events_json_str(d, "director"));
	t->ops = game_find(events_json_str(d, "kind"));
	int f = index_of(format_names, NFORMATS, events_json_str(d, "format"));
	int s = index_of(state_names, 4, events_json_str(d, "state"));
	t->rounds_asked = events_json_int(d, "rounds_asked");
	t->rounds = events_json_int(d, "rounds");
	t->max = events_json_int(d, "max");
	t->rated = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "rated"));
	t->round = events_json_int(d, "round");
	const cJSON *num;
	if (cJSON_IsNumber(num = cJSON_GetObjectItemCaseSensitive(d, "start_at")))
		t->start_at = (int64_t)num->valuedouble;
	if (cJSON_IsNumber(num = cJSON_GetObjectItemCaseSensitive(d, "ends_at")))
		t->ends_at = (int64_t)num->valuedouble;
	if (cJSON_IsNumber(num = cJSON_GetObjectItemCaseSensitive(d, "minutes")))
		t->length = (int64_t)(num->valuedouble * 60000.0 + 0.5);
	if (t->ops == NULL || f < 0 || s < 0 || t->round < 0 ||
	    t->round > max_rounds((enum tformat)f) || !parse_options(t, why, sizeof why))
		goto bad;
	snprintf(t->sprt_text, sizeof t->sprt_text, "%s", events_json_str(d, "sprt"));
	if (t->sprt_text[0] != '\0' && stats_sprt_parse(t->sprt_text, &t->sprt, NULL) < 0)
		goto bad;
	/* the book as the server has it now (a book changed meanwhile: the games to come
	   follow the new one) */
	const char *book = events_json_str(d, "openings");
	if (book[0] != '\0' && !load_book(ts, t, book, why, sizeof why))
		goto bad;
	const cJSON *first = cJSON_GetObjectItemCaseSensitive(d, "opening");
	t->first_opening = cJSON_IsNumber(first) && first->valueint > 1 ? first->valueint - 1 : 0;
	t->format = (enum tformat)f;
	t->state = (enum tstate)s;
	const cJSON *p;
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(d, "players"))
	{
		int me = add_player(t);
		if (me < 0)
			goto bad;
		struct tplayer *tp = &t->p[me];
		snprintf(tp->name, sizeof tp->name, "%s", events_json_str(p, "name"));
		tp->registered = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "registered"));
		tp->active = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "active"));
		tp->absences = events_json_int(p, "absences");
		int r = 0;
		const cJSON *e;
		int rows = t->format == TF_ARENA ? TOURNEY_MAX_GAMES : t->round;
		cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(p, "games"))
		{
			if (r == rows || cJSON_GetArraySize(e) != 4 || !row_room(t, me, r + 1))
				goto bad;
			const char *col = cJSON_GetArrayItem(e, 1)->valuestring;
			const char *res = cJSON_GetArrayItem(e, 2)->valuestring;
			if (col == NULL || res == NULL)
				goto bad;
			t->g[me][r] =
			        (struct arena_game){.opp = cJSON_GetArrayItem(e, 0)->valueint,
			                            .color = col[0],
			                            .result = res[0]};
			t->gid[me][r] = (uint64_t)cJSON_GetArrayItem(e, 3)->valuedouble;
			r++;
		}
		tp->ngames = t->format == TF_ARENA ? r : 0;
		tp->free_since = wall_ms();
	}
	const cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(d, "pairs"))
	{
		if (t->npairs == TOURNEY_MAX_PLAYERS / 2 + 1 || cJSON_GetArraySize(e) != 4)
			goto bad;
		struct tpair *pr = &t->pairs[t->npairs++];
		pr->white = cJSON_GetArrayItem(e, 0)->valueint;
		pr->black = cJSON_GetArrayItem(e, 1)->valueint;
		pr->game = (uint64_t)cJSON_GetArrayItem(e, 2)->valuedouble;
		const char *res = cJSON_GetArrayItem(e, 3)->valuestring;
		pr->result = res != NULL ? res[0] : 0;
		if (pr->white < 0 || pr->white >= t->n || pr->black < -1 || pr->black >= t->n)
			goto bad;
		if (t->format == TF_ARENA) { /* an arena's game on: its entries again */
			int w = pr->white, b = pr->black;
			if (b < 0 || !row_room(t, w, t->p[w].ngames + 1) ||
			    !row_room(t, b, t->p[b].ngames + 1))
				goto bad;
			t->g[w][t->p[w].ngames] = (struct arena_game){.opp = b, .color = 'w'};
			t->g[b][t->p[b].ngames] = (struct arena_game){.opp = w, .color = 'b'};
			t->gid[w][t->p[w].ngames] = t->gid[b][t->p[b].ngames] = pr->game;
		}
	}
	cJSON_Delete(d);
	return t;
bad:
	log_error("a stored tournament cannot be read back (%s); left as it is", why);
	cJSON_Delete(d);
	tourney_free(t);
	return NULL;
}

/* ---- results ------------------------------------------------------------------------- */

/* Writes pair pr's result (white's code r) into the table and the players' absences. */
static void set_result(struct tourneys *ts, struct tourney *t, struct tpair *pr, char r,
                       int absent_seat)
{
	int wr = row_of(t, pr->white), br = pr->black < 0 ? 0 : row_of(t, pr->black);
	pr->result = r;
	if (pr->black < 0)
		return;
	if (r == 'Z') { /* both absent: no game, nothing scored, no opponent */
		t->g[pr->white][wr] = (struct arena_game){.opp = -1, .color = '-', .result = 'Z'};
		t->g[pr->black][br] = (struct arena_game){.opp = -1, .color = '-', .result = 'Z'};
	} else {
		t->g[pr->white][wr].result = r;
		t->g[pr->black][br].result = opposite(r);
		if (t->format == TF_ARENA) { /* the entries are the players' games over now */
			t->p[pr->white].ngames++;
			t->p[pr->black].ngames++;
		}
	}
	if (t->format == TF_ARENA)
		t->p[pr->white].free_since = t->p[pr->black].free_since = wall_ms();
	for (int s = 0; s < 2; s++) {
		struct tplayer *p = &t->p[s == 0 ? pr->white : pr->black];
		bool absent = r == 'Z' || absent_seat == s;
		p->absences = absent ? p->absences + 1 : 0;
		if (absent && p->absences >= 2 && p->active) {
			p->active = false;
			tell(ts, t, "withdrawn", NULL,
			     xasprintf("%s is %s after two absences in a row", p->name,
			               t->format == TF_ARENA ? "paused" : "withdrawn"));
		}
	}
}

/* White's code for a game that ended as res (winner seat, reason) after plies moves;
 *absent_seat the seat that forfeited by absence, or -1. */
static char code_of(int winner, const char *reason, int plies, bool loser_absent,
                    bool winner_absent, int *absent_seat)
{
	*absent_seat = -1;
	if (winner >= 0 && plies == 0 && strcmp(reason, "abandoned") == 0 && loser_absent) {
		if (winner_absent)
			return 'Z';
		*absent_seat = 1 - winner;
		return winner == 0 ? '+' : '-';
	}
	return winner == 0 ? '1' : winner == 1 ? '0' : '=';
}

static void pump_soon(struct tourneys *ts);
static void pump_within(struct tourneys *ts, uint64_t ms);
static void tell_standings(struct tourneys *ts, struct tourney *t);

/* Tells a result, and the standings after it (an arena's: with the pump's next wave). */
static void tell_result(struct tourneys *ts, struct tourney *t, const struct tpair *pr)
{
	bool arena = t->format == TF_ARENA;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "round", t->round);
	cJSON_AddNumberToObject(j, "game", (double)pr->game);
	cJSON_AddStringToObject(j, "white", t->p[pr->white].name);
	cJSON_AddStringToObject(j, "black", t->p[pr->black].name);
	cJSON_AddStringToObject(j, "result", pair_result_text(pr->result));
	char where[32];
	if (arena)
		snprintf(where, sizeof where, "game %" PRIu64, pr->game);
	else
		snprintf(where, sizeof where, "round %d", t->round);
	tell(ts, t, "result", j,
	     xasprintf("%s: %s - %s %s", where, t->p[pr->white].name, t->p[pr->black].name,
	               pair_result_text(pr->result)));
	if (arena) /* pushed once a wave, by the pump */
		t->standings_due = true;
	else
		tell_standings(ts, t);
}

/* Tells the standings as they are now. */
static void tell_standings(struct tourneys *ts, struct tourney *t)
{
	bool arena = t->format == TF_ARENA;
	char where[32];
	char *text = NULL;
	cJSON *s = cJSON_CreateObject();
	cJSON_AddNumberToObject(s, "round", t->round);
	cJSON_AddNumberToObject(s, "played", played(t));
	cJSON_AddItemToObject(s, "standings", standings_json(t, &text));
	if (t->format == TF_MATCH) {
		xappend(&text, "\n");
		cJSON_AddItemToObject(s, "match", match_json(t, &text));
	}
	if (arena)
		snprintf(where, sizeof where, "now");
	else
		snprintf(where, sizeof where, "after %d round(s)", played(t));
	tell(ts, t, "standings", s, xasprintf("%s\n%s", where, text ? text : ""));
	free(text);
}

/* Pair pr's game g is over: its result into the table. */
static void count_end(struct tourneys *ts, struct tourney *t, struct tpair *pr,
                      const struct game *g)
{
	struct session_result res = session_result(g);
	int absent_seat = -1;
	char r = '=';
	if (res.winner >= 0)
		r = code_of(res.winner, res.reason, session_ply(g),
		            session_seat(g, 1 - res.winner)->absent,
		            session_seat(g, res.winner)->absent, &absent_seat);
	set_result(ts, t, pr, r, absent_seat);
}

/* The journal's news: game g ended (inside its hook: nothing here calls the sessions). */
static void on_game_end(void *ud, const struct game *g)
{
	struct tourneys *ts = ud;
	uint64_t id = session_id(g);
	for (struct tourney *t = ts->list; t != NULL; t = t->next) {
		if (t->state != TS_RUNNING)
			continue;
		for (int i = 0; i < t->npairs; i++) {
			struct tpair *pr = &t->pairs[i];
			if (pr->game != id || pr->result != 0)
				continue;
			count_end(ts, t, pr, g);
			tell_result(ts, t, pr);
			if (t->format == TF_ARENA) { /* saved by the pump's wave, which pairs */
				pump_within(ts, TOURNEY_ARENA_WAVE_MS);
				return;
			}
			save(ts, t);
			pump_soon(ts);
			return;
		}
	}
}

/* ---- rounds -------------------------------------------------------------------------- */

/* Pair pr's game id, in pr and in both players' rows. */
static void set_game(struct tourney *t, struct tpair *pr, uint64_t id)
{
	pr->game = id;
	t->gid[pr->white][row_of(t, pr->white)] = t->gid[pr->black][row_of(t, pr->black)] = id;
}

/* Starts pair pr's game under its reserved id (pr->game; 0 without a journal: set here)
   through the game-start path of an accepted seek; false when it could not be (pr->game is
   0 again: the pump tries again). */
static bool begin_game(struct tourneys *ts, struct tourney *t, struct tpair *pr)
{
	struct game_spec spec = {.ops = t->ops,
	                         .so = t->so,
	                         .seed = session_new_seed(t->ops, &t->so.params),
	                         .new_id = pr->game};
	int who[2] = {pr->white, pr->black};
	for (int s = 0; s < 2; s++) {
		const struct tplayer *p = &t->p[who[s]];
		struct client *c = lobby_find_user(ts->lobby, p->name);
		spec.names[s] = p->name;
		spec.clients[s] = c; /* NULL: absent, the grace runs from now */
		spec.registered[s] = c != NULL ? c->registered : p->registered;
	}
	struct game *g = session_create(ts->sess, &spec);
	set_game(t, pr, g != NULL ? session_id(g) : 0);
	if (g == NULL) {
		log_error("tournament %" PRIu64 ": a game could not be started; tried again",
		          t->id);
		return false;
	}
	const struct book_opening *o = opening_of(t, row_of(t, pr->white));
	int r = o != NULL ? session_preplay(g, (const char *const *)o->moves, o->nmoves) : 0;
	if (r < 0) /* load_book() checked every opening: the journal or memory failed */
		log_error("tournament %" PRIu64 ": game %" PRIu64 " starts at ply %d, not after "
		          "its opening (line %d): %s",
		          t->id, pr->game, session_ply(g), o->line, game_strerror(r));
	session_begin(g);
	return true;
}

/*
 * Starts the games of t's pairs undecided and not started, and queues t's document. The
 * games' ids are reserved first and the document naming them is queued before any of them
 * starts: the journal writes in order, so a game on disk after a crash is always one the
 * stored tournament has (recover_pair()), never one played beside it and then again.
 * False when one could not start (the pump tries again).
 */
static bool start_games(struct tourneys *ts, struct tourney *t)
{
	int fresh[TOURNEY_MAX_PLAYERS / 2 + 1], n = 0; /* the pairs getting a game */
	bool all = true;
	for (int i = 0; i < t->npairs && all; i++) {
		struct tpair *pr = &t->pairs[i];
		uint64_t id;
		if (pr->result != 0 || pr->game != 0)
			continue;
		all = journal_game_id(ts->jn, &id) == STORE_OK;
		if (all) {
			set_game(t, pr, id);
			fresh[n++] = i;
		}
	}
	save(ts, t);
	int started = 0;
	for (int k = 0; k < n; k++)
		started += begin_game(ts, t, &t->pairs[fresh[k]]);
	if (started < n) /* the ids of the games not started are forgotten */
		save(ts, t);
	return all && started == n;
}

/* Writes round t->round's pairing (already in t->pairs) into the table; byes and games
   with a withdrawn player are decided at once. */
static void enter_round(struct tourneys *ts, struct tourney *t)
{
	int rd = t->round - 1;
	bool paired[TOURNEY_MAX_PLAYERS] = {false};
	for (int i = 0; i < t->npairs; i++) {
		struct tpair *pr = &t->pairs[i];
		pr->game = 0;
		pr->result = 0;
		paired[pr->white] = true;
		if (pr->black < 0) {
			/* the Swiss's pairing-allocated bye is worth a win; a round-robin's odd
			   player out scores nothing */
			char code = t->format == TF_SWISS ? 'U' : 'Z';
			t->g[pr->white][rd] =
			        (struct arena_game){.opp = -1, .color = '-', .result = code};
			pr->result = 'U';
			continue;
		}
		paired[pr->black] = true;
		t->g[pr->white][rd] = (struct arena_game){.opp = pr->black, .color = 'w'};
		t->g[pr->black][rd] = (struct arena_game){.opp = pr->white, .color = 'b'};
		bool wa = t->p[pr->white].active, ba = t->p[pr->black].active;
		if (!wa || !ba) /* a withdrawn player's game is forfeited */
			set_result(ts, t, pr, wa ? '+' : ba ? '-' : 'Z', -1);
	}
	for (int i = 0; i < t->n; i++)
		if (!paired[i]) /* not paired (withdrawn, in a Swiss): absent */
			t->g[i][rd] = (struct arena_game){.opp = -1, .color = '-', .result = 'Z'};
}

/* Pairs the next round of a round-robin or a gauntlet (a table: no search) into out; the
   number of pairs or a negative arena_err. */
static int pair_table(const struct tourney *t, struct arena_pair *out)
{
	if (t->format == TF_MATCH) { /* game pairs: the first player has white in the pair's
	                                first game */
		out[0] = (struct arena_pair){.white = t->round % 2, .black = 1 - t->round % 2};
		return 1;
	}
	if (t->format == TF_GAUNTLET)
		return arena_gauntlet_round(t->n, 1, t->round, out);
	return arena_rr_round(t->n, t->format == TF_DOUBLE ? 2 : 1, t->round, 0, out,
	                      TOURNEY_MAX_PLAYERS);
}

/*
 * A Swiss round paired on a worker thread: the Dutch system's matching grows as the fourth
 * power of the players in a score group (docs/arena.md: 20 ms at 100 players, a minute at
 * 1000), which the loop must not wait for. The job holds a copy of what the pairing reads
 * (names, the rounds played), made on the loop; the worker touches nothing else; its end,
 * back on the loop, finds the tournament again by id and applies the pairing only when the
 * tournament is still running at that round (cancelled meanwhile: dropped). Owned by
 * itself: freed by its end. Players who enter meanwhile are not in it (absent that round).
 */
struct pair_job {
	uv_work_t work;
	struct tourneys *ts;
	uint64_t tourney;
	int round; /* the round paired is round + 1 */
	int n;
	struct arena_swiss sw;
	struct arena_player pl[TOURNEY_MAX_PLAYERS];
	char names[TOURNEY_MAX_PLAYERS][PROTO_NAME_MAX + 1];
	struct arena_game *rows; /* n x max(round, 1), row-major */
	struct arena_pair out[TOURNEY_MAX_PLAYERS];
	int result; /* pairs, or a negative arena_err */
	double cpu; /* the worker's CPU time pairing */
};

static void pair_work(uv_work_t *w)
{
	struct pair_job *j = w->data;
	double t0 = events_cpu_now();
	j->result = arena_dutch_pair(&j->sw, j->out, TOURNEY_MAX_PLAYERS);
	j->cpu = events_cpu_now() - t0;
}

static void round_paired(struct tourneys *ts, struct tourney *t, const struct arena_pair *out,
                         int n);

static void pair_done(uv_work_t *w, int status)
{
	struct pair_job *j = w->data;
	struct tourney *t = find(j->ts, j->tourney);
	metric_observe(&j->ts->pairing, j->cpu);
	if (t != NULL) {
		t->pairing = false;
		if (status == 0 && t->state == TS_RUNNING && t->round == j->round)
			round_paired(j->ts, t, j->out, j->result);
		pump_soon(j->ts); /* a round decided at once (forfeits) is followed by the next */
	}
	free(j->rows);
	free(j);
}

/* Queues the pairing of t's next Swiss round; false (nothing queued) when out of memory. */
static bool pair_swiss_async(struct tourneys *ts, struct tourney *t)
{
	struct pair_job *j = calloc(1, sizeof *j);
	int width = t->round > 0 ? t->round : 1;
	if (j == NULL || (j->rows = calloc((size_t)t->n * (size_t)width, sizeof *j->rows)) == NULL) {
		free(j);
		return false;
	}
	j->work.data = j;
	j->ts = ts;
	j->tourney = t->id;
	j->round = t->round;
	j->n = t->n;
	as_swiss(t, t->round, &j->sw, j->pl);
	for (int i = 0; i < t->n; i++) {
		memcpy(j->names[i], t->p[i].name, sizeof j->names[i]);
		memcpy(j->rows + (size_t)i * (size_t)width, t->g[i],
		       (size_t)t->round * sizeof *j->rows);
		j->pl[i].name = j->names[i];
		j->pl[i].games = j->rows + (size_t)i * (size_t)width;
	}
	if (uv_queue_work(ts->pump.loop, &j->work, pair_work, pair_done) != 0) {
		free(j->rows);
		free(j);
		return false;
	}
	t->pairing = true;
	return true;
}

static void finish(struct tourneys *ts, struct tourney *t)
{
	t->state = TS_FINISHED;
	if (t->format == TF_ARENA)
		t->npairs = 0; /* as lichess: games still on at the end are played, not counted */
	save(ts, t);
	char *text = NULL;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "rounds", played(t));
	cJSON_AddItemToObject(j, "standings", standings_json(t, &text));
	if (t->format == TF_MATCH) {
		xappend(&text, "\n");
		cJSON_AddItemToObject(j, "match", match_json(t, &text));
	}
	tell(ts, t, "finished", j, xasprintf("final standings\n%s", text ? text : ""));
	free(text);
}

/* Pairs round t->round + 1 and starts its games, or finishes t. */
static void next_round(struct tourneys *ts, struct tourney *t)
{
	int active = 0;
	for (int i = 0; i < t->n; i++)
		active += t->p[i].active;
	double llr;
	if (t->round >= t->rounds || (t->format == TF_SWISS && active < 2) ||
	    (t->format == TF_MATCH && t->round % 2 == 0 &&
	     match_sprt(t, &llr) != STATS_SPRT_CONTINUE)) {
		finish(ts, t);
		return;
	}
	if (t->format == TF_SWISS) {
		if (!pair_swiss_async(ts, t)) {
			log_error("tournament %" PRIu64 ": out of memory pairing round %d; tried "
			          "again",
			          t->id, t->round + 1);
			pump_within(ts, 1000);
		}
		return;
	}
	struct arena_pair out[TOURNEY_MAX_PLAYERS];
	double t0 = events_cpu_now();
	int n = pair_table(t, out);
	metric_observe(&ts->pairing, events_cpu_now() - t0);
	round_paired(ts, t, out, n);
}

/* Round t->round + 1 is paired (n pairs in out, or a negative arena_err): its games start. */
static void round_paired(struct tourneys *ts, struct tourney *t, const struct arena_pair *out,
                         int n)
{
	if (n < 0) { /* a Swiss with no legal pairing left ends there */
		log_info("tournament %" PRIu64 ": round %d cannot be paired (%s); it ends", t->id,
		         t->round + 1, arena_strerror(n));
		finish(ts, t);
		return;
	}
	for (int i = 0; i < t->n; i++)
		if (!row_room(t, i, t->round + 1)) { /* a match's rows grow with its games */
			log_error("tournament %" PRIu64 ": out of memory for round %d; it ends",
			          t->id, t->round + 1);
			finish(ts, t);
			return;
		}
	t->npairs = n;
	for (int i = 0; i < n; i++)
		t->pairs[i] = (struct tpair){.white = out[i].white, .black = out[i].black};
	t->round++;
	enter_round(ts, t);
	start_games(ts, t);
	char *text = NULL;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "round", t->round);
	cJSON_AddNumberToObject(j, "rounds", t->rounds);
	cJSON_AddItemToObject(j, "pairs", pairs_json(t, &text));
	tell(ts, t, "round", j,
	     xasprintf("round %d of %d paired\n%s", t->round, t->rounds, text ? text : ""));
	free(text);
}

/* Player i's whites minus blacks over its games over (an arena gives white to the lower). */
static int colour_lean(const struct tourney *t, int i)
{
	int k = 0;
	for (int r = 0; r < t->p[i].ngames; r++)
		k += t->g[i][r].color == 'w' ? 1 : t->g[i][r].color == 'b' ? -1 : 0;
	return k;
}

/*
 * An arena at `now`: its decided games leave the board, and its free players (here, not
 * paused, below the games cap) are paired by src/arena (arena_live_pair: the one waiting
 * longest picks the closest-ranked free player other than its last opponent, who is taken
 * again only after TOURNEY_REMATCH_MS of waiting); the games start at once.
 */
static void arena_pump(struct tourneys *ts, struct tourney *t, int64_t now)
{
	int k = 0;
	for (int i = 0; i < t->npairs; i++)
		if (t->pairs[i].result == 0)
			t->pairs[k++] = t->pairs[i];
	bool changed = k != t->npairs;
	t->npairs = k;
	bool busy[TOURNEY_MAX_PLAYERS] = {false};
	for (int i = 0; i < t->npairs; i++) {
		busy[t->pairs[i].white] = busy[t->pairs[i].black] = true;
		changed |= t->pairs[i].game == 0; /* not started: tried again */
	}
	double t0 = events_cpu_now();
	struct standing st[TOURNEY_MAX_PLAYERS];
	int rank[TOURNEY_MAX_PLAYERS];
	standings(t, st);
	for (int i = 0; i < t->n; i++)
		rank[st[i].player] = i;
	struct arena_live_player fr[TOURNEY_MAX_PLAYERS];
	int nf = 0;
	for (int i = 0; i < t->n; i++) {
		const struct tplayer *p = &t->p[i];
		if (!p->active || busy[i] || !row_room(t, i, p->ngames + 1) ||
		    !lobby_user_online(ts->lobby, p->name))
			continue;
		fr[nf++] = (struct arena_live_player){
		        .id = i,
		        .rank = rank[i],
		        .last_opp = p->ngames ? t->g[i][p->ngames - 1].opp : -1,
		        .waiting = now > p->free_since ? now - p->free_since : 0};
	}
	struct arena_pair out[TOURNEY_MAX_PLAYERS / 2];
	int n = arena_live_pair(fr, nf, TOURNEY_REMATCH_MS, out, TOURNEY_MAX_PLAYERS / 2);
	metric_observe(&ts->pairing, events_cpu_now() - t0);
	int first = t->npairs;
	for (int i = 0; i < n && t->npairs < TOURNEY_MAX_PLAYERS / 2 + 1; i++) {
		int w = out[i].white, b = out[i].black;
		if (colour_lean(t, w) > colour_lean(t, b)) {
			w = out[i].black;
			b = out[i].white;
		}
		t->pairs[t->npairs++] = (struct tpair){.white = w, .black = b};
		t->g[w][t->p[w].ngames] = (struct arena_game){.opp = b, .color = 'w'};
		t->g[b][t->p[b].ngames] = (struct arena_game){.opp = w, .color = 'b'};
		changed = true;
	}
	if (changed)
		start_games(ts, t);
	for (int i = first; i < t->npairs; i++) {
		const struct tpair *pr = &t->pairs[i];
		int w = pr->white, b = pr->black;
		cJSON *j = cJSON_CreateObject();
		cJSON_AddNumberToObject(j, "game", (double)pr->game);
		cJSON_AddStringToObject(j, "white", t->p[w].name);
		cJSON_AddStringToObject(j, "black", t->p[b].name);
		tell(ts, t, "paired", j,
		     xasprintf("%s - %s  game %" PRIu64, t->p[w].name, t->p[b].name, pr->game));
	}
}

static void start_on_time(struct tourneys *ts, struct tourney *t);

/*
 * Out of the hooks' way, and at each tournament's next moment: a tournament whose start=
 * came starts (or is cancelled, too few players); rounds over are followed by the next;
 * games not started are; a running arena pairs its free players (every second, since a
 * player may come back or a rematch become allowed) and ends at its time.
 */
static void pump(uv_timer_t *h)
{
	struct tourneys *ts = h->data;
	int64_t now = wall_ms(), next = INT64_MAX;
	for (struct tourney *t = ts->list; t != NULL; t = t->next) {
		if (t->state == TS_CREATED && t->start_at != 0) {
			if (now < t->start_at) {
				next = t->start_at < next ? t->start_at : next;
				continue;
			}
			start_on_time(ts, t);
		}
		if (t->state != TS_RUNNING)
			continue;
		if (t->format == TF_ARENA) {
			if (now >= t->ends_at) {
				finish(ts, t);
				continue;
			}
			arena_pump(ts, t, now);
			if (t->standings_due) {
				t->standings_due = false;
				tell_standings(ts, t);
			}
			int64_t at = t->ends_at < now + 1000 ? t->ends_at : now + 1000;
			next = at < next ? at : next;
			continue;
		}
		bool due = false; /* games not started (a failure before, or a restart) */
		for (int i = 0; i < t->npairs; i++)
			due |= t->pairs[i].result == 0 && t->pairs[i].game == 0;
		if (due && !start_games(ts, t)) {
			next = now + 1000 < next ? now + 1000 : next;
			continue;
		}
		/* several rounds may be decided at once (every game forfeited) */
		for (int guard = 0; t->state == TS_RUNNING && !t->pairing && round_over(t) &&
		                    guard < 2 * TOURNEY_MAX_ROUNDS;
		     guard++)
			next_round(ts, t);
	}
	if (next != INT64_MAX)
		uv_timer_start(&ts->pump, pump, (uint64_t)(next > now ? next - now : 0), 0);
}

static void pump_soon(struct tourneys *ts)
{
	uv_timer_start(&ts->pump, pump, 0, 0);
}

/* Has the pump run within ms: sooner if it is due sooner, never later. */
static void pump_within(struct tourneys *ts, uint64_t ms)
{
	if (uv_is_active((uv_handle_t *)&ts->pump) && uv_timer_get_due_in(&ts->pump) <= ms)
		return;
	uv_timer_start(&ts->pump, pump, ms, 0);
}

/* ---- the verbs ----------------------------------------------------------------------- */

static bool id_arg(struct tourneys *ts, struct client *c, const struct proto_req *rq,
                   struct tourney **out)
{
	uint64_t id;
	if (rq->argc < 2 || !proto_parse_id(rq->argv[1], &id)) {
		reply_err(c, rq, ERR_BAD_ARGS, "usage: tourney %s <id>", rq->argv[0]);
		return false;
	}
	if ((*out = find(ts, id)) == NULL) {
		reply_err(c, rq, ERR_NO_SUCH_TOURNEY, "no tournament %" PRIu64, id);
		return false;
	}
	return true;
}

static bool need_login(struct client *c, const struct proto_req *rq)
{
	if (c->logged_in)
		return true;
	reply_err(c, rq, ERR_NOT_LOGGED_IN, "log in first: login <name>");
	return false;
}

static bool in_state(struct tourney *t, struct client *c, const struct proto_req *rq,
                     enum tstate want)
{
	if (t->state == want)
		return true;
	reply_err(c, rq, ERR_TOURNEY_STATE, "tournament %" PRIu64 " is %s", t->id,
	          state_names[t->state]);
	return false;
}

static bool director(struct tourney *t, struct client *c, const struct proto_req *rq)
{
	if (strcasecmp(t->director, c->name) == 0)
		return true;
	reply_err(c, rq, ERR_NOT_DIRECTOR, "only %s, its director, may %s tournament %" PRIu64,
	          t->director, rq->argv[0], t->id);
	return false;
}

/* Drops finished and cancelled tournaments past the TOURNEY_KEEP_OVER newest. */
static void trim(struct tourneys *ts)
{
	int over = 0;
	for (struct tourney **pp = &ts->list; *pp != NULL;) {
		struct tourney *t = *pp;
		if ((t->state == TS_FINISHED || t->state == TS_CANCELLED) &&
		    ++over > TOURNEY_KEEP_OVER) {
			*pp = t->next;
			tourney_free(t);
		} else {
			pp = &t->next;
		}
	}
}

static cJSON *summary_json(const struct tourney *t)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "tourney", (double)t->id);
	cJSON_AddStringToObject(j, "name", t->name);
	cJSON_AddStringToObject(j, "kind", t->ops->name);
	cJSON_AddStringToObject(j, "options", t->words);
	cJSON_AddStringToObject(j, "format", format_names[t->format]);
	cJSON_AddStringToObject(j, "state", state_names[t->state]);
	cJSON_AddStringToObject(j, "director", t->director);
	cJSON_AddBoolToObject(j, "rated", t->rated);
	cJSON_AddNumberToObject(j, "players", t->n);
	cJSON_AddNumberToObject(j, "max", t->max);
	cJSON_AddNumberToObject(j, "round", t->round);
	cJSON_AddNumberToObject(j, "rounds", t->rounds);
	if (t->format == TF_ARENA)
		cJSON_AddNumberToObject(j, "minutes", (double)t->length / 60000.0);
	if (t->openings[0] != '\0')
		cJSON_AddStringToObject(j, "openings", t->openings);
	if (t->first_opening != 0)
		cJSON_AddNumberToObject(j, "opening", t->first_opening + 1);
	if (t->sprt_text[0] != '\0')
		cJSON_AddStringToObject(j, "sprt", t->sprt_text);
	cJSON_AddNumberToObject(j, "start_at", (double)t->start_at);
	cJSON_AddNumberToObject(j, "ends_at", (double)t->ends_at);
	return j;
}

/* "2026-11-28 12:00 UTC" for when (wall clock ms), into buf. */
static const char *utc_text(int64_t when, char *buf, size_t len)
{
	time_t secs = (time_t)(when / 1000);
	struct tm tm;
	if (gmtime_r(&secs, &tm) == NULL || strftime(buf, len, "%Y-%m-%d %H:%M UTC", &tm) == 0)
		snprintf(buf, len, "?");
	return buf;
}

static char *summary_text(const struct tourney *t)
{
	char when[64], at[40];
	if (t->format == TF_ARENA && t->state == TS_RUNNING)
		snprintf(when, sizeof when, "until %s", utc_text(t->ends_at, at, sizeof at));
	else if (t->format == TF_ARENA)
		snprintf(when, sizeof when, "%g minute(s)", (double)t->length / 60000.0);
	else
		snprintf(when, sizeof when, "round %d of %d", t->round, t->rounds);
	if (t->state == TS_CREATED && t->start_at != 0)
		snprintf(when + strlen(when), sizeof when - strlen(when), ", starts %s",
		         utc_text(t->start_at, at, sizeof at));
	return xasprintf("%" PRIu64 " %s: %s %s%s%s, %s, %d player(s), %s, director %s", t->id,
	                 t->name, format_names[t->format], t->ops->name, t->words[0] ? " " : "",
	                 t->words, state_names[t->state], t->n, when, t->director);
}

/* minutes= as ms (0.1 to 1440 minutes, decimals allowed), or 0. */
static int64_t minutes_ms(const char *v)
{
	char *end;
	double m = strtod(v, &end);
	if (*v == '\0' || *end != '\0' || !(m >= 0.1 && m <= 1440))
		return 0;
	return (int64_t)(m * 60000.0 + 0.5);
}

/*
 * start= as wall clock ms, or 0: `+M` minutes from now (as minutes=), `HH:MM` the next such
 * time of day (UTC), or `YYYY-MM-DDTHH:MM` (UTC, a trailing Z allowed) within a year ahead.
 */
static int64_t start_time(const char *v, int64_t now)
{
	if (v[0] == '+') { /* any time to come within a year */
		char *end;
		double m = strtod(v + 1, &end);
		if (v[1] == '\0' || *end != '\0' || !(m > 0 && m <= 366 * 24 * 60))
			return 0;
		return now + (int64_t)(m * 60000.0 + 0.5);
	}
	struct tm tm = {0};
	int y, mo, d, h, mi, k = 0;
	time_t secs = (time_t)(now / 1000);
	if (sscanf(v, "%2d:%2d%n", &h, &mi, &k) == 2 && v[k] == '\0') {
		if (gmtime_r(&secs, &tm) == NULL)
			return 0;
	} else if (sscanf(v, "%4d-%2d-%2dT%2d:%2d%n", &y, &mo, &d, &h, &mi, &k) == 5 &&
	           (v[k] == '\0' || (v[k] == 'Z' && v[k + 1] == '\0')) && mo >= 1 && mo <= 12 &&
	           d >= 1 && d <= 31) {
		tm.tm_year = y - 1900;
		tm.tm_mon = mo - 1;
		tm.tm_mday = d;
	} else {
		return 0;
	}
	if (h < 0 || h > 23 || mi < 0 || mi > 59)
		return 0;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = 0;
	int64_t at = (int64_t)timegm(&tm) * 1000;
	if (strchr(v, 'T') == NULL && at <= now)
		at += 24 * 3600 * 1000; /* HH:MM past today: tomorrow's */
	return at > now && at - now <= (int64_t)366 * 24 * 3600 * 1000 ? at : 0;
}

static void do_create(struct tourneys *ts, struct client *c, const struct proto_req *rq)
{
	if (!need_login(c, rq))
		return;
	if (rq->argc < 2) {
		reply_err(c, rq, ERR_BAD_ARGS,
		          "usage: tourney create <kind> [game opts] format=roundrobin|double|"
		          "gauntlet|swiss|arena|match [rounds=N] [minutes=M] [games=N] "
		          "[openings=NAME [opening=K]] [sprt=elo0,elo1,alpha,beta] [start=+M|HH:MM|"
		          "YYYY-MM-DDTHH:MM] [max=N] [rated=0|1] [name=...]");
		return;
	}
	struct tourney *t = calloc(1, sizeof *t);
	if (t == NULL) {
		reply_oom(c, rq);
		return;
	}
	t->ops = game_find(rq->argv[1]);
	if (t->ops == NULL || t->ops->nplayers != 2 || (t->ops->flags & GAME_SIMULTANEOUS)) {
		reply_err(c, rq, ERR_UNKNOWN_GAME,
		          "tournaments are of two-player games of alternate moves: 'games' "
		          "lists them");
		tourney_free(t);
		return;
	}
	int format = -1, games = 0;
	const char *book = NULL;
	t->max = TOURNEY_MAX_PLAYERS;
	size_t wl = 0;
	for (int i = 2; i < rq->argc; i++) {
		const char *w = rq->argv[i];
		const char *eq = strchr(w, '=');
		const char *v = eq ? eq + 1 : "";
		size_t kl = eq ? (size_t)(eq - w) : strlen(w);
		char *end;
		long x = strtol(v, &end, 10);
		bool num = *v != '\0' && *end == '\0';
		if (kl == 6 && strncmp(w, "format", 6) == 0) {
			format = index_of(format_names, NFORMATS, v);
		} else if (kl == 6 && strncmp(w, "rounds", 6) == 0 && num && x >= 1 &&
		           x <= TOURNEY_MAX_ROUNDS) {
			t->rounds_asked = (int)x;
		} else if (kl == 3 && strncmp(w, "max", 3) == 0 && num && x >= 2 &&
		           x <= TOURNEY_MAX_PLAYERS) {
			t->max = (int)x;
		} else if (kl == 4 && strncmp(w, "name", 4) == 0 && *v != '\0' &&
		           strlen(v) <= TOURNEY_NAME_MAX) {
			snprintf(t->name, sizeof t->name, "%s", v);
		} else if (kl == 5 && strncmp(w, "rated", 5) == 0 && num && (x == 0 || x == 1)) {
			t->rated = x == 1;
		} else if (kl == 5 && strncmp(w, "games", 5) == 0 && num && x >= 2 &&
		           x <= TOURNEY_MAX_GAMES && x % 2 == 0) {
			games = (int)x;
		} else if (kl == 8 && strncmp(w, "openings", 8) == 0 && *v != '\0') {
			book = v;
		} else if (kl == 7 && strncmp(w, "opening", 7) == 0 && num && x >= 1 &&
		           x <= BOOK_MAX_OPEN) {
			t->first_opening = (int)x - 1;
		} else if (kl == 4 && strncmp(w, "sprt", 4) == 0) {
			const char *why = NULL;
			if (strlen(v) >= sizeof t->sprt_text ||
			    stats_sprt_parse(v, &t->sprt, &why) < 0) {
				reply_err(c, rq, ERR_BAD_OPTION,
				          "sprt=elo0,elo1,alpha,beta[,normalized|logistic]: %s",
				          why ? why : "too long");
				tourney_free(t);
				return;
			}
			snprintf(t->sprt_text, sizeof t->sprt_text, "%s", v);
		} else if (kl == 7 && strncmp(w, "minutes", 7) == 0 &&
		           (t->length = minutes_ms(v)) > 0) {
		} else if (kl == 5 && strncmp(w, "start", 5) == 0 &&
		           (t->start_at = start_time(v, wall_ms())) > 0) {
		} else if ((kl == 5 && strncmp(w, "color", 5) == 0) ||
		           (kl == 6 &&
		            (strncmp(w, "rounds", 6) == 0 || strncmp(w, "format", 6) == 0)) ||
		           (kl == 3 && strncmp(w, "max", 3) == 0) ||
		           (kl == 4 && strncmp(w, "name", 4) == 0) ||
		           (kl == 7 && strncmp(w, "minutes", 7) == 0) ||
		           (kl == 5 && strncmp(w, "games", 5) == 0) ||
		           (kl == 8 && strncmp(w, "openings", 8) == 0) ||
		           (kl == 7 && strncmp(w, "opening", 7) == 0) ||
		           (kl == 5 && strncmp(w, "start", 5) == 0)) {
			reply_err(c, rq, ERR_BAD_OPTION,
			          "'%.40s': format=roundrobin|double|gauntlet|swiss|arena|match, "
			          "rounds=1..%d, minutes=0.1..1440 (an arena's length), games=2..%d "
			          "and even (a match's), openings=NAME (a book), opening=K (its "
			          "first), start=+M "
			          "(minutes from now), HH:MM or YYYY-MM-DDTHH:MM (UTC, to come), "
			          "max=2..%d, rated=0|1, name=1..%d characters; colours are the "
			          "pairing's",
			          w, TOURNEY_MAX_ROUNDS, TOURNEY_MAX_GAMES, TOURNEY_MAX_PLAYERS,
			          TOURNEY_NAME_MAX);
			tourney_free(t);
			return;
		} else { /* the game's own option words, as seek takes them */
			int k = snprintf(t->words + wl, sizeof t->words - wl, "%s%s", wl ? " " : "",
			                 w);
			if (k < 0 || (size_t)k >= sizeof t->words - wl) {
				reply_err(c, rq, ERR_BAD_OPTION, "the game's options are too long");
				tourney_free(t);
				return;
			}
			wl += (size_t)k;
		}
	}
	char why[160];
	if (format < 0) {
		reply_err(c, rq, ERR_BAD_OPTION,
		          "format=roundrobin|double|gauntlet|swiss|arena|match is needed");
		tourney_free(t);
		return;
	}
	t->format = (enum tformat)format;
	const char *misfit = NULL;
	if (t->format != TF_MATCH && (games != 0 || t->sprt_text[0] != '\0'))
		misfit = "games= and sprt= are a match's (format=match)";
	else if (t->format == TF_MATCH && t->rounds_asked != 0)
		misfit = "a match has games=, not rounds=";
	else if (book == NULL && t->first_opening != 0)
		misfit = "opening=K is the first opening of a book: openings=NAME";
	else if (book != NULL && (t->format == TF_SWISS || t->format == TF_ARENA))
		misfit = "openings= is for a match, a round-robin or a gauntlet (a Swiss or an "
		         "arena pairs by results: an opening's two colours would not meet)";
	if (misfit != NULL) {
		reply_err(c, rq, ERR_BAD_OPTION, "%s", misfit);
		tourney_free(t);
		return;
	}
	if (t->format == TF_MATCH) {
		t->max = 2;
		t->rounds_asked = games ? games : MATCH_GAMES;
	}
	if (t->format != TF_ARENA && t->length != 0) {
		reply_err(c, rq, ERR_BAD_OPTION,
		          "minutes= is an arena's length; rounds are played "
		          "out");
		tourney_free(t);
		return;
	}
	if (t->format == TF_ARENA && t->rounds_asked != 0) {
		reply_err(c, rq, ERR_BAD_OPTION, "an arena has no rounds: minutes= is its length");
		tourney_free(t);
		return;
	}
	if (t->format == TF_ARENA && t->length == 0)
		t->length = TOURNEY_ARENA_MINUTES * 60000;
	if (t->rated && !c->registered) {
		reply_err(c, rq, ERR_RATED_NEEDS_ACCOUNT, "rated tournaments are for accounts");
		tourney_free(t);
		return;
	}
	if (!parse_options(t, why, sizeof why) ||
	    (book != NULL && !load_book(ts, t, book, why, sizeof why))) {
		reply_err(c, rq, ERR_BAD_OPTION, "%s", why);
		tourney_free(t);
		return;
	}
	t->id = ++ts->last_id;
	if (t->name[0] == '\0')
		snprintf(t->name, sizeof t->name, "%s %s #%" PRIu64, t->ops->name,
		         format_names[t->format], t->id);
	snprintf(t->director, sizeof t->director, "%s", c->name);
	t->state = TS_CREATED;
	t->next = ts->list;
	ts->list = t;
	save(ts, t);
	trim(ts);
	if (t->start_at != 0)
		pump_soon(ts); /* arms the pump for the start */
	cJSON *f = summary_json(t);
	reply_ok(c, rq, f, NULL,
	         "tournament %" PRIu64 " created: tourney join %" PRIu64
	         " to play, tourney start %" PRIu64 " (you) to begin",
	         t->id, t->id, t->id);
	tell(ts, t, "created", summary_json(t), summary_text(t));
}

static void do_list(struct tourneys *ts, struct client *c, const struct proto_req *rq)
{
	cJSON *f = cJSON_CreateObject();
	cJSON *a = cJSON_AddArrayToObject(f, "tourneys");
	char *extra = NULL;
	int k = 0;
	for (struct tourney *t = ts->list; t != NULL && k < TOURNEY_LIST_MAX; t = t->next, k++) {
		cJSON_AddItemToArray(a, summary_json(t));
		char *line = summary_text(t);
		xappend(&extra, "%s  %s", extra ? "\n" : "", line ? line : "");
		free(line);
	}
	reply_ok(c, rq, f, extra, "%d tournament(s)", k);
}

static void do_show(struct tourneys *ts, struct client *c, const struct proto_req *rq)
{
	struct tourney *t;
	if (!id_arg(ts, c, rq, &t))
		return;
	char *st = NULL, *pt = NULL;
	cJSON *f = summary_json(t);
	cJSON_AddNumberToObject(f, "played", played(t));
	cJSON_AddItemToObject(f, "standings", standings_json(t, &st));
	cJSON_AddItemToObject(f, "pairs", pairs_json(t, &pt));
	if (t->format == TF_MATCH) {
		xappend(&st, "\n");
		cJSON_AddItemToObject(f, "match", match_json(t, &st));
	}
	char *head = summary_text(t);
	char *extra =
	        t->format == TF_ARENA
	                ? xasprintf("standings:\n%s%s%s", st ? st : "",
	                            t->npairs ? "\ngames on:\n" : "", pt ? pt : "")
	                : xasprintf("standings after %d round(s):\n%s%s%s", played(t), st ? st : "",
	                            t->npairs ? "\nround's pairings:\n" : "", pt ? pt : "");
	free(st);
	free(pt);
	reply_ok(c, rq, f, extra, "%s", head ? head : "");
	free(head);
}

static void do_join(struct tourneys *ts, struct client *c, const struct proto_req *rq)
{
	struct tourney *t;
	if (!need_login(c, rq) || !id_arg(ts, c, rq, &t))
		return;
	/* late entry: a Swiss (the rounds missed count as absences, no points) and an arena */
	bool late = t->state == TS_RUNNING && (t->format == TF_SWISS || t->format == TF_ARENA);
	if (!late && !in_state(t, c, rq, TS_CREATED))
		return;
	int was = player_of(t, c->name);
	if (was >= 0 && late && t->format == TF_ARENA && !t->p[was].active) {
		/* a paused arena player comes back */
		t->p[was].active = true;
		t->p[was].absences = 0;
		t->p[was].free_since = wall_ms();
		save(ts, t);
		pump_soon(ts);
		cJSON *f = cJSON_CreateObject();
		cJSON_AddNumberToObject(f, "tourney", (double)t->id);
		cJSON_AddNumberToObject(f, "players", t->n);
		reply_ok(c, rq, f, NULL, "you are back in tournament %" PRIu64, t->id);
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "name", c->name);
		cJSON_AddNumberToObject(j, "players", t->n);
		tell(ts, t, "joined", j, xasprintf("%s is back (%d player(s))", c->name, t->n));
		return;
	}
	if (was >= 0) {
		reply_err(c, rq, ERR_TOURNEY_STATE, "you are in tournament %" PRIu64 " already",
		          t->id);
		return;
	}
	if (t->n >= t->max) {
		reply_err(c, rq, ERR_TOURNEY_FULL, "tournament %" PRIu64 " has its %d players",
		          t->id, t->max);
		return;
	}
	if (t->rated && !c->registered) {
		reply_err(c, rq, ERR_RATED_NEEDS_ACCOUNT,
		          "tournament %" PRIu64 " is rated: rated games are between accounts",
		          t->id);
		return;
	}
	int me = add_player(t);
	if (me < 0) {
		reply_oom(c, rq);
		return;
	}
	struct tplayer *p = &t->p[me];
	*p = (struct tplayer){.registered = c->registered, .active = true, .free_since = wall_ms()};
	snprintf(p->name, sizeof p->name, "%s", c->name);
	if (late && t->format == TF_SWISS)
		for (int r = 0; r < t->round; r++) /* not paired in the rounds gone by */
			t->g[me][r] = (struct arena_game){.opp = -1, .color = '-', .result = 'Z'};
	save(ts, t);
	if (late)
		pump_soon(ts);
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "tourney", (double)t->id);
	cJSON_AddNumberToObject(f, "players", t->n);
	reply_ok(c, rq, f, NULL, "you joined tournament %" PRIu64 " (%d player(s))", t->id, t->n);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "name", c->name);
	cJSON_AddNumberToObject(j, "players", t->n);
	tell(ts, t, "joined", j, xasprintf("%s joined (%d player(s))", c->name, t->n));
}

static void do_withdraw(struct tourneys *ts, struct client *c, const struct proto_req *rq)
{
	struct tourney *t;
	if (!need_login(c, rq) || !id_arg(ts, c, rq, &t))
		return;
	int i = player_of(t, c->name);
	if (i < 0 || (t->state != TS_CREATED && t->state != TS_RUNNING) ||
	    (t->state == TS_RUNNING && !t->p[i].active)) {
		reply_err(c, rq, ERR_TOURNEY_STATE, "you do not play in tournament %" PRIu64,
		          t->id);
		return;
	}
	if (t->state == TS_CREATED) { /* not started: the entry goes */
		memmove(&t->p[i], &t->p[i + 1], (size_t)(t->n - i - 1) * sizeof t->p[0]);
		t->n--;
	} else { /* its games from the next round on are forfeits; a game on goes on */
		t->p[i].active = false;
	}
	save(ts, t);
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "tourney", (double)t->id);
	reply_ok(c, rq, f, NULL, "you withdrew from tournament %" PRIu64, t->id);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "name", c->name);
	tell(ts, t, "withdrawn", j, xasprintf("%s withdrew", c->name));
}

/* Why t cannot start now (too few players), or NULL. */
static const char *cannot_start(const struct tourney *t)
{
	if (t->format == TF_SWISS && t->n < 3)
		return "a Swiss needs 3 players";
	if (t->format == TF_MATCH && t->n != 2)
		return "a match is between 2 players";
	return t->n < 2 ? "it needs 2 players" : NULL;
}

/* t (created, with its players) planned: its rounds, or an arena's end; running from now. */
static void plan(struct tourney *t)
{
	switch (t->format) {
	case TF_ROUNDROBIN:
		t->rounds = arena_rr_rounds(t->n, 1);
		break;
	case TF_DOUBLE:
		t->rounds = arena_rr_rounds(t->n, 2);
		break;
	case TF_GAUNTLET:
		t->rounds = arena_gauntlet_rounds(t->n, 1);
		break;
	case TF_MATCH:
		t->rounds = t->rounds_asked; /* games=: one game a round */
		break;
	case TF_SWISS: {
		int r = 1;
		while ((1 << r) < t->n)
			r++;
		t->rounds = t->rounds_asked ? t->rounds_asked : r; /* ceil(log2 n) by default */
		if (t->rounds > t->n - 1)
			t->rounds = t->n - 1; /* more would need a rematch */
		break;
	}
	case TF_ARENA:
	default: {
		int64_t now = wall_ms();
		t->rounds = 0;
		t->ends_at = now + t->length;
		for (int i = 0; i < t->n; i++)
			t->p[i].free_since = now;
		break;
	}
	}
	if (t->rounds > max_rounds(t->format))
		t->rounds = max_rounds(t->format);
	t->state = TS_RUNNING;
}

/* A planned t told started, and its first round paired (an arena: its players at once). */
static void launch(struct tourneys *ts, struct tourney *t)
{
	tell(ts, t, "started", summary_json(t), summary_text(t));
	if (t->format == TF_ARENA) {
		save(ts, t);
		pump_soon(ts);
	} else {
		next_round(ts, t); /* stores it */
	}
}

static void cancel(struct tourneys *ts, struct tourney *t, char *why);

/* start= came: t starts, or is cancelled when it cannot (the reason in the event). */
static void start_on_time(struct tourneys *ts, struct tourney *t)
{
	const char *why = cannot_start(t);
	if (why != NULL) {
		cancel(ts, t, xasprintf("not started at its time: %s", why));
		return;
	}
	plan(t);
	launch(ts, t);
}

static void do_start(struct tourneys *ts, struct client *c, const struct proto_req *rq)
{
	struct tourney *t;
	if (!need_login(c, rq) || !id_arg(ts, c, rq, &t) || !director(t, c, rq) ||
	    !in_state(t, c, rq, TS_CREATED))
		return;
	const char *why = cannot_start(t);
	if (why != NULL) {
		reply_err(c, rq, ERR_TOURNEY_STATE, "tournament %" PRIu64 " has %d player(s): %s",
		          t->id, t->n, why);
		return;
	}
	plan(t);
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "tourney", (double)t->id);
	cJSON_AddNumberToObject(f, "rounds", t->rounds);
	char when[40];
	if (t->format == TF_ARENA) {
		cJSON_AddNumberToObject(f, "ends_at", (double)t->ends_at);
		reply_ok(c, rq, f, NULL, "tournament %" PRIu64 " starts: an arena until %s", t->id,
		         utc_text(t->ends_at, when, sizeof when));
	} else {
		reply_ok(c, rq, f, NULL, "tournament %" PRIu64 " starts: %d round(s)", t->id,
		         t->rounds);
	}
	launch(ts, t);
}

/* t (created or running) cancelled, why (taken) in the event. */
static void cancel(struct tourneys *ts, struct tourney *t, char *why)
{
	t->state = TS_CANCELLED; /* games on are played out, not counted */
	save(ts, t);
	tell(ts, t, "cancelled", NULL, why);
}

static void do_cancel(struct tourneys *ts, struct client *c, const struct proto_req *rq)
{
	struct tourney *t;
	if (!need_login(c, rq) || !id_arg(ts, c, rq, &t) || !director(t, c, rq))
		return;
	if (t->state != TS_CREATED && t->state != TS_RUNNING) {
		in_state(t, c, rq, TS_RUNNING);
		return;
	}
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "tourney", (double)t->id);
	reply_ok(c, rq, f, NULL, "tournament %" PRIu64 " cancelled", t->id);
	cancel(ts, t, xasprintf("cancelled by %s", c->name));
}

/* The argument from=N of `tourney games|record ID [from=N]` into *from (0 without one);
   false (answered) when it is not one. */
static bool from_arg(struct client *c, const struct proto_req *rq, long *from)
{
	char *end = NULL;
	*from = 0;
	if (rq->argc > 3 ||
	    (rq->argc == 3 && (strncmp(rq->argv[2], "from=", 5) != 0 ||
	                       (*from = strtol(rq->argv[2] + 5, &end, 10)) < 0 || *end != '\0' ||
	                       end == rq->argv[2] + 5))) {
		reply_err(c, rq, ERR_BAD_ARGS, "usage: tourney %s <id> [from=N]", rq->argv[0]);
		return false;
	}
	return true;
}

/* Calls fn for each game of t so far, in round order (each once, from white's row: player
   i's column r); the number of them. */
static long each_game(const struct tourney *t,
                      void (*fn)(void *ud, const struct tourney *t, int i, int r, long k),
                      void *ud)
{
	long k = 0;
	int rows = 0;
	for (int i = 0; i < t->n; i++)
		rows = rows_of(t, i) > rows ? rows_of(t, i) : rows;
	for (int r = 0; r < rows; r++)
		for (int i = 0; i < t->n; i++) {
			const struct arena_game *g = &t->g[i][r];
			if (r < rows_of(t, i) && g->opp >= 0 && g->color == 'w')
				fn(ud, t, i, r, k++);
		}
	return k;
}

/* do_games' page: games [from, from + TOURNEY_GAMES_PAGE) into a, lines into extra. */
struct games_page {
	long from, shown;
	cJSON *a;
	char *extra;
};

static void game_listed(void *ud, const struct tourney *t, int i, int r, long k)
{
	struct games_page *pg = ud;
	if (k < pg->from || pg->shown == TOURNEY_GAMES_PAGE)
		return;
	pg->shown++;
	const struct arena_game *g = &t->g[i][r];
	bool arena = t->format == TF_ARENA;
	cJSON *j = cJSON_CreateObject();
	if (!arena)
		cJSON_AddNumberToObject(j, "round", r + 1);
	cJSON_AddNumberToObject(j, "game", (double)t->gid[i][r]);
	cJSON_AddStringToObject(j, "white", t->p[i].name);
	cJSON_AddStringToObject(j, "black", t->p[g->opp].name);
	cJSON_AddStringToObject(j, "result", pair_result_text(g->result));
	cJSON_AddItemToArray(pg->a, j);
	char rd[24] = "";
	if (!arena)
		snprintf(rd, sizeof rd, "round %d: ", r + 1);
	xappend(&pg->extra, "%s  %sgame %" PRIu64 " %s - %s %s", pg->extra ? "\n" : "", rd,
	        t->gid[i][r], t->p[i].name, t->p[g->opp].name, pair_result_text(g->result));
}

static void do_games(struct tourneys *ts, struct client *c, const struct proto_req *rq)
{
	struct tourney *t;
	struct games_page pg = {0};
	if (!id_arg(ts, c, rq, &t) || !from_arg(c, rq, &pg.from))
		return;
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "tourney", (double)t->id);
	pg.a = cJSON_AddArrayToObject(f, "games");
	long k = each_game(t, game_listed, &pg);
	cJSON_AddNumberToObject(f, "total", (double)k);
	if (pg.from + pg.shown < k) { /* a page of TOURNEY_GAMES_PAGE: the next one from here */
		cJSON_AddNumberToObject(f, "next", (double)(pg.from + pg.shown));
		xappend(&pg.extra, "%s  more: tourney games %" PRIu64 " from=%ld",
		        pg.extra ? "\n" : "", t->id, pg.from + pg.shown);
	}
	reply_ok(c, rq, f, pg.extra, "tournament %" PRIu64 ": %ld game(s)%s", t->id, k,
	         pg.shown < k ? ", a page of them" : "");
}

/* do_record's page: the ids of the games [from, from + ARCHIVE_RECORDS_MAX) (0 for a
   forfeit decided without a game, which the archive leaves out). */
struct ids_page {
	long from;
	size_t n;
	uint64_t ids[ARCHIVE_RECORDS_MAX];
};

static void game_id(void *ud, const struct tourney *t, int i, int r, long k)
{
	struct ids_page *pg = ud;
	if (k >= pg->from && pg->n < ARCHIVE_RECORDS_MAX)
		pg->ids[pg->n++] = t->gid[i][r]; /* 0: none, left out by the archive */
}

/* tourney record ID [from=N]: the games of `tourney games`, from the Nth, as one archive of
   records read from the store (archive_records: a page of them, "next" for the rest). */
static void do_record(struct tourneys *ts, struct client *c, const struct proto_req *rq)
{
	struct tourney *t;
	struct ids_page pg = {0};
	if (!id_arg(ts, c, rq, &t) || !from_arg(c, rq, &pg.from))
		return;
	long k = each_game(t, game_id, &pg);
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "tourney", (double)t->id);
	char more[48];
	snprintf(more, sizeof more, "tourney record %" PRIu64, t->id);
	archive_records(ts->arch, c, rq, pg.ids, pg.n, pg.from, k, f, more);
}

static void do_trf(struct tourneys *ts, struct client *c, const struct proto_req *rq)
{
	struct tourney *t;
	if (!id_arg(ts, c, rq, &t))
		return;
	if (t->format != TF_SWISS) {
		reply_err(c, rq, ERR_TOURNEY_STATE, "tournament %" PRIu64 " is no Swiss", t->id);
		return;
	}
	struct arena_player pl[TOURNEY_MAX_PLAYERS];
	struct arena_swiss sw;
	as_swiss(t, played(t), &sw, pl);
	struct arena_trf_info info = {.name = t->name, .arbiter = t->director};
	char *buf = malloc(TRF_MAX);
	int n = buf != NULL ? arena_trf_write(&sw, &info, buf, TRF_MAX) : ARENA_ENOMEM;
	if (n < 0) {
		free(buf);
		reply_err(c, rq, ERR_INTERNAL, "the TRF could not be written (%s)",
		          arena_strerror(n));
		return;
	}
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "tourney", (double)t->id);
	cJSON_AddStringToObject(f, "trf", buf);
	reply_ok(c, rq, f, buf, "tournament %" PRIu64 " as FIDE TRF-16:", t->id);
}

void tourney_command(struct tourneys *ts, struct client *c, const struct proto_req *rq)
{
	static const struct {
		const char *name;
		void (*fn)(struct tourneys *, struct client *, const struct proto_req *);
	} subs[] = {{"create", do_create}, {"list", do_list},         {"show", do_show},
	            {"join", do_join},     {"withdraw", do_withdraw}, {"start", do_start},
	            {"cancel", do_cancel}, {"games", do_games},       {"trf", do_trf},
	            {"record", do_record}};
	for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
		if (strcasecmp(rq->argv[0], subs[i].name) == 0) {
			subs[i].fn(ts, c, rq);
			return;
		}
	reply_usage(c, rq);
}

/* ---- life-cycle ---------------------------------------------------------------------- */

void tourneys_init(struct tourneys *ts, uv_loop_t *loop, struct sessions *sess, struct lobby *lobby,
                   struct journal *jn)
{
	*ts = (struct tourneys){.sess = sess, .lobby = lobby, .jn = jn};
	uv_timer_init(loop, &ts->pump);
	ts->pump.data = ts;
	ts->pump_open = true;
	journal_set_on_end(jn, on_game_end, ts);
	metric_histogram_init(&ts->pairing, "bitarena_tourney_pairing_seconds",
	                      "CPU time pairing a tournament's round (a Swiss's on a worker "
	                      "thread, the others on the loop) or an arena's free players",
	                      events_cpu_le, EVENTS_CPU_LE_N);
	metric_histogram_init(&ts->saving, "bitarena_tourney_save_seconds",
	                      "the loop's CPU time writing a tournament's document for the store "
	                      "(after a round's pairing or result, once per arena wave)",
	                      events_cpu_le, EVENTS_CPU_LE_N);
}

void tourneys_register_metrics(struct tourneys *ts, struct metrics *r)
{
	metrics_register(r, &ts->pairing.m);
	metrics_register(r, &ts->saving.m);
}

/* A pair of a tournament that came back, whose game is not in memory: its end is read
   from the store (counted now if it finished), else it is played again. */
static void recover_pair(struct tourneys *ts, struct tourney *t, struct tpair *pr)
{
	if (pr->game == 0)
		return; /* not started: the pump starts it */
	const struct game *g = session_find(ts->sess, pr->game);
	if (g != NULL) { /* restored: on, or ended by its records as it came back */
		if (session_over(g))
			count_end(ts, t, pr, g);
		return;
	}
	struct store_game sg;
	int r = journal_game_read(ts->jn, (int64_t)pr->game, &sg);
	if (r == STORE_OK && sg.status == STORE_FINISHED) {
		int absent_seat = -1;
		char code = sg.winner < 0 ? '='
		                          : code_of(sg.winner, sg.reason, sg.plies, true, false,
		                                    &absent_seat);
		set_result(ts, t, pr, code, absent_seat);
		log_info("tournament %" PRIu64 ": game %" PRIu64 " ended before the restart: %s",
		         t->id, pr->game, pair_result_text(code));
	} else {
		pr->game = 0; /* aborted or lost: played again */
	}
	store_game_clear(&sg);
}

int tourneys_recover(struct tourneys *ts)
{
	struct store_tourney *v;
	size_t n;
	int64_t max_id;
	int r = journal_tourneys_open(ts->jn, &v, &n, &max_id);
	if (r < 0)
		return r;
	if ((uint64_t)max_id > ts->last_id)
		ts->last_id = (uint64_t)max_id;
	int back = 0;
	for (size_t i = 0; i < n; i++) {
		bool here = find(ts, (uint64_t)v[i].id) != NULL; /* a cluster's events node again */
		struct tourney *t = here ? NULL : from_doc(ts, v[i].doc);
		if (t == NULL)
			continue;
		t->next = ts->list;
		ts->list = t;
		back++;
		if (t->state != TS_RUNNING)
			continue;
		for (int k = 0; k < t->npairs; k++)
			if (t->pairs[k].result == 0)
				recover_pair(ts, t, &t->pairs[k]);
		save(ts, t);
	}
	store_tourneys_free(v, n);
	if (back > 0)
		pump_soon(ts);
	return back;
}

static void pump_closed(uv_handle_t *h)
{
	(void)h;
}

void tourneys_forget(struct tourneys *ts)
{
	while (ts->list != NULL) { /* a Swiss pairing on a worker finds its tournament gone */
		struct tourney *t = ts->list;
		ts->list = t->next;
		tourney_free(t);
	}
}

void tourneys_close(struct tourneys *ts)
{
	if (ts->jn != NULL)
		journal_set_on_end(ts->jn, NULL, ts);
	tourneys_forget(ts);
	if (ts->pump_open) {
		uv_close((uv_handle_t *)&ts->pump, pump_closed);
		ts->pump_open = false;
	}
}
