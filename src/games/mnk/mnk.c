/*
 * mnk.c - m,n,k games (tic-tac-toe is 3,3,3): two players alternately place a
 * stone on an empty cell of an m-column by n-row board; k in a row
 * (orthogonally or diagonally) wins; a full board without one is a draw.
 * The rules, the presentation and the two game_ops: game_ttt (fixed 3,3,3)
 * and game_mnk. The notation is mnk_notation.c; the state is mnk.h.
 *
 * A line is found by the core's k-1 shift-ands per direction, tested only
 * for the side that just moved.
 */
#include "games/mnk/mnk.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static const char mnk_mark[2] = {'X', 'O'};

static const struct game_optdef mnk_opts[] = {
        {"m", 3, 3, 8, "columns"},
        {"n", 3, 3, 8, "rows"},
        {"k", 3, 3, 8, "stones in a row to win (at most max(m, n))"},
};

int mnk_setup(struct mnk_state *s, int m, int n, int k)
{
	if (m < 3 || m > 8 || n < 3 || n > 8 || k < 3 || k > (m > n ? m : n))
		return GAME_EOPT;
	memset(s, 0, sizeof *s);
	bb_geom_init(&s->g, m, n);
	s->k = k;
	s->last = -1;
	s->winner = -1;
	return GAME_OK;
}

static int mnk_init(void *st, const struct game_params *p, uint64_t seed)
{
	return mnk_setup(st, (int)p->v[0], (int)p->v[1], (int)p->v[2]);
}

static int mnk_init_ttt(void *st, const struct game_params *p, uint64_t seed)
{
	return mnk_setup(st, 3, 3, 3);
}

static unsigned mnk_to_move(const void *st)
{
	const struct mnk_state *s = st;
	return mnk_over(s) ? 0 : 1u << (s->ply & 1);
}

static int mnk_legal_moves(const void *st, game_move *out, size_t cap)
{
	const struct mnk_state *s = st;
	if (mnk_over(s))
		return 0;
	bb_t e = mnk_empty(s);
	if ((size_t)bb_popcount(e) > cap)
		return GAME_ENOSPACE;
	int n = 0, i;
	for (BB_EACH(i, t, e))
		out[n++] = (game_move)i;
	return n;
}

static int mnk_apply(void *st, game_move m)
{
	struct mnk_state *s = st;
	int me = s->ply & 1;
	s->side[me] |= bb_bit((int)m);
	s->last = (int)m;
	s->ply++;
	if (bb_has_line(&s->g, s->side[me], s->k))
		s->winner = me;
	return GAME_OK;
}

static void mnk_result(const void *st, struct game_result *r)
{
	const struct mnk_state *s = st;
	memset(r, 0, sizeof *r);
	r->winner = -1;
	r->over = mnk_over(s);
	if (!r->over)
		return;
	r->winner = s->winner;
	r->reason = s->winner >= 0 ? "line" : "board_full";
	snprintf(r->score, sizeof r->score, "%s", game_score_text(s->winner));
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

/*
 * Heuristic for depth-limited search: every window of k cells along a line
 * that holds stones of one side only is worth 4^stones to that side.
 */
static int mnk_evaluate(const void *st)
{
	const struct mnk_state *s = st;
	static const enum bb_dir dirs[4] = {BB_E, BB_N, BB_NE, BB_NW};
	int me = s->ply & 1, score = 0;
	for (int d = 0; d < 4; d++) {
		/* starts of windows lying fully on the board */
		bb_t starts = bb_run_starts(&s->g, s->g.full, dirs[d], s->k);
		int i;
		for (BB_EACH(i, t, starts)) {
			bb_t win = 0, c = bb_bit(i);
			for (int j = 0; j < s->k; j++, c = bb_shift(&s->g, c, dirs[d]))
				win |= c;
			int a = bb_popcount(win & s->side[me]), b = bb_popcount(win & s->side[!me]);
			if (a && !b)
				score += 1 << (2 * a);
			else if (b && !a)
				score -= 1 << (2 * b);
		}
	}
	return score;
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
        .nopts = 3,
        .opts = mnk_opts,
        .init = mnk_init,
        .load = mnk_load,
        MNK_SHARED_OPS,
};
