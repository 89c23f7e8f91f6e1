/*
 * outbuf.c - reference-counted output blocks (see outbuf.h).
 */
#include "server/util/outbuf.h"

#include <stdlib.h>
#include <string.h>

struct outbuf *outbuf_new(const char *data, size_t len)
{
	struct outbuf *b = malloc(sizeof *b + len + 1);
	if (b == NULL)
		return NULL;
	b->refs = 1;
	b->len = len;
	memcpy(b->data, data, len);
	b->data[len] = '\0';
	return b;
}

struct outbuf *outbuf_line(const char *text)
{
	size_t n = strlen(text);
	while (n > 0 && text[n - 1] == '\n')
		n--;
	struct outbuf *b = malloc(sizeof *b + n + 2);
	if (b == NULL)
		return NULL;
	b->refs = 1;
	b->len = n + 1;
	memcpy(b->data, text, n);
	b->data[n] = '\n';
	b->data[n + 1] = '\0';
	return b;
}

struct outbuf *outbuf_ref(struct outbuf *b)
{
	b->refs++;
	return b;
}

void outbuf_unref(struct outbuf *b)
{
	if (b != NULL && --b->refs == 0)
		free(b);
}
