/*
 * fuzz_cgio.c - fuzz target for a CodinGame bot's output as `bitarena
 * cg-bridge` reads it (clients/cgio.h): the input is what a bot printed.
 *
 * It is cut into lines as the bridge's reader does (LF ends a line, a CR
 * before it is dropped, lines over 4096 bytes are cut), every line goes
 * through cg_action_text() into the FIFO of unread lines, and one line is
 * taken out after every third one pushed (turns read while the bot writes).
 * Checked:
 *  - lines come out in the order they went in, none lost while there is room;
 *  - a text other than INVALID is the line itself, and the server's framing
 *    passes `move 1 <text>` on unchanged as one valid line (so the engine
 *    judges exactly what the bot printed);
 *  - INVALID is never an action: Xmas Rush refuses it on PUSH and MOVE turns.
 */
#include <string.h>

#include "lib/cgio.h"
#include "fuzz.h"
#include "games/xmas/xmas.h"
#include "server/net/framing.h"

const char fuzz_target_name[] = "cgio";

#define LINE_MAX 4096

static struct cg_lines q;
static char pushed[256][CG_ACTION_MAX + 1]; /* what went in, in order (the first 256) */
static size_t npushed, npopped;

static void check_text(const char *line, bool cut, const char *text)
{
	if (strcmp(text, CG_INVALID) == 0 && (cut || strcmp(line, CG_INVALID) != 0))
		return;
	FUZZ_CHECK(!cut && text == line);
	/* the server's framer gives back the same line, valid */
	static struct framer f;
	static char wire[CG_ACTION_MAX + 16], fline[FRAME_MAX + 1];
	framer_init(&f, fline);
	int n = snprintf(wire, sizeof wire, "move 1 %s\n", text);
	size_t used = 0;
	FUZZ_CHECK(framer_feed(&f, (const unsigned char *)wire, (size_t)n, &used) == FRAME_LINE);
	FUZZ_CHECK(used == (size_t)n);
	FUZZ_CHECK(f.linelen == (size_t)n - 1 && memcmp(f.line, wire, f.linelen) == 0);
	FUZZ_CHECK(frame_line_valid(f.line, f.linelen));
}

static void pop_one(void)
{
	static char out[CG_ACTION_MAX + 1];
	bool got = cg_lines_pop(&q, out, sizeof out);
	FUZZ_CHECK(got == (npopped < npushed));
	if (!got)
		return;
	if (npopped < 256)
		FUZZ_CHECK(strcmp(out, pushed[npopped]) == 0);
	npopped++;
}

static void one_line(const char *line, bool cut)
{
	const char *text = cg_action_text(line, cut);
	check_text(line, cut, text);
	bool room = q.len + strlen(text) + 1 <= sizeof q.buf;
	FUZZ_CHECK(cg_lines_push(&q, text) == room);
	if (room) {
		if (npushed < 256)
			snprintf(pushed[npushed], sizeof pushed[npushed], "%s", text);
		npushed++;
	}
	if (npushed % 3 == 0)
		pop_one();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char line[LINE_MAX + 1];
	size_t n = 0;
	bool cut = false;
	cg_lines_init(&q);
	npushed = npopped = 0;
	for (size_t i = 0; i < size; i++) {
		if (data[i] != '\n') {
			if (n < LINE_MAX)
				line[n++] = (char)data[i];
			else
				cut = true;
			continue;
		}
		if (n > 0 && line[n - 1] == '\r')
			n--;
		line[n] = '\0';
		/* a NUL inside a line ends it early, as it would in the bridge's C string */
		one_line(line, cut);
		n = 0;
		cut = false;
	}
	while (npopped < npushed)
		pop_one();
	pop_one(); /* and then there is none */
	FUZZ_CHECK(q.len == 0 && q.n == 0);

	/* INVALID is no action (the position is made once: shuffling its league cost more than
	 * the rest of an input) */
	static struct xmas_state st;
	static bool started;
	if (!started) {
		FUZZ_CHECK(xmas_start(&st, 1, 3) == GAME_OK);
		started = true;
	}
	game_move m;
	FUZZ_CHECK(game_xmas.parse_move(&st, 0, CG_INVALID, &m, NULL) < 0);
	return 0;
}
