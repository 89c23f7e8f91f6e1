/*
 * redistest.c - a throw-away redis-server for the tests: started, pinged, stopped,
 * removed (redistest.h).
 */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "redistest.h"

/* redis-server: $REDIS_SERVER, else the first on PATH. */
static bool redistest_bin(char *out, size_t size)
{
	const char *env = getenv("REDIS_SERVER");
	if (env != NULL && *env) {
		snprintf(out, size, "%s", env);
		return access(out, X_OK) == 0;
	}
	const char *path = getenv("PATH");
	char dirs[2048];
	snprintf(dirs, sizeof dirs, "%s", path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d;
	     d = strtok_r(NULL, ":", &save)) {
		snprintf(out, size, "%s/redis-server", d);
		if (access(out, X_OK) == 0)
			return true;
	}
	return false;
}

bool redistest_available(const char *suite)
{
	char bin[256];
	if (!HAVE_REDIS) {
		printf("%s: this build has no cluster (./configure --without-redis): its cases are "
		       "skipped\n",
		       suite);
		return false;
	}
	if (redistest_bin(bin, sizeof bin))
		return true;
	printf("%s: redis-server is not installed (not on PATH, no $REDIS_SERVER): its cases are "
	       "skipped (apt-get install redis-server; ./run.sh test does)\n",
	       suite);
	return false;
}

bool redistest_cmd(const struct redistest *r, const char *resp, char *out, size_t size)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return false;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)r->port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bool ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
	          write(fd, resp, strlen(resp)) == (ssize_t)strlen(resp);
	size_t n = 0;
	while (ok && n + 1 < size && (n == 0 || out[n - 1] != '\n')) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t got = poll(&p, 1, 2000) == 1 ? read(fd, out + n, size - 1 - n) : -1;
		if (got <= 0)
			ok = false;
		else
			n += (size_t)got;
	}
	close(fd);
	out[n] = '\0';
	return ok;
}

static bool redistest_ping(const struct redistest *r)
{
	char buf[64];
	return redistest_cmd(r, "PING\r\n", buf, sizeof buf) && strncmp(buf, "+PONG", 5) == 0;
}

static pid_t redistest_pid(const struct redistest *r)
{
	char path[200];
	snprintf(path, sizeof path, "%s/redis.pid", r->dir);
	return svc_pidfile(path);
}

/* The watchdog's cleanup (the test process is gone), and a start that failed half-way. */
static void redistest_abandoned(void *arg)
{
	struct redistest *r = arg;
	pid_t pid = redistest_pid(r);
	if (pid > 0)
		kill(pid, SIGKILL);
	svc_wait_gone(pid, 5000);
	svc_rmtree(r->dir);
}

bool redistest_restart(struct redistest *r)
{
	char port[16], pidfile[200], log[200];
	snprintf(port, sizeof port, "%d", r->port);
	snprintf(pidfile, sizeof pidfile, "%s/redis.pid", r->dir);
	snprintf(log, sizeof log, "%s/redis.log", r->dir);
	unlink(pidfile);
	const char *argv[] = {
	        r->bin, "--port",    port,    "--bind",       "127.0.0.1", "--dir",
	        r->dir, "--save",    "",      "--appendonly", "no",        "--daemonize",
	        "yes",  "--pidfile", pidfile, "--logfile",    log,         "--protected-mode",
	        "no",   NULL};
	if (svc_run(NULL, argv, NULL) != 0)
		return false;
	for (int i = 0; i < 500; i++) { /* 5 s */
		if (redistest_ping(r)) {
			r->running = true;
			return true;
		}
		svc_msleep(10);
	}
	redistest_abandoned(r); /* what started, half-way: gone */
	return false;
}

bool redistest_start(struct redistest *r)
{
	memset(r, 0, sizeof *r);
	r->watch.fd = r->watch.pid = -1;
	if (!redistest_bin(r->bin, sizeof r->bin))
		return false;
	struct svc_user me = {.drop = false};
	ck_assert_msg(svc_tmpdir(&me, "redistest", r->dir, sizeof r->dir, 100),
	              "no temporary directory for redis-server");
	r->up = true;
	ck_assert(svc_watch_start(&r->watch, redistest_abandoned, r));
	for (int attempt = 0; attempt < 5 && !r->running; attempt++) {
		r->port = svc_free_port();
		redistest_restart(r);
	}
	char log[200];
	snprintf(log, sizeof log, "%s/redis.log", r->dir);
	ck_assert_msg(r->running, "redis-server did not start (see %s)", log);
	return true;
}

void redistest_stop(struct redistest *r, bool kill9)
{
	if (!r->running)
		return;
	pid_t pid = redistest_pid(r);
	ck_assert_int_gt(pid, 0);
	kill(pid, kill9 ? SIGKILL : SIGTERM);
	ck_assert(svc_wait_gone(pid, 10000));
	r->running = false;
}

void redistest_down(struct redistest *r)
{
	if (!r->up)
		return;
	if (r->running) {
		pid_t pid = redistest_pid(r);
		if (pid > 0)
			kill(pid, SIGKILL);
		svc_wait_gone(pid, 5000);
		r->running = false;
	}
	svc_rmtree(r->dir);
	svc_watch_done(&r->watch);
	r->up = false;
}

void redistest_uri(const struct redistest *r, char *out, size_t size)
{
	snprintf(out, size, "redis://127.0.0.1:%d", r->port);
}
