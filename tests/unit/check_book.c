/*
 * check_book.c - opening books (src/games/book.c): books of every kind
 * read and replayed (Tak move lists in PTN's forms, TPS positions, m,n,k
 * move lists, Xmas Rush seeds, racetrack's plain move lists given a game),
 * every refusal with its code and line number, and the books shipped in
 * data/books: each reads, each opening replays to a running game, the Tak
 * books hold a few hundred openings of their size. Then the generator
 * (`bitarena book`, when $BITARENA names it, as `make check` does): the
 * number of openings the boards' symmetries leave, and the same book from
 * the same command.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/book.h"
#include "games/game.h"
#include "games/game_replay.h"
#include "games/mnk/mnk.h"
#include "games/tak/tak.h"
#include "games/xmas/xmas.h"
#include "check_main.h"

#ifndef BOOKS_SRCDIR
#define BOOKS_SRCDIR "../data/books"
#endif

static int parse(const char *text, const char *kind, struct book *b, struct book_error *err)
{
	return book_parse(text, strlen(text), kind, b, err);
}

/* The position text of opening i, set up by book_start(). */
static void start_text(const struct book *b, size_t i, char *out, size_t len)
{
	void *st = calloc(1, b->ops->state_size);
	ck_assert_ptr_nonnull(st);
	ck_assert_int_eq(book_start(b, i, 0, st), GAME_OK);
	ck_assert_uint_ne(b->ops->to_move(st), 0);
	ck_assert_int_ge(b->ops->save(st, out, len), 0);
	free(st);
}

/* The position text after playing texts (n moves) from the start of b's game. */
static void replay_text(const struct book *b, const char *const *texts, size_t n, char *out,
                        size_t len)
{
	struct game_ply plies[16];
	struct game_replay_stop stop;
	void *st = calloc(1, b->ops->state_size);
	ck_assert_ptr_nonnull(st);
	for (size_t i = 0; i < n; i++)
		plies[i] = (struct game_ply){.seat = -1, .act = GAME_ACT_MOVE, .text = texts[i]};
	ck_assert_int_eq(game_replay_moves(b->ops, &b->params, 0, plies, n, st, &stop), GAME_OK);
	ck_assert_int_ge(b->ops->save(st, out, len), 0);
	free(st);
}

START_TEST(test_tak_book)
{
	static const char text[] = "# a hand-made book\n"
	                           "\n"
	                           "[Game \"tak size=5 komi=4\"]\n"
	                           "[Generator \"by hand\"]\n"
	                           "a1 e5 c3 b2   # the first one\n"
	                           "1. Fa2 e4 2. c3 Sb2\r\n"
	                           "\t x5/x5/2,x4/x5/1,x4 1 2   #  a position  \n"
	                           "b1 e1 b2 Ca3 # caps are fine from ply 3";
	struct book b;
	struct book_error err;
	ck_assert_int_eq(parse(text, NULL, &b, &err), BOOK_OK);
	ck_assert_ptr_eq(b.ops, &game_tak);
	ck_assert_str_eq(b.game, "tak size=5 komi=4");
	ck_assert_int_eq(b.params.v[TAK_OPT_SIZE], 5);
	ck_assert_int_eq(b.params.v[TAK_OPT_KOMI], 4);
	ck_assert_uint_eq(b.n, 4);

	const struct book_opening *o = &b.open[0];
	ck_assert_int_eq(o->line, 5);
	ck_assert_str_eq(o->name, "the first one");
	ck_assert_ptr_null(o->position);
	ck_assert_uint_eq(o->nmoves, 4);
	ck_assert_str_eq(o->moves[3], "b2");
	ck_assert_str_eq(o->plies[3].text, "b2");

	/* move numbers skipped, the canonical texts kept: "Fa2" is "a2" */
	o = &b.open[1];
	ck_assert_int_eq(o->line, 6);
	ck_assert_ptr_null(o->name);
	static const char *const second[] = {"a2", "e4", "c3", "Sb2"};
	ck_assert_uint_eq(o->nmoves, 4);
	for (int i = 0; i < 4; i++)
		ck_assert_str_eq(o->moves[i], second[i]);

	o = &b.open[2];
	ck_assert_int_eq(o->line, 7);
	ck_assert_str_eq(o->name, "a position");
	ck_assert_str_eq(o->position, "x5/x5/2,x4/x5/1,x4 1 2");
	ck_assert_uint_eq(o->nmoves, 0);
	ck_assert_int_eq(b.open[3].line, 8);

	/* book_start() reaches what a plain replay of the moves reaches */
	char a[512], c[512];
	static const char *const first[] = {"a1", "e5", "c3", "b2"};
	start_text(&b, 0, a, sizeof a);
	replay_text(&b, first, 4, c, sizeof c);
	ck_assert_str_eq(a, c);
	ck_assert_str_eq(a, "x4,1/x5/x2,1,x2/x,2,x3/2,x4 1 3"); /* e5 White's, a1 Black's */
	start_text(&b, 1, a, sizeof a);
	replay_text(&b, second, 4, c, sizeof c);
	ck_assert_str_eq(a, c);
	start_text(&b, 2, a, sizeof a);
	ck_assert_str_eq(a, "x5/x5/2,x4/x5/1,x4 1 2");
	book_free(&b);
	ck_assert_ptr_null(b.open);
}
END_TEST

/* racetrack's books: plain move lists, the game given by the caller. */
START_TEST(test_plain_list)
{
	static const char text[] = "c4 a5 e1 b3 \nb5 a5 e1 b4 \n";
	struct book b;
	struct book_error err;
	ck_assert_int_eq(parse(text, NULL, &b, &err), BOOK_EGAME);
	ck_assert_int_eq(err.line, 1);
	ck_assert_int_eq(parse(text, "tak size=5", &b, &err), BOOK_OK);
	ck_assert_uint_eq(b.n, 2);
	ck_assert_str_eq(b.game, "tak size=5");
	book_free(&b);
	ck_assert_int_eq(parse(text, "tak size=6", &b, &err), BOOK_OK);
	ck_assert_int_eq(b.params.v[TAK_OPT_SIZE], 6);
	book_free(&b);
	/* a book's own [Game] line wins over the caller's kind */
	ck_assert_int_eq(parse("[Game \"tak size=4\"]\na1 d4\n", "tak size=6", &b, &err), BOOK_OK);
	ck_assert_int_eq(b.params.v[TAK_OPT_SIZE], 4);
	book_free(&b);
	/* on 3x3 there is no c4 */
	ck_assert_int_eq(parse(text, "tak size=3", &b, &err), BOOK_EILLEGAL);
	ck_assert_int_eq(err.line, 1);
}
END_TEST

START_TEST(test_mnk_book)
{
	static const char text[] = "[Game \"mnk m=5 n=4 k=4\"]\n"
	                           "c2\n"
	                           "a1 e4 # corners\n";
	struct book b;
	struct book_error err;
	ck_assert_int_eq(parse(text, NULL, &b, &err), BOOK_OK);
	ck_assert_ptr_eq(b.ops, &game_mnk);
	ck_assert_uint_eq(b.n, 2);
	char a[128];
	start_text(&b, 1, a, sizeof a);
	ck_assert_str_eq(a, "....o/...../...../x....");
	book_free(&b);
	/* a position text too */
	ck_assert_int_eq(parse("[Game \"ttt\"]\nx../.o./...\n", NULL, &b, &err), BOOK_OK);
	ck_assert_str_eq(b.open[0].position, "x../.o./...");
	book_free(&b);
}
END_TEST

START_TEST(test_xmas_book)
{
	static const char text[] = "[Game \"xmas league=3\"]\n"
	                           "-8719241083716604423\n"
	                           "0 # zero is a seed too\n"
	                           "9223372036854775807\n";
	struct book b;
	struct book_error err;
	ck_assert_int_eq(parse(text, NULL, &b, &err), BOOK_OK);
	ck_assert_uint_eq(b.n, 3);
	ck_assert(b.open[0].has_seed && b.open[0].seed == -8719241083716604423LL);
	ck_assert(b.open[2].seed == INT64_MAX);
	/* the opening is the map of the seed: as a game made with seed= */
	for (size_t i = 0; i < b.n; i++) {
		void *x = calloc(1, b.ops->state_size), *y = calloc(1, b.ops->state_size);
		struct game_params p = b.params;
		int k = game_opt_index(b.ops, "seed");
		p.v[k] = b.open[i].seed;
		p.set[k] = true;
		ck_assert_int_eq(book_start(&b, i, 99, x), GAME_OK);
		ck_assert_int_eq(b.ops->init(y, &p, 12345), GAME_OK);
		cJSON *tx = b.ops->to_json(x, 0), *ty = b.ops->to_json(y, 0);
		char *jx = cJSON_PrintUnformatted(tx), *jy = cJSON_PrintUnformatted(ty);
		ck_assert_str_eq(jx, jy);
		free(jx);
		free(jy);
		cJSON_Delete(tx);
		cJSON_Delete(ty);
		free(x);
		free(y);
	}
	book_free(&b);
}
END_TEST

/* A book that must be refused, with its code and the line to blame. */
struct refusal {
	const char *text;
	int code, line;
	const char *says; /* a part of the message */
};

static const struct refusal refusals[] = {
        {"[Game \"tak size=5\"]\na1 e5\na1 a1\n", BOOK_EILLEGAL, 3, "move 2 'a1'"},
        {"[Game \"tak size=5\"]\nSa1 e5\n", BOOK_EILLEGAL, 2, "move 1 'Sa1'"},
        {"[Game \"tak size=5\"]\na1 e5\nhello\n", BOOK_ESYNTAX, 3, "'hello'"},
        {"[Game \"tak size=5\"]\na1 e5 # one\n\n# two\nFa1 e5\n", BOOK_EDUP, 5, "line 2"},
        {"[Game \"tak size=5\"]\n1,1,1,1,1/x5/x5/2,2,2,2,x/x5 2 6\n", BOOK_EOVER, 2, "over"},
        {"[Game \"tak size=5\"]\nx6/x6/x6/x6/x6/x6 1 1\n", BOOK_EILLEGAL, 2, "not a position"},
        {"[Game \"tak size=5\"]\nx5/x5/x5/x5/x5 1 1\nx5/x5/x5/x5/x5 1 1\n", BOOK_EDUP, 3, "line 2"},
        {"a1 e5\n", BOOK_EGAME, 1, "[Game"},
        {"# comment\n[Game \"chess\"]\na1\n", BOOK_EGAME, 2, "unknown game 'chess'"},
        {"[Game \"tak size=12\"]\n", BOOK_EGAME, 1, "size=12"},
        {"[Game \"tak colour=white\"]\n", BOOK_EGAME, 1, "no option of tak"},
        {"[Game \"tak\"]\n[Game \"tak size=6\"]\n", BOOK_EGAME, 2, "second"},
        {"[Game \"tak\"]\na1 e5\n[Game \"tak size=6\"]\n", BOOK_EGAME, 3, "before the openings"},
        {"[Game tak]\n", BOOK_ESYNTAX, 1, "[Name \"value\"]"},
        {"# only comments\n\n", BOOK_EEMPTY, 0, "no opening"},
        {"[Game \"tak\"]\n", BOOK_EEMPTY, 0, "no opening"},
        {"[Game \"ttt\"]\na1 a2 b1 b2 c1\n", BOOK_EOVER, 2, "over"},
        {"[Game \"ttt\"]\na1 a2 b1 b2 c1 c2\n", BOOK_EOVER, 2, "'c2': the game is over"},
        {"[Game \"ttt\"]\nb2\na1\nb2 # again\n", BOOK_EDUP, 4, "line 2"},
        {"[Game \"xmas\"]\n12x\n", BOOK_ESYNTAX, 2, "one seed"},
        {"[Game \"xmas\"]\n1 2\n", BOOK_ESYNTAX, 2, "one seed"},
        {"[Game \"xmas\"]\n9223372036854775808\n", BOOK_ESYNTAX, 2, "one seed"},
        {"[Game \"xmas\"]\n5\n-5\n5\n", BOOK_EDUP, 4, "line 2"},
};

START_TEST(test_refusals)
{
	const struct refusal *t = &refusals[_i];
	struct book b;
	struct book_error err;
	memset(&b, 0x55, sizeof b);
	int e = parse(t->text, NULL, &b, &err);
	ck_assert_msg(e == t->code, "book %d: %d (%s), wanted %d", _i, e, err.msg, t->code);
	ck_assert_int_eq(err.code, t->code);
	ck_assert_msg(err.line == t->line, "book %d: line %d (%s), wanted %d", _i, err.line,
	              err.msg, t->line);
	ck_assert_msg(strstr(err.msg, t->says) != NULL, "book %d: '%s' lacks '%s'", _i, err.msg,
	              t->says);
	if (t->line > 0) { /* the message names its line first */
		char at[32];
		snprintf(at, sizeof at, "line %d: ", t->line);
		ck_assert_msg(strncmp(err.msg, at, strlen(at)) == 0, "'%s'", err.msg);
	}
	ck_assert_ptr_null(b.open); /* nothing kept */
	ck_assert_uint_eq(b.n, 0);
	ck_assert_str_ne(book_strerror(t->code), "unknown error");
}
END_TEST

START_TEST(test_limits)
{
	struct book b;
	struct book_error err;
	/* a line longer than BOOK_LINE_MAX - 1 bytes */
	size_t n = BOOK_LINE_MAX + 64;
	char *text = malloc(n + 32);
	ck_assert_ptr_nonnull(text);
	int at = snprintf(text, 32, "[Game \"tak\"]\n");
	memset(text + at, 'a', n);
	ck_assert_int_eq(book_parse(text, (size_t)at + n, NULL, &b, &err), BOOK_ESYNTAX);
	ck_assert_int_eq(err.line, 2);
	/* a NUL byte */
	ck_assert_int_eq(book_parse("[Game \"tak\"]\na1\0e5\n", 19, NULL, &b, &err), BOOK_ESYNTAX);
	ck_assert_int_eq(err.line, 2);
	/* more than BOOK_MAX_PLIES moves: two stones walking to and fro */
	at = snprintf(text, n, "[Game \"tak\"]\na1 e5");
	for (int i = 0; i < 64; i++)
		at += snprintf(text + at, n - (size_t)at, " e5- a1+ e4+ a2-");
	ck_assert_int_eq(book_parse(text, (size_t)at, NULL, &b, &err), BOOK_ELIMIT);
	ck_assert_int_eq(err.line, 2);
	/* exactly BOOK_MAX_PLIES is fine */
	at = snprintf(text, n, "[Game \"tak\"]\na1 e5");
	for (int i = 0; i < 63; i++)
		at += snprintf(text + at, n - (size_t)at, " e5- a1+ e4+ a2-");
	at += snprintf(text + at, n - (size_t)at, " e5- a1+");
	ck_assert_int_eq(book_parse(text, (size_t)at, NULL, &b, &err), BOOK_OK);
	ck_assert_uint_eq(b.open[0].nmoves, BOOK_MAX_PLIES);
	book_free(&b);
	free(text);
}
END_TEST

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	long size = ftell(f);
	ck_assert_int_ge(size, 0);
	rewind(f);
	char *buf = malloc((size_t)size + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	*len = (size_t)size;
	return buf;
}

static const char *books_dir(void)
{
	const char *src = getenv("BITARENA_SRCDIR");
	static char dir[4096];
	if (src == NULL)
		return BOOKS_SRCDIR;
	snprintf(dir, sizeof dir, "%s/data/books", src);
	return dir;
}

/* One shipped book: reads, and every opening sets up a running game. */
static struct book load_shipped(const char *name)
{
	char path[4200];
	size_t len;
	struct book b;
	struct book_error err;
	snprintf(path, sizeof path, "%s/%s", books_dir(), name);
	char *text = slurp(path, &len);
	ck_assert_msg(book_parse(text, len, NULL, &b, &err) == BOOK_OK, "%s: %s", name, err.msg);
	free(text);
	void *st = malloc(b.ops->state_size);
	ck_assert_ptr_nonnull(st);
	for (size_t i = 0; i < b.n; i++) {
		ck_assert_int_eq(book_start(&b, i, i, st), GAME_OK);
		ck_assert_uint_ne(b.ops->to_move(st), 0);
	}
	free(st);
	return b;
}

START_TEST(test_shipped_tak)
{
	static const struct {
		const char *file;
		int size;
	} t[] = {{"tak5.ptn", 5}, {"tak6.ptn", 6}};
	for (size_t i = 0; i < 2; i++) {
		struct book b = load_shipped(t[i].file);
		ck_assert_ptr_eq(b.ops, &game_tak);
		ck_assert_int_eq(b.params.v[TAK_OPT_SIZE], t[i].size);
		ck_assert_uint_ge(b.n, 200); /* a few hundred */
		for (size_t k = 0; k < b.n; k++) {
			ck_assert_ptr_null(b.open[k].position);
			ck_assert_uint_eq(b.open[k].nmoves, 4);
		}
		book_free(&b);
	}
}
END_TEST

START_TEST(test_shipped_all)
{
	DIR *d = opendir(books_dir());
	ck_assert_msg(d != NULL, "no %s", books_dir());
	int files = 0;
	bool ttt = false, xmas = false;
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		if (e->d_name[0] == '.')
			continue;
		struct book b = load_shipped(e->d_name);
		ttt |= b.ops == &game_ttt;
		xmas |= b.ops == &game_xmas;
		if (b.ops == &game_xmas)
			for (size_t k = 0; k < b.n; k++)
				ck_assert(b.open[k].has_seed);
		book_free(&b);
		files++;
	}
	closedir(d);
	ck_assert_int_ge(files, 5);
	ck_assert(ttt && xmas);
}
END_TEST

/* The output of `$BITARENA book ARGS` (NULL when the tool is not named in the environment). */
static char *book_tool(const char *args, size_t *len)
{
	const char *tool = getenv("BITARENA");
	char cmd[1024];
	if (tool == NULL)
		return NULL;
	snprintf(cmd, sizeof cmd, "'%s' book %s 2>/dev/null", tool, args);
	FILE *f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	size_t cap = 1 << 16;
	char *out = malloc(cap);
	ck_assert_ptr_nonnull(out);
	*len = fread(out, 1, cap - 1, f);
	out[*len] = '\0';
	ck_assert_int_eq(pclose(f), 0);
	return out;
}

/* The tool's books: as many classes as the boards' symmetries leave, readable, repeatable. */
START_TEST(test_generator)
{
	static const struct {
		const char *args;
		size_t n;
		const char *says;
	} t[] = {
	        {"ttt", 3, "a1           # draw"},
	        {"ttt --plies 2", 12, "b2 a1        # draw"},
	        /* 20 squares under the 4 symmetries of a 5x4 board: (20 + 4) / 4 */
	        {"mnk m=5 n=4 k=4 --depth 2", 6, "[Game \"mnk m=5 n=4 k=4\"]"},
	        /* Burnside: 600 placements of two flats, (600 + 4 * 20) / 8 */
	        {"tak size=5 --plies 2 --depth 1 --keep 5 --sample 3 --trial-nodes 200 "
	         "--nodes 200 --max-plies 40",
	         5, "symmetries and transpositions: 85 positions"},
	        {"xmas --count 3 --seed 1", 3, "seeded\n# with 1,"},
	};
	if (getenv("BITARENA") == NULL) {
		fprintf(stderr, "check_book: BITARENA not set, the generator is not run\n");
		return;
	}
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		size_t len, len2;
		char *out = book_tool(t[i].args, &len), *again = book_tool(t[i].args, &len2);
		struct book b;
		struct book_error err;
		ck_assert_msg(book_parse(out, len, NULL, &b, &err) == BOOK_OK, "%s: %s", t[i].args,
		              err.msg);
		ck_assert_uint_eq(b.n, t[i].n);
		ck_assert_msg(strstr(out, t[i].says) != NULL, "%s:\n%s", t[i].args, out);
		ck_assert_str_eq(out, again); /* the same command makes the same book */
		book_free(&b);
		free(out);
		free(again);
	}
}
END_TEST

static Suite *book_suite(void)
{
	Suite *s = suite_create("book");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_tak_book);
	tcase_add_test(tc, test_plain_list);
	tcase_add_test(tc, test_mnk_book);
	tcase_add_test(tc, test_xmas_book);
	tcase_add_loop_test(tc, test_refusals, 0, sizeof refusals / sizeof refusals[0]);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_shipped_tak);
	tcase_add_test(tc, test_shipped_all);
	tcase_add_test(tc, test_generator);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(book_suite());
}
