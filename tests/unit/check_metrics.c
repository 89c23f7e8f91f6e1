/*
 * check_metrics.c - the registry of counters, gauges and histograms
 * (src/server/util/metrics.h) and its page (src/server/api/api_metrics.h): metrics kept in
 * the order they were registered with the values they are given, names checked against
 * Prometheus's rules and unique, a metric registered once; families of labelled metrics kept
 * together; histograms' buckets (a value on a bound is in that bucket); the page in the text
 * exposition format, byte for byte, with its escaping; the networks of --metrics-from.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "server/api/api_metrics.h"
#include "server/util/metrics.h"

START_TEST(test_registry)
{
	struct metrics r;
	struct metric a, b, again;
	metric_init(&a, METRIC_COUNTER, "bitarena_a_total", "a's");
	metric_init(&b, METRIC_GAUGE, "bitarena:b", "b's");
	metric_init(&again, METRIC_GAUGE, "bitarena_a_total", "a name taken");
	metrics_init(&r);
	ck_assert_ptr_null(metrics_first(&r));
	ck_assert(metrics_register(&r, &a));
	ck_assert(metrics_register(&r, &b));
	ck_assert(!metrics_register(&r, &again)); /* the name is a's */
	ck_assert(!metrics_register(&r, &a));     /* once */
	ck_assert(!metrics_register(&r, &b));
	ck_assert_uint_eq(r.n, 2);
	metric_inc(&a);
	metric_add(&a, 41);
	metric_set(&b, 7);
	metric_add(&b, -9);
	const struct metric *m = metrics_first(&r);
	ck_assert_str_eq(m->name, "bitarena_a_total");
	ck_assert_int_eq(m->type, METRIC_COUNTER);
	ck_assert_int_eq(m->value, 42);
	m = m->next;
	ck_assert_str_eq(m->name, "bitarena:b");
	ck_assert_int_eq(m->value, -2);
	ck_assert_ptr_null(m->next);
	ck_assert_ptr_eq(metrics_find(&r, "bitarena:b"), &b);
	ck_assert_ptr_null(metrics_find(&r, "bitarena_c"));
}
END_TEST

START_TEST(test_names)
{
	static const char *const bad[] = {"", "9lives", "has space", "dash-ed", "é", "a.b"};
	struct metrics r;
	metrics_init(&r);
	struct metric m;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		metric_init(&m, METRIC_COUNTER, bad[i], "bad");
		ck_assert_msg(!metrics_register(&r, &m), "'%s' was taken", bad[i]);
	}
	metric_init(&m, METRIC_COUNTER, NULL, "no name");
	ck_assert(!metrics_register(&r, &m));
	ck_assert_uint_eq(r.n, 0);
	metric_init(&m, METRIC_COUNTER, "_:x9", "odd but valid");
	ck_assert(metrics_register(&r, &m));
	ck_assert_int_eq(m.value, 0);
}
END_TEST

START_TEST(test_families)
{
	struct metrics r;
	struct metric tcp, ws, plain, other, dup, gauge, badlabel, reserved;
	metrics_init(&r);
	metric_init_labelled(&tcp, METRIC_GAUGE, "conns", "connections", "transport", "tcp");
	metric_init(&plain, METRIC_COUNTER, "moves_total", "moves");
	metric_init_labelled(&ws, METRIC_GAUGE, "conns", NULL, "transport", "ws");
	metric_init_labelled(&other, METRIC_GAUGE, "moves_total", "a label", "kind", "tak");
	metric_init_labelled(&dup, METRIC_GAUGE, "conns", "again", "transport", "tcp");
	metric_init_labelled(&gauge, METRIC_COUNTER, "conns", "a counter", "transport", "http");
	metric_init_labelled(&badlabel, METRIC_GAUGE, "x", "x", "has-dash", "v");
	metric_init_labelled(&reserved, METRIC_GAUGE, "y", "y", "__name", "v");
	ck_assert(metrics_register(&r, &tcp));
	ck_assert(metrics_register(&r, &plain));
	ck_assert(metrics_register(&r, &ws));     /* after tcp, before plain */
	ck_assert(!metrics_register(&r, &other)); /* moves_total has no label */
	ck_assert(!metrics_register(&r, &dup));   /* tcp is taken */
	ck_assert(!metrics_register(&r, &gauge)); /* another type */
	ck_assert(!metrics_register(&r, &badlabel));
	ck_assert(!metrics_register(&r, &reserved));
	ck_assert_uint_eq(r.n, 3);
	const struct metric *m = metrics_first(&r);
	ck_assert_ptr_eq(m, &tcp);
	ck_assert_ptr_eq(m->next, &ws);
	ck_assert_ptr_eq(m->next->next, &plain);
	ck_assert_ptr_eq(r.tail, &plain);
	ck_assert_ptr_eq(metrics_find_member(&r, "conns", "ws"), &ws);
	ck_assert_ptr_null(metrics_find_member(&r, "conns", "http"));
	ck_assert_ptr_eq(metrics_find_member(&r, "moves_total", NULL), &plain);
	/* the last of a family at the tail: the tail moves */
	struct metric http;
	metric_init_labelled(&http, METRIC_GAUGE, "conns", NULL, "transport", "http");
	struct metrics r2;
	metrics_init(&r2);
	metric_init_labelled(&tcp, METRIC_GAUGE, "conns", "connections", "transport", "tcp");
	ck_assert(metrics_register(&r2, &tcp));
	ck_assert(metrics_register(&r2, &http));
	ck_assert_ptr_eq(r2.tail, &http);
}
END_TEST

START_TEST(test_histogram)
{
	static const double le[] = {0.001, 0.01, 0.1, 1};
	static const double unsorted[] = {1, 0.5};
	static const double inf[] = {1, INFINITY};
	struct metrics r;
	struct metric_histogram h, bad;
	metrics_init(&r);
	metric_histogram_init(&bad, "bad", "bad", unsorted, 2);
	ck_assert(!metrics_register(&r, &bad.m));
	metric_histogram_init(&bad, "bad", "bad", inf, 2); /* +Inf is the renderer's own */
	ck_assert(!metrics_register(&r, &bad.m));
	metric_histogram_init(&bad, "bad", "bad", le, 0);
	ck_assert(!metrics_register(&r, &bad.m));
	metric_histogram_init(&bad, "bad", "bad", le, METRIC_BUCKETS_MAX + 1);
	ck_assert(!metrics_register(&r, &bad.m));
	metric_histogram_init(&h, "wait_seconds", "waits", le, 4);
	ck_assert(metrics_register(&r, &h.m));
	metric_observe(&h, 0.001); /* on a bound: in that bucket (le: less or equal) */
	metric_observe(&h, 0.0005);
	metric_observe(&h, 0.05);
	metric_observe(&h, 1);
	metric_observe(&h, 7);
	ck_assert_uint_eq(h.counts[0], 2);
	ck_assert_uint_eq(h.counts[1], 0);
	ck_assert_uint_eq(h.counts[2], 1);
	ck_assert_uint_eq(h.counts[3], 1);
	ck_assert_uint_eq(h.counts[4], 1); /* above every bound */
	ck_assert_int_eq(h.m.value, 5);
	ck_assert_double_eq_tol(h.sum, 8.0515, 1e-12);
	char page[2048];
	size_t n = api_metrics_render(&r, NULL, page, sizeof page);
	ck_assert_uint_eq(n, strlen(page));
	ck_assert_str_eq(page, "# HELP wait_seconds waits\n"
	                       "# TYPE wait_seconds histogram\n"
	                       "wait_seconds_bucket{le=\"0.001\"} 2\n"
	                       "wait_seconds_bucket{le=\"0.01\"} 2\n"
	                       "wait_seconds_bucket{le=\"0.1\"} 3\n"
	                       "wait_seconds_bucket{le=\"1\"} 4\n"
	                       "wait_seconds_bucket{le=\"+Inf\"} 5\n"
	                       "wait_seconds_sum 8.0515\n"
	                       "wait_seconds_count 5\n");
}
END_TEST

/* The page byte for byte: families under one HELP and TYPE, escaping, the sizing pass. */
START_TEST(test_render)
{
	static const double le[] = {1, 2.5};
	struct metrics r;
	struct metric a, b, c, plain;
	struct metric_histogram h;
	metrics_init(&r);
	metric_init_labelled(&a, METRIC_GAUGE, "g", "back\\slash and\nnewline \"quoted\"", "k",
	                     "plain");
	metric_init_labelled(&b, METRIC_GAUGE, "g", NULL, "k", "a\"b\\c\nd");
	metric_init(&plain, METRIC_COUNTER, "c_total", NULL);
	metric_histogram_init(&h, "h", "hist", le, 2);
	h.m.label = "kind";
	h.m.label_value = "t\"ak";
	metric_init_labelled(&c, METRIC_GAUGE, "g", NULL, "k", "");
	ck_assert(metrics_register(&r, &a));
	ck_assert(metrics_register(&r, &plain));
	ck_assert(metrics_register(&r, &h.m));
	ck_assert(metrics_register(&r, &b));
	ck_assert(metrics_register(&r, &c));
	metric_set(&a, -3);
	metric_set(&b, 9000000000LL);
	metric_inc(&plain);
	metric_observe(&h, 2);
	static const char want[] = "# HELP g back\\\\slash and\\nnewline \"quoted\"\n"
	                           "# TYPE g gauge\n"
	                           "g{k=\"plain\"} -3\n"
	                           "g{k=\"a\\\"b\\\\c\\nd\"} 9000000000\n"
	                           "g{k=\"\"} 0\n"
	                           "# HELP c_total \n"
	                           "# TYPE c_total counter\n"
	                           "c_total 1\n"
	                           "# HELP h hist\n"
	                           "# TYPE h histogram\n"
	                           "h_bucket{kind=\"t\\\"ak\",le=\"1\"} 0\n"
	                           "h_bucket{kind=\"t\\\"ak\",le=\"2.5\"} 1\n"
	                           "h_bucket{kind=\"t\\\"ak\",le=\"+Inf\"} 1\n"
	                           "h_sum{kind=\"t\\\"ak\"} 2\n"
	                           "h_count{kind=\"t\\\"ak\"} 1\n";
	size_t n = api_metrics_render(&r, NULL, NULL, 0); /* the sizing pass */
	ck_assert_uint_eq(n, strlen(want));
	char *page = malloc(n + 1);
	ck_assert_uint_eq(api_metrics_render(&r, NULL, page, n + 1), n);
	ck_assert_str_eq(page, want);
	char small[10]; /* cut, NUL-terminated, the whole length told */
	ck_assert_uint_eq(api_metrics_render(&r, NULL, small, sizeof small), n);
	ck_assert_str_eq(small, "# HELP g ");
	free(page);
	/* the process's numbers follow, under their standard names */
	struct api_process p = {.cpu_seconds = 1.5,
	                        .start_time = 1700000000,
	                        .rss_bytes = 4096,
	                        .vsize_bytes = 8192,
	                        .open_fds = 7,
	                        .max_fds = INFINITY};
	struct metrics none;
	metrics_init(&none);
	char proc[2048];
	api_metrics_render(&none, &p, proc, sizeof proc);
	ck_assert_ptr_nonnull(strstr(proc, "# TYPE process_cpu_seconds_total counter\n"
	                                   "process_cpu_seconds_total 1.5\n"));
	ck_assert_ptr_nonnull(strstr(proc, "\nprocess_start_time_seconds 1700000000\n"));
	ck_assert_ptr_nonnull(strstr(proc, "\nprocess_resident_memory_bytes 4096\n"));
	ck_assert_ptr_nonnull(strstr(proc, "\nprocess_open_fds 7\n"));
	ck_assert_ptr_nonnull(strstr(proc, "\nprocess_max_fds +Inf\n"));
	ck_assert(api_metrics_process(&p)); /* Linux: /proc/self */
	ck_assert(p.rss_bytes > 0 && p.open_fds >= 3 && p.start_time > 1.5e9);
}
END_TEST

START_TEST(test_acl)
{
	struct api_metrics_acl acl;
	char why[200];
	ck_assert_int_eq(api_metrics_acl_parse(NULL, &acl, why, sizeof why), 0); /* loopback */
	ck_assert(api_metrics_acl_allows(&acl, "127.0.0.1"));
	ck_assert(api_metrics_acl_allows(&acl, "127.200.3.4"));
	ck_assert(api_metrics_acl_allows(&acl, "::ffff:127.0.0.1"));
	ck_assert(api_metrics_acl_allows(&acl, "::1"));
	ck_assert(!api_metrics_acl_allows(&acl, "128.0.0.1"));
	ck_assert(!api_metrics_acl_allows(&acl, "::2"));
	ck_assert(!api_metrics_acl_allows(&acl, "10.0.0.1"));
	ck_assert(!api_metrics_acl_allows(&acl, "localhost")); /* no address */
	ck_assert(!api_metrics_acl_allows(&acl, ""));
	ck_assert_int_eq(
	        api_metrics_acl_parse("10.1.2.0/23,2001:db8::/32,192.0.2.7", &acl, why, sizeof why),
	        0);
	ck_assert(api_metrics_acl_allows(&acl, "10.1.3.255"));
	ck_assert(!api_metrics_acl_allows(&acl, "10.1.4.0"));
	ck_assert(!api_metrics_acl_allows(&acl, "10.1.1.255"));
	ck_assert(api_metrics_acl_allows(&acl, "::ffff:10.1.2.9"));
	ck_assert(api_metrics_acl_allows(&acl, "2001:db8:ffff::1"));
	ck_assert(!api_metrics_acl_allows(&acl, "2001:db9::1"));
	ck_assert(api_metrics_acl_allows(&acl, "192.0.2.7"));
	ck_assert(!api_metrics_acl_allows(&acl, "192.0.2.8"));
	ck_assert(!api_metrics_acl_allows(&acl, "127.0.0.1"));
	ck_assert_int_eq(api_metrics_acl_parse("0.0.0.0/0,::/0", &acl, why, sizeof why), 0);
	ck_assert(api_metrics_acl_allows(&acl, "203.0.113.1"));
	ck_assert(api_metrics_acl_allows(&acl, "2001:db8::1"));
	static const char *const bad[] = {"",           "10.0.0.0/33", "::/129",  "10.0.0.0/",
	                                  "10.0.0.0/x", "10.0.0.0/-1", "a.b.c.d", "10.0.0.1,",
	                                  ",10.0.0.1",  "1.2.3.4/8x",  "1.2.3.4 "};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(api_metrics_acl_parse(bad[i], &acl, why, sizeof why) < 0,
		              "'%s' was taken", bad[i]);
	ck_assert_ptr_nonnull(strstr(why, "--metrics-from"));
	char many[512] = "";
	for (int i = 0; i <= API_METRICS_NETS; i++)
		snprintf(many + strlen(many), sizeof many - strlen(many), "%s10.0.0.%d",
		         i ? "," : "", i);
	ck_assert_int_lt(api_metrics_acl_parse(many, &acl, why, sizeof why), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc = tcase_create("registry");
	tcase_add_test(tc, test_registry);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_families);
	tcase_add_test(tc, test_histogram);
	tcase_add_test(tc, test_render);
	tcase_add_test(tc, test_acl);
	suite_add_tcase(s, tc);
	return check_run(s);
}
