/*
 * session_internal.h - the session layer's own data: struct game (a game
 * being played: its seats, position, moves, clocks, offers, spectators,
 * chat and timer), the snapshots of its states, its spectators and its chat
 * lines. Only the session's files (session*.c, offers.c) read and write
 * these; every other file asks through the functions of session.h,
 * session_clock.h, session_view.h and session_watch.h (only the session's
 * own unit suite, tests/server/check_session.c, includes it to assert on
 * them). The bottom of the layer: it calls nothing.
 */
#ifndef BITARENA_SERVER_SESSION_INTERNAL_H
#define BITARENA_SERVER_SESSION_INTERNAL_H

#include "games/adjudicate.h"
#include "server/play/session.h"

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
	int64_t rtt[GAME_MAX_PLAYERS];                  /* players' round-trip times, -1 unknown */
	uint64_t built;                                 /* uv_now when built */
	size_t watchers;                                /* spectators when built */
	int64_t turn_left;                              /* simultaneous: ms left of the turn */
	bool acted[GAME_MAX_PLAYERS];                   /* simultaneous: the seat's action is in */
	unsigned draw_offer, undo_offer, rematch_offer; /* offers standing (struct game) */
	int undo_n;
	struct outbuf *out[2][GAME_MAX_PLAYERS + 1]; /* [json][viewer + 1], built on demand */
	_Alignas(max_align_t) unsigned char st[];    /* the engine state (state_size bytes) */
};

struct watcher {
	struct client *c;
	struct snapshot *pending; /* coalesced newest state not yet sent (slow spectator) */
};

/* One line of a game's chat, kept for those who come later (owned: text). */
struct chat_line {
	char from[PROTO_NAME_MAX + 1];
	char *text;
};

struct game {
	struct game *next;
	struct sessions *sess;
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
	/* so.repetition: the positions so far (session.c, adjudicated()); adj_fed the plies
	   given to it, -1 before the first */
	struct adjudicator adj;
	int adj_fed;

	/* clocks (sequential, timed) */
	int64_t left[GAME_MAX_PLAYERS];
	uint64_t turn_started; /* uv_now when the current turn began */
	bool clock_held;       /* restored after a restart: the clock of the side to move waits
	                          until that player is back */
	bool paused;           /* the store fails (journal.c): no flag, no turn deadline */
	bool turn_waits;       /* the turn's state waits for the store: its clock starts once it
	                          is sent (session_journal_released) */
	int64_t pause_used;    /* paused: what the turn had run when it stopped */

	/* the journal (hooks): what waits for the store (client.h's barrier) */
	uint64_t jseq;           /* the number of the game's last record queued */
	int stored_ply;          /* while records wait: the game as stored (list shows it) */
	unsigned stored_to_move; /* ... its seats to move */
	bool stored_over;        /* ... and whether it was over */

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
	/* cluster: spectators of other nodes beyond the relay watchers standing for them (those
	   count as one each in nw); session_watchers() is the count shown */
	int64_t nw_extra;
	/* spectator counts told (set watchers on): the last count, when, and one more due */
	size_t nw_told;
	uint64_t nw_told_at;
	bool nw_due;
	/* the latest chat lines, a ring (session_watch.c): line k of chat_total is at k % KEEP */
	struct chat_line chat[SESSION_CHAT_KEEP];
	uint64_t chat_total;
	struct snapshot *snap; /* the current state */
	uv_timer_t timer;      /* session_clock.c */
	bool due;              /* session_clock.c: the timer fired; resolved after the I/O */
	struct game *due_next; /* sessions.due */
};

/* True while a record of g waits for the store (its latest output is held). */
static inline bool session_journal_pending(const struct game *g)
{
	const struct client_barrier *bar = g->sess->bar;
	return bar != NULL && g->jseq > bar->durable;
}

#endif
