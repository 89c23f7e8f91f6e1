/*
 * cli.h - the subcommands of the `bitarena` client tool. Each lives in its
 * own clients/cmd_<name>.c and is listed once in the table in bitarena.c.
 * A subcommand gets argv with argv[0] = its own name and returns the
 * process exit status (0 ok, 1 failure, 2 usage error).
 */
#ifndef BITARENA_CLIENTS_CLI_H
#define BITARENA_CLIENTS_CLI_H

struct cli_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage; /* one line: arguments after the name */
	const char *help;  /* one sentence */
};

int cmd_perft(int argc, char **argv);
int cmd_bot(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_replay(int argc, char **argv);

/* Prints "usage: bitarena <name> <usage>" for the named subcommand to stderr; returns 2. */
int cli_usage(const char *name);

/*
 * Session helpers shared by the network subcommands (bot, load, replay), in
 * cmd_bot.c, on top of the line client of net.h.
 */
#include <stdbool.h>

#include <cjson/cJSON.h>

#include "games/game.h"
#include "net.h"

#define CLI_DEFAULT_SERVER "127.0.0.1:7777"
#define PROTO_NAME_MAX_CLI 20 /* login names: 2..20 of [A-Za-z0-9_-] (PROTOCOL.md) */

/*
 * Connects to server, reads the welcome, switches to JSON and logs in as
 * name, or name2, name3, ... while the server says NAME_TAKEN. The name
 * obtained goes to got. Prints what went wrong (prefixed by prog) and
 * returns < 0 (enum net_err) on failure, with c closed.
 */
int cli_session_open(struct net_conn *c, const char *prog, const char *server, const char *name,
                     char *got, size_t gotlen, int timeout_ms);
/* Next JSON message (an object with "type"); *msg is the caller's to cJSON_Delete. */
int cli_read_json(struct net_conn *c, const char *prog, int timeout_ms, cJSON **msg);
/* A string / number member of o, or NULL / def. */
const char *cli_jstr(const cJSON *o, const char *key);
long long cli_jint(const cJSON *o, const char *key, long long def);
/* True when a state's "to_move" array holds seat. */
bool cli_to_move_has(const cJSON *state, int seat);
/* Engine parameters from a JSON "options" object ({"m":5,...}); false if one is rejected. */
bool cli_params_from_json(const struct game_ops *ops, const cJSON *opts, struct game_params *p);

#endif
