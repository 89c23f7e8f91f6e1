/*
 * check_glicko.c - Glicko-2 (src/server/glicko.c) against the worked example
 * of Glickman's paper, plus the properties the server relies on: a game is
 * one period for both players, idle periods widen the RD up to the cap, and
 * symmetric games move equal players symmetrically.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "server/util/glicko.h"
#include "check_main.h"

/* The paper's example: 1500/200/0.06 plays 1400/30 (win), 1550/100 (loss), 1700/300 (loss). */
START_TEST(test_paper_example)
{
	struct glicko p = {1500, 200, 0.06}, out;
	struct glicko_result res[3] = {{1400, 30, 1}, {1550, 100, 0}, {1700, 300, 0}};
	glicko_update(&p, res, 3, 0.5, &out);
	ck_assert_double_eq_tol(out.rating, 1464.06, 0.01);
	ck_assert_double_eq_tol(out.rd, 151.52, 0.01);
	ck_assert_double_eq_tol(out.vol, 0.05999, 1e-5);
	/* In place (out aliases p) gives the same numbers. */
	glicko_update(&p, res, 3, 0.5, &p);
	ck_assert_double_eq_tol(p.rating, 1464.06, 0.01);
	ck_assert_double_eq_tol(p.rd, 151.52, 0.01);
}
END_TEST

/* The other branch of step 5 (delta^2 > phi^2 + v): a big upset still converges sanely. */
START_TEST(test_upset_branch)
{
	struct glicko p = {1500, 50, 0.06}, out;
	struct glicko_result res[4] = {{2300, 30, 1}, {2300, 30, 1}, {2300, 30, 1}, {2300, 30, 1}};
	glicko_update(&p, res, 4, 0.5, &out);
	ck_assert(isfinite(out.rating) && isfinite(out.rd) && isfinite(out.vol));
	ck_assert(out.rating > 1500);
	ck_assert(out.vol > 0.06); /* a surprising result raises the volatility */
	ck_assert(out.rd > 0 && out.rd < 50 + 10);
}
END_TEST

START_TEST(test_idle_and_cap)
{
	struct glicko p = {1700, 100, 0.06}, out;
	glicko_idle(&p, &out);
	ck_assert_double_eq(out.rating, 1700);
	ck_assert_double_eq(out.vol, 0.06);
	/* sqrt(phi^2 + sigma^2) on the Glicko-2 scale. */
	double phi = 100 / GLICKO_SCALE;
	ck_assert_double_eq_tol(out.rd, GLICKO_SCALE * sqrt(phi * phi + 0.06 * 0.06), 1e-9);
	ck_assert(out.rd > 100);
	/* n == 0 is an idle period. */
	struct glicko same;
	glicko_update(&p, NULL, 0, 0.5, &same);
	ck_assert_double_eq(same.rd, out.rd);
	/* Decay by periods: 1 is one idle period, 3 is three, 0 and negatives change nothing. */
	struct glicko d, three = p;
	glicko_decay(&p, 1.0, &d);
	ck_assert_double_eq(d.rd, out.rd);
	for (int i = 0; i < 3; i++)
		glicko_idle(&three, &three);
	glicko_decay(&p, 3.0, &d);
	ck_assert_double_eq_tol(d.rd, three.rd, 1e-9);
	glicko_decay(&p, 0.0, &d);
	ck_assert_double_eq(d.rd, 100);
	glicko_decay(&p, -5.0, &d);
	ck_assert_double_eq(d.rd, 100);
	glicko_decay(&p, 1e9, &d);
	ck_assert_double_eq_tol(d.rd, GLICKO_MAX_RD, 1e-9);
	/* Many idle periods never pass the 350 cap. */
	for (int i = 0; i < 10000; i++)
		glicko_idle(&out, &out);
	ck_assert_double_eq_tol(out.rd, GLICKO_MAX_RD, 1e-9);
	ck_assert_double_eq(out.rating, 1700);
}
END_TEST

START_TEST(test_one_game_period)
{
	struct glicko a, b, na, nb;
	glicko_default(&a);
	glicko_default(&b);
	ck_assert_double_eq(a.rating, 1500);
	ck_assert_double_eq(a.rd, 350);
	ck_assert_double_eq(a.vol, 0.06);
	/* Two newcomers: the winner gains exactly what the loser drops; both RDs shrink. */
	glicko_game(&a, &b, 1.0, GLICKO_TAU, &na, &nb);
	ck_assert(na.rating > 1500 && nb.rating < 1500);
	ck_assert_double_eq_tol(na.rating - 1500, 1500 - nb.rating, 1e-9);
	ck_assert(na.rd < 350 && nb.rd < 350);
	ck_assert_double_eq_tol(na.rd, nb.rd, 1e-9);
	/* Same as two separate single-result updates. */
	struct glicko ua;
	struct glicko_result r = {1500, 350, 1};
	glicko_update(&a, &r, 1, GLICKO_TAU, &ua);
	ck_assert_double_eq(ua.rating, na.rating);
	ck_assert_double_eq(ua.rd, na.rd);
	/* A draw between equals keeps the ratings. */
	glicko_game(&a, &b, 0.5, GLICKO_TAU, &na, &nb);
	ck_assert_double_eq_tol(na.rating, 1500, 1e-9);
	ck_assert_double_eq_tol(nb.rating, 1500, 1e-9);
	/* Aliasing: outputs over the inputs use the pre-game ratings of both. */
	struct glicko x = {1600, 80, 0.06}, y = {1400, 120, 0.06}, ex, ey;
	glicko_game(&x, &y, 0.0, GLICKO_TAU, &ex, &ey);
	glicko_game(&x, &y, 0.0, GLICKO_TAU, &x, &y);
	ck_assert_double_eq(x.rating, ex.rating);
	ck_assert_double_eq(y.rating, ey.rating);
	ck_assert(x.rating < 1600 && y.rating > 1400);
	/* The favourite losing moves more than the favourite winning would. */
	struct glicko f = {1600, 80, 0.06}, u = {1400, 120, 0.06}, fw, uw;
	glicko_game(&f, &u, 1.0, GLICKO_TAU, &fw, &uw);
	ck_assert(1600 - ex.rating > fw.rating - 1600);
}
END_TEST

static Suite *glicko_suite(void)
{
	Suite *s = suite_create("glicko");
	TCase *tc = tcase_create("glicko2");
	tcase_add_test(tc, test_paper_example);
	tcase_add_test(tc, test_upset_branch);
	tcase_add_test(tc, test_idle_and_cap);
	tcase_add_test(tc, test_one_game_period);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(glicko_suite());
}
