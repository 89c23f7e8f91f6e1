/*
 * session.h - the session layer: games being played. Seats and turns, moves
 * through the engine's game_ops, clocks, simultaneous turns with a deadline,
 * spectators, disconnection with a grace period and coming back, the end of a
 * game. Nothing here knows a game by name: everything goes through game_ops.
 *
 * The layer's files, each calling only those listed above it; news that goes
 * upward is a callback in struct sessions, registered by the file above:
 *   session_clock.c  clocks and deadlines: the clocks as they stand, the next
 *                    deadline, the game timer (-> sessions.on_deadline)
 *   session_view.c   rendering a state: snapshots, the state in JSON and text,
 *                    game_start, game_over, the options, the rows of `list`
 *   session_watch.c  who hears a game: broadcasts to players and spectators
 *                    (slow spectators coalesce), watch, unwatch, say, news of
 *                    a player leaving or coming back
 *   session.c        life-cycle and moves: create, begin, moves and turns,
 *                    the end, takeback, restoring after a restart, leaving
 *                    and coming back (-> sessions.on_moved, the journal hooks)
 *   offers.c         what the players agree on: draw, undo, abort, rematch
 *                    (offers.h)
 * Below the layer: the messages layer (msg.h, rtt.h). Above it: the journal
 * (session_hooks, hooks.h), the lobby, the commands.
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

#include "core/rng.h"
#include "server/msg/client.h"
#include "server/play/session_hooks.h"
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

struct player {
	char name[PROTO_NAME_MAX + 1];
	struct client *c; /* NULL while absent */
	bool registered;  /* an account (the journal stores guests as such) */
	bool absent;
	uint64_t gone_at; /* uv_now when the connection went */
	/* a guest's token (identity.h) as kept, session_token_hash(): its seat comes back only
	   with the token (a cluster's relay client brings the token of its home's client);
	   "" for an account or a seat restored from a game stored without it (until a guest
	   claims it) */
	char token_hash[SESSION_TOKEN_HASH + 1];
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

struct sessions;

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
	struct rng rng;             /* seeds and random seats */
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
};

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
	uint64_t id; /* 0: a new game (on_start may give the id); else a restored game's id,
	                and on_start is not called */
};

static inline bool session_simultaneous(const struct game *g)
{
	return (g->ops->flags & GAME_SIMULTANEOUS) != 0;
}

/* The spectators of g, as shown (state, list, watchers): every node's in a cluster. */
static inline size_t session_watchers(const struct game *g)
{
	int64_t n = (int64_t)g->nw + g->nw_extra;
	return n > 0 ? (size_t)n : 0;
}

/* The seat c plays in g, or -1. */
static inline int session_seat_of(const struct game *g, const struct client *c)
{
	for (int i = 0; i < g->ops->nplayers; i++)
		if (g->pl[i].c == c)
			return i;
	return -1;
}

/* ---- clocks and deadlines (session_clock.c) --------------------------------------------- */

enum deadline_kind { DL_NONE, DL_FLAG, DL_TURN, DL_GRACE, DL_WATCHERS };

/* The loop's time (uv_now) in ms. */
uint64_t clock_now(const struct game *g);
/* How long the current turn has run (up to the pause while paused; 0 while it waits). */
int64_t clock_used(const struct game *g);
/* Clocks as they stand now: the running one is charged up to now. */
void clock_left(const struct game *g, int64_t out[GAME_MAX_PLAYERS]);
/* The deadline of the simultaneous turn being played: first_turn_ms for the first one. */
int64_t clock_turn_limit(const struct game *g);
/* The earliest pending deadline of g (uv_now ms) and what it is; *seat for FLAG/GRACE. */
enum deadline_kind clock_next_deadline(const struct game *g, uint64_t *when, int *seat);
/* Sets up s's handles for deadlines (sessions_init); clock_sessions_close() closes them. */
void clock_sessions_init(struct sessions *s);
void clock_sessions_close(struct sessions *s);
/* Sets up g's timer (session_create); it is closed by the owner of g. */
void clock_init(struct game *g);
/* Arms g's timer for its next deadline (g->sess->on_deadline runs then), or stops it. */
void clock_arm(struct game *g);

/* ---- rendering a state (session_view.c) --------------------------------------------------- */

/* JSON {"m":3,...} of the engine options. */
cJSON *view_options_json(const struct game_ops *ops, const struct game_params *p);
/* Seek option words for text: "m=3 n=3 k=3, 5+3" etc. (malloc'd). */
char *view_options_text(const struct game_ops *ops, const struct seek_opts *so);
/* "1:05" or "0:09.4" (tenths under ten seconds). */
void view_clock(int64_t ms, char *buf, size_t len);
/* A snapshot of g as it stands (seq is g->seq); NULL out of memory. */
struct snapshot *snap_build(struct game *g);
void snap_unref(struct snapshot *sn); /* NULL is fine */
/* The rendering of sn for viewer (a seat, or -1) in one format, built once and cached in sn. */
struct outbuf *snap_out(const struct game *g, struct snapshot *sn, int viewer, bool json);
/* game_start for seat: the message's JSON and text (owned by the caller). */
void view_game_start(const struct game *g, int seat, cJSON **json, char **text);
/* game_over of g (result recorded): the message's JSON and text. */
void view_game_over(const struct game *g, cJSON **json, char **text);
/* `list`: the games in progress of s, as the reply to rq. */
void view_list(struct sessions *s, struct client *c, const struct proto_req *rq);
/*
 * One game's row of `list`, for one node's answer and for the row a cluster
 * node shares (cluster/cluster_shared.c): its JSON and its text line
 * ("  <id> <kind>: ..."), both the caller's. as_stored: a game whose latest
 * records wait for the store is shown as stored (one node's answer, given
 * now); false: as it is (a cluster node writes the row when the game changes
 * and nothing writes it again when the records are stored). False (nothing
 * made) when the game is not listed: over, or being freed.
 */
bool view_list_row(const struct game *g, bool as_stored, cJSON **json, char **text);
/* The answer to `list` of f (its "games" array) and extra (their lines, both taken): n games. */
void view_list_reply(struct client *c, const struct proto_req *rq, cJSON *f, char *extra, size_t n);

/* ---- who hears a game (session_watch.c) ----------------------------------------------------- */

/* sn rendered for viewer, to c. */
void watch_send_state(struct game *g, struct snapshot *sn, struct client *c, int viewer);
/*
 * The current state of g for someone who comes in now (watch, coming back): g->snap, or when
 * what it shows has moved since it was built (a running clock or turn, offers, an action in)
 * a new one with the same seq, which becomes g->snap. NULL before the first state.
 */
struct snapshot *watch_current(struct game *g);
/* The latest chat lines of g to c, one chat_history message (none when nothing was said). */
void watch_send_chat(struct game *g, struct client *c);
/* Frees g's chat lines (g is being freed). */
void watch_chat_free(struct game *g);
/* The number of g's spectators changed: told now, or within SESSION_WATCHERS_MS. */
void watch_count_changed(struct game *g);
/* The count of g's spectators to those who asked (set watchers on), if it changed. */
void watch_tell_count(struct game *g);
/* A new snapshot of g (seq + 1) to players and spectators; slow spectators coalesce. */
void watch_broadcast_state(struct game *g);
/*
 * One message (owned: json, text) to g's connected players and spectators but
 * except (may be NULL); a spectator's coalesced state goes before it.
 */
void watch_broadcast(struct game *g, cJSON *json, char *text, const struct client *except);
/*
 * One message (owned: json, text) to g's connected players and spectators at
 * once, ahead of any output of theirs held behind the journal's barrier: the
 * journal's notices about the game's own held moves (client.h).
 */
void watch_notify(struct game *g, cJSON *json, char *text);
/* g joins c's games (a seat or a watch); false out of memory. Once per game. */
bool member_add(struct client *c, struct game *g);
/* g leaves c's games. */
void member_del(struct client *c, const struct game *g);
/* "player left / is back" to the others of g. */
void watch_tell_presence(struct game *g, int seat, bool back);
bool session_is_watching(const struct game *g, const struct client *c);
/* set watchers on|off: c gets the spectator counts of its games as they change, or not. */
void session_want_watchers(struct client *c, bool on);
/* Removes c from g's spectators; false when it was not one. */
bool watch_drop(struct game *g, struct client *c);
/* Sends c the coalesced states it is owed (its output drained). */
void session_flush_pending(struct sessions *s, struct client *c);
/*
 * c joins g's spectators without a word (nothing sent, the count not told):
 * a cluster's node taking over a game its clients watched elsewhere. False
 * out of memory.
 */
bool watch_add(struct game *g, struct client *c);
/* watch <game>: c follows g (a player gets its state again); seat is c's or -1. */
void session_watch(struct client *c, const struct proto_req *rq, struct game *g, int seat);
/* refresh <game>: c plays or watches g (seat is c's or -1); g as it stands, clocks now. */
void session_refresh(struct client *c, const struct proto_req *rq, struct game *g, int seat);
/* unwatch <game>. */
void session_unwatch(struct client *c, const struct proto_req *rq, struct game *g);
/* say <game> <text>: c plays in or watches g. */
void session_say(struct client *c, const struct proto_req *rq, struct game *g, const char *text);

/* ---- life-cycle and moves (session.c) ------------------------------------------------------- */

/* An empty set of games on loop; a seat waits grace_ms for its player. */
void sessions_init(struct sessions *s, uv_loop_t *loop, int64_t grace_ms);
/* Replaces the journal's hooks (hooks.h); NULL clears them. */
void sessions_set_hooks(struct sessions *s, const struct session_hooks *h);
/* The game with this id (finished ones kept a while), or NULL. */
struct game *session_find(struct sessions *s, uint64_t id);
/*
 * Creates a game (the on_start hook may give its id) without telling anyone;
 * NULL on failure (hook or memory). session_begin() then sends game_start and
 * the first state to the players and starts the clocks.
 */
struct game *session_create(struct sessions *s, const struct game_spec *spec);
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
 * The store fails (paused true) or works again (false): g's clock and turn
 * deadline stop, and go on from where they stopped; when g's last move
 * waits for the store, its turn starts afresh instead (its player has not
 * been told of the move yet). A player's grace still runs.
 */
void session_pause(struct game *g, bool paused);
/*
 * The journal's records up to upto are durable and what they held has gone
 * out: the turns that waited for it start now (their players were just told).
 */
void session_journal_released(struct sessions *s, uint64_t upto);
/* True while a record of g waits for the store (its latest output is held). */
static inline bool session_journal_pending(const struct game *g)
{
	const struct client_barrier *bar = g->sess->bar;
	return bar != NULL && g->jseq > bar->durable;
}
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
/* Ends and frees every game (shutdown). */
void sessions_free_all(struct sessions *s);

#endif
