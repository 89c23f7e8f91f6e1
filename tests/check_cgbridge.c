/*
 * check_cgbridge.c - `bitarena cg-bridge` end to end: a real bitarenad on a
 * free port, two bridges, and CodinGame-style Xmas Rush bots written here: a
 * C bot that never flushes stdout (this very program, run with --bot), a
 * Python bot (when python3 is installed), and bots that crash or hang. Full
 * games must end normally; a crash or a hang must end as the referee's
 * timeout, with no stuck processes.
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
#include "testproc.h"

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
 * keeps spamming stderr, as some real bots do, and "junk" answers its third
 * turn with a line that is no action (the referee's invalid output).
 */
static int run_bot(const char *mode)
{
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

/*
 * One game between two bridged bots; the seeker's and the accepter's result
 * lines go to out[0] and out[1].
 */
static void bridge_game(const char *seek, const char *const bot0[], const char *const bot1[],
                        char out[2][256])
{
	char server[64], path[2][PATH_MAX], name[2][16];
	snprintf(server, sizeof server, "127.0.0.1:%d", port);
	pid_t pid[2];
	for (int s = 0; s < 2; s++) {
		const char *const *bot = s == 0 ? bot0 : bot1;
		const char *argv[32];
		int n = 0;
		snprintf(path[s], sizeof path[s], "%s/bridge%d.out", tmpdir, s);
		snprintf(name[s], sizeof name[s], "bridge%d", s);
		argv[n++] = tp_prog("BITARENA", "./bitarena");
		argv[n++] = "cg-bridge";
		argv[n++] = "--game";
		argv[n++] = "xmas";
		argv[n++] = "--quiet";
		argv[n++] = "--server";
		argv[n++] = server;
		argv[n++] = "--name";
		argv[n++] = name[s];
		if (s == 0) {
			argv[n++] = "--seek";
			argv[n++] = seek;
		} else {
			argv[n++] = "--accept";
		}
		argv[n++] = "--";
		for (int i = 0; bot[i] != NULL && n < 31; i++)
			argv[n++] = bot[i];
		argv[n] = NULL;
		pid[s] = tp_spawn(argv, path[s], NULL);
		if (s == 0)
			usleep(300000); /* let the seek be posted first (the accepter also lists
			                   seeks) */
	}
	for (int s = 0; s < 2; s++) {
		ck_assert_int_eq(tp_wait(pid[s], 110), 0);
		tp_slurp(path[s], out[s], 256);
	}
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

START_TEST(test_crash_and_hang_are_timeouts)
{
	static const char *const modes[2] = {"crash", "hang"};
	for (int k = 0; k < 2; k++) {
		char out[2][256];
		const char *bad[] = {self, "--bot", modes[k], NULL};
		const char *good[] = {self, "--bot", "play", NULL};
		bridge_game("turn_ms=400", bad, good, out);
		ck_assert_msg(strstr(out[0], ": loss ") && strstr(out[0], "(timeout)"), "%s: %s",
		              modes[k], out[0]);
		ck_assert_msg(strstr(out[1], ": win ") && strstr(out[1], "(timeout)"), "%s: %s",
		              modes[k], out[1]);
	}
	/* an answer that is no action loses at once, as the referee's invalid output */
	char out[2][256];
	const char *junk[] = {self, "--bot", "junk", NULL};
	const char *good[] = {self, "--bot", "play", NULL};
	bridge_game("turn_ms=5000", junk, good, out);
	ck_assert_msg(strstr(out[0], ": loss ") && strstr(out[0], "(invalid_action)"), "junk: %s",
	              out[0]);
	ck_assert_msg(strstr(out[1], ": win ") && strstr(out[1], "(invalid_action)"), "junk: %s",
	              out[1]);
	/* no bot outlives its game */
	char cmd[PATH_MAX + 64];
	snprintf(cmd, sizeof cmd, "pgrep -f '^%s --bot' >/dev/null", self);
	ck_assert_int_ne(system(cmd), 0);
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
	tcase_add_test(tc, test_crash_and_hang_are_timeouts);
	suite_add_tcase(s, tc);
	int status = check_run(s);
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return status;
}
