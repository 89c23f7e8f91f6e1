/*
 * fuzz_mnk.c - fuzz target for m,n,k notation: positions (ops->load/save) and
 * moves (ops->parse_move/format_move) of game_find("mnk") and game_find("ttt").
 *
 * Input, as lines:
 *   [!word ...]   optional: mnk option words (m=5 n=4 k=4)
 *   position      rows from the top, '/'-separated, cells x, o, '.' or '-'
 *   move...       each further line (and the position line too) is tried as a move
 *
 * Checked (seq.h), for mnk with those options and for ttt: a loaded position
 * saves, reloads and saves identically and all its legal moves round-trip
 * through their text; a move text that parses (in the loaded position, the
 * start position or a few fixed ones) is a legal move, formats and re-parses
 * to the same move, and the position after it survives save/load.
 */
#include <stdalign.h>
#include <string.h>

#include "fuzz.h"
#include "seq.h"

const char fuzz_target_name[] = "mnk";

#define MAX_LINES 24

struct fixed_pos {
	const char *game;
	int m, n, k;
	const char *text;
};

static const struct fixed_pos fixed_pos[] = {
        {"ttt", 3, 3, 3, ".../.../..."},
        {"ttt", 3, 3, 3, "x../.o./..x"},
        {"ttt", 3, 3, 3, "xo./xo./..."},
        {"mnk", 8, 8, 5, "......../......../...x..../...o..../......../......../......../x......o"},
        {"mnk", 7, 3, 3, ".x...../..o..../......."},
        {"mnk", 3, 8, 8, ".../.../.../.../.../.../.../..."},
};
#define NFIXED (sizeof fixed_pos / sizeof fixed_pos[0])

static alignas(max_align_t) unsigned char fixed[NFIXED][GAME_STATE_MAX];
static struct game_params fixed_params[NFIXED];
static bool fixed_ready;

static void setup(void)
{
	for (size_t i = 0; i < NFIXED; i++) {
		const struct game_ops *ops = game_find(fixed_pos[i].game);
		FUZZ_CHECK(ops != NULL);
		struct game_params *p = &fixed_params[i];
		game_params_default(ops, p);
		if (ops->nopts == 3) {
			p->v[0] = fixed_pos[i].m;
			p->v[1] = fixed_pos[i].n;
			p->v[2] = fixed_pos[i].k;
			p->set[0] = p->set[1] = p->set[2] = true;
		}
		int err = ops->load(fixed[i], p, fixed_pos[i].text);
		if (err != GAME_OK)
			fprintf(stderr, "fixed position %s does not load (%d)\n", fixed_pos[i].text,
			        err);
		FUZZ_CHECK(err == GAME_OK);
		seq_check_position(ops, p, fixed[i], SEQ_MOVES | SEQ_PERFT2);
	}
	fixed_ready = true;
}

/* Loads and checks text in ops with p, then tries every move line in it and at the start. */
static void run_game(const struct game_ops *ops, const struct game_params *p, char **lines,
                     size_t first, size_t nlines)
{
	alignas(max_align_t) static unsigned char start[GAME_STATE_MAX], loaded[GAME_STATE_MAX];
	bool have_start = ops->init(start, p, 0) == GAME_OK, have_loaded = false;
	if (have_start)
		seq_check_position(ops, p, start, SEQ_MOVES | SEQ_PERFT2);
	if (first < nlines) {
		int err = ops->load(loaded, p, lines[first]);
		FUZZ_CHECK(err == GAME_OK || err == GAME_EPOSITION || err == GAME_EOPT);
		have_loaded = err == GAME_OK;
		if (have_loaded)
			seq_check_position(ops, p, loaded, SEQ_MOVES | SEQ_PERFT2);
	}
	for (size_t i = first; i < nlines; i++) {
		if (have_start)
			seq_try_move(ops, p, start, lines[i], SEQ_PERFT2);
		if (have_loaded)
			seq_try_move(ops, p, loaded, lines[i], SEQ_PERFT2);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!fixed_ready)
		setup();
	const struct game_ops *mnk = game_find("mnk"), *ttt = game_find("ttt");
	FUZZ_CHECK(mnk != NULL && ttt != NULL);
	FUZZ_CHECK(mnk->state_size <= GAME_STATE_MAX && ttt->state_size <= GAME_STATE_MAX);

	char *text = fuzz_strndup(data, size); /* owned here */
	char *lines[MAX_LINES];
	size_t nlines = fuzz_lines(text, lines, MAX_LINES), first = 0;

	struct game_params p, pt;
	game_params_default(mnk, &p);
	game_params_default(ttt, &pt);
	if (nlines > 0 && lines[0][0] == '!') {
		for (char *w = strtok(lines[0] + 1, " \t"); w != NULL; w = strtok(NULL, " \t"))
			(void)game_param_word(mnk, &p, w, NULL); /* bad words are skipped */
		first = 1;
	}
	run_game(mnk, &p, lines, first, nlines);
	run_game(ttt, &pt, lines, first, nlines);
	for (size_t i = first; i < nlines; i++)
		for (size_t f = 0; f < NFIXED; f++)
			seq_try_move(game_find(fixed_pos[f].game), &fixed_params[f], fixed[f],
			             lines[i], SEQ_PERFT2);
	free(text);
	return 0;
}
