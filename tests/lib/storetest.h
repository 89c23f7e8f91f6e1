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
 * Test code only (storetest.c, in libtestserver.a).
 */
#ifndef BITARENA_TESTS_STORETEST_H
#define BITARENA_TESTS_STORETEST_H

#include <check.h>
#include <sqlite3.h>
#include <stdbool.h>

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

extern struct st_env ste;   /* the running test's */
extern struct pgtest st_pg; /* the PostgreSQL case's server */

bool st_is_pg(void);

/* The back end's name, as store_backend_name() says it. */
const char *st_name(void);

/* The schema version a fresh store of the running back end has. */
int st_version(void);

/* Options that open the running test's store (the other fields as the caller set them). */
void st_options(struct store_options *o);

/* The checked fixtures: a temporary directory (prefix), "sub" below it for SQLite. */
void st_setup(enum st_kind kind, const char *prefix, const char *sub);

void st_teardown(void);

/*
 * Adds one case per back end to s, named "sqlite" and "postgresql", each
 * with every test of tests[n] and the back end's own extra[nx] (NULL ends
 * them), the checked fixtures given and timeout seconds.
 */
void st_cases(Suite *s, const char *suite, void (*setup_sqlite)(void), void (*setup_pg)(void),
              void (*teardown)(void), int timeout, const TTest *const *tests,
              const TTest *const *only_sqlite, const TTest *const *only_pg);

/* ---- another connection, with the back end's own tools ------------------------------------ */

struct st_other {
	sqlite3 *lite;
#if HAVE_POSTGRESQL
	PGconn *pg;
#endif
};

/* Opens a connection of its own to the running test's store. */
void st_other_open(struct st_other *o);

/* Runs sql on the other connection; fails the test unless it succeeds. */
void st_other_sql(struct st_other *o, const char *sql);

void st_other_close(struct st_other *o);

/*
 * Another connection takes the write lock of the moves and holds it until
 * st_unlock(): SQLite's one write lock, PostgreSQL's table lock that every
 * insert into moves waits for (reads go on).
 */
void st_lock(struct st_other *o);

void st_unlock(struct st_other *o);

/* The words a back end uses when a lock was waited for too long. */
const char *st_lock_words(void);

#endif
