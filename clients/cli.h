/*
 * cli.h - the subcommands of the `bitarena` client tool. Each lives in its
 * own clients/cmd_<name>.c and is listed once in the table in bitarena.c.
 * A subcommand gets argv with argv[0] = its own name and returns the
 * process exit status (0 ok, 1 failure, 2 usage error).
 */
#ifndef BITARENA_CLIENTS_CLI_H
#define BITARENA_CLIENTS_CLI_H

/* struct cli_cmd (a row of the table), cli_usage() and cli_parse_num(). */
#include "lib/args.h"

int cmd_perft(int argc, char **argv);
int cmd_bot(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_replay(int argc, char **argv);

/* The client library (session, dispatcher, message readers) every network subcommand uses. */
#include "lib/client.h"
/* Events joined by themselves, the link that comes back, game slots, stopping (event.h). */
#include "lib/event.h"

#endif
