#!/usr/bin/env python3
"""check_metrics.py - GET /metrics of the real bitarenad (--http), as Prometheus reads it.

 - The numbers move with what happens: two guests log in over TCP and play a game of
   tic-tac-toe to its end and begin a Tak game; the page's counts of logins, connections by
   transport, games started, finished and in progress by kind, moves, the journal's
   transactions (with their histograms of size, wait and fsync) and output bytes follow, and
   the TCP connections' gauge goes back to 0 when they leave.
 - The format: text/plain; version=0.0.4; one HELP and one TYPE per family, before its
   samples, which are together; histograms cumulative up to +Inf == _count; the standard
   process metrics; and `promtool check metrics` (Debian: prometheus) passes on it where it is
   installed (said otherwise).
 - Who may read it: by default loopback only; --metrics-from 192.0.2.0/24 answers 403
   ADDRESS_NOT_ALLOWED (JSON) to 127.0.0.1, --metrics-from 127.0.0.1/32,::1 lets it in, and
   a --metrics-from that does not parse stops bitarenad at start.

Skipped (exit 77) when bitarenad is built without WebSocket (no --http).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from apitest import Player, Server, play_out, start_game, wait_for  # noqa: E402

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$')


def scrape(srv):
    """The page: (headers, text, {(name, labels): value})."""
    st, h, body = srv.get('/metrics')
    assert st == 200, (st, body[:300])
    text = body.decode()
    values = {}
    for line in text.splitlines():
        if line.startswith('#') or not line:
            continue
        m = SAMPLE.match(line)
        assert m, f'not a sample line: {line!r}'
        values[(m.group(1), m.group(2) or '')] = float(m.group(3))
    return h, text, values


def check_format(text):
    """HELP and TYPE once per family, before its samples, which are together; histograms."""
    types, done, family = {}, set(), None
    for line in text.splitlines():
        if line.startswith('# HELP '):
            name = line.split()[2]
            assert name not in done and name != family, f'{name}: a second HELP'
            family = name
            continue
        if line.startswith('# TYPE '):
            _, _, name, typ = line.split()
            assert name == family and name not in types, f'{name}: TYPE without its HELP'
            types[name] = typ
            done.add(name)
            continue
        name = SAMPLE.match(line).group(1)
        base = re.sub(r'_(bucket|sum|count)$', '', name) if types.get(family) == 'histogram' \
            else name
        assert base == family, f'{name} outside its family ({family})'
    return types


def histogram(values, name):
    """A histogram's cumulative buckets [(le, count)], its sum and count."""
    buckets = sorted(((float('inf') if re.search(r'le="\+Inf"', k[1]) else
                       float(re.search(r'le="([^"]+)"', k[1]).group(1)), v)
                      for k, v in values.items() if k[0] == name + '_bucket'))
    counts = [c for _, c in buckets]
    assert counts == sorted(counts), f'{name}: buckets not cumulative: {buckets}'
    assert buckets[-1][0] == float('inf') and buckets[-1][1] == values[(name + '_count', '')]
    return buckets, values[(name + '_sum', '')], values[(name + '_count', '')]


def test_counts():
    srv = Server(['--cmd-rate', '100000', '--cmd-burst', '1000000'])
    try:
        h, text, v0 = scrape(srv)
        assert h['content-type'].startswith('text/plain; version=0.0.4'), h
        assert 'access-control-allow-origin' not in h, 'no CORS on /metrics'
        a, b = Player(srv, 'alice'), Player(srv, 'bob')
        g = start_game(a, b)
        moves = ['b2', 'a1', 'c3', 'a3', 'a2', 'c1', 'b1', 'c2', 'b3']
        over = play_out([a, b], g, moves=list(moves))
        assert over['result']['reason'] == 'line', over
        live = start_game(a, b, 'tak size=5')
        a.expect('state', game=live)
        h, text, v = scrape(srv)
        d = lambda name, labels='': v.get((name, labels), 0) - v0.get((name, labels), 0)
        assert d('bitarena_logins_total', '{as="guest"}') == 2
        assert v[('bitarena_connections', '{transport="tcp"}')] == 2
        assert v[('bitarena_connections', '{transport="http"}')] == 1  # this request
        assert d('bitarena_connections_accepted_total', '{transport="tcp"}') == 2
        assert d('bitarena_connections_accepted_total', '{transport="http"}') == 1
        assert d('bitarena_games_started_total') == 2
        assert d('bitarena_games_finished_total') == 1
        assert v[('bitarena_games_in_progress', '{kind="tak"}')] == 1
        assert v[('bitarena_games_in_progress', '{kind="ttt"}')] == 0
        assert d('bitarena_moves_total') == len(moves)
        assert d('bitarena_output_bytes_total') > 1000
        # the journal: two games begun, nine moves, one end, at least; each transaction seen
        # in its histograms (under --fsync always each commit is an fsync)
        batches = v[('bitarena_journal_batches_total', '')]
        assert d('bitarena_journal_batches_total') >= 1 and batches >= 1
        assert d('bitarena_journal_records_total') >= 2 + len(moves) + 1
        assert v[('bitarena_store_failures_total', '')] == 0
        _, total, n = histogram(v, 'bitarena_journal_batch_records')
        assert n == batches and total == v[('bitarena_journal_records_total', '')]
        _, wait, n = histogram(v, 'bitarena_journal_commit_seconds')
        assert n == batches and 0 < wait < 60 * n
        _, _, n = histogram(v, 'bitarena_journal_fsync_seconds')
        assert n == batches
        assert v[('process_resident_memory_bytes', '')] > 1 << 20
        assert v[('process_open_fds', '')] > 3
        assert v[('process_start_time_seconds', '')] > 1.5e9
        assert ('process_cpu_seconds_total', '') in v
        types = check_format(text)
        assert types['bitarena_journal_commit_seconds'] == 'histogram'
        assert types['bitarena_connections'] == 'gauge'
        assert types['bitarena_moves_total'] == 'counter'
        promtool = shutil.which('promtool')
        if promtool:
            r = subprocess.run([promtool, 'check', 'metrics'], input=text, text=True,
                               capture_output=True, timeout=60)
            assert r.returncode == 0, f'promtool check metrics: {r.stdout}{r.stderr}'
            print('  promtool check metrics: ok')
        else:
            print('  (no promtool: apt-get install prometheus; the format checked here only)')
        a.close()
        b.close()
        wait_for('the TCP gauge back to 0',
                 lambda: scrape(srv)[2][('bitarena_connections', '{transport="tcp"}')] == 0)
    finally:
        srv.stop()


def test_from():
    srv = Server(['--metrics-from', '192.0.2.0/24'])
    try:
        st, h, body = srv.get('/metrics')
        err = json.loads(body)
        assert st == 403 and err['type'] == 'error' and err['code'] == 'ADDRESS_NOT_ALLOWED', \
            (st, body)
        assert h['content-type'].startswith('application/json')
        st, _, _ = srv.get('/api/online')
        assert st == 200  # the API is not restricted
    finally:
        srv.stop()
    srv = Server(['--metrics-from', '127.0.0.1/32,::1'])
    try:
        assert srv.get('/metrics')[0] == 200
        assert srv.get('/metrics?x=1')[0] == 400
        assert srv.get('/metrics/x')[0] == 404
    finally:
        srv.stop()
    tmp = tempfile.mkdtemp(prefix='check_metrics-')
    try:
        r = subprocess.run([os.environ['BITARENAD'], '--listen', '127.0.0.1:0', '--http',
                            '127.0.0.1:0', '--data', os.path.join(tmp, 'd'), '--metrics-from',
                            '10.0.0.0/33'], capture_output=True, text=True, timeout=60)
        assert r.returncode != 0 and '--metrics-from' in r.stderr, (r.returncode, r.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    version = subprocess.run([os.environ['BITARENAD'], '--version'], capture_output=True,
                             text=True).stdout
    if not re.search(r'^built with:.*WebSocket', version, re.M):
        print('check_metrics: this build has no WebSocket (no --http): skipped')
        return 77
    for t in (test_counts, test_from):
        print(t.__name__, flush=True)
        t()
        print('ok  ', t.__name__, flush=True)
    print('check_metrics: all passed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
