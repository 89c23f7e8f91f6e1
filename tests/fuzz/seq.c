/*
 * seq.c - the notation properties of sequential games (see seq.h): move text
 * round trips, parsed moves are legal moves, and positions survive save/load.
 */
#include "seq.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define SEQ_MAX_MOVES 32768 /* at least every engine's max_moves (Tak: TAK_MAX_MOVES) */
#define SEQ_POS_TEXT  8192  /* a buffer for any saved position */

/* Scratch move lists: one for the position being checked, one for results of apply(). */
static game_move moves_a[SEQ_MAX_MOVES], moves_b[SEQ_MAX_MOVES];

static int legal(const struct game_ops *ops, const void *st, game_move *out)
{
	FUZZ_CHECK(ops->max_moves <= SEQ_MAX_MOVES);
	int n = ops->legal_moves(st, out, ops->max_moves);
	FUZZ_CHECK(n >= 0 && (size_t)n <= ops->max_moves);
	return n;
}

/*
 * Perft 2 of st by copy-make, from its n legal moves in moves_a: each applied to a copy,
 * the copy's legal moves counted. game_perft_generic() does the same with a scratch block
 * it allocates per call (half a megabyte for Tak's move lists), which under ASan cost more
 * than everything else the target does; these buffers are static.
 */
/*
 * Memos. Every check here is a function of the position's bytes (and the options and what
 * is checked), and the fixed positions, the start position and their successors come back
 * in every input: the Tak target spent three quarters of its time checking again the same
 * few hundred successors of its fixed positions and generating their move lists. So a
 * position is checked once (positions_checked, keyed on ops, options, what and all of the
 * state's bytes, compared in full), and a move list is generated once per position for the
 * membership test of seq_try_move (lists; sorted, searched by halving).
 */
#if defined(__clang__)
/* the memos' own loops add no coverage worth having, and cost more than the rest when traced */
#define SEQ_NO_COVERAGE __attribute__((noinline, no_sanitize("coverage")))
#else
#define SEQ_NO_COVERAGE
#endif

SEQ_NO_COVERAGE static uint64_t hash_bytes(uint64_t h, const void *data, size_t size)
{
	const unsigned char *b = data;
	size_t i = 0;
	for (; i + 8 <= size; i += 8) {
		uint64_t w;
		memcpy(&w, b + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	for (; i < size; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t position_hash(const struct game_ops *ops, const struct game_params *p,
                              const void *st)
{
	uint64_t h = hash_bytes(0xcbf29ce484222325ull, &ops, sizeof ops);
	if (p != NULL)
		h = hash_bytes(h, p, sizeof *p);
	return hash_bytes(h, st, ops->state_size);
}

#define SEQ_CHECKED 4096 /* positions_checked slots (direct-mapped on the hash) */
static struct checked {
	uint64_t hash;
	const struct game_ops *ops; /* NULL: a free slot */
	unsigned what;
	struct game_params p;
	alignas(max_align_t) unsigned char st[GAME_STATE_MAX];
} positions_checked[SEQ_CHECKED];

/* The slot for (ops, p, st): *hit when it holds that position, checked with at least what. */
static struct checked *checked_slot(const struct game_ops *ops, const struct game_params *p,
                                    const void *st, unsigned what, bool *hit)
{
	uint64_t h = position_hash(ops, p, st);
	struct checked *c = &positions_checked[h % SEQ_CHECKED];
	*hit = c->ops == ops && c->hash == h && (c->what & what) == what &&
	       memcmp(&c->p, p, sizeof *p) == 0 && memcmp(c->st, st, ops->state_size) == 0;
	if (!*hit) {
		c->ops = NULL; /* filled in once the position passed */
		c->hash = h;
		c->what = what;
		memcpy(&c->p, p, sizeof *p);
		memcpy(c->st, st, ops->state_size);
	}
	return c;
}

/* Move lists kept, least recently used replaced: the fixed positions' stay. */
#define SEQ_LISTS 16
static struct list {
	uint64_t hash;
	const struct game_ops *ops; /* NULL: a free slot */
	unsigned long used;         /* when last looked up */
	int n;
	alignas(max_align_t) unsigned char st[GAME_STATE_MAX];
	game_move moves[SEQ_MAX_MOVES]; /* sorted */
} lists[SEQ_LISTS];

SEQ_NO_COVERAGE static int cmp_move(const void *a, const void *b)
{
	game_move x = *(const game_move *)a, y = *(const game_move *)b;
	return (x > y) - (x < y);
}

/* The slot holding the list of (ops, h, st), or the one to replace (l->ops != ops). */
SEQ_NO_COVERAGE static struct list *find_list(const struct game_ops *ops, uint64_t h,
                                              const void *st)
{
	static unsigned long clock;
	struct list *old = &lists[0];
	clock++;
	for (int i = 0; i < SEQ_LISTS; i++) {
		struct list *l = &lists[i];
		if (l->ops == ops && l->hash == h && memcmp(l->st, st, ops->state_size) == 0) {
			l->used = clock;
			return l;
		}
		if (l->used < old->used)
			old = l;
	}
	old->ops = NULL;
	old->used = clock;
	return old;
}

/* Whether m is one of the legal moves of st (made once per position, then looked up). */
static bool is_legal(const struct game_ops *ops, const void *st, game_move m)
{
	uint64_t h = position_hash(ops, NULL, st);
	struct list *l = find_list(ops, h, st);
	if (l->ops != ops) {
		l->n = legal(ops, st, l->moves);
		qsort(l->moves, (size_t)l->n, sizeof l->moves[0], cmp_move);
		l->ops = ops;
		l->hash = h;
		memcpy(l->st, st, ops->state_size);
	}
	return bsearch(&m, l->moves, (size_t)l->n, sizeof m, cmp_move) != NULL;
}

static uint64_t perft2_copy_make(const struct game_ops *ops, const void *st, int n)
{
	alignas(max_align_t) static unsigned char child[GAME_STATE_MAX];
	uint64_t total = 0;
	for (int i = 0; i < n; i++) {
		memcpy(child, st, ops->state_size);
		FUZZ_CHECK(ops->apply(child, moves_a[i]) == GAME_OK);
		if (ops->to_move(child) != 0)
			total += (uint64_t)legal(ops, child, moves_b);
	}
	return total;
}

static bool same_result(const struct game_result *a, const struct game_result *b)
{
	return a->over == b->over && (!a->over || a->winner == b->winner) &&
	       strcmp(a->reason ? a->reason : "", b->reason ? b->reason : "") == 0 &&
	       strcmp(a->score, b->score) == 0;
}

/* Every one of the n legal moves of st (in moves_a) formats and parses back to itself. */
static void check_move_texts(const struct game_ops *ops, const void *st, int seat, int n,
                             const char *text)
{
	for (int i = 0; i < n; i++) {
		char mt[GAME_MOVE_TEXT];
		game_move m = 0;
		int k = ops->format_move(st, moves_a[i], mt, sizeof mt);
		FUZZ_CHECK(k > 0 && (size_t)k < sizeof mt && strlen(mt) == (size_t)k);
		int err = ops->parse_move(st, seat, mt, &m, NULL);
		if (err != GAME_OK || m != moves_a[i])
			fprintf(stderr, "%s: legal move %s (%#llx) parses to %#llx (%d)\n", text,
			        mt, (unsigned long long)moves_a[i], (unsigned long long)m, err);
		FUZZ_CHECK(err == GAME_OK && m == moves_a[i]);
	}
}

void seq_check_position(const struct game_ops *ops, const struct game_params *p, const void *st,
                        unsigned what)
{
	static char text[SEQ_POS_TEXT], text2[SEQ_POS_TEXT];
	alignas(max_align_t) static unsigned char st2[GAME_STATE_MAX];

	bool hit;
	struct checked *memo = checked_slot(ops, p, st, what, &hit);
	if (hit)
		return;

	int len = ops->save(st, text, sizeof text);
	FUZZ_CHECK(len >= 0 && (size_t)len < sizeof text && strlen(text) == (size_t)len);
	int err = ops->load(st2, p, text);
	if (err != GAME_OK)
		fprintf(stderr, "saved position does not load (%d): %s\n", err, text);
	FUZZ_CHECK(err == GAME_OK);
	int len2 = ops->save(st2, text2, sizeof text2);
	if (len2 != len || strcmp(text, text2) != 0)
		fprintf(stderr, "saved %s\nreloaded and saved %s\n", text, text2);
	FUZZ_CHECK(len2 == len && strcmp(text, text2) == 0);
	FUZZ_CHECK(ops->to_move(st) == ops->to_move(st2));
	struct game_result r1, r2;
	ops->result(st, &r1);
	ops->result(st2, &r2);
	if (!same_result(&r1, &r2))
		fprintf(stderr, "%s: result %d/%d %s %s, reloaded %d/%d %s %s\n", text, r1.over,
		        r1.winner, r1.reason, r1.score, r2.over, r2.winner, r2.reason, r2.score);
	FUZZ_CHECK(same_result(&r1, &r2));
	int n = legal(ops, st, moves_a);
	int n2 = legal(ops, st2, moves_b);
	if (n != n2)
		fprintf(stderr, "%s: %d legal moves, %d after reloading\n", text, n, n2);
	FUZZ_CHECK(n == n2);
	FUZZ_CHECK(n == 0 || ops->to_move(st) != 0);
	if (ops->perft != NULL) {
		/* the engine's own counter (make/unmake) against the generator (copy-make) */
		uint64_t p1 = ops->perft(st, 1);
		if (p1 != (uint64_t)n)
			fprintf(stderr, "%s: perft 1 = %llu, %d legal moves\n", text,
			        (unsigned long long)p1, n);
		FUZZ_CHECK(p1 == (uint64_t)n);
		if ((what & SEQ_PERFT2) && n <= 100) {
			uint64_t p2 = ops->perft(st, 2), g2 = perft2_copy_make(ops, st, n);
			if (p2 != g2)
				fprintf(stderr, "%s: perft 2 = %llu, by copy-make %llu\n", text,
				        (unsigned long long)p2, (unsigned long long)g2);
			FUZZ_CHECK(p2 == g2);
		}
	}

	int seat = game_seat_to_move(ops, st);
	if ((what & SEQ_MOVES) && seat >= 0)
		check_move_texts(ops, st, seat, n, text);
	memo->ops = ops; /* passed: the next time it is skipped */
}

void seq_try_move(const struct game_ops *ops, const struct game_params *p, const void *st,
                  const char *text, unsigned what)
{
	alignas(max_align_t) static unsigned char after[GAME_STATE_MAX];
	int seat = game_seat_to_move(ops, st);
	game_move m = 0, m2 = 0;
	const char *why = NULL;
	if (seat < 0) {
		/* over: every seat is refused, whatever the text */
		for (int s = 0; s < ops->nplayers; s++)
			FUZZ_CHECK(ops->parse_move(st, s, text, &m, &why) < 0);
		return;
	}
	for (int s = 0; s < ops->nplayers; s++) {
		if (s == seat)
			continue;
		int err = ops->parse_move(st, s, text, &m, &why);
		FUZZ_CHECK(err < 0);
	}
	why = NULL;
	int err = ops->parse_move(st, seat, text, &m, &why);
	if (err != GAME_OK) {
		FUZZ_CHECK(err == GAME_ESYNTAX || err == GAME_EILLEGAL);
		FUZZ_CHECK(why != NULL);
		return;
	}
	bool ok = is_legal(ops, st, m);
	if (!ok)
		fprintf(stderr, "'%s' parses to %#llx, which is not a legal move\n", text,
		        (unsigned long long)m);
	FUZZ_CHECK(ok);

	char mt[GAME_MOVE_TEXT];
	int k = ops->format_move(st, m, mt, sizeof mt);
	FUZZ_CHECK(k > 0 && (size_t)k < sizeof mt && strlen(mt) == (size_t)k);
	err = ops->parse_move(st, seat, mt, &m2, NULL);
	if (err != GAME_OK || m2 != m)
		fprintf(stderr, "'%s' -> %#llx -> '%s' -> %#llx (%d)\n", text,
		        (unsigned long long)m, mt, (unsigned long long)m2, err);
	FUZZ_CHECK(err == GAME_OK && m2 == m);

	memcpy(after, st, ops->state_size);
	FUZZ_CHECK(ops->apply(after, m) == GAME_OK);
	seq_check_position(ops, p, after, what);
}
