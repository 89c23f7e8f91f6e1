/*
 * framing.h - the line framer of the server's text protocol: bytes from a
 * socket in, whole command lines out. Pure (no I/O, no allocation), so the
 * tests drive it byte by byte.
 *
 * - A line ends with LF, CR LF, CR NUL or a lone CR (telnet sends CR NUL or
 *   CR LF): a CR ends the line and one LF or NUL right after it is swallowed.
 * - Telnet negotiation is removed wherever it appears, also split across
 *   reads: IAC WILL/WONT/DO/DONT <opt>, IAC SB ... IAC SE, any other IAC <cmd>;
 *   IAC IAC gives one 0xFF data byte.
 * - A line may hold FRAME_MAX bytes. The byte that would exceed it raises
 *   FRAME_TOO_LONG once; the rest of that line up to its terminator is dropped.
 *
 * Checking a line's content (UTF-8, control bytes) is frame_line_valid().
 */
#ifndef BITARENA_SERVER_FRAMING_H
#define BITARENA_SERVER_FRAMING_H

#include <stdbool.h>
#include <stddef.h>

#include "proto/limits.h"

#define FRAME_MAX PROTO_LINE_MAX

enum frame_event {
	FRAME_NEED_MORE = 0, /* all input consumed, no complete line yet */
	FRAME_LINE,          /* f->line holds a complete line (f->linelen bytes, NUL-terminated) */
	FRAME_TOO_LONG       /* the current line passed FRAME_MAX; it is being discarded */
};

struct framer {
	int tstate;      /* telnet parser state (framing.c) */
	bool after_cr;   /* the previous data byte was a CR terminator */
	bool discarding; /* inside an overlong line */
	size_t len;      /* bytes of the line being collected */
	size_t linelen;  /* length of the line of the last FRAME_LINE */
	char line[FRAME_MAX + 1];
};

void framer_init(struct framer *f);

/*
 * Consumes bytes from in (n of them) until one event happens; *used says how
 * many were consumed. Call again with the rest after FRAME_LINE or
 * FRAME_TOO_LONG. A FRAME_LINE's text stays valid until the next call.
 */
enum frame_event framer_feed(struct framer *f, const unsigned char *in, size_t n, size_t *used);

/*
 * True when the line passes text_check() (text.h): valid UTF-8 without
 * control characters (tab allowed), bidirectional overrides or line and
 * paragraph separators.
 */
bool frame_line_valid(const char *s, size_t len);

#endif
