/*
 * swiss.h - what the Swiss pairing, the tie-breaks and the TRF writer derive
 * from a tournament's rounds (arena.h's struct arena_swiss): scores, played
 * games, colour histories and preferences (C.04.3 A.6), floats (A.4), bye
 * eligibility (C2). Internal to src/arena.
 */
#ifndef BITARENA_ARENA_SWISS_H
#define BITARENA_ARENA_SWISS_H

#include "arena/arena.h"

/* Colours as the pairing code keeps them. */
enum { SW_NONE = 0, SW_WHITE = 1, SW_BLACK = 2 };
/* Float directions (C.04.3 A.4). */
enum { SW_FLOAT_NONE = 0, SW_FLOAT_DOWN = 1, SW_FLOAT_UP = 2 };

static inline int sw_invert(int c)
{
	return c == SW_WHITE ? SW_BLACK : c == SW_BLACK ? SW_WHITE : SW_NONE;
}

/* Was the game of this round played over the board (not a forfeit, not a bye)? */
static inline int sw_played(const struct arena_game *g)
{
	return g->opp >= 0 && (g->result == '1' || g->result == '=' || g->result == '0' ||
			       g->result == 'W' || g->result == 'D' || g->result == 'L');
}

/* Did the player take part in that round's pairing (paired, or given the PAB)? */
static inline int sw_participated(const struct arena_game *g)
{
	return g->opp >= 0 || g->result == 'U';
}

/* The points one result is worth, or -1 for an unknown code. */
int sw_result_points(const struct arena_points *pts, char result);

/* One player as the pairing of the next round sees it. */
struct sw_player {
	int id;       /* index in arena_swiss.players */
	int score;    /* tenths, after t->played rounds */
	int rank;     /* the pairing order among the players that count (see swiss.c) */
	int white, black; /* played games with each colour */
	int imbalance;    /* |white - black| */
	int pref;         /* SW_WHITE, SW_BLACK or SW_NONE */
	int repeated;     /* the colour of the last two played games when equal */
	int strong;       /* a strong preference (C.04.3 A.6.b) */
	int absolute;     /* an absolute preference (A.6.a) */
	int bye_ok;       /* may get the PAB: no PAB or forfeit win before (C2) */
	int fl[3];        /* fl[k]: float k rounds back (k = 1, 2) */
};

/* Fills p for player id. `rank` is left for the caller. */
void sw_player_init(const struct arena_swiss *t, int id, struct sw_player *p);

#endif
