/*
 * storetest.h - the store suites (check_store, check_store_writer,
 * check_store_reader) run the same cases on every back end: one Check test
 * case per back end, holding the same tests. This header knows which back
 * end the running test uses (st), opens it, and does what only a back end's
 * own tools can: another connection holding the write lock, or an
 * uncommitted write of its own. SQLite lives in a temporary directory;
 * PostgreSQL is one throw-away server per test case (pgtest.h, started by
 * the case's unchecked fixture, in the runner) and a fresh schema per test.
 * The PostgreSQL case is skipped, with a message, where it is not installed
 * or not built (HAVE_POSTGRESQL 0: its code here is not compiled).
 * Header-only; test code only.
 */
#ifndef BITARENA_TESTS_STORETEST_H
#define BITARENA_TESTS_STORETEST_H

#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "server/store/store.h"
#include "pgtest.h"
#include "tmpdir.h"

enum st_kind { ST_SQLITE, ST_PG };

struct st_env {
	enum st_kind kind;
	char tmpdir[256]; /* every test's own (files of the test, SQLite's directory) */
	char dir[512];    /* sqlite: the store's directory (tests may change it) */
	char schema[64];  /* postgresql: the test's schema */
	char uri[512];    /* postgresql: the connection URI into that schema */
};

static struct st_env ste;   /* the running test's */
static struct pgtest st_pg; /* the PostgreSQL case's server */

static inline bool st_is_pg(void)
{
	return ste.kind == ST_PG;
}

/* The back end's name, as store_backend_name() says it. */
static inline const char *st_name(void)
{
	return st_is_pg() ? "postgresql" : "sqlite";
}

/* The schema version a fresh store of the running back end has. */
static inline int st_version(void)
{
	return 3;
}

/* Options that open the running test's store (the other fields as the caller set them). */
static inline void st_options(struct store_options *o)
{
	if (st_is_pg()) {
		o->backend = "postgresql";
		o->conninfo = ste.uri;
		o->dir = NULL;
	} else {
		o->backend = NULL;
		o->dir = ste.dir;
	}
}

/* The checked fixtures: a temporary directory (prefix), "sub" below it for SQLite. */
static inline void st_setup(enum st_kind kind, const char *prefix, const char *sub)
{
	memset(&ste, 0, sizeof ste);
	ste.kind = kind;
	tmpdir_make(ste.tmpdir, sizeof ste.tmpdir, prefix);
	snprintf(ste.dir, sizeof ste.dir, "%s/%s", ste.tmpdir, sub);
#if HAVE_POSTGRESQL
	if (kind == ST_PG) {
		if (!st_pg.running) /* a test before stopped it and failed before starting it */
			ck_assert(pgtest_restart(&st_pg));
		pgtest_schema(&st_pg, ste.schema, sizeof ste.schema);
		pgtest_uri(&st_pg, ste.schema, ste.uri, sizeof ste.uri);
	}
#endif
}

static inline void st_teardown(void)
{
	tmpdir_remove(ste.tmpdir);
	if (st_is_pg() && !st_pg.running)
		pgtest_restart(&st_pg);
}

/* The unchecked fixtures of the PostgreSQL case (in the runner: once per case). */
static inline void st_pg_up(void)
{
	ck_assert(pgtest_start(&st_pg));
}

static inline void st_pg_down(void)
{
	pgtest_down(&st_pg);
}

/*
 * Adds one case per back end to s, named "sqlite" and "postgresql", each
 * with every test of tests[n] and the back end's own extra[nx] (NULL ends
 * them), the checked fixtures given and timeout seconds.
 */
static inline void st_cases(Suite *s, const char *suite, void (*setup_sqlite)(void),
                            void (*setup_pg)(void), void (*teardown)(void), int timeout,
                            const TTest *const *tests, const TTest *const *only_sqlite,
                            const TTest *const *only_pg)
{
	for (int k = 0; k < 2; k++) {
		if (k == 1 && !pgtest_available(suite))
			break;
		TCase *tc = tcase_create(k == 0 ? "sqlite" : "postgresql");
		if (k == 1)
			tcase_add_unchecked_fixture(tc, st_pg_up, st_pg_down);
		tcase_add_checked_fixture(tc, k == 0 ? setup_sqlite : setup_pg, teardown);
		tcase_set_timeout(tc, timeout);
		for (const TTest *const *t = tests; *t != NULL; t++)
			tcase_add_test(tc, *t);
		for (const TTest *const *t = k == 0 ? only_sqlite : only_pg; t && *t != NULL; t++)
			tcase_add_test(tc, *t);
		suite_add_tcase(s, tc);
	}
}

/* ---- another connection, with the back end's own tools ------------------------------------ */

struct st_other {
	sqlite3 *lite;
#if HAVE_POSTGRESQL
	PGconn *pg;
#endif
};

/* Opens a connection of its own to the running test's store. */
static inline void st_other_open(struct st_other *o)
{
	memset(o, 0, sizeof *o);
#if HAVE_POSTGRESQL
	if (st_is_pg()) {
		o->pg = pgtest_connect(&st_pg, ste.schema);
		return;
	}
#endif
	char path[700];
	snprintf(path, sizeof path, "%s/%s", ste.dir, STORE_DB_FILE);
	ck_assert_int_eq(sqlite3_open(path, &o->lite), SQLITE_OK);
	sqlite3_busy_timeout(o->lite, 10000); /* the writer may be committing right now */
}

/* Runs sql on the other connection; fails the test unless it succeeds. */
static inline void st_other_sql(struct st_other *o, const char *sql)
{
#if HAVE_POSTGRESQL
	if (o->pg != NULL) {
		pgtest_sql(o->pg, sql);
		return;
	}
#endif
	char *err = NULL;
	ck_assert_msg(sqlite3_exec(o->lite, sql, NULL, NULL, &err) == SQLITE_OK, "%s: %s", sql,
	              err ? err : "?");
}

static inline void st_other_close(struct st_other *o)
{
#if HAVE_POSTGRESQL
	if (o->pg != NULL)
		PQfinish(o->pg);
#endif
	if (o->lite != NULL)
		sqlite3_close(o->lite);
	memset(o, 0, sizeof *o);
}

/*
 * Another connection takes the write lock of the moves and holds it until
 * st_unlock(): SQLite's one write lock, PostgreSQL's table lock that every
 * insert into moves waits for (reads go on).
 */
static inline void st_lock(struct st_other *o)
{
	st_other_open(o);
	st_other_sql(o,
	             st_is_pg() ? "BEGIN; LOCK TABLE moves IN EXCLUSIVE MODE" : "BEGIN IMMEDIATE");
}

static inline void st_unlock(struct st_other *o)
{
	st_other_sql(o, "ROLLBACK");
	st_other_close(o);
}

/* The words a back end uses when a lock was waited for too long. */
static inline const char *st_lock_words(void)
{
	return st_is_pg() ? "lock timeout" : "locked";
}

#endif
