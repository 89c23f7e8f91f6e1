/*
 * cgio.h - a CodinGame bot's output as the referee reads it, as pure
 * functions for `bitarena cg-bridge` (and its fuzz target):
 *
 *  - which text a line the bot printed is sent to the server as: the line
 *    itself when the server's framing passes it on unchanged (so the engine,
 *    exact to the referee, judges exactly what the bot printed), otherwise
 *    the word INVALID, which is no action: the referee's invalid output;
 *  - the lines printed and not yet read: the CodinGame SDK reads one line
 *    per turn from the bot's stdout and leaves any further ones in the
 *    stream, where the next turns read them. So a second line printed in one
 *    turn answers the next turn, however fast or slowly it comes, and a line
 *    printed before the first input answers the first turn. A bounded FIFO
 *    does the same; when it is full the bridge stops reading the bot, as a
 *    full pipe would stop it.
 * No I/O, no allocation.
 */
#ifndef BITARENA_CLIENTS_CGIO_H
#define BITARENA_CLIENTS_CGIO_H

#include <stdbool.h>
#include <stddef.h>

#define CG_INVALID    "INVALID"
#define CG_ACTION_MAX 1024 /* longer lines are sent as INVALID (the referee's limit is 124) */
#define CG_LINES_MAX  (64 * 1024) /* bytes of unread lines before reading stops (a pipe's worth) */
#define CG_LINES_ROOM (CG_LINES_MAX + 8 * 1024) /* room for what one read adds past the mark */

/*
 * The text to send for a line the bot printed (terminator removed; cut:
 * the line was longer than the reader keeps): the line when it is 1 to
 * CG_ACTION_MAX printable ASCII bytes with no blank at either end and not
 * cut, else CG_INVALID.
 */
const char *cg_action_text(const char *line, bool cut);

/* Unread lines, oldest first: buf[0 .. len) holds them, each NUL-terminated. */
struct cg_lines {
	char buf[CG_LINES_ROOM];
	size_t len;
	size_t n; /* lines held */
};

void cg_lines_init(struct cg_lines *q);
/* Appends a line (at most CG_ACTION_MAX bytes); false when there is no room (it is dropped). */
bool cg_lines_push(struct cg_lines *q, const char *text);
/* True when reading should stop until lines are used (CG_LINES_MAX bytes held). */
bool cg_lines_full(const struct cg_lines *q);
/* Takes the oldest line into out (cut to outlen - 1); false when there is none. */
bool cg_lines_pop(struct cg_lines *q, char *out, size_t outlen);

#endif
