/*
 * util/ - leaves every layer of the server uses: the bottom of the order of
 * the folders (DEVELOPERS.md, Layout; tests/layers.py checks it). They call
 * nothing of the server and hear nothing from it (no callbacks).
 *   text.c       checked text, malloc'd printf, the wall clock
 *   log.c        the log: one line per event, a level, a key=value tail (log.h)
 *   conf.c       a config file read into key value pairs (conf.h)
 *   outbuf.c     reference-counted output blocks, shared by every receiver
 *   json_out.c   cJSON trees as one line, as cJSON prints them, faster
 *   budget.c     a connection's command budget: a token bucket and strikes
 *   ratelimit.c  a limiter of failures per key (logins, registrations)
 *   metrics.c    named counters and gauges every layer registers (rendered by a layer above)
 *   glicko.c     Glicko-2 rating updates
 *
 * text.h - text entering the server checked by one function, printf into
 * malloc'd strings, and (through log.h, included here for every layer) the
 * server's log. Every layer of src/server uses these; they call nothing of
 * the server.
 */
#ifndef BITARENA_SERVER_TEXT_H
#define BITARENA_SERVER_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/util/log.h"

/*
 * The one check of text that enters the server: every command line (chat,
 * tells, names, moves, options, passwords) goes through it before it is
 * parsed (frame_line_valid, the dispatcher), so nothing another user reads
 * can carry what would mislead a terminal or a page:
 *  - invalid UTF-8 (overlongs, surrogates, beyond U+10FFFF, cut sequences);
 *  - control characters: C0 but tab, DEL, and C1 (U+0080-U+009F: a terminal
 *    may take U+009B as CSI);
 *  - bidirectional embeddings, overrides and isolates (U+202A-U+202E,
 *    U+2066-U+2069), which reorder what follows them on screen (a name or a
 *    chat line that reads other than it is; "Trojan Source"); the marks
 *    U+200E and U+200F are plain text and allowed;
 *  - the line and paragraph separators U+2028 and U+2029, line breaks to a
 *    page or a JSON consumer that splits on them.
 * Returns TEXT_OK or the first problem found; *at (may be NULL) gets its byte
 * offset.
 */
enum text_err {
	TEXT_OK = 0,
	TEXT_EUTF8 = -1,
	TEXT_ECONTROL = -2,
	TEXT_EBIDI = -3,
	TEXT_ESEPARATOR = -4
};
int text_check(const char *s, size_t len, size_t *at);
const char *text_strerror(int err);
/*
 * How many of the first max bytes of the NUL-terminated s to keep so that a
 * cut never splits a UTF-8 sequence (for quoting user text at most max bytes
 * long: printf("%.*s", (int)text_cut(s, max), s)).
 */
size_t text_cut(const char *s, size_t max);

/* malloc'd printf; never aborts, returns NULL when out of memory. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* Appends printf output to the malloc'd string *s (NULL counts as ""); unchanged if out of memory.
 */
void xappend(char **s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Appends the words of text (separated by single spaces, ASCII) to *s as xappend() does, the
 * current line being at column col: a word that would pass column width starts a new line
 * indented to col (a word longer than the room stands alone). For help pages that fit a
 * terminal of 80 columns.
 */
void xappend_wrapped(char **s, const char *text, size_t col, size_t width);

/* The wall clock in ms since the Unix epoch. */
int64_t wall_ms(void);

#endif
