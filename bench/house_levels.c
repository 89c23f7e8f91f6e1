/*
 * house_levels.c - measures the house bots' levels (src/server/house/house_level.h)
 * each against the next: for every kind asked, N games of level k against level k+1
 * (k = 1..7), seats alternating, each turn's move by house_think() exactly as the
 * server's bots play it (the position as the seat sees it, the game's memory, a seed
 * per turn), without a server. Prints one line per pair: the stronger level's wins,
 * draws and losses, its score and the Elo difference with its 95% interval
 * (src/arena/stats.h), and the mean milliseconds a move of each level took. README
 * has the table.
 *
 *   bench/house_levels [--games N] [--from K] [--to K] [KIND OPTIONS ...]
 *   (default kinds: "ttt" "mnk m=5 n=5 k=4" "tak size=5" "xmas"; each quoted as one)
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arena/stats.h"
#include "games/game.h"
#include "server/house/house_level.h"

#define MAX_PLIES 1000 /* a game still on after this is a draw */

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct side {
	int level;
	struct house_memory mem;
	long long ms, moves;
};

/* One turn of seat: its action into *m; false when the bot has none that parses. */
static bool turn(const struct game_ops *ops, const void *st, void *view, int seat, struct side *s,
                 uint64_t seed, game_move *m)
{
	static atomic_bool never;
	if (ops->view != NULL)
		ops->view(st, seat, view);
	else
		memcpy(view, st, ops->state_size);
	struct house_turn t = {.ops = ops,
	                       .level = s->level,
	                       .seat = seat,
	                       .seed = seed,
	                       .cancel = &never,
	                       .now_ms = now_ms};
	char text[GAME_MOVE_TEXT];
	long long t0 = now_ms();
	int n = house_think(&t, view, &s->mem, text, sizeof text);
	s->ms += now_ms() - t0;
	s->moves++;
	return n > 0 && ops->parse_move(st, seat, text, m, NULL) == GAME_OK;
}

/* One game; the winner's side index (0: a, 1: b) or -1 for a draw. a sits in seat a_seat. */
static int play(const struct game_ops *ops, const struct game_params *p, uint64_t seed,
                struct side *a, struct side *b, int a_seat)
{
	void *st = malloc(ops->state_size), *view = malloc(ops->state_size);
	struct side *by_seat[2] = {a_seat == 0 ? a : b, a_seat == 0 ? b : a};
	memset(&a->mem, 0, sizeof a->mem);
	memset(&b->mem, 0, sizeof b->mem);
	int winner = -1;
	if (st == NULL || view == NULL || ops->init(st, p, seed) != GAME_OK)
		goto out;
	for (int ply = 0; ply < MAX_PLIES; ply++) {
		unsigned mask = ops->to_move(st);
		if (mask == 0)
			break;
		uint64_t s = seed * 1000003u + (uint64_t)ply;
		if (ops->flags & GAME_SIMULTANEOUS) {
			game_move mv[GAME_MAX_PLAYERS] = {0};
			enum game_act acts[GAME_MAX_PLAYERS] = {GAME_ACT_NONE, GAME_ACT_NONE};
			for (int seat = 0; seat < 2; seat++)
				if (mask & (1u << seat))
					acts[seat] = turn(ops, st, view, seat, by_seat[seat],
					                  s + seat, &mv[seat])
					                     ? GAME_ACT_MOVE
					                     : GAME_ACT_INVALID;
			if (ops->resolve(st, mv, acts) != GAME_OK)
				break;
		} else {
			int seat = __builtin_ctz(mask);
			game_move m;
			if (!turn(ops, st, view, seat, by_seat[seat], s, &m) ||
			    ops->apply(st, m) != GAME_OK) {
				winner = by_seat[seat] == a ? 1 : 0; /* no move: a forfeit */
				goto out;
			}
		}
	}
	struct game_result r;
	ops->result(st, &r);
	if (r.over && r.winner >= 0)
		winner = by_seat[r.winner] == a ? 0 : 1;
out:
	free(st);
	free(view);
	return winner;
}

/* x, with what rounds to 0 printed as 0, not -0. */
static double unsigned0(double x)
{
	return x > -0.5 && x < 0.5 ? 0.0 : x;
}

static int bench_kind(const char *spec, int games, int from, int to)
{
	char buf[200];
	snprintf(buf, sizeof buf, "%s", spec);
	char *save = NULL, *w = strtok_r(buf, " ", &save);
	const struct game_ops *ops = w != NULL ? game_find(w) : NULL;
	struct game_params params;
	const char *why = "no such kind";
	if (ops != NULL)
		game_params_default(ops, &params);
	while (ops != NULL && (w = strtok_r(NULL, " ", &save)) != NULL)
		if (game_param_word(ops, &params, w, &why) != 1)
			ops = NULL;
	if (ops == NULL) {
		fprintf(stderr, "house_levels: %s: %s\n", spec, why ? why : "not an option");
		return -1;
	}
	for (int k = from; k < to; k++) {
		struct side lo = {.level = k}, hi = {.level = k + 1};
		struct stats_wdl r = {0};
		int won = 0, d = 0, l = 0;
		for (int i = 0; i < games; i++) {
			int win = play(ops, &params, 0x5eed0000u + (uint64_t)i, &hi, &lo, i % 2);
			won += win == 0;
			d += win < 0;
			l += win == 1;
			stats_wdl_add(&r, win == 0 ? 2 : win < 0 ? 1 : 0);
		}
		struct stats_elo e;
		stats_elo_wdl(&r, &e);
		char elo[64];
		if (won + d == 0 || l + d == 0)
			snprintf(elo, sizeof elo, "%s", won + d == 0 ? "-inf" : "+inf");
		else
			snprintf(elo, sizeof elo, "%+.0f [%+.0f, %+.0f]", unsigned0(e.elo),
			         unsigned0(e.elo_lo), unsigned0(e.elo_hi));
		printf("%-18s %d vs %d  %3d games  +%d =%d -%d  score %5.1f%%  Elo %s  ms/move "
		       "%.1f %.1f\n",
		       spec, k + 1, k, games, won, d, l, 100.0 * (won + 0.5 * d) / games, elo,
		       hi.moves ? (double)hi.ms / (double)hi.moves : 0.0,
		       lo.moves ? (double)lo.ms / (double)lo.moves : 0.0);
		fflush(stdout);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int games = 100, from = 1, to = HOUSE_LEVELS, nkinds = 0;
	const char *kinds[16];
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--games") == 0 && i + 1 < argc)
			games = atoi(argv[++i]);
		else if (strcmp(argv[i], "--from") == 0 && i + 1 < argc)
			from = atoi(argv[++i]);
		else if (strcmp(argv[i], "--to") == 0 && i + 1 < argc)
			to = atoi(argv[++i]);
		else if (argv[i][0] == '-') {
			fprintf(stderr,
			        "usage: %s [--games N] [--from K] [--to K] [\"KIND OPTIONS\" "
			        "...]\n",
			        argv[0]);
			return 2;
		} else if (nkinds < 16)
			kinds[nkinds++] = argv[i];
	}
	if (games < 1 || from < 1 || to > HOUSE_LEVELS || from >= to) {
		fprintf(stderr, "%s: --games >= 1, 1 <= --from < --to <= %d\n", argv[0],
		        HOUSE_LEVELS);
		return 2;
	}
	if (nkinds == 0) {
		kinds[nkinds++] = "ttt";
		kinds[nkinds++] = "mnk m=5 n=5 k=4";
		kinds[nkinds++] = "tak size=5";
		kinds[nkinds++] = "xmas";
	}
	printf("house levels, each against the next: the stronger's wins, draws, losses\n");
	for (int i = 0; i < nkinds; i++)
		if (bench_kind(kinds[i], games, from, to) < 0)
			return 1;
	return 0;
}
