#!/bin/sh
# tests/valgrind.sh - runs one test under valgrind, with every program it starts (bitarenad,
# the bitarena tool, bots) traced too; any error or definite leak fails the test. Scripts and
# the browser are not traced. Use on a build without sanitizers:
#   make check LOG_COMPILER=$(pwd)/../tests/valgrind.sh
# (Check's forked tests are followed by valgrind anyway; timeouts are scaled for it.)
CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-10}
export CK_TIMEOUT_MULTIPLIER
case "$1" in
*.py | *.sh) exec "$@" ;;
esac
exec valgrind --quiet --trace-children=yes \
	--trace-children-skip='*python*,*chromium*,*chromedriver*,/bin/*,/sbin/*,/usr/*' --vgdb=no \
	--error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	--show-leak-kinds=definite --track-fds=no "$@"
