/*
 * xmas_notation.c - Xmas Rush notation, exact to the official referee: the
 * action lines a seat sends (PUSH, MOVE, PASS: the referee's patterns, §3,
 * §9.5) both ways, and the contest input the referee sends a seat (§3).
 *
 * Section numbers (§) refer to /work/shared/rules/xmas-rush.md.
 */
#include "games/xmas/xmas.h"

#include <stdio.h>
#include <string.h>

/* Matches one direction word at p; returns its enum and its length in *n, or -1. */
static int match_dir(const char *p, size_t *n)
{
	for (int d = 0; d < 4; d++) {
		size_t l = strlen(xmas_dir_names[d]);
		if (strncmp(p, xmas_dir_names[d], l) == 0) {
			*n = l;
			return d;
		}
	}
	return -1;
}

/* The forms an error names (in any case where the game is not strict=1). */
#define FORM_PUSH "PUSH <0-6> <UP|RIGHT|DOWN|LEFT>"
#define FORM_MOVE "MOVE <UP|RIGHT|DOWN|LEFT> ..."

static int syntax(const char **why, const char *msg)
{
	if (why)
		*why = msg;
	return GAME_ESYNTAX;
}

/*
 * §3, §9.5: the referee's patterns, matched against the whole line, case
 * sensitive, nothing trimmed:
 *   PUSH <id> <dir>   id one of " 0123456" (a space matches the pattern and
 *                     then crashes the referee's parseInt: invalid here)
 *   MOVE <dir>( <dir>)*   1..20 directions, single spaces
 *   PASS
 * A line over 124 characters is refused first.
 */
int xmas_parse_move(const void *vst, int seat, const char *text, game_move *m, const char **why)
{
	const struct xmas_state *st = vst;
	if (st->over)
		return GAME_EOVER;
	if (seat < 0 || seat > 1)
		return GAME_ETURN;
	size_t len = strlen(text), n;
	if (len > XMAS_MAX_LINE)
		return syntax(why, "longer than 124 characters");
	game_move mv;
	if (strncmp(text, "PUSH ", 5) == 0) {
		int d;
		if (len < 8 || text[6] != ' ' || (d = match_dir(text + 7, &n)) < 0 || text[7 + n])
			return syntax(why, "expected " FORM_PUSH);
		if (text[5] == ' ')
			return syntax(why, "a space is not a line number");
		if (text[5] < '0' || text[5] > '6')
			return syntax(why, "the line number is 0 to 6");
		mv = xmas_move_push(text[5] - '0', d);
	} else if (strncmp(text, "MOVE", 4) == 0) {
		int dirs[XMAS_MAX_STEPS], k = 0;
		const char *p = text + 4;
		while (*p == ' ') {
			int d = match_dir(p + 1, &n);
			if (d < 0)
				return syntax(why, "expected " FORM_MOVE
				                   " (1 to 20 steps, single spaces)");
			if (k < XMAS_MAX_STEPS)
				dirs[k] = d;
			k++;
			p += 1 + n;
		}
		if (*p != '\0')
			return syntax(why, "expected " FORM_MOVE " (1 to 20 steps, single spaces)");
		if (k == 0)
			return syntax(why, "MOVE needs at least one direction");
		if (k > XMAS_MAX_STEPS)
			return syntax(why, "more than 20 steps");
		mv = xmas_move_steps(dirs, k);
	} else if (strcmp(text, "PASS") == 0) {
		mv = xmas_move_pass();
	} else {
		return syntax(why, "expected " FORM_PUSH ", " FORM_MOVE " or PASS");
	}
	if (!xmas_move_fits_turn(st, mv)) {
		if (why)
			*why = st->turn_type == XMAS_TURN_PUSH
			               ? "this is a PUSH turn: PUSH <0-6> <UP|RIGHT|DOWN|LEFT>"
			               : "this is a MOVE turn: MOVE <dir> ... or PASS";
		return GAME_EPHASE;
	}
	if (m)
		*m = mv;
	return GAME_OK;
}

int xmas_format_move(const void *vst, game_move m, char *buf, size_t len)
{
	char tmp[GAME_MOVE_TEXT];
	int n;
	switch (xmas_move_kind(m)) {
	case XMAS_KIND_PUSH:
		n = snprintf(tmp, sizeof tmp, "PUSH %d %s", xmas_move_line(m),
		             xmas_dir_names[xmas_move_dir(m)]);
		break;
	case XMAS_KIND_MOVE:
		n = snprintf(tmp, sizeof tmp, "MOVE");
		for (int i = 0; i < xmas_move_nsteps(m) && i < XMAS_MAX_STEPS; i++)
			n += snprintf(tmp + n, sizeof tmp - (size_t)n, " %s",
			              xmas_dir_names[xmas_move_step(m, i)]);
		break;
	case XMAS_KIND_PASS:
		n = snprintf(tmp, sizeof tmp, "PASS");
		break;
	default:
		return GAME_ESYNTAX;
	}
	if ((size_t)n >= len)
		return GAME_ENOSPACE;
	memcpy(buf, tmp, (size_t)n + 1);
	return n;
}

/* --- the contest input (§3) ---------------------------------------------------- */

void xmas_item_xy(const struct xmas_item *it, int seat, int *x, int *y)
{
	if (it->loc < XMAS_CELLS) {
		*x = it->loc % XMAS_SIZE;
		*y = it->loc / XMAS_SIZE;
	} else {
		*x = *y = it->loc == XMAS_LOC_HAND(seat) ? -1 : -2;
	}
}

int xmas_input(const struct xmas_state *st, int seat, char *buf, size_t len)
{
	struct game_text o;
	game_text_init(&o, buf, len);
	char t[5];
	game_text_put(&o, "%d\n", st->turn_type);
	for (int y = 0; y < XMAS_SIZE; y++) {
		for (int x = 0; x < XMAS_SIZE; x++) {
			xmas_tile_str(xmas_board_tile(&st->b, x, y), t);
			game_text_put(&o, "%s%c", t, x == XMAS_SIZE - 1 ? '\n' : ' ');
		}
	}
	for (int k = 0; k < 2; k++) {
		const struct xmas_player *p = &st->pl[seat ^ k];
		xmas_tile_str(st->b.hand[seat ^ k], t);
		game_text_put(&o, "%d %d %d %s\n", p->ndeck + p->nvis, p->cell % XMAS_SIZE,
		              p->cell / XMAS_SIZE, t);
	}
	int nitems = 0;
	for (int i = 0; i < st->nitems; i++)
		nitems += st->items[i].loc != XMAS_LOC_GONE;
	game_text_put(&o, "%d\n", nitems);
	for (int i = 0; i < st->nitems; i++) {
		const struct xmas_item *it = &st->items[i];
		int x, y;
		if (it->loc == XMAS_LOC_GONE)
			continue;
		xmas_item_xy(it, seat, &x, &y);
		game_text_put(&o, "%s %d %d %d\n", xmas_item_names[it->name], x, y,
		              it->owner == seat ? 0 : 1);
	}
	game_text_put(&o, "%d\n", st->pl[0].nvis + st->pl[1].nvis);
	for (int k = 0; k < 2; k++) {
		const struct xmas_player *p = &st->pl[seat ^ k];
		for (int q = 0; q < p->nvis; q++)
			game_text_put(&o, "%s %d\n", xmas_item_names[p->vis[q]], k);
	}
	return game_text_end(&o);
}
