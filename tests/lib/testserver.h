/*
 * testserver.h - the one harness of the loopback suites (check_server,
 * check_accounts, check_offers, check_recovery, ...): the real bitarenad
 * ($BITARENAD) started on a free port of 127.0.0.1 or a given address
 * (--port-file tells which) with a data directory the test chooses or a fresh
 * one of its own, stopped with SIGTERM (must exit 0) or killed with SIGKILL;
 * clients on the client library's line client (clients/lib/net.h) that write
 * raw bytes or lines, read lines with a bounded wait and match them as a JSON
 * subset or a shell glob (match.h); and the steps every suite takes: join as a
 * guest or register, start a game from a seek (every answer checked, or up to
 * the first states), play a move. Test code only (testserver.c, in libtest.a).
 */
#ifndef BITARENA_TESTS_TESTSERVER_H
#define BITARENA_TESTS_TESTSERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "match.h"
#include "lib/net.h"
#include "tmpdir.h"

#define TS_LINE_WAIT_MS 10000

struct ts_srv {
	pid_t pid;
	int port;
	char portfile[256];
	char datadir[256]; /* ts_up's fresh data directory, removed by ts_down */
};

/* Sleeps ms milliseconds. */
void ts_msleep(int ms);

/*
 * The port another listener of s wrote to path (--playtak-port-file, ...),
 * waited for as the main one is.
 */
int ts_port_file(struct ts_srv *s, const char *path);

/* A temporary file name for a port file (not created). */
void ts_port_path(char *buf, size_t len);

/*
 * Starts bitarenad on 127.0.0.1, a free port, with --data datadir --fast-hash
 * and the extra arguments; waits until the port file names its port.
 */
void ts_start(struct ts_srv *s, const char *datadir, const char *const *extra, int nextra);

/*
 * Starts bitarenad listening on listen (NULL: 127.0.0.1 on a free port) with a
 * fresh data directory of its own (s->datadir; ts_down removes it).
 */
void ts_up_at(struct ts_srv *s, const char *listen, const char *const *extra, int nextra);

/* ts_up_at() on 127.0.0.1, a free port. */
void ts_up(struct ts_srv *s, const char *const *extra, int nextra);

/* ts_up() with the extra arguments as a NULL-terminated list (at most 16). */
void ts_up_list(struct ts_srv *s, ...);

/* SIGTERM; the server must exit 0 (clean shutdown, every handle closed). */
void ts_stop(struct ts_srv *s);

/* ts_stop() for a server of ts_up(): its data directory goes too (before the exit check). */
void ts_down(struct ts_srv *s);

/* SIGKILL: no shutdown of any kind, as in a crash. */
void ts_kill9(struct ts_srv *s);
/* Runs sql on the embedded store of s (its data directory's SQLite file), alive or not: a
   test's own trigger, for instance, that refuses a write the server must never make. */
void ts_store_sql(const struct ts_srv *s, const char *sql);

/* A client: the client library's line client (clients/lib/net.h) with the harness's waits. */
struct ts_cli {
	struct net_conn nc;
	char token[32]; /* ts_join: the guest's token (its seats come back with it) */
};

/* Takes an open, connected socket as c (tests that set socket options first). */
void ts_open_fd(struct ts_cli *c, int fd);

/* Connects c to 127.0.0.1:port. */
void ts_open(struct ts_cli *c, int port);

/* ts_open() with a receive buffer of rcvbuf bytes (SO_RCVBUF, set before connecting): a
   client that stops reading fills it soon, and the server holds the rest. */
void ts_open_rcvbuf(struct ts_cli *c, int port, int rcvbuf);

/* ts_open() from the loopback address from (127.0.0.2, ...: the server sees another address). */
void ts_open_from(struct ts_cli *c, int port, const char *from);

/* c's socket. */
int ts_fd(const struct ts_cli *c);

void ts_close(struct ts_cli *c);

/* Writes n raw bytes (no newline added). */
void ts_write(struct ts_cli *c, const void *data, size_t n);

/* Writes one line (printf format; the newline is added; the text is sent as it is). */
void ts_send(struct ts_cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The next line (malloc'd, without its newline), or NULL at EOF or after the wait. */
char *ts_line(struct ts_cli *c);

/* The same, waiting at most wait_ms. */
char *ts_line_within(struct ts_cli *c, int wait_ms);

/* Reads what has arrived without waiting; true if a line containing needle was among it. */
bool ts_drain(struct ts_cli *c, const char *needle);

/* True when the server closes c within the wait; lines before the end are skipped. */
bool ts_eof(struct ts_cli *c);

/* The next line must match pattern; returns it parsed when JSON (caller frees). */
cJSON *ts_expect(struct ts_cli *c, const char *pattern);

/* ts_expect(), the line not kept. */
void ts_expect0(struct ts_cli *c, const char *pattern);

/* ts_expect() with a printf pattern. */
cJSON *ts_expectf(struct ts_cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Skips lines until one matches pattern, each within wait_ms; returns it parsed when JSON
   (caller frees). */
cJSON *ts_until_within(struct ts_cli *c, const char *pattern, int wait_ms);

/* Skips lines until one matches pattern; returns it parsed when JSON (caller frees). */
cJSON *ts_until(struct ts_cli *c, const char *pattern);

/* ts_until(), the line not kept. */
void ts_until0(struct ts_cli *c, const char *pattern);

/* ts_until() with a printf pattern. */
cJSON *ts_untilf(struct ts_cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Connects, checks the welcome, switches to JSON. */
void ts_connect_json(struct ts_cli *c, int port);

/* Connects, checks the welcome, switches to JSON, logs in as the guest name. */
void ts_join(struct ts_cli *c, int port, const char *name);

/* c (a guest ts_join() logged in, since closed) comes back as name with its token. */
void ts_rejoin(struct ts_cli *c, int port, const char *name);

/* A new connection in JSON registered (and so logged in) to the account name. */
void ts_register(struct ts_cli *c, int port, const char *name, const char *pw);

/* The next line is the error code (an answer to the last command). */
void ts_expect_err(struct ts_cli *c, const char *code);

/*
 * a seeks kind_opts as the first seat; b waits for the seek's notice and
 * accepts it. The answers to the accept are the caller's to read.
 */
void ts_seek_accept(struct ts_cli *a, struct ts_cli *b, const char *kind_opts);

/*
 * ts_seek_accept(), then the exact answers: b's ok and the seek gone, game_start
 * and the first state to both. Returns the game id; *first (may be NULL) gets
 * a's first state (caller frees).
 */
int ts_start_game(struct ts_cli *a, struct ts_cli *b, const char *kind_opts, cJSON **first);

/*
 * ts_seek_accept(), then both read up to their first state, skipping what
 * comes between (unlike ts_start_game). Returns the game id.
 */
int ts_begin_game(struct ts_cli *a, struct ts_cli *b, const char *kind_opts);

/*
 * mover plays text in game id: its ok, then the new state to both (lines
 * between skipped). Returns mover's state (caller frees).
 */
cJSON *ts_play(struct ts_cli *mover, struct ts_cli *other, int id, const char *text);

#endif
