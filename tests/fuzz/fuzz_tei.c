/*
 * fuzz_tei.c - fuzz target for the TEI lines an engine writes
 * (clients/tei.h): every input line goes through tei_parse_line() and into
 * one engine's declarations, as `bitarena tei-bridge` reads a handshake.
 *
 * Checked for every line and then for the engine it declared:
 *  - every text field is NUL-terminated and shorter than TEI_TEXT_MAX, and
 *    only the kind that owns a field fills it;
 *  - a bestmove's move either parses as PTN on a few positions or is refused
 *    with GAME_ESYNTAX / GAME_EILLEGAL (never anything else);
 *  - at most TEI_MAX_OPTS options are kept, each named, none twice;
 *  - for every size and komi, tei_cannot_play() gives NULL or a sentence, and
 *    never NULL for a komi its HalfKomi option does not take (or any komi
 *    but 0 without that option);
 *  - tei_komi_line() sends a value once: a second call for it sends nothing.
 */
#include <string.h>
#include <strings.h>

#include "fuzz.h"
#include "games/tak/tak.h"
#include "lib/tei.h"

const char fuzz_target_name[] = "tei";

#define MAX_LINES 64

static bool bounded(const char *s)
{
	return memchr(s, '\0', TEI_TEXT_MAX) != NULL;
}

static void check_line(const struct tei_line *l)
{
	FUZZ_CHECK(bounded(l->id_key) && bounded(l->id_value) && bounded(l->move));
	FUZZ_CHECK(bounded(l->opt.name) && bounded(l->opt.def));
	FUZZ_CHECK(l->opt.nvars >= 0 && l->opt.nvars <= TEI_MAX_VARS);
	for (int i = 0; i < l->opt.nvars; i++)
		FUZZ_CHECK(bounded(l->opt.vars[i]));
	if (l->kind != TEI_LINE_ID)
		FUZZ_CHECK(l->id_key[0] == '\0' && l->id_value[0] == '\0');
	if (l->kind != TEI_LINE_BESTMOVE)
		FUZZ_CHECK(l->move[0] == '\0');
	if (l->kind == TEI_LINE_OPTION)
		FUZZ_CHECK(l->opt.name[0] != '\0');
	if (l->kind == TEI_LINE_ID)
		FUZZ_CHECK(l->id_key[0] != '\0');
}

/*
 * A move text from an engine, on the start of each size and on a middle game (the positions
 * are loaded once, on the first call: tak_parse_ptn() does not change them).
 */
static void check_move(const char *text)
{
	static const struct {
		int size;
		const char *tps;
	} pos[] = {{5, "x5/x5/x5/x5/x5 1 1"},
	           {3, "x3/x3/x3 2 1"},
	           {3, "2,x,21S/x,12,x/1,x,1 1 5"},
	           {5, "x4,1/x2,2,x2/x,1,21C,x2/x2,12S,2,x/1,x3,2 1 7"}};
#define NPOS (sizeof pos / sizeof pos[0])
	static struct tak_state st[NPOS];
	static bool loaded;
	if (!loaded) {
		struct game_params p;
		game_params_default(&game_tak, &p);
		for (size_t i = 0; i < NPOS; i++) {
			p.v[TAK_OPT_SIZE] = pos[i].size;
			FUZZ_CHECK(tak_load_tps(&st[i], &p, pos[i].tps) == GAME_OK);
		}
		loaded = true;
	}
	for (size_t i = 0; i < NPOS; i++) {
		game_move m;
		const char *why = NULL;
		int r = tak_parse_ptn(&st[i], text, &m, &why);
		FUZZ_CHECK(r == GAME_OK || r == GAME_ESYNTAX || r == GAME_EILLEGAL);
		if (r != GAME_OK)
			FUZZ_CHECK(why != NULL);
	}
}

static void check_engine(struct tei_engine *e)
{
	FUZZ_CHECK(e->nopts >= 0 && e->nopts <= TEI_MAX_OPTS);
	FUZZ_CHECK(bounded(e->name) && bounded(e->author));
	for (int i = 0; i < e->nopts; i++) {
		FUZZ_CHECK(e->opts[i].name[0] != '\0');
		for (int j = 0; j < i; j++)
			FUZZ_CHECK(strcasecmp(e->opts[i].name, e->opts[j].name) != 0);
	}
	tei_engine_ready(e, 0);
	const struct tei_option *k = tei_engine_option(e, "HalfKomi");
	char why[256], line[256];
	for (int size = 2; size <= 9; size++) {
		for (long long komi = -2; komi <= 12; komi++) {
			const char *no = tei_cannot_play(e, size, komi, 0, -1, why, sizeof why);
			FUZZ_CHECK(no == NULL || (no == why && why[0] != '\0'));
			if ((k == NULL && komi != 0) || (k != NULL && !tei_option_takes(k, komi)) ||
			    size < 3 || size > 8)
				FUZZ_CHECK(no != NULL);
		}
	}
	for (long long komi = 0; komi <= 8; komi++) {
		if (tei_komi_line(e, komi, line, sizeof line)) {
			FUZZ_CHECK(k != NULL && strncmp(line, "setoption name ", 15) == 0);
			FUZZ_CHECK(!tei_komi_line(e, komi, line, sizeof line));
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup(data, size), *lines[MAX_LINES];
	size_t n = fuzz_lines(text, lines, MAX_LINES);
	static struct tei_engine e;
	static struct tei_line l;
	tei_engine_init(&e);
	for (size_t i = 0; i < n; i++) {
		enum tei_line_kind kind = tei_parse_line(lines[i], &l);
		FUZZ_CHECK(kind == l.kind);
		check_line(&l);
		if (kind == TEI_LINE_BESTMOVE)
			check_move(l.move);
		tei_engine_add(&e, &l);
	}
	check_engine(&e);
	free(text);
	return 0;
}
