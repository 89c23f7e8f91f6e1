/*
 * log.c - the server's log on stderr, one line per event (see log.h).
 */
#include "server/util/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const level_names[] = {
        [LOG_LEVEL_ERROR] = "error",
        [LOG_LEVEL_WARN] = "warn",
        [LOG_LEVEL_INFO] = "info",
        [LOG_LEVEL_DEBUG] = "debug",
};
/* syslog's priorities (sd-daemon.h's SD_ERR ...), for the journal */
static const char priority[] = {
        [LOG_LEVEL_ERROR] = '3',
        [LOG_LEVEL_WARN] = '4',
        [LOG_LEVEL_INFO] = '6',
        [LOG_LEVEL_DEBUG] = '7',
};

static atomic_int level = LOG_LEVEL_DEFAULT;
/* stderr is the journal: 0 not known yet, 1 yes, -1 no */
static atomic_int journal;

int log_level_parse(const char *s)
{
	for (int i = 0; i < (int)(sizeof level_names / sizeof level_names[0]); i++)
		if (s != NULL && strcmp(s, level_names[i]) == 0)
			return i;
	return -1;
}

const char *log_level_name(enum log_level lv)
{
	return (unsigned)lv < sizeof level_names / sizeof level_names[0] ? level_names[lv] : "?";
}

void log_set_level(enum log_level lv)
{
	atomic_store(&level, (int)lv);
}

enum log_level log_get_level(void)
{
	return (enum log_level)atomic_load(&level);
}

bool log_enabled(enum log_level lv)
{
	return (int)lv <= atomic_load(&level);
}

/* Whether stderr is the journal: JOURNAL_STREAM names its device and inode (systemd.exec(5)). */
static bool to_journal(void)
{
	int j = atomic_load(&journal);
	if (j == 0) {
		const char *env = getenv("JOURNAL_STREAM");
		unsigned long long dev, ino;
		struct stat st;
		j = env != NULL && sscanf(env, "%llu:%llu", &dev, &ino) == 2 &&
		                    fstat(STDERR_FILENO, &st) == 0 &&
		                    (unsigned long long)st.st_dev == dev &&
		                    (unsigned long long)st.st_ino == ino
		            ? 1
		            : -1;
		atomic_store(&journal, j);
	}
	return j > 0;
}

/* Appends s[0..n) to out (at *at, room len) with control characters escaped; false when cut. */
static bool put_escaped(char *out, size_t len, size_t *at, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char e[4];
		size_t k = 0;
		if (c >= 0x20 && c != 0x7f)
			e[k++] = (char)c;
		else if (c == '\n' || c == '\r' || c == '\t')
			e[k++] = '\\', e[k++] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
		else
			e[k++] = '\\', e[k++] = 'x', e[k++] = hex[c >> 4], e[k++] = hex[c & 15];
		if (*at + k >= len)
			return false;
		memcpy(out + *at, e, k);
		*at += k;
	}
	return true;
}

void log_at(enum log_level lv, const char *fmt, ...)
{
	if (!log_enabled(lv))
		return;
	char text[LOG_LINE_MAX], line[LOG_LINE_MAX + 8];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	size_t tn = (size_t)n < sizeof text ? (size_t)n : sizeof text - 1, at;
	if (to_journal()) {
		at = (size_t)snprintf(line, sizeof line, "<%c>%s: ", priority[lv],
		                      log_level_name(lv));
	} else {
		struct timespec ts;
		struct tm tm;
		clock_gettime(CLOCK_REALTIME, &ts);
		gmtime_r(&ts.tv_sec, &tm);
		at = strftime(line, sizeof line, "%Y-%m-%dT%H:%M:%S", &tm);
		at += (size_t)snprintf(line + at, sizeof line - at,
		                       ".%03dZ bitarenad %s: ", (int)(ts.tv_nsec / 1000000),
		                       log_level_name(lv));
	}
	size_t room = sizeof line - 5; /* for "...\n" */
	if (!put_escaped(line, room, &at, text, tn) || tn < (size_t)n) {
		memcpy(line + at, "...", 3);
		at += 3;
	}
	line[at++] = '\n';
	fwrite(line, 1, at, stderr);
}

const char *log_quote(char *buf, size_t len, const char *s)
{
	if (s == NULL)
		return "-";
	if (*s != '\0' && s[strcspn(s, " \"=\\\x7f\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r"
	                               "\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a"
	                               "\x1b\x1c\x1d\x1e\x1f")] == '\0')
		return s;
	if (len < 8)
		return "\"...\"";
	size_t at = 0;
	buf[at++] = '"';
	for (; *s != '\0'; s++) {
		bool esc = *s == '"' || *s == '\\';
		if (at + (esc ? 2 : 1) + 2 > len) { /* the closing quote and the NUL */
			at = at > len - 6 ? len - 6 : at;
			memcpy(buf + at, "...", 3);
			at += 3;
			break;
		}
		if (esc)
			buf[at++] = '\\';
		buf[at++] = *s;
	}
	buf[at++] = '"';
	buf[at] = '\0';
	return buf;
}
