/*
 * conf.c - a configuration file read into key value pairs (see conf.h).
 */
#include "server/util/conf.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/util/text.h"

static bool key_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-';
}

static bool blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* The file's bytes, NUL-terminated, malloc'd into *out; -1 with why when it cannot. */
static int slurp(const char *path, char **out, size_t *n, char *why, size_t len)
{
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		snprintf(why, len, "cannot open it: %s", strerror(errno));
		return -1;
	}
	char *buf = malloc(CONF_FILE_MAX + 1);
	size_t got = buf != NULL ? fread(buf, 1, CONF_FILE_MAX + 1, f) : 0;
	bool err = buf == NULL || ferror(f);
	fclose(f);
	if (err || got > CONF_FILE_MAX) {
		snprintf(why, len, "%s",
		         buf == NULL ? "out of memory"
		         : err       ? "cannot read it"
		                     : "it is over 1 MiB: not a configuration file");
		free(buf);
		return -1;
	}
	buf[got] = '\0';
	*out = buf;
	*n = got;
	return 0;
}

int conf_read(const char *path, struct conf *c, char *why, size_t len)
{
	memset(c, 0, sizeof *c);
	size_t size;
	if (slurp(path, &c->text, &size, why, len) < 0)
		return -1;
	size_t cap = 0;
	int lineno = 0;
	for (char *p = c->text, *next; p < c->text + size; p = next) {
		lineno++;
		char *nl = memchr(p, '\n', (size_t)(c->text + size - p));
		next = nl != NULL ? nl + 1 : c->text + size;
		char *end = nl != NULL ? nl : c->text + size;
		if (end > p && end[-1] == '\r')
			end--; /* a file written on Windows */
		size_t at;
		int bad = text_check(p, (size_t)(end - p), &at);
		if (bad != TEXT_OK) {
			snprintf(why, len, "line %d, byte %zu: %s", lineno, at + 1,
			         text_strerror(bad));
			goto fail;
		}
		*end = '\0';
		while (blank(*p))
			p++;
		if (*p == '\0' || *p == '#')
			continue;
		char *key = p;
		while (key_char(*p))
			p++;
		if (p == key || (*p != '\0' && !blank(*p)) || p - key > CONF_KEY_MAX) {
			snprintf(why, len,
			         "line %d: a setting is a key (a-z, 0-9 and -, as the long option "
			         "without its --) and its value, not '%.40s'",
			         lineno, key);
			goto fail;
		}
		char *value = NULL;
		if (*p != '\0') {
			*p++ = '\0';
			while (blank(*p))
				p++;
			char *v_end = p + strlen(p);
			while (v_end > p && blank(v_end[-1]))
				*--v_end = '\0';
			if (*p != '\0')
				value = p;
		}
		for (size_t i = 0; i < c->n; i++)
			if (strcmp(c->v[i].key, key) == 0) {
				snprintf(why, len, "line %d: %s is given twice (line %d too)",
				         lineno, key, c->v[i].line);
				goto fail;
			}
		if (c->n == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			struct conf_entry *nv = realloc(c->v, ncap * sizeof *nv);
			if (nv == NULL) {
				snprintf(why, len, "out of memory");
				goto fail;
			}
			c->v = nv;
			cap = ncap;
		}
		c->v[c->n++] = (struct conf_entry){.key = key, .value = value, .line = lineno};
	}
	return 0;
fail:
	conf_free(c);
	return -1;
}

void conf_free(struct conf *c)
{
	free(c->text);
	free(c->v);
	memset(c, 0, sizeof *c);
}
