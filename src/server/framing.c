/*
 * framing.c - the line framer: telnet stripping, line terminators, the line
 * length cap, and the content check (see framing.h).
 */
#include "server/framing.h"

#include <stdint.h>

#include "server/text.h"

enum {
	TN_IAC = 255,
	TN_DONT = 254,
	TN_DO = 253,
	TN_WONT = 252,
	TN_WILL = 251,
	TN_SB = 250,
	TN_SE = 240
};

/* Telnet parser states. */
enum { T_DATA = 0, T_IAC, T_OPT, T_SB, T_SB_IAC };

void framer_init(struct framer *f)
{
	f->tstate = T_DATA;
	f->after_cr = false;
	f->discarding = false;
	f->len = 0;
	f->linelen = 0;
	f->line[0] = '\0';
}

/* Returns true when c is a data byte after telnet processing (and updates the state). */
static bool telnet_byte(struct framer *f, unsigned char c)
{
	switch (f->tstate) {
	case T_DATA:
		if (c == TN_IAC) {
			f->tstate = T_IAC;
			return false;
		}
		return true;
	case T_IAC:
		if (c == TN_IAC) {
			f->tstate = T_DATA;
			return true; /* escaped 0xFF */
		}
		if (c >= TN_WILL && c <= TN_DONT)
			f->tstate = T_OPT;
		else if (c == TN_SB)
			f->tstate = T_SB;
		else
			f->tstate = T_DATA; /* NOP, IP, AYT, GA, ...: two bytes, dropped */
		return false;
	case T_OPT:
		f->tstate = T_DATA;
		return false;
	case T_SB:
		if (c == TN_IAC)
			f->tstate = T_SB_IAC;
		return false;
	case T_SB_IAC:
		f->tstate = c == TN_SE ? T_DATA : T_SB;
		return false;
	}
	f->tstate = T_DATA;
	return false;
}

enum frame_event framer_feed(struct framer *f, const unsigned char *in, size_t n, size_t *used)
{
	size_t i = 0;
	while (i < n) {
		unsigned char c = in[i++];
		if (!telnet_byte(f, c))
			continue;
		if (f->after_cr) {
			f->after_cr = false;
			if (c == '\n' || c == '\0')
				continue;
		}
		if (c == '\n' || c == '\r') {
			f->after_cr = c == '\r';
			if (f->discarding) {
				f->discarding = false;
				f->len = 0;
				continue;
			}
			f->line[f->len] = '\0';
			f->linelen = f->len;
			f->len = 0;
			*used = i;
			return FRAME_LINE;
		}
		if (f->discarding)
			continue;
		if (f->len == FRAME_MAX) {
			f->discarding = true;
			f->len = 0;
			*used = i;
			return FRAME_TOO_LONG;
		}
		f->line[f->len++] = (char)c;
	}
	*used = i;
	return FRAME_NEED_MORE;
}

bool frame_line_valid(const char *s, size_t len)
{
	return text_check(s, len, NULL) == TEXT_OK;
}
