/*
 * archive.h - the verbs that read the store, above the lobby (finger tells
 * whether a player is online) and beside the journal: ratings (a kind's top
 * list), finger (a player's profile), history (recent finished games), record
 * (a game's record text, PTN for Tak) and replay (a stored game's positions
 * streamed to one client at a chosen pace). The dispatcher has checked the
 * arity, that the server keeps a store, and parsed the game id of record and
 * replay; each replies itself, once its reads are back from a reader thread
 * (store_reader.h; the client's further input waits meanwhile).
 *
 * Memory: a replay is owned by the archive until its last position is sent
 * or its client goes (archive_client_gone); its timer's close callback frees
 * it, so every replay is gone once the loop has run out. What replays hold is
 * counted, per connection and in all, and bounded (below). A replay pays for
 * its size: each position it sends takes tokens from its client's command
 * budget, and waits for them.
 */
#ifndef BITARENA_SERVER_ARCHIVE_H
#define BITARENA_SERVER_ARCHIVE_H

#include <stdint.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "server/records/journal.h"
#include "server/play/lobby.h"
#include "server/store/store.h"
#include "server/store/store_reader.h"

#define ARCHIVE_LIST_MAX      20   /* rows in ratings / history */
#define ARCHIVE_FINGER_GAMES  10   /* recent games in a finger */
#define ARCHIVE_REPLAY_DEF_MS 1000 /* replay pace when none is given */
#define ARCHIVE_REPLAY_MAX_MS 60000
/* A replay's cost and memory (PROTOCOL.md §13): each position it sends takes this many tokens
 * of its connection's command budget (the stream waits for them), one connection's replays
 * hold at most ARCHIVE_REPLAY_CONN_BYTES, all of them at most --replay-memory (refused with a
 * retry after ARCHIVE_REPLAY_RETRY_MS past it). */
#define ARCHIVE_REPLAY_POSITION_COST 2
#define ARCHIVE_REPLAY_CONN_BYTES    (1 << 20)
#define ARCHIVE_REPLAY_MEMORY        (64 << 20) /* --replay-memory's default */
#define ARCHIVE_REPLAY_RETRY_MS      1000

struct replay;

struct archive {
	struct store_reader *rd; /* the store's reads */
	struct lobby *lobby;     /* who is online (finger) */
	struct conn_hub *hub;    /* a read finds its client again */
	uv_loop_t *loop;
	struct replay *replays;             /* running replays */
	unsigned max_replays;               /* running at once per connection; 0: no limit */
	size_t replay_bytes;                /* what the running replays hold */
	size_t max_bytes;                   /* --replay-memory: at most this in all; 0: no limit */
	const struct budget_config *budget; /* the command budget replays pay from; NULL: free */
};

void archive_init(struct archive *a, struct store_reader *rd, struct lobby *l, struct conn_hub *hub,
                  uv_loop_t *loop);
/* c is going: its replays stop. */
void archive_client_gone(struct archive *a, struct client *c);
/* ratings <kind> [bots]: the best rated accounts of kind (bots: bots' accounts only) */
void archive_ratings(struct archive *a, struct client *c, const struct proto_req *rq);
/* finger <name> */
void archive_finger(struct archive *a, struct client *c, const struct proto_req *rq);
/* history [name]: c's own when logged in and no name is given */
void archive_history(struct archive *a, struct client *c, const struct proto_req *rq);
/* record <game-id>: id parsed */
void archive_record(struct archive *a, struct client *c, const struct proto_req *rq, uint64_t id);
/*
 * Games ids[0..n) (n <= ARCHIVE_RECORDS_MAX), entries [from, from + n) of a list of total
 * (a tournament's games), as one archive of records: each game's record as `record` writes
 * it (PTN for Tak), in the order given, a blank line between two, at most
 * ARCHIVE_RECORDS_BYTES of text (always the first one); a game the store does not have (id 0:
 * none) is left out. The reply is head's fields (owned, consumed) with "records" (the
 * text), "total", "count" (ids gone through) and, when from + count < total, "next" (from +
 * count) and the text line "more: <more> from=<next>" (more, the verb that asked, also heads
 * the text reply). Each game read costs a token of c's command budget beyond the verb's.
 */
#define ARCHIVE_RECORDS_MAX   100
#define ARCHIVE_RECORDS_BYTES (48 * 1024)
void archive_records(struct archive *a, struct client *c, const struct proto_req *rq,
                     const uint64_t *ids, size_t n, long from, long total, cJSON *head,
                     const char *more);
/* replay <game-id> [delay_ms]: id parsed */
void archive_replay(struct archive *a, struct client *c, const struct proto_req *rq, uint64_t id);

#endif
