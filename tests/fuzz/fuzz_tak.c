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
 * and the position after it survives save/load; positions made from the
 * input (loaded, start, after its moves) also have their perft 2 checked
 * against copy-make, the fixed positions' successors (the same few hundred for
 * every input) only perft 1.
 *
 * Speed, or why it ran 206 inputs a second and then 1,170: the work per input
 * is mostly the same for every input. At 206/s each perft 2 check allocated
 * half a megabyte of move lists (game_perft_generic), which under ASan meant
 * fresh pages each time; seq.c's static buffers took that to 1,170/s. The
 * rest: every move line was tried in the seven fixed positions, and each one
 * that parsed had its successor checked (save, load, two move generations,
 * perft 1) and the fixed position's whole move list generated again for the
 * membership test; the fixed positions with tall stacks have hundreds to
 * thousands of slides, and under libFuzzer every comparison in the generator
 * calls into the coverage tracer. So seq_try_move took 73% of the samples
 * of perf record, mostly checking the same few hundred successors again. seq.c now checks a position once (a
 * memo keyed on all of its bytes) and keeps the move lists of the positions
 * it tests moves in: perf record then shows the parsers, the PTN game and
 * libFuzzer itself, about 14,000 inputs a second at the start of a run.
 *
 * The lines that parse, in turn, from the start position also make a game:
 * tak_write_ptn_game() writes it, record_parse() reads it back with the same
 * move texts, and (with standard pieces, komi 0) record_replay() reaches the
 * same final position.
 */
#include <stdalign.h>
#include <string.h>

#include "fuzz.h"
#include "games/tak/tak.h"
#include "seq.h"
#include "games/record.h"

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
		seq_check_position(ops, &defaults, fixed[i], SEQ_MOVES | SEQ_PERFT2);
	}
	fixed_ready = true;
}

/* Plays the lines that parse from start, writes the PTN game, reads and replays it. */
static void check_game(const struct game_ops *ops, const struct game_params *p, const void *start,
                       char **lines, size_t first, size_t nlines)
{
	static struct tak_state st, fin;
	static char ptn[1 << 16], pos[4096], pos2[4096];
	game_move moves[MAX_LINES];
	char texts[MAX_LINES][GAME_MOVE_TEXT];
	size_t n = 0;
	memcpy(&st, start, sizeof st);
	for (size_t i = first; i < nlines; i++) {
		int seat = game_seat_to_move(ops, &st);
		if (seat < 0 || ops->parse_move(&st, seat, lines[i], &moves[n], NULL) != GAME_OK)
			continue;
		FUZZ_CHECK(ops->format_move(&st, moves[n], texts[n], GAME_MOVE_TEXT) > 0);
		FUZZ_CHECK(ops->apply(&st, moves[n]) == GAME_OK);
		n++;
	}
	int len = tak_write_ptn_game(start, moves, n, NULL, ptn, sizeof ptn);
	FUZZ_CHECK(len > 0 && (size_t)len < sizeof ptn);
	struct record r;
	int line = 0, err = record_parse(ptn, (size_t)len, &r, &line);
	if (err != RECORD_OK)
		fprintf(stderr, "PTN game does not parse as a record (line %d):\n%s", line, ptn);
	FUZZ_CHECK(err == RECORD_OK);
	FUZZ_CHECK(r.nmoves == n);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(strcmp(r.moves[i], texts[i]) == 0);
	const struct tak_state *s0 = start;
	bool plain = p->v[TAK_OPT_KOMI] == 0 && p->v[TAK_OPT_PIECES] == 0 &&
	             p->v[TAK_OPT_CAPS] == -1 && p->v[TAK_OPT_STALE] == 0 && s0->ply == 0;
	if (plain) {
		const struct game_ops *used = NULL;
		int bad = 0;
		err = record_replay(&r, NULL, &fin, &used, &bad);
		if (err != RECORD_OK)
			fprintf(stderr, "PTN game does not replay (%d, ply %d):\n%s", err, bad,
			        ptn);
		FUZZ_CHECK(err == RECORD_OK && used == ops);
		FUZZ_CHECK(ops->save(&st, pos, sizeof pos) > 0 &&
		           ops->save(&fin, pos2, sizeof pos2) > 0);
		FUZZ_CHECK(strcmp(pos, pos2) == 0);
	}
	record_clear(&r);
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
		seq_check_position(ops, &p, start, SEQ_PERFT2);
	if (first < nlines) {
		int err = ops->load(loaded, &p, lines[first]);
		FUZZ_CHECK(err == GAME_OK || err == GAME_EPOSITION || err == GAME_EOPT);
		have_loaded = err == GAME_OK;
		if (have_loaded)
			seq_check_position(ops, &p, loaded, SEQ_MOVES | SEQ_PERFT2);
	}

	if (have_start)
		check_game(ops, &p, start, lines, first, nlines);
	for (size_t i = first; i < nlines; i++) {
		if (have_start)
			seq_try_move(ops, &p, start, lines[i], SEQ_PERFT2);
		if (have_loaded)
			seq_try_move(ops, &p, loaded, lines[i], SEQ_PERFT2);
		for (size_t f = 0; f < NFIXED; f++)
			seq_try_move(ops, &defaults, fixed[f], lines[i], 0);
	}
	free(text);
	return 0;
}
