/*
 * check_main.h - the end of every Check suite's main(): run a suite with a
 * fresh runner, free it, and turn the failure count into an exit status.
 *
 * tests/lib: the helpers the suites share, each a header of declarations and
 * a .c compiled once into a test library (Makefile.am, "tests"):
 *
 *   libtest.a, on Check, cJSON and the client library:
 *     check_main  the end of every suite's main() (this header)
 *     tmpdir      temporary directories, made and removed with their contents
 *     smallfs     a 1 MiB file system for the full-disk tests
 *     match       matching the server's lines: JSON subsets and shell globs
 *     testproc    child processes of the bridge suites: spawn, wait, read output
 *     testserver  the loopback harness: the real bitarenad and line clients
 *     svctest     what the service harnesses share: ports, users, a watchdog
 *     pgtest      a throw-away PostgreSQL server (libpq)
 *     redistest   a throw-away redis-server
 *     wsclient    a WebSocket client on a plain socket (bitarenad's /ws)
 *     holdproxy   a TCP proxy that holds what its clients send (a partition delaying bytes)
 *   libtestserver.a, on the server library:
 *     fakeconn    the in-process harness: the whole server on a fake transport
 *     storetest   the store suites' cases on every back end (SQLite, PostgreSQL)
 *
 * A helper that fails calls Check's ck_assert: the failure names the helper's
 * line in tests/lib, as it did when these were inline functions of headers.
 * Test code only.
 */
#ifndef BITARENA_TESTS_CHECK_MAIN_H
#define BITARENA_TESTS_CHECK_MAIN_H

#include <check.h>

/* Runs s (the runner takes it over and frees it); EXIT_SUCCESS when no test failed. */
int check_run(Suite *s);

#endif
