/*
 * xmas_push.c - the text side of the Xmas Rush push engine: tile patterns
 * ("0110") to nibbles and back, a map block to bitboard planes, direction
 * names and the box-drawing glyph of each tile. The bitboard operations
 * themselves are inline in xmas_push.h.
 */
#include "games/xmas/xmas_push.h"

#include <string.h>

const char *const xmas_dir_names[4] = {"UP", "RIGHT", "DOWN", "LEFT"};

int xmas_tile_parse(const char *s)
{
	int t = 0;
	for (int d = 0; d < 4; d++) {
		if (s[d] != '0' && s[d] != '1')
			return -1;
		t |= (s[d] - '0') << d;
	}
	return s[4] == '\0' || s[4] == ' ' || s[4] == '\n' ? t : -1;
}

void xmas_tile_str(unsigned t, char out[5])
{
	for (int d = 0; d < 4; d++)
		out[d] = (char)('0' + ((t >> d) & 1));
	out[4] = '\0';
}

int xmas_board_parse(struct xmas_board *b, const char *text)
{
	memset(b->open, 0, sizeof b->open);
	const char *p = text;
	for (int y = 0; y < XMAS_SIZE; y++) {
		for (int x = 0; x < XMAS_SIZE; x++) {
			int t = xmas_tile_parse(p);
			if (t < 0)
				return -1;
			xmas_board_set(b, x, y, (unsigned)t);
			p += 4;
			if (*p != (x == XMAS_SIZE - 1 ? '\n' : ' '))
				return -1;
			p++;
		}
	}
	return (int)(p - text);
}

const char *xmas_tile_glyph(unsigned t)
{
	/* indexed by the nibble: bit 0 up, 1 right, 2 down, 3 left */
	static const char *const glyph[16] = {
	        " ", "╵", "╶", "└", "╷", "│", "┌", "├", "╴", "┘", "─", "┴", "┐", "┤", "┬", "┼",
	};
	return glyph[t & 0xF];
}
