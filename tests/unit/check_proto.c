/*
 * check_proto.c - the server's protocol layer without sockets: line framing
 * (terminators, telnet negotiation, the length cap, split input, junk),
 * command lines (tags, verbs, arity, the rest-of-line argument), ids, names,
 * the options of "seek" (time controls, colours, engine options), and the
 * server's command table (every row with a handler, flags that fit).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/net/framing.h"
#include "server/msg/proto.h"
#include "server/cmd/commands.h"
#include "check_main.h"

/* Telnet negotiations seen by the last frame_all(): "<cmd><opt>" byte pairs. */
static unsigned char tn_seen[64];
static size_t tn_n;

/*
 * Feeds len bytes in chunks of chunk bytes; collects lines ("!" marks
 * FRAME_TOO_LONG, "~" FRAME_SB_TOO_LONG) and the negotiations into tn_seen.
 */
static int frame_all(const char *in, size_t len, size_t chunk, char out[][FRAME_MAX + 1],
                     size_t *outlen, int max)
{
	static struct framer f;
	static char fline[FRAME_MAX + 1];
	framer_init(&f, fline);
	tn_n = 0;
	int n = 0;
	for (size_t at = 0; at < len;) {
		size_t piece = len - at < chunk ? len - at : chunk;
		size_t off = 0;
		while (off < piece) {
			size_t used = 0;
			enum frame_event ev = framer_feed(&f, (const unsigned char *)in + at + off,
			                                  piece - off, &used);
			ck_assert_uint_gt(used, 0);
			off += used;
			if (ev == FRAME_LINE) {
				ck_assert_int_lt(n, max);
				memcpy(out[n], f.line, f.linelen + 1);
				ck_assert_uint_eq(strlen(f.line) <= f.linelen, 1);
				outlen[n++] = f.linelen;
			} else if (ev == FRAME_TOO_LONG || ev == FRAME_SB_TOO_LONG) {
				ck_assert_int_lt(n, max);
				strcpy(out[n], ev == FRAME_TOO_LONG ? "!" : "~");
				outlen[n++] = 1;
			} else if (ev == FRAME_TELNET) {
				ck_assert_uint_lt(tn_n + 2, sizeof tn_seen);
				tn_seen[tn_n++] = f.tn_cmd;
				tn_seen[tn_n++] = f.tn_opt;
			} else {
				ck_assert_uint_eq(off, piece);
			}
		}
		at += piece;
	}
	return n;
}

static char lines[16][FRAME_MAX + 1];
static size_t lens[16];

START_TEST(test_frame_terminators)
{
	static const char in[] = "a\nb\r\nc\rd\r\0e\n\nf";
	/* every chunking gives the same lines: the framer keeps state across reads */
	for (size_t chunk = 1; chunk <= sizeof in; chunk++) {
		int n = frame_all(in, sizeof in - 1, chunk, lines, lens, 16);
		ck_assert_int_eq(n, 6);
		ck_assert_str_eq(lines[0], "a");
		ck_assert_str_eq(lines[1], "b");
		ck_assert_str_eq(lines[2], "c");
		ck_assert_str_eq(lines[3], "d");
		ck_assert_str_eq(lines[4], "e");
		ck_assert_str_eq(lines[5], ""); /* "f" has no terminator yet */
	}
}
END_TEST

START_TEST(test_frame_telnet)
{
	/* IAC WILL ECHO, IAC SB NAWS 0 80 0 24 IAC SE, IAC NOP, IAC IAC, IAC DO x */
	static const char in[] = "\xff\xfb\x01lo\xff\xfa\x1f\x00\x50\x00\x18\xff\xf0gin\xff\xf1 x"
	                         "\xff\xff\xff\xfd\x03y\r\n";
	for (size_t chunk = 1; chunk <= sizeof in; chunk++) {
		int n = frame_all(in, sizeof in - 1, chunk, lines, lens, 16);
		ck_assert_int_eq(n, 1);
		ck_assert_str_eq(lines[0], "login x\xffy");
		ck_assert_uint_eq(lens[0], 9);
		ck_assert(!frame_line_valid(lines[0], lens[0])); /* a lone 0xFF is not UTF-8 */
		/* the two negotiations are reported, in order, to be answered */
		ck_assert_uint_eq(tn_n, 4);
		ck_assert(memcmp(tn_seen, "\xfb\x01\xfd\x03", 4) == 0);
	}
}
END_TEST

/* Which lines ended as telnet ends them (CR LF, CR NUL) and which as nc does (LF). */
START_TEST(test_line_terminator_kept)
{
	static const char in[] = "a\r\nb\nc\r\0d\r";
	static const bool cr[] = {true, false, true, true};
	char line[FRAME_MAX + 1];
	struct framer f;
	framer_init(&f, line);
	size_t at = 0, n = sizeof in - 1;
	for (int i = 0; i < 4; i++) {
		size_t used = 0;
		while (framer_feed(&f, (const unsigned char *)in + at, n - at, &used) != FRAME_LINE)
			at += used;
		at += used;
		ck_assert_int_eq(line[0], 'a' + i);
		ck_assert_int_eq(f.line_cr, cr[i]);
	}
}
END_TEST

START_TEST(test_telnet_answers)
{
	unsigned char out[TELNET_ANSWER_MAX];
	struct framer tf, *t = &tf;
	framer_init(t, NULL);
	/* Ctrl-C in telnet sends IAC IP IAC DO TIMING-MARK and drops output until the answer */
	ck_assert_uint_eq(telnet_answer(t, TELNET_DO, TELNET_TIMING_MARK, out), 3);
	ck_assert(memcmp(out, "\xff\xfb\x06", 3) == 0); /* IAC WILL TIMING-MARK */
	/* every other option is refused: DO ECHO gets WONT ECHO, WILL NAWS gets DONT NAWS */
	ck_assert_uint_eq(telnet_answer(t, TELNET_DO, 1, out), 3);
	ck_assert(memcmp(out, "\xff\xfc\x01", 3) == 0);
	ck_assert_uint_eq(telnet_answer(t, TELNET_WILL, 31, out), 3);
	ck_assert(memcmp(out, "\xff\xfe\x1f", 3) == 0);
	ck_assert_uint_eq(telnet_answer(t, TELNET_WILL, TELNET_TIMING_MARK, out), 3);
	ck_assert(memcmp(out, "\xff\xfe\x06", 3) == 0);
	/* a refusal is never answered (RFC 1143: nothing to change, so no loop) */
	for (int opt = 0; opt < 256; opt++) {
		ck_assert_uint_eq(telnet_answer(t, TELNET_WONT, (unsigned char)opt, out), 0);
		ck_assert_uint_eq(telnet_answer(t, TELNET_DONT, (unsigned char)opt, out), 0);
	}
	/* the server's own ECHO, for a password: offered, agreed (DO ECHO unanswered), then
	   withdrawn; refused (DONT ECHO) it is off with no answer either */
	ck_assert_uint_eq(telnet_echo(t, true, out), 3);
	ck_assert(memcmp(out, "\xff\xfb\x01", 3) == 0);  /* IAC WILL ECHO */
	ck_assert_uint_eq(telnet_echo(t, true, out), 0); /* asked once */
	ck_assert_uint_eq(telnet_answer(t, TELNET_DO, TELNET_ECHO, out), 0);
	ck_assert(t->echoing);
	ck_assert_uint_eq(telnet_echo(t, false, out), 3);
	ck_assert(memcmp(out, "\xff\xfc\x01", 3) == 0); /* IAC WONT ECHO */
	ck_assert_uint_eq(telnet_answer(t, TELNET_DONT, TELNET_ECHO, out), 0);
	ck_assert_uint_eq(telnet_answer(t, TELNET_DO, TELNET_ECHO, out), 3); /* refused again */
	ck_assert_uint_eq(telnet_echo(t, true, out), 3);
	ck_assert_uint_eq(telnet_answer(t, TELNET_DONT, TELNET_ECHO, out), 0);
	ck_assert(!t->echoing);
	/* are you there? yes, in a line of its own */
	size_t ayt = telnet_answer(t, TELNET_AYT, 0, out);
	ck_assert_uint_eq(ayt, strlen(TELNET_AYT_ANSWER));
	ck_assert(memcmp(out, "\r\n[bitarenad: yes]\r\n", ayt) == 0);
	/* the framer reports DO TIMING-MARK and AYT where they come, between the lines around
	   them (IP is dropped) */
	static const char in[] = "ping\r\n\xff\xf4\xff\xfd\x06ping\r\n\xff\xf6pi\xff\xf6ng\n";
	for (size_t chunk = 1; chunk <= sizeof in; chunk++) {
		static struct framer f;
		static char fline[FRAME_MAX + 1];
		framer_init(&f, fline);
		char trace[32] = "";
		for (size_t at = 0; at < sizeof in - 1;) {
			size_t piece = sizeof in - 1 - at < chunk ? sizeof in - 1 - at : chunk,
			       off = 0;
			while (off < piece) {
				size_t used = 0;
				enum frame_event ev =
				        framer_feed(&f, (const unsigned char *)in + at + off,
				                    piece - off, &used);
				off += used;
				if (ev == FRAME_LINE)
					strcat(trace, f.line);
				else if (ev == FRAME_TELNET && f.tn_cmd == TELNET_DO &&
				         f.tn_opt == TELNET_TIMING_MARK)
					strcat(trace, "+TM+");
				else if (ev == FRAME_TELNET && f.tn_cmd == TELNET_AYT)
					strcat(trace, "+AYT+");
			}
			at += piece;
		}
		ck_assert_str_eq(trace, "ping+TM+ping+AYT++AYT+ping");
	}
}
END_TEST

START_TEST(test_frame_sb_unterminated)
{
	/* IAC SB with no IAC SE: bounded, reported once, the rest of its line dropped, and
	   the next line works (before, everything after it vanished for good) */
	char in[FRAME_SB_MAX + 64];
	size_t n = 0;
	memcpy(in, "\xff\xfa\x18", 3);
	n = 3;
	memset(in + n, 'x', FRAME_SB_MAX + 10);
	n += FRAME_SB_MAX + 10;
	memcpy(in + n, "\r\nping\r\n", 8);
	n += 8;
	for (size_t chunk = 1; chunk <= n; chunk += chunk < 8 ? 1 : 37) {
		int k = frame_all(in, n, chunk, lines, lens, 16);
		ck_assert_int_eq(k, 2);
		ck_assert_str_eq(lines[0], "~");
		ck_assert_str_eq(lines[1], "ping");
	}
	/* exactly FRAME_SB_MAX bytes with IAC SE is a subnegotiation like any other; an
	   escaped IAC IAC inside counts as one byte of it and does not end it */
	n = 0;
	memcpy(in, "ab\xff\xfa", 4);
	n = 4;
	memset(in + n, 'y', FRAME_SB_MAX - 1);
	n += FRAME_SB_MAX - 1;
	memcpy(in + n,
	       "\xff\xff\xff\xf0"
	       "cd\n",
	       7);
	n += 7;
	int k = frame_all(in, n, n, lines, lens, 16);
	ck_assert_int_eq(k, 1);
	ck_assert_str_eq(lines[0], "abcd");
	/* one byte more is too long */
	memmove(in + 5, in + 4, n - 4);
	in[4] = 'y';
	k = frame_all(in, n + 1, 3, lines, lens, 16);
	ck_assert_int_eq(k, 1);
	ck_assert_str_eq(lines[0], "~");
}
END_TEST

START_TEST(test_frame_too_long)
{
	size_t big = FRAME_MAX + 100;
	char *in = malloc(big + FRAME_MAX + 20);
	memset(in, 'x', big);
	memcpy(in + big, "\nping\n", 6);
	memset(in + big + 6, 'y', FRAME_MAX);
	memcpy(in + big + 6 + FRAME_MAX, "\n", 1);
	size_t total = big + 6 + FRAME_MAX + 1;
	size_t chunks[] = {1, 7, 4096, 100000};
	for (size_t i = 0; i < 4; i++) {
		int n = frame_all(in, total, chunks[i], lines, lens, 16);
		ck_assert_int_eq(n, 3);
		ck_assert_str_eq(lines[0], "!"); /* one event for the overlong line, no line */
		ck_assert_str_eq(lines[1], "ping");
		ck_assert_uint_eq(lens[2], FRAME_MAX); /* exactly the cap is still a line */
	}
	free(in);
}
END_TEST

START_TEST(test_frame_valid)
{
	ck_assert(frame_line_valid("move 1 a1", 9));
	ck_assert(frame_line_valid("say 1 h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80\tok", 24));
	ck_assert(!frame_line_valid("a\0b", 3));
	ck_assert(!frame_line_valid("a\x1b[2Jb", 6));
	ck_assert(!frame_line_valid("\x7f", 1));
	ck_assert(!frame_line_valid("\xc3", 1));             /* truncated */
	ck_assert(!frame_line_valid("\xc0\xaf", 2));         /* overlong */
	ck_assert(!frame_line_valid("\xe0\x80\xaf", 3));     /* overlong */
	ck_assert(!frame_line_valid("\xed\xa0\x80", 3));     /* surrogate */
	ck_assert(!frame_line_valid("\xf4\x90\x80\x80", 4)); /* above U+10FFFF */
	ck_assert(!frame_line_valid("\x80", 1));
	/* random junk never crashes and is never taken for a line of text with a 0x00 */
	unsigned x = 12345;
	char buf[256];
	for (int i = 0; i < 20000; i++) {
		size_t n = (size_t)(i % 200) + 1;
		for (size_t k = 0; k < n; k++) {
			x = x * 1103515245u + 12345u;
			buf[k] = (char)(x >> 16);
		}
		bool v = frame_line_valid(buf, n);
		if (memchr(buf, 0, n) != NULL)
			ck_assert(!v);
	}
}
END_TEST

static int parse(const char *text, struct proto_req *rq, char *buf)
{
	strcpy(buf, text);
	return proto_parse(buf, &commands_table, rq);
}

START_TEST(test_parse_basic)
{
	struct proto_req rq;
	char buf[256];
	ck_assert_int_eq(parse("  \t ", &rq, buf), PROTO_EMPTY);
	ck_assert_int_eq(parse("LOGIN alice  \t", &rq, buf), PROTO_OK);
	ck_assert_str_eq(rq.cmd->name, "login");
	ck_assert_int_eq(rq.argc, 1);
	ck_assert_str_eq(rq.argv[0], "alice");
	ck_assert(!rq.tagged);

	ck_assert_int_eq(parse("move 12   MOVE UP   LEFT ", &rq, buf), PROTO_OK);
	ck_assert_int_eq(rq.argc, 2);
	ck_assert_str_eq(rq.argv[0], "12");
	ck_assert_str_eq(rq.argv[1], "MOVE UP   LEFT"); /* the rest, inner spaces kept */

	ck_assert_int_eq(parse("seek mnk m=5 n=5\tk=4", &rq, buf), PROTO_OK);
	ck_assert_int_eq(rq.argc, 4);
	ck_assert_str_eq(rq.argv[3], "k=4");

	ck_assert_int_eq(parse("frobnicate 1", &rq, buf), PROTO_EUNKNOWN);
	ck_assert_str_eq(rq.verb, "frobnicate");
	ck_assert_int_eq(parse("login", &rq, buf), PROTO_EARGS);
	ck_assert_ptr_nonnull(rq.cmd);
	ck_assert_int_eq(parse("unseek 1 2", &rq, buf), PROTO_EARGS);
	/* login <name> <password>: the password is the rest of the line */
	ck_assert_int_eq(parse("login a pass word", &rq, buf), PROTO_OK);
	ck_assert_int_eq(rq.argc, 2);
	ck_assert_str_eq(rq.argv[1], "pass word");
	ck_assert_int_eq(parse("ping extra", &rq, buf), PROTO_EARGS);
	ck_assert_int_eq(parse("move 1", &rq, buf), PROTO_EARGS);
	ck_assert_int_eq(parse("help", &rq, buf), PROTO_OK);
	ck_assert_int_eq(parse("help move", &rq, buf), PROTO_OK);
	ck_assert_int_eq(parse("set format json", &rq, buf), PROTO_OK);
	ck_assert_int_eq(parse("set format", &rq, buf), PROTO_EARGS);
	ck_assert_str_eq(proto_strerror(PROTO_EARGS), "wrong number of arguments");
	ck_assert_str_eq(proto_strerror(PROTO_EBADTAG), "bad tag");
}
END_TEST

START_TEST(test_parse_tags)
{
	struct proto_req rq;
	char buf[256];
	ck_assert_int_eq(parse("#a-1_Z ping", &rq, buf), PROTO_OK);
	ck_assert(rq.tagged);
	ck_assert_str_eq(rq.tag, "a-1_Z");
	ck_assert_str_eq(rq.cmd->name, "ping");
	ck_assert_int_eq(parse("#12345678901234567890123456789012 who", &rq, buf), PROTO_OK);
	ck_assert_int_eq(parse("#123456789012345678901234567890123 who", &rq, buf), PROTO_EBADTAG);
	ck_assert_int_eq(parse("# who", &rq, buf), PROTO_EBADTAG);
	ck_assert_int_eq(parse("#a.b who", &rq, buf), PROTO_EBADTAG);
	ck_assert_int_eq(parse("#abc", &rq, buf), PROTO_EBADTAG);
	ck_assert_int_eq(parse("#t7 nope", &rq, buf), PROTO_EUNKNOWN);
	ck_assert(rq.tagged); /* the error can still carry the tag */
	ck_assert_str_eq(rq.tag, "t7");
}
END_TEST

START_TEST(test_table)
{
	/* every verb once, found case-insensitively, arity sane, a handler */
	const struct proto_table *t = &commands_table;
	for (size_t i = 0; i < t->n; i++) {
		const struct proto_cmd *c = &t->cmds[i];
		char up[32];
		size_t k;
		for (k = 0; c->name[k]; k++)
			up[k] = (char)(c->name[k] - 32 * (c->name[k] >= 'a' && c->name[k] <= 'z'));
		up[k] = '\0';
		ck_assert_ptr_eq(proto_find(t, up), c);
		ck_assert_ptr_nonnull(c->handler);
		/* a flag that needs the game needs it resolved first */
		if (c->flags & (CMD_SEAT | CMD_MEMBER | CMD_LIVE | CMD_OVER))
			ck_assert(c->flags & CMD_GAME);
		if (c->flags & (CMD_GAME | CMD_GAME_ID | CMD_SEEK))
			ck_assert_int_ge(c->min, 1);
		ck_assert_int_le(c->min, c->max);
		ck_assert_int_le(c->max, PROTO_MAX_ARGS);
		ck_assert_ptr_nonnull(c->usage);
		ck_assert(strncmp(c->usage, c->name, strlen(c->name)) == 0);
	}
	ck_assert_ptr_null(proto_find(t, "mov"));
}
END_TEST

START_TEST(test_ids_names)
{
	uint64_t id;
	ck_assert(proto_parse_id("1", &id) && id == 1);
	ck_assert(proto_parse_id("9007199254740991", &id) && id == 9007199254740991ULL);
	ck_assert(!proto_parse_id("9007199254740992", &id));
	ck_assert(!proto_parse_id("0", &id));
	ck_assert(!proto_parse_id("-1", &id));
	ck_assert(!proto_parse_id("+1", &id));
	ck_assert(!proto_parse_id("1a", &id));
	ck_assert(!proto_parse_id("", &id));
	ck_assert(proto_name_valid("al"));
	ck_assert(proto_name_valid("Bob_the-2nd"));
	ck_assert(proto_name_valid("abcdefghijklmnopqrst"));
	ck_assert(!proto_name_valid("abcdefghijklmnopqrstu"));
	ck_assert(!proto_name_valid("a"));
	ck_assert(!proto_name_valid("al ice"));
	ck_assert(!proto_name_valid("\xc3\xa9t\xc3\xa9"));
	/* the house bots' names: computer and digits, in any letter case */
	ck_assert(proto_name_house("computer1"));
	ck_assert(proto_name_house("COMPUTER8"));
	ck_assert(proto_name_house("Computer12"));
	ck_assert(!proto_name_house("computer"));
	ck_assert(!proto_name_house("computers"));
	ck_assert(!proto_name_house("computer1a"));
	ck_assert(!proto_name_house("my_computer1"));
}
END_TEST

START_TEST(test_time)
{
	int64_t b, i;
	ck_assert(seek_parse_time("5+3", &b, &i) && b == 300000 && i == 3000);
	ck_assert(seek_parse_time("0:02+0", &b, &i) && b == 2000 && i == 0);
	ck_assert(seek_parse_time("1:30+10", &b, &i) && b == 90000 && i == 10000);
	ck_assert(!seek_parse_time("0+0", &b, &i));
	ck_assert(!seek_parse_time("0:00+5", &b, &i));
	ck_assert(seek_parse_time("5", &b, &i) && b == 300000 && i == 0);
	ck_assert(seek_parse_time("0:30", &b, &i) && b == 30000 && i == 0);
	ck_assert(!seek_parse_time("0", &b, &i));
	ck_assert(!seek_parse_time("", &b, &i));
	ck_assert(!seek_parse_time("5+", &b, &i));
	ck_assert(!seek_parse_time("+3", &b, &i));
	ck_assert(!seek_parse_time("1:5+0", &b, &i));
	ck_assert(!seek_parse_time("1:60+0", &b, &i));
	ck_assert(!seek_parse_time("-1+0", &b, &i));
	ck_assert(!seek_parse_time("99999999999999999999+0", &b, &i));
	char t[32];
	seek_format_time(300000, 3000, t, sizeof t);
	ck_assert_str_eq(t, "5+3");
	seek_format_time(2000, 0, t, sizeof t);
	ck_assert_str_eq(t, "0:02+0");
}
END_TEST

static int seek(const char *kind, const char *words, struct seek_opts *so, char *err)
{
	char buf[512];
	char *argv[PROTO_MAX_ARGS];
	int argc = 0;
	strcpy(buf, words);
	for (char *w = strtok(buf, " "); w != NULL; w = strtok(NULL, " "))
		argv[argc++] = w;
	const struct game_ops *ops = game_find(kind);
	ck_assert_ptr_nonnull(ops);
	return seek_opts_parse(ops, argc, argv, so, err, 160);
}

START_TEST(test_seek_options)
{
	struct seek_opts so;
	char err[160];
	const struct game_ops *mnk = game_find("mnk");
	ck_assert_int_eq(seek("ttt", "", &so, err), 0);
	ck_assert(!so.timed);
	ck_assert_int_eq(so.color, -1);
	ck_assert(!so.rated);

	ck_assert_int_eq(seek("mnk", "m=5 n=5 k=4 time=5+3 color=black rated=1", &so, err), 0);
	ck_assert(so.timed && so.base_ms == 300000 && so.inc_ms == 3000);
	ck_assert_int_eq(so.color, 1);
	ck_assert(so.rated);
	ck_assert_int_eq(so.params.v[game_opt_index(mnk, "m")], 5);
	ck_assert_int_eq(so.params.v[game_opt_index(mnk, "k")], 4);
	char text[64];
	ck_assert_int_gt(game_params_text(mnk, &so.params, false, text, sizeof text), 0);
	ck_assert_str_eq(text, "m=5 n=5 k=4");
	/* the brief form for people: the board's size always, the rest where not the default */
	const struct game_ops *tak = game_find("tak");
	ck_assert_int_eq(seek("tak", "", &so, err), 0);
	ck_assert_int_gt(game_params_text(tak, &so.params, false, text, sizeof text), 0);
	ck_assert_str_eq(text, "size=5 komi=0 pieces=0 caps=-1 stale=0");
	ck_assert_int_gt(game_params_text(tak, &so.params, true, text, sizeof text), 0);
	ck_assert_str_eq(text, "size=5");
	ck_assert_int_eq(seek("tak", "size=6 komi=4 caps=2", &so, err), 0);
	ck_assert_int_gt(game_params_text(tak, &so.params, true, text, sizeof text), 0);
	ck_assert_str_eq(text, "size=6 komi=4 caps=2");
	const struct game_ops *xmas = game_find("xmas");
	ck_assert_int_eq(seek("xmas", "strict=1", &so, err), 0);
	ck_assert_int_eq(game_params_text(xmas, &so.params, true, text, sizeof text), 0);
	ck_assert_int_eq(seek("xmas", "seed=5 league=2", &so, err), 0);
	ck_assert_int_gt(game_params_text(xmas, &so.params, true, text, sizeof text), 0);
	ck_assert_str_eq(text, "seed=5 league=2 timeout=pass"); /* people's: not the default */
	ck_assert_int_eq(seek("ttt", "time=5", &so, err), 0);
	ck_assert(so.timed && so.base_ms == 300000 && so.inc_ms == 0);

	ck_assert_int_eq(seek("mnk", "COLOR=First", &so, err), 0);
	ck_assert_int_eq(so.color, 0);
	ck_assert_int_eq(seek("mnk", "color=second", &so, err), 0);
	ck_assert_int_eq(so.color, 1);

	ck_assert_int_eq(seek("ttt", "foo=1", &so, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "foo"));
	ck_assert_int_eq(seek("mnk", "m=9", &so, err), -1);
	ck_assert_int_eq(seek("mnk", "m=x", &so, err), -1);
	ck_assert_int_eq(seek("mnk", "m", &so, err), -1);
	ck_assert_int_eq(seek("mnk", "=3", &so, err), -1);
	ck_assert_int_eq(seek("mnk", "m=3 n=3 k=5", &so, err), -1); /* each fine, not together */
	ck_assert_int_eq(seek("ttt", "color=green", &so, err), -1);
	ck_assert_int_eq(seek("ttt", "rated=2", &so, err), -1);
	ck_assert_int_eq(seek("ttt", "time=abc", &so, err), -1);
	ck_assert_int_eq(seek("ttt", "turn_ms=50", &so, err), -1); /* sequential game */
	ck_assert_int_eq(seek("ttt", "strict=1", &so, err), -1);

	/* a simultaneous game, whichever the table has, takes turn_ms and refuses time= */
	for (size_t i = 0; game_table[i] != NULL; i++) {
		const struct game_ops *ops = game_table[i];
		if (!(ops->flags & GAME_SIMULTANEOUS))
			continue;
		ck_assert_int_eq(seek(ops->name, "", &so, err), 0); /* for people */
		ck_assert_int_eq(so.turn_ms, SEEK_TURN_MS_PEOPLE);
		ck_assert_int_eq(seek(ops->name, "strict=1", &so, err), 0); /* a bot's */
		ck_assert_int_eq(so.turn_ms, SEEK_TURN_MS_DEFAULT);
		for (int k = 0; k < ops->nopts; k++) /* the referee's rules for a bot */
			ck_assert(!(ops->opts[k].flags & GAME_OPT_PEOPLE) ||
			          so.params.v[k] == ops->opts[k].def);
		ck_assert_int_eq(seek(ops->name, "turn_ms=50 strict=1", &so, err), 0);
		ck_assert_int_eq(so.turn_ms, 50);
		ck_assert(so.strict);
		ck_assert_int_eq(seek(ops->name, "turn_ms=5", &so, err), -1);
		ck_assert_int_eq(seek(ops->name, "time=5+0", &so, err), -1);
	}
}
END_TEST

/* An option written by word: Xmas Rush's timeout=lose|pass, pass by default for people. */
START_TEST(test_option_words)
{
	struct seek_opts so;
	char err[160], text[256];
	const struct game_ops *x = game_find("xmas");
	int t = game_opt_index(x, "timeout");
	ck_assert_int_ge(t, 0);
	ck_assert_int_eq(seek("xmas", "", &so, err), 0);
	ck_assert(so.params.v[t] == 1 && so.params.set[t]);
	ck_assert_int_gt(game_params_text(x, &so.params, true, text, sizeof text), 0);
	ck_assert_str_eq(text, "timeout=pass");
	ck_assert_int_eq(seek("xmas", "strict=1", &so, err), 0);
	ck_assert(so.params.v[t] == 0);
	ck_assert_int_gt(game_params_text(x, &so.params, false, text, sizeof text), 0);
	ck_assert_ptr_nonnull(strstr(text, "timeout=lose"));
	ck_assert_int_eq(seek("xmas", "strict=1 timeout=PASS", &so, err), 0);
	ck_assert(so.params.v[t] == 1);
	ck_assert_int_eq(seek("xmas", "timeout=lose", &so, err), 0);
	ck_assert(so.params.v[t] == 0);
	ck_assert_int_eq(seek("xmas", "timeout=1", &so, err), -1); /* words only */
	ck_assert_int_eq(seek("xmas", "timeout=never", &so, err), -1);
}
END_TEST

static Suite *proto_suite(void)
{
	Suite *s = suite_create("proto");
	TCase *tc = tcase_create("framing");
	tcase_add_test(tc, test_frame_terminators);
	tcase_add_test(tc, test_frame_telnet);
	tcase_add_test(tc, test_telnet_answers);
	tcase_add_test(tc, test_line_terminator_kept);
	tcase_add_test(tc, test_option_words);
	tcase_add_test(tc, test_frame_sb_unterminated);
	tcase_add_test(tc, test_frame_too_long);
	tcase_add_test(tc, test_frame_valid);
	suite_add_tcase(s, tc);
	tc = tcase_create("commands");
	tcase_add_test(tc, test_parse_basic);
	tcase_add_test(tc, test_parse_tags);
	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_ids_names);
	suite_add_tcase(s, tc);
	tc = tcase_create("seek");
	tcase_add_test(tc, test_time);
	tcase_add_test(tc, test_seek_options);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(proto_suite());
}
