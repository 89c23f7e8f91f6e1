/*
 * mnk_ops.c - the game_ops of m,n,k games: game_ttt (fixed 3,3,3) and
 * game_mnk, over the rules (mnk.c) and the notation (mnk_notation.c), with
 * what joins the two: loading a position onto a board of the options, and the
 * presentations (JSON and a board drawn in text), which show the position in
 * the notation's words.
 */
#include "games/mnk/mnk.h"

#include <ctype.h>
#include <string.h>

static const char mnk_mark[2] = {'X', 'O'};

static int mnk_init_ttt(void *st, const struct game_params *p, uint64_t seed)
{
	return mnk_setup(st, 3, 3, 3);
}

static int mnk_load(void *st, const struct game_params *p, const char *text)
{
	int r = mnk_init(st, p, 0);
	return r < 0 ? r : mnk_load_position(st, text);
}

static int mnk_load_ttt(void *st, const struct game_params *p, const char *text)
{
	int r = mnk_init_ttt(st, p, 0);
	return r < 0 ? r : mnk_load_position(st, text);
}

static cJSON *mnk_to_json(const void *st, int viewer)
{
	const struct mnk_state *s = st;
	char pos[80], cell[16];
	cJSON *o = cJSON_CreateObject(), *rows = NULL;
	if (o == NULL)
		return NULL;
	mnk_save(s, pos, sizeof pos);
	if (!cJSON_AddNumberToObject(o, "m", s->g.w) || !cJSON_AddNumberToObject(o, "n", s->g.h) ||
	    !cJSON_AddNumberToObject(o, "k", s->k) || !cJSON_AddStringToObject(o, "position", pos))
		goto fail;
	if ((rows = cJSON_AddArrayToObject(o, "board")) == NULL)
		goto fail;
	for (char *row = strtok(pos, "/"); row; row = strtok(NULL, "/"))
		cJSON_AddItemToArray(rows, cJSON_CreateString(row));
	if (s->last >= 0) {
		mnk_format_move(s, (game_move)s->last, cell, sizeof cell);
		cJSON_AddStringToObject(o, "last", cell);
	}
	if (!mnk_over(s))
		cJSON_AddStringToObject(o, "to_move", (char[]){mnk_mark[s->ply & 1], '\0'});
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

/*
 *     a   b   c
 *   +---+---+---+
 * 3 | X |   |   |
 *   ...
 */
static int mnk_render_text(const void *st, int viewer, char *buf, size_t len)
{
	const struct mnk_state *s = st;
	struct game_text t;
	game_text_init(&t, buf, len);
	game_text_put(&t, "   ");
	for (int x = 0; x < s->g.w; x++)
		game_text_put(&t, "%s%c", x ? "   " : "  ", 'a' + x);
	game_text_put(&t, "\n");
	for (int y = s->g.h - 1; y >= 0; y--) {
		game_text_put(&t, "   +");
		for (int x = 0; x < s->g.w; x++)
			game_text_put(&t, "---+");
		game_text_put(&t, "\n%2d |", y + 1);
		for (int x = 0; x < s->g.w; x++) {
			char c = mnk_cell_char(s, bb_index(&s->g, x, y));
			game_text_put(&t, " %c |", c == '.' ? ' ' : toupper((unsigned char)c));
		}
		game_text_put(&t, "\n");
	}
	game_text_put(&t, "   +");
	for (int x = 0; x < s->g.w; x++)
		game_text_put(&t, "---+");
	game_text_put(&t, "\n");
	return game_text_end(&t);
}

/* What tic-tac-toe and m,n,k share: every entry but the name, the options and set-up. */
#define MNK_SHARED_OPS                                                                             \
	.nplayers = 2, .seat_names = {"X", "O"}, .state_size = sizeof(struct mnk_state),           \
	.max_moves = 64, .to_move = mnk_to_move, .legal_moves = mnk_legal_moves,                   \
	.apply = mnk_apply, .result = mnk_result, .parse_move = mnk_parse_move,                    \
	.format_move = mnk_format_move, .save = mnk_save, .to_json = mnk_to_json,                  \
	.render_text = mnk_render_text, .evaluate = mnk_evaluate

const struct game_ops game_ttt = {
        .name = "ttt",
        .title = "Tic-tac-toe (3,3,3)",
        .nopts = 0,
        .opts = NULL,
        .init = mnk_init_ttt,
        .load = mnk_load_ttt,
        MNK_SHARED_OPS,
};

const struct game_ops game_mnk = {
        .name = "mnk",
        .title = "m,n,k game",
        .nopts = MNK_NOPTS,
        .opts = mnk_opts,
        .init = mnk_init,
        .load = mnk_load,
        MNK_SHARED_OPS,
};
