/*
 * check_bitboard.c - unit tests of the core cell algebra (src/core/bitboard.h)
 * and the seeded RNG (src/core/rng.h), on square and non-square boards.
 */
#include <check.h>
#include <stdlib.h>

#include "core/bitboard.h"
#include "core/rng.h"
#include "check_main.h"

/* Naive reference: is (x, y) on a w x h board set in b? */
static int at(const struct bb_geom *g, bb_t b, int x, int y)
{
	return bb_on_board(g, x, y) && (b >> (y * g->w + x)) & 1;
}

START_TEST(test_cells_roundtrip)
{
	static const int sizes[][2] = {{3, 3}, {8, 8},  {5, 3},  {3, 7},
	                               {7, 7}, {1, 64}, {64, 1}, {9, 7}};
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		struct bb_geom g;
		ck_assert(bb_geom_init(&g, sizes[s][0], sizes[s][1]));
		ck_assert_int_eq(bb_popcount(g.full), g.w * g.h);
		for (int y = 0; y < g.h; y++)
			for (int x = 0; x < g.w; x++) {
				int i = bb_index(&g, x, y);
				ck_assert_int_eq(i, y * g.w + x);
				ck_assert_int_eq(bb_x(&g, i), x);
				ck_assert_int_eq(bb_y(&g, i), y);
				ck_assert(bb_cell(&g, x, y) == bb_bit(i));
			}
	}
	struct bb_geom g;
	ck_assert(!bb_geom_init(&g, 9, 8));
	ck_assert(!bb_geom_init(&g, 0, 3));
}
END_TEST

START_TEST(test_get_set_clear_switch_swap)
{
	struct bb_geom g;
	ck_assert(bb_geom_init(&g, 4, 3));
	bb_t a = bb_cell(&g, 1, 2), c = bb_cell(&g, 3, 0), b = 0;
	b = bb_set(b, a);
	ck_assert(bb_get(b, a) && !bb_get(b, c));
	b = bb_swap(b, a, c);
	ck_assert(!bb_get(b, a) && bb_get(b, c));
	b = bb_swap(b, a, a);
	ck_assert(bb_get(b, c));
	b = bb_switch(b, a);
	ck_assert(bb_get(b, a));
	b = bb_clear(b, a);
	ck_assert(!bb_get(b, a) && bb_popcount(b) == 1);
	bb_t both = a | c;
	ck_assert(bb_swap(both, a, c) == both);
}
END_TEST

START_TEST(test_iterate_and_popcount)
{
	bb_t b = 0x8000000000000401ULL;
	int seen[3], n = 0, i;
	for (BB_EACH(i, t, b))
		seen[n++] = i;
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(seen[0], 0);
	ck_assert_int_eq(seen[1], 10);
	ck_assert_int_eq(seen[2], 63);
	ck_assert_int_eq(bb_popcount(b), 3);
	bb_t c = b;
	ck_assert_int_eq(bb_pop_lsb(&c), 0);
	ck_assert_int_eq(bb_lsb(c), 10);
}
END_TEST

/* Every shift against a per-cell reference, on several sizes and all 8 directions. */
START_TEST(test_shifts_no_wrap)
{
	static const int sizes[][2] = {{3, 3}, {5, 4}, {4, 6}, {8, 8}, {7, 7}, {2, 5}};
	static const int dx[8] = {0, 1, 0, -1, 1, 1, -1, -1}, dy[8] = {1, 0, -1, 0, 1, -1, -1, 1};
	struct rng r;
	rng_seed(&r, 42);
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		struct bb_geom g;
		ck_assert(bb_geom_init(&g, sizes[s][0], sizes[s][1]));
		for (int trial = 0; trial < 200; trial++) {
			bb_t b = rng_next(&r) & g.full;
			for (int d = 0; d < BB_NDIRS; d++) {
				bb_t got = bb_shift(&g, b, (enum bb_dir)d), want = 0;
				for (int y = 0; y < g.h; y++)
					for (int x = 0; x < g.w; x++)
						if (at(&g, b, x - dx[d], y - dy[d]))
							want |= bb_cell(&g, x, y);
				ck_assert_msg(got == want, "size %dx%d dir %d", g.w, g.h, d);
			}
		}
	}
}
END_TEST

START_TEST(test_edges)
{
	struct bb_geom g;
	ck_assert(bb_geom_init(&g, 5, 3));
	ck_assert(g.edge[BB_S] == 0x1F);
	ck_assert(g.edge[BB_N] == (bb_t)0x1F << 10);
	ck_assert(g.edge[BB_W] == (bb_cell(&g, 0, 0) | bb_cell(&g, 0, 1) | bb_cell(&g, 0, 2)));
	ck_assert(g.edge[BB_E] == (bb_cell(&g, 4, 0) | bb_cell(&g, 4, 1) | bb_cell(&g, 4, 2)));
	ck_assert(bb_geom_init(&g, 8, 8));
	ck_assert(g.full == ~(bb_t)0);
	ck_assert(bb_shift(&g, g.edge[BB_N], BB_N) == 0);
	ck_assert(bb_shift(&g, g.edge[BB_E], BB_E) == 0);
	ck_assert_int_eq(bb_opposite(BB_N), BB_S);
	ck_assert_int_eq(bb_opposite(BB_NE), BB_SW);
	ck_assert_int_eq(bb_opposite(BB_NW), BB_SE);
}
END_TEST

/* Naive k-in-a-row test by walking from every cell. */
static int naive_line(const struct bb_geom *g, bb_t b, int k)
{
	static const int dx[4] = {1, 0, 1, -1}, dy[4] = {0, 1, 1, 1};
	for (int y = 0; y < g->h; y++)
		for (int x = 0; x < g->w; x++)
			for (int d = 0; d < 4; d++) {
				int run = 0;
				while (run < k && at(g, b, x + run * dx[d], y + run * dy[d]))
					run++;
				if (run == k)
					return 1;
			}
	return 0;
}

START_TEST(test_lines)
{
	struct bb_geom g;
	ck_assert(bb_geom_init(&g, 3, 3));
	/* the eight tic-tac-toe masks of the seed document (row-major, any orientation) */
	static const bb_t wins[8] = {0x007, 0x038, 0x1C0, 0x049, 0x092, 0x124, 0x111, 0x054};
	for (int i = 0; i < 8; i++) {
		ck_assert(bb_has_line(&g, wins[i], 3));
		ck_assert(bb_line_cells(&g, wins[i], 3) == wins[i]);
	}
	/* every 9-bit board: agrees with the mask test */
	for (bb_t b = 0; b < 512; b++) {
		int masked = 0;
		for (int i = 0; i < 8; i++)
			masked |= (b & wins[i]) == wins[i];
		ck_assert_int_eq(bb_has_line(&g, b, 3), masked);
	}
	static const int sizes[][3] = {{5, 4, 4}, {4, 6, 3}, {8, 8, 5}, {7, 3, 3}, {6, 6, 6}};
	struct rng r;
	rng_seed(&r, 7);
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		ck_assert(bb_geom_init(&g, sizes[s][0], sizes[s][1]));
		for (int t = 0; t < 3000; t++) {
			bb_t b = rng_next(&r) & rng_next(&r) & g.full;
			ck_assert_int_eq(bb_has_line(&g, b, sizes[s][2]),
			                 naive_line(&g, b, sizes[s][2]));
		}
	}
}
END_TEST

START_TEST(test_flood_and_connect)
{
	struct bb_geom g;
	ck_assert(bb_geom_init(&g, 5, 4));
	/* an S-shaped path from the west edge to the east edge, and a stray cell */
	bb_t path = bb_cell(&g, 0, 1) | bb_cell(&g, 1, 1) | bb_cell(&g, 1, 2) | bb_cell(&g, 2, 2) |
	            bb_cell(&g, 3, 2) | bb_cell(&g, 3, 1) | bb_cell(&g, 4, 1);
	bb_t stray = bb_cell(&g, 4, 3);
	ck_assert(bb_flood(&g, bb_cell(&g, 0, 1), path | stray) == path);
	ck_assert(bb_connects(&g, path, BB_W, BB_E));
	ck_assert(!bb_connects(&g, path, BB_S, BB_N));
	/* diagonal contact does not connect */
	bb_t diag = bb_cell(&g, 0, 0) | bb_cell(&g, 1, 1) | bb_cell(&g, 2, 2) | bb_cell(&g, 3, 3);
	ck_assert(!bb_connects(&g, diag, BB_S, BB_N));
	ck_assert(bb_flood(&g, bb_cell(&g, 2, 0), path) == 0);
	/* no wrap from the east edge to the next row's west edge */
	bb_t wrap = bb_cell(&g, 4, 0) | bb_cell(&g, 0, 1);
	ck_assert(bb_flood(&g, bb_cell(&g, 4, 0), wrap) == bb_cell(&g, 4, 0));
}
END_TEST

START_TEST(test_rng)
{
	struct rng a, b;
	rng_seed(&a, 123);
	rng_seed(&b, 123);
	for (int i = 0; i < 100; i++)
		ck_assert(rng_next(&a) == rng_next(&b));
	rng_seed(&b, 124);
	ck_assert(rng_next(&a) != rng_next(&b));
	int hist[7] = {0};
	for (int i = 0; i < 70000; i++) {
		uint32_t v = rng_below(&a, 7);
		ck_assert_uint_lt(v, 7);
		hist[v]++;
	}
	for (int i = 0; i < 7; i++)
		ck_assert(hist[i] > 9000 && hist[i] < 11000);
}
END_TEST

static Suite *bitboard_suite(void)
{
	Suite *s = suite_create("bitboard");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_cells_roundtrip);
	tcase_add_test(tc, test_get_set_clear_switch_swap);
	tcase_add_test(tc, test_iterate_and_popcount);
	tcase_add_test(tc, test_shifts_no_wrap);
	tcase_add_test(tc, test_edges);
	tcase_add_test(tc, test_lines);
	tcase_add_test(tc, test_flood_and_connect);
	tcase_add_test(tc, test_rng);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(bitboard_suite());
}
