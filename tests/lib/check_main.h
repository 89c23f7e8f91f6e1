/*
 * check_main.h - the end of every Check suite's main(): run a suite with a
 * fresh runner, free it, and turn the failure count into an exit status.
 * Header-only; test code only.
 */
#ifndef BITARENA_TESTS_CHECK_MAIN_H
#define BITARENA_TESTS_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

/* Runs s (the runner takes it over and frees it); EXIT_SUCCESS when no test failed. */
static inline int check_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
