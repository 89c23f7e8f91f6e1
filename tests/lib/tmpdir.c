/*
 * tmpdir.c - temporary directories for the tests (tmpdir.h).
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tmpdir.h"

void tmpdir_make(char *dir, size_t size, const char *prefix)
{
	const char *base = getenv("TMPDIR");
	snprintf(dir, size, "%s/%s.XXXXXX", base && *base ? base : "/tmp", prefix);
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

void tmpdir_remove(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return;
	struct dirent *e;
	char p[1024];
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (snprintf(p, sizeof p, "%s/%s", path, e->d_name) >= (int)sizeof p)
			continue;
		if (e->d_type == DT_DIR)
			tmpdir_remove(p);
		else
			unlink(p);
	}
	closedir(d);
	rmdir(path);
}
