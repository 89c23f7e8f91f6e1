/*
 * xmas_ops.c - the game_ops of Xmas Rush (game_xmas), over the rules
 * (xmas.c) and the notation (xmas_notation.c): the table, a seat's actions
 * for the vtable, and the presentations, JSON (with, for a seat, the contest
 * input the referee sends it) and a board drawn in text. Both render
 * xmas_view() of the state, whatever state they are given, so nothing hidden
 * can leak through them. to_json returns a cJSON the caller owns.
 *
 * Section numbers (§) refer to /work/shared/rules/xmas-rush.md.
 */
#include "games/xmas/xmas.h"

#include <stdio.h>
#include <string.h>

static int xmas_seat_moves(const void *vst, int seat, game_move *out, size_t cap)
{
	return xmas_moves_for(vst, seat, out, cap);
}

/* A MOVE into a wall, for people: refused at once, saying where the wall is (game.h). */
static int xmas_human_check(const void *vst, int seat, game_move m, char *why, size_t len)
{
	int cell, i = xmas_walk_wall(vst, seat, m, &cell);
	if (i < 0)
		return 0;
	int d = xmas_move_step(m, i), x = cell % XMAS_SIZE, y = cell / XMAS_SIZE;
	bool edge = (d == XMAS_UP && y == 0) || (d == XMAS_DOWN && y == XMAS_SIZE - 1) ||
	            (d == XMAS_LEFT && x == 0) || (d == XMAS_RIGHT && x == XMAS_SIZE - 1);
	snprintf(why, len,
	         "%s: step %d goes %s from (%d,%d)%s; 'refresh' lists the cells you can reach",
	         edge ? "the board's edge" : "a wall", i + 1, xmas_dir_names[d], x, y,
	         edge ? ", off the board" : ", where the tiles do not join");
	return -1;
}

/* --- presentation -------------------------------------------------------------- */

static cJSON *xy_pair(int x, int y)
{
	int v[2] = {x, y};
	return cJSON_CreateIntArray(v, 2);
}

static cJSON *xmas_to_json(const void *vst, int viewer)
{
	struct xmas_state view;
	xmas_view(vst, viewer, &view);
	const struct xmas_state *st = &view;
	char t[5], num[GAME_SEED_TEXT];
	cJSON *o = cJSON_CreateObject(), *a, *row;
	if (o == NULL)
		return NULL;
	if (!st->hidden) { /* the seed is published once the game has ended */
		/* a Java long: a string keeps 64 bits */
		cJSON_AddStringToObject(o, "seed", game_seed_text((uint64_t)st->seed, num));
		if (st->dealt) /* the server's seed: map and quests from its halves (xmas.h) */
			cJSON_AddBoolToObject(o, "dealt", true);
	}
	cJSON_AddNumberToObject(o, "pool", st->pool);
	cJSON_AddNumberToObject(o, "turn", st->turn);
	cJSON_AddStringToObject(o, "turn_type", st->turn_type == XMAS_TURN_PUSH ? "PUSH" : "MOVE");
	cJSON_AddNumberToObject(o, "turns_left", st->turns_left);
	cJSON_AddNumberToObject(o, "stale_pushes", st->stale);
	if ((a = cJSON_AddArrayToObject(o, "board")) == NULL)
		goto fail;
	for (int y = 0; y < XMAS_SIZE; y++) {
		if ((row = cJSON_CreateArray()) == NULL || !cJSON_AddItemToArray(a, row))
			goto fail;
		for (int x = 0; x < XMAS_SIZE; x++) {
			xmas_tile_str(xmas_board_tile(&st->b, x, y), t);
			cJSON_AddItemToArray(row, cJSON_CreateString(t));
		}
	}
	if ((a = cJSON_AddArrayToObject(o, "players")) == NULL)
		goto fail;
	for (int s = 0; s < 2; s++) {
		const struct xmas_player *p = &st->pl[s];
		cJSON *po = cJSON_CreateObject(), *q;
		if (po == NULL || !cJSON_AddItemToArray(a, po))
			goto fail;
		cJSON_AddNumberToObject(po, "x", p->cell % XMAS_SIZE);
		cJSON_AddNumberToObject(po, "y", p->cell / XMAS_SIZE);
		xmas_tile_str(st->b.hand[s], t);
		cJSON_AddStringToObject(po, "hand", t);
		cJSON_AddNumberToObject(po, "score", p->score);
		if (st->miss_pass) /* timeout=pass: turns missed in a row (XMAS_MISSED_OUT: out) */
			cJSON_AddNumberToObject(po, "missed", p->missed);
		if (p->score < 0) /* put out: why ("invalid_action" or "timeout") */
			cJSON_AddStringToObject(po, "out", xmas_reason_names[p->fault]);
		cJSON_AddNumberToObject(po, "quests_left", p->ndeck + p->nvis);
		if ((q = cJSON_AddArrayToObject(po, "quests")) == NULL)
			goto fail;
		for (int k = 0; k < p->nvis; k++)
			cJSON_AddItemToArray(q, cJSON_CreateString(xmas_item_names[p->vis[k]]));
		if (p->walk_asked > 0) { /* the MOVE of the turn just played */
			cJSON *w = cJSON_AddObjectToObject(po, "walk");
			cJSON_AddNumberToObject(w, "steps", p->walk_asked);
			cJSON_AddNumberToObject(w, "done", p->walk_done);
			cJSON_AddBoolToObject(w, "wall", p->walk_wall);
		}
	}
	/* items: x, y on the board; on a hand tile x = y = -1 for seat 0's hand and
	 * -2 for seat 1's, plus "hand": the seat holding it */
	if ((a = cJSON_AddArrayToObject(o, "items")) == NULL)
		goto fail;
	for (int i = 0; i < st->nitems; i++) {
		const struct xmas_item *it = &st->items[i];
		if (it->loc == XMAS_LOC_GONE)
			continue;
		cJSON *io = cJSON_CreateObject();
		int x, y;
		if (io == NULL || !cJSON_AddItemToArray(a, io))
			goto fail;
		xmas_item_xy(it, 0, &x, &y);
		cJSON_AddStringToObject(io, "name", xmas_item_names[it->name]);
		cJSON_AddNumberToObject(io, "x", x);
		cJSON_AddNumberToObject(io, "y", y);
		cJSON_AddNumberToObject(io, "owner", it->owner);
		if (it->loc >= XMAS_CELLS)
			cJSON_AddNumberToObject(io, "hand", it->loc - XMAS_CELLS);
	}
	int sc[2] = {st->pl[0].score, st->pl[1].score};
	cJSON_AddItemToObject(o, "scores", cJSON_CreateIntArray(sc, 2));
	if (st->over)
		cJSON_AddStringToObject(o, "reason", xmas_reason_names[st->reason]);
	if (viewer == 0 || viewer == 1) {
		char in[XMAS_INPUT_MAX];
		if (xmas_input(st, viewer, in, sizeof in) >= 0)
			cJSON_AddStringToObject(o, "input", in);
		if ((a = cJSON_AddArrayToObject(o, "reachable")) == NULL)
			goto fail;
		int c;
		for (BB_EACH(c, tmp, xmas_reachable(st, viewer)))
			cJSON_AddItemToArray(a, xy_pair(c % XMAS_SIZE, c / XMAS_SIZE));
	}
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

/*
 * Text view: each tile a 3x5 block drawn with box-drawing characters,
 *     row 0:  i . │ . .    (i: an item letter, a-l seat 0's, A-L seat 1's)
 *     row 1:  ─ ─ ┼ ─ ─    (arms where the tile opens, the junction glyph)
 *     row 2:  p . │ . .    (p: 0 for player0, 1 for player1, * for both)
 * then the hands, the scores and quests, and a legend of the item letters.
 */
static void tile_block(struct game_text *o, unsigned t, int r, char item, char who)
{
	switch (r) {
	case 0:
		game_text_put(o, "%c %s  ", item, (t & 1) ? "│" : " ");
		break;
	case 1:
		game_text_put(o, "%s%s%s", (t & 8) ? "──" : "  ", xmas_tile_glyph(t),
		              (t & 2) ? "──" : "  ");
		break;
	default:
		game_text_put(o, "%c %s  ", who, (t & 4) ? "│" : " ");
		break;
	}
}

static char item_letter(const struct xmas_item *it)
{
	return (char)((it->owner == 0 ? 'a' : 'A') + it->name);
}

/*
 * What seat may do this turn, compactly (the JSON's "legal" list in a person's words): on a
 * PUSH turn the form (every one of the 28 pushes is legal); on a MOVE turn PASS and, for
 * every cell seat can reach, its cell and one shortest way there, as many to a line as fit
 * in 80 columns.
 */
static void render_actions(struct game_text *o, const struct xmas_state *st, int seat)
{
	if (st->turn_type == XMAS_TURN_PUSH) {
		game_text_put(
		        o, "  your action: PUSH <0-6> <UP|RIGHT|DOWN|LEFT> (all 28 are legal)\n");
		return;
	}
	game_move mv[XMAS_CELLS + 1];
	int n = xmas_moves_for(st, seat, mv, sizeof mv / sizeof mv[0]);
	if (n <= 1) {
		game_text_put(o, "  your action: PASS (walls all round: no cell to reach)\n");
		return;
	}
	game_text_put(o, "  your action: PASS, or MOVE and up to 20 steps; the shortest to each "
	                 "cell:\n");
	int col = 0;
	for (int i = 0; i < n; i++) {
		if (xmas_move_kind(mv[i]) != XMAS_KIND_MOVE)
			continue;
		char e[GAME_MOVE_TEXT + 16];
		int c = st->pl[seat].cell, k = 0;
		for (int j = 0; j < xmas_move_nsteps(mv[i]); j++)
			c = xmas_step(c, xmas_move_step(mv[i], j));
		k = snprintf(e, sizeof e, "(%d,%d)", c % XMAS_SIZE, c / XMAS_SIZE);
		for (int j = 0; j < xmas_move_nsteps(mv[i]) && k > 0 && (size_t)k < sizeof e; j++)
			k += snprintf(e + k, sizeof e - (size_t)k, " %s",
			              xmas_dir_names[xmas_move_step(mv[i], j)]);
		if (col > 0 && col + 2 + k > 78) {
			game_text_put(o, "\n");
			col = 0;
		}
		game_text_put(o, "%s%s", col == 0 ? "    " : "; ", e);
		col += (col == 0 ? 4 : 2) + k;
	}
	game_text_put(o, "\n");
}

static int xmas_render_text(const void *vst, int viewer, char *buf, size_t len)
{
	struct xmas_state view;
	xmas_view(vst, viewer, &view);
	const struct xmas_state *st = &view;
	struct game_text o;
	char num[GAME_SEED_TEXT];
	game_text_init(&o, buf, len);
	game_text_put(&o, "Xmas Rush");
	if (!st->hidden)
		game_text_put(&o, "  seed %s", game_seed_text((uint64_t)st->seed, num));
	game_text_put(&o, "  pool %d  turn %d/%d %s", st->pool, st->turn, XMAS_MAX_TURNS,
	              st->turn_type == XMAS_TURN_PUSH ? "PUSH" : "MOVE");
	if (st->over)
		game_text_put(&o, "  over: %s", xmas_reason_names[st->reason]);
	game_text_put(&o, "\n     ");
	for (int x = 0; x < XMAS_SIZE; x++)
		game_text_put(&o, "  %d  ", x);
	game_text_put(&o, "\n");
	for (int y = 0; y < XMAS_SIZE; y++) {
		for (int r = 0; r < 3; r++) {
			game_text_put(&o, r == 1 ? "  %d  " : "     ", y);
			for (int x = 0; x < XMAS_SIZE; x++) {
				int c = xmas_cell(x, y), i = xmas_item_at(st, c);
				bool p0 = st->pl[0].cell == c, p1 = st->pl[1].cell == c;
				char who = p0 && p1 ? '*' : p0 ? '0' : p1 ? '1' : ' ';
				tile_block(&o, xmas_board_tile(&st->b, x, y), r,
				           i >= 0 ? item_letter(&st->items[i]) : ' ', who);
			}
			game_text_put(&o, "\n");
		}
	}
	game_text_put(&o, "\n");
	for (int s = 0; s < 2; s++) {
		const struct xmas_player *p = &st->pl[s];
		int i = xmas_item_at(st, XMAS_LOC_HAND(s));
		unsigned h = st->b.hand[s];
		game_text_put(&o, "  player%d%s at (%d,%d) ", s, viewer == s ? " (you)" : "",
		              p->cell % XMAS_SIZE, p->cell / XMAS_SIZE);
		if (p->score < 0) /* the referee's -1: put out of the game */
			game_text_put(&o, "out (%s)",
			              p->fault == XMAS_END_TIMEOUT ? "timeout" : "invalid action");
		else
			game_text_put(&o, "score %d", p->score);
		if (st->miss_pass && p->missed > 0 && p->score >= 0)
			game_text_put(&o, ", missed %d turn%s (%d in a row: out)", p->missed,
			              p->missed == 1 ? "" : "s", XMAS_MISSED_OUT);
		game_text_put(&o, ", %d quests left, hand ", p->ndeck + p->nvis);
		tile_block(&o, h, 1, ' ', ' ');
		if (i >= 0)
			game_text_put(&o, " carrying %c", item_letter(&st->items[i]));
		game_text_put(&o, "\n    quests:");
		for (int q = 0; q < p->nvis; q++)
			game_text_put(&o, " %c=%s", (s == 0 ? 'a' : 'A') + p->vis[q],
			              xmas_item_names[p->vis[q]]);
		game_text_put(&o, "\n");
		if (p->walk_wall) /* an illegal step cut the last MOVE short */
			game_text_put(&o, "    MOVE stopped by a wall after %d of %d step%s\n",
			              p->walk_done, p->walk_asked, p->walk_asked == 1 ? "" : "s");
	}
	game_text_put(&o, "  items: a-l are player0's, A-L player1's:");
	for (int k = 0; k < XMAS_NAMES; k++)
		game_text_put(&o, "%s%c %s", k % 6 == 0 ? "\n    " : "  ", 'a' + k,
		              xmas_item_names[k]);
	game_text_put(&o, "\n  on the board: 0 is player0, 1 is player1, * both\n");
	if ((viewer == 0 || viewer == 1) && !st->over)
		render_actions(&o, st, viewer);
	return game_text_end(&o);
}

const struct game_ops game_xmas = {
        .name = "xmas",
        .title = "Xmas Rush",
        .flags = GAME_SIMULTANEOUS | GAME_SCORES,
        .nplayers = 2,
        .seat_names = {"player0", "player1"},
        .state_size = sizeof(struct xmas_state),
        .max_moves = 49,
        .nopts = XMAS_NOPTS,
        .opts = xmas_opts,
        .init = xmas_init,
        .to_move = xmas_to_move,
        .legal_moves = xmas_legal_moves,
        .apply = NULL,
        .resolve = xmas_resolve,
        .result = xmas_result,
        .parse_move = xmas_parse_move,
        .format_move = xmas_format_move,
        .view = xmas_view,
        .to_json = xmas_to_json,
        .render_text = xmas_render_text,
        .seat_moves = xmas_seat_moves,
        .human_check = xmas_human_check,
};
