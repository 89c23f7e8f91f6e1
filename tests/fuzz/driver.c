/*
 * driver.c - a main() for the fuzz targets when they are built without
 * libFuzzer (gcc, `make check`): feeds every file named on the command line
 * (a directory means each regular file in it, in name order) to
 * LLVMFuzzerTestOneInput. With no arguments it replays the target's seed
 * corpus, $BITARENA_FUZZ_CORPUS or else $BITARENA_SRCDIR/tests/fuzz/corpus/<name>.
 *
 * Each input runs in a child process, so one failing input (an abort from a
 * property check, a sanitizer report, a signal) is counted and named and the
 * rest still run. The last line is "fuzz_<name>: N inputs, F failures"; the
 * exit status is 0 only when F is 0 and N > 0.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz.h"

static size_t ninputs, nfailures;

/* Reads the whole file into an exact-size malloc'd buffer (so ASan sees overreads). */
static uint8_t *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			uint8_t *b = realloc(buf, cap);
			if (b == NULL) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = b;
		}
		size_t k = fread(buf + n, 1, cap - n, f);
		n += k;
		if (k == 0)
			break;
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		free(buf);
		return NULL;
	}
	/* exact size: a harness reading one byte past the input is caught */
	uint8_t *exact = malloc(n ? n : 1);
	if (exact != NULL && n > 0)
		memcpy(exact, buf, n);
	free(buf);
	*size = n;
	return exact;
}

/* Runs one input in a child; counts it, and names it when it fails. */
static void run_file(const char *path)
{
	size_t size = 0;
	uint8_t *data = read_file(path, &size);
	ninputs++;
	if (data == NULL) {
		fprintf(stderr, "fuzz_%s: cannot read %s: %s\n", fuzz_target_name, path,
		        strerror(errno));
		nfailures++;
		return;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "fuzz_%s: fork: %s\n", fuzz_target_name, strerror(errno));
		nfailures++;
		free(data);
		return;
	}
	if (pid == 0) {
		int r = LLVMFuzzerTestOneInput(data, size);
		free(data);
		exit(r == 0 || r == -1 ? 0 : 3); /* exit(), not _exit(): LeakSanitizer runs */
	}
	free(data);
	int status;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = -1;
			break;
		}
	}
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		nfailures++;
		if (status != -1 && WIFSIGNALED(status))
			fprintf(stderr, "fuzz_%s: FAIL %s (signal %d)\n", fuzz_target_name, path,
			        WTERMSIG(status));
		else
			fprintf(stderr, "fuzz_%s: FAIL %s (exit status %d)\n", fuzz_target_name,
			        path, status == -1 ? -1 : WEXITSTATUS(status));
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A file, or every regular file directly in a directory (sorted, dot files skipped). */
static void run_path(const char *path)
{
	struct stat sb;
	if (stat(path, &sb) != 0) {
		fprintf(stderr, "fuzz_%s: %s: %s\n", fuzz_target_name, path, strerror(errno));
		ninputs++;
		nfailures++;
		return;
	}
	if (!S_ISDIR(sb.st_mode)) {
		run_file(path);
		return;
	}
	DIR *d = opendir(path);
	if (d == NULL) {
		fprintf(stderr, "fuzz_%s: %s: %s\n", fuzz_target_name, path, strerror(errno));
		ninputs++;
		nfailures++;
		return;
	}
	char **names = NULL; /* owned here: each a malloc'd path, freed below */
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		size_t len = strlen(path) + strlen(e->d_name) + 2;
		char *full = malloc(len);
		if (full == NULL)
			abort();
		snprintf(full, len, "%s/%s", path, e->d_name);
		if (stat(full, &sb) != 0 || !S_ISREG(sb.st_mode)) {
			free(full);
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			char **p = realloc(names, cap * sizeof *p);
			if (p == NULL)
				abort();
			names = p;
		}
		names[n++] = full;
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof *names, by_name);
	for (size_t i = 0; i < n; i++) {
		run_file(names[i]);
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			run_path(argv[i]);
	} else {
		const char *corpus = getenv("BITARENA_FUZZ_CORPUS");
		const char *src = getenv("BITARENA_SRCDIR");
		char path[4096];
		if (corpus != NULL && *corpus != '\0') {
			snprintf(path, sizeof path, "%s", corpus);
		} else if (src != NULL && *src != '\0') {
			snprintf(path, sizeof path, "%s/tests/fuzz/corpus/%s", src,
			         fuzz_target_name);
		} else {
			fprintf(stderr,
			        "usage: fuzz_%s FILE|DIR...  (or set BITARENA_SRCDIR to replay "
			        "tests/fuzz/corpus/%s)\n",
			        fuzz_target_name, fuzz_target_name);
			return 2;
		}
		run_path(path);
	}
	printf("fuzz_%s: %zu inputs, %zu failures\n", fuzz_target_name, ninputs, nfailures);
	return nfailures == 0 && ninputs > 0 ? 0 : 1;
}
