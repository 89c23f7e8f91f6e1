#!/usr/bin/env python3
"""check_install.py - `make install DESTDIR=...`, then the installed bitarenad run from there.

What a host gets from `make install` (issue 25): bitarenad in $(sbindir), bitarena in
$(bindir), the page in $(pkgdatadir)/web, the opening books in $(pkgdatadir)/books, the
sample config in $(sysconfdir)/bitarena, the man pages, the systemd unit, an empty
$(localstatedir)/lib/bitarena. Then the installed daemon is started from DESTDIR with no
--http-root and no --data, as a host would start it: it must serve the installed page (a
copy marked here, so the source tree's cannot pass for it), keep its store under
DESTDIR$(localstatedir)/lib/bitarena, answer over TCP, and stop cleanly on SIGTERM; the
installed `bitarena` checks the installed books.

Run by `make check` (the configured directories come from the environment it sets); skipped
(exit 77) without make. The install runs the build's own `make install`, quietly.
"""
import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

# The configured directories, as `make check` exports them (Makefile.am, AM_TESTS_ENVIRONMENT).
DIRS = ('sbindir', 'bindir', 'pkgdatadir', 'localstatedir', 'sysconfdir', 'mandir', 'unitdir')


def fail(msg):
    print('check_install: FAIL: ' + msg)
    sys.exit(1)


def wait_for(what, cond, seconds, proc=None):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        if proc is not None and proc.poll() is not None:
            fail(f'bitarenad exited ({proc.returncode}) while waiting for {what}')
        time.sleep(0.02)
    fail(f'no {what} within {seconds} s')


def read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return ''


def line_client(port):
    s = socket.create_connection(('127.0.0.1', port), timeout=10)
    return s, s.makefile('r', encoding='utf-8', newline='\n')


def main():
    build = os.environ.get('BITARENA_BUILDDIR')
    if not build or shutil.which('make') is None:
        print('check_install: SKIP: needs make and the environment of make check')
        return 77
    dirs = {d: os.environ.get('BITARENA_' + d.upper(), '') for d in DIRS}
    if not all(dirs.values()):
        fail('the configured directories are not in the environment: ' + repr(dirs))
    tmp = tempfile.mkdtemp(prefix='bitarena-install-')
    try:
        return run(build, dirs, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(build, dirs, tmp):
    dest = os.path.join(tmp, 'dest')
    env = {k: v for k, v in os.environ.items() if k not in ('MAKEFLAGS', 'MFLAGS', 'MAKELEVEL')}
    log = os.path.join(tmp, 'install.log')
    with open(log, 'w') as f:
        st = subprocess.call(['make', '-C', build, 'install', 'DESTDIR=' + dest], stdout=f,
                             stderr=subprocess.STDOUT, env=env)
    if st != 0:
        fail('make install failed:\n' + read(log))
    at = lambda d, *rest: os.path.join(dest + dirs[d], *rest)
    daemon, tool = at('sbindir', 'bitarenad'), at('bindir', 'bitarena')
    web, books = at('pkgdatadir', 'web'), at('pkgdatadir', 'books')
    state = at('localstatedir', 'lib', 'bitarena')
    conf = at('sysconfdir', 'bitarena', 'bitarenad.conf')
    mans = [at('mandir', 'man8', 'bitarenad.8'), at('mandir', 'man1', 'bitarena.1'),
            at('mandir', 'man7', 'bitarena-protocol.7')]
    # the unit, unless ./configure --with-systemdsystemunitdir=no
    unit = [at('unitdir', 'bitarena.service')] if dirs['unitdir'] != 'no' else []
    for path in (daemon, tool):
        if not os.access(path, os.X_OK):
            fail(path + ' is not installed, or not executable')
    for path in (os.path.join(web, 'index.html'), os.path.join(web, 'js', 'app.js'),
                 os.path.join(books, 'tak6.ptn'), conf, *mans, *unit):
        if not os.path.isfile(path):
            fail(path + ' is not installed')
    if not os.path.isdir(state):
        fail(state + ' (the store of an installed bitarenad) is not made')
    checked = ['files: ' + ', '.join(os.path.relpath(p, dest) for p in (daemon, tool, web,
                                                                        books, state, conf,
                                                                        *unit))]
    checked.append('man pages: ' + ', '.join(os.path.basename(m) for m in mans))

    # man finds the installed pages (what `man bitarenad` does on the installed system).
    if shutil.which('man'):
        for name, page in (('bitarenad', mans[0]), ('bitarena-protocol', mans[2])):
            out = subprocess.run(['man', '-w', name], capture_output=True, text=True,
                                 env={**env, 'MANPATH': dest + dirs['mandir']})
            if out.returncode != 0 or out.stdout.strip() != page:
                fail(f'man -w {name} with the installed MANPATH: {out.stdout}{out.stderr}')
        checked.append('man -w finds bitarenad(8) and bitarena-protocol(7)')

    # The config file is the installed daemon's own sample, every setting commented out.
    sample = subprocess.run([daemon, '--dump-config'], capture_output=True, text=True).stdout
    if read(conf) != sample.strip():
        fail(conf + ' is not what the installed bitarenad --dump-config prints')
    checked.append('the config file is bitarenad --dump-config')

    # The installed tool reads the installed books.
    names = sorted(os.path.join(books, n) for n in os.listdir(books))
    out = subprocess.run([tool, 'book', 'check', *names], capture_output=True, text=True)
    if out.returncode != 0:
        fail('bitarena book check of the installed books: ' + out.stdout + out.stderr)
    checked.append(f'{len(names)} installed books pass `bitarena book check`')

    # --version says where the installed daemon looks: under DESTDIR, never the source tree.
    ver = subprocess.run([daemon, '--version'], capture_output=True, text=True).stdout
    said = dict(l.split(': ', 1) for l in ver.splitlines() if ': ' in l)
    if said.get('web page') != web or said.get('store') != state:
        fail(f'the installed bitarenad looks elsewhere:\n{ver}')
    has_web = 'WebSocket' in said.get('built with', '')

    # The page is served from the installed copy: marked, so the source tree's cannot pass.
    marker = '<!-- the installed copy: check_install.py -->'
    with open(os.path.join(web, 'index.html'), 'a') as f:
        f.write(marker + '\n')
    pf, hpf = os.path.join(tmp, 'port'), os.path.join(tmp, 'http-port')
    args = [daemon, '--config', conf, '--listen', '127.0.0.1:0', '--port-file', pf,
            '--fast-hash']
    if has_web:
        args += ['--http', '127.0.0.1:0', '--http-port-file', hpf]
    errlog = open(os.path.join(tmp, 'stderr'), 'w')
    proc = subprocess.Popen(args, stdout=errlog, stderr=errlog, cwd=tmp)
    try:
        port = int(wait_for('port file', lambda: read(pf), 30, proc))
        if has_web:
            hport = int(wait_for('HTTP port file', lambda: read(hpf), 30, proc))
            c = http.client.HTTPConnection('127.0.0.1', hport, timeout=10)
            c.request('GET', '/')
            r = c.getresponse()
            body = r.read().decode('utf-8', 'replace')
            if r.status != 200 or marker not in body:
                fail(f'GET / answered {r.status} without the installed copy\'s marker')
            c.request('GET', '/js/app.js')
            r = c.getresponse()
            with open(os.path.join(web, 'js', 'app.js'), 'rb') as f:
                if r.status != 200 or r.read() != f.read():
                    fail('GET /js/app.js is not the installed file')
            c.close()
            checked.append('the page (/ and /js/app.js) served from the installed copy')
        s, f = line_client(port)
        welcome = f.readline()
        if 'bitarenad' not in welcome or 'ready' not in welcome:
            fail('no welcome: ' + welcome)
        s.sendall(b'register alice secret1\n')
        reply = f.readline()
        if not reply.startswith('ok'):
            fail('register: ' + reply)
        s.sendall(b'finger alice\n')
        reply = f.readline()
        if 'alice' not in reply:
            fail('finger: ' + reply)
        s.close()
        checked.append('register and finger over TCP')
        db = os.path.join(state, 'bitarena.db')
        if not os.path.isfile(db):
            fail(db + ' was not made: the store is elsewhere')
        checked.append('the store in ' + os.path.relpath(state, dest))
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        st = proc.wait(30)
        errlog.close()
    if st != 0:
        fail(f'bitarenad exited {st} on SIGTERM:\n' + read(os.path.join(tmp, 'stderr')))
    for c in checked:
        print('check_install: ' + c)
    print(f'check_install: {len(checked)} passed, 0 failed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
