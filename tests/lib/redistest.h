/*
 * redistest.h - a throw-away redis-server for the tests: on a free port of
 * 127.0.0.1, working directory and logs in a temporary directory, nothing
 * saved to disk; stopped (or killed, or restarted on the same port, for the
 * failure tests) and removed at the end, and by a watchdog (svctest.h) if
 * the test process dies first. When redis-server is not installed
 * ($REDIS_SERVER, or on PATH), or bitarena was built without the cluster
 * (HAVE_REDIS 0), redistest_available() says so and the suites
 * skip their Redis cases with a message. Test code only (redistest.c, in
 * libtest.a).
 */
#ifndef BITARENA_TESTS_REDISTEST_H
#define BITARENA_TESTS_REDISTEST_H

#include <stdbool.h>
#include <stddef.h>

#include "svctest.h"

struct redistest {
	char dir[128];
	char bin[256];
	int port;
	struct svc_watch watch;
	bool up;      /* made (until redistest_down) */
	bool running; /* started and not stopped since */
};

/* True when redis-server is installed; else prints why, for the suite's skip. */
bool redistest_available(const char *suite);

/* One command in RESP to the server, the first line of its answer into out; false: no answer. */
bool redistest_cmd(const struct redistest *r, const char *resp, char *out, size_t size);

/* (Re)starts the server on r->port; true once it answers PING. */
bool redistest_restart(struct redistest *r);

/* Makes and starts a server. False only when redis-server is not installed. */
bool redistest_start(struct redistest *r);

/* Stops the server: kill9 true as a crash (SIGKILL), else a clean SIGTERM; waits until gone. */
void redistest_stop(struct redistest *r, bool kill9);

/* Stops the server and removes everything of it. Harmless when it was never made. */
void redistest_down(struct redistest *r);

/* "redis://127.0.0.1:PORT" for bitarenad --cluster. */
void redistest_uri(const struct redistest *r, char *out, size_t size);

#endif
