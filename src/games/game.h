/*
 * game.h - the engine vtable every game implements, and the table of games.
 *
 * An engine is pure: no I/O, no globals that change, no allocation while
 * generating or applying moves. Its state is a flat, fixed-size struct
 * (ops->state_size bytes, at most GAME_STATE_MAX) that may be copied with
 * memcpy, so "copy-make" is how callers undo. The server, the clients and the
 * tests all drive games through this interface only; notation lives behind
 * parse_move/format_move/load/save, rules behind the rest.
 *
 * Turn models:
 *  - Sequential games (m,n,k, Tak): to_move() names one seat; a move is
 *    checked by parse_move() (syntax and legality in the current position)
 *    and made by apply(). apply() trusts its move: it must come from
 *    legal_moves() or a successful parse_move() on the same position.
 *  - Simultaneous games (flag GAME_SIMULTANEOUS, Xmas Rush): to_move() names
 *    every seat that must act this turn; each seat's action is parsed with
 *    parse_move(seat, ...); when all are in (or the deadline passed) the
 *    caller calls resolve() once with every seat's action and its kind
 *    (given, absent = timeout, or invalid = a fatal bad line). apply() is NULL.
 * apply() and resolve() leave the state as it was when they fail.
 * Replaying a move list onto a fresh position is game_replay.h.
 *
 * An engine is a folder src/games/<g>/ (the folder's header tells the rest): <g>.h (its
 * state and interface), <g>.c (the rules), a notation file (move and position text:
 * tak_ptn.c, mnk_notation.c, xmas_notation.c) that calls the rules and never the reverse,
 * and <g>_ops.c, above both: the literal `const struct game_ops game_<name>`, the entries
 * that join rules and notation, and the presentations (to_json, render_text). Adding a
 * game is such a folder plus one line in game_table[] (games.c); tests/layers.py ranks
 * its files.
 */
#ifndef BITARENA_GAMES_GAME_H
#define BITARENA_GAMES_GAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define GAME_MAX_PLAYERS 2
#define GAME_MAX_OPTS    8
#define GAME_STATE_MAX   8192 /* bytes: every engine's state_size is at most this */
#define GAME_MOVE_TEXT   160  /* buffer size that holds any formatted move */

/* A move, packed by its engine (bit layout documented in the engine). */
typedef uint64_t game_move;

/* Negative return codes of engine functions. */
enum game_err {
	GAME_OK = 0,
	GAME_ESYNTAX = -1,   /* the text is not a move of this game */
	GAME_EILLEGAL = -2,  /* a well-formed move that the rules forbid here */
	GAME_EOVER = -3,     /* the game has ended */
	GAME_ETURN = -4,     /* not this seat's turn, or wrong kind of action now */
	GAME_EOPT = -5,      /* bad or inconsistent options */
	GAME_ENOSPACE = -6,  /* caller's buffer too small */
	GAME_EPOSITION = -7, /* a position text (TPS, ...) that cannot be loaded */
	GAME_EPARTIAL = -8,  /* a move list that ends inside a simultaneous turn */
	GAME_EPHASE = -9     /* this seat acts now, but not with this kind of action (a MOVE
	                        in a PUSH turn) */
};
const char *game_strerror(int err);

enum game_opt_flags {
	/* Not given, the engine draws the value from the game's seed (init's seed). Written
	 * name=random (GAME_OPT_RANDOM_WORD, never the default number, which is not what the
	 * game used), and read back so: "seed=random" is "no seed given". The seed itself is
	 * kept apart and published in the record once the game has ended. */
	GAME_OPT_RANDOM = 1 << 0,
	/* Shown in a seek's or a game's text even at its default (the board's size): the others
	 * are shown there only where they differ from their default. */
	GAME_OPT_SHOWN = 1 << 1,
	/* A rule the referee applies and people find harsh (Xmas Rush: a missed turn loses):
	 * def is the referee's value, which a strict=1 game (a bot's: PROTOCOL.md §3) keeps;
	 * a game for people (not strict) that does not give it takes max (the seek layer,
	 * proto.c: seek_opts_parse). */
	GAME_OPT_PEOPLE = 1 << 2,
};
#define GAME_OPT_RANDOM_WORD "random"

/* One integer option of a game, as given on "seek <game> name=value". */
struct game_optdef {
	const char *name;
	int64_t def, min, max;
	const char *help;
	unsigned flags; /* enum game_opt_flags */
	/* NULL, or the words for the values min.. in order (NULL-terminated): the option is
	   written and read by word ("timeout=pass"), numbers not accepted */
	const char *const *words;
};

/* Option i's word for value v, or NULL when it has no words (or v none of them). */
const char *game_opt_word(const struct game_optdef *d, int64_t v);

/* Option values, indexed like the engine's optdefs; set[i] says the user gave it. */
struct game_params {
	int64_t v[GAME_MAX_OPTS];
	bool set[GAME_MAX_OPTS];
};

struct game_result {
	bool over;
	int winner; /* seat 0 or 1; -1 for a draw (meaningful when over) */
	const char
	        *reason; /* stable word: "line", "board_full", "road", "flats", "max_turns", ... */
	char score[24];  /* the game's own result text: "1-0", "R-0", "F-0", "1/2-1/2", "5-3" */
	/* GAME_SCORES engines: each seat's score, which score only joins with a '-' ("-1-3");
	   a score is at least 0, and -1 is the rules' mark of a seat put out of the game (the
	   referee's for an invalid action or a timeout): people read it as "out", not a number */
	int scores[GAME_MAX_PLAYERS];
};

/* What a seat did in a simultaneous turn. */
enum game_act {
	GAME_ACT_NONE = 0, /* nothing arrived in time: the referee's timeout */
	GAME_ACT_MOVE,     /* a parsed action */
	GAME_ACT_INVALID   /* a line that does not parse or fits not the turn: fatal */
};

enum game_flags {
	GAME_SIMULTANEOUS = 1 << 0,
	GAME_SCORES = 1 << 1, /* a result is a score per seat (game_result.scores), not a win */
};

/* Receives one tag of a game record (key, value); returns 0, or nonzero to stop the caller. */
typedef int (*game_tag_fn)(void *ctx, const char *key, const char *value);

struct game_ops {
	const char *name;  /* "ttt", "mnk", "tak", "xmas" */
	const char *title; /* "Tic-tac-toe", ... */
	unsigned flags;    /* enum game_flags */
	int nplayers;
	const char *seat_names[GAME_MAX_PLAYERS]; /* "X"/"O", "white"/"black", ... */
	size_t state_size;
	size_t max_moves; /* legal_moves() never returns more than this */
	int nopts;
	const struct game_optdef *opts;

	/* Starts a game; seed feeds any randomness. Returns 0 or GAME_EOPT. */
	int (*init)(void *st, const struct game_params *p, uint64_t seed);
	/* Bitmask of seats that must act now; 0 once the game is over. */
	unsigned (*to_move)(const void *st);
	/* Writes every legal move into out (cap entries); returns the count or GAME_ENOSPACE. */
	int (*legal_moves)(const void *st, game_move *out, size_t cap);
	/* Makes a trusted move (see above). Returns 0 or a negative enum game_err. */
	int (*apply)(void *st, game_move m);
	/* Simultaneous games only: resolves one turn (see above). */
	int (*resolve)(void *st, const game_move *moves, const enum game_act *acts);
	void (*result)(const void *st, struct game_result *r);

	/* Notation. parse_move checks syntax and legality for seat; *why (may be NULL)
	 * receives a static sentence saying what is wrong. */
	int (*parse_move)(const void *st, int seat, const char *text, game_move *m,
	                  const char **why);
	/* Canonical text of m in the position before it is made; returns length or < 0. */
	int (*format_move)(const void *st, game_move m, char *buf, size_t len);
	/* Optional: a position in the game's text format (TPS for Tak), both ways. */
	int (*load)(void *st, const struct game_params *p, const char *text);
	int (*save)(const void *st, char *buf, size_t len);

	/*
	 * Presentation, for viewer: a seat, or -1 for a spectator. What a viewer may see is
	 * view()'s to decide (boardgame.io's playerView): it writes into out (state_size
	 * bytes) the state with everything viewer may not know erased (a hidden deck, the seed
	 * it follows from, while the game is on). NULL: nothing is hidden. to_json() and
	 * render_text() show only what view() keeps: they render view(st, viewer) whatever
	 * state they are given, so no caller can leak by passing the whole state.
	 */
	void (*view)(const void *st, int viewer, void *out);
	/* The position as JSON; the caller owns the cJSON. */
	cJSON *(*to_json)(const void *st, int viewer);
	/* Draws the position for a person; returns length written (NUL-terminated) or < 0. */
	int (*render_text)(const void *st, int viewer, char *buf, size_t len);

	/*
	 * Optional, simultaneous games (NULL elsewhere): the actions seat may take now, as a
	 * person picks them (Xmas Rush: the 28 pushes; or PASS and one shortest MOVE to each
	 * other tile reachable in 20 steps). At most max_moves; the count or GAME_ENOSPACE.
	 */
	int (*seat_moves)(const void *st, int seat, game_move *out, size_t cap);
	/*
	 * Optional, for people (a simultaneous game played without strict=1): refuses a legal
	 * action m of seat that the rules would play against what its author evidently meant
	 * (Xmas Rush: a MOVE into a wall, which the referee plays up to the wall and stops).
	 * 0, or -1 with a sentence in why (len bytes). A strict game never asks: its actions
	 * stay the referee's.
	 */
	int (*human_check)(const void *st, int seat, game_move m, char *why, size_t len);

	/* Optional speed-ups and search helpers (NULL when absent). */
	uint64_t (*perft)(const void *st, int depth); /* leaf count; finished games count 0 */
	int (*evaluate)(const void *st);              /* centi-units for the side to move */

	/*
	 * Optional: the tags a game record (record.h) carries for a game of these options,
	 * besides the Options tag every record has: the ones other programs read in the
	 * game's own record format (Tak: Size, Komi in flats, Flats and Caps, as PTN has
	 * them). options is the engine's words as a game keeps them ("size=6 komi=4"; a word
	 * left out is its default). Calls tag(ctx, key, value) once per tag, in order, and
	 * returns 0, or the first nonzero tag() returned. NULL: no such tags.
	 */
	int (*record_tags)(const char *options, game_tag_fn tag, void *ctx);
};

/* The table of games, NULL-terminated, and lookup by name (case-insensitive): games.c. */
extern const struct game_ops *const game_table[];
const struct game_ops *game_find(const char *name);

/* Fills p with the defaults of ops; game_opts_default() with an engine's own optdefs. */
void game_params_default(const struct game_ops *ops, struct game_params *p);
void game_opts_default(const struct game_optdef *opts, int nopts, struct game_params *p);
/*
 * The number of word name=N in an options text (space-separated words, as a game keeps
 * them), read leniently (strtol: what follows the digits is ignored), or def when absent.
 */
long game_options_value(const char *options, const char *name, long def);
/*
 * Parses one "name=value" word into p. Returns 1 if the name is one of the
 * game's options and the value fits (name=random for a GAME_OPT_RANDOM option:
 * not given), 0 if the name is not the game's (the caller may own it: "time=",
 * "color=", ...), or GAME_EOPT with *why set.
 */
int game_param_word(const struct game_ops *ops, struct game_params *p, const char *word,
                    const char **why);
/* Index of option name in ops->opts, or -1. */
int game_opt_index(const struct game_ops *ops, const char *name);
/* True when option i of p is a GAME_OPT_RANDOM one left to the seed (shown as random). */
bool game_param_random(const struct game_ops *ops, const struct game_params *p, int i);

/*
 * A game's seed in its one written form, everywhere (records, positions, seed= options,
 * `bitarena xmas-replay --seed`): the 64 bits read as a signed decimal integer, a Java long
 * ("-8526495043095935641"). Written into buf (at least GAME_SEED_TEXT bytes); returns buf.
 */
#define GAME_SEED_TEXT 24
const char *game_seed_text(uint64_t seed, char *buf);
/*
 * Reads a seed written so; also the unsigned form records had before (2^63 and above, read
 * as the same 64 bits). False when text is no such number.
 */
bool game_seed_parse(const char *text, uint64_t *seed);

/*
 * The game's ply count (what its positions call ply: moves made, or turns of a simultaneous
 * game) after nmoves entries of its move list, which holds one entry per seat and turn for a
 * simultaneous game (journal, record). The one count every reply shows (history, record,
 * replay), so that none counts a turn twice.
 */
int game_ply_count(const struct game_ops *ops, int nmoves);

/*
 * Scores. The text of a two-seat result by winner: "1-0" (seat 0 won), "0-1"
 * (seat 1) or "1/2-1/2" (a draw, -1). The value for ratings: what seat
 * scored, 1 for a win, 0 for a loss, 0.5 for a draw. A finished game's own
 * text (r->score: "R-0", "5-3") when its engine gave one, else the text of
 * its winner.
 */
const char *game_score_text(int winner);
double game_score_value(int winner, int seat);
const char *game_result_score(const struct game_result *r);

/*
 * A bounded text buffer for the engines' text output (notation, positions,
 * render_text): game_text_put() appends printf-style and never writes past
 * len; at keeps counting what did not fit, so game_text_end() can tell.
 */
struct game_text {
	char *buf;
	size_t len; /* bytes of buf */
	size_t at;  /* bytes written so far, or wanted (at >= len: it did not fit) */
};
/* Starts t on buf (len bytes; buf holds "" when len > 0). */
void game_text_init(struct game_text *t, char *buf, size_t len);
void game_text_put(struct game_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The length of the text (NUL-terminated in buf), or GAME_ENOSPACE when it did not fit. */
int game_text_end(const struct game_text *t);

/* The seat whose turn it is in a sequential game, or -1 when over. */
int game_seat_to_move(const struct game_ops *ops, const void *st);

/*
 * Perft by copy-make through the vtable (or ops->perft when present): the
 * number of move sequences of exactly depth plies; a finished game counts 1 at
 * depth 0 and 0 beyond.
 */
uint64_t game_perft(const struct game_ops *ops, const void *st, int depth);
uint64_t game_perft_generic(const struct game_ops *ops, const void *st, int depth);

#endif
