/*
 * api_metrics.h - GET /metrics (PROTOCOL.md §14, protocol/openapi.yaml): the server's
 * registry of counters, gauges and histograms (util/metrics.h) and the process's own
 * numbers, in Prometheus's text exposition format 0.0.4, and who may read it
 * (--metrics-from). Pure: api.c answers the request with what these give; the unit tests
 * call them directly.
 *
 * The page: per family a "# HELP" line (its help, \ and newlines escaped) and a "# TYPE"
 * line, then its samples, name{label="value"} (the value's \, " and newline escaped) and the
 * number; a histogram's cumulative name_bucket{le="..."} lines, le="+Inf", name_sum and
 * name_count. Then, when asked (Linux: read from /proc/self), the standard process
 * metrics every Prometheus client library exports under the same names:
 * process_cpu_seconds_total, process_resident_memory_bytes, process_virtual_memory_bytes,
 * process_start_time_seconds, process_open_fds, process_max_fds. Its size follows the
 * registry, which is fixed once the server has started: nothing grows with the number of
 * connections or games.
 *
 * Who may read it: a list of networks, ADDR[/PREFIX] split by commas (IPv4 or IPv6; an
 * IPv4 peer written IPv4-mapped, ::ffff:a.b.c.d, is matched as IPv4). The default (no
 * --metrics-from) is loopback only, 127.0.0.0/8 and ::1: the page tells the load, the
 * number of players and the failures of the store, which a host shows to its own
 * monitoring, not to the world; Prometheus on another machine is let in by naming it.
 */
#ifndef BITARENA_SERVER_API_METRICS_H
#define BITARENA_SERVER_API_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "server/util/metrics.h"

#define API_METRICS_TYPE  "text/plain; version=0.0.4; charset=utf-8"
#define API_METRICS_NETS  16 /* networks of --metrics-from at most */
#define API_METRICS_LOCAL "127.0.0.0/8,::1"

/* The networks allowed; each address as IPv6 (IPv4 as ::ffff:a.b.c.d, its prefix + 96). */
struct api_metrics_acl {
	size_t n;
	struct api_metrics_net {
		unsigned char addr[16];
		unsigned prefix; /* 0..128 */
	} nets[API_METRICS_NETS];
};

/*
 * Parses text (ADDR[/PREFIX][,ADDR[/PREFIX]...]; NULL: API_METRICS_LOCAL) into acl. 0, or
 * -1 with a sentence in why (len bytes).
 */
int api_metrics_acl_parse(const char *text, struct api_metrics_acl *acl, char *why, size_t len);
/* Whether peer (an address as text: "192.0.2.7", "::ffff:192.0.2.7", "2001:db8::1") is in
   one of acl's networks; false for a text that is no address. */
bool api_metrics_acl_allows(const struct api_metrics_acl *acl, const char *peer);

/* The process's numbers, read once per page (both passes of the render see the same). */
struct api_process {
	double cpu_seconds; /* user + system */
	double start_time;  /* seconds since the Unix epoch */
	double rss_bytes, vsize_bytes;
	double open_fds, max_fds;
};

/* Reads them from /proc/self (Linux); false where there is no /proc (none is rendered). */
bool api_metrics_process(struct api_process *p);

/*
 * Renders r (and p's numbers; p NULL: none) into buf as snprintf does: at most cap bytes,
 * NUL-terminated when cap > 0; the length of the whole page is returned (call with cap 0
 * to size the buffer).
 */
size_t api_metrics_render(const struct metrics *r, const struct api_process *p, char *buf,
                          size_t cap);

#endif
