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
/* A whole decimal number within min..max into *out; 0, or -1 (nothing written) when it is not. */
int cli_parse_num(const char *s, long long min, long long max, long long *out);

/* The client library (session, dispatcher, message readers) every network subcommand uses. */
#include "lib/client.h"

#endif
