#!/usr/bin/env python3
"""
nemesis.py - a Jepsen-style fault-injection run against a bitarena cluster (issue 26), and the
checker of its history. Python 3 standard library only.

    tests/cluster/nemesis.py [--nodes 3] [--minutes N] [--games G] [--seed S] [--faults K,...]
                             [--interval S]

It starts, in a temporary directory on loopback: a PostgreSQL (initdb + pg_ctl), a
redis-server, and --nodes bitarenad nodes (--cluster --db --node). Each node reaches Redis and
PostgreSQL through a TCP proxy of its own that this script runs (FaultProxy), so that one node
can be cut off from either. Scripted clients play --games games at once (ttt, Tak 3x3, Tak
5x5, Xmas Rush in turn), the two players of a game on different nodes and a spectator on a
third; a game that ends is followed by another between the same players. Meanwhile the
nemesis injects one fault at a time, at random, and heals it (with --interval S, a fault
every S seconds or so instead, overlapping, each on a target no other fault holds then):

    pause        SIGSTOP of a node for 0.5-6 s (the takeover comes after ~2 s), then SIGCONT
    kill         kill -9 of a node, started again at once under its name
    kill-later   kill -9 of a node, started again 3-8 s later (its games taken over meanwhile)
    redis        kill -9 of redis-server, started again 1-5 s later (it keeps nothing)
    pg           PostgreSQL stopped (fast or immediate) for 1-5 s, then started
    part-redis   one node's Redis proxy blackholes (holds every byte) or drops (resets every
                 connection, refuses new ones) for 1-6 s
    part-pg      the same between one node and PostgreSQL

Every client keeps its history: moves sent (with the ply they were sent at), acknowledgements,
errors, every state seen (ply, last move, over), disconnections, `info` events. Clients that
lose their connection (or wait 30 s for a reply) reconnect to any node and log in again with
their password; a player whose game refuses it for 20 s does the same.

After the run the nemesis heals everything, the games go on for a while (every game must make
progress or end), then the clients stop and the checker reads the final record of every game
from PostgreSQL (moves, status) and proves:

    acked      every acknowledged move is in the final record at the ply it was played at
               (so exactly once and in order: a ply holds one move)
    states     every state shown to anyone (players, spectators) agrees with the final record:
               its last move is the record's move at its ply, a state shown over is a game over
               in the record at that ply; so spectators' streams are prefixes of the record
    stuck      every game still in progress acknowledged a move after the last fault healed
    grace      every player reached its game again (a state of it, or its end) within the
               grace after each disconnection or move; no game ended by abandonment
    restart    every node killed could be started again within RESTART_S (60 s; it exits at
               start while PostgreSQL or Redis is out of reach, and is started again every 2 s)
It prints a summary: faults injected by kind, games, moves acknowledged, violations, and
recovery times per fault kind (from the fault's heal until every game in progress has
acknowledged a move again). Exit status: 0 no violation, 1 violations, 77 skipped (no
redis-server, PostgreSQL or a build without them).

In `make check` (no arguments) it runs a short round: 45 s of every fault kind, a pause
first (the fault the store's fence at COMMIT is for), then the others in a random order.
"""

import argparse
import asyncio
import json
import os
import pwd
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

SKIP = 77
FAULTS = ['pause', 'kill', 'kill-later', 'redis', 'pg', 'part-redis', 'part-pg']
KINDS = [('ttt', ''), ('tak', 'size=3'), ('tak', 'size=5'), ('xmas', 'turn_ms=120000')]
PASSWORD = 'nemesis-pw'
REPLY_TIMEOUT = 30.0  # a command unanswered this long: the connection is given up
LOCKOUT_S = 20.0  # a game refusing its player this long: the player logs in again elsewhere
RESTART_S = 60.0  # a node that exits at start is started again every 2 s this long


def now():
    return time.monotonic()


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def log(*a):
    print('nemesis: %7.1f' % (now() - T0), *a, flush=True)


T0 = now()


async def answers(port, hello, expect, timeout):
    """Whether a server on port answers hello (nothing: its greeting) with a line that starts
    with expect within timeout seconds."""
    try:
        r, w = await asyncio.open_connection('127.0.0.1', port)
        w.write(hello)
        line = await asyncio.wait_for(r.readline(), timeout)
        w.close()
        return line.startswith(expect)
    except (OSError, asyncio.TimeoutError):
        return False


# ----------------------------------------------------------------------------------------------
# Services: PostgreSQL, Redis, the nodes, the proxies


def pg_bindir():
    env = os.environ.get('PG_BINDIR')
    cands = [env] if env else sorted(
        (os.path.join('/usr/lib/postgresql', v, 'bin') for v in os.listdir('/usr/lib/postgresql')
         if v.isdigit()), key=lambda p: int(p.split('/')[-2])) if os.path.isdir(
             '/usr/lib/postgresql') else []
    for d in reversed(cands):
        if all(os.access(os.path.join(d, p), os.X_OK) for p in ('initdb', 'pg_ctl', 'postgres')):
            return d
    return None


class Postgres:
    """A throw-away PostgreSQL in dir/pg: run as an unprivileged user when we are root."""

    def __init__(self, top):
        self.bin = pg_bindir()
        self.dir = os.path.join(top, 'pg')
        self.data = os.path.join(self.dir, 'data')
        self.port = free_port()
        self.user = None
        self.running = False
        if os.geteuid() == 0:
            for name in (os.environ.get('BITARENA_TEST_USER'), 'postgres', 'nobody'):
                try:
                    pw = pwd.getpwnam(name) if name else None
                except KeyError:
                    pw = None
                if pw and pw.pw_uid != 0:
                    self.user = pw
                    break
            if self.user is None:
                raise RuntimeError('running as root and no user (postgres, nobody) for PostgreSQL')

    def _run(self, argv, logname):
        kw = {}
        if self.user:
            kw = dict(user=self.user.pw_uid, group=self.user.pw_gid, extra_groups=[])
        with open(os.path.join(self.dir, logname), 'ab') as f:
            return subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT, cwd=self.dir,
                                  **kw).returncode

    def init(self):
        os.makedirs(self.dir)
        if self.user:
            os.chmod(os.path.dirname(self.dir), 0o755)
            os.chown(self.dir, self.user.pw_uid, self.user.pw_gid)
        rc = self._run([os.path.join(self.bin, 'initdb'), '-D', self.data, '-U', 'bitarena', '-A',
                        'trust', '-E', 'UTF8', '--locale=C', '-N'], 'initdb.log')
        if rc != 0:
            raise RuntimeError('initdb failed (%s/initdb.log)' % self.dir)
        with open(os.path.join(self.data, 'postgresql.conf'), 'a') as f:
            f.write("\nlisten_addresses = '127.0.0.1'\nport = %d\nunix_socket_directories = '%s'\n"
                    "fsync = off\nshared_buffers = 16MB\nmax_connections = 100\n" %
                    (self.port, self.dir))

    def ctl(self, *args):
        return self._run([os.path.join(self.bin, 'pg_ctl'), '-D', self.data, '-l',
                          os.path.join(self.dir, 'postgres.log'), '-s'] + list(args), 'pg_ctl.log')

    def start(self):
        if self.ctl('-w', '-t', '60', 'start') != 0:
            raise RuntimeError('PostgreSQL did not start (%s/postgres.log)' % self.dir)
        self.running = True

    def stop(self, mode='fast'):
        self.ctl('-m', mode, '-w', '-t', '60', 'stop')
        self.running = False

    def query(self, sql):
        """Rows of sql (tab-separated fields), through the Unix socket, not the proxies."""
        out = subprocess.run([os.path.join(self.bin, 'psql'), '-h', self.dir, '-p', str(self.port),
                              '-U', 'bitarena', '-d', 'postgres', '-At', '-F', '\t', '-c', sql],
                             capture_output=True, text=True, check=True).stdout
        return [line.split('\t') for line in out.splitlines() if line]


class Redis:
    def __init__(self, top):
        self.bin = shutil.which('redis-server')
        self.dir = os.path.join(top, 'redis')
        os.makedirs(self.dir)
        self.port = free_port()
        self.proc = None

    async def start(self):
        self.proc = await asyncio.create_subprocess_exec(
            self.bin, '--port', str(self.port), '--bind', '127.0.0.1', '--dir', self.dir, '--save',
            '', '--appendonly', 'no', '--protected-mode', 'no', '--logfile',
            os.path.join(self.dir, 'redis.log'), stdin=subprocess.DEVNULL)
        for _ in range(500):
            if await answers(self.port, b'PING\r\n', b'+PONG', 2):
                return
            await asyncio.sleep(0.02)
        raise RuntimeError('redis-server did not start')

    async def kill(self):
        if self.proc and self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()
        self.proc = None


class FaultProxy:
    """A TCP proxy from a port of its own to a service: 'pass' forwards, 'blackhole' holds
    every byte (a partition: connections stay, data waits, new connections hang), 'drop' resets
    every connection and refuses new ones."""

    def __init__(self, name, target_port):
        self.name = name
        self.target = target_port
        self.port = None
        self.mode = 'pass'
        self.flowing = asyncio.Event()
        self.flowing.set()
        self.conns = set()
        self.server = None

    async def start(self):
        self.server = await asyncio.start_server(self._client, '127.0.0.1', 0)
        self.port = self.server.sockets[0].getsockname()[1]

    def set(self, mode):
        self.mode = mode
        if mode == 'pass':
            self.flowing.set()
        else:
            self.flowing.clear()
        if mode == 'drop':
            for c in list(self.conns):
                for w in c:
                    if w is not None:
                        w.transport.abort()
            self.conns.clear()

    async def _client(self, reader, writer):
        if self.mode == 'drop':
            writer.transport.abort()
            return
        pair = [writer, None]
        self.conns.add(tuple(pair))
        await self.flowing.wait()
        try:
            ur, uw = await asyncio.open_connection('127.0.0.1', self.target)
        except OSError:
            writer.transport.abort()
            return
        if self.mode == 'drop':
            writer.transport.abort()
            uw.transport.abort()
            return
        self.conns.discard(tuple(pair))
        both = (writer, uw)
        self.conns.add(both)
        await asyncio.gather(self._pump(reader, uw, both), self._pump(ur, writer, both),
                             return_exceptions=True)
        self.conns.discard(both)

    async def _pump(self, src, dst, both):
        try:
            while True:
                await self.flowing.wait()
                data = await src.read(65536)
                if not data:
                    break
                await self.flowing.wait()  # read during a partition: held until it heals
                if both not in self.conns:
                    break
                dst.write(data)
                await dst.drain()
        except (OSError, ConnectionError):
            pass
        for w in both:
            w.transport.abort()


class Node:
    def __init__(self, run, i):
        self.run = run
        self.name = 'n%d' % (i + 1)
        self.port = free_port()
        self.proc = None
        self.paused = False
        self.redis_proxy = None
        self.pg_proxy = None
        self.log = os.path.join(run.dir, '%s.log' % self.name)

    def argv(self):
        a = self.run.args
        return [a.bitarenad, '--listen', '127.0.0.1:%d' % self.port,
                '--db', 'postgresql://bitarena@127.0.0.1:%d/postgres' % self.pg_proxy.port,
                '--cluster', 'redis://127.0.0.1:%d' % self.redis_proxy.port, '--node', self.name,
                '--cluster-beat-ms', str(a.beat_ms), '--grace-ms', str(int(a.grace * 1000)),
                '--fast-hash', '--cmd-rate', '0', '--login-limit', '0',
                '--login-limit-address', '0', '--login-limit-account', '0',
                '--register-limit', '0', '--log-level', 'info']

    async def start(self):
        """Starts the node; one that exits at start (PostgreSQL or Redis out of reach: it
        refuses to start without them) is started again every 2 s, as a service manager does
        (the package's unit: Restart=on-failure), for RESTART_S; still down then is a
        violation."""
        began = now()
        attempt = 0
        while True:
            attempt += 1
            try:
                return await self._start()
            except RuntimeError as e:
                self.run.start_failures.append(str(e))
                log('%s (attempt %d)' % (e, attempt))
                if now() - began > RESTART_S:
                    break
                await asyncio.sleep(2.0)
        self.run.unstartable.append('%s did not start in %d s (%d attempts) at %.1f s (%s)' %
                                    (self.name, RESTART_S, attempt, now() - T0, self.log))
        log(self.run.unstartable[-1])

    async def _start(self):
        f = open(self.log, 'ab')
        f.write(b'--- start %.1f\n' % (now() - T0))
        f.flush()
        self.proc = await asyncio.create_subprocess_exec(*self.argv(), stdin=subprocess.DEVNULL,
                                                         stdout=f, stderr=f)
        f.close()
        self.paused = False
        deadline = now() + 60
        while now() < deadline:
            if self.proc.returncode is not None:
                raise RuntimeError('%s exited at start (%s)' % (self.name, self.log))
            if await answers(self.port, b'', b'bitarenad', 5):
                return
            await asyncio.sleep(0.05)
        raise RuntimeError('%s did not listen within 60 s' % self.name)

    def alive(self):
        return self.proc is not None and self.proc.returncode is None

    async def kill(self):
        if self.alive():
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
            await self.proc.wait()
        self.paused = False

    def signal(self, sig):
        if self.alive():
            self.proc.send_signal(sig)
        self.paused = sig == signal.SIGSTOP


# ----------------------------------------------------------------------------------------------
# Clients


class Client:
    """One scripted connection (a player or a spectator) that reconnects to any node."""

    def __init__(self, run, name, home):
        self.run = run
        self.name = name
        self.home = home  # index of the node it prefers
        self.hist = []  # (t, event, fields...)
        self.reader = self.writer = None
        self.connected = asyncio.Event()
        self.changed = asyncio.Event()  # a state, an end, a connection
        self.pending = {}  # tag -> future
        self.ntag = 0
        self.states = {}  # game -> last state seen (dict)
        self.state_at = {}  # game -> when it came
        self.over = set()  # games seen over
        self.registered = False
        self.conn_no = 0
        self.watching = set()
        self.new_games = []  # (game, seat) from game_start not yet taken by its pair
        self.task = None
        self.connecting = False

    def rec(self, *ev):
        self.hist.append((round(now() - T0, 3),) + ev)

    def reconnect(self, why):
        """Gives up the connection and makes another (one at a time)."""
        self.drop(why)
        if not self.run.stopping and not self.connecting:
            asyncio.ensure_future(self.connect())

    async def connect(self):
        """Connects (home first, then the others) and logs in; retries until it works."""
        if self.connecting:
            return
        self.connecting = True
        try:
            await self._connect()
        finally:
            self.connecting = False

    async def _connect(self):
        nodes = self.run.nodes
        attempt = 0
        while True:
            idx = (self.home + attempt) % len(nodes) if attempt < len(nodes) else \
                self.run.crng.randrange(len(nodes))
            attempt += 1
            node = nodes[idx]
            try:
                r, w = await asyncio.wait_for(asyncio.open_connection('127.0.0.1', node.port), 5)
                welcome = await asyncio.wait_for(r.readline(), 10)
                if not welcome.startswith(b'bitarenad'):
                    raise OSError('no welcome')
            except (OSError, asyncio.TimeoutError):
                await asyncio.sleep(0.3 if attempt > len(nodes) else 0.05)
                continue
            self.reader, self.writer = r, w
            self.conn_no += 1
            self.task = asyncio.ensure_future(self._read(r, self.conn_no))
            self.rec('connect', node.name)
            ok = True
            for line in ('set format json', 'set seeks off',
                         ('register %s %s' if not self.registered else 'login %s %s') %
                         (self.name, PASSWORD)):
                rep = await self._cmd(line, timeout=10.0, wait_connected=False)
                if rep.get('type') != 'ok':
                    ok = False
                    break
                if line.startswith('login') or line.startswith('register'):
                    self.registered = True
            if not ok:
                self.rec('login_failed', node.name, rep.get('code'))
                self.drop('login failed')
                await asyncio.sleep(0.5)
                continue
            self.connected.set()
            self.changed.set()
            for g in sorted(self.watching):
                asyncio.ensure_future(self.watch(g))
            return

    def drop(self, why):
        """Gives up the connection: every command waiting is answered DISCONNECTED."""
        if self.writer is not None:
            self.writer.transport.abort()
        self.writer = None
        if self.connected.is_set():
            self.rec('disconnect', why)
        self.connected.clear()
        for fut in self.pending.values():
            if not fut.done():
                fut.set_result({'type': 'error', 'code': 'DISCONNECTED'})
        self.pending.clear()
        self.changed.set()

    async def _read(self, r, conn_no):
        while True:
            try:
                line = await r.readline()
            except (OSError, ValueError):
                line = b''
            if not line:
                break
            try:
                m = json.loads(line)
            except ValueError:
                continue
            self._msg(m)
        if conn_no == self.conn_no and not self.connecting:
            self.reconnect('closed')

    def _msg(self, m):
        t = m.get('type')
        if t in ('ok', 'error', 'pong') and 'id' in m:
            fut = self.pending.pop(m['id'], None)
            if fut and not fut.done():
                fut.set_result(m)
            return
        g = m.get('game')
        if t == 'state':
            old = self.states.get(g)
            # an older state (a lower seq: a paused ex-owner answering before it learnt the
            # game moved) is recorded and checked, but the newest one stays the view
            # (these games have no takebacks, so seq only grows)
            if old is None or (m.get('seq') or 0) >= (old.get('seq') or 0):
                self.states[g] = m
                self.state_at[g] = now()
            lm = m.get('last_move')
            self.rec('state', g, m.get('ply'), lm, bool(m.get('over')), m.get('seq'))
            if m.get('over'):
                self.over.add(g)
            self.changed.set()
        elif t == 'game_over':
            self.over.add(g)
            self.rec('game_over', g, (m.get('result') or {}).get('reason'))
            self.changed.set()
        elif t == 'game_start':
            self.rec('game_start', g, bool(m.get('resumed')))
            if not m.get('resumed'):
                self.new_games.append((g, m.get('seat')))
            self.changed.set()
        elif t == 'info':
            self.rec('info', g, m.get('event'))
            if m.get('event') == 'session_taken':
                pass  # the connection closes; we reconnect

    async def _cmd(self, line, timeout=REPLY_TIMEOUT, wait_connected=True):
        if wait_connected:
            try:
                await asyncio.wait_for(self.connected.wait(), timeout)
            except asyncio.TimeoutError:
                return {'type': 'error', 'code': 'DISCONNECTED'}
        if self.writer is None:
            return {'type': 'error', 'code': 'DISCONNECTED'}
        self.ntag += 1
        tag = 't%d' % self.ntag
        fut = asyncio.get_running_loop().create_future()
        self.pending[tag] = fut
        try:
            self.writer.write(('#%s %s\n' % (tag, line)).encode())
        except (OSError, AttributeError):
            pass
        try:
            return await asyncio.wait_for(asyncio.shield(fut), timeout)
        except asyncio.TimeoutError:
            self.rec('timeout', line)
            if wait_connected:
                self.reconnect('no reply in %d s' % timeout)
            return {'type': 'error', 'code': 'DISCONNECTED'}

    async def cmd(self, line):
        rep = await self._cmd(line)
        if rep.get('type') == 'error':
            self.rec('error', line, rep.get('code'))
        return rep

    async def watch(self, g):
        self.watching.add(g)
        while g in self.watching and g not in self.over and not self.run.stopping:
            rep = await self.cmd('watch %d' % g)
            if rep.get('type') == 'ok':
                return
            if rep.get('code') in ('NO_SUCH_GAME', 'GAME_OVER') and \
                    await self.run.ended_in_store(g):
                return
            await asyncio.sleep(1.0)

    def seat_of(self, g):
        return self.run.games[g]['players'].index(self.name)

    def my_turn(self, g, seat):
        st = self.states.get(g)
        if st is None or st.get('over') or g in self.over:
            return None
        if seat not in (st.get('to_move') or []) or not st.get('legal') or st.get('acted'):
            return None
        return st

    async def wait_change(self, timeout):
        self.changed.clear()
        try:
            await asyncio.wait_for(self.changed.wait(), timeout)
        except asyncio.TimeoutError:
            pass

    async def play(self, g, seat, rng):
        """Plays game g in seat until it is over (or the run stops moving)."""
        sent_ply = None  # the ply of the last move acknowledged,
        ack_at = 0.0  # and when: a state of that ply shown after it says the move is not in
        refused_since = None
        last_state = now()

        def fresh(st):
            return sent_ply is None or st['ply'] > sent_ply or self.state_at[g] > ack_at

        while not self.run.stop_moves:
            if g in self.over:
                return
            st = self.my_turn(g, seat)
            if st is not None and fresh(st):
                await asyncio.sleep(rng.uniform(*self.run.think))
                if self.run.stop_moves:
                    return
                st = self.my_turn(g, seat)
                if st is None or not fresh(st):
                    continue
                mv = rng.choice(st['legal'])
                ply = st['ply']
                self.rec('send', g, ply, mv)
                rep = await self.cmd('move %d %s' % (g, mv))
                if rep.get('type') == 'ok':
                    if isinstance(rep.get('ply'), int):  # where the move went (from a stale
                        ply = rep['ply'] - 1             # view: not where it was sent from)
                    self.rec('ack', g, ply, rep.get('move') or mv, bool(rep.get('pending')))
                    self.run.acked(g)
                    sent_ply = ply
                    ack_at = now()
                    refused_since = None
                    continue
                sent_ply = None
                await asyncio.sleep(0.5)
            else:
                before = len(self.hist)
                await self.wait_change(3.0)
                if any(e[1] in ('state', 'game_over') and e[2] == g for e in self.hist[before:]):
                    last_state = now()
                    refused_since = None
                    continue
                if now() - last_state < 3.0 or not self.connected.is_set():
                    continue
            # nothing new for a while, or an error: ask for the state
            rep = await self.cmd('refresh %d' % g)
            if rep.get('type') == 'ok':
                refused_since = None
                await self.wait_change(2.0)
                last_state = now()
                continue
            code = rep.get('code')
            if code in ('NOT_YOUR_GAME', 'NO_SUCH_GAME', 'GAME_OVER'):
                if await self.run.ended_in_store(g):
                    self.over.add(g)
                    self.rec('over_in_store', g)
                    return
                refused_since = refused_since or now()
                if now() - refused_since > LOCKOUT_S:
                    self.rec('lockout', g, code, round(now() - refused_since, 1))
                    self.run.lockouts.append((self.name, g, code))
                    refused_since = None
                    self.reconnect('locked out of game %d' % g)
            await asyncio.sleep(1.0)


# ----------------------------------------------------------------------------------------------
# The run


class Run:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)  # the nemesis's own: the faults follow the seed
        self.crng = random.Random(args.seed + 1)  # the clients'
        self.dir = tempfile.mkdtemp(prefix='nemesis.')
        self.nodes = []
        self.pg = None
        self.redis = None
        self.stopping = False
        self.stop_moves = False
        self.stop_new = False
        self.think = (0.1, 0.5)
        self.games = {}  # id -> {kind, players, spectator, started}
        self.last_ack = {}  # game -> time of its last acknowledgement
        self.faults = []  # dicts: kind, node, start, heal, recovery
        self.lockouts = []
        self.start_failures = []
        self.unstartable = []  # a node that could not be started again: a violation
        self.clients = []
        self.store_ended = {}

    def acked(self, g):
        self.last_ack[g] = now()

    async def ended_in_store(self, g):
        """Whether game g has ended in the store (psql on a thread: the proxies run on this
        loop and must never wait for it)."""
        try:
            rows = await asyncio.to_thread(self.pg.query,
                                           'SELECT status FROM games WHERE id = %d' % int(g))
        except (subprocess.CalledProcessError, ValueError):
            return False
        return bool(rows) and rows[0][0] != 'in_progress'

    async def setup(self):
        a = self.args
        self.pg = Postgres(self.dir)
        await asyncio.to_thread(self.pg.init)
        await asyncio.to_thread(self.pg.start)
        self.redis = Redis(self.dir)
        await self.redis.start()
        for i in range(a.nodes):
            n = Node(self, i)
            n.redis_proxy = FaultProxy(n.name + '-redis', self.redis.port)
            n.pg_proxy = FaultProxy(n.name + '-pg', self.pg.port)
            await n.redis_proxy.start()
            await n.pg_proxy.start()
            self.nodes.append(n)
        await self.nodes[0].start()  # the first one makes the schema
        await asyncio.gather(*(n.start() for n in self.nodes[1:]))
        if self.unstartable:
            raise RuntimeError(self.unstartable[0])
        log('%d nodes, Redis and PostgreSQL up in %s' % (a.nodes, self.dir))

    async def teardown(self):
        self.stopping = True
        for c in self.clients:
            c.drop('end')
        for n in self.nodes:
            await n.kill()
        if self.redis:
            await self.redis.kill()
        if self.pg and self.pg.running:
            await asyncio.to_thread(self.pg.stop, 'immediate')

    async def pair(self, i, a, b, s):
        kind, opts = KINDS[i % len(KINDS)]
        rng = random.Random(self.crng.random())
        while not self.stop_new:
            game = None
            rep = await a.cmd('seek %s color=first %s' % (kind, opts))
            if rep.get('type') == 'ok':
                sid = rep['seek']['id']
                rep = await b.cmd('accept %d' % sid)
                if rep.get('type') == 'ok':
                    game = rep['game']
                else:
                    await a.cmd('unseek %d' % sid)
            if game is None:
                # an accept whose answer was lost may have started a game all the same
                await asyncio.sleep(2.0)
                found = [g for g, seat in a.new_games if g not in self.games and seat == 0]
                if not found:
                    await asyncio.sleep(rng.uniform(0.5, 1.5))
                    continue
                game = found[0]
            a.new_games = [x for x in a.new_games if x[0] != game]
            b.new_games = [x for x in b.new_games if x[0] != game]
            self.games[game] = dict(kind=kind, opts=opts, players=[a.name, b.name],
                                    spectator=s.name, started=now())
            self.last_ack.setdefault(game, now())
            asyncio.ensure_future(s.watch(game))
            await asyncio.gather(a.play(game, 0, rng), b.play(game, 1, rng))
            s.watching.discard(game)

    # -- the nemesis --

    def targets(self, kind):
        """What fault kind would hold: a node (its process, or its proxy), Redis or PG."""
        if kind in ('redis', 'pg'):
            return [kind]
        return [(kind if kind.startswith('part-') else 'proc', n.name) for n in self.nodes]

    async def fault(self, kind, target=None):
        rng = self.rng
        node = rng.choice(self.nodes) if target is None or not isinstance(target, tuple) else \
            next(n for n in self.nodes if n.name == target[1])
        f = dict(kind=kind, node=None, start=now())
        if kind == 'pause':
            d = rng.uniform(0.5, 6.0)
            f.update(node=node.name, detail='%.1f s' % d)
            node.signal(signal.SIGSTOP)
            await asyncio.sleep(d)
            node.signal(signal.SIGCONT)
        elif kind in ('kill', 'kill-later'):
            d = 0 if kind == 'kill' else rng.uniform(3.0, 8.0)
            f.update(node=node.name, detail='down %.1f s' % d)
            await node.kill()
            await asyncio.sleep(d)
            await node.start()
        elif kind == 'redis':
            d = rng.uniform(1.0, 5.0)
            f.update(detail='down %.1f s' % d)
            await self.redis.kill()
            await asyncio.sleep(d)
            await self.redis.start()
        elif kind == 'pg':
            d = rng.uniform(1.0, 5.0)
            mode = rng.choice(['fast', 'immediate'])
            f.update(detail='%s, down %.1f s' % (mode, d))
            await asyncio.to_thread(self.pg.stop, mode)
            await asyncio.sleep(d)
            await asyncio.to_thread(self.pg.start)
        elif kind in ('part-redis', 'part-pg'):
            d = rng.uniform(1.0, 6.0)
            mode = rng.choice(['blackhole', 'drop'])
            proxy = node.redis_proxy if kind == 'part-redis' else node.pg_proxy
            f.update(node=node.name, detail='%s %.1f s' % (mode, d))
            proxy.set(mode)
            await asyncio.sleep(d)
            proxy.set('pass')
        f['heal'] = now()
        self.faults.append(f)
        log('fault %-10s %-3s %-22s from %.1f s' % (kind, f['node'] or '', f['detail'],
                                                    f['start'] - T0))
        return f

    async def recovered(self, since, limit, began=None):
        """Seconds from since until every game in progress acknowledged a move (None: not
        within limit); with began, the games that had acknowledged one in the 10 s before it
        (so one stuck game, which the checker reports, does not hide every later recovery)."""
        while now() - since < limit:
            live = [g for g in self.games if not self.game_over_seen(g) and
                    (began is None or self.last_ack.get(g, 0) > began - 10)]
            if all(self.last_ack.get(g, 0) > since for g in live):
                return now() - since
            await asyncio.sleep(0.1)
        return None

    def game_over_seen(self, g):
        return any(g in c.over for c in self.clients)

    async def overlapping(self, deadline):
        """--interval S: a fault starts every S seconds (each on a target no other fault holds
        then: a node's process, its Redis or PostgreSQL proxy, Redis, PostgreSQL), so faults
        overlap; each one's recovery is measured from its heal as in the sequential mode."""
        deck, busy, tasks = [], set(), []

        async def one(kind, target):
            try:
                f = await self.fault(kind, target)
            finally:
                busy.discard(target)
            f['recovery'] = await self.recovered(f['heal'], self.args.recovery_limit,
                                                 f['start'])
            if f['recovery'] is None:
                log('  %s from %.1f s not recovered within %d s' % (
                    kind, f['start'] - T0, self.args.recovery_limit))

        while now() < deadline:
            await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.args.interval)
            if not deck:
                deck = list(self.args.faults)
                self.rng.shuffle(deck)
            kind = deck.pop()
            free = [t for t in self.targets(kind) if t not in busy and
                    (not isinstance(t, tuple) or ('proc', t[1]) not in busy)]
            if kind in ('kill', 'kill-later', 'pause'):  # nor while its proxies are cut
                free = [t for t in free if all((k, t[1]) not in busy
                                               for k in ('part-redis', 'part-pg'))]
            if not free:
                continue
            target = self.rng.choice(free)
            busy.add(target)
            tasks.append(asyncio.ensure_future(one(kind, target)))
        await asyncio.gather(*tasks)

    async def nemesis(self, deadline):
        if self.args.interval:
            return await self.overlapping(deadline)
        deck = []
        while now() < deadline:
            await asyncio.sleep(self.rng.uniform(0.5, 2.0))
            if not deck:
                deck = list(self.args.faults)
                self.rng.shuffle(deck)
                if not self.faults and 'pause' in deck:  # the short round has one for sure
                    deck.remove('pause')
                    deck.append('pause')
            f = await self.fault(deck.pop())
            f['recovery'] = await self.recovered(f['heal'], self.args.recovery_limit, f['start'])
            if f['recovery'] is None:
                log('  not recovered within %d s' % self.args.recovery_limit)

    async def main(self):
        a = self.args
        await self.setup()
        n = len(self.nodes)
        pairs = []
        for i in range(a.games):
            pa = Client(self, 'p%da' % i, i % n)
            pb = Client(self, 'p%db' % i, (i + 1) % n)
            sp = Client(self, 's%d' % i, (i + 2) % n)
            self.clients += [pa, pb, sp]
            pairs.append((i, pa, pb, sp))
        await asyncio.gather(*(c.connect() for c in self.clients))
        log('%d clients logged in' % len(self.clients))
        tasks = [asyncio.ensure_future(self.pair(*p)) for p in pairs]
        await asyncio.sleep(3.0)
        deadline = now() + a.minutes * 60
        await self.nemesis(deadline)
        # healed: every game must go on
        self.stop_new = True
        settle = now()
        self.settle_time = settle
        rec = await self.recovered(settle, a.recovery_limit)
        await asyncio.sleep(2.0)
        log('settled: every game in progress acknowledged a move %s' %
            ('after %.1f s' % rec if rec is not None else 'NOT within %d s' % a.recovery_limit))
        self.stop_moves = True
        for c in self.clients:  # every command on its way answered (or its connection lost)
            while c.pending and now() - settle < a.recovery_limit + 40:
                await asyncio.sleep(0.1)
        await asyncio.sleep(1.0)
        self.stopping = True
        for t in tasks:
            t.cancel()
        return self.check()

    # -- the checker --

    def check(self):
        a = self.args
        final = {}
        status = {}
        for gid, st, res in self.pg.query('SELECT id, status, result FROM games'):
            status[int(gid)] = (st, res)
            final[int(gid)] = {}
        for gid, ply, seat, mv in self.pg.query('SELECT game, ply, seat, move FROM moves '
                                                'ORDER BY game, ply'):
            final[int(gid)][int(ply)] = (int(seat), mv)
        viol = []

        def v(kind, text):
            viol.append((kind, text))

        simul = {g for g, info in self.games.items() if info['kind'] == 'xmas'}

        def seq_moves(g):
            """The record of sequential game g as a list of moves by ply."""
            rows = final.get(g, {})
            return [rows[p][1] for p in sorted(rows)]

        def turn_of(g, ply):
            """Simultaneous game g's turn ply (1-based) from the record: {seat: action}."""
            rows = final.get(g, {})
            out = {}
            for p in sorted(rows):
                seat, mv = rows[p]
                out.setdefault(seat, []).append(mv)
            return {str(s): (acts[ply - 1] if len(acts) >= ply else None)
                    for s, acts in out.items()}

        nack = 0
        nstates = 0
        pending_lost = []
        for c in self.clients:
            seen = {}
            for e in c.hist:
                t, kind = e[0], e[1]
                if kind == 'ack':
                    _, _, g, ply, mv, pending = e
                    nack += 1
                    if g in simul:
                        # a simultaneous action is acknowledged 'pending', when it is taken,
                        # and stored when its turn resolves: one may be lost (a takeover)
                        if turn_of(g, ply + 1).get(str(c.seat_of(g))) != mv:
                            pending_lost.append('%s at %.1f s: game %d turn %d' %
                                                (c.name, t, g, ply + 1))
                        continue
                    moves = seq_moves(g)
                    if g not in final:
                        v('acked', '%s: game %d acknowledged %s but is not in the store' %
                          (c.name, g, mv))
                    elif ply >= len(moves) or moves[ply] != mv:
                        v('acked', '%s at %.1f s: game %d ply %d %s acknowledged, record has %s'
                          % (c.name, t, g, ply, mv,
                             moves[ply] if ply < len(moves) else 'only %d plies' % len(moves)))
                elif kind == 'state':
                    _, _, g, ply, lm, over, seq = e
                    nstates += 1
                    if g not in final:
                        v('states', '%s saw game %d, not in the store' % (c.name, g))
                        continue
                    if ply and g not in simul:
                        moves = seq_moves(g)
                        if ply > len(moves) or moves[ply - 1] != lm:
                            v('states', '%s at %.1f s: game %d ply %d shows %s, record has %s' %
                              (c.name, t, g, ply, lm, moves[ply - 1] if ply <= len(moves) else
                               'only %d plies' % len(moves)))
                    elif ply and g in simul and isinstance(lm, dict):
                        rec = turn_of(g, ply)
                        for s_, act in lm.items():
                            if act is not None and rec.get(s_) != act:
                                v('states', '%s at %.1f s: game %d turn %d seat %s shows %s, '
                                  'record has %s' % (c.name, t, g, ply, s_, act, rec.get(s_)))
                    if over and status[g][0] == 'in_progress':
                        v('states', '%s at %.1f s: game %d shown over at ply %d, in progress in '
                          'the record' % (c.name, t, g, ply))
                    seen.setdefault(g, []).append(ply)
                elif kind == 'game_over' and e[3] == 'abandoned':
                    v('grace', '%s: game %d ended by abandonment' % (c.name, e[2]))
        # no game stuck
        for g in self.games:
            st = status.get(g, ('missing', ''))[0]
            if st == 'in_progress' and self.last_ack.get(g, 0) <= self.settle_time:
                v('stuck', 'game %d (%s) in progress, no move acknowledged after the last heal'
                  % (g, self.games[g]['kind']))
        for t in self.unstartable:
            v('restart', t)
        # every player back in its game within the grace
        back = self.grace_times(viol)
        self.summary(viol, nack, nstates, status, back, pending_lost)
        return 1 if viol else 0

    def grace_times(self, viol):
        """Per player and disruption (a lost connection, a game moved): seconds until a state
        of each of its games in progress came again."""
        out = []
        for c in self.clients:
            if c.name.startswith('s'):
                continue
            h = c.hist
            for i, e in enumerate(h):
                if e[1] == 'disconnect' or (e[1] == 'info' and e[3] == 'moved'):
                    t0 = e[0]
                    games = [g for g, info in self.games.items() if c.name in info['players']
                             and info['started'] - T0 <= t0]
                    for g in games:
                        if any(x[1] in ('game_over', 'over_in_store') and x[2] == g
                               for x in h[:i]):
                            continue
                        back = next((x[0] for x in h[i:] if x[1] in ('state', 'game_over',
                                                                     'over_in_store')
                                     and x[2] == g), None)
                        if back is None:
                            continue  # the run stopped first; 'stuck' judges the game
                        out.append(back - t0)
                        if back - t0 > self.args.grace:
                            viol.append(('grace', '%s: back in game %d %.1f s after %s at '
                                         '%.1f s' % (c.name, g, back - t0, e[1], t0)))
        return out

    def summary(self, viol, nack, nstates, status, back, pending_lost):
        a = self.args
        print('\n=== nemesis summary (seed %d, %d nodes, %.1f min, %d games at once%s) ===' %
              (a.seed, a.nodes, a.minutes, a.games,
               ', a fault every %.1f s, overlapping' % a.interval if a.interval else ''))
        kinds = {}
        for f in self.faults:
            kinds.setdefault(f['kind'], []).append(f)
        print('faults: %d  (%s)' % (len(self.faults), ', '.join(
            '%s %d' % (k, len(kinds[k])) for k in FAULTS if k in kinds)))
        print('recovery (heal -> every game in progress acknowledged a move again), s:')
        for k in FAULTS:
            fs = kinds.get(k)
            if not fs:
                continue
            r = [f['recovery'] for f in fs if f['recovery'] is not None]
            print('  %-11s n=%-3d median %5s  max %5s  not recovered %d' % (
                k, len(fs), '%.1f' % statistics.median(r) if r else '-',
                '%.1f' % max(r) if r else '-', len(fs) - len(r)))
        ended = sum(1 for g in self.games if status.get(g, ('',))[0] != 'in_progress')
        byk = {}
        for g, info in self.games.items():
            byk[info['kind'] + (' ' + info['opts'] if info['kind'] == 'tak' else '')] = \
                byk.get(info['kind'] + (' ' + info['opts'] if info['kind'] == 'tak' else ''),
                        0) + 1
        print('games: %d (%s), %d ended' % (len(self.games), ', '.join(
            '%s %d' % kv for kv in sorted(byk.items())), ended))
        print('moves acknowledged: %d; states seen: %d; reconnections: %d; lockouts: %d' % (
            nack, nstates, sum(max(0, c.conn_no - 1) for c in self.clients), len(self.lockouts)))
        if back:
            print('players back in their game after a disconnection or a move: median %.1f s, '
                  'max %.1f s (grace %.0f s)' % (statistics.median(back), max(back), a.grace))
        print('simultaneous actions acknowledged "pending" whose turn the record resolved with '
              'another action (not a violation: PROTOCOL.md section 12): %d' % len(pending_lost))
        for t in pending_lost[:5]:
            print('    ' + t)
        if self.start_failures:
            print('nodes that exited at start (started again): %d' % len(self.start_failures))
        print('violations: %d' % len(viol))
        for kind in ('acked', 'states', 'stuck', 'grace', 'restart'):
            vs = [t for k, t in viol if k == kind]
            if vs:
                print('  %s: %d' % (kind, len(vs)))
                for t in vs[:10]:
                    print('    ' + t)
        if viol or a.keep:
            self.dump_history()

    def dump_history(self):
        """The faults and every client's history, one JSON array a line, in the run's directory."""
        path = os.path.join(self.dir, 'history.jsonl')
        with open(path, 'w') as f:
            for x in self.faults:
                f.write(json.dumps(['nemesis', round(x['start'] - T0, 3), x['kind'], x['node'],
                                    x['detail'], round(x['heal'] - T0, 3)]) + '\n')
            for c in self.clients:
                for e in c.hist:
                    f.write(json.dumps([c.name] + list(e)) + '\n')
        print('history: %s' % path)


def parse():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--nodes', type=int, default=3)
    p.add_argument('--minutes', type=float, default=0.75)
    p.add_argument('--games', type=int, default=20)
    p.add_argument('--seed', type=int, default=None)
    p.add_argument('--faults', default=','.join(FAULTS),
                   help='fault kinds, comma-separated: ' + ', '.join(FAULTS))
    p.add_argument('--grace', type=float, default=60.0, help='the nodes\' --grace, seconds')
    p.add_argument('--beat-ms', type=int, default=500, help='the nodes\' --cluster-beat-ms')
    p.add_argument('--interval', type=float, default=0,
                   help='a fault every S seconds (0.5-1.5 times), overlapping, each on a '
                   'target no other holds; 0 (default): one at a time, the next after the '
                   'last recovered')
    p.add_argument('--recovery-limit', type=int, default=45,
                   help='seconds a fault\'s recovery may take before it counts as stuck')
    p.add_argument('--bitarenad', default=os.environ.get('BITARENAD') or os.path.join(
        os.environ.get('BITARENA_BUILDDIR', '.'), 'bitarenad'))
    p.add_argument('--keep', action='store_true',
                   help='keep the run\'s directory (the nodes\' logs, history.jsonl) even when '
                   'it passes (a failing run\'s is always kept)')
    a = p.parse_args()
    a.faults = [f for f in a.faults.split(',') if f]
    for f in a.faults:
        if f not in FAULTS:
            p.error('unknown fault %s' % f)
    if a.seed is None:
        a.seed = int(os.environ.get('NEMESIS_SEED') or random.SystemRandom().randrange(1 << 31))
    return a


def main():
    a = parse()
    if not shutil.which('redis-server') or not pg_bindir():
        print('nemesis: needs redis-server and PostgreSQL (initdb, pg_ctl): skipped')
        return SKIP
    try:
        ver = subprocess.run([a.bitarenad, '--version'], capture_output=True, text=True).stdout
    except OSError:
        print('nemesis: no bitarenad at %s: skipped' % a.bitarenad)
        return SKIP
    built = next((l for l in ver.splitlines() if l.startswith('built with:')), '')
    if 'PostgreSQL' not in built or 'Redis' not in built:  # not "built without: ..."
        print('nemesis: this bitarenad has no PostgreSQL or no cluster: skipped')
        return SKIP
    print('nemesis: seed %d (run again with --seed %d)' % (a.seed, a.seed), flush=True)
    run = Run(a)
    loop = asyncio.new_event_loop()
    task = loop.create_task(run.main())
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, task.cancel)
    rc = 1
    try:
        rc = loop.run_until_complete(task)
    except asyncio.CancelledError:
        print('nemesis: interrupted')
        run.dump_history()
    except Exception:
        run.dump_history()
        raise
    finally:
        loop.run_until_complete(run.teardown())
        loop.close()
        if rc == 0 and not a.keep:
            shutil.rmtree(run.dir, ignore_errors=True)
        else:
            print('nemesis: logs kept in %s' % run.dir)
    return rc


if __name__ == '__main__':
    sys.exit(main())
