/*
 * loadcheck.h - the correctness checks of `bitarena load`, apart from the
 * networking so the tests can drive them directly:
 *
 *  - lk_scan(): the top-level members "type", "game" and "seq" of a JSON
 *    object line, without building a tree (spectators receive thousands of
 *    states per move; a full parse would make the tool, not the server, the
 *    bottleneck). Nested values and strings are skipped exactly, so a
 *    "seq" inside a position or a chat text is never taken.
 *  - struct lk_stream: one connection's stream of states checked in order:
 *    per game, every seq after the first one seen is the previous + 1.
 *  - the acknowledgement log: one line per move the server acknowledged,
 *    "<game> <ply> <move text>", and lk_verify(), which asks a server for
 *    the record of every game in a log and checks that each acknowledged
 *    move is there at its ply (the kill -9 recovery test uses it).
 */
#ifndef BITARENA_CLIENTS_LOADCHECK_H
#define BITARENA_CLIENTS_LOADCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct lk_top {
	char type[24]; /* "" when absent or not a short string */
	long long game, seq;
	bool has_game, has_seq;
};

/* Scans one line; 0, or -1 when it is not a well-formed JSON object. */
int lk_scan(const char *s, size_t n, struct lk_top *out);

enum lk_seq {
	LK_SEQ_OK = 0,
	LK_SEQ_FIRST = 1,   /* the first state of a game on this stream */
	LK_SEQ_SKIP = -1,   /* seq jumped: states were missed */
	LK_SEQ_REPEAT = -2, /* the same seq again */
	LK_SEQ_BACK = -3    /* a seq lower than one already seen */
};

struct lk_stream {
	long long game;     /* the game of the states seen last (0: none yet) */
	long long last_seq; /* the last seq of that game */
	long long states;   /* states checked */
};

/* Checks one state of game with seq against the stream and records it. */
enum lk_seq lk_stream_feed(struct lk_stream *s, long long game, long long seq);
const char *lk_seq_str(enum lk_seq r);

/* Writes one acknowledged move: "<game> <ply> <text>\n". */
void lk_ack_write(FILE *f, long long game, int ply, const char *text);

/*
 * Reads an acknowledgement log and checks every move in it against
 * `record <game>` from the server (HOST:PORT): the record's move at that
 * ply must be the same text. Prints a summary line to out and every
 * mismatch (the first 20) to err, prefixed with prog. Returns 0 when all
 * are there, 1 on a mismatch, 2 when the log or the server cannot be read.
 */
int lk_verify(const char *prog, const char *server, const char *log, FILE *out, FILE *err);

#endif
