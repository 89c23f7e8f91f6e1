/*
 * event.c - playing by oneself (event.h): joining a pool, the ladder or a tournament and
 * hearing their answers, the link to the server that comes back after a drop or a restart,
 * the game slots of one connection, and SIGINT/SIGTERM counted for a clean stop.
 */
#include "lib/event.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/client.h"

#define LINK_TIMEOUT_MS 10000 /* connecting and logging in, each time */
#define BACKOFF_MIN_MS  250
#define BACKOFF_MAX_MS  10000

/* ---- the event ---------------------------------------------------------------------- */

int cli_event_arg(struct cli_event *ev, const char *prog, const char *arg, const char *val)
{
	const char *const opts[] = {"--pool", "--ladder", "--concurrency", "--tourney"};
	int which = -1;
	for (int i = 0; i < 4; i++)
		if (strcmp(arg, opts[i]) == 0)
			which = i;
	if (which < 0)
		return 0;
	char *end = NULL;
	long long v = val != NULL ? strtoll(val, &end, 10) : 0;
	bool num = val != NULL && *val != '\0' && *end == '\0';
	switch (which) {
	case 0:
		ev->pool = val;
		break;
	case 1:
		ev->ladder = val;
		break;
	case 2:
		if (!num || v < 1 || v > CLI_GAMES_MAX)
			val = NULL;
		ev->concurrency = (int)v;
		break;
	default:
		if (!num || v < 1 || v > (1LL << 53))
			val = NULL;
		ev->tourney = v;
		break;
	}
	if (val == NULL || val[0] == '\0' || strpbrk(val, "\r\n") != NULL) {
		fprintf(stderr, "%s: %s wants %s\n", prog, arg,
		        which == 2   ? "a number of games from 1 to 16"
		        : which == 3 ? "a tournament's id"
		                     : "a value on one line");
		return -1;
	}
	return 2;
}

int cli_event_check(struct cli_event *ev, const char *prog)
{
	int n = (ev->pool != NULL) + (ev->ladder != NULL) + (ev->tourney != 0);
	if (n > 1) {
		fprintf(stderr, "%s: give one of --pool, --ladder and --tourney\n", prog);
		return -1;
	}
	if (ev->concurrency != 0 && ev->ladder == NULL) {
		fprintf(stderr, "%s: --concurrency goes with --ladder (pools and tournaments give one "
		                "game at a time)\n",
		        prog);
		return -1;
	}
	ev->kind = ev->pool ? CLI_EV_POOL
	           : ev->ladder ? CLI_EV_LADDER
	           : ev->tourney ? CLI_EV_TOURNEY
	                         : CLI_EV_NONE;
	return 0;
}

int cli_event_slots(const struct cli_event *ev)
{
	return ev->kind == CLI_EV_LADDER && ev->concurrency > 0 ? ev->concurrency : 1;
}

int cli_event_join(struct cli_event *ev, struct net_conn *c, int ngames)
{
	int r = 0;
	ev->waiting = false;
	if (ev->left)
		return 0;
	switch (ev->kind) {
	case CLI_EV_POOL:
		if (ngames > 0) /* joined again when it ends */
			return 0;
		r = net_sendf(c, "pool join %s", ev->pool);
		break;
	case CLI_EV_LADDER:
		r = net_sendf(c, "ladder join %s concurrency=%d", ev->ladder, cli_event_slots(ev));
		break;
	case CLI_EV_TOURNEY:
		if (ev->over)
			return 0;
		r = cli_tourney_join(c, ev->tourney);
		break;
	default:
		return 0;
	}
	ev->waiting = r == 0;
	return r;
}

int cli_event_game_changed(struct cli_event *ev, struct net_conn *c, int ngames)
{
	if (ev->kind != CLI_EV_POOL)
		return 0;
	if (ngames > 0) {
		ev->waiting = false; /* the pairing took us out of the pool */
		return 0;
	}
	return ev->waiting ? 0 : cli_event_join(ev, c, 0);
}

/* The code an error reply carries, or NULL for anything else. */
static const char *error_of(const cJSON *m, const char *verb)
{
	const char *type = cli_jstr(m, "type"), *cmd = cli_jstr(m, "cmd");
	if (type == NULL || strcmp(type, "error") != 0 || cmd == NULL || strcmp(cmd, verb) != 0)
		return NULL;
	return cli_jstr(m, "code") ? cli_jstr(m, "code") : "?";
}

int cli_event_message(struct cli_event *ev, const char *prog, const cJSON *m)
{
	static const char *const verbs[] = {NULL, "pool", "ladder", "tourney"};
	if (ev->kind == CLI_EV_TOURNEY && cli_tourney_over(m, ev->tourney))
		ev->over = true;
	if (ev->kind == CLI_EV_NONE)
		return 0;
	const char *code = error_of(m, verbs[ev->kind]);
	if (code == NULL && ev->kind == CLI_EV_TOURNEY)
		code = error_of(m, "set"); /* set tourneys on */
	if (code == NULL)
		return 0;
	const char *msg = cli_jstr(m, "message") ? cli_jstr(m, "message") : "";
	/* after a reconnect the server still knows us: on the pool (a drop it has not seen yet),
	   in the tournament (a ladder's join again is answered ok) */
	if (strcmp(code, "IN_POOL") == 0 || strcmp(code, "NOT_IN_POOL") == 0 ||
	    strcmp(code, "NOT_ON_LADDER") == 0 ||
	    (ev->kind == CLI_EV_TOURNEY && strstr(msg, "already") != NULL))
		return 0;
	if (ev->left) /* a leave refused: nothing to leave */
		return 0;
	fprintf(stderr, "%s: the server refused to let us join: %s: %s\n", prog, code, msg);
	return -1;
}

int cli_event_leave(struct cli_event *ev, struct net_conn *c)
{
	if (ev->left)
		return 0;
	ev->left = true;
	switch (ev->kind) {
	case CLI_EV_POOL:
		return ev->waiting ? net_send_line(c, "pool leave") : 0;
	case CLI_EV_LADDER:
		return net_send_line(c, "ladder leave");
	case CLI_EV_TOURNEY:
		return ev->over ? 0 : net_sendf(c, "tourney withdraw %lld", ev->tourney);
	default:
		return 0;
	}
}

/* ---- stopping ----------------------------------------------------------------------- */

static volatile sig_atomic_t stops;

static void on_stop_signal(int sig)
{
	(void)sig;
	stops = stops + 1;
}

void cli_stop_catch(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop_signal; /* no SA_RESTART: poll() returns at once with EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int cli_stop_count(void)
{
	return (int)stops;
}

/* ---- the link ----------------------------------------------------------------------- */

int cli_link_open(struct cli_link *l, const char *prog, const char *server, const char *want)
{
	memset(l, 0, sizeof *l);
	l->prog = prog;
	l->server = server;
	l->c.fd = -1;
	l->backoff_ms = BACKOFF_MIN_MS;
	int r = cli_session_open_token(&l->c, prog, server, want, l->name, sizeof l->name,
	                               l->token, sizeof l->token, LINK_TIMEOUT_MS);
	l->up = r == NET_OK;
	return r;
}

void cli_link_lost(struct cli_link *l, int r)
{
	if (!l->up)
		return;
	fprintf(stderr, "%s: lost the server: %s; connecting again\n", l->prog,
	        r == NET_ECLOSED ? "it closed the connection" : net_strerror(r));
	net_close(&l->c);
	l->up = false;
	l->backoff_ms = BACKOFF_MIN_MS;
	l->next_try = net_now_ms() + l->backoff_ms;
}

int cli_link_retry(struct cli_link *l)
{
	if (l->up)
		return 1;
	if (net_now_ms() < l->next_try)
		return 0;
	/* each try that fails says why (a server down for long: one line per BACKOFF_MAX_MS) */
	cJSON *ok = NULL;
	int r = cli_session_again(&l->c, l->prog, l->server, l->name, l->token, LINK_TIMEOUT_MS,
	                          &ok);
	if (r == NET_OK) {
		const cJSON *id;
		l->nresumed = 0;
		cJSON_ArrayForEach(id, cJSON_GetObjectItemCaseSensitive(ok, "resumed"))
		{
			if (cJSON_IsNumber(id) && l->nresumed < CLI_GAMES_MAX)
				l->resumed[l->nresumed++] = (long long)id->valuedouble;
		}
		cJSON_Delete(ok);
		l->up = true;
		l->reconnects++;
		fprintf(stderr, "%s: back on %s as %s\n", l->prog, l->server, l->name);
		return 1;
	}
	if (r > 0 && l->token[0] == '\0') /* an account whose password is refused */
		return -1;
	l->next_try = net_now_ms() + l->backoff_ms;
	l->backoff_ms = l->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : l->backoff_ms * 2;
	return 0;
}

int cli_link_sendf(struct cli_link *l, const char *fmt, ...)
{
	if (!l->up)
		return NET_ECLOSED;
	va_list ap;
	va_start(ap, fmt);
	int r = net_vsendf(&l->c, fmt, ap);
	va_end(ap);
	if (r < 0)
		fprintf(stderr, "%s: sending to the server: %s\n", l->prog, net_strerror(r));
	return r;
}

int cli_link_wait_ms(const struct cli_link *l)
{
	if (l->up)
		return 0;
	long long w = l->next_try - net_now_ms();
	return w > 0 ? (int)w : 0;
}

void cli_link_close(struct cli_link *l)
{
	net_close(&l->c);
	l->up = false;
}

/* ---- the games ------------------------------------------------------------------------ */

void cli_games_init(struct cli_games *g, int nslots)
{
	memset(g, 0, sizeof *g);
	g->nslots = nslots < 1 ? 1 : nslots > CLI_GAMES_MAX ? CLI_GAMES_MAX : nslots;
}

int cli_games_find(const struct cli_games *g, long long id)
{
	for (int i = 0; i < g->nslots; i++)
		if (id > 0 && g->id[i] == id)
			return i;
	return -1;
}

int cli_games_take(struct cli_games *g, long long id)
{
	int s = cli_games_find(g, id);
	if (s >= 0 || id <= 0)
		return s;
	for (int i = 0; i < g->nslots; i++)
		if (g->id[i] == 0) {
			g->id[i] = id;
			if (cli_games_on(g) > g->max_on)
				g->max_on = cli_games_on(g);
			return i;
		}
	return -1;
}

void cli_games_drop(struct cli_games *g, int slot)
{
	if (slot >= 0 && slot < g->nslots)
		g->id[slot] = 0;
}

int cli_games_on(const struct cli_games *g)
{
	int n = 0;
	for (int i = 0; i < g->nslots; i++)
		n += g->id[i] != 0;
	return n;
}

int cli_games_not_resumed(const struct cli_games *g, const struct cli_link *l)
{
	for (int i = 0; i < g->nslots; i++) {
		bool back = g->id[i] == 0;
		for (int j = 0; j < l->nresumed && !back; j++)
			back = l->resumed[j] == g->id[i];
		if (!back)
			return i;
	}
	return -1;
}
