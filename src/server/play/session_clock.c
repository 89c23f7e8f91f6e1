/*
 * session_clock.c - clocks and deadlines of a game (see session_clock.h): the
 * clocks as they stand, the earliest deadline (the flag of the seat to move,
 * a simultaneous turn's end, the end of an absent player's grace, a spectator
 * count held back) and the one
 * timer per game that fires at it. What happens then is session.c's, told
 * through sessions.on_deadline, after the I/O of the loop pass in which the
 * timer fired.
 *
 * Why not in the timer's callback: libuv runs due timers before it polls the
 * sockets, so under load an action that reached the server's socket just
 * before its deadline (a 50 ms Xmas Rush turn whose two actions are both in)
 * would lose to the deadline and both seats would time out. The timer only
 * marks the game due; a uv_check handle, which runs right after the poll,
 * resolves it once the input waiting in the sockets has been read (and
 * played). While games are due a uv_idle handle keeps that poll from blocking,
 * so a deadline is never late by more than one pass. on_deadline() looks at
 * the deadline afresh: one that an action moved since is only re-armed.
 */
#include "server/play/session_clock.h"
#include "server/play/session_internal.h"

uint64_t session_clock_now(const struct game *g)
{
	return uv_now(g->sess->loop);
}

int64_t session_clock_used(const struct game *g)
{
	if (g->turn_waits)
		return 0;
	return g->paused ? g->pause_used : (int64_t)(session_clock_now(g) - g->turn_started);
}

void session_clock_left(const struct game *g, int64_t out[GAME_MAX_PLAYERS])
{
	for (int i = 0; i < GAME_MAX_PLAYERS; i++)
		out[i] = g->left[i];
	if (!g->so.timed || g->over || session_simultaneous(g) || g->clock_held)
		return;
	int seat = game_seat_to_move(g->ops, g->st);
	if (seat >= 0) {
		out[seat] -= session_clock_used(g);
		if (out[seat] < 0)
			out[seat] = 0;
	}
}

int64_t session_clock_turn_limit(const struct game *g)
{
	return g->ply == 0 && g->so.first_turn_ms > 0 ? g->so.first_turn_ms : g->so.turn_ms;
}

enum deadline_kind session_clock_next_deadline(const struct game *g, uint64_t *when, int *seat)
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
		uint64_t d = g->turn_started + (uint64_t)session_clock_turn_limit(g);
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

/* Nothing: while it runs, the loop's poll does not block (see the top). */
static void spin_cb(uv_idle_t *h)
{
	(void)h;
}

/* After the poll: the games whose deadline fell due, in the order their timers fired. */
static void due_cb(uv_check_t *h)
{
	struct sessions *s = h->data;
	struct game *list = NULL;
	uv_idle_stop(&s->due_spin);
	uv_check_stop(&s->due_check);
	while (s->due != NULL) { /* reversed: s->due is newest first */
		struct game *g = s->due;
		s->due = g->due_next;
		g->due_next = list;
		list = g;
	}
	while (list != NULL) {
		struct game *g = list;
		list = g->due_next;
		g->due_next = NULL;
		g->due = false;
		/* a game freed meanwhile (pruned by another's end) is only closing: skip it */
		if (!g->freeing)
			s->on_deadline(g);
	}
}

static void timer_cb(uv_timer_t *t)
{
	struct game *g = t->data;
	struct sessions *s = g->sess;
	if (g->due || g->freeing || s->due_closed)
		return;
	g->due = true;
	g->due_next = s->due;
	s->due = g;
	uv_idle_start(&s->due_spin, spin_cb);
	uv_check_start(&s->due_check, due_cb);
}

void session_clock_sessions_init(struct sessions *s)
{
	uv_check_init(s->loop, &s->due_check);
	uv_idle_init(s->loop, &s->due_spin);
	s->due_check.data = s;
	s->due_spin.data = s;
}

void session_clock_sessions_close(struct sessions *s)
{
	if (s->due_closed)
		return;
	s->due_closed = true;
	for (struct game *g = s->due; g != NULL; g = g->due_next)
		g->due = false;
	s->due = NULL;
	uv_close((uv_handle_t *)&s->due_check, NULL);
	uv_close((uv_handle_t *)&s->due_spin, NULL);
}

void session_clock_init(struct game *g)
{
	uv_timer_init(g->sess->loop, &g->timer);
	g->timer.data = g;
}

void session_clock_arm(struct game *g)
{
	uint64_t when;
	int seat = -1;
	if (g->freeing)
		return;
	if (session_clock_next_deadline(g, &when, &seat) == DL_NONE) {
		uv_timer_stop(&g->timer);
		return;
	}
	uint64_t now = session_clock_now(g);
	uv_timer_start(&g->timer, timer_cb, when > now ? when - now : 0, 0);
}
