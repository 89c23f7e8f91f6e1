/*
 * session_clock.h - clocks and deadlines of a game (session_clock.c): the
 * clocks as they stand, the earliest deadline (the flag of the seat to move,
 * a simultaneous turn's end, the end of an absent player's grace, a spectator
 * count held back) and the one timer per game that fires at it; what happens
 * then is session.c's (sessions.on_deadline). Of the session's files it
 * calls only session_game.c; below the layer, the loop (libuv).
 */
#ifndef BITARENA_SERVER_SESSION_CLOCK_H
#define BITARENA_SERVER_SESSION_CLOCK_H

#include <stdint.h>

#include "games/game.h"

struct game;
struct sessions;

enum deadline_kind { DL_NONE, DL_FLAG, DL_TURN, DL_GRACE, DL_WATCHERS };

/* The loop's time (uv_now) in ms. */
uint64_t session_clock_now(const struct game *g);
/* How long the current turn has run (up to the pause while paused; 0 while it waits). */
int64_t session_clock_used(const struct game *g);
/* Clocks as they stand now: the running one is charged up to now. */
void session_clock_left(const struct game *g, int64_t out[GAME_MAX_PLAYERS]);
/* The deadline of the simultaneous turn being played: first_turn_ms for the first one. */
int64_t session_clock_turn_limit(const struct game *g);
/* The earliest pending deadline of g (uv_now ms) and what it is; *seat for FLAG/GRACE. */
enum deadline_kind session_clock_next_deadline(const struct game *g, uint64_t *when, int *seat);
/* Sets up s's handles for deadlines (sessions_init); session_clock_sessions_close() closes
   them. */
void session_clock_sessions_init(struct sessions *s);
void session_clock_sessions_close(struct sessions *s);
/* Sets up g's timer (session_create); it is closed by the owner of g. */
void session_clock_init(struct game *g);
/* Arms g's timer for its next deadline (g->sess->on_deadline runs then), or stops it. */
void session_clock_arm(struct game *g);

#endif
