/*
 * games.c - the table of hosted games and the lookup by name. The top of the
 * games library: it names each engine's game_ops (defined in the engine's
 * <g>_ops.c), and the record, the replayer and the search drive engines
 * through what it returns; the engines never call it (tests/layers.py).
 *
 * Adding a game:
 *  1. a folder src/games/<g>/ with <g>.h (the state and the interface; its top
 *     comment says what the folder holds), <g>.c (the rules), a notation file
 *     (move and position text; it calls the rules, never the reverse) and
 *     <g>_ops.c (the `const struct game_ops game_<name>` table, the entries that
 *     join rules and notation, and the presentations), as game.h describes;
 *  2. its sources in Makefile.am (libbitarena_a_SOURCES), its rank and its
 *     files' ranks in tests/layers.py;
 *  3. its header below and one line in the table;
 *  4. perft or referee numbers in tests/unit/check_<g>.c.
 */
#include "games/game.h"

#include <strings.h>

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

const struct game_ops *game_find(const char *name)
{
	for (size_t i = 0; game_table[i] != NULL; i++)
		if (strcasecmp(game_table[i]->name, name) == 0)
			return game_table[i];
	return NULL;
}
