/*
 * testproc.h - child processes for the bridge suites (check_cgbridge,
 * check_tei_bridge): start a program with its output in a file, wait for it
 * with a safety limit, read a file, find the test binary itself and the
 * programs `make check` names ($BITARENA, $BITARENAD). Test code only
 * (testproc.c, in libtest.a).
 */
#ifndef BITARENA_TESTS_TESTPROC_H
#define BITARENA_TESTS_TESTPROC_H

#include <stddef.h>
#include <sys/types.h>

/* $env, or fallback when it is unset or empty. */
const char *tp_prog(const char *env, const char *fallback);

/*
 * Joins NULL-terminated word lists (the arguments after cap, up to a NULL
 * list) into argv, which holds cap entries, and ends it with NULL. Returns argv.
 */
const char **tp_argv(const char **argv, int cap, ...);

/*
 * Starts argv with stdout to out_path and stderr to err_path (each NULL:
 * inherited; "/dev/null" for both silences it). Returns the pid.
 */
pid_t tp_spawn(const char *const argv[], const char *out_path, const char *err_path);

/*
 * Waits for pid at most limit_s seconds (a safety net against a hang, not a
 * measurement) and returns its exit status (128 + signal when killed);
 * kills it and returns -1 when the limit passes.
 */
int tp_wait(pid_t pid, int limit_s);

/* The file's contents (at most len - 1 bytes), NUL-terminated; "" when it cannot be read. */
char *tp_slurp(const char *path, char *buf, size_t len);

/* Number of lines of text that start with prefix. */
int tp_count_lines(const char *text, const char *prefix);

#endif
