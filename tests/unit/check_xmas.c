/*
 * check_xmas.c - Xmas Rush against the official referee: the java.util.Random
 * port (values printed by a JDK), the seed-0 vectors of xmas-rush.md §7
 * verbatim, the bitboard push and reachability against plain array
 * references, and the turn rules of §4-§6 and §9 one by one (collisions and
 * deadlock, row before column, wraps and hands, every way of collecting, the
 * scored-after-input quirk, each fatal line, timeouts, the one-frame
 * resolution of a fatal turn, the twelfth quest, the turn limit).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "games/xmas/jrandom.h"
#include "games/xmas/xmas.h"
#include "check_main.h"

/* --- helpers ------------------------------------------------------------------ */

static void new_game(struct xmas_state *st, int64_t seed, int pool)
{
	struct game_params p;
	game_params_default(&game_xmas, &p);
	p.v[0] = seed;
	p.set[0] = true;
	p.v[1] = pool;
	p.set[1] = true;
	ck_assert_int_eq(game_xmas.init(st, &p, 12345), 0);
}

/* Plays one turn: a NULL line is a timeout, a line that does not parse is fatal. */
static void play(struct xmas_state *st, const char *l0, const char *l1)
{
	const char *lines[2] = {l0, l1};
	game_move m[2] = {0, 0};
	enum game_act a[2];
	for (int s = 0; s < 2; s++) {
		if (lines[s] == NULL)
			a[s] = GAME_ACT_NONE;
		else
			a[s] = game_xmas.parse_move(st, s, lines[s], &m[s], NULL) == 0
			               ? GAME_ACT_MOVE
			               : GAME_ACT_INVALID;
	}
	ck_assert_int_eq(game_xmas.resolve(st, m, a), 0);
}

static const char *input_of(const struct xmas_state *st, int seat)
{
	static char buf[2][XMAS_INPUT_MAX];
	ck_assert_int_gt(xmas_input(st, seat, buf[seat], sizeof buf[seat]), 0);
	return buf[seat];
}

static int cell(int x, int y)
{
	return y * 7 + x;
}

static int find_item(const struct xmas_state *st, const char *name, int owner)
{
	for (int i = 0; i < st->nitems; i++)
		if (strcmp(xmas_item_names[st->items[i].name], name) == 0 &&
		    st->items[i].owner == owner)
			return i;
	ck_abort_msg("no item %s of %d", name, owner);
	return -1;
}

/*
 * A controlled position on the seed-0 pool-2 game: every tile and both hands
 * are crosses (1111) so every step is legal, no item is on the board, the
 * players stand where asked; quests are the seed's (DIAMOND SWORD POTION
 * revealed, SCROLL next).
 */
static void open_board(struct xmas_state *st, int c0, int c1)
{
	new_game(st, 0, 2);
	for (int d = 0; d < 4; d++)
		st->b.open[d] = XMAS_BB_FULL;
	st->b.hand[0] = st->b.hand[1] = 0xF;
	for (int i = 0; i < st->nitems; i++)
		st->items[i].loc = XMAS_LOC_GONE;
	st->pl[0].cell = (uint8_t)c0;
	st->pl[1].cell = (uint8_t)c1;
}

static void put_item(struct xmas_state *st, const char *name, int owner, int loc)
{
	st->items[find_item(st, name, owner)].loc = (uint8_t)loc;
}

/* --- plain references: a 7x7 array of tiles, pushes and BFS --------------------- */

struct ref {
	unsigned t[7][7]; /* [y][x] */
	unsigned hand[2];
};

static void ref_from(struct ref *r, const struct xmas_board *b)
{
	for (int y = 0; y < 7; y++)
		for (int x = 0; x < 7; x++)
			r->t[y][x] = xmas_board_tile(b, x, y);
	r->hand[0] = b->hand[0];
	r->hand[1] = b->hand[1];
}

static void ref_push(struct ref *r, int seat, int line, int d)
{
	unsigned h = r->hand[seat], out;
	switch (d) {
	case XMAS_RIGHT:
		out = r->t[line][6];
		for (int x = 6; x > 0; x--)
			r->t[line][x] = r->t[line][x - 1];
		r->t[line][0] = h;
		break;
	case XMAS_LEFT:
		out = r->t[line][0];
		for (int x = 0; x < 6; x++)
			r->t[line][x] = r->t[line][x + 1];
		r->t[line][6] = h;
		break;
	case XMAS_DOWN:
		out = r->t[6][line];
		for (int y = 6; y > 0; y--)
			r->t[y][line] = r->t[y - 1][line];
		r->t[0][line] = h;
		break;
	default:
		out = r->t[0][line];
		for (int y = 0; y < 6; y++)
			r->t[y][line] = r->t[y + 1][line];
		r->t[6][line] = h;
		break;
	}
	r->hand[seat] = out;
}

static void ck_same(const struct ref *r, const struct xmas_board *b)
{
	for (int y = 0; y < 7; y++)
		for (int x = 0; x < 7; x++)
			ck_assert_uint_eq(r->t[y][x], xmas_board_tile(b, x, y));
	ck_assert_uint_eq(r->hand[0], b->hand[0]);
	ck_assert_uint_eq(r->hand[1], b->hand[1]);
}

/* BFS over the array with the referee's isValidMove (A has d, B on board, B has opposite). */
static uint64_t ref_reach(const struct ref *r, int x0, int y0)
{
	static const int dx[4] = {0, 1, 0, -1}, dy[4] = {-1, 0, 1, 0};
	int qx[49], qy[49], head = 0, tail = 0;
	uint64_t seen = 1ULL << cell(x0, y0);
	qx[tail] = x0;
	qy[tail++] = y0;
	while (head < tail) {
		int x = qx[head], y = qy[head++];
		for (int d = 0; d < 4; d++) {
			int nx = x + dx[d], ny = y + dy[d];
			if (nx < 0 || ny < 0 || nx > 6 || ny > 6 || !((r->t[y][x] >> d) & 1) ||
			    !((r->t[ny][nx] >> (d ^ 2)) & 1) || (seen >> cell(nx, ny)) & 1)
				continue;
			seen |= 1ULL << cell(nx, ny);
			qx[tail] = nx;
			qy[tail++] = ny;
		}
	}
	return seen;
}

/* --- java.util.Random ------------------------------------------------------------- */

START_TEST(test_jrandom_jdk_values)
{
	/* printed by OpenJDK's java.util.Random for these seeds */
	struct jrandom r;
	jrandom_init(&r, 0);
	ck_assert_int_eq(jrandom_next_int(&r), -1155484576);
	jrandom_init(&r, 42);
	ck_assert_int_eq(jrandom_next_int(&r), -1170105035);

	static const int r42_10[10] = {0, 3, 8, 4, 0, 5, 5, 8, 9, 3};
	jrandom_init(&r, 42);
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(jrandom_next_int_n(&r, 10), r42_10[i]);

	/* power-of-two branch */
	static const int big_64[10] = {42, 33, 55, 38, 56, 53, 5, 59, 52, 25};
	jrandom_init(&r, 123456789012345LL);
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(jrandom_next_int_n(&r, 64), big_64[i]);

	/* n = 2^30 + 1: about half of all draws fall in the rejected last bucket */
	static const int neg7[10] = {577934662, 314447087, 677675436, 184135245, 425474944,
	                             988357177, 370061409, 272470848, 234734917, 761900151};
	jrandom_init(&r, -7);
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(jrandom_next_int_n(&r, 1073741825), neg7[i]);

	/* a negative long seed, and nextInt() values with the sign bit set */
	static const int minlong[5] = {-1155484576, -723955400, 1033096058, -1690734402,
	                               -1557280266};
	jrandom_init(&r, INT64_MIN);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(jrandom_next_int(&r), minlong[i]);
}
END_TEST

START_TEST(test_jrandom_branches)
{
	/* the power-of-two branch takes the top bits of one next(31) */
	struct jrandom a, b;
	jrandom_init(&a, 99);
	b = a;
	int32_t raw = jrandom_next(&b, 31);
	ck_assert_int_eq(jrandom_next_int_n(&a, 16), raw >> 27);
	ck_assert_uint_eq(a.seed, b.seed);

	/* the rejection loop: a draw u >= n (so u - u % n + n - 1 overflows) is redrawn */
	const int32_t n = 1073741825;
	int rejected = 0;
	for (int64_t s = 0; s < 64; s++) {
		jrandom_init(&a, s);
		b = a;
		int32_t u = jrandom_next(&b, 31);
		int32_t v = jrandom_next_int_n(&a, n);
		if (u >= n) {
			rejected++;
			ck_assert_uint_ne(a.seed, b.seed); /* it drew again */
			ck_assert_int_lt(v, n);
		} else {
			ck_assert_int_eq(v, u % n);
			ck_assert_uint_eq(a.seed, b.seed);
		}
	}
	ck_assert_int_gt(rejected, 0);
}
END_TEST

/* --- geometry, tiles ------------------------------------------------------------ */

START_TEST(test_geometry_and_tiles)
{
	struct bb_geom g;
	ck_assert(bb_geom_init(&g, 7, 7));
	const struct bb_geom *x = xmas_geom();
	ck_assert_int_eq(x->n, g.n);
	ck_assert_uint_eq(x->full, g.full);
	for (int d = 0; d < 4; d++)
		ck_assert_uint_eq(x->edge[d], g.edge[d]);
	ck_assert_uint_eq(x->not_west, g.not_west);
	ck_assert_uint_eq(x->not_east, g.not_east);

	char s[5];
	for (unsigned t = 0; t < 16; t++) {
		xmas_tile_str(t, s);
		ck_assert_int_eq(xmas_tile_parse(s), (int)t);
	}
	ck_assert_int_eq(xmas_tile_parse("0110"), 0x6);
	/* rotate(1): the last character to the front, "0110" -> "0011" */
	xmas_tile_str(xmas_tile_rotate(0x6, 1), s);
	ck_assert_str_eq(s, "0011");
	xmas_tile_str(xmas_tile_rot180(0x6), s);
	ck_assert_str_eq(s, "1001");
	xmas_tile_str(xmas_tile_rotate(xmas_tile_parse("1101"), 2), s);
	ck_assert_str_eq(s, "0111");
	ck_assert_int_eq(xmas_tile_parse("012a"), -1);
}
END_TEST

/* --- §7 vectors -------------------------------------------------------------------- */

static const char seed0_map[] = "0110 0011 1101 1010 1010 1010 1010\n"
                                "1101 0101 1001 0011 1010 1101 1011\n"
                                "0110 1101 1001 1001 0111 0101 1010\n"
                                "0111 0101 1001 1111 0110 0101 1101\n"
                                "1010 0101 1101 0110 0110 0111 1001\n"
                                "1110 0111 1010 1100 0110 0101 0111\n"
                                "1010 1010 1010 1010 0111 1100 1001\n";

START_TEST(test_seed0_pool2_turn1)
{
	struct xmas_state st;
	new_game(&st, 0, 2);
	static const char *const shuffled[12] = {"ARROW",  "KEY",    "SHIELD", "CANDY",
	                                         "CANE",   "BOOK",   "FISH",   "MASK",
	                                         "SCROLL", "POTION", "SWORD",  "DIAMOND"};
	for (int i = 0; i < 12; i++)
		ck_assert_str_eq(xmas_item_names[st.names[i]], shuffled[i]);

	char want[XMAS_INPUT_MAX];
	snprintf(want, sizeof want, "0\n%s%s", seed0_map,
	         "12 0 0 0110\n12 6 6 1001\n24\n"
	         "POTION 5 3 0\nCANE 3 6 0\nSWORD 5 4 1\nDIAMOND 2 3 0\nMASK 0 6 0\n"
	         "SCROLL 4 1 1\nFISH 2 0 1\nFISH 4 6 0\nSHIELD 4 0 0\nCANDY 4 5 0\n"
	         "BOOK 6 5 0\nARROW 0 2 0\nCANE 3 0 1\nMASK 6 0 1\nSWORD 1 2 0\n"
	         "KEY 4 4 1\nSCROLL 2 5 0\nCANDY 2 1 1\nKEY 2 2 0\nSHIELD 2 6 1\n"
	         "ARROW 6 4 1\nDIAMOND 4 3 1\nBOOK 0 1 1\nPOTION 1 3 1\n"
	         "6\nDIAMOND 0\nSWORD 0\nPOTION 0\nDIAMOND 1\nSWORD 1\nPOTION 1\n");
	ck_assert_str_eq(input_of(&st, 0), want);

	/* player 1: same map, its own line first, ids flipped, its quests first */
	snprintf(want, sizeof want, "0\n%s%s", seed0_map,
	         "12 6 6 1001\n12 0 0 0110\n24\n"
	         "POTION 5 3 1\nCANE 3 6 1\nSWORD 5 4 0\nDIAMOND 2 3 1\nMASK 0 6 1\n"
	         "SCROLL 4 1 0\nFISH 2 0 0\nFISH 4 6 1\nSHIELD 4 0 1\nCANDY 4 5 1\n"
	         "BOOK 6 5 1\nARROW 0 2 1\nCANE 3 0 0\nMASK 6 0 0\nSWORD 1 2 1\n"
	         "KEY 4 4 0\nSCROLL 2 5 1\nCANDY 2 1 0\nKEY 2 2 1\nSHIELD 2 6 0\n"
	         "ARROW 6 4 0\nDIAMOND 4 3 0\nBOOK 0 1 0\nPOTION 1 3 0\n"
	         "6\nDIAMOND 0\nSWORD 0\nPOTION 0\nDIAMOND 1\nSWORD 1\nPOTION 1\n");
	ck_assert_str_eq(input_of(&st, 1), want);

	/* point symmetry of the generated map */
	for (int c = 0; c < 49; c++)
		ck_assert_uint_eq(xmas_board_tile(&st.b, c % 7, c / 7),
		                  xmas_tile_rot180(xmas_board_tile(&st.b, 6 - c % 7, 6 - c / 7)));
}
END_TEST

START_TEST(test_seed0_push_check)
{
	struct xmas_state st;
	new_game(&st, 0, 2);
	play(&st, "PUSH 0 RIGHT", "PUSH 6 UP");
	ck_assert_int_eq(st.turn, 2);
	ck_assert_int_eq(st.turn_type, XMAS_TURN_MOVE);
	ck_assert_int_eq(st.stale, 0);
	const char *in = input_of(&st, 0);
	static const char want[] = "1\n"
	                           "0110 0110 0011 1101 1010 1010 1011\n"
	                           "1101 0101 1001 0011 1010 1101 1010\n"
	                           "0110 1101 1001 1001 0111 0101 1101\n"
	                           "0111 0101 1001 1111 0110 0101 1001\n"
	                           "1010 0101 1101 0110 0110 0111 0111\n"
	                           "1110 0111 1010 1100 0110 0101 1001\n"
	                           "1010 1010 1010 1010 0111 1100 1001\n"
	                           "12 1 0 1010\n"
	                           "12 6 5 1010\n"
	                           "24\n"
	                           "POTION 5 3 0\nCANE 3 6 0\nSWORD 5 4 1\nDIAMOND 2 3 0\n"
	                           "MASK 0 6 0\nSCROLL 4 1 1\nFISH 3 0 1\nFISH 4 6 0\n"
	                           "SHIELD 5 0 0\nCANDY 4 5 0\nBOOK 6 4 0\nARROW 0 2 0\n"
	                           "CANE 4 0 1\nMASK -1 -1 1\nSWORD 1 2 0\nKEY 4 4 1\n"
	                           "SCROLL 2 5 0\nCANDY 2 1 1\nKEY 2 2 0\nSHIELD 2 6 1\n"
	                           "ARROW 6 3 1\nDIAMOND 4 3 1\nBOOK 0 1 1\nPOTION 1 3 1\n"
	                           "6\nDIAMOND 0\nSWORD 0\nPOTION 0\nDIAMOND 1\nSWORD 1\n"
	                           "POTION 1\n";
	ck_assert_str_eq(in, want);
	/* seen from player 1, MASK sits in the opponent's hand */
	ck_assert_ptr_nonnull(strstr(input_of(&st, 1), "\nMASK -2 -2 0\n"));
	ck_assert_ptr_nonnull(strstr(input_of(&st, 1), "\n12 6 5 1010\n12 1 0 1010\n"));
}
END_TEST

START_TEST(test_seed0_pool3)
{
	struct xmas_state st;
	new_game(&st, 0, 3);
	const char *in = input_of(&st, 0);
	ck_assert_int_eq(strncmp(in,
	                         "0\n0110 0011 1101 1010 1010 1010 1010\n"
	                         "0111 0101 1001 0011 1010 0111 1100\n",
	                         2 + 35 + 35),
	                 0);
	ck_assert_ptr_nonnull(strstr(in, "\n12 0 0 0110\n12 6 6 1001\n"));
	ck_assert_int_eq(st.b.hand[0], 0x6);
	ck_assert_int_eq(st.b.hand[1], 0x9);
}
END_TEST

/* The public part of a game at its start: board, hands, cells, items (names and places). */
static void same_map(const struct xmas_state *a, const struct xmas_state *b)
{
	ck_assert_mem_eq(&a->b, &b->b, sizeof a->b);
	ck_assert_int_eq(a->nitems, b->nitems);
	ck_assert_mem_eq(a->items, b->items, sizeof a->items);
	for (int s = 0; s < 2; s++)
		ck_assert_int_eq(a->pl[s].cell, b->pl[s].cell);
}

START_TEST(test_seed_from_server)
{
	/* no seed option: the server's seed, its high half the map's Java long, its low half
	 * the deal of the quests; reported whole once the game has ended */
	struct game_params p;
	struct xmas_state a, b;
	game_params_default(&game_xmas, &p);
	const uint64_t seed = 0x89ABCDEF01234567ULL;
	ck_assert_int_eq(game_xmas.init(&a, &p, seed), 0);
	ck_assert_int_eq(a.seed, (int64_t)seed);
	ck_assert_int_eq(a.dealt, 1);
	ck_assert_int_eq(a.pool, 3);
	ck_assert_int_eq(xmas_map_seed(seed), 0x89ABCDEF);
	new_game(&b, 0x89ABCDEF, 3);
	ck_assert_int_eq(b.dealt, 0);
	same_map(&a, &b); /* the referee's map of that Java long */
	/* the deck: the same names, in the deal's order (rank 0x01234567 mod 12!) */
	uint8_t want[XMAS_NAMES], left[XMAS_NAMES];
	memcpy(left, b.names, sizeof left);
	uint32_t rank = 0x01234567u % 479001600u, f = 39916800u; /* 11! */
	for (int i = 0, n = XMAS_NAMES; i < XMAS_NAMES; i++, n--) {
		int j = (int)(rank / f);
		rank %= f;
		want[i] = left[j];
		memmove(left + j, left + j + 1, (size_t)(n - 1 - j));
		if (n > 1)
			f /= (uint32_t)(n - 1);
	}
	ck_assert_mem_eq(a.names, want, sizeof want);
	a.over = 1;
	cJSON *j = game_xmas.to_json(&a, -1);
	ck_assert_str_eq(cJSON_GetObjectItem(j, "seed")->valuestring, "-8526495043095935641");
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(j, "dealt")));
	cJSON_Delete(j);
	/* pools are 1..3 (pool 1 is the low leagues', check_xmas_league) */
	p.v[1] = 4;
	ck_assert_int_eq(game_xmas.init(&a, &p, 1), GAME_EOPT);
	p.v[1] = 0;
	ck_assert_int_eq(game_xmas.init(&a, &p, 1), GAME_EOPT);
}
END_TEST

START_TEST(test_deal_ranks)
{
	/* the deal is a bijection of the ranks 0 .. n!-1 onto the orders of the n names */
	struct xmas_state st;
	struct xmas_league lg;
	ck_assert_int_eq(xmas_league(0, &lg), GAME_OK); /* the demo: 3 quests */
	ck_assert_int_eq(lg.ncards, 3);
	bool seen[3][3][3] = {{{false}}};
	for (uint64_t r = 0; r < 6; r++) {
		ck_assert_int_eq(xmas_setup_league(&st, 5, &lg), GAME_OK);
		uint8_t set[3] = {st.names[0], st.names[1], st.names[2]};
		xmas_deal(&st, (7ULL << 32) | (r + 6 * 1000)); /* the rank is taken mod 3! */
		int k[3];
		for (int i = 0; i < 3; i++) {
			k[i] = -1;
			for (int m = 0; m < 3; m++)
				if (st.names[i] == set[m])
					k[i] = m;
			ck_assert_int_ge(k[i], 0);
		}
		ck_assert(!seen[k[0]][k[1]][k[2]]);
		seen[k[0]][k[1]][k[2]] = true;
	}
	/* rank 0 keeps the order; the names the map did not place are left alone */
	ck_assert_int_eq(xmas_setup_league(&st, 5, &lg), GAME_OK);
	struct xmas_state before = st;
	xmas_deal(&st, 0);
	ck_assert_mem_eq(st.names, before.names, sizeof st.names);
}
END_TEST

/*
 * The attack the deal stops. The board a game lays out tells the state of the referee's
 * generator (48 bits, far fewer than the board's own information), so the most an observer
 * can learn from a published board is the map's Java long. Given that, with a seed= game
 * the whole hidden quest order follows (the referee's game of that seed); with a dealt one
 * it does not: over many games the next hidden quest, guessed from the map, is right about
 * as often as a blind guess among the 9 left.
 */
START_TEST(test_dealt_map_tells_nothing)
{
	uint64_t x = 0x5EED;
	int games = 900, referee_hits = 0, dealt_hits = 0;
	for (int i = 0; i < games; i++) {
		uint64_t seed = rng_splitmix64(&x);
		struct game_params p;
		game_params_default(&game_xmas, &p);
		struct xmas_state dealt, map, ref;
		ck_assert_int_eq(game_xmas.init(&dealt, &p, seed), 0);
		/* the observer's best: the map's seed, and the referee's game of it */
		new_game(&map, xmas_map_seed(seed), 3);
		same_map(&dealt, &map);
		/* the next quest each will reveal: names[ndeck - 1] */
		int next = dealt.pl[0].ndeck - 1;
		dealt_hits += map.names[next] == dealt.names[next];
		/* a referee's game (seed= given): its board pins the generator's 48 bits, and
		 * any Java long with those bits lays out the same board and the same deck */
		new_game(&ref, (int64_t)seed, 3);
		struct xmas_state guess;
		new_game(&guess, (int64_t)(seed & ((1ULL << 48) - 1)), 3);
		same_map(&ref, &guess);
		referee_hits += guess.names[next] == ref.names[next];
	}
	ck_assert_int_eq(referee_hits, games);
	/* 1/9 of 900 is 100 (sd about 9.4): far from what the map would tell if it told */
	ck_assert_int_lt(dealt_hits, 160);
	ck_assert_int_gt(dealt_hits, 50);
}
END_TEST

/* Every one of the 12 names comes first in a deal about as often (12,000 deals of one map). */
START_TEST(test_deal_uniform)
{
	int count[XMAS_NAMES] = {0};
	struct game_params p;
	game_params_default(&game_xmas, &p);
	uint64_t x = 42;
	for (int i = 0; i < 12000; i++) {
		struct xmas_state st;
		uint64_t seed = (0x1234ULL << 32) | (uint32_t)rng_splitmix64(&x);
		ck_assert_int_eq(game_xmas.init(&st, &p, seed), 0);
		count[st.names[st.pl[0].ndeck - 1]]++; /* the next to be revealed */
	}
	for (int k = 0; k < XMAS_NAMES; k++) { /* 1000 each, sd about 30 */
		ck_assert_int_gt(count[k], 1000 - 200);
		ck_assert_int_lt(count[k], 1000 + 200);
	}
}
END_TEST

/* --- the push engine ------------------------------------------------------------------ */

START_TEST(test_push_every_direction)
{
	/* every push of every line on several seeded boards, against the array reference */
	for (int64_t seed = 0; seed < 8; seed++) {
		struct xmas_state st;
		new_game(&st, seed * 7919 - 3, 2 + (int)(seed & 1));
		struct xmas_board b = st.b;
		struct ref r;
		ref_from(&r, &b);
		for (int k = 0; k < 200; k++) {
			int line = (k * 5 + (int)seed) % 7, d = (k * 3 + k / 7) & 3, seat = k & 1;
			xmas_board_push(&b, seat, line, d);
			ref_push(&r, seat, line, d);
			ck_same(&r, &b);
			for (int dd = 0; dd < 4; dd++)
				ck_assert_uint_eq(b.open[dd] & ~XMAS_BB_FULL, 0);
		}
	}
	/* the four directions by hand on row/column 3 of the seed-0 map */
	struct xmas_state st;
	new_game(&st, 0, 2);
	struct xmas_board b = st.b;
	xmas_board_push(&b, 0, 3, XMAS_RIGHT);
	ck_assert_uint_eq(xmas_board_tile(&b, 0, 3), 0x6);     /* hand 0110 enters at (0,3) */
	ck_assert_uint_eq(b.hand[0], xmas_tile_parse("1101")); /* old (6,3) */
	ck_assert_uint_eq(xmas_board_tile(&b, 4, 3), 0xF);     /* the centre cross moved right */
	b = st.b;
	xmas_board_push(&b, 1, 3, XMAS_LEFT);
	ck_assert_uint_eq(xmas_board_tile(&b, 6, 3), 0x9);
	ck_assert_uint_eq(b.hand[1], xmas_tile_parse("0111")); /* old (0,3) */
	b = st.b;
	xmas_board_push(&b, 0, 3, XMAS_DOWN);
	ck_assert_uint_eq(xmas_board_tile(&b, 3, 0), 0x6);
	ck_assert_uint_eq(b.hand[0], xmas_tile_parse("1010")); /* old (3,6) */
	ck_assert_uint_eq(xmas_board_tile(&b, 3, 4), 0xF);
	b = st.b;
	xmas_board_push(&b, 1, 3, XMAS_UP);
	ck_assert_uint_eq(xmas_board_tile(&b, 3, 6), 0x9);
	ck_assert_uint_eq(b.hand[1], xmas_tile_parse("1010")); /* old (3,0) */
	ck_assert_uint_eq(xmas_board_tile(&b, 3, 2), 0xF);
}
END_TEST

START_TEST(test_reach_matches_bfs)
{
	for (int64_t seed = 0; seed < 20; seed++) {
		struct xmas_state st;
		new_game(&st, seed * 104729 + 11, 3);
		struct xmas_board b = st.b;
		struct ref r;
		for (int k = 0; k < 60; k++) {
			xmas_board_push(&b, k & 1, (k * 3 + (int)seed) % 7, (k + k / 4) & 3);
			ref_from(&r, &b);
			for (int c = 0; c < 49; c += 1 + (k & 3))
				ck_assert_uint_eq(xmas_reach(&b, c), ref_reach(&r, c % 7, c / 7));
		}
		/* single steps agree with the reference's isValidMove */
		ref_from(&r, &b);
		for (int c = 0; c < 49; c++)
			for (int d = 0; d < 4; d++) {
				uint64_t nb = ref_reach(&r, c % 7, c / 7);
				bool ok = xmas_step_ok(&b, c, d);
				if (ok)
					ck_assert((nb >> xmas_step(c, d)) & 1);
			}
	}
}
END_TEST

START_TEST(test_moves_for_cover_reach)
{
	struct xmas_state st;
	new_game(&st, 5, 3);
	play(&st, "PUSH 1 LEFT", "PUSH 5 RIGHT");
	ck_assert_int_eq(st.turn_type, XMAS_TURN_MOVE);
	for (int s = 0; s < 2; s++) {
		game_move m[64];
		int n = xmas_moves_for(&st, s, m, 64);
		ck_assert_int_ge(n, 1);
		ck_assert_int_eq(xmas_move_kind(m[0]), XMAS_KIND_PASS);
		bb_t ends = bb_bit(st.pl[s].cell);
		for (int i = 1; i < n; i++) {
			int c = st.pl[s].cell;
			for (int k = 0; k < xmas_move_nsteps(m[i]); k++) {
				ck_assert(xmas_step_ok(&st.b, c, xmas_move_step(m[i], k)));
				c = xmas_step(c, xmas_move_step(m[i], k));
			}
			ends |= bb_bit(c);
			char text[GAME_MOVE_TEXT];
			game_move back;
			ck_assert_int_gt(game_xmas.format_move(&st, m[i], text, sizeof text), 0);
			ck_assert_int_eq(game_xmas.parse_move(&st, s, text, &back, NULL), 0);
			ck_assert_uint_eq(back, m[i]);
		}
		ck_assert_uint_eq(ends, xmas_reachable(&st, s)); /* paths here are short */
		ck_assert_int_eq(n, bb_popcount(ends));
	}
}
END_TEST

/* --- collisions, deadlock, crossing ---------------------------------------------- */

START_TEST(test_same_line_is_stale)
{
	static const char *const pairs[][2] = {
	        {"PUSH 2 LEFT", "PUSH 2 RIGHT"}, /* opposite */
	        {"PUSH 2 LEFT", "PUSH 2 LEFT"},  /* identical */
	        {"PUSH 4 UP", "PUSH 4 DOWN"},
	        {"PUSH 4 DOWN", "PUSH 4 DOWN"},
	};
	for (int i = 0; i < 4; i++) {
		struct xmas_state st, before;
		new_game(&st, 0, 2);
		before = st;
		play(&st, pairs[i][0], pairs[i][1]);
		ck_assert_mem_eq(&st.b, &before.b, sizeof st.b);
		ck_assert_int_eq(st.pl[0].cell, before.pl[0].cell);
		ck_assert_int_eq(st.stale, 1);
		ck_assert(!st.over);
	}
	/* row 3 against column 3 is not a collision */
	struct xmas_state st;
	new_game(&st, 0, 2);
	play(&st, "PUSH 3 RIGHT", "PUSH 3 DOWN");
	ck_assert_int_eq(st.stale, 0);
}
END_TEST

START_TEST(test_deadlock_after_ten)
{
	struct xmas_state st;
	new_game(&st, 0, 2);
	for (int k = 1; k <= 10; k++) {
		ck_assert_int_eq(st.turn_type, XMAS_TURN_PUSH);
		play(&st, "PUSH 1 LEFT", "PUSH 1 UP"); /* row 1 vs column 1: goes through */
		ck_assert_int_eq(st.stale, 0);
		play(&st, "PASS", "PASS");
	}
	bool reset = false;
	for (int k = 1; k <= 10; k++) {
		play(&st, "PUSH 5 RIGHT", "PUSH 5 LEFT");
		ck_assert_int_eq(st.stale, k);
		if (k < 10) {
			ck_assert(!st.over);
			if (k == 5 && !reset) { /* a push that goes through resets the count */
				reset = true;
				play(&st, "PASS", "PASS");
				play(&st, "PUSH 0 UP", "PUSH 6 UP");
				ck_assert_int_eq(st.stale, 0);
				k = 0;
			}
			play(&st, "PASS", "PASS");
		}
	}
	/* the game ends at the start of the next turn: the MOVE never comes */
	ck_assert(st.over);
	ck_assert_uint_eq(game_xmas.to_move(&st), 0);
	struct game_result r;
	game_xmas.result(&st, &r);
	ck_assert_str_eq(r.reason, "deadlock");
	ck_assert_int_eq(r.winner,
	                 st.pl[0].score == st.pl[1].score ? -1 : st.pl[0].score < st.pl[1].score);
	ck_assert_int_eq(st.turn_type, XMAS_TURN_PUSH);
}
END_TEST

START_TEST(test_row_before_column)
{
	struct xmas_state st;
	new_game(&st, 0, 2);
	struct ref rowfirst, colfirst;
	ref_from(&rowfirst, &st.b);
	ref_from(&colfirst, &st.b);
	ref_push(&rowfirst, 0, 3, XMAS_RIGHT);
	ref_push(&rowfirst, 1, 3, XMAS_DOWN);
	ref_push(&colfirst, 1, 3, XMAS_DOWN);
	ref_push(&colfirst, 0, 3, XMAS_RIGHT);
	ck_assert_int_ne(memcmp(&rowfirst, &colfirst, sizeof rowfirst), 0);
	/* the column push is listed first, the row still goes first */
	play(&st, "PUSH 3 DOWN", "PUSH 3 RIGHT");
	struct ref want;
	new_game(&st, 0, 2);
	ref_from(&want, &st.b);
	ref_push(&want, 1, 3, XMAS_RIGHT);
	ref_push(&want, 0, 3, XMAS_DOWN);
	play(&st, "PUSH 3 DOWN", "PUSH 3 RIGHT");
	ck_same(&want, &st.b);

	/* a player on both lines moves with the row, then with the column */
	open_board(&st, cell(2, 3), cell(6, 6));
	play(&st, "PUSH 3 RIGHT", "PUSH 3 DOWN");
	ck_assert_int_eq(st.pl[0].cell, cell(3, 4)); /* (2,3) -> (3,3) -> (3,4) */
}
END_TEST

/* --- wraps, hands ----------------------------------------------------------------- */

START_TEST(test_wrap_players_and_items)
{
	struct xmas_state st;
	open_board(&st, cell(6, 2), cell(3, 0));
	put_item(&st, "KEY", 1, cell(6, 2));
	put_item(&st, "BOOK", 0, cell(3, 6));
	play(&st, "PUSH 2 RIGHT", "PUSH 3 DOWN");
	/* player 0 was pushed off the right edge onto the inserted tile; player 1 went down */
	ck_assert_int_eq(st.pl[0].cell, cell(0, 2));
	ck_assert_int_eq(st.pl[1].cell, cell(3, 1));
	/* KEY rode into player 0's hand, BOOK into player 1's */
	ck_assert_ptr_nonnull(strstr(input_of(&st, 0), "\nKEY -1 -1 1\n"));
	ck_assert_ptr_nonnull(strstr(input_of(&st, 1), "\nKEY -2 -2 0\n"));
	ck_assert_ptr_nonnull(strstr(input_of(&st, 0), "\nBOOK -2 -2 0\n"));
	ck_assert_ptr_nonnull(strstr(input_of(&st, 1), "\nBOOK -1 -1 1\n"));
	play(&st, "PASS", "PASS");
	/* pushed back in: the hand tile carries its item onto the board */
	play(&st, "PUSH 5 LEFT", "PUSH 1 UP");
	ck_assert_ptr_nonnull(strstr(input_of(&st, 0), "\nKEY 6 5 1\n"));
	ck_assert_ptr_nonnull(strstr(input_of(&st, 0), "\nBOOK 1 6 0\n"));
	/* player 1 at (3,1) is not on column 1; player 0 at (0,2) not on row 5 */
	ck_assert_int_eq(st.pl[0].cell, cell(0, 2));
	ck_assert_int_eq(st.pl[1].cell, cell(3, 1));

	/* both players on one pushed line move; UP wraps row 0 to row 6 */
	open_board(&st, cell(4, 0), cell(4, 5));
	play(&st, "PUSH 4 UP", "PUSH 2 LEFT");
	ck_assert_int_eq(st.pl[0].cell, cell(4, 6));
	ck_assert_int_eq(st.pl[1].cell, cell(4, 4));
	/* and a row push moves before a column push decides who is on the column */
	open_board(&st, cell(4, 0), cell(4, 5));
	play(&st, "PUSH 4 UP", "PUSH 0 LEFT");
	ck_assert_int_eq(st.pl[0].cell, cell(3, 0)); /* (4,0) -> (3,0), then off column 4 */
	ck_assert_int_eq(st.pl[1].cell, cell(4, 4));
}
END_TEST

/* --- collecting --------------------------------------------------------------------- */

START_TEST(test_collect_by_push_and_by_passing)
{
	struct xmas_state st;
	/* a player and an item on one pushed line ride together: no meeting */
	open_board(&st, cell(1, 1), cell(6, 6));
	put_item(&st, "DIAMOND", 0, cell(2, 1));
	play(&st, "PUSH 1 RIGHT", "PUSH 6 LEFT");
	ck_assert_int_eq(st.pl[0].cell, cell(2, 1));
	ck_assert_int_eq(st.items[find_item(&st, "DIAMOND", 0)].loc, cell(3, 1));
	ck_assert_int_eq(st.pl[0].score, 0);

	/* by one's own push: player 0 wraps off the right edge onto its hand tile, DIAMOND on it */
	open_board(&st, cell(6, 1), cell(6, 6));
	put_item(&st, "DIAMOND", 0, XMAS_LOC_HAND(0));
	play(&st, "PUSH 1 RIGHT", "PUSH 6 LEFT");
	ck_assert_int_eq(st.pl[0].cell, cell(0, 1));
	ck_assert_int_eq(st.pl[0].score, 1);
	ck_assert_int_eq(st.pl[0].nvis, 3); /* SCROLL was revealed at the next turn start */
	ck_assert_str_eq(xmas_item_names[st.pl[0].vis[2]], "SCROLL");
	ck_assert_int_eq(st.items[find_item(&st, "DIAMOND", 0)].loc, XMAS_LOC_GONE);
	ck_assert_ptr_null(strstr(input_of(&st, 0), "DIAMOND 0 1"));
	ck_assert_ptr_nonnull(strstr(input_of(&st, 0), "\n11 0 1 1111\n"));

	/* by passing over: SWORD on the way, the MOVE ends past it; an opponent's item is no use */
	open_board(&st, cell(0, 0), cell(6, 6));
	put_item(&st, "SWORD", 0, cell(2, 0));
	put_item(&st, "POTION", 1, cell(3, 0));
	put_item(&st, "POTION", 0, cell(4, 1));
	play(&st, "PUSH 6 RIGHT", "PUSH 0 DOWN"); /* column 0 down: player 0 to (0,1) */
	ck_assert_int_eq(st.pl[0].cell, cell(0, 1));
	play(&st, "MOVE UP RIGHT RIGHT RIGHT DOWN RIGHT", "PASS");
	ck_assert_int_eq(st.pl[0].cell, cell(4, 1));
	ck_assert_int_eq(st.pl[0].score, 2); /* SWORD on the way, POTION at the end */
	ck_assert_int_eq(st.pl[1].score, 0);
	ck_assert_int_ne(st.items[find_item(&st, "POTION", 1)].loc, XMAS_LOC_GONE);

	/* a quest not revealed yet is not collected by walking over it */
	open_board(&st, cell(0, 0), cell(6, 6));
	put_item(&st, "ARROW", 0, cell(0, 3));
	play(&st, "PUSH 6 RIGHT", "PUSH 5 DOWN");
	play(&st, "MOVE DOWN DOWN DOWN DOWN", "PASS");
	ck_assert_int_eq(st.pl[0].score, 0);
	ck_assert_int_eq(st.pl[0].cell, cell(0, 4));
}
END_TEST

START_TEST(test_collect_column_frame_scores)
{
	struct xmas_state st;
	/*
	 * A player and the items on a pushed line ride together, so a push can only
	 * bring a player onto an item by wrapping the player onto the inserted hand
	 * tile. Here the row frame moves player 0 onto column 3, and the column
	 * frame (the opponent's push) wraps it onto the inserted tile carrying
	 * player 0's DIAMOND: collected in the column frame, by the opponent's push.
	 */
	open_board(&st, cell(2, 6), cell(6, 5));
	put_item(&st, "DIAMOND", 0, XMAS_LOC_HAND(1));
	play(&st, "PUSH 6 RIGHT", "PUSH 3 DOWN");
	/* row 6: player 0 (2,6)->(3,6); column 3 DOWN: player (3,6) wraps to (3,0), where
	 * player 1's hand tile, carrying DIAMOND, was just inserted */
	ck_assert_int_eq(st.pl[0].cell, cell(3, 0));
	ck_assert_int_eq(st.pl[0].score, 1);
	ck_assert_int_eq(st.items[find_item(&st, "DIAMOND", 0)].loc, XMAS_LOC_GONE);

	/* carried by the opponent's push onto one's own item (the row frame) */
	open_board(&st, cell(6, 4), cell(6, 6));
	put_item(&st, "SWORD", 0, XMAS_LOC_HAND(1));
	play(&st, "PUSH 2 UP", "PUSH 4 RIGHT");
	ck_assert_int_eq(st.pl[0].cell, cell(0, 4));
	ck_assert_int_eq(st.pl[0].score, 1);
	ck_assert_int_eq(st.pl[1].score, 0);

	/* collected in the row frame, then carried away by the column frame: still scored */
	open_board(&st, cell(6, 1), cell(6, 6));
	put_item(&st, "POTION", 0, XMAS_LOC_HAND(0));
	play(&st, "PUSH 1 RIGHT", "PUSH 0 DOWN");
	/* row 1 RIGHT: player 0 (6,1) wraps to (0,1) = its own hand tile with POTION; column 0
	 * DOWN then carries it to (0,2) */
	ck_assert_int_eq(st.pl[0].cell, cell(0, 2));
	ck_assert_int_eq(st.pl[0].score, 1);
}
END_TEST

START_TEST(test_scored_after_input_quirk)
{
	struct xmas_state st;
	/* player 0's MOVE collects DIAMOND and ends on SCROLL, its next (still hidden) quest */
	open_board(&st, cell(0, 0), cell(6, 6));
	put_item(&st, "DIAMOND", 0, cell(1, 0));
	put_item(&st, "SCROLL", 0, cell(2, 0));
	play(&st, "PUSH 6 RIGHT", "PUSH 6 LEFT"); /* stale, nothing moves */
	play(&st, "MOVE RIGHT RIGHT", "PASS"); /* over DIAMOND (collected) onto SCROLL (hidden) */
	ck_assert_int_eq(st.pl[0].score, 1);
	ck_assert_int_eq(st.pl[0].cell, cell(2, 0));
	/* turn 3's input: SCROLL revealed, still on the board, 11 quests to go, score 1 */
	const char *in = input_of(&st, 0);
	ck_assert_ptr_nonnull(strstr(in, "\n11 2 0 1111\n"));
	ck_assert_ptr_nonnull(strstr(in, "\nSCROLL 2 0 0\n"));
	ck_assert_ptr_nonnull(strstr(in, "\nSWORD 0\nPOTION 0\nSCROLL 0\n"));
	cJSON *j = game_xmas.to_json(&st, 0);
	ck_assert_int_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "scores"), 0)->valueint, 1);
	cJSON_Delete(j);
	/* it is scored right after the input, before the actions: the push moves player 0
	 * away from (2,0), yet SCROLL counts */
	play(&st, "PUSH 0 RIGHT", "PUSH 5 LEFT");
	ck_assert_int_eq(st.pl[0].cell, cell(3, 0));
	ck_assert_int_eq(st.pl[0].score, 2);
	ck_assert_int_eq(st.items[find_item(&st, "SCROLL", 0)].loc, XMAS_LOC_GONE);
}
END_TEST

/* --- fatal lines, timeouts -------------------------------------------------------- */

START_TEST(test_fatal_lines_parse)
{
	struct xmas_state st;
	new_game(&st, 0, 2);
	game_move m;
	const char *why = NULL;
	/* PUSH turn */
	ck_assert_int_eq(game_xmas.parse_move(&st, 0, "MOVE UP", &m, &why), GAME_EPHASE);
	ck_assert_int_eq(game_xmas.parse_move(&st, 0, "PASS", &m, &why), GAME_EPHASE);
	static const char *const bad_push[] = {
	        "PUSH 7 UP", "push 1 up",  "Push 1 UP",   "PUSH 1 UP ", " PUSH 1 UP",
	        "PUSH   UP", "PUSH 1  UP", "PUSH 1 UPP",  "PUSH 10 UP", "PUSH -1 UP",
	        "PUSH 1",    "PUSH",       "PUSH 1 UP\n", "PUSH 1 UP;", "",
	};
	for (size_t i = 0; i < sizeof bad_push / sizeof *bad_push; i++)
		ck_assert_msg(game_xmas.parse_move(&st, 0, bad_push[i], &m, &why) == GAME_ESYNTAX,
		              "'%s' accepted", bad_push[i]);
	ck_assert_int_eq(game_xmas.parse_move(&st, 1, "PUSH   UP", &m, &why), GAME_ESYNTAX);
	ck_assert_str_eq(why, "a space is not a line number");
	for (int line = 0; line < 7; line++)
		for (int d = 0; d < 4; d++) {
			char text[32];
			snprintf(text, sizeof text, "PUSH %d %s", line, xmas_dir_names[d]);
			ck_assert_int_eq(game_xmas.parse_move(&st, 0, text, &m, NULL), 0);
			ck_assert_uint_eq(m, xmas_move_push(line, d));
		}

	/* MOVE turn */
	play(&st, "PUSH 0 RIGHT", "PUSH 6 UP");
	ck_assert_int_eq(game_xmas.parse_move(&st, 0, "PUSH 1 UP", &m, &why), GAME_EPHASE);
	ck_assert_int_eq(game_xmas.parse_move(&st, 0, "MOVE", &m, &why), GAME_ESYNTAX);
	ck_assert_str_eq(why, "MOVE needs at least one direction");
	char line[200] = "MOVE";
	for (int i = 0; i < 20; i++)
		strcat(line, " RIGHT");
	ck_assert_int_eq(strlen(line), 124);
	ck_assert_int_eq(game_xmas.parse_move(&st, 0, line, &m, NULL), 0);
	ck_assert_int_eq(xmas_move_nsteps(m), 20);
	strcat(line, " ");
	ck_assert_int_eq(game_xmas.parse_move(&st, 0, line, &m, &why), GAME_ESYNTAX);
	ck_assert_str_eq(why, "longer than 124 characters");
	strcpy(line, "MOVE");
	for (int i = 0; i < 21; i++)
		strcat(line, " UP");
	ck_assert_int_eq(game_xmas.parse_move(&st, 0, line, &m, &why), GAME_ESYNTAX);
	ck_assert_str_eq(why, "more than 20 steps");
	static const char *const bad_move[] = {
	        "MOVE UP ",    "MOVE  UP", "move up", "MOVE UP,LEFT", "MOVEUP",
	        "MOVE UPLEFT", "PASS ",    "pass",    "MOVE UP\r",
	};
	for (size_t i = 0; i < sizeof bad_move / sizeof *bad_move; i++)
		ck_assert_msg(game_xmas.parse_move(&st, 0, bad_move[i], &m, &why) == GAME_ESYNTAX,
		              "'%s' accepted", bad_move[i]);
	ck_assert_int_eq(game_xmas.parse_move(&st, 1, "PASS", &m, NULL), 0);
	ck_assert_int_eq(game_xmas.parse_move(&st, 1, "MOVE UP LEFT DOWN RIGHT", &m, NULL), 0);
	ck_assert_int_eq(xmas_move_nsteps(m), 4);
	ck_assert_int_eq(xmas_move_step(m, 2), XMAS_DOWN);
}
END_TEST

/* A fatal line from seat `bad` on an otherwise quiet turn; the other seat passes or pushes. */
static void fatal_case(const char *l0, const char *l1, int push_turn, int s0, int s1,
                       const char *reason, int winner)
{
	struct xmas_state st;
	open_board(&st, cell(1, 1), cell(5, 5));
	st.pl[0].score = 4;
	st.pl[1].score = 2;
	if (!push_turn)
		play(&st, "PUSH 0 UP", "PUSH 0 DOWN"); /* stale: nothing moves */
	play(&st, l0, l1);
	ck_assert(st.over);
	ck_assert_uint_eq(game_xmas.to_move(&st), 0);
	struct game_result r;
	game_xmas.result(&st, &r);
	ck_assert_int_eq(st.pl[0].score, s0);
	ck_assert_int_eq(st.pl[1].score, s1);
	ck_assert_str_eq(r.reason, reason);
	ck_assert_int_eq(r.winner, winner);
	char want[24];
	snprintf(want, sizeof want, "%d-%d", s0, s1);
	ck_assert_str_eq(r.score, want);
}

START_TEST(test_fatal_lines_resolve)
{
	/* PUSH turn */
	fatal_case("MOVE UP", "PUSH 0 UP", 1, -1, 2, "invalid_action", 1);
	fatal_case("PUSH 0 UP", "PASS", 1, 4, -1, "invalid_action", 0);
	fatal_case("PUSH 7 UP", "PUSH 0 UP", 1, -1, 2, "invalid_action", 1);
	fatal_case("push 0 up", "PUSH 0 UP", 1, -1, 2, "invalid_action", 1);
	fatal_case("PUSH 0 UP ", "PUSH 0 UP", 1, -1, 2, "invalid_action", 1);
	fatal_case("PUSH   UP", "PUSH 0 UP", 1, -1, 2, "invalid_action", 1);
	/* MOVE turn */
	fatal_case("PASS", "PUSH 1 LEFT", 0, 4, -1, "invalid_action", 0);
	fatal_case("MOVE", "PASS", 0, -1, 2, "invalid_action", 1);
	fatal_case("MOVE UP UP UP UP UP UP UP UP UP UP UP UP UP UP UP UP UP UP UP UP UP", "PASS", 0,
	           -1, 2, "invalid_action", 1);
	char longline[130];
	memset(longline, 'A', 125);
	longline[125] = '\0';
	fatal_case("PASS", longline, 0, 4, -1, "invalid_action", 0);
	/* timeouts are handled the same way */
	fatal_case(NULL, "PASS", 0, -1, 2, "timeout", 1);
	fatal_case("PUSH 2 UP", NULL, 1, 4, -1, "timeout", 0);
	/* both fatal: both on -1, a draw */
	fatal_case(NULL, "MOVE", 0, -1, -1, "invalid_action", -1);
	fatal_case("PASS", NULL, 1, -1, -1, "invalid_action", -1);
	fatal_case(NULL, NULL, 1, -1, -1, "timeout", -1);
}
END_TEST

START_TEST(test_fatal_turn_one_frame)
{
	struct xmas_state st;
	/* MOVE turn: only step 1 of the valid player's MOVE is played */
	open_board(&st, cell(1, 1), cell(5, 5));
	play(&st, "PUSH 0 UP", "PUSH 0 DOWN");
	play(&st, "MOVE RIGHT RIGHT DOWN", NULL);
	ck_assert_int_eq(st.pl[0].cell, cell(2, 1));
	ck_assert_int_eq(st.pl[1].cell, cell(5, 5));

	/* PUSH turn: the valid push is played, and its collection check covers the offender:
	 * player 1's row push carries player 0 onto DIAMOND, -1 + 1 = 0, 0-0 is a draw */
	open_board(&st, cell(6, 3), cell(5, 5));
	put_item(&st, "DIAMOND", 0, XMAS_LOC_HAND(1));
	play(&st, "MOVE UP", "PUSH 3 RIGHT");
	ck_assert(st.over);
	ck_assert_int_eq(st.pl[0].cell, cell(0, 3));
	ck_assert_int_eq(st.pl[0].score, 0);
	ck_assert_int_eq(st.pl[1].score, 0);
	struct game_result r;
	game_xmas.result(&st, &r);
	ck_assert_int_eq(r.winner, -1);
	ck_assert_str_eq(r.score, "0-0");
	ck_assert_str_eq(r.reason, "invalid_action");

	/* a valid column push alone is the first frame too */
	open_board(&st, cell(3, 2), cell(5, 5));
	put_item(&st, "SWORD", 1, cell(5, 4));
	play(&st, NULL, "PUSH 5 DOWN"); /* player 1 (5,5)->(5,6); SWORD (5,4)->(5,5): missed */
	ck_assert_int_eq(st.pl[1].cell, cell(5, 6));
	ck_assert_int_eq(st.pl[1].score, 0);
	ck_assert_int_eq(st.pl[0].score, -1);

	/* the valid player collects in that frame as well */
	open_board(&st, cell(3, 2), cell(5, 5));
	put_item(&st, "SWORD", 1, cell(5, 6));
	play(&st, NULL, "PUSH 5 UP");
	ck_assert_int_eq(st.pl[1].cell, cell(5, 4));
	ck_assert_int_eq(st.pl[1].score, 0);
	open_board(&st, cell(3, 2), cell(5, 5));
	put_item(&st, "SWORD", 1, XMAS_LOC_HAND(1));
	st.pl[1].cell = (uint8_t)cell(5, 0);
	play(&st, NULL, "PUSH 5 UP"); /* player 1 wraps (5,0)->(5,6) onto its own hand tile */
	ck_assert_int_eq(st.pl[1].cell, cell(5, 6));
	ck_assert_int_eq(st.pl[1].score, 1);
	game_xmas.result(&st, &r);
	ck_assert_int_eq(r.winner, 1);
	ck_assert_str_eq(r.reason, "timeout");
}
END_TEST

START_TEST(test_illegal_step_truncates)
{
	struct xmas_state st;
	open_board(&st, cell(1, 1), cell(5, 5));
	play(&st, "PUSH 0 UP", "PUSH 0 DOWN");
	xmas_board_set(&st.b, 3, 1, 0x5); /* (3,1) is 1010: no LEFT opening */
	put_item(&st, "DIAMOND", 0, cell(4, 1));
	play(&st, "MOVE RIGHT RIGHT RIGHT DOWN", "MOVE UP UP UP UP UP UP");
	ck_assert(!st.over);
	ck_assert_int_eq(st.pl[0].cell, cell(2, 1)); /* stopped before (3,1) */
	ck_assert_int_eq(st.pl[0].score, 0);
	ck_assert_int_eq(st.pl[1].cell, cell(5, 0)); /* off the board at step 6: stays at row 0 */
	ck_assert_int_eq(st.pl[1].score, 0);
	/* each seat is told how its MOVE went: cut short by a wall after 1 of 4 and 5 of 6 */
	ck_assert_int_eq(st.pl[0].walk_asked, 4);
	ck_assert_int_eq(st.pl[0].walk_done, 1);
	ck_assert_int_eq(st.pl[0].walk_wall, 1);
	ck_assert_int_eq(st.pl[1].walk_done, 5);
	cJSON *j = game_xmas.to_json(&st, 1);
	cJSON *w = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "players"), 0),
	                               "walk");
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(cJSON_GetObjectItem(w, "steps")->valueint, 4);
	ck_assert_int_eq(cJSON_GetObjectItem(w, "done")->valueint, 1);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(w, "wall")));
	cJSON_Delete(j);
	char text[8192];
	ck_assert_int_gt(game_xmas.render_text(&st, -1, text, sizeof text), 0);
	ck_assert_ptr_nonnull(strstr(text, "MOVE stopped by a wall after 1 of 4 steps"));
	ck_assert_ptr_nonnull(strstr(text, "MOVE stopped by a wall after 5 of 6 steps"));
	/* a whole MOVE is not cut; a PUSH turn forgets the walks */
	play(&st, "PUSH 3 UP", "PUSH 3 DOWN");
	ck_assert_int_eq(st.pl[0].walk_asked, 0);
	st.pl[0].cell = (uint8_t)cell(2, 2);
	play(&st, "MOVE DOWN RIGHT", "PASS");
	ck_assert_int_eq(st.pl[0].walk_asked, 2);
	ck_assert_int_eq(st.pl[0].walk_done, 2);
	ck_assert_int_eq(st.pl[0].walk_wall, 0);
	ck_assert_int_eq(st.pl[1].walk_asked, 0); /* a PASS is no walk */
	ck_assert_int_gt(game_xmas.render_text(&st, -1, text, sizeof text), 0);
	ck_assert_ptr_null(strstr(text, "stopped by a wall"));
}
END_TEST

/*
 * What a player or a spectator sees does not depend on what is hidden from
 * them (boardgame.io's playerView, as non-interference): two states that
 * differ only in the seed and in the order of the quests not yet revealed
 * give every viewer the same JSON, text and contest input, turn after turn.
 * Once the game is over the seed is published.
 */
static char *views_of(const struct xmas_state *st, int viewer)
{
	cJSON *j = game_xmas.to_json(st, viewer);
	ck_assert_ptr_nonnull(j);
	char *s = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	static char text[16384];
	ck_assert_int_gt(game_xmas.render_text(st, viewer, text, sizeof text), 0);
	size_t n = strlen(s);
	s = realloc(s, n + strlen(text) + 1);
	strcpy(s + n, text);
	return s;
}

START_TEST(test_view_hides_seed_and_deck)
{
	struct xmas_state a, b;
	new_game(&a, 987654321, 3);
	uint64_t rnd = 7;
	for (int turn = 0; !a.over; turn++) {
		/* b: a with another seed and the hidden quests in another order */
		b = a;
		b.seed = a.seed ^ 0x5DEECE66DLL;
		int hidden = a.pl[0].ndeck > a.pl[1].ndeck ? a.pl[0].ndeck : a.pl[1].ndeck;
		for (int i = 0; i < hidden / 2; i++) {
			uint8_t t = b.names[i];
			b.names[i] = b.names[hidden - 1 - i];
			b.names[hidden - 1 - i] = t;
		}
		if (hidden > 1)
			ck_assert(memcmp(a.names, b.names, sizeof a.names) != 0);
		for (int v = -1; v < 2; v++) {
			char *va = views_of(&a, v), *vb = views_of(&b, v);
			ck_assert_str_eq(va, vb);
			char seed[32];
			snprintf(seed, sizeof seed, "%lld", (long long)a.seed);
			ck_assert_ptr_null(strstr(va, seed));
			free(va);
			free(vb);
			struct xmas_state view;
			game_xmas.view(&a, v, &view);
			ck_assert_int_eq(view.seed, 0);
			ck_assert_int_eq(view.hidden, 1);
			ck_assert_int_eq(view.names[0], 0);
		}
		game_move m[2], opts[64];
		enum game_act acts[2] = {GAME_ACT_MOVE, GAME_ACT_MOVE};
		for (int s = 0; s < 2; s++) {
			int n = xmas_moves_for(&a, s, opts, 64);
			rnd = rnd * 6364136223846793005ULL + 1442695040888963407ULL;
			m[s] = opts[(rnd >> 33) % (uint64_t)n];
		}
		ck_assert_int_eq(game_xmas.resolve(&a, m, acts), 0);
		ck_assert_int_le(turn, XMAS_MAX_TURNS);
	}
	/* over: the view is the state, the seed is published */
	struct xmas_state view;
	game_xmas.view(&a, -1, &view);
	ck_assert_mem_eq(&view, &a, sizeof a);
	cJSON *j = game_xmas.to_json(&a, 0);
	ck_assert_str_eq(cJSON_GetObjectItem(j, "seed")->valuestring, "987654321");
	cJSON_Delete(j);
	char text[16384];
	ck_assert_int_gt(game_xmas.render_text(&a, -1, text, sizeof text), 0);
	ck_assert_ptr_nonnull(strstr(text, "seed 987654321"));
	struct game_result r;
	game_xmas.result(&a, &r);
	ck_assert_int_eq(r.scores[0], a.pl[0].score);
	ck_assert_int_eq(r.scores[1], a.pl[1].score);
}
END_TEST

/* --- end of game ------------------------------------------------------------------- */

START_TEST(test_twelfth_quest_ends_before_move)
{
	struct xmas_state st;
	open_board(&st, cell(6, 1), cell(5, 5));
	st.pl[0].score = 11;
	st.pl[0].ndeck = 0;
	st.pl[0].nvis = 1; /* DIAMOND only */
	put_item(&st, "DIAMOND", 0, XMAS_LOC_HAND(0));
	play(&st, "PUSH 1 RIGHT", "PUSH 4 UP"); /* wraps onto its hand tile: the 12th */
	ck_assert(st.over);
	ck_assert_int_eq(st.turn, 1);
	ck_assert_int_eq(st.turn_type, XMAS_TURN_PUSH); /* the MOVE turn never started */
	struct game_result r;
	game_xmas.result(&st, &r);
	ck_assert_str_eq(r.reason, "all_quests_completed");
	ck_assert_int_eq(r.winner, 0);
	ck_assert_str_eq(r.score, "12-0");
	ck_assert_int_eq(game_xmas.resolve(&st, (game_move[]){0, 0},
	                                   (enum game_act[]){GAME_ACT_NONE, GAME_ACT_NONE}),
	                 GAME_EOVER);
	ck_assert_int_eq(game_xmas.parse_move(&st, 0, "PASS", NULL, NULL), GAME_EOVER);

	/* both finish in the same turn: a draw */
	open_board(&st, cell(6, 1), cell(5, 6));
	for (int s = 0; s < 2; s++) {
		st.pl[s].score = 11;
		st.pl[s].ndeck = 0;
		st.pl[s].nvis = 1;
		put_item(&st, "DIAMOND", s, XMAS_LOC_HAND(s));
	}
	play(&st, "PUSH 1 RIGHT", "PUSH 5 DOWN"); /* (6,1)->(0,1) and (5,6)->(5,0) */
	ck_assert(st.over);
	game_xmas.result(&st, &r);
	ck_assert_int_eq(r.winner, -1);
	ck_assert_str_eq(r.score, "12-12");
	ck_assert_str_eq(r.reason, "all_quests_completed");

	/* finishing during a MOVE: the other steps of that turn still run */
	open_board(&st, cell(0, 0), cell(6, 6));
	st.pl[0].score = 11;
	st.pl[0].ndeck = 0;
	st.pl[0].nvis = 1;
	put_item(&st, "DIAMOND", 0, cell(1, 0));
	play(&st, "PUSH 3 LEFT", "PUSH 3 RIGHT");
	play(&st, "MOVE RIGHT RIGHT", "MOVE UP UP UP");
	ck_assert(st.over);
	ck_assert_int_eq(st.pl[0].cell, cell(2, 0));
	ck_assert_int_eq(st.pl[1].cell, cell(6, 3));
}
END_TEST

START_TEST(test_max_turns)
{
	struct xmas_state st;
	new_game(&st, 3, 3);
	for (int t = 1; t <= XMAS_MAX_TURNS; t++) {
		ck_assert(!st.over);
		ck_assert_int_eq(st.turn, t);
		ck_assert_int_eq(st.turn_type, (t & 1) ? XMAS_TURN_PUSH : XMAS_TURN_MOVE);
		if (t & 1)
			play(&st, "PUSH 1 RIGHT", "PUSH 4 UP");
		else
			play(&st, "PASS", "PASS");
	}
	ck_assert(st.over);
	struct game_result r;
	game_xmas.result(&st, &r);
	ck_assert_str_eq(r.reason, "max_turns");
	int a = st.pl[0].score, b = st.pl[1].score;
	ck_assert_int_eq(r.winner, a == b ? -1 : (a > b ? 0 : 1));
}
END_TEST

/* --- presentation ------------------------------------------------------------------- */

static size_t display_width(const char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xC0) != 0x80;
	return w;
}

START_TEST(test_json_and_text)
{
	struct xmas_state st;
	new_game(&st, 0, 2);
	play(&st, "PUSH 0 RIGHT", "PUSH 6 UP");
	cJSON *j = game_xmas.to_json(&st, 0);
	ck_assert_ptr_nonnull(j);
	ck_assert_str_eq(cJSON_GetObjectItem(j, "turn_type")->valuestring, "MOVE");
	ck_assert_int_eq(cJSON_GetObjectItem(j, "turn")->valueint, 2);
	ck_assert_str_eq(cJSON_GetObjectItem(j, "input")->valuestring, input_of(&st, 0));
	cJSON *board = cJSON_GetObjectItem(j, "board");
	ck_assert_int_eq(cJSON_GetArraySize(board), 7);
	ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetArrayItem(board, 0), 6)->valuestring, "1011");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "reachable")),
	                 bb_popcount(xmas_reachable(&st, 0)));
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "items")), 24);
	cJSON *p1 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "players"), 1);
	ck_assert_int_eq(cJSON_GetObjectItem(p1, "y")->valueint, 5);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(p1, "quests")), 3);
	cJSON_Delete(j);
	j = game_xmas.to_json(&st, -1);
	ck_assert_ptr_null(cJSON_GetObjectItem(j, "input"));
	cJSON_Delete(j);

	char text[8192];
	int n = game_xmas.render_text(&st, 0, text, sizeof text);
	ck_assert_int_gt(n, 0);
	ck_assert_ptr_nonnull(strstr(text, "┼"));
	for (char *line = text, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		ck_assert_ptr_nonnull(nl);
		ck_assert_uint_le(display_width(line, (size_t)(nl - line)), 80);
	}
	ck_assert_int_eq(game_xmas.render_text(&st, 0, text, 100), GAME_ENOSPACE);
	char small[16];
	ck_assert_int_eq(xmas_input(&st, 0, small, sizeof small), GAME_ENOSPACE);
}
END_TEST

/* Whole games between two seeded random players: invariants hold and every game ends. */
START_TEST(test_random_games)
{
	for (int64_t g = 0; g < 40; g++) {
		struct xmas_state st;
		new_game(&st, g * 2654435761LL, 2 + (int)(g & 1));
		uint64_t rnd = (uint64_t)g * 0x9E3779B97F4A7C15ULL + 1;
		int turns = 0;
		while (!st.over) {
			game_move m[2], opts[64];
			enum game_act a[2] = {GAME_ACT_MOVE, GAME_ACT_MOVE};
			for (int s = 0; s < 2; s++) {
				int n = xmas_moves_for(&st, s, opts, 64);
				ck_assert_int_gt(n, 0);
				rnd = rnd * 6364136223846793005ULL + 1442695040888963407ULL;
				m[s] = opts[(rnd >> 33) % (uint64_t)n];
			}
			ck_assert_int_eq(game_xmas.resolve(&st, m, a), 0);
			turns++;
			int items = 0, quests = 0;
			for (int i = 0; i < st.nitems; i++)
				items += st.items[i].loc != XMAS_LOC_GONE;
			for (int s = 0; s < 2; s++) {
				const struct xmas_player *p = &st.pl[s];
				ck_assert_int_ge(p->score, 0);
				ck_assert_int_eq(p->score + p->ndeck + p->nvis, 12);
				quests += p->ndeck + p->nvis;
				ck_assert_int_lt(p->cell, 49);
			}
			ck_assert_int_eq(items, quests); /* one item on the board per quest left */
			for (int d = 0; d < 4; d++)
				ck_assert_uint_eq(st.b.open[d] & ~XMAS_BB_FULL, 0);
			/* no two items share a tile */
			for (int i = 0; i < st.nitems; i++)
				for (int j = i + 1; j < st.nitems; j++)
					if (st.items[i].loc != XMAS_LOC_GONE)
						ck_assert_int_ne(st.items[i].loc, st.items[j].loc);
		}
		ck_assert_int_le(turns, XMAS_MAX_TURNS);
		struct game_result r;
		game_xmas.result(&st, &r);
		ck_assert(strcmp(r.reason, "max_turns") == 0 || strcmp(r.reason, "deadlock") == 0 ||
		          strcmp(r.reason, "all_quests_completed") == 0);
	}
}
END_TEST

/* Any bytes: parse_move answers without crashing and accepts only what it can format back. */
START_TEST(test_parse_any_bytes)
{
	struct xmas_state st;
	new_game(&st, 1, 3);
	static const char alphabet[] = "PUSHMOVEASRIGTLDNW0123456789 \t\n-";
	uint64_t rnd = 99;
	char line[160], back[GAME_MOVE_TEXT];
	for (int k = 0; k < 20000; k++) {
		if (k == 10000)
			play(&st, "PUSH 2 UP", "PUSH 4 LEFT"); /* then MOVE-turn lines */
		rnd = rnd * 6364136223846793005ULL + 1442695040888963407ULL;
		int n = (int)((rnd >> 40) % 150);
		for (int i = 0; i < n; i++) {
			rnd = rnd * 6364136223846793005ULL + 1442695040888963407ULL;
			line[i] = alphabet[(rnd >> 35) % (sizeof alphabet - 1)];
		}
		line[n] = '\0';
		game_move m;
		if (game_xmas.parse_move(&st, k & 1, line, &m, NULL) == 0) {
			ck_assert_int_gt(game_xmas.format_move(&st, m, back, sizeof back), 0);
			ck_assert_str_eq(back, line);
		}
	}
}
END_TEST

/* One turn: seat 0 plays m0 (0: misses it), seat 1 plays m1 (0: misses it). */
static void turn_of(struct xmas_state *st, game_move m0, game_move m1)
{
	game_move mv[2] = {m0, m1};
	enum game_act acts[2] = {m0 ? GAME_ACT_MOVE : GAME_ACT_NONE,
	                         m1 ? GAME_ACT_MOVE : GAME_ACT_NONE};
	ck_assert_int_eq(xmas_resolve(st, mv, acts), GAME_OK);
}

/*
 * timeout=pass (people's games): a missed turn is no action (no push on a PUSH turn, a PASS
 * on a MOVE turn) and the game goes on; an action in time starts the count again; the third
 * missed turn in a row puts the seat out as the referee's timeout does (-1, reason timeout).
 * timeout=lose, the default: the referee's, one missed turn and the seat is out.
 */
START_TEST(test_timeout_pass)
{
	struct xmas_state st, alone;
	struct game_params p;
	xmas_params(&p, 42, 3);
	p.v[3] = 1; /* timeout=pass */
	p.set[3] = true;
	ck_assert_int_eq(xmas_init(&st, &p, 0), GAME_OK);
	ck_assert(st.miss_pass);
	alone = st;
	game_move push = xmas_move_push(3, XMAS_RIGHT), pass = xmas_move_pass();
	turn_of(&st, push, 0); /* seat 1 misses: seat 0's push alone */
	ck_assert(!st.over && st.pl[1].missed == 1 && st.pl[0].missed == 0);
	ck_assert_int_eq(st.turn_type, XMAS_TURN_MOVE);
	/* the same board as a turn where seat 1's push went nowhere: seat 0's line moved */
	ck_assert(memcmp(&st.b, &alone.b, sizeof st.b) != 0);
	turn_of(&st, pass, 0);
	ck_assert(!st.over && st.pl[1].missed == 2);
	turn_of(&st, push, xmas_move_push(0, XMAS_DOWN)); /* in time: counted afresh */
	ck_assert(!st.over && st.pl[1].missed == 0);
	turn_of(&st, pass, 0);
	turn_of(&st, push, 0);
	ck_assert(!st.over && st.pl[1].missed == 2);
	turn_of(&st, pass, 0); /* the third in a row */
	ck_assert(st.over);
	ck_assert_int_eq(st.pl[1].score, -1);
	ck_assert_int_eq(st.pl[1].fault, XMAS_END_TIMEOUT);
	struct game_result r;
	xmas_result(&st, &r);
	ck_assert(r.over && r.winner == 0 && strcmp(r.reason, "timeout") == 0);
	/* the referee's rule */
	xmas_params(&p, 42, 3);
	ck_assert_int_eq(xmas_init(&st, &p, 0), GAME_OK);
	ck_assert(!st.miss_pass);
	turn_of(&st, push, 0);
	ck_assert(st.over && st.pl[1].score == -1);
}
END_TEST

static Suite *xmas_suite(void)
{
	Suite *s = suite_create("xmas");
	TCase *tc = tcase_create("referee");
	tcase_add_test(tc, test_jrandom_jdk_values);
	tcase_add_test(tc, test_timeout_pass);
	tcase_add_test(tc, test_jrandom_branches);
	tcase_add_test(tc, test_geometry_and_tiles);
	tcase_add_test(tc, test_seed0_pool2_turn1);
	tcase_add_test(tc, test_seed0_push_check);
	tcase_add_test(tc, test_seed0_pool3);
	tcase_add_test(tc, test_seed_from_server);
	tcase_add_test(tc, test_deal_ranks);
	tcase_add_test(tc, test_dealt_map_tells_nothing);
	tcase_add_test(tc, test_deal_uniform);
	tcase_add_test(tc, test_push_every_direction);
	tcase_add_test(tc, test_reach_matches_bfs);
	tcase_add_test(tc, test_moves_for_cover_reach);
	tcase_add_test(tc, test_same_line_is_stale);
	tcase_add_test(tc, test_deadlock_after_ten);
	tcase_add_test(tc, test_row_before_column);
	tcase_add_test(tc, test_wrap_players_and_items);
	tcase_add_test(tc, test_collect_by_push_and_by_passing);
	tcase_add_test(tc, test_collect_column_frame_scores);
	tcase_add_test(tc, test_scored_after_input_quirk);
	tcase_add_test(tc, test_fatal_lines_parse);
	tcase_add_test(tc, test_fatal_lines_resolve);
	tcase_add_test(tc, test_fatal_turn_one_frame);
	tcase_add_test(tc, test_illegal_step_truncates);
	tcase_add_test(tc, test_view_hides_seed_and_deck);
	tcase_add_test(tc, test_twelfth_quest_ends_before_move);
	tcase_add_test(tc, test_max_turns);
	tcase_add_test(tc, test_json_and_text);
	tcase_add_test(tc, test_random_games);
	tcase_add_test(tc, test_parse_any_bytes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(xmas_suite());
}
