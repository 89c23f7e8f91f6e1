/*
 * ladder.h - the continuous ladder (issue 22): accounts (bots above all) join a ladder of
 * a game kind and options, and the server pairs them with each other by itself, game
 * after game, for as long as they stay: fewest mutual games first, colours alternating
 * per pair, at most `concurrency` games of a member at once, at most --ladder-pair-cap
 * games a pair a day (src/arena/ladder.h says how). Games are rated and start exactly as
 * an accepted seek's do (game_start to both players); a member absent when its game
 * starts has the disconnect grace of any game. Only members connected are paired.
 *
 * One ladder per kind and option words (the words sorted: `tak size=5 time=1+0` and
 * `tak time=1+0 size=5` are one ladder); an account may be on several. `ladder leave`
 * stops new games at once, and the games on are played out.
 *
 * When it pairs: when a game of a ladder ends, when someone joins, and on a timer: at the
 * start of each day (UTC; the day's caps start again), when someone logs in or out while a
 * member of a ladder is away (the lobby's epoch, looked at every LADDER_RETRY_MS: one
 * comparison), and again soon after a game could not be started. Nothing else wakes it.
 *
 * Durability: each ladder is one stored document (store.h, schema 8: its members with
 * their concurrency, state and W/D/L, the games of each pair, the games on), queued
 * through the journal after every change, behind the ends of the games it counts (as a
 * tournament is: tourney.h), and ahead of the games it starts (their ids reserved first:
 * a game on disk is always one the stored ladder has). After a crash, ladders_recover()
 * (after journal_recover()) brings every ladder back; a game the document has on that ended
 * meanwhile is counted from its stored row, one in progress goes on (it came back as games
 * do), and one never stored is forgotten with its pair's count.
 *
 * Cluster: one ladder for all nodes, run by the node holding the events' lease (as the
 * tournaments: tourney.h); members connected to any node are paired (lobby_user_online()).
 */
#ifndef BITARENA_SERVER_LADDER_H
#define BITARENA_SERVER_LADDER_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "server/msg/client.h"
#include "server/msg/proto.h"
#include "server/util/metrics.h"

#define LADDER_MEMBERS_MAX     256 /* members of one ladder, ever (those who left count) */
#define LADDER_CONCURRENCY_MAX 16  /* a bot account's games at once on one ladder */
#define LADDER_PAIR_CAP        100 /* --ladder-pair-cap: games a pair plays a day */
#define LADDER_RETRY_MS        1000
#define LADDER_SLACK           1  /* games a pair may be ahead of a member's least-met pair */
#define LADDER_MAX             64 /* ladders on a server */

struct sessions;
struct lobby;
struct journal;
struct store_reader;
struct conn_hub;
struct ladder;

struct ladders {
	struct sessions *sess;
	struct lobby *lobby;
	struct journal *jn;
	struct store_reader *rd; /* ratings for `ladder show` */
	struct conn_hub *hub;
	struct ladder *list; /* by id */
	uint64_t last_id;
	int pair_cap; /* games a pair plays a day (0: no cap) */
	uv_timer_t pump;
	bool pump_open;
	bool dirty;          /* something changed: pair at the next pump */
	int waiting;         /* the last pairing's LADDER_AWAY / LADDER_FAILED (ladder.c) */
	uint64_t seen_epoch; /* the lobby's epoch then: a login or logout since changes it */
	int64_t seen_day;    /* the UTC day then */
	struct metric_histogram pairing; /* /metrics: each ladder's pairing pass's CPU time */
};

/* The ladders of a server whose games are journalled by jn; ladders_close() ends. */
void ladders_init(struct ladders *ls, uv_loop_t *loop, struct sessions *sess, struct lobby *lobby,
                  struct journal *jn, struct store_reader *rd, struct conn_hub *hub);
/* After journal_recover(): every ladder back from the store (see the top). Returns how
   many, or a negative enum store_err. */
int ladders_recover(struct ladders *ls);
/* Forgets every ladder (their state is in the store): a node of a cluster that lost the
   events' lease to another, which runs them now. */
void ladders_forget(struct ladders *ls);
/* Links the ladders' metrics into r (server.c's registry). */
void ladders_register_metrics(struct ladders *ls, struct metrics *r);
/* Frees every ladder (shutdown; their state is in the store). */
void ladders_close(struct ladders *ls);

/* ladder join|leave|show ... (PROTOCOL.md, §Ladder). Answers rq. bot: c's account is a
   bot's (any concurrency up to LADDER_CONCURRENCY_MAX; a person's is 1). */
void ladder_command(struct ladders *ls, struct client *c, const struct proto_req *rq, bool bot);

#endif
