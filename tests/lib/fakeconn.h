/*
 * fakeconn.h - the in-process harness of the server's unit suites
 * (check_session, check_lobby, check_verbs, check_limits): the whole server
 * of server.h (connection hub, messages, lobby, sessions, commands,
 * optionally a store in a fresh directory) on a private libuv loop, with no
 * listener and no socket. Its clients are connections of a fake transport
 * (struct conn_transport) that feeds typed lines in and keeps everything
 * written in memory, so a test types a command and reads the answer at once.
 *
 * The fake transport behaves as a socket does for the connection layer:
 * closing completes on a later loop pass (conn_closed from a close
 * callback); a client may stall (its writes are held, the backlog grows as
 * for a peer that stopped reading) and drain later (each held write then
 * completes, conn_wrote). Time is the loop's own: fk_wait() runs the loop for
 * that many real milliseconds, so clocks and graces are driven by real timers
 * with short settings. Test code only (fakeconn.c, in libtestserver.a).
 */
#ifndef BITARENA_TESTS_FAKECONN_H
#define BITARENA_TESTS_FAKECONN_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "match.h"
#include "server/server.h"
#include "tmpdir.h"

struct fk_server {
	uv_loop_t loop;
	struct server srv;
	bool store;
	char datadir[256];
};

struct fk_cli {
	struct fk_server *fs;
	struct conn *c;    /* NULL once the connection layer freed it */
	uv_timer_t closer; /* closing it is the transport's close completing */
	bool closing;
	char *out;           /* everything written to the client, NUL-terminated */
	size_t len, cap, rd; /* rd: how far fk_line() has read */
	bool stall;          /* writes are held (the peer does not read) until fk_drain() */
	struct outbuf **held;
	size_t nheld, capheld;
	size_t backlog; /* bytes held */
	char token[32]; /* fk_join: the guest's token (its seats come back with it) */
	bool paused;    /* the connection layer paused its input */
};

/* ---- the server -------------------------------------------------------------------- */

/* Runs what is ready: the pump until no connection has input left, closes done. */
void fk_run(struct fk_server *fs);

/* Runs the loop for ms of real time (timers fire: clocks, graces, pings). */
void fk_wait(struct fk_server *fs, int ms);

/* A server on its own loop with cfg (grace etc.); store: a store in a fresh directory. */
void fk_start(struct fk_server *fs, const struct server_config *cfg, bool store);

/* The clean shutdown: every handle closes and the loop runs out; the store goes. */
void fk_stop(struct fk_server *fs);

/* ---- clients ----------------------------------------------------------------------- */

/* A new connection from the address peer ("192.0.2.7"): the welcome is in f's output (or,
   refused at the door, why). */
void fk_connect_from(struct fk_server *fs, struct fk_cli *f, const char *peer);

/* A new connection: the welcome is in f's output. */
void fk_connect(struct fk_server *fs, struct fk_cli *f);

/* Frees what the harness holds for f (after fk_stop, or once f's connection is gone). */
void fk_free(struct fk_cli *f);

/* fk_stop(), then the harness's part of each client (a NULL-terminated list) is freed. */
void fk_stop_with(struct fk_server *fs, struct fk_cli *f, ...);

/* Types raw bytes, then runs what is ready. */
void fk_type(struct fk_cli *f, const char *data, size_t n);

/* Types one line (printf; the newline is added), then runs what is ready. */
void fk_send(struct fk_cli *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The peer goes away at once (a reset): its connection closes. */
void fk_hangup(struct fk_cli *f);

/* The held writes reach the peer, each completing (the last drains the backlog). */
void fk_drain(struct fk_cli *f);

/* The next line written to f (static until the next call, no newline), or NULL. */
const char *fk_line(struct fk_cli *f);

/* Runs the loop until f has a line to read (a worker's answer, a timer); at most 10 s. */
void fk_await(struct fk_cli *f);

/* Nothing more has been written to f. */
void fk_nothing(struct fk_cli *f);

/* The next line must match pattern (match.h); returns it parsed when JSON (caller frees). */
cJSON *fk_expect(struct fk_cli *f, const char *pattern);

/* fk_expect(), the line not kept. */
void fk_expect0(struct fk_cli *f, const char *pattern);

/* fk_expect0() with a printf pattern. */
void fk_expectf(struct fk_cli *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Skips lines until one matches pattern; returns it parsed when JSON (caller frees). */
cJSON *fk_until(struct fk_cli *f, const char *pattern);

/* fk_until(), the line not kept. */
void fk_until0(struct fk_cli *f, const char *pattern);

/* Skips everything written so far. */
void fk_skip(struct fk_cli *f);

/*
 * Connects, switches to JSON, logs in as the guest name (with a guest's token,
 * or NULL); the output so far is read; f->token is the guest's token.
 */
void fk_join_with(struct fk_server *fs, struct fk_cli *f, const char *name, const char *token);

/* fk_join_with() without a token: a new guest. */
void fk_join(struct fk_server *fs, struct fk_cli *f, const char *name);

/*
 * a seeks kind_opts as the first seat, b accepts: the game starts. Returns its
 * id; both have read their answers up to and with the first state.
 */
int fk_start_game(struct fk_cli *a, struct fk_cli *b, const char *kind_opts);

#endif
