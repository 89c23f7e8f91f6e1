/*
 * stats.c - a match's statistics (stats.h): Elo estimates with their 95%
 * intervals, LOS, and the SPRT's log-likelihood ratios (generalized, by the
 * maximum-likelihood laws of the observed frequencies; cutechess-cli's
 * BayesElo ratio; the closed-form approximation). The formulas and their
 * sources are listed in stats.h.
 */
#include "arena/stats.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define Z975          1.959963984540054 /* the standard normal's 97.5% quantile */
#define NELO_PER_T    (800.0 / M_LN10)  /* normalized Elo per unit of t-value */
#define EMPTY_CLASS   1e-3              /* what an empty class counts (fishtest, fastchess) */
#define SCORE_CLAMP   1e-3              /* elo() of a score beyond [1e-3, 1 - 1e-3] is clamped */
#define MLE_MAX_ITER  100               /* the normalized MLE's fixed-point iterations */
#define MLE_TOLERANCE 1e-12             /* ... until no probability moves more than this */
#define ELO_LIMIT     1000.0            /* |elo0|, |elo1| of an SPRT */
#define NELO_LIMIT    200.0 /* ... in normalized Elo: beyond, the t-value MLE has no start */

#define MAXK 5 /* classes: 3 (trinomial) or 5 (pentanomial) */

const char *stats_strerror(int err)
{
	switch (err) {
	case STATS_OK:
		return "ok";
	case STATS_EPARSE:
		return "sprt is elo0,elo1,alpha,beta[,normalized|logistic|bayeselo]";
	case STATS_ERANGE:
		return "value out of range";
	case STATS_EMODEL:
		return "the model has no pentanomial form";
	case STATS_ENUM:
		return "no maximum-likelihood law for these results";
	}
	return "unknown error";
}

void stats_wdl_add(struct stats_wdl *r, int half_points)
{
	if (half_points >= 2)
		r->wins++;
	else if (half_points == 1)
		r->draws++;
	else
		r->losses++;
}

static int clamp_half(int h)
{
	return h < 0 ? 0 : h > 2 ? 2 : h;
}

void stats_penta_add(struct stats_penta *r, int first, int second)
{
	r->n[clamp_half(first) + clamp_half(second)]++;
}

uint64_t stats_wdl_games(const struct stats_wdl *r)
{
	return r->wins + r->draws + r->losses;
}

uint64_t stats_penta_pairs(const struct stats_penta *r)
{
	uint64_t n = 0;
	for (int i = 0; i < 5; i++)
		n += r->n[i];
	return n;
}

double stats_elo_of_score(double s)
{
	return -400.0 * log10(1.0 / s - 1.0);
}

double stats_score_of_elo(double elo)
{
	return 1.0 / (1.0 + pow(10.0, -elo / 400.0));
}

/* An observed law: k classes scoring a[i] = i / (k - 1), frequencies p[i], n samples. */
struct law {
	int k;
	double a[MAXK], p[MAXK];
	double n;
};

/* The counts as a law (trinomial: losses, draws, wins), empty classes counting 1e-3. */
static void law_of_counts(struct law *l, const uint64_t *counts, int k)
{
	l->k = k;
	l->n = 0;
	for (int i = 0; i < k; i++) {
		l->a[i] = (double)i / (k - 1);
		l->p[i] = counts[i] ? (double)counts[i] : EMPTY_CLASS;
		l->n += l->p[i];
	}
	for (int i = 0; i < k; i++)
		l->p[i] /= l->n;
}

static void law_of_wdl(struct law *l, const struct stats_wdl *r)
{
	uint64_t c[3] = {r->losses, r->draws, r->wins};
	law_of_counts(l, c, 3);
}

static void mean_var(const double *a, const double *p, int k, double *mu, double *var)
{
	double m = 0, v = 0;
	for (int i = 0; i < k; i++)
		m += p[i] * a[i];
	for (int i = 0; i < k; i++)
		v += p[i] * (a[i] - m) * (a[i] - m);
	*mu = m;
	*var = v;
}

/* --- estimates ------------------------------------------------------------------------ */

static double clamped_elo(double s)
{
	return stats_elo_of_score(fmin(fmax(s, SCORE_CLAMP), 1.0 - SCORE_CLAMP));
}

/* The estimates from the law of one sample (a game or a pair's mean) and the per-game sigma. */
static void estimate(const struct law *l, double sigma_game, struct stats_elo *out)
{
	double mu, var;
	mean_var(l->a, l->p, l->k, &mu, &var);
	double se = sqrt(var / l->n); /* the standard error of the mean score */
	out->score = mu;
	out->elo = clamped_elo(mu);
	out->elo_lo = clamped_elo(mu - Z975 * se);
	out->elo_hi = clamped_elo(mu + Z975 * se);
	out->elo_err = (out->elo_hi - out->elo_lo) / 2;
	out->nelo = (mu - 0.5) / sigma_game * NELO_PER_T;
	out->nelo_err = Z975 * se / sigma_game * NELO_PER_T;
	out->los = 0.5 * erfc(-(mu - 0.5) / se / M_SQRT2);
}

/* The estimates from k class counts: a game's (L, D, W) or a pair's (0 .. 2), draws of them. */
static int elo_of_counts(const uint64_t *counts, int k, uint64_t draws, struct stats_elo *out)
{
	uint64_t n = 0;
	memset(out, 0, sizeof *out);
	for (int i = 0; i < k; i++)
		n += counts[i];
	if (n == 0)
		return STATS_ERANGE;
	struct law l;
	law_of_counts(&l, counts, k);
	double mu, var;
	mean_var(l.a, l.p, l.k, &mu, &var);
	/* a game's sigma: a pair's mean has two games, so its sigma times sqrt(2) */
	estimate(&l, sqrt(k == 5 ? 2 * var : var), out);
	out->samples = (double)n;
	out->draw_ratio = (double)draws / (double)n;
	return STATS_OK;
}

int stats_elo_wdl(const struct stats_wdl *r, struct stats_elo *out)
{
	uint64_t c[3] = {r->losses, r->draws, r->wins};
	return elo_of_counts(c, 3, r->draws, out);
}

int stats_elo_penta(const struct stats_penta *r, struct stats_elo *out)
{
	return elo_of_counts(r->n, 5, r->n[2], out);
}

double stats_los_wl(const struct stats_wdl *r)
{
	double w = (double)r->wins, l = (double)r->losses;
	if (w + l == 0)
		return 0.5;
	return 0.5 + 0.5 * erf((w - l) / sqrt(2.0 * (w + l)));
}

/* --- the SPRT ------------------------------------------------------------------------- */

const char *stats_model_name(enum stats_model m)
{
	switch (m) {
	case STATS_NORMALIZED:
		return "normalized";
	case STATS_LOGISTIC:
		return "logistic";
	case STATS_BAYESELO:
		return "bayeselo";
	}
	return "?";
}

/* One number of a comma list: *s advances past it and its comma. */
static bool parse_field(const char **s, double *v)
{
	char *end;
	*v = strtod(*s, &end);
	if (end == *s || !isfinite(*v))
		return false;
	*s = end;
	if (**s == ',')
		(*s)++;
	else if (**s != '\0')
		return false;
	return true;
}

int stats_sprt_parse(const char *text, struct stats_sprt *out, const char **why)
{
	struct stats_sprt sp = {.model = STATS_NORMALIZED};
	double *fields[4] = {&sp.elo0, &sp.elo1, &sp.alpha, &sp.beta};
	const char *s = text, *dummy;
	if (why == NULL)
		why = &dummy;
	*why = stats_strerror(STATS_EPARSE);
	for (int i = 0; i < 4; i++) {
		if (*s == '\0' || !parse_field(&s, fields[i]))
			return STATS_EPARSE;
	}
	if (*s != '\0') {
		int m = STATS_NORMALIZED;
		while (m <= STATS_BAYESELO && strcasecmp(s, stats_model_name(m)) != 0)
			m++;
		if (m > STATS_BAYESELO)
			return STATS_EPARSE;
		sp.model = m;
	} else if (s > text && s[-1] == ',') {
		return STATS_EPARSE; /* a trailing comma */
	}
	if (!(sp.elo0 < sp.elo1)) {
		*why = "elo0 must be below elo1";
		return STATS_ERANGE;
	}
	double limit = sp.model == STATS_NORMALIZED ? NELO_LIMIT : ELO_LIMIT;
	if (fabs(sp.elo0) > limit || fabs(sp.elo1) > limit) {
		*why = sp.model == STATS_NORMALIZED
		               ? "normalized elo0 and elo1 must be within -200..200"
		               : "elo0 and elo1 must be within -1000..1000";
		return STATS_ERANGE;
	}
	if (!(sp.alpha > 0 && sp.alpha < 1 && sp.beta > 0 && sp.beta < 1 &&
	      sp.alpha + sp.beta < 1)) {
		*why = "alpha and beta must be in (0, 1), their sum below 1";
		return STATS_ERANGE;
	}
	*out = sp;
	*why = NULL;
	return STATS_OK;
}

double stats_sprt_lower(const struct stats_sprt *sp)
{
	return log(sp->beta / (1 - sp->alpha));
}

double stats_sprt_upper(const struct stats_sprt *sp)
{
	return log((1 - sp->beta) / sp->alpha);
}

enum stats_sprt_state stats_sprt_state(const struct stats_sprt *sp, double llr)
{
	if (llr >= stats_sprt_upper(sp))
		return STATS_SPRT_H1;
	if (llr <= stats_sprt_lower(sp))
		return STATS_SPRT_H0;
	return STATS_SPRT_CONTINUE;
}

/*
 * The root x of sum_i p[i] phi[i] / (1 + x phi[i]) = 0, the secular equation, where the phi
 * straddle 0. The sum falls strictly from +inf to -inf between the poles -1/max(phi) and
 * -1/min(phi), so bisection finds the root to the last bit. False when phi does not straddle.
 */
static bool secular(const double *phi, const double *p, int k, double *x)
{
	double lo_phi = phi[0], hi_phi = phi[0];
	for (int i = 1; i < k; i++) {
		lo_phi = fmin(lo_phi, phi[i]);
		hi_phi = fmax(hi_phi, phi[i]);
	}
	if (!(lo_phi < 0 && hi_phi > 0))
		return false;
	double lo = -1 / hi_phi, hi = -1 / lo_phi;
	for (int it = 0; it < 2000; it++) {
		double mid = lo + (hi - lo) / 2;
		if (mid <= lo || mid >= hi)
			break;
		double f = 0;
		for (int i = 0; i < k; i++)
			f += p[i] * phi[i] / (1 + mid * phi[i]);
		if (f > 0)
			lo = mid;
		else
			hi = mid;
	}
	*x = lo + (hi - lo) / 2;
	return true;
}

/* The law closest (in likelihood) to the observed one whose mean is s. */
static bool mle_mean(const struct law *obs, double s, double *p)
{
	double phi[MAXK] = {0}, x;
	for (int i = 0; i < obs->k; i++)
		phi[i] = obs->a[i] - s;
	if (!secular(phi, obs->p, obs->k, &x))
		return false;
	for (int i = 0; i < obs->k; i++)
		p[i] = obs->p[i] / (1 + x * phi[i]);
	return true;
}

/* The law closest to the observed one whose t-value (mu - ref) / sigma is t. */
static bool mle_t(const struct law *obs, double ref, double t, double *p)
{
	int k = obs->k;
	for (int i = 0; i < k; i++)
		p[i] = 1.0 / k;
	for (int it = 0; it < MLE_MAX_ITER; it++) {
		double mu, var, phi[MAXK], x, moved = 0;
		mean_var(obs->a, p, k, &mu, &var);
		double sigma = sqrt(var);
		if (!(sigma > 0))
			return false;
		for (int i = 0; i < k; i++) {
			double z = (mu - obs->a[i]) / sigma;
			phi[i] = obs->a[i] - ref - t * sigma * (1 + z * z) / 2;
		}
		if (!secular(phi, obs->p, k, &x))
			return false;
		for (int i = 0; i < k; i++) {
			double q = obs->p[i] / (1 + x * phi[i]);
			moved = fmax(moved, fabs(q - p[i]));
			p[i] = q;
		}
		if (moved < MLE_TOLERANCE)
			break;
	}
	return true;
}

/* n times the mean of log(p1 / p0) under the observed law. */
static double llr_of(const struct law *obs, const double *p0, const double *p1)
{
	double sum = 0;
	for (int i = 0; i < obs->k; i++)
		sum += obs->p[i] * (log(p1[i]) - log(p0[i]));
	return obs->n * sum;
}

/* The GSPRT of a law for sp's normalized (t_scale: sqrt(2) for pairs) or logistic model. */
static int gsprt(const struct stats_sprt *sp, const struct law *obs, double t_scale, double *llr)
{
	double p0[MAXK], p1[MAXK];
	bool ok;
	if (sp->model == STATS_NORMALIZED) {
		double t0 = t_scale * sp->elo0 / NELO_PER_T, t1 = t_scale * sp->elo1 / NELO_PER_T;
		ok = mle_t(obs, 0.5, t0, p0) && mle_t(obs, 0.5, t1, p1);
	} else {
		ok = mle_mean(obs, stats_score_of_elo(sp->elo0), p0) &&
		     mle_mean(obs, stats_score_of_elo(sp->elo1), p1);
	}
	if (!ok)
		return STATS_ENUM;
	*llr = llr_of(obs, p0, p1);
	return STATS_OK;
}

/* Win, loss and draw probabilities of a BayesElo difference at a draw Elo. */
static void bayeselo_law(double belo, double drawelo, double *pw, double *pl, double *pd)
{
	*pw = 1 / (1 + pow(10, (drawelo - belo) / 400));
	*pl = 1 / (1 + pow(10, (drawelo + belo) / 400));
	*pd = 1 - *pw - *pl;
}

/* cutechess-cli's trinomial SPRT (stats.h). */
static int llr_bayeselo(const struct stats_sprt *sp, const struct stats_wdl *r, double *llr)
{
	double w = (double)r->wins + 0.5, l = (double)r->losses + 0.5, d = (double)r->draws + 0.5;
	double n = w + l + d, pw = w / n, pl = l / n;
	double drawelo = 200 * log10((1 - pl) / pl * (1 - pw) / pw);
	double x = pow(10, -drawelo / 400), scale = 4 * x / ((1 + x) * (1 + x));
	double w0, l0, d0, w1, l1, d1;
	bayeselo_law(sp->elo0 / scale, drawelo, &w0, &l0, &d0);
	bayeselo_law(sp->elo1 / scale, drawelo, &w1, &l1, &d1);
	if (!(d0 > 0 && d1 > 0))
		return STATS_ENUM;
	*llr = w * log(w1 / w0) + l * log(l1 / l0) + d * log(d1 / d0);
	return STATS_OK;
}

int stats_llr_wdl(const struct stats_sprt *sp, const struct stats_wdl *r, double *llr)
{
	if (stats_wdl_games(r) == 0) {
		*llr = 0;
		return STATS_OK;
	}
	if (sp->model == STATS_BAYESELO)
		return llr_bayeselo(sp, r, llr);
	struct law l;
	law_of_wdl(&l, r);
	return gsprt(sp, &l, 1.0, llr);
}

int stats_llr_penta(const struct stats_sprt *sp, const struct stats_penta *r, double *llr)
{
	if (sp->model == STATS_BAYESELO)
		return STATS_EMODEL;
	if (stats_penta_pairs(r) == 0) {
		*llr = 0;
		return STATS_OK;
	}
	struct law l;
	law_of_counts(&l, r->n, 5);
	return gsprt(sp, &l, M_SQRT2, llr);
}

double stats_llr_penta_approx(const struct stats_sprt *sp, const struct stats_penta *r)
{
	if (stats_penta_pairs(r) == 0)
		return 0;
	struct law l;
	law_of_counts(&l, r->n, 5);
	double s, var;
	mean_var(l.a, l.p, l.k, &s, &var);
	double s0 = stats_score_of_elo(sp->elo0), s1 = stats_score_of_elo(sp->elo1);
	return l.n * (s1 - s0) * (2 * s - s0 - s1) / (2 * var);
}
