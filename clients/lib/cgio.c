/*
 * cgio.c - a CodinGame bot's output lines as the referee reads them; see
 * cgio.h.
 */
#include "lib/cgio.h"

#include <string.h>

const char *cg_action_text(const char *line, bool cut)
{
	size_t n = strlen(line);
	if (cut || n == 0 || n > CG_ACTION_MAX || line[0] == ' ' || line[n - 1] == ' ')
		return CG_INVALID;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] > 0x7E)
			return CG_INVALID;
	return line;
}

void cg_lines_init(struct cg_lines *q)
{
	q->len = q->n = 0;
}

bool cg_lines_push(struct cg_lines *q, const char *text)
{
	size_t n = strlen(text);
	if (n > CG_ACTION_MAX)
		n = CG_ACTION_MAX;
	if (n + 1 > sizeof q->buf - q->len)
		return false;
	memcpy(q->buf + q->len, text, n);
	q->buf[q->len + n] = '\0';
	q->len += n + 1;
	q->n++;
	return true;
}

bool cg_lines_full(const struct cg_lines *q)
{
	return q->len >= CG_LINES_MAX;
}

bool cg_lines_pop(struct cg_lines *q, char *out, size_t outlen)
{
	if (q->n == 0)
		return false;
	size_t n = strlen(q->buf);
	if (outlen > 0) {
		size_t k = n < outlen - 1 ? n : outlen - 1;
		memcpy(out, q->buf, k);
		out[k] = '\0';
	}
	memmove(q->buf, q->buf + n + 1, q->len - n - 1);
	q->len -= n + 1;
	q->n--;
	return true;
}
