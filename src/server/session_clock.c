/*
 * session_clock.c - clocks and deadlines of a game (see session.h): the
 * clocks as they stand, the earliest deadline (the flag of the seat to move,
 * a simultaneous turn's end, the end of an absent player's grace, a spectator
 * count held back) and the one
 * timer per game that fires at it. What happens then is session.c's, told
 * through sessions.on_deadline.
 */
#include "server/session.h"

uint64_t clock_now(const struct game *g)
{
	return uv_now(g->sess->loop);
}

int64_t clock_used(const struct game *g)
{
	if (g->turn_waits)
		return 0;
	return g->paused ? g->pause_used : (int64_t)(clock_now(g) - g->turn_started);
}

void clock_left(const struct game *g, int64_t out[GAME_MAX_PLAYERS])
{
	for (int i = 0; i < GAME_MAX_PLAYERS; i++)
		out[i] = g->left[i];
	if (!g->so.timed || g->over || session_simultaneous(g) || g->clock_held)
		return;
	int seat = game_seat_to_move(g->ops, g->st);
	if (seat >= 0) {
		out[seat] -= clock_used(g);
		if (out[seat] < 0)
			out[seat] = 0;
	}
}

int64_t clock_turn_limit(const struct game *g)
{
	return g->ply == 0 && g->so.first_turn_ms > 0 ? g->so.first_turn_ms : g->so.turn_ms;
}

enum deadline_kind clock_next_deadline(const struct game *g, uint64_t *when, int *seat)
{
	enum deadline_kind k = DL_NONE;
	uint64_t best = UINT64_MAX;
	if (g->nw_due) { /* a spectator count held back (session_watch.c), finished games too */
		best = g->nw_told_at + SESSION_WATCHERS_MS;
		k = DL_WATCHERS;
	}
	if (g->over) {
		*when = best;
		return k;
	}
	if (g->paused || g->turn_waits) {
		/* only a grace runs while the store fails or the turn is not told yet */
	} else if (session_simultaneous(g)) {
		uint64_t d = g->turn_started + (uint64_t)clock_turn_limit(g);
		if (d < best) {
			best = d;
			k = DL_TURN;
		}
	} else if (g->so.timed && !g->clock_held) {
		int s = game_seat_to_move(g->ops, g->st);
		uint64_t d = s >= 0 ? g->turn_started + (uint64_t)(g->left[s] > 0 ? g->left[s] : 0)
		                    : UINT64_MAX;
		if (d < best) {
			best = d;
			k = DL_FLAG;
			*seat = s;
		}
	}
	for (int i = 0; i < g->ops->nplayers; i++) {
		if (!g->pl[i].absent)
			continue;
		uint64_t d = g->pl[i].gone_at + (uint64_t)g->sess->grace_ms;
		if (d < best) {
			best = d;
			k = DL_GRACE;
			*seat = i;
		}
	}
	*when = best;
	return k;
}

static void timer_cb(uv_timer_t *t)
{
	struct game *g = t->data;
	g->sess->on_deadline(g);
}

void clock_init(struct game *g)
{
	uv_timer_init(g->sess->loop, &g->timer);
	g->timer.data = g;
}

void clock_arm(struct game *g)
{
	uint64_t when;
	int seat = -1;
	if (g->freeing)
		return;
	if (clock_next_deadline(g, &when, &seat) == DL_NONE) {
		uv_timer_stop(&g->timer);
		return;
	}
	uint64_t now = clock_now(g);
	uv_timer_start(&g->timer, timer_cb, when > now ? when - now : 0, 0);
}
