/*
 * fuzz_trf.c - fuzz target for TRF-16 files (src/arena/trf.c) and what a
 * file read from anywhere can reach: the state of each round and its Dutch
 * pairing (src/arena/dutch.c).
 *
 * The input is given to arena_trf_read() as it is (not NUL-terminated). It
 * must return 0 or one of its documented codes, and never claim more
 * players or rounds than the caps. When it reads, for each round of the
 * file (and the round to pair):
 *  - arena_trf_round() returns 0, ARENA_EINVAL or ARENA_ERANGE;
 *  - when it returns 0, the TRF written back from that state reads again to
 *    the same players and games, and (fields of at most 24 players, to keep
 *    each input fast) arena_dutch_pair() returns a count or a documented
 *    code; a pairing pairs every active player once, never two who played
 *    each other, and gives the PAB to one who had neither a PAB nor a
 *    forfeit win.
 */
#include "arena/arena.h"
#include "fuzz.h"

const char fuzz_target_name[] = "trf";

enum { CAPP = 64, CAPR = 20, PAIR_MAX = 24 };

static struct arena_player players[CAPP], players2[CAPP];
static struct arena_game games[CAPP * CAPR], games2[CAPP * CAPR];
static char names[CAPP][ARENA_TRF_NAME], names2[CAPP][ARENA_TRF_NAME];
static char text[CAPP * (100 + 10 * CAPR) + 4096];

/* Did a and b play each other over the board before round `upto`? */
static int met(const struct arena_swiss *t, int a, int b, int upto)
{
	for (int r = 0; r < upto; r++) {
		const struct arena_game *g = &t->players[a].games[r];
		if (g->opp == b && strchr("1=0WDL", g->result))
			return 1;
	}
	return 0;
}

static void check_pairing(const struct arena_swiss *t)
{
	struct arena_pair out[PAIR_MAX / 2 + 1];
	int k = arena_dutch_pair(t, out, PAIR_MAX / 2 + 1);
	if (k < 0) {
		FUZZ_CHECK(k == ARENA_ENOPAIRING || k == ARENA_EINVAL || k == ARENA_ERANGE);
		return;
	}
	int seen[CAPP] = {0}, byes = 0;
	for (int i = 0; i < k; i++) {
		int w = out[i].white, b = out[i].black;
		FUZZ_CHECK(w >= 0 && w < t->n && t->players[w].active && !seen[w]);
		seen[w] = 1;
		if (b < 0) {
			byes++;
			for (int r = 0; r < t->played; r++) {
				char c = t->players[w].games[r].result;
				FUZZ_CHECK(c != 'U' && !(c == '+' && t->players[w].games[r].opp >= 0));
			}
			continue;
		}
		FUZZ_CHECK(b < t->n && t->players[b].active && !seen[b]);
		seen[b] = 1;
		FUZZ_CHECK(!met(t, w, b, t->played));
	}
	FUZZ_CHECK(byes <= 1);
	for (int p = 0; p < t->n; p++)
		FUZZ_CHECK(seen[p] == (t->players[p].active != 0));
}

/* The state written as TRF reads back the same. */
static void check_round_trip(const struct arena_swiss *t)
{
	int len = arena_trf_write(t, NULL, text, sizeof text);
	FUZZ_CHECK(len > 0);
	struct arena_trf_doc doc = {players2, games2, names2, CAPP, CAPR, 0, 0, 0, 0, 0};
	FUZZ_CHECK(arena_trf_read(text, (size_t)len, &doc) == 0);
	FUZZ_CHECK(doc.n == t->n);
	FUZZ_CHECK(doc.played <= t->played);
	FUZZ_CHECK(doc.planned == (t->rounds > 0 ? t->rounds : 0));
	FUZZ_CHECK(doc.first_color == t->first_color);
	for (int p = 0; p < t->n; p++) {
		FUZZ_CHECK(players2[p].rating == (t->players[p].rating <= 9999 ? t->players[p].rating : 0));
		for (int r = 0; r < t->played; r++) {
			const struct arena_game *a = &t->players[p].games[r], *b = &players2[p].games[r];
			FUZZ_CHECK(a->opp == b->opp && a->result == b->result);
			if (a->opp >= 0 && (a->color == 'w' || a->color == 'b'))
				FUZZ_CHECK(a->color == b->color);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena_trf_doc doc = {players, games, names, CAPP, CAPR, 0, 0, 0, 0, 0};
	int err = arena_trf_read((const char *)data, size, &doc);
	if (err < 0) {
		FUZZ_CHECK(err == ARENA_EINVAL || err == ARENA_ENOSPACE || err == ARENA_ERANGE);
		return 0;
	}
	FUZZ_CHECK(err == 0);
	FUZZ_CHECK(doc.n <= CAPP && doc.rounds <= CAPR && doc.played <= doc.rounds);
	for (int r = 0; r <= doc.played; r++) {
		struct arena_swiss t;
		err = arena_trf_round(&doc, r, &t);
		if (err < 0) {
			FUZZ_CHECK(err == ARENA_EINVAL || err == ARENA_ERANGE);
			continue;
		}
		FUZZ_CHECK(t.played == r && t.n == doc.n);
		check_round_trip(&t);
		if (t.n <= PAIR_MAX)
			check_pairing(&t);
	}
	return 0;
}
