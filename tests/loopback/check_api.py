"""check_api.py - the HTTP API of a live bitarenad (PROTOCOL.md §14) against its description,
protocol/openapi.yaml: every endpoint is fetched over real HTTP while games are played over
the protocol, and every answer (each line of an NDJSON stream too) is validated against the
schema the file gives for its path, status and content type (jsonschema); the file itself is
checked by openapi-spec-validator where it is installed. Also: PTN archives parsed back by
the project's own reader (`bitarena replay`) and replayed to the recorded result; a game's
stream followed from its first state to its game_over; the TV switching to the next game; a
stalled stream reader bounded as a slow spectator while the game and a live reader go on;
bad requests answered 400 with JSON; the rate limit per address; CORS; and `bitarenad
export` / `bitarenad backup` on the store of a running server giving what the API gives.

Run by make check through check-api.sh (which finds a python3 with jsonschema and yaml, or
skips); by hand: BITARENAD=... BITARENA=... python3 tests/loopback/check_api.py [test ...].
"""

import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

import jsonschema
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from apitest import Player, Server, play_out, start_game, wait_for  # noqa: E402

SRCDIR = os.environ.get('BITARENA_SRCDIR',
                        os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
SPEC_PATH = os.path.join(SRCDIR, 'protocol', 'openapi.yaml')
FAST = ['--cmd-rate', '100000', '--cmd-burst', '1000000']  # tests that are not about the budget


class Spec:
    """protocol/openapi.yaml, and the validation of answers against it."""

    def __init__(self):
        self.doc = yaml.safe_load(open(SPEC_PATH))
        self.seen = set()  # (path template, status) validated

    def _resolve(self, obj):
        while '$ref' in obj:
            node = self.doc
            for part in obj['$ref'].lstrip('#/').split('/'):
                node = node[part]
            obj = node
        return obj

    def validate(self, template, status, headers, body):
        """Checks an answer of GET template against the file; the parsed JSON (or lines)."""
        op = self.doc['paths'][template]['get']
        resp = op['responses'].get(str(status))
        assert resp is not None, f'{template}: status {status} is not described'
        resp = self._resolve(resp)
        ctype = headers.get('content-type', '').split(';')[0].strip()
        cors = headers.get('access-control-allow-origin')
        if op.get('x-cors', True):
            assert cors == '*', f'{template}: no CORS header'
        else:
            assert cors is None, f'{template}: a CORS header'
        content = resp.get('content', {})
        assert ctype in content, f'{template} {status}: content type {ctype!r} not described'
        schema = {'allOf': [content[ctype]['schema']], 'components': self.doc['components']}
        v = jsonschema.Draft202012Validator(schema)
        if ctype == 'application/x-ndjson':
            out = [json.loads(line) for line in body.decode().splitlines()]
            for o in out:
                v.validate(o)
        elif ctype == 'application/json':
            out = json.loads(body)
            v.validate(out)
        else:
            out = body.decode()
            v.validate(out)
        self.seen.add((template, status))
        return out


SPEC = None


def get(srv, template, path=None, status=200, headers=None):
    """GET path (template with nothing to fill by default), validated: the parsed answer."""
    st, h, body = srv.get(path or template, headers)
    assert st == status, f'{path or template}: {st} (wanted {status}): {body[:300]!r}'
    return SPEC.validate(template, st, h, body)


class Reader(threading.Thread):
    """A stream read line by line in the background: lines (parsed), done when it ended."""

    def __init__(self, srv, path):
        super().__init__(daemon=True)
        self.conn, self.resp = srv.stream(path)
        assert self.resp.status == 200, f'{path}: {self.resp.status}'
        self.headers = {k.lower(): v for k, v in self.resp.getheaders()}
        self.lines = []
        self.ended = False
        self.start()

    def run(self):
        try:
            while True:
                line = self.resp.readline()
                if not line:
                    break
                self.lines.append(json.loads(line))
        except (OSError, ValueError):
            pass
        self.ended = True

    def close(self):
        self.conn.close()


def two_players(srv, register=False):
    if register:
        return (Player(srv, 'alice', 'alicepass', register=True),
                Player(srv, 'bob', 'bobpass1', register=True))
    return Player(srv, 'alice'), Player(srv, 'bob')


# ---- the tests ---------------------------------------------------------------------------------


def test_spec_file():
    """The file is a valid OpenAPI 3.1 document (where openapi-spec-validator is installed)."""
    try:
        from openapi_spec_validator import validate
    except ImportError:
        print('  (openapi-spec-validator not installed: the file is read, not checked)')
        return
    validate(SPEC.doc)


def test_every_endpoint():
    """Every endpoint, with games finished and one in progress, validated against the file."""
    srv = Server(FAST)
    try:
        a, b = two_players(srv, register=True)
        # a rated tic-tac-toe game won on a line, a timed Tak game played out, a resignation,
        # an aborted game
        a.send('seek ttt color=white rated=1')
        seek = a.expect('ok')
        b.send(f'accept {seek["seek"]["id"]}')
        g1 = b.expect('game_start')['game']
        a.expect('game_start', game=g1)
        over = play_out([a, b], g1, moves=['b2', 'a1', 'c3', 'a3', 'a2', 'c1', 'b1', 'c2', 'b3'])
        assert over['result']['reason'] == 'line', over
        g2 = start_game(a, b, 'tak size=3 time=5+2')
        play_out([a, b], g2)
        g3 = start_game(a, b)
        a.expect('state', game=g3)
        a.send(f'resign {g3}')
        a.expect('game_over', game=g3)
        g4 = start_game(a, b)
        a.send(f'abort {g4}')
        a.expect('game_over', game=g4)
        live = start_game(a, b, 'tak size=5')
        a.expect('state', game=live)
        b.expect('state', game=live)
        # the lists
        games = get(srv, '/api/games')
        assert [g['id'] for g in games] == [g4, g3, g2, g1], games
        assert games[3]['rated'] and games[3]['result'] == '1-0' and games[3]['winner'] == 0
        assert games[2]['time'] == {'base_ms': 300000, 'inc_ms': 2000}
        assert all('clock_ms' in m for m in games[2]['moves'])
        assert games[1]['reason'] == 'resign' and games[0]['status'] == 'aborted'
        assert all('seed' in g for g in games)
        ptn = get(srv, '/api/games.ptn')
        assert ptn.count('[Event ') == 4 and '{[%clk 0:0' in ptn, ptn
        assert get(srv, '/api/games', headers={'Accept': 'application/x-ptn'}) == ptn
        lv = get(srv, '/api/games/live')
        assert [g['id'] for g in lv['games']] == [live] and lv['count'] == 1, lv
        # one game
        one = get(srv, '/api/game/{id}', f'/api/game/{g2}')
        assert one == games[2], (one, games[2])
        rec = get(srv, '/api/game/{id}.ptn', f'/api/game/{g2}.ptn')
        assert rec in ptn and '[Clock "5:0 +2"]' in rec, rec
        inprog = get(srv, '/api/game/{id}', f'/api/game/{live}')
        assert inprog['status'] == 'in_progress' and 'seed' not in inprog, inprog
        # people
        u = get(srv, '/api/user/{name}', '/api/user/ALICE')
        assert u['name'] == 'alice' and u['registered'] and u['online'] and u['playing'] == [live]
        won = 1 + (games[2]['winner'] == 0)  # the line, and the Tak game when alice won it
        draws = int(games[2]['winner'] is None)
        assert u['counts'] == {'games': 3, 'rated': 1, 'wins': won, 'losses': 3 - won - draws,
                               'draws': draws}, u
        assert [r['kind'] for r in u['ratings']] == ['ttt'] and u['ratings'][0]['rating'] > 1500
        # the rated game keeps both ratings after it (the history's points); others none
        assert games[3]['ratings'] == [u['ratings'][0]['rating'],
                                       get(srv, '/api/user/{name}', '/api/user/bob')['ratings'][0]['rating']]
        assert games[3]['ratings'][1] < 1500 and all('ratings' not in g for g in games[:3])
        r = get(srv, '/api/ratings/{kind}', '/api/ratings/ttt')
        assert [x['name'] for x in r['ratings']] == ['alice', 'bob'], r
        r = get(srv, '/api/ratings/{kind}', '/api/ratings/ttt?max=1')
        assert len(r['ratings']) == 1
        assert get(srv, '/api/ratings/{kind}', '/api/ratings/tak')['ratings'] == []
        on = get(srv, '/api/online')
        assert sorted(x['name'] for x in on['users']) == ['alice', 'bob'], on
        # the streams of the game in progress
        st = Reader(srv, f'/api/stream/game/{live}')
        tv = Reader(srv, '/api/tv')
        wait_for('the first states', lambda: len(st.lines) >= 1 and len(tv.lines) >= 2)
        a.send(f'resign {live}')
        wait_for('the streams to end', lambda: st.ended)
        wait_for('the TV game_over', lambda: any(x['type'] == 'game_over' for x in tv.lines))
        for rd, tmpl in ((st, '/api/stream/game/{id}'), (tv, '/api/tv')):
            body = b''.join(json.dumps(x).encode() + b'\n' for x in rd.lines)
            SPEC.validate(tmpl, 200, rd.headers, body)
        assert tv.lines[0] == {'type': 'featured', 'game': live, 'kind': 'tak', 'players': [
            {'name': 'alice', 'registered': True, 'present': True},
            {'name': 'bob', 'registered': True, 'present': True}]}, tv.lines[0]
        st.close()
        tv.close()
        # every error of the file's
        get(srv, '/api/games', '/api/games?max=0', 400)
        get(srv, '/api/games.ptn', '/api/games.ptn?moves=false', 400)
        get(srv, '/api/games/live', '/api/games/live?x=1', 400)
        get(srv, '/api/game/{id}', '/api/game/0', 400)
        get(srv, '/api/game/{id}', '/api/game/999999', 404)
        get(srv, '/api/game/{id}.ptn', '/api/game/999999.ptn', 404)
        get(srv, '/api/game/{id}.ptn', '/api/game/x.ptn', 400)
        get(srv, '/api/user/{name}', '/api/user/nobody', 404)
        get(srv, '/api/user/{name}', '/api/user/no!body', 400)
        get(srv, '/api/ratings/{kind}', '/api/ratings/chess', 404)
        get(srv, '/api/ratings/{kind}', '/api/ratings/ttt?max=500', 400)
        get(srv, '/api/online', '/api/online?all=1', 400)
        get(srv, '/api/stream/game/{id}', f'/api/stream/game/{live + 100}', 404)
        get(srv, '/api/stream/game/{id}', '/api/stream/game/-1', 400)
        get(srv, '/api/tv', '/api/tv?game=1', 400)
        page = get(srv, '/metrics')
        assert '\nbitarena_moves_total ' in page and '\nbitarena_games_finished_total ' in page
        get(srv, '/metrics', '/metrics?x=1', 400)
        for p in (SPEC.doc['paths']):
            assert (p, 200) in SPEC.seen, f'{p} was not fetched'
        for x in (a, b):
            x.close()
    finally:
        srv.stop()


def test_stream_whole_game():
    """A stream follows a Tak game from its first state to its game_over, in order."""
    srv = Server(FAST)
    try:
        a, b = two_players(srv)
        g = start_game(a, b, 'tak size=4')
        rd = Reader(srv, f'/api/stream/game/{g}')
        wait_for('the first state', lambda: rd.lines)
        over = play_out([a, b], g)
        wait_for('the end of the stream', lambda: rd.ended)
        states = [x for x in rd.lines if x['type'] == 'state']
        assert rd.lines[-1] == over, (rd.lines[-1], over)
        assert [s['seq'] for s in states] == list(range(1, len(states) + 1)), states
        assert states[-1]['over'] and states[-1]['ply'] == len(states) - 1
        assert all(s['seat'] is None and 'legal' not in s or s['seat'] is None for s in states)
        stored = get(srv, '/api/game/{id}', f'/api/game/{g}')
        assert [m['move'] for m in stored['moves']] == [s['last_move'] for s in states[1:]]
        # a game over already (kept in memory): its last state and its end, then the end
        st, h, body = srv.get(f'/api/stream/game/{g}')
        lines = SPEC.validate('/api/stream/game/{id}', st, h, body)
        assert [x['type'] for x in lines] == ['state', 'game_over'] and lines[1] == over
        a.close()
        b.close()
    finally:
        srv.stop()


def test_tv_switches():
    """The TV shows the best-rated game, then the next one when it ends."""
    srv = Server(FAST)
    try:
        a, b = two_players(srv, register=True)
        c, d = Player(srv, 'carl'), Player(srv, 'dora')
        guests = start_game(c, d)
        accounts = start_game(a, b)
        tv = Reader(srv, '/api/tv')
        wait_for('a featured game', lambda: tv.lines)
        assert tv.lines[0]['game'] == accounts, tv.lines  # accounts rate above guests (0)
        a.send(f'resign {accounts}')
        wait_for('the next featured game',
                 lambda: any(x['type'] == 'featured' and x['game'] == guests for x in tv.lines))
        kinds = [x['type'] for x in tv.lines]
        i = kinds.index('game_over')
        assert kinds[i + 1] == 'featured' and kinds[i + 2] == 'state', kinds
        c.send(f'resign {guests}')
        wait_for('its end', lambda: tv.lines[-1]['type'] == 'game_over')
        later = start_game(d, c)
        wait_for('a game featured again, once there is one',
                 lambda: any(x['type'] == 'featured' and x['game'] == later for x in tv.lines))
        body = b''.join(json.dumps(x).encode() + b'\n' for x in tv.lines)
        SPEC.validate('/api/tv', 200, tv.headers, body)
        tv.close()
        for p in (a, b, c, d):
            p.close()
    finally:
        srv.stop()


def split_archive(text):
    """The records of a PTN archive (each starts with its Event tag)."""
    parts = re.split(r'\n(?=\[Event )', text.strip('\n'))
    return [p.strip('\n') + '\n' for p in parts if p.strip()]


def test_ptn_replays():
    """Every record of /api/games.ptn is read back by `bitarena replay` to the same result."""
    srv = Server(FAST)
    tmp = tempfile.mkdtemp(prefix='bitarena-ptn-')
    try:
        a, b = two_players(srv)
        for i in range(6):
            g = start_game(a, b, 'tak size=5 time=10+1' if i % 2 else 'tak size=4')
            play_out([a, b], g)
        g = start_game(a, b, 'mnk m=5 n=5 k=4')
        play_out([a, b], g)
        archive = get(srv, '/api/games.ptn', '/api/games.ptn?kind=tak')
        records = split_archive(archive)
        assert len(records) == 6, archive
        by_id = {g['id']: g for g in get(srv, '/api/games')}
        replayed = 0
        for rec in records + split_archive(get(srv, '/api/games.ptn', '/api/games.ptn?kind=mnk')):
            gid = int(re.search(r'\[Event "bitarena game (\d+)"\]', rec).group(1))
            path = os.path.join(tmp, f'{gid}.ptn')
            open(path, 'w').write(rec)
            out = subprocess.run([os.environ['BITARENA'], 'replay', '--quiet', path],
                                 capture_output=True, text=True, timeout=60)
            assert out.returncode == 0, f'{rec}\n{out.stdout}\n{out.stderr}'
            g = by_id[gid]
            assert f'{len(g["moves"])} moves' in out.stdout, out.stdout
            if g['reason'] not in ('resign', 'timeout', 'abandoned', 'agreement', 'abort'):
                assert f'result: {g["result"]} ({g["reason"]})' in out.stdout, (rec, out.stdout)
                assert 'note: the record says' not in out.stdout
            if g['time'] is not None:
                clocks = re.findall(r'\{\[%clk (\d+):(\d\d):(\d\d)\.(\d)\]\}', rec)
                assert len(clocks) == len(g['moves']), rec
                for (h, m, s, t), mv in zip(clocks, g['moves']):
                    ms = ((int(h) * 60 + int(m)) * 60 + int(s)) * 1000 + int(t) * 100
                    assert ms == mv['clock_ms'][mv['seat']] // 100 * 100, (rec, mv)
            replayed += 1
        assert replayed == 7
        a.close()
        b.close()
    finally:
        srv.stop()
        subprocess.run(['rm', '-rf', tmp])


def test_filters_and_pages():
    """user, kind, rated, since, until, max and moves select what they say, over pages."""
    srv = Server(FAST)
    try:
        a, b = two_players(srv)
        c = Player(srv, 'carl')
        ids = []
        for i in range(120):  # more than a page (100)
            x, y = (a, b) if i % 3 else (a, c)
            g = start_game(x, y)
            x.expect('state', game=g)
            x.send(f'resign {g}')
            x.expect('game_over', game=g)
            ids.append(g)
        t = start_game(b, c, 'tak size=3')
        play_out([b, c], t)
        games = get(srv, '/api/games')
        assert [g['id'] for g in games] == [t] + ids[::-1]
        assert [g['id'] for g in get(srv, '/api/games', '/api/games?max=101')] == \
            [t] + ids[::-1][:100]
        carl = get(srv, '/api/games', '/api/games?user=CARL&moves=false')
        assert [g['id'] for g in carl] == [t] + [x for i, x in enumerate(ids) if i % 3 == 0][::-1]
        assert all('moves' not in g for g in carl)
        assert [g['id'] for g in get(srv, '/api/games', '/api/games?kind=tak')] == [t]
        assert get(srv, '/api/games', '/api/games?rated=true') == []
        mid = games[60]['ended']
        since = get(srv, '/api/games', f'/api/games?since={mid}')
        until = get(srv, '/api/games', f'/api/games?until={mid - 1}')
        assert len(since) + len(until) == len(games) and all(g['ended'] >= mid for g in since)
        assert get(srv, '/api/games', '/api/games?since=2000-01-01&until=2000-01-02') == []
        assert len(get(srv, '/api/games', '/api/games?since=2000-01-01T00:00:00Z')) == 121
        for p in (a, b, c):
            p.close()
    finally:
        srv.stop()


def test_bad_requests():
    """Huge query strings, unknown parameters, negative ranges, wrong types: 400 with JSON."""
    srv = Server(FAST)
    try:
        bad = [
            ('/api/games?' + 'x' * 3000, 'BAD_ARGS'),
            ('/api/games?user=' + 'a' * 900, 'BAD_ARGS'),
            ('/api/games?players=alice', 'BAD_ARGS'),
            ('/api/games?max=-1', 'BAD_ARGS'),
            ('/api/games?max=0', 'BAD_ARGS'),
            ('/api/games?max=99999999999', 'BAD_ARGS'),
            ('/api/games?since=-5', 'BAD_ARGS'),
            ('/api/games?since=20&until=10', 'BAD_ARGS'),
            ('/api/games?until=2026-13-01', 'BAD_ARGS'),
            ('/api/games?rated=maybe', 'BAD_ARGS'),
            ('/api/games?user=ab&user=cd', 'BAD_ARGS'),
            ('/api/games?max=', 'BAD_ARGS'),
            ('/api/games?kind=chess', 'UNKNOWN_GAME'),
            ('/api/games?user=no%20one', 'BAD_NAME'),
        ]
        for path, code in bad:
            e = get(srv, '/api/games', path, 400)
            assert e['code'] == code, (path, e)
        st, h, body = srv.get('/api/nothing/here')
        assert st == 404 and json.loads(body)['code'] == 'UNKNOWN_COMMAND', (st, body)
        st, h, body = srv.get('/api/games', method='POST')
        assert st == 405 and json.loads(body)['code'] == 'UNKNOWN_COMMAND' and \
            'GET' in h['allow'], (st, h, body)
        st, h, body = srv.get('/api/games', method='DELETE')
        assert st == 405
        # the server is unharmed
        assert get(srv, '/api/online')['count'] == 0
    finally:
        srv.stop()


def test_cors_preflight():
    """A preflight from another origin is allowed read-only GETs."""
    srv = Server(FAST)
    try:
        st, h, body = srv.get('/api/games', {'Origin': 'https://example.org',
                                             'Access-Control-Request-Method': 'GET'}, 'OPTIONS')
        assert st == 204 and body == b'', (st, body)
        assert h['access-control-allow-origin'] == '*'
        assert h['access-control-allow-methods'] == 'GET, OPTIONS'
        st, h, body = srv.get('/api/online', {'Origin': 'https://example.org'})
        assert st == 200 and h['access-control-allow-origin'] == '*'
    finally:
        srv.stop()


def test_rate_limit():
    """The command budget per address: past the burst, 429 with the wait, for any endpoint."""
    srv = Server(['--cmd-rate', '1', '--cmd-burst', '10'])
    try:
        get(srv, '/api/online')  # 5
        get(srv, '/api/online')  # 10: the bucket is empty
        e = get(srv, '/api/online', status=429)
        assert e['code'] == 'RATE_LIMITED' and e['retry_after_ms'] > 0 and e['cost'] == 5, e
        st, h, body = srv.get('/api/games')
        assert st == 429 and int(h['retry-after']) >= 1, (st, h)
        st, h, body = srv.get('/api/nowhere')  # even a 404 costs 1
        assert st == 429
        time.sleep(2.2)  # two tokens back: a stream costs 2
        st, h, body = srv.get('/api/stream/game/1')
        assert st == 404, (st, body)
    finally:
        srv.stop()


def test_stalled_reader():
    """A stream whose reader stops reading is bounded as a slow spectator is (coalesced, then
    dropped past --out-soft-seconds) while the game and a live reader go on."""
    srv = Server(FAST + ['--out-cap', '2048', '--out-soft-seconds', '2', '--sndbuf', '4096'])
    try:
        a, b = two_players(srv)
        g = start_game(a, b, 'tak size=6')
        live = Reader(srv, f'/api/stream/game/{g}')
        stalled = socket.socket()
        stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        stalled.connect(('127.0.0.1', srv.http_port))
        stalled.sendall(f'GET /api/stream/game/{g} HTTP/1.1\r\nHost: x\r\n\r\n'.encode())
        wait_for('the live reader', lambda: live.lines)
        t0 = time.monotonic()
        over = play_out([a, b], g, stop_after=150)
        time.sleep(2.5)  # past --out-soft-seconds above the cap
        if over is None:
            a.send(f'resign {g}')
            a.expect('game_over', game=g)
        assert time.monotonic() - t0 < 20, 'the game was held up'
        wait_for('the live stream to end', lambda: live.ended)
        states = [x for x in live.lines if x['type'] == 'state']
        assert [x['seq'] for x in states] == list(range(1, len(states) + 1)), states
        assert len(states) == states[-1]['ply'] + 1 and len(states) > 60, len(states)
        assert live.lines[-1]['type'] == 'game_over'
        stalled.settimeout(5)
        got = b''
        try:
            while True:
                chunk = stalled.recv(65536)
                if not chunk:
                    break
                got += chunk
        except OSError:
            pass
        body = got.split(b'\r\n\r\n', 1)[1] if b'\r\n\r\n' in got else b''
        lines = []
        for x in body.split(b'\n'):
            try:
                lines.append(json.loads(x))
            except ValueError:  # the last line cut short where the server dropped it
                pass
        sseqs = [x['seq'] for x in lines if x.get('type') == 'state']
        dropped = not any(x.get('type') == 'game_over' for x in lines)
        coalesced = sseqs != list(range(1, len(sseqs) + 1))
        assert dropped or coalesced, f'the stalled reader got every state: {sseqs}'
        assert len(got) < 400000, len(got)
        stalled.close()
        a.close()
        b.close()
    finally:
        srv.stop()


def test_export_and_backup():
    """bitarenad export and backup on a running server's store give what the API gives."""
    srv = Server(FAST)
    try:
        a, b = two_players(srv)
        for kind in ('ttt', 'tak size=3 time=3+0', 'ttt'):
            play_out([a, b], start_game(a, b, kind))
        bd = os.environ['BITARENAD']
        run = lambda *args: subprocess.run([bd, *args], capture_output=True, timeout=60)
        nd = run('export', '--data', srv.data)
        assert nd.returncode == 0 and b'3 games exported' in nd.stderr, nd
        assert nd.stdout == srv.get('/api/games')[2]
        pt = run('export', '--data', srv.data, '--format', 'ptn')
        assert pt.returncode == 0 and pt.stdout == srv.get('/api/games.ptn')[2], pt
        last = json.loads(nd.stdout.splitlines()[0])
        since = run('export', '--data', srv.data, '--since', str(last['ended']))
        assert since.stdout == nd.stdout.splitlines(keepends=True)[0], since
        assert run('export', '--data', srv.data, '--format', 'xml').returncode == 2
        assert run('export', '--data', srv.data, '--since', 'yesterday').returncode == 2
        assert run('export', '--data', os.path.join(srv.tmp, 'none')).returncode == 1
        dest = os.path.join(srv.tmp, 'copy.db')
        bk = run('backup', '--data', srv.data, dest)
        assert bk.returncode == 0, bk
        assert run('backup', '--data', srv.data, dest).returncode == 1  # never over a file
        copy = os.path.join(srv.tmp, 'copy')
        os.mkdir(copy)
        os.rename(dest, os.path.join(copy, 'bitarena.db'))
        assert run('export', '--data', copy).stdout == nd.stdout
        # the server went on meanwhile
        play_out([a, b], start_game(a, b))
        assert len(srv.get('/api/games')[2].splitlines()) == 4
        assert run('backup').returncode == 2  # no DEST
        a.close()
        b.close()
    finally:
        srv.stop()


def main(argv):
    global SPEC
    SPEC = Spec()
    tests = [(n, f) for n, f in globals().items() if n.startswith('test_') and callable(f)]
    if argv:
        tests = [(n, f) for n, f in tests if n in argv]
    passed = failed = 0
    for name, fn in tests:
        t0 = time.monotonic()
        try:
            fn()
            passed += 1
            print(f'PASS {name} ({time.monotonic() - t0:.1f} s)', flush=True)
        except Exception:  # noqa: BLE001 - any failure is the test's
            failed += 1
            print(f'FAIL {name}', flush=True)
            traceback.print_exc()
    print(f'api: {passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
