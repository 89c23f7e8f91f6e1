"""webtest.py - the harness of the browser tests: the server under test, headless Chromium
browsers driven by Selenium (Debian's python3-selenium with chromium-driver), a plain-socket
telnet user, and a tiny runner that prints one closing line ("browser: N passed, N failed").

The server is the real bitarenad started on free loopback ports with a fresh data directory
(--http for the page and /ws, --listen for telnet users), stopped with SIGTERM. For work on the
page alone, BITARENA_WEB_URL (the page) and BITARENA_TCP (host:port of the same server's telnet
port) point the tests at a server started by hand instead.

Waits are bounded (WAIT_S); a test fails with the page's state and its console log, and a
screenshot is kept in the screenshot directory (BROWSER_SHOTS, default ./browser-shots).
"""

import base64
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import traceback

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

WAIT_S = 15
CHROMIUM = os.environ.get('CHROMIUM', '/usr/bin/chromium')
CHROMEDRIVER = os.environ.get('CHROMEDRIVER', '/usr/bin/chromedriver')
FLAGS = ('--headless --no-sandbox --disable-gpu --disable-quic --no-first-run '
         '--disable-background-networking --disable-component-update --disable-sync '
         '--disable-dev-shm-usage --disable-extensions').split()
SHOTS = os.path.abspath(os.environ.get('BROWSER_SHOTS', 'browser-shots'))


def wait_for(what, fn, timeout=WAIT_S):
    """Polls fn until it returns a true value (returned); fails naming `what`."""
    end = time.monotonic() + timeout
    last = None
    while time.monotonic() < end:
        try:
            v = fn()
            if v:
                return v
        except (StaleElementReferenceException, WebDriverException) as e:
            last = e
        time.sleep(0.05)
    raise AssertionError(f'timed out waiting for {what}' + (f' ({last})' if last else ''))


class Server:
    """bitarenad with --http and --listen on free ports, or one named by the environment."""

    def __init__(self, extra=()):
        self.proc = None
        self.tmp = None
        if os.environ.get('BITARENA_WEB_URL'):
            self.url = os.environ['BITARENA_WEB_URL'].rstrip('/') + '/'
            host, port = os.environ['BITARENA_TCP'].rsplit(':', 1)
            self.tcp = (host, int(port))
            return
        binary = os.environ['BITARENAD']
        self.tmp = tempfile.mkdtemp(prefix='bitarena-browser-')
        pf, hpf = os.path.join(self.tmp, 'port'), os.path.join(self.tmp, 'http-port')
        self.log = open(os.path.join(self.tmp, 'server.log'), 'w')
        self.proc = subprocess.Popen(
            [binary, '--listen', '127.0.0.1:0', '--port-file', pf, '--http', '127.0.0.1:0',
             '--http-port-file', hpf, '--data', os.path.join(self.tmp, 'data'), '--fast-hash',
             *extra], stdout=self.log, stderr=subprocess.STDOUT)
        read = lambda p: open(p).read().strip() if os.path.exists(p) else ''
        wait_for('the server ports', lambda: read(pf) and read(hpf), 20)
        self.url = f'http://127.0.0.1:{read(hpf)}/'
        self.tcp = ('127.0.0.1', int(read(pf)))

    def stop(self):
        if self.proc:
            self.proc.send_signal(signal.SIGTERM)
            try:
                status = self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError('bitarenad did not stop on SIGTERM')
            self.log.close()
            if status != 0:
                sys.stdout.write(open(os.path.join(self.tmp, 'server.log')).read())
                raise AssertionError(f'bitarenad exited with status {status}')
        if self.tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)


class Browser:
    """One headless Chromium with a fresh profile: one user of the page."""

    def __init__(self, server, who, width=1200, height=900):
        self.server = server
        self.who = who
        self.profile = tempfile.mkdtemp(prefix='bitarena-chromium-')
        o = webdriver.ChromeOptions()
        for f in FLAGS:
            o.add_argument(f)
        o.add_argument(f'--window-size={width},{height}')
        o.add_argument(f'--user-data-dir={self.profile}')
        o.binary_location = CHROMIUM
        o.set_capability('goog:loggingPrefs', {'browser': 'ALL'})
        self.d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=o)
        self.d.set_page_load_timeout(WAIT_S)
        self.console = []

    def quit(self):
        try:
            self.d.quit()
        finally:
            shutil.rmtree(self.profile, ignore_errors=True)

    # --- page access -------------------------------------------------------------------------

    def open(self, path=''):
        self.d.get(self.server.url + path)
        self.wait('the connection', lambda: self.text('#status') == 'connected')

    def wait(self, what, fn, timeout=WAIT_S):
        try:
            return wait_for(f'{self.who}: {what}', fn, timeout)
        except AssertionError:
            self.shot(f'failed-{self.who}')
            raise

    def q(self, css):
        return self.d.find_elements(By.CSS_SELECTOR, css)

    def one(self, css):
        return self.wait(css, lambda: (self.q(css) or [None])[0])

    def text(self, css):
        els = self.q(css)
        return els[0].text if els else ''

    def click(self, css):
        self.wait(f'a clickable {css}', lambda: self._click(css))

    def _click(self, css):
        for e in self.q(css):
            if e.is_displayed() and e.is_enabled():
                e.click()
                return True
        return False

    def type(self, css, text, clear=True):
        e = self.one(css)
        if clear:
            e.clear()
        e.send_keys(text)

    def js(self, script, *args):
        return self.d.execute_script(script, *args)

    def logs(self):
        try:
            self.console += self.d.get_log('browser')
        except WebDriverException:
            pass
        return self.console

    def errors(self):
        return [l for l in self.logs() if l.get('level') == 'SEVERE']

    def shot(self, name):
        os.makedirs(SHOTS, exist_ok=True)
        path = os.path.join(SHOTS, f'{name}.png')
        try:
            # the whole page: the window made as tall as the document for the picture
            size = self.d.get_window_size()
            height = self.js('return document.documentElement.scrollHeight')
            self.d.set_window_size(size['width'], max(size['height'], height + 100))
            self.d.save_screenshot(path)
            self.d.set_window_size(size['width'], size['height'])
        except WebDriverException:
            return None
        return path

    # --- the page's own steps ----------------------------------------------------------------

    def login(self, name, password=None, register=False):
        self.type('#login-name', name)
        if password is not None:
            self.type('#login-password', password)
        self.click('#register' if register else '#log-in' if password is not None else '#play-guest')
        self.wait('logged in', lambda: self.text('#me').startswith(name))

    def seek(self, kind, options=None, color='first', time_control='', rated=False):
        self.one('#seek-kind option')
        self.js("const s = document.querySelector('#seek-kind'); s.value = arguments[0];"
                "s.dispatchEvent(new Event('change'));"
                "document.querySelectorAll('.seek-form details').forEach((d) => { d.open = true; });", kind)
        for k, v in (options or {}).items():
            if self.q(f'button.opt-choice[data-opt="{k}"]'):
                self.click(f'button.opt-choice[data-opt="{k}"][data-value="{v}"]')
            else:
                self.type(f'#opt-{k}', str(v))
        if [b for b in self.q(f'button.time-choice[data-time="{time_control}"]') if b.is_displayed()]:
            self.click(f'button.time-choice[data-time="{time_control}"]')  # not for simultaneous kinds
        self.js("document.querySelector('#seek-color').value = arguments[0];", color)
        if rated:
            self.click('#seek-rated')
        self.click('#seek-submit')
        return int(self.wait('my seek listed', lambda: self._own_seek()))

    def _own_seek(self):
        rows = self.q('button.unseek')
        return rows[-1].get_attribute('data-seek') if rows else None

    def accept(self, seek_id):
        self.click(f'button.accept[data-seek="{seek_id}"]')
        return self.in_game()

    def in_game(self):
        """Waits for a game view with a position; returns the game id."""
        h = self.wait('a game view', lambda: self.js(
            "return /^#\\/game\\/\\d+$/.test(location.hash) && document.querySelector('svg.board') ? location.hash : null"))
        return int(h.rsplit('/', 1)[1])

    def square(self, name):
        return f'svg.board g.cell[aria-label^="{name} "]'

    def play(self, square):
        """Clicks a square that the page marks as a legal target."""
        self.click(self.square(square) + '.legal')

    def ply(self):
        return len(self.q('ol.moves .ply')) - len([e for e in self.q('ol.moves .ply') if not e.text])

    def wait_moves(self, n):
        self.wait(f'{n} plies in the move list', lambda: self.ply() == n)

    def result(self):
        """The end panel's sentence of a game that has ended, once the panel is shown; the
        result is said there only (no status line, no second result line)."""
        how = self.wait('a result', lambda: self.text('.end-panel .end-how'))
        assert not [e for e in self.q('section.game .game-status, section.game p.result') if e.is_displayed()], \
            f'{self.who}: the result said twice'
        return how


class Telnet:
    """A person on nc or telnet: text mode, lines in and out."""

    def __init__(self, server):
        self.s = socket.create_connection(server.tcp, timeout=WAIT_S)
        self.f = self.s.makefile('r', encoding='utf-8', errors='replace')
        self.seen = []
        assert self.line().startswith('bitarenad ')

    def send(self, line):
        self.s.sendall((line + '\r\n').encode())

    def line(self):
        l = self.f.readline()
        if not l:
            raise AssertionError('telnet: connection closed')
        self.seen.append(l.rstrip('\r\n'))
        return self.seen[-1]

    def until(self, pred, what):
        end = time.monotonic() + WAIT_S
        while time.monotonic() < end:
            l = self.line()
            if pred(l):
                return l
        raise AssertionError(f'telnet: no line {what}')

    def close(self):
        self.s.close()


class RawWs:
    """A WebSocket client on a plain socket, for what a browser will not do: a foreign Origin,
    oversized and fragmented messages, line ends inside a message. Test code only."""

    def __init__(self, server, origin=None, path='/ws'):
        host, port = server.url.split('//', 1)[1].rstrip('/').rsplit(':', 1)
        self.s = socket.create_connection((host, int(port)), timeout=WAIT_S)
        key = base64.b64encode(os.urandom(16)).decode()
        origin = origin or server.url.rstrip('/')
        self.s.sendall((f'GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n'
                        f'Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n'
                        f'Sec-WebSocket-Version: 13\r\nOrigin: {origin}\r\n\r\n').encode())
        head = b''
        while b'\r\n\r\n' not in head:
            d = self.s.recv(1)
            if not d:
                break
            head += d
        self.status = int(head.split(b' ', 2)[1]) if head.startswith(b'HTTP/1.1 ') else 0
        self.buf = b''

    def frame(self, payload, opcode=1, fin=True):
        self.s.sendall(self.encode(payload, opcode, fin))

    @staticmethod
    def encode(payload, opcode=1, fin=True):
        """One masked client frame."""
        if isinstance(payload, str):
            payload = payload.encode()
        n = len(payload)
        head = bytes([(0x80 if fin else 0) | opcode])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack('>H', n)
        else:
            head += bytes([0x80 | 127]) + struct.pack('>Q', n)
        mask = os.urandom(4)
        return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))

    def send(self, text):
        self.frame(text.encode() if isinstance(text, str) else text)

    def _need(self, n):
        while len(self.buf) < n:
            d = self.s.recv(65536)
            if not d:
                raise AssertionError('ws: connection closed')
            self.buf += d
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv(self):
        """The next message's text (control frames other than close are skipped)."""
        while True:
            b0, b1 = self._need(2)
            n = b1 & 0x7f
            if n == 126:
                n = struct.unpack('>H', self._need(2))[0]
            elif n == 127:
                n = struct.unpack('>Q', self._need(8))[0]
            data = self._need(n)
            op = b0 & 0x0f
            if op == 8:
                raise AssertionError('ws: closed by the server')
            if op in (1, 2):
                return data.decode()

    def json(self):
        return json.loads(self.recv())

    def close(self):
        self.s.close()


def listening_on(port):
    """The local addresses of the sockets listening on TCP port, from /proc/net/tcp{,6}."""
    found = set()
    for name, v6 in (('/proc/net/tcp', False), ('/proc/net/tcp6', True)):
        try:
            lines = open(name).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            addr, p = local.split(':')
            if state != '0A' or int(p, 16) != port:
                continue
            raw = bytes.fromhex(addr)
            # the kernel writes each 32-bit word in host (little-endian) order
            raw = b''.join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
            found.add(socket.inet_ntop(socket.AF_INET6 if v6 else socket.AF_INET, raw))
    return found


def run(tests):
    """Runs each test function; prints the outcome of each and one closing line."""
    passed = failed = 0
    for t in tests:
        start = time.monotonic()
        try:
            t()
            passed += 1
            print(f'PASS {t.__name__} ({time.monotonic() - start:.1f} s)', flush=True)
        except Exception:
            failed += 1
            print(f'FAIL {t.__name__}', flush=True)
            traceback.print_exc(file=sys.stdout)
    print(f'browser: {passed} passed, {failed} failed', flush=True)
    return 1 if failed else 0
