/*
 * check_durability.c - the journal behind the real bitarenad (loopback): a
 * move's acknowledgement and broadcasts wait until its journal batch is
 * durable, and a store that fails under the server is visible, never
 * silent: another process holding the database's lock, a full disk (a small
 * tmpfs, or RLIMIT_FSIZE where mounting is not allowed: smallfs.h), the
 * database file removed or replaced, a 0-byte one refused at start. What players and spectators are
 * told and the state games are in is PROTOCOL.md §10's: the move waits (nobody hears of it before
 * it is stored), everyone in the game is told store_failing at once, other games' new moves and new
 * accounts are refused, pings, the lobby and reads go on, and once the store works everything that
 * waited follows in order after store_ok. --fsync batch=MS acknowledges just the same.
 */
#include <check.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "smallfs.h"
#include "testproc.h"
#include "testserver.h"
#include "check_main.h"

/* The next line that is not lobby news (seeks, presence): parsed (caller frees). */
static cJSON *next_game_line(struct ts_cli *c)
{
	for (;;) {
		char *l = ts_line(c);
		ck_assert_msg(l != NULL, "no line came");
		if (ts_match("{\"type\":\"seek\"}", l) || ts_match("{\"type\":\"presence\"}", l)) {
			free(l);
			continue;
		}
		cJSON *j = cJSON_Parse(l);
		ck_assert_msg(j != NULL, "not JSON: %s", l);
		free(l);
		return j;
	}
}

/* The next non-lobby line must match pattern. */
static void expect_next(struct ts_cli *c, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
static void expect_next(struct ts_cli *c, const char *fmt, ...)
{
	char pat[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pat, sizeof pat, fmt, ap);
	va_end(ap);
	cJSON *j = next_game_line(c);
	char *t = cJSON_PrintUnformatted(j);
	ck_assert_msg(ts_match(pat, t), "expected %s\n     got %s", pat, t);
	free(t);
	cJSON_Delete(j);
}

/*
 * While the store fails, the people of held game g (n of them, their output held behind the
 * game's unstored move) are still answered: each one's ping, a chat line from the first that
 * everyone in the game hears, the lobby (who) and a read (history: an answer, whatever the
 * store says) from the last (PROTOCOL.md §10).
 */
static void held_game_answers(int g, struct ts_cli *const *who, int n)
{
	for (int i = 0; i < n; i++) {
		ts_send(who[i], "#held%d ping", i);
		expect_next(who[i], "{\"type\":\"pong\",\"id\":\"held%d\"}", i);
	}
	ts_send(who[0], "say %d still here?", g);
	expect_next(who[0], "{\"type\":\"ok\",\"cmd\":\"say\",\"game\":%d}", g);
	for (int i = 0; i < n; i++)
		expect_next(who[i], "{\"type\":\"chat\",\"game\":%d,\"text\":\"still here?\"}", g);
	ts_send(who[n - 1], "who");
	expect_next(who[n - 1], "{\"type\":\"ok\",\"cmd\":\"who\"}");
	ts_send(who[n - 1], "history ann");
	expect_next(who[n - 1], "{\"cmd\":\"history\"}");
}

/* Another process takes the database's write lock and holds it. */
static sqlite3 *lock_store(const struct ts_srv *s)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", s->datadir, "bitarena.db");
	sqlite3 *db = NULL;
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 10000); /* the server may be committing right now */
	ck_assert_int_eq(sqlite3_exec(db, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_OK);
	return db;
}

static void unlock_store(sqlite3 *db)
{
	ck_assert_int_eq(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_close(db), SQLITE_OK);
}

/* a (first) and b play game id of ttt; v watches it. The first move is played: b to move. */
static int game_with_watcher(struct ts_srv *s, struct ts_cli *a, struct ts_cli *b, struct ts_cli *v,
                             const char *an, const char *bn, const char *vn)
{
	ts_join(a, s->port, an);
	ts_join(b, s->port, bn);
	int id = ts_start_game(a, b, "ttt", NULL);
	ts_join(v, s->port, vn);
	ts_send(v, "watch %d", id);
	ts_until0(v, "{\"type\":\"ok\",\"cmd\":\"watch\"}");
	ts_expect0(v, "{\"type\":\"state\",\"ply\":0}");
	ts_send(a, "move %d b2", id);
	cJSON_Delete(ts_expectf(a, "{\"type\":\"ok\",\"cmd\":\"move\",\"game\":%d}", id));
	cJSON_Delete(ts_expect(a, "{\"type\":\"state\",\"ply\":1}"));
	cJSON_Delete(ts_until(b, "{\"type\":\"state\",\"ply\":1}"));
	cJSON_Delete(ts_expect(v, "{\"type\":\"state\",\"ply\":1}"));
	return id;
}

/* Game 1 as game_with_watcher(), and game 2 between c (first) and d; returns game 2's id. */
static int two_games(struct ts_srv *s, struct ts_cli *cl, int *g1)
{
	*g1 = game_with_watcher(s, &cl[0], &cl[1], &cl[2], "ann", "bob", "vic");
	ts_join(&cl[3], s->port, "cat");
	ts_join(&cl[4], s->port, "dan");
	return ts_start_game(&cl[3], &cl[4], "ttt", NULL);
}

/* Closes n clients. */
static void close_all(struct ts_cli *cl, int n)
{
	for (int i = 0; i < n; i++)
		ts_close(&cl[i]);
}

/*
 * The database locked by another process past the busy timeout (100 ms here):
 * the move waits, its game is told, the rest of the server answers, and all
 * of it goes out in order once the lock is gone.
 */
START_TEST(test_locked_store)
{
	static const char *const busy[] = {"--busy-timeout-ms", "100"};
	struct ts_srv s;
	struct ts_cli cl[5], *a = &cl[0], *b = &cl[1], *v = &cl[2], *c = &cl[3];
	ts_up(&s, busy, 2);
	int g1, g2 = two_games(&s, cl, &g1);
	sqlite3 *db = lock_store(&s);
	ts_send(b, "move %d a1", g1);
	/* the first word anyone in game 1 hears is the notice: nothing of the move leaked before
	 * it (the mover's ok and the state wait), and the notice comes at once */
#define FAILING                                                                                    \
	"{\"type\":\"info\",\"event\":\"store_failing\",\"game\":%d,\"code\":\"STORE_FAILING\"}"
	expect_next(b, FAILING, g1);
	expect_next(a, FAILING, g1);
	expect_next(v, FAILING, g1);
	/* its people are answered still: the mover, the other player, the spectator */
	struct ts_cli *held[] = {b, a, v};
	held_game_answers(g1, held, 3);
	/* the rest of the server answers: pings, the lobby, reads */
	ts_send(c, "#p1 ping");
	expect_next(c, "{\"type\":\"pong\",\"id\":\"p1\"}");
	ts_send(c, "who");
	expect_next(c, "{\"type\":\"ok\",\"cmd\":\"who\"}");
	ts_send(c, "history bob");
	expect_next(c, "{\"type\":\"ok\",\"cmd\":\"history\",\"games\":[]}");
	/* game 1 is listed as stored: one ply */
	ts_send(c, "list");
	cJSON *l = next_game_line(c);
	ck_assert_str_eq(ts_jstr(l, "cmd"), "list");
	cJSON *games = cJSON_GetObjectItem(l, "games");
	ck_assert_int_eq(cJSON_GetArraySize(games), 2);
	for (int i = 0; i < 2; i++) {
		cJSON *g = cJSON_GetArrayItem(games, i);
		int id = ts_jint(g, "id");
		ck_assert_int_eq(ts_jint(g, "ply"), id == g1 ? 1 : 0);
	}
	cJSON_Delete(l);
	/* new writes are refused while the store fails: nothing happens */
	ts_send(c, "move %d b2", g2);
	expect_next(c, "{\"type\":\"error\",\"code\":\"INTERNAL\",\"cmd\":\"move\"}");
	ts_send(c, "register carol secret3");
	expect_next(c, "{\"type\":\"error\",\"code\":\"INTERNAL\",\"cmd\":\"register\"}");
	/* an end cannot be refused: it waits behind the move */
	ts_send(a, "resign %d", g1);
	unlock_store(db);
	/* the store works again: the games told hear so, then everything that waited, in order */
#define STORED "{\"type\":\"info\",\"event\":\"store_ok\",\"game\":%d,\"code\":\"STORE_OK\"}"
	expect_next(b, STORED, g1);
	expect_next(b, "{\"type\":\"ok\",\"cmd\":\"move\",\"game\":%d,\"move\":\"a1\"}", g1);
	expect_next(b, "{\"type\":\"state\",\"ply\":2}");
	expect_next(b, "{\"type\":\"game_over\",\"result\":{\"reason\":\"resign\"}}");
	expect_next(a, STORED, g1);
	expect_next(a, "{\"type\":\"state\",\"ply\":2}");
	expect_next(a, "{\"type\":\"ok\",\"cmd\":\"resign\"}");
	expect_next(a, "{\"type\":\"game_over\",\"result\":{\"reason\":\"resign\"}}");
	expect_next(v, STORED, g1);
	expect_next(v, "{\"type\":\"state\",\"ply\":2}");
	expect_next(v, "{\"type\":\"game_over\",\"result\":{\"reason\":\"resign\"}}");
	/* and takes writes again */
	ts_send(c, "move %d b2", g2);
	expect_next(c, "{\"type\":\"ok\",\"cmd\":\"move\"}");
	expect_next(c, "{\"type\":\"state\",\"ply\":1}");
	ts_send(c, "register carol secret3");
	expect_next(c, "{\"type\":\"ok\",\"cmd\":\"register\",\"name\":\"carol\"}");
	ts_send(c, "history ann");
	expect_next(c, "{\"type\":\"ok\",\"cmd\":\"history\",\"games\":[{\"plies\":2,"
	               "\"reason\":\"resign\",\"status\":\"finished\"}]}");
	close_all(cl, 5);
	ts_down(&s);
}
END_TEST

/*
 * A full disk under the server: the move waits, its game is told why, and
 * once there is room again the move is stored and told.
 */
START_TEST(test_full_disk)
{
	char root[200], mnt[220], data[240], filler[240];
	tmpdir_make(root, sizeof root, "check_durability");
	snprintf(mnt, sizeof mnt, "%s/small", root);
	ck_assert_int_eq(mkdir(mnt, 0700), 0);
	bool tmpfs = smallfs_mount(mnt);
	snprintf(data, sizeof data, "%s/data", mnt);
	snprintf(filler, sizeof filler, "%s/filler", mnt);
	/* the server inherits the ignored SIGXFSZ (the fallback's writes past the limit fail) */
	signal(SIGXFSZ, SIG_IGN);
	struct ts_srv s;
	struct ts_cli a, b, v;
	ts_start(&s, data, NULL, 0);
	snprintf(s.datadir, sizeof s.datadir, "%s", data);
	int g1 = game_with_watcher(&s, &a, &b, &v, "ann", "bob", "vic");
	struct rlimit old;
	ck_assert_int_eq(prlimit(s.pid, RLIMIT_FSIZE, NULL, &old), 0);
	if (tmpfs) {
		smallfs_fill(filler);
	} else { /* the journal's file may grow no more */
		char wal[400];
		struct stat sb;
		snprintf(wal, sizeof wal, "%s/bitarena.db-wal", data);
		ck_assert_int_eq(stat(wal, &sb), 0);
		struct rlimit lim = {.rlim_cur = (rlim_t)sb.st_size + 1024,
		                     .rlim_max = old.rlim_max};
		ck_assert_int_eq(prlimit(s.pid, RLIMIT_FSIZE, &lim, NULL), 0);
	}
	ts_send(&b, "move %d a1", g1);
	cJSON *n = next_game_line(&b);
	char *t = cJSON_PrintUnformatted(n);
	ck_assert_msg(ts_match("{\"type\":\"info\",\"event\":\"store_failing\",\"code\":"
	                       "\"STORE_FAILING\"}",
	                       t),
	              "got %s", t);
	if (tmpfs) /* and why */
		ck_assert_ptr_nonnull(strstr(ts_jstr(n, "message"), "the disk is full"));
	free(t);
	cJSON_Delete(n);
	expect_next(&a, "{\"type\":\"info\",\"event\":\"store_failing\",\"game\":%d}", g1);
	expect_next(&v, "{\"type\":\"info\",\"event\":\"store_failing\",\"game\":%d}", g1);
	struct ts_cli *held[] = {&b, &a, &v};
	held_game_answers(g1, held, 3);
	if (tmpfs)
		ck_assert_int_eq(unlink(filler), 0);
	else
		ck_assert_int_eq(prlimit(s.pid, RLIMIT_FSIZE, &old, NULL), 0);
	expect_next(&b, "{\"type\":\"info\",\"event\":\"store_ok\",\"game\":%d}", g1);
	expect_next(&b, "{\"type\":\"ok\",\"cmd\":\"move\",\"move\":\"a1\"}");
	expect_next(&a, "{\"type\":\"info\",\"event\":\"store_ok\",\"game\":%d}", g1);
	expect_next(&a, "{\"type\":\"state\",\"ply\":2}");
	expect_next(&v, "{\"type\":\"info\",\"event\":\"store_ok\",\"game\":%d}", g1);
	expect_next(&v, "{\"type\":\"state\",\"ply\":2}");
	ts_close(&a);
	ts_close(&b);
	ts_close(&v);
	ts_stop(&s);
	if (tmpfs)
		ck_assert_int_eq(umount2(mnt, MNT_DETACH), 0);
	tmpdir_remove(root);
}
END_TEST

/*
 * The store is gone under two_games(): b's move in g1 waits and b is told why,
 * a and the spectator are told store_failing, d's move in g2 is refused, and the
 * people of g1 are answered still.
 */
static void store_gone_told(struct ts_cli *cl, int g1, int g2)
{
	struct ts_cli *a = &cl[0], *b = &cl[1], *c = &cl[3];
	ts_send(b, "move %d a1", g1);
	cJSON *n = next_game_line(b);
	ck_assert_ptr_nonnull(strstr(ts_jstr(n, "message"), "removed, replaced or emptied"));
	cJSON_Delete(n);
	expect_next(a, "{\"type\":\"info\",\"event\":\"store_failing\",\"game\":%d}", g1);
	expect_next(&cl[2], "{\"type\":\"info\",\"event\":\"store_failing\",\"game\":%d}", g1);
	ts_send(c, "move %d b2", g2);
	expect_next(c, "{\"type\":\"error\",\"code\":\"INTERNAL\",\"cmd\":\"move\"}");
	/* the store never comes back, and the game's people are answered all the same */
	struct ts_cli *held[] = {b, a, &cl[2]};
	held_game_answers(g1, held, 3);
	ts_send(a, "#later ping");
	expect_next(a, "{\"type\":\"pong\",\"id\":\"later\"}");
}

/*
 * The database file removed under the running server: it does not write to a
 * file nobody will open again. The game's move waits and its players are
 * told why; other games' moves are refused; the server still stops cleanly.
 */
START_TEST(test_store_removed)
{
	struct ts_srv s;
	struct ts_cli cl[5], *c = &cl[3];
	ts_up(&s, NULL, 0);
	int g1, g2 = two_games(&s, cl, &g1);
	char path[512];
	snprintf(path, sizeof path, "%s/bitarena.db", s.datadir);
	ck_assert_int_eq(unlink(path), 0);
	store_gone_told(cl, g1, g2);
	ts_send(c, "#p ping");
	expect_next(c, "{\"type\":\"pong\",\"id\":\"p\"}");
	close_all(cl, 5);
	ts_down(&s);
}
END_TEST

/*
 * The database file replaced under the running server (another store moved
 * over it, as a careless restore would): the server notices before its next
 * write, writes nothing into the new file, keeps its own last writes aside,
 * and tells the players; the file put there is left as it was.
 */
START_TEST(test_store_replaced)
{
	struct ts_srv s, other;
	struct ts_cli cl[5], *c = &cl[3];
	ts_up(&other, NULL, 0); /* a store of its own, with one account */
	struct ts_cli o;
	ts_register(&o, other.port, "olga", "secret1");
	ts_close(&o);
	ts_stop(&other);
	ts_up(&s, NULL, 0);
	int g1, g2 = two_games(&s, cl, &g1);
	char path[512], from[512], aside[600];
	snprintf(path, sizeof path, "%s/bitarena.db", s.datadir);
	snprintf(from, sizeof from, "%s/bitarena.db", other.datadir);
	snprintf(aside, sizeof aside, "%s-wal.orphaned", path);
	struct stat before;
	ck_assert_int_eq(stat(from, &before), 0);
	ck_assert_int_eq(rename(from, path), 0);
	store_gone_told(cl, g1, g2);
	ts_send(c, "register newbie secret1");
	expect_next(c, "{\"type\":\"error\",\"cmd\":\"register\"}");
	struct stat after, st;
	ck_assert_int_eq(stat(path, &after), 0);
	ck_assert_int_eq(after.st_ino, before.st_ino);
	ck_assert_int_eq(after.st_size, before.st_size);
	ck_assert_int_eq(stat(aside, &st), 0); /* the server's last writes, kept */
	close_all(cl, 5);
	ts_down(&s);
	tmpdir_remove(other.datadir);
}
END_TEST

/*
 * A 0-byte database where a store was (a truncation, a failed copy) is not
 * taken for a new store: bitarenad refuses to start, says why, and leaves
 * the file as it is; a WAL without its database is refused the same way.
 */
START_TEST(test_empty_store_refused)
{
	char dir[256], db[320], err[320], wal[340], msg[2048];
	tmpdir_make(dir, sizeof dir, "bitarenad-empty");
	snprintf(db, sizeof db, "%s/bitarena.db", dir);
	snprintf(err, sizeof err, "%s/stderr", dir);
	snprintf(wal, sizeof wal, "%s-wal", db);
	for (int round = 0; round < 2; round++) {
		FILE *f = fopen(round == 0 ? db : wal, "w");
		ck_assert_ptr_nonnull(f);
		if (round == 1)
			fputs("not a store's WAL, but not empty either", f);
		fclose(f);
		if (round == 1)
			ck_assert_int_eq(unlink(db), 0);
		const char *argv[] = {tp_prog("BITARENAD", "./bitarenad"),
		                      "--listen",
		                      "127.0.0.1:0",
		                      "--data",
		                      dir,
		                      NULL};
		ck_assert_int_eq(tp_wait(tp_spawn(argv, "/dev/null", err), 30), 1);
		tp_slurp(err, msg, sizeof msg);
		ck_assert_msg(strstr(msg, "lost store") != NULL, "%s", msg);
		struct stat st;
		if (round == 0) {
			ck_assert_int_eq(stat(db, &st), 0);
			ck_assert_int_eq(st.st_size, 0);
		} else {
			ck_assert_int_ne(stat(db, &st), 0);
		}
	}
	tmpdir_remove(dir);
}
END_TEST

/*
 * --fsync batch=MS: acknowledged once written to the WAL; the game goes on
 * and is stored all the same (a restart brings it back with its moves).
 */
START_TEST(test_fsync_batch)
{
	static const char *const batch[] = {"--fsync", "batch=50"};
	struct ts_srv s;
	struct ts_cli a, b, v;
	ts_up(&s, batch, 2);
	int g1 = game_with_watcher(&s, &a, &b, &v, "ann", "bob", "vic");
	ts_send(&b, "move %d a1", g1);
	expect_next(&b, "{\"type\":\"ok\",\"cmd\":\"move\",\"move\":\"a1\"}");
	expect_next(&a, "{\"type\":\"state\",\"ply\":2}");
	ts_close(&a);
	ts_close(&b);
	ts_close(&v);
	ts_kill9(&s);
	ts_start(&s, s.datadir, batch, 2);
	ts_join(&v, s.port, "vic");
	ts_send(&v, "list");
	expect_next(&v, "{\"type\":\"ok\",\"cmd\":\"list\",\"games\":[{\"ply\":2}]}");
	ts_close(&v);
	ts_down(&s);
}
END_TEST

/*
 * While the store fails, clocks stand still: a 1 s game whose last move waits
 * through 1.5 s of a locked store does not end on time; once stored, the
 * player told of the move has the whole of their second to answer it.
 */
START_TEST(test_clocks_stop)
{
	static const char *const busy[] = {"--busy-timeout-ms", "50"};
	struct ts_srv s;
	struct ts_cli a, b;
	ts_up(&s, busy, 2);
	ts_join(&a, s.port, "ann");
	ts_join(&b, s.port, "bob");
	int g1 = ts_start_game(&a, &b, "ttt time=0:01+0", NULL);
	ts_send(&a, "move %d b2", g1);
	expect_next(&a, "{\"type\":\"ok\",\"cmd\":\"move\"}");
	cJSON *st = next_game_line(&a);
	ck_assert_int_eq(ts_jint(st, "ply"), 1);
	double left = cJSON_GetArrayItem(cJSON_GetObjectItem(st, "clocks"), 0)->valuedouble;
	cJSON_Delete(st);
	expect_next(&b, "{\"type\":\"state\",\"ply\":1}");
	sqlite3 *db = lock_store(&s);
	ts_send(&b, "move %d a1", g1);
	expect_next(&a, "{\"type\":\"info\",\"event\":\"store_failing\",\"game\":%d}", g1);
	expect_next(&b, "{\"type\":\"info\",\"event\":\"store_failing\",\"game\":%d}", g1);
	struct ts_cli *held[] = {&b, &a};
	held_game_answers(g1, held, 2);
	ts_msleep(1500); /* longer than ann's whole clock */
	unlock_store(db);
	expect_next(&a, "{\"type\":\"info\",\"event\":\"store_ok\",\"game\":%d}", g1);
	st = next_game_line(&a);
	ck_assert_str_eq(ts_jstr(st, "type"), "state");
	ck_assert_int_eq(ts_jint(st, "ply"), 2);
	/* ann's clock as her own move left it: the wait was not charged (some ms may be) */
	cJSON *clocks = cJSON_GetObjectItem(st, "clocks");
	ck_assert_int_ge(cJSON_GetArrayItem(clocks, 0)->valuedouble, left - 100);
	cJSON_Delete(st);
	ts_send(&a, "move %d c3", g1);
	expect_next(&a, "{\"type\":\"ok\",\"cmd\":\"move\"}");
	expect_next(&a, "{\"type\":\"state\",\"ply\":3}");
	ts_close(&a);
	ts_close(&b);
	ts_down(&s);
}
END_TEST

static Suite *durability_suite(void)
{
	Suite *s = suite_create("durability");
	TCase *tc = tcase_create("server");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_locked_store);
	tcase_add_test(tc, test_full_disk);
	tcase_add_test(tc, test_store_removed);
	tcase_add_test(tc, test_store_replaced);
	tcase_add_test(tc, test_empty_store_refused);
	tcase_add_test(tc, test_fsync_batch);
	tcase_add_test(tc, test_clocks_stop);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	return check_run(durability_suite());
}
