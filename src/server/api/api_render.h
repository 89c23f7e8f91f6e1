/*
 * api_render.h - a stored game as the HTTP API and `bitarenad export` give it: one line
 * of JSON (the NDJSON of /api/games, /api/game/{id}) or its record (PTN for Tak, the same
 * tagged move list for the other kinds) with each move's clock as a note where the game
 * was timed. Hidden information stays hidden: a game in progress has no seed, no guest's
 * token ever appears, and a simultaneous game in progress shows whole turns only.
 */
#ifndef BITARENA_SERVER_API_RENDER_H
#define BITARENA_SERVER_API_RENDER_H

#include <stdbool.h>
#include <stddef.h>

#include "server/store/store.h"
#include "server/util/json_out.h"

/*
 * Appends g as one line of JSON, newline included, to b: id, kind, options, players, guest,
 * rated, time, status, result, winner, reason, started, ended, plies, clock_ms (timed), seed
 * (once ended), and with moves (g->moves loaded) each move's ply, seat, text, time, thinking
 * time and clocks (timed). False out of memory.
 */
bool api_game_json(struct json_buf *b, const struct store_game *g, bool moves);

/*
 * g's record (g->moves loaded), a move's note "[%clk H:MM:SS.t]" being the mover's clock
 * after it in a timed game, into *out (malloc'd, the caller's; *len its length). RECORD_OK
 * or a negative enum record_err.
 */
int api_game_ptn(const struct store_game *g, char **out, size_t *len);

#endif
