/*
 * hooks.h - what the session layer tells the journal (journal.c, or anything
 * else that records games) about the games it runs: upward news, registered
 * by the layer above with sessions_set_hooks(); with no hooks the games are
 * kept in memory only.
 *
 * Order guarantees, which make "a move is journalled before anyone is told"
 * hold:
 *  - on_start runs before game_start is sent to anyone; it may give the game
 *    its id (storage ids survive restarts): *id comes in 0, or the id the
 *    game's creator reserved from the storage (game_spec.new_id), which it
 *    keeps. A negative return refuses the game (the accept gets INTERNAL and
 *    the seek stays).
 *  - on_move runs once per move record, after the engine accepted the move
 *    and before the state is broadcast; the game's position does not include
 *    the move yet. A negative return refuses the move (INTERNAL, nothing
 *    changes). Simultaneous games give one record per seat per resolved turn
 *    (a missed or invalid action is a record too, with act set accordingly);
 *    a turn cannot be refused (its deadline has passed), so there a negative
 *    return is only logged: the storage should treat that as fatal itself.
 *  - on_end runs once when the game ends (result filled), before game_over is
 *    sent. Reason "aborted" (the abort command, before the second ply) means
 *    no result: winner -1, score "*"; such a game is not rated.
 *  - on_undo runs when the players agreed to take back moves (offers.c): the
 *    last nplies records of session_moves(g) are to be removed (they are
 *    still among them while it runs). It runs after the position without them was
 *    rebuilt and before anyone is told; a negative return refuses the takeback
 *    (INTERNAL, nothing changes). Storage removes the journalled moves (e.g.
 *    store_move_remove_last nplies times).
 * Hooks run on the loop thread and must not call back into the session layer.
 *
 * With the journal on a writer thread (store_writer.h, group commit), the seam
 * is this: on_move (on_start, on_undo, on_end alike) queues the write and
 * returns at once with the write's sequence number (an out parameter to add);
 * the session layer then sends the move's reply and the broadcasts it causes
 * between msg_require(seq) and msg_require(0) (client.h), so that they leave,
 * per connection and in order, only once that batch is durable, while every
 * other output flows. What a batch that fails after the reply was held means (the
 * move is not played: the held output is dropped and the game rewound, or the
 * server stops taking moves) is the journal's to decide; the session layer
 * offers session_takeback() for the first.
 */
#ifndef BITARENA_SERVER_HOOKS_H
#define BITARENA_SERVER_HOOKS_H

#include <stdint.h>

#include "games/game.h"

struct game; /* read through session.h's functions */

/* One move (sequential) or one seat's action in a turn (simultaneous). */
struct move_rec {
	int ply;  /* 0-based index of this record in the game */
	int turn; /* 0-based turn (== ply for sequential games) */
	int seat;
	enum game_act act;         /* GAME_ACT_MOVE, or NONE/INVALID in simultaneous games */
	char text[GAME_MOVE_TEXT]; /* canonical text ("" when act != GAME_ACT_MOVE) */
	int64_t ms_used;           /* thinking time of this move */
	int64_t clock_ms[GAME_MAX_PLAYERS]; /* clocks after the move, increment included; 0 untimed
	                                     */
	int64_t at;                         /* wall clock, ms since the Unix epoch */
};

struct session_hooks {
	void *ud;
	int (*on_start)(void *ud, const struct game *g, uint64_t *id);
	int (*on_move)(void *ud, const struct game *g, const struct move_rec *m);
	void (*on_end)(void *ud, const struct game *g);
	int (*on_undo)(void *ud, const struct game *g, int nplies);
};

#endif
