/*
 * check_accept.c - accept filters (src/games/accept.c): filters that read and
 * those that do not (with the word named), and a table of games against
 * filters: kinds and kind lists, option lists, ranges and comparisons, the
 * clock by its estimated length (base + 40 x inc), base and inc, untimed
 * games, rated/unrated, bots/humans, negation, alternatives, and the reason
 * a declined game is given.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/accept.h"
#include "check_main.h"

/* A game: kind, options, the clock (base minutes, inc seconds; base < 0: untimed), rated,
   against a bot. */
static struct accept_game game(const char *kind, const char *opts, double base_min, int inc_s,
                               bool rated, bool bot)
{
	struct accept_game g = {.kind = kind, .options = opts, .rated = rated, .opponent_bot = bot};
	g.timed = base_min >= 0;
	if (g.timed) {
		g.base_ms = (int64_t)(base_min * 60000);
		g.inc_ms = inc_s * 1000;
	}
	return g;
}

#define TAK5  "size=5 komi=0 pieces=0 caps=-1 stale=0"
#define TAK6K "size=6 komi=4 pieces=0 caps=-1 stale=0"
#define TTT   "m=3 n=3 k=3"
#define XMAS  "seed=random pool=3 league=0 timeout=lose"

START_TEST(test_reads)
{
	static const char *const good[] = {
	        "",
	        "   ",
	        "tak",
	        "TAK",
	        "tak size=5,6 time>=1+0 rated",
	        "tak,ttt",
	        "ttt | tak size=5",
	        "ttt or tak",
	        "ttt|tak",
	        "!xmas",
	        "not xmas",
	        "size=4..6",
	        "size!=3,4",
	        "komi>=2 komi<8",
	        "time=5+3",
	        "time=0:30+1",
	        "time=1+0..10+5",
	        "time<=15",
	        "base>=3 inc<=5",
	        "base=0:30",
	        "inc=0,2..3",
	        "unrated humans untimed",
	        "bots timed",
	        "timeout=pass",
	        "seed=random",
	        "m=3 n=3 k=3",
	        "tak size>5 | ttt unrated | xmas bots",
	};
	char err[ACCEPT_WHY_MAX];
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
		ck_assert_msg(accept_check(good[i], err, sizeof err) == 0, "'%s': %s", good[i],
		              err);
	ck_assert_int_eq(accept_check(NULL, err, sizeof err), 0);
	/* and those that do not, with the words they name */
	static const struct {
		const char *f, *says;
	} bad[] = {
	        {"chess", "'chess' is no game kind"},
	        {"tak,", "'tak,' is no game kind"},
	        {"tak,chess", "'tak,chess'"},
	        {"colour=white", "'colour' is no option"},
	        {"size=", "'size=' has no value"},
	        {"size>=big", "'size>=big' wants a number"},
	        {"size>=5,6", "a comparison takes one value"},
	        {"size>4..6", "a comparison takes one value"},
	        {"size=6..4", "'size=6..4' wants values or ranges"},
	        {"size=5,,6", "'size=5,,6' wants"},
	        {"size==5", "the signs are"},
	        {"size!5", "the signs are"},
	        {"time>=fast", "'time>=fast' wants a clock"},
	        {"time=5+", "wants a clock"},
	        {"time=0:7+1", "wants a clock"},
	        {"time=-1+0", "wants a clock"},
	        {"base=1:60", "wants minutes"},
	        {"inc>=x", "wants seconds"},
	        {"inc>=0x10", "wants seconds"},
	        {"size>=inf", "wants a number"},
	        {"| tak", "an empty alternative"},
	        {"tak |", "an empty alternative"},
	        {"tak | | ttt", "an empty alternative"},
	        {"tak or", "an empty alternative"},
	        {"not", "a negation"},
	        {"tak !", "a negation"},
	        {"not not tak", "twice"},
	        {"!!tak", "twice"},
	        {"rated!", "'rated!'"},
	        {"0123456789012345678901234567890123456789012345678901234567890123456789",
	         "too long a word"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = '\0';
		ck_assert_msg(accept_check(bad[i].f, err, sizeof err) == -1, "'%s' read", bad[i].f);
		ck_assert_msg(strstr(err, bad[i].says) != NULL, "'%s': '%s' lacks '%s'", bad[i].f,
		              err, bad[i].says);
	}
	/* too long a filter; a sentence cut to a small buffer, or none at all */
	char longf[ACCEPT_TEXT_MAX + 2];
	memset(longf, 't', sizeof longf - 1);
	longf[sizeof longf - 1] = '\0';
	ck_assert_int_eq(accept_check(longf, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "at most"));
	char small[8];
	ck_assert_int_eq(accept_check("chess", small, sizeof small), -1);
	ck_assert_uint_eq(strlen(small), sizeof small - 1);
	ck_assert_int_eq(accept_check("chess", NULL, 0), -1);
}
END_TEST

START_TEST(test_games)
{
	struct accept_game tak5_10 = game("tak", TAK5, 10, 0, true, false);
	struct accept_game tak6_3 = game("tak", TAK6K, 3, 2, false, true);
	struct accept_game tak5_u = game("tak", TAK5, -1, 0, false, false);
	struct accept_game ttt_u = game("ttt", TTT, -1, 0, false, false);
	struct accept_game ttt_bot = game("ttt", TTT, 0.5, 1, true, true);
	struct accept_game xmas = game("xmas", XMAS, -1, 0, false, true);
	static const struct {
		const char *f;
		int g; /* index below */
		bool pass;
		const char *why; /* a part of the reason, when declined */
	} cases[] = {
	        {"", 0, true, NULL},
	        {"tak", 0, true, NULL},
	        {"tak", 3, false, "takes only tak games, not ttt"},
	        {"Tak", 1, true, NULL},
	        {"tak ttt", 3, true, NULL},
	        {"tak,ttt", 5, false, "takes only tak,ttt games, not xmas"},
	        {"tak ttt", 5, false, "takes only tak or ttt games, not xmas"},
	        {"!xmas", 5, false, "takes no xmas games (this one: xmas)"},
	        {"not xmas", 0, true, NULL},
	        /* option lists, ranges, comparisons */
	        {"tak size=5,6", 0, true, NULL},
	        {"tak size=5,6", 1, true, NULL},
	        {"size=6", 0, false, "takes only size=6, not size=5"},
	        {"size=4..5", 0, true, NULL},
	        {"size=6..8", 0, false, "not size=5"},
	        {"size=3,6..8", 1, true, NULL},
	        {"size!=5", 0, false, "takes only size!=5, not size=5"},
	        {"size!=5", 1, true, NULL},
	        {"size!=5", 3, true, NULL}, /* ttt has no size */
	        {"size=3", 3, false, "not no size"},
	        {"size>=6", 0, false, NULL},
	        {"size>=6", 1, true, NULL},
	        {"size>5", 1, true, NULL},
	        {"size<6", 1, false, NULL},
	        {"size<=6 komi>=4", 1, true, NULL},
	        {"komi>0", 0, false, "takes only komi>0, not komi=0"},
	        {"!size=5", 0, false, "takes no size=5 games (this one: size=5)"},
	        {"m=3 k=3", 3, true, NULL},
	        {"timeout=pass", 5, false, "not timeout=lose"},
	        {"timeout=LOSE,pass", 5, true, NULL},
	        {"seed=random", 5, true, NULL},
	        /* the clock: 10+0 = 600 s; 3+2 = 180 + 80 = 260 s; 0:30+1 = 30 + 40 = 70 s */
	        {"time>=1+0", 0, true, NULL},
	        {"time>=1+0", 2, false, "not untimed"},
	        {"time>=5+0", 1, false, "takes only time>=5+0, not 3+2"},
	        {"time>=4+1", 1, false, "not 3+2"}, /* 260 s < 280 s */
	        {"time<=4", 1, false, NULL},         /* 260 s > 240 s */
	        {"time<=5", 1, true, NULL},
	        {"time=3+2", 1, true, NULL},
	        {"time=3+1,3+2", 1, true, NULL},
	        {"time=0:30+1", 4, true, NULL},
	        {"time=1+0..2+0", 4, true, NULL}, /* 70 s within 60..120 */
	        {"time!=10+0", 0, false, NULL},
	        {"time!=10+0", 2, true, NULL}, /* untimed: != holds */
	        {"base>=3", 1, true, NULL},
	        {"base>3", 1, false, NULL},
	        {"base<=0:30", 4, true, NULL},
	        {"inc>=2", 1, true, NULL},
	        {"inc=0", 0, true, NULL},
	        {"inc=0", 2, false, "not untimed"},
	        {"timed", 2, false, "takes only timed games"},
	        {"untimed", 2, true, NULL},
	        {"untimed", 0, false, "takes only untimed games"},
	        {"!timed", 0, false, "takes only untimed games"},
	        /* rated, bots */
	        {"rated", 0, true, NULL},
	        {"rated", 1, false, "takes only rated games"},
	        {"unrated", 0, false, "takes only unrated games"},
	        {"!rated", 1, true, NULL},
	        {"not unrated", 1, false, "takes only rated games"},
	        {"humans", 1, false, "takes no games against bots"},
	        {"humans", 0, true, NULL},
	        {"bots", 4, true, NULL},
	        {"bots", 3, false, "takes only games against bots"},
	        {"!bots", 5, false, "takes no games against bots"},
	        /* the example */
	        {"tak size=5,6 time>=1+0 rated", 0, true, NULL},
	        {"tak size=5,6 time>=1+0 rated", 1, false, "takes only rated games"},
	        {"tak size=5,6 time>=1+0 rated", 2, false, "not untimed"},
	        {"tak size=5,6 time>=1+0 rated", 3, false, "takes only tak games, not ttt"},
	        /* alternatives */
	        {"ttt | tak size=5", 0, true, NULL},
	        {"ttt | tak size=5", 1, false, "takes none of its alternatives (ttt | tak size=5)"},
	        {"ttt | tak size=5", 3, true, NULL},
	        {"ttt or xmas", 5, true, NULL},
	        {"ttt|tak", 1, true, NULL},
	        {"tak size>5 | ttt unrated | xmas bots", 5, true, NULL},
	        {"tak size>5 | ttt unrated | xmas bots", 4, false, "none of its alternatives"},
	        {"tak size>5 | ttt unrated | xmas bots", 3, true, NULL},
	        /* the first failing word is the reason */
	        {"rated humans", 1, false, "takes only rated games"},
	        {"humans rated", 1, false, "takes no games against bots"},
	};
	const struct accept_game *gs[] = {&tak5_10, &tak6_3, &tak5_u, &ttt_u, &ttt_bot, &xmas};
	size_t passed = 0;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char why[ACCEPT_WHY_MAX] = "";
		bool pass = accept_allows(cases[i].f, gs[cases[i].g], why, sizeof why);
		ck_assert_msg(pass == cases[i].pass, "'%s' on game %d: %s (%s)", cases[i].f, cases[i].g,
		              pass ? "passed" : "declined", why);
		if (!pass && cases[i].why != NULL)
			ck_assert_msg(strstr(why, cases[i].why) != NULL, "'%s' on game %d: '%s' lacks '%s'",
			              cases[i].f, cases[i].g, why, cases[i].why);
		if (!pass)
			ck_assert_msg(why[0] != '\0', "'%s': no reason", cases[i].f);
		passed += pass;
	}
	ck_assert_uint_gt(passed, 20);
	/* a filter that does not read passes nothing, and says so */
	char why[ACCEPT_WHY_MAX];
	ck_assert(!accept_allows("chess", &tak5_10, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "does not read"));
	ck_assert(accept_allows(NULL, &tak5_10, why, sizeof why));
	/* a game without options: only != of an option passes */
	struct accept_game bare = game("tak", NULL, -1, 0, false, false);
	ck_assert(!accept_allows("size=5", &bare, why, sizeof why));
	ck_assert(accept_allows("size!=5", &bare, why, 0));
}
END_TEST

static Suite *accept_suite(void)
{
	Suite *s = suite_create("accept");
	TCase *tc = tcase_create("filters");
	tcase_add_test(tc, test_reads);
	tcase_add_test(tc, test_games);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(accept_suite());
}
