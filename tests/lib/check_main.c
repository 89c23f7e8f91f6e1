/*
 * check_main.c - check_run(), the end of every suite's main() (check_main.h).
 */
#include <stdlib.h>

#include "check_main.h"

int check_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
