/*
 * session_watch.h - who hears a game (session_watch.c): its players and its
 * spectators. Broadcasts of states (rendered once per format and viewer,
 * coalesced for slow spectators) and of messages, each client's list of its
 * games, watch, refresh, unwatch, say, the spectator count, and the news of a
 * player leaving or coming back. It renders through session_view.h and arms
 * the game's timer through session_clock.h.
 */
#ifndef BITARENA_SERVER_SESSION_WATCH_H
#define BITARENA_SERVER_SESSION_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "server/msg/client.h"
#include "server/msg/proto.h"

struct game;
struct sessions;
struct snapshot;

/* sn rendered for viewer, to c. */
void session_watch_send_state(struct game *g, struct snapshot *sn, struct client *c, int viewer);
/*
 * The current state of g for someone who comes in now (watch, coming back): g->snap, or when
 * what it shows has moved since it was built (a running clock or turn, offers, an action in)
 * a new one with the same seq, which becomes g->snap. NULL before the first state.
 */
struct snapshot *session_watch_current(struct game *g);
/*
 * The current state of g to c (viewer: its seat, or -1), once what g waits for is stored:
 * held behind g's last write to the store, as the move's own broadcast is (a state sent
 * again outside the move's event: should that write be refused, nobody saw it).
 */
void session_watch_send_current(struct game *g, struct client *c, int viewer);
/* The latest chat lines of g to c, one chat_history message (none when nothing was said). */
void session_watch_send_chat(struct game *g, struct client *c);
/* Frees g's chat lines (g is being freed). */
void session_watch_chat_free(struct game *g);
/* The number of g's spectators changed: told now, or within SESSION_WATCHERS_MS. */
void session_watch_count_changed(struct game *g);
/*
 * A cluster: g's spectators on other nodes beyond the relay watchers standing for them (each
 * of which counts as one of g's own) are extra; the count shown is g's own plus extra. A
 * change is told as session_watch_count_changed() tells it. True when it changed.
 */
bool session_watch_set_remote(struct game *g, int64_t extra);
/* The count of g's spectators to those who asked (set watchers on), if it changed. */
void session_watch_tell_count(struct game *g);
/*
 * Whether b is what g's spectators get of its current state in one format (a cluster's homes
 * may coalesce it with the states that follow).
 */
bool session_watch_is_current(const struct game *g, bool json, const struct outbuf *b);
/* A new snapshot of g (seq + 1) to players and spectators; slow spectators coalesce. */
void session_watch_broadcast_state(struct game *g);
/*
 * One message (owned: json, text) to g's connected players and spectators but
 * except (may be NULL); a spectator's coalesced state goes before it.
 */
void session_watch_broadcast(struct game *g, cJSON *json, char *text, const struct client *except);
/*
 * One message (owned: json, text) to g's connected players and spectators at
 * once, ahead of any output of theirs held behind the journal's barrier: the
 * journal's notices about the game's own held moves (client.h).
 */
void session_watch_notify(struct game *g, cJSON *json, char *text);
/* g joins c's games (a seat or a watch); false out of memory. Once per game. */
bool session_watch_member_add(struct client *c, struct game *g);
/* g leaves c's games. */
void session_watch_member_del(struct client *c, const struct game *g);
/* "player left / is back" to the others of g. */
void session_watch_tell_presence(struct game *g, int seat, bool back);
/* Whether c is among g's spectators. */
bool session_watch_has(const struct game *g, const struct client *c);
/* set watchers on|off: c gets the spectator counts of its games as they change, or not. */
void session_watch_want_counts(struct client *c, bool on);
/* Removes c from g's spectators; false when it was not one. */
bool session_watch_drop(struct game *g, struct client *c);
/* Sends c the coalesced states it is owed (its output drained, or before its next command). */
void session_watch_flush(struct sessions *s, struct client *c);
/*
 * c joins g's spectators without a word (nothing sent, the count not told):
 * a cluster's node taking over a game its clients watched elsewhere. False
 * out of memory.
 */
bool session_watch_add(struct game *g, struct client *c);
/* watch <game>: c follows g (a player gets its state again); seat is c's or -1. */
void session_watch_start(struct client *c, const struct proto_req *rq, struct game *g, int seat);
/* refresh <game>: c plays or watches g (seat is c's or -1); g as it stands, clocks now. */
void session_watch_refresh(struct client *c, const struct proto_req *rq, struct game *g, int seat);
/* unwatch <game>. */
void session_watch_stop(struct client *c, const struct proto_req *rq, struct game *g);
/* say <game> <text>: c plays in or watches g. */
void session_watch_say(struct client *c, const struct proto_req *rq, struct game *g,
                       const char *text);

#endif
