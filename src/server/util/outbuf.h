/*
 * outbuf.h - the unit of output: an immutable, reference-counted block of
 * bytes (one line or several). One payload is shared by every connection it
 * goes to (a broadcast is rendered once); a transport holds one reference per
 * write in flight and drops it when the write is done.
 *
 * Ownership: outbuf_new() gives a block with one reference, the caller's;
 * every outbuf_ref() is matched by one outbuf_unref(), and the last one frees.
 * The loop thread only (the count is not atomic).
 */
#ifndef BITARENA_SERVER_OUTBUF_H
#define BITARENA_SERVER_OUTBUF_H

#include <stddef.h>

struct outbuf {
	unsigned refs;
	size_t len;
	char data[]; /* len bytes and a NUL after them */
};

/* A copy of len bytes of data; refs = 1. NULL when out of memory. */
struct outbuf *outbuf_new(const char *data, size_t len);
/* A copy of text ending in exactly one newline (trailing newlines folded); NULL out of memory. */
struct outbuf *outbuf_line(const char *text);
struct outbuf *outbuf_ref(struct outbuf *b);
void outbuf_unref(struct outbuf *b); /* NULL is fine */

#endif
