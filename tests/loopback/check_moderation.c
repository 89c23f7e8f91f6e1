/*
 * check_moderation.c - the admins' verbs and the users' blocks over the real
 * server ($BITARENAD on a fresh --data directory): an admin made offline by
 * `bitarenad admin add`, a non-admin refused with NOT_ADMIN, mute (MUTED) and
 * unmute, block (BLOCKED tells and challenges, chat hidden), announce, the
 * motd at login, who with addresses, kick, ban (KICKED, then BANNED at login
 * with its reason) and a ban and a block that survive a restart, an admin's
 * abort of someone else's game (stored as aborted), and the audit rows that
 * `bitarenad audit` prints.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "testserver.h"

#include "check_main.h"

/* Runs `$BITARENAD words --data dir`; its standard output into out (NULL: none). */
static int run_offline(const char *dir, const char *words, char *out, size_t len)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "'%s' %s --data '%s'", getenv("BITARENAD"), words, dir);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	size_t n = out != NULL ? fread(out, 1, len - 1, p) : 0;
	if (out != NULL)
		out[n] = '\0';
	char sink[256];
	while (fread(sink, 1, sizeof sink, p) > 0)
		;
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void login(struct ts_cli *c, int port, const char *name, const char *pw)
{
	ts_connect_json(c, port);
	ts_send(c, "login %s %s", name, pw);
	cJSON_Delete(ts_expectf(c, "{\"type\":\"ok\",\"cmd\":\"login\",\"name\":\"%s\"}", name));
	ts_until0(c, "{\"type\":\"motd\",\"text\":\"be kind\"}");
}

static const char *const motd[] = {"--motd", "be kind"};

START_TEST(test_admin_verbs)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli a, b, e;
	ts_register(&a, s.port, "alice", "secret1");
	ts_register(&b, s.port, "bob", "secret2");
	ts_register(&e, s.port, "eve", "secret3");
	ts_close(&a);
	ts_close(&b);
	ts_close(&e);
	ts_stop(&s);
	ck_assert_int_eq(run_offline(s.datadir, "admin add nobody", NULL, 0), 1);
	ck_assert_int_eq(run_offline(s.datadir, "admin add alice", NULL, 0), 0);
	char out[4096];
	ck_assert_int_eq(run_offline(s.datadir, "admin list", out, sizeof out), 0);
	ck_assert_ptr_nonnull(strstr(out, "alice (since "));

	ts_start(&s, s.datadir, motd, 2);
	login(&a, s.port, "alice", "secret1");
	login(&b, s.port, "bob", "secret2");
	login(&e, s.port, "eve", "secret3");
	/* a non-admin is refused, with the one code */
	ts_send(&b, "ban eve spam");
	ts_until0(&b, "{\"type\":\"error\",\"code\":\"NOT_ADMIN\",\"cmd\":\"ban\"}");
	ts_send(&b, "announce hello");
	ts_until0(&b, "{\"type\":\"error\",\"code\":\"NOT_ADMIN\"}");
	/* who: an admin sees the addresses, others do not */
	ts_send(&a, "who");
	cJSON *who = ts_until(&a, "{\"type\":\"ok\",\"cmd\":\"who\"}");
	cJSON *u0 = cJSON_GetArrayItem(cJSON_GetObjectItem(who, "users"), 0);
	ck_assert_str_eq(ts_jstr(u0, "address"), "127.0.0.1");
	cJSON_Delete(who);
	ts_send(&b, "who");
	who = ts_until(&b, "{\"type\":\"ok\",\"cmd\":\"who\"}");
	u0 = cJSON_GetArrayItem(cJSON_GetObjectItem(who, "users"), 0);
	ck_assert_ptr_null(cJSON_GetObjectItem(u0, "address"));
	cJSON_Delete(who);
	/* mute: say and tell refused with the reason; unmute lifts it */
	ts_send(&a, "mute eve 10m flooding the chat");
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"mute\",\"target\":\"eve\","
	              "\"reason\":\"flooding the chat\"}");
	ts_send(&e, "tell bob hi");
	ts_until0(&e, "{\"type\":\"error\",\"code\":\"MUTED\",\"reason\":\"flooding the chat\"}");
	ts_send(&a, "unmute eve");
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"unmute\"}");
	ts_send(&e, "tell bob hi");
	ts_until0(&e, "{\"type\":\"ok\",\"cmd\":\"tell\"}");
	ts_until0(&b, "{\"type\":\"tell\",\"from\":\"eve\",\"text\":\"hi\"}");
	/* block: no tells, no challenges, no seeks taken, no chat from eve reaches bob */
	ts_send(&b, "block eve");
	ts_until0(&b, "{\"type\":\"ok\",\"cmd\":\"block\",\"blocked\":true}");
	ts_send(&e, "tell bob hi again");
	ts_until0(&e, "{\"type\":\"error\",\"code\":\"BLOCKED\"}");
	ts_send(&e, "match bob ttt");
	ts_until0(&e, "{\"type\":\"error\",\"code\":\"BLOCKED\"}");
	/* a game of eve and gus (a guest) that bob watches: eve's chat is not his, gus's is */
	struct ts_cli g;
	ts_join(&g, s.port, "gus");
	int id = ts_begin_game(&e, &g, "ttt");
	ts_send(&b, "watch %d", id);
	ts_until0(&b, "{\"type\":\"ok\",\"cmd\":\"watch\"}");
	ts_send(&e, "say %d from eve", id);
	ts_until0(&e, "{\"type\":\"ok\",\"cmd\":\"say\"}");
	ts_send(&g, "say %d from gus", id);
	ts_until0(&g, "{\"type\":\"chat\",\"from\":\"gus\"}");
	cJSON *chat = ts_until(&b, "{\"type\":\"chat\"}");
	ck_assert_str_eq(ts_jstr(chat, "from"), "gus"); /* eve's came first, and not to bob */
	cJSON_Delete(chat);
	/* abort: bob (no player, no admin) may not; alice ends the game after both moved */
	ts_send(&b, "abort %d", id);
	ts_until0(&b, "{\"type\":\"error\",\"code\":\"NOT_YOUR_GAME\"}");
	cJSON_Delete(ts_play(&e, &g, id, "b2"));
	cJSON_Delete(ts_play(&g, &e, id, "a1"));
	ts_send(&a, "abort %d", id);
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"abort\"}");
	ts_until0(&e, "{\"type\":\"info\",\"event\":\"aborted\",\"by\":\"alice\"}");
	ts_until0(&g, "{\"type\":\"game_over\",\"result\":{\"reason\":\"aborted\"}}");
	ts_close(&g);
	/* announce reaches every connection */
	ts_send(&a, "announce restart at ten");
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"announce\"}");
	ts_until0(&b, "{\"type\":\"announce\",\"from\":\"alice\",\"text\":\"restart at ten\"}");
	ts_until0(&e, "{\"type\":\"announce\",\"from\":\"alice\",\"text\":\"restart at ten\"}");
	/* kick: told why, closed */
	ts_send(&a, "kick bob too loud");
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"kick\",\"closed\":1}");
	ts_until0(&b, "{\"type\":\"info\",\"code\":\"KICKED\"}");
	ck_assert(ts_eof(&b));
	ts_close(&b);
	/* ban: closed, then refused at login with the reason */
	ts_send(&a, "ban eve 2h cheating");
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"ban\",\"target\":\"eve\",\"closed\":1}");
	ts_until0(&e, "{\"type\":\"info\",\"code\":\"KICKED\"}");
	ck_assert(ts_eof(&e));
	ts_close(&e);
	ts_connect_json(&e, s.port);
	ts_send(&e, "login eve secret3");
	ts_until0(&e, "{\"type\":\"error\",\"code\":\"BANNED\",\"reason\":\"cheating\","
	              "\"by\":\"alice\"}");
	ts_close(&e);
	ts_close(&a);
	ts_stop(&s);

	/* the audit trail, newest first */
	ck_assert_int_eq(run_offline(s.datadir, "audit", out, sizeof out), 0);
	const char *want[] = {"alice ban eve until=",
	                      "alice kick bob reason=too loud",
	                      "alice announce * reason=restart at ten",
	                      "alice abort",
	                      "alice unmute eve",
	                      "alice mute eve until=",
	                      "(host) admin add alice"};
	const char *at = out;
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		const char *f = strstr(at, want[i]);
		ck_assert_msg(f != NULL, "audit: no '%s' after its newer rows in:\n%s", want[i],
		              out);
		at = f;
	}

	/* after a restart: the ban holds, and bob's block of eve */
	ts_start(&s, s.datadir, motd, 2);
	ts_connect_json(&e, s.port);
	ts_send(&e, "login eve secret3");
	ts_until0(&e, "{\"type\":\"error\",\"code\":\"BANNED\",\"reason\":\"cheating\"}");
	login(&a, s.port, "alice", "secret1");
	login(&b, s.port, "bob", "secret2");
	ts_send(&a, "unban eve");
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"unban\"}");
	ts_send(&a, "unban eve");
	ts_until0(&a, "{\"type\":\"error\",\"code\":\"BAD_ARGS\"}");
	ts_send(&e, "login eve secret3");
	ts_until0(&e, "{\"type\":\"ok\",\"cmd\":\"login\"}");
	ts_send(&e, "tell bob still there?");
	ts_until0(&e, "{\"type\":\"error\",\"code\":\"BLOCKED\"}");
	ts_send(&b, "unblock eve");
	ts_until0(&b, "{\"type\":\"ok\",\"cmd\":\"unblock\"}");
	ts_send(&e, "tell bob hello");
	ts_until0(&e, "{\"type\":\"ok\",\"cmd\":\"tell\"}");
	ts_close(&a);
	ts_close(&b);
	ts_close(&e);
	ts_down(&s);
}
END_TEST

static Suite *moderation_suite(void)
{
	Suite *s = suite_create("moderation");
	TCase *tc = tcase_create("server");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_admin_verbs);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	return check_run(moderation_suite());
}
