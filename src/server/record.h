/*
 * record.h - game records as text, both ways: the generic format the server
 * uses for every game ("record <game-id>"), which for Tak is PTN.
 *
 *     [Player1 "alice"]
 *     [Player2 "bob"]
 *     [Result "R-0"]
 *
 *     1. a1 f6
 *     2. c3 d4
 *     3. c3+ R-0
 *
 * Tag lines `[Key "value"]` (key [A-Za-z0-9_]+, value with \" and \\
 * escaped), one blank line, then the moves numbered in pairs ("N." before
 * seat 0's ply), one pair per line, then the result token ("*" when the game
 * has none). A move text that holds white space, quotes or braces, is empty,
 * or could be mistaken for a move number or a result is written in double
 * quotes ("PUSH 3 LEFT"), so any text survives a round trip. The parser also
 * accepts PTN as other programs write it: {comments}, move numbers anywhere,
 * any white space, no result token; a trailing "!", "?" or "'" mark on a move
 * is kept as part of the move text.
 *
 * A struct record owns all its strings (heap copies); release with
 * record_clear(). No I/O.
 */
#ifndef BITARENA_SERVER_RECORD_H
#define BITARENA_SERVER_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "games/game.h"
#include "server/store.h"

#define RECORD_KEY_MAX   32   /* tag keys: 1..32 characters of [A-Za-z0-9_] */
#define RECORD_VALUE_MAX 1024 /* tag values: at most this many bytes, no NUL or newline */

enum record_err {
	RECORD_OK = 0,
	RECORD_ENOMEM = -1,
	RECORD_ESYNTAX = -2,     /* text that is not a record (see the line number) */
	RECORD_EINVAL = -3,      /* a tag key/value or move text that cannot be written */
	RECORD_EGAME = -4,       /* replay: unknown game, bad options, or a move that fails */
	RECORD_EUNSUPPORTED = -5 /* replay of a simultaneous game (Xmas Rush) */
};
const char *record_strerror(int err);

struct record_tag {
	char *key;
	char *value;
};

struct record {
	struct record_tag *tags; /* in order of first setting */
	size_t ntags;
	char **moves; /* one text per ply */
	size_t nmoves;
	char *result; /* result token, or NULL for none ("*" when written) */
	size_t cap_tags, cap_moves;
};

/* An empty record (all zero); record_clear() frees everything and re-empties it. */
void record_init(struct record *r);
void record_clear(struct record *r);

/* Sets key to value (a copy), replacing an earlier value in place or appending. */
int record_set_tag(struct record *r, const char *key, const char *value);
/* The value of key (exact match), or NULL. Owned by r. */
const char *record_tag(const struct record *r, const char *key);
/* Appends a copy of one ply's text (at most GAME_MOVE_TEXT - 1 bytes, no newline). */
int record_add_move(struct record *r, const char *text);
/* Sets the result token (a copy); NULL or "*" means none. */
int record_set_result(struct record *r, const char *result);

/*
 * Writes the record as text. On success *out is a malloc'd NUL-terminated
 * string owned by the caller (free()) and *len (may be NULL) its length.
 */
int record_write(const struct record *r, char **out, size_t *len);

/*
 * Parses text (len bytes, need not be NUL-terminated) into r, which must be
 * empty (record_init). On RECORD_ESYNTAX *line (may be NULL) is the 1-based
 * line of the error and r is left cleared.
 */
int record_parse(const char *text, size_t len, struct record *r, int *line);

/*
 * The record of a stored game (g->moves must be loaded: store_game_fetch).
 * Tags, in order: Event, Site, Game (the kind), Date "YYYY.MM.DD" and Time
 * "hh:mm:ss" (UTC, from started), Player1, Player2, Rated, Clock "M:SS +I"
 * (when timed), then for Tak Size, Komi (in flats, "2" or "2.5"), Flats and
 * Caps (from the options, the standard table when absent), then Options and
 * Seed (what replay needs), Result and, once ended, Termination (the reason).
 */
int record_from_game(const struct store_game *g, struct record *r);

/*
 * Replays r through an engine: ops is game_find(tag Game) when NULL; options
 * from the Options tag (words the engine does not know are skipped; if there
 * is no Options tag but a Size tag, "size=N"); seed from the Seed tag (0 when
 * absent); then each move is parsed for the seat to move and applied. st must
 * hold ops->state_size bytes; on success it is the final position. On
 * RECORD_EGAME *bad_ply (may be NULL) is the 0-based index of the failing
 * move, or -1 when the failure is before the first move. *ops_out (may be
 * NULL) receives the engine used.
 */
int record_replay(const struct record *r, const struct game_ops *ops, void *st,
                  const struct game_ops **ops_out, int *bad_ply);

#endif
