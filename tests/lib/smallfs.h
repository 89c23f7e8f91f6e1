/*
 * smallfs.h - a small file system for the full-disk tests (check_store_writer,
 * check_durability): a 1 MiB tmpfs mounted on a directory in a private mount
 * namespace of the test's own process (and of the processes it starts), so it
 * needs no cleanup if the test dies and nobody else sees it. Mounting needs
 * CAP_SYS_ADMIN (root, as in CI); where it is not allowed, or with
 * BITARENA_TEST_NO_MOUNT=1, the tests fall back on RLIMIT_FSIZE with SIGXFSZ
 * ignored (writes past the limit fail with EFBIG, which SQLite reports as an
 * I/O error rather than a full disk). Test code only (smallfs.c, in libtest.a).
 */
#ifndef BITARENA_TESTS_SMALLFS_H
#define BITARENA_TESTS_SMALLFS_H

#include <stdbool.h>

/* Mounts a 1 MiB tmpfs on dir in a new mount namespace; false when not allowed. */
bool smallfs_mount(const char *dir);

/* Fills the file system of path with the file path until it is full (ENOSPC). */
void smallfs_fill(const char *path);

#endif
