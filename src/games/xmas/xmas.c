/*
 * xmas.c - Xmas Rush rules, exact to the official CodinGame referee:
 * seeded map generation (java.util.Random, the referee's RNG call order and
 * its quirks), quests and their reveal order, simultaneous turn resolution
 * (rows before columns, same-line collisions, lockstep MOVE frames, the
 * scored-after-input quirk, the one-frame resolution of a fatal turn),
 * end of game and result, and what a viewer may see (xmas_view); the
 * game_ops entries among them are declared in xmas.h. The notation (actions,
 * the contest input of a seat) is xmas_notation.c and the table game_xmas
 * with the presentations is xmas_ops.c: both call this file, never the reverse.
 *
 * Section numbers (§) refer to /work/shared/rules/xmas-rush.md.
 */
#include "games/xmas/xmas.h"

#include <stdio.h>
#include <string.h>

#include "games/xmas/jrandom.h"

const char *const xmas_item_names[XMAS_NAMES] = {
        "ARROW", "BOOK", "CANE",   "CANDY",  "DIAMOND", "FISH",
        "MASK",  "KEY",  "POTION", "SCROLL", "SHIELD",  "SWORD",
};

const char *const xmas_reason_names[6] = {
        "", "max_turns", "deadlock", "all_quests_completed", "invalid_action", "timeout",
};

/* Tile nibbles of the referee's pattern strings (bit 0 = U, 1 = R, 2 = D, 3 = L). */
enum {
	T_0110 = 0x6, /* RIGHT + DOWN */
	T_1101 = 0xB, /* UP + RIGHT + LEFT */
	T_0111 = 0xE, /* RIGHT + DOWN + LEFT */
	T_1010 = 0x5, /* UP + DOWN */
	T_0101 = 0xA, /* RIGHT + LEFT */
	T_1111 = 0xF,
};

/* §1 tile pools, as (pattern, count) runs in the referee's list order. */
struct pool_run {
	uint8_t tile, count;
};
static const struct pool_run pools[3][5] = {
        {{T_0110, 8}, {T_1101, 3}, {T_0111, 6}, {T_1010, 6}, {T_1111, 1}},
        {{T_0110, 8}, {T_1101, 3}, {T_0111, 4}, {T_1010, 9}},
        {{T_0110, 10}, {T_1101, 3}, {T_0111, 2}, {T_1010, 9}},
};

#define POOL_SIZE 24
#define NO_TILE   0xFF

/* --- setup (§2) --------------------------------------------------------------- */

static int pool_fill(uint8_t *pool, int which)
{
	const struct pool_run *runs = pools[which - 1];
	int n = 0;
	for (int r = 0; r < 5; r++)
		for (int i = 0; i < runs[r].count; i++)
			pool[n++] = runs[r].tile;
	return n;
}

/* List.remove(idx) on the pool array. */
static uint8_t pool_take(uint8_t *pool, int *n, int idx)
{
	uint8_t t = pool[idx];
	memmove(pool + idx, pool + idx + 1, (size_t)(*n - idx - 1));
	(*n)--;
	return t;
}

int xmas_item_at(const struct xmas_state *st, int loc)
{
	for (int i = 0; i < st->nitems; i++)
		if (st->items[i].loc == loc)
			return i;
	return -1;
}

int xmas_league(int league, struct xmas_league *lg)
{
	/* Referee.init: switch (leagueLevel); 6 stands for "default" (all higher leagues) */
	static const struct xmas_league table[7] = {
	        {1, 3, 1, false},  {1, 1, 1, true},   {1, 6, 1, true},  {1, 12, 3, false},
	        {2, 12, 3, false}, {2, 12, 3, false}, {3, 12, 3, false},
	};
	if (league < 0)
		return GAME_EOPT;
	*lg = table[league > 6 ? 6 : league];
	return GAME_OK;
}

int xmas_setup(struct xmas_state *st, int64_t seed, int pool)
{
	struct xmas_league lg = {(uint8_t)pool, 12, 3, false};
	return xmas_setup_league(st, seed, &lg);
}

int xmas_setup_league(struct xmas_state *st, int64_t seed, const struct xmas_league *lg)
{
	const int pool = lg->pool;
	if (pool < 1 || pool > 3 || lg->ncards < 1 || lg->ncards > XMAS_NAMES ||
	    lg->nvisible < 1 || lg->nvisible > XMAS_MAX_VISIBLE)
		return GAME_EOPT;
	memset(st, 0, sizeof *st);
	st->seed = seed;
	st->pool = (uint8_t)pool;
	st->ncards = lg->ncards;
	st->nvisible = lg->nvisible;

	struct jrandom r;
	jrandom_init(&r, seed);

	/* 1. GameBoard(pool): centre, (0,0), then the upper-left triangle mirrored. */
	uint8_t tiles[XMAS_CELLS], pat[POOL_SIZE];
	int npat = pool_fill(pat, pool);
	memset(tiles, NO_TILE, sizeof tiles);
	static const uint8_t centre[3] = {T_1111, T_1010, T_0101};
	tiles[xmas_cell(3, 3)] = centre[jrandom_next_int_n(&r, 3)];
	tiles[xmas_cell(0, 0)] = T_0110;
	for (int y = 0; y < XMAS_SIZE; y++) {
		for (int x = 0; x < XMAS_SIZE - y; x++) {
			if (tiles[xmas_cell(x, y)] == NO_TILE) {
				int idx = jrandom_next_int_n(&r, npat);
				unsigned t = pool_take(pat, &npat, idx);
				/* 0..2 quarter turns, never 3 */
				int rot = jrandom_next_int_n(&r, 3);
				tiles[xmas_cell(x, y)] = (uint8_t)xmas_tile_rotate(t, rot);
			}
			/* always, even for a cell filled before: the point mirror */
			tiles[xmas_cell(6 - x, 6 - y)] =
			        (uint8_t)xmas_tile_rot180(tiles[xmas_cell(x, y)]);
		}
	}
	for (int y = 0; y < XMAS_SIZE; y++)
		for (int x = 0; x < XMAS_SIZE; x++)
			xmas_board_set(&st->b, x, y, tiles[xmas_cell(x, y)]);

	/* 2. the referee's "Fisher-Yates": the bound is always the full size */
	uint8_t names[XMAS_NAMES];
	for (int i = 0; i < XMAS_NAMES; i++)
		names[i] = (uint8_t)i;
	for (int i = XMAS_NAMES - 1; i > 0; i--) {
		int j = jrandom_next_int_n(&r, XMAS_NAMES);
		uint8_t a = names[j];
		names[j] = names[i];
		names[i] = a;
	}
	memcpy(st->names, names, sizeof names);

	/* 3. hand tiles: the one pattern left; seat 1 gets it turned 180 degrees */
	st->b.hand[0] = pat[0];
	st->b.hand[1] = (uint8_t)xmas_tile_rot180(pat[0]);

	/* 4. items: k = nextInt(49), x = k / 7, y = k % 7, redrawn on a bad cell */
	int n = 0;
	for (int i = 0; i < st->ncards; i++) {
		int x, y;
		for (;;) {
			int k = jrandom_next_int_n(&r, XMAS_CELLS);
			x = k / 7;
			y = k % 7;
			bool start = (x == 0 && y == 0) || (x == 6 && y == 6) || (x == 3 && y == 3);
			/* low leagues: only on tiles with 3 or 4 openings (isThreeWayPlus) */
			bool narrow = lg->threeway && __builtin_popcount(tiles[xmas_cell(x, y)]) < 3;
			if (!start && !narrow && xmas_item_at(st, xmas_cell(x, y)) < 0)
				break;
		}
		st->items[n++] = (struct xmas_item){names[i], 0, (uint8_t)xmas_cell(x, y)};
		st->items[n++] = (struct xmas_item){names[i], 1, (uint8_t)xmas_cell(6 - x, 6 - y)};
		st->nitems = (uint8_t)n;
	}
	/* 5. Collections.shuffle(tilesWithItems, random) fixes the input order */
	for (int i = n; i > 1; i--) {
		int j = jrandom_next_int_n(&r, i);
		struct xmas_item a = st->items[i - 1];
		st->items[i - 1] = st->items[j];
		st->items[j] = a;
	}

	/* players, quests (a stack in list order: the last names are revealed first) */
	st->pl[0].cell = (uint8_t)xmas_cell(0, 0);
	st->pl[1].cell = (uint8_t)xmas_cell(6, 6);
	for (int s = 0; s < 2; s++)
		st->pl[s].ndeck = st->ncards;
	st->turn_type = XMAS_TURN_MOVE; /* the first toggle makes it PUSH */
	st->turns_left = XMAS_MAX_TURNS;
	return GAME_OK;
}

/* --- turn flow (§4, §5) ---------------------------------------------------- */

static void flip_cards(struct xmas_state *st)
{
	for (int s = 0; s < 2; s++) {
		struct xmas_player *p = &st->pl[s];
		while (p->nvis < st->nvisible && p->ndeck > 0)
			p->vis[p->nvis++] = st->names[--p->ndeck];
	}
}

/* checkForFinishedItems: each player standing on an item of a revealed quest scores it. */
static void collect(struct xmas_state *st)
{
	for (int s = 0; s < 2; s++) {
		struct xmas_player *p = &st->pl[s];
		int i = xmas_item_at(st, p->cell);
		if (i < 0 || st->items[i].owner != s)
			continue;
		for (int q = 0; q < p->nvis; q++) {
			if (p->vis[q] != st->items[i].name)
				continue;
			memmove(p->vis + q, p->vis + q + 1, (size_t)(p->nvis - q - 1));
			p->nvis--;
			p->score++;
			st->items[i].loc = XMAS_LOC_GONE;
			break;
		}
	}
}

static void end_game(struct xmas_state *st, int reason)
{
	st->over = 1;
	st->reason = (uint8_t)reason;
	st->pending = 0;
}

/* The start of a game turn: the end checks, the toggle, the flip; the input is then "sent". */
static void begin_turn(struct xmas_state *st)
{
	if (st->turns_left <= 0) {
		end_game(st, XMAS_END_MAX_TURNS);
		return;
	}
	if (st->stale >= XMAS_STALE_END) {
		end_game(st, XMAS_END_DEADLOCK);
		return;
	}
	for (int s = 0; s < 2; s++) {
		if (st->pl[s].score == st->ncards) {
			end_game(st, XMAS_END_ALL_QUESTS);
			return;
		}
	}
	st->turn_type = st->turn_type == XMAS_TURN_PUSH ? XMAS_TURN_MOVE : XMAS_TURN_PUSH;
	st->turns_left--;
	st->turn++;
	flip_cards(st);
	st->pending = 1;
}

/* One push with everything that rides on the line: items, the popped tile's item, players. */
static void push_line(struct xmas_state *st, int seat, int line, int d)
{
	const int in = xmas_push_in_cell(line, d), out = xmas_push_out_cell(line, d);
	xmas_board_push(&st->b, seat, line, d);
	for (int i = 0; i < st->nitems; i++) {
		struct xmas_item *it = &st->items[i];
		if (it->loc == XMAS_LOC_GONE)
			continue;
		if (it->loc == XMAS_LOC_HAND(seat))
			it->loc = (uint8_t)in;
		else if (it->loc == out)
			it->loc = (uint8_t)XMAS_LOC_HAND(seat);
		else if (it->loc < XMAS_CELLS)
			it->loc = (uint8_t)xmas_push_cell(it->loc, line, d);
	}
	for (int s = 0; s < 2; s++)
		st->pl[s].cell = (uint8_t)xmas_push_cell(st->pl[s].cell, line, d);
}

/* Applies the given pushes of one orientation (one frame); false if they collided. */
static bool push_frame(struct xmas_state *st, const game_move *mv, const bool *take)
{
	if (take[0] && take[1] && xmas_move_line(mv[0]) == xmas_move_line(mv[1]))
		return false; /* same line, same orientation: nothing, whatever the directions */
	for (int s = 0; s < 2; s++)
		if (take[s])
			push_line(st, s, xmas_move_line(mv[s]), xmas_move_dir(mv[s]));
	return true;
}

/* One MOVE step of seat; false (and nothing moves) if the step is illegal. */
static bool move_step(struct xmas_state *st, int seat, int d)
{
	int c = st->pl[seat].cell;
	if (!xmas_step_ok(&st->b, c, d))
		return false;
	st->pl[seat].cell = (uint8_t)xmas_step(c, d);
	return true;
}

bool xmas_move_fits_turn(const struct xmas_state *st, game_move m)
{
	int k = xmas_move_kind(m);
	if (st->turn_type == XMAS_TURN_PUSH)
		return k == XMAS_KIND_PUSH && xmas_move_line(m) < XMAS_SIZE;
	if (k == XMAS_KIND_MOVE)
		return xmas_move_nsteps(m) >= 1 && xmas_move_nsteps(m) <= XMAS_MAX_STEPS;
	return k == XMAS_KIND_PASS;
}

/* What seat's MOVE m of this turn came to: done steps, cut by an illegal one (wall). */
static void walk_record(struct xmas_state *st, int seat, game_move m, int done, bool wall)
{
	struct xmas_player *p = &st->pl[seat];
	p->walk_asked = (uint8_t)xmas_move_nsteps(m);
	p->walk_done = (uint8_t)done;
	p->walk_wall = wall;
}

/*
 * §6, §9.2-9.4: a fatal line or a timeout. The offender's score becomes -1;
 * the other seat's action still resolves for the first frame only (one push
 * frame, or step 1 of a MOVE), and that frame's collection check covers both
 * players. Then the game is over.
 */
static void resolve_fatal(struct xmas_state *st, const game_move *mv, const bool *ok,
                          const enum game_act *acts)
{
	bool invalid = false;
	for (int s = 0; s < 2; s++) {
		if (ok[s])
			continue;
		st->pl[s].score = -1;
		st->pl[s].fault = acts[s] == GAME_ACT_NONE ? XMAS_END_TIMEOUT : XMAS_END_INVALID;
		invalid |= st->pl[s].fault == XMAS_END_INVALID;
	}
	for (int s = 0; s < 2; s++) {
		if (!ok[s])
			continue;
		if (xmas_move_kind(mv[s]) == XMAS_KIND_PUSH) {
			push_line(st, s, xmas_move_line(mv[s]), xmas_move_dir(mv[s]));
		} else if (xmas_move_kind(mv[s]) == XMAS_KIND_MOVE) {
			bool stepped = move_step(st, s, xmas_move_step(mv[s], 0));
			walk_record(st, s, mv[s], stepped ? 1 : 0, !stepped);
		}
		collect(st);
	}
	end_game(st, invalid ? XMAS_END_INVALID : XMAS_END_TIMEOUT);
}

int xmas_resolve(void *vst, const game_move *moves, const enum game_act *acts)
{
	struct xmas_state *st = vst;
	if (st->over)
		return GAME_EOVER;
	/* §4 step 6: the check that runs after the input was sent, before actions */
	if (st->pending) {
		collect(st);
		st->pending = 0;
	}
	game_move mv[2];
	bool ok[2], skip[2] = {false, false};
	for (int s = 0; s < 2; s++) {
		st->pl[s].walk_asked = st->pl[s].walk_done = st->pl[s].walk_wall = 0;
		mv[s] = moves ? moves[s] : 0;
		ok[s] = acts[s] == GAME_ACT_MOVE && xmas_move_fits_turn(st, mv[s]);
		/* timeout=pass: a missed turn is no action, until too many in a row */
		if (st->miss_pass && acts[s] == GAME_ACT_NONE)
			skip[s] = ok[s] = ++st->pl[s].missed < XMAS_MISSED_OUT;
		else if (acts[s] == GAME_ACT_MOVE)
			st->pl[s].missed = 0;
	}
	if (!ok[0] || !ok[1]) {
		resolve_fatal(st, mv, ok, acts);
		return GAME_OK;
	}
	if (st->turn_type == XMAS_TURN_PUSH) {
		bool row[2], col[2], went = true;
		for (int s = 0; s < 2; s++) {
			row[s] = !skip[s] && xmas_dir_horizontal(xmas_move_dir(mv[s]));
			col[s] = !skip[s] && !row[s];
		}
		if (row[0] || row[1]) { /* the row frame first */
			went &= push_frame(st, mv, row);
			collect(st);
		}
		if (col[0] || col[1]) { /* then the column frame, on the board the rows left */
			went &= push_frame(st, mv, col);
			collect(st);
		}
		st->stale = went ? 0 : (uint8_t)(st->stale + 1);
	} else {
		/* lockstep: one step of each player per frame, a collection check after each */
		int left[2];
		bool walls[2] = {false, false};
		for (int s = 0; s < 2; s++) {
			bool walks = !skip[s] && xmas_move_kind(mv[s]) == XMAS_KIND_MOVE;
			left[s] = walks ? xmas_move_nsteps(mv[s]) : 0;
		}
		for (int f = 0; f < XMAS_MAX_STEPS && (left[0] > f || left[1] > f); f++) {
			for (int s = 0; s < 2; s++)
				/* an illegal step drops the rest of that MOVE */
				if (left[s] > f && !move_step(st, s, xmas_move_step(mv[s], f))) {
					left[s] = f;
					walls[s] = true;
				}
			collect(st);
		}
		collect(st); /* a PASS/PASS turn still has its one (empty) frame */
		for (int s = 0; s < 2; s++)
			if (!skip[s] && xmas_move_kind(mv[s]) == XMAS_KIND_MOVE)
				walk_record(st, s, mv[s], left[s], walls[s]);
	}
	begin_turn(st);
	return GAME_OK;
}

/* --- options, set-up, the game_ops entries -------------------------------------------- */

const struct game_optdef xmas_opts[XMAS_NOPTS] = {
        {"seed", 0, INT64_MIN, INT64_MAX,
         "the referee's seed (a Java long): its map and quests, known to whoever knows it; "
         "not given: the server's random seed, map and quests apart (published after the end)",
         GAME_OPT_RANDOM},
        {"pool", 3, 1, 3, "tile pool: 1 (Wood, Bronze), 2 (Silver, Gold) or 3 (Legend)"},
        {"league", 0, 0, 6,
         "the referee's league: 1 one quest, 2 six quests (both: pool 1, one quest shown, "
         "items on 3+-way tiles), 3 pool 1, 4-5 pool 2, 6 pool 3; 0: 12 quests on pool="},
        {"timeout", 0, 0, 1,
         "a turn missed: lose (the referee's: out at once) or pass (no push, or a PASS; "
         "3 in a row: out); people's seeks (not strict=1) take pass",
         GAME_OPT_PEOPLE, (const char *const[]){"lose", "pass", NULL}},
};

int64_t xmas_map_seed(uint64_t seed)
{
	return (int64_t)(seed >> 32);
}

void xmas_deal(struct xmas_state *st, uint64_t seed)
{
	int n = st->ncards;
	uint32_t fact[XMAS_NAMES + 1] = {1}; /* 12! < 2^32 */
	for (int i = 1; i <= n; i++)
		fact[i] = fact[i - 1] * (uint32_t)i;
	uint32_t rank = (uint32_t)seed % fact[n];
	uint8_t left[XMAS_NAMES];
	memcpy(left, st->names, (size_t)n);
	for (int i = 0; i < n; i++) {
		uint32_t f = fact[n - 1 - i];
		int j = (int)(rank / f);
		rank %= f;
		st->names[i] = left[j];
		memmove(left + j, left + j + 1, (size_t)(n - i - 1 - j));
	}
	st->seed = (int64_t)seed;
	st->dealt = 1;
}

int xmas_init(void *vst, const struct game_params *p, uint64_t seed)
{
	struct xmas_state *st = vst;
	/* seed= given: the referee's game of that Java long; else the map from the high half of
	 * the server's seed and the quests dealt by its low half (see xmas.h) */
	bool dealt = !p->set[0];
	int64_t s = dealt ? xmas_map_seed(seed) : p->v[0];
	struct xmas_league lg = {(uint8_t)p->v[1], 12, 3, false};
	if (p->v[2] > 0) { /* a league sets the pool; a pool= that says otherwise is refused */
		xmas_league((int)p->v[2], &lg);
		if (p->set[1] && p->v[1] != lg.pool)
			return GAME_EOPT;
	}
	int rc = xmas_setup_league(st, s, &lg);
	if (rc == GAME_OK) {
		st->miss_pass = p->v[3] == 1;
		if (dealt)
			xmas_deal(st, seed);
		flip_cards(st); /* once at init, like the referee */
		begin_turn(st);
	}
	return rc;
}

void xmas_params(struct game_params *p, int64_t seed, int pool)
{
	game_opts_default(xmas_opts, XMAS_NOPTS, p);
	p->v[0] = seed;
	p->set[0] = true;
	p->v[1] = pool;
	p->set[1] = true;
}

int xmas_start(struct xmas_state *st, int64_t seed, int pool)
{
	struct game_params p;
	xmas_params(&p, seed, pool);
	return xmas_init(st, &p, 0);
}

unsigned xmas_to_move(const void *vst)
{
	const struct xmas_state *st = vst;
	return st->over ? 0 : 3u;
}

int xmas_legal_moves(const void *vst, game_move *out, size_t cap)
{
	const struct xmas_state *st = vst;
	if (st->over)
		return 0;
	if (st->turn_type == XMAS_TURN_MOVE) {
		if (cap < 1)
			return GAME_ENOSPACE;
		out[0] = xmas_move_pass();
		return 1;
	}
	if (cap < 28)
		return GAME_ENOSPACE;
	int n = 0;
	for (int line = 0; line < XMAS_SIZE; line++)
		for (int d = 0; d < 4; d++)
			out[n++] = xmas_move_push(line, d);
	return n;
}

game_move xmas_move_steps(const int *dirs, int n)
{
	game_move m = XMAS_KIND_MOVE | (game_move)(n & 31) << 2;
	for (int i = 0; i < n && i < XMAS_MAX_STEPS; i++)
		m |= (game_move)(dirs[i] & 3) << (8 + 2 * i);
	return m;
}

int xmas_walk_wall(const struct xmas_state *st, int seat, game_move m, int *cell)
{
	if (xmas_move_kind(m) != XMAS_KIND_MOVE)
		return -1;
	int c = st->pl[seat].cell;
	for (int i = 0; i < xmas_move_nsteps(m); i++) {
		int d = xmas_move_step(m, i);
		if (!xmas_step_ok(&st->b, c, d)) {
			*cell = c;
			return i;
		}
		c = xmas_step(c, d);
	}
	return -1;
}

bb_t xmas_reachable(const struct xmas_state *st, int seat)
{
	return xmas_reach(&st->b, st->pl[seat].cell);
}

int xmas_moves_for(const struct xmas_state *st, int seat, game_move *out, size_t cap)
{
	if (st->over)
		return 0;
	if (st->turn_type == XMAS_TURN_PUSH)
		return xmas_legal_moves(st, out, cap);
	if (cap < 1)
		return GAME_ENOSPACE;
	/* breadth-first by bitboard layers; from[c] = the step that first reached c */
	int8_t from[XMAS_CELLS];
	const struct xmas_board *b = &st->b;
	const bb_t right = xmas_links_right(b), down = xmas_links_down(b);
	bb_t seen = bb_bit(st->pl[seat].cell), layer = seen;
	int n = 0;
	out[n++] = xmas_move_pass();
	for (int depth = 1; depth <= XMAS_MAX_STEPS && layer; depth++) {
		const bb_t grow[4] = {
		        (layer >> 7) & down,  /* UP: from (x, y+1) to (x, y) */
		        (layer & right) << 1, /* RIGHT */
		        (layer & down) << 7,  /* DOWN */
		        (layer >> 1) & right, /* LEFT: from (x+1, y) to (x, y) */
		};
		bb_t next = 0;
		for (int d = 0; d < 4; d++) {
			bb_t fresh = grow[d] & ~seen & ~next;
			int c;
			for (BB_EACH(c, t, fresh))
				from[c] = (int8_t)d;
			next |= fresh;
		}
		seen |= next;
		layer = next;
		int c;
		for (BB_EACH(c, t, next)) {
			int dirs[XMAS_MAX_STEPS], k = depth, at = c;
			while (k > 0) {
				dirs[--k] = from[at];
				at = xmas_step(at, xmas_dir_opposite(from[at]));
			}
			if ((size_t)n >= cap)
				return GAME_ENOSPACE;
			out[n++] = xmas_move_steps(dirs, depth);
		}
	}
	return n;
}

void xmas_result(const void *vst, struct game_result *r)
{
	const struct xmas_state *st = vst;
	int a = st->pl[0].score, b = st->pl[1].score;
	memset(r, 0, sizeof *r);
	r->over = st->over;
	r->winner = a == b ? -1 : (a > b ? 0 : 1);
	r->reason = st->over ? xmas_reason_names[st->reason] : "";
	snprintf(r->score, sizeof r->score, "%d-%d", a, b);
	r->scores[0] = a;
	r->scores[1] = b;
}

/* --- what a viewer may see ----------------------------------------------------- */

void xmas_view(const void *vst, int viewer, void *out)
{
	(void)viewer; /* both seats and the spectators see the same */
	struct xmas_state *v = out;
	memmove(v, vst, sizeof *v);
	if (v->over)
		return;
	v->seed = 0;
	memset(v->names, 0, sizeof v->names);
	v->hidden = 1;
}
