/*
 * stored_record.c - a stored game as a game record (see stored_record.h).
 */
#include "server/records/stored_record.h"

int record_from_game(const struct store_game *g, const bool bots[2], struct record *r)
{
	struct record_game rg = {
	        .id = g->id,
	        .kind = g->kind,
	        .started_ms = g->started,
	        .players = {g->players[0], g->players[1]},
	        .bots = {bots != NULL && bots[0], bots != NULL && bots[1]},
	        .rated = g->rated,
	        .time_base_ms = g->time_base_ms,
	        .time_inc_ms = g->time_inc_ms,
	        .options = g->options,
	        .seed = g->seed,
	        .seed_hidden = g->status == STORE_IN_PROGRESS, /* published after the end */
	        .result = g->result,
	        .termination = g->status != STORE_IN_PROGRESS ? g->reason : NULL,
	};
	int err = record_set_game_tags(r, &rg);
	for (int i = 0; err == RECORD_OK && g->moves != NULL && i < g->plies; i++)
		err = record_add_move(r, g->moves[i].text);
	return err;
}
