/*
 * framing.h - the line framer of the server's text protocol: bytes from a
 * socket in, whole command lines and telnet negotiation out. Pure (no I/O, no
 * allocation), so the tests and the fuzzer drive it byte by byte.
 *
 * - A line ends with LF, CR LF, CR NUL or a lone CR (telnet sends CR NUL or
 *   CR LF): a CR ends the line and one LF or NUL right after it is swallowed.
 * - Telnet is removed wherever it appears, also split across reads: IAC
 *   WILL/WONT/DO/DONT <opt> is reported (FRAME_TELNET) so the caller can
 *   answer it (telnet_answer()); IAC SB ... IAC SE is dropped; IAC AYT is
 *   reported to be answered; any other IAC <cmd> (NOP, IP, GA, ...) is
 *   dropped; IAC IAC gives one 0xFF data byte.
 * - A subnegotiation may hold FRAME_SB_MAX bytes. One that runs longer
 *   without its IAC SE raises FRAME_SB_TOO_LONG once and ends there: the
 *   bytes after it are data again, and the rest of the line they belong to
 *   is dropped (as for an overlong line), so the next line works.
 * - A line may hold FRAME_MAX bytes. The byte that would exceed it raises
 *   FRAME_TOO_LONG once; the rest of that line up to its terminator is dropped.
 *
 * - The line's terminator is kept (f->line_cr): a line ended by CR (CR LF, CR
 *   NUL) is the network virtual terminal's end of line, what telnet sends;
 *   nc on a terminal sends LF alone.
 * - The one option the server may turn on is its own ECHO (RFC 857), for a
 *   password typed into telnet: telnet_echo() asks for it and withdraws it,
 *   f->echoing keeps where it stands, and telnet_answer() reads it.
 *
 * The line being collected lives in storage the caller gives (f->line,
 * FRAME_MAX + 1 bytes); the caller may change that pointer whenever f->len is
 * 0 (the connection layer keeps it only while input is pending). Checking a
 * line's content (UTF-8, control bytes) is frame_line_valid().
 */
#ifndef BITARENA_SERVER_FRAMING_H
#define BITARENA_SERVER_FRAMING_H

#include <stdbool.h>
#include <stddef.h>

#include "proto/limits.h"

#define FRAME_MAX    PROTO_LINE_MAX
#define FRAME_SB_MAX 256 /* bytes of one telnet subnegotiation, IAC SB and IAC SE excluded */

/* Telnet (RFC 854) commands and the one option the server answers yes to (RFC 860). */
enum {
	TELNET_SE = 240,
	TELNET_SB = 250,
	TELNET_WILL = 251,
	TELNET_WONT = 252,
	TELNET_DO = 253,
	TELNET_DONT = 254,
	TELNET_IAC = 255,
	TELNET_AYT = 246,
	TELNET_ECHO = 1,
	TELNET_TIMING_MARK = 6
};
#define TELNET_ANSWER_MAX 32 /* the longest answer of telnet_answer() */
#define TELNET_AYT_ANSWER "\r\n[bitarenad: yes]\r\n" /* to IAC AYT */

enum frame_event {
	FRAME_NEED_MORE = 0, /* all input consumed, no complete line yet */
	FRAME_LINE,          /* f->line holds a complete line (f->linelen bytes, NUL-terminated) */
	FRAME_TOO_LONG,      /* the current line passed FRAME_MAX; it is being discarded */
	FRAME_TELNET,        /* IAC f->tn_cmd f->tn_opt (WILL, WONT, DO or DONT) or IAC AYT
	                        (tn_cmd TELNET_AYT, tn_opt 0) was read */
	FRAME_SB_TOO_LONG    /* a subnegotiation passed FRAME_SB_MAX bytes without IAC SE */
};

struct framer {
	unsigned char tstate;         /* telnet parser state (framing.c) */
	unsigned char tn_cmd, tn_opt; /* the negotiation of the last FRAME_TELNET */
	bool after_cr;                /* the previous data byte was a CR terminator */
	bool discarding;              /* inside an overlong line */
	bool line_cr;                 /* the line of the last FRAME_LINE ended with CR */
	bool echoing; /* the server offered its ECHO (IAC WILL ECHO), not withdrawn */
	unsigned sb_len;              /* bytes of the subnegotiation being skipped */
	size_t len;                   /* bytes of the line being collected */
	size_t linelen;               /* length of the line of the last FRAME_LINE */
	char *line;                   /* the caller's FRAME_MAX + 1 bytes */
};

/* A framer at rest, collecting lines into line (FRAME_MAX + 1 bytes; may be NULL until
   the first framer_feed()). */
void framer_init(struct framer *f, char *line);

/* True when nothing of a line is held: f->line may be changed or dropped. */
static inline bool framer_idle(const struct framer *f)
{
	return f->len == 0;
}

/*
 * Consumes bytes from in (n of them) until one event happens; *used says how
 * many were consumed. Call again with the rest after any event but
 * FRAME_NEED_MORE. A FRAME_LINE's text stays valid until the next call.
 */
enum frame_event framer_feed(struct framer *f, const unsigned char *in, size_t n, size_t *used);

/*
 * The server's answer to a negotiation (FRAME_TELNET: cmd, opt) of f's peer,
 * written to out; returns its length, 0 for none. Save its ECHO while
 * f->echoing (DO ECHO agrees to it, DONT ECHO refuses it and ends it: neither
 * is answered, RFC 1143), the server enables no option of its own or of the
 * peer's, so (RFC 854 and the Q method of RFC 1143, for a side
 * whose every option is off and stays off) DO gets WONT and WILL gets DONT,
 * while WONT and DONT, which ask for what already holds, get nothing: no
 * negotiation can loop. The exception is DO TIMING-MARK, which gets WILL
 * TIMING-MARK (RFC 860): telnet sends it after an interrupt (Ctrl-C) and
 * discards all output until the answer comes, so it must come, in order
 * with the output of the commands before it. IAC AYT ("are you there", the
 * telnet command `send ayt`) gets a line of text that says so (RFC 854: some
 * visible evidence that the system is still up), TELNET_AYT_ANSWER.
 */
size_t telnet_answer(struct framer *f, unsigned char cmd, unsigned char opt,
                     unsigned char out[TELNET_ANSWER_MAX]);

/*
 * The server's ECHO turned on (IAC WILL ECHO: the peer's telnet stops showing
 * what is typed, and the server shows nothing of it) or off again (IAC WONT
 * ECHO), written to out (3 bytes); 0 when it stands so already.
 */
size_t telnet_echo(struct framer *f, bool on, unsigned char out[3]);

/*
 * True when the line passes text_check() (text.h): valid UTF-8 without
 * control characters (tab allowed), bidirectional overrides or line and
 * paragraph separators.
 */
bool frame_line_valid(const char *s, size_t len);

#endif
