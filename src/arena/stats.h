/*
 * stats.h - the statistics of a match between two players: score, Elo
 * difference with its 95% interval, normalized Elo, likelihood of
 * superiority, draw ratio, and the sequential probability ratio test (SPRT)
 * that stops a match once it is decided.
 *
 * Two views of the same match, both from the first player's side:
 *  - trinomial: games won, drawn and lost (struct stats_wdl);
 *  - pentanomial: game pairs, an opening played once with each colour, by
 *    the pair's score 0, 1/2, 1, 3/2 or 2 (struct stats_penta). Pairs remove
 *    most of the noise an unbalanced opening adds; the pentanomial figures
 *    are the ones engine testers report today.
 *
 * Models and where each formula comes from (facts taken over, no code):
 *  - Elo estimate (stats_elo_wdl, stats_elo_penta): the mean score per game,
 *    its variance over games (trinomial) or over pairs (pentanomial), the
 *    normal 95% interval of the mean mapped through the logistic Elo curve
 *    elo(s) = -400 log10(1/s - 1); "+/-" is half the interval's width; LOS
 *    = Phi((s - 1/2) / stderr); normalized Elo = (s - 1/2) / sigma * 800 /
 *    ln 10, with sigma the standard deviation of one game (trinomial) or
 *    sqrt(2) times that of a pair's mean (pentanomial). As fishtest
 *    (server/fishtest/stats/stat_util.py get_elo) and fastchess
 *    (matchmaking/elo/elo_wdl.cpp, elo_pentanomial.cpp) compute them; empty
 *    classes count 1e-3 and the score is clamped to [1e-3, 1 - 1e-3]
 *    before elo() as fishtest does, so a 10-0 match has a finite Elo. The
 *    normalized Elo's "+/-" is fastchess' (the score's interval over the
 *    same sigma); fishtest's adds the skewness and kurtosis of the t-value
 *    and differs in the second figure only now and then.
 *  - cutechess-cli's LOS, from wins and losses only: 1/2 + 1/2 erf((W - L) /
 *    sqrt(2 (W + L))) (projects/lib/src/elo.cpp): stats_los_wl().
 *  - SPRT, H0: elo = elo0 against H1: elo = elo1, Wald's bounds lower =
 *    ln(beta / (1 - alpha)), upper = ln((1 - beta) / alpha); the log-
 *    likelihood ratio is the generalized one (GSPRT) of a multinomial, the
 *    ratio of the maximum likelihoods of the observed frequencies under
 *    each hypothesis (M. Van den Bergh's notes, cantate.be/Fishtest):
 *      STATS_NORMALIZED  the hypotheses are normalized Elo, i.e. t-values
 *                        (s - 1/2) / sigma; the maximum-likelihood law with
 *                        a given t-value by the fixed-point iteration of
 *                        "Comments on normalized Elo", section 4.1. Fishtest
 *                        (LLRcalc.LLR_normalized), OpenBench
 *                        (PentanomialSPRT) and fastchess' default model.
 *      STATS_LOGISTIC    the hypotheses are logistic Elo, i.e. expected
 *                        scores L(elo) = 1 / (1 + 10^(-elo/400)); the law
 *                        with a given mean by the secular equation of
 *                        "support MLE multinomial", proposition 1.1.
 *                        Fishtest (LLRcalc.LLR_logistic), fastchess'
 *                        "logistic" model.
 *      STATS_BAYESELO    trinomial only, cutechess-cli's SPRT
 *                        (projects/lib/src/sprt.cpp): half a game added to
 *                        each of W, D, L (a Jeffreys prior), the draw Elo
 *                        estimated from the sample, the bounds turned into
 *                        BayesElo by dividing by the scale 4x / (1 + x)^2,
 *                        x = 10^(-drawelo/400), and the plain likelihood
 *                        ratio of the two BayesElo laws.
 *    Both GSPRT models come in a trinomial (W/D/L, each game one sample)
 *    and a pentanomial (each pair one sample) form; empty classes count
 *    1e-3, as in fishtest and fastchess. Also the closed-form approximation
 *    of the logistic GSPRT, N (s1 - s0) (2 s - s0 - s1) / (2 var)
 *    (fishtest LLRcalc.LLR_alt2, "GSPRT approximation"), for a cheap
 *    estimate and as a cross-check of the exact one.
 *    The root of the secular equation is found by bisection to the last
 *    bit (the functions are monotone between known poles): no library in
 *    Debian that this tree uses has a 1-D root finder, and GSL for one
 *    bisection would be a dependency out of all proportion.
 *
 * Pure: no I/O, no globals, no allocation. Layer: src/arena sits below the
 * games in libbitarena.a (tests/layers.py) and calls nothing of the tree.
 */
#ifndef BITARENA_ARENA_STATS_H
#define BITARENA_ARENA_STATS_H

#include <stdint.h>

enum stats_err {
	STATS_OK = 0,
	STATS_EPARSE = -1, /* an sprt= text that is not elo0,elo1,alpha,beta[,model] */
	STATS_ERANGE = -2, /* values out of range: elo0 >= elo1, alpha or beta not in (0, 1), ... */
	STATS_EMODEL = -3, /* a model that has no such form (BayesElo has no pentanomial one) */
	STATS_ENUM = -4    /* the maximum-likelihood equations have no solution for these data */
};
const char *stats_strerror(int err);

/* Games of a match, from the first player's side. */
struct stats_wdl {
	uint64_t wins, draws, losses;
};

/*
 * Game pairs by the first player's score over the pair: n[0] two losses,
 * n[1] a loss and a draw, n[2] a win and a loss or two draws, n[3] a win and
 * a draw, n[4] two wins (fishtest's Ptnml(0-2) order).
 */
struct stats_penta {
	uint64_t n[5];
};

/* Adds one game: the first player's score in half points (0 loss, 1 draw, 2 win). */
void stats_wdl_add(struct stats_wdl *r, int half_points);
/* Adds one pair: the first player's half points in each game of it (0..2 each). */
void stats_penta_add(struct stats_penta *r, int first, int second);
uint64_t stats_wdl_games(const struct stats_wdl *r);
uint64_t stats_penta_pairs(const struct stats_penta *r);

/* The logistic Elo difference of an expected score s in (0, 1), and back. */
double stats_elo_of_score(double s);
double stats_score_of_elo(double elo);

/* What a match says about the difference between its players. */
struct stats_elo {
	double samples;        /* games (trinomial) or pairs (pentanomial) */
	double score;          /* mean score of the first player per game, 0..1 */
	double draw_ratio;     /* draws per game; pentanomial: pairs scoring 1 per pair */
	double elo;            /* logistic Elo difference */
	double elo_lo, elo_hi; /* its 95% interval */
	double elo_err;        /* (elo_hi - elo_lo) / 2: the "+/-" testers print */
	double nelo, nelo_err; /* normalized Elo and its "+/-" */
	double los;            /* likelihood of superiority, 0..1 */
};

/* The estimates of r; STATS_ERANGE (out zeroed) when there is no game. */
int stats_elo_wdl(const struct stats_wdl *r, struct stats_elo *out);
int stats_elo_penta(const struct stats_penta *r, struct stats_elo *out);
/* cutechess-cli's LOS (0..1) from wins and losses alone; 0.5 without decisive games. */
double stats_los_wl(const struct stats_wdl *r);

enum stats_model {
	STATS_NORMALIZED = 0, /* the default, as fastchess and fishtest */
	STATS_LOGISTIC,
	STATS_BAYESELO
};
/* "normalized", "logistic", "bayeselo". */
const char *stats_model_name(enum stats_model m);

/* An SPRT's parameters. */
struct stats_sprt {
	double elo0, elo1;  /* H0 and H1, in the model's Elo */
	double alpha, beta; /* the error rates */
	enum stats_model model;
};

enum stats_sprt_state {
	STATS_SPRT_CONTINUE = 0,
	STATS_SPRT_H0 = 1, /* llr <= lower: H0 accepted, the patch rejected */
	STATS_SPRT_H1 = 2  /* llr >= upper: H1 accepted */
};

/*
 * The sprt= option: "elo0,elo1,alpha,beta[,model]" (model: a stats_model_name; default
 * normalized). Checks elo0 < elo1, 0 < alpha, beta and alpha + beta < 1, and |elo| <= 1000,
 * or 200 in normalized Elo (about 230 logistic Elo between engines that never draw): from
 * about 230 normalized Elo on, the fixed-point iteration of the normalized MLE has no root
 * to start from, while such a gap is decided in a handful of games anyway. Returns 0, STATS_EPARSE or
 * STATS_ERANGE (*why, when not NULL, says what).
 */
int stats_sprt_parse(const char *text, struct stats_sprt *out, const char **why);
/* Wald's bounds. */
double stats_sprt_lower(const struct stats_sprt *sp);
double stats_sprt_upper(const struct stats_sprt *sp);
/* Where llr stands against the bounds. */
enum stats_sprt_state stats_sprt_state(const struct stats_sprt *sp, double llr);

/*
 * The log-likelihood ratio of H1 against H0 for the results, in sp's model
 * (0 when there is no game). Returns 0, STATS_EMODEL (pentanomial BayesElo)
 * or STATS_ENUM; *llr is written only on success.
 */
int stats_llr_wdl(const struct stats_sprt *sp, const struct stats_wdl *r, double *llr);
int stats_llr_penta(const struct stats_sprt *sp, const struct stats_penta *r, double *llr);
/* The closed-form approximation of the logistic GSPRT on pairs (sp->elo0/elo1 logistic). */
double stats_llr_penta_approx(const struct stats_sprt *sp, const struct stats_penta *r);

#endif
