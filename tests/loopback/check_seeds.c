/*
 * check_seeds.c - nothing about a game's seed can be learned from other games' (issue 27).
 *
 * The attack: records publish each finished game's seed. The server used to draw every
 * seed from one xoshiro256** stream, whose state is 256 bits that each output reveals 64
 * linear combinations of (over GF(2): the output function rotl(s1 * 5, 7) * 9 is
 * invertible, so an output gives s1, and the state's step is XORs, shifts and rotations).
 * Four or so published seeds give the state, and the state gives every later seed: the
 * next Xmas Rush game's, whose quest order followed from it. The attack is written here
 * in full (a symbolic xoshiro256** over the 256 unknown bits of the state, Gaussian
 * elimination over GF(2)), shown to recover a toy generator of the old kind from six of
 * its outputs and to predict its next one, and then run on a hundred seeds the real
 * bitarenad published in the records of games played one after the other: the same
 * equations have no solution (each seed comes from the operating system's CSPRNG, alone).
 *
 * And a seed has one form (PROTOCOL.md §3): the record's Seed tag, the final position's seed
 * and a seed= option say the same signed number, which `seek ... seed=` and `bitarena
 * xmas-replay --seed` take back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "core/rng.h"
#include "games/record.h"
#include "testproc.h"
#include "testserver.h"
#include "tmpdir.h"

/* ---- GF(2) linear algebra over the 256 bits of a xoshiro256** state ---------------------- */

#define NBITS 256
#define NW    (NBITS / 64)

/* A linear form: which of the 256 unknown state bits are XORed together. */
struct form {
	uint64_t w[NW];
};

static void form_xor(struct form *a, const struct form *b)
{
	for (int i = 0; i < NW; i++)
		a->w[i] ^= b->w[i];
}

/* A 64-bit word whose every bit is a linear form of the unknowns. */
struct sword {
	struct form bit[64];
};

/* The state as linear forms: s[k].bit[j] is bit j of word k. */
struct sym {
	struct sword s[4];
};

static void sword_xor(struct sword *a, const struct sword *b)
{
	for (int j = 0; j < 64; j++)
		form_xor(&a->bit[j], &b->bit[j]);
}

/* a << k (bits shifted out are gone, new ones are 0). */
static void sword_shl(struct sword *out, const struct sword *a, int k)
{
	memset(out, 0, sizeof *out);
	for (int j = 63; j >= k; j--)
		out->bit[j] = a->bit[j - k];
}

static void sword_rotl(struct sword *a, int k)
{
	struct sword t = *a;
	for (int j = 0; j < 64; j++)
		a->bit[(j + k) % 64] = t.bit[j];
}

/* The unknown initial state: bit j of word k is unknown 64 k + j. */
static void sym_init(struct sym *y)
{
	memset(y, 0, sizeof *y);
	for (int k = 0; k < 4; k++)
		for (int j = 0; j < 64; j++)
			y->s[k].bit[j].w[k] = 1ULL << j;
}

/* rng_next()'s state update (core/rng.h), on the forms. */
static void sym_step(struct sym *y)
{
	struct sword *s = y->s, t;
	sword_shl(&t, &s[1], 17);
	sword_xor(&s[2], &s[0]);
	sword_xor(&s[3], &s[1]);
	sword_xor(&s[1], &s[2]);
	sword_xor(&s[0], &s[3]);
	sword_xor(&s[2], &t);
	sword_rotl(&s[3], 45);
}

/* The inverse of x -> x * a mod 2^64 for odd a (Newton's iteration). */
static uint64_t inverse_odd(uint64_t a)
{
	uint64_t x = a; /* right to 3 bits */
	for (int i = 0; i < 6; i++)
		x *= 2 - a * x;
	return x;
}

/* s[1] of the state that gave output out: rng_next() returns rotl(s1 * 5, 7) * 9. */
static uint64_t s1_of_output(uint64_t out)
{
	uint64_t v = out * inverse_odd(9);
	v = (v >> 7) | (v << 57);
	return v * inverse_odd(5);
}

/* Rows of a system in echelon form: pivot[b] is the row whose first unknown is b. */
struct system {
	struct form row[NBITS];
	int rhs[NBITS];
	bool has[NBITS];
	int rank;
	bool inconsistent;
};

static int form_first(const struct form *f)
{
	for (int i = 0; i < NW; i++)
		if (f->w[i] != 0)
			return 64 * i + __builtin_ctzll(f->w[i]);
	return -1;
}

/* Adds the equation f . x = v. */
static void system_add(struct system *e, struct form f, int v)
{
	for (int b; (b = form_first(&f)) >= 0;) {
		if (!e->has[b]) {
			e->row[b] = f;
			e->rhs[b] = v;
			e->has[b] = true;
			e->rank++;
			return;
		}
		form_xor(&f, &e->row[b]);
		v ^= e->rhs[b];
	}
	if (v != 0) /* 0 = 1: no state gives these outputs */
		e->inconsistent = true;
}

/* The unique solution of a system of full rank, into the four words of a state. */
static void system_solve(const struct system *e, uint64_t st[4])
{
	int x[NBITS];
	for (int b = NBITS - 1; b >= 0; b--) {
		int v = e->rhs[b];
		for (int c = b + 1; c < NBITS; c++)
			if (e->row[b].w[c / 64] >> (c % 64) & 1)
				v ^= x[c];
		x[b] = v;
	}
	for (int k = 0; k < 4; k++) {
		st[k] = 0;
		for (int j = 0; j < 64; j++)
			st[k] |= (uint64_t)x[64 * k + j] << j;
	}
}

enum attack_result { RECOVERED, INCONSISTENT, UNDERDETERMINED };

/*
 * The attack on n consecutive outputs of a xoshiro256** generator: out[0 .. n). On
 * RECOVERED *next is the output that would come after them.
 */
static enum attack_result attack(const uint64_t *out, int n, uint64_t *next)
{
	static struct sym y;
	static struct system e;
	memset(&e, 0, sizeof e);
	sym_init(&y);
	for (int i = 0; i < n && !e.inconsistent; i++) {
		uint64_t s1 = s1_of_output(out[i]);
		for (int j = 0; j < 64; j++)
			system_add(&e, y.s[1].bit[j], (int)(s1 >> j & 1));
		sym_step(&y);
	}
	if (e.inconsistent)
		return INCONSISTENT;
	if (e.rank < NBITS)
		return UNDERDETERMINED;
	struct rng r;
	system_solve(&e, r.s);
	for (int i = 0; i < n; i++)
		if (rng_next(&r) != out[i]) /* the solution must give the outputs back */
			return INCONSISTENT;
	*next = rng_next(&r);
	return RECOVERED;
}

/* ---- the attack against a generator of the old kind ---------------------------------- */

START_TEST(test_attack_breaks_the_old_generator)
{
	/* what bitarenad did: xoshiro256** seeded from the clock and its pid, every game's seed
	 * its next output */
	for (uint64_t boot = 1700000000ULL; boot < 1700000000ULL + 20; boot++) {
		struct rng old;
		rng_seed(&old,
		         boot * 1000000007ULL ^ (boot * 7919 % 1000000000ULL) ^ (4242ULL << 32));
		uint64_t seeds[101];
		for (int i = 0; i < 101; i++)
			seeds[i] = rng_next(&old);
		uint64_t next = 0;
		/* six quick games of one's own are enough (issue 27): the next game's seed follows
		 */
		ck_assert_int_eq(attack(seeds, 6, &next), RECOVERED);
		ck_assert_uint_eq(next, seeds[6]);
		ck_assert_int_eq(attack(seeds, 100, &next), RECOVERED);
		ck_assert_uint_eq(next, seeds[100]);
		/* a single seed is not enough: 64 equations for 256 unknowns */
		ck_assert_int_eq(attack(seeds, 1, &next), UNDERDETERMINED);
	}
}
END_TEST

/* ---- and against the server ----------------------------------------------------------- */

/* a seeks kind_opts as the first seat and b accepts (what came before skipped): the game's id. */
static int seek_accepted(struct ts_cli *a, struct ts_cli *b, const char *kind_opts)
{
	ts_send(a, "seek %s color=first", kind_opts);
	cJSON *ok = ts_until(a, "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	int seek = ts_jint(cJSON_GetObjectItem(ok, "seek"), "id");
	cJSON_Delete(ok);
	ts_send(b, "accept %d", seek);
	ok = ts_until(b, "{\"type\":\"ok\",\"cmd\":\"accept\"}");
	int id = ts_jint(ok, "game");
	cJSON_Delete(ok);
	return id;
}

/* a seeks ttt as the first seat, b accepts, a resigns at once; returns the game's id. */
static int quick_game(struct ts_cli *a, struct ts_cli *b)
{
	int id = seek_accepted(a, b, "ttt");
	ts_send(a, "resign %d", id);
	cJSON_Delete(ts_untilf(a, "{\"type\":\"game_over\",\"game\":%d}", id));
	cJSON_Delete(ts_untilf(b, "{\"type\":\"game_over\",\"game\":%d}", id));
	ts_send(a, "#sync ping");
	ts_until0(a, "{\"type\":\"pong\",\"id\":\"sync\"}");
	return id;
}

/* The Seed tag of finished game id's record, as c reads it (into buf). */
static const char *seed_tag(struct ts_cli *c, int id, char *buf, size_t len)
{
	ts_send(c, "record %d", id);
	cJSON *ok = ts_until(c, "{\"type\":\"ok\",\"cmd\":\"record\"}");
	const char *text = ts_jstr(ok, "record");
	struct record rec;
	record_init(&rec);
	ck_assert_int_eq(record_parse(text, strlen(text), &rec, NULL), RECORD_OK);
	const char *tag = record_tag(&rec, "Seed");
	ck_assert_msg(tag != NULL, "no Seed in the record of finished game %d:\n%s", id, text);
	snprintf(buf, len, "%s", tag);
	record_clear(&rec);
	cJSON_Delete(ok);
	return buf;
}

/* The seed finished game id's record publishes, as c reads it. */
static uint64_t published_seed(struct ts_cli *c, int id)
{
	char tag[32];
	uint64_t seed;
	ck_assert_msg(game_seed_parse(seed_tag(c, id, tag, sizeof tag), &seed),
	              "a Seed that is no seed: %s", tag);
	return seed;
}

START_TEST(test_attack_fails_on_the_server)
{
	enum { GAMES = 101 };
	static const char *const fast[] = {"--cmd-rate", "0"}; /* no budget: a hundred games */
	struct ts_srv s;
	ts_up(&s, fast, 2);
	struct ts_cli a, b;
	ts_join(&a, s.port, "alice");
	ts_join(&b, s.port, "bob");
	int ids[GAMES];
	for (int i = 0; i < GAMES; i++) {
		ids[i] = quick_game(&a, &b);
		ck_assert(i == 0 || ids[i] > ids[i - 1]); /* played one after the other */
	}
	uint64_t seeds[GAMES], next = 0;
	for (int i = 0; i < GAMES; i++) {
		seeds[i] = published_seed(&a, ids[i]);
		for (int j = 0; j < i; j++)
			ck_assert_uint_ne(seeds[i], seeds[j]);
	}
	/* six, sixty or a hundred of them: no xoshiro256** state gives them; and no state
	 * solved from a few predicts the next one */
	ck_assert_int_eq(attack(seeds, 6, &next), INCONSISTENT);
	ck_assert_int_eq(attack(seeds, 60, &next), INCONSISTENT);
	ck_assert_int_eq(attack(seeds, GAMES - 1, &next), INCONSISTENT);
	for (int from = 0; from + 5 < GAMES; from += 5) {
		enum attack_result r = attack(seeds + from, 5, &next);
		ck_assert(r != RECOVERED || next != seeds[from + 5]);
	}
	ts_close(&a);
	ts_close(&b);
	ts_down(&s);
}
END_TEST

/* ---- one form ------------------------------------------------------------------------- */

/*
 * a seeks an Xmas Rush game of opts (strict) that b accepts; both give up at once, so the
 * engine ends it. Returns its id, and the final position's seed in seed (seed_len bytes).
 */
static int xmas_given_up(struct ts_cli *a, struct ts_cli *b, const char *opts, char *seed,
                         size_t seed_len)
{
	char kind_opts[128];
	snprintf(kind_opts, sizeof kind_opts, "xmas strict=1 %s", opts);
	int id = seek_accepted(a, b, kind_opts);
	ts_send(a, "move %d GIVE UP", id);
	ts_send(b, "move %d GIVE UP", id);
	cJSON *st = ts_untilf(a, "{\"type\":\"state\",\"game\":%d,\"over\":true}", id);
	const char *s = ts_jstr(cJSON_GetObjectItem(st, "position"), "seed");
	ck_assert_ptr_nonnull(s);
	snprintf(seed, seed_len, "%s", s);
	cJSON_Delete(st);
	cJSON_Delete(ts_untilf(a, "{\"type\":\"game_over\",\"game\":%d}", id));
	cJSON_Delete(ts_untilf(b, "{\"type\":\"game_over\",\"game\":%d}", id));
	return id;
}

START_TEST(test_seed_one_form)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli a, b;
	ts_join(&a, s.port, "alice");
	ts_join(&b, s.port, "bob");
	char state[32], tag[32];
	/* a seed given: the game's seed, shown as given */
	int id = xmas_given_up(&a, &b, "seed=-5", state, sizeof state);
	ck_assert_str_eq(state, "-5");
	ck_assert_str_eq(seed_tag(&a, id, tag, sizeof tag), "-5");
	/* the server's: the record says what the final position says, signed */
	for (int round = 0; round < 4; round++) {
		id = xmas_given_up(&a, &b, "", state, sizeof state);
		ck_assert_str_eq(seed_tag(&a, id, tag, sizeof tag), state);
		char *end;
		errno = 0;
		long long v = strtoll(tag, &end, 10);
		ck_assert(*end == '\0' && errno == 0);
		char again[GAME_SEED_TEXT];
		ck_assert_str_eq(game_seed_text((uint64_t)v, again), tag);
		/* and it is taken back: by seek ... seed= */
		ts_send(&a, "seek xmas seed=%s", tag);
		cJSON *ok = ts_until(&a, "{\"cmd\":\"seek\"}");
		ck_assert_str_eq(ts_jstr(ok, "type"), "ok");
		ck_assert_str_eq(
		        ts_jstr(cJSON_GetObjectItem(cJSON_GetObjectItem(ok, "seek"), "options"),
		                "seed"),
		        tag);
		ts_send(&a, "unseek %d", ts_jint(cJSON_GetObjectItem(ok, "seek"), "id"));
		ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"unseek\"}");
		cJSON_Delete(ok);
		/* and by bitarena xmas-replay --seed (its first turn; stdin ends there) */
		char dir[256], out[320], err[320], text[4096];
		tmpdir_make(dir, sizeof dir, "check_seeds");
		snprintf(out, sizeof out, "%s/out", dir);
		snprintf(err, sizeof err, "%s/err", dir);
		const char *argv[] = {tp_prog("BITARENA", "./bitarena"), "xmas-replay", "--seed",
		                      tag, NULL};
		ck_assert_int_eq(tp_wait(tp_spawn(argv, out, err), 30), 2); /* stdin ended */
		ck_assert_msg(strncmp(tp_slurp(out, text, sizeof text), "{\"turn\":1,", 10) == 0,
		              "%s", text);
		ck_assert_msg(strstr(tp_slurp(err, text, sizeof text), "stdin ended") != NULL, "%s",
		              text);
		tmpdir_remove(dir);
	}
	ts_close(&a);
	ts_close(&b);
	ts_down(&s);
}
END_TEST

static Suite *seeds_suite(void)
{
	Suite *s = suite_create("seeds");
	TCase *tc = tcase_create("attack");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_attack_breaks_the_old_generator);
	tcase_add_test(tc, test_attack_fails_on_the_server);
	tcase_add_test(tc, test_seed_one_form);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(seeds_suite());
}
