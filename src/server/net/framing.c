/*
 * framing.c - the line framer: telnet stripping and the negotiation it
 * reports, the answer to it, line terminators, the line length cap, and the
 * content check (see framing.h).
 */
#include "server/net/framing.h"

#include <stdint.h>
#include <string.h>

#include "server/util/text.h"

/* Telnet parser states. */
enum { T_DATA = 0, T_IAC, T_OPT, T_SB, T_SB_IAC };

void framer_init(struct framer *f, char *line)
{
	f->tstate = T_DATA;
	f->tn_cmd = f->tn_opt = 0;
	f->after_cr = false;
	f->discarding = false;
	f->line_cr = false;
	f->echoing = false;
	f->sb_len = 0;
	f->len = 0;
	f->linelen = 0;
	f->line = line;
	if (line != NULL)
		line[0] = '\0';
}

size_t telnet_answer(struct framer *f, unsigned char cmd, unsigned char opt,
                     unsigned char out[TELNET_ANSWER_MAX])
{
	if (opt == TELNET_ECHO && f->echoing && (cmd == TELNET_DO || cmd == TELNET_DONT)) {
		f->echoing = cmd == TELNET_DO; /* agreed, or refused: either way no answer */
		return 0;
	}
	if (cmd == TELNET_AYT) {
		static const char yes[] = TELNET_AYT_ANSWER;
		_Static_assert(sizeof yes - 1 <= TELNET_ANSWER_MAX, "TELNET_ANSWER_MAX");
		memcpy(out, yes, sizeof yes - 1);
		return sizeof yes - 1;
	}
	unsigned char reply;
	if (cmd == TELNET_DO)
		reply = opt == TELNET_TIMING_MARK ? TELNET_WILL : TELNET_WONT;
	else if (cmd == TELNET_WILL)
		reply = TELNET_DONT;
	else
		return 0; /* WONT, DONT: what they ask for is so already */
	out[0] = TELNET_IAC;
	out[1] = reply;
	out[2] = opt;
	return 3;
}

size_t telnet_echo(struct framer *f, bool on, unsigned char out[3])
{
	if (f->echoing == on)
		return 0;
	f->echoing = on;
	out[0] = TELNET_IAC;
	out[1] = on ? TELNET_WILL : TELNET_WONT;
	out[2] = TELNET_ECHO;
	return 3;
}

/* Telnet results of one byte. */
enum tb { TB_DATA, TB_EATEN, TB_NEGOTIATION, TB_SB_TOO_LONG };

/* What byte c is after telnet processing (and the state it leaves). */
static enum tb telnet_byte(struct framer *f, unsigned char c)
{
	switch (f->tstate) {
	case T_DATA:
		if (c == TELNET_IAC) {
			f->tstate = T_IAC;
			return TB_EATEN;
		}
		return TB_DATA;
	case T_IAC:
		f->tstate = T_DATA;
		if (c == TELNET_IAC)
			return TB_DATA; /* escaped 0xFF */
		if (c >= TELNET_WILL && c <= TELNET_DONT) {
			f->tn_cmd = c;
			f->tstate = T_OPT;
		} else if (c == TELNET_SB) {
			f->tstate = T_SB;
			f->sb_len = 0;
		} else if (c == TELNET_AYT) {
			f->tn_cmd = c;
			f->tn_opt = 0;
			return TB_NEGOTIATION;
		} /* else NOP, IP, GA, ...: two bytes, dropped */
		return TB_EATEN;
	case T_OPT:
		f->tstate = T_DATA;
		f->tn_opt = c;
		return TB_NEGOTIATION;
	case T_SB:
		if (c == TELNET_IAC) { /* IAC SE ends it, IAC IAC is one 0xFF inside */
			f->tstate = T_SB_IAC;
			return TB_EATEN;
		}
		f->sb_len++;
		break;
	case T_SB_IAC:
		if (c == TELNET_SE) {
			f->tstate = T_DATA;
			return TB_EATEN;
		}
		f->tstate = T_SB;
		f->sb_len += c == TELNET_IAC ? 1 : 2;
		break;
	default:
		f->tstate = T_DATA;
		return TB_EATEN;
	}
	/* inside a subnegotiation */
	if (f->sb_len > FRAME_SB_MAX) {
		f->tstate = T_DATA;
		return TB_SB_TOO_LONG;
	}
	return TB_EATEN;
}

enum frame_event framer_feed(struct framer *f, const unsigned char *in, size_t n, size_t *used)
{
	size_t i = 0;
	while (i < n) {
		unsigned char c = in[i++];
		switch (telnet_byte(f, c)) {
		case TB_DATA:
			break;
		case TB_EATEN:
			continue;
		case TB_NEGOTIATION:
			*used = i;
			return FRAME_TELNET;
		case TB_SB_TOO_LONG:
			/* the line it cut into is dropped up to its end, as an overlong one */
			f->discarding = true;
			f->after_cr = false;
			f->len = 0;
			*used = i;
			return FRAME_SB_TOO_LONG;
		}
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
			f->line_cr = c == '\r';
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
