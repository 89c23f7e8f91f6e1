/*
 * smallfs.c - a 1 MiB tmpfs in a private mount namespace, and filling it up (smallfs.h).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "smallfs.h"

bool smallfs_mount(const char *dir)
{
	const char *no = getenv("BITARENA_TEST_NO_MOUNT");
	if ((no != NULL && strcmp(no, "1") == 0) || unshare(CLONE_NEWNS) != 0)
		return false;
	if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) != 0) /* type ignored */
		return false;
	return mount("bitarena-test", dir, "tmpfs", 0, "size=1m,mode=0700") == 0;
}

void smallfs_fill(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	static char block[4096];
	while (write(fd, block, sizeof block) > 0)
		;
	ck_assert_int_eq(errno, ENOSPC);
	close(fd);
}
