/*
 * conf.h - a configuration file read into key value pairs (bitarenad.conf);
 * what the keys mean is the reader's (main.c: the long options of its table).
 *
 * The format, one setting a line:
 *     # a comment: a line whose first non-blank character is '#'
 *     max-seeks 5000
 *     log-level info
 *     fast-hash                  (a key alone: a flag's "yes")
 * A key is 1-64 of [a-z0-9-] at the start of the line (blanks before it are
 * allowed); its value is the rest of the line after the blanks that follow
 * it, blanks at its end dropped, kept as it is otherwise: no quoting, no
 * comment after a value ('#' in a value is the value's). Blank lines are
 * skipped. Refused, with the line's number: a line that does not start with
 * a key, text that is not valid UTF-8 or holds a control character other
 * than tab (text_check()), a key given twice, a file over CONF_FILE_MAX bytes.
 *
 * Memory: conf_read() makes one copy of the file's text, which every key and
 * value points into; conf_free() frees it. The caller's pointers into it live
 * as long as the struct conf.
 */
#ifndef BITARENA_SERVER_CONF_H
#define BITARENA_SERVER_CONF_H

#include <stddef.h>

#define CONF_FILE_MAX (1 << 20)
#define CONF_KEY_MAX  64

struct conf_entry {
	const char *key;
	const char *value; /* NULL: the key alone */
	int line;          /* its line number, from 1 */
};

struct conf {
	char *text;
	struct conf_entry *v;
	size_t n;
};

/*
 * Reads path into c (zeroed first): 0, or -1 with one sentence in why
 * ("line 3: ..." for a line it refuses, or why the file cannot be read);
 * c is then empty.
 */
int conf_read(const char *path, struct conf *c, char *why, size_t len);
void conf_free(struct conf *c);

#endif
