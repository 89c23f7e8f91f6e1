/*
 * accept.h - accept filters (issue 22; PROTOCOL.md §17): the games a user
 * takes, written as readable words in the spirit of FICS' `formula`:
 *
 *     tak size=5,6 time>=1+0 rated
 *     ttt | tak size=5 humans
 *     !xmas base>=3 inc<=5
 *
 * A filter is one or more alternatives separated by `|` (or the word `or`);
 * the game passes when any alternative holds. An alternative is words that
 * must all hold, except its kind words, of which one must hold:
 *
 *   tak  ttt  tak,ttt     the game's kind (a name of the games' table)
 *   rated  unrated        the game is rated / is not
 *   bots  humans          the opponent is a bot's account / is not
 *   timed  untimed        the game has a clock / has none
 *   KEY=V,V  KEY=A..B     a value among those listed, or within a range
 *   KEY!=V,V              none of those
 *   KEY>=V  KEY<=V  KEY>V  KEY<V   a comparison (numbers)
 *
 * KEY is `time` (the clock as on `seek time=`: MIN+INC or M:SS+INC, compared
 * by its estimated length, base + 40 x increment, as lichess sorts clocks),
 * `base` (minutes, or M:SS), `inc` (seconds), or an option of a game kind
 * (`size`, `komi`, `m`, ...). A clock comparison never holds for an untimed
 * game (`!=` does); a game without the option named never passes a term on
 * it (but `!=`). Values compare as numbers when both sides are numbers, else
 * as words, ignoring letter case. `!` (or the word `not`) before a word
 * negates it. An empty filter takes every game.
 *
 * Pure: no I/O, no allocation, no globals but the games' table; a filter is
 * read again at every call (at most ACCEPT_TEXT_MAX bytes: a few
 * microseconds), so callers keep only its text.
 */
#ifndef BITARENA_GAMES_ACCEPT_H
#define BITARENA_GAMES_ACCEPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ACCEPT_TEXT_MAX 200 /* bytes of a filter (the store keeps as many) */
#define ACCEPT_WHY_MAX  200 /* a sentence of accept_check() or accept_allows() fits */

/* A game as a filter sees it. */
struct accept_game {
	const char *kind;    /* its kind, a name of the games' table */
	const char *options; /* its engine options, every one ("size=6 komi=0 ..."), or "" */
	bool timed;          /* with a clock: base_ms, then inc_ms a move */
	int64_t base_ms, inc_ms;
	bool rated;
	bool opponent_bot; /* the other side is a bot's account */
};

/*
 * 0 when filter reads as a filter (NULL and "" do: every game), else -1 with a sentence
 * in err (len bytes, may be 0) that names the word that does not.
 */
int accept_check(const char *filter, char *err, size_t len);

/*
 * Whether game g passes filter (NULL or "": always). When it does not, why (len bytes,
 * may be 0) gets the reason for its owner's opponent ("takes only rated games", "takes
 * size=5,6, not size=4"). A filter that does not read (accept_check) passes nothing.
 */
bool accept_allows(const char *filter, const struct accept_game *g, char *why, size_t len);

#endif
