/*
 * args.h - what the subcommands of the `bitarena` tool share about their
 * command line: the table of subcommands (one row each: name, function,
 * usage, help), which main() in bitarena.c owns and hands down once, so that a
 * subcommand can print its own usage line without calling up into main's
 * file; and whole numbers read from arguments.
 */
#ifndef BITARENA_CLIENTS_ARGS_H
#define BITARENA_CLIENTS_ARGS_H

#include <stddef.h>

struct cli_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage; /* one line: arguments after the name */
	const char *help;  /* one sentence */
};

/* The tool's table of n subcommands (kept, not copied); main() calls this before any runs. */
void cli_commands(const struct cli_cmd *cmds, size_t n);
/* Prints "usage: bitarena <name> <usage>" for the named subcommand to stderr; returns 2. */
int cli_usage(const char *name);
/* A whole decimal number within min..max into *out; 0, or -1 (nothing written) when it is not. */
int cli_parse_num(const char *s, long long min, long long max, long long *out);

#endif
