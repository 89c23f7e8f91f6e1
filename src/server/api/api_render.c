/*
 * api_render.c - a stored game as a line of JSON or as its record with clocks (see
 * api_render.h). The JSON is written straight into the caller's buffer (json_out.h's
 * writer, no tree): an export writes it for every stored game.
 */
#include "server/api/api_render.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "games/game.h"
#include "games/record.h"
#include "server/records/stored_record.h"

/* The moves of g anyone may see: a simultaneous game in progress shows whole turns only. */
static int shown_plies(const struct store_game *g)
{
	const struct game_ops *ops = game_find(g->kind);
	if (g->status == STORE_IN_PROGRESS && ops != NULL && (ops->flags & GAME_SIMULTANEOUS))
		return g->plies - g->plies % ops->nplayers;
	return g->plies;
}

static bool timed(const struct store_game *g)
{
	return g->time_base_ms > 0 || g->time_inc_ms > 0;
}

static void jw_clock_pair(struct jw *w, const int64_t c[STORE_SEATS])
{
	jw_arr(w);
	for (int i = 0; i < STORE_SEATS; i++)
		jw_num(w, (double)c[i]);
	jw_end(w, ']');
}

bool api_game_json(struct json_buf *b, const struct store_game *g, bool moves)
{
	struct jw w = {.b = *b};
	int plies = shown_plies(g);
	jw_obj(&w);
	jw_key(&w, "id");
	jw_num(&w, (double)g->id);
	jw_key(&w, "kind");
	jw_str(&w, g->kind);
	jw_key(&w, "options");
	jw_str(&w, g->options);
	jw_key(&w, "players");
	jw_arr(&w);
	for (int i = 0; i < STORE_SEATS; i++)
		jw_str(&w, g->players[i]);
	jw_end(&w, ']');
	jw_key(&w, "guest");
	jw_arr(&w);
	for (int i = 0; i < STORE_SEATS; i++)
		jw_bool(&w, g->guest[i]);
	jw_end(&w, ']');
	jw_key(&w, "rated");
	jw_bool(&w, g->rated);
	jw_key(&w, "time");
	if (timed(g)) {
		jw_obj(&w);
		jw_key(&w, "base_ms");
		jw_num(&w, (double)g->time_base_ms);
		jw_key(&w, "inc_ms");
		jw_num(&w, (double)g->time_inc_ms);
		jw_end(&w, '}');
	} else {
		jw_null(&w);
	}
	jw_key(&w, "status");
	jw_str(&w, store_status_name(g->status));
	jw_key(&w, "result");
	jw_str(&w, g->result);
	jw_key(&w, "winner");
	if (g->winner >= 0)
		jw_num(&w, g->winner);
	else
		jw_null(&w);
	jw_key(&w, "reason");
	jw_str(&w, g->reason);
	jw_key(&w, "started");
	jw_num(&w, (double)g->started);
	jw_key(&w, "ended");
	jw_num(&w, (double)g->ended);
	jw_key(&w, "plies");
	jw_num(&w, plies);
	if (timed(g)) {
		jw_key(&w, "clock_ms");
		jw_clock_pair(&w, g->clock_ms);
	}
	if (g->rated && g->status == STORE_FINISHED) { /* each seat's rating after it */
		jw_key(&w, "ratings");
		jw_arr(&w);
		for (int i = 0; i < STORE_SEATS; i++) {
			if (isnan(g->rating[i]))
				jw_null(&w);
			else
				jw_num(&w, g->rating[i]);
		}
		jw_end(&w, ']');
	}
	if (g->status != STORE_IN_PROGRESS) { /* a seed tells hidden things while the game is on */
		char seed[24];
		snprintf(seed, sizeof seed, "%" PRIu64, g->seed);
		jw_key(&w, "seed");
		jw_str(&w, seed); /* as text: JSON numbers lose 64-bit integers */
	}
	if (moves && g->moves != NULL) {
		jw_key(&w, "moves");
		jw_arr(&w);
		for (int i = 0; i < plies; i++) {
			const struct store_move *m = &g->moves[i];
			jw_obj(&w);
			jw_key(&w, "ply");
			jw_num(&w, m->ply);
			jw_key(&w, "seat");
			jw_num(&w, m->seat);
			jw_key(&w, "move");
			jw_str(&w, m->text);
			jw_key(&w, "at");
			jw_num(&w, (double)m->at);
			jw_key(&w, "ms_used");
			jw_num(&w, (double)m->ms_used);
			if (timed(g)) {
				jw_key(&w, "clock_ms");
				jw_clock_pair(&w, m->clock_ms);
			}
			jw_end(&w, '}');
		}
		jw_end(&w, ']');
	}
	jw_end(&w, '}');
	json_buf_put(&w.b, "\n", 1);
	*b = w.b;
	return jw_ok(&w);
}

/* "[%clk H:MM:SS.t]" of ms left. */
static void clk_note(int64_t ms, char *buf, size_t len)
{
	if (ms < 0)
		ms = 0;
	int64_t t = ms / 100;
	snprintf(buf, len, "[%%clk %" PRId64 ":%02d:%02d.%d]", t / 36000, (int)(t / 600 % 60),
	         (int)(t / 10 % 60), (int)(t % 10));
}

int api_game_ptn(const struct store_game *g, char **out, size_t *len)
{
	struct store_game shown = *g;
	shown.plies = shown_plies(g);
	struct record r;
	record_init(&r);
	int err = record_from_game(&shown, NULL, &r);
	for (int i = 0; err == RECORD_OK && timed(g) && g->moves != NULL && i < shown.plies; i++) {
		const struct store_move *m = &g->moves[i];
		char note[48];
		clk_note(m->clock_ms[m->seat >= 0 && m->seat < STORE_SEATS ? m->seat : 0], note,
		         sizeof note);
		err = record_set_note(&r, (size_t)i, note);
	}
	if (err == RECORD_OK)
		err = record_write(&r, out, len);
	record_clear(&r);
	return err;
}
