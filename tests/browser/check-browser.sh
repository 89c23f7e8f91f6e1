#!/bin/sh
# check-browser.sh - the browser tests (check_browser.py) under make check: the page served by
# bitarenad --http, driven in headless Chromium through Selenium. Skipped (exit 77, with the
# reason) when Debian's chromium, chromium-driver or python3-selenium is missing, or when this
# bitarenad was built without WebSocket (no --http: bitarenad --version says); ./run.sh test
# installs all three.
here=$(cd "$(dirname "$0")" && pwd)
chromium=${CHROMIUM:-/usr/bin/chromium}
driver=${CHROMEDRIVER:-/usr/bin/chromedriver}
for f in "$chromium" "$driver"; do
	if [ ! -x "$f" ]; then
		echo "SKIP: $f not found (apt-get install chromium chromium-driver)"
		exit 77
	fi
done
py=""
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import selenium' 2>/dev/null; then
		py=$p
		break
	fi
done
if [ -z "$py" ]; then
	echo "SKIP: no python3 with selenium (apt-get install python3-selenium)"
	exit 77
fi
if [ -z "${BITARENA_WEB_URL:-}" ] &&
	! "${BITARENAD:?BITARENAD is not set}" --version 2>&1 | grep -q '^built with:.*WebSocket'; then
	echo "SKIP: this bitarenad serves no web page (built without WebSocket: no --http)"
	exit 77
fi
BROWSER_SHOTS=${BROWSER_SHOTS:-$PWD/tests/browser-shots}
PYTHONDONTWRITEBYTECODE=1
export BROWSER_SHOTS PYTHONDONTWRITEBYTECODE
exec "$py" "$here/check_browser.py" "$@"
