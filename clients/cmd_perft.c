/*
 * cmd_perft.c - `bitarena perft <game> [opt=value ...] [--tps TEXT]
 * [--moves "M ..."] --depth N [--divide]`: counts the move sequences of
 * 1..N plies from the start (or a loaded position, after the given moves)
 * and prints one line per depth with the count, the time and nodes/s.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "games/game.h"

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Plays the space-separated moves of text on st; reports the first bad one. */
static int play_moves(const struct game_ops *ops, void *st, const char *text)
{
	char *copy = strdup(text), *save = NULL;
	int rc = 0;
	if (copy == NULL)
		return 1;
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		game_move m;
		const char *why = NULL;
		int seat = game_seat_to_move(ops, st);
		int r = ops->parse_move(st, seat < 0 ? 0 : seat, w, &m, &why);
		if (r < 0) {
			fprintf(stderr, "bitarena perft: move '%s': %s\n", w,
			        why ? why : game_strerror(r));
			rc = 1;
			break;
		}
		ops->apply(st, m);
	}
	free(copy);
	return rc;
}

static void divide(const struct game_ops *ops, const void *st, int depth)
{
	game_move *moves = malloc(ops->max_moves * sizeof *moves);
	unsigned char *child = malloc(ops->state_size);
	if (moves == NULL || child == NULL)
		goto out;
	int n = ops->legal_moves(st, moves, ops->max_moves);
	for (int i = 0; i < n; i++) {
		char text[GAME_MOVE_TEXT];
		ops->format_move(st, moves[i], text, sizeof text);
		memcpy(child, st, ops->state_size);
		ops->apply(child, moves[i]);
		printf("%s %llu\n", text, (unsigned long long)game_perft(ops, child, depth - 1));
	}
out:
	free(moves);
	free(child);
}

int cmd_perft(int argc, char **argv)
{
	const char *tps = NULL, *moves = NULL;
	int depth = -1, do_divide = 0;
	if (argc < 2)
		return cli_usage("perft");
	const struct game_ops *ops = game_find(argv[1]);
	if (ops == NULL) {
		fprintf(stderr, "bitarena perft: unknown game '%s'\n", argv[1]);
		return 2;
	}
	if (ops->apply == NULL) {
		fprintf(stderr,
		        "bitarena perft: %s has simultaneous turns; perft needs a sequential "
		        "game\n",
		        ops->name);
		return 2;
	}
	struct game_params p;
	game_params_default(ops, &p);
	for (int i = 2; i < argc; i++) {
		const char *why = NULL;
		if (strcmp(argv[i], "--depth") == 0 && i + 1 < argc) {
			depth = atoi(argv[++i]);
		} else if ((strcmp(argv[i], "--tps") == 0 || strcmp(argv[i], "--position") == 0) &&
		           i + 1 < argc) {
			tps = argv[++i];
		} else if (strcmp(argv[i], "--moves") == 0 && i + 1 < argc) {
			moves = argv[++i];
		} else if (strcmp(argv[i], "--divide") == 0) {
			do_divide = 1;
		} else if (game_param_word(ops, &p, argv[i], &why) != 1) {
			fprintf(stderr, "bitarena perft: %s: %s\n", argv[i],
			        why ? why : "not an option of this game");
			return 2;
		}
	}
	if (depth < 0 || depth > 64)
		return cli_usage("perft");
	void *st = calloc(1, ops->state_size);
	int rc = 1;
	if (st == NULL)
		return 1;
	int r = tps ? (ops->load ? ops->load(st, &p, tps) : GAME_EPOSITION) : ops->init(st, &p, 0);
	if (r < 0) {
		fprintf(stderr, "bitarena perft: %s\n",
		        tps ? "cannot load that position" : game_strerror(r));
		goto out;
	}
	if (moves && play_moves(ops, st, moves) != 0)
		goto out;
	if (do_divide) {
		divide(ops, st, depth);
		rc = 0;
		goto out;
	}
	for (int d = 1; d <= depth; d++) {
		double t0 = now_seconds();
		uint64_t n = game_perft(ops, st, d);
		double dt = now_seconds() - t0;
		printf("depth %2d  nodes %15llu  time %9.3f s  %14.0f nodes/s\n", d,
		       (unsigned long long)n, dt, dt > 0 ? (double)n / dt : 0.0);
		fflush(stdout);
	}
	rc = 0;
out:
	free(st);
	return rc;
}
