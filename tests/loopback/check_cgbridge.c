/*
 * check_cgbridge.c - `bitarena cg-bridge` end to end: a real bitarenad on a
 * free port, two bridges, and CodinGame-style Xmas Rush bots written here: a
 * C bot that never flushes stdout (this very program, run with --bot), a
 * Python bot (when python3 is installed), and bots that crash or hang. Full
 * games must end normally; a crash or a hang must end as the referee's
 * timeout, with no stuck processes, and a crash is told as one every time
 * (the bridge's child processes, clients/lib/proc.c, are compiled in).
 *
 * Finds the programs through $BITARENAD and $BITARENA (set by `make check`).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check_main.h"
#include "lib/proc.h"
#include "testproc.h"
#include "testserver.h"

static char self[PATH_MAX];
static char tmpdir[] = "/tmp/check_cgbridge.XXXXXX";
static pid_t server_pid = -1;
static int port;

/* --- the bots (this program with --bot MODE) ------------------------------------------- */

/*
 * Reads the contest input with scanf and answers with printf and no fflush:
 * on a pipe nothing would arrive before exit, on the bridge's pty each line
 * does. MODE "play" plays random legal-looking actions forever, "crash"
 * aborts on its third turn, "hang" stops answering on its third turn but
 * keeps spamming stderr, as some real bots do, "junk" answers its third
 * turn with a line that is no action (the referee's invalid output),
 * "double-fast" and "double-slow" print two lines in their first turn (the
 * second at once or 200 ms later), "slowfirst" takes 300 ms on each of
 * its first two turns, and "die" aborts as soon as its first line comes.
 */
static int run_bot(const char *mode)
{
	if (strcmp(mode, "die") == 0) {
		char first[64];
		if (fgets(first, sizeof first, stdin) == NULL)
			return 1;
		struct rlimit no_core = {0, 0};
		setrlimit(RLIMIT_CORE, &no_core);
		abort();
	}
	static const char *const dir[4] = {"UP", "RIGHT", "DOWN", "LEFT"};
	char w[64];
	int type, n, x, turn = 0;
	unsigned r = 12345;
	while (scanf("%d", &type) == 1) {
		for (int i = 0; i < 49; i++)
			if (scanf("%63s", w) != 1)
				return 1;
		for (int i = 0; i < 2; i++)
			if (scanf("%d %d %d %63s", &x, &x, &x, w) != 4)
				return 1;
		if (scanf("%d", &n) != 1)
			return 1;
		for (int i = 0; i < n; i++)
			if (scanf("%63s %d %d %d", w, &x, &x, &x) != 4)
				return 1;
		if (scanf("%d", &n) != 1)
			return 1;
		for (int i = 0; i < n; i++)
			if (scanf("%63s %d", w, &x) != 2)
				return 1;
		fprintf(stderr, "bot turn %d: lots of debug output on stderr\n", turn);
		if (turn == 0 && strcmp(mode, "slowfirst") == 0)
			usleep(300000); /* within the first turn's time */
		if (turn == 1 && strcmp(mode, "slowfirst") == 0)
			usleep(300000); /* past a later turn's time */
		if (++turn == 3 && strcmp(mode, "crash") == 0) {
			struct rlimit no_core = {0, 0};
			setrlimit(RLIMIT_CORE, &no_core);
			abort();
		}
		if (turn >= 3 && strcmp(mode, "hang") == 0)
			for (;;)
				fprintf(stderr, "still thinking\n");
		if (turn == 3 && strcmp(mode, "junk") == 0)
			printf("still thinking\n");
		r = r * 1103515245u + 12345u;
		if (turn == 1 && strncmp(mode, "double", 6) == 0) {
			/* two lines in the first turn: the second one answers the second turn
			 * (a MOVE turn, where a PUSH is fatal), however late it comes */
			printf("PUSH 3 RIGHT\n");
			fflush(stdout);
			if (strcmp(mode, "double-slow") == 0)
				usleep(200000);
			printf("PUSH 3 RIGHT\n");
			continue;
		}
		if (type == 0)
			printf("PUSH %u %s\n", (r >> 8) % 7, dir[(r >> 4) & 3]);
		else if ((r >> 6) & 1)
			printf("MOVE %s %s\n", dir[(r >> 4) & 3], dir[(r >> 9) & 3]);
		else
			printf("PASS\n");
	}
	return 0;
}

static const char py_bot[] =
        "import sys, random\n"
        "random.seed(4)\n"
        "while True:\n"
        "    l = sys.stdin.readline()\n"
        "    if not l:\n"
        "        break\n"
        "    t = int(l)\n"
        "    for _ in range(9): sys.stdin.readline()\n"
        "    for _ in range(int(sys.stdin.readline())): sys.stdin.readline()\n"
        "    for _ in range(int(sys.stdin.readline())): sys.stdin.readline()\n"
        "    if t == 0:\n"
        "        print('PUSH %d %s' % (random.randrange(7), random.choice(['UP', 'LEFT'])))\n"
        "    else:\n"
        "        print(random.choice(['PASS', 'MOVE DOWN', 'MOVE RIGHT UP']))\n";

/* --- processes --------------------------------------------------------------------- */

static void start_server(void)
{
	char portfile[PATH_MAX], data[PATH_MAX], listen[] = "127.0.0.1:0";
	snprintf(portfile, sizeof portfile, "%s/port", tmpdir);
	unlink(portfile); /* a previous server's */
	/* a fresh store in tmpdir for each test (its own process), not ./data in the build dir */
	snprintf(data, sizeof data, "%s/data.%d", tmpdir, (int)getpid());
	const char *argv[] = {tp_prog("BITARENAD", "./bitarenad"),
	                      "--listen",
	                      listen,
	                      "--port-file",
	                      portfile,
	                      "--data",
	                      data,
	                      "--pools", /* the referee's conditions, as the bridge's seeks ask */
	                      "xmas:xmas strict=1 turn_ms=200 first_turn_ms=1000",
	                      NULL};
	server_pid = tp_spawn(argv, "/dev/null", "/dev/null");
	for (int i = 0; i < 1000 && port == 0; i++) {
		char buf[32];
		tp_slurp(portfile, buf, sizeof buf);
		port = atoi(buf);
		if (port == 0)
			usleep(10000);
	}
	ck_assert_int_gt(port, 0);
}

static void stop_server(void)
{
	if (server_pid > 0) {
		kill(server_pid, SIGTERM);
		tp_wait(server_pid, 10);
		server_pid = -1;
	}
	port = 0;
}

static const char *const dashes[] = {"--", NULL};

/* "bitarena cg-bridge --game xmas --server <ours>" as a word list. */
static const char *const *cg_head(void)
{
	static char server[64];
	static const char *head[7];
	snprintf(server, sizeof server, "127.0.0.1:%d", port);
	const char *words[] = {tp_prog("BITARENA", "./bitarena"),
	                       "cg-bridge",
	                       "--game",
	                       "xmas",
	                       "--server",
	                       server,
	                       NULL};
	memcpy(head, words, sizeof words);
	return head;
}

/* dir/bridge<s>.out and .err: what bridge s printed. */
static void bridge_path(char *buf, size_t len, int s, const char *ext)
{
	snprintf(buf, len, "%s/bridge%d.%s", tmpdir, s, ext);
}

/*
 * One game between two bridged bots: bridge 0 with args0 (its seek), then
 * bridge 1 with args1 (its accept); both NULL-terminated. Their result lines
 * go to out[0] and out[1]; each must exit with status want[s].
 */
static void bridges(const char *const args0[], const char *const bot0[], const char *const args1[],
                    const char *const bot1[], const int want[2], char out[2][256])
{
	char path[2][PATH_MAX], err[2][PATH_MAX], name[2][16];
	pid_t pid[2];
	for (int s = 0; s < 2; s++) {
		const char *argv[48];
		const char *named[] = {"--name", name[s], NULL};
		bridge_path(path[s], sizeof path[s], s, "out");
		bridge_path(err[s], sizeof err[s], s, "err");
		snprintf(name[s], sizeof name[s], "bridge%d", s);
		tp_argv(argv, 48, cg_head(), named, s == 0 ? args0 : args1, dashes,
		        s == 0 ? bot0 : bot1, NULL);
		pid[s] = tp_spawn(argv, path[s], err[s]);
		if (s == 0)
			usleep(500000); /* let the seek be posted first (the accepter also lists
			                   seeks; the seeker's bot settles 300 ms first) */
	}
	for (int s = 0; s < 2; s++) {
		ck_assert_int_eq(tp_wait(pid[s], 110), want[s]);
		tp_slurp(path[s], out[s], 256);
	}
}

/* bridges() with a seek of these options and a plain accept, both ending normally. */
static void bridge_game(const char *seek, const char *const bot0[], const char *const bot1[],
                        char out[2][256])
{
	const char *a0[] = {"--quiet", "--seek", seek, NULL}, *a1[] = {"--quiet", "--accept", NULL};
	static const int ok[2] = {0, 0};
	bridges(a0, bot0, a1, bot1, ok, out);
}

/* The game's end as both bridges saw it: the loser's and the winner's lines. */
static void lost(const char out[2][256], int loser, const char *reason)
{
	char r[64];
	snprintf(r, sizeof r, "(%s)", reason);
	ck_assert_msg(strstr(out[loser], ": loss ") && strstr(out[loser], r), "%s", out[loser]);
	ck_assert_msg(strstr(out[1 - loser], ": win ") && strstr(out[1 - loser], r), "%s",
	              out[1 - loser]);
}

static bool have_python(void)
{
	return system("python3 -c 'import sys' >/dev/null 2>&1") == 0;
}

/* --- tests ------------------------------------------------------------------------- */

static void setup(void)
{
	ck_assert_ptr_nonnull(realpath("/proc/self/exe", self));
	start_server();
}

static void teardown(void)
{
	stop_server();
}

START_TEST(test_full_game_c_and_python)
{
	char out[2][256], pyfile[PATH_MAX];
	const char *cbot[] = {self, "--bot", "play", NULL};
	snprintf(pyfile, sizeof pyfile, "%s/bot.py", tmpdir);
	FILE *f = fopen(pyfile, "w");
	ck_assert_ptr_nonnull(f);
	fputs(py_bot, f);
	fclose(f);
	const char *pybot[] = {"python3", pyfile, NULL};
	bridge_game("turn_ms=5000 seed=11 pool=2", cbot, have_python() ? pybot : cbot, out);
	/* the game ran to its end without a timeout or a bad line */
	for (int s = 0; s < 2; s++) {
		ck_assert_msg(strstr(out[s], "(max_turns)") || strstr(out[s], "(deadlock)") ||
		                      strstr(out[s], "(all_quests_completed)"),
		              "bridge %d: %s", s, out[s]);
		ck_assert_int_eq(strncmp(out[s], "game ", 5), 0);
	}
	/* both sides agree: one's win is the other's loss */
	bool win0 = strstr(out[0], ": win ") != NULL, win1 = strstr(out[1], ": win ") != NULL;
	bool draw0 = strstr(out[0], ": draw ") != NULL, draw1 = strstr(out[1], ": draw ") != NULL;
	ck_assert(draw0 == draw1);
	ck_assert(draw0 || win0 != win1);
}
END_TEST

START_TEST(test_crash_at_once_hang_timeout)
{
	char out[2][256];
	const char *good[] = {self, "--bot", "play", NULL};
	/* a crash loses at once (its turns answered as invalid), not at the 30 s deadline */
	const char *crash[] = {self, "--bot", "crash", NULL};
	bridge_game("turn_ms=30000", crash, good, out);
	lost(out, 0, "invalid_action");
	/* and is told as a crash, never as a bot still running */
	char errpath[PATH_MAX], err[4096];
	bridge_path(errpath, sizeof errpath, 0, "err");
	tp_slurp(errpath, err, sizeof err);
	ck_assert_msg(strstr(err, "the bot is gone (it was killed by signal 6 (Aborted)") != NULL,
	              "%s", err);
	/* a hung bot meets the deadline: the referee's timeout */
	const char *hang[] = {self, "--bot", "hang", NULL};
	bridge_game("turn_ms=400", hang, good, out);
	lost(out, 0, "timeout");
	/* an answer that is no action loses at once, as the referee's invalid output */
	const char *junk[] = {self, "--bot", "junk", NULL};
	bridge_game("turn_ms=5000", junk, good, out);
	lost(out, 0, "invalid_action");
	/* no bot outlives its game */
	char cmd[PATH_MAX + 64];
	snprintf(cmd, sizeof cmd, "pgrep -f '^%s --bot' >/dev/null", self);
	ck_assert_int_ne(system(cmd), 0);
}
END_TEST

static int ignore_line(void *arg, char *line, bool cut)
{
	(void)arg;
	(void)line;
	(void)cut;
	return 0;
}

/*
 * A bot that crashes is told as crashed, every time: its output closes a moment before the
 * kernel lets it be reaped, and a report made at the close used to say it "is running".
 */
START_TEST(test_crash_told_every_time)
{
	int early = 0;
	for (int i = 0; i < 100; i++) {
		struct proc p;
		proc_init(&p);
		char bot[] = "--bot", die[] = "die", why[256], ex[128];
		char *argv[] = {self, bot, die, NULL};
		ck_assert_int_eq(proc_start(&p, argv, why, sizeof why), 0);
		ck_assert_int_eq(proc_send(&p, "0"), 0);
		while (proc_alive(&p)) {
			struct pollfd pf[2];
			proc_pollfds(&p, pf);
			poll(pf, 2, 100);
			proc_events(&p, pf, ignore_line, NULL);
		}
		early += strcmp(proc_exit_text(&p, ex, sizeof ex), "is running") == 0;
		ck_assert_str_eq(proc_end_text(&p, ex, sizeof ex),
		                 "was killed by signal 6 (Aborted)");
		proc_stop(&p, 100);
	}
	/* how often the moment of the close came before the reaping (what was told before) */
	printf("check_cgbridge: %d of 100 crashed bots were not yet reaped when their output "
	       "closed\n",
	       early);
}
END_TEST

/* A second line printed in one turn answers the next turn, whether it comes at once or late. */
START_TEST(test_second_line_answers_next_turn)
{
	static const char *const modes[2] = {"double-fast", "double-slow"};
	for (int k = 0; k < 2; k++) {
		char out[2][256];
		const char *twice[] = {self, "--bot", modes[k], NULL};
		const char *good[] = {self, "--bot", "play", NULL};
		bridge_game("turn_ms=5000", twice, good, out);
		lost(out, 0, "invalid_action"); /* its PUSH answered the MOVE turn */
	}
}
END_TEST

/* The first turn has its own time: 300 ms pass there and time out the next turn. */
START_TEST(test_first_turn_time)
{
	char out[2][256];
	const char *slow[] = {self, "--bot", "slowfirst", NULL};
	const char *good[] = {self, "--bot", "play", NULL};
	const char *a0[] = {"--quiet", "--turn-ms", "100",    "--first-turn-ms",
	                    "5000",    "--seek",    "seed=3", NULL};
	const char *a1[] = {"--quiet", "--accept", NULL};
	static const int ok[2] = {0, 0};
	bridges(a0, slow, a1, good, ok, out);
	lost(out, 0, "timeout");
}
END_TEST

/* Runs `bitarena cg-bridge --game xmas --server <ours> <args...> -- <bot>` (NULL: a playing bot).
 */
static pid_t cg_bridge(const char *const args[], const char *const bot[], const char *out,
                       const char *err)
{
	const char *argv[48];
	const char *play[] = {self, "--bot", "play", NULL};
	return tp_spawn(tp_argv(argv, 48, cg_head(), args, dashes, bot ? bot : play, NULL), out,
	                err);
}

/* --league: the referee's league is sought with its turn times, and only its seeks accepted. */
START_TEST(test_league)
{
	char out[2][256], err[4096], errpath[PATH_MAX];
	struct ts_cli watcher;
	ts_join(&watcher, port, "watcher");
	const char *seeker[] = {"--league", "1", "--seek", "seed=5", NULL};
	pid_t sk = cg_bridge(seeker, NULL, "/dev/null", "/dev/null");
	cJSON *seek = ts_until(&watcher, "{\"type\":\"seek\",\"event\":\"new\"}");
	const cJSON *so = cJSON_GetObjectItem(seek, "seek");
	ck_assert_int_eq(ts_jint(cJSON_GetObjectItem(so, "options"), "league"), 1);
	ck_assert_int_eq(ts_jint(so, "turn_ms"), 50);
	ck_assert_int_eq(ts_jint(so, "first_turn_ms"), 1000);
	cJSON_Delete(seek);
	ts_close(&watcher);
	/* an accepter of another league waits in vain, and gives up in time */
	const char *other[] = {"--accept", "--league", "2", "--timeout", "1", NULL};
	bridge_path(errpath, sizeof errpath, 1, "err");
	ck_assert_int_eq(tp_wait(cg_bridge(other, NULL, "/dev/null", errpath), 30), 1);
	tp_slurp(errpath, err, sizeof err);
	ck_assert_msg(strstr(err, "no opponent within 1 s"), "%s", err);
	kill(sk, SIGTERM);
	tp_wait(sk, 10);

	/* a whole league 1 game (turns made long: the machine may be busy): one quest each */
	const char *play1[] = {"--quiet", "--league", "1",      "--turn-ms",
	                       "5000",    "--seek",   "seed=5", NULL};
	const char *take1[] = {"--quiet", "--accept", "--league", "1", NULL};
	const char *bot[] = {self, "--bot", "play", NULL};
	static const int ok[2] = {0, 0};
	bridges(play1, bot, take1, bot, ok, out);
	for (int s = 0; s < 2; s++)
		ck_assert_msg(strstr(out[s], " 0-0 ") || strstr(out[s], " 1-0 ") ||
		                      strstr(out[s], " 0-1 ") || strstr(out[s], " 1-1 "),
		              "%s", out[s]);
}
END_TEST

/* A bot that cannot start says why, and nothing is sought. */
/*
 * Two bridges in the xmas pool (PROTOCOL.md §18; the server's is strict, 200 ms a turn, as
 * a seek of the bridge would be), neither seeking nor accepting: the pool
 * pairs them, each joins again after its game, and --games 2 ends both after two games,
 * each game with a bot process of its own (started afresh, as on CodinGame).
 */
START_TEST(test_pool_two_games)
{
	char out[2][4096], err[2][8192], path[2][PATH_MAX], epath[2][PATH_MAX], name[2][16];
	const char *bot[] = {self, "--bot", "play", NULL};
	pid_t pid[2];
	for (int s = 0; s < 2; s++) {
		const char *argv[48];
		snprintf(name[s], sizeof name[s], "pooled%d", s);
		const char *args[] = {"--name", name[s], "--pool", "xmas", "--games", "2", NULL};
		bridge_path(path[s], sizeof path[s], s, "out");
		bridge_path(epath[s], sizeof epath[s], s, "err");
		tp_argv(argv, 48, cg_head(), args, dashes, bot, NULL);
		pid[s] = tp_spawn(argv, path[s], epath[s]);
	}
	for (int s = 0; s < 2; s++) {
		int r = tp_wait(pid[s], 110);
		tp_slurp(path[s], out[s], sizeof out[s]);
		tp_slurp(epath[s], err[s], sizeof err[s]);
		ck_assert_msg(r == 0, "bridge %d exited %d: %s", s, r, err[s]);
		ck_assert_int_eq(tp_count_lines(out[s], "game "), 2);
	}
	/* the same two games, seen from both sides */
	long long g0, g1;
	ck_assert_int_eq(sscanf(out[0], "game %lld", &g0), 1);
	ck_assert_int_eq(sscanf(out[1], "game %lld", &g1), 1);
	ck_assert_int_eq(g0, g1);
}
END_TEST

START_TEST(test_bot_cannot_start)
{
	char err[4096], errpath[PATH_MAX];
	bridge_path(errpath, sizeof errpath, 0, "err");
	const char *seek[] = {"--seek", "seed=1", NULL};
	const char *missing[] = {"/nonexistent/bot", NULL};
	ck_assert_int_eq(tp_wait(cg_bridge(seek, missing, "/dev/null", errpath), 30), 1);
	tp_slurp(errpath, err, sizeof err);
	ck_assert_msg(strstr(err, "the bot cannot start: cannot run /nonexistent/bot: No such "
	                          "file or directory"),
	              "%s", err);
	const char *dies[] = {"sh", "-c", "echo SyntaxError: invalid syntax >&2; exit 1", NULL};
	ck_assert_int_eq(tp_wait(cg_bridge(seek, dies, "/dev/null", errpath), 30), 1);
	tp_slurp(errpath, err, sizeof err);
	ck_assert_msg(strstr(err, "the bot cannot start: it exited with status 1; its last words: "
	                          "SyntaxError: invalid syntax"),
	              "%s", err);
	/* the ladder is of games of alternate moves: --ladder is refused before anything */
	const char *ladder[] = {"--ladder", "xmas", NULL};
	ck_assert_int_eq(tp_wait(cg_bridge(ladder, dies, "/dev/null", errpath), 30), 2);
	tp_slurp(errpath, err, sizeof err);
	ck_assert_msg(strstr(err, "the ladder plays games of alternate moves, not Xmas Rush"),
	              "%s", err);
	/* nothing was sought */
	struct ts_cli c;
	ts_join(&c, port, "looker");
	ts_send(&c, "seeks");
	ts_expect0(&c, "{\"type\":\"ok\",\"cmd\":\"seeks\",\"seeks\":[]}");
	ts_close(&c);
}
END_TEST

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--bot") == 0)
		return run_bot(argv[2]);
	signal(SIGPIPE, SIG_IGN);
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	Suite *s = suite_create("cgbridge");
	TCase *tc = tcase_create("bridge");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_full_game_c_and_python);
	tcase_add_test(tc, test_crash_at_once_hang_timeout);
	tcase_add_test(tc, test_crash_told_every_time);
	tcase_add_test(tc, test_second_line_answers_next_turn);
	tcase_add_test(tc, test_first_turn_time);
	tcase_add_test(tc, test_league);
	tcase_add_test(tc, test_bot_cannot_start);
	tcase_add_test(tc, test_pool_two_games);
	suite_add_tcase(s, tc);
	int status = check_run(s);
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return status;
}
