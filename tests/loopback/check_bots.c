/*
 * check_bots.c - our bots over the real server, and `bitarena tei` through
 * a scripted TEI session.
 *
 * Games: bitarenad ($BITARENAD) on a free loopback port, two `bitarena bot`
 * processes ($BITARENA) per match, one seeking and one accepting, waited for
 * with a bound. The Tak player must win every game against a random mover
 * and against the greedy one-ply bot (node-bounded searches: the games are
 * the same on every run, so "every game won" cannot flake), also on a clock;
 * the Xmas Rush player must win every game against random actions and finish
 * games against itself.
 *
 * TEI: `bitarena tei` on pipes; every answer is awaited with a bound.
 */
#include <check.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "games/tak/tak.h"
#include "check_main.h"
#include "testproc.h"
#include "testserver.h"

static struct ts_srv srv;
static char dir[256];
static char addr[64];

static void server_up(void)
{
	ts_up(&srv, NULL, 0);
	snprintf(addr, sizeof addr, "127.0.0.1:%d", srv.port);
	tmpdir_make(dir, sizeof dir, "check_bots");
}

static void server_down(void)
{
	ts_down(&srv);
	tmpdir_remove(dir);
}

/* A file's text, in a buffer that the next call reuses. */
static const char *text_of(const char *path)
{
	static char buf[1 << 16];
	return tp_slurp(path, buf, sizeof buf);
}

static const char *bitarena(void)
{
	const char *b = getenv("BITARENA");
	ck_assert_msg(b != NULL && access(b, X_OK) == 0, "BITARENA does not name the program");
	return b;
}

struct result {
	int games, wins, losses, draws;
	char out[300], err[300];
};

/* The "games N wins W losses L draws D" summary of a bot's output. */
static void summary(struct result *r)
{
	const char *t = text_of(r->out), *p = strstr(t, "games ");
	r->games = -1;
	while (p && sscanf(p, "games %d wins %d losses %d draws %d", &r->games, &r->wins,
	                   &r->losses, &r->draws) != 4)
		p = strstr(p + 1, "games ");
}

/*
 * One match: bot a seeks `seek` with its arguments, bot b accepts that kind
 * with its own, both play games games; both must exit 0.
 */
static void match(const char *tag, const char *seek, int games, const char *const *args_a,
                  const char *const *args_b, struct result *a, struct result *b)
{
	char ngames[16];
	snprintf(ngames, sizeof ngames, "%d", games);
	char kind[32];
	snprintf(kind, sizeof kind, "%.*s", (int)strcspn(seek, " "), seek);
	struct result *res[2] = {a, b};
	const char *const *extra[2] = {args_a, args_b};
	pid_t pid[2];
	for (int i = 0; i < 2; i++) {
		const char *argv[40] = {bitarena(), "bot",  "--server", addr,
		                        "--games",  ngames, "--quiet"};
		int n = 7;
		if (i == 0) {
			argv[n++] = "--seek";
			argv[n++] = seek;
		} else {
			argv[n++] = "--accept";
			argv[n++] = "--kind";
			argv[n++] = kind;
		}
		for (int j = 0; extra[i][j] != NULL && n < 39; j++)
			argv[n++] = extra[i][j];
		argv[n] = NULL;
		snprintf(res[i]->out, sizeof res[i]->out, "%s/%s%d.out", dir, tag, i);
		snprintf(res[i]->err, sizeof res[i]->err, "%s/%s%d.err", dir, tag, i);
		pid[i] = tp_spawn(argv, res[i]->out, res[i]->err);
	}
	for (int i = 0; i < 2; i++) {
		int st = tp_wait(pid[i], 240);
		ck_assert_msg(st == 0, "%s: bot %d exited %d: %s", tag, i, st,
		              text_of(res[i]->err));
		summary(res[i]);
		ck_assert_msg(res[i]->games == games, "%s: bot %d: %s", tag, i,
		              text_of(res[i]->out));
	}
	ck_assert_int_eq(a->wins, b->losses);
	ck_assert_int_eq(a->draws, b->draws);
}

/* Every game won by a, and none of its moves left to chance. */
static void all_won(const char *tag, const struct result *a, int games)
{
	ck_assert_msg(a->wins == games, "%s: %d of %d won: %s", tag, a->wins, games,
	              text_of(a->out));
	ck_assert_msg(strstr(text_of(a->err), "were random") == NULL, "%s: %s", tag,
	              text_of(a->err));
}

/* --- Tak ---------------------------------------------------------------------- */

START_TEST(tak_beats_random)
{
	struct result a, b;
	const char *strong[] = {"--name", "strong", "--nodes", "5000", "--seed", "1", NULL};
	const char *rnd[] = {"--name", "monkey", "--random", "--seed", "2", NULL};
	match("tr4", "tak size=4", 2, strong, rnd, &a, &b);
	all_won("random 4x4", &a, 2);
	match("tr6", "tak size=6", 2, strong, rnd, &a, &b);
	all_won("random 6x6", &a, 2);
}
END_TEST

START_TEST(tak_beats_greedy)
{
	struct result a, b;
	const char *strong[] = {"--name", "strong", "--nodes", "15000", "--seed", "3", NULL};
	const char *greedy[] = {"--name", "greedy", "--greedy", "--seed", "4", NULL};
	const char *sizes[] = {"tak size=4", "tak size=5", "tak size=6"};
	for (int i = 0; i < 3; i++) {
		match("tg", sizes[i], 2, strong, greedy, &a, &b);
		all_won(sizes[i], &a, 2);
	}
}
END_TEST

/* On a clock the bot budgets its own time (and never loses on it). */
START_TEST(tak_beats_greedy_on_a_clock)
{
	struct result a, b;
	const char *strong[] = {"--name", "clocked", "--seed", "5", NULL};
	const char *greedy[] = {"--name", "greedy", "--greedy", "--seed", "6", NULL};
	match("tc", "tak size=5 time=0:05+0", 2, strong, greedy, &a, &b);
	all_won("5x5 on a clock", &a, 2);
	ck_assert_msg(strstr(text_of(a.out), "timeout") == NULL, "%s", text_of(a.out));
}
END_TEST

/* --- Xmas Rush ------------------------------------------------------------------- */

START_TEST(xmas_beats_random)
{
	struct result a, b;
	const char *ours[] = {"--name", "elf", "--seed", "7", NULL};
	const char *rnd[] = {"--name", "imp", "--random", "--seed", "8", NULL};
	match("xr", "xmas seed=11", 2, ours, rnd, &a, &b);
	all_won("xmas against random", &a, 2);
	ck_assert_msg(strstr(text_of(a.out), "timeout") == NULL, "%s", text_of(a.out));
}
END_TEST

/* Two of our bots: every game ends by quests, turns or deadlock, never a fault. */
START_TEST(xmas_against_itself)
{
	struct result a, b;
	const char *one[] = {"--name", "elf", "--seed", "9", NULL};
	const char *two[] = {"--name", "elf", "--seed", "10", NULL};
	match("xx", "xmas pool=2", 2, one, two, &a, &b);
	ck_assert_msg(strstr(text_of(a.out), "timeout") == NULL, "%s", text_of(a.out));
	ck_assert_msg(strstr(text_of(a.out), "invalid") == NULL, "%s", text_of(a.out));
}
END_TEST

/* --- TEI ------------------------------------------------------------------------- */

struct tei {
	pid_t pid;
	int in, out; /* our ends: we write in, read out */
	char buf[1 << 16];
	size_t n;
};

static void tei_start(struct tei *t)
{
	int a[2], b[2];
	ck_assert_int_eq(pipe(a), 0);
	ck_assert_int_eq(pipe(b), 0);
	t->pid = fork();
	ck_assert_int_ge(t->pid, 0);
	if (t->pid == 0) {
		dup2(a[0], 0);
		dup2(b[1], 1);
		close(a[1]);
		close(b[0]);
		const char *argv[] = {bitarena(), "tei", "--hash", "4", NULL};
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(a[0]);
	close(b[1]);
	t->in = a[1];
	t->out = b[0];
	t->n = 0;
}

static void tei_send(struct tei *t, const char *line)
{
	size_t len = strlen(line);
	ck_assert_int_eq(write(t->in, line, len), (ssize_t)len);
	ck_assert_int_eq(write(t->in, "\n", 1), 1);
}

/* The next line within 30 s (static buffer). */
static char *tei_line(struct tei *t)
{
	static char line[1 << 16];
	for (int waited = 0;;) {
		char *nl = memchr(t->buf, '\n', t->n);
		if (nl != NULL) {
			size_t len = (size_t)(nl - t->buf);
			memcpy(line, t->buf, len);
			line[len] = '\0';
			memmove(t->buf, nl + 1, t->n - len - 1);
			t->n -= len + 1;
			return line;
		}
		struct pollfd p = {t->out, POLLIN, 0};
		ck_assert_msg(waited < 30000, "no line from bitarena tei in 30 s");
		if (poll(&p, 1, 100) == 0) {
			waited += 100;
			continue;
		}
		ssize_t r = read(t->out, t->buf + t->n, sizeof t->buf - t->n);
		ck_assert_msg(r > 0, "bitarena tei closed its output");
		t->n += (size_t)r;
	}
}

/* Reads lines until one starts with prefix; returns it (the lines before are skipped). */
static char *tei_until(struct tei *t, const char *prefix)
{
	for (;;) {
		char *l = tei_line(t);
		if (strncmp(l, prefix, strlen(prefix)) == 0)
			return l;
	}
}

/*
 * Reads up to bestmove; checks every info line; returns the move (static) and the last info.
 * depth: the last depth already read (0 for a new search), or -1 for a search whose lines
 * were partly skipped (then the first line read gives it, and the rest follow in order).
 */
static const char *tei_best(struct tei *t, int depth, char *last_info, size_t len)
{
	static char best[64];
	for (;;) {
		char *l = tei_line(t);
		if (strncmp(l, "info depth ", 11) == 0) {
			int d = atoi(l + 11);
			if (depth >= 0) /* one line per iteration, in order */
				ck_assert_int_eq(d, depth + 1);
			depth = d;
			ck_assert_ptr_nonnull(strstr(l, " score "));
			ck_assert_ptr_nonnull(strstr(l, " nodes "));
			ck_assert_ptr_nonnull(strstr(l, " pv "));
			if (last_info)
				snprintf(last_info, len, "%s", l);
		} else if (strncmp(l, "bestmove ", 9) == 0) {
			snprintf(best, sizeof best, "%s", l + 9);
			return best;
		}
	}
}

static void tei_quit(struct tei *t)
{
	tei_send(t, "quit");
	ck_assert_int_eq(tp_wait(t->pid, 10), 0);
	close(t->in);
	close(t->out);
}

/* The best move must be legal in the position given by the moves. */
static void assert_legal(int size, const char *moves, const char *best)
{
	struct game_params p;
	struct tak_state s;
	char buf[1024];
	game_params_default(&game_tak, &p);
	p.v[TAK_OPT_SIZE] = size;
	ck_assert_int_eq(tak_setup(&s, &p, NULL), 0);
	snprintf(buf, sizeof buf, "%s", moves);
	for (char *save, *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		game_move m;
		ck_assert_int_eq(tak_parse_ptn(&s, w, &m, NULL), 0);
		ck_assert_int_eq(tak_apply(&s, m), 0);
	}
	game_move m;
	const char *why = NULL;
	ck_assert_msg(tak_parse_ptn(&s, best, &m, &why) == 0, "bestmove %s: %s", best,
	              why ? why : "?");
}

START_TEST(tei_session)
{
	struct tei t;
	char info[1024];
	tei_start(&t);
	tei_send(&t, "tei");
	ck_assert_ptr_nonnull(strstr(tei_until(&t, "id name"), "bitarena"));
	ck_assert_ptr_nonnull(strstr(tei_until(&t, "option name HalfKomi"), "type spin"));
	tei_until(&t, "teiok");
	tei_send(&t, "isready");
	ck_assert_str_eq(tei_line(&t), "readyok");

	/* a game: the opening rule, then a searched move; every move legal */
	tei_send(&t, "teinewgame 5");
	tei_send(&t, "position startpos");
	tei_send(&t, "go movetime 200");
	const char *b = tei_best(&t, 0, NULL, 0);
	assert_legal(5, "", b);
	tei_send(&t, "position startpos moves a1 e5 1a1+1");
	tei_send(&t, "go depth 3");
	ck_assert_str_eq(tei_line(&t), "info string move 1a1+1: only the player whose piece is on "
	                               "top may move a stack");
	ck_assert_str_eq(tei_line(&t), "info string no position to search: send position first");
	ck_assert_str_eq(tei_line(&t), "bestmove (none)");
	tei_send(&t, "position startpos moves a1 e5 c3 Sc2");
	tei_send(&t, "go depth 3");
	b = tei_best(&t, 0, info, sizeof info);
	ck_assert_ptr_nonnull(strstr(info, "info depth 3 "));
	assert_legal(5, "a1 e5 c3 Sc2", b);

	/* a road in one, from a TPS, with explicit counts in the moves */
	tei_send(&t, "position tps x5/x5/x5/2,2,2,x2/1,1,1,x2 1 5 moves d1 1b2>1");
	tei_send(&t, "go wtime 5000 btime 5000 winc 100 binc 100");
	b = tei_best(&t, 0, info, sizeof info);
	ck_assert_msg(strcmp(b, "e1") == 0 || strcmp(b, "Fe1") == 0 || strcmp(b, "Ce1") == 0,
	              "bestmove %s", b);
	ck_assert_ptr_nonnull(strstr(info, "score mate 1 "));

	/* options: komi and a table size; an unknown one is answered */
	tei_send(&t, "setoption name HalfKomi value 4");
	tei_send(&t, "setoption name Hash value 2");
	tei_send(&t, "setoption name Contempt value 3");
	ck_assert_str_eq(tei_line(&t), "info string unknown option or value: Contempt 3");
	tei_send(&t, "teinewgame 9");
	ck_assert_str_eq(tei_line(&t), "info string board sizes are 3 to 8; keeping 5");
	tei_send(&t, "teinewgame 6");
	tei_send(&t, "isready");
	ck_assert_str_eq(tei_line(&t), "readyok");

	/* go infinite: isready is answered while it thinks, stop ends it with a move */
	tei_send(&t, "position startpos moves a1 f6 c3 d4");
	tei_send(&t, "go infinite");
	tei_until(&t, "info depth 2 ");
	tei_send(&t, "isready");
	tei_until(&t, "readyok");
	tei_send(&t, "stop");
	/* the depths it reached while isready was answered were skipped with it (a loaded CI) */
	b = tei_best(&t, -1, NULL, 0);
	assert_legal(6, "a1 f6 c3 d4", b);
	tei_quit(&t);
}
END_TEST

/* quit during a search, and the end of input, both end the engine cleanly. */
START_TEST(tei_quit_and_eof)
{
	struct tei t;
	tei_start(&t);
	tei_send(&t, "teinewgame 6");
	tei_send(&t, "position startpos moves a1 f6 c3");
	tei_send(&t, "go infinite");
	tei_until(&t, "info depth 1 ");
	tei_quit(&t);

	tei_start(&t);
	tei_send(&t, "tei");
	tei_until(&t, "teiok");
	close(t.in);
	ck_assert_int_eq(tp_wait(t.pid, 10), 0);
	close(t.out);
}
END_TEST

static Suite *bots_suite(void)
{
	Suite *s = suite_create("bots");
	TCase *tc = tcase_create("games");
	tcase_add_checked_fixture(tc, server_up, server_down);
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, tak_beats_random);
	tcase_add_test(tc, tak_beats_greedy);
	tcase_add_test(tc, tak_beats_greedy_on_a_clock);
	tcase_add_test(tc, xmas_beats_random);
	tcase_add_test(tc, xmas_against_itself);
	suite_add_tcase(s, tc);
	TCase *te = tcase_create("tei");
	tcase_set_timeout(te, 120);
	tcase_add_test(te, tei_session);
	tcase_add_test(te, tei_quit_and_eof);
	suite_add_tcase(s, te);
	return s;
}

int main(void)
{
	return check_run(bots_suite());
}
