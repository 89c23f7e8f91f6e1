/*
 * fuzz_xmas.c - fuzz target for Xmas Rush actions: game_find("xmas")
 * ->parse_move for both seats on PUSH and MOVE turns (and after the end),
 * and the JSON action lines of `bitarena xmas-replay` (xmas_read_actions in
 * clients/cmd_xmas.c).
 *
 * Every input line is tried as an action in a few positions met in real
 * games (turns 1-4 of two seeds, and a finished game). Checked:
 *  - both seats parse a line alike (the game is simultaneous);
 *  - a finished game refuses every line with GAME_EOVER;
 *  - a parsed action fits the turn (PUSH on a PUSH turn, MOVE/PASS else),
 *    formats and parses back to the same action, and resolve() with it (for
 *    both seats, and against a timeout) moves the game on;
 *  - each line, and the whole input as it is, through xmas_read_actions():
 *    an accepted line gives actions whose turn the move-list replayer
 *    resolves (a refused move text as the referee's invalid action).
 */
#include <stdalign.h>
#include <string.h>

#include "cli.h"
#include "fuzz.h"
#include "games/game_replay.h"
#include "games/xmas/xmas.h"

const char fuzz_target_name[] = "xmas";

/* In clients/cmd_xmas.c, which declares them the same way. */
int xmas_read_actions(const char *line, size_t len, cJSON **doc, struct game_ply plies[2],
                      const char **why);
int xmas_play_turn(struct game_replay *rp, struct game_ply plies[2]);

/* cmd_xmas.c calls it for bad arguments; this program has no usage to print. */
int cli_usage(const char *name)
{
	return 2;
}

#define MAX_LINES 16
#define NPOS      9

static struct xmas_state pos[NPOS];
static int npos;

/* Plays seed/pool for turns turns with each seat's first candidate action; keeps each state. */
static void record_game(int64_t seed, int pool, int turns)
{
	struct xmas_state st;
	FUZZ_CHECK(xmas_start(&st, seed, pool) == GAME_OK);
	for (int t = 0; t < turns && !st.over; t++) {
		FUZZ_CHECK(npos < NPOS);
		pos[npos++] = st;
		game_move mv[2], list[49];
		enum game_act acts[2] = {GAME_ACT_MOVE, GAME_ACT_MOVE};
		for (int s = 0; s < 2; s++) {
			int n = xmas_moves_for(&st, s, list, 49);
			FUZZ_CHECK(n > 0);
			mv[s] = list[(t * 7 + s * 3) % n];
		}
		FUZZ_CHECK(game_xmas.resolve(&st, mv, acts) == GAME_OK);
	}
}

static void setup(void)
{
	record_game(1, 3, 4);
	record_game(-4321987654321LL, 2, 4);
	/* a game that ends at once: seat 1 times out on turn 1 */
	struct game_params p;
	game_params_default(&game_xmas, &p);
	struct xmas_state st;
	FUZZ_CHECK(game_xmas.init(&st, &p, 7) == GAME_OK);
	game_move mv[2] = {xmas_move_push(0, 0), 0};
	enum game_act acts[2] = {GAME_ACT_MOVE, GAME_ACT_NONE};
	FUZZ_CHECK(game_xmas.resolve(&st, mv, acts) == GAME_OK);
	FUZZ_CHECK(st.over);
	FUZZ_CHECK(npos < NPOS);
	pos[npos++] = st;
}

/* resolve() on a copy of st must move the game on: next turn, or over. */
static void check_resolve(const struct xmas_state *st, const game_move *mv,
                          const enum game_act *acts)
{
	struct xmas_state t = *st;
	FUZZ_CHECK(game_xmas.resolve(&t, mv, acts) == GAME_OK);
	FUZZ_CHECK(t.over || t.turn == st->turn + 1);
	char in[XMAS_INPUT_MAX];
	for (int s = 0; s < 2; s++)
		FUZZ_CHECK(xmas_input(&t, s, in, sizeof in) > 0);
}

static void check_json(const struct xmas_state *st, const char *line, size_t len)
{
	struct game_ply plies[2];
	cJSON *doc = NULL;
	const char *why = NULL;
	if (xmas_read_actions(line, len, &doc, plies, &why) != 0) {
		FUZZ_CHECK(why != NULL);
		cJSON_Delete(doc);
		return;
	}
	for (int s = 0; s < 2; s++) {
		FUZZ_CHECK(plies[s].seat == s && plies[s].text != NULL);
		FUZZ_CHECK(plies[s].act == GAME_ACT_NONE || plies[s].act == GAME_ACT_MOVE);
	}
	/* the turn through the replayer, from a copy of st: it resolves, or the game is over */
	struct xmas_state t = *st;
	struct game_replay rp;
	game_replay_attach(&rp, &game_xmas, &t);
	int r = xmas_play_turn(&rp, plies);
	if (st->over) {
		FUZZ_CHECK(r == GAME_EOVER && memcmp(&t, st, sizeof t) == 0);
	} else {
		FUZZ_CHECK(r == GAME_REPLAY_MADE && rp.ply == 1 && rp.whole == 2);
		FUZZ_CHECK(t.over || t.turn == st->turn + 1);
	}
	cJSON_Delete(doc);
}

/*
 * Whether check_resolve() already ran for action m in pos[j] (and notes that it has now).
 * It is a function of the two, and the same few hundred actions parse in every input:
 * resolving each again (two resolves and four xmas_input texts an action) was half the
 * target's time. A table slot holds one pair; another pair hashed there replaces it.
 */
#define RESOLVED 4096
static bool resolved_before(int j, game_move m)
{
	static struct {
		game_move m;
		int pos; /* j + 1; 0: a free slot */
	} done[RESOLVED];
	uint64_t h = ((uint64_t)m * 0x9e3779b97f4a7c15ull + (uint64_t)j) * 0xbf58476d1ce4e5b9ull;
	size_t k = (size_t)(h >> 52) % RESOLVED;
	if (done[k].pos == j + 1 && done[k].m == m)
		return true;
	done[k].pos = j + 1;
	done[k].m = m;
	return false;
}

static void check_action(const struct xmas_state *st, const char *line)
{
	game_move m[2] = {0, 0};
	int err[2];
	for (int s = 0; s < 2; s++)
		err[s] = game_xmas.parse_move(st, s, line, &m[s], NULL);
	FUZZ_CHECK(err[0] == err[1] && m[0] == m[1]);
	if (st->over) {
		FUZZ_CHECK(err[0] == GAME_EOVER);
		return;
	}
	if (err[0] != GAME_OK) {
		FUZZ_CHECK(err[0] == GAME_ESYNTAX || err[0] == GAME_EPHASE);
		return;
	}
	int k = xmas_move_kind(m[0]);
	if (st->turn_type == XMAS_TURN_PUSH)
		FUZZ_CHECK(k == XMAS_KIND_PUSH);
	else
		FUZZ_CHECK(k == XMAS_KIND_MOVE || k == XMAS_KIND_PASS);

	char text[GAME_MOVE_TEXT];
	game_move back = 0;
	int n = game_xmas.format_move(st, m[0], text, sizeof text);
	FUZZ_CHECK(n > 0 && strlen(text) == (size_t)n);
	FUZZ_CHECK(game_xmas.parse_move(st, 0, text, &back, NULL) == GAME_OK && back == m[0]);
	FUZZ_CHECK(strlen(line) == (size_t)n && strcmp(text, line) == 0); /* one spelling */

	if (resolved_before((int)(st - pos), m[0]))
		return;
	enum game_act both[2] = {GAME_ACT_MOVE, GAME_ACT_MOVE};
	check_resolve(st, m, both);
	enum game_act one[2] = {GAME_ACT_MOVE, GAME_ACT_NONE};
	check_resolve(st, m, one);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (npos == 0)
		setup();
	/* the whole input as one JSON line, not NUL-terminated */
	check_json(&pos[0], (const char *)data, size);

	char *text = fuzz_strndup(data, size); /* owned here */
	char *lines[MAX_LINES];
	size_t nlines = fuzz_lines(text, lines, MAX_LINES);
	for (size_t i = 0; i < nlines; i++) {
		for (int j = 0; j < npos; j++) {
			check_action(&pos[j], lines[i]);
			check_json(&pos[j], lines[i], strlen(lines[i]));
		}
	}
	free(text);
	return 0;
}
