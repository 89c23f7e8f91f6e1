/*
 * smallfs.h - a small file system for the full-disk tests (check_store_writer,
 * check_durability): a 1 MiB tmpfs mounted on a directory in a private mount
 * namespace of the test's own process (and of the processes it starts), so it
 * needs no cleanup if the test dies and nobody else sees it. Mounting needs
 * CAP_SYS_ADMIN (root, as in CI); where it is not allowed, or with
 * BITARENA_TEST_NO_MOUNT=1, the tests fall back on RLIMIT_FSIZE with SIGXFSZ
 * ignored (writes past the limit fail with EFBIG, which SQLite reports as an
 * I/O error rather than a full disk). Header-only; test code only.
 */
#ifndef BITARENA_TESTS_SMALLFS_H
#define BITARENA_TESTS_SMALLFS_H

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

/* Mounts a 1 MiB tmpfs on dir in a new mount namespace; false when not allowed. */
static inline bool smallfs_mount(const char *dir)
{
	const char *no = getenv("BITARENA_TEST_NO_MOUNT");
	if ((no != NULL && strcmp(no, "1") == 0) || unshare(CLONE_NEWNS) != 0)
		return false;
	if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) != 0) /* type ignored */
		return false;
	return mount("bitarena-test", dir, "tmpfs", 0, "size=1m,mode=0700") == 0;
}

/* Fills the file system of path with the file path until it is full (ENOSPC). */
static inline void smallfs_fill(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	static char block[4096];
	while (write(fd, block, sizeof block) > 0)
		;
	ck_assert_int_eq(errno, ENOSPC);
	close(fd);
}

#endif
