/*
 * storetest.c - the store suites' back ends: the running test's store, the cases per
 * back end, another connection with the back end's own tools (storetest.h).
 */
#include <stdio.h>
#include <string.h>

#include "storetest.h"

struct st_env ste;
struct pgtest st_pg;

bool st_is_pg(void)
{
	return ste.kind == ST_PG;
}

const char *st_name(void)
{
	return st_is_pg() ? "postgresql" : "sqlite";
}

int st_version(void)
{
	return 8;
}

void st_options(struct store_options *o)
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

void st_setup(enum st_kind kind, const char *prefix, const char *sub)
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

void st_teardown(void)
{
	tmpdir_remove(ste.tmpdir);
	if (st_is_pg() && !st_pg.running)
		pgtest_restart(&st_pg);
}

/* The unchecked fixtures of the PostgreSQL case (in the runner: once per case). */
static void st_pg_up(void)
{
	ck_assert(pgtest_start(&st_pg));
}

static void st_pg_down(void)
{
	pgtest_down(&st_pg);
}

void st_cases(Suite *s, const char *suite, void (*setup_sqlite)(void), void (*setup_pg)(void),
              void (*teardown)(void), int timeout, const TTest *const *tests,
              const TTest *const *only_sqlite, const TTest *const *only_pg)
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

void st_other_open(struct st_other *o)
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

void st_other_sql(struct st_other *o, const char *sql)
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

void st_other_close(struct st_other *o)
{
#if HAVE_POSTGRESQL
	if (o->pg != NULL)
		PQfinish(o->pg);
#endif
	if (o->lite != NULL)
		sqlite3_close(o->lite);
	memset(o, 0, sizeof *o);
}

void st_lock(struct st_other *o)
{
	st_other_open(o);
	st_other_sql(o,
	             st_is_pg() ? "BEGIN; LOCK TABLE moves IN EXCLUSIVE MODE" : "BEGIN IMMEDIATE");
}

void st_unlock(struct st_other *o)
{
	st_other_sql(o, "ROLLBACK");
	st_other_close(o);
}

const char *st_lock_words(void)
{
	return st_is_pg() ? "lock timeout" : "locked";
}
