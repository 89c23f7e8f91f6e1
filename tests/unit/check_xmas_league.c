/*
 * check_xmas_league.c - Xmas Rush's lower leagues (the `league` option of
 * game_xmas; xmas_league(), xmas_setup_league()), as `bitarena cg-bridge
 * --league N` plays them: pool 1, one or six quests with one shown and items
 * only on tiles of 3 or 4 openings (leagues 1, 2), twelve quests on pool 1
 * (league 3).
 *
 * The vectors are the official referee's (CodinGameCommunity/XmasRush,
 * Referee.init's switch on leagueLevel, GameBoard and placeItems) run on
 * these seeds: the map, the hand tile and the item lines of the first input.
 * The same harness gives the rules file's pool 2 and pool 3 vectors for
 * leagues 4 and 6, which check_xmas holds.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "games/xmas/xmas.h"

static const struct {
	int league;
	long long seed;
	const char *hand;  /* player 0's tile */
	const char *map;   /* the 7 map lines */
	const char *items; /* numItems, then "NAME x y owner" lines (player 0's view) */
} vectors[] = {
        {1, 7, "1101",
         "0110 1010 1110 0011 0111 1010 1010\n"
         "1110 0111 0111 1011 0111 1001 0101\n"
         "1010 0110 0110 0011 0111 1100 1010\n"
         "0011 0110 1111 1010 1111 1001 1100\n"
         "1010 0011 1101 1100 1001 1001 1010\n"
         "0101 0110 1101 1110 1101 1101 1011\n"
         "1010 1010 1101 1100 1011 1010 1001\n",
         "2\n"
         "FISH 4 5 0\n"
         "FISH 2 1 1\n"},
        {2, 12345, "0110",
         "0110 0111 0011 1011 0101 0111 0101\n"
         "1010 1001 1010 1001 0011 1111 1001\n"
         "1101 1001 1010 1010 0111 0110 1101\n"
         "1101 1110 0111 1010 1101 1011 0111\n"
         "0111 1001 1101 1010 1010 0110 0111\n"
         "0110 1111 1100 0110 1010 0110 1010\n"
         "0101 1101 0101 1110 1100 1101 1001\n",
         "12\n"
         "CANDY 6 2 0\n"
         "MASK 2 4 0\n"
         "SWORD 5 6 1\n"
         "SWORD 1 0 0\n"
         "SHIELD 5 0 0\n"
         "SCROLL 0 2 1\n"
         "SCROLL 6 4 0\n"
         "BOOK 1 5 0\n"
         "SHIELD 1 6 1\n"
         "MASK 4 2 1\n"
         "BOOK 5 1 1\n"
         "CANDY 0 4 1\n"},
        {3, 99, "0111",
         "0110 0110 0111 0011 0111 1111 1101\n"
         "1101 1011 0011 0011 1010 1010 1010\n"
         "1001 1011 1010 1010 0011 0111 1100\n"
         "0110 0101 0111 1010 1101 0101 1001\n"
         "0011 1101 1100 1010 1010 1110 0110\n"
         "1010 1010 1010 1100 1100 1110 0111\n"
         "0111 1111 1101 1100 1101 1001 1001\n",
         "24\n"
         "MASK 6 5 1\n"
         "CANDY 4 3 0\n"
         "SHIELD 0 5 0\n"
         "POTION 5 0 0\n"
         "SCROLL 3 1 0\n"
         "KEY 0 4 0\n"
         "DIAMOND 5 6 1\n"
         "SCROLL 3 5 1\n"
         "KEY 6 2 1\n"
         "DIAMOND 1 0 0\n"
         "CANDY 2 3 1\n"
         "ARROW 2 2 0\n"
         "MASK 0 1 0\n"
         "SWORD 5 5 0\n"
         "BOOK 2 0 1\n"
         "FISH 2 4 0\n"
         "FISH 4 2 1\n"
         "SHIELD 6 1 1\n"
         "POTION 1 6 1\n"
         "BOOK 4 6 0\n"
         "ARROW 4 4 1\n"
         "CANE 2 5 1\n"
         "SWORD 1 1 1\n"
         "CANE 4 1 0\n"},
};

/* The first input of player 0 for league and seed. */
static void first_input(int league, long long seed, char *buf, size_t len, struct xmas_state *st)
{
	struct game_params p;
	const char *why = NULL;
	char w[64];
	game_params_default(&game_xmas, &p);
	snprintf(w, sizeof w, "seed=%lld", seed);
	ck_assert_int_eq(game_param_word(&game_xmas, &p, w, &why), 1);
	snprintf(w, sizeof w, "league=%d", league);
	ck_assert_int_eq(game_param_word(&game_xmas, &p, w, &why), 1);
	ck_assert_int_eq(game_xmas.init(st, &p, 0), GAME_OK);
	ck_assert_int_gt(xmas_input(st, 0, buf, len), 0);
}

START_TEST(test_referee_vectors)
{
	for (size_t v = 0; v < sizeof vectors / sizeof vectors[0]; v++) {
		static struct xmas_state st;
		char in[XMAS_INPUT_MAX], expect[XMAS_INPUT_MAX];
		struct xmas_league lg;
		first_input(vectors[v].league, vectors[v].seed, in, sizeof in, &st);
		ck_assert_int_eq(xmas_league(vectors[v].league, &lg), GAME_OK);
		/* turn type, the map */
		snprintf(expect, sizeof expect, "0\n%s", vectors[v].map);
		ck_assert_msg(strncmp(in, expect, strlen(expect)) == 0, "league %d:\n%s",
		              vectors[v].league, in);
		/* the player lines: quests to do, position, hand tile */
		const char *p = in + strlen(expect);
		snprintf(expect, sizeof expect, "%d 0 0 %s\n", lg.ncards, vectors[v].hand);
		ck_assert_msg(strncmp(p, expect, strlen(expect)) == 0, "league %d: %s",
		              vectors[v].league, p);
		p = strchr(strchr(p, '\n') + 1, '\n') + 1;
		/* the items, in the referee's order */
		ck_assert_msg(strncmp(p, vectors[v].items, strlen(vectors[v].items)) == 0,
		              "league %d:\n%s", vectors[v].league, p);
		/* the quests shown: one each in leagues 1-2, three in league 3 */
		p += strlen(vectors[v].items);
		int nq = -1;
		ck_assert_int_eq(sscanf(p, "%d", &nq), 1);
		ck_assert_int_eq(nq, 2 * lg.nvisible);
		ck_assert_int_eq(st.pool, 1);
	}
}
END_TEST

START_TEST(test_league_table)
{
	struct xmas_league lg;
	static const int want[7][4] = {{1, 3, 1, 0},  {1, 1, 1, 1},  {1, 6, 1, 1}, {1, 12, 3, 0},
	                               {2, 12, 3, 0}, {2, 12, 3, 0}, {3, 12, 3, 0}};
	for (int l = 0; l <= 7; l++) {
		ck_assert_int_eq(xmas_league(l, &lg), GAME_OK);
		const int *w = want[l > 6 ? 6 : l];
		ck_assert(lg.pool == w[0] && lg.ncards == w[1] && lg.nvisible == w[2] &&
		          lg.threeway == (w[3] != 0));
	}
	ck_assert_int_eq(xmas_league(-1, &lg), GAME_EOPT);

	/* league= and pool= together must agree */
	static struct xmas_state st;
	struct game_params p;
	const char *why = NULL;
	game_params_default(&game_xmas, &p);
	ck_assert_int_eq(game_param_word(&game_xmas, &p, "league=1", &why), 1);
	ck_assert_int_eq(game_param_word(&game_xmas, &p, "pool=2", &why), 1);
	ck_assert_int_eq(game_xmas.init(&st, &p, 0), GAME_EOPT);
	ck_assert_int_eq(game_param_word(&game_xmas, &p, "pool=1", &why), 1);
	ck_assert_int_eq(game_xmas.init(&st, &p, 0), GAME_OK);
	ck_assert_int_eq(st.ncards, 1);
	/* league 1: one quest; collecting it ends the game at the start of the next turn */
	ck_assert_int_eq(st.nvisible, 1);
}
END_TEST

/* Whole games of every league between seeded random players end, with the league's quests. */
START_TEST(test_games_end)
{
	for (int league = 1; league <= 6; league++) {
		for (long long seed = 1; seed <= 6; seed++) {
			static struct xmas_state st;
			char in[XMAS_INPUT_MAX];
			first_input(league, seed * 7919, in, sizeof in, &st);
			struct xmas_league lg;
			xmas_league(league, &lg);
			unsigned long long rnd =
			        (unsigned long long)seed * 2654435761u + (unsigned)league;
			int turns = 0;
			while (!st.over) {
				game_move m[2], opts[64];
				enum game_act a[2] = {GAME_ACT_MOVE, GAME_ACT_MOVE};
				for (int s = 0; s < 2; s++) {
					int n = xmas_moves_for(&st, s, opts, 64);
					ck_assert_int_gt(n, 0);
					rnd = rnd * 6364136223846793005ULL + 1442695040888963407ULL;
					m[s] = opts[(rnd >> 33) % (unsigned long long)n];
				}
				ck_assert_int_eq(game_xmas.resolve(&st, m, a), 0);
				for (int s = 0; s < 2; s++) {
					const struct xmas_player *pl = &st.pl[s];
					ck_assert_int_eq(pl->score + pl->ndeck + pl->nvis,
					                 lg.ncards);
					ck_assert_int_le(pl->nvis, lg.nvisible);
				}
				turns++;
			}
			ck_assert_int_le(turns, XMAS_MAX_TURNS);
		}
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("xmas_league");
	TCase *tc = tcase_create("league");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_referee_vectors);
	tcase_add_test(tc, test_league_table);
	tcase_add_test(tc, test_games_end);
	suite_add_tcase(s, tc);
	return check_run(s);
}
