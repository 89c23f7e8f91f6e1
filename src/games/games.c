/*
 * games.c - the table of hosted games. Adding a game is its header here and
 * one line in the table, plus the engine files: <game>.c with the rules and
 * its `const struct game_ops game_<name>`, <game>_<notation>.c with its move
 * and position text.
 */
#include "games/game.h"

#include "games/mnk/mnk.h"
#include "games/tak/tak.h"
#include "games/xmas/xmas.h"

/* One game per line. */
/* clang-format off */
const struct game_ops *const game_table[] = {
	&game_ttt,
	&game_mnk,
	&game_tak,
	&game_xmas,
	NULL,
};
/* clang-format on */
