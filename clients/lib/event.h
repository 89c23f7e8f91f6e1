/*
 * event.h - what `bitarena bot`, `tei-bridge` and `cg-bridge` share to play by themselves,
 * for hours, without anyone seeking or accepting:
 *
 *  - an event to join (struct cli_event): a pool (--pool NAME, PROTOCOL.md §18: joined
 *    again after each game, since a pairing takes the player out of the pool), the ladder
 *    (--ladder "<kind opts>" [--concurrency N], §19: the server pairs its members by itself,
 *    up to N games of ours at once) or a tournament (--tourney ID, §15: one game at a time,
 *    the server refuses simultaneous games there), its replies and its end;
 *  - the link to the server (struct cli_link): the first login, and after the connection
 *    drops or the server restarts, connecting again with a back-off and logging in again as
 *    the same player (an account with BITARENA_PASSWORD, a guest with its token), so that
 *    the server gives the seats of the games in progress back (§6: `resumed`, game_start
 *    with "resumed":true, the state) and the event is joined again;
 *  - the games of one connection (struct cli_games): up to CLI_GAMES_MAX game ids, each in
 *    a slot whose per-game data (a search, an engine process) is the subcommand's, in its
 *    own array indexed by the slot;
 *  - a stop asked by SIGINT or SIGTERM (cli_stop_catch): the first one leaves the event
 *    (pool leave, ladder leave, tourney withdraw) and lets the games on end; a second one
 *    ends at once.
 * The subcommands keep their own loop (poll() over the server and their children): these are
 * the pieces they call from it. Memory: everything here is the caller's structs; strings
 * given (names, event words) are borrowed from argv and must outlive them.
 */
#ifndef BITARENA_CLIENTS_EVENT_H
#define BITARENA_CLIENTS_EVENT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "lib/net.h"
#include "proto/limits.h"

#define CLI_GAMES_MAX 16 /* the most games of one player at once (the ladder's cap for bots) */

/* ---- the event ---------------------------------------------------------------------- */

enum cli_event_kind { CLI_EV_NONE, CLI_EV_POOL, CLI_EV_LADDER, CLI_EV_TOURNEY };

struct cli_event {
	enum cli_event_kind kind; /* set by cli_event_check() */
	const char *pool;         /* --pool NAME */
	const char *ladder;       /* --ladder "<kind opts>" */
	long long tourney;        /* --tourney ID */
	int concurrency;          /* --concurrency N: the ladder's games at once (0: not given) */
	bool waiting;             /* the join is sent (pool: and no pairing came since) */
	bool over;                /* the tournament ended: no game of it starts any more */
	bool left;                /* the event was left (a stop): no new game comes */
};

/*
 * Reads one event option: arg with its value val (NULL when argv has none). Returns 2 when
 * both were taken, 0 when arg is not an event option, -1 when its value is missing or bad
 * (said on stderr after prog).
 */
int cli_event_arg(struct cli_event *ev, const char *prog, const char *arg, const char *val);

/*
 * After the options: sets ev->kind, and checks that one event at most is given, that
 * --concurrency goes with --ladder (1..CLI_GAMES_MAX), that the ladder's words are one line.
 * Returns 0, or -1 with the reason on stderr.
 */
int cli_event_check(struct cli_event *ev, const char *prog);

/* How many games at once the event may give (1 but for the ladder). */
int cli_event_slots(const struct cli_event *ev);

/*
 * Joins the event on connection c (a new connection joins again): pool join (only with no
 * game on: ngames), ladder join <kind opts> concurrency=N, set tourneys on + tourney join.
 * Nothing for CLI_EV_NONE or once the event was left. Returns 0 or a negative enum net_err.
 */
int cli_event_join(struct cli_event *ev, struct net_conn *c, int ngames);

/*
 * A pool is joined again when its player has no game on (a pairing took it out). Call it after
 * each game's end and at each game's start (ngames: the games on after it). Returns 0 or a
 * negative enum net_err.
 */
int cli_event_game_changed(struct cli_event *ev, struct net_conn *c, int ngames);

/*
 * The event's part of message m: the replies to its joins (an error that ends it: say why
 * and return -1; the ladder's "you are on this ladder already" after a reconnect is no
 * error), the tournament's end (ev->over). Returns 0 otherwise (m may be anyone's).
 */
int cli_event_message(struct cli_event *ev, const char *prog, const cJSON *m);

/*
 * Leaves the event (a stop): pool leave, ladder leave (the games on are played out), tourney
 * withdraw. Once; returns 0 or a negative enum net_err.
 */
int cli_event_leave(struct cli_event *ev, struct net_conn *c);

/* ---- stopping ----------------------------------------------------------------------- */

/* Catches SIGINT and SIGTERM from now on (counted; no other effect). */
void cli_stop_catch(void);
/* How many of them came. */
int cli_stop_count(void);

/* ---- the link to the server ------------------------------------------------------------ */

struct cli_link {
	const char *prog, *server;
	struct net_conn c;
	bool up;                          /* c is open and logged in */
	char name[PROTO_NAME_MAX + 1];    /* the name the first login got */
	char token[64];                   /* a guest's token ("" for an account) */
	int backoff_ms;                   /* the next wait before connecting again */
	long long next_try;               /* when (net_now_ms()) */
	int reconnects;                   /* how many times it came back */
	long long resumed[CLI_GAMES_MAX]; /* the games the last login gave back */
	int nresumed;
};

/*
 * The first login, as cli_session_open() does (a free name starting with want, or the
 * account want with BITARENA_PASSWORD). Returns 0, or < 0 with the reason said.
 */
int cli_link_open(struct cli_link *l, const char *prog, const char *server, const char *want);

/* The connection failed (r: the enum net_err seen): says so, closes it, schedules a retry. */
void cli_link_lost(struct cli_link *l, int r);

/*
 * When the link is down and its retry is due: connects and logs in again as the same player.
 * Returns 1 when it is up again (the caller joins its event again), 0 when not (yet; the
 * back-off doubles up to 10 s), -1 when it never will (the account's password is refused).
 */
int cli_link_retry(struct cli_link *l);

/* Milliseconds until the link's next retry (0 when due or up): a poll()'s timeout. */
/* One command line to the server (printf; the newline is added): NET_ECLOSED while the link
 * is down; a failure is said on stderr (the link is found lost by the next read). */
int cli_link_sendf(struct cli_link *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

int cli_link_wait_ms(const struct cli_link *l);

/* Closes it for good. */
void cli_link_close(struct cli_link *l);

/* ---- the games of one connection --------------------------------------------------------- */

struct cli_games {
	long long id[CLI_GAMES_MAX]; /* a game's id, 0 for a free slot */
	int nslots;                  /* slots in use are 0 .. nslots - 1 (1 .. CLI_GAMES_MAX) */
	int max_on;                  /* the most games on at once so far */
};

/* nslots slots, all free. */
void cli_games_init(struct cli_games *g, int nslots);
/* The slot of game id, or -1. */
int cli_games_find(const struct cli_games *g, long long id);
/* A free slot given to game id (its slot when it has one already), or -1 when all are taken. */
int cli_games_take(struct cli_games *g, long long id);
/* Frees the slot. */
void cli_games_drop(struct cli_games *g, int slot);
/* Games on. */
int cli_games_on(const struct cli_games *g);
/*
 * After a reconnect: a slot whose game the login did not give back (it ended while we were
 * away, or the server lost it), or -1. The caller forgets that game and drops the slot.
 */
int cli_games_not_resumed(const struct cli_games *g, const struct cli_link *l);

#endif
