/*
 * cmd_load.c - `bitarena load`: a benchmark and correctness checker for a
 * bitarenad on this machine, thousands of connections on one libuv loop
 * (uvline.h).
 *
 * Connections, by role:
 *  - players: --games N slots of two guests each. A slot's first game comes
 *    from a seek and its accept; every later one from `rematch` (so the
 *    seek announcements, sent to every logged-in user, are paid once), or
 *    from a new seek when the server has forgotten the finished game (it
 *    keeps the 64 most recent: many games at once outrun that).
 *    Moves are random, from the "legal" list of each state that asks the
 *    player's seat to act (Xmas Rush: the seat's actions of the turn).
 *  - spectators: --spectators M per slot; not logged in; they `watch` each
 *    new game of their slot. A slot's next move waits until all of them
 *    have its last state, so one move at a time fans out to M spectators.
 *  - idle: --idle K connections that read the welcome and then do nothing;
 *    the server's RSS before and after them gives its memory per idle
 *    connection.
 *  - pingers: --pingers P connections sending `ping` every --ping-ms and
 *    timing each `pong`.
 *
 * Measured from `go` (every slot has started its first game and every
 * connection has its welcome) until --duration passes or every slot has
 * played --rounds games: moves/s, move->state latency (from sending `move`
 * to the mover receiving the state it caused), fan-out time (from sending
 * the move to the last spectator reading that state), ping->pong time,
 * connect->welcome time, and the server's RSS and CPU time (from /proc; its
 * pid is --server-pid or the owner of the listening port).
 *
 * Paced by the server: a command refused with RATE_LIMITED (the server's
 * command budget, PROTOCOL.md section 13) is sent again once its
 * retry_after_ms has passed, whatever it was (a login, a seek, an accept, a
 * rematch, a move, a watch, a ping), as `bitarena bot` does; the report says
 * how many were refused and how long they waited.
 *
 * Checked all along; any violation stops the run with exit status 1: every
 * move gets its `ok` (with the move's text) before the state it causes,
 * every player and spectator receives every state of its game in seq
 * order, and no connection is lost. --ack-log writes each acknowledged move
 * (loadcheck.h); --verify checks such a log against the server's records.
 *
 * --ws ROLES puts the connections of those roles (players, spectators, idle,
 * pingers, or all) on bitarenad's WebSocket endpoint /ws instead of TCP
 * (uvline.h: libwebsockets on the same loop; the port from --http-port-file
 * or --http-port, the host that of --server): the same commands, one line per
 * message, the same checks and figures.
 *
 * Bounded: loopback servers only, at most LOAD_MAX_CONNS connections, a
 * total time limit (--timeout).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "core/rng.h"
#include "load/loadcheck.h"
#include "load/loadstat.h"
#include "load/uvline.h"

#define LOAD_MAX_CONNS   60000
#define LOAD_WINDOW      64    /* connects in flight */
#define LOAD_DRAIN_MS    10000 /* after the end: waiting for outstanding states */
#define LOAD_QUIT_MS     5000  /* waiting for the server to close after `quit` */
#define LOAD_MAX_REPORTS 10    /* violations printed */

enum role { ROLE_PLAYER, ROLE_SPECTATOR, ROLE_IDLE, ROLE_PINGER };
static const char *const role_names[] = {"players", "spectators", "idle", "pingers"};

struct load;

struct lconn {
	struct uvl_conn u; /* first: uvline hands this back */
	struct load *l;
	enum role role;
	int slot, idx; /* the slot of a player or spectator; its index in its role */
	bool welcomed, quitting, closed;
	struct lk_stream stream; /* the states it received */
	/* players */
	char name[PROTO_NAME_MAX + 1];
	int name_try;
	bool logged_in;
	long long game;
	int seat;
	bool want_move, queued; /* a move chosen and not sent yet; waiting for a rate token */
	long long want_seq;     /* the seq of the state it answers */
	int want_ply;           /* the ply the move will be */
	char move[GAME_MOVE_TEXT];
	bool awaiting_ok, awaiting_state;
	int64_t sent_ns;
	long long sent_seq;
	int sent_ply;
	int64_t retry_at; /* --keep-going: resend the refused move then (0: none) */
	int64_t now_ns;   /* when the line being handled was read */
	/* pingers */
	int64_t ping_ns; /* when the outstanding ping went (0: none) */
	/* commands refused with RATE_LIMITED (enum pace), sent again at paced_at */
	unsigned paced;
	int64_t paced_at;
	struct lconn *pace_next; /* l->paced, while paced != 0 */
};

/* What a connection sends again once the server's wait is over (a bit each). */
enum pace {
	PACE_SET = 1,
	PACE_LOGIN = 2,
	PACE_SEEK = 4,
	PACE_ACCEPT = 8,
	PACE_REMATCH = 16,
	PACE_MOVE = 32,
	PACE_WATCH = 64,
	PACE_PING = 128
};
static const char *const pace_verbs[] = {"set",     "login", "seek",  "accept",
                                         "rematch", "move",  "watch", "ping"};

struct slot {
	struct lconn *p[2]; /* [0] seeks, [1] accepts; seats come from game_start */
	struct lconn *spec; /* the slot's spectators */
	long long seek_id;
	bool accept_sent, started, done, again;
	long long game, ended;  /* the current game; the last one that ended */
	long long reseek_after; /* the ended game after which a new seek went */
	long long prev_game, prev_final_seq;
	long long seq; /* the newest seq of the current game anyone received */
	int synced;    /* spectators whose last state is seq */
	bool over;
	int rounds;                  /* games finished */
	long long fan_game, fan_seq; /* the state a move in flight will make (0: none) */
	int64_t fan_sent_ns;         /* when that move went */
	int64_t fan_last_ns;         /* when the latest spectator read it */
	int fan_got;                 /* spectators that read it */
};

struct load {
	const char *prog;
	/* options */
	const char *server, *kind_arg, *ack_path;
	const char *seat2, *watch_at; /* --seat2, --watch-at: other nodes of a cluster */
	char kind[32];
	const struct game_ops *ops;
	int games, spectators, idle, pingers, ping_ms, rounds;
	double duration_s, rate;
	long long timeout_s;
	pid_t server_pid;
	unsigned ws_roles; /* 1 << role: over WebSocket */
	const char *http_port_file;
	int http_port;
	bool json, keep_going, legacy;
	int legacy_pairs, legacy_games;
	/* connections */
	uv_loop_t loop;
	struct uvl_pool pool, wspool; /* TCP; WebSocket (--ws) */
	struct uvl_pool pool2, pool3; /* TCP to --seat2 (accepting seats), --watch-at (spectators) */
	struct lconn *conns;          /* players, spectators, idle, pingers in that order */
	int nconns, nplayers, nspec;
	struct slot *slots;
	struct lconn **rateq; /* players waiting for a rate token (ring) */
	int rq_head, rq_len;
	struct lconn *paced; /* connections waiting out a RATE_LIMITED */
	uv_timer_t tick, dur, deadline, flush, wait, pingt, pacet;
	bool tick_on;
	double tokens;
	int64_t last_tick_ns;
	struct rng rng;
	char prefix[8];
	FILE *ack;
	/* progress */
	int welcomed, idle_welcomed, started, slots_done, closed;
	bool go, stopping, finishing, failed;
	int64_t t0, t1;
	struct ls_proc proc_start, proc_idle, proc_go, proc_end;
	bool have_start, have_idle, have_go, have_end;
	struct rusage ru0, ru1;
	/* figures */
	long long moves_window, acked, refused, games_done, states_spec;
	long long reseeks; /* new games sought because a rematch was refused */
	long long violations;
	long long rate_limited, waited_ms, waited_max_ms; /* the server's pacing */
	struct ls_samples lat, fan, ping, greet;
};

/* ---- failing ------------------------------------------------------------------------ */

/* The measured window ends now: its time, the server's and our own CPU. */
static void mark_end(struct load *l)
{
	if (l->stopping)
		return;
	l->stopping = true;
	l->t1 = uvl_now_ns();
	l->have_end = l->server_pid > 0 && ls_proc_read(l->server_pid, &l->proc_end);
	getrusage(RUSAGE_SELF, &l->ru1);
}

static void finish(struct load *l);
static void close_all(struct load *l);
static void close_timers(struct load *l);
static void drop_unstarted(struct load *l);

/* A violation of what the server promises: reported, and the run stops with status 1. */
__attribute__((format(printf, 2, 3))) static void violation(struct load *l, const char *fmt, ...)
{
	if (l->violations++ < LOAD_MAX_REPORTS) {
		va_list ap;
		va_start(ap, fmt);
		fprintf(stderr, "%s: FAILED: ", l->prog);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		va_end(ap);
	}
	if (!l->failed) {
		l->failed = true;
		mark_end(l);
		close_all(l);
	}
}

static const char *who(const struct lconn *c)
{
	static char buf[64];
	switch (c->role) {
	case ROLE_PLAYER:
		return c->name;
	case ROLE_SPECTATOR:
		snprintf(buf, sizeof buf, "spectator %d of slot %d", c->idx, c->slot);
		return buf;
	case ROLE_IDLE:
		snprintf(buf, sizeof buf, "idle connection %d", c->idx);
		return buf;
	case ROLE_PINGER:
		snprintf(buf, sizeof buf, "pinger %d", c->idx);
		return buf;
	}
	return "?";
}

static void send_line(struct lconn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void send_line(struct lconn *c, const char *fmt, ...)
{
	char line[GAME_MOVE_TEXT + 128];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof line - 1)
		return;
	line[n++] = '\n';
	int r = uvl_send(&c->u, line, (size_t)n);
	if (r < 0 && !c->l->failed)
		violation(c->l, "%s: cannot send: %s", who(c), uv_strerror(r));
}

/* ---- moves ------------------------------------------------------------------------- */

static bool in_window(const struct load *l, int64_t sent_ns)
{
	return l->go && sent_ns >= l->t0 && (!l->stopping || sent_ns < l->t1);
}

/* Picks c's move for a state in which its seat is to act; false if there is none. */
static bool choose(struct load *l, struct lconn *c, const cJSON *state)
{
	const cJSON *legal = cJSON_GetObjectItemCaseSensitive(state, "legal");
	int n = cJSON_GetArraySize(legal);
	if (n <= 0)
		return false;
	const cJSON *mv = cJSON_GetArrayItem(legal, (int)rng_below(&l->rng, (uint32_t)n));
	if (!cJSON_IsString(mv) || strlen(mv->valuestring) >= sizeof c->move)
		return false;
	strcpy(c->move, mv->valuestring);
	return true;
}

static void send_move(struct load *l, struct lconn *c)
{
	struct slot *s = &l->slots[c->slot];
	int64_t now = uvl_now_ns();
	c->want_move = false;
	c->awaiting_ok = c->awaiting_state = true;
	c->sent_ns = now;
	c->sent_seq = c->want_seq;
	c->sent_ply = c->want_ply;
	if (l->spectators > 0) { /* the latest mover of a turn starts the fan-out clock */
		s->fan_game = c->game;
		s->fan_seq = c->want_seq + 1;
		s->fan_sent_ns = now;
		s->fan_got = 0;
		s->fan_last_ns = 0;
	}
	send_line(c, "move %lld %s", c->game, c->move);
}

static void start_tick(struct load *l);

/* Sends c's chosen move if the run, the slot's spectators and the rate allow it now. */
static void try_move(struct load *l, struct lconn *c)
{
	if (!c->want_move || c->queued || !l->go || l->stopping || c->retry_at)
		return;
	if (l->slots[c->slot].synced < l->spectators)
		return;
	if (l->rate > 0) {
		if (l->tokens < 1) {
			c->queued = true;
			l->rateq[(l->rq_head + l->rq_len++) % l->nplayers] = c;
			start_tick(l);
			return;
		}
		l->tokens -= 1;
	}
	send_move(l, c);
}

static void try_slot(struct load *l, struct slot *s)
{
	try_move(l, s->p[0]);
	try_move(l, s->p[1]);
}

static void tick_cb(uv_timer_t *t)
{
	struct load *l = t->data;
	int64_t now = uvl_now_ns();
	if (l->rate > 0) {
		double burst = l->rate / 100 > 1 ? l->rate / 100 : 1; /* 10 ms worth */
		l->tokens += l->rate * (double)(now - l->last_tick_ns) / 1e9;
		if (l->tokens > burst)
			l->tokens = burst;
	}
	l->last_tick_ns = now;
	while (l->rq_len > 0 && l->tokens >= 1 && !l->stopping) {
		struct lconn *c = l->rateq[l->rq_head];
		l->rq_head = (l->rq_head + 1) % l->nplayers;
		l->rq_len--;
		c->queued = false;
		if (!c->want_move || l->slots[c->slot].synced < l->spectators)
			continue;
		l->tokens -= 1;
		send_move(l, c);
	}
	bool retries = false;
	for (int i = 0; i < l->nplayers && l->keep_going; i++) {
		struct lconn *c = &l->conns[i];
		if (c->retry_at && now >= c->retry_at) {
			c->retry_at = 0;
			c->want_move = true;
			try_move(l, c);
		}
		retries |= c->retry_at != 0;
	}
	if (l->rate <= 0 && !retries) {
		uv_timer_stop(t);
		l->tick_on = false;
	}
}

static void start_tick(struct load *l)
{
	if (l->tick_on || l->finishing)
		return;
	l->tick_on = true;
	l->last_tick_ns = uvl_now_ns();
	uv_timer_start(&l->tick, tick_cb, 1, 1);
}

/* ---- slots -------------------------------------------------------------------------- */

/* Someone received state seq of game: a newer one of the slot's game resets the count. */
static void slot_raise(struct load *l, struct slot *s, long long game, long long seq)
{
	if (game != s->game || seq <= s->seq)
		return;
	s->seq = seq;
	s->synced = 0;
	for (int i = 0; i < l->spectators; i++)
		if (s->spec[i].stream.game == s->game && s->spec[i].stream.last_seq == seq)
			s->synced++;
}

static void slot_new_game(struct load *l, struct slot *s, long long game)
{
	s->prev_game = s->game;
	s->prev_final_seq = s->seq;
	s->game = game;
	s->seq = 0;
	s->synced = 0;
	s->over = false;
	for (int i = 0; i < l->spectators; i++)
		if (s->spec[i].welcomed)
			send_line(&s->spec[i], "watch %lld", game);
	if (!s->started) {
		s->started = true;
		l->started++;
	}
}

static void try_accept(struct load *l, struct slot *s)
{
	struct lconn *a = s->p[1];
	if (s->seek_id > 0 && a->logged_in && !s->accept_sent) {
		s->accept_sent = true;
		send_line(a, "accept %lld", s->seek_id);
	}
}

/* ---- the run's phases ----------------------------------------------------------------- */

static void begin_stop(struct load *l);

static void dur_cb(uv_timer_t *t)
{
	begin_stop(t->data);
}

static void deadline_cb(uv_timer_t *t)
{
	struct load *l = t->data;
	if (l->finishing) { /* the server did not close after quit: close ourselves */
		close_all(l);
		return;
	}
	violation(l, "the time limit (--timeout %lld s) passed before the run ended", l->timeout_s);
}

static void flush_cb(uv_timer_t *t)
{
	struct load *l = t->data;
	if (l->ack)
		fflush(l->ack);
}

static void maybe_go(struct load *l)
{
	int want = l->nconns - l->idle;
	if (l->go || l->failed || l->started < l->games || l->welcomed < want ||
	    l->idle_welcomed < l->idle)
		return;
	l->go = true;
	l->t0 = uvl_now_ns();
	l->have_go = l->server_pid > 0 && ls_proc_read(l->server_pid, &l->proc_go);
	getrusage(RUSAGE_SELF, &l->ru0);
	if (l->rate > 0) {
		l->tokens = 1;
		start_tick(l);
	}
	if (l->duration_s > 0)
		uv_timer_start(&l->dur, dur_cb, (uint64_t)(l->duration_s * 1000), 0);
	else if (l->rounds == 0 || l->games == 0)
		begin_stop(l);
	for (int i = 0; i < l->nplayers && !l->stopping; i++)
		try_move(l, &l->conns[i]);
}

/* Everything the run sent has come back (or a violation ended it). */
static bool drained(const struct load *l)
{
	for (int i = 0; i < l->nplayers; i++)
		if (l->conns[i].awaiting_state || l->conns[i].awaiting_ok)
			return false;
	for (int i = 0; i < l->games; i++)
		if (l->slots[i].game > 0 && l->slots[i].synced < l->spectators)
			return false;
	return true;
}

static void wait_cb(uv_timer_t *t)
{
	struct load *l = t->data;
	int late = 0;
	for (int i = 0; i < l->nplayers; i++)
		late += l->conns[i].awaiting_state || l->conns[i].awaiting_ok;
	if (late > 0)
		violation(l, "%d moves got no ok or no state within %d s", late,
		          LOAD_DRAIN_MS / 1000);
	finish(l);
}

static void begin_stop(struct load *l)
{
	if (l->stopping)
		return;
	mark_end(l);
	uv_timer_stop(&l->dur);
	if (drained(l))
		finish(l);
	else
		uv_timer_start(&l->wait, wait_cb, LOAD_DRAIN_MS, 0);
}

/* Checks the spectators' streams are complete, ends the games, and quits every connection. */
static void finish(struct load *l)
{
	if (l->finishing)
		return;
	l->finishing = true;
	uv_timer_stop(&l->wait);
	uv_timer_stop(&l->tick);
	l->tick_on = false;
	for (int i = 0; i < l->games && !l->failed; i++) {
		struct slot *s = &l->slots[i];
		for (int k = 0; k < l->spectators && s->game > 0; k++) {
			const struct lk_stream *st = &s->spec[k].stream;
			if (st->game != s->game || st->last_seq != s->seq)
				violation(l,
				          "spectator %d of game %lld stopped at state %lld of game "
				          "%lld; the last state is %lld",
				          k, s->game, st->last_seq, st->game, s->seq);
		}
	}
	if (l->failed)
		return; /* close_all() has run */
	for (int i = 0; i < l->games; i++) {
		struct slot *s = &l->slots[i];
		if (s->game > 0 && !s->over && s->ended != s->game) /* leave no game held */
			send_line(s->p[0], "resign %lld", s->game);
	}
	drop_unstarted(l);
	for (int i = 0; i < l->nconns; i++) {
		struct lconn *c = &l->conns[i];
		c->quitting = true;
		if (c->closed || c->u.closing)
			continue;
		if (c->u.connected)
			send_line(c, "quit");
		else
			uvl_close(&c->u);
	}
	if (l->closed == l->nconns)
		close_timers(l);
	else
		uv_timer_start(&l->deadline, deadline_cb, LOAD_QUIT_MS, 0);
}

static void close_timers(struct load *l)
{
	uv_timer_t *ts[] = {&l->tick, &l->dur,   &l->deadline, &l->flush,
	                    &l->wait, &l->pingt, &l->pacet};
	for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
		if (!uv_is_closing((uv_handle_t *)ts[i]))
			uv_close((uv_handle_t *)ts[i], NULL);
	uvl_pool_close(&l->wspool); /* libwebsockets leaves the loop too */
}

/* Starts c's connection, on WebSocket or TCP by its role (and in a cluster, to its node). */
static void connect_one(struct load *l, struct lconn *c)
{
	struct uvl_pool *p = &l->pool;
	if (l->ws_roles & (1u << c->role))
		p = &l->wspool;
	else if (c->role == ROLE_PLAYER && c->idx % 2 == 1 && l->seat2 != NULL)
		p = &l->pool2;
	else if (c->role == ROLE_SPECTATOR && l->watch_at != NULL)
		p = &l->pool3;
	uvl_connect(p, &c->u);
}

/* Connections that never started to connect (queued or not yet asked) count as closed. */
static void drop_unstarted(struct load *l)
{
	struct uvl_pool *pools[4] = {&l->pool, &l->wspool, &l->pool2, &l->pool3};
	for (int k = 0; k < 4; k++) {
		for (struct uvl_conn *u = pools[k]->wait_head; u != NULL; u = u->wait_next)
			u->pool = NULL; /* no handle was made: as if it had never been queued */
		pools[k]->wait_head = pools[k]->wait_tail = NULL;
	}
	for (int i = 0; i < l->nconns; i++) {
		struct lconn *c = &l->conns[i];
		if (!c->closed && c->u.pool == NULL) {
			c->closed = true;
			l->closed++;
		}
	}
}

static void close_all(struct load *l)
{
	l->finishing = true;
	drop_unstarted(l);
	for (int i = 0; i < l->nconns; i++) {
		struct lconn *c = &l->conns[i];
		c->quitting = true;
		if (!c->closed && !c->u.closing)
			uvl_close(&c->u);
	}
	if (l->closed == l->nconns)
		close_timers(l);
}

/* ---- pacing: what the server refused with RATE_LIMITED, sent again when it says ------- */

static void pace_cb(uv_timer_t *t);

static void pace_arm(struct load *l)
{
	int64_t first = 0, now = uvl_now_ns();
	for (struct lconn *c = l->paced; c != NULL; c = c->pace_next)
		if (first == 0 || c->paced_at < first)
			first = c->paced_at;
	if (first == 0 || l->finishing)
		uv_timer_stop(&l->pacet);
	else
		uv_timer_start(&l->pacet, pace_cb,
		               first > now ? (uint64_t)(first - now) / 1000000 + 1 : 0, 0);
}

/*
 * m (an error to c) is a RATE_LIMITED: counted, and its command (cmd, or for a text one
 * the verb given) sent again after retry_after_ms (the server reads nothing more of c
 * until then: every command refused meanwhile goes at the same time). False for any other
 * error.
 */
static bool pace(struct load *l, struct lconn *c, const char *code, const char *cmd, long long ms)
{
	if (code == NULL || strcmp(code, "RATE_LIMITED") != 0)
		return false;
	l->rate_limited++;
	l->waited_ms += ms;
	if (ms > l->waited_max_ms)
		l->waited_max_ms = ms;
	for (size_t i = 0; cmd != NULL && i < sizeof pace_verbs / sizeof pace_verbs[0]; i++)
		if (strcmp(cmd, pace_verbs[i]) == 0)
			c->paced |= 1u << i;
	if (c->paced & PACE_MOVE) { /* nothing happened: the same move, then */
		c->awaiting_ok = c->awaiting_state = false;
		c->want_seq = c->sent_seq;
		c->want_ply = c->sent_ply;
	}
	int64_t at = uvl_now_ns() + ms * 1000000LL;
	if (at > c->paced_at)
		c->paced_at = at;
	bool listed = false;
	for (struct lconn *o = l->paced; o != NULL && !listed; o = o->pace_next)
		listed = o == c;
	if (!listed && c->paced != 0) {
		c->pace_next = l->paced;
		l->paced = c;
	}
	pace_arm(l);
	return true;
}

/* c's wait is over: what the server refused goes again. */
static void pace_resend(struct load *l, struct lconn *c)
{
	unsigned what = c->paced;
	struct slot *s =
	        c->role == ROLE_PLAYER || c->role == ROLE_SPECTATOR ? &l->slots[c->slot] : NULL;
	c->paced = 0;
	if (c->closed || c->quitting)
		return;
	if (what & PACE_SET)
		send_line(c, "set format json");
	if (what & PACE_LOGIN)
		send_line(c, "login %s", c->name);
	if ((what & PACE_SEEK) && s != NULL && !l->stopping) {
		s->seek_id = 0;
		s->accept_sent = false;
		send_line(c, "seek %s", l->kind_arg);
	}
	if ((what & PACE_ACCEPT) && s != NULL) {
		s->accept_sent = false;
		try_accept(l, s);
	}
	if ((what & PACE_REMATCH) && s != NULL && s->again && !l->stopping)
		send_line(c, "rematch %lld", s->ended);
	if ((what & PACE_WATCH) && s != NULL && s->game > 0)
		send_line(c, "watch %lld", s->game);
	if (what & PACE_PING)
		c->ping_ns = 0; /* the next round of pings asks again */
	if (what & PACE_MOVE) {
		c->want_move = true;
		try_move(l, c);
	}
}

static void pace_cb(uv_timer_t *t)
{
	struct load *l = t->data;
	int64_t now = uvl_now_ns();
	struct lconn **pp = &l->paced, *due = NULL;
	while (*pp != NULL) { /* the due ones out of the list first: resending may pace again */
		struct lconn *c = *pp;
		if (c->paced_at <= now) {
			*pp = c->pace_next;
			c->pace_next = due;
			due = c;
		} else {
			pp = &c->pace_next;
		}
	}
	while (due != NULL) {
		struct lconn *c = due;
		due = c->pace_next;
		c->pace_next = NULL;
		pace_resend(l, c);
	}
	pace_arm(l);
}

/* ---- messages ------------------------------------------------------------------------ */

static void player_login(struct load *l, struct lconn *c)
{
	char name[64]; /* at most 13 characters: slots < 100000, tries < 10 */
	if (c->name_try++ == 0)
		snprintf(name, sizeof name, "L%s-%d%c", l->prefix, c->slot, c->idx % 2 ? 'b' : 'a');
	else
		snprintf(name, sizeof name, "L%s-%d%c%d", l->prefix, c->slot,
		         c->idx % 2 ? 'b' : 'a', c->name_try);
	snprintf(c->name, sizeof c->name, "%.20s", name);
	send_line(c, "login %s", c->name);
}

static void on_welcomed(struct load *l, struct lconn *c)
{
	switch (c->role) {
	case ROLE_PLAYER:
		send_line(c, "set format json");
		player_login(l, c);
		break;
	case ROLE_SPECTATOR: {
		struct slot *s = &l->slots[c->slot];
		send_line(c, "set format json");
		if (s->game > 0)
			send_line(c, "watch %lld", s->game);
		break;
	}
	case ROLE_IDLE:
		if (++l->idle_welcomed == l->idle) {
			l->have_idle =
			        l->server_pid > 0 && ls_proc_read(l->server_pid, &l->proc_idle);
			for (int i = l->nplayers + l->nspec + l->idle; i < l->nconns; i++)
				connect_one(l, &l->conns[i]);
			for (int i = 0; i < l->nplayers + l->nspec; i++)
				connect_one(l, &l->conns[i]);
			maybe_go(l);
		}
		return;
	case ROLE_PINGER:
		break;
	}
	l->welcomed++;
	maybe_go(l);
}

static int on_move_ok(void *ud, const cJSON *m)
{
	struct lconn *c = ud;
	struct load *l = c->l;
	if (!c->awaiting_ok) {
		violation(l, "%s: an ok for a move it did not send", who(c));
		return 0;
	}
	c->awaiting_ok = false;
	l->acked++;
	if (l->ops->flags & GAME_SIMULTANEOUS) {
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "pending")))
			violation(l, "%s: the ok of action '%s' in game %lld is not pending",
			          who(c), c->move, c->game);
		return 0;
	}
	const char *text = cli_jstr(m, "move");
	if (text == NULL || strcmp(text, c->move) != 0 || cli_jint(m, "game", -1) != c->game) {
		violation(l, "%s: move %s in game %lld was acknowledged as %s in game %lld", who(c),
		          c->move, c->game, text ? text : "(none)", cli_jint(m, "game", -1));
		return 0;
	}
	if (l->ack)
		lk_ack_write(l->ack, c->game, c->sent_ply, text);
	return 0;
}

static int on_player_state(void *ud, const cJSON *m)
{
	struct lconn *c = ud;
	struct load *l = c->l;
	int64_t now = c->now_ns;
	struct slot *s = &l->slots[c->slot];
	long long game = cli_jint(m, "game", -1), seq = cli_jint(m, "seq", -1);
	if (game != c->game) {
		violation(l, "%s: a state of game %lld while it plays game %lld", who(c), game,
		          c->game);
		return 0;
	}
	long long last = c->stream.last_seq;
	enum lk_seq r = lk_stream_feed(&c->stream, game, seq);
	if (r < 0 || (r == LK_SEQ_FIRST && seq != 1)) {
		violation(l, "%s: game %lld: state %lld after %lld: %s", who(c), game, seq,
		          r == LK_SEQ_FIRST ? 0 : last,
		          r == LK_SEQ_FIRST ? "the first state is not 1" : lk_seq_str(r));
		return 0;
	}
	slot_raise(l, s, game, seq);
	if (c->awaiting_state && seq > c->sent_seq) {
		if (c->awaiting_ok) {
			violation(l, "%s: game %lld: the state after move %s came before its ok",
			          who(c), game, c->move);
			return 0;
		}
		c->awaiting_state = false;
		if (in_window(l, c->sent_ns)) {
			l->moves_window++;
			ls_add(&l->lat, now - c->sent_ns);
		}
	}
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "over"))) {
		s->over = true;
		return 0;
	}
	if (!cli_to_move_has(m, c->seat) || c->awaiting_state)
		return 0;
	if (!choose(l, c, m)) {
		violation(l,
		          "%s: game %lld, state %lld: its seat is to move but no move can be "
		          "chosen",
		          who(c), game, seq);
		return 0;
	}
	c->want_move = true;
	c->want_seq = seq;
	c->want_ply = (int)cli_jint(m, "ply", 0) + 1;
	try_move(l, c);
	return 0;
}

static int on_game_over(void *ud, const cJSON *m)
{
	struct lconn *c = ud;
	struct load *l = c->l;
	struct slot *s = &l->slots[c->slot];
	long long game = cli_jint(m, "game", -1);
	if (game != c->game)
		return 0;
	if (s->ended != game) { /* the first of the two players to hear it decides */
		s->ended = game;
		s->rounds++;
		l->games_done++;
		s->again = !l->stopping && (l->rounds == 0 || s->rounds < l->rounds);
		if (!s->again && !s->done) {
			s->done = true;
			if (++l->slots_done == l->games && l->rounds > 0)
				begin_stop(l);
		}
	}
	if (s->again)
		send_line(c, "rematch %lld", game);
	return 0;
}

static int on_player_error(void *ud, const cJSON *m)
{
	struct lconn *c = ud;
	struct load *l = c->l;
	const char *cmd = cli_jstr(m, "cmd"), *code = cli_jstr(m, "code");
	const char *msg = cli_jstr(m, "message");
	if (pace(l, c, code, cmd, cli_jint(m, "retry_after_ms", 100)))
		return 0;
	cmd = cmd ? cmd : "?";
	code = code ? code : "?";
	if (strcmp(cmd, "login") == 0 && strcmp(code, "NAME_TAKEN") == 0 && c->name_try < 5) {
		player_login(l, c);
		return 0;
	}
	if (strcmp(cmd, "rematch") == 0 &&
	    (strcmp(code, "NO_SUCH_GAME") == 0 || strcmp(code, "NOT_NOW") == 0)) {
		struct slot *s = &l->slots[c->slot];
		if (s->reseek_after != s->ended && s->again && !l->stopping) {
			s->reseek_after = s->ended; /* once, whichever player heard it first */
			s->seek_id = 0;
			s->accept_sent = false;
			l->reseeks++;
			send_line(s->p[0], "seek %s", l->kind_arg);
		}
		return 0;
	}
	if (strcmp(cmd, "move") == 0 && l->keep_going && c->awaiting_ok) {
		/* a refusal (a storage failure): nothing happened; try the same move again */
		l->refused++;
		c->awaiting_ok = c->awaiting_state = false;
		c->want_seq = c->sent_seq;
		c->want_ply = c->sent_ply;
		c->retry_at = uvl_now_ns() + 100 * 1000000LL;
		start_tick(l);
		return 0;
	}
	violation(l, "%s: server error %s on %s%s%s: %s", who(c), code, cmd,
	          strcmp(cmd, "move") == 0 ? " " : "", strcmp(cmd, "move") == 0 ? c->move : "",
	          msg ? msg : "");
	return 0;
}

static int on_login_ok(void *ud, const cJSON *m)
{
	struct lconn *c = ud;
	struct slot *s = &c->l->slots[c->slot];
	c->logged_in = true;
	if (c == s->p[0])
		send_line(c, "seek %s", c->l->kind_arg);
	else
		try_accept(c->l, s);
	return 0;
}

static int on_seek_ok(void *ud, const cJSON *m)
{
	struct lconn *c = ud;
	struct slot *s = &c->l->slots[c->slot];
	s->seek_id = cli_jint(cJSON_GetObjectItemCaseSensitive(m, "seek"), "id", 0);
	try_accept(c->l, s);
	return 0;
}

static int on_game_start(void *ud, const cJSON *m)
{
	struct lconn *c = ud;
	struct slot *s = &c->l->slots[c->slot];
	c->game = cli_jint(m, "game", -1);
	c->seat = (int)cli_jint(m, "seat", -1);
	c->want_move = c->awaiting_ok = c->awaiting_state = false;
	c->retry_at = 0;
	if (s->game != c->game)
		slot_new_game(c->l, s, c->game);
	maybe_go(c->l);
	return 0;
}

static int on_info(void *ud, const cJSON *m)
{
	struct lconn *c = ud;
	const char *ev = cli_jstr(m, "event");
	if (ev != NULL && strcmp(ev, "shutdown") == 0)
		violation(c->l, "%s: the server is shutting down", who(c));
	return 0;
}

/* What a player hears; everything else (seek announcements, offers, chat) it ignores. */
static const struct cli_route player_routes[] = {
        {"state", NULL, on_player_state},
        {"ok", "move", on_move_ok},
        {"ok", "login", on_login_ok},
        {"ok", "seek", on_seek_ok},
        {"game_start", NULL, on_game_start},
        {"game_over", NULL, on_game_over},
        {"error", NULL, on_player_error},
        {"info", NULL, on_info},
        {NULL, NULL, NULL},
};

static void on_player_line(struct load *l, struct lconn *c, char *line, size_t len, int64_t now)
{
	cJSON *m = cJSON_ParseWithLength(line, len);
	if (cli_jstr(m, "type") == NULL)
		violation(l, "%s: not a JSON message: %.80s", who(c), line);
	c->now_ns = now;
	if (!l->failed)
		cli_dispatch(player_routes, c, m);
	cJSON_Delete(m);
}

static void on_spectator_line(struct load *l, struct lconn *c, const char *line, size_t len,
                              int64_t now)
{
	struct lk_top t;
	if (lk_scan(line, len, &t) < 0) {
		violation(l, "%s: not a JSON message: %.80s", who(c), line);
		return;
	}
	if (strcmp(t.type, "error") == 0) {
		cJSON *e = cJSON_ParseWithLength(line, len);
		bool paced = pace(l, c, cli_jstr(e, "code"), cli_jstr(e, "cmd"),
		                  cli_jint(e, "retry_after_ms", 100));
		cJSON_Delete(e);
		if (!paced)
			violation(l, "%s: server error: %.200s", who(c), line);
		return;
	}
	if (strcmp(t.type, "state") != 0)
		return;
	struct slot *s = &l->slots[c->slot];
	/* the last states of the previous game may be read after its successor started */
	if (!t.has_game || !t.has_seq || (t.game != s->game && t.game != s->prev_game)) {
		violation(l, "%s: a state of game %lld while watching game %lld", who(c), t.game,
		          s->game);
		return;
	}
	struct lk_stream old = c->stream;
	enum lk_seq r = lk_stream_feed(&c->stream, t.game, t.seq);
	if (r == LK_SEQ_FIRST && old.game != 0 && old.game == s->prev_game &&
	    old.last_seq != s->prev_final_seq) {
		violation(l, "%s: game %lld ended at state %lld but it saw only up to %lld", who(c),
		          old.game, s->prev_final_seq, old.last_seq);
		return;
	}
	if (r < 0) {
		violation(l, "%s: game %lld: state %lld after %lld: %s", who(c), t.game, t.seq,
		          old.last_seq, lk_seq_str(r));
		return;
	}
	l->states_spec++;
	if (t.game == s->game && t.seq > s->seq)
		slot_raise(l, s, t.game, t.seq); /* counts this spectator */
	else if (t.game == s->game && t.seq == s->seq)
		s->synced++;
	if (t.game == s->fan_game && t.seq == s->fan_seq) {
		s->fan_got++;
		if (now > s->fan_last_ns)
			s->fan_last_ns = now;
		if (s->fan_got == l->spectators) {
			if (in_window(l, s->fan_sent_ns))
				ls_add(&l->fan, s->fan_last_ns - s->fan_sent_ns);
			s->fan_seq = 0;
		}
	}
	if (s->synced == l->spectators)
		try_slot(l, s);
}

static void on_line(struct uvl_conn *u, char *line, size_t len, int64_t now)
{
	struct lconn *c = (struct lconn *)u;
	struct load *l = c->l;
	if (l->failed)
		return;
	if (len == UVL_TOO_LONG) {
		violation(l, "%s: a line over %zu bytes", who(c), l->pool.max_line);
		return;
	}
	if (!c->welcomed) {
		if (strncmp(line, "bitarenad ", 10) != 0) {
			violation(l, "%s: the server's first line is not its welcome: %.80s",
			          who(c), line);
			return;
		}
		c->welcomed = true;
		ls_add(&l->greet, now - u->t_connect_ns);
		on_welcomed(l, c);
		return;
	}
	if (c->quitting)
		return;
	switch (c->role) {
	case ROLE_PLAYER:
		on_player_line(l, c, line, len, now);
		break;
	case ROLE_SPECTATOR:
		on_spectator_line(l, c, line, len, now);
		break;
	case ROLE_PINGER:
		if (strcmp(line, "pong") == 0 && c->ping_ns > 0) {
			if (l->go && !l->stopping)
				ls_add(&l->ping, now - c->ping_ns);
			c->ping_ns = 0;
		} else if (strncmp(line, "error", 5) == 0) {
			/* text mode: "error RATE_LIMITED: ...: retry after 50 ms" */
			const char *after = strstr(line, "retry after ");
			long long ms = after != NULL ? atoll(after + 12) : 100;
			if (!pace(l, c,
			          strncmp(line, "error RATE_LIMITED:", 19) == 0 ? "RATE_LIMITED"
			                                                        : NULL,
			          "ping", ms))
				violation(l, "%s: %.200s", who(c), line);
		}
		break;
	case ROLE_IDLE:
		break;
	}
	if (l->stopping && !l->finishing && !l->failed && drained(l))
		finish(l);
}

static void on_open(struct uvl_conn *u, int status)
{
	struct lconn *c = (struct lconn *)u;
	if (status < 0 && !c->l->failed)
		violation(c->l, "%s: cannot connect to %s%s: %s", who(c), c->l->server,
		          u->pool && u->pool->is_ws ? "'s WebSocket endpoint" : "",
		          uv_strerror(status));
}

static void on_close(struct uvl_conn *u, int status)
{
	struct lconn *c = (struct lconn *)u;
	struct load *l = c->l;
	c->closed = true;
	l->closed++;
	if (!c->quitting && !l->failed)
		violation(l, "%s lost the server: %s", who(c),
		          status == UV_EOF ? "it closed the connection" : uv_strerror(status));
	if (l->finishing && l->closed == l->nconns)
		close_timers(l);
}

static void ping_cb(uv_timer_t *t)
{
	struct load *l = t->data;
	if (l->stopping)
		return;
	for (int i = l->nconns - l->pingers; i < l->nconns; i++) {
		struct lconn *c = &l->conns[i];
		if (c->welcomed && c->ping_ns == 0 && !c->closed) {
			c->ping_ns = uvl_now_ns();
			send_line(c, "ping");
		}
	}
}

/* ---- the report ---------------------------------------------------------------------- */

static double secs(const struct load *l)
{
	return l->go && l->t1 > l->t0 ? (double)(l->t1 - l->t0) / 1e9 : 0;
}

static void summary_json(cJSON *o, const char *name, const struct ls_summary *s)
{
	cJSON *x = cJSON_AddObjectToObject(o, name);
	cJSON_AddNumberToObject(x, "n", (double)s->n);
	cJSON_AddNumberToObject(x, "p50", s->p50);
	cJSON_AddNumberToObject(x, "p90", s->p90);
	cJSON_AddNumberToObject(x, "p99", s->p99);
	cJSON_AddNumberToObject(x, "p99.9", s->p999);
	cJSON_AddNumberToObject(x, "max", s->max);
	cJSON_AddNumberToObject(x, "mean", s->mean);
}

static void summary_text(const char *what, const struct ls_summary *s)
{
	if (s->n == 0)
		return;
	printf("%s (ms): p50 %.3f p90 %.3f p99 %.3f p99.9 %.3f max %.3f (n=%zu)\n", what, s->p50,
	       s->p90, s->p99, s->p999, s->max, s->n);
}

static double tool_cpu(const struct load *l)
{
	const struct timeval *u0 = &l->ru0.ru_utime, *s0 = &l->ru0.ru_stime;
	const struct timeval *u1 = &l->ru1.ru_utime, *s1 = &l->ru1.ru_stime;
	return (double)(u1->tv_sec - u0->tv_sec + s1->tv_sec - s0->tv_sec) +
	       (double)(u1->tv_usec - u0->tv_usec + s1->tv_usec - s0->tv_usec) / 1e6;
}

static void report(struct load *l)
{
	struct ls_summary lat, fan, ping, greet;
	ls_summarize(&l->lat, &lat);
	ls_summarize(&l->fan, &fan);
	ls_summarize(&l->ping, &ping);
	ls_summarize(&l->greet, &greet);
	double t = secs(l), rate = t > 0 ? (double)l->moves_window / t : 0, la[3];
	ls_loadavg(la);
	double per_idle = l->have_start && l->have_idle && l->idle > 0
	                          ? (double)(l->proc_idle.rss_kib - l->proc_start.rss_kib) / l->idle
	                          : -1;
	double srv_cpu = l->have_go && l->have_end && t > 0
	                         ? (l->proc_end.cpu_s - l->proc_go.cpu_s) / t
	                         : -1;
	double own_cpu = l->go && t > 0.1 ? tool_cpu(l) / t : -1;
	if (l->json) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "kind", l->kind_arg);
		cJSON_AddNumberToObject(o, "games", l->games);
		cJSON_AddNumberToObject(o, "spectators", l->spectators);
		cJSON_AddNumberToObject(o, "idle", l->idle);
		cJSON_AddNumberToObject(o, "pingers", l->pingers);
		cJSON_AddNumberToObject(o, "connections", l->nconns);
		cJSON *ws = cJSON_AddArrayToObject(o, "websocket");
		for (int i = 0; i < 4; i++)
			if (l->ws_roles & (1u << i))
				cJSON_AddItemToArray(ws, cJSON_CreateString(role_names[i]));
		cJSON_AddNumberToObject(o, "seconds", t);
		cJSON_AddNumberToObject(o, "moves", (double)l->moves_window);
		cJSON_AddNumberToObject(o, "moves_per_s", rate);
		cJSON_AddNumberToObject(o, "games_finished", (double)l->games_done);
		cJSON_AddNumberToObject(o, "acknowledged", (double)l->acked);
		cJSON_AddNumberToObject(o, "refused", (double)l->refused);
		cJSON_AddNumberToObject(o, "new_seeks", (double)l->reseeks);
		cJSON_AddNumberToObject(o, "rate_limited", (double)l->rate_limited);
		cJSON_AddNumberToObject(o, "waited_ms", (double)l->waited_ms);
		cJSON_AddNumberToObject(o, "waited_max_ms", (double)l->waited_max_ms);
		cJSON_AddNumberToObject(o, "spectator_states", (double)l->states_spec);
		summary_json(o, "latency_ms", &lat);
		summary_json(o, "fanout_ms", &fan);
		summary_json(o, "ping_ms", &ping);
		summary_json(o, "connect_ms", &greet);
		cJSON *srv = cJSON_AddObjectToObject(o, "server");
		cJSON_AddNumberToObject(srv, "pid", l->server_pid);
		if (l->have_start)
			cJSON_AddNumberToObject(srv, "rss_kib_start",
			                        (double)l->proc_start.rss_kib);
		if (l->have_idle)
			cJSON_AddNumberToObject(srv, "rss_kib_idle", (double)l->proc_idle.rss_kib);
		if (l->have_end) {
			cJSON_AddNumberToObject(srv, "rss_kib_end", (double)l->proc_end.rss_kib);
			cJSON_AddNumberToObject(srv, "rss_kib_peak", (double)l->proc_end.hwm_kib);
		}
		if (per_idle >= 0)
			cJSON_AddNumberToObject(srv, "rss_kib_per_idle", per_idle);
		if (srv_cpu >= 0)
			cJSON_AddNumberToObject(srv, "cpu", srv_cpu);
		if (own_cpu >= 0)
			cJSON_AddNumberToObject(o, "tool_cpu", own_cpu);
		cJSON_AddItemToObject(o, "loadavg", cJSON_CreateDoubleArray(la, 3));
		cJSON_AddNumberToObject(o, "violations", (double)l->violations);
		cJSON_AddBoolToObject(o, "ok", !l->failed);
		char *s = cJSON_PrintUnformatted(o);
		if (s)
			printf("%s\n", s);
		free(s);
		cJSON_Delete(o);
		return;
	}
	if (l->legacy)
		printf("load: %d pairs x %d games of %s: %lld games, %lld moves in %.3f s: %.0f "
		       "moves/s, %.0f games/s\n",
		       l->legacy_pairs, l->legacy_games, l->kind_arg, l->games_done,
		       l->moves_window, t, rate, t > 0 ? (double)l->games_done / t : 0.0);
	else
		printf("load: %s, %d games x %d spectators, %d idle, %d pingers (%d connections): "
		       "%lld moves in %.3f s: %.0f moves/s, %lld games finished\n",
		       l->kind_arg, l->games, l->spectators, l->idle, l->pingers, l->nconns,
		       l->moves_window, t, rate, l->games_done);
	if (l->ws_roles) {
		printf("over WebSocket:");
		for (int i = 0; i < 4; i++)
			if (l->ws_roles & (1u << i))
				printf(" %s", role_names[i]);
		printf("\n");
	}
	summary_text("latency move->state", &lat);
	char what[96];
	snprintf(what, sizeof what, "fan-out move->last of %d spectators", l->spectators);
	summary_text(what, &fan);
	summary_text("ping->pong", &ping);
	summary_text("connect->welcome", &greet);
	if (l->server_pid > 0) {
		printf("server pid %ld: RSS", (long)l->server_pid);
		const char *sep = " ";
		if (l->have_start) {
			printf("%s%.1f MiB at the start", sep, l->proc_start.rss_kib / 1024.0);
			sep = ", ";
		}
		if (per_idle >= 0) {
			printf("%s%.1f MiB with %d idle connections (%.2f KiB each)", sep,
			       l->proc_idle.rss_kib / 1024.0, l->idle, per_idle);
			sep = ", ";
		}
		if (l->have_end)
			printf("%s%.1f MiB at the end (peak %.1f MiB)", sep,
			       l->proc_end.rss_kib / 1024.0, l->proc_end.hwm_kib / 1024.0);
		if (srv_cpu >= 0)
			printf("; CPU %.2f of a core", srv_cpu);
		printf("\n");
	}
	printf("paced by the server: %lld commands refused (RATE_LIMITED) and sent again, "
	       "%.3f s waited in all (the longest wait %lld ms)\n",
	       l->rate_limited, (double)l->waited_ms / 1000, l->waited_max_ms);
	printf("checks: %lld moves acknowledged, %lld refused, %lld spectator states in order; "
	       "%s\n",
	       l->acked, l->refused, l->states_spec, l->failed ? "FAILED" : "no violation");
	printf("load average %.2f %.2f %.2f", la[0], la[1], la[2]);
	if (own_cpu >= 0)
		printf("; load tool CPU %.2f of a core", own_cpu);
	printf("\n");
}

/* ---- set-up --------------------------------------------------------------------------- */

/* True when the connected peer is a loopback address (127/8, ::1, ::ffff:127/104). */
static bool addr_is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
		return (ntohl(a->sin_addr.s_addr) >> 24) == 127;
	}
	if (ss->ss_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
		return IN6_IS_ADDR_LOOPBACK(a) ||
		       (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return false;
}

/* Connects once (blocking) to find server's address; 0, or the exit status. */
static int probe_addr(struct load *l, const char *server, struct sockaddr_storage *ss)
{
	struct net_conn c;
	char err[256];
	if (net_connect(&c, server, 0, 10000, err, sizeof err) < 0) {
		fprintf(stderr, "%s: %s\n", l->prog, err);
		return 1;
	}
	socklen_t sl = sizeof *ss;
	int r = getpeername(c.fd, (struct sockaddr *)ss, &sl);
	net_close(&c);
	if (r < 0 || !addr_is_loopback(ss)) {
		fprintf(stderr, "%s: %s is not a loopback address; load runs only locally\n",
		        l->prog, server);
		return 2;
	}
	return 0;
}

/* probe_addr() of --server, and the server's pid for its figures. */
static int probe(struct load *l, struct sockaddr_storage *ss)
{
	int rc = probe_addr(l, l->server, ss);
	if (rc != 0)
		return rc;
	if (l->server_pid == 0) {
		int port = ntohs(ss->ss_family == AF_INET6 ? ((struct sockaddr_in6 *)ss)->sin6_port
		                                           : ((struct sockaddr_in *)ss)->sin_port);
		l->server_pid = ls_port_owner(port);
		if (l->server_pid == 0)
			fprintf(stderr,
			        "%s: no process found listening on port %d; no server "
			        "memory or CPU figures (give --server-pid)\n",
			        l->prog, port);
	}
	return 0;
}

/* Raises the descriptor limit to what n connections need; false (with a message) if it can't. */
static bool enough_fds(const struct load *l, int n)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)n + 64;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return true;
	if (rl.rlim_cur >= need)
		return true;
	rl.rlim_cur = rl.rlim_max < need ? rl.rlim_max : need;
	setrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur >= need)
		return true;
	fprintf(stderr,
	        "%s: %d connections need %lu file descriptors; the limit is %lu (ulimit -n)\n",
	        l->prog, n, (unsigned long)need, (unsigned long)rl.rlim_max);
	return false;
}

/* The WebSocket port: --http-port, or the number in --http-port-file; 0 when none. */
static int http_port(const struct load *l)
{
	if (l->http_port > 0)
		return l->http_port;
	FILE *f = l->http_port_file ? fopen(l->http_port_file, "r") : NULL;
	int port = 0;
	if (f != NULL && fscanf(f, "%d", &port) != 1)
		port = 0;
	if (f != NULL)
		fclose(f);
	return port > 0 && port <= 65535 ? port : 0;
}

/* Makes the WebSocket pool for the server at ss (its address, the HTTP port); 0 or 1. */
static int ws_start(struct load *l, const struct sockaddr_storage *ss)
{
	char host[INET6_ADDRSTRLEN], why[256];
	int port = http_port(l);
	const void *a = ss->ss_family == AF_INET6
	                        ? (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr
	                        : (const void *)&((const struct sockaddr_in *)ss)->sin_addr;
	if (port == 0) {
		fprintf(stderr,
		        "%s: --ws needs the server's HTTP port (--http-port-file or "
		        "--http-port)\n",
		        l->prog);
		return 2;
	}
	if (inet_ntop(ss->ss_family, a, host, sizeof host) == NULL ||
	    uvl_pool_ws(&l->wspool, host, port, l->nconns, why, sizeof why) != 0) {
		fprintf(stderr, "%s: WebSocket: %s\n", l->prog, why);
		return 1;
	}
	return 0;
}

/* "players,spectators" into *roles (1 << role each; "all": every role); false if bad. */
static bool roles_arg(const char *val, unsigned *roles)
{
	char buf[128];
	if (val == NULL || snprintf(buf, sizeof buf, "%s", val) >= (int)sizeof buf)
		return false;
	*roles = 0;
	for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		unsigned r = strcmp(w, "all") == 0 ? 0xf : 0;
		for (int i = 0; i < 4; i++)
			if (strcmp(w, role_names[i]) == 0)
				r = 1u << i;
		if (r == 0)
			return false;
		*roles |= r;
	}
	return *roles != 0;
}

static void timer_init(struct load *l, uv_timer_t *t)
{
	uv_timer_init(&l->loop, t);
	t->data = l;
}

static int run(struct load *l)
{
	struct sockaddr_storage ss;
	int rc = probe(l, &ss);
	if (rc != 0)
		return rc;
	l->nplayers = 2 * l->games;
	l->nspec = l->games * l->spectators;
	l->nconns = l->nplayers + l->nspec + l->idle + l->pingers;
	if (l->nconns > LOAD_MAX_CONNS) {
		fprintf(stderr, "%s: %d connections; at most %d\n", l->prog, l->nconns,
		        LOAD_MAX_CONNS);
		return 2;
	}
	if (!enough_fds(l, l->nconns))
		return 1;
	l->conns = calloc((size_t)l->nconns + 1, sizeof *l->conns);
	l->slots = calloc((size_t)l->games + 1, sizeof *l->slots);
	l->rateq = calloc((size_t)l->nplayers + 1, sizeof *l->rateq);
	if (l->conns == NULL || l->slots == NULL || l->rateq == NULL) {
		fprintf(stderr, "%s: out of memory\n", l->prog);
		return 1;
	}
	if (l->ack_path && (l->ack = fopen(l->ack_path, "w")) == NULL) {
		fprintf(stderr, "%s: cannot write %s: %s\n", l->prog, l->ack_path, strerror(errno));
		return 1;
	}
	for (int i = 0; i < l->nconns; i++) {
		struct lconn *c = &l->conns[i];
		c->l = l;
		if (i < l->nplayers) {
			c->role = ROLE_PLAYER;
			c->slot = i / 2;
			c->idx = i;
			l->slots[i / 2].p[i % 2] = c;
		} else if (i < l->nplayers + l->nspec) {
			int k = i - l->nplayers;
			c->role = ROLE_SPECTATOR;
			c->slot = k / l->spectators;
			c->idx = k % l->spectators;
			if (c->idx == 0)
				l->slots[c->slot].spec = c;
		} else if (i < l->nplayers + l->nspec + l->idle) {
			c->role = ROLE_IDLE;
			c->idx = i - l->nplayers - l->nspec;
		} else {
			c->role = ROLE_PINGER;
			c->idx = i - l->nplayers - l->nspec - l->idle;
		}
	}
	if (uv_loop_init(&l->loop) != 0) {
		fprintf(stderr, "%s: cannot start an event loop\n", l->prog);
		return 1;
	}
	struct sockaddr_storage ss2 = ss, ss3 = ss;
	if ((l->seat2 != NULL && (rc = probe_addr(l, l->seat2, &ss2)) != 0) ||
	    (l->watch_at != NULL && (rc = probe_addr(l, l->watch_at, &ss3)) != 0)) {
		uv_loop_close(&l->loop);
		return rc;
	}
	struct uvl_pool *pools[4] = {&l->pool, &l->wspool, &l->pool2, &l->pool3};
	const struct sockaddr_storage *addrs[4] = {&ss, &ss, &ss2, &ss3};
	for (int k = 0; k < 4; k++) {
		uvl_pool_init(pools[k], &l->loop, (const struct sockaddr *)addrs[k],
		              NET_DEFAULT_MAX_LINE, LOAD_WINDOW);
		pools[k]->on_open = on_open;
		pools[k]->on_line = on_line;
		pools[k]->on_close = on_close;
	}
	if (l->ws_roles && (rc = ws_start(l, &ss)) != 0) {
		uvl_pool_close(&l->wspool);
		uv_run(&l->loop, UV_RUN_DEFAULT); /* lets libwebsockets go */
		uvl_pool_free(&l->wspool);
		uv_loop_close(&l->loop);
		return rc;
	}
	timer_init(l, &l->tick);
	timer_init(l, &l->dur);
	timer_init(l, &l->deadline);
	timer_init(l, &l->flush);
	timer_init(l, &l->wait);
	timer_init(l, &l->pingt);
	timer_init(l, &l->pacet);
	uv_timer_start(&l->deadline, deadline_cb, (uint64_t)l->timeout_s * 1000, 0);
	if (l->ack)
		uv_timer_start(&l->flush, flush_cb, 100, 100);
	if (l->pingers > 0)
		uv_timer_start(&l->pingt, ping_cb, (uint64_t)l->ping_ms, (uint64_t)l->ping_ms);
	l->have_start = l->server_pid > 0 && ls_proc_read(l->server_pid, &l->proc_start);
	/* idle connections first, alone, so the RSS they add is theirs */
	for (int i = 0; i < l->idle; i++)
		connect_one(l, &l->conns[l->nplayers + l->nspec + i]);
	if (l->idle == 0) {
		for (int i = l->nplayers + l->nspec; i < l->nconns; i++)
			connect_one(l, &l->conns[i]);
		for (int i = 0; i < l->nplayers + l->nspec; i++)
			connect_one(l, &l->conns[i]);
	}
	maybe_go(l); /* nothing to connect at all */
	uv_run(&l->loop, UV_RUN_DEFAULT);
	mark_end(l); /* when the loop ran out before the end (it cannot; be safe) */
	uvl_pool_free(&l->wspool);
	uv_loop_close(&l->loop);
	if (l->ack && fclose(l->ack) != 0) {
		fprintf(stderr, "%s: cannot write %s\n", l->prog, l->ack_path);
		l->failed = true;
	}
	l->ack = NULL;
	report(l);
	return l->failed ? 1 : 0;
}

/* ---- arguments ------------------------------------------------------------------------- */

static bool num_arg(const char *val, long long lo, long long hi, long long *v)
{
	char *end;
	if (val == NULL || *val == '\0')
		return false;
	errno = 0;
	*v = strtoll(val, &end, 10);
	return *end == '\0' && errno == 0 && *v >= lo && *v <= hi;
}

static bool real_arg(const char *val, double lo, double hi, double *v)
{
	char *end;
	if (val == NULL || *val == '\0')
		return false;
	*v = strtod(val, &end);
	return *end == '\0' && *v >= lo && *v <= hi;
}

int cmd_load(int argc, char **argv)
{
	struct load l = {.prog = "bitarena load",
	                 .server = CLI_DEFAULT_SERVER,
	                 .kind_arg = "ttt",
	                 .games = 4,
	                 .ping_ms = 10,
	                 .timeout_s = 0};
	long long seed = (long long)time(NULL), v;
	const char *verify = NULL;
	bool games_given = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		bool ok = true;
		if (strcmp(a, "--json") == 0) {
			l.json = true;
			continue;
		}
		if (strcmp(a, "--keep-going") == 0) {
			l.keep_going = true;
			continue;
		}
		if (strcmp(a, "--server") == 0 && val)
			l.server = val;
		else if (strcmp(a, "--seat2") == 0 && val)
			l.seat2 = val;
		else if (strcmp(a, "--watch-at") == 0 && val)
			l.watch_at = val;
		else if (strcmp(a, "--kind") == 0 && val && strpbrk(val, "\r\n") == NULL)
			l.kind_arg = val;
		else if (strcmp(a, "--games") == 0 && (ok = num_arg(val, 0, 30000, &v))) {
			l.games = (int)v;
			l.legacy_games = (int)v;
			games_given = true;
		} else if (strcmp(a, "--pairs") == 0 && (ok = num_arg(val, 1, 30000, &v))) {
			l.legacy = true;
			l.legacy_pairs = (int)v;
		} else if (strcmp(a, "--spectators") == 0 && (ok = num_arg(val, 0, 50000, &v)))
			l.spectators = (int)v;
		else if (strcmp(a, "--idle") == 0 && (ok = num_arg(val, 0, 50000, &v)))
			l.idle = (int)v;
		else if (strcmp(a, "--pingers") == 0 && (ok = num_arg(val, 0, 50000, &v)))
			l.pingers = (int)v;
		else if (strcmp(a, "--ping-ms") == 0 && (ok = num_arg(val, 1, 60000, &v)))
			l.ping_ms = (int)v;
		else if (strcmp(a, "--rounds") == 0 && (ok = num_arg(val, 1, 1000000, &v)))
			l.rounds = (int)v;
		else if (strcmp(a, "--duration") == 0)
			ok = real_arg(val, 0, 86400, &l.duration_s);
		else if (strcmp(a, "--rate") == 0)
			ok = real_arg(val, 0, 1e7, &l.rate);
		else if (strcmp(a, "--timeout") == 0 && (ok = num_arg(val, 1, 86400, &v)))
			l.timeout_s = v;
		else if (strcmp(a, "--seed") == 0 && (ok = num_arg(val, LLONG_MIN, LLONG_MAX, &v)))
			seed = v;
		else if (strcmp(a, "--server-pid") == 0 && (ok = num_arg(val, 1, 1 << 30, &v)))
			l.server_pid = (pid_t)v;
		else if (strcmp(a, "--ack-log") == 0 && val)
			l.ack_path = val;
		else if (strcmp(a, "--ws") == 0 && !HAVE_WEBSOCKETS) {
			fprintf(stderr,
			        "%s: --ws: this bitarena was built without WebSocket support "
			        "(libwebsockets); rebuild with ./configure --with-websockets\n",
			        l.prog);
			return 2;
		} else if (strcmp(a, "--ws") == 0)
			ok = roles_arg(val, &l.ws_roles);
		else if (strcmp(a, "--http-port-file") == 0 && val)
			l.http_port_file = val;
		else if (strcmp(a, "--http-port") == 0 && (ok = num_arg(val, 1, 65535, &v)))
			l.http_port = (int)v;
		else if (strcmp(a, "--verify") == 0 && val)
			verify = val;
		else
			ok = false;
		if (!ok) {
			fprintf(stderr, "%s: bad argument '%s'%s%s\n", l.prog, a, val ? " " : "",
			        val ? val : "");
			return cli_usage("load");
		}
		i++;
	}
	if (verify != NULL)
		return lk_verify(l.prog, l.server, verify, stdout, stderr);
	if (l.legacy) { /* the old form: --pairs P [--games G] is P games at once, G each */
		l.rounds = games_given ? l.legacy_games : 100;
		l.legacy_games = l.rounds;
		l.games = l.legacy_pairs;
	}
	size_t klen = strcspn(l.kind_arg, " \t");
	snprintf(l.kind, sizeof l.kind, "%.*s", (int)klen, l.kind_arg);
	if ((l.ops = game_find(l.kind)) == NULL || klen >= sizeof l.kind) {
		fprintf(stderr, "%s: unknown game kind '%s'\n", l.prog, l.kind_arg);
		return 2;
	}
	if (l.ack_path && (l.ops->flags & GAME_SIMULTANEOUS)) {
		fprintf(stderr, "%s: --ack-log is for games of sequential moves, not %s\n", l.prog,
		        l.kind);
		return 2;
	}
	if (l.games == 0 && l.spectators > 0) {
		fprintf(stderr, "%s: --spectators needs --games\n", l.prog);
		return 2;
	}
	if (l.rounds == 0 && l.duration_s == 0 && l.games > 0)
		l.duration_s = 10;
	if (l.timeout_s == 0)
		l.timeout_s = l.rounds > 0 ? 600 : (long long)l.duration_s + 120;
	rng_seed(&l.rng, (uint64_t)seed);
	unsigned long tag = ((unsigned long)getpid() * 2654435761UL) ^ (unsigned long)time(NULL);
	for (int i = 0; i < 4; i++, tag /= 36)
		l.prefix[i] = "0123456789abcdefghijklmnopqrstuvwxyz"[tag % 36];
	signal(SIGPIPE, SIG_IGN); /* libuv writes with write(): a closed peer is EPIPE, not death */
	int rc = run(&l);
	if (l.ack)
		fclose(l.ack);
	free(l.conns);
	free(l.slots);
	free(l.rateq);
	ls_samples_free(&l.lat);
	ls_samples_free(&l.fan);
	ls_samples_free(&l.ping);
	ls_samples_free(&l.greet);
	return rc;
}
