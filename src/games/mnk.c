/*
 * mnk.c - m,n,k games (tic-tac-toe is 3,3,3): two players alternately place a
 * stone on an empty cell of an m-column by n-row board; k in a row
 * (orthogonally or diagonally) wins; a full board without one is a draw.
 *
 * State: one bitboard per side over the core geometry (cell (x, y) = bit
 * y*m + x, rank 1 at the bottom). A line is found by the core's k-1
 * shift-ands per direction, tested only for the side that just moved.
 * A move is the cell's bit index. Cells are written a1..h8 (file letter,
 * rank counted from the bottom). Exports game_ttt (fixed 3,3,3) and game_mnk.
 */
#include "games/game.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "core/bitboard.h"

struct mnk_state {
	struct bb_geom g;
	int k;
	int ply;
	int last;     /* cell of the last move, -1 before the first */
	int winner;   /* seat with a line, -1 if none */
	bb_t side[2]; /* stones of X (seat 0) and O (seat 1) */
};

static const char mnk_mark[2] = {'X', 'O'};

static const struct game_optdef mnk_opts[] = {
        {"m", 3, 3, 8, "columns"},
        {"n", 3, 3, 8, "rows"},
        {"k", 3, 3, 8, "stones in a row to win (at most max(m, n))"},
};

static int mnk_setup(struct mnk_state *s, int m, int n, int k)
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

static int ttt_init(void *st, const struct game_params *p, uint64_t seed)
{
	return mnk_setup(st, 3, 3, 3);
}

static bb_t mnk_empty(const struct mnk_state *s)
{
	return s->g.full & ~(s->side[0] | s->side[1]);
}

static bool mnk_over(const struct mnk_state *s)
{
	return s->winner >= 0 || mnk_empty(s) == 0;
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
	snprintf(r->score, sizeof r->score, "%s",
	         s->winner == 0   ? "1-0"
	         : s->winner == 1 ? "0-1"
	                          : "1/2-1/2");
}

static int mnk_parse_move(const void *st, int seat, const char *text, game_move *m,
                          const char **why)
{
	const struct mnk_state *s = st;
	const char *dummy;
	if (why == NULL)
		why = &dummy;
	int file = tolower((unsigned char)text[0]) - 'a';
	if (file < 0 || file > 25 || !isdigit((unsigned char)text[1]) ||
	    (text[2] != '\0' && !(isdigit((unsigned char)text[2]) && text[3] == '\0'))) {
		*why = "a move is a cell such as b2 (file letter, then rank)";
		return GAME_ESYNTAX;
	}
	int rank = text[1] - '0';
	if (text[2] != '\0')
		rank = rank * 10 + (text[2] - '0');
	if (!bb_on_board(&s->g, file, rank - 1)) {
		*why = "that cell is not on the board";
		return GAME_EILLEGAL;
	}
	if (mnk_over(s)) {
		*why = "the game is over";
		return GAME_EOVER;
	}
	if (seat != (s->ply & 1)) {
		*why = "it is the other player's turn";
		return GAME_ETURN;
	}
	int bit = bb_index(&s->g, file, rank - 1);
	if (!bb_get(mnk_empty(s), bb_bit(bit))) {
		*why = "that cell is already taken";
		return GAME_EILLEGAL;
	}
	*m = (game_move)bit;
	return GAME_OK;
}

static int mnk_format_cell(const struct mnk_state *s, int bit, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%c%d", 'a' + bb_x(&s->g, bit), bb_y(&s->g, bit) + 1);
	return n < 0 || (size_t)n >= len ? GAME_ENOSPACE : n;
}

static int mnk_format_move(const void *st, game_move m, char *buf, size_t len)
{
	return mnk_format_cell(st, (int)m, buf, len);
}

static char mnk_cell_char(const struct mnk_state *s, int bit)
{
	bb_t c = bb_bit(bit);
	return bb_get(s->side[0], c) ? 'x' : bb_get(s->side[1], c) ? 'o' : '.';
}

/* Position text: rows from the top rank down, '/'-separated, cells x, o or '.'. */
static int mnk_save(const void *st, char *buf, size_t len)
{
	const struct mnk_state *s = st;
	size_t need = (size_t)(s->g.w + 1) * (size_t)s->g.h;
	if (len < need)
		return GAME_ENOSPACE;
	size_t o = 0;
	for (int y = s->g.h - 1; y >= 0; y--) {
		for (int x = 0; x < s->g.w; x++)
			buf[o++] = mnk_cell_char(s, bb_index(&s->g, x, y));
		buf[o++] = y > 0 ? '/' : '\0';
	}
	return (int)o - 1;
}

static int mnk_load_into(struct mnk_state *s, const char *text)
{
	int y = s->g.h - 1, x = 0;
	for (const char *p = text; *p; p++) {
		if (*p == '/') {
			if (x != s->g.w || y == 0)
				return GAME_EPOSITION;
			y--;
			x = 0;
			continue;
		}
		if (x >= s->g.w)
			return GAME_EPOSITION;
		int c = tolower((unsigned char)*p), bit = bb_index(&s->g, x++, y);
		if (c == 'x')
			s->side[0] |= bb_bit(bit);
		else if (c == 'o')
			s->side[1] |= bb_bit(bit);
		else if (c != '.' && c != '-')
			return GAME_EPOSITION;
	}
	if (y != 0 || x != s->g.w)
		return GAME_EPOSITION;
	int nx = bb_popcount(s->side[0]), no = bb_popcount(s->side[1]);
	if (nx != no && nx != no + 1)
		return GAME_EPOSITION;
	bool wx = bb_has_line(&s->g, s->side[0], s->k), wo = bb_has_line(&s->g, s->side[1], s->k);
	if ((wx && wo) || (wx && nx == no) || (wo && nx != no))
		return GAME_EPOSITION;
	s->ply = nx + no;
	s->winner = wx ? 0 : wo ? 1 : -1;
	return GAME_OK;
}

static int mnk_load(void *st, const struct game_params *p, const char *text)
{
	int r = mnk_init(st, p, 0);
	return r < 0 ? r : mnk_load_into(st, text);
}

static int ttt_load(void *st, const struct game_params *p, const char *text)
{
	ttt_init(st, p, 0);
	return mnk_load_into(st, text);
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
		mnk_format_cell(s, s->last, cell, sizeof cell);
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
	size_t o = 0;
	int n;
#define OUT(...)                                                                                   \
	do {                                                                                       \
		n = snprintf(buf + o, len - o, __VA_ARGS__);                                       \
		if (n < 0 || (size_t)n >= len - o)                                                 \
			return GAME_ENOSPACE;                                                      \
		o += (size_t)n;                                                                    \
	} while (0)
	OUT("   ");
	for (int x = 0; x < s->g.w; x++)
		OUT("%s%c", x ? "   " : "  ", 'a' + x);
	OUT("\n");
	for (int y = s->g.h - 1; y >= 0; y--) {
		OUT("   +");
		for (int x = 0; x < s->g.w; x++)
			OUT("---+");
		OUT("\n%2d |", y + 1);
		for (int x = 0; x < s->g.w; x++) {
			char c = mnk_cell_char(s, bb_index(&s->g, x, y));
			OUT(" %c |", c == '.' ? ' ' : toupper((unsigned char)c));
		}
		OUT("\n");
	}
	OUT("   +");
	for (int x = 0; x < s->g.w; x++)
		OUT("---+");
	OUT("\n");
#undef OUT
	return (int)o;
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

#define MNK_OPS(ident, name_, title_, nopts_, opts_, init_, load_)                                 \
	const struct game_ops ident = {                                                            \
	        .name = name_,                                                                     \
	        .title = title_,                                                                   \
	        .nplayers = 2,                                                                     \
	        .seat_names = {"X", "O"},                                                          \
	        .state_size = sizeof(struct mnk_state),                                            \
	        .max_moves = 64,                                                                   \
	        .nopts = nopts_,                                                                   \
	        .opts = opts_,                                                                     \
	        .init = init_,                                                                     \
	        .to_move = mnk_to_move,                                                            \
	        .legal_moves = mnk_legal_moves,                                                    \
	        .apply = mnk_apply,                                                                \
	        .result = mnk_result,                                                              \
	        .parse_move = mnk_parse_move,                                                      \
	        .format_move = mnk_format_move,                                                    \
	        .load = load_,                                                                     \
	        .save = mnk_save,                                                                  \
	        .to_json = mnk_to_json,                                                            \
	        .render_text = mnk_render_text,                                                    \
	        .evaluate = mnk_evaluate,                                                          \
	}

MNK_OPS(game_ttt, "ttt", "Tic-tac-toe (3,3,3)", 0, NULL, ttt_init, ttt_load);
MNK_OPS(game_mnk, "mnk", "m,n,k game", 3, mnk_opts, mnk_init, mnk_load);
