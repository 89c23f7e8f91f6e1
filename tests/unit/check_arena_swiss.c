/*
 * check_arena_swiss.c - the Swiss side of src/arena: the Dutch pairing on
 * fixed cases whose pairings the rules determine (each checked with an
 * independent FIDE-endorsed pairing engine, bbpPairings 5.0.1, on the same
 * TRF: facts, not code), the TRF-16 writer on a hand-checked file, the
 * tie-breaks on hand-computed tables, and the live arena's scoring and
 * pairing.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/arena.h"
#include "check_main.h"
#include "core/rng.h"

#define MAXP 24
#define MAXR 12

/* A tournament written compactly, one string per player (pairing number
 * order): per round "7w1" (opponent 7, white, won), "-U" (no opponent: the
 * PAB; H, F, Z likewise), and last, optionally, "|Z" / "|H": not paired in
 * the round to pair (absent, withdrawn, a requested bye). */
struct tourney {
	int n;
	struct arena_player players[MAXP];
	struct arena_game games[MAXP][MAXR];
	char names[MAXP][8];
	struct arena_swiss t;
};

static void parse(struct tourney *T, const char *const *lines, int played, int rounds)
{
	memset(T, 0, sizeof *T);
	int n = 0;
	while (lines[n])
		n++;
	T->n = n;
	for (int p = 0; p < n; p++) {
		const char *s = lines[p];
		struct arena_player *pl = &T->players[p];
		snprintf(T->names[p], sizeof T->names[p], "P%d", (p + 1) % 100);
		pl->name = T->names[p];
		pl->rating = 2000 - p;
		pl->games = T->games[p];
		pl->active = 1;
		for (int r = 0; r < played; r++) {
			while (*s == ' ')
				s++;
			struct arena_game *g = &T->games[p][r];
			if (*s == '-') {
				g->opp = -1;
				g->color = '-';
				g->result = s[1];
				s += 2;
			} else {
				char *end;
				g->opp = (int)strtol(s, &end, 10) - 1;
				g->color = end[0];
				g->result = end[1];
				s = end + 2;
			}
		}
		while (*s == ' ')
			s++;
		if (*s == '|') {
			pl->active = 0;
			T->games[p][played].opp = -1;
			T->games[p][played].color = '-';
			T->games[p][played].result = s[1];
		}
	}
	T->t.n = n;
	T->t.players = T->players;
	T->t.played = played;
	T->t.rounds = rounds;
	T->t.first_color = 'w';
	T->t.points = arena_points_default();
}

/* "7-1 4-2 ... 9-0": white-black by pairing number, 0 for the bye. */
static void format_pairs(const struct arena_pair *p, int k, char *buf, size_t cap)
{
	size_t len = 0;
	buf[0] = 0;
	for (int i = 0; i < k; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%d-%d", i ? " " : "", p[i].white + 1,
					p[i].black + 1);
}

struct dutch_case {
	int round, rounds;
	const char *lines[MAXP + 1];
	const char *expect; /* "" for ARENA_ENOPAIRING */
};

static const struct dutch_case cases[] = {
	/* t0063.trf round 4: 9 players, XXR 7 */
	{4, 7, {
		"5w1 4b1 2w1",
		"6b= 3w1 1b0",
		"7w= 2b0 8w=",
		"9b1 1w0 6b1",
		"1b0 9w0 -U",
		"2w= 7b= 4w0",
		"3b= 6w= 9b1",
		"-Z -Z 3b=",
		"4w0 5b1 7w0 |H",
		NULL}, "7-1 4-2 5-3 8-6"},
	/* t0063.trf round 7: 9 players, XXR 7 */
	{7, 7, {
		"5w1 4b1 2w1 7b1 3w1 9b=",
		"6b= 3w1 1b0 4b0 9w1 8w+",
		"7w= 2b0 8w= 5b1 1b0 4w=",
		"9b1 1w0 6b1 2w1 7b+ 3b=",
		"1b0 9w0 -U 3w0 8b= 7w1",
		"2w= 7b= 4w0 8b= -Z -Z |Z",
		"3b= 6w= 9b1 1w0 4w- 5b0",
		"-Z -Z 3b= 6w= 5w= 2b-",
		"4w0 5b1 7w0 -H 2b0 1w=",
		NULL}, "1-8 4-5 7-2 3-9"},
	/* t0101.trf round 6: 10 players, XXR 8 */
	{6, 8, {
		"6w1 9b= 8w0 3b1 7w=",
		"7b= 4w1 9w= 8b0 6w=",
		"-H -H 6b0 1w0 10b=",
		"8w= 2b0 7w= 5b- 5b=",
		"9b0 6w0 10b= 4w+ 4w=",
		"1b0 5b1 3w1 9w= 2b= |H",
		"2w= 8b0 4b= 10w1 1b=",
		"4b= 7w1 1b1 2w1 9b=",
		"5w1 1w= 2b= 6b= 8w=",
		"-Z -Z 5w= 7b0 3w=",
		NULL}, "8-5 1-2 7-9 3-4 10-0"},
	/* t0008.trf round 7: 15 players, XXR 7 */
	{7, 7, {
		"8w= 2b= 11w1 14b= 7w1 5b=",
		"9b0 1w= 12b= 6w1 10b1 15w=",
		"10w1 9b0 14b0 4w1 15w1 7b=",
		"11b- 10b= 6w1 3b0 12w1 11b1",
		"12w1 11b1 15w1 7b0 14w= 1w=",
		"13b0 12w= 4b0 2b0 -U 10w=",
		"14w1 15b0 8w+ 5w1 1b0 3w=",
		"1b= 13w= 7b- 12b1 -H -U",
		"2w1 3w1 13b0 15b0 11w= 14b=",
		"3b0 4w= -U 11b0 2w0 6b=",
		"4w+ 5w0 1b0 10w1 9b= 4w0",
		"5b0 6b= 2w= 8w0 4b0 -H",
		"6w1 8b= 9w1 -Z -Z -Z |Z",
		"7b0 -U 3w1 1w= 5b= 9w=",
		"-U 7w1 5b0 9w1 3b0 2b=",
		NULL}, "4-1 8-5 3-2 15-14 9-7 6-11 10-12"},
	/* t0000.trf round 5: 16 players, XXR 9 */
	{5, 9, {
		"9w= 13b- 10b0 -U",
		"10b1 8w1 4b1 13w=",
		"-H -H -H 6w=",
		"11w1 16b1 2w0 14b0",
		"12b1 14w0 9b1 15w1",
		"13w= 9b= 11w= 3b=",
		"14b0 12w1 15b0 16w1",
		"15w1 2b0 16w1 11b0",
		"1b= 6w= 5w0 12b-",
		"2w0 11b0 1w1 -H",
		"4b0 10w1 6b= 8w1",
		"5w0 7b0 -U 9w+ |H",
		"6b= 1w+ 14w1 2b=",
		"7w1 5b1 13b0 4w1",
		"8b0 -U 7w1 5b0",
		"-U 4w0 8b0 7b0",
		NULL}, "14-2 13-5 15-11 8-3 4-7 6-10 16-1 9-0"},
	/* t0011-stop.trf round 7: 9 players, XXR 10 */
	{7, 10, {
		"4w= 9b1 2w= 8b= 3w= 6b1",
		"5b= 3w1 1b= 4b= -H 8w1",
		"8w= 2b0 9w1 6b1 1b= 4w1",
		"1b= 5w1 6b1 2w= 8b1 3b0",
		"2w= 4b0 8w0 -U 6w0 7b1",
		"-Z 8b1 4w0 3w0 5b1 1w0",
		"-Z -Z -Z -Z -Z 5w0",
		"3b= 6w0 5b1 1w= 4w0 2b0",
		"-U 1w0 3b0 -Z -Z -Z |Z",
		NULL}, ""},
	/* Late entry: player 7 joins in round 3 with 0 points (Z Z), with one
	 * (two half-point byes) or with two (two full-point byes). */
	{3, 5, {"4w1 2b1", "5b= 1w0", "6w0 4b0", "1b0 3w1", "2w= 6b=", "3b1 5w=", "-Z -Z", NULL},
	 "1-6 5-4 7-2 3-0"},
	{3, 5, {"4w1 2b1", "5b= 1w0", "6w0 4b0", "1b0 3w1", "2w= 6b=", "3b1 5w=", "-H -H", NULL},
	 "1-6 5-7 2-4 3-0"},
	{3, 5, {"4w1 2b1", "5b= 1w0", "6w0 4b0", "1b0 3w1", "2w= 6b=", "3b1 5w=", "-F -F", NULL},
	 "1-7 4-6 5-3 2-0"},
};

START_TEST(test_dutch_cases)
{
	const struct dutch_case *c = &cases[_i];
	struct tourney T;
	parse(&T, c->lines, c->round - 1, c->rounds);
	struct arena_pair out[MAXP];
	int k = arena_dutch_pair(&T.t, out, MAXP);
	if (!*c->expect) {
		ck_assert_int_eq(k, ARENA_ENOPAIRING);
		return;
	}
	ck_assert_int_ge(k, 0);
	char got[512];
	format_pairs(out, k, got, sizeof got);
	ck_assert_msg(strcmp(got, c->expect) == 0, "case %d\n got %s\nwant %s", _i, got, c->expect);
}
END_TEST

/* Round 1 of nine: the top half against the bottom half, colours alternating
 * from the initial colour (C.04.3 E.5), the last player's PAB. */
START_TEST(test_dutch_round_one)
{
	static const char *const lines[] = {"", "", "", "", "", "", "", "", "", NULL};
	struct tourney T;
	parse(&T, lines, 0, 5);
	struct arena_pair out[8];
	char got[128];
	int k = arena_dutch_pair(&T.t, out, 8);
	format_pairs(out, k, got, sizeof got);
	ck_assert_str_eq(got, "1-5 6-2 3-7 8-4 9-0");
	T.t.first_color = 'b';
	k = arena_dutch_pair(&T.t, out, 8);
	format_pairs(out, k, got, sizeof got);
	ck_assert_str_eq(got, "5-1 2-6 7-3 4-8 9-0");
	/* A withdrawn player is not paired; nor is anyone when nobody is active. */
	T.players[8].active = 0;
	T.games[8][0] = (struct arena_game){-1, '-', 'Z'};
	k = arena_dutch_pair(&T.t, out, 8);
	ck_assert_int_eq(k, 4);
	ck_assert_int_eq(arena_dutch_pair(&T.t, out, 3), ARENA_ENOSPACE);
	for (int p = 0; p < 9; p++)
		T.players[p].active = 0;
	ck_assert_int_eq(arena_dutch_pair(&T.t, out, 0), 0);
}
END_TEST

/* Two players who met cannot meet again; one who had the PAB cannot get it
 * again: with three players left, no pairing. */
START_TEST(test_dutch_absolute)
{
	static const char *const two[] = {"2w1", "1b0", NULL};
	struct tourney T;
	struct arena_pair out[4];
	parse(&T, two, 1, 3);
	ck_assert_int_eq(arena_dutch_pair(&T.t, out, 4), ARENA_ENOPAIRING);
	/* Three players, three rounds: everyone met everyone and had the PAB. */
	static const char *const three[] = {"2w1 3b1 -U", "1b0 -U 3w1", "-U 1w0 2b0", NULL};
	parse(&T, three, 3, 5);
	ck_assert_int_eq(arena_dutch_pair(&T.t, out, 4), ARENA_ENOPAIRING);
	/* A state that contradicts itself is refused. */
	static const char *const bad[] = {"2w1", "1w0", NULL};
	parse(&T, bad, 1, 3);
	ck_assert_int_eq(arena_dutch_pair(&T.t, out, 4), ARENA_EINVAL);
	ck_assert_int_eq(arena_swiss_check(&T.t), ARENA_EINVAL);
	T.t.n = ARENA_SWISS_MAX + 1; /* refused before any player is read */
	ck_assert_int_eq(arena_dutch_pair(&T.t, out, 4), ARENA_ERANGE);
}
END_TEST

/* Played colour history of p after `played` rounds: 'w'/'b' per game played. */
static int history(const struct tourney *T, int p, int played, char *h)
{
	int k = 0;
	for (int r = 0; r < played; r++) {
		const struct arena_game *g = &T->games[p][r];
		if (g->opp >= 0 && strchr("1=0", g->result))
			h[k++] = g->color;
	}
	h[k] = 0;
	return k;
}

/* Whole random tournaments paired by the engine and played with random
 * results (forfeits, late entries and withdrawals included): every round
 * pairs each active player once, never two who played each other, gives the
 * PAB only to a player who had neither a PAB nor a forfeit win, and, except
 * for topscorers in the last round, leaves nobody with a colour difference
 * beyond 2 or three games in a row with one colour (C.04.3 C1-C3, A.6). */
START_TEST(test_dutch_properties)
{
	struct rng rg;
	rng_seed(&rg, 1000 + (uint64_t)_i);
	for (int iter = 0; iter < 6; iter++) {
		struct tourney T;
		int n = 9 + (int)(rng_next(&rg) % 14), rounds = 7 + (int)(rng_next(&rg) % 4);
		static const char *const none[MAXP + 1];
		parse(&T, none, 0, rounds);
		T.n = T.t.n = n;
		int state[MAXP] = {0}; /* 0 playing, 1 withdrawn */
		for (int p = 0; p < n; p++) {
			T.players[p].games = T.games[p];
			T.players[p].name = T.names[p];
		}
		for (int rd = 0; rd < rounds; rd++) {
			for (int p = 0; p < n; p++) {
				T.games[p][rd] = (struct arena_game){-1, '-', 'Z'};
				if (rd > 1 && rng_next(&rg) % 40 == 0)
					state[p] = 1;
				T.players[p].active = !state[p];
			}
			T.t.played = rd;
			struct arena_pair out[MAXP];
			int k = arena_dutch_pair(&T.t, out, MAXP);
			if (k == ARENA_ENOPAIRING)
				break;
			ck_assert_int_ge(k, 0);
			int seen[MAXP] = {0};
			for (int i = 0; i < k; i++) {
				int w = out[i].white, b = out[i].black;
				ck_assert(T.players[w].active && !seen[w]);
				seen[w] = 1;
				if (b < 0) {
					for (int r = 0; r < rd; r++)
						ck_assert(T.games[w][r].result != 'U' &&
							  T.games[w][r].result != '+');
					T.games[w][rd].result = 'U';
					continue;
				}
				ck_assert(T.players[b].active && !seen[b]);
				seen[b] = 1;
				for (int r = 0; r < rd; r++)
					ck_assert(!(T.games[w][r].opp == b && strchr("1=0", T.games[w][r].result)));
				unsigned x = (unsigned)(rng_next(&rg) % 100);
				char rw = x < 40 ? '1' : x < 70 ? '=' : x < 97 ? '0' : '+';
				char rb = rw == '1' ? '0' : rw == '0' ? '1' : rw == '+' ? '-' : '=';
				T.games[w][rd] = (struct arena_game){b, 'w', rw};
				T.games[b][rd] = (struct arena_game){w, 'b', rb};
			}
			for (int p = 0; p < n; p++)
				ck_assert(seen[p] == T.players[p].active);
			/* Colours after the round, but for topscorers of the last
			 * one (more than half the points) and their opponents. */
			T.t.played = rd + 1;
			for (int p = 0; p < n; p++) {
				char h[MAXR + 1];
				int len = history(&T, p, rd + 1, h), wh = 0;
				for (int i = 0; i < len; i++)
					wh += h[i] == 'w';
				int o = T.games[p][rd].opp;
				int top = rd == rounds - 1 &&
					  (arena_score(&T.t, p, rd) * 2 > rd * 10 ||
					   (o >= 0 && arena_score(&T.t, o, rd) * 2 > rd * 10));
				if (top)
					continue;
				ck_assert_msg(2 * wh - len <= 2 && len - 2 * wh <= 2, "%s", h);
				ck_assert_msg(!strstr(h, "www") && !strstr(h, "bbb"), "%s", h);
			}
		}
	}
}
END_TEST

/*
 * The hand-computed example for the TRF and the tie-breaks: five players,
 * three rounds, win 1, draw 1/2.
 *   R1: A-B 1-0, C-D 1/2, E PAB
 *   R2: A-C 1/2, E-B 1-0, D PAB
 *   R3: A-E won by A by forfeit (+/-), B-D 0-1, C PAB
 * Scores: A 2.5, B 0, C 2, D 2.5, E 2.
 */
static const char *const example[] = {
	"2w1 3w= 5w+", /* A */
	"1b0 5b0 4w0", /* B */
	"4w= 1b= -U",  /* C */
	"3b= -U 2b1",  /* D */
	"-U 2w1 1b-",  /* E */
	NULL,
};

START_TEST(test_trf)
{
	struct tourney T;
	parse(&T, example, 3, 5);
	static const char *names[] = {"Alpha", "Bravo", "Charlie", "Delta", "Echo"};
	for (int p = 0; p < 5; p++)
		T.players[p].name = names[p];
	T.players[1].rating = 0; /* unrated */
	struct arena_trf_info info = {"Test Open", "Lyon", "FRA", "2026/01/10", "2026/01/11",
				      "A. Arbiter", 0};
	char buf[4096];
	int len = arena_trf_write(&T.t, &info, buf, sizeof buf);
	ck_assert_int_gt(len, 0);
	/* Columns by hand: 001, rank in 5-8, name from 15, rating 49-52,
	 * points 81-84, place 86-89, round r at 92 + 10 (r - 1). Places:
	 * A and D 2.5 (A first by number), C and E 2.0, B 0. */
	const char *want =
		"012 Test Open\n"
		"022 Lyon\n"
		"032 FRA\n"
		"042 2026/01/10\n"
		"052 2026/01/11\n"
		"062 5\n"
		"072 4\n"
		"092 Individual: Swiss-System\n"
		"102 A. Arbiter\n"
		"001    1      Alpha                             2000                             2.5    1     2 w 1     3 w =     5 w +\n"
		"001    2      Bravo                                                              0.0    5     1 b 0     5 b 0     4 w 0\n"
		"001    3      Charlie                           1998                             2.0    3     4 w =     1 b =  0000 - U\n"
		"001    4      Delta                             1997                             2.5    2     3 b =  0000 - U     2 b 1\n"
		"001    5      Echo                              1996                             2.0    4  0000 - U     2 w 1     1 b -\n"
		"XXR 5\n";
	ck_assert_str_eq(buf, want);
	ck_assert_int_eq(len, (int)strlen(want));
	/* Column positions, counted from the text (1-based). */
	const char *a = strstr(buf, "001    1");
	ck_assert(strncmp(a + 14, "Alpha", 5) == 0);
	ck_assert(strncmp(a + 48, "2000", 4) == 0);
	ck_assert(strncmp(a + 80, " 2.5", 4) == 0);
	ck_assert(strncmp(a + 91, "   2 w 1", 8) == 0);
	ck_assert(strncmp(a + 101, "   3 w =", 8) == 0);
	ck_assert_int_eq(arena_trf_write(&T.t, &info, buf, 100), ARENA_ENOSPACE);
	ck_assert_str_eq(buf, "");
}
END_TEST

START_TEST(test_tiebreaks)
{
	struct tourney T;
	parse(&T, example, 3, 5);
	int64_t v[5];
	/*
	 * Opponents' scores with their unplayed rounds counted as draws:
	 *   A 1 + 1/2 + 1/2 = 2, B 0, C 1/2 + 1/2 + 1/2 = 1.5, D 1/2 + 1/2 + 1 = 2,
	 *   E 1/2 + 1 + 1/2 = 2.
	 * Virtual opponents (score before the round + opposite result + a draw
	 * for each later round):
	 *   A R3 (forfeit win): 1.5 + 0 + 0 = 1.5
	 *   C R3 (PAB): 1 + 0 + 0 = 1
	 *   D R2 (PAB): 0.5 + 0 + 0.5 = 1
	 *   E R1 (PAB): 0 + 0 + 1 = 1;  E R3 (forfeit loss): 2 + 1 + 0 = 3
	 * Buchholz: A 0 + 1.5 + 1.5 = 3; B 2 + 2 + 2 = 6; C 2 + 2 + 1 = 5;
	 *           D 1.5 + 1 + 0 = 2.5; E 1 + 0 + 3 = 4.
	 */
	ck_assert_int_eq(arena_tiebreak(&T.t, ARENA_TB_BUCHHOLZ, v), 0);
	ck_assert(v[0] == 30 && v[1] == 60 && v[2] == 50 && v[3] == 25 && v[4] == 40);
	/* Cut-1, less the lowest: A 3 - 0; B 6 - 2; C 5 - 1; D 2.5 - 0; E 4 - 0. */
	ck_assert_int_eq(arena_tiebreak(&T.t, ARENA_TB_BUCHHOLZ_CUT1, v), 0);
	ck_assert(v[0] == 30 && v[1] == 40 && v[2] == 40 && v[3] == 25 && v[4] == 40);
	/* Sonneborn-Berger (hundredths): A 0 + 1.5/2 + 1.5 = 2.25; B 0;
	 * C 2/2 + 2/2 + 1 = 3; D 1.5/2 + 1 + 0 = 1.75; E 1 + 0 + 0 = 1. */
	ck_assert_int_eq(arena_tiebreak(&T.t, ARENA_TB_SONNEBORN, v), 0);
	ck_assert(v[0] == 225 && v[1] == 0 && v[2] == 300 && v[3] == 175 && v[4] == 100);
	/* Wins: A (R1, R3 by forfeit) 2, B 0, C 0 (a PAB is no win), D 1, E 1. */
	ck_assert_int_eq(arena_tiebreak(&T.t, ARENA_TB_WINS, v), 0);
	ck_assert(v[0] == 2 && v[1] == 0 && v[2] == 0 && v[3] == 1 && v[4] == 1);
	/* Direct encounter: A and D (2.5) never met, nor C and E (2): none. */
	ck_assert_int_eq(arena_tiebreak(&T.t, ARENA_TB_DIRECT, v), 0);
	ck_assert(v[0] == 0 && v[1] == 0 && v[2] == 0 && v[3] == 0 && v[4] == 0);
}
END_TEST

/*
 * A four-player round-robin, everything played:
 *   R1: 1-4 1-0, 2-3 1/2;  R2: 4-3 1-0, 1-2 0-1;  R3: 2-4 1/2, 3-1 0-1
 * Scores: 1: 2, 2: 2, 3: 0.5, 4: 1.5.
 * Buchholz: 1: 1.5 + 2 + 0.5 = 4; 2: 0.5 + 2 + 1.5 = 4; 3: 2 + 1.5 + 2 = 5.5;
 *           4: 2 + 0.5 + 2 = 4.5.
 * Sonneborn-Berger: 1: 1.5 + 0 + 0.5 = 2; 2: 0.25 + 2 + 0.75 = 3;
 *           3: 1 + 0 + 0 = 1; 4: 0 + 0.5 + 1 = 1.5.
 * Direct encounter: 1 and 2 tied on 2 points, 2 beat 1: 1 gets 0, 2 gets 1.
 */
START_TEST(test_tiebreaks_rr)
{
	static const char *const rr[] = {"4w1 2w0 3b1", "3w= 1b1 4w=", "2b= 4b0 1w0", "1b0 3w1 2b=",
					 NULL};
	struct tourney T;
	parse(&T, rr, 3, 3);
	int64_t v[4];
	ck_assert_int_eq(arena_tiebreak(&T.t, ARENA_TB_BUCHHOLZ, v), 0);
	ck_assert(v[0] == 40 && v[1] == 40 && v[2] == 55 && v[3] == 45);
	ck_assert_int_eq(arena_tiebreak(&T.t, ARENA_TB_SONNEBORN, v), 0);
	ck_assert(v[0] == 200 && v[1] == 300 && v[2] == 100 && v[3] == 150);
	ck_assert_int_eq(arena_tiebreak(&T.t, ARENA_TB_DIRECT, v), 0);
	ck_assert(v[0] == 0 && v[1] == 10 && v[2] == 0 && v[3] == 0);
	ck_assert_int_eq(arena_tiebreak(&T.t, (enum arena_tiebreak)99, v), ARENA_EINVAL);
}
END_TEST

/* lichess: 2/1/0, after two wins in a row every game counts double until a
 * game that is not a win. Their example: win, win, draw = 2 + 2 + 2 = 6. */
START_TEST(test_live_score)
{
	int fire;
	ck_assert_int_eq(arena_live_score("11=", &fire), 6);
	ck_assert_int_eq(fire, 0);
	ck_assert_int_eq(arena_live_score("111", &fire), 2 + 2 + 4);
	ck_assert_int_eq(fire, 1);
	ck_assert_int_eq(arena_live_score("1111", NULL), 2 + 2 + 4 + 4);
	ck_assert_int_eq(arena_live_score("1101", &fire), 2 + 2 + 0 + 2);
	ck_assert_int_eq(fire, 0);
	ck_assert_int_eq(arena_live_score("111=1", NULL), 2 + 2 + 4 + 2 + 2);
	ck_assert_int_eq(arena_live_score("=1=1", NULL), 1 + 2 + 1 + 2);
	ck_assert_int_eq(arena_live_score("", &fire), 0);
	ck_assert_int_eq(fire, 0);
}
END_TEST

START_TEST(test_live_pair)
{
	/* ids 10..15, ranks 0..5; 10 and 11 just played each other. */
	struct arena_live_player f[6] = {
		{10, 0, 11, 5}, {11, 1, 10, 5}, {12, 2, -1, 9},
		{13, 3, -1, 1}, {14, 4, -1, 0}, {15, 5, -1, 0},
	};
	struct arena_pair out[4];
	int k = arena_live_pair(f, 6, 100, out, 4);
	/* 12 waited longest: picks 11 (rank 1, closer than 13? |2-1| = |2-3|:
	 * the tie goes to the one who waited longer, 11). Then 10 (waited 5):
	 * 11 is gone, 13 is closest. Then 14 and 15. */
	ck_assert_int_eq(k, 3);
	ck_assert(out[0].white == 12 && out[0].black == 11);
	ck_assert(out[1].white == 10 && out[1].black == 13);
	ck_assert(out[2].white == 14 && out[2].black == 15);
	/* Only the last opponents are free: they wait, until rematch_after. */
	struct arena_live_player two[2] = {{1, 0, 2, 50}, {2, 1, 1, 40}};
	ck_assert_int_eq(arena_live_pair(two, 2, 100, out, 4), 0);
	two[0].waiting = 100;
	ck_assert_int_eq(arena_live_pair(two, 2, 100, out, 4), 1);
	ck_assert(out[0].white == 1 && out[0].black == 2);
	/* An odd one out waits; the buffer limit is kept. */
	ck_assert_int_eq(arena_live_pair(f, 5, 100, out, 4), 2);
	ck_assert_int_eq(arena_live_pair(f, 6, 100, out, 1), ARENA_ENOSPACE);
	ck_assert_int_eq(arena_live_pair(NULL, 3, 0, out, 1), ARENA_EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("arena_swiss");
	TCase *tc = tcase_create("swiss");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_dutch_cases, 0, (int)(sizeof cases / sizeof cases[0]));
	tcase_add_test(tc, test_dutch_round_one);
	tcase_add_test(tc, test_dutch_absolute);
	tcase_add_loop_test(tc, test_dutch_properties, 0, 4);
	tcase_add_test(tc, test_trf);
	tcase_add_test(tc, test_tiebreaks);
	tcase_add_test(tc, test_tiebreaks_rr);
	tcase_add_test(tc, test_live_score);
	tcase_add_test(tc, test_live_pair);
	suite_add_tcase(s, tc);
	return check_run(s);
}
