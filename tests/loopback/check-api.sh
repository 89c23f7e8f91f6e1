#!/bin/sh
# check-api.sh - the HTTP API's tests (check_api.py) under make check: a live bitarenad --http
# fetched over HTTP and its answers validated against protocol/openapi.yaml. Skipped (exit 77,
# with the reason) when no python3 has jsonschema and yaml (Debian: python3-jsonschema,
# python3-yaml; ./run.sh test installs them), or when this bitarenad was built without
# WebSocket (no --http, so no API: bitarenad --version says).
here=$(cd "$(dirname "$0")" && pwd)
py=""
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import jsonschema, yaml' 2>/dev/null; then
		py=$p
		break
	fi
done
if [ -z "$py" ]; then
	echo "SKIP: no python3 with jsonschema and yaml (apt-get install python3-jsonschema python3-yaml)"
	exit 77
fi
if ! "${BITARENAD:?BITARENAD is not set}" --version 2>&1 | grep -q '^built with:.*WebSocket'; then
	echo "SKIP: this bitarenad has no HTTP listener (built without WebSocket), so no API"
	exit 77
fi
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE
exec "$py" "$here/check_api.py" "$@"
