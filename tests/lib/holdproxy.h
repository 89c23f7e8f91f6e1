/*
 * holdproxy.h - a TCP proxy on 127.0.0.1 in a thread of the test process, which can hold what
 * its clients send (a partition that delays bytes rather than dropping them, as the proxies of
 * tests/cluster/nemesis.py make): while held, every byte a client sends waits in the proxy, in
 * order; released, it all goes on to the server at once, then the connection goes on as
 * before. A client that closes while held has its bytes delivered at the release, then its
 * server side closed. What the server sends always passes. Test code only (libtest.a).
 */
#ifndef BITARENA_TESTS_HOLDPROXY_H
#define BITARENA_TESTS_HOLDPROXY_H

#include <pthread.h>
#include <stdbool.h>

#define HOLDPROXY_CONNS 32

struct holdproxy;

/* Listens on a free port of 127.0.0.1 (its number returned) for connections to target_port. */
struct holdproxy *holdproxy_start(int target_port, int *port);
/* Holds (true) or releases (false) what the clients send. */
void holdproxy_hold(struct holdproxy *p, bool hold);
/* Closes every connection and the listener, and frees p. */
void holdproxy_stop(struct holdproxy *p);

#endif
