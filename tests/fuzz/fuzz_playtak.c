/*
 * fuzz_playtak.c - fuzz target for playtak.com client lines
 * (src/server/playtak.h): every input line goes through pt_parse() as a
 * client line and through pt_from_ptn() as a PTN move.
 *
 * Checked:
 *  - text fields are NUL-terminated within their buffers, a Move has 1..8
 *    drops of 0..9, a Place a piece of none, C or W;
 *  - the port's reader: a line the port takes (frame_line_valid: UTF-8
 *    without control bytes) leaves every field it fills valid text too, cut
 *    or not (what other users are sent of it: a Shout, a room, a Tell);
 *  - a Place or Move that converts to PTN converts back to the same playtak
 *    move (squares, piece, drops), which pt_parse() reads again alike;
 *  - a PTN move pt_from_ptn() accepts becomes a playtak move that pt_parse()
 *    reads and that converts to PTN and back to the same playtak text.
 */
#include <string.h>

#include "fuzz.h"
#include "server/net/framing.h"
#include "server/ports/playtak.h"
#include "server/util/text.h"

const char fuzz_target_name[] = "playtak";

#define MAX_LINES 64

static bool bounded(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

static void same_move(const struct pt_line *a, const struct pt_line *b)
{
	FUZZ_CHECK(a->cmd == b->cmd);
	FUZZ_CHECK(strcmp(a->from, b->from) == 0);
	if (a->cmd == PT_PLACE) {
		FUZZ_CHECK(a->piece == b->piece);
		return;
	}
	FUZZ_CHECK(strcmp(a->to, b->to) == 0 && a->ndrops == b->ndrops);
	for (int i = 0; i < a->ndrops; i++)
		FUZZ_CHECK(a->drops[i] == b->drops[i]);
}

static void check_line(const char *line)
{
	struct pt_line l, again;
	char ptn[64], move[64], wire[96];
	enum pt_cmd cmd = pt_parse(line, &l);
	FUZZ_CHECK(cmd == l.cmd);
	FUZZ_CHECK(bounded(l.name, sizeof l.name) && bounded(l.pass, sizeof l.pass));
	FUZZ_CHECK(bounded(l.text, sizeof l.text) && bounded(l.seek.opponent, PT_NAME_MAX + 1));
	if (frame_line_valid(line, strlen(line))) {
		const char *fields[] = {l.name, l.pass, l.text, l.seek.opponent};
		for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
			FUZZ_CHECK(text_check(fields[i], strlen(fields[i]), NULL) == TEXT_OK);
	}
	if (cmd == PT_MOVE)
		FUZZ_CHECK(l.ndrops >= 1 && l.ndrops <= 8);
	for (int i = 0; i < l.ndrops; i++)
		FUZZ_CHECK(l.drops[i] >= 0 && l.drops[i] <= 9);
	if (cmd == PT_PLACE)
		FUZZ_CHECK(l.piece == 0 || l.piece == 'C' || l.piece == 'W');
	if (cmd == PT_PLACE || cmd == PT_MOVE) {
		if (pt_to_ptn(&l, ptn, sizeof ptn) >= 0) {
			FUZZ_CHECK(pt_from_ptn(ptn, move, sizeof move) > 0);
			snprintf(wire, sizeof wire, "Game#%lld %s", l.game, move);
			FUZZ_CHECK(pt_parse(wire, &again) == cmd && again.game == l.game);
			same_move(&l, &again);
		}
	}
	/* the line as PTN */
	if (pt_from_ptn(line, move, sizeof move) > 0) {
		snprintf(wire, sizeof wire, "Game#1 %s", move);
		FUZZ_CHECK(pt_parse(wire, &l) == PT_PLACE || l.cmd == PT_MOVE);
		FUZZ_CHECK(pt_to_ptn(&l, ptn, sizeof ptn) > 0);
		char move2[64];
		FUZZ_CHECK(pt_from_ptn(ptn, move2, sizeof move2) > 0 && strcmp(move, move2) == 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup(data, size), *lines[MAX_LINES];
	size_t n = fuzz_lines(text, lines, MAX_LINES);
	for (size_t i = 0; i < n; i++)
		check_line(lines[i]);
	free(text);
	return 0;
}
