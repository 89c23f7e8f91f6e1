/*
 * svctest.h - what the harnesses of real services (pgtest.h: PostgreSQL,
 * redistest.h: Redis) share: a free loopback port, an unprivileged user to
 * run a service as when the tests run as root (PostgreSQL refuses root),
 * programs run as that user, whether a process is gone (daemons are not
 * our children), and a watchdog process that stops a service and removes
 * its directory when the test process dies without doing so itself (a
 * crash, a timeout, ^C), so that no server is ever left running.
 * Test code only (svctest.c, in libtest.a).
 */
#ifndef BITARENA_TESTS_SVCTEST_H
#define BITARENA_TESTS_SVCTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Sleeps ms milliseconds (through signals). */
void svc_msleep(int ms);

/* A port of 127.0.0.1 that nothing listens on right now (0 when none could be had). */
int svc_free_port(void);

/* Who a service runs as: ourselves, or (as root) an unprivileged user. */
struct svc_user {
	bool drop; /* setuid to uid/gid before exec */
	uid_t uid;
	gid_t gid;
	char name[64];
};

/*
 * As root: $BITARENA_TEST_USER, else "postgres" (made by Debian's package),
 * else "nobody". Otherwise: ourselves. False when root finds none of them.
 */
bool svc_user_pick(struct svc_user *u);

/*
 * Runs argv as u with stdin from /dev/null and stdout, stderr appended to
 * log (NULL: /dev/null); returns its exit status (-1: it did not exit).
 */
int svc_run(const struct svc_user *u, const char *const argv[], const char *log);

/* The pid written in a pid file's first line (0: none). */
pid_t svc_pidfile(const char *path);

/* Waits (at most ms) until pid is gone; true when it is. */
bool svc_wait_gone(pid_t pid, int ms);

/* Removes path and everything below it (as rm -rf). */
void svc_rmtree(const char *path);

/*
 * The watchdog: a child process that waits for this process (and every
 * fork of it) to be gone; when they went without svc_watch_done(), it calls
 * cleanup(arg) (stop the service, remove its directory). It ignores the
 * signals that end a test run (^C reaches the whole process group) so that
 * it outlives what it watches.
 */
struct svc_watch {
	pid_t pid;
	int fd; /* our end: closed with everyone holding it, the watchdog acts */
};

/* Starts the watchdog; false when it could not be started. */
bool svc_watch_start(struct svc_watch *w, void (*cleanup)(void *), void *arg);

/* The service was stopped and removed as planned: the watchdog leaves without a word. */
void svc_watch_done(struct svc_watch *w);

/* Makes a fresh directory for a service: under $TMPDIR when u can use it there, else /tmp. */
bool svc_tmpdir(const struct svc_user *u, const char *prefix, char *dir, size_t size,
                size_t max_len);

#endif
