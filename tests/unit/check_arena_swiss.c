/*
 * check_arena_swiss.c - the Swiss side of src/arena, against published
 * facts:
 *  - the Dutch pairing: fixed cases (each paired the same by bbpPairings
 *    5.0.1, the FIDE-endorsed engine, on the same TRF), whole random
 *    tournaments held to the absolute criteria, and every round of the
 *    TRF files of tests/unit/trf paired again as bbpPairings paired it
 *    (test_dutch_fixtures says where they come from and the wider figures);
 *  - TRF-16: the writer on a hand-checked file, the reader on what the
 *    writer and other programs write, and on malformed files;
 *  - the tie-breaks: hand-computed tables, and the worked examples of the
 *    FIDE rules for unplayed games (the virtual opponent);
 *  - the live arena's scoring (lichess' published example) and pairing.
 */
#include <check.h>
#include <dirent.h>
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
 * Pairings of bbpPairings 5.0.1 (github.com/BieremaBoyzProgramming/
 * bbpPairings, the FIDE-endorsed Dutch engine, the last version on the
 * 2017 rules this library follows) as published facts: tests/unit/trf holds
 * TRF-16 files whose every round is a pairing that program made or
 * confirmed, and each round is paired again here from the state before it:
 *  - rtg*.trf: tournaments of its random tournament generator (its own
 *    pairings, with its forfeits, half-point byes and retirements), line
 *    ends made LF and the XXR line of the rounds it was told added;
 *  - arena-*.trf: tournaments of bench/arena_bench --trf (this library's
 *    pairings, with late entries, requested byes and withdrawals) in which
 *    bbpPairings' checker (-c) found no round to differ; the -stop files end
 *    with a round that neither program can pair (bbpPairings -p: "no valid
 *    pairing exists"), and so must this one refuse it.
 * The wider comparison these come from (docs/arena.md, "How the pairing is
 * checked"): 2000 random tournaments of bench/arena_bench --compare, 5 to
 * 64 players, 3 to 12 rounds, every round paired by both from the same
 * state: 14,674 of 14,674 rounds identical; and 952 tournaments of
 * bbpPairings' generator, 5 to 80 players, 3 to 12 rounds, paired again by
 * bench/arena_bench --check: 7,037 of 7,037 rounds identical.
 */
#define TRF_FILES 16
#define TRF_ROUNDS 148

static const char *trf_dir(void)
{
	static char dir[4096];
	const char *src = getenv("BITARENA_SRCDIR");
	snprintf(dir, sizeof dir, "%s/tests/unit/trf", src ? src : "..");
	return dir;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The pairs of round rd as the file has them, white first, the PAB as
 * {p, -1}; sorted. */
static int file_round(const struct arena_trf_doc *doc, int rd, struct arena_pair *q)
{
	int k = 0;
	for (int p = 0; p < doc->n; p++) {
		const struct arena_game *g = &doc->players[p].games[rd];
		if (g->opp < 0 && g->result == 'U')
			q[k++] = (struct arena_pair){p, -1};
		else if (g->opp >= 0 && g->color == 'w')
			q[k++] = (struct arena_pair){p, g->opp};
	}
	return k;
}

static int cmp_pair(const void *a, const void *b)
{
	const struct arena_pair *x = a, *y = b;
	return x->white != y->white ? x->white - y->white : x->black - y->black;
}

START_TEST(test_dutch_fixtures)
{
	DIR *dir = opendir(trf_dir());
	ck_assert_msg(dir != NULL, "%s: missing", trf_dir());
	char *names[64];
	int nf = 0;
	struct dirent *e;
	while ((e = readdir(dir)) != NULL) {
		size_t len = strlen(e->d_name);
		if (len > 4 && strcmp(e->d_name + len - 4, ".trf") == 0) {
			ck_assert_int_lt(nf, 64);
			names[nf++] = strdup(e->d_name);
		}
	}
	closedir(dir);
	qsort(names, (size_t)nf, sizeof names[0], cmp_name);
	ck_assert_int_eq(nf, TRF_FILES);

	enum { CAPP = 128, CAPR = 16 };
	static struct arena_player players[CAPP];
	static struct arena_game games[CAPP * CAPR];
	struct arena_pair ours[CAPP / 2 + 1], theirs[CAPP / 2 + 1];
	int rounds = 0, stops = 0;
	for (int f = 0; f < nf; f++) {
		char path[4400];
		snprintf(path, sizeof path, "%s/%s", trf_dir(), names[f]);
		FILE *fp = fopen(path, "rb");
		ck_assert_msg(fp != NULL, "%s", path);
		static char text[1 << 17];
		size_t len = fread(text, 1, sizeof text, fp);
		fclose(fp);
		ck_assert_int_lt(len, sizeof text);
		struct arena_trf_doc doc = {players, games, NULL, CAPP, CAPR, 0, 0, 0, 0, 0};
		ck_assert_msg(arena_trf_read(text, len, &doc) == 0, "%s", names[f]);
		ck_assert_msg(doc.planned > 0 && doc.first_color, "%s", names[f]);
		for (int rd = 0; rd < doc.played; rd++) {
			struct arena_swiss t;
			ck_assert_int_eq(arena_trf_round(&doc, rd, &t), 0);
			int k = arena_dutch_pair(&t, ours, CAPP / 2 + 1);
			int kf = file_round(&doc, rd, theirs);
			ck_assert_int_ge(k, 0);
			qsort(ours, (size_t)k, sizeof ours[0], cmp_pair);
			qsort(theirs, (size_t)kf, sizeof theirs[0], cmp_pair);
			char got[1024], want[1024];
			format_pairs(ours, k, got, sizeof got);
			format_pairs(theirs, kf, want, sizeof want);
			ck_assert_msg(strcmp(got, want) == 0, "%s round %d\n got %s\nwant %s",
				      names[f], rd + 1, got, want);
			rounds++;
		}
		if (strstr(names[f], "-stop")) {
			struct arena_swiss t;
			ck_assert_int_eq(arena_trf_round(&doc, doc.played, &t), 0);
			int k = arena_dutch_pair(&t, ours, CAPP / 2 + 1);
			ck_assert_int_eq(k, ARENA_ENOPAIRING);
			stops++;
		}
		free(names[f]);
	}
	ck_assert_int_eq(rounds, TRF_ROUNDS);
	ck_assert_int_eq(stops, 3);
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
		"XXR 5\n"
		"XXC white1\n";
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

/* The reader takes back what the writer wrote: names, ratings, every
 * round, XXR and XXC; and the state before each round is the one written. */
START_TEST(test_trf_read)
{
	struct tourney T;
	parse(&T, example, 3, 5);
	static const char *names[] = {"Alpha", "Bravo", "Charlie", "Delta", "Echo"};
	for (int p = 0; p < 5; p++)
		T.players[p].name = names[p];
	T.t.first_color = 'b';
	char buf[4096];
	int len = arena_trf_write(&T.t, NULL, buf, sizeof buf);
	ck_assert_int_gt(len, 0);

	struct arena_player players[8];
	struct arena_game games[8 * 6];
	char nm[8][ARENA_TRF_NAME];
	struct arena_trf_doc doc = {players, games, nm, 8, 6, 0, 0, 0, 0, 0};
	ck_assert_int_eq(arena_trf_read(buf, (size_t)len, &doc), 0);
	ck_assert_int_eq(doc.n, 5);
	ck_assert_int_eq(doc.rounds, 3);
	ck_assert_int_eq(doc.played, 3);
	ck_assert_int_eq(doc.planned, 5);
	ck_assert_int_eq(doc.first_color, 'b');
	for (int p = 0; p < 5; p++) {
		ck_assert_str_eq(players[p].name, names[p]);
		ck_assert_int_eq(players[p].rating, T.players[p].rating);
		for (int r = 0; r < 3; r++) {
			const struct arena_game *a = &players[p].games[r], *b = &T.games[p][r];
			ck_assert_int_eq(a->opp, b->opp);
			ck_assert_int_eq(a->result, b->result);
			if (b->opp >= 0)
				ck_assert_int_eq(a->color, b->color);
		}
	}
	/* The state before round 2: everyone was paired in it (C had a game,
	 * D the PAB). */
	struct arena_swiss t;
	ck_assert_int_eq(arena_trf_round(&doc, 1, &t), 0);
	ck_assert_int_eq(t.played, 1);
	ck_assert_int_eq(t.rounds, 5);
	ck_assert_int_eq(t.first_color, 'b');
	for (int p = 0; p < 5; p++)
		ck_assert_int_eq(players[p].active, 1);
	ck_assert_int_eq(arena_score(&t, 0, 1), 10);
	ck_assert_int_eq(arena_trf_round(&doc, 4, &t), ARENA_EINVAL);
	/* Too little room. */
	doc.cap_players = 4;
	ck_assert_int_eq(arena_trf_read(buf, (size_t)len, &doc), ARENA_ENOSPACE);
	doc.cap_players = 8, doc.cap_rounds = 2;
	ck_assert_int_eq(arena_trf_read(buf, (size_t)len, &doc), ARENA_ENOSPACE);
}
END_TEST

/* What other programs write: CR line ends (bbpPairings' generator), no XXR,
 * no XXC (the initial colour inferred), an announced absence and a
 * half-point bye in the round to pair, forfeits without an opponent, a line
 * that stops before its last rounds. */
START_TEST(test_trf_read_foreign)
{
	/* 5 players, round 1: 3-1 (3 white, so the first colour is black: 1 is
	 * the first player paired, and was black), 2-4, 5 the PAB; round 2:
	 * 1 and 5 are announced (H and Z), the rest to be paired. */
	static const char text[] =
		"012 Foreign\r"
		"001    1      One                               2100                             0.5    3     3 b =  0000 - H\r"
		"001    2      Two                               2000                             1.0    1     4 w 1\r"
		"001    3      Three                             1900                             0.5    4     1 w =\r"
		"001    4      Four                              1800                             0.0    5     2 b 0\r"
		"001    5      Five                              1700                             1.0    2  0000 - U  0000 - -\r";
	struct arena_player players[5];
	struct arena_game games[5 * 3];
	struct arena_trf_doc doc = {players, games, NULL, 5, 3, 0, 0, 0, 0, 0};
	ck_assert_int_eq(arena_trf_read(text, sizeof text - 1, &doc), 0);
	ck_assert_int_eq(doc.n, 5);
	ck_assert_int_eq(doc.rounds, 2);
	ck_assert_int_eq(doc.played, 1);
	ck_assert_int_eq(doc.planned, 0);
	ck_assert_int_eq(doc.first_color, 'b');
	ck_assert_ptr_null(players[0].name);
	ck_assert_int_eq(players[4].games[1].result, 'Z'); /* "0000 - -" */
	ck_assert_int_eq(players[1].games[1].color, 0);   /* no entry */
	struct arena_swiss t;
	ck_assert_int_eq(arena_trf_round(&doc, 1, &t), 0);
	int active[5] = {0, 1, 1, 1, 0};
	for (int p = 0; p < 5; p++)
		ck_assert_int_eq(players[p].active, active[p]);
	/* Round 1 again: all paired, 5 by the PAB. */
	ck_assert_int_eq(arena_trf_round(&doc, 0, &t), 0);
	for (int p = 0; p < 5; p++)
		ck_assert_int_eq(players[p].active, 1);
	struct arena_pair out[3];
	char got[64];
	int k = arena_dutch_pair(&t, out, 3);
	format_pairs(out, k, got, sizeof got);
	ck_assert_str_eq(got, "3-1 2-4 5-0"); /* the file's round 1 */
	/* LF and CR LF read the same. */
	char lf[sizeof text], crlf[2 * sizeof text];
	size_t n = 0;
	for (size_t i = 0; i + 1 < sizeof text; i++) {
		lf[i] = text[i] == '\r' ? '\n' : text[i];
		crlf[n++] = text[i];
		if (text[i] == '\r')
			crlf[n++] = '\n';
	}
	ck_assert_int_eq(arena_trf_read(lf, sizeof text - 1, &doc), 0);
	ck_assert_int_eq(doc.n * 10 + doc.played, 51);
	ck_assert_int_eq(arena_trf_read(crlf, n, &doc), 0);
	ck_assert_int_eq(doc.n * 10 + doc.rounds, 52);
}
END_TEST

/* Malformed files are refused, whatever the bytes. */
START_TEST(test_trf_read_errors)
{
	static const char *const bad[] = {
		/* pairing number twice */
		"001    1      A\n001    1      B\n",
		/* pairing number past the players */
		"001    1      A\n001    3      B\n",
		/* an opponent out of range */
		"001    1      A                                                                  0.0    1     7 w 1\n",
		/* oneself as opponent */
		"001    1      A                                                                  0.0    1     1 w 1\n",
		/* an unknown result code */
		"001    1      A                                                                  1.0    1     2 w X\n"
		"001    2      B                                                                  0.0    2     1 b 0\n",
		/* a colour that is none */
		"001    1      A                                                                  1.0    1     2 q 1\n"
		"001    2      B                                                                  0.0    2     1 b 0\n",
		/* letters in a number */
		"001   1a      A\n",
		"001    1      A                                 2x00\n",
		/* XXR without a number */
		"001    1      A\nXXR\n",
	};
	struct arena_player players[4];
	struct arena_game games[4 * 4];
	struct arena_trf_doc doc = {players, games, NULL, 4, 4, 0, 0, 0, 0, 0};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(arena_trf_read(bad[i], strlen(bad[i]), &doc) == ARENA_EINVAL,
			      "case %zu", i);
	/* Results that do not mirror each other read, and the round refuses them. */
	static const char asym[] =
		"001    1      A                                                                  1.0    1     2 w 1\n"
		"001    2      B                                                                  1.0    2     1 b 1\n";
	ck_assert_int_eq(arena_trf_read(asym, sizeof asym - 1, &doc), 0);
	struct arena_swiss t;
	ck_assert_int_eq(arena_trf_round(&doc, 1, &t), ARENA_EINVAL);
	/* Every prefix of a good file reads or is refused, never more. */
	static const char good[] =
		"012 x\n"
		"001    1      A                                 2000                             1.0    1     2 w 1\n"
		"001    2      B                                 1900                             0.0    2     1 b 0\n"
		"XXR 3\nXXC black1\n";
	for (size_t len = 0; len <= sizeof good - 1; len++) {
		int r = arena_trf_read(good, len, &doc);
		ck_assert(r == 0 || r == ARENA_EINVAL);
		ck_assert_int_le(doc.n, 2);
	}
	ck_assert_int_eq(arena_trf_read(NULL, 1, &doc), ARENA_EINVAL);
	ck_assert_int_eq(arena_trf_read("", 0, &doc), 0);
	ck_assert_int_eq(doc.n, 0);
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

/*
 * The worked examples of the FIDE tie-break rules for unplayed games (the
 * virtual opponent, tiebreak.c), each in a 10-player round-robin of 9
 * rounds (Berger table, so player 1 meets 10, 2, 3, ..., 9 in rounds 1..9)
 * where every game without player 1 is drawn and player 1's own results are
 * the example's. Then an opponent Q of player 1 who played every round has,
 * after n rounds, 0.5 for each other game plus what he scored against
 * player 1; and the unplayed game of player 1's forfeit opponent counts as a
 * draw. The published figure is one term of each expected sum.
 *
 * Published examples (FIDE Handbook C.02 13.15.2, the rule in force until
 * 2023, and the minutes of the Swiss Pairings Programs Committee, 80th FIDE
 * Congress, Kallithea 2009, item 7):
 *   (a) "in Round 3 of a nine-round tournament Player P did not show up;
 *       P's score after 2 rounds is 1.5": Svon = 2.5 after round 3, 5.5 at
 *       the end;
 *   (b) "in Round 6 ... P's opponent does not show up; P's score after 5
 *       rounds is 3.5": Svon = 3.5 after round 6, 5.0 at the end;
 *   (c) "A achieves 6 points including a default win in round 3; after
 *       round 2 A had 2 points": round 3 contributes 5 to A's Buchholz, and
 *       A contributes 5.5 to his opponents';
 *   (d) "B was absent in round 7 and scored 6 points; after round 6 B had 4
 *       points": round 7 contributes 6 to B's Buchholz, B contributes 6.5 to
 *       his opponents'.
 */
static void rr10(struct tourney *T, const char *p1, int played)
{
	memset(T, 0, sizeof *T);
	T->n = 10;
	for (int p = 0; p < 10; p++) {
		T->players[p].games = T->games[p];
		T->players[p].rating = 2000 - p;
		T->players[p].active = 1;
	}
	for (int r = 0; r < 9; r++) {
		struct arena_pair pr[5];
		ck_assert_int_eq(arena_rr_round(10, 1, r, 0, pr, 5), 5);
		for (int i = 0; i < 5; i++) {
			int w = pr[i].white, b = pr[i].black;
			char rw = '=', rb = '=';
			if (w == 0 || b == 0) {
				char mine = p1[r];
				char theirs = mine == '1'   ? '0'
					      : mine == '0' ? '1'
					      : mine == '+' ? '-'
					      : mine == '-' ? '+'
							    : '=';
				rw = w == 0 ? mine : theirs;
				rb = w == 0 ? theirs : mine;
			}
			T->games[w][r] = (struct arena_game){b, 'w', rw};
			T->games[b][r] = (struct arena_game){w, 'b', rb};
		}
	}
	T->t.n = 10;
	T->t.players = T->players;
	T->t.played = played;
	T->t.rounds = 9;
	T->t.first_color = 'w';
	T->t.points = arena_points_default();
}

static int64_t tb(const struct tourney *T, enum arena_tiebreak kind, int p)
{
	int64_t v[10];
	ck_assert_int_eq(arena_tiebreak(&T->t, kind, v), 0);
	return v[p];
}

START_TEST(test_tiebreak_fide_examples)
{
	struct tourney T;
	/* (a) Player 1: win, draw, absent in round 3 (forfeit loss), draws. */
	rr10(&T, "1=-======", 3);
	ck_assert_int_eq(arena_score(&T.t, 0, 2), 15);
	/* After round 3: opponents of rounds 1 and 2 (1.0 and 1.5) + Svon 2.5. */
	ck_assert_int_eq(tb(&T, ARENA_TB_BUCHHOLZ, 0), 10 + 15 + 25);
	T.t.played = 9;
	/* At the end: 4.0 + 4.5 + Svon 5.5 + six draws' opponents at 4.5. */
	ck_assert_int_eq(tb(&T, ARENA_TB_BUCHHOLZ, 0), 40 + 45 + 55 + 6 * 45);
	/* Sonneborn-Berger: the forfeit loss scores 0 x Svon; in hundredths. */
	ck_assert_int_eq(tb(&T, ARENA_TB_SONNEBORN, 0), 400 + 225 + 0 + 6 * 225);
	/* Cut-1 drops the lowest contribution, the round-1 opponent's 4.0. */
	ck_assert_int_eq(tb(&T, ARENA_TB_BUCHHOLZ_CUT1, 0), 45 + 55 + 6 * 45);

	/* (b) Player 1: 1 1 1 = 0 (3.5 after 5), round 6 won by forfeit, draws. */
	rr10(&T, "111=0+===", 6);
	ck_assert_int_eq(arena_score(&T.t, 0, 5), 35);
	/* After round 6: three losers at 2.5, the drawer 3.0, the winner 3.5,
	 * and Svon 3.5. */
	ck_assert_int_eq(tb(&T, ARENA_TB_BUCHHOLZ, 0), 3 * 25 + 30 + 35 + 35);
	T.t.played = 9;
	/* At the end: 3 x 4.0, 4.5, 5.0, Svon 5.0, three drawers at 4.5. */
	ck_assert_int_eq(tb(&T, ARENA_TB_BUCHHOLZ, 0), 3 * 40 + 45 + 50 + 50 + 3 * 45);
	/* The forfeit win scores 1 x Svon in Sonneborn-Berger. */
	ck_assert_int_eq(tb(&T, ARENA_TB_SONNEBORN, 0), 3 * 400 + 225 + 0 + 500 + 3 * 225);

	/* (c) A = player 1: 1 1, a default win in round 3, six draws: 6 points. */
	rr10(&T, "11+======", 9);
	ck_assert_int_eq(arena_score(&T.t, 0, 2), 20);
	ck_assert_int_eq(arena_score(&T.t, 0, 9), 60);
	/* Round 3 contributes 5: 4.0 + 4.0 + 5 + 6 x 4.5. */
	ck_assert_int_eq(tb(&T, ARENA_TB_BUCHHOLZ, 0), 40 + 40 + 50 + 6 * 45);
	/* A contributes 5.5 to player 10 (his round-1 opponent), beside player
	 * 2 (lost to A: 4.0), player 3 (A's forfeit opponent: 4.0 + the
	 * unplayed game as a draw = 4.5) and players 4..9 (drew A: 4.5). */
	ck_assert_int_eq(tb(&T, ARENA_TB_BUCHHOLZ, 9), 55 + 40 + 45 + 6 * 45);

	/* (d) B = player 1: 1 1 1 1 0 0 (4 after 6), absent in round 7, 1 1. */
	rr10(&T, "111100-11", 9);
	ck_assert_int_eq(arena_score(&T.t, 0, 6), 40);
	ck_assert_int_eq(arena_score(&T.t, 0, 9), 60);
	/* Round 7 contributes 6: 4 x 4.0 + 2 x 5.0 + 6 + 2 x 4.0. */
	ck_assert_int_eq(tb(&T, ARENA_TB_BUCHHOLZ, 0), 4 * 40 + 2 * 50 + 60 + 2 * 40);
	/* B contributes 6.5 to player 10, beside players 2..4 and 8, 9 (lost to
	 * B: 4.0), 5 and 6 (beat B: 5.0), 7 (won by forfeit: 4.0 + 0.5). */
	ck_assert_int_eq(tb(&T, ARENA_TB_BUCHHOLZ, 9), 65 + 5 * 40 + 2 * 50 + 45);
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
	tcase_add_test(tc, test_dutch_fixtures);
	tcase_add_test(tc, test_trf);
	tcase_add_test(tc, test_trf_read);
	tcase_add_test(tc, test_trf_read_foreign);
	tcase_add_test(tc, test_trf_read_errors);
	tcase_add_test(tc, test_tiebreaks);
	tcase_add_test(tc, test_tiebreaks_rr);
	tcase_add_test(tc, test_tiebreak_fide_examples);
	tcase_add_test(tc, test_live_score);
	tcase_add_test(tc, test_live_pair);
	suite_add_tcase(s, tc);
	return check_run(s);
}
