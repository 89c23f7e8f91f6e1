/*
 * house/ - the server's own bots ("play the computer", issue 22 item 6), at
 * the top beside ports/ and api/: they play through an in-process transport,
 * the command table and the normal session path, like any connection. They
 * call cmd/ (none directly: their moves are lines), events/ (none), play/
 * (lobby, sessions), msg/ and net/; nothing below calls them: the command
 * table and the pools reach them through the callbacks server.c registers
 * (struct commands' computer, struct pools' computer).
 *   house.c        the bots: connections, logins, turns handed to workers, `match computer`
 *   house_level.c  the levels per kind and one turn's move (pure; house_level.h)
 *
 * house.h - the house bots. There is one bot per level, a guest named
 * computer1 .. computer8, shown as a bot (its prefs' bot flag), logged in
 * when the server starts on a connection of the "house" transport (no socket:
 * what the server writes to it is dropped once read, what it plays is fed in
 * as input lines, "move <game> <move>", which the command table handles as
 * anyone's). One bot plays any number of games at once.
 *
 * Turns: whenever something is written to a bot (a state, a game's end), a
 * zero timer looks at its games (the client's seats); for each game where its
 * seat is to act and nothing is being thought, a job takes a copy of the
 * position as the seat sees it (view()), the seat's clock and the game's
 * memory, and runs house_think() on the libuv thread pool (uv_queue_work), at
 * most HOUSE_THINKERS at once (the pool is shared with the store's readers and
 * logins: the rest wait in a queue here). The loop never waits on a search.
 *
 * Ownership: a job owns its position copy and its copy of the game's memory
 * (allocated at the job's start, freed in its after-work callback, on the
 * loop, whatever happened); the worker touches nothing else. A game that
 * ends, is aborted or loses the bot's seat while its job runs sets the job's
 * cancel flag (the Tak search polls it and stops; the other engines finish
 * within milliseconds); the after-work callback then drops the answer: a move
 * is fed only when the game is the same one, on, at the same ply, the bot's
 * seat still to act. At shutdown (house_stop) every job is cancelled; the
 * loop runs until their callbacks have freed them.
 *
 * Games against the house are unrated (the bots are guests). `match computer
 * <kind> [opt=value ...] level=N` starts one at once (house_match); a user may
 * play HOUSE_GAMES_PER_USER such games at once, the server HOUSE_GAMES_MAX
 * (COMPUTER_BUSY beyond). Pools offer a waiting player the house bot whose
 * level fits its rating after --pool-computer-after seconds (house_for_pool).
 *
 * Cluster: the bots are per node; `match computer` is answered by the node
 * the user is connected to.
 */
#ifndef BITARENA_SERVER_HOUSE_H
#define BITARENA_SERVER_HOUSE_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "server/house/house_level.h"
#include "server/msg/client.h"
#include "server/msg/proto.h"
#include "server/net/conn.h"

#define HOUSE_THINKERS       2   /* searches running at once on the thread pool */
#define HOUSE_GAMES_PER_USER 4   /* live games against the house per user */
#define HOUSE_GAMES_MAX      256 /* live games against the house in all */

struct lobby;
struct sessions;
struct house_bot;
struct house_job;

struct house {
	uv_loop_t *loop;
	struct conn_hub *hub;
	struct lobby *lobby;
	struct sessions *sess;
	struct house_bot *bots[HOUSE_LEVELS]; /* NULL: not connected (made again when needed) */
	char tokens[HOUSE_LEVELS][PROTO_TOKEN_LEN + 1]; /* each bot's guest token, for its seats */
	uv_timer_t kick;                                /* looks at the bots marked dirty */
	struct house_job *queue, *queue_tail;           /* jobs waiting for a thinker */
	unsigned thinking;                              /* jobs on the thread pool */
	bool started, stopping;
	uint64_t moves, cancelled; /* moves fed, answers dropped (tests, the log) */
};

/* Starts the house on loop: its timer; the bots log in as they are first needed. */
void house_init(struct house *h, uv_loop_t *loop, struct conn_hub *hub, struct lobby *lobby,
                struct sessions *sess);
/* Shutdown: cancels every job (their callbacks still come, and free them), stops the timer;
   the bots' connections close with the others' (conn_hub_stop). */
void house_stop(struct house *h);

/* match computer <kind> [opt=value ...] level=N by c: the game starts, or rq is refused. */
void house_match(struct house *h, struct client *c, const struct proto_req *rq);

/* c is a house bot's connection (never timed out for idling: server.c). */
bool house_owns(const struct conn *c);
/* The bot of level (1..HOUSE_LEVELS), connected and logged in; NULL when it cannot be. */
struct client *house_bot(struct house *h, int level);
/* A pool's opponent of last resort for a player rated rating in kind ops (pools.h's
   computer callback): the bot whose level fits, or NULL (a kind the house does not play). */
struct client *house_for_pool(void *ud, const struct game_ops *ops, double rating);

#endif
