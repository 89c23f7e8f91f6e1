/*
 * text.c - the check of text entering the server, malloc'd printf and the
 * wall clock (see text.h).
 */
#include "server/util/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The code point at p[0..len) and its length in *n; -1 when not valid UTF-8. */
static int32_t utf8_next(const unsigned char *p, size_t len, size_t *n)
{
	unsigned char c = p[0];
	size_t need;
	uint32_t cp;
	if (c < 0x80) {
		*n = 1;
		return c;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		need = 1;
		cp = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		need = 2;
		cp = c & 0x0F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		need = 3;
		cp = c & 0x07;
	} else {
		return -1; /* a continuation byte, an overlong lead (C0, C1), or beyond U+10FFFF */
	}
	if (len <= need)
		return -1;
	for (size_t k = 1; k <= need; k++) {
		if ((p[k] & 0xC0) != 0x80)
			return -1;
		cp = (cp << 6) | (p[k] & 0x3F);
	}
	if ((need == 2 && cp < 0x800) || (need == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return -1;
	*n = need + 1;
	return (int32_t)cp;
}

int text_check(const char *s, size_t len, size_t *at)
{
	const unsigned char *p = (const unsigned char *)s;
	int err = TEXT_OK;
	size_t i = 0, n = 0;
	while (i < len && err == TEXT_OK) {
		int32_t cp = utf8_next(p + i, len - i, &n);
		if (cp < 0)
			err = TEXT_EUTF8;
		else if ((cp < 0x20 && cp != '\t') || (cp >= 0x7F && cp <= 0x9F))
			err = TEXT_ECONTROL;
		else if ((cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069))
			err = TEXT_EBIDI;
		else if (cp == 0x2028 || cp == 0x2029)
			err = TEXT_ESEPARATOR;
		else
			i += n;
	}
	if (at != NULL)
		*at = i;
	return err;
}

const char *text_strerror(int err)
{
	switch (err) {
	case TEXT_OK:
		return "text is fine";
	case TEXT_EUTF8:
		return "the line is not valid UTF-8";
	case TEXT_ECONTROL:
		return "the line holds a control character";
	case TEXT_EBIDI:
		return "the line holds a bidirectional override or isolate (U+202A-U+202E, "
		       "U+2066-U+2069)";
	case TEXT_ESEPARATOR:
		return "the line holds a line or paragraph separator (U+2028, U+2029)";
	default:
		return "unknown text error";
	}
}

size_t text_cut(const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	if (n < max || s[n] == '\0')
		return n;
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--; /* s[n] continues the sequence that starts before the cut: cut before that */
	return n;
}

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
