/*
 * text.c - malloc'd printf, the wall clock and the log (see text.h).
 */
#include "server/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	return s;
}

void xappend(char **s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *add = xvasprintf(fmt, ap);
	va_end(ap);
	char *n = add ? xasprintf("%s%s", *s ? *s : "", add) : NULL;
	free(add);
	if (n != NULL) {
		free(*s);
		*s = n;
	}
}

int64_t wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool verbose;

void log_set_verbose(bool on)
{
	verbose = on;
}

static void vlog(const char *fmt, va_list ap)
{
	fputs("bitarenad: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void log_info(const char *fmt, ...)
{
	if (!verbose)
		return;
	va_list ap;
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

void log_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}
