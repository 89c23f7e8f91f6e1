/*
 * tmpdir.h - temporary directories for the tests that need files (the store
 * and record suites): make one under $TMPDIR (default /tmp), remove it with
 * everything in it. Test code only (tmpdir.c, in libtest.a).
 */
#ifndef BITARENA_TESTS_TMPDIR_H
#define BITARENA_TESTS_TMPDIR_H

#include <stddef.h>

/* Creates a fresh directory named after prefix into dir (size bytes). */
void tmpdir_make(char *dir, size_t size, const char *prefix);

/* Removes path and everything below it. */
void tmpdir_remove(const char *path);

#endif
