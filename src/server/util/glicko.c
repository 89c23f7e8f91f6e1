/*
 * glicko.c - Glicko-2 updates (Glickman, "Example of the Glicko-2 system"):
 * steps 1-8 of the paper, with the Illinois iteration for the volatility.
 * See glicko.h for the choice of one game per rating period.
 */
#include "server/util/glicko.h"

#include <math.h>

static const double pi = 3.14159265358979323846;

/* Step 3-4 helper: the weight g(phi) that discounts an uncertain opponent. */
static double g_of(double phi)
{
	return 1.0 / sqrt(1.0 + 3.0 * phi * phi / (pi * pi));
}

/* The expected score of mu against an opponent (mu_j, phi_j). */
static double expect(double mu, double mu_j, double phi_j)
{
	return 1.0 / (1.0 + exp(-g_of(phi_j) * (mu - mu_j)));
}

static double cap_phi(double phi)
{
	double max = GLICKO_MAX_RD / GLICKO_SCALE;
	return phi > max ? max : phi;
}

void glicko_default(struct glicko *p)
{
	p->rating = GLICKO_DEFAULT_RATING;
	p->rd = GLICKO_DEFAULT_RD;
	p->vol = GLICKO_DEFAULT_VOL;
}

void glicko_decay(const struct glicko *p, double periods, struct glicko *out)
{
	double phi = p->rd / GLICKO_SCALE;
	if (!(periods > 0)) /* also NaN */
		periods = 0;
	double phi_star = cap_phi(sqrt(phi * phi + periods * p->vol * p->vol));
	out->rating = p->rating;
	out->vol = p->vol;
	out->rd = phi_star * GLICKO_SCALE;
}

void glicko_idle(const struct glicko *p, struct glicko *out)
{
	glicko_decay(p, 1.0, out);
}

/* Step 5's f(x) for the volatility search. */
struct vol_fn {
	double delta2, phi2, v, a, tau2;
};

static double vol_f(const struct vol_fn *k, double x)
{
	double ex = exp(x);
	double d = k->phi2 + k->v + ex;
	return ex * (k->delta2 - k->phi2 - k->v - ex) / (2.0 * d * d) - (x - k->a) / k->tau2;
}

/* Step 5: the new volatility sigma', by the Illinois algorithm on f. */
static double new_volatility(double sigma, double phi, double v, double delta, double tau)
{
	struct vol_fn k = {delta * delta, phi * phi, v, log(sigma * sigma), tau * tau};
	double A = k.a, B;
	if (k.delta2 > k.phi2 + k.v) {
		B = log(k.delta2 - k.phi2 - k.v);
	} else {
		int i = 1;
		while (vol_f(&k, k.a - i * tau) < 0 && i < 1000)
			i++;
		B = k.a - i * tau;
	}
	double fA = vol_f(&k, A), fB = vol_f(&k, B);
	/* Regula falsi with the Illinois modification; bounded in case of NaN input. */
	for (int iter = 0; fabs(B - A) > GLICKO_EPSILON && iter < 1000; iter++) {
		double C = A + (A - B) * fA / (fB - fA);
		double fC = vol_f(&k, C);
		if (fC * fB <= 0) {
			A = B;
			fA = fB;
		} else {
			fA /= 2.0;
		}
		B = C;
		fB = fC;
	}
	return exp(A / 2.0);
}

void glicko_update(const struct glicko *p, const struct glicko_result *res, size_t n, double tau,
                   struct glicko *out)
{
	if (n == 0) {
		glicko_idle(p, out);
		return;
	}
	/* Step 2: to the Glicko-2 scale. */
	double mu = (p->rating - GLICKO_DEFAULT_RATING) / GLICKO_SCALE;
	double phi = p->rd / GLICKO_SCALE;
	/* Steps 3-4: estimated variance v and improvement delta. */
	double inv_v = 0, sum = 0;
	for (size_t j = 0; j < n; j++) {
		double mu_j = (res[j].rating - GLICKO_DEFAULT_RATING) / GLICKO_SCALE;
		double phi_j = res[j].rd / GLICKO_SCALE;
		double g = g_of(phi_j), e = expect(mu, mu_j, phi_j);
		inv_v += g * g * e * (1.0 - e);
		sum += g * (res[j].score - e);
	}
	double v = 1.0 / inv_v;
	double delta = v * sum;
	/* Step 5: volatility. */
	double sigma = new_volatility(p->vol, phi, v, delta, tau);
	/* Steps 6-7: pre-period RD, then the new RD and rating. */
	double phi_star = cap_phi(sqrt(phi * phi + sigma * sigma));
	double phi_new = 1.0 / sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
	double mu_new = mu + phi_new * phi_new * sum;
	/* Step 8: back to the Glicko scale. */
	out->rating = GLICKO_SCALE * mu_new + GLICKO_DEFAULT_RATING;
	out->rd = GLICKO_SCALE * phi_new;
	out->vol = sigma;
}

void glicko_game(const struct glicko *a, const struct glicko *b, double score_a, double tau,
                 struct glicko *new_a, struct glicko *new_b)
{
	struct glicko pa = *a, pb = *b; /* copies: the outputs may alias the inputs */
	struct glicko_result ra = {pb.rating, pb.rd, score_a};
	struct glicko_result rb = {pa.rating, pa.rd, 1.0 - score_a};
	glicko_update(&pa, &ra, 1, tau, new_a);
	glicko_update(&pb, &rb, 1, tau, new_b);
}
