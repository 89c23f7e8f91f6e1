/*
 * check_tei_bridge.c - the TEI side of Tak: the pure functions of
 * clients/tei.h (engine lines, declared options, the games an engine can
 * play, the clock it is told), then `bitarena tei-bridge` end to end against
 * a real bitarenad and a TEI engine written here.
 *
 * The engine is this very program run with `--engine FLAGS` (comma-separated):
 * it plays random legal Tak moves through the core engine and behaves like
 * the real ones (tak.md section 4.1) on demand:
 *   log=PATH    appends "pid N", every line it reads ("< ...") and every move
 *               it writes ("> bestmove ...") to PATH
 *   name=X      its id name (Tiltak is known to play sizes 4-6 only)
 *   komi        declares "option name HalfKomi type combo default 0 var 0 var 4"
 *   explicit    writes slides with explicit counts and drops (1b2>1, 4c2+4)
 *   overshoot   thinks twice the time it plans (its clock / 10), as takbag does
 *   flood       writes 256 KiB to stderr on every move
 *   crash=N     aborts on its N-th go;  hang=N  never answers its N-th go
 *   illegal=N   answers its N-th go with a placement on an occupied square
 * Always, like takbag: any command it does not know (setoption without the
 * komi flag included) makes it print "Unrecognised input" and exit, a `go`
 * whose words are not exactly "go wtime W btime B winc WI binc BI" makes it
 * exit, and it prints an info line before each bestmove.
 *
 * Finds the programs through $BITARENAD and $BITARENA (set by `make check`).
 */
#include <check.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "check_main.h"
#include "games/tak/tak.h"
#include "games/tak/tak_slide.h"
#include "lib/tei.h"
#include "testproc.h"
#include "testserver.h"

/* --- the test engine ------------------------------------------------------------------ */

struct eng_flags {
	const char *log, *name;
	bool komi, explicit, overshoot, flood;
	int crash, hang, illegal;
};

static void eng_parse_flags(char *s, struct eng_flags *f)
{
	char *save = NULL;
	for (char *w = strtok_r(s, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (strncmp(w, "log=", 4) == 0)
			f->log = w + 4;
		else if (strncmp(w, "name=", 5) == 0)
			f->name = w + 5;
		else if (strcmp(w, "komi") == 0)
			f->komi = true;
		else if (strcmp(w, "explicit") == 0)
			f->explicit = true;
		else if (strcmp(w, "overshoot") == 0)
			f->overshoot = true;
		else if (strcmp(w, "flood") == 0)
			f->flood = true;
		else if (strncmp(w, "crash=", 6) == 0)
			f->crash = atoi(w + 6);
		else if (strncmp(w, "hang=", 5) == 0)
			f->hang = atoi(w + 5);
		else if (strncmp(w, "illegal=", 8) == 0)
			f->illegal = atoi(w + 8);
	}
}

/* A slide with its count and every drop written out: 1b2>1, 4c2+13. */
static void explicit_ptn(const struct tak_state *st, game_move m, char *buf, size_t len)
{
	if (!tak_move_is_slide(m)) {
		tak_format_ptn(st, m, buf, len);
		return;
	}
	int sq = tak_move_square(m), n = st->size;
	uint32_t p = tak_move_pattern(m);
	int at = snprintf(buf, len, "%d%c%d%c", tak_pattern_carry(p), 'a' + sq % n, 1 + sq / n,
	                  "+>-<"[tak_move_kind_or_dir(m)]);
	for (; p != 0 && at + 2 < (int)len; p >>= 4)
		buf[at++] = (char)('0' + (p & 15));
	buf[at] = '\0';
}

/* Appends prefix, s and a newline to the log (when there is one). */
static void eng_log(FILE *log, const char *prefix, const char *s)
{
	if (log != NULL) {
		fprintf(log, "%s%s\n", prefix, s);
		fflush(log);
	}
}

static int run_engine(char *flagtext)
{
	struct eng_flags f = {0};
	eng_parse_flags(flagtext, &f);
	FILE *log = f.log ? fopen(f.log, "a") : NULL;
	if (log != NULL)
		fprintf(log, "pid %d\n", (int)getpid());
	static char line[1 << 16];
	struct game_params p;
	static struct tak_state st;
	static game_move moves[TAK_MAX_MOVES];
	int size = 5, komi = 0, gos = 0;
	unsigned rng = 2024;
	game_params_default(&game_tak, &p);
	while (fgets(line, sizeof line, stdin) != NULL) {
		line[strcspn(line, "\r\n")] = '\0';
		eng_log(log, "< ", line);
		char *words[1024];
		int nw = 0;
		char *save = NULL;
		for (char *w = strtok_r(line, " ", &save); w && nw < 1024;
		     w = strtok_r(NULL, " ", &save))
			words[nw++] = w;
		if (nw == 0)
			continue;
		if (strcmp(words[0], "tei") == 0) {
			printf("id name %s\nid author bitarena tests\n",
			       f.name ? f.name : "TestEngine");
			if (f.komi)
				printf("option name HalfKomi type combo default 0 var 0 var 4\n");
			printf("teiok\n");
		} else if (strcmp(words[0], "isready") == 0) {
			printf("readyok\n");
		} else if (strcmp(words[0], "teinewgame") == 0 && nw == 2) {
			size = atoi(words[1]);
		} else if (strcmp(words[0], "setoption") == 0 && f.komi && nw == 5 &&
		           strcmp(words[2], "HalfKomi") == 0) {
			komi = atoi(words[4]);
		} else if (strcmp(words[0], "position") == 0 && nw >= 3 &&
		           strcmp(words[1], "startpos") == 0 && strcmp(words[2], "moves") == 0) {
			p.v[TAK_OPT_SIZE] = size;
			p.v[TAK_OPT_KOMI] = komi;
			if (game_tak.init(&st, &p, 0) < 0)
				return 3;
			for (int i = 3; i < nw; i++) {
				game_move m;
				if (tak_parse_ptn(&st, words[i], &m, NULL) < 0) {
					fprintf(stderr, "bad move %s in position\n", words[i]);
					return 3;
				}
				tak_apply(&st, m);
			}
		} else if (strcmp(words[0], "go") == 0 && nw == 9 &&
		           strcmp(words[1], "wtime") == 0 && strcmp(words[3], "btime") == 0 &&
		           strcmp(words[5], "winc") == 0 && strcmp(words[7], "binc") == 0) {
			gos++;
			if (gos == f.crash) {
				struct rlimit no_core = {0, 0};
				setrlimit(RLIMIT_CORE, &no_core);
				abort();
			}
			while (gos == f.hang) {
				fprintf(stderr, "still thinking\n");
				usleep(20000);
			}
			if (f.flood) {
				static char junk[1024];
				memset(junk, 'x', sizeof junk - 1);
				for (int i = 0; i < 256; i++)
					fprintf(stderr, "%s\n", junk);
			}
			if (f.overshoot) {
				long own = atol(words[(st.ply & 1) ? 4 : 2]);
				usleep((useconds_t)(2 * own / 10) * 1000);
			}
			int n = game_tak.legal_moves(&st, moves, TAK_MAX_MOVES);
			if (n <= 0)
				return 5;
			rng = rng * 1103515245u + 12345u;
			game_move m = moves[(rng >> 8) % (unsigned)n];
			char text[64];
			if (gos == f.illegal) {
				int sq = 0;
				while (sq < st.size * st.size && st.height[sq] == 0)
					sq++;
				snprintf(text, sizeof text, "%c%d", 'a' + sq % st.size,
				         1 + sq / st.size);
			} else if (f.explicit) {
				explicit_ptn(&st, m, text, sizeof text);
			} else {
				tak_format_ptn(&st, m, text, sizeof text);
			}
			printf("info depth 1 score cp 1 time 1 pv %s\n", text);
			printf("bestmove %s\n", text);
			eng_log(log, "> bestmove ", text);
		} else if (strcmp(words[0], "quit") == 0) {
			return 0;
		} else {
			printf("Unrecognised input: %s\n", words[0]);
			fflush(stdout);
			return 0;
		}
		fflush(stdout);
	}
	return 0;
}

/* --- the pure functions -------------------------------------------------------------- */

START_TEST(test_parse_lines)
{
	struct tei_line l;
	ck_assert_int_eq(tei_parse_line("id name Tiltak", &l), TEI_LINE_ID);
	ck_assert_str_eq(l.id_key, "name");
	ck_assert_str_eq(l.id_value, "Tiltak");
	ck_assert_int_eq(tei_parse_line("id  author   Morten Lohne  ", &l), TEI_LINE_ID);
	ck_assert_str_eq(l.id_value, "Morten Lohne");

	ck_assert_int_eq(
	        tei_parse_line("option name HalfKomi type combo default 0 var 0 var 4", &l),
	        TEI_LINE_OPTION);
	ck_assert_str_eq(l.opt.name, "HalfKomi");
	ck_assert_int_eq(l.opt.type, TEI_OPT_COMBO);
	ck_assert_str_eq(l.opt.def, "0");
	ck_assert_int_eq(l.opt.nvars, 2);
	ck_assert_str_eq(l.opt.vars[1], "4");
	ck_assert(tei_option_takes(&l.opt, 4) && tei_option_takes(&l.opt, 0));
	ck_assert(!tei_option_takes(&l.opt, 2));

	tei_parse_line("option name HalfKomi type spin default 0 min -10 max 10", &l);
	ck_assert_int_eq(l.opt.type, TEI_OPT_SPIN);
	ck_assert(l.opt.has_min && l.opt.min == -10 && l.opt.has_max && l.opt.max == 10);
	ck_assert(tei_option_takes(&l.opt, -10) && !tei_option_takes(&l.opt, 11));

	tei_parse_line("option name Clear Hash type button", &l);
	ck_assert_str_eq(l.opt.name, "Clear Hash");
	ck_assert_int_eq(l.opt.type, TEI_OPT_BUTTON);
	/* a keyword inside a name belongs to it; only "type" ends a name */
	tei_parse_line("option name max depth type spin default 3 min 1 max 9", &l);
	ck_assert_str_eq(l.opt.name, "max depth");
	ck_assert(l.opt.max == 9);

	ck_assert_int_eq(tei_parse_line("teiok", &l), TEI_LINE_TEIOK);
	ck_assert_int_eq(tei_parse_line("  readyok \t", &l), TEI_LINE_READYOK);
	ck_assert_int_eq(tei_parse_line("info score cp 1 time 1 pv a1", &l), TEI_LINE_INFO);
	ck_assert_int_eq(tei_parse_line("bestmove 1b2>1", &l), TEI_LINE_BESTMOVE);
	ck_assert_str_eq(l.move, "1b2>1");
	tei_parse_line("bestmove 4c2+4 ponder a1", &l);
	ck_assert_str_eq(l.move, "4c2+4");
	ck_assert_int_eq(tei_parse_line("bestmove", &l), TEI_LINE_BESTMOVE);
	ck_assert_str_eq(l.move, "");
	ck_assert_int_eq(tei_parse_line("Unrecognised input: stop", &l), TEI_LINE_OTHER);
	ck_assert_int_eq(tei_parse_line("", &l), TEI_LINE_OTHER);
	ck_assert_int_eq(tei_parse_line("option type spin", &l), TEI_LINE_OTHER);
	ck_assert_int_eq(tei_parse_line("id", &l), TEI_LINE_OTHER);
	/* a name longer than the buffer is cut, not overrun */
	char big[400];
	memset(big, 'n', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	char line[500];
	snprintf(line, sizeof line, "id name %s", big);
	tei_parse_line(line, &l);
	ck_assert_uint_eq(strlen(l.id_value), TEI_TEXT_MAX - 1);
}
END_TEST

/* An engine as it declares itself: a name and option lines, then teiok. */
static void declare(struct tei_engine *e, const char *name, const char *option, unsigned sizes)
{
	struct tei_line l;
	char line[256];
	tei_engine_init(e);
	snprintf(line, sizeof line, "id name %s", name);
	tei_parse_line(line, &l);
	tei_engine_add(e, &l);
	if (option != NULL) {
		tei_parse_line(option, &l);
		tei_engine_add(e, &l);
	}
	tei_engine_ready(e, sizes);
}

START_TEST(test_what_engines_play)
{
	struct tei_engine e;
	char why[256], line[128];
	/* Tiltak: sizes 4..6, HalfKomi 0 or 4 */
	declare(&e, "Tiltak", "option name HalfKomi type combo default 0 var 0 var 4", 0);
	ck_assert_ptr_null(tei_cannot_play(&e, 6, 4, 0, -1, why, sizeof why));
	ck_assert_ptr_null(tei_cannot_play(&e, 5, 0, 21, 1, why, sizeof why));
	ck_assert_ptr_nonnull(tei_cannot_play(&e, 3, 0, 0, -1, why, sizeof why));
	ck_assert_str_eq(why, "Tiltak plays sizes 4-6, not 3");
	ck_assert_ptr_nonnull(tei_cannot_play(&e, 6, 2, 0, -1, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "does not take 2"));
	ck_assert_ptr_nonnull(tei_cannot_play(&e, 5, 0, 20, -1, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "20 stones instead of the standard 21"));
	ck_assert_ptr_nonnull(tei_cannot_play(&e, 5, 0, 0, 2, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "2 capstones instead of the standard 1"));
	/* sizes given by the user win over the table */
	declare(&e, "Tiltak", NULL, tei_parse_sizes("3"));
	ck_assert_ptr_null(tei_cannot_play(&e, 3, 0, 0, -1, why, sizeof why));

	/* takbag: every size, no HalfKomi, so komi 0 only; nothing to set */
	declare(&e, "BreadBot", NULL, 0);
	ck_assert_ptr_null(tei_cannot_play(&e, 8, 0, 0, -1, why, sizeof why));
	ck_assert_ptr_nonnull(tei_cannot_play(&e, 6, 4, 0, -1, why, sizeof why));
	ck_assert_ptr_nonnull(strstr(why, "komi 0 only"));
	ck_assert(!tei_komi_line(&e, 0, line, sizeof line));

	/* an engine that plays komi 4 only (it declares so): komi 0 is refused */
	declare(&e, "Six", "option name HalfKomi type spin default 4 min 4 max 4", 0);
	ck_assert_ptr_nonnull(tei_cannot_play(&e, 6, 0, 0, -1, why, sizeof why));
	ck_assert(!tei_komi_line(&e, 4, line, sizeof line)); /* already its value */

	/* setoption only when the value changes, spelt as the engine declared it */
	declare(&e, "Topaz", "option name halfkomi type spin default 0 min 0 max 12", 0);
	ck_assert(!tei_komi_line(&e, 0, line, sizeof line));
	ck_assert(tei_komi_line(&e, 4, line, sizeof line));
	ck_assert_str_eq(line, "setoption name halfkomi value 4");
	ck_assert(!tei_komi_line(&e, 4, line, sizeof line));
	ck_assert(tei_komi_line(&e, 0, line, sizeof line));
	ck_assert_str_eq(line, "setoption name halfkomi value 0");
}
END_TEST

START_TEST(test_clock_and_sizes)
{
	struct tei_clock c;
	char go[128];
	long long clocks[2] = {10000, 5000};
	tei_clock_told(true, clocks, 2000, 25, 10000, &c);
	ck_assert(c.wtime == 7425 && c.btime == 3675 && c.winc == 1500 && c.binc == 1500);
	tei_format_go(&c, go, sizeof go);
	ck_assert_str_eq(go, "go wtime 7425 btime 3675 winc 1500 binc 1500");
	ck_assert(tei_hang_ms(&c, 0) == 2 * 7425 + 2000 && tei_hang_ms(&c, 1) == 2 * 3675 + 2000);
	long long low[2] = {50, 0};
	tei_clock_told(true, low, 0, 0, 10000, &c);
	ck_assert(c.wtime == TEI_CLOCK_MIN_MS && c.btime == TEI_CLOCK_MIN_MS && c.winc == 0);
	tei_clock_told(false, clocks, 2000, 25, 3000, &c);
	tei_format_go(&c, go, sizeof go);
	ck_assert_str_eq(go, "go wtime 3000 btime 3000 winc 0 binc 0");

	ck_assert_uint_eq(tei_parse_sizes("4-6"), 0x70);
	ck_assert_uint_eq(tei_parse_sizes("3,5,8"), 0x128);
	ck_assert_uint_eq(tei_parse_sizes("3-8"), TEI_ALL_SIZES);
	ck_assert_uint_eq(tei_parse_sizes("5"), 0x20);
	const char *bad[] = {"", "9", "2", "4-", "6-4", "4,,5", "4-6x", "a"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(tei_parse_sizes(bad[i]) == 0, "%s", bad[i]);
}
END_TEST

/* --- the bridge against bitarenad ------------------------------------------------------ */

static char self[PATH_MAX];
static char dir[512];
static struct ts_srv srv;

static void setup(void)
{
	ck_assert_ptr_nonnull(realpath("/proc/self/exe", self));
	tmpdir_make(dir, sizeof dir, "check_tei_bridge");
	ts_up(&srv, NULL, 0);
}

static void teardown(void)
{
	ts_down(&srv);
	tmpdir_remove(dir);
}

static void path(char *buf, size_t len, const char *tag, const char *ext)
{
	snprintf(buf, len, "%s/%s.%s", dir, tag, ext);
}

/*
 * Starts `bitarena tei-bridge <args...>` with the test engine (flags; its log
 * in dir/tag.log), output in dir/tag.out and dir/tag.err. args is
 * NULL-terminated.
 */
static pid_t bridge(const char *tag, const char *flags, const char *const *args)
{
	static char server[64], engflags[4][1024];
	static int k;
	char out[600], err[600], log[600];
	const char *argv[40];
	snprintf(server, sizeof server, "127.0.0.1:%d", srv.port);
	path(out, sizeof out, tag, "out");
	path(err, sizeof err, tag, "err");
	path(log, sizeof log, tag, "log");
	char *ef = engflags[k++ % 4];
	snprintf(ef, 1024, "log=%s%s%s", log, flags[0] ? "," : "", flags);
	const char *head[] = {tp_prog("BITARENA", "./bitarena"), "tei-bridge", "--server", server,
	                      NULL};
	const char *engine[] = {"--", self, "--engine", ef, NULL};
	tp_argv(argv, 40, head, args, engine, NULL);
	return tp_spawn(argv, out, err);
}

/* `bitarena bot` accepting `games` Tak games and playing random moves. */
static pid_t random_opponent(int games)
{
	static char server[64], ngames[16];
	snprintf(server, sizeof server, "127.0.0.1:%d", srv.port);
	snprintf(ngames, sizeof ngames, "%d", games);
	const char *argv[] = {tp_prog("BITARENA", "./bitarena"),
	                      "bot",
	                      "--server",
	                      server,
	                      "--accept",
	                      "--kind",
	                      "tak",
	                      "--random",
	                      "--seed",
	                      "7",
	                      "--games",
	                      ngames,
	                      "--quiet",
	                      "--timeout",
	                      "60",
	                      NULL};
	return tp_spawn(argv, "/dev/null", "/dev/null");
}

static char *read_tag(const char *tag, const char *ext, char *buf, size_t len)
{
	char p[600];
	path(p, sizeof p, tag, ext);
	return tp_slurp(p, buf, len);
}

/* Index of the first line of text equal to s (or starting with it when prefix), else -1. */
static int line_index(const char *text, const char *s, bool prefix)
{
	int i = 0;
	size_t k = strlen(s);
	for (const char *p = text; p && *p; i++) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (prefix ? strncmp(p, s, k) == 0 : (n == k && strncmp(p, s, k) == 0))
			return i;
		p = nl ? nl + 1 : NULL;
	}
	return -1;
}

static int count_of(const char *text, const char *needle)
{
	int n = 0;
	for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static bool engines_left(void)
{
	char cmd[PATH_MAX + 64];
	snprintf(cmd, sizeof cmd, "pgrep -f '^%s --engine' >/dev/null", self);
	return system(cmd) == 0;
}

START_TEST(test_plays_games_with_one_engine)
{
	static char log[1 << 20], out[4096], err[1 << 16];
	const char *args[] = {"--seek", "tak size=4", "--games", "2", "--untimed-ms", "500", NULL};
	pid_t b = bridge("plain", "explicit,flood", args);
	pid_t o = random_opponent(2);
	ck_assert_int_eq(tp_wait(b, 100), 0);
	ck_assert_int_eq(tp_wait(o, 30), 0);
	read_tag("plain", "log", log, sizeof log);
	read_tag("plain", "out", out, sizeof out);
	read_tag("plain", "err", err, sizeof err);
	/* two games ended normally (no resignation), then the summary */
	ck_assert_int_eq(tp_count_lines(out, "game "), 2);
	ck_assert_msg(strstr(out, "resign") == NULL, "%s\n%s", out, err);
	ck_assert_ptr_nonnull(strstr(out, "games 2 wins "));
	/* one engine process for both games, told exactly this, and quit at the end */
	ck_assert_int_eq(tp_count_lines(log, "pid "), 1);
	ck_assert_int_eq(line_index(log, "< tei", false), 1);
	ck_assert_int_eq(line_index(log, "< isready", false), 2);
	ck_assert_int_eq(line_index(log, "< teinewgame 4", false), 3);
	ck_assert_int_eq(line_index(log, "< isready", false), 2);
	ck_assert_int_eq(tp_count_lines(log, "< teinewgame 4"), 2);
	ck_assert_int_eq(tp_count_lines(log, "< isready"), 3);
	ck_assert_int_eq(tp_count_lines(log, "< setoption"), 0);
	ck_assert_int_ge(line_index(log, "< position startpos moves", true), 4);
	ck_assert_int_ge(line_index(log, "< go wtime 500 btime 500 winc 0 binc 0", false), 5);
	ck_assert_int_eq(tp_count_lines(log, "< go "),
	                 tp_count_lines(log, "< go wtime 500 btime 500 winc 0 binc 0"));
	ck_assert_int_eq(tp_count_lines(log, "< go "), tp_count_lines(log, "> bestmove "));
	size_t n = strlen(log);
	ck_assert(n > 7 && strcmp(log + n - 7, "< quit\n") == 0);
	/* the engine wrote explicit counts, and the bridge understood them */
	bool explicit = false;
	for (const char *p = strstr(log, "> bestmove "); p; p = strstr(p + 1, "> bestmove "))
		explicit |= p[11] >= '1' && p[11] <= '8' && strchr("+-<>", p[14]) != NULL;
	ck_assert_msg(explicit, "the engine never slid a stack:\n%s", log);
	ck_assert(!engines_left());
}
END_TEST

START_TEST(test_komi_only_when_declared)
{
	static char log[1 << 20], out[4096], err[4096];
	/* no HalfKomi: a komi seek is refused before it is posted, with the reason */
	const char *komi4[] = {"--seek", "tak size=5 komi=4", NULL};
	ck_assert_int_eq(tp_wait(bridge("nokomi", "", komi4), 30), 2);
	read_tag("nokomi", "err", err, sizeof err);
	ck_assert_msg(strstr(err, "declares no HalfKomi option, so it plays komi 0 only"), "%s",
	              err);
	read_tag("nokomi", "log", log, sizeof log);
	ck_assert_int_eq(tp_count_lines(log, "< setoption"), 0);

	/* HalfKomi declared: it is set before the new game */
	const char *seek[] = {"--seek", "tak size=4 komi=4", "--untimed-ms", "300", NULL};
	pid_t b = bridge("komi", "komi", seek);
	pid_t o = random_opponent(1);
	ck_assert_int_eq(tp_wait(b, 60), 0);
	ck_assert_int_eq(tp_wait(o, 30), 0);
	read_tag("komi", "log", log, sizeof log);
	read_tag("komi", "out", out, sizeof out);
	ck_assert_msg(strstr(out, "resign") == NULL, "%s", out);
	int set = line_index(log, "< setoption name HalfKomi value 4", false);
	ck_assert_int_gt(set, 0);
	ck_assert_int_lt(set, line_index(log, "< teinewgame 4", false));
	ck_assert_int_eq(tp_count_lines(log, "< setoption"), 1);
}
END_TEST

START_TEST(test_accept_skips_what_it_cannot_play)
{
	static char err[8192];
	struct ts_cli alice;
	ts_join(&alice, srv.port, "alice");
	ts_send(&alice, "seek tak size=5 komi=4");
	ts_expect0(&alice, "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	ts_send(&alice, "seek tak size=3");
	ts_expect0(&alice, "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	ts_send(&alice, "seek tak size=5 pieces=30");
	ts_expect0(&alice, "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	const char *args[] = {"--accept", "--timeout", "2", NULL};
	ck_assert_int_eq(tp_wait(bridge("skip", "name=Tiltak", args), 30), 1);
	read_tag("skip", "err", err, sizeof err);
	ck_assert_msg(strstr(err, "not accepting seek 1 by alice: Tiltak declares no HalfKomi "
	                          "option, so it plays komi 0 only"),
	              "%s", err);
	ck_assert_msg(strstr(err, "not accepting seek 2 by alice: Tiltak plays sizes 4-6, not 3"),
	              "%s", err);
	ck_assert_msg(strstr(err, "not accepting seek 3 by alice: TEI cannot tell an engine the "
	                          "piece count"),
	              "%s", err);
	/* each refusal is said once, not at every look at the seeks */
	ck_assert_int_eq(tp_count_lines(err, "bitarena tei-bridge: not accepting seek 1 "), 1);
	ck_assert_ptr_nonnull(strstr(err, "no opponent"));
	ts_close(&alice);
}
END_TEST

START_TEST(test_crash_hang_illegal_lose_at_once)
{
	static const char *const modes[3] = {"crash=2", "hang=2", "illegal=2"};
	static const char *const said[3] = {"was killed by signal 6", "hung", "which is illegal: "};
	static char log[1 << 20], out[4096], err[1 << 16];
	for (int k = 0; k < 3; k++) {
		const char *args[] = {"--seek",       "tak size=4", "--games", "2",
		                      "--untimed-ms", "300",        NULL};
		pid_t b = bridge(modes[k], modes[k], args);
		pid_t o = random_opponent(2);
		ck_assert_int_eq(tp_wait(b, 60), 0);
		ck_assert_int_eq(tp_wait(o, 30), 0);
		read_tag(modes[k], "out", out, sizeof out);
		read_tag(modes[k], "err", err, sizeof err);
		read_tag(modes[k], "log", log, sizeof log);
		/* the bad game is lost at once by the bridge's resignation, none is stuck; a
		 * crashed or hung engine is started again for the next game (where it fails
		 * again at its second go), an illegal move needs no new process */
		int lost = k == 2 ? 1 : 2;
		ck_assert_int_eq(tp_count_lines(out, "game "), 2);
		ck_assert_int_eq(count_of(out, ", resign)"), lost);
		ck_assert_int_eq(count_of(err, "; resigning"), lost);
		ck_assert_msg(strstr(err, said[k]), "%s: %s", modes[k], err);
		ck_assert_int_eq(tp_count_lines(log, "pid "), lost);
	}
	ck_assert(!engines_left());
}
END_TEST

START_TEST(test_clock_margin)
{
	static char log[1 << 20], out[4096];
	const char *args[] = {"--seek", "tak size=4 time=0:03+0 color=white", "--margin", "25",
	                      NULL};
	pid_t b = bridge("clock", "overshoot", args);
	pid_t o = random_opponent(1);
	ck_assert_int_eq(tp_wait(b, 60), 0);
	ck_assert_int_eq(tp_wait(o, 30), 0);
	read_tag("clock", "log", log, sizeof log);
	read_tag("clock", "out", out, sizeof out);
	/* white's first move: 3000 ms each, told (3000 - 100) * 75% */
	ck_assert_int_ge(line_index(log, "< go wtime 2175 btime 2175 winc 0 binc 0", false), 0);
	for (const char *p = strstr(log, "< go wtime "); p; p = strstr(p + 1, "< go wtime "))
		ck_assert_int_le(atol(p + 11), 2175);
	ck_assert_ptr_nonnull(strstr(out, "games 1 "));
}
END_TEST

/*
 * The ladder (issue 22): the bridge joins it with --concurrency 2 as a bot's account and
 * plays two games at once against a random bot on the same ladder, each game with its own
 * engine process (two pids in the log); --games 4 leaves the ladder after four games, the
 * games on are played out, and every engine gets quit.
 */
START_TEST(test_ladder_two_games_at_once)
{
	static char log[1 << 20], out[8192], err[1 << 16];
	struct ts_cli reg;
	ts_register(&reg, srv.port, "teiladder", "pw123456 bot");
	ts_close(&reg);
	ts_register(&reg, srv.port, "rndladder", "pw123456 bot");
	ts_close(&reg);
	setenv("BITARENA_PASSWORD", "pw123456", 1);
	const char *args[] = {"--name",        "teiladder", "--ladder", "tak size=4",
	                      "--concurrency", "2",         "--games",  "4",
	                      "--untimed-ms",  "200",       NULL};
	pid_t b = bridge("ladder", "", args);
	static char server[64];
	snprintf(server, sizeof server, "127.0.0.1:%d", srv.port);
	const char *argv[] = {tp_prog("BITARENA", "./bitarena"), "bot", "--server", server,
	                      "--name", "rndladder", "--ladder", "tak size=4", "--concurrency",
	                      "2", "--games", "4", "--random", "--quiet", NULL};
	char rerr[600];
	path(rerr, sizeof rerr, "ladderbot", "err");
	pid_t o = tp_spawn(argv, "/dev/null", rerr);
	unsetenv("BITARENA_PASSWORD");
	ck_assert_int_eq(tp_wait(b, 120), 0);
	ck_assert_int_eq(tp_wait(o, 60), 0);
	read_tag("ladder", "out", out, sizeof out);
	read_tag("ladder", "err", err, sizeof err);
	read_tag("ladder", "log", log, sizeof log);
	int games = 0, w, l, d;
	const char *sum = strstr(out, "games ");
	while (sum != NULL && sscanf(sum, "games %d wins %d losses %d draws %d", &games, &w, &l,
	                             &d) != 4)
		sum = strstr(sum + 1, "games ");
	ck_assert_msg(games >= 4, "%s\n%s", out, err);
	ck_assert_msg(strstr(err, "one process per game") != NULL, "%s", err);
	ck_assert_msg(strstr(err, "(2 on)") != NULL, "never two games at once:\n%s", err);
	ck_assert_msg(strstr(err, "at most 2 game(s) at once") != NULL, "%s", err);
	ck_assert_msg(strstr(out, "resign") == NULL && strstr(err, "resigning") == NULL, "%s",
	              err);
	ck_assert_int_eq(tp_count_lines(log, "pid "), 2); /* two engines, none restarted */
	ck_assert_int_eq(tp_count_lines(log, "< quit"), 2);
	ck_assert(!engines_left());
}
END_TEST

START_TEST(test_engine_that_cannot_start)
{
	static char err[4096];
	char server[64];
	snprintf(server, sizeof server, "127.0.0.1:%d", srv.port);
	const char *missing[] = {tp_prog("BITARENA", "./bitarena"),
	                         "tei-bridge",
	                         "--server",
	                         server,
	                         "--accept",
	                         "--",
	                         "/nonexistent/engine",
	                         NULL};
	char errpath[600];
	path(errpath, sizeof errpath, "missing", "err");
	ck_assert_int_eq(tp_wait(tp_spawn(missing, "/dev/null", errpath), 30), 1);
	tp_slurp(errpath, err, sizeof err);
	ck_assert_msg(strstr(err, "cannot run /nonexistent/engine: No such file or directory"),
	              "%s", err);

	const char *dies[] = {tp_prog("BITARENA", "./bitarena"),
	                      "tei-bridge",
	                      "--server",
	                      server,
	                      "--accept",
	                      "--",
	                      "sh",
	                      "-c",
	                      "echo no weights file >&2; exit 3",
	                      NULL};
	path(errpath, sizeof errpath, "dies", "err");
	ck_assert_int_eq(tp_wait(tp_spawn(dies, "/dev/null", errpath), 30), 1);
	tp_slurp(errpath, err, sizeof err);
	ck_assert_msg(strstr(err, "the engine could not start: exited (it exited with status 3); "
	                          "its last words: no weights file"),
	              "%s", err);
}
END_TEST

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--engine") == 0)
		return run_engine(argv[2]);
	signal(SIGPIPE, SIG_IGN);
	Suite *s = suite_create("tei_bridge");
	TCase *pure = tcase_create("tei");
	tcase_add_test(pure, test_parse_lines);
	tcase_add_test(pure, test_what_engines_play);
	tcase_add_test(pure, test_clock_and_sizes);
	suite_add_tcase(s, pure);
	TCase *tc = tcase_create("bridge");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 200);
	tcase_add_test(tc, test_plays_games_with_one_engine);
	tcase_add_test(tc, test_komi_only_when_declared);
	tcase_add_test(tc, test_accept_skips_what_it_cannot_play);
	tcase_add_test(tc, test_crash_hang_illegal_lose_at_once);
	tcase_add_test(tc, test_clock_margin);
	tcase_add_test(tc, test_engine_that_cannot_start);
	tcase_add_test(tc, test_ladder_two_games_at_once);
	suite_add_tcase(s, tc);
	return check_run(s);
}
