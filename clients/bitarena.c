/*
 * bitarena.c - the client tool's entry point: dispatches to a subcommand
 * through one table (name, function, usage, help), which it hands down to
 * lib/args.c for the subcommands' usage lines (they never call this file).
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "cli.h"

/* Xmas Rush tools (cmd_xmas.c) */
int cmd_xmas_replay(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_cg_bridge(int argc, char **argv);
/* Tak engines (cmd_tei_bridge.c) */
int cmd_tei_bridge(int argc, char **argv);
int cmd_tei(int argc, char **argv);
int cmd_match(int argc, char **argv);
/* opening books (cmd_book.c) */
int cmd_book(int argc, char **argv);

static const struct cli_cmd cli_cmds[] = {
        {"perft", cmd_perft,
         "<game> [opt=value ...] [--tps TEXT] [--moves \"M ...\"] --depth N [--divide]",
         "count move sequences to a depth, with nodes/s"},
        {"bot", cmd_bot,
         "[--server HOST:PORT] [--name NAME] [--games N] (--seek \"<kind> [opt=value ...]\" | "
         "--accept [--kind K] | --pool NAME | --ladder \"<kind> [opt=value ...]\" "
         "[--concurrency N] | --tourney ID) [--movetime MS] [--depth D] [--nodes N] [--hash MB] "
         "[--seed S] "
         "[--greedy | --random] [--timeout SEC] [--quiet]",
         "connect to bitarenad, seek or accept games of any kind, or join a pool, the ladder "
         "or a tournament (reconnecting by itself, several games at once on the ladder), and "
         "play them: Tak and Xmas Rush with their own players, m,n,k with the engine's "
         "search"},
        {"load", cmd_load,
         "[--server HOST:PORT] [--kind \"ttt|mnk|tak|xmas [opt=value ...]\"] [--games N] "
         "[--spectators M] [--idle K] [--pingers P [--ping-ms MS]] [--duration S | --rounds R] "
         "[--rate MOVES_PER_S] [--json] [--ack-log FILE] [--keep-going] [--server-pid PID] "
         "[--seed S] [--timeout SEC] [--ws players,spectators,idle,pingers|all "
         "(--http-port-file FILE | --http-port N)] [--seat2 HOST:PORT] [--watch-at HOST:PORT] "
         "| --pairs P [--games G] | --verify FILE",
         "benchmark and checker: N games of random moves with M spectators each, K idle "
         "connections; moves/s, latency and fan-out percentiles, server RSS and CPU; fails on "
         "any unacknowledged move or missed state; in a cluster, --seat2 and --watch-at put "
         "the accepting seats and the spectators on other nodes"},
        {"replay", cmd_replay, "FILE [--delay-ms N] [--quiet]",
         "replay a game record through its engine, drawing every position"},
        {"xmas-replay", cmd_xmas_replay, "[--seed S] [--pool 2|3]",
         "Xmas Rush turn by turn as JSON lines (contest inputs out, actions in), to check "
         "against the referee"},
        {"bench", cmd_bench, "xmas [--seconds N]",
         "Xmas Rush push-then-reachability evaluations per second, one thread"},
        {"cg-bridge", cmd_cg_bridge,
         "--game xmas [--server HOST:PORT] [--name NAME] [--league 1-6] [--seek \"opt=value ...\" "
         "| --accept | --pool NAME | --tourney ID] [--games N] [--turn-ms MS] [--first-turn-ms MS] "
         "[--timeout SEC] [--quiet] "
         "[--verbose] -- <bot command ...>",
         "play on bitarenad with a CodinGame Xmas Rush bot, under the referee's conditions "
         "(leagues, 1000/50 ms turns): one game, or an event's games with a fresh bot process "
         "each"},
        {"tei-bridge", cmd_tei_bridge,
         "[--server HOST:PORT] [--name NAME] (--seek \"tak [opt=value ...]\" | --accept | "
         "--pool NAME | --ladder \"tak [opt=value ...]\" [--concurrency N] | --tourney ID) "
         "[--games N] [--sizes 4-6] [--margin PCT] [--untimed-ms MS] [--timeout SEC] [--quiet] "
         "[--verbose] -- <engine command ...>",
         "play Tak on bitarenad with an engine that speaks TEI (Tiltak, Taktician, takbag, ...); "
         "in a pool, the ladder (one engine process per game at once) or a tournament"},
        {"tei", cmd_tei, "[--hash MB]",
         "play Tak as a TEI engine on stdin/stdout (the bot's search, for racetrack and other "
         "TEI tools)"},
        {"match", cmd_match,
         "--engine NAME=CMD --engine NAME=CMD --kind \"tak size=N [opt=value ...]\" "
         "[--tc BASE+INC] [--games N] [--openings NAME] [--sprt elo0,elo1,alpha,beta] "
         "[--ptnout FILE] [--server HOST:PORT] [--concurrency C] [--quiet]",
         "an engine match between two TEI engines (game pairs, an opening book, the SPRT) on a "
         "private bitarenad or --server; prints the standings, writes the PTN archive"},
        {"book", cmd_book,
         "tak [opt=value ...] [--plies P] [--depth D] [--keep K] [--sample S] "
         "[--trial-nodes T] [--nodes N] [--max-plies M] | ttt|mnk [opt=value ...] [--plies P] "
         "[--depth D] | "
         "xmas [opt=value ...] [--count N] [--seed S] | check FILE ... [--kind \"<game> "
         "[opt=value ...]\"]",
         "make an opening book for engine matches (printed), or check book files"},
};
#define NCMDS (sizeof cli_cmds / sizeof cli_cmds[0])

static void usage(FILE *f)
{
	fprintf(f, "usage: bitarena <command> [arguments]\n\ncommands:\n");
	for (size_t i = 0; i < NCMDS; i++)
		fprintf(f, "  %-12s %s\n", cli_cmds[i].name, cli_cmds[i].help);
	fprintf(f, "\n'bitarena <command> --help' shows a command's arguments.\n");
}

int main(int argc, char **argv)
{
	cli_commands(cli_cmds, NCMDS);
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("bitarena %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < NCMDS; i++) {
		if (strcmp(cli_cmds[i].name, argv[1]) != 0)
			continue;
		if (argc > 2 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
			printf("usage: bitarena %s %s\n%s\n", cli_cmds[i].name, cli_cmds[i].usage,
			       cli_cmds[i].help);
			return 0;
		}
		return cli_cmds[i].run(argc - 1, argv + 1);
	}
	fprintf(stderr, "bitarena: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
