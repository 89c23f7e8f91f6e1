#!/usr/bin/env python3
"""check_http.py - the web listener of the real bitarenad (--http) over raw sockets: who may
ask and what it costs the log.

 - Host: a request to one of the listener's own names (its address, localhost on a loopback
   address) with its port is served; any other Host gets 421 and a WebSocket handshake with a
   foreign Host (a page of another site that a DNS rebinding points here) gets no 101, even
   with a matching Origin; --http-host adds names (NAME: any port, NAME:PORT: that one).
 - Frames (RFC 6455 5): masked frames, fragmented messages and pings work; an unmasked frame,
   a reserved bit or an unknown opcode closes the connection and what it carried is not run.
 - The log: a hundred bad requests of every kind (foreign Host, headers that overflow
   libwebsockets' buffer, junk, unmasked frames) add no line to the server's log.

Skipped (exit 77) when bitarenad is built without WebSocket. Against the server before these
checks, the foreign Host got 200 and 101, the unmasked frame was run, and libwebsockets logged
a line per oversized request.
"""

import os
import socket
import struct
import subprocess
import sys
import tempfile
import time

BITARENAD = os.environ.get("BITARENAD", "bitarenad")
SRCDIR = os.environ.get("BITARENA_SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
KEY = "dGhlIHNhbXBsZSBub25jZQ=="
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


class Server:
    def __init__(self, *extra):
        self.dir = tempfile.mkdtemp(prefix="check_http-")
        self.log = os.path.join(self.dir, "log")
        hp = os.path.join(self.dir, "hp")
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen(
                [BITARENAD, "--listen", "127.0.0.1:0", "--data", os.path.join(self.dir, "d"),
                 "--http", "127.0.0.1:0", "--http-port-file", hp,
                 "--http-root", os.path.join(SRCDIR, "web"), "--fast-hash"] + list(extra),
                stdout=log, stderr=log)
        for _ in range(3000):
            if os.path.exists(hp) and open(hp).read().strip():
                break
            if self.proc.poll() is not None:
                raise SystemExit("bitarenad exited at start: " + open(self.log).read())
            time.sleep(0.01)
        self.port = int(open(hp).read())
        self.quiet()

    def quiet(self):
        """Waits until the log has its start-up lines; returns its size."""
        for _ in range(500):
            if "web page url=" in open(self.log).read():
                break
            time.sleep(0.01)
        return os.path.getsize(self.log)

    def stop(self):
        self.proc.terminate()
        check(self.proc.wait(30) == 0, "bitarenad exits 0")


def connect(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    return s


def response(s):
    """The response head (bytes), and what came after it; b"" when closed without one."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        try:
            d = s.recv(65536)
        except (ConnectionResetError, socket.timeout):
            d = b""
        if not d:
            return buf, b""
        buf += d
    head, rest = buf.split(b"\r\n\r\n", 1)
    return head, rest


def get(port, host, path="/"):
    s = connect(port)
    s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % (path, host)).encode())
    head, _ = response(s)
    s.close()
    return head.split(b" ")[1].decode() if head.startswith(b"HTTP/1.") else "none"


def handshake(port, host, origin=None):
    """A WebSocket handshake to /ws: (socket, status line, bytes after the head)."""
    s = connect(port)
    s.sendall(("GET /ws HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nOrigin: %s\r\n\r\n" %
               (host, KEY, origin or "http://" + host)).encode())
    head, rest = response(s)
    return s, head.split(b"\r\n")[0].decode(errors="replace"), rest


def frame(op, data, mask=True, fin=True, rsv=0):
    b = bytes([(0x80 if fin else 0) | rsv | op])
    n = len(data)
    m = 0x80 if mask else 0
    if n < 126:
        b += bytes([m | n])
    else:
        b += bytes([m | 126]) + struct.pack(">H", n)
    if not mask:
        return b + data
    k = os.urandom(4)
    return b + k + bytes(c ^ k[i % 4] for i, c in enumerate(data))


class Frames:
    def __init__(self, s, rest):
        self.s, self.buf = s, rest

    def fill(self, n):
        while len(self.buf) < n:
            try:
                d = self.s.recv(65536)
            except (ConnectionResetError, socket.timeout):
                d = b""
            if not d:
                return False
            self.buf += d
        return True

    def next(self):
        """(opcode, payload), or None once the server has closed."""
        if not self.fill(2):
            return None
        n, h = self.buf[1] & 0x7f, 2
        if n == 126:
            if not self.fill(4):
                return None
            n, h = struct.unpack(">H", self.buf[2:4])[0], 4
        if not self.fill(h + n):
            return None
        f = (self.buf[0] & 0x0f, self.buf[h:h + n])
        self.buf = self.buf[h + n:]
        return f

    def rest_until_closed(self):
        """Every frame up to the end of the connection (a close frame counts as its end)."""
        out = []
        while True:
            f = self.next()
            if f is None or f[0] == 8:
                return out
            out.append(f)


def open_ws(port, host=None):
    s, status, rest = handshake(port, host or "127.0.0.1:%d" % port)
    check(status.startswith("HTTP/1.1 101"), "handshake with the listener's own Host: 101")
    fr = Frames(s, rest)
    w = fr.next()
    check(w is not None and w[1].startswith(b"bitarenad "), "the welcome")
    return s, fr


def test_hosts(srv):
    p = srv.port
    check(get(p, "127.0.0.1:%d" % p) == "200", "GET / with its own address and port: 200")
    check(get(p, "localhost:%d" % p) == "200", "GET / as localhost on a loopback listener: 200")
    check(get(p, "LocalHost:%d" % p) == "200", "names are case-insensitive")
    for host in ("evil.example:%d" % p, "evil.example", "127.0.0.1", "127.0.0.1:%d" % (p + 1),
                 "127.0.0.2:%d" % p, "[::1]:%d" % p, "localhost:%d0" % p, "127.0.0.1:%d:1" % p):
        check(get(p, host) == "421", "GET / with Host %s: 421" % host)
    # DNS rebinding: the attacker's name resolves here, its page's Origin matches its Host
    s, status, _ = handshake(p, "evil.example:%d" % p)
    check(not status.startswith("HTTP/1.1 101"), "a handshake with a foreign Host: no 101 (%s)" %
          (status or "closed"))
    s.close()
    s, status, _ = handshake(p, "127.0.0.1:%d" % p, "http://evil.example:%d" % p)
    check(not status.startswith("HTTP/1.1 101"), "a handshake from a foreign Origin: no 101")
    s.close()


def test_frames(srv):
    p = srv.port
    s, fr = open_ws(p)
    s.sendall(frame(1, b"#a ping") + frame(9, b"are you there"))
    got = [fr.next() for _ in range(2)]
    check(got[0] == (1, b"#a pong"), "a masked command is run: %r" % (got[0],))
    check(got[1] == (10, b"are you there"), "a ping is answered with its pong: %r" % (got[1],))
    s.sendall(frame(1, b"#b pi", fin=False) + frame(9, b"") + frame(0, b"ng"))
    got = sorted(fr.next() for _ in range(2))
    check(got == [(1, b"#b pong"), (10, b"")],
          "a fragmented message is one line, a ping between its fragments answered: %r" % got)
    # an unmasked frame: the connection is closed and what it carried is not run
    s.sendall(frame(1, b"#c ping", mask=False))
    rest = fr.rest_until_closed()
    check(rest == [], "an unmasked frame closes the connection, unanswered: %r" % rest)
    s.close()
    for what, data in (("a reserved bit", frame(1, b"#d ping", rsv=0x40)),
                       ("an unknown opcode", frame(3, b"#d ping")),
                       ("a continuation outside a message", frame(0, b"#d ping")),
                       ("a fragmented ping", frame(9, b"x", fin=False)),
                       ("a text frame within a message", frame(1, b"#d", fin=False) +
                        frame(1, b" ping"))):
        s, fr = open_ws(p)
        s.sendall(data)
        rest = fr.rest_until_closed()
        check(rest == [], "%s closes the connection, unanswered: %r" % (what, rest))
        s.close()
    # the client closes: the connection ends, the server still serves
    s, fr = open_ws(p)
    s.sendall(frame(8, struct.pack(">H", 1000)))
    check(fr.rest_until_closed() == [], "a close frame ends the connection")
    s.close()
    s, fr = open_ws(p)
    s.sendall(frame(1, b"#e ping"))
    check(fr.next() == (1, b"#e pong"), "the server is still there")
    s.close()


def test_http_host():
    srv = Server("--http-host", "play.example.org,other.example:8443")
    p = srv.port
    for host in ("play.example.org", "PLAY.example.org:443", "other.example:8443",
                 "127.0.0.1:%d" % p):
        s, status, _ = handshake(p, host)
        check(status.startswith("HTTP/1.1 101"), "--http-host: a handshake to %s: 101" % host)
        s.close()
        check(get(p, host) == "200", "--http-host: GET / from %s: 200" % host)
    for host in ("other.example:9443", "other.example", "evil.example", "example.org"):
        s, status, _ = handshake(p, host)
        check(not status.startswith("HTTP/1.1 101"), "--http-host: %s: no 101" % host)
        s.close()
        check(get(p, host) == "421", "--http-host: GET / from %s: 421" % host)
    srv.stop()


def test_log_quiet(srv):
    p = srv.port
    before = srv.quiet()
    for i in range(25):
        get(p, "evil%d.example:%d" % (i, p))
        s = connect(p)  # headers past what libwebsockets keeps ("Ran out of header data space")
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Big: %s\r\n\r\n" % (p, b"a" * 20000))
        response(s)
        s.close()
        s = connect(p)
        s.sendall(b"\x00\x01\x02 junk\r\n\r\n")
        response(s)
        s.close()
        s, status, rest = handshake(p, "127.0.0.1:%d" % p)
        s.sendall(frame(1, b"ping", mask=False))
        Frames(s, rest).rest_until_closed()
        s.close()
    check(get(p, "127.0.0.1:%d" % p) == "200", "served after a hundred bad requests")
    time.sleep(0.2)
    grown = open(srv.log).read()[before:]
    check(grown == "", "a hundred bad requests add nothing to the log: %r" % grown[:300])


def main():
    version = subprocess.run([BITARENAD, "--version"], capture_output=True, text=True).stdout
    if "without" in version and "WebSocket" in version.split("without", 1)[1]:
        print("check_http: this build has no WebSocket: skipped")
        return 77
    srv = Server()
    try:
        test_hosts(srv)
        test_frames(srv)
        test_log_quiet(srv)
    finally:
        srv.stop()
    test_http_host()
    if failures:
        print("check_http: %d failed" % len(failures))
        return 1
    print("check_http: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
