/*
 * cmd_xmas.c - the Xmas Rush tools of the `bitarena` client:
 *
 *   bitarena xmas-replay [--seed S] [--pool 2|3]
 *       The reference check against the official referee. For every turn it
 *       prints one JSON line {"turn": N, "input_p0": "...", "input_p1": "..."}
 *       with the exact contest input of each player, then reads one JSON line
 *       {"p0": "<line>"|null, "p1": "<line>"|null} of actions from stdin (null:
 *       no answer in time, the referee's timeout; lines are used as given,
 *       untrimmed), and goes on; at the end it prints
 *       {"final": {"scores": [a, b], "outcome": "p0"|"p1"|"draw", "reason": "..."}}.
 *       Bad JSON on stdin: an error on stderr and exit status 2.
 *
 *   bitarena bench xmas [--seconds N]
 *       Push-then-reachability evaluations per second on one thread: a push
 *       applied to a copy of the board, then every cell the pushed player
 *       can reach (the inner loop of a bot's search).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "games/game_replay.h"
#include "games/xmas/xmas.h"

/* Listed in the subcommand table of bitarena.c. */
int cmd_xmas_replay(int argc, char **argv);
int cmd_bench(int argc, char **argv);
/* Not static only so that tests/fuzz/fuzz_xmas.c can fuzz them (declared there too). */
int xmas_read_actions(const char *line, size_t len, cJSON **doc, struct game_ply plies[2],
                      const char **why);
int xmas_play_turn(struct game_replay *rp, struct game_ply plies[2]);

static int parse_i64(const char *s, int64_t *v)
{
	char *end;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0)
		return -1;
	*v = x;
	return 0;
}

/* Prints one JSON object on its own line and flushes (the other side waits for it). */
static int emit(cJSON *o)
{
	char *text = o ? cJSON_PrintUnformatted(o) : NULL;
	int rc = -1;
	if (text != NULL && printf("%s\n", text) > 0 && fflush(stdout) == 0)
		rc = 0;
	free(text);
	cJSON_Delete(o);
	return rc;
}

static int emit_turn(const struct xmas_state *st)
{
	char in[2][XMAS_INPUT_MAX];
	for (int s = 0; s < 2; s++)
		if (xmas_input(st, s, in[s], sizeof in[s]) < 0)
			return -1;
	cJSON *o = cJSON_CreateObject();
	if (o == NULL || !cJSON_AddNumberToObject(o, "turn", st->turn) ||
	    !cJSON_AddStringToObject(o, "input_p0", in[0]) ||
	    !cJSON_AddStringToObject(o, "input_p1", in[1])) {
		cJSON_Delete(o);
		return -1;
	}
	return emit(o);
}

static int emit_final(const struct xmas_state *st)
{
	struct game_result r;
	game_xmas.result(st, &r);
	int sc[2] = {st->pl[0].score, st->pl[1].score};
	cJSON *o = cJSON_CreateObject(), *f = cJSON_AddObjectToObject(o, "final");
	if (f == NULL || !cJSON_AddItemToObject(f, "scores", cJSON_CreateIntArray(sc, 2)) ||
	    !cJSON_AddStringToObject(f, "outcome",
	                             r.winner < 0 ? "draw" : (r.winner == 0 ? "p0" : "p1")) ||
	    !cJSON_AddStringToObject(f, "reason", r.reason)) {
		cJSON_Delete(o);
		return -1;
	}
	return emit(o);
}

/*
 * Reads the actions of one turn from a JSON line into plies (seat 0, seat 1):
 * a string is a move whose text points into *doc (the caller's to
 * cJSON_Delete, also on failure), null is nothing in time. Returns 0, or -1
 * with *why set when the line is not the expected JSON object.
 */
int xmas_read_actions(const char *line, size_t len, cJSON **doc, struct game_ply plies[2],
                      const char **why)
{
	const char *end = NULL;
	cJSON *o = *doc = cJSON_ParseWithLengthOpts(line, len, &end, false);
	if (o == NULL || !cJSON_IsObject(o)) {
		*why = "not a JSON object";
		return -1;
	}
	for (; end != NULL && end < line + len; end++) {
		if (*end != ' ' && *end != '\t' && *end != '\r' && *end != '\n') {
			*why = "text after the JSON object";
			return -1;
		}
	}
	static const char *const keys[2] = {"p0", "p1"};
	for (int s = 0; s < 2; s++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, keys[s]);
		plies[s] = (struct game_ply){.seat = s, .act = GAME_ACT_NONE, .text = ""};
		if (v == NULL) {
			*why = s == 0 ? "no \"p0\" key" : "no \"p1\" key";
			return -1;
		}
		if (cJSON_IsString(v) && v->valuestring != NULL) {
			plies[s].act = GAME_ACT_MOVE;
			plies[s].text = v->valuestring;
		} else if (!cJSON_IsNull(v)) { /* null: no answer in time */
			*why = "\"p0\" and \"p1\" must be strings or null";
			return -1;
		}
	}
	return 0;
}

/*
 * Plays one turn through the replayer: each seat's move as given, or, when
 * the engine refuses its text, the referee's invalid action (a fatal line).
 * Returns the last step's result (GAME_REPLAY_MADE once the turn resolved).
 */
int xmas_play_turn(struct game_replay *rp, struct game_ply plies[2])
{
	int r = GAME_OK;
	for (int s = 0; s < 2 && r >= 0; s++) {
		r = game_replay_step(rp, &plies[s], NULL);
		if (r == GAME_ESYNTAX || r == GAME_EILLEGAL || r == GAME_ETURN ||
		    r == GAME_EPHASE) {
			plies[s].act = GAME_ACT_INVALID;
			r = game_replay_step(rp, &plies[s], NULL);
		}
	}
	return r;
}

int cmd_xmas_replay(int argc, char **argv)
{
	int64_t seed = 0, pool = 3;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
			if (parse_i64(argv[++i], &seed) < 0) {
				fprintf(stderr, "bitarena xmas-replay: --seed takes a Java long\n");
				return 2;
			}
		} else if (strcmp(argv[i], "--pool") == 0 && i + 1 < argc) {
			if (parse_i64(argv[++i], &pool) < 0 || (pool != 2 && pool != 3)) {
				fprintf(stderr, "bitarena xmas-replay: --pool is 2 or 3\n");
				return 2;
			}
		} else {
			return cli_usage(argv[0]);
		}
	}

	struct xmas_state st;
	struct game_params p;
	xmas_params(&p, seed, (int)pool);
	struct game_replay rp;
	if (game_replay_start(&rp, &game_xmas, &st, &p, 0) != GAME_OK) {
		fprintf(stderr, "bitarena xmas-replay: cannot set up the game\n");
		return 1;
	}

	char *line = NULL; /* owned here, grown by getline, freed at the end */
	size_t cap = 0;
	int rc = 0;
	while (!st.over) {
		if (emit_turn(&st) < 0) {
			fprintf(stderr, "bitarena xmas-replay: cannot write to stdout\n");
			rc = 1;
			break;
		}
		ssize_t n = getline(&line, &cap, stdin);
		if (n < 0) {
			fprintf(stderr,
			        "bitarena xmas-replay: stdin ended before the game did (turn %d)\n",
			        st.turn);
			rc = 2;
			break;
		}
		struct game_ply plies[2];
		cJSON *doc = NULL;
		const char *why = NULL;
		if (xmas_read_actions(line, (size_t)n, &doc, plies, &why) < 0) {
			fprintf(stderr,
			        "bitarena xmas-replay: turn %d: bad actions line (%s); expected "
			        "{\"p0\": \"<line>\"|null, \"p1\": \"<line>\"|null}\n",
			        st.turn, why);
			cJSON_Delete(doc);
			rc = 2;
			break;
		}
		int r = xmas_play_turn(&rp, plies);
		cJSON_Delete(doc);
		if (r != GAME_REPLAY_MADE) {
			fprintf(stderr, "bitarena xmas-replay: turn %d: %s\n", st.turn,
			        game_strerror(r));
			rc = 1;
			break;
		}
	}
	free(line);
	if (rc == 0 && emit_final(&st) < 0) {
		fprintf(stderr, "bitarena xmas-replay: cannot write to stdout\n");
		rc = 1;
	}
	return rc;
}

/* --- bench ------------------------------------------------------------------ */

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define BENCH_BOARDS 16

int cmd_bench(int argc, char **argv)
{
	double seconds = 3;
	if (argc < 2 || strcmp(argv[1], "xmas") != 0) {
		fprintf(stderr, "bitarena bench: the only benchmark is 'xmas'\n");
		return cli_usage(argv[0]);
	}
	for (int i = 2; i < argc; i++) {
		int64_t v;
		if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc &&
		    parse_i64(argv[++i], &v) == 0 && v > 0 && v <= 3600)
			seconds = (double)v;
		else
			return cli_usage(argv[0]);
	}

	/* boards and player cells from seeded games, so the work is not one fixed board */
	struct xmas_board boards[BENCH_BOARDS];
	int cells[BENCH_BOARDS][2];
	for (int i = 0; i < BENCH_BOARDS; i++) {
		struct xmas_state st;
		xmas_setup(&st, (int64_t)i * 1000003 + 7, 2 + (i & 1));
		boards[i] = st.b;
		cells[i][0] = xmas_cell(i % 7, (i * 3) % 7);
		cells[i][1] = xmas_cell((i * 5 + 2) % 7, (i + 4) % 7);
	}

	uint64_t evals = 0, checksum = 0;
	double t0 = now_seconds(), t = t0;
	while (t - t0 < seconds) {
		for (int rep = 0; rep < 1024; rep++) {
			for (int k = 0; k < 4 * 7 * 2; k++) {
				const int i = (rep + k) & (BENCH_BOARDS - 1), seat = k & 1;
				const int line = (k >> 1) % 7, d = (k >> 1) / 7;
				struct xmas_board b = boards[i];
				xmas_board_push(&b, seat, line, d);
				int c = xmas_push_cell(cells[i][seat], line, d);
				checksum += (uint64_t)bb_popcount(xmas_reach(&b, c));
			}
			evals += 4 * 7 * 2;
		}
		t = now_seconds();
	}
	double dt = t - t0;
	printf("xmas: %" PRIu64 " push+reachability evaluations in %.2f s: %.2f million/s "
	       "(one thread; checksum %" PRIu64 ")\n",
	       evals, dt, (double)evals / dt / 1e6, checksum);
	return 0;
}
