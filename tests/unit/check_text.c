/*
 * check_text.c - the one check of text entering the server (src/server/text.c):
 * UTF-8, control characters C0 and C1, bidirectional overrides and isolates,
 * line and paragraph separators, the offset of the first problem; cutting
 * text at a character boundary.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "server/net/framing.h"
#include "server/util/text.h"
#include "check_main.h"

static int check(const char *s)
{
	return text_check(s, strlen(s), NULL);
}

START_TEST(test_plain_text_passes)
{
	ck_assert_int_eq(check(""), TEXT_OK);
	ck_assert_int_eq(check("say 1 gg\twp"), TEXT_OK);
	ck_assert_int_eq(check("say 1 h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80"), TEXT_OK);
	/* Hebrew and Arabic with the plain marks LRM (U+200E) and RLM (U+200F) */
	ck_assert_int_eq(check("say 1 \xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d \xe2\x80\x8e ok"), TEXT_OK);
	ck_assert_int_eq(check("say 1 \xd8\xb3\xd9\x84\xd8\xa7\xd9\x85\xe2\x80\x8f"), TEXT_OK);
	/* U+00A0 (just past C1) and U+2027, U+202F (either side of the refused ranges) */
	ck_assert_int_eq(check("\xc2\xa0 \xe2\x80\xa7 \xe2\x80\xaf \xe2\x81\xa5 \xe2\x81\xaa"),
	                 TEXT_OK);
}
END_TEST

START_TEST(test_controls_refused)
{
	ck_assert_int_eq(check("a\x1b[2Jb"), TEXT_ECONTROL);
	ck_assert_int_eq(check("\x7f"), TEXT_ECONTROL);
	ck_assert_int_eq(text_check("a\0b", 3, NULL), TEXT_ECONTROL);
	/* C1: U+0080, U+0085 (NEL, a line break to some), U+009B (CSI to a terminal), U+009F */
	ck_assert_int_eq(check("x\xc2\x80"), TEXT_ECONTROL);
	ck_assert_int_eq(check("x\xc2\x85y"), TEXT_ECONTROL);
	ck_assert_int_eq(check("say 1 \xc2\x9b[2J"), TEXT_ECONTROL);
	ck_assert_int_eq(check("\xc2\x9f"), TEXT_ECONTROL);
}
END_TEST

START_TEST(test_bidi_and_separators_refused)
{
	/* U+202A..U+202E: LRE RLE PDF LRO RLO */
	const char *embed[] = {"\xe2\x80\xaa", "\xe2\x80\xab", "\xe2\x80\xac", "\xe2\x80\xad",
	                       "\xe2\x80\xae"};
	/* U+2066..U+2069: LRI RLI FSI PDI */
	const char *isolate[] = {"\xe2\x81\xa6", "\xe2\x81\xa7", "\xe2\x81\xa8", "\xe2\x81\xa9"};
	char line[64];
	for (size_t i = 0; i < 5; i++) {
		snprintf(line, sizeof line, "say 1 evil%sgnp.exe", embed[i]);
		ck_assert_int_eq(check(line), TEXT_EBIDI);
	}
	for (size_t i = 0; i < 4; i++) {
		snprintf(line, sizeof line, "login a%sb", isolate[i]);
		ck_assert_int_eq(check(line), TEXT_EBIDI);
	}
	ck_assert_int_eq(check("say 1 one\xe2\x80\xa8two"), TEXT_ESEPARATOR);
	ck_assert_int_eq(check("say 1 one\xe2\x80\xa9two"), TEXT_ESEPARATOR);
	/* every refusal has its own sentence */
	for (int e = TEXT_EUTF8; e >= TEXT_ESEPARATOR; e--)
		ck_assert_str_ne(text_strerror(e), text_strerror(TEXT_OK));
	/* the framer's check is this one */
	ck_assert(!frame_line_valid("say 1 a\xe2\x80\xae!", 11));
	ck_assert(!frame_line_valid("a\xc2\x9b", 3));
	ck_assert(frame_line_valid("say 1 ok", 8));
}
END_TEST

START_TEST(test_utf8_refused_and_offset)
{
	ck_assert_int_eq(check("\xc3"), TEXT_EUTF8);             /* cut */
	ck_assert_int_eq(check("\xc0\xaf"), TEXT_EUTF8);         /* overlong */
	ck_assert_int_eq(check("\xe0\x80\xaf"), TEXT_EUTF8);     /* overlong */
	ck_assert_int_eq(check("\xed\xa0\x80"), TEXT_EUTF8);     /* surrogate */
	ck_assert_int_eq(check("\xf4\x90\x80\x80"), TEXT_EUTF8); /* above U+10FFFF */
	ck_assert_int_eq(check("\x80"), TEXT_EUTF8);
	ck_assert_int_eq(check("\xff"), TEXT_EUTF8);
	size_t at = 99;
	ck_assert_int_eq(text_check("ab\xc3\xa9\xe2\x80\xae", 7, &at), TEXT_EBIDI);
	ck_assert_uint_eq(at, 4);
	ck_assert_int_eq(text_check("ok", 2, &at), TEXT_OK);
	ck_assert_uint_eq(at, 2);
}
END_TEST

START_TEST(test_cut_keeps_characters_whole)
{
	ck_assert_uint_eq(text_cut("abc", 10), 3);
	ck_assert_uint_eq(text_cut("abc", 3), 3);
	ck_assert_uint_eq(text_cut("abcd", 3), 3);
	/* "a" U+00E9 "z": a cut after 2 bytes would split U+00E9 */
	ck_assert_uint_eq(text_cut("a\xc3\xa9z", 2), 1);
	ck_assert_uint_eq(text_cut("a\xc3\xa9z", 3), 3);
	/* U+1F600 (4 bytes) after one byte: every cut inside it keeps only "a" */
	for (size_t max = 1; max < 5; max++)
		ck_assert_uint_eq(text_cut("a\xf0\x9f\x98\x80z", max), 1);
	ck_assert_uint_eq(text_cut("a\xf0\x9f\x98\x80z", 5), 5);
	ck_assert_uint_eq(text_cut("\xe2\x82\xac", 0), 0);
	/* what is kept always passes the check */
	const char *s = "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xc3\xa9";
	for (size_t max = 0; max <= strlen(s); max++)
		ck_assert_int_eq(text_check(s, text_cut(s, max), NULL), TEXT_OK);
}
END_TEST

static Suite *text_suite(void)
{
	Suite *s = suite_create("text");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_plain_text_passes);
	tcase_add_test(tc, test_controls_refused);
	tcase_add_test(tc, test_bidi_and_separators_refused);
	tcase_add_test(tc, test_utf8_refused_and_offset);
	tcase_add_test(tc, test_cut_keeps_characters_whole);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(text_suite());
}
