/*
 * play/ - games being played and the people who play them: the sessions (a
 * game's life-cycle and moves, clocks, rendering, who hears it), the offers
 * between its players, the lobby (presence, seeks), tells and challenges,
 * identity (guest names and tokens). Below records/, above msg/ (the order
 * of the folders: DEVELOPERS.md, Layout; tests/layers.py checks it). It calls
 * msg/, util/ and the engines (games/, through game_ops); records/, cmd/,
 * the cluster, the ports and server.c call it. News upward goes through the
 * callbacks the layers above register: the session hooks (session_hooks.h:
 * the journal's, the cluster's around them), the sessions' news (struct
 * session_news: the playtak port's game list) and the lobby's (lobby.h).
 * Nothing below calls it (server.c passes a connection's drain and close on).
 *   session*.c   the sessions, in the files listed below (session.h)
 *   offers.c     draw, undo, abort, rematch (offers.h)
 *   lobby.c      presence, seeks and their feed, who (lobby.h)
 *   direct.c     tells and challenges between two users (direct.h)
 *   identity.c   who may be a name: guests' tokens, taking a login over
 *
 * session.h - the session layer: games being played. Seats and turns, moves
 * through the engine's game_ops, clocks, simultaneous turns with a deadline,
 * spectators, disconnection with a grace period and coming back, the end of a
 * game. Nothing here knows a game by name: everything goes through game_ops.
 *
 * The layer's files, each calling only those listed above it; news that goes
 * upward is a callback in struct sessions, registered by the file above:
 *   session_internal.h  struct game and its parts, the layer's own data: no
 *                    file outside the layer reads it
 *   session_game.c   a game as the other layers read it: id, kind, seats,
 *                    ply, result, moves... (this header)
 *   session_metrics.c  the layer's counts: logins, games, moves (session_metrics.h)
 *   session_clock.c  clocks and deadlines: the clocks as they stand, the next
 *                    deadline, the game timer (-> sessions.on_deadline)
 *                    (session_clock.h)
 *   session_view.c   rendering a state: snapshots, the state in JSON and text,
 *                    game_start, game_over, the options, the rows of `list`
 *                    (session_view.h)
 *   session_watch.c  who hears a game: broadcasts to players and spectators
 *                    (slow spectators coalesce), watch, unwatch, say, news of
 *                    a player leaving or coming back (session_watch.h)
 *   session.c        life-cycle and moves: create, begin, moves and turns,
 *                    the end, takeback, restoring after a restart, leaving
 *                    and coming back (-> sessions.on_moved, the journal hooks)
 *                    (this header)
 *   offers.c         what the players agree on: draw, undo, abort, rematch
 *                    (offers.h)
 * Below the layer: the messages layer (msg.h, rtt.h). Above it: the journal
 * (session_hooks.h), the lobby, the commands.
 *
 * A move's path: the dispatcher has checked the seat and that the game is on
 * -> turn and clock -> ops->parse_move -> the text by ops->format_move ->
 * hooks.on_move -> ops->apply -> one struct snapshot, built once and shared,
 * rendered lazily once per (format, viewer) and the resulting outbuf shared
 * by every subscriber with that view.
 *
 * Each game has one uv_timer_t, armed for the earliest of: the flag of the
 * seat to move, the simultaneous turn's deadline, and the end of the grace of
 * any absent player. A game is freed in that timer's close callback. A
 * deadline that falls due is resolved after the loop's next read of the
 * sockets, not in the timer's callback: an action already waiting in a socket
 * when its deadline comes is played, not lost to the deadline (libuv runs
 * timers before it polls).
 */
#ifndef BITARENA_SERVER_SESSION_H
#define BITARENA_SERVER_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "server/msg/client.h"
#include "server/play/session_hooks.h"
#include "server/play/session_metrics.h"
#include "server/msg/msg.h"
#include "server/msg/proto.h"

#define SESSION_KEEP_FINISHED 64   /* finished games kept in memory for lookups */
#define SESSION_CHAT_KEEP     20   /* chat lines of a game resent on watch and on coming back */
#define SESSION_WATCHERS_MS   1000 /* spectator counts: at most one message per game this often */
#define SESSION_MAX_WATCHES   32   /* --max-watches: games one connection watches at once */
#define SESSION_MAX_PLIES     1000 /* --max-plies: a game's plies (turns) before a draw */
#define SESSION_TOKEN_HASH    64   /* hex digits of a guest token's hash (== STORE_TOKEN_HASH) */

/* Limits of the session layer; 0 turns one off. */
struct session_limits {
	unsigned max_watches; /* games one connection may watch at once (WATCH_LIMIT) */
	unsigned max_plies;   /* a game that reaches it ends as a draw, reason "max_plies" (a
	                         kind whose rules end it sooner never reaches it) */
};

/* A seat of a game (session_seat()): who sits there; the session's files write it. */
struct player {
	char name[PROTO_NAME_MAX + 1];
	struct client *c; /* NULL while absent */
	bool registered;  /* an account (the journal stores guests as such) */
	bool bot;         /* a bot's account (its client's prefs, at the start or coming back) */
	bool absent;
	/* absent since the game started (an event's game whose player was not connected here at
	   its start, in a cluster often connected to another node): its first game_start is the
	   game's start, not a return */
	bool unseen;
	uint64_t gone_at; /* uv_now when the connection went */
	/* a guest's token (identity.h) as kept, session_token_hash(): its seat comes back only
	   with the token (a cluster's relay client brings the token of its home's client);
	   "" for an account or a seat restored from a game stored without it (until a guest
	   claims it) */
	char token_hash[SESSION_TOKEN_HASH + 1];
	/* the address of the connection that left the seat (addr_known: one with an address,
	   not a cluster's relay; false for a seat restored from the store): a guest who lost
	   its token may take the seat back from that address while it is absent (identity.h) */
	struct addr_key addr;
	bool addr_known;
};

/*
 * A game: its definition is the session's files' own (session_internal.h). Every other file
 * holds a pointer and reads the game through the functions below (session_game.c); a game is
 * changed only through the layer's verbs.
 */
struct game;
struct sessions;

/* How a game ended (session_result()); the strings are the game's, kept while it is. */
struct session_result {
	int winner;         /* the winning seat, or -1 (a draw, or no result) */
	const char *score;  /* "1-0", "0-1", "1/2-1/2", "*" (aborted), a scoring kind's */
	const char *reason; /* the engine's, "resign", "timeout", "abandoned", "agreement", ... */
};

/*
 * Upward news of every game, for a front-end above the lobby that lists the
 * games to its clients (the playtak port's GameList): g begins (before its
 * game_start is sent) and g is over (after its game_over is sent). ud is the
 * front-end's; unset callbacks are skipped.
 */
struct session_news {
	void *ud;
	void (*on_begin)(void *ud, struct game *g);
	void (*on_over)(void *ud, struct game *g);
};

/* Every game of a server. */
struct sessions {
	uv_loop_t *loop;
	int64_t grace_ms;   /* a seat waits this long for its player to come back */
	struct session_limits lim;
	struct game *games; /* newest first; finished ones stay a while */
	size_t nfinished;
	uint64_t epoch; /* bumped when a seat or a watch is taken or left or a game ends (what
	                   who shows: the lobby's cache of it) */
	uint64_t next_game_id;
	struct session_hooks hooks; /* the journal's (hooks.h); none: games in memory only */
	struct session_news news;   /* a front-end's (above) */
	struct client_barrier *bar; /* the journal's barrier (client.h), lifted after a
	                               deadline's output; NULL without a journal */
	/* session_clock.c: games whose timer fired, resolved in due_check after the loop
	   has read the sockets (due_spin keeps that poll from blocking) */
	struct game *due;
	uv_check_t due_check;
	uv_idle_t due_spin;
	bool due_closed;
	/* Upward news inside the layer (see the top of this file). */
	void (*on_deadline)(struct game *g);              /* session.c, for session_clock.c */
	void (*on_moved)(struct game *g, unsigned seats); /* offers.c, for session.c */
	/* Upward, registered by server.c (records/moderation.c's blocks): true when `to` does
	   not want to hear `from`'s chat (say); NULL: everyone hears everyone. */
	bool (*hides)(void *ud, const struct client *to, const char *from);
	void *hides_ud;
	struct session_metrics met; /* games, moves, logins (session_metrics.h) */
};

/*
 * A new game's seed: the value of its kind's seed= option when the user gave one (so the
 * record's Seed, the state and the options say the same number), else 64 bits of the
 * operating system's CSPRNG (libsodium's randombytes), drawn for this game alone: no
 * generator whose state published seeds could rebuild (issue 27). Published only once the
 * game has ended (the record's Seed tag, the final state).
 */
uint64_t session_new_seed(const struct game_ops *ops, const struct game_params *p);
/* A seat drawn at random (color=random), from the same CSPRNG: 0 or 1. */
int session_random_seat(void);

/* Everything needed to start a game. */
struct game_spec {
	const struct game_ops *ops;
	struct seek_opts so;
	uint64_t seed;
	const char *names[GAME_MAX_PLAYERS];
	struct client *clients[GAME_MAX_PLAYERS]; /* NULL = absent (a restored game): the grace
	                                             runs */
	bool registered[GAME_MAX_PLAYERS];
	const char *token_hashes[GAME_MAX_PLAYERS]; /* guests' token hashes of absent players
	                                               (a restored game's), or NULL (a present
	                                               player's is its client's token's) */
	uint64_t id;     /* 0: a new game (on_start may give the id); else a restored game's id,
	                    and on_start is not called */
	uint64_t new_id; /* a new game under this id, reserved ahead by an event that names it
	                    first (journal_game_id()); 0: on_start gives one */
};

/* ---- a game as the other layers read it (session_game.c) ---------------------------------- */

uint64_t session_id(const struct game *g);
/* Its kind: the engine's table (name, seats and their names, rules). */
const struct game_ops *session_ops(const struct game *g);
/* The options it was sought with: the engine's parameters, time control, turn, rated. */
const struct seek_opts *session_opts(const struct game *g);
uint64_t session_seed(const struct game *g);
/* When it started: wall clock, ms since the epoch. */
int64_t session_started_at(const struct game *g);
/* Who sits at seat (0 <= seat < session_ops(g)->nplayers). */
const struct player *session_seat(const struct game *g, int seat);
/* The seat c plays in g, or -1. */
int session_seat_of(const struct game *g, const struct client *c);
/* Whether its seats act at once each turn (GAME_SIMULTANEOUS). */
bool session_simultaneous(const struct game *g);
/* Moves made, or turns resolved. */
int session_ply(const struct game *g);
/* The seats its position has to move, a mask (bit i: seat i). */
unsigned session_to_move(const struct game *g);
/* Simultaneous: whether seat's action for the turn being played is in. */
bool session_acted(const struct game *g, int seat);
bool session_over(const struct game *g);
/* How it ended, once session_over(). */
struct session_result session_result(const struct game *g);
/* Its move records, oldest first (*n of them; one per seat and turn when simultaneous). */
const struct move_rec *session_moves(const struct game *g, size_t *n);
/* Its position as seat sees it (ops->view: what seat may not know erased; -1 a spectator),
   state_size bytes into out: a copy the caller owns (a house bot's search, house.h). */
void session_position(const struct game *g, int seat, void *out);
/* Its spectators, as shown (state, list, watchers): every node's in a cluster. */
size_t session_watchers(const struct game *g);
/* The number of its last record queued to the journal (0: none since it was made here). */
uint64_t session_journal_seq(const struct game *g);
/* Its i-th spectator here (i from 0), or NULL past the last. */
struct client *session_watcher(const struct game *g, size_t i);
/* The games of s, newest first, finished ones kept a while among them (one being freed no
   longer is): for (g = sessions_first(s); g != NULL; g = session_next(g)). */
struct game *sessions_first(const struct sessions *s);
struct game *session_next(const struct game *g);

/* ---- life-cycle and moves (session.c) ------------------------------------------------------- */

/* An empty set of games on loop; a seat waits grace_ms for its player. */
void sessions_init(struct sessions *s, uv_loop_t *loop, int64_t grace_ms);
/* Replaces the journal's hooks (hooks.h); NULL clears them. */
void sessions_set_hooks(struct sessions *s, const struct session_hooks *h);
/* Replaces the front-end's news (struct session_news); NULL clears them. */
void sessions_set_news(struct sessions *s, const struct session_news *n);
/* The game with this id (finished ones kept a while), or NULL. */
struct game *session_find(struct sessions *s, uint64_t id);
/*
 * Creates a game (the on_start hook may give its id) without telling anyone;
 * NULL on failure (hook or memory). session_begin() then sends game_start and
 * the first state to the players and starts the clocks.
 */
struct game *session_create(struct sessions *s, const struct game_spec *spec);
/*
 * Between session_create() and session_begin() of a sequential game: plays an opening's n
 * moves (texts in the engine's notation) as the game's first moves, journalled as any move
 * (no clock used, nothing sent). 0, or a negative enum game_err: a move refused, the game
 * over after one (GAME_EOVER), the journal's or memory's failure (GAME_ENOSPACE); the
 * caller then ends the game.
 */
int session_preplay(struct game *g, const char *const *moves, size_t n);
void session_begin(struct game *g);
/* move <game> <move> by seat (the dispatcher checked the seat and that g is on); replies. */
void session_move(struct client *c, const struct proto_req *rq, struct game *g, int seat,
                  const char *text);
/* resign <game> by seat; replies. */
void session_resign(struct client *c, const struct proto_req *rq, struct game *g, int seat);
/* Ends g now (no new position): result recorded, on_end, game_over to everyone. */
void session_end(struct game *g, int winner, const char *score, const char *reason);
/*
 * Takes back the last n plies of a sequential game g (an agreed undo): the
 * position is rebuilt from the start with the remaining move records (engines
 * are pure), the clocks are those recorded after the last remaining move (the
 * base time when none is left) and the side to move starts again from now.
 * hooks.on_undo is called once the rebuilt position is known good. Nothing
 * is sent: session_push_state() tells everyone. 0, or a negative enum
 * game_err (GAME_ETURN: simultaneous or too few plies; GAME_EOVER: the hook
 * refused; anything else: a record did not replay).
 */
int session_takeback(struct game *g, int n);
/*
 * The store fails (paused true) or works again (false): the clocks and turn
 * deadlines of every game of s stop, and go on from where they stopped; a
 * game whose last move waits for the store starts its turn afresh instead
 * (its player has not been told of the move yet). A player's grace still
 * runs.
 */
void sessions_pause(struct sessions *s, bool paused);
/*
 * The journal's records up to upto are durable and what they held has gone
 * out: the turns that waited for it start now (their players were just told).
 */
void session_journal_released(struct sessions *s, uint64_t upto);
/*
 * What is sent from now until the end of the event waits behind g's last write to the
 * store, if one is pending: a player's command on g (the dispatcher's), so that its answer
 * (a resignation's ok) follows the move it answers, when the store fails too (client.h).
 */
void session_follow_stored(struct game *g);
/* A new state of g to players and spectators (seq + 1), and the timer re-armed. */
void session_push_state(struct game *g);
/*
 * Restoring a game after a restart, in two steps. session_restore() creates
 * it from spec (spec->id set, nobody connected: every seat waits through the
 * grace, on_start not called) with its stored start, and replays the records
 * (no hooks, nothing sent; clocks from the records) up to the first that does
 * not fit (logged); a simultaneous turn cut in half by the crash is dropped,
 * it was never announced. *kept is the number of records the game holds: the
 * caller drops the rest from its journal. NULL when it cannot be made (memory,
 * options). session_restart() then lets it go on: states numbered on from
 * ply + 1, the clock of the side to move held until that player is back (the
 * downtime is nobody's), and the end told at once when the records already
 * end the game (the crash came before its end was written).
 */
struct game *session_restore(struct sessions *s, const struct game_spec *spec, int64_t started_at,
                             const struct move_rec *recs, size_t n, size_t *kept);
void session_restart(struct game *g);
/*
 * A guest seat keeps its token as this hash, and the journal stores it with
 * the game: lowercase hex of the unkeyed BLAKE2b-256 of the token (random,
 * PROTO_TOKEN_LEN characters of 56: ~116 bits, so no salt or slow hash is
 * needed), never the token itself.
 */
void session_token_hash(const char *token, char out[SESSION_TOKEN_HASH + 1]);
/* Whether token is the one hash (a seat's token_hash, not "") was made from; constant time. */
bool session_token_fits(const char *hash, const char *token);
/*
 * The guest seats in grace (absent, in games not yet ended) that connections from address a
 * left: the one guest name they all belong to (any letter case), or NULL when there are none
 * or they are more than one guest's.
 */
const char *session_guest_left_from(struct sessions *s, const struct addr_key *a);
/* Those seats of guest name take token from now on (as its hash): session_login() then puts
   its new connection back into them. In memory only: the journal keeps the hash the seat had
   when the game was stored, so after a restart the seat wants the old token again. */
void session_guest_rekey(struct sessions *s, const char *name, const struct addr_key *a,
                         const char *token);
/*
 * After c logged in: put it back into seats its name left; fills resumed with the game ids.
 * A guest's seat that keeps a token hash takes c only with that token (c->token; a cluster's
 * relay client has the one its home sent); one without takes c's token.
 */
void session_login(struct sessions *s, struct client *c, cJSON *resumed);
/* Sends game_start and the current state of every game c plays (after session_login). */
void session_resume_send(struct sessions *s, struct client *c);
/* Orders c's list of games newest first. */
void session_sort_games(struct client *c);
/* c is going: its seats wait for it through the grace, its watches end. */
void session_client_gone(struct sessions *s, struct client *c);
/*
 * g is not this server's any more (a cluster node whose write to it the store refused:
 * another node runs it now): it goes from memory as it is, without an end, nothing written
 * or sent; its players and spectators leave it (the caller told them, or tells them).
 */
void session_forget(struct game *g);
/* Ends and frees every game (shutdown). */
void sessions_free_all(struct sessions *s);

#endif
