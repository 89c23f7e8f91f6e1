/*
 * api_metrics.c - the /metrics page and who may read it (see api_metrics.h): the registry
 * walked once per pass into a caller's buffer (a sink that counts what did not fit, so the
 * first pass sizes the second), the process's numbers from /proc/self, and the networks of
 * --metrics-from matched bit by bit.
 */
#include "config.h"

#include "server/api/api_metrics.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* ---- who may read it ------------------------------------------------------------------ */

static const unsigned char v4_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

/* text as 16 bytes (IPv4 mapped); *v4 says which it was. */
static bool addr_of(const char *text, unsigned char out[16], bool *v4)
{
	unsigned char a[16];
	if (inet_pton(AF_INET, text, a) == 1) {
		memcpy(out, v4_mapped, 12);
		memcpy(out + 12, a, 4);
		*v4 = true;
		return true;
	}
	if (inet_pton(AF_INET6, text, out) == 1) {
		*v4 = memcmp(out, v4_mapped, 12) == 0;
		return true;
	}
	return false;
}

int api_metrics_acl_parse(const char *text, struct api_metrics_acl *acl, char *why, size_t len)
{
	memset(acl, 0, sizeof *acl);
	if (text == NULL)
		text = API_METRICS_LOCAL;
	const char *p = text;
	for (;;) {
		const char *end = strchr(p, ',');
		size_t n = end != NULL ? (size_t)(end - p) : strlen(p);
		char item[INET6_ADDRSTRLEN + 8];
		if (n == 0 || n >= sizeof item) {
			snprintf(why, len, "--metrics-from wants ADDR[/PREFIX][,...], not '%.80s'",
			         text);
			return -1;
		}
		if (acl->n == API_METRICS_NETS) {
			snprintf(why, len, "--metrics-from takes %d networks at most",
			         API_METRICS_NETS);
			return -1;
		}
		memcpy(item, p, n);
		item[n] = '\0';
		struct api_metrics_net *net = &acl->nets[acl->n];
		char *slash = strchr(item, '/');
		if (slash != NULL)
			*slash = '\0';
		bool v4;
		char *rest = NULL;
		long prefix = 0;
		bool ok = addr_of(item, net->addr, &v4);
		if (ok && slash != NULL) {
			prefix = strtol(slash + 1, &rest, 10);
			ok = slash[1] >= '0' && slash[1] <= '9' && *rest == '\0' && prefix >= 0 &&
			     prefix <= (v4 ? 32 : 128);
		}
		if (!ok) {
			snprintf(why, len,
			         "--metrics-from: '%.*s' is no ADDR[/PREFIX] (an IPv4 address "
			         "with a prefix of 0-32 bits, or an IPv6 one with 0-128)",
			         (int)n, p);
			return -1;
		}
		net->prefix = slash == NULL ? 128 : (unsigned)prefix + (v4 ? 96 : 0);
		acl->n++;
		if (end == NULL)
			return 0;
		p = end + 1;
	}
}

bool api_metrics_acl_allows(const struct api_metrics_acl *acl, const char *peer)
{
	unsigned char a[16];
	bool v4;
	if (!addr_of(peer, a, &v4))
		return false;
	for (size_t i = 0; i < acl->n; i++) {
		const struct api_metrics_net *net = &acl->nets[i];
		unsigned whole = net->prefix / 8, bits = net->prefix % 8;
		if (memcmp(a, net->addr, whole) != 0)
			continue;
		unsigned char mask = (unsigned char)(0xff00u >> bits);
		if (bits == 0 || ((a[whole] ^ net->addr[whole]) & mask) == 0)
			return true;
	}
	return false;
}

/* ---- the process ---------------------------------------------------------------------- */

bool api_metrics_process(struct api_process *p)
{
	memset(p, 0, sizeof *p);
#ifdef __linux__
	/* /proc/self/stat: after the name (in parentheses, which may hold anything), field 3 on:
	   utime 14, stime 15 and starttime 22 in clock ticks, vsize 23 in bytes, rss 24 in pages */
	char buf[1024];
	FILE *f = fopen("/proc/self/stat", "r");
	if (f == NULL)
		return false;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *s = strrchr(buf, ')');
	unsigned long long utime, stime, start, vsize;
	long long rss;
	if (s == NULL ||
	    sscanf(s + 1,
	           " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d "
	           "%*d %*d %*d %llu %llu %lld",
	           &utime, &stime, &start, &vsize, &rss) != 5)
		return false;
	double tick = (double)sysconf(_SC_CLK_TCK);
	p->cpu_seconds = (double)(utime + stime) / tick;
	p->vsize_bytes = (double)vsize;
	p->rss_bytes = (double)rss * (double)sysconf(_SC_PAGESIZE);
	/* the boot's time (/proc/stat's btime) and the start's ticks after it */
	unsigned long long btime = 0;
	if ((f = fopen("/proc/stat", "r")) != NULL) {
		char line[256];
		while (fgets(line, sizeof line, f) != NULL)
			if (sscanf(line, "btime %llu", &btime) == 1)
				break;
		fclose(f);
	}
	p->start_time = (double)btime + (double)start / tick;
	DIR *d = opendir("/proc/self/fd");
	if (d != NULL) {
		long k = 0;
		for (struct dirent *e; (e = readdir(d)) != NULL;)
			k += e->d_name[0] != '.';
		closedir(d);
		p->open_fds = (double)(k - 1); /* the directory's own */
	}
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
		p->max_fds = rl.rlim_cur == RLIM_INFINITY ? INFINITY : (double)rl.rlim_cur;
	return true;
#else
	return false;
#endif
}

/* ---- the page ------------------------------------------------------------------------- */

/* Where the page goes: buf[0..cap), and the length of everything, fitting or not. */
struct sink {
	char *buf;
	size_t cap, len;
};

static void put(struct sink *k, const char *s, size_t n)
{
	if (k->len < k->cap) {
		size_t room = k->cap - k->len;
		memcpy(k->buf + k->len, s, n < room ? n : room);
	}
	k->len += n;
}

static void puts_(struct sink *k, const char *s)
{
	put(k, s, strlen(s));
}

static void putf(struct sink *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct sink *k, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n > 0)
		put(k, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* s with \ and newline escaped, and " too in a label's value (quote). */
static void put_escaped(struct sink *k, const char *s, bool quote)
{
	for (; *s != '\0'; s++) {
		if (*s == '\\')
			puts_(k, "\\\\");
		else if (*s == '\n')
			puts_(k, "\\n");
		else if (*s == '"' && quote)
			puts_(k, "\\\"");
		else
			put(k, s, 1);
	}
}

/* A float as Prometheus reads it: +Inf, -Inf, NaN, or the shortest digits that do. */
static void put_double(struct sink *k, double v)
{
	if (isnan(v))
		puts_(k, "NaN");
	else if (isinf(v))
		puts_(k, v > 0 ? "+Inf" : "-Inf");
	else
		putf(k, "%.15g", v);
}

static void put_family_head(struct sink *k, const char *name, const char *help, const char *type)
{
	puts_(k, "# HELP ");
	puts_(k, name);
	put(k, " ", 1);
	put_escaped(k, help != NULL ? help : "", false);
	puts_(k, "\n# TYPE ");
	puts_(k, name);
	put(k, " ", 1);
	puts_(k, type);
	put(k, "\n", 1);
}

/* name{label="value",le="..."}: suffix after the name, le when le_set (NULL: +Inf). */
static void put_series(struct sink *k, const struct metric *m, const char *suffix, bool le_set,
                       const double *le)
{
	puts_(k, m->name);
	puts_(k, suffix);
	if (m->label == NULL && !le_set)
		return;
	put(k, "{", 1);
	if (m->label != NULL) {
		puts_(k, m->label);
		puts_(k, "=\"");
		put_escaped(k, m->label_value, true);
		put(k, "\"", 1);
	}
	if (le_set) {
		puts_(k, m->label != NULL ? ",le=\"" : "le=\"");
		if (le != NULL)
			put_double(k, *le);
		else
			puts_(k, "+Inf");
		put(k, "\"", 1);
	}
	put(k, "}", 1);
}

static void put_metric(struct sink *k, const struct metric *m)
{
	if (m->type != METRIC_HISTOGRAM) {
		put_series(k, m, "", false, NULL);
		putf(k, " %lld\n", (long long)m->value);
		return;
	}
	const struct metric_histogram *h = metric_histogram_of(m);
	uint64_t cum = 0;
	for (size_t i = 0; i <= h->nle; i++) {
		cum += h->counts[i];
		put_series(k, m, "_bucket", true, i < h->nle ? &h->le[i] : NULL);
		putf(k, " %llu\n", (unsigned long long)cum);
	}
	put_series(k, m, "_sum", false, NULL);
	put(k, " ", 1);
	put_double(k, h->sum);
	put(k, "\n", 1);
	put_series(k, m, "_count", false, NULL);
	putf(k, " %lld\n", (long long)m->value);
}

static const char *const type_names[] = {
        [METRIC_COUNTER] = "counter", [METRIC_GAUGE] = "gauge", [METRIC_HISTOGRAM] = "histogram"};

static void put_process(struct sink *k, const struct api_process *p)
{
	static const struct {
		const char *name, *type, *help;
		size_t off;
	} rows[] = {
	        {"process_cpu_seconds_total", "counter",
	         "user and system CPU time spent, in seconds",
	         offsetof(struct api_process, cpu_seconds)},
	        {"process_resident_memory_bytes", "gauge", "resident memory size, in bytes",
	         offsetof(struct api_process, rss_bytes)},
	        {"process_virtual_memory_bytes", "gauge", "virtual memory size, in bytes",
	         offsetof(struct api_process, vsize_bytes)},
	        {"process_start_time_seconds", "gauge",
	         "start time of the process since the Unix epoch, in seconds",
	         offsetof(struct api_process, start_time)},
	        {"process_open_fds", "gauge", "open file descriptors",
	         offsetof(struct api_process, open_fds)},
	        {"process_max_fds", "gauge", "the most file descriptors the process may open",
	         offsetof(struct api_process, max_fds)},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		double v;
		memcpy(&v, (const char *)p + rows[i].off, sizeof v);
		put_family_head(k, rows[i].name, rows[i].help, rows[i].type);
		puts_(k, rows[i].name);
		put(k, " ", 1);
		put_double(k, v);
		put(k, "\n", 1);
	}
}

size_t api_metrics_render(const struct metrics *r, const struct api_process *p, char *buf,
                          size_t cap)
{
	struct sink k = {.buf = buf, .cap = cap > 0 ? cap - 1 : 0};
	const char *family = NULL; /* the family of the lines so far (members are together) */
	for (const struct metric *m = metrics_first(r); m != NULL; m = m->next) {
		if (family == NULL || strcmp(family, m->name) != 0)
			put_family_head(&k, m->name, m->help, type_names[m->type]);
		family = m->name;
		put_metric(&k, m);
	}
	if (p != NULL)
		put_process(&k, p);
	if (cap > 0)
		buf[k.len < k.cap ? k.len : k.cap] = '\0';
	return k.len;
}
