/*
 * trf.c - the FIDE TRF-16 text of a Swiss tournament: arena_trf_write()
 * writes it, arena_trf_read() and arena_trf_round() read one back.
 *
 * Layout (FIDE Handbook, "TRF16", the tournament report file): header lines
 * "012 name", "022 city", "032 federation", "042 start", "052 end",
 * "062 players", "072 rated players", "092 type", "102 arbiter"; then one
 * "001" line per player, fixed columns (1-based):
 *    1- 3 001          5- 8 pairing number     10 sex     11-13 title
 *   15-47 name        49-52 rating          54-56 federation
 *   58-68 FIDE id     70-79 birth date      81-84 points (dd.d)
 *   86-89 rank        then per round, from column 92, ten columns each:
 *         opponent (4, 0000 for none), colour (w, b, -), result
 *         (1 = 0 + - W D L U F H Z);
 * optionally the next round's announced byes and absences (next_absences);
 * and last the TRF(x) lines that JaVaFo defined and bbpPairings reads:
 * "XXR n", the rounds planned, so that a checker knows which round is the
 * last, and "XXC white1" (or black1), the colour of pairing number 1 in
 * round 1 (C.04.3 E.5), without which no checker pairs a first round.
 * The rank column is the order by points, then pairing number.
 *
 * The reader takes the same columns (and "XXC white1" / "XXC black1", the
 * colour of pairing number 1 in round 1, as JaVaFo defines it); it ignores
 * every other line, and reads what pairing programs (bbpPairings' random
 * tournament generator among them) write, CR line ends included. Without
 * XXC, the initial colour is inferred as bbpPairings documents it: the
 * colour, in the first round with colours, of the first player (by pairing
 * number) among those paired in that round or earlier who has one, turned
 * over once for every such player before him (C.04.3 E.5 alternates).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "arena/swiss.h"

struct out {
	char *buf;
	size_t cap, len;
	int full;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	if (o->full)
		return;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= o->cap - o->len) {
		o->full = 1;
		return;
	}
	o->len += (size_t)k;
}

/* A header line when the text is given (no line breaks in it). */
static void header(struct out *o, const char *code, const char *text)
{
	if (!text || !*text)
		return;
	put(o, "%s ", code);
	for (const char *c = text; *c && !o->full; c++)
		put(o, "%c", (*c == '\n' || *c == '\r') ? ' ' : *c);
	put(o, "\n");
}

int arena_trf_write(const struct arena_swiss *t, const struct arena_trf_info *info, char *buf,
		    size_t cap)
{
	int err = arena_swiss_check(t);
	if (err < 0)
		return err;
	if (!buf || cap == 0)
		return ARENA_EINVAL;
	struct out o = {buf, cap, 0, 0};
	buf[0] = 0;
	if (info) {
		header(&o, "012", info->name);
		header(&o, "022", info->city);
		header(&o, "032", info->federation);
		header(&o, "042", info->start);
		header(&o, "052", info->end);
	}
	int rated = 0;
	for (int p = 0; p < t->n; p++)
		rated += t->players[p].rating > 0;
	put(&o, "062 %d\n072 %d\n092 Individual: Swiss-System\n", t->n, rated);
	if (info)
		header(&o, "102", info->arbiter);
	for (int p = 0; p < t->n; p++) {
		const struct arena_player *pl = &t->players[p];
		int score = arena_score(t, p, t->played), rank = 1;
		/* An announced bye counts in the points column, as checkers sum it. */
		if (info && info->next_absences && !pl->active) {
			int v = sw_result_points(&t->points, pl->games[t->played].result);
			score += v > 0 ? v : 0;
		}
		for (int q = 0; q < t->n; q++) {
			int sq = arena_score(t, q, t->played);
			rank += sq > score || (sq == score && q < p);
		}
		char name[34], rating[5] = "";
		snprintf(name, sizeof name, "%s", pl->name ? pl->name : "");
		for (char *c = name; *c; c++)
			if (*c == '\n' || *c == '\r')
				*c = ' ';
		if (pl->rating > 0 && pl->rating <= 9999)
			snprintf(rating, sizeof rating, "%d", pl->rating);
		put(&o, "001 %4d %c%3s %-33s %4s %3s %11s %10s %2d.%d %4d", p + 1, ' ', "", name,
		    rating, "", "", "", score / 10, score % 10, rank);
		for (int r = 0; r < t->played; r++) {
			const struct arena_game *g = &pl->games[r];
			char color = (g->color == 'w' || g->color == 'b') ? g->color : '-';
			if (g->opp >= 0)
				put(&o, "  %4d %c %c", g->opp + 1, color, g->result);
			else
				put(&o, "  0000 - %c", g->result);
		}
		if (info && info->next_absences && !pl->active) {
			char c = pl->games[t->played].result;
			put(&o, "  0000 - %c", (c == 'H' || c == 'F' || c == 'Z') ? c : 'Z');
		}
		put(&o, "\n");
	}
	if (t->rounds > 0)
		put(&o, "XXR %d\n", t->rounds);
	put(&o, "XXC %s1\n", t->first_color == 'b' ? "black" : "white");
	if (o.full) {
		buf[0] = 0;
		return ARENA_ENOSPACE;
	}
	return (int)o.len;
}

/* ---- reading --------------------------------------------------------------- */

/* One line of the text: [p, p + len). */
struct line {
	const char *p;
	size_t len;
};

static char col(const struct line *l, size_t i)
{
	return i < l->len ? l->p[i] : ' ';
}

/* The unsigned number in columns [from, to) (0-based), blanks around it
 * allowed; -1 when blank, -2 when malformed. */
static long number(const struct line *l, size_t from, size_t to)
{
	long v = -1;
	int seen_end = 0;
	for (size_t i = from; i < to; i++) {
		char c = col(l, i);
		if (c == ' ') {
			seen_end = v >= 0;
			continue;
		}
		if (c < '0' || c > '9' || seen_end || v > 99999)
			return -2;
		v = (v < 0 ? 0 : v * 10) + (c - '0');
	}
	return v;
}

static int is_result(char c)
{
	return c && strchr("1=0+-WDLUFHZ", c) != NULL;
}

static struct arena_game *game_at(struct arena_trf_doc *doc, int p, int r)
{
	return doc->games + (size_t)p * (size_t)doc->cap_rounds + (size_t)r;
}

/* Splits the text into lines; calls fn(line, arg) for each, stops at the
 * first negative return. */
static int each_line(const char *text, size_t len, int (*fn)(const struct line *, void *),
		     void *arg)
{
	size_t i = 0;
	while (i < len) {
		size_t j = i;
		while (j < len && text[j] != '\n' && text[j] != '\r')
			j++;
		struct line l = {text + i, j - i};
		int r = fn(&l, arg);
		if (r < 0)
			return r;
		if (j < len && text[j] == '\r' && j + 1 < len && text[j + 1] == '\n')
			j++;
		i = j + 1;
	}
	return 0;
}

static int is_player_line(const struct line *l)
{
	return l->len >= 3 && memcmp(l->p, "001", 3) == 0;
}

/* First pass: counts the players and the round columns. */
static int count_line(const struct line *l, void *arg)
{
	struct arena_trf_doc *doc = arg;
	if (!is_player_line(l))
		return 0;
	doc->n++;
	/* Round r's entry spans columns 92 + 10 r .. 99 + 10 r (1-based). */
	size_t end = l->len;
	while (end > 0 && l->p[end - 1] == ' ')
		end--;
	if (end > 91) {
		size_t r = (end - 91 + 9) / 10;
		if (r > (size_t)ARENA_MAX_ROUNDS)
			return ARENA_ERANGE;
		if ((int)r > doc->rounds)
			doc->rounds = (int)r;
	}
	return 0;
}

/* Second pass: the player lines, XXR and XXC. */
static int read_line(const struct line *l, void *arg)
{
	struct arena_trf_doc *doc = arg;
	if (l->len >= 3 && memcmp(l->p, "XXR", 3) == 0) {
		long v = number(l, 3, l->len);
		if (v < 1 || v > ARENA_MAX_ROUNDS)
			return ARENA_EINVAL;
		doc->planned = (int)v;
		return 0;
	}
	if (l->len >= 3 && memcmp(l->p, "XXC", 3) == 0) {
		for (size_t i = 3; i + 6 <= l->len; i++) {
			if (memcmp(l->p + i, "white1", 6) == 0)
				doc->first_color = 'w';
			else if (memcmp(l->p + i, "black1", 6) == 0)
				doc->first_color = 'b';
		}
		return 0;
	}
	if (!is_player_line(l))
		return 0;
	long id = number(l, 4, 8);
	if (id < 1 || id > doc->n)
		return ARENA_EINVAL;
	int p = (int)id - 1;
	struct arena_player *pl = &doc->players[p];
	if (pl->games)
		return ARENA_EINVAL; /* the same pairing number twice */
	pl->games = game_at(doc, p, 0);
	pl->active = 1;
	long rating = number(l, 48, 52);
	if (rating == -2)
		return ARENA_EINVAL;
	pl->rating = rating > 0 ? (int)rating : 0;
	pl->name = NULL;
	if (doc->names) {
		char *name = doc->names[p];
		size_t k = 0;
		for (size_t i = 14; i < 47 && i < l->len; i++)
			name[k++] = l->p[i];
		while (k > 0 && name[k - 1] == ' ')
			k--;
		name[k] = 0;
		pl->name = name;
	}
	for (int r = 0; r < doc->rounds; r++) {
		struct arena_game *g = game_at(doc, p, r);
		size_t at = 91 + 10 * (size_t)r;
		long opp = number(l, at, at + 4);
		char c = col(l, at + 5), res = col(l, at + 7);
		*g = (struct arena_game){-1, 0, 'Z'};
		if (opp == -1 && c == ' ' && res == ' ')
			continue; /* no entry */
		if (opp < 0 || opp > doc->n || opp == id || !is_result(res) ||
		    (c != 'w' && c != 'b' && c != '-' && c != ' '))
			return ARENA_EINVAL;
		g->color = c == ' ' ? '-' : c;
		g->result = res;
		if (opp > 0) {
			g->opp = (int)opp - 1;
			continue;
		}
		if (res == '-' || res == '0' || res == 'L')
			g->result = 'Z';
		else if (res == '+' || res == '1' || res == 'W')
			g->result = 'F';
		else if (res == '=' || res == 'D')
			g->result = 'H';
		g->color = '-';
	}
	return 0;
}

/* Was round r paired (a game or the PAB in it)? */
static int round_paired(const struct arena_trf_doc *doc, int r)
{
	for (int p = 0; p < doc->n; p++) {
		const struct arena_game *g = &doc->players[p].games[r];
		if (g->opp >= 0 || g->result == 'U')
			return 1;
	}
	return 0;
}

static void infer_first_color(struct arena_trf_doc *doc)
{
	for (int r = 0; r < doc->played; r++) {
		int before = 0;
		for (int p = 0; p < doc->n; p++) {
			const struct arena_game *g = doc->players[p].games;
			int took_part = 0;
			for (int k = 0; k <= r && !took_part; k++)
				took_part = g[k].opp >= 0 || g[k].result == 'U';
			if (!took_part)
				continue;
			if (g[r].color == 'w' || g[r].color == 'b') {
				int white = (g[r].color == 'w') ^ (before & 1);
				doc->first_color = white ? 'w' : 'b';
				return;
			}
			before++;
		}
	}
}

int arena_trf_read(const char *text, size_t len, struct arena_trf_doc *doc)
{
	if (!doc || (len && !text) || doc->cap_players < 0 || doc->cap_rounds < 0 ||
	    (doc->cap_players && (!doc->players || (doc->cap_rounds && !doc->games))))
		return ARENA_EINVAL;
	doc->n = doc->rounds = doc->played = doc->planned = 0;
	doc->first_color = 0;
	int err = each_line(text, len, count_line, doc);
	if (err < 0)
		return err;
	if (doc->n > ARENA_SWISS_MAX)
		return ARENA_ERANGE;
	if (doc->n > doc->cap_players || doc->rounds > doc->cap_rounds)
		return ARENA_ENOSPACE;
	for (int p = 0; p < doc->n; p++)
		doc->players[p] = (struct arena_player){NULL, 0, NULL, 0};
	err = each_line(text, len, read_line, doc);
	if (err < 0)
		return err;
	for (int r = 0; r < doc->rounds; r++)
		if (round_paired(doc, r))
			doc->played = r + 1;
	if (!doc->first_color)
		infer_first_color(doc);
	return 0;
}

int arena_trf_round(struct arena_trf_doc *doc, int round, struct arena_swiss *t)
{
	if (!doc || !t || round < 0 || round > doc->played)
		return ARENA_EINVAL;
	for (int p = 0; p < doc->n; p++) {
		struct arena_player *pl = &doc->players[p];
		const struct arena_game *g = round < doc->rounds ? &pl->games[round] : NULL;
		if (!g || (g->opp < 0 && g->color == 0))
			pl->active = round == doc->played; /* no entry */
		else
			pl->active = g->opp >= 0 || g->result == 'U';
	}
	t->n = doc->n;
	t->players = doc->players;
	t->played = round;
	t->rounds = doc->planned;
	t->first_color = doc->first_color ? doc->first_color : 'w';
	t->points = arena_points_default();
	return arena_swiss_check(t);
}
