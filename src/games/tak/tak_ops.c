/*
 * tak_ops.c - the game_ops of Tak (game_tak), over the rules (tak.c) and the
 * notation (tak_ptn.c): the table, the entries that join the two (a move is
 * checked for the turn, then read as PTN; positions are TPS), and the
 * presentations, JSON and a board drawn in text, which show stacks as TPS
 * writes them. Nothing here allocates except to_json (which returns a cJSON
 * the caller owns).
 */
#include "games/tak/tak.h"

#include <stdbool.h>
#include <stdio.h>

/* --- the entries that join rules and notation -------------------------------------------- */

static int tak_init(void *st, const struct game_params *p, uint64_t seed)
{
	(void)seed;
	return tak_setup(st, p, NULL);
}

/* tak_apply() for the vtable's untyped state. */
static int tak_apply_move(void *st, game_move m)
{
	return tak_apply(st, m);
}

static int tak_parse_move(const void *st, int seat, const char *text, game_move *m,
                          const char **why)
{
	const struct tak_state *s = st;
	if (s->result != TAK_ONGOING) {
		if (why)
			*why = "the game is over";
		return GAME_EOVER;
	}
	if (seat != (int)(s->ply & 1)) {
		if (why)
			*why = "it is not your turn";
		return GAME_ETURN;
	}
	return tak_parse_ptn(s, text, m, why);
}

static int tak_format_move(const void *st, game_move m, char *buf, size_t len)
{
	return tak_format_ptn(st, m, buf, len);
}

static int tak_load(void *st, const struct game_params *p, const char *text)
{
	return tak_load_tps(st, p, text);
}

static int tak_save(const void *st, char *buf, size_t len)
{
	return tak_save_tps(st, buf, len);
}

/* --- presentation ------------------------------------------------------------------------- */

static const char *const colour_name[2] = {"white", "black"};

static cJSON *tak_to_json(const void *st, int viewer)
{
	(void)viewer; /* Tak has no hidden information */
	const struct tak_state *s = st;
	char buf[1024], cell[200];
	cJSON *j = cJSON_CreateObject(), *board, *o, *o2;
	if (j == NULL)
		return NULL;
	if (tak_save_tps(s, buf, sizeof buf) < 0)
		buf[0] = '\0';
	cJSON_AddNumberToObject(j, "size", s->size);
	cJSON_AddStringToObject(j, "tps", buf);
	cJSON_AddStringToObject(j, "to_move", colour_name[s->ply & 1]);
	cJSON_AddNumberToObject(j, "ply", s->ply);
	cJSON_AddNumberToObject(j, "move", s->ply / 2 + 1);
	board = cJSON_AddArrayToObject(j, "board");
	for (int y = s->size - 1; board && y >= 0; y--) {
		cJSON *row = cJSON_CreateArray();
		if (row == NULL || !cJSON_AddItemToArray(board, row)) {
			cJSON_Delete(row);
			goto fail;
		}
		for (int x = 0; x < s->size; x++) {
			tak_stack_text(s, y * s->size + x, cell, sizeof cell);
			cJSON_AddItemToArray(row, cJSON_CreateString(cell));
		}
	}
	o = cJSON_AddObjectToObject(j, "reserves");
	for (int c = 0; o && c < 2; c++) {
		o2 = cJSON_AddObjectToObject(o, colour_name[c]);
		cJSON_AddNumberToObject(o2, "stones", s->reserve[c][TAK_STONES]);
		cJSON_AddNumberToObject(o2, "caps", s->reserve[c][TAK_CAPS]);
	}
	o = cJSON_AddObjectToObject(j, "flats");
	for (int c = 0; o && c < 2; c++)
		cJSON_AddNumberToObject(o, colour_name[c], tak_flat_count(s, c));
	cJSON_AddNumberToObject(j, "komi", s->komi);
	if (s->result == TAK_ONGOING) {
		cJSON_AddNullToObject(j, "result");
	} else {
		struct game_result r;
		tak_result(s, &r);
		o = cJSON_AddObjectToObject(j, "result");
		if (r.winner >= 0)
			cJSON_AddStringToObject(o, "winner", colour_name[r.winner]);
		else
			cJSON_AddNullToObject(o, "winner");
		cJSON_AddStringToObject(o, "reason", r.reason);
		cJSON_AddStringToObject(o, "score", r.score);
		int road[64], n = 0;
		if (s->result == TAK_ROAD_WHITE || s->result == TAK_ROAD_BLACK)
			n = tak_road_squares(s, r.winner, road);
		cJSON *a = n > 0 ? cJSON_AddArrayToObject(j, "road") : NULL;
		for (int i = 0; a && i < n; i++) {
			char name[3] = {(char)('a' + road[i] % s->size),
			                (char)('1' + road[i] / s->size), '\0'};
			cJSON_AddItemToArray(a, cJSON_CreateString(name));
		}
	}
	return j;
fail:
	cJSON_Delete(j);
	return NULL;
}

#define CELL_W 7 /* characters per square: up to 6 of stack text and a space */

/* The file letters under the squares' columns. */
static void files(struct game_text *t, int n)
{
	game_text_put(t, "    a");
	for (int x = 1; x < n; x++)
		game_text_put(t, "%*c", CELL_W, 'a' + x);
	game_text_put(t, "\n");
}

/*
 * The board drawn for a terminal (at most 3 + 8 * 7 + 3 = 62 columns): rank 8
 * at the top, each square its stack bottom to top as in TPS ("12S"); a stack
 * too long for 6 characters shows its height, '^' and its top pieces
 * ("11^21C"). Then reserves, flat counts with komi, and whose turn it is.
 */
static int tak_render_text(const void *st, int viewer, char *buf, size_t len)
{
	(void)viewer;
	const struct tak_state *s = st;
	const int n = s->size;
	struct game_text t;
	char cell[200];
	bool tall = false;
	game_text_init(&t, buf, len);
	files(&t, n);
	for (int y = n - 1; y >= 0; y--) {
		game_text_put(&t, "%2d ", y + 1);
		for (int x = 0; x < n; x++) {
			int sl = tak_stack_text(s, y * n + x, cell, sizeof cell);
			const char *show = cell;
			char tmp[16];
			if (sl == 0) {
				show = ".";
			} else if (sl > CELL_W - 1) {
				int h = snprintf(tmp, sizeof tmp, "%d^", s->height[y * n + x]);
				int room = CELL_W - 1 - h;
				snprintf(tmp + h, sizeof tmp - (size_t)h, "%s", cell + sl - room);
				show = tmp;
				tall = true;
			}
			game_text_put(&t, " %-*s", CELL_W - 1, show);
		}
		game_text_put(&t, " %d\n", y + 1);
	}
	files(&t, n);
	if (tall)
		game_text_put(&t, "(h^...: a stack h pieces tall, its top pieces shown)\n");
	for (int c = 0; c < 2; c++)
		game_text_put(&t, "%s (%d): %d stone%s, %d cap%s in reserve\n",
		              c ? "Black" : "White", c + 1, s->reserve[c][TAK_STONES],
		              s->reserve[c][TAK_STONES] == 1 ? "" : "s", s->reserve[c][TAK_CAPS],
		              s->reserve[c][TAK_CAPS] == 1 ? "" : "s");
	game_text_put(&t, "Flats: white %d, black %d", tak_flat_count(s, 0), tak_flat_count(s, 1));
	if (s->komi)
		game_text_put(&t, " + komi %d%s", s->komi / 2, s->komi & 1 ? ".5" : "");
	game_text_put(&t, "\n");
	if (s->result == TAK_ONGOING) /* once over, the server's one game_over line says how */
		game_text_put(&t, "Move %u, %s to play%s\n", (unsigned)(s->ply / 2 + 1),
		              colour_name[s->ply & 1],
		              s->ply < 2 ? " (opening: place one of the opponent's flats)" : "");
	return game_text_end(&t);
}

const struct game_ops game_tak = {
        .name = "tak",
        .title = "Tak",
        .flags = 0,
        .nplayers = 2,
        .seat_names = {"white", "black"},
        .state_size = sizeof(struct tak_state),
        .max_moves = TAK_MAX_MOVES,
        .nopts = TAK_NOPTS,
        .opts = tak_opts,
        .init = tak_init,
        .to_move = tak_to_move,
        .legal_moves = tak_legal_moves,
        .apply = tak_apply_move,
        .resolve = NULL,
        .result = tak_result,
        .parse_move = tak_parse_move,
        .format_move = tak_format_move,
        .load = tak_load,
        .save = tak_save,
        .to_json = tak_to_json,
        .render_text = tak_render_text,
        .perft = tak_perft,
        .evaluate = tak_evaluate,
        .record_tags = tak_record_tags,
};
