/*
 * book.h - opening books for engine matches: a text file of openings, one
 * per line, each checked by playing it through its game's engine (the one
 * replayer, game_replay.h) when the book is read. A match plays every
 * opening twice, the players' colours swapped.
 *
 * The file (data/books/ holds the shipped ones; docs/books.md):
 *
 *     # a comment line; blank lines are skipped
 *     [Game "tak size=5"]          the game and options the book is for (as
 *                                  on "seek"), before the first opening;
 *                                  other [Tag "value"] lines are kept as
 *                                  written and otherwise ignored
 *     a1 e5 c3 b2                  an opening: a move list
 *     1. a1 e5 2. c3 Sb2   # name   PTN move numbers are skipped; text after
 *                                  '#' is the opening's name
 *     x5/x5/2,x4/x5/1,x4 1 2       a position (TPS for Tak), told from a
 *                                  move list by its '/'
 *     -8719241083716604423         Xmas Rush (a simultaneous game): a seed,
 *                                  a Java long, that deals the map
 *
 * Every opening must be legal, leave the game running, and differ from
 * every other (moves are compared in their canonical text, so "Fa1" and
 * "a1" are the same); the first one that does not stops the reading with
 * its line number. Moves are stored in the engine's canonical text.
 *
 * Pure: the caller reads the file; no I/O, no globals. book_parse()
 * allocates the book, book_free() releases it.
 */
#ifndef BITARENA_GAMES_BOOK_H
#define BITARENA_GAMES_BOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "games/game.h"
#include "games/game_replay.h"

#define BOOK_LINE_MAX  4096   /* bytes of one line, its end included */
#define BOOK_MAX_PLIES 256    /* moves in one opening */
#define BOOK_MAX_OPEN  100000 /* openings in one book */

enum book_err {
	BOOK_OK = 0,
	BOOK_ESYNTAX = -1,  /* a line that is no opening of this game, or an overlong one */
	BOOK_EILLEGAL = -2, /* a move or position the rules refuse */
	BOOK_EGAME = -3,    /* no game named, an unknown one, bad options, a second [Game] */
	BOOK_EOVER = -4,    /* the game is over after the opening */
	BOOK_EDUP = -5,     /* the same opening twice */
	BOOK_EEMPTY = -6,   /* no opening at all */
	BOOK_ENOMEM = -7,
	BOOK_ELIMIT = -8 /* more than BOOK_MAX_OPEN openings or BOOK_MAX_PLIES moves */
};
const char *book_strerror(int err);

/* Why a book was refused. */
struct book_error {
	int code;      /* enum book_err */
	int line;      /* 1-based line of the file, 0 when no line is to blame */
	char msg[200]; /* "line 12: 'e9': not a square of this board" */
};

/* One opening. */
struct book_opening {
	int line;       /* where it stands in the file */
	char *name;     /* the text after '#', trimmed, or NULL */
	char *position; /* the start position (TPS), or NULL: the game's start */
	bool has_seed;  /* Xmas Rush: the map seed */
	int64_t seed;
	size_t nmoves;
	char **moves;           /* canonical texts */
	struct game_ply *plies; /* the same moves for game_replay (texts point into moves) */
};

/* A book (all memory owned by it). */
struct book {
	const struct game_ops *ops;
	struct game_params params; /* the [Game] line's options */
	char *game;                /* the [Game] line's text: "tak size=5" */
	size_t n;
	struct book_opening *open;
};

/*
 * Reads and checks a whole book (len bytes of text, NULs refused). kind is
 * the game and options ("tak size=6") for a book without a [Game] line, such
 * as racetrack's plain move lists; NULL requires the line. Returns 0 with
 * *out filled (book_free() it), or a negative enum book_err with *err
 * filled and nothing allocated.
 */
int book_parse(const char *text, size_t len, const char *kind, struct book *out,
               struct book_error *err);
void book_free(struct book *b);

/*
 * Sets up st (ops->state_size bytes) at the end of opening i: the game's
 * start under the book's options (the opening's seed for Xmas Rush; seed
 * feeds whatever else the engine draws), or its position, then its moves.
 * Returns 0 or a negative enum game_err (a book read by book_parse()
 * never fails here).
 */
int book_start(const struct book *b, size_t i, uint64_t seed, void *st);

#endif
