/*
 * trf.c - the FIDE TRF-16 text of a Swiss tournament (arena_trf_write).
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
 * and last the "XXR n" line with the rounds planned (TRF(x), as JaVaFo and
 * bbpPairings read it), so that a checker knows which round is the last.
 * The rank column is the order by points, then pairing number.
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
	if (o.full) {
		buf[0] = 0;
		return ARENA_ENOSPACE;
	}
	return (int)o.len;
}
