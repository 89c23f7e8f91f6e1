/*
 * log.h - the server's log: one line per event on stderr, with its level and
 * a key=value tail, for journald (under systemd) or a file.
 *
 * A line is the event in a few words, then what it concerns as key=value
 * pairs: "connection closed conn=12 user=bob". A value that holds a space, a
 * quote, an '=' or a backslash goes through LOG_Q(), which quotes it
 * ("why=\"disk I/O error\""); whatever the line holds, it stays one line:
 * control characters (a newline in a library's message) are written as \n,
 * \r, \t or \xNN. On a terminal or in a file each line begins with the time
 * (UTC, ms) and the level:
 *     2026-05-01T10:00:00.123Z bitarenad info: listening addr=127.0.0.1:7777
 * When stderr is the journal (systemd sets JOURNAL_STREAM to its device and
 * inode), the time is the journal's and the line begins with the level as
 * syslog's priority, "<6>info: listening ...", which journald takes as the
 * entry's PRIORITY and removes (sd-daemon(3)).
 *
 * Levels, from the most to the least needed (--log-level; debug is what
 * --verbose was): error (the service cannot do something it should: the
 * store fails, a port cannot be opened), warn (something is wrong but served
 * around: a node lost, a setting that waits for a restart), info (the
 * service's life: listening, games restored, a reload, a connection dropped
 * for a limit, an account made), debug (each connection's life: opened,
 * logged in, closed). A line whose level is above the one set costs one
 * comparison. The level is one setting of the process, read by every thread
 * (atomic); lines from several threads never mix (one write each).
 */
#ifndef BITARENA_SERVER_LOG_H
#define BITARENA_SERVER_LOG_H

#include <stdbool.h>
#include <stddef.h>

enum log_level { LOG_LEVEL_ERROR, LOG_LEVEL_WARN, LOG_LEVEL_INFO, LOG_LEVEL_DEBUG };

#define LOG_LEVEL_DEFAULT LOG_LEVEL_INFO
#define LOG_LEVEL_NAMES   "error|warn|info|debug" /* what --log-level takes */
#define LOG_LINE_MAX      2048                    /* a longer line is cut, ending in "..." */
#define LOG_Q_MAX         512 /* LOG_Q()'s room: a longer value is cut, ending in "...\"" */

/* The level named s (error, warn, info, debug), or -1. */
int log_level_parse(const char *s);
const char *log_level_name(enum log_level lv);

void log_set_level(enum log_level lv);
enum log_level log_get_level(void);
/* Whether a line of level lv is written (to skip the work of one that is not). */
bool log_enabled(enum log_level lv);

/* One line of level lv: printf's format and arguments, the event then key=value pairs. */
void log_at(enum log_level lv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) log_at(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_warn(...)  log_at(LOG_LEVEL_WARN, __VA_ARGS__)
#define log_info(...)  log_at(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_debug(...) log_at(LOG_LEVEL_DEBUG, __VA_ARGS__)

/*
 * s as a value of the tail: as it is when it has no space, quote, '=',
 * backslash or control character and is not empty; else quoted, with '"'
 * and '\' escaped, in buf (len bytes). NULL is "-". Returns s or buf.
 */
const char *log_quote(char *buf, size_t len, const char *s);
/* log_quote() into a buffer that lives until the end of the enclosing block (the log call). */
#define LOG_Q(s) log_quote((char[LOG_Q_MAX]){0}, LOG_Q_MAX, (s))

#endif
