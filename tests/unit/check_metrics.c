/*
 * check_metrics.c - the registry of counters and gauges (src/server/util/metrics.h):
 * metrics kept in the order they were registered with the values they are given, names
 * checked against Prometheus's rules and unique, a metric registered once.
 */
#include <check.h>

#include "check_main.h"
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

int main(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc = tcase_create("registry");
	tcase_add_test(tc, test_registry);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	return check_run(s);
}
