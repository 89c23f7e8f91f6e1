/*
 * ports/ - foreign protocols served beside the main one: today playtak.com's.
 * The top layer below server.c (the order of the folders: DEVELOPERS.md,
 * Layout; tests/layers.py checks it). A port is a front door: it turns its
 * protocol's lines into the command table's (cmd/) and reads the lobby and
 * the sessions (play/), the messages, the TCP listeners and the framer;
 * nothing calls it but server.c. News reaches it through the callbacks it
 * registers: its connections' front-end (struct msg_frontend: render,
 * render_state, line, gone) and the lobby's and sessions' news.
 *   playtak.c       the playtak protocol as pure functions: lines, moves, lists
 *   playtak_port.c  the port: listener, guests, its own verbs, the front-end
 *
 * playtak_port.h - `bitarenad --playtak HOST:PORT`: the playtak.com protocol
 * (tak.md section 3, PROTOCOL.md section 11) on a port of its own, over the
 * same lobby and games as the main port, so a playtak client or bot plays a
 * telnet user or a bot of the main port unchanged.
 *
 * It is a protocol front-end, not a second server: a connection of the port
 * is an ordinary conn of the TCP transport with an ordinary struct client;
 * what differs is its front-end (msg.h), set when it opens:
 *  - input: each playtak line is read by playtak.h's pure parser and turned
 *    into the same command the main port would type ("Game#5 P A1" becomes
 *    "move 5 a1", "Seek 6 600 10 W" becomes "seek tak size=6 ... color=white"),
 *    run through the one command table (commands.h) with a tag naming the
 *    playtak verb, so every check and rule is the table's. Only what
 *    the text protocol has no verb for is the port's own: PING, Client,
 *    Protocol, the guest names and tokens of Login Guest, List, GameList,
 *    Shout, Tell (lobby_tell), rooms;
 *  - the budget: every line pays, as it is read and before anything of it
 *    runs, what the main port's verb it stands for costs (List as seeks,
 *    GameList as list, Shout, which every user of the port hears, as seek,
 *    PING as ping, a refused or unknown line 1; a move is paced by the table
 *    as on the main port), from the same command budget (commands_charge);
 *    a refusal is playtak's NOK and Error:, and a client that keeps
 *    overrunning it is closed (FLOODING), as on the main port. New guests are
 *    limited per address (PLAYTAK_GUEST_LIMIT), and a guest's token is never
 *    forgotten while it is in use (PLAYTAK_GUESTS_MAX);
 *  - output: every message the layers send the client (its JSON form) and
 *    every game state are rendered for it in playtak lines: a reply by the tag
 *    of its command (OK, NOK and Error:, Welcome, Authentication failure, ...),
 *    states as the moves the client has not been told yet ("Game#5 P A1",
 *    "Game#5 Undo" when the game went back) and the clocks (Time or Timems by
 *    protocol version), game_start as "Game Start", game_over as "Over" or
 *    "Abandoned", offers as OfferDraw / RequestUndo and their removals;
 *  - news of every seek, game and login (lobby_news, session_news) becomes
 *    "Seek new|remove", "GameList Add|Remove", "Online" and "OnlinePlayers"
 *    for the port's logged-in clients. Only Tak is offered there: seeks and
 *    games of other kinds are not shown and cannot be accepted or observed.
 *
 * A seek made on the port is an ordinary seek (so a text user accepts it and
 * a playtak client accepts a text user's Tak seek); a spectator on either
 * port sees the same game.
 *
 * Memory: the port owns its per-client state (cl->fe_data, freed by the
 * front-end's gone()), its table of guest tokens and their limiter;
 * playtak_port_free() frees them after the loop has stopped.
 */
#ifndef BITARENA_SERVER_PLAYTAK_PORT_H
#define BITARENA_SERVER_PLAYTAK_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/cmd/commands.h"
#include "server/play/lobby.h"
#include "server/ports/playtak.h"
#include "server/net/tcp.h"
#include "server/util/ratelimit.h"

/*
 * Guest tokens remembered beside those in use: when the table holds this many,
 * a new token makes the one used least recently forgotten, but never a token
 * in use (its guest connected with it, or seated in a game not yet ended, so
 * that a stranger's stream of new tokens cannot take a guest's name and game
 * away); tokens in use are as many as such guests, which the connections bound.
 */
#define PLAYTAK_GUESTS_MAX 4096
/* New guests (Login Guest without a token the port knows) from one address in a window. */
#define PLAYTAK_GUEST_LIMIT     20
#define PLAYTAK_GUEST_WINDOW_MS 60000

struct pt_guest; /* a Login Guest token and its name (playtak_port.c) */

struct playtak_port {
	struct tcp_listener tcp;
	struct conn_hub *hub;
	struct commands *cx; /* the command table's layers: lobby, sessions, accounts */
	uint64_t next_guest; /* Guest<n> names */
	struct pt_guest *guests;
	size_t nguests, capguests;
	uint64_t guest_uses;        /* tokens given out: the order in which they were last used */
	struct ratelimit *guest_rl; /* new guests by address; NULL out of memory (none then) */
	/* each line's cost in the command budget, the main port's for the verb it stands for
	   (resolved once, at init); 0 for moves, which the table paces (commands.h) */
	unsigned cost[PT_NCMDS];
};

/*
 * Sets up p over the layers of cx (cx->lobby's hub holds the clients) and
 * registers its news with the lobby and the sessions. Nothing listens yet.
 */
void playtak_port_init(struct playtak_port *p, struct commands *cx);
/* Listens on host:port (port 0: a free one, written to *bound), accepted sockets with
   SO_SNDBUF sndbuf (0: the system's; --sndbuf). 0 or a libuv error. */
int playtak_port_listen(struct playtak_port *p, const char *host, int port, int sndbuf, int *bound);
/* True when c came in through p's listener. */
bool playtak_port_owns(const struct playtak_port *p, const struct conn *c);
/* cl (a connection of the port, just opened) speaks playtak from now on: the welcome. */
void playtak_port_open(struct playtak_port *p, struct client *cl);
/* Stops accepting (shutdown). */
void playtak_port_stop(struct playtak_port *p);
/* Frees the guest tokens and their limiter (after the loop has stopped); the news stay
   registered. */
void playtak_port_free(struct playtak_port *p);

#endif
