/*
 * pgtest.h - a throw-away PostgreSQL server for the tests: initdb and
 * pg_ctl into a temporary directory, listening on 127.0.0.1 only, on a free
 * port, with its unix socket in that directory, fsync on (the durability the
 * tests check is the real one); stopped and removed at the end, and by a
 * watchdog (svctest.h) if the test process dies first. As root (CI, ./run.sh
 * test) the server runs as an unprivileged user (PostgreSQL refuses root):
 * $BITARENA_TEST_USER, postgres or nobody, owning the directory.
 *
 * When PostgreSQL's programs are not installed (/usr/lib/postgresql/N/bin,
 * or $PG_BINDIR), or bitarena was built without PostgreSQL (HAVE_POSTGRESQL
 * 0: then the connections of the tests' own, through libpq, are not
 * compiled either), pgtest_available() says so and the suites skip their
 * PostgreSQL cases with a message; once installed, any failure to start is
 * a test failure.
 *
 * Isolation: pgtest_schema() makes a fresh schema and pgtest_uri() names a
 * connection whose search_path is that schema, so the tests of one server
 * never see each other's tables. Test code only (pgtest.c, in libtest.a).
 */
#ifndef BITARENA_TESTS_PGTEST_H
#define BITARENA_TESTS_PGTEST_H

#if HAVE_POSTGRESQL
#include <libpq-fe.h>
#endif
#include <stdbool.h>
#include <stddef.h>

#include "svctest.h"

#define PGTEST_USER "bitarena" /* the server's superuser (trust on its own socket) */

struct pgtest {
	char dir[128]; /* data/, the socket, the logs */
	char bin[300]; /* initdb, pg_ctl */
	int port;
	struct svc_user user;
	struct svc_watch watch;
	bool up;       /* made (until pgtest_down) */
	bool running;  /* started by pg_ctl and not stopped since */
	unsigned next; /* schemas made */
};

/* True when a server can be made here; else prints why, for the suite's skip. */
bool pgtest_available(const char *suite);

/* Starts the server made by pgtest_start() again (after pgtest_stop()); true when it runs. */
bool pgtest_restart(struct pgtest *pg);

/*
 * Makes and starts a server (see above). False only when PostgreSQL is not
 * installed; any other failure fails the test, with the server's words.
 */
bool pgtest_start(struct pgtest *pg);

/* Stops the server: "fast" (clean) or "immediate" (as a crash: recovery at the next start). */
void pgtest_stop(struct pgtest *pg, const char *mode);

/* Stops the server and removes everything of it. Harmless when it was never made. */
void pgtest_down(struct pgtest *pg);

/* A connection URI for bitarenad --db and store options (schema: its search_path, or NULL). */
void pgtest_uri(const struct pgtest *pg, const char *schema, char *out, size_t size);

#if HAVE_POSTGRESQL
/* A connection to the server (in schema, or NULL): the test's own, for its checks. */
PGconn *pgtest_connect(const struct pgtest *pg, const char *schema);

/* Runs sql on c; fails the test unless it succeeds. */
void pgtest_sql(PGconn *c, const char *sql);

/* A fresh, empty schema of its own (its name in out). */
void pgtest_schema(struct pgtest *pg, char *out, size_t size);
#endif /* HAVE_POSTGRESQL */

#endif
