/*
 * session.h - games being played: seats and turns, moves through the
 * engine's game_ops, clocks, simultaneous turns with a deadline, spectators,
 * disconnection with a grace period and coming back, the end of a game.
 *
 * Nothing here knows a game by name: everything goes through game_ops.
 *
 * A move's path: checks (seat, turn, clock) -> ops->parse_move -> the text by
 * ops->format_move -> hooks->on_move -> ops->apply -> one struct snapshot,
 * built once and shared, rendered lazily once per (format, viewer) and the
 * resulting outbuf shared by every subscriber with that view.
 *
 * Each game has one uv_timer_t, armed for the earliest of: the flag of the
 * seat to move, the simultaneous turn's deadline, and the end of the grace of
 * any absent player. A game is freed in that timer's close callback.
 */
#ifndef BITARENA_SERVER_SESSION_H
#define BITARENA_SERVER_SESSION_H

#include "server/server.h"

/* A shared, immutable picture of a game after a state change. */
struct snapshot {
	unsigned refs;
	uint64_t seq;
	int ply;
	unsigned to_move;
	bool over;
	int64_t clocks[GAME_MAX_PLAYERS]; /* ms left when built */
	/* last move (sequential: [0] only) or the actions of the resolved turn */
	bool has_last[GAME_MAX_PLAYERS];
	char last[GAME_MAX_PLAYERS][GAME_MOVE_TEXT];
	int64_t rtt[GAME_MAX_PLAYERS];               /* players' round-trip times, -1 unknown */
	struct outbuf *out[2][GAME_MAX_PLAYERS + 1]; /* [json][viewer + 1], built on demand */
	_Alignas(max_align_t) unsigned char st[];    /* the engine state (state_size bytes) */
};

struct player {
	char name[PROTO_NAME_MAX + 1];
	struct client *c; /* NULL while absent */
	bool absent;
	uint64_t gone_at; /* uv_now when the connection went */
};

struct watcher {
	struct client *c;
	struct snapshot *pending; /* coalesced newest state not yet sent (slow spectator) */
};

struct game {
	struct game *next;
	struct server *srv;
	uint64_t id;
	const struct game_ops *ops;
	struct seek_opts so; /* options as sought (params, clock, turn_ms, ...) */
	uint64_t seed;
	int64_t started_at; /* wall clock, ms since epoch */
	struct player pl[GAME_MAX_PLAYERS];
	void *st;  /* current engine state (owned) */
	void *tmp; /* scratch state for copy-make (owned) */
	uint64_t seq;
	int ply; /* moves made / turns resolved */
	struct move_rec *moves;
	size_t nmoves, cap_moves;

	/* clocks (sequential, timed) */
	int64_t left[GAME_MAX_PLAYERS];
	uint64_t turn_started; /* uv_now when the current turn began */
	bool clock_held;       /* restored after a restart: the clock of the side to move waits
	                          until that player is back (set by storage.c) */

	/* simultaneous turns */
	bool acted[GAME_MAX_PLAYERS];
	game_move action[GAME_MAX_PLAYERS];
	enum game_act act[GAME_MAX_PLAYERS];
	int64_t act_ms[GAME_MAX_PLAYERS];
	char act_text[GAME_MAX_PLAYERS][GAME_MOVE_TEXT];

	bool over;
	bool freeing;
	int winner;      /* seat or -1 */
	char score[24];  /* "1-0", "1/2-1/2", ... */
	char reason[32]; /* engine reason, "resign", "timeout", "abandoned" */

	/* offers between the players (offers.c): seats as bit masks */
	unsigned draw_offer;    /* seats offering a draw */
	unsigned undo_offer;    /* the seat asking for a takeback (one at a time) */
	int undo_n;             /* plies that takeback would remove (1 or 2) */
	unsigned rematch_offer; /* seats offering a rematch (game over) */
	uint64_t rematch_game;  /* the rematch's id once it started, else 0 */

	struct watcher *w;
	size_t nw, cap_w;
	struct snapshot *snap; /* the current state */
	uv_timer_t timer;
};

/* Everything needed to start a game. */
struct game_spec {
	const struct game_ops *ops;
	struct seek_opts so;
	uint64_t seed;
	const char *names[GAME_MAX_PLAYERS];
	struct client *conns[GAME_MAX_PLAYERS]; /* NULL = absent (a restored game): the grace runs */
	uint64_t id; /* 0: a new game (on_start may give the id); else a restored game's id,
	                and on_start is not called */
};

/*
 * Creates a game (the on_start hook may give its id) without telling anyone;
 * NULL on failure (hook or memory). session_begin() then sends game_start and
 * the first state to the players and starts the clocks.
 */
struct game *session_create(struct server *s, const struct game_spec *spec);
void session_begin(struct game *g);
/*
 * Restoring a game after a restart (storage, issue 5): session_create() with
 * spec->id set, then session_replay() for every journalled record in order
 * (no hooks, nothing sent; clocks taken from the records), then
 * session_begin(): the clock of the side to move starts again from now, so
 * the downtime is not charged, and seq starts again at 1. Returns 0 or a
 * negative enum game_err when a record does not fit the game.
 */
int session_replay(struct game *g, const struct move_rec *m);

/*
 * Takes back the last n plies of a sequential game g (an agreed undo): the
 * position is rebuilt from the start with the remaining move records (engines
 * are pure), the clocks are those recorded after the last remaining move (the
 * base time when none is left) and the side to move starts again from now.
 * hooks->on_undo is called once the rebuilt position is known good. Nothing
 * is sent: session_push_state() tells everyone. 0, or a negative enum
 * game_err (GAME_ETURN: simultaneous or too few plies; GAME_EOVER: the hook
 * refused; anything else: a record did not replay).
 */
int session_takeback(struct game *g, int n);
/* A new state of g to players and spectators (seq + 1), and the timer re-armed. */
void session_push_state(struct game *g);
/* Ends g now (no new position): result recorded, on_end, game_over to everyone. */
void session_end(struct game *g, int winner, const char *score, const char *reason);
/* One message (owned: json, text) to g's connected players and spectators. */
void session_broadcast(struct game *g, cJSON *json, char *text);

/* The game with this id (finished ones kept a while), or NULL. */
struct game *session_find(struct server *s, uint64_t id);
/* The seat c plays in g, or -1. */
int session_seat_of(const struct game *g, const struct client *c);
bool session_is_watching(const struct game *g, const struct client *c);

/* Command handlers; they reply to rq themselves. */
void session_move(struct client *c, const struct proto_req *rq, struct game *g, const char *text);
void session_resign(struct client *c, const struct proto_req *rq, struct game *g);
void session_watch(struct client *c, const struct proto_req *rq, struct game *g);
void session_unwatch(struct client *c, const struct proto_req *rq, struct game *g);
void session_say(struct client *c, const struct proto_req *rq, struct game *g, const char *text);

/* After a login: put c back into seats its name left; fills resumed with the game ids. */
void session_login(struct client *c, cJSON *resumed);
/* Sends game_start and the current state of every game resumed by session_login(). */
void session_resume_send(struct client *c);
/* c closed: seats wait for it through the grace, watches end. */
void session_conn_gone(struct client *c);
/* Sends c any coalesced states it is owed (called when its output drains). */
void session_flush_pending(struct client *c);
/* Ends and frees every game (shutdown). */
void session_free_all(struct server *s);

/* JSON {"m":3,...} of the engine options. */
cJSON *session_options_json(const struct game_ops *ops, const struct game_params *p);
/* Seek option words for text: "m=3 n=3 k=3, 5+3" etc. (malloc'd). */
char *session_options_text(const struct game_ops *ops, const struct seek_opts *so);

#endif
