/*
 * games.c - the table of hosted games. Adding a game is one line here plus
 * the engine file that defines its struct game_ops.
 */
#include "games/game.h"

extern const struct game_ops game_ttt, game_mnk;
extern const struct game_ops game_xmas;
extern const struct game_ops game_tak;

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
