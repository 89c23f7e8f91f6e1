/*
 * text.h - printf into malloc'd strings, and the server's log. Every layer
 * of src/server uses these; they call nothing of the server.
 */
#ifndef BITARENA_SERVER_TEXT_H
#define BITARENA_SERVER_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

/* malloc'd printf; never aborts, returns NULL when out of memory. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* Appends printf output to the malloc'd string *s (NULL counts as ""); unchanged if out of memory.
 */
void xappend(char **s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The wall clock in ms since the Unix epoch. */
int64_t wall_ms(void);

/*
 * The log on stderr, "bitarenad: ..." lines. log_info() writes only when
 * verbose (--verbose: connections, logins, games restored); log_error() always
 * (storage failures and the like are worth an operator's attention). The
 * verbosity is one flag of the process.
 */
void log_set_verbose(bool on);
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
