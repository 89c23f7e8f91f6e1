/*
 * pgtest.c - a throw-away PostgreSQL server for the tests: initdb, pg_ctl, schemas,
 * the test's own connections (pgtest.h).
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgtest.h"

static bool pgtest_has(const char *dir, const char *prog)
{
	char p[600];
	snprintf(p, sizeof p, "%.300s/%.200s", dir, prog);
	return access(p, X_OK) == 0;
}

/* The directory of initdb, pg_ctl and postgres: $PG_BINDIR, or the newest Debian one. */
static bool pgtest_bindir(char *out, size_t size)
{
	const char *env = getenv("PG_BINDIR");
	if (env != NULL && *env) {
		snprintf(out, size, "%s", env);
		return pgtest_has(out, "initdb") && pgtest_has(out, "pg_ctl") &&
		       pgtest_has(out, "postgres");
	}
	DIR *d = opendir("/usr/lib/postgresql");
	long best = -1;
	if (d != NULL) {
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			char *end;
			long v = strtol(e->d_name, &end, 10);
			char bin[200];
			snprintf(bin, sizeof bin, "/usr/lib/postgresql/%.64s/bin", e->d_name);
			if (*end == '\0' && v > best && pgtest_has(bin, "initdb") &&
			    pgtest_has(bin, "pg_ctl") && pgtest_has(bin, "postgres")) {
				best = v;
				snprintf(out, size, "%s", bin);
			}
		}
		closedir(d);
	}
	return best >= 0;
}

bool pgtest_available(const char *suite)
{
	char bin[300];
	if (!HAVE_POSTGRESQL) {
		printf("%s: this build has no PostgreSQL (./configure --without-postgresql): its "
		       "cases are skipped\n",
		       suite);
		return false;
	}
	if (pgtest_bindir(bin, sizeof bin))
		return true;
	printf("%s: PostgreSQL is not installed (no initdb/pg_ctl/postgres in "
	       "/usr/lib/postgresql/N/bin or $PG_BINDIR): its cases are skipped "
	       "(apt-get install postgresql; ./run.sh test does)\n",
	       suite);
	return false;
}

/* Runs pg_ctl with args (after -D data) as the server's user; its exit status. */
static int pgtest_ctl(const struct pgtest *pg, const char *a1, const char *a2, const char *a3,
                      const char *a4)
{
	char prog[400], data[200], log[200], ctl_log[200];
	snprintf(prog, sizeof prog, "%s/pg_ctl", pg->bin);
	snprintf(data, sizeof data, "%s/data", pg->dir);
	snprintf(log, sizeof log, "%s/postgres.log", pg->dir);
	snprintf(ctl_log, sizeof ctl_log, "%s/pg_ctl.log", pg->dir);
	const char *argv[] = {prog, "-D", data, "-l", log, "-s", a1, a2, a3, a4, NULL};
	return svc_run(&pg->user, argv, ctl_log);
}

/* The last lines of a log of the server's directory, for a failure's message. */
static const char *pgtest_tail(const struct pgtest *pg, const char *name, char *buf, size_t size)
{
	char path[300];
	snprintf(path, sizeof path, "%s/%s", pg->dir, name);
	buf[0] = '\0';
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return buf;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, len > (long)size - 1 ? len - (long)size + 1 : 0, SEEK_SET);
	size_t n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The watchdog's cleanup: the test process is gone. */
static void pgtest_abandoned(void *arg)
{
	struct pgtest *pg = arg;
	pgtest_ctl(pg, "-m", "immediate", "-w", "stop");
	svc_rmtree(pg->dir);
}

bool pgtest_restart(struct pgtest *pg)
{
	pg->running = pgtest_ctl(pg, "-w", "-t", "60", "start") == 0;
	return pg->running;
}

bool pgtest_start(struct pgtest *pg)
{
	memset(pg, 0, sizeof *pg);
	pg->watch.fd = pg->watch.pid = -1;
	if (!pgtest_bindir(pg->bin, sizeof pg->bin))
		return false;
	ck_assert_msg(svc_user_pick(&pg->user),
	              "running as root and no unprivileged user (postgres, nobody) to run "
	              "PostgreSQL as; set BITARENA_TEST_USER");
	/* the socket's path must fit a sockaddr_un: the directory's name stays short */
	ck_assert_msg(svc_tmpdir(&pg->user, "pgtest", pg->dir, sizeof pg->dir, 80),
	              "no directory %s can use under $TMPDIR or /tmp", pg->user.name);
	pg->up = true;
	ck_assert(svc_watch_start(&pg->watch, pgtest_abandoned, pg));
	char prog[400], data[200], log[200], tail[1500];
	snprintf(prog, sizeof prog, "%s/initdb", pg->bin);
	snprintf(data, sizeof data, "%s/data", pg->dir);
	snprintf(log, sizeof log, "%s/initdb.log", pg->dir);
	const char *argv[] = {prog,    "-D", data,   "-U",         PGTEST_USER, "-A",
	                      "trust", "-E", "UTF8", "--locale=C", "-N",        NULL};
	int rc = svc_run(&pg->user, argv, log);
	ck_assert_msg(rc == 0, "initdb failed (%d): %s", rc,
	              pgtest_tail(pg, "initdb.log", tail, sizeof tail));
	char conf[300];
	snprintf(conf, sizeof conf, "%s/postgresql.conf", data);
	for (int attempt = 0; attempt < 5 && !pg->running; attempt++) {
		pg->port = svc_free_port();
		FILE *f = fopen(conf, "a"); /* later lines win: a new port per attempt */
		ck_assert_ptr_nonnull(f);
		fprintf(f,
		        "\n# pgtest.h\nlisten_addresses = '127.0.0.1'\nport = %d\n"
		        "unix_socket_directories = '%s'\nfsync = on\nsynchronous_commit = on\n"
		        "shared_buffers = 16MB\nmax_connections = 100\n"
		        /* after a crash: one syncfs, not an fsync of every file (seconds) */
		        "recovery_init_sync_method = syncfs\n",
		        pg->port, pg->dir);
		ck_assert_int_eq(fclose(f), 0);
		pgtest_restart(pg);
	}
	ck_assert_msg(pg->running, "PostgreSQL did not start: %s",
	              pgtest_tail(pg, "postgres.log", tail, sizeof tail));
	return true;
}

void pgtest_stop(struct pgtest *pg, const char *mode)
{
	if (!pg->running)
		return;
	ck_assert_int_eq(pgtest_ctl(pg, "-m", mode, "-w", "stop"), 0);
	pg->running = false;
}

void pgtest_down(struct pgtest *pg)
{
	if (!pg->up)
		return;
	if (pg->running && pgtest_ctl(pg, "-m", "fast", "-w", "stop") != 0)
		pgtest_ctl(pg, "-m", "immediate", "-w", "stop");
	pg->running = false;
	svc_rmtree(pg->dir);
	svc_watch_done(&pg->watch);
	pg->up = false;
}

void pgtest_uri(const struct pgtest *pg, const char *schema, char *out, size_t size)
{
	int n = snprintf(out, size, "postgresql:///postgres?host=%s&port=%d&user=%s", pg->dir,
	                 pg->port, PGTEST_USER);
	if (schema != NULL)
		snprintf(out + n, size - (size_t)n, "&options=-csearch_path%%3D%s", schema);
}

#if HAVE_POSTGRESQL
/* Notices (NOTICE: schema exists, ...) are not the test's business. */
static void pgtest_quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

PGconn *pgtest_connect(const struct pgtest *pg, const char *schema)
{
	char uri[400];
	pgtest_uri(pg, schema, uri, sizeof uri);
	PGconn *c = PQconnectdb(uri);
	ck_assert_msg(c != NULL && PQstatus(c) == CONNECTION_OK, "connect %s: %s", uri,
	              c ? PQerrorMessage(c) : "no memory");
	PQsetNoticeProcessor(c, pgtest_quiet, NULL);
	return c;
}

void pgtest_sql(PGconn *c, const char *sql)
{
	PGresult *r = PQexec(c, sql);
	ExecStatusType st = PQresultStatus(r);
	ck_assert_msg(st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK, "%s: %s", sql,
	              PQresultErrorMessage(r));
	PQclear(r);
}

void pgtest_schema(struct pgtest *pg, char *out, size_t size)
{
	snprintf(out, size, "t%d_%u", (int)getpid(), pg->next++);
	PGconn *c = pgtest_connect(pg, NULL);
	char sql[200];
	snprintf(sql, sizeof sql, "CREATE SCHEMA %s", out);
	pgtest_sql(c, sql);
	PQfinish(c);
}
#endif /* HAVE_POSTGRESQL */
