/*
 * xmas_bot.h - an Xmas Rush player that reads exactly what a contest bot
 * reads (the referee's per-turn input, xmas.h / rules §3) and answers one
 * action line.
 *
 * PUSH turn: every push of ours (28) is simulated against every push of the
 * opponent's (28), with the referee's collision rule (same line, same
 * orientation: nothing moves), rows before columns, items riding on tiles and
 * hands, players wrapped, quests scored during the push frames. Each outcome
 * is scored by the quest items each player could then walk to (and how close
 * the rest are), ours minus half the opponent's. The opponent is assumed to
 * favour the pushes that serve it best against all of ours; our push is the
 * one with the best expectation under that assumption, a little weight kept
 * on its worst case.
 * MOVE turn: a breadth-first search over (cell, quests collected) finds
 * every walk of at most 20 steps; the walk that collects most quest items
 * wins, and among equals the one that ends where our next push can bring the
 * most quest items within reach.
 *
 * Pure: no I/O, no allocation; a few milliseconds a turn.
 */
#ifndef BITARENA_GAMES_XMAS_BOT_H
#define BITARENA_GAMES_XMAS_BOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "games/xmas/xmas.h"

/* One turn's input, with ids as the contest gives them: 0 = us, 1 = the opponent. */
struct xmas_view {
	int turn_type;       /* enum xmas_turn_type */
	struct xmas_board b; /* hand[0] ours, hand[1] the opponent's */
	uint8_t cell[2];     /* y*7 + x */
	uint8_t cards[2];    /* quests still to do (hidden and revealed) */
	uint8_t nitems;
	struct xmas_item item[XMAS_MAX_ITEMS]; /* loc: a cell, XMAS_LOC_HAND(0) ours, (1) theirs */
	uint8_t nquest[2];
	uint8_t quest[2][XMAS_MAX_VISIBLE]; /* revealed quest names (xmas_item_names indices) */
};

/*
 * What the bot remembers between turns of one game (zero it at the start of a
 * game): the board of the last push turn and our push then. A push turn that
 * starts on the same board as the last one was stale: the opponent pushed
 * our line in our orientation, and the bot avoids that line this time, so
 * two predictable bots do not end the game in a deadlock.
 */
struct xmas_bot_memory {
	bool have;
	struct xmas_board board;
	int8_t last_push; /* line * 4 + direction */
	uint8_t stale;    /* stale push turns in a row, as far as the bot can tell */
};

/*
 * Reads one turn of contest input (as xmas_input() writes it, or as the
 * referee sends it). Returns the number of bytes read (through the last
 * line's newline), or -1 if it is not such an input.
 */
int xmas_view_parse(struct xmas_view *v, const char *input);

/*
 * The bot's action for the turn, as the referee's text ("PUSH 3 UP",
 * "MOVE LEFT DOWN", "PASS"), NUL-terminated in out. mem (may be NULL) is
 * read and updated; seed breaks ties.
 * Returns the length, or GAME_ENOSPACE when out is too small (32 bytes for a
 * push; XMAS_MAX_LINE + 1 always suffices).
 */
int xmas_bot_play(const struct xmas_view *v, struct xmas_bot_memory *mem, uint64_t seed, char *out,
                  size_t len);

#endif
