/*
 * check_arena_rr.c - round-robin and gauntlet schedules (src/arena/roundrobin.c)
 * against the Berger tables of FIDE Handbook C.05 Annex 1, and the properties
 * every schedule must have: each pair meets once per cycle, colours balanced
 * within one, the second cycle reverses colours, odd fields give one bye a
 * round, and the swap of the first cycle's last two rounds leaves nobody with
 * three games in a row of one colour in a double round-robin.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "arena/arena.h"
#include "check_main.h"

/* The published tables, white first, rounds separated by '|' (FIDE Handbook
 * C.05 Annex 1, "Berger Tables for Round-Robin Tournaments": one table for
 * each even N up to 16, an odd field playing the table of N = n + 1 with
 * number N as the bye). The tables for 3..14 players checked against two
 * reprints of the annex (c.w.fox.tripod.com/chess/berger.html and the
 * Crenshaw-Berger tables); the 15-16 table is the annex's last one. */
static const char *const berger[] = {
	/* 3 or 4 players */
	"1-4 2-3|4-3 1-2|2-4 3-1",
	/* 5 or 6 */
	"1-6 2-5 3-4|6-4 5-3 1-2|2-6 3-1 4-5|6-5 1-4 2-3|3-6 4-2 5-1",
	/* 7 or 8 */
	"1-8 2-7 3-6 4-5|8-5 6-4 7-3 1-2|2-8 3-1 4-7 5-6|8-6 7-5 1-4 2-3|"
	"3-8 4-2 5-1 6-7|8-7 1-6 2-5 3-4|4-8 5-3 6-2 7-1",
	/* 9 or 10 */
	"1-10 2-9 3-8 4-7 5-6|10-6 7-5 8-4 9-3 1-2|2-10 3-1 4-9 5-8 6-7|"
	"10-7 8-6 9-5 1-4 2-3|3-10 4-2 5-1 6-9 7-8|10-8 9-7 1-6 2-5 3-4|"
	"4-10 5-3 6-2 7-1 8-9|10-9 1-8 2-7 3-6 4-5|5-10 6-4 7-3 8-2 9-1",
	/* 11 or 12 */
	"1-12 2-11 3-10 4-9 5-8 6-7|12-7 8-6 9-5 10-4 11-3 1-2|2-12 3-1 4-11 5-10 6-9 7-8|"
	"12-8 9-7 10-6 11-5 1-4 2-3|3-12 4-2 5-1 6-11 7-10 8-9|12-9 10-8 11-7 1-6 2-5 3-4|"
	"4-12 5-3 6-2 7-1 8-11 9-10|12-10 11-9 1-8 2-7 3-6 4-5|5-12 6-4 7-3 8-2 9-1 10-11|"
	"12-11 1-10 2-9 3-8 4-7 5-6|6-12 7-5 8-4 9-3 10-2 11-1",
	/* 13 or 14 */
	"1-14 2-13 3-12 4-11 5-10 6-9 7-8|14-8 9-7 10-6 11-5 12-4 13-3 1-2|"
	"2-14 3-1 4-13 5-12 6-11 7-10 8-9|14-9 10-8 11-7 12-6 13-5 1-4 2-3|"
	"3-14 4-2 5-1 6-13 7-12 8-11 9-10|14-10 11-9 12-8 13-7 1-6 2-5 3-4|"
	"4-14 5-3 6-2 7-1 8-13 9-12 10-11|14-11 12-10 13-9 1-8 2-7 3-6 4-5|"
	"5-14 6-4 7-3 8-2 9-1 10-13 11-12|14-12 13-11 1-10 2-9 3-8 4-7 5-6|"
	"6-14 7-5 8-4 9-3 10-2 11-1 12-13|14-13 1-12 2-11 3-10 4-9 5-8 6-7|"
	"7-14 8-6 9-5 10-4 11-3 12-2 13-1",
	/* 15 or 16 */
	"1-16 2-15 3-14 4-13 5-12 6-11 7-10 8-9|16-9 10-8 11-7 12-6 13-5 14-4 15-3 1-2|"
	"2-16 3-1 4-15 5-14 6-13 7-12 8-11 9-10|16-10 11-9 12-8 13-7 14-6 15-5 1-4 2-3|"
	"3-16 4-2 5-1 6-15 7-14 8-13 9-12 10-11|16-11 12-10 13-9 14-8 15-7 1-6 2-5 3-4|"
	"4-16 5-3 6-2 7-1 8-15 9-14 10-13 11-12|16-12 13-11 14-10 15-9 1-8 2-7 3-6 4-5|"
	"5-16 6-4 7-3 8-2 9-1 10-15 11-14 12-13|16-13 14-12 15-11 1-10 2-9 3-8 4-7 5-6|"
	"6-16 7-5 8-4 9-3 10-2 11-1 12-15 13-14|16-14 15-13 1-12 2-11 3-10 4-9 5-8 6-7|"
	"7-16 8-6 9-5 10-4 11-3 12-2 13-1 14-15|16-15 1-14 2-13 3-12 4-11 5-10 6-9 7-8|"
	"8-16 9-7 10-6 11-5 12-4 13-3 14-2 15-1",
};

/* The whole single cycle for n players in the tables' notation, the bye (an
 * odd field) last in its round as "x-0". */
static void format_table(int n, char *buf, size_t cap)
{
	struct arena_pair p[32];
	int rounds = arena_rr_rounds(n, 1);
	size_t len = 0;
	buf[0] = 0;
	for (int r = 0; r < rounds; r++) {
		int k = arena_rr_round(n, 1, r, 0, p, 32);
		ck_assert_int_eq(k, (n + 1) / 2);
		for (int i = 0; i < k; i++)
			len += (size_t)snprintf(buf + len, cap - len, "%s%d-%d", i ? " " : (r ? "|" : ""),
						p[i].white + 1, p[i].black + 1);
	}
}

/* The published schedule of n players: the table of N = n + (n odd) as
 * printed and, for an odd n, each round's game against N taken out and put
 * last as the bye "x-0". */
static void published(int n, char *buf, size_t cap)
{
	int N = n + (n & 1);
	const char *t = berger[N / 2 - 2];
	size_t len = 0;
	buf[0] = 0;
	while (*t) {
		int bye = 0, first = 1;
		while (*t && *t != '|') {
			int w, b, used;
			ck_assert_int_eq(sscanf(t, "%d-%d%n", &w, &b, &used), 2);
			t += used;
			while (*t == ' ')
				t++;
			if (N != n && (w == N || b == N)) {
				bye = w == N ? b : w;
				continue;
			}
			len += (size_t)snprintf(buf + len, cap - len, "%s%d-%d", first ? "" : " ", w,
						b);
			first = 0;
		}
		if (bye)
			len += (size_t)snprintf(buf + len, cap - len, " %d-0", bye);
		if (*t == '|') {
			len += (size_t)snprintf(buf + len, cap - len, "|");
			t++;
		}
	}
}

/* Every field of 3..16 players, odd ones with their bye, round by round as
 * the annex prints them. */
START_TEST(test_berger_tables)
{
	char got[4096], want[4096];
	for (int n = 3; n <= 16; n++) {
		format_table(n, got, sizeof got);
		published(n, want, sizeof want);
		ck_assert_msg(strcmp(got, want) == 0, "n=%d\n got %s\nwant %s", n, got, want);
	}
	/* The derivation itself, on 3 players (the 4-player table, 4 the bye):
	 * 1-4 2-3 | 4-3 1-2 | 2-4 3-1. */
	published(3, want, sizeof want);
	ck_assert_str_eq(want, "2-3 1-0|1-2 3-0|3-1 2-0");
}
END_TEST

/* Odd fields: the table of n + 1, whoever meets n + 1 has the bye. */
START_TEST(test_odd_bye)
{
	struct arena_pair p[32], q[32];
	for (int n = 3; n <= 25; n += 2) {
		int rounds = arena_rr_rounds(n, 1);
		ck_assert_int_eq(rounds, n);
		int byes[32] = {0};
		for (int r = 0; r < rounds; r++) {
			int k = arena_rr_round(n, 1, r, 0, p, 32);
			int k1 = arena_rr_round(n + 1, 1, r, 0, q, 32);
			ck_assert_int_eq(k, (n + 1) / 2);
			ck_assert_int_eq(k1, (n + 1) / 2);
			ck_assert_int_eq(p[k - 1].black, -1);
			byes[p[k - 1].white]++;
			int j = 0;
			for (int i = 0; i < k1; i++) {
				if (q[i].white == n || q[i].black == n) {
					ck_assert_int_eq(q[i].white + q[i].black - n, p[k - 1].white);
					continue;
				}
				ck_assert_int_eq(q[i].white, p[j].white);
				ck_assert_int_eq(q[i].black, p[j].black);
				j++;
			}
		}
		for (int i = 0; i < n; i++)
			ck_assert_int_eq(byes[i], 1);
	}
}
END_TEST

/* Every pair meets once per cycle, colours reversed in the second; each
 * player's colours balanced within one per cycle; with the recommended swap
 * nobody plays three games in a row with one colour. */
START_TEST(test_properties)
{
	struct arena_pair p[64];
	for (int n = 2; n <= 40; n++) {
		for (int cycles = 1; cycles <= 2; cycles++) {
			int rounds = arena_rr_rounds(n, cycles);
			static int meet[64][64];
			static char seq[64][160];
			memset(meet, 0, sizeof meet);
			memset(seq, 0, sizeof seq);
			for (int r = 0; r < rounds; r++) {
				int k = arena_rr_round(n, cycles, r, 0, p, 64);
				ck_assert_int_ge(k, 0);
				int seen[64] = {0};
				for (int i = 0; i < k; i++) {
					int w = p[i].white, b = p[i].black;
					ck_assert(!seen[w]);
					seen[w] = 1;
					seq[w][r] = b < 0 ? '-' : 'w';
					if (b < 0)
						continue;
					ck_assert(!seen[b]);
					seen[b] = 1;
					seq[b][r] = 'b';
					meet[w][b]++;
				}
				for (int i = 0; i < n; i++)
					ck_assert(seen[i]);
			}
			for (int a = 0; a < n; a++) {
				int wh = 0, bl = 0;
				for (int b = 0; b < n; b++) {
					if (a == b)
						continue;
					if (cycles == 1)
						ck_assert_int_eq(meet[a][b] + meet[b][a], 1);
					else
						ck_assert(meet[a][b] == 1 && meet[b][a] == 1);
				}
				for (int r = 0; r < rounds / cycles; r++)
					wh += seq[a][r] == 'w', bl += seq[a][r] == 'b';
				ck_assert_int_le(wh - bl, 1);
				ck_assert_int_le(bl - wh, 1);
				if (cycles == 2 && n % 2 == 0 && n > 4)
					ck_assert_msg(!strstr(seq[a], "www") && !strstr(seq[a], "bbb"),
						      "n=%d player %d %s", n, a + 1, seq[a]);
			}
		}
	}
}
END_TEST

START_TEST(test_double_swap_and_keep)
{
	struct arena_pair a[8], b[8];
	/* Six players, double: round 4 of the schedule is table round 5, round 5 is table round 4. */
	arena_rr_round(6, 2, 3, 0, a, 8);
	arena_rr_round(6, 1, 4, 0, b, 8);
	ck_assert_mem_eq(a, b, sizeof(struct arena_pair) * 3);
	arena_rr_round(6, 2, 3, ARENA_RR_KEEP_ORDER, a, 8);
	arena_rr_round(6, 1, 3, 0, b, 8);
	ck_assert_mem_eq(a, b, sizeof(struct arena_pair) * 3);
	/* Round 6 = table round 1 reversed: 6-1 5-2 4-3. */
	arena_rr_round(6, 2, 5, 0, a, 8);
	ck_assert(a[0].white == 5 && a[0].black == 0 && a[2].white == 3 && a[2].black == 2);
}
END_TEST

START_TEST(test_gauntlet)
{
	int n = 5, cycles = 2;
	int rounds = arena_gauntlet_rounds(n, cycles);
	ck_assert_int_eq(rounds, 16);
	int w[8] = {0}, bl[8] = {0};
	for (int r = 0; r < rounds; r++) {
		struct arena_pair p;
		ck_assert_int_eq(arena_gauntlet_round(n, cycles, r, &p), 1);
		ck_assert(p.white == 0 || p.black == 0);
		if (p.white == 0)
			w[p.black]++;
		else
			bl[p.white]++;
	}
	for (int i = 1; i < n; i++)
		ck_assert(w[i] == cycles && bl[i] == cycles);
}
END_TEST

START_TEST(test_errors)
{
	struct arena_pair p[4];
	ck_assert_int_eq(arena_rr_rounds(1, 1), ARENA_EINVAL);
	ck_assert_int_eq(arena_rr_rounds(4, 0), ARENA_EINVAL);
	ck_assert_int_eq(arena_rr_round(4, 1, 3, 0, p, 4), ARENA_EINVAL);
	ck_assert_int_eq(arena_rr_round(8, 1, 0, 0, p, 3), ARENA_ENOSPACE);
	ck_assert_int_eq(arena_rr_rounds(ARENA_MAX_PLAYERS + 1, 1), ARENA_ERANGE);
	ck_assert_int_eq(arena_gauntlet_round(3, 1, 4, p), ARENA_EINVAL);
	ck_assert_str_eq(arena_strerror(ARENA_ENOPAIRING), "no pairing satisfies the absolute criteria");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("arena_rr");
	TCase *tc = tcase_create("berger");
	tcase_set_timeout(tc, 120); /* a loaded machine; the suite takes about a second */
	tcase_add_test(tc, test_berger_tables);
	tcase_add_test(tc, test_odd_bye);
	tcase_add_test(tc, test_properties);
	tcase_add_test(tc, test_double_swap_and_keep);
	tcase_add_test(tc, test_gauntlet);
	tcase_add_test(tc, test_errors);
	suite_add_tcase(s, tc);
	return check_run(s);
}
