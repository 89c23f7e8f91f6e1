"""apitest.py - the harness of the HTTP API's tests (check_api.py) and benchmark (bench/api):
the real bitarenad on free loopback ports (--listen for players, --http for the API) with a
fresh data directory, players on plain sockets speaking the protocol in JSON mode (they play
games to their end from the `legal` list of each state), and HTTP requests (whole answers,
or streams read line by line).

Waits are bounded (WAIT_S); the server is stopped with SIGTERM and must exit 0.
"""

import http.client
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time

WAIT_S = 20


def wait_for(what, fn, timeout=WAIT_S):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = fn()
        if v:
            return v
        time.sleep(0.02)
    raise AssertionError(f'timed out waiting for {what}')


class Server:
    """bitarenad on free ports with a data directory of its own (or data=DIR)."""

    def __init__(self, extra=(), data=None, binary=None):
        self.tmp = tempfile.mkdtemp(prefix='bitarena-api-')
        self.data = data or os.path.join(self.tmp, 'data')
        self.binary = binary or os.environ['BITARENAD']
        pf, hpf = os.path.join(self.tmp, 'port'), os.path.join(self.tmp, 'http-port')
        self.logpath = os.path.join(self.tmp, 'server.log')
        self.log = open(self.logpath, 'w')
        self.proc = subprocess.Popen(
            [self.binary, '--listen', '127.0.0.1:0', '--port-file', pf, '--http', '127.0.0.1:0',
             '--http-port-file', hpf, '--data', self.data, '--fast-hash', *extra],
            stdout=self.log, stderr=subprocess.STDOUT)
        read = lambda p: open(p).read().strip() if os.path.exists(p) else ''

        def up():
            if self.proc.poll() is not None:
                raise AssertionError('bitarenad exited:\n' + open(self.logpath).read())
            return read(pf) and read(hpf)
        wait_for('the server ports', up)
        self.port = int(read(pf))
        self.http_port = int(read(hpf))

    def stop(self, keep=False):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                rc = self.proc.wait(WAIT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                rc = 'hung'
        else:
            rc = self.proc.returncode
        self.log.close()
        if rc != 0:
            raise AssertionError(f'bitarenad exited {rc}:\n' + open(self.logpath).read()[-4000:])
        if not keep:
            shutil.rmtree(self.tmp, ignore_errors=True)

    # ---- HTTP ----------------------------------------------------------------------------

    def get(self, path, headers=None, method='GET'):
        """(status, headers dict (lower-case names), body bytes) of one request."""
        c = http.client.HTTPConnection('127.0.0.1', self.http_port, timeout=WAIT_S)
        c.request(method, path, headers=headers or {})
        r = c.getresponse()
        body = r.read()
        h = {k.lower(): v for k, v in r.getheaders()}
        c.close()
        return r.status, h, body

    def stream(self, path, headers=None):
        """An open streaming answer: (connection, response); read with response.readline()."""
        c = http.client.HTTPConnection('127.0.0.1', self.http_port, timeout=WAIT_S)
        c.request('GET', path, headers=headers or {})
        return c, c.getresponse()


class Player:
    """A protocol client in JSON mode on a plain socket."""

    def __init__(self, server, name, password=None, register=False):
        self.s = socket.create_connection(('127.0.0.1', server.port), timeout=WAIT_S)
        self.buf = b''
        self.name = name
        self.line()  # the welcome
        self.send('set format json')
        self.expect('ok')
        if register:
            self.send(f'register {name} {password}')
        elif password:
            self.send(f'login {name} {password}')
        else:
            self.send(f'login {name}')
        self.expect('ok')

    def send(self, line):
        self.s.sendall((line + '\n').encode())

    def line(self):
        while b'\n' not in self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                raise AssertionError(f'{self.name}: the server closed the connection')
            self.buf += chunk
        line, self.buf = self.buf.split(b'\n', 1)
        return line.decode()

    def msg(self):
        return json.loads(self.line())

    def expect(self, typ, **fields):
        """The next message of type typ (and the fields given), skipping others."""
        end = time.monotonic() + WAIT_S
        while time.monotonic() < end:
            m = self.msg()
            if m.get('type') == 'error' and typ != 'error':
                raise AssertionError(f'{self.name}: {m}')
            if m.get('type') == typ and all(m.get(k) == v for k, v in fields.items()):
                return m
        raise AssertionError(f'{self.name}: no {typ} {fields}')

    def close(self):
        self.s.close()


def start_game(a, b, kind='ttt'):
    """a seeks kind (a plays seat 0), b accepts: the game's id."""
    a.send(f'seek {kind} color=white')
    seek = a.expect('ok')
    b.send(f'accept {seek["seek"]["id"]}')
    start = b.expect('game_start')
    a.expect('game_start', game=start['game'])
    return start['game']


def play_out(players, game, moves=None, rng=None, stop_after=None):
    """Plays game to its end: the given moves, then random legal ones. The game_over."""
    rng = rng or random.Random(game)
    moves = list(moves or [])
    states = {p.name: p.expect('state', game=game) for p in players}
    n = 0
    while True:
        st = states[players[0].name]
        if st['over']:
            return players[0].expect('game_over', game=game)
        if stop_after is not None and n >= stop_after:
            return None
        seat = st['to_move'][0]
        mover = players[seat]
        mst = states[mover.name]
        mv = moves.pop(0) if moves else rng.choice(mst['legal'])
        mover.send(f'move {game} {mv}')
        n += 1
        for p in players:
            states[p.name] = p.expect('state', game=game, seq=st['seq'] + 1)
