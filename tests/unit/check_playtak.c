/*
 * check_playtak.c - the playtak.com client lines (src/server/playtak.h) as
 * tak.md section 3 lists them and as real clients send them: takbag ends its
 * moves with a blank, tiltak's `M C2 C3 1` is PTN `c2+`, the three Seek
 * shapes, PING and quit only as whole lines; moves both ways with PTN; and the
 * server's seek, game and Game Start lines in each protocol version's shape,
 * as the playtak server's code writes them (trailing blank included); text
 * past its limit cut on a UTF-8 boundary.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "server/ports/playtak.h"
#include "server/util/text.h"

START_TEST(test_client_lines)
{
	struct pt_line l;
	ck_assert_int_eq(pt_parse("Client takbag-1.0", &l), PT_CLIENT);
	ck_assert_str_eq(l.name, "takbag-1.0");
	ck_assert_int_eq(pt_parse("Protocol 2", &l), PT_PROTOCOL);
	ck_assert_int_eq(l.protocol, 2);
	ck_assert_int_eq(pt_parse("Protocol 0", &l), PT_UNKNOWN);
	ck_assert_int_eq(pt_parse("Login alice secret123", &l), PT_LOGIN);
	ck_assert_str_eq(l.name, "alice");
	ck_assert_str_eq(l.pass, "secret123");
	ck_assert_int_eq(pt_parse("Login al secret123", &l), PT_UNKNOWN); /* names: 4..16 */
	ck_assert_int_eq(pt_parse("Login alice short", &l), PT_UNKNOWN);  /* passwords: 6.. */
	ck_assert_int_eq(pt_parse("Login Guest", &l), PT_LOGIN_GUEST);
	ck_assert_str_eq(l.name, "");
	ck_assert_int_eq(pt_parse("Login Guest abcdefghijklmnopqrst", &l), PT_LOGIN_GUEST);
	ck_assert_str_eq(l.name, "abcdefghijklmnopqrst");
	ck_assert_int_eq(pt_parse("Accept 12", &l), PT_ACCEPT);
	ck_assert_int_eq(l.game, 12);
	ck_assert_int_eq(pt_parse("List", &l), PT_LIST);
	ck_assert_int_eq(pt_parse("GameList", &l), PT_GAMELIST);
	ck_assert_int_eq(pt_parse("Observe 3", &l), PT_OBSERVE);
	ck_assert_int_eq(pt_parse("Unobserve 3", &l), PT_UNOBSERVE);
	ck_assert_int_eq(l.game, 3);
	ck_assert_int_eq(pt_parse("Shout hello all", &l), PT_SHOUT);
	ck_assert_str_eq(l.text, "hello all");
	ck_assert_int_eq(pt_parse("Tell bob hi there", &l), PT_TELL);
	ck_assert_str_eq(l.name, "bob");
	ck_assert_str_eq(l.text, "hi there");
	ck_assert_int_eq(pt_parse("PING", &l), PT_PING);
	ck_assert_int_eq(pt_parse("PING ", &l), PT_UNKNOWN); /* ^PING$ */
	ck_assert_int_eq(pt_parse("quit", &l), PT_QUIT);
	ck_assert_int_eq(pt_parse("quit now", &l), PT_UNKNOWN);
	ck_assert_int_eq(pt_parse("Game#4 OfferDraw", &l), PT_OFFER_DRAW);
	ck_assert_int_eq(pt_parse("Game#4 RemoveUndo", &l), PT_REMOVE_UNDO);
	ck_assert_int_eq(pt_parse("Game#4 Resign", &l), PT_RESIGN);
	ck_assert_int_eq(l.game, 4);
	ck_assert_int_eq(pt_parse("hello", &l), PT_UNKNOWN);
	/* text is 1..256 characters: an empty Shout or Tell is no command */
	ck_assert_int_eq(pt_parse("Shout ", &l), PT_UNKNOWN);
	ck_assert_int_eq(pt_parse("Tell bob ", &l), PT_UNKNOWN);
	/* rooms (playtak-ui: a game's room is its players' names, sorted, joined by '-') */
	ck_assert_int_eq(pt_parse("JoinRoom alice-bob", &l), PT_JOIN_ROOM);
	ck_assert_str_eq(l.name, "alice-bob");
	ck_assert_int_eq(pt_parse("LeaveRoom alice-bob", &l), PT_LEAVE_ROOM);
	ck_assert_int_eq(pt_parse("ShoutRoom alice-bob good game", &l), PT_SHOUT_ROOM);
	ck_assert_str_eq(l.name, "alice-bob");
	ck_assert_str_eq(l.text, "good game");
	ck_assert_int_eq(pt_parse("ShoutRoom alice-bob ", &l), PT_UNKNOWN);
	ck_assert_int_eq(pt_parse("JoinRoom ", &l), PT_UNKNOWN);
	/* playtak-ui's Rematch: the old game's id, then a seek's fields */
	ck_assert_int_eq(pt_parse("Rematch 41 5 600 10 B 0 21 1 0 0 0 0 bob", &l), PT_REMATCH);
	ck_assert_int_eq(l.game, 41);
}
END_TEST

/* Text past its limit is cut before a UTF-8 sequence the cut would split, never inside one. */
START_TEST(test_utf8_cuts)
{
	static const char euro[] = "\xe2\x82\xac"; /* 3 bytes: 256 is no multiple of it */
	char line[1024], *at;
	struct pt_line l;
	for (int shape = 0; shape < 4; shape++) {
		static const char *const heads[] = {"Shout ", "Tell bob ", "ShoutRoom a-b ",
		                                    "JoinRoom "};
		at = line + sprintf(line, "%s", heads[shape]);
		for (int i = 0; i < 100; i++)
			at += sprintf(at, "%s", euro);
		ck_assert_int_ne(pt_parse(line, &l), PT_UNKNOWN);
		const char *field = shape == 3 ? l.name : l.text;
		size_t max = shape == 3 ? 64 : PT_TEXT_MAX, n = strlen(field);
		ck_assert_uint_eq(n, max / 3 * 3); /* whole characters only: 255, 63 */
		ck_assert_int_eq(text_check(field, n, NULL), TEXT_OK);
	}
	/* a password of 2-byte characters past 50 bytes: 25 of them */
	at = line + sprintf(line, "Login alice ");
	for (int i = 0; i < 40; i++)
		at += sprintf(at, "\xc3\xa9");
	ck_assert_int_eq(pt_parse(line, &l), PT_LOGIN);
	ck_assert_uint_eq(strlen(l.pass), 50);
	ck_assert_int_eq(text_check(l.pass, 50, NULL), TEXT_OK);
	/* a cut at 3 bytes of a 4-byte character keeps none of it */
	at = line + sprintf(line, "Shout ");
	memset(at, 'x', 254);
	strcpy(at + 254, "\xf0\x9f\x98\x80!");
	ck_assert_int_eq(pt_parse(line, &l), PT_SHOUT);
	ck_assert_uint_eq(strlen(l.text), 254);
}
END_TEST

START_TEST(test_server_lines)
{
	char b[256];
	struct pt_seekinfo k = {.id = 7,
	                        .name = "alice",
	                        .size = 6,
	                        .time_s = 900,
	                        .incr_s = 20,
	                        .color = 'W',
	                        .komi = 4,
	                        .pieces = 30,
	                        .caps = 1,
	                        .unrated = true,
	                        .opponent = ""};
	/* Seek.buildSeekStringArray: v1 ends with the opponent, "" leaving a blank */
	ck_assert_int_gt(pt_format_seek(b, sizeof b, 0, &k), 0);
	ck_assert_str_eq(b, "7 alice 6 900 20 W 4 30 1 1 0 0 0 ");
	ck_assert_int_gt(pt_format_seek(b, sizeof b, 1, &k), 0);
	ck_assert_str_eq(b, "7 alice 6 900 20 W 4 30 1 1 0 0 0 ");
	/* v2: the opponent 0 when there is none, then the bot flag */
	ck_assert_int_gt(pt_format_seek(b, sizeof b, 2, &k), 0);
	ck_assert_str_eq(b, "7 alice 6 900 20 W 4 30 1 1 0 0 0 0 0");
	k.opponent = "bob";
	k.trigger = 10;
	k.amount = 300;
	pt_format_seek(b, sizeof b, 0, &k);
	ck_assert_str_eq(b, "7 alice 6 900 20 W 4 30 1 1 0 10 300 bob");
	pt_format_seek(b, sizeof b, 3, &k);
	ck_assert_str_eq(b, "7 alice 6 900 20 W 4 30 1 1 0 10 300 bob 0");
	ck_assert_int_lt(pt_format_seek(b, 10, 2, &k), 0);

	struct pt_gameinfo g = {.id = 12,
	                        .white = "alice",
	                        .black = "bob",
	                        .size = 5,
	                        .time_s = 600,
	                        .incr_s = 10,
	                        .komi = 2,
	                        .pieces = 21,
	                        .caps = 1};
	/* Game.stringForm: GameList Add/Remove and Observe */
	ck_assert_int_gt(pt_format_game(b, sizeof b, &g), 0);
	ck_assert_str_eq(b, "12 alice bob 5 600 10 2 21 1 0 0 0 0");
	/* Client.createGameStartString: words 2 and 7 are what takbag and taktician read */
	ck_assert_int_gt(pt_format_game_start(b, sizeof b, 0, &g, true), 0);
	ck_assert_str_eq(b, "Game Start 12 5 alice vs bob white 600 2 21 1 0 0");
	pt_format_game_start(b, sizeof b, 1, &g, false);
	ck_assert_str_eq(b, "Game Start 12 5 alice vs bob black 600 2 21 1 0 0");
	/* protocol 2, as playtak-ui reads it (words 6..17) */
	pt_format_game_start(b, sizeof b, 2, &g, false);
	ck_assert_str_eq(b, "Game Start 12 alice vs bob black 5 600 10 2 21 1 0 0 0 0 0");
	ck_assert_int_lt(pt_format_game_start(b, 20, 2, &g, false), 0);
	ck_assert_int_lt(pt_format_game(b, 8, &g), 0);
}
END_TEST

START_TEST(test_seeks)
{
	struct pt_line l;
	ck_assert_int_eq(pt_parse("Seek 5 600 10", &l), PT_SEEK);
	ck_assert(l.seek.shape == 1 && l.seek.size == 5 && l.seek.time_s == 600 &&
	          l.seek.incr_s == 10 && l.seek.color == 'A' && l.seek.komi == 0 &&
	          l.seek.pieces == 0 && l.seek.caps == -1);
	pt_parse("Seek 6 900 20 W", &l);
	ck_assert(l.seek.shape == 1 && l.seek.color == 'W');
	ck_assert_int_eq(pt_parse("Seek 6 900 20 A 4 30 1 0 0 ", &l), PT_SEEK);
	ck_assert(l.seek.shape == 2 && l.seek.color == 'A' && l.seek.komi == 4 &&
	          l.seek.pieces == 30 && l.seek.caps == 1 && !l.seek.unrated && !l.seek.tournament);
	ck_assert_str_eq(l.seek.opponent, "");
	/* shape 3: extra time trigger (a move number), then amount, as the server's code reads it
	 */
	ck_assert_int_eq(pt_parse("Seek 6 900 20 B 4 30 1 1 0 20 300 bob", &l), PT_SEEK);
	ck_assert(l.seek.shape == 3 && l.seek.color == 'B' && l.seek.unrated &&
	          l.seek.trigger == 20 && l.seek.amount == 300);
	ck_assert_str_eq(l.seek.opponent, "bob");
	pt_parse("Seek 0 0 0", &l);
	ck_assert(l.cmd == PT_SEEK && l.seek.size == 0);
	ck_assert_int_eq(pt_parse("Seek x 1 1", &l), PT_UNKNOWN);
}
END_TEST

START_TEST(test_moves)
{
	struct pt_line l;
	char ptn[32], mv[32];
	/* takbag's trailing blank is ignored, as the server's find() does */
	ck_assert_int_eq(pt_parse("Game#12 P A1 ", &l), PT_PLACE);
	ck_assert(l.game == 12 && strcmp(l.from, "A1") == 0 && l.piece == 0);
	ck_assert_int_gt(pt_to_ptn(&l, ptn, sizeof ptn), 0);
	ck_assert_str_eq(ptn, "a1");
	pt_parse("Game#12 P C3 W", &l);
	pt_to_ptn(&l, ptn, sizeof ptn);
	ck_assert_str_eq(ptn, "Sc3");
	pt_parse("Game#12 P C3 C", &l);
	pt_to_ptn(&l, ptn, sizeof ptn);
	ck_assert_str_eq(ptn, "Cc3");
	ck_assert_int_eq(pt_parse("Game#12 M A1 C1 1 2", &l), PT_MOVE);
	pt_to_ptn(&l, ptn, sizeof ptn);
	ck_assert_str_eq(ptn, "3a1>12");
	pt_parse("Game#12 M C3 C5 1 2 ", &l);
	pt_to_ptn(&l, ptn, sizeof ptn);
	ck_assert_str_eq(ptn, "3c3+12");
	pt_parse("Game#12 M C2 C3 1", &l);
	pt_to_ptn(&l, ptn, sizeof ptn);
	ck_assert_str_eq(ptn, "1c2+1");
	/* not a straight line, or drops that do not fit the distance */
	pt_parse("Game#12 M A1 B2 1", &l);
	ck_assert_int_lt(pt_to_ptn(&l, ptn, sizeof ptn), 0);
	pt_parse("Game#12 M A1 C1 1", &l);
	ck_assert_int_lt(pt_to_ptn(&l, ptn, sizeof ptn), 0);
	ck_assert_int_eq(pt_parse("Game#12 M A1 C1", &l), PT_UNKNOWN);

	static const char *const both[][2] = {
	        {"c3", "P C3"},
	        {"Sa1", "P A1 W"},
	        {"Cb2", "P B2 C"},
	        {"3a1>12", "M A1 C1 1 2"},
	        {"c2+", "M C2 C3 1"},
	        {"1b2>1", "M B2 C2 1"},
	        {"4c2+4", "M C2 C3 4"},
	        {"a1>'", "M A1 B1 1"},
	        {"5e4<23", "M E4 C4 2 3"},
	        {"2d4-2S", "M D4 D3 2"},
	};
	for (size_t i = 0; i < sizeof both / sizeof both[0]; i++) {
		ck_assert_int_gt(pt_from_ptn(both[i][0], mv, sizeof mv), 0);
		ck_assert_str_eq(mv, both[i][1]);
	}
	static const char *const bad[] = {"h8+", "9a1>", "2a1>1", "a9", "x1", "3c3", "Sa1>", ""};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(pt_from_ptn(bad[i], mv, sizeof mv) < 0, "%s", bad[i]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("playtak");
	TCase *tc = tcase_create("lines");
	tcase_add_test(tc, test_client_lines);
	tcase_add_test(tc, test_utf8_cuts);
	tcase_add_test(tc, test_seeks);
	tcase_add_test(tc, test_moves);
	tcase_add_test(tc, test_server_lines);
	suite_add_tcase(s, tc);
	return check_run(s);
}
