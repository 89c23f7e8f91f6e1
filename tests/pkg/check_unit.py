#!/usr/bin/env python3
"""check_unit.py - the systemd unit (systemd/bitarena.service, as built) is one systemd takes.

- `systemd-analyze verify` finds nothing to say of it (its ExecStart pointed at this build's
  bitarenad, its man pages at this build's, as the installed ones would be);
- what issue 25 asks of it: User=bitarena, StateDirectory=bitarena, ReadWritePaths for the
  state only, ProtectSystem=strict, NoNewPrivileges=yes, Type=simple, a reload by SIGHUP;
- LimitNOFILE is --max-clients' default and the 64 descriptors bitarenad keeps for itself
  (main.c, fit_fd_limit), read from bitarenad --dump-options;
- its ExecStart names options of the table only, and that command line, with the state
  directory systemd would give and the build's config file, starts bitarenad (a free port and
  a port file added: the default port may be taken on a shared machine) and stops it cleanly;
- `systemd-analyze security --offline=yes` rates its exposure at 2.0 or less (printed).

Skipped (exit 77), saying so, where systemd-analyze is not installed.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

RESERVE = 64  # the descriptors bitarenad keeps beside its connections (main.c, fit_fd_limit)


def fail(msg):
    print('check_unit: FAIL: ' + msg)
    sys.exit(1)


def main():
    analyze = shutil.which('systemd-analyze')
    if analyze is None:
        print('check_unit: SKIP: systemd-analyze is not installed (apt-get install systemd)')
        return 77
    build, daemon = os.environ['BITARENA_BUILDDIR'], os.environ['BITARENAD']
    unit_path = os.path.join(build, 'systemd', 'bitarena.service')
    unit = open(unit_path).read()
    keys = {}
    for line in unit.splitlines():
        m = re.match(r'^([A-Za-z]+)=(.*)$', line)
        if m:
            keys.setdefault(m.group(1), []).append(m.group(2))
    one = lambda k: (keys.get(k) or [None])[-1]
    checked = []

    want = {'Type': 'simple', 'User': 'bitarena', 'Group': 'bitarena',
            'StateDirectory': 'bitarena', 'ReadWritePaths': '/var/lib/bitarena',
            'ProtectSystem': 'strict', 'NoNewPrivileges': 'yes',
            'ExecReload': '/bin/kill -HUP $MAINPID'}
    for k, v in want.items():
        if keys.get(k) != [v]:
            fail(f'{k}={keys.get(k)}, not [{v!r}]')
    checked.append('directives: ' + ', '.join(f'{k}={v}' for k, v in want.items()))

    rows = {r['name']: r for r in map(json.loads, subprocess.run(
        [daemon, '--dump-options'], capture_output=True, text=True, check=True).stdout
        .splitlines())}
    nofile = int(rows['max-clients']['default']) + RESERVE
    if one('LimitNOFILE') != str(nofile):
        fail(f'LimitNOFILE={one("LimitNOFILE")}, not --max-clients + {RESERVE} = {nofile}')
    checked.append(f'LimitNOFILE={nofile}: --max-clients {rows["max-clients"]["default"]} '
                   f'+ {RESERVE}')

    exec_start = one('ExecStart').split()
    if os.path.basename(exec_start[0]) != 'bitarenad':
        fail('ExecStart runs ' + exec_start[0])
    for word in exec_start[1:]:
        if word.startswith('--') and word[2:] not in rows:
            fail(f'ExecStart: {word} is not an option of bitarenad')

    tmp = tempfile.mkdtemp(prefix='bitarena-unit-')
    try:
        # verify: this build's binary and man pages where the installed ones would be
        for sect, page in (('8', 'bitarenad.8'), ('7', 'bitarena-protocol.7'),
                           ('1', 'bitarena.1')):
            os.makedirs(os.path.join(tmp, 'man', 'man' + sect), exist_ok=True)
            shutil.copy(os.path.join(build, 'docs', 'man', page),
                        os.path.join(tmp, 'man', 'man' + sect))
        copy = os.path.join(tmp, 'bitarena.service')
        with open(copy, 'w') as f:
            f.write(unit.replace('ExecStart=' + exec_start[0], 'ExecStart=' + daemon))
        env = {**os.environ, 'MANPATH': os.path.join(tmp, 'man'), 'SYSTEMD_LOG_COLOR': '0'}
        out = subprocess.run([analyze, 'verify', copy], capture_output=True, text=True,
                             env=env)
        if out.returncode != 0 or out.stdout.strip() or out.stderr.strip():
            fail(f'systemd-analyze verify ({out.returncode}):\n{out.stdout}{out.stderr}')
        checked.append('systemd-analyze verify: nothing to say')

        sec = subprocess.run([analyze, 'security', '--offline=yes', '--no-pager', copy],
                             capture_output=True, text=True, env=env)
        m = re.search(r'Overall exposure level for \S+: ([0-9.]+) (\w+)', sec.stdout + sec.stderr)
        if not m:
            fail('systemd-analyze security said:\n' + sec.stdout + sec.stderr)
        if float(m.group(1)) > 2.0:
            fail(f'systemd-analyze security: exposure {m.group(1)} {m.group(2)} (over 2.0)')
        checked.append(f'systemd-analyze security: exposure {m.group(1)} {m.group(2)}')

        # the unit's command line starts bitarenad
        state = os.path.join(tmp, 'state')
        pf = os.path.join(tmp, 'port')
        argv = [daemon] + [w.replace('${STATE_DIRECTORY}', state) for w in exec_start[1:]]
        conf = os.path.join(build, 'bitarenad.conf')
        argv = [conf if a.endswith('/bitarena/bitarenad.conf') else a for a in argv]
        argv += ['--listen', '127.0.0.1:0', '--port-file', pf]
        log = open(os.path.join(tmp, 'stderr'), 'w+')
        proc = subprocess.Popen(argv, stdout=log, stderr=log)
        end = time.monotonic() + 30
        while not os.path.exists(pf) and proc.poll() is None and time.monotonic() < end:
            time.sleep(0.02)
        ok = os.path.exists(pf) and proc.poll() is None
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        st = proc.wait(30)
        log.seek(0)
        if not ok or st != 0 or not os.path.exists(os.path.join(state, 'bitarena.db')):
            fail(f'the unit\'s command line ({" ".join(argv)}) exited {st}:\n{log.read()}')
        checked.append('its command line starts bitarenad with the store in the state '
                       'directory, and stops it cleanly')
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for c in checked:
        print('check_unit: ' + c)
    print(f'check_unit: {len(checked)} passed, 0 failed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
