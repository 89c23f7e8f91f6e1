/*
 * fuzz.h - what every fuzz target in tests/fuzz shares: the libFuzzer entry
 * point, the target's name (the driver finds its corpus by it), a property
 * check that aborts (libFuzzer and the replay driver both report an abort as
 * a failure), and a NUL-terminated copy of the input.
 *
 * A target is built two ways: with libFuzzer (./configure CC=clang
 * --enable-fuzzing: fuzz/fuzz_<name>, run by make fuzz-smoke and make fuzz),
 * or with driver.c as a plain program that replays its seed corpus under
 * `make check` (tests/fuzz_<name>).
 */
#ifndef BITARENA_TESTS_FUZZ_H
#define BITARENA_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs one input; returns 0 (libFuzzer's contract). Defined by each fuzz_<name>.c. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* "tak", "record", ...: the corpus directory tests/fuzz/corpus/<name>. */
extern const char fuzz_target_name[];

/* A property that must hold for every input: on failure say which, then abort. */
#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__,        \
			        #cond);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* A malloc'd NUL-terminated copy of the input (owned by the caller: free()); aborts on OOM. */
static inline char *fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (s == NULL)
		abort();
	if (size > 0)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * Splits text (modified in place) at '\n' into at most max lines; a '\r'
 * before the '\n' is dropped. Returns the number of lines stored in lines[].
 */
static inline size_t fuzz_lines(char *text, char **lines, size_t max)
{
	size_t n = 0;
	char *p = text;
	while (n < max && *p != '\0') {
		char *nl = strchr(p, '\n');
		lines[n++] = p;
		if (nl == NULL)
			break;
		if (nl > p && nl[-1] == '\r')
			nl[-1] = '\0';
		*nl = '\0';
		p = nl + 1;
	}
	return n;
}

#endif
