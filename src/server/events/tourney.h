/*
 * events/ - what starts games by itself: tournaments (issue 21), the ladder
 * (issue 22; pools to come). Below cmd/, above records/ (the order of the folders:
 * DEVELOPERS.md, Layout; tests/layers.py checks it). It calls the journal
 * (records/: a tournament is stored through the journal's queue, behind the
 * games whose results it counts), the play layer (the game-start path of an
 * accepted seek: session_create() and session_begin(); the lobby's presence),
 * the messages, the pure pairing library (src/arena) and util; cmd/ and
 * server.c call it. News from below: every game's end, through the callback
 * it registers with the journal (journal_set_on_end()).
 *   tourney.c   tournaments: create, join, start, the rounds, results, standings
 *   ladder.c    the continuous ladder: join, leave, show, pairing as members free up
 *               (ladder.h)
 *   events.c    what both share: stored documents read back, option words (events.h)
 *
 * tourney.h - tournaments run by the server on a single node: round-robin
 * (single, double: Berger tables), gauntlet, Swiss (FIDE Dutch) and lichess'
 * arena (no rounds: free players paired again at once for minutes=), paired by
 * src/arena. A director creates one (`tourney create`), players join, the
 * director starts it (or it starts by itself at its start= time); each round is
 * paired and its games start by themselves, exactly as an accepted seek's do
 * (game_start to both players); each game's end is counted as it comes; the
 * next round is paired once every game of the round is over; the last round's
 * end (an arena's time) finishes the tournament with its standings and
 * tie-breaks. Subscribers (`set tourneys on`) get every event pushed, as JSON
 * ("type":"tourney") or a text line.
 *
 * Engine matches (format=match games=N, PROTOCOL.md §15): two players, one game a round, in
 * pairs with the colours swapped; openings=NAME reads a book of the books' directory
 * (games/book.h) whose moves start each game (session_preplay()); sprt= runs the
 * pentanomial SPRT of src/arena/stats.h after each pair and ends the match once decided.
 *
 * Absence: a player absent when a game of theirs starts has the server's
 * disconnect grace (--grace, the seat's grace of any game) to come; a game
 * that ends "abandoned" before its first move is a forfeit ('+'/'-' in the
 * TRF), and a player who forfeits two games in a row is withdrawn.
 *
 * Durability: the whole tournament is one stored document (store.h,
 * store_tourney), queued through the journal after every change; a game's end
 * is queued before the tournament that counts it, so after a crash either both
 * are stored or the game's end alone, which recovery (tourneys_recover()) then
 * reads from the game's row: every finished game counts once. A game's start
 * is queued after the tournament naming it (its id reserved first), so a game
 * on disk is never one the tournament lost: games in progress come back as
 * every game does (journal_recover(), which runs first), and a game never
 * stored is paired again.
 *
 * Cluster: one node of the cluster runs every tournament, the one holding the events' lease
 * (cluster/cluster_events.c): the other nodes forward `tourney` to it, its games start there
 * with players connected anywhere (a seat whose player is on another node is given to it as
 * a login gives seats back), and its events reach every node's subscribers (on_tell). The node
 * that takes the lease over brings the tournaments back with tourneys_recover(), as a restart.
 */
#ifndef BITARENA_SERVER_TOURNEY_H
#define BITARENA_SERVER_TOURNEY_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "server/msg/client.h"
#include "server/msg/proto.h"
#include "server/util/metrics.h"

#define TOURNEY_MAX_PLAYERS 256 /* a tournament's entries at most (max= caps it lower) */
#define TOURNEY_MAX_ROUNDS  64  /* a double round-robin of 32 needs 62 */
/* an arena player's games at most (not paired again after: a 10-minute arena of instant
   games with bots gives each about 600); each player's row, 16 bytes a game, starts with
   TOURNEY_MAX_ROUNDS entries and grows as its games come */
#define TOURNEY_MAX_GAMES     1000
#define TOURNEY_NAME_MAX      40
#define TOURNEY_LIST_MAX      100 /* tournaments `tourney list` shows, newest first */
#define TOURNEY_GAMES_PAGE    500 /* games a `tourney games` reply lists (from=N: the next) */
#define TOURNEY_KEEP_OVER     32  /* finished or cancelled ones kept in memory */
#define TOURNEY_ARENA_MINUTES 30  /* an arena's length without minutes= */
/* an arena player meets its last opponent again only after waiting this long (ms) for
   anyone else */
#define TOURNEY_REMATCH_MS 15000
/* an arena pairs in waves: a finished game's players (and its result's standings) wait at
   most this long (ms) for the next one, which pairs everyone free and stores the tournament
   once; its document grows with every game, so storing it after each result made the
   loop's cost grow with the square of the games (bench/events) */
#define TOURNEY_ARENA_WAVE_MS 500

struct sessions;
struct lobby;
struct archive;
struct journal;
struct tourney;

struct tourneys {
	struct sessions *sess;
	struct lobby *lobby;
	struct journal *jn;   /* the store: tournaments are only run by a server that keeps one */
	const char *books;    /* the opening books' directory (openings=NAME), or NULL */
	struct archive *arch; /* the stored games' records (tourney record) */
	struct tourney *list; /* newest first */
	uint64_t last_id;
	uv_timer_t pump; /* pairs rounds and starts games out of the session hooks' way */
	bool pump_open;
	/* CPU time spent pairing (a round, a Swiss's on a worker thread; an arena's pass over
	   its free players) and, on the loop, writing a tournament's document for the store */
	struct metric_histogram pairing, saving;
	/* a cluster's (NULL: none): event j (not taken) with its text line was told here; the
	   other nodes' subscribers get it through tourney_tell_here() */
	void (*on_tell)(void *ud, const cJSON *j, const char *text);
	void *tell_ud;
};

/* The tournaments of a server whose games are journalled by jn; tourneys_close() ends. */
void tourneys_init(struct tourneys *ts, uv_loop_t *loop, struct sessions *sess, struct lobby *lobby,
                   struct journal *jn);
/*
 * After journal_recover(): the tournaments not over come back from the store; a game of
 * theirs that ended while its end was not yet counted is counted now, and rounds go on.
 * Returns how many came back, or a negative enum store_err.
 */
int tourneys_recover(struct tourneys *ts);
/* Links the tournaments' metrics into r (server.c's registry). */
void tourneys_register_metrics(struct tourneys *ts, struct metrics *r);
/* Forgets every tournament (their state is in the store): a node of a cluster that lost the
   events' lease to another, which runs them now. */
void tourneys_forget(struct tourneys *ts);
/* Frees every tournament (shutdown; their state is in the store). */
void tourneys_close(struct tourneys *ts);

/*
 * tourney <sub> [args...]: create, list, show, join, withdraw, start, cancel, games, record,
 * trf
 * (PROTOCOL.md, §Tournaments). Answers rq.
 */
void tourney_command(struct tourneys *ts, struct client *c, const struct proto_req *rq);
/* Tells event j (taken) with its text line (taken) to this node's subscribers. */
void tourney_tell_here(struct tourneys *ts, cJSON *j, char *text);
/* set tourneys on|off (word): whether c hears tournament events; answers rq. */
void tourney_set_events(struct client *c, const struct proto_req *rq, const char *word);

#endif
