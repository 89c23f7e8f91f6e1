/*
 * mnk_notation.c - m,n,k notation (see mnk.h): a move is a cell written
 * a1..h8 (file letter, rank counted from the bottom); a position is its rows
 * from the top rank down, '/'-separated, each cell x, o or '.'.
 */
#include "games/mnk/mnk.h"

#include <ctype.h>
#include <string.h>

int mnk_parse_move(const void *st, int seat, const char *text, game_move *m, const char **why)
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

int mnk_format_move(const void *st, game_move m, char *buf, size_t len)
{
	const struct mnk_state *s = st;
	struct game_text t;
	game_text_init(&t, buf, len);
	game_text_put(&t, "%c%d", 'a' + bb_x(&s->g, (int)m), bb_y(&s->g, (int)m) + 1);
	return game_text_end(&t);
}

char mnk_cell_char(const struct mnk_state *s, int bit)
{
	bb_t c = bb_bit(bit);
	return bb_get(s->side[0], c) ? 'x' : bb_get(s->side[1], c) ? 'o' : '.';
}

int mnk_save(const void *st, char *buf, size_t len)
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

int mnk_load_position(struct mnk_state *s, const char *text)
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
