/*
 * stored_record.h - the game record (games/record.h) of a game in the store:
 * the one place that maps a struct store_game onto the record's tags and
 * moves, so the record format itself needs nothing of the server.
 */
#ifndef BITARENA_SERVER_STORED_RECORD_H
#define BITARENA_SERVER_STORED_RECORD_H

#include "games/record.h"
#include "server/store/store.h"

/*
 * Fills r (empty, record_init) with the tags of g (record_set_game_tags),
 * its journalled moves (g->moves must be loaded: store_game_fetch) and its
 * result; bots (NULL: none) says which seats are bots' accounts (a title tag each).
 * Returns RECORD_OK or a negative enum record_err.
 */
int record_from_game(const struct store_game *g, const bool bots[2], struct record *r);

#endif
