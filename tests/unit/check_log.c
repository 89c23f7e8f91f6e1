/*
 * check_log.c - the server's log (src/server/util/log.c): one line per event
 * whatever its text holds, the level first, values quoted where they must
 * be, lines above the level set not written, the journal's priority prefix
 * when stderr is the journal (JOURNAL_STREAM).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/util/log.h"
#include "check_main.h"
#include "tmpdir.h"

/* What the log calls of fn() write to stderr, into out (stderr redirected to a file). */
static void capture(void (*fn)(void), char *out, size_t len)
{
	char dir[256], path[300];
	tmpdir_make(dir, sizeof dir, "check-log");
	snprintf(path, sizeof path, "%s/stderr", dir);
	fflush(stderr);
	int saved = dup(STDERR_FILENO);
	ck_assert_ptr_nonnull(freopen(path, "w", stderr));
	fn();
	fflush(stderr);
	ck_assert_int_eq(dup2(saved, STDERR_FILENO), STDERR_FILENO);
	close(saved);
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	size_t n = fread(out, 1, len - 1, f);
	out[n] = '\0';
	fclose(f);
	tmpdir_remove(dir);
}

static int lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

START_TEST(test_levels)
{
	ck_assert_int_eq(log_level_parse("error"), LOG_LEVEL_ERROR);
	ck_assert_int_eq(log_level_parse("warn"), LOG_LEVEL_WARN);
	ck_assert_int_eq(log_level_parse("info"), LOG_LEVEL_INFO);
	ck_assert_int_eq(log_level_parse("debug"), LOG_LEVEL_DEBUG);
	ck_assert_int_eq(log_level_parse("verbose"), -1);
	ck_assert_int_eq(log_level_parse("INFO"), -1);
	ck_assert_int_eq(log_level_parse(NULL), -1);
	ck_assert_int_eq(LOG_LEVEL_DEFAULT, LOG_LEVEL_INFO);
	log_set_level(LOG_LEVEL_WARN);
	ck_assert(log_enabled(LOG_LEVEL_ERROR) && log_enabled(LOG_LEVEL_WARN));
	ck_assert(!log_enabled(LOG_LEVEL_INFO) && !log_enabled(LOG_LEVEL_DEBUG));
	ck_assert_int_eq(log_get_level(), LOG_LEVEL_WARN);
	log_set_level(LOG_LEVEL_DEFAULT);
}
END_TEST

START_TEST(test_quote)
{
	char buf[64];
	ck_assert_str_eq(log_quote(buf, sizeof buf, "bob"), "bob");
	ck_assert_str_eq(log_quote(buf, sizeof buf, "127.0.0.1:7777"), "127.0.0.1:7777");
	ck_assert_str_eq(log_quote(buf, sizeof buf, NULL), "-");
	ck_assert_str_eq(log_quote(buf, sizeof buf, ""), "\"\"");
	ck_assert_str_eq(log_quote(buf, sizeof buf, "disk I/O error"), "\"disk I/O error\"");
	ck_assert_str_eq(log_quote(buf, sizeof buf, "a=b"), "\"a=b\"");
	ck_assert_str_eq(log_quote(buf, sizeof buf, "say \"hi\" \\o/"),
	                 "\"say \\\"hi\\\" \\\\o/\"");
	ck_assert_str_eq(log_quote(buf, sizeof buf, "two\nlines"), "\"two\nlines\"");
	/* too long: cut, still closed by its quote */
	char big[200];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	big[3] = ' ';
	const char *q = log_quote(buf, sizeof buf, big);
	ck_assert_uint_le(strlen(q), sizeof buf - 1);
	ck_assert_int_eq(q[0], '"');
	ck_assert_str_eq(q + strlen(q) - 4, "...\"");
}
END_TEST

static void write_some(void)
{
	log_set_level(LOG_LEVEL_INFO);
	log_info("listening addr=%s", "127.0.0.1:7777");
	log_debug("connection opened conn=%d", 1); /* above the level: not written */
	log_error("store failed why=%s", LOG_Q("disk\nfull\x01"));
	log_warn("raw text\r\nwith breaks\tand a tab");
	char big[3 * LOG_LINE_MAX];
	memset(big, 'y', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	log_info("long %s", big);
}

START_TEST(test_one_line_per_event)
{
	unsetenv("JOURNAL_STREAM");
	static char out[4 * LOG_LINE_MAX];
	capture(write_some, out, sizeof out);
	ck_assert_int_eq(lines(out), 4);
	char *l1 = out, *l2 = strchr(l1, '\n') + 1, *l3 = strchr(l2, '\n') + 1,
	     *l4 = strchr(l3, '\n') + 1;
	/* 2026-05-01T10:00:00.123Z bitarenad info: ... */
	ck_assert_int_eq(l1[4], '-');
	ck_assert_int_eq(l1[10], 'T');
	ck_assert_int_eq(l1[23], 'Z');
	ck_assert_msg(strncmp(l1 + 24, " bitarenad info: listening addr=127.0.0.1:7777\n", 47) == 0,
	              "%s", l1);
	ck_assert_msg(strncmp(l2 + 24, " bitarenad error: store failed why=\"disk\\nfull\\x01\"\n",
	                      51) == 0,
	              "%s", l2);
	ck_assert_msg(strncmp(l3 + 24, " bitarenad warn: raw text\\r\\nwith breaks\\tand a tab\n",
	                      52) == 0,
	              "%s", l3);
	size_t n4 = strcspn(l4, "\n");
	ck_assert_uint_le(n4, LOG_LINE_MAX + 8);
	ck_assert(strncmp(l4 + n4 - 3, "...", 3) == 0);
}
END_TEST

static void write_one(void)
{
	log_set_level(LOG_LEVEL_DEBUG);
	log_info("listening addr=%s", "x");
	log_debug("connection opened conn=%d", 7);
	log_set_level(LOG_LEVEL_DEFAULT);
}

/*
 * With stderr the journal (JOURNAL_STREAM names its device and inode), a
 * line begins with the level as syslog's priority and has no time of its own.
 * The journal is read once per process: this case runs in its own (Check forks).
 */
START_TEST(test_journal_prefix)
{
	char dir[256], path[300], env[64];
	tmpdir_make(dir, sizeof dir, "check-log-journal");
	snprintf(path, sizeof path, "%s/stderr", dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	snprintf(env, sizeof env, "%llu:%llu", (unsigned long long)st.st_dev,
	         (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", env, 1);
	fflush(stderr);
	int saved = dup(STDERR_FILENO);
	ck_assert_ptr_nonnull(freopen(path, "a", stderr));
	write_one();
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	char out[512];
	f = fopen(path, "r");
	size_t n = fread(out, 1, sizeof out - 1, f);
	out[n] = '\0';
	fclose(f);
	tmpdir_remove(dir);
	ck_assert_str_eq(out, "<6>info: listening addr=x\n<7>debug: connection opened conn=7\n");
}
END_TEST

static Suite *log_suite(void)
{
	Suite *s = suite_create("log");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_levels);
	tcase_add_test(tc, test_quote);
	tcase_add_test(tc, test_one_line_per_event);
	tcase_add_test(tc, test_journal_prefix);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(log_suite());
}
