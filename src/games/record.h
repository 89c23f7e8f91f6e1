/*
 * record.h - game records as text, both ways: the generic format of every
 * game ("record <game-id>" on the server, `bitarena replay` on the client),
 * which for Tak is PTN.
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
 * quotes ("PUSH 3 LEFT"), so any text survives a round trip. A move may carry
 * a note, written after it as a {comment} (the clock after the move, in the
 * exports of the HTTP API: {[%clk 0:04:58.2]}). The parser also
 * accepts PTN as other programs write it: {comments}, move numbers anywhere,
 * any white space, no result token; a trailing "!", "?" or "'" mark on a move
 * is kept as part of the move text; comments are skipped (notes are written,
 * not read).
 *
 * Simultaneous games (Xmas Rush) list one move per seat per turn, in seat
 * order, so a numbered pair is one turn; a seat that sent nothing in time is
 * "" and a refused line "!" (GAME_ACT_TEXT_NONE / _INVALID, game_replay.h).
 *
 * A struct record owns all its strings (heap copies); release with
 * record_clear(). No I/O.
 */
#ifndef BITARENA_GAMES_RECORD_H
#define BITARENA_GAMES_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "games/game.h"
#include "games/game_replay.h"

#define RECORD_KEY_MAX    32   /* tag keys: 1..32 characters of [A-Za-z0-9_] */
#define RECORD_VALUE_MAX  1024 /* tag values: at most this many bytes, no NUL or newline */
#define RECORD_RESULT_MAX 24   /* result tokens: "1-0", "R-0", "1/2-1/2", "5-3" (NUL included) */

enum record_err {
	RECORD_OK = 0,
	RECORD_ENOMEM = -1,
	RECORD_ESYNTAX = -2, /* text that is not a record (see the line number) */
	RECORD_EINVAL = -3,  /* a tag key/value or move text that cannot be written */
	RECORD_EGAME = -4,   /* replay: unknown game, bad options, or a move that fails */
	RECORD_EPARTIAL = -5 /* replay: the moves end inside a simultaneous turn */
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
	char **notes; /* NULL, or cap_notes entries: move i's note (NULL: none) */
	size_t cap_notes;
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
/* Sets move i's note (a copy; at most RECORD_VALUE_MAX bytes, no brace or newline; NULL: none). */
int record_set_note(struct record *r, size_t i, const char *text);
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

/* What a record says about a game besides its moves (record_set_game_tags). */
struct record_game {
	int64_t id;                        /* Event "bitarena game <id>" */
	const char *kind;                  /* Game: "ttt", "tak", ... */
	int64_t started_ms;                /* Date "YYYY.MM.DD" and Time "hh:mm:ss", UTC */
	const char *players[2];            /* Player1, Player2 */
	bool bots[2];                      /* Player1Title, Player2Title "BOT" (lichess' title
	                                      of a bot's account, WhiteTitle there) */
	bool rated;                        /* Rated "yes" / "no" */
	int64_t time_base_ms, time_inc_ms; /* Clock "M:SS +I" when either is set */
	const char *options;               /* Options: the engine's words, "size=6 komi=4" */
	uint64_t seed;                     /* Seed */
	bool seed_hidden;                  /* no Seed tag: the game is on and the seed would
	                                      tell hidden information (Xmas Rush's quests) */
	const char *result;                /* Result; NULL or "" while there is none ("*") */
	const char *termination;           /* Termination (the reason) once ended, else NULL */
};

/*
 * Sets the tags of g, in order: Event, Site, Game, Date, Time, Player1,
 * Player2, Player1Title and Player2Title "BOT" for a bot's seat, Rated, Clock (when timed), then the tags the engine of g->kind
 * gives for the options (game_ops.record_tags; for Tak Size, Komi in flats,
 * Flats and Caps), then Options and Seed (what replay needs; left out while
 * seed_hidden), Result and, when given, Termination. Also sets the result token from g->result.
 */
int record_set_game_tags(struct record *r, const struct record_game *g);

/*
 * Replay. The engine is ops, or when NULL game_find(tag Game), or Tak when
 * there is no Game tag but a Size tag (PTN from elsewhere); options from the
 * Options tag (words the engine does not know are skipped; without an
 * Options tag but with a Size tag, "size=N"); seed from the Seed tag (0 when
 * absent). Each move text is read as game_act_of_text() says and played by
 * the move-list replayer; a move that does not parse is tried again without
 * trailing PTN marks (!, ?, ').
 *
 * Step-wise: record_replay_start() sets up rp on the start position in st
 * (ops->state_size bytes; *ops_out, may be NULL, receives the engine), then
 * record_replay_move(r, i, rp, why) plays move i: GAME_REPLAY_MADE,
 * GAME_REPLAY_PENDING, or a negative enum game_err (game_replay_step()).
 * record_replay_start() returns RECORD_OK or RECORD_EGAME.
 */
int record_replay_start(const struct record *r, const struct game_ops *ops, void *st,
                        struct game_replay *rp, const struct game_ops **ops_out);
int record_replay_move(const struct record *r, size_t i, struct game_replay *rp, const char **why);

/*
 * The whole record at once: on success st is the final position. On
 * RECORD_EGAME *bad_ply (may be NULL) is the 0-based index of the failing
 * move, or -1 when the failure is before the first move; on RECORD_EPARTIAL
 * it is the index of the first move of the unfinished turn (st is the
 * position before it). *ops_out (may be NULL) receives the engine used.
 */
int record_replay(const struct record *r, const struct game_ops *ops, void *st,
                  const struct game_ops **ops_out, int *bad_ply);

#endif
