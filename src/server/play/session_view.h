/*
 * session_view.h - rendering a game (session_view.c): snapshots of a state,
 * the state in JSON and text for each viewer, game_start, game_over, the
 * options of a game, the rows of `list`. Nothing is sent from here; it reads
 * the clocks (session_clock.h) and the messages layer's round-trip times.
 */
#ifndef BITARENA_SERVER_SESSION_VIEW_H
#define BITARENA_SERVER_SESSION_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "server/msg/client.h"
#include "server/msg/proto.h"

struct game;
struct sessions;
struct snapshot;
struct outbuf;

/* JSON {"m":3,...} of the engine options. */
cJSON *session_view_options_json(const struct game_ops *ops, const struct game_params *p);
/* Seek option words for text: "m=3 n=3 k=3, 5+3" etc. (malloc'd). */
char *session_view_options_text(const struct game_ops *ops, const struct seek_opts *so);
/* "1:05" or "0:09.4" (tenths under ten seconds). */
void session_view_clock(int64_t ms, char *buf, size_t len);
/* A snapshot of g as it stands (seq is g->seq); NULL out of memory. */
struct snapshot *session_view_snap_build(struct game *g);
void session_view_snap_unref(struct snapshot *sn); /* NULL is fine */
/* The clocks sn shows (ms left of each seat when it was built), for a front-end's rendering. */
const int64_t *session_view_snap_clocks(const struct snapshot *sn);
/* The rendering of sn for viewer (a seat, or -1) in one format, built once and cached in sn. */
struct outbuf *session_view_snap_out(const struct game *g, struct snapshot *sn, int viewer,
                                     bool json);
/* game_start for seat: the message's JSON and text (owned by the caller). */
void session_view_game_start(const struct game *g, int seat, bool resumed, cJSON **json,
                             char **text);
/* game_over of g (result recorded): the message's JSON and text. */
void session_view_game_over(const struct game *g, cJSON **json, char **text);
/* `list`: the games in progress of s, as the reply to rq. */
void session_view_list(struct sessions *s, struct client *c, const struct proto_req *rq);
/*
 * One game's row of `list`, for one node's answer and for the row a cluster
 * node shares (cluster/cluster_shared.c): its JSON and its text line
 * ("  <id> <kind>: ..."), both the caller's. as_stored: a game whose latest
 * records wait for the store is shown as stored (one node's answer, given
 * now); false: as it is (a cluster node writes the row when the game changes
 * and nothing writes it again when the records are stored). False (nothing
 * made) when the game is not listed: over, or being freed.
 */
bool session_view_list_row(const struct game *g, bool as_stored, cJSON **json, char **text);
/* g's seats as the HTTP API shows them: [{"name","registered","present"}] (new). */
cJSON *session_view_players_json(const struct game *g);
/*
 * g's row of GET /api/games/live (PROTOCOL.md §14; new): id, kind, options, players, rated,
 * time and clock_ms, ply, started, watchers. The API lists it, the cluster keeps it in each
 * game's row of the games' hash so that every node lists every node's games.
 */
cJSON *session_view_live_row(const struct game *g);
/* The answer to `list` of f (its "games" array) and extra (their lines, both taken): n games. */
void session_view_list_reply(struct client *c, const struct proto_req *rq, cJSON *f, char *extra,
                             size_t n);

#endif
