/*
 * loadstat.h - what the load tool measures besides the protocol: latency
 * samples and their percentiles, and a process's memory and CPU time read
 * from /proc (Linux), with the pid found from the port it listens on.
 *
 * Memory: struct ls_samples owns its array (ls_samples_free()).
 */
#ifndef BITARENA_CLIENTS_LOADSTAT_H
#define BITARENA_CLIENTS_LOADSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Durations in ns; ls_summarize() sorts them. */
struct ls_samples {
	int64_t *v;
	size_t n, cap;
	size_t lost; /* samples not kept for want of memory */
};

struct ls_summary {
	size_t n;
	double p50, p90, p99, p999, max, mean; /* ms */
};

void ls_add(struct ls_samples *s, int64_t ns);
/* Sorts the samples and fills out (all zero when there are none). */
void ls_summarize(struct ls_samples *s, struct ls_summary *out);
void ls_samples_free(struct ls_samples *s);
/* Nearest-rank percentile (0 < pct <= 100) of n sorted values. */
int64_t ls_percentile(const int64_t *sorted, size_t n, double pct);

/* A process as /proc shows it. */
struct ls_proc {
	long rss_kib;  /* VmRSS */
	long hwm_kib;  /* VmHWM: the peak RSS */
	long data_kib; /* VmData: heap and private mappings, touched or not */
	double cpu_s;  /* user + system time */
};

/* Reads /proc/<pid>/status and stat; false when the process is gone or unreadable. */
bool ls_proc_read(pid_t pid, struct ls_proc *out);

/*
 * The pid of the process that holds a listening TCP socket on port (IPv4 or
 * IPv6, any address): the socket's inode from /proc/net/tcp{,6}, then the
 * process whose /proc/<pid>/fd links to it (other users' processes are
 * only visible to root). 0 when none is found.
 */
pid_t ls_port_owner(int port);

/* The three load averages of /proc/loadavg (-1 when unreadable). */
void ls_loadavg(double out[3]);

#endif
