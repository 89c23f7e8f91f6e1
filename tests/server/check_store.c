/*
 * check_store.c - the store (src/server/store.c) on each back end
 * (storetest.h): SQLite in a temporary directory, PostgreSQL on a
 * throw-away server. The same cases on both: account rules and Argon2id
 * hashes, the move journal and its guards, recovery of games in progress
 * (also after a child process holding the store is killed with SIGKILL
 * mid-stream), ratings, history, reopening, transactions, game ids, reader
 * connections, guest seats' token hashes kept with their games, a store of
 * schema 2 migrated to them, pages of ended games by filter with their moves,
 * a player's counts, a reader's snapshot that writes made meanwhile do not
 * change. Each back end's own: SQLite's schema versions and migrations
 * and its database file removed or emptied under a running store, the
 * online backup of a store being written;
 * PostgreSQL's schema versions, its tables dropped or the store replaced
 * under a running store, sessions broken and the server stopped and started
 * again, text that is not UTF-8, ids reserved by many connections at once,
 * servers migrating together, a cluster's claims of games and the fence of
 * their writes held to the commit.
 */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uv.h>

#include "server/store/store.h"
#include "storetest.h"
#include "check_main.h"

/* SQLite: a nested directory that does not exist yet: store_open creates it. */
static void setup_sqlite(void)
{
	st_setup(ST_SQLITE, "check_store", "data/db");
}

static void setup_pg(void)
{
	st_setup(ST_PG, "check_store", "data/db");
}

static void teardown(void)
{
	st_teardown();
}

/* Opens the running test's store (as a reader, or not). */
static struct store *open_store(bool reader)
{
	struct store_options o = {.reader = reader};
	st_options(&o);
	struct store *s = NULL;
	ck_assert_int_eq(store_open_opts(&o, &s), STORE_OK);
	ck_assert_ptr_nonnull(s);
	return s;
}

static void assert_rating(const struct store_rating *r, double rating, double rd, double vol,
                          int games)
{
	ck_assert_double_eq(r->rating, rating);
	ck_assert_double_eq(r->rd, rd);
	ck_assert_double_eq(r->volatility, vol);
	ck_assert_int_eq(r->games, games);
}

/* Opens the test store with the cheapest Argon2id cost (fast under valgrind). */
static struct store *open_fast(void)
{
	struct store *s = open_store(false);
	store_set_hash_cost(s, crypto_pwhash_OPSLIMIT_MIN, crypto_pwhash_MEMLIMIT_MIN);
	return s;
}

static void new_game(struct store_game *g, const char *kind, const char *p0, const char *p1,
                     int64_t started)
{
	memset(g, 0, sizeof(*g));
	snprintf(g->kind, sizeof g->kind, "%s", kind);
	snprintf(g->options, sizeof g->options, "size=5 komi=4");
	g->seed = 0xFEDCBA9876543210ULL; /* high bit set: must survive the int64 column */
	snprintf(g->players[0], sizeof g->players[0], "%s", p0);
	snprintf(g->players[1], sizeof g->players[1], "%s", p1);
	g->rated = true;
	g->time_base_ms = 300000;
	g->time_inc_ms = 3000;
	g->started = started;
}

static void make_move(struct store_move *m, int ply, const char *text)
{
	memset(m, 0, sizeof(*m));
	m->ply = ply;
	m->seat = ply % 2;
	snprintf(m->text, sizeof m->text, "%s", text);
	m->ms_used = 1000 + ply;
	m->clock_ms[0] = 300000 - ply * 10;
	m->clock_ms[1] = 300000 - ply * 20;
	m->at = 1700000000000LL + ply;
}

/* True when the bytes of needle occur in the file. */
static bool file_contains(const char *path, const char *needle)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	size_t n = strlen(needle), have = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	ck_assert_ptr_nonnull(buf);
	size_t r;
	while ((r = fread(buf + have, 1, cap - have, f)) > 0) {
		have += r;
		if (have == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
	}
	fclose(f);
	bool found = false;
	for (size_t i = 0; n <= have && i + n <= have && !found; i++)
		found = memcmp(buf + i, needle, n) == 0;
	free(buf);
	return found;
}

START_TEST(test_accounts)
{
	struct store *s = open_fast();
	char canon[STORE_NAME_MAX + 1];
	ck_assert_int_eq(store_account_create(s, "Alice_1", "correct horse", 1000), STORE_OK);
	/* Case-insensitive uniqueness. */
	ck_assert_int_eq(store_account_create(s, "alice_1", "whatever1", 1001), STORE_EEXISTS);
	ck_assert_int_eq(store_account_create(s, "ALICE_1", "whatever1", 1001), STORE_EEXISTS);
	ck_assert_int_eq(store_account_exists(s, "aLiCe_1", canon), 1);
	ck_assert_str_eq(canon, "Alice_1");
	ck_assert_int_eq(store_account_exists(s, "bob", NULL), 0);
	/* Login: any letter case, canonical name back; wrong password refused. */
	memset(canon, 0, sizeof canon);
	ck_assert_int_eq(store_account_verify(s, "ALICE_1", "correct horse", canon), STORE_OK);
	ck_assert_str_eq(canon, "Alice_1");
	ck_assert_int_eq(store_account_verify(s, "Alice_1", "correct horsE", canon), STORE_EAUTH);
	ck_assert_int_eq(store_account_verify(s, "Alice_1", "", canon), STORE_EAUTH);
	ck_assert_int_eq(store_account_verify(s, "nobody", "correct horse", canon),
	                 STORE_ENOTFOUND);
	ck_assert_int_eq(store_account_verify(s, "bad name", "correct horse", canon),
	                 STORE_ENOTFOUND);
	/* Bad names. */
	const char *bad[] = {"",
	                     "a",
	                     "with space",
	                     "dash-name",
	                     "dot.name",
	                     "caf\xc3\xa9",
	                     "abcdefghijklmnopqrstu" /* 21 */,
	                     "semi;colon",
	                     "quote'"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_int_eq(store_account_create(s, bad[i], "password", 1), STORE_ENAME);
	ck_assert(store_name_valid("ab"));
	ck_assert(store_name_valid("abcdefghijklmnopqrst")); /* 20 */
	ck_assert(store_name_valid("Z_9"));
	ck_assert(!store_name_valid(NULL));
	/* Password lengths: 6..128 bytes. */
	char pw[200];
	memset(pw, 'x', sizeof pw);
	pw[5] = '\0';
	ck_assert_int_eq(store_account_create(s, "short", pw, 1), STORE_EPASSWORD);
	pw[5] = 'x';
	pw[129] = '\0';
	ck_assert_int_eq(store_account_create(s, "longpw", pw, 1), STORE_EPASSWORD);
	pw[128] = '\0';
	ck_assert_int_eq(store_account_create(s, "longpw", pw, 1), STORE_OK);
	ck_assert_int_eq(store_account_verify(s, "longpw", pw, NULL), STORE_OK);
	ck_assert_int_eq(store_account_create(s, "six", "123456", 1), STORE_OK);
	/* The stored hash is Argon2id and verifies on its own; no clear text anywhere. */
	char hash[STORE_HASH_MAX];
	ck_assert_int_eq(store_account_hash(s, "ALICE_1", canon, hash), STORE_OK);
	ck_assert_int_eq(strncmp(hash, "$argon2id$", 10), 0);
	ck_assert_ptr_null(strstr(hash, "correct horse"));
	ck_assert_int_eq(store_password_check(hash, "correct horse"), STORE_OK);
	ck_assert_int_eq(store_password_check(hash, "correct horsf"), STORE_EAUTH);
	/* A precomputed hash (as a worker thread would make) is accepted. */
	ck_assert_int_eq(store_password_hash("threaded1", crypto_pwhash_OPSLIMIT_MIN,
	                                     crypto_pwhash_MEMLIMIT_MIN, hash),
	                 STORE_OK);
	ck_assert_int_eq(store_account_insert(s, "Worker", hash, 5), STORE_OK);
	ck_assert_int_eq(store_account_insert(s, "WORKER", hash, 5), STORE_EEXISTS);
	ck_assert_int_eq(store_account_verify(s, "worker", "threaded1", canon), STORE_OK);
	ck_assert_str_eq(canon, "Worker");
	char path[400];
	snprintf(path, sizeof path, "%s", store_path(s));
	store_close(s);
	if (st_is_pg()) /* the server's files are its own */
		return;
	/* Neither the database nor its WAL holds the clear password. */
	ck_assert(file_contains(path, "Alice_1"));
	ck_assert(!file_contains(path, "correct horse"));
	strcat(path, "-wal");
	ck_assert(!file_contains(path, "correct horse"));
}
END_TEST

/* The default cost is libsodium's INTERACTIVE Argon2id: t=2, m=64 MiB. */
START_TEST(test_default_hash_cost)
{
	struct store *s = open_store(false);
	ck_assert_int_eq(store_account_create(s, "Carol", "interactive", 1), STORE_OK);
	char hash[STORE_HASH_MAX];
	ck_assert_int_eq(store_account_hash(s, "carol", NULL, hash), STORE_OK);
	ck_assert_int_eq(strncmp(hash, "$argon2id$v=19$m=65536,t=2,p=1$", 31), 0);
	ck_assert_int_eq(store_account_verify(s, "carol", "interactive", NULL), STORE_OK);
	store_close(s);
}
END_TEST

START_TEST(test_journal_guards)
{
	struct store *s = open_fast();
	struct store_game g;
	struct store_move m;
	int64_t id;
	new_game(&g, "tak", "alice", "Guest17", 100);
	g.guest[1] = true;
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_OK);
	ck_assert_int_gt(id, 0);
	/* Plies must come in order from 0. */
	make_move(&m, 1, "a1");
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_ESTATE);
	make_move(&m, 0, "a1");
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_OK);
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_ESTATE); /* ply 0 again */
	make_move(&m, 1, "e5");
	m.seat = 2;
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_EINVAL);
	ck_assert_int_eq(store_move_append(s, id + 100, &m), STORE_EINVAL);
	m.seat = 1;
	ck_assert_int_eq(store_move_append(s, id + 100, &m), STORE_ENOTFOUND);
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_OK);
	make_move(&m, 2, "Sb2");
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_OK);
	/* Undo removes the last ply only; the next append reuses its number. */
	ck_assert_int_eq(store_move_remove_last(s, id), STORE_OK);
	struct store_game f;
	ck_assert_int_eq(store_game_fetch(s, id, &f), STORE_OK);
	ck_assert_int_eq(f.plies, 2);
	ck_assert_str_eq(f.moves[1].text, "e5");
	/* In progress: the clocks are those after the last move. */
	ck_assert_int_eq(f.clock_ms[0], 300000 - 10);
	ck_assert_int_eq(f.clock_ms[1], 300000 - 20);
	store_game_clear(&f);
	ck_assert_ptr_null(f.moves);
	make_move(&m, 2, "c3");
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_OK);
	ck_assert_int_eq(store_move_remove_last(s, id), STORE_OK);
	ck_assert_int_eq(store_move_remove_last(s, id), STORE_OK);
	ck_assert_int_eq(store_move_remove_last(s, id), STORE_OK);
	ck_assert_int_eq(store_move_remove_last(s, id), STORE_ESTATE); /* nothing left */
	ck_assert_int_eq(store_move_remove_last(s, id + 100), STORE_ENOTFOUND);
	/* Before any move the clocks are the base time. */
	ck_assert_int_eq(store_game_fetch(s, id, &f), STORE_OK);
	ck_assert_int_eq(f.plies, 0);
	ck_assert_ptr_null(f.moves);
	ck_assert_int_eq(f.clock_ms[0], 300000);
	ck_assert_int_eq(f.clock_ms[1], 300000);
	ck_assert_int_eq(f.status, STORE_IN_PROGRESS);
	store_game_clear(&f);
	make_move(&m, 0, "a5");
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_OK);
	/* Rating a guest seat fails and rolls the whole finish back. */
	struct store_finish fin = {.status = STORE_FINISHED,
	                           .result = "R-0",
	                           .winner = 0,
	                           .reason = "road",
	                           .ended = 200,
	                           .clock_ms = {1234, 5678}};
	fin.rate[1] = true;
	store_rating_default(&fin.rating[1]);
	ck_assert_int_eq(store_account_create(s, "alice", "password", 1), STORE_OK);
	ck_assert_int_eq(store_game_finish(s, id, &fin), STORE_ENOTFOUND);
	ck_assert_int_eq(store_game_fetch(s, id, &f), STORE_OK);
	ck_assert_int_eq(f.status, STORE_IN_PROGRESS);
	store_game_clear(&f);
	/* Unrated finish works; then the game is closed to every change. */
	fin.rate[1] = false;
	fin.winner = 2;
	ck_assert_int_eq(store_game_finish(s, id, &fin), STORE_EINVAL);
	fin.winner = 0;
	fin.status = STORE_IN_PROGRESS;
	ck_assert_int_eq(store_game_finish(s, id, &fin), STORE_EINVAL);
	fin.status = STORE_FINISHED;
	ck_assert_int_eq(store_game_finish(s, id + 100, &fin), STORE_ENOTFOUND);
	ck_assert_int_eq(store_game_finish(s, id, &fin), STORE_OK);
	ck_assert_int_eq(store_game_finish(s, id, &fin), STORE_ESTATE);
	make_move(&m, 1, "e1");
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_ESTATE);
	ck_assert_int_eq(store_move_remove_last(s, id), STORE_ESTATE);
	ck_assert_int_eq(store_game_fetch(s, id, &f), STORE_OK);
	ck_assert_int_eq(f.status, STORE_FINISHED);
	ck_assert_str_eq(f.result, "R-0");
	ck_assert_str_eq(f.reason, "road");
	ck_assert_int_eq(f.winner, 0);
	ck_assert_int_eq(f.ended, 200);
	ck_assert_int_eq(f.clock_ms[0], 1234); /* final clocks, not the last move's */
	ck_assert_int_eq(f.clock_ms[1], 5678);
	ck_assert(f.guest[1] && !f.guest[0]);
	ck_assert(isnan(f.rating[0]) && isnan(f.rating[1])); /* not rated */
	store_game_clear(&f);
	ck_assert_int_eq(store_game_fetch(s, id + 100, &f), STORE_ENOTFOUND);
	/* Bad game rows. */
	new_game(&g, "", "a", "b", 1);
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_EINVAL);
	new_game(&g, "tak", "", "b", 1);
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_EINVAL);
	new_game(&g, "tak", "a", "b", 1);
	memset(g.kind, 'k', sizeof g.kind); /* unterminated */
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_EINVAL);
	store_close(s);
}
END_TEST

START_TEST(test_reopen_and_recovery)
{
	struct store *s = open_fast();
	ck_assert_int_eq(store_schema_version(s), st_version());
	ck_assert_int_eq(store_account_create(s, "Dave", "password1", 10), STORE_OK);
	struct store_rating r = {1612.5, 80.25, 0.0601, 7, 99};
	ck_assert_int_eq(store_rating_put(s, "dave", "tak", &r), STORE_OK);
	/* Three games: one finished, two in progress with moves. */
	const char *moves[] = {"a1", "e5", "c3", "Sc4", "2c3+11", "Cd4", "d3<"};
	int64_t ids[3];
	struct store_game g;
	struct store_move m;
	for (int k = 0; k < 3; k++) {
		new_game(&g, k == 1 ? "ttt" : "tak", "Dave", "eve", 1000 + k);
		g.guest[1] = true;
		ck_assert_int_eq(store_game_begin(s, &g, &ids[k]), STORE_OK);
		if (k > 0)
			ck_assert_int_gt(ids[k], ids[k - 1]);
	}
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < 7 - k; i++) {
			make_move(&m, i, moves[i]);
			ck_assert_int_eq(store_move_append(s, ids[k], &m), STORE_OK);
		}
	struct store_finish fin = {.status = STORE_FINISHED,
	                           .result = "0-1",
	                           .winner = 1,
	                           .reason = "resign",
	                           .ended = 5000};
	ck_assert_int_eq(store_game_finish(s, ids[0], &fin), STORE_OK);
	store_close(s);

	/* Reopen: the migration does not run twice, and everything is there. */
	s = open_fast();
	ck_assert_int_eq(store_schema_version(s), st_version());
	ck_assert_int_eq(store_account_verify(s, "DAVE", "password1", NULL), STORE_OK);
	struct store_rating got;
	ck_assert_int_eq(store_rating_get(s, "Dave", "tak", &got), STORE_OK);
	assert_rating(&got, 1612.5, 80.25, 0.0601, 7);
	ck_assert_int_eq(got.updated, 99);
	struct store_game *v = NULL;
	size_t n = 99;
	ck_assert_int_eq(store_games_in_progress(s, &v, &n), STORE_OK);
	ck_assert_uint_eq(n, 2);
	for (size_t k = 0; k < n; k++) {
		const struct store_game *p = &v[k];
		ck_assert_int_eq(p->id, ids[k + 1]); /* oldest first */
		ck_assert_str_eq(p->kind, k == 0 ? "ttt" : "tak");
		ck_assert_str_eq(p->options, "size=5 komi=4");
		ck_assert(p->seed == 0xFEDCBA9876543210ULL);
		ck_assert_str_eq(p->players[0], "Dave");
		ck_assert_str_eq(p->players[1], "eve");
		ck_assert(!p->guest[0] && p->guest[1] && p->rated);
		ck_assert_int_eq(p->time_base_ms, 300000);
		ck_assert_int_eq(p->time_inc_ms, 3000);
		ck_assert_int_eq(p->started, 1001 + (int64_t)k);
		ck_assert_int_eq(p->status, STORE_IN_PROGRESS);
		int want = 6 - (int)k;
		ck_assert_int_eq(p->plies, want);
		for (int i = 0; i < want; i++) {
			ck_assert_int_eq(p->moves[i].ply, i);
			ck_assert_int_eq(p->moves[i].seat, i % 2);
			ck_assert_str_eq(p->moves[i].text, moves[i]);
			ck_assert_int_eq(p->moves[i].ms_used, 1000 + i);
			ck_assert_int_eq(p->moves[i].clock_ms[0], 300000 - i * 10);
			ck_assert_int_eq(p->moves[i].clock_ms[1], 300000 - i * 20);
			ck_assert_int_eq(p->moves[i].at, 1700000000000LL + i);
		}
		ck_assert_int_eq(p->clock_ms[1], 300000 - (want - 1) * 20);
	}
	store_games_free(v, n);
	/* Ids keep growing after a restart. */
	int64_t next;
	new_game(&g, "mnk", "x1", "x2", 9);
	ck_assert_int_eq(store_game_begin(s, &g, &next), STORE_OK);
	ck_assert_int_gt(next, ids[2]);
	store_close(s);
}
END_TEST

/* A child appends moves and acknowledges each one on a pipe; it is SIGKILLed mid-stream. */
START_TEST(test_kill9_keeps_acknowledged_moves)
{
	struct store *s = open_fast();
	struct store_game g;
	int64_t id;
	new_game(&g, "tak", "p1", "p2", 1);
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_OK);
	store_close(s);
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		struct store_options o = {0};
		st_options(&o);
		struct store *cs = NULL;
		if (store_open_opts(&o, &cs) != STORE_OK)
			_exit(2);
		for (int ply = 0;; ply++) { /* until killed */
			struct store_move m;
			make_move(&m, ply, ply % 2 ? "b2" : "a1");
			if (store_move_append(cs, id, &m) != STORE_OK)
				_exit(3);
			if (write(fds[1], &ply, sizeof ply) != sizeof ply)
				_exit(4);
		}
	}
	close(fds[1]);
	int acked = -1, ply;
	while (acked < 40 && read(fds[0], &ply, sizeof ply) == sizeof ply)
		acked = ply;
	kill(pid, SIGKILL);
	int status;
	waitpid(pid, &status, 0);
	/* Acknowledgements that were already in the pipe count too. */
	while (read(fds[0], &ply, sizeof ply) == sizeof ply)
		acked = ply;
	close(fds[0]);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	ck_assert_int_ge(acked, 40);
	s = open_fast();
	struct store_game *v = NULL;
	size_t n = 0;
	ck_assert_int_eq(store_games_in_progress(s, &v, &n), STORE_OK);
	ck_assert_uint_eq(n, 1);
	/* Every acknowledged move is there (one more may have committed before the ack). */
	ck_assert_int_ge(v[0].plies, acked + 1);
	ck_assert_int_le(v[0].plies, acked + 2);
	for (int i = 0; i < v[0].plies; i++)
		ck_assert_int_eq(v[0].moves[i].ply, i);
	store_games_free(v, n);
	store_close(s);
}
END_TEST

START_TEST(test_ratings)
{
	struct store *s = open_fast();
	const char *names[] = {"Ann", "Ben", "Cid", "Dot"};
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(store_account_create(s, names[i], "password", 1), STORE_OK);
	struct store_rating r;
	ck_assert_int_eq(store_rating_get(s, "ann", "tak", &r), STORE_OK);
	assert_rating(&r, 1500, 350, 0.06, 0);
	ck_assert_int_eq(store_rating_get(s, "nobody", "tak", &r), STORE_ENOTFOUND);
	ck_assert_int_eq(store_rating_put(s, "nobody", "tak", &r), STORE_ENOTFOUND);
	/* Ann 1600, Ben 1700 (RD 100), Cid 1700 (RD 50), Dot unrated in tak but rated in ttt. */
	struct store_rating ra = {1600, 60, 0.06, 3, 5}, rb = {1700, 100, 0.06, 4, 5},
	                    rc = {1700, 50, 0.06, 9, 5}, rz = {1900, 300, 0.06, 0, 5},
	                    rt = {1450, 200, 0.06, 1, 5};
	ck_assert_int_eq(store_rating_put(s, "ANN", "tak", &ra), STORE_OK);
	ck_assert_int_eq(store_rating_put(s, "ben", "tak", &rb), STORE_OK);
	ck_assert_int_eq(store_rating_put(s, "cid", "tak", &rc), STORE_OK);
	ck_assert_int_eq(store_rating_put(s, "dot", "tak", &rz), STORE_OK); /* 0 games */
	ck_assert_int_eq(store_rating_put(s, "dot", "ttt", &rt), STORE_OK);
	ra.rating = 1650; /* replace */
	ck_assert_int_eq(store_rating_put(s, "ann", "tak", &ra), STORE_OK);
	struct store_rating_row rows[10];
	int n = store_rating_top(s, "tak", rows, 10);
	ck_assert_int_eq(n, 3);                /* Dot has no rated tak game */
	ck_assert_str_eq(rows[0].name, "Cid"); /* 1700, smaller RD first */
	ck_assert_str_eq(rows[1].name, "Ben");
	ck_assert_str_eq(rows[2].name, "Ann");
	ck_assert_double_eq(rows[2].r.rating, 1650);
	ck_assert_str_eq(rows[2].kind, "tak");
	ck_assert_int_eq(store_rating_top(s, "tak", rows, 2), 2);
	ck_assert_int_eq(store_rating_top(s, "xmas", rows, 10), 0);
	n = store_ratings_of(s, "DOT", rows, 10);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(rows[0].kind, "tak");
	ck_assert_str_eq(rows[1].kind, "ttt");
	ck_assert_str_eq(rows[1].name, "Dot");
	ck_assert_double_eq(rows[1].r.rating, 1450);
	/* A rated finish writes both new ratings in the game's kind, in one transaction. */
	struct store_game g;
	int64_t id;
	new_game(&g, "ttt", "Ann", "Ben", 1);
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_OK);
	struct store_finish fin = {.status = STORE_FINISHED,
	                           .result = "1-0",
	                           .winner = 0,
	                           .reason = "line",
	                           .ended = 2,
	                           .rate = {true, true}};
	fin.rating[0] = (struct store_rating){1662.3, 290.3, 0.06, 1, 2};
	fin.rating[1] = (struct store_rating){1337.7, 290.3, 0.06, 1, 2};
	ck_assert_int_eq(store_game_finish(s, id, &fin), STORE_OK);
	ck_assert_int_eq(store_rating_get(s, "ann", "ttt", &r), STORE_OK);
	ck_assert_double_eq(r.rating, 1662.3);
	ck_assert_int_eq(r.games, 1);
	ck_assert_int_eq(store_rating_get(s, "ben", "ttt", &r), STORE_OK);
	ck_assert_double_eq(r.rating, 1337.7);
	ck_assert_int_eq(store_rating_get(s, "ann", "tak", &r), STORE_OK);
	ck_assert_double_eq(r.rating, 1650); /* other kinds untouched */
	/* and the game keeps each seat's rating after it (a rating history's points) */
	ck_assert_int_eq(store_game_fetch(s, id, &g), STORE_OK);
	ck_assert_double_eq(g.rating[0], 1662.3);
	ck_assert_double_eq(g.rating[1], 1337.7);
	store_game_clear(&g);
	store_close(s);
}
END_TEST

START_TEST(test_history)
{
	struct store *s = open_fast();
	struct store_game g;
	struct store_move m;
	int64_t ids[5];
	/* Games 0..3 end at times 40, 10, 30, 20; game 4 stays in progress. */
	int64_t ends[4] = {40, 10, 30, 20};
	for (int k = 0; k < 5; k++) {
		new_game(&g, "tak", k == 2 ? "zed" : "Hal", k == 2 ? "HAL" : "ivy", k);
		ck_assert_int_eq(store_game_begin(s, &g, &ids[k]), STORE_OK);
		for (int i = 0; i < k; i++) {
			make_move(&m, i, "a1");
			ck_assert_int_eq(store_move_append(s, ids[k], &m), STORE_OK);
		}
		if (k < 4) {
			struct store_finish fin = {.status =
			                                   k == 3 ? STORE_ABORTED : STORE_FINISHED,
			                           .result = k == 3 ? "" : "F-0",
			                           .winner = k == 3 ? -1 : 0,
			                           .reason = k == 3 ? "abort" : "flats",
			                           .ended = ends[k]};
			ck_assert_int_eq(store_game_finish(s, ids[k], &fin), STORE_OK);
		}
	}
	struct store_game *v;
	size_t n;
	ck_assert_int_eq(store_history(s, "hal", 10, &v, &n), STORE_OK);
	ck_assert_uint_eq(n, 4); /* not the one in progress; seat 1 counts too */
	int64_t want[4] = {ids[0], ids[2], ids[3], ids[1]};
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(v[i].id, want[i]);
		ck_assert_ptr_null(v[i].moves);
	}
	ck_assert_int_eq(v[0].plies, 0);
	ck_assert_int_eq(v[1].plies, 2);
	ck_assert_int_eq(v[2].status, STORE_ABORTED);
	ck_assert_str_eq(v[1].players[1], "HAL");
	store_games_free(v, n);
	ck_assert_int_eq(store_history(s, "HAL", 2, &v, &n), STORE_OK);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(v[1].id, ids[2]);
	store_games_free(v, n);
	ck_assert_int_eq(store_history(s, "nobody", 10, &v, &n), STORE_OK);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(v);
	ck_assert_int_eq(store_history(s, "ivy", 10, &v, &n), STORE_OK);
	ck_assert_uint_eq(n, 3);
	store_games_free(v, n);
	store_close(s);
}
END_TEST

/* Ends game id with a result (finished: winner seat or -1 for a draw; aborted) at ended. */
static void end_game(struct store *s, int64_t id, enum store_status st, int winner, int64_t ended)
{
	struct store_finish fin = {.status = st,
	                           .result = st == STORE_ABORTED ? ""
	                                     : winner < 0        ? "1/2-1/2"
	                                     : winner == 0       ? "1-0"
	                                                         : "0-1",
	                           .winner = winner,
	                           .reason = st == STORE_ABORTED ? "abort" : "line",
	                           .ended = ended};
	ck_assert_int_eq(store_game_finish(s, id, &fin), STORE_OK);
}

/* Pages of ended games by player, kind, rated, end time and cursor; counts of a player. */
START_TEST(test_find_and_counts)
{
	struct store *s = open_fast();
	struct store_game g;
	struct store_move m;
	int64_t ids[8];
	/* game k: tak between amy and bob (k odd: ttt between bob and cy), k plies, rated when
	   k % 3 == 0, ended at 100 + k; game 6 aborted, game 7 in progress */
	for (int k = 0; k < 8; k++) {
		new_game(&g, k % 2 ? "ttt" : "tak", k % 2 ? "cy" : "Amy", "bob", k);
		g.rated = k % 3 == 0;
		ck_assert_int_eq(store_game_begin(s, &g, &ids[k]), STORE_OK);
		for (int i = 0; i < k; i++) {
			make_move(&m, i, i % 2 ? "b2" : "a1");
			ck_assert_int_eq(store_move_append(s, ids[k], &m), STORE_OK);
		}
		if (k < 6)
			end_game(s, ids[k], STORE_FINISHED, k == 4 ? -1 : k % 2, 100 + k);
		else if (k == 6)
			end_game(s, ids[k], STORE_ABORTED, -1, 106);
	}
	struct store_game_query q = {.rated = -1};
	struct store_game *v;
	size_t n;
	ck_assert_int_eq(store_games_find(s, &q, 10, &v, &n), STORE_OK);
	ck_assert_uint_eq(n, 7); /* not the one in progress */
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(v[i].id, ids[6 - i]); /* newest first */
		ck_assert_int_eq(v[i].plies, 6 - (int)i);
		ck_assert_ptr_null(v[i].moves);
	}
	store_games_free(v, n);
	/* pages of 3 with their moves, each after the last id of the one before */
	q.moves = true;
	int seen = 0;
	for (int page = 0; page < 4; page++) {
		ck_assert_int_eq(store_games_find(s, &q, 3, &v, &n), STORE_OK);
		ck_assert_uint_eq(n, page < 2 ? 3 : page == 2 ? 1 : 0);
		for (size_t i = 0; i < n; i++, seen++) {
			ck_assert_int_eq(v[i].id, ids[6 - seen]);
			ck_assert_int_eq(v[i].plies, 6 - seen);
			if (v[i].plies > 0) {
				ck_assert_ptr_nonnull(v[i].moves);
				ck_assert_str_eq(v[i].moves[v[i].plies - 1].text,
				                 (v[i].plies - 1) % 2 ? "b2" : "a1");
				ck_assert_int_eq(v[i].moves[0].clock_ms[0], 300000);
			}
		}
		if (n > 0)
			q.before = v[n - 1].id;
		store_games_free(v, n);
	}
	ck_assert_int_eq(seen, 7);
	/* filters: a seat (either, any case), a kind, rated, the end's bounds */
	struct store_game_query f = {.player = "AMY", .rated = -1};
	ck_assert_int_eq(store_games_find(s, &f, 10, &v, &n), STORE_OK);
	ck_assert_uint_eq(n, 4); /* 6 (aborted), 4, 2, 0 */
	ck_assert_int_eq(v[0].id, ids[6]);
	ck_assert_int_eq(v[3].id, ids[0]);
	store_games_free(v, n);
	f = (struct store_game_query){.player = "bob", .kind = "ttt", .rated = -1};
	ck_assert_int_eq(store_games_find(s, &f, 10, &v, &n), STORE_OK);
	ck_assert_uint_eq(n, 3); /* 5, 3, 1 */
	for (size_t i = 0; i < n; i++)
		ck_assert_str_eq(v[i].kind, "ttt");
	store_games_free(v, n);
	f = (struct store_game_query){.rated = 1};
	ck_assert_int_eq(store_games_find(s, &f, 10, &v, &n), STORE_OK);
	ck_assert_uint_eq(n, 3); /* 6, 3, 0 */
	ck_assert_int_eq(v[0].id, ids[6]);
	ck_assert(v[1].rated);
	store_games_free(v, n);
	f = (struct store_game_query){.rated = 0, .since = 102, .until = 104};
	ck_assert_int_eq(store_games_find(s, &f, 10, &v, &n), STORE_OK);
	ck_assert_uint_eq(n, 2); /* 4 and 2 (3 is rated) */
	ck_assert_int_eq(v[0].id, ids[4]);
	ck_assert_int_eq(v[1].id, ids[2]);
	store_games_free(v, n);
	f = (struct store_game_query){.player = "nobody", .rated = -1};
	ck_assert_int_eq(store_games_find(s, &f, 10, &v, &n), STORE_OK);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(v);
	f.player = "a name far too long to be anybody's seat at all";
	ck_assert_int_eq(store_games_find(s, &f, 10, &v, &n), STORE_OK);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(store_games_find(s, &f, 0, &v, &n), STORE_EINVAL);
	ck_assert_int_eq(store_games_find(s, &f, STORE_FIND_MAX + 1, &v, &n), STORE_EINVAL);
	f = (struct store_game_query){.rated = 2};
	ck_assert_int_eq(store_games_find(s, &f, 10, &v, &n), STORE_EINVAL);
	/* counts: finished games only; bob won 1, 3, 5 as seat 1 of ttt and lost 0, 2 (seat 1
	   of tak), drew 4 */
	struct store_counts c;
	ck_assert_int_eq(store_player_counts(s, "BOB", &c), STORE_OK);
	ck_assert_int_eq(c.games, 6);
	ck_assert_int_eq(c.rated, 2); /* 0 and 3 */
	ck_assert_int_eq(c.wins, 3);
	ck_assert_int_eq(c.losses, 2);
	ck_assert_int_eq(c.draws, 1);
	ck_assert_int_eq(store_player_counts(s, "amy", &c), STORE_OK);
	ck_assert_int_eq(c.games, 3);
	ck_assert_int_eq(c.wins, 2);
	ck_assert_int_eq(c.losses, 0);
	ck_assert_int_eq(c.draws, 1);
	ck_assert_int_eq(store_player_counts(s, "nobody", &c), STORE_OK);
	ck_assert_int_eq(c.games, 0);
	store_close(s);
}
END_TEST

/* A reader's snapshot sees the store as it was when it began, whatever is written after. */
START_TEST(test_snapshot)
{
	struct store *s = open_fast();
	struct store_game g;
	int64_t id;
	new_game(&g, "ttt", "ann", "ben", 1);
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_OK);
	end_game(s, id, STORE_FINISHED, 0, 10);
	struct store *r = open_store(true);
	ck_assert_int_eq(store_snapshot_begin(s), STORE_EINVAL); /* a connection that writes */
	ck_assert_int_eq(store_snapshot_begin(r), STORE_OK);
	ck_assert_int_eq(store_snapshot_begin(r), STORE_EINVAL);
	struct store_game_query q = {.rated = -1};
	struct store_game *v;
	size_t n;
	ck_assert_int_eq(store_games_find(r, &q, 10, &v, &n), STORE_OK);
	ck_assert_uint_eq(n, 1);
	store_games_free(v, n);
	/* the writer goes on meanwhile (it does not wait for the reader) */
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_OK);
	end_game(s, id, STORE_FINISHED, 1, 20);
	ck_assert_int_eq(store_games_find(r, &q, 10, &v, &n), STORE_OK);
	ck_assert_uint_eq(n, 1); /* the snapshot's */
	store_games_free(v, n);
	struct store_counts c;
	ck_assert_int_eq(store_player_counts(r, "ann", &c), STORE_OK);
	ck_assert_int_eq(c.games, 1);
	ck_assert_int_eq(store_snapshot_end(r), STORE_OK);
	ck_assert_int_eq(store_snapshot_end(r), STORE_EINVAL);
	ck_assert_int_eq(store_games_find(r, &q, 10, &v, &n), STORE_OK);
	ck_assert_uint_eq(n, 2); /* now */
	store_games_free(v, n);
	if (st_is_pg()) { /* pg_dump makes its backups (README) */
		char dest[600];
		snprintf(dest, sizeof dest, "%s/copy.db", ste.tmpdir);
		ck_assert_int_eq(store_backup(r, dest), STORE_EINVAL);
	}
	store_close(r);
	store_close(s);
}
END_TEST

/* A database from a newer program is refused, not migrated backwards. */
START_TEST(test_newer_schema_refused)
{
	struct store *s = open_fast();
	char path[400];
	snprintf(path, sizeof path, "%s", store_path(s));
	store_close(s);
	sqlite3 *db;
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	/* The file is in WAL mode (persistent), at the latest schema version. */
	sqlite3_stmt *st;
	ck_assert_int_eq(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	ck_assert_int_eq(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_int(st, 0), st_version());
	sqlite3_finalize(st);
	ck_assert_int_eq(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	s = (struct store *)1;
	ck_assert_int_eq(store_open(ste.dir, &s), STORE_ESCHEMA);
	ck_assert_ptr_null(s);
	/* A path that cannot be a directory. */
	char file[400];
	snprintf(file, sizeof file, "%s/plainfile", ste.tmpdir);
	FILE *f = fopen(file, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	ck_assert_int_eq(store_open(file, &s), STORE_EIO);
	ck_assert_int_eq(store_open("", &s), STORE_EINVAL);
	ck_assert_str_eq(store_strerror(STORE_EEXISTS), "that name is taken");
	ck_assert_str_eq(store_status_name(STORE_ABORTED), "aborted");
}
END_TEST

/* Transactions group writes; a refused write leaves the transaction good; rollback drops all. */
START_TEST(test_transactions)
{
	struct store *s = open_fast();
	struct store_game g;
	struct store_move m;
	int64_t id;
	new_game(&g, "tak", "p1", "p2", 1);
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_OK);
	ck_assert_int_eq(store_begin(s), STORE_OK);
	ck_assert_int_eq(store_begin(s), STORE_EINVAL); /* one at a time */
	make_move(&m, 0, "a1");
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_OK);
	make_move(&m, 1, "a2");
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_OK);
	store_rollback(s);
	ck_assert_int_eq(store_commit(s), STORE_EINVAL); /* none open */
	struct store_game f;
	ck_assert_int_eq(store_game_fetch(s, id, &f), STORE_OK);
	ck_assert_int_eq(f.plies, 0);
	store_game_clear(&f);
	ck_assert_int_eq(store_begin(s), STORE_OK);
	make_move(&m, 0, "a1");
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_OK);
	make_move(&m, 5, "a5");
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_ESTATE); /* refused, nothing undone */
	make_move(&m, 1, "a2");
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_OK);
	/* a rated end that fails half-way undoes only itself (a guest cannot be rated) */
	struct store_finish fin = {.status = STORE_FINISHED, .result = "1-0", .winner = 0};
	fin.rate[0] = true;
	store_rating_default(&fin.rating[0]);
	ck_assert_int_eq(store_game_finish(s, id, &fin), STORE_ENOTFOUND);
	/* reads inside the transaction see its writes */
	ck_assert_int_eq(store_game_fetch(s, id, &f), STORE_OK);
	ck_assert_int_eq(f.plies, 2);
	ck_assert_int_eq(f.status, STORE_IN_PROGRESS);
	store_game_clear(&f);
	ck_assert_int_eq(store_commit(s), STORE_OK);
	ck_assert_int_eq(store_sync(s), STORE_OK);
	store_close(s);
	s = open_fast();
	ck_assert_int_eq(store_game_fetch(s, id, &f), STORE_OK);
	ck_assert_int_eq(f.plies, 2);
	ck_assert_str_eq(f.moves[1].text, "a2");
	store_game_clear(&f);
	/* a takeback names the journal it expects */
	ck_assert_int_eq(store_moves_truncate(s, id, 1, 3), STORE_ESTATE);
	ck_assert_int_eq(store_moves_truncate(s, id, 0, 0), STORE_EINVAL);
	ck_assert_int_eq(store_moves_truncate(s, id, -1, 2), STORE_EINVAL);
	ck_assert_int_eq(store_moves_truncate(s, id + 1, 0, 2), STORE_ENOTFOUND);
	ck_assert_int_eq(store_moves_truncate(s, id, 0, 2), STORE_OK);
	ck_assert_int_eq(store_game_fetch(s, id, &f), STORE_OK);
	ck_assert_int_eq(f.plies, 0);
	store_game_clear(&f);
	ck_assert(store_err_is_failure(STORE_EBUSY) && store_err_is_failure(STORE_EFULL) &&
	          store_err_is_failure(STORE_EGONE) && store_err_is_failure(STORE_EIO));
	ck_assert(!store_err_is_failure(STORE_OK) && !store_err_is_failure(STORE_ESTATE) &&
	          !store_err_is_failure(STORE_EEXISTS) && !store_err_is_failure(STORE_ENOTFOUND));
	store_close(s);
}
END_TEST

/* Ids come from the store, reserved in blocks or one by one, never twice. */
START_TEST(test_game_ids)
{
	struct store *s = open_fast();
	struct store_game g;
	new_game(&g, "tak", "p1", "p2", 1);
	int64_t a, b, first;
	ck_assert_int_eq(store_game_begin(s, &g, &a), STORE_OK);
	ck_assert_int_eq(a, 1);
	ck_assert_int_eq(store_reserve_ids(s, 0, &first), STORE_EINVAL);
	ck_assert_int_eq(store_reserve_ids(s, 10, &first), STORE_OK);
	ck_assert_int_eq(first, 2);
	ck_assert_int_eq(store_game_begin(s, &g, &b), STORE_OK);
	ck_assert_int_eq(b, 12);
	ck_assert_int_eq(store_game_insert(s, &g, first + 3), STORE_OK);
	ck_assert_int_eq(store_game_insert(s, &g, first + 3), STORE_EEXISTS);
	ck_assert_int_eq(store_game_insert(s, &g, 0), STORE_EINVAL);
	store_close(s);
}
END_TEST

/* Schema 3's and 4's columns dropped again: a store as schema 2 left it (SQLite 3.35 and
 * later). */
#define DROP_TOKEN_HASHES                                                                          \
	"ALTER TABLE games DROP COLUMN token_hash0; ALTER TABLE games DROP COLUMN token_hash1;"    \
	" ALTER TABLE games DROP COLUMN rating0; ALTER TABLE games DROP COLUMN rating1;"

/*
 * A store of schema 1 (before the id counter) is migrated: ids go on past
 * every game id ever given (AUTOINCREMENT's high-water mark included).
 */
START_TEST(test_migration_to_id_counter)
{
	if (sqlite3_libversion_number() < 3035000)
		return; /* no DROP COLUMN to go back with */
	struct store *s = open_fast();
	struct store_game g;
	new_game(&g, "tak", "p1", "p2", 1);
	int64_t id;
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_OK);
	char path[400];
	snprintf(path, sizeof path, "%s", store_path(s));
	store_close(s);
	sqlite3 *db;
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db,
	                              "DROP TABLE counters; " DROP_TOKEN_HASHES
	                              " DROP TABLE tourneys; PRAGMA user_version = 1;"
	                              " UPDATE sqlite_sequence SET seq = 40 WHERE name = 'games'",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	sqlite3_close(db);
	s = open_fast();
	ck_assert_int_eq(store_schema_version(s), st_version());
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_OK);
	ck_assert_int_eq(id, 41);
	store_close(s);
}
END_TEST

#define HASH_A "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define HASH_B "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

/*
 * A guest seat's token hash is kept with its game and comes back with it (a
 * fetch, the games in progress after reopening, the history); only a
 * guest's seat has one, and only as STORE_TOKEN_HASH lowercase hex digits.
 */
START_TEST(test_token_hashes)
{
	struct store *s = open_fast();
	struct store_game g, f;
	new_game(&g, "tak", "gus", "Dave", 1);
	g.guest[0] = true;
	snprintf(g.token_hash[0], sizeof g.token_hash[0], "%s", HASH_A);
	snprintf(g.token_hash[1], sizeof g.token_hash[1], "%s", HASH_B);
	int64_t id, id2;
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_EINVAL); /* Dave is an account */
	g.token_hash[1][0] = '\0';
	g.token_hash[0][5] = 'A';
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_EINVAL); /* not lowercase hex */
	g.token_hash[0][5] = '5';
	g.token_hash[0][63] = '\0';
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_EINVAL); /* 63 digits */
	g.token_hash[0][63] = 'f';
	memset(g.token_hash[1], 'a', sizeof g.token_hash[1]); /* not NUL-terminated */
	ck_assert_int_eq(store_game_insert(s, &g, 1000), STORE_EINVAL);
	g.token_hash[1][0] = '\0';
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_OK);
	new_game(&g, "ttt", "gus", "ida", 2); /* guests without tokens (a relay's seats) */
	g.guest[0] = g.guest[1] = true;
	ck_assert_int_eq(store_game_begin(s, &g, &id2), STORE_OK);
	ck_assert_int_eq(store_game_fetch(s, id, &f), STORE_OK);
	ck_assert_str_eq(f.token_hash[0], HASH_A);
	ck_assert_str_eq(f.token_hash[1], "");
	store_game_clear(&f);
	store_close(s);

	s = open_fast();
	struct store_game *v = NULL;
	size_t n = 0;
	ck_assert_int_eq(store_games_in_progress(s, &v, &n), STORE_OK);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(v[0].id, id);
	ck_assert_str_eq(v[0].token_hash[0], HASH_A);
	ck_assert_str_eq(v[0].token_hash[1], "");
	ck_assert_str_eq(v[1].token_hash[0], "");
	ck_assert_str_eq(v[1].token_hash[1], "");
	store_games_free(v, n);
	struct store_finish fin = {.status = STORE_FINISHED, .result = "1-0", .reason = "road"};
	ck_assert_int_eq(store_game_finish(s, id, &fin), STORE_OK);
	ck_assert_int_eq(store_history(s, "GUS", 10, &v, &n), STORE_OK);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(v[0].token_hash[0], HASH_A);
	store_games_free(v, n);
	store_close(s);
}
END_TEST

/*
 * A store of schema 2 (before the token hashes) is migrated: its games come
 * back without hashes (their guest seats go to the first guest of the name,
 * as before), and new games keep theirs.
 */
START_TEST(test_migration_to_token_hashes)
{
	if (!st_is_pg() && sqlite3_libversion_number() < 3035000)
		return; /* no DROP COLUMN to go back with */
	struct store *s = open_fast();
	struct store_game g, f;
	new_game(&g, "tak", "gus", "hal", 1);
	g.guest[0] = g.guest[1] = true;
	snprintf(g.token_hash[1], sizeof g.token_hash[1], "%s", HASH_B);
	int64_t old, id;
	ck_assert_int_eq(store_game_begin(s, &g, &old), STORE_OK);
	store_close(s);
	struct st_other o;
	st_other_open(&o);
	st_other_sql(&o, st_is_pg() ? "ALTER TABLE games DROP COLUMN token_hash0,"
	                              " DROP COLUMN token_hash1, DROP COLUMN rating0,"
	                              " DROP COLUMN rating1; DROP TABLE tourneys;"
	                              " DELETE FROM bitarena_migrations WHERE version >= 3"
	                            : DROP_TOKEN_HASHES
	                         " DROP TABLE tourneys; PRAGMA user_version = 2");
	st_other_close(&o);
	s = open_fast();
	ck_assert_int_eq(store_schema_version(s), st_version());
	ck_assert_int_eq(store_game_fetch(s, old, &f), STORE_OK);
	ck_assert_str_eq(f.players[1], "hal");
	ck_assert_str_eq(f.token_hash[0], "");
	ck_assert_str_eq(f.token_hash[1], "");
	store_game_clear(&f);
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_OK);
	ck_assert_int_eq(store_game_fetch(s, id, &f), STORE_OK);
	ck_assert_str_eq(f.token_hash[1], HASH_B);
	store_game_clear(&f);
	store_close(s);
}
END_TEST

/* The file under a running store: removed, it refuses writes; empty, it is refused. */
/*
 * Tournaments (schema 5): one row each, written whole (inserted, then replaced); those
 * not over come back by id with their documents, the highest id of all with them; a store
 * of schema 3 gets the table, its games untouched; bad arguments are refused.
 */
START_TEST(test_tourneys)
{
	struct store *s = open_fast();
	struct store_tourney *v;
	size_t n;
	int64_t max;
	ck_assert_int_eq(store_tourneys_open(s, &v, &n, &max), STORE_OK);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(v);
	ck_assert_int_eq(max, 0);
	ck_assert_int_eq(store_tourney_put(s, 1, "created", "{\"id\":1}", 10), STORE_OK);
	ck_assert_int_eq(store_tourney_put(s, 2, "running", "{\"id\":2,\"round\":1}", 11),
	                 STORE_OK);
	ck_assert_int_eq(store_tourney_put(s, 3, "finished", "{\"id\":3}", 12), STORE_OK);
	ck_assert_int_eq(store_tourney_put(s, 1, "cancelled", "{\"id\":1,\"x\":1}", 13), STORE_OK);
	ck_assert_int_eq(store_tourney_put(s, 2, "running", "{\"id\":2,\"round\":2}", 14),
	                 STORE_OK);
	ck_assert_int_eq(store_tourney_put(s, 0, "running", "{}", 1), STORE_EINVAL);
	ck_assert_int_eq(store_tourney_put(s, 4, "a state far too long", "{}", 1), STORE_EINVAL);
	store_close(s);
	s = open_fast();
	ck_assert_int_eq(store_tourneys_open(s, &v, &n, &max), STORE_OK);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(max, 3);
	ck_assert_int_eq(v[0].id, 2);
	ck_assert_str_eq(v[0].state, "running");
	ck_assert_str_eq(v[0].doc, "{\"id\":2,\"round\":2}");
	ck_assert_int_eq(v[0].updated, 14);
	store_tourneys_free(v, n);
	struct store_game g;
	new_game(&g, "tak", "p1", "p2", 1);
	int64_t id;
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_OK);
	store_close(s);
	/* back to schema 4, then up again: the table comes, the game stays */
	struct st_other o;
	st_other_open(&o);
	st_other_sql(&o, st_is_pg() ? "DROP TABLE tourneys;"
	                              " DELETE FROM bitarena_migrations WHERE version >= 5"
	                            : "DROP TABLE tourneys; PRAGMA user_version = 4");
	st_other_close(&o);
	s = open_fast();
	ck_assert_int_eq(store_schema_version(s), st_version());
	ck_assert_int_eq(store_tourneys_open(s, &v, &n, &max), STORE_OK);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(max, 0);
	ck_assert_int_eq(store_game_fetch(s, id, &g), STORE_OK);
	store_game_clear(&g);
	store_close(s);
}
END_TEST

/* An account's preferences (schema 7): bot, bots off, the accept filter; the bot flag stays
   as it is once the account has a game stored. */
START_TEST(test_prefs)
{
	struct store *s = open_fast();
	ck_assert_int_eq(store_account_create(s, "Robo", "secret1", 1), STORE_OK);
	ck_assert_int_eq(store_account_create(s, "Hugh", "secret1", 1), STORE_OK);
	struct store_prefs p;
	memset(&p, 0x55, sizeof p);
	ck_assert_int_eq(store_prefs_get(s, "robo", &p), STORE_OK);
	ck_assert(!p.bot && !p.bots_off && !p.played);
	ck_assert_str_eq(p.accept, "");
	ck_assert_int_eq(store_prefs_get(s, "nobody", &p), STORE_ENOTFOUND);
	ck_assert_int_eq(store_prefs_get(s, "bad name", &p), STORE_ENOTFOUND);
	struct store_prefs w = {.bot = true, .accept = "tak size=5,6 rated"};
	ck_assert_int_eq(store_prefs_put(s, "ROBO", &w), STORE_OK);
	ck_assert_int_eq(store_prefs_put(s, "nobody", &w), STORE_ENOTFOUND);
	struct store_prefs h = {.bots_off = true};
	ck_assert_int_eq(store_prefs_put(s, "hugh", &h), STORE_OK);
	ck_assert_int_eq(store_prefs_get(s, "Robo", &p), STORE_OK);
	ck_assert(p.bot && !p.bots_off && !p.played);
	ck_assert_str_eq(p.accept, "tak size=5,6 rated");
	/* a game: Hugh has played, Robo too; the flag stays, the rest may change */
	struct store_game g;
	new_game(&g, "tak", "Hugh", "Robo", 1);
	int64_t id;
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_OK);
	ck_assert_int_eq(store_prefs_get(s, "hugh", &p), STORE_OK);
	ck_assert(!p.bot && p.bots_off && p.played);
	h.bot = true;
	ck_assert_int_eq(store_prefs_put(s, "hugh", &h), STORE_ESTATE);
	w.bot = false;
	ck_assert_int_eq(store_prefs_put(s, "robo", &w), STORE_ESTATE);
	w.bot = true;
	w.bots_off = true;
	w.accept[0] = '\0';
	ck_assert_int_eq(store_prefs_put(s, "robo", &w), STORE_OK);
	h.bot = false;
	h.bots_off = false;
	ck_assert_int_eq(store_prefs_put(s, "hugh", &h), STORE_OK);
	store_close(s);
	s = open_fast();
	ck_assert_int_eq(store_prefs_get(s, "robo", &p), STORE_OK);
	ck_assert(p.bot && p.bots_off && p.played);
	ck_assert_str_eq(p.accept, "");
	ck_assert_int_eq(store_prefs_get(s, "hugh", &p), STORE_OK);
	ck_assert(!p.bot && !p.bots_off && p.played);
	/* too long a filter */
	memset(w.accept, 'x', sizeof w.accept);
	ck_assert_int_eq(store_prefs_put(s, "robo", &w), STORE_EINVAL);
	store_close(s);
}
END_TEST

/* `ratings <kind> bots`: the top list of bots' accounts only (schema 7's flag). */
START_TEST(test_rating_top_bots)
{
	struct store *s = open_fast();
	ck_assert_int_eq(store_account_create(s, "Robo", "secret1", 1), STORE_OK);
	ck_assert_int_eq(store_account_create(s, "Hugh", "secret1", 1), STORE_OK);
	ck_assert_int_eq(store_account_create(s, "Bolt", "secret1", 1), STORE_OK);
	struct store_prefs bot = {.bot = true};
	ck_assert_int_eq(store_prefs_put(s, "robo", &bot), STORE_OK);
	ck_assert_int_eq(store_prefs_put(s, "bolt", &bot), STORE_OK);
	const char *who[] = {"Robo", "Hugh", "Bolt"};
	double at[] = {1600, 1700, 1550};
	for (int i = 0; i < 3; i++) {
		struct store_rating r = {
		        .rating = at[i], .rd = 100, .volatility = 0.06, .games = 3};
		ck_assert_int_eq(store_rating_put(s, who[i], "ttt", &r), STORE_OK);
	}
	struct store_rating none = {.rating = 1800, .rd = 350, .volatility = 0.06, .games = 0};
	ck_assert_int_eq(store_rating_put(s, "Bolt", "tak", &none), STORE_OK); /* no game */
	struct store_rating_row rows[4];
	ck_assert_int_eq(store_rating_top(s, "ttt", rows, 4), 3);
	ck_assert_str_eq(rows[0].name, "Hugh");
	ck_assert_int_eq(store_rating_top_bots(s, "ttt", rows, 4), 2);
	ck_assert_str_eq(rows[0].name, "Robo");
	ck_assert_str_eq(rows[1].name, "Bolt");
	ck_assert_int_eq(store_rating_top_bots(s, "ttt", rows, 1), 1);
	ck_assert_int_eq(store_rating_top_bots(s, "tak", rows, 4), 0);
	store_close(s);
}
END_TEST

/* Ladders (schema 8): documents as tournaments', every one read back (a ladder never ends),
   the highest id; a store from before them gets the table and keeps its games. */
START_TEST(test_ladders)
{
	struct store *s = open_fast();
	struct store_tourney *v;
	size_t n;
	int64_t max;
	ck_assert_int_eq(store_ladders_open(s, &v, &n, &max), STORE_OK);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(max, 0);
	ck_assert_int_eq(store_ladder_put(s, 2, "open", "{\"ladder\":2}", 10), STORE_OK);
	ck_assert_int_eq(store_ladder_put(s, 1, "open", "{\"ladder\":1}", 11), STORE_OK);
	ck_assert_int_eq(store_ladder_put(s, 2, "open", "{\"ladder\":2,\"on\":[]}", 12), STORE_OK);
	ck_assert_int_eq(store_ladder_put(s, 0, "open", "{}", 1), STORE_EINVAL);
	ck_assert_int_eq(store_tourney_put(s, 7, "running", "{}", 1), STORE_OK); /* apart */
	store_close(s);
	s = open_fast();
	ck_assert_int_eq(store_ladders_open(s, &v, &n, &max), STORE_OK);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(max, 2);
	ck_assert_int_eq(v[0].id, 1);
	ck_assert_int_eq(v[1].id, 2);
	ck_assert_str_eq(v[1].doc, "{\"ladder\":2,\"on\":[]}");
	ck_assert_int_eq(v[1].updated, 12);
	store_tourneys_free(v, n);
	store_close(s);
	struct st_other o;
	st_other_open(&o);
	st_other_sql(&o, st_is_pg() ? "DROP TABLE ladders;"
	                              " DELETE FROM bitarena_migrations WHERE version >= 8"
	                            : "DROP TABLE ladders; PRAGMA user_version = 7");
	st_other_close(&o);
	s = open_fast();
	ck_assert_int_eq(store_schema_version(s), st_version());
	ck_assert_int_eq(store_ladders_open(s, &v, &n, &max), STORE_OK);
	ck_assert_uint_eq(n, 0);
	store_close(s);
}
END_TEST

START_TEST(test_store_gone)
{
	struct store *s = open_fast();
	struct store_game g;
	new_game(&g, "tak", "p1", "p2", 1);
	int64_t id;
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_OK);
	ck_assert_int_eq(store_check(s), STORE_OK);
	char path[400];
	snprintf(path, sizeof path, "%s", store_path(s));
	ck_assert_int_eq(unlink(path), 0);
	struct store_move m;
	make_move(&m, 0, "a1");
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_EGONE);
	ck_assert_ptr_nonnull(strstr(store_last_error(s), "removed"));
	ck_assert_int_eq(store_begin(s), STORE_EGONE);
	ck_assert_int_eq(store_account_insert(s, "zed", "$hash", 1), STORE_EGONE);
	ck_assert_int_eq(store_check(s), STORE_EGONE);
	store_close(s);
	/* a 0-byte database where a store is expected */
	char dir[300], empty[400];
	snprintf(dir, sizeof dir, "%s/empty", ste.tmpdir);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(empty, sizeof empty, "%s/%s", dir, STORE_DB_FILE);
	FILE *f = fopen(empty, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	s = (struct store *)1;
	ck_assert_int_eq(store_open(dir, &s), STORE_EGONE);
	ck_assert_ptr_null(s);
	ck_assert_str_eq(store_strerror(STORE_EGONE),
	                 "the database file was removed, replaced or emptied");
}
END_TEST

/* A backup made while the store is written is a whole store of its own, never half of one. */
START_TEST(test_backup)
{
	struct store *s = open_fast();
	struct store_game g;
	struct store_move m;
	int64_t id;
	ck_assert_int_eq(store_account_create(s, "Kim", "password", 1), STORE_OK);
	new_game(&g, "tak", "Kim", "lee", 1);
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_OK);
	for (int i = 0; i < 40; i++) {
		make_move(&m, i, "a1");
		ck_assert_int_eq(store_move_append(s, id, &m), STORE_OK);
	}
	char dest[600];
	snprintf(dest, sizeof dest, "%s/copy.db", ste.tmpdir);
	struct store *r = open_store(true);
	ck_assert_int_eq(store_backup(r, dest), STORE_OK);
	ck_assert_int_eq(store_backup(r, dest), STORE_EEXISTS); /* never over a file */
	char part[640];
	snprintf(part, sizeof part, "%s.partial", dest);
	ck_assert_int_ne(access(part, F_OK), 0);
	/* the writer goes on; the copy keeps what it had */
	make_move(&m, 40, "a1");
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_OK);
	char copydir[600];
	snprintf(copydir, sizeof copydir, "%s/restored", ste.tmpdir);
	ck_assert_int_eq(mkdir(copydir, 0700), 0);
	char restored[700];
	snprintf(restored, sizeof restored, "%s/" STORE_DB_FILE, copydir);
	ck_assert_int_eq(rename(dest, restored), 0);
	struct store *c = NULL;
	ck_assert_int_eq(store_open(copydir, &c), STORE_OK);
	store_set_hash_cost(c, crypto_pwhash_OPSLIMIT_MIN, crypto_pwhash_MEMLIMIT_MIN);
	char canon[STORE_NAME_MAX + 1];
	ck_assert_int_eq(store_account_verify(c, "kim", "password", canon), STORE_OK);
	struct store_game got;
	ck_assert_int_eq(store_game_fetch(c, id, &got), STORE_OK);
	ck_assert_int_eq(got.plies, 40);
	store_game_clear(&got);
	store_close(c);
	snprintf(dest, sizeof dest, "%s/no/such/dir/copy.db", ste.tmpdir);
	ck_assert_int_ne(store_backup(r, dest), STORE_OK);
	ck_assert_int_ne(access(dest, F_OK), 0);
	store_close(r);
	store_close(s);
}
END_TEST

/* A reader connection reads and never writes; it does not create a store. */
START_TEST(test_reader_connection)
{
	struct store_options o = {.reader = true};
	st_options(&o);
	struct store *r = (struct store *)1;
	ck_assert_int_ne(store_open_opts(&o, &r), STORE_OK);
	ck_assert_ptr_null(r);
	struct store *s = open_fast();
	ck_assert_int_eq(store_account_create(s, "Reed", "password", 1), STORE_OK);
	ck_assert_int_eq(store_open_opts(&o, &r), STORE_OK);
	char canon[STORE_NAME_MAX + 1];
	ck_assert_int_eq(store_account_exists(r, "reed", canon), 1);
	ck_assert_str_eq(canon, "Reed");
	ck_assert_int_eq(store_account_insert(r, "other", "$hash", 1), STORE_EINVAL);
	ck_assert_int_eq(store_begin(r), STORE_EINVAL);
	ck_assert_int_eq(store_sync(r), STORE_OK);
	ck_assert(store_options_of(r)->reader);
	ck_assert_str_eq(store_backend_name(r), st_name());
	struct store_game *v = (struct store_game *)1;
	size_t n = 1;
	ck_assert_int_eq(store_games_claim(s, "n1#*", &v, &n), STORE_EINVAL); /* no node */
	ck_assert_ptr_null(v);
	ck_assert_uint_eq(n, 0);
	store_close(r);
	store_close(s);
	struct store_options bad = {.dir = ste.dir, .backend = "oracle"};
	ck_assert_int_eq(store_open_opts(&bad, &r), STORE_EINVAL);
	bad.backend = "postgresql"; /* a back end this build lacks is unknown to it */
	bad.conninfo = "postgresql:///nowhere";
	if (!HAVE_POSTGRESQL)
		ck_assert_int_eq(store_open_opts(&bad, &r), STORE_EINVAL);
	bad.backend = NULL;
	bad.busy_timeout_ms = -1;
	ck_assert_int_eq(store_open_opts(&bad, &r), STORE_EINVAL);
}
END_TEST

/* ---- PostgreSQL's own ------------------------------------------------------------------ */
#if HAVE_POSTGRESQL /* else the case is skipped (storetest.h) and libpq is not at hand */

/* Ends every session of bitarenad's on the server (as a restart would, or an operator). */
static void pg_drop_sessions(void)
{
	PGconn *c = pgtest_connect(&st_pg, NULL);
	pgtest_sql(c, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
	              " WHERE application_name = 'bitarenad' AND pid <> pg_backend_pid()");
	PQfinish(c);
}

/* A store newer than this bitarena is refused; so are bad and unreachable servers. */
START_TEST(test_pg_versions)
{
	struct store *s = open_fast();
	ck_assert_int_eq(store_schema_version(s), st_version());
	ck_assert_ptr_nonnull(strstr(store_path(s), "postgresql://bitarena@"));
	store_close(s);
	s = open_fast(); /* the migration runs once */
	store_close(s);
	struct st_other o;
	st_other_open(&o);
	PGresult *r = PQexec(o.pg, "SELECT count(*) FROM bitarena_migrations");
	ck_assert_int_eq(atoi(PQgetvalue(r, 0, 0)), st_version());
	PQclear(r);
	st_other_sql(&o, "INSERT INTO bitarena_migrations(version) VALUES (99)");
	st_other_close(&o);
	struct store_options opt = {0};
	st_options(&opt);
	s = (struct store *)1;
	ck_assert_int_eq(store_open_opts(&opt, &s), STORE_ESCHEMA);
	ck_assert_ptr_null(s);
	opt.reader = true;
	ck_assert_int_eq(store_open_opts(&opt, &s), STORE_ESCHEMA);
	/* a connection string libpq cannot read; a server that is not there */
	opt.reader = false;
	opt.conninfo = "postgresql://[::1";
	ck_assert_int_eq(store_open_opts(&opt, &s), STORE_EINVAL);
	opt.conninfo = NULL;
	ck_assert_int_eq(store_open_opts(&opt, &s), STORE_EINVAL);
	char uri[300];
	snprintf(uri, sizeof uri, "postgresql://127.0.0.1:%d/postgres?connect_timeout=2",
	         svc_free_port());
	opt.conninfo = uri;
	ck_assert_int_eq(store_open_opts(&opt, &s), STORE_EUNAVAIL);
	ck_assert_ptr_null(s);
	ck_assert(store_err_is_failure(STORE_EUNAVAIL));
	ck_assert_str_eq(store_strerror(STORE_EUNAVAIL), "the database server cannot be reached");
}
END_TEST

/* The store replaced (another store id behind the same address) or its tables dropped. */
START_TEST(test_pg_store_gone)
{
	struct store *s = open_fast();
	struct store_game g;
	new_game(&g, "tak", "p1", "p2", 1);
	int64_t id;
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_OK);
	struct st_other o;
	st_other_open(&o);
	st_other_sql(&o, "UPDATE bitarena_meta SET value = 'another' WHERE key = 'store_id'");
	pg_drop_sessions();
	struct store_move m;
	make_move(&m, 0, "a1");
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_EGONE);
	ck_assert_msg(strstr(store_last_error(s), "replaced") != NULL, "%s", store_last_error(s));
	ck_assert_int_eq(store_begin(s), STORE_EGONE); /* for good */
	ck_assert_int_eq(store_check(s), STORE_EGONE);
	store_close(s);
	st_other_sql(&o, "UPDATE bitarena_meta SET value = 'x' WHERE key = 'store_id'");
	s = open_fast(); /* a new start takes the store as it finds it */
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_OK);
	char sql[200];
	snprintf(sql, sizeof sql, "DROP SCHEMA %s CASCADE", ste.schema);
	st_other_sql(&o, sql);
	make_move(&m, 1, "e5");
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_EGONE);
	ck_assert_msg(strstr(store_last_error(s), "gone") != NULL, "%s", store_last_error(s));
	struct store_game f;
	ck_assert_int_eq(store_game_fetch(s, id, &f), STORE_EGONE);
	store_close(s);
	st_other_close(&o);
	/* where no store is, a reader refuses to start */
	struct store_options opt = {.reader = true};
	st_options(&opt);
	ck_assert_int_eq(store_open_opts(&opt, &s), STORE_EGONE);
}
END_TEST

/* Sessions that broke under the store are made again: reads, writes, transactions go on. */
START_TEST(test_pg_sessions_broken)
{
	struct store *s = open_fast();
	struct store *r = open_store(true);
	struct store_game g, f;
	new_game(&g, "tak", "p1", "p2", 1);
	int64_t id;
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_OK);
	pg_drop_sessions();
	ck_assert_int_eq(store_game_fetch(r, id, &f), STORE_OK); /* a read: tried again */
	store_game_clear(&f);
	struct store_move m;
	make_move(&m, 0, "a1");
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_OK); /* its own transaction */
	pg_drop_sessions();
	ck_assert_int_eq(store_begin(s), STORE_OK);
	make_move(&m, 1, "e5");
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_OK);
	ck_assert_int_eq(store_commit(s), STORE_OK);
	/* broken inside a transaction: that transaction is lost, the next one works */
	ck_assert_int_eq(store_begin(s), STORE_OK);
	make_move(&m, 2, "c3");
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_OK);
	pg_drop_sessions();
	make_move(&m, 3, "d3");
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_EUNAVAIL);
	store_rollback(s);
	ck_assert_int_eq(store_game_fetch(r, id, &f), STORE_OK);
	ck_assert_int_eq(f.plies, 2);
	store_game_clear(&f);
	ck_assert_int_eq(store_begin(s), STORE_OK);
	make_move(&m, 2, "c4");
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_OK);
	ck_assert_int_eq(store_commit(s), STORE_OK);
	ck_assert_int_eq(store_game_fetch(r, id, &f), STORE_OK);
	ck_assert_int_eq(f.plies, 3);
	ck_assert_str_eq(f.moves[2].text, "c4");
	store_game_clear(&f);
	store_close(r);
	store_close(s);
}
END_TEST

/* The server stopped: a clear failure (STORE_EUNAVAIL) for every call; started: service again. */
START_TEST(test_pg_server_down)
{
	struct store *s = open_fast();
	struct store *r = open_store(true);
	struct store_game g, f;
	new_game(&g, "tak", "p1", "p2", 1);
	int64_t id;
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_OK);
	struct store_move m;
	make_move(&m, 0, "a1");
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_OK);
	pgtest_stop(&st_pg, "immediate");
	make_move(&m, 1, "e5");
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_EUNAVAIL);
	ck_assert_ptr_nonnull(strstr(store_last_error(s), "connect"));
	ck_assert_int_eq(store_begin(s), STORE_EUNAVAIL);
	ck_assert_int_eq(store_game_fetch(r, id, &f), STORE_EUNAVAIL);
	ck_assert_int_eq(store_check(s), STORE_OK); /* not gone: it may come back */
	ck_assert(pgtest_restart(&st_pg));
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_OK);
	ck_assert_int_eq(store_game_fetch(r, id, &f), STORE_OK);
	ck_assert_int_eq(f.plies, 2);
	store_game_clear(&f);
	store_close(r);
	store_close(s);
}
END_TEST

/* A server setting (ALTER SYSTEM's "SET x = v" or "RESET x"), in force at once. */
static void pg_system(const char *setting)
{
	PGconn *c = pgtest_connect(&st_pg, NULL);
	char sql[128];
	snprintf(sql, sizeof sql, "ALTER SYSTEM %s", setting);
	pgtest_sql(c, sql);
	pgtest_sql(c, "SELECT pg_reload_conf()");
	PQfinish(c);
}

/*
 * A commit whose answer was lost when the server crashed (stop -m immediate)
 * and whose transaction never reached the disk: after the restart the
 * server hands its transaction id out again, and another session commits
 * under it. The store must still learn that its own commit did not happen,
 * and make its write again when it is tried again (txid_status() said
 * "committed" here: a move acknowledged and never stored). The WAL writer
 * is slowed so that nothing of the transaction is flushed before the crash.
 */
START_TEST(test_pg_lost_commit_id_reused)
{
	pg_system("SET wal_writer_delay = '10s'");
	struct store *s = open_fast();
	struct store_game g, f;
	new_game(&g, "tak", "p1", "p2", 1);
	int64_t id;
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_OK);
	ck_assert_int_eq(store_begin(s), STORE_OK);
	struct store_move m;
	make_move(&m, 0, "a1");
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_OK);
	pgtest_stop(&st_pg, "immediate");
	ck_assert_int_eq(store_commit(s), STORE_EUNAVAIL); /* its fate not known: server down */
	ck_assert(pgtest_restart(&st_pg));
	PGconn *c = pgtest_connect(&st_pg, NULL);
	for (int i = 0; i < 20; i++) /* transaction ids handed out again, one is the lost one's */
		pgtest_sql(c, "BEGIN; SELECT txid_current(); COMMIT");
	/* tried again, as the journal does: the same write */
	int err = STORE_EUNAVAIL;
	for (int i = 0; i < 50 && err == STORE_EUNAVAIL; i++) {
		err = store_begin(s);
		if (err == STORE_OK)
			err = store_move_append(s, id, &m);
		if (err == STORE_OK)
			err = store_commit(s);
		else
			store_rollback(s);
		if (err == STORE_EUNAVAIL)
			usleep(100 * 1000);
	}
	ck_assert_int_eq(err, STORE_OK);
	ck_assert_int_eq(store_game_fetch(s, id, &f), STORE_OK);
	ck_assert_int_eq(f.plies, 1); /* stored, once */
	ck_assert_str_eq(f.moves[0].text, "a1");
	store_game_clear(&f);
	PQfinish(c);
	pg_system("RESET wal_writer_delay");
	store_close(s);
}
END_TEST

/*
 * Every acknowledged commit survives a crash of the server itself, even
 * where the server's own default is synchronous_commit off (the store sets
 * it on for its sessions): a child appends and acknowledges on a pipe, the
 * server is stopped -m immediate mid-stream.
 */
START_TEST(test_pg_crash_keeps_acknowledged)
{
	pg_system("SET synchronous_commit = off");
	struct store *s = open_fast();
	struct store_game g;
	new_game(&g, "tak", "p1", "p2", 1);
	int64_t id;
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_OK);
	store_close(s);
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		struct store *cs = open_store(false);
		for (int ply = 0;; ply++) {
			struct store_move m;
			make_move(&m, ply, ply % 2 ? "b2" : "a1");
			if (store_move_append(cs, id, &m) != STORE_OK)
				_exit(0); /* the server is gone */
			if (write(fds[1], &ply, sizeof ply) != sizeof ply)
				_exit(4);
		}
	}
	close(fds[1]);
	int acked = -1, ply;
	while (acked < 300 && read(fds[0], &ply, sizeof ply) == sizeof ply)
		acked = ply;
	pgtest_stop(&st_pg, "immediate");
	while (read(fds[0], &ply, sizeof ply) == sizeof ply)
		acked = ply;
	close(fds[0]);
	int status;
	waitpid(pid, &status, 0);
	ck_assert_int_ge(acked, 300);
	ck_assert(pgtest_restart(&st_pg));
	pg_system("RESET synchronous_commit");
	s = open_fast();
	struct store_game f;
	ck_assert_int_eq(store_game_fetch(s, id, &f), STORE_OK);
	fprintf(stderr, "postgresql crash: %d commits acknowledged, %d in the store\n", acked + 1,
	        f.plies);
	ck_assert_int_ge(f.plies, acked + 1);
	store_game_clear(&f);
	store_close(s);
}
END_TEST

/* Text that is not UTF-8 is refused before it is sent, and the transaction goes on. */
START_TEST(test_pg_not_utf8)
{
	struct store *s = open_fast();
	struct store_game g;
	new_game(&g, "tak", "p1", "Guest\xff", 1);
	int64_t id;
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_EINVAL);
	new_game(&g, "tak", "p1", "Gu\xc3\xa9st", 1); /* valid UTF-8 is fine */
	ck_assert_int_eq(store_game_begin(s, &g, &id), STORE_OK);
	ck_assert_int_eq(store_begin(s), STORE_OK);
	struct store_move m;
	make_move(&m, 0, "a\xc0\x81"); /* overlong */
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_EINVAL);
	make_move(&m, 0, "\xed\xa0\x80"); /* a surrogate */
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_EINVAL);
	make_move(&m, 0, "a1");
	ck_assert_int_eq(store_move_append(s, id, &m), STORE_OK);
	ck_assert_int_eq(store_commit(s), STORE_OK);
	struct store_game f;
	ck_assert_int_eq(store_game_fetch(s, id, &f), STORE_OK);
	ck_assert_int_eq(f.plies, 1);
	ck_assert_str_eq(f.players[1], "Gu\xc3\xa9st");
	store_game_clear(&f);
	store_close(s);
}
END_TEST

/* Several servers on one database: ids reserved at once never overlap; migrations run once. */
#define PG_RACERS 4
#define PG_BLOCKS 40

struct racer {
	uv_thread_t t;
	int err;
	int64_t first[PG_BLOCKS];
};

static void race_ids(void *arg)
{
	struct racer *r = arg;
	struct store_options o = {0};
	st_options(&o);
	struct store *s = NULL;
	r->err = store_open_opts(&o, &s); /* all at once on an empty schema: one migrates */
	for (int i = 0; i < PG_BLOCKS && r->err == STORE_OK; i++) {
		if (i % 2 == 0) {
			r->err = store_reserve_ids(s, 7, &r->first[i]);
			continue;
		}
		/* inside a transaction too, as the journal's writer does */
		r->err = store_begin(s);
		if (r->err == STORE_OK)
			r->err = store_reserve_ids(s, 7, &r->first[i]);
		if (r->err == STORE_OK)
			r->err = store_commit(s);
	}
	store_close(s);
}

START_TEST(test_pg_many_servers)
{
	static struct racer rs[PG_RACERS];
	for (int i = 0; i < PG_RACERS; i++)
		ck_assert_int_eq(uv_thread_create(&rs[i].t, race_ids, &rs[i]), 0);
	for (int i = 0; i < PG_RACERS; i++)
		uv_thread_join(&rs[i].t);
	int64_t all[PG_RACERS * PG_BLOCKS];
	int n = 0;
	for (int i = 0; i < PG_RACERS; i++) {
		ck_assert_int_eq(rs[i].err, STORE_OK);
		for (int b = 0; b < PG_BLOCKS; b++)
			all[n++] = rs[i].first[b];
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			ck_assert(i == j || all[i] + 7 <= all[j] || all[j] + 7 <= all[i]);
	struct st_other o;
	st_other_open(&o);
	PGresult *r = PQexec(o.pg, "SELECT count(*), max(version) FROM bitarena_migrations");
	ck_assert_int_eq(atoi(PQgetvalue(r, 0, 0)), st_version());
	PQclear(r);
	st_other_close(&o);
}
END_TEST

/* A cluster node's connection: writes as instance node. */
static struct store *open_node(const char *node)
{
	struct store_options o = {.node = node};
	st_options(&o);
	struct store *s = NULL;
	ck_assert_int_eq(store_open_opts(&o, &s), STORE_OK);
	return s;
}

/*
 * Ownership: a node's games are its own; another node claims those of a
 * dead instance in one statement, and from then on the old instance's
 * writes are refused (fencing); a node restarting takes back what is left
 * of its name's; two claims of the same games never both get one.
 */
START_TEST(test_pg_claim)
{
	struct store *a = open_node("n1#a"), *b = open_node("n2#b");
	struct store_game g, f;
	struct store_move m;
	int64_t ids[3];
	for (int k = 0; k < 3; k++) {
		new_game(&g, "tak", "p1", "p2", 1);
		g.guest[1] = true;
		snprintf(g.token_hash[1], sizeof g.token_hash[1], "%s", HASH_B);
		ck_assert_int_eq(store_game_begin(a, &g, &ids[k]), STORE_OK);
		make_move(&m, 0, "a1");
		ck_assert_int_eq(store_move_append(a, ids[k], &m), STORE_OK);
	}
	struct store_finish fin = {.status = STORE_FINISHED, .result = "1-0", .winner = 0};
	ck_assert_int_eq(store_game_finish(a, ids[2], &fin), STORE_OK); /* over: not claimed */
	struct store_game *v = NULL;
	size_t n = 0;
	ck_assert_int_eq(store_games_claim(b, "n1#a", &v, &n), STORE_OK);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(v[0].id, ids[0]);
	ck_assert_int_eq(v[1].id, ids[1]);
	ck_assert_int_eq(v[1].plies, 1);
	ck_assert_str_eq(v[1].moves[0].text, "a1");
	ck_assert_str_eq(v[1].token_hash[1], HASH_B); /* the new owner checks the guest's token */
	ck_assert_str_eq(v[1].token_hash[0], "");
	store_games_free(v, n);
	/* the old owner is fenced out: every write of those games is refused */
	make_move(&m, 1, "e5");
	ck_assert_int_eq(store_move_append(a, ids[0], &m), STORE_ESTATE);
	ck_assert_int_eq(store_move_remove_last(a, ids[0]), STORE_ESTATE);
	ck_assert_int_eq(store_game_finish(a, ids[0], &fin), STORE_ESTATE);
	ck_assert_int_eq(store_move_append(b, ids[0], &m), STORE_OK);
	ck_assert_int_eq(store_game_fetch(b, ids[0], &f), STORE_OK);
	ck_assert_int_eq(f.plies, 2);
	store_game_clear(&f);
	ck_assert_int_eq(store_games_claim(b, "n1#a", &v, &n), STORE_OK); /* nothing left */
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(v);
	/* a game of a single server (no owner) and one of an earlier n2: n2 restarting takes
	 * both back, and only those */
	struct store *single = open_fast();
	int64_t lone, old;
	new_game(&g, "ttt", "x", "y", 1);
	ck_assert_int_eq(store_game_begin(single, &g, &lone), STORE_OK);
	struct store *b0 = open_node("n2#old");
	ck_assert_int_eq(store_game_begin(b0, &g, &old), STORE_OK);
	struct store *b2 = open_node("n2#new");
	ck_assert_int_eq(store_games_claim(b2, "n2#*", &v, &n), STORE_OK);
	ck_assert_uint_eq(n, 4); /* ids[0], ids[1] (n2#b's), lone, old */
	int64_t want[4] = {ids[0], ids[1], lone, old};
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(v[i].id, want[i]);
	store_games_free(v, n);
	make_move(&m, 2, "c3");
	ck_assert_int_eq(store_move_append(b, ids[0], &m), STORE_ESTATE);
	ck_assert_int_eq(store_move_append(b2, ids[0], &m), STORE_OK);
	/* bad claims */
	ck_assert_int_eq(store_games_claim(single, "n1#a", &v, &n), STORE_EINVAL); /* no node */
	char longname[STORE_NODE_MAX + 2];
	memset(longname, 'x', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	ck_assert_int_eq(store_games_claim(b2, longname, &v, &n), STORE_EINVAL);
	struct store_options o = {.node = longname};
	st_options(&o);
	struct store *bad = NULL;
	ck_assert_int_eq(store_open_opts(&o, &bad), STORE_EINVAL);
	store_close(single);
	store_close(b0);
	store_close(b2);
	store_close(b);
	store_close(a);
}
END_TEST

/* A claim of instance from's games by node, on a thread and a connection of its own. */
struct claimer {
	uv_thread_t t;
	const char *node, *from;
	int err;
	int64_t got[64];
	int plies[64];
	size_t n;
};

static void claim_all(void *arg)
{
	struct claimer *c = arg;
	struct store_options o = {.node = c->node};
	st_options(&o);
	struct store *s = NULL;
	c->err = store_open_opts(&o, &s);
	struct store_game *v = NULL;
	if (c->err == STORE_OK)
		c->err = store_games_claim(s, c->from, &v, &c->n);
	for (size_t i = 0; i < c->n && i < 64; i++) {
		c->got[i] = v[i].id;
		c->plies[i] = v[i].plies;
	}
	store_games_free(v, c->n);
	store_close(s);
}

/* Waits (at most 10 s) until a session of the server waits for a lock. */
static void until_lock_wait(void)
{
	PGconn *c = pgtest_connect(&st_pg, NULL);
	bool waiting = false;
	for (int i = 0; i < 1000 && !waiting; i++) {
		PGresult *r = PQexec(c, "SELECT count(*) FROM pg_stat_activity"
		                        " WHERE wait_event_type = 'Lock'");
		waiting = PQresultStatus(r) == PGRES_TUPLES_OK && atoi(PQgetvalue(r, 0, 0)) > 0;
		PQclear(r);
		if (!waiting)
			usleep(10000);
	}
	PQfinish(c);
	ck_assert_msg(waiting, "the claim never waited for the writer's lock");
}

/*
 * The fence holds at COMMIT, not only at the insert: a writer whose transaction has
 * inserted a move and not committed yet holds its game against a claim. Paused there
 * (idle in its transaction: a SIGSTOP, a long GC) until another node claims the game, its
 * transaction is ended by the server, the claim goes on, and the writer's COMMIT fails;
 * tried again, its move is refused (so never acknowledged), and the record has no hole
 * where the new owner dropped a ply meanwhile. Committing while the claim waits, its move
 * is in what the claim returns (the new owner goes on from it).
 */
START_TEST(test_pg_fence_at_commit)
{
	struct store *a = open_node("n1#a"), *b = open_node("n2#b");
	struct store_game g, f;
	struct store_move m;
	int64_t id;
	new_game(&g, "tak", "p1", "p2", 1);
	ck_assert_int_eq(store_game_begin(a, &g, &id), STORE_OK);
	make_move(&m, 0, "a1");
	ck_assert_int_eq(store_move_append(a, id, &m), STORE_OK);
	/* n1 paused between its insert and its commit while n2 claims its games */
	ck_assert_int_eq(store_begin(a), STORE_OK);
	make_move(&m, 1, "e5");
	ck_assert_int_eq(store_move_append(a, id, &m), STORE_OK);
	struct store_game *v = NULL;
	size_t n = 0;
	ck_assert_int_eq(store_games_claim(b, "n1#a", &v, &n), STORE_OK);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(v[0].plies, 1);
	store_games_free(v, n);
	/* the new owner drops the last ply (as a restore trims a half turn of Xmas Rush): had
	 * n1's ply 1 committed after this, the record would have a hole at ply 0 */
	ck_assert_int_eq(store_moves_truncate(b, id, 0, 1), STORE_OK);
	ck_assert_int_ne(store_commit(a), STORE_OK); /* n1 wakes: its batch did not commit */
	store_rollback(a);
	ck_assert_int_eq(store_begin(a), STORE_OK); /* tried again: refused, not stored */
	ck_assert_int_eq(store_move_append(a, id, &m), STORE_ESTATE);
	ck_assert_int_eq(store_commit(a), STORE_OK);
	ck_assert_int_eq(store_game_fetch(b, id, &f), STORE_OK);
	ck_assert_int_eq(f.plies, 0);
	store_game_clear(&f);
	make_move(&m, 0, "c3"); /* the new owner goes on from what it has */
	ck_assert_int_eq(store_move_append(b, id, &m), STORE_OK);
	/* n2 commits while n3's claim of its games waits: the claim has its move */
	ck_assert_int_eq(store_begin(b), STORE_OK);
	make_move(&m, 1, "d4");
	ck_assert_int_eq(store_move_append(b, id, &m), STORE_OK);
	static struct claimer c = {.node = "n3#c", .from = "n2#b"};
	ck_assert_int_eq(uv_thread_create(&c.t, claim_all, &c), 0);
	until_lock_wait();
	ck_assert_int_eq(store_commit(b), STORE_OK);
	uv_thread_join(&c.t);
	ck_assert_int_eq(c.err, STORE_OK);
	ck_assert_uint_eq(c.n, 1);
	ck_assert_int_eq(c.plies[0], 2);
	store_close(b);
	store_close(a);
}
END_TEST

START_TEST(test_pg_claim_race)
{
	struct store *d = open_node("dead#1");
	struct store_game g;
	new_game(&g, "tak", "p1", "p2", 1);
	int64_t id;
	for (int k = 0; k < 40; k++)
		ck_assert_int_eq(store_game_begin(d, &g, &id), STORE_OK);
	store_close(d);
	static struct claimer c[2] = {{.node = "t1#1", .from = "dead#1"},
	                              {.node = "t2#1", .from = "dead#1"}};
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(uv_thread_create(&c[i].t, claim_all, &c[i]), 0);
	for (int i = 0; i < 2; i++)
		uv_thread_join(&c[i].t);
	ck_assert_int_eq(c[0].err, STORE_OK);
	ck_assert_int_eq(c[1].err, STORE_OK);
	ck_assert_uint_eq(c[0].n + c[1].n, 40);
	for (size_t i = 0; i < c[0].n; i++)
		for (size_t j = 0; j < c[1].n; j++)
			ck_assert_int_ne(c[0].got[i], c[1].got[j]);
}
END_TEST
#endif /* HAVE_POSTGRESQL */

static Suite *store_suite(void)
{
	Suite *s = suite_create("store");
	const TTest *const both[] = {test_accounts,
	                             test_default_hash_cost,
	                             test_journal_guards,
	                             test_reopen_and_recovery,
	                             test_kill9_keeps_acknowledged_moves,
	                             test_ratings,
	                             test_history,
	                             test_transactions,
	                             test_game_ids,
	                             test_reader_connection,
	                             test_token_hashes,
	                             test_migration_to_token_hashes,
	                             test_tourneys,
	                             test_prefs,
	                             test_ladders,
	                             test_rating_top_bots,
	                             test_find_and_counts,
	                             test_snapshot,
	                             NULL};
	const TTest *const sqlite_only[] = {test_newer_schema_refused, test_migration_to_id_counter,
	                                    test_store_gone, test_backup, NULL};
#if HAVE_POSTGRESQL
	const TTest *const pg_only[] = {test_pg_versions,
	                                test_pg_store_gone,
	                                test_pg_sessions_broken,
	                                test_pg_server_down,
	                                test_pg_lost_commit_id_reused,
	                                test_pg_crash_keeps_acknowledged,
	                                test_pg_not_utf8,
	                                test_pg_many_servers,
	                                test_pg_claim,
	                                test_pg_claim_race,
	                                test_pg_fence_at_commit,
	                                NULL};
#else
	const TTest *const *pg_only = NULL;
#endif
	st_cases(s, "check_store", setup_sqlite, setup_pg, teardown, 120, both, sqlite_only,
	         pg_only);
	return s;
}

int main(void)
{
	return check_run(store_suite());
}
