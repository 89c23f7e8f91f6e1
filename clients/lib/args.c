/*
 * args.c - the subcommands' shared command line (see args.h): the table main()
 * hands down, usage lines from it, and whole numbers.
 */
#include "lib/args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cli_cmd *commands;
static size_t ncommands;

void cli_commands(const struct cli_cmd *cmds, size_t n)
{
	commands = cmds;
	ncommands = n;
}

int cli_usage(const char *name)
{
	for (size_t i = 0; i < ncommands; i++)
		if (strcmp(commands[i].name, name) == 0)
			fprintf(stderr, "usage: bitarena %s %s\n", name, commands[i].usage);
	return 2;
}

int cli_parse_num(const char *s, long long min, long long max, long long *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0 || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}
