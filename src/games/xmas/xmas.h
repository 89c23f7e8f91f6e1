/*
 * games/xmas/ - the Xmas Rush engine: one engine folder of src/games, beside the
 * other engines, which it never calls. It calls game.c (what every engine
 * shares); the table games.c, the record, the replayer and the search above
 * it reach it only through its game_ops, while the server and the clients
 * may use this header too (tests/layers.py checks the order). Pure: no I/O.
 * Its files, each calling only those below it:
 *   xmas_ops.c       game_xmas: the table, a seat's actions, the presentations
 *   xmas_bot.c       a player that reads what a contest bot reads (xmas_bot.h)
 *   xmas_notation.c  action lines both ways and the contest input of a seat
 *   xmas.c           the rules: set-up, turns, the end, what a viewer may see
 *   xmas_push.c      the board: tiles, pushes and paths as bitboards (xmas_push.h)
 * jrandom.h is java.util.Random, header only.
 *
 * xmas.h - Xmas Rush (CodinGame, December 2018), exact to the official
 * referee (CodinGameCommunity/XmasRush): the game state, the packed action,
 * the contest input of a seat, and the game_ops `game_xmas` (a simultaneous
 * game: both seats act every turn, then resolve() runs the turn).
 *
 * Rules and referee facts: /work/shared/rules/xmas-rush.md (the section
 * numbers in xmas.c refer to it). The board and its bitboard operations are
 * in xmas_push.h; java.util.Random is jrandom.h.
 */
#ifndef BITARENA_GAMES_XMAS_H
#define BITARENA_GAMES_XMAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "games/game.h"
#include "games/xmas/xmas_push.h"

#define XMAS_NAMES       12   /* item names (ARROW .. SWORD) */
#define XMAS_MAX_ITEMS   24   /* two players x 12 quests */
#define XMAS_MAX_VISIBLE 3    /* revealed quests per player */
#define XMAS_MAX_TURNS   150  /* game turns: 75 PUSH + 75 MOVE */
#define XMAS_MAX_STEPS   20   /* steps in one MOVE */
#define XMAS_MAX_LINE    124  /* longest accepted action line */
#define XMAS_STALE_END   10   /* stale PUSH turns in a row that end the game */
#define XMAS_INPUT_MAX   1024 /* a buffer that holds any contest input block */

/* The referee's ITEM_NAMES, in its list order (the shuffle depends on it). */
extern const char *const xmas_item_names[XMAS_NAMES];

enum xmas_turn_type { XMAS_TURN_PUSH = 0, XMAS_TURN_MOVE = 1 };

/* Why the game ended (xmas_reason_names[] holds the words result() reports). */
enum xmas_reason {
	XMAS_END_NONE = 0,
	XMAS_END_MAX_TURNS,
	XMAS_END_DEADLOCK,
	XMAS_END_ALL_QUESTS,
	XMAS_END_INVALID,
	XMAS_END_TIMEOUT,
};
extern const char *const xmas_reason_names[6];

/* Item locations besides a board cell 0..48 (= y*7 + x). */
#define XMAS_LOC_HAND(seat) (XMAS_CELLS + (seat)) /* 49: on seat 0's hand tile, 50: seat 1's */
#define XMAS_LOC_GONE       0xFF                  /* collected: no longer listed */

struct xmas_item {
	uint8_t name;  /* index into xmas_item_names */
	uint8_t owner; /* seat 0 or 1 */
	uint8_t loc;   /* 0..48 board cell, XMAS_LOC_HAND(s), or XMAS_LOC_GONE */
};

struct xmas_player {
	uint8_t cell;                  /* y*7 + x */
	uint8_t ndeck;                 /* hidden quests: names[0 .. ndeck) of the state */
	uint8_t nvis;                  /* revealed quests, 0..nvisible */
	uint8_t vis[XMAS_MAX_VISIBLE]; /* their names, in reveal order */
	int16_t score;                 /* quests done; -1 after a fatal line or a timeout */
	uint8_t fault;                 /* 0, XMAS_END_INVALID or XMAS_END_TIMEOUT */
	/* the last turn's MOVE of this seat: steps asked (0: no MOVE), steps made, and whether
	 * an illegal step (a wall, the edge) cut it short */
	uint8_t walk_asked, walk_done, walk_wall;
	uint8_t missed; /* timeout=pass: turns missed in a row (XMAS_MISSED_OUT of them: out) */
};

/*
 * The whole game, flat (memcpy-able). Between two resolve() calls the state
 * is "the input of turn `turn` has been sent": cards were flipped, and the
 * referee's collection check that runs right after the input (§4 step 6,
 * the scored-after-input quirk) is still pending (flag `pending`); resolve()
 * runs it first, then the actions. So xmas_input() on this state is exactly
 * the text the referee sent.
 */
struct xmas_state {
	struct xmas_board b;
	int64_t seed;                           /* the Java long of new Random(seed); or dealt */
	uint8_t pool;                           /* tile pool 2 or 3 */
	uint8_t ncards;                         /* quests per player (12) */
	uint8_t nvisible;                       /* revealed at once (3) */
	uint8_t nitems;                         /* entries of items[] (2 * ncards) */
	uint8_t names[XMAS_NAMES];              /* the shuffled names (both players' quests) */
	struct xmas_item items[XMAS_MAX_ITEMS]; /* in the fixed input order (§2 step 5) */
	struct xmas_player pl[2];
	int16_t turn;       /* game turn being played, 1..150 */
	int16_t turns_left; /* the referee's gameTurnsLeft (after this turn's decrement) */
	uint8_t turn_type;  /* enum xmas_turn_type of this turn */
	uint8_t stale;      /* stale PUSH turns in a row */
	uint8_t over;       /* 1 once the game has ended */
	uint8_t reason;     /* enum xmas_reason */
	uint8_t pending;    /* 1 while this turn's post-input collection check has not run */
	uint8_t hidden;     /* 1 in a view (xmas_view) of a game on: seed and names erased */
	uint8_t dealt;      /* 1: a seed the server drew, map and quests apart (xmas_init) */
	/* timeout=pass (not the referee's: for people): a seat that misses a turn (no action
	   in time) does nothing that turn, no push or a PASS, and only its XMAS_MISSED_OUT-th
	   missed turn in a row puts it out as the referee's timeout does; 0: the referee's
	   rule, one missed turn puts it out */
	uint8_t miss_pass;
};
#define XMAS_MISSED_OUT 3

/*
 * A packed action (game_move):
 *   bits 0..1  kind: 1 = PUSH, 2 = MOVE, 3 = PASS (0 is never a valid move)
 *   PUSH:  bits 2..4  line 0..6;   bits 5..6  direction (enum xmas_dir)
 *   MOVE:  bits 2..6  number of steps k, 1..20;
 *          bits 8+2i .. 9+2i  direction of step i (i = 0 .. k-1), so up to bit 47
 */
enum xmas_kind { XMAS_KIND_PUSH = 1, XMAS_KIND_MOVE = 2, XMAS_KIND_PASS = 3 };

static inline game_move xmas_move_push(int line, int dir)
{
	return (game_move)XMAS_KIND_PUSH | (game_move)(line & 7) << 2 | (game_move)(dir & 3) << 5;
}
static inline game_move xmas_move_pass(void)
{
	return XMAS_KIND_PASS;
}
static inline int xmas_move_kind(game_move m)
{
	return (int)(m & 3);
}
static inline int xmas_move_line(game_move m)
{
	return (int)((m >> 2) & 7);
}
static inline int xmas_move_dir(game_move m)
{
	return (int)((m >> 5) & 3);
}
static inline int xmas_move_nsteps(game_move m)
{
	return (int)((m >> 2) & 31);
}
static inline int xmas_move_step(game_move m, int i)
{
	return (int)((m >> (8 + 2 * i)) & 3);
}
/* A MOVE of n (1..20) steps from dirs[]. */
game_move xmas_move_steps(const int *dirs, int n);

extern const struct game_ops game_xmas;

/* Sets up a new game exactly as the referee does for seed and pool (1..3), 12 quests, 3 shown. */
int xmas_setup(struct xmas_state *st, int64_t seed, int pool);
/* The options seed= and pool= (1..3) given, for game_xmas.init(). */
void xmas_params(struct game_params *p, int64_t seed, int pool);

/* What the referee's league (leagueLevel) sets up: Referee.init's switch. */
struct xmas_league {
	uint8_t pool;     /* tile pool 1..3 */
	uint8_t ncards;   /* quests per player */
	uint8_t nvisible; /* quests shown at once */
	bool threeway;    /* items only on tiles with 3 or 4 openings */
};
/* The settings of league 0..6 (0 the demo; 6 and above all play alike); GAME_EOPT if < 0. */
int xmas_league(int league, struct xmas_league *lg);
/* xmas_setup() for any league's settings. */
int xmas_setup_league(struct xmas_state *st, int64_t seed, const struct xmas_league *lg);
/*
 * A game ready for its first turn, as game_xmas.init() with seed= and pool=
 * given (setup, then the first quests revealed and turn 1 begun).
 */
int xmas_start(struct xmas_state *st, int64_t seed, int pool);

/*
 * What a viewer (a seat, or -1 for a spectator) may see of st, into out: the
 * whole state but, while the game is on, the seed and the shuffled names
 * (the order of the hidden quests follows from either), both erased and
 * `hidden` set. Seats and spectators see alike, as on CodinGame: the board,
 * the hands, the items and the revealed quests are everybody's. Once over,
 * nothing is hidden. game_xmas.view; to_json and render_text show only this.
 */
void xmas_view(const void *st, int viewer, void *out);

/* Rules (xmas.c): does m fit the kind of this turn (PUSH, or MOVE/PASS)? */
bool xmas_move_fits_turn(const struct xmas_state *st, game_move m);
/* The index in st->items of the item at loc (a cell or XMAS_LOC_HAND(seat)), or -1. */
int xmas_item_at(const struct xmas_state *st, int loc);

/*
 * The options (seed, pool, league) and the rules as game_ops entries (state as void *).
 *
 * xmas_init() and the seed. With seed= given (a Java long) the game is the referee's for
 * that seed, map and quests alike: whoever knows the seed knows the order of the hidden
 * quests, so such a game suits practice and replaying CodinGame games, not a contest. Without
 * it the game's own seed (init's, 64 bits the server draws from the OS and publishes once the
 * game has ended) is read as two independent halves, because the referee's generator
 * (java.util.Random, 48 bits of state) can be rebuilt from the board it lays out: its high 32
 * bits are the Java long (0 .. 2^32-1) of the map (tiles, hands, items, the item order: the
 * referee's for that seed), and its low 32 bits deal the quests (xmas_deal): the order of
 * the quest names is the permutation of rank (low 32 bits) mod n! (n quests per player) of
 * the names the map placed, so nothing the board shows tells it.
 */
#define XMAS_NOPTS 4
extern const struct game_optdef xmas_opts[XMAS_NOPTS];
int xmas_init(void *st, const struct game_params *p, uint64_t seed);
/* The Java long of the map of a game dealt from seed (xmas_init without seed=): seed >> 32. */
int64_t xmas_map_seed(uint64_t seed);
/*
 * Deals st's quests (a set-up game, before its first quests are shown) from seed: the names
 * of st->names[0 .. ncards) in the order of the permutation of rank (uint32_t)seed mod
 * ncards! (Lehmer code: the first name is the (rank / (n-1)!)-th of the names left, ...).
 * Sets st->seed to seed and st->dealt.
 */
void xmas_deal(struct xmas_state *st, uint64_t seed);
unsigned xmas_to_move(const void *st);
int xmas_legal_moves(const void *st, game_move *out, size_t cap);
int xmas_resolve(void *st, const game_move *moves, const enum game_act *acts);
void xmas_result(const void *st, struct game_result *r);

/*
 * Notation (xmas_notation.c). Action lines as the referee reads them, whole
 * and case-sensitive (game_xmas.parse_move and .format_move).
 */
int xmas_parse_move(const void *st, int seat, const char *text, game_move *m, const char **why);
int xmas_format_move(const void *st, game_move m, char *buf, size_t len);
/* An item's x, y as the contest input gives them to seat: -1 -1 on its hand, -2 -2 on the other. */
void xmas_item_xy(const struct xmas_item *it, int seat, int *x, int *y);
/*
 * Writes the contest input the referee sends seat this turn (§3): turn type,
 * 7 map lines, 2 player lines (seat first), the items (ids relative to seat,
 * -1 -1 / -2 -2 on a hand tile), the revealed quests (seat's first); every
 * line ends in "\n". Returns the length (NUL written) or GAME_ENOSPACE.
 * Once the game is over it writes the last state in the same form.
 */
int xmas_input(const struct xmas_state *st, int seat, char *buf, size_t len);

/*
 * Actions worth considering for seat now: the 28 pushes on a PUSH turn; on
 * a MOVE turn PASS plus one shortest MOVE (at most 20 steps) to every other
 * cell seat can reach. Returns the count (at most 49) or GAME_ENOSPACE.
 * (ops->legal_moves has no seat: it lists the pushes, or PASS alone.)
 */
int xmas_moves_for(const struct xmas_state *st, int seat, game_move *out, size_t cap);

/*
 * Where seat's MOVE m meets a wall on the board of this MOVE turn (nothing moves tiles during
 * it, so the whole walk is known now): the index of the first step that cannot be taken, with
 * *cell the cell it would leave; -1 when every step can be taken (or m is no MOVE).
 */
int xmas_walk_wall(const struct xmas_state *st, int seat, game_move m, int *cell);

/* Cells seat can reach now (bit y*7 + x). */
bb_t xmas_reachable(const struct xmas_state *st, int seat);

#endif
