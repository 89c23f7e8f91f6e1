/*
 * check_tak_slide.c - the Tak slide tables (src/games/tak_slide.c) rebuilt
 * from scratch by plain enumeration of drop sequences and compared entry by
 * entry. Run with --print-tables to print the tables as C (the generator
 * that wrote tak_slide.c's data).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/tak/tak_slide.h"
#include "check_main.h"

/* A drop sequence as digits, first drop first. */
struct seq {
	int n, d[8];
};

static struct seq all[TAK_SLIDE_NPATTERNS];
static int nall;

/* Every way to drop k pieces: first drop 1..k, then the rest. */
static void compose(struct seq *cur, int left)
{
	if (left == 0) {
		all[nall++] = *cur;
		return;
	}
	for (int d = 1; d <= left; d++) {
		cur->d[cur->n++] = d;
		compose(cur, left - d);
		cur->n--;
	}
}

static int carry(const struct seq *s)
{
	int k = 0;
	for (int i = 0; i < s->n; i++)
		k += s->d[i];
	return k;
}

/* Order of tak_slide.h: carry, distance, last drop 1 first, then the digits. */
static int cmp_seq(const void *a, const void *b)
{
	const struct seq *x = a, *y = b;
	int kx = carry(x), ky = carry(y);
	if (kx != ky)
		return kx - ky;
	if (x->n != y->n)
		return x->n - y->n;
	int lx = x->d[x->n - 1] != 1, ly = y->d[y->n - 1] != 1;
	if (lx != ly)
		return lx - ly;
	for (int i = 0; i < x->n; i++)
		if (x->d[i] != y->d[i])
			return x->d[i] - y->d[i];
	return 0;
}

static uint32_t pack(const struct seq *s)
{
	uint32_t w = 0;
	for (int i = 0; i < s->n; i++)
		w |= (uint32_t)s->d[i] << (4 * i);
	return w;
}

static void build(void)
{
	struct seq cur = {0, {0}};
	nall = 0;
	for (int k = 1; k <= TAK_MAX_CARRY; k++)
		compose(&cur, k);
	qsort(all, (size_t)nall, sizeof all[0], cmp_seq);
}

/* Index one past the sequences of carry k with at most t drops (by scanning). */
static int upto(int k, int t)
{
	int end = 0;
	for (int i = 0; i < nall; i++)
		if (carry(&all[i]) < k || (carry(&all[i]) == k && all[i].n <= t))
			end = i + 1;
	return end;
}

START_TEST(test_pattern_list)
{
	build();
	ck_assert_int_eq(nall, TAK_SLIDE_NPATTERNS);
	for (int i = 0; i < nall; i++)
		ck_assert_msg(tak_slide_pattern[i] == pack(&all[i]),
		              "pattern %d: %#x, expected %#x", i, tak_slide_pattern[i],
		              pack(&all[i]));
	/* The first 2^h - 1 entries are the patterns of carry limit h. */
	for (int h = 1; h <= 8; h++) {
		int n = 0;
		for (int i = 0; i < nall; i++)
			n += carry(&all[i]) <= h;
		ck_assert_int_eq(n, (1 << h) - 1);
		ck_assert_int_eq(tak_slide_first(h), (1 << (h - 1)) - 1);
	}
	for (int i = 0; i < nall; i++) {
		ck_assert_int_eq(tak_pattern_carry(tak_slide_pattern[i]), carry(&all[i]));
		ck_assert_int_eq(tak_pattern_distance(tak_slide_pattern[i]), all[i].n);
	}
}
END_TEST

START_TEST(test_ranges_and_counts)
{
	build();
	for (int k = 1; k <= 8; k++)
		for (int t = 0; t <= 8; t++) {
			int want = t == 0 ? tak_slide_first(k) : upto(k, t);
			ck_assert_int_eq(tak_slide_upto[k][t], want);
		}
	for (int c = 0; c <= 8; c++)
		for (int t = 0; t < 8; t++) {
			int cnt = 0, flat = 0, lo = -1, hi = -1;
			for (int i = 0; i < nall; i++) {
				const struct seq *s = &all[i];
				if (carry(s) > c)
					continue;
				cnt += s->n <= t;
				flat += s->n == t + 1 && s->d[s->n - 1] == 1;
			}
			ck_assert_int_eq(tak_slide_count[c][t], cnt);
			ck_assert_int_eq(tak_slide_flat_count[c][t], flat);
			/* flat_lo/hi for carry exactly c: a contiguous run. */
			for (int i = 0; c > 0 && i < nall; i++) {
				const struct seq *s = &all[i];
				if (carry(s) == c && s->n == t + 1 && s->d[s->n - 1] == 1) {
					if (lo < 0)
						lo = i;
					ck_assert_int_eq(hi < 0 ? i : hi, i);
					hi = i + 1;
				}
			}
			if (c > 0 && lo >= 0) {
				ck_assert_int_eq(tak_slide_flat_lo[c][t], lo);
				ck_assert_int_eq(tak_slide_flat_hi[c][t], hi);
			} else if (c > 0) {
				ck_assert_int_eq(tak_slide_flat_lo[c][t], tak_slide_flat_hi[c][t]);
			}
		}
}
END_TEST

static void print_row(const char *type, const char *name, const char *dims, int rows, int cols,
                      int (*f)(int, int))
{
	printf("const %s %s%s = {\n", type, name, dims);
	for (int r = 0; r < rows; r++) {
		printf("\t{");
		for (int c = 0; c < cols; c++)
			printf("%s%d", c ? ", " : "", f(r, c));
		printf("},\n");
	}
	printf("};\n");
}

static int f_upto(int k, int t)
{
	return k == 0 ? 0 : t == 0 ? tak_slide_first(k) : upto(k, t);
}

static int f_count(int c, int t)
{
	int n = 0;
	for (int i = 0; i < nall; i++)
		n += carry(&all[i]) <= c && all[i].n <= t;
	return n;
}

static int f_flat_count(int c, int t)
{
	int n = 0;
	for (int i = 0; i < nall; i++)
		n += carry(&all[i]) <= c && all[i].n == t + 1 && all[i].d[all[i].n - 1] == 1;
	return n;
}

static int flat_bound(int k, int t, int hi)
{
	int lo = -1, end = 0;
	for (int i = 0; k > 0 && i < nall; i++)
		if (carry(&all[i]) == k && all[i].n == t + 1) {
			if (lo < 0)
				lo = i;
			if (all[i].d[all[i].n - 1] == 1)
				end = i + 1;
		}
	if (lo < 0)
		return 0;
	return hi ? (end ? end : lo) : lo;
}

static int f_flat_lo(int k, int t)
{
	return flat_bound(k, t, 0);
}

static int f_flat_hi(int k, int t)
{
	return flat_bound(k, t, 1);
}

static void print_tables(void)
{
	build();
	printf("/* clang-format off */\n");
	printf("const uint32_t tak_slide_pattern[TAK_SLIDE_NPATTERNS] = {\n");
	for (int i = 0; i < nall; i++)
		printf("%s%#x,%s", i % 8 == 0 ? "\t" : "", pack(&all[i]),
		       i % 8 == 7 || i == nall - 1 ? "\n" : " ");
	printf("};\n");
	print_row("uint8_t", "tak_slide_upto", "[9][9]", 9, 9, f_upto);
	print_row("uint8_t", "tak_slide_flat_lo", "[9][8]", 9, 8, f_flat_lo);
	print_row("uint8_t", "tak_slide_flat_hi", "[9][8]", 9, 8, f_flat_hi);
	print_row("uint16_t", "tak_slide_count", "[9][8]", 9, 8, f_count);
	print_row("uint8_t", "tak_slide_flat_count", "[9][8]", 9, 8, f_flat_count);
	printf("/* clang-format on */\n");
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--print-tables") == 0) {
		print_tables();
		return 0;
	}
	Suite *s = suite_create("tak_slide");
	TCase *tc = tcase_create("tables");
	tcase_add_test(tc, test_pattern_list);
	tcase_add_test(tc, test_ranges_and_counts);
	suite_add_tcase(s, tc);
	return check_run(s);
}
