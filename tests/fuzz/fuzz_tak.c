/*
 * fuzz_tak.c - fuzz target for Tak notation: TPS positions (ops->load/save)
 * and PTN moves (ops->parse_move/format_move), through game_find("tak").
 *
 * Input, as lines:
 *   [!word ...]   optional: option words (size=6 komi=4 pieces=12 caps=0 ...)
 *   TPS           a position, loaded with those options
 *   move...       each further line (and the TPS line too) is tried as a move
 *
 * Checked (seq.h): a loaded TPS saves, reloads and saves identically, and
 * every legal move of it formats and parses back to itself; a move text that
 * parses in the loaded position, the options' start position or one of a few
 * fixed positions is a legal move, formats and re-parses to the same move,
 * and the position after it survives save/load.
 */
#include <stdalign.h>
#include <string.h>

#include "fuzz.h"
#include "games/tak.h"
#include "seq.h"

const char fuzz_target_name[] = "tak";

#define MAX_LINES 24

/* Positions every move line is tried in (default options). */
static const char *const fixed_tps[] = {
        "x5/x5/x5/x5/x5 1 1",
        "x5/x5/x5/x5/x5 2 1",
        "2,x4/x5/x2,1,x2/x5/x4,1 1 2",
        "x,2,2,1S,x/x,12C,x,21,x/1,1,121S,2,x/x2,1,2S,x/2,x2,21C,1 1 9",
        "1,1,x/x3/2,2,x 1 3",
        "x6/x6/x2,1212121S,x3/x6/x6/x6 2 10",
        "x8/x8/x8/x3,2121212121C,x4/x8/x8/x8/x8 1 20",
};
#define NFIXED (sizeof fixed_tps / sizeof fixed_tps[0])

static alignas(max_align_t) unsigned char fixed[NFIXED][GAME_STATE_MAX];
static struct game_params defaults;
static bool fixed_ready;

static void setup(const struct game_ops *ops)
{
	game_params_default(ops, &defaults);
	for (size_t i = 0; i < NFIXED; i++) {
		int err = ops->load(fixed[i], &defaults, fixed_tps[i]);
		if (err != GAME_OK)
			fprintf(stderr, "fixed position %s does not load (%d)\n", fixed_tps[i],
			        err);
		FUZZ_CHECK(err == GAME_OK);
		seq_check_position(ops, &defaults, fixed[i], true);
	}
	fixed_ready = true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct game_ops *ops = game_find("tak");
	FUZZ_CHECK(ops != NULL && ops->state_size <= GAME_STATE_MAX);
	if (!fixed_ready)
		setup(ops);

	char *text = fuzz_strndup(data, size); /* owned here */
	char *lines[MAX_LINES];
	size_t nlines = fuzz_lines(text, lines, MAX_LINES), first = 0;

	struct game_params p;
	game_params_default(ops, &p);
	if (nlines > 0 && lines[0][0] == '!') {
		for (char *w = strtok(lines[0] + 1, " \t"); w != NULL; w = strtok(NULL, " \t"))
			(void)game_param_word(ops, &p, w, NULL); /* bad words are skipped */
		first = 1;
	}

	alignas(max_align_t) static unsigned char start[GAME_STATE_MAX], loaded[GAME_STATE_MAX];
	bool have_start = ops->init(start, &p, 0) == GAME_OK;
	bool have_loaded = false;
	if (have_start)
		seq_check_position(ops, &p, start, false);
	if (first < nlines) {
		int err = ops->load(loaded, &p, lines[first]);
		FUZZ_CHECK(err == GAME_OK || err == GAME_EPOSITION || err == GAME_EOPT);
		have_loaded = err == GAME_OK;
		if (have_loaded)
			seq_check_position(ops, &p, loaded, true);
	}

	for (size_t i = first; i < nlines; i++) {
		if (have_start)
			seq_try_move(ops, &p, start, lines[i]);
		if (have_loaded)
			seq_try_move(ops, &p, loaded, lines[i]);
		for (size_t f = 0; f < NFIXED; f++)
			seq_try_move(ops, &defaults, fixed[f], lines[i]);
	}
	free(text);
	return 0;
}
