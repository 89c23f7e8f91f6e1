/*
 * check_xmas_bot.c - the Xmas Rush player (src/games/xmas_bot.c) against the
 * referee-exact engine (src/games/xmas.c): the contest input read back into
 * the view exactly, junk refused, every action it writes accepted by the
 * referee for the turn (each walk step open), a reachable quest item always
 * collected on a walk, every game won against random actions, and no push
 * repeated on a line that just collided.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "games/xmas/xmas.h"
#include "games/xmas/xmas_bot.h"
#include "check_main.h"

static const struct game_ops *X = &game_xmas;

static void view_of(const struct xmas_state *st, int seat, struct xmas_view *v)
{
	char in[XMAS_INPUT_MAX];
	ck_assert_int_gt(xmas_input(st, seat, in, sizeof in), 0);
	ck_assert_int_eq(xmas_view_parse(v, in), (int)strlen(in));
}

START_TEST(view_matches_the_state)
{
	for (int seed = 0; seed < 20; seed++) {
		struct xmas_state st;
		ck_assert_int_eq(xmas_start(&st, seed, 2 + seed % 2), 0);
		for (int seat = 0; seat < 2; seat++) {
			struct xmas_view v;
			view_of(&st, seat, &v);
			ck_assert_int_eq(v.turn_type, st.turn_type);
			ck_assert(memcmp(v.b.open, st.b.open, sizeof v.b.open) == 0);
			for (int k = 0; k < 2; k++) {
				const struct xmas_player *p = &st.pl[seat ^ k];
				ck_assert_int_eq(v.cell[k], p->cell);
				ck_assert_int_eq(v.b.hand[k], st.b.hand[seat ^ k]);
				ck_assert_int_eq(v.cards[k], p->ndeck + p->nvis);
				ck_assert_int_eq(v.nquest[k], p->nvis);
				for (int q = 0; q < p->nvis; q++)
					ck_assert_int_eq(v.quest[k][q], p->vis[q]);
			}
			ck_assert_int_eq(v.nitems, st.nitems);
			for (int i = 0; i < st.nitems; i++) {
				const struct xmas_item *a = &st.items[i], *b = &v.item[i];
				ck_assert_int_eq(b->name, a->name);
				ck_assert_int_eq(b->owner, a->owner == seat ? 0 : 1);
				if (a->loc < XMAS_CELLS)
					ck_assert_int_eq(b->loc, a->loc);
				else
					ck_assert_int_eq(b->loc,
					                 XMAS_LOC_HAND(a->loc == XMAS_LOC_HAND(seat)
					                                       ? 0
					                                       : 1));
			}
		}
	}
}
END_TEST

START_TEST(junk_is_refused)
{
	struct xmas_state st;
	struct xmas_view v;
	char in[XMAS_INPUT_MAX], bad[XMAS_INPUT_MAX];
	ck_assert_int_eq(xmas_start(&st, 5, 3), 0);
	int n = xmas_input(&st, 0, in, sizeof in);
	for (int cut = 0; cut < n - 1; cut += 7) { /* every truncation is refused */
		memcpy(bad, in, (size_t)cut);
		bad[cut] = '\0';
		ck_assert_int_eq(xmas_view_parse(&v, bad), -1);
	}
	const char *swaps[][2] = {{"0\n", "2\n"},      {"0110", "0120"}, {"ARROW", "ARROWS"},
	                          {"BOOK", "book"},    {" 0\n", " 3\n"}, {"12 0 0", "12 9 0"},
	                          {"\n24\n", "\n99\n"}};
	for (size_t i = 0; i < sizeof swaps / sizeof swaps[0]; i++) {
		snprintf(bad, sizeof bad, "%s", in);
		char *at = strstr(bad, swaps[i][0]);
		if (at == NULL)
			continue;
		size_t a = strlen(swaps[i][0]), b = strlen(swaps[i][1]);
		memmove(at + b, at + a, strlen(at + a) + 1);
		memcpy(at, swaps[i][1], b);
		ck_assert_msg(xmas_view_parse(&v, bad) == -1, "accepted %s -> %s", swaps[i][0],
		              swaps[i][1]);
	}
}
END_TEST

/* A random action for seat: any push, or a walk of up to four open steps. */
static game_move random_action(const struct xmas_state *st, int seat, struct rng *r)
{
	if (st->turn_type == XMAS_TURN_PUSH)
		return xmas_move_push((int)rng_below(r, 7), (int)rng_below(r, 4));
	game_move m[64];
	int n = xmas_moves_for(st, seat, m, 64);
	ck_assert_int_gt(n, 0);
	return m[rng_below(r, (uint32_t)n)];
}

/* Our bot's action for seat, parsed by the referee's own rules; walks checked step by step. */
static game_move bot_action(const struct xmas_state *st, int seat, struct xmas_bot_memory *mem,
                            uint64_t seed)
{
	struct xmas_view v;
	char line[XMAS_MAX_LINE + 1];
	game_move m;
	const char *why = NULL;
	view_of(st, seat, &v);
	ck_assert_int_gt(xmas_bot_play(&v, mem, seed, line, sizeof line), 0);
	ck_assert_msg(X->parse_move(st, seat, line, &m, &why) == 0, "'%s': %s", line,
	              why ? why : "?");
	if (xmas_move_kind(m) == XMAS_KIND_MOVE) {
		int c = st->pl[seat].cell;
		for (int i = 0; i < xmas_move_nsteps(m); i++) {
			ck_assert_msg(xmas_step_ok(&st->b, c, xmas_move_step(m, i)), "'%s'", line);
			c = xmas_step(c, xmas_move_step(m, i));
		}
	}
	return m;
}

/* True when one of seat's revealed quest items lies at most 20 steps away. */
static bool quest_in_reach(const struct xmas_state *st, int seat)
{
	game_move m[64];
	int n = xmas_moves_for(st, seat, m, 64);
	for (int i = 0; i < st->nitems; i++) {
		const struct xmas_item *it = &st->items[i];
		bool wanted = false;
		for (int q = 0; q < st->pl[seat].nvis; q++)
			wanted |= st->pl[seat].vis[q] == it->name;
		if (it->owner != seat || !wanted || it->loc >= XMAS_CELLS)
			continue;
		if (it->loc == st->pl[seat].cell)
			return true;
		for (int k = 1; k < n; k++) { /* the end cell of each shortest walk */
			int c = st->pl[seat].cell;
			for (int s = 0; s < xmas_move_nsteps(m[k]); s++)
				c = xmas_step(c, xmas_move_step(m[k], s));
			if (c == it->loc)
				return true;
		}
	}
	return false;
}

/* Plays a game: our bot in seat `ours`, the other seat ours too or random. */
static void play(int64_t seed, int pool, int ours, bool both, int *score_ours, int *score_other,
                 int *walks_checked)
{
	struct xmas_state st;
	struct xmas_bot_memory mem[2];
	struct rng r;
	memset(mem, 0, sizeof mem);
	rng_seed(&r, (uint64_t)seed);
	ck_assert_int_eq(xmas_start(&st, seed, pool), 0);
	while (!st.over) {
		game_move mv[2];
		enum game_act act[2] = {GAME_ACT_MOVE, GAME_ACT_MOVE};
		bool reach = st.turn_type == XMAS_TURN_MOVE && quest_in_reach(&st, ours);
		const int before = st.pl[ours].score;
		for (int s = 0; s < 2; s++)
			mv[s] = s == ours || both
			                ? bot_action(&st, s, &mem[s],
			                             (uint64_t)(seed * 1000 + st.turn * 2 + s))
			                : random_action(&st, s, &r);
		ck_assert_int_eq(X->resolve(&st, mv, act), 0);
		if (reach) {
			ck_assert_msg(st.pl[ours].score > before,
			              "seed %lld turn %d: a quest in reach "
			              "was not collected",
			              (long long)seed, st.turn);
			(*walks_checked)++;
		}
	}
	ck_assert_int_ne(st.reason, XMAS_END_INVALID);
	ck_assert_int_ne(st.reason, XMAS_END_TIMEOUT);
	*score_ours = st.pl[ours].score;
	*score_other = st.pl[!ours].score;
}

START_TEST(beats_random_every_game)
{
	int walks = 0;
	for (int g = 0; g < 12; g++) {
		int a, b;
		play(100 + g, 2 + g % 2, g & 1, false, &a, &b, &walks);
		ck_assert_msg(a > b, "game %d: %d to %d", g, a, b);
	}
	ck_assert_int_gt(walks, 50);
}
END_TEST

START_TEST(plays_itself_cleanly)
{
	int walks = 0;
	for (int g = 0; g < 6; g++) {
		int a, b;
		play(200 + g, 2 + g % 2, 0, true, &a, &b, &walks);
		ck_assert_int_ge(a + b, 1);
	}
}
END_TEST

/* After a push turn that changed nothing, the line just used is left alone. */
START_TEST(stale_line_avoided)
{
	struct xmas_state st;
	ck_assert_int_eq(xmas_start(&st, 3, 3), 0);
	struct xmas_view v;
	view_of(&st, 0, &v);
	struct xmas_bot_memory mem = {0};
	char line[XMAS_MAX_LINE + 1], again[XMAS_MAX_LINE + 1];
	ck_assert_int_gt(xmas_bot_play(&v, &mem, 1, line, sizeof line), 0);
	ck_assert_int_eq(mem.stale, 0);
	/* the same board again: the last push collided */
	ck_assert_int_gt(xmas_bot_play(&v, &mem, 1, again, sizeof again), 0);
	ck_assert_int_eq(mem.stale, 1);
	int l1, l2;
	char d1[8], d2[8];
	ck_assert_int_eq(sscanf(line, "PUSH %d %7s", &l1, d1), 2);
	ck_assert_int_eq(sscanf(again, "PUSH %d %7s", &l2, d2), 2);
	bool h1 = !strcmp(d1, "LEFT") || !strcmp(d1, "RIGHT");
	bool h2 = !strcmp(d2, "LEFT") || !strcmp(d2, "RIGHT");
	ck_assert_msg(l1 != l2 || h1 != h2, "%s then %s", line, again);
}
END_TEST

static Suite *xmas_bot_suite(void)
{
	Suite *s = suite_create("xmas_bot");
	TCase *tc = tcase_create("bot");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, view_matches_the_state);
	tcase_add_test(tc, junk_is_refused);
	tcase_add_test(tc, beats_random_every_game);
	tcase_add_test(tc, plays_itself_cleanly);
	tcase_add_test(tc, stale_line_avoided);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(xmas_bot_suite());
}
