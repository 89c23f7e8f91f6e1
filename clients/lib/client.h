/*
 * clients/lib/ - what the subcommands of the `bitarena` tool share: the
 * bottom of clients/ (bitarena.c > cmd_*.c > load/ > lib/; the order is in
 * DEVELOPERS.md, Layout, and tests/layers.py checks it). It calls only the
 * games library and system libraries. News upward: the routes a subcommand
 * hands the dispatcher (cli_dispatch, cli_pump) and the line callback of a
 * child program (proc.h).
 *   net.c     the line client: connect, send a line, read one with a timeout
 *   client.c  a session (welcome, JSON mode, login) and the message dispatcher
 *   args.c    the table of subcommands main() hands down, usage lines, numbers
 *   proc.c    a child program (a bot, an engine) driven line by line
 *   tei.c     the Tak Engine Interface as pure functions
 *   cgio.c    a CodinGame bot's output as the referee reads it
 * net.c and client.c are libbitarenaclient.a, which the tests link too.
 *
 * client.h - the client library of bitarena (libbitarenaclient.a), used by
 * every network subcommand of the `bitarena` tool and by the tests:
 *
 *  - the line client of net.h (connect, send a line, read a line with a
 *    timeout);
 *  - a session on top of it: connect, read the welcome, switch to JSON mode,
 *    log in under a free name (cli_session_open);
 *  - one dispatcher on the message type: each server line is parsed once
 *    into a cJSON object and handed to the first row of a small table whose
 *    "type" (and, for ok/error, "cmd") match it (cli_dispatch, cli_pump);
 *  - helpers to read messages (cli_jstr, cli_jint, cli_to_move_has,
 *    cli_params_from_json).
 * The protocol's limits come from proto/limits.h, shared with the server.
 *
 * Example: a client that reacts to states and game ends, one poll a second:
 *
 *     static const struct cli_route routes[] = {
 *             {"state", NULL, on_state},
 *             {"game_over", NULL, on_game_over},
 *             {"error", "move", on_move_refused},
 *             {NULL, NULL, NULL},
 *     };
 *     while ((r = cli_pump(&c, prog, 1000, routes, me)) == 0)
 *             ...timers...
 */
#ifndef BITARENA_CLIENTS_CLIENT_H
#define BITARENA_CLIENTS_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "games/game.h"
#include "lib/net.h"
#include "proto/limits.h"

#define CLI_DEFAULT_SERVER PROTO_DEFAULT_ADDR

/*
 * Connects to server, reads the welcome, switches to JSON and logs in as
 * name, or name2, name3, ... while the server says NAME_TAKEN (name is cut so
 * that the suffix fits in PROTO_NAME_MAX). With BITARENA_PASSWORD set in the
 * environment it logs in to the account name with that password instead (no
 * other name is tried): bots that play rated games. The name obtained goes to
 * got.
 * Prints what went wrong (prefixed by prog) and returns < 0 (enum net_err)
 * on failure, with c closed.
 */
int cli_session_open(struct net_conn *c, const char *prog, const char *server, const char *name,
                     char *got, size_t gotlen, int timeout_ms);

/* cli_session_open() that also keeps a guest's token (token[0] = '\0' for an account). */
int cli_session_open_token(struct net_conn *c, const char *prog, const char *server,
                           const char *name, char *got, size_t gotlen, char *token, size_t toklen,
                           int timeout_ms);

/*
 * Connects again as the same player: the account name with BITARENA_PASSWORD, or the guest
 * name with its token (the server gives its seats back: PROTOCOL.md §6). Returns NET_OK with
 * the login's reply in *ok (the caller's to delete; its "resumed" lists the games given back),
 * 1 when the login was refused (said after prog), or < 0 (enum net_err); c closed unless
 * NET_OK.
 */
int cli_session_again(struct net_conn *c, const char *prog, const char *server, const char *name,
                      const char *token, int timeout_ms, cJSON **ok);

/*
 * Next JSON message (an object with a string "type") within timeout_ms (0:
 * only what is there now, < 0: no limit); *msg is the caller's to
 * cJSON_Delete. Lines that are not such an object, and lines over the
 * connection's limit, are skipped with a note on stderr prefixed by prog.
 * Returns NET_OK or a negative enum net_err (NET_ETIMEOUT when none came).
 */
int cli_read_json(struct net_conn *c, const char *prog, int timeout_ms, cJSON **msg);

/*
 * One row of a dispatch table. A message matches when its "type" is type and,
 * when cmd is not NULL, its "cmd" is cmd (ok and error replies name their
 * verb). The handler returns 0 to go on; anything else stops the pump and is
 * returned by it: a positive value of the caller's choosing, or a negative
 * enum net_err (a send that failed). A table ends with a row whose type is NULL.
 */
typedef int (*cli_handler)(void *ud, const cJSON *msg);
struct cli_route {
	const char *type;
	const char *cmd;
	cli_handler fn;
};

/* Calls the first matching row's handler on msg and returns its value; 0 when no row matches. */
int cli_dispatch(const struct cli_route *routes, void *ud, const cJSON *msg);

/*
 * Waits up to timeout_ms (0: no wait, < 0: no limit) for a message, then
 * dispatches it and every further message that is already readable, without
 * waiting again. Returns 0 when the input ran dry (also when nothing came at
 * all), a handler's nonzero value (the messages after it stay unread), or a
 * negative enum net_err other than NET_ETIMEOUT when the connection failed
 * or was closed.
 */
int cli_pump(struct net_conn *c, const char *prog, int timeout_ms, const struct cli_route *routes,
             void *ud);

/* A string / number member of o, or NULL / def. */
const char *cli_jstr(const cJSON *o, const char *key);
long long cli_jint(const cJSON *o, const char *key, long long def);
/* True when a state's "to_move" array holds seat. */
bool cli_to_move_has(const cJSON *state, int seat);
/* Engine parameters from a JSON "options" object ({"m":5,...}); false if one is rejected. */
bool cli_params_from_json(const struct game_ops *ops, const cJSON *opts, struct game_params *p);

/* A player's games so far, as the bots and bridges count and print them. */
struct cli_tally {
	int played, wins, losses, draws;
};
/*
 * Counts the game_over message m of game `game`, played in seat, into t and prints its line
 * ("game 12: win as seat 0 (1-0, road)") to stdout unless quiet.
 */
void cli_tally_game(struct cli_tally *t, const cJSON *m, long long game, int seat, bool quiet);
/* The summary line: "games N wins W losses L draws D". */
void cli_tally_print(const struct cli_tally *t);

/*
 * A player of a tournament (PROTOCOL.md §15): cli_tourney_join() subscribes to the
 * tournaments' events and joins tournament id (the replies come as "ok"/"error" with cmd
 * "set" and "tourney"); the tournament's games then start by themselves (game_start).
 * cli_tourney_over() says whether message m ends tournament id (its "finished" or
 * "cancelled" event): no game of it starts after that.
 */
int cli_tourney_join(struct net_conn *c, long long id);
bool cli_tourney_over(const cJSON *m, long long id);

#endif
