/*
 * games/tak/ - the Tak engine: one engine folder of src/games, beside the
 * other engines, which it never calls. It calls game.c (what every engine
 * shares); the table games.c, the record, the replayer and the search above
 * it reach it only through its game_ops, while the server and the clients
 * may use this header too (tests/layers.py checks the order). Pure: no I/O.
 * Its files, each calling only those below it:
 *   tak_ops.c     game_tak: the table, the PTN and TPS entries, the presentations
 *   tak_search.c  the Tak bot: alpha-beta on the rules' make/unmake (tak_search.h)
 *   tak_ptn.c     PTN moves and games, TPS positions, a record's tags
 *   tak.c         the rules: placements, slides, roads, flats, legality, perft
 *   tak_slide.c   every drop pattern of a slide, as tables (tak_slide.h)
 * tak_make.h is make/unmake and move generation's pieces, static inline, for the
 * rules and the bot. The one callback: the bot's caller gives it the clock and
 * may stop it (tak_search.h).
 *
 * tak.h - the Tak engine (game_tak): position, move encoding, and the helpers
 * its files share with its users (the playtak port, the TEI tools, the bot).
 *
 * Options (optdefs, in this order; "seek tak size=6 komi=4 ..."):
 *   size    3..8, default 5
 *   komi    half flats given to Black, 0..8 (playtak's convention), default 0
 *   pieces  stones (flats + walls) per player; 0 = the standard count for the
 *           size (10/15/21/30/40/50), else 10..80 (1..9 is refused)
 *   caps    capstones per player; -1 = standard (0/0/1/1/2/2), else 0..5
 *   stale   1 = playtak's stale-game rule: 50 plies in a row without a
 *           placement or a wall flattening draw; 0 (default) = no such rule
 *
 * Seats: 0 = white (player 1, "1" in TPS), 1 = black (player 2).
 *
 * Rules as tak.md section 1. Choices where sources differ: on plies 1-2 the
 * placed flat comes out of its owner's reserve (tiltak; playtak charges the
 * placer, the totals agree from ply 2 on). The stale rule, when on, draws
 * after the 50th slide in a row without a flattening (a road or a full board
 * on that ply still wins); it is off by default, so perft with default
 * options never meets it. A loaded TPS carries no reserves: they are the
 * option's counts minus the pieces on the board; a TPS already holding a road
 * or a full board loads as a finished game.
 *
 * Move encoding (game_move, 64 bits):
 *   bits 0..5    square, bit index y*size + x (a1 = 0, b1 = 1, a2 = size)
 *   bits 6..7    placement: piece kind (enum tak_kind); slide: direction
 *                (0 '+' up the ranks, 1 '>' toward h, 2 '-', 3 '<'; as bb_dir)
 *   bit  8       0 = placement, 1 = slide
 *   bits 9..31   0
 *   bits 32..63  slide: the packed drop pattern (tak_slide.h); placement: 0
 */
#ifndef BITARENA_GAMES_TAK_H
#define BITARENA_GAMES_TAK_H

#include <stddef.h>
#include <stdint.h>

#include "core/bitboard.h"
#include "games/game.h"

#define TAK_MIN_SIZE  3
#define TAK_MAX_SIZE  8
#define TAK_MAX_MOVES 32768 /* > 3*64 placements + 32512 slides, the 8x8 bound */

enum tak_colour { TAK_WHITE = 0, TAK_BLACK = 1 };
enum tak_kind { TAK_FLAT = 0, TAK_WALL = 1, TAK_CAP = 2 };
enum tak_reserve { TAK_STONES = 0, TAK_CAPS = 1 };

/* Option indices in game_tak.opts. */
enum tak_opt { TAK_OPT_SIZE, TAK_OPT_KOMI, TAK_OPT_PIECES, TAK_OPT_CAPS, TAK_OPT_STALE, TAK_NOPTS };

/* How the game ended (tak_state.result). */
enum tak_end {
	TAK_ONGOING = 0,
	TAK_ROAD_WHITE,
	TAK_ROAD_BLACK,
	TAK_FLATS_WHITE,
	TAK_FLATS_BLACK,
	TAK_FLATS_DRAW, /* equal flat count (komi included) */
	TAK_STALE_DRAW  /* the optional 50-ply rule */
};

/*
 * The position. Flat and fixed-size: copy it with memcpy.
 *
 * Every square's top piece is in exactly one of top[WHITE], top[BLACK] (or in
 * neither when empty); walls and caps mark the tops that are standing stones
 * or capstones, so a top flat is top[c] & ~(walls | caps). Pieces below a top
 * are always flats.
 *
 * stack[sq] holds the colours of the pieces of a square, 1 bit each
 * (0 = white, 1 = black): bit 0 is the top piece, bit i the piece i below it,
 * bits at depth >= height are 0. Pieces deeper than 63 below the top (only in
 * stacks taller than 64, possible on big boards with many pieces) continue in
 * deep[sq]: bit j of the 128-bit pair (deep[sq][0] low) is depth 64 + j.
 */
struct tak_state {
	bb_t top[2];
	bb_t walls, caps;
	uint64_t stack[64];
	uint8_t height[64];
	uint32_t ply;   /* plies played; white moves at even plies; opening = ply < 2 */
	uint16_t stale; /* plies since the last placement or flattening */
	uint8_t size;
	uint8_t komi;             /* half flats for black */
	uint8_t stale_rule;       /* 0 or 1 */
	uint8_t result;           /* enum tak_end */
	uint8_t reserve[2][2];    /* [colour][enum tak_reserve] pieces not yet placed */
	uint8_t start_reserve[2]; /* [enum tak_reserve] per player at the start */
	struct bb_geom geom;
	uint64_t deep[64][2];
};

extern const struct game_ops game_tak;

/* --- moves ---------------------------------------------------------------- */

#define TAK_MOVE_SLIDE ((game_move)1 << 8)

static inline game_move tak_move_place(int sq, enum tak_kind k)
{
	return (game_move)sq | (game_move)k << 6;
}
static inline game_move tak_move_slide(int sq, int dir, uint32_t pattern)
{
	return (game_move)sq | (game_move)dir << 6 | TAK_MOVE_SLIDE | (game_move)pattern << 32;
}
static inline int tak_move_square(game_move m)
{
	return (int)(m & 63);
}
static inline int tak_move_kind_or_dir(game_move m)
{
	return (int)(m >> 6 & 3);
}
static inline int tak_move_is_slide(game_move m)
{
	return (m & TAK_MOVE_SLIDE) != 0;
}
static inline uint32_t tak_move_pattern(game_move m)
{
	return (uint32_t)(m >> 32);
}

/* --- rules (tak.c) ---------------------------------------------------------- */

/* Standard stones and capstones per player for a board size (3..8). */
int tak_std_stones(int size);
int tak_std_caps(int size);

/* Empties st and sets it up; returns 0 or GAME_EOPT with *why (if non-NULL) set. */
int tak_setup(struct tak_state *st, const struct game_params *p, const char **why);

/* Legality of m in st; 0, or GAME_EILLEGAL / GAME_ESYNTAX / GAME_EOVER with *why set. */
int tak_check_move(const struct tak_state *st, game_move m, const char **why);

/* Makes m in st (must be legal); the same as game_tak.apply. */
int tak_apply(struct tak_state *st, game_move m);

/* Colour (0/1) of the piece depth places below the top of square sq (depth < height). */
int tak_piece_colour(const struct tak_state *st, int sq, int depth);

/* Loaders: puts a flat of colour on top of sq (stacks only; bitboards and reserves are
 * the caller's). */
void tak_push_piece(struct tak_state *st, int sq, int colour);

/* Number of top flats of colour c. */
int tak_flat_count(const struct tak_state *st, int c);

/* The options (enum tak_opt order) and the rules as game_ops entries (state as void *). */
extern const struct game_optdef tak_opts[TAK_NOPTS];
unsigned tak_to_move(const void *st);
int tak_legal_moves(const void *st, game_move *out, size_t room);
void tak_result(const void *st, struct game_result *r);
uint64_t tak_perft(const void *st, int depth);
int tak_evaluate(const void *st);

/* Recomputes result after a position was loaded (roads, full board, empty reserves). */
void tak_update_result_after_load(struct tak_state *st);
/*
 * One road of colour c as squares (y * size + x) in order from edge to edge: the shortest
 * road, south-north or west-east (south-north on a tie), and of those the one ending on the
 * lowest square, stepping back to the lowest neighbour. Returns the count, 0 without a road.
 */
int tak_road_squares(const struct tak_state *st, int c, int out[64]);

/* --- notation (tak_ptn.c) --------------------------------------------------- */

/*
 * PTN move text to move, in position st. Returns 0, GAME_ESYNTAX (not PTN) or
 * GAME_EILLEGAL (*why says which rule), GAME_EOVER.
 */
int tak_parse_ptn(const struct tak_state *st, const char *text, game_move *m, const char **why);
/* Canonical PTN of m (as tak.md 2.1); returns the length or GAME_ENOSPACE. */
int tak_format_ptn(const struct tak_state *st, game_move m, char *buf, size_t len);

/* TPS: load keeps st's options (komi, piece counts from p); save writes "board turn move". */
int tak_load_tps(struct tak_state *st, const struct game_params *p, const char *text);
int tak_save_tps(const struct tak_state *st, char *buf, size_t len);
/* One square as TPS writes it: "12S", or "" when empty. Returns the length. */
int tak_stack_text(const struct tak_state *st, int sq, char *buf, size_t len);

/* Tags of a PTN game record; NULL strings and negative numbers are left out. */
struct tak_ptn_tags {
	const char *player1, *player2;
	const char *date;   /* "YYYY.MM.DD" */
	const char *clock;  /* "10:0 +20" */
	const char *result; /* NULL: taken from the final position ("R-0", "1-0", ...) */
	int size;           /* <= 0: from the start position */
	int komi;           /* half flats; written in flats ("2", "2.5"); < 0: from start */
	int flats, caps;    /* < 0: from the start position's reserves */
};

/*
 * Writes a whole PTN game: tags, a TPS tag when start is not the initial
 * position, the numbered move list replayed from start and the result.
 * Every move must be legal in turn (else GAME_EILLEGAL). Returns the length
 * written (NUL-terminated) or GAME_ENOSPACE.
 */
int tak_write_ptn_game(const struct tak_state *start, const game_move *moves, size_t nmoves,
                       const struct tak_ptn_tags *tags, char *buf, size_t len);

/*
 * The tags a game record carries for a Tak game of options (game_ops.record_tags):
 * Size, Komi (in flats: "2", "2.5"), Flats and Caps, from the options (size=, komi= in half
 * flats, pieces=, caps=), the standard counts of the size where they are left to it.
 */
int tak_record_tags(const char *options, game_tag_fn tag, void *ctx);

#endif
