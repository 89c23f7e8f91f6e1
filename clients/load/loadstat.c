/*
 * loadstat.c - latency percentiles and the /proc readings of loadstat.h.
 */
#include "load/loadstat.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ls_add(struct ls_samples *s, int64_t ns)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 4096;
		int64_t *v = realloc(s->v, cap * sizeof *v);
		if (v == NULL) {
			s->lost++; /* a lost sample only thins the statistics */
			return;
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = ns;
}

void ls_samples_free(struct ls_samples *s)
{
	free(s->v);
	memset(s, 0, sizeof *s);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

int64_t ls_percentile(const int64_t *sorted, size_t n, double pct)
{
	if (n == 0)
		return 0;
	/* ceil(pct% of n): the smallest value with at least pct% at or below it (the
	 * epsilon keeps 99.9% of 1000 at 999 despite the binary fraction) */
	double r = pct / 100.0 * (double)n - 1e-9;
	size_t rank = (size_t)r;
	if ((double)rank < r)
		rank++;
	return sorted[rank == 0 ? 0 : rank > n ? n - 1 : rank - 1];
}

void ls_summarize(struct ls_samples *s, struct ls_summary *out)
{
	memset(out, 0, sizeof *out);
	if (s->n == 0)
		return;
	qsort(s->v, s->n, sizeof *s->v, cmp_i64);
	double sum = 0;
	for (size_t i = 0; i < s->n; i++)
		sum += (double)s->v[i];
	out->n = s->n;
	out->p50 = (double)ls_percentile(s->v, s->n, 50) / 1e6;
	out->p90 = (double)ls_percentile(s->v, s->n, 90) / 1e6;
	out->p99 = (double)ls_percentile(s->v, s->n, 99) / 1e6;
	out->p999 = (double)ls_percentile(s->v, s->n, 99.9) / 1e6;
	out->max = (double)s->v[s->n - 1] / 1e6;
	out->mean = sum / (double)s->n / 1e6;
}

bool ls_proc_read(pid_t pid, struct ls_proc *out)
{
	char path[64], line[512];
	memset(out, 0, sizeof *out);
	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return false;
	while (fgets(line, sizeof line, f) != NULL) {
		sscanf(line, "VmRSS: %ld", &out->rss_kib);
		sscanf(line, "VmHWM: %ld", &out->hwm_kib);
		sscanf(line, "VmData: %ld", &out->data_kib);
	}
	fclose(f);
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return false;
	size_t n = fread(line, 1, sizeof line - 1, f);
	fclose(f);
	line[n] = '\0';
	/* the name in parentheses may hold spaces: fields count from the last ')' */
	const char *p = strrchr(line, ')');
	unsigned long ut, st;
	if (p == NULL ||
	    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return false;
	out->cpu_s = (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
	return out->rss_kib > 0;
}

/* The inode of a socket listening on port in one /proc/net/tcp* table, or 0. */
static unsigned long listen_inode(const char *table, int port)
{
	FILE *f = fopen(table, "r");
	if (f == NULL)
		return 0;
	char line[512];
	unsigned long found = 0;
	if (fgets(line, sizeof line, f) == NULL) { /* the header */
		fclose(f);
		return 0;
	}
	while (found == 0 && fgets(line, sizeof line, f) != NULL) {
		char local[64];
		unsigned st;
		unsigned long inode;
		/* sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode */
		if (sscanf(line, " %*s %63s %*s %x %*s %*s %*s %*s %*s %lu", local, &st, &inode) !=
		    3)
			continue;
		const char *colon = strrchr(local, ':');
		if (st == 0x0A /* LISTEN */ && colon != NULL && strtol(colon + 1, NULL, 16) == port)
			found = inode;
	}
	fclose(f);
	return found;
}

/* True when one of pid's fds is socket:[inode]. */
static bool holds_inode(const char *pid, unsigned long inode)
{
	char path[64], want[64], link[64];
	snprintf(path, sizeof path, "/proc/%s/fd", pid);
	snprintf(want, sizeof want, "socket:[%lu]", inode);
	DIR *d = opendir(path);
	if (d == NULL)
		return false;
	bool yes = false;
	struct dirent *e;
	while (!yes && (e = readdir(d)) != NULL) {
		char fd[64 + 256 + 2];
		if (e->d_name[0] == '.')
			continue;
		snprintf(fd, sizeof fd, "%s/%s", path, e->d_name);
		ssize_t n = readlink(fd, link, sizeof link - 1);
		if (n > 0) {
			link[n] = '\0';
			yes = strcmp(link, want) == 0;
		}
	}
	closedir(d);
	return yes;
}

pid_t ls_port_owner(int port)
{
	unsigned long inode = listen_inode("/proc/net/tcp", port);
	if (inode == 0)
		inode = listen_inode("/proc/net/tcp6", port);
	if (inode == 0)
		return 0;
	DIR *d = opendir("/proc");
	if (d == NULL)
		return 0;
	pid_t pid = 0;
	struct dirent *e;
	while (pid == 0 && (e = readdir(d)) != NULL) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		if (holds_inode(e->d_name, inode))
			pid = (pid_t)strtol(e->d_name, NULL, 10);
	}
	closedir(d);
	return pid;
}

void ls_loadavg(double out[3])
{
	out[0] = out[1] = out[2] = -1;
	FILE *f = fopen("/proc/loadavg", "r");
	if (f == NULL)
		return;
	if (fscanf(f, "%lf %lf %lf", &out[0], &out[1], &out[2]) != 3)
		out[0] = out[1] = out[2] = -1;
	fclose(f);
}
