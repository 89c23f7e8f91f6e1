#!/usr/bin/env python3
"""manpages.py - the man pages say what the tables say: they cannot drift.

docs/man/*.in are the sources of bitarenad(8), bitarena(1) and bitarena-protocol(7) (the
build replaces their @dir@ words with the configured directories). Each holds blocks
between `.\\" BEGIN <name>` and `.\\" END <name>` lines that are made from the one
definition of what they list, and the prose around them written by hand:
  bitarenad.8.in          options   every row of the option table (bitarenad --dump-options:
                                    names, letters, arguments, help with range and default,
                                    run time, the build part needed), by section
  bitarena.1.in           commands  every subcommand of the tool (bitarena --help) with its
                                    usage and help (bitarena CMD --help)
  bitarena-protocol.7.in  verbs     every verb of the command table (commands.c, read as
                                    tests/verbs.py reads it) with its usage and help
                          codes     every code of src/proto/errors.def with its meaning
`make check` runs this script, which fails on any difference (a row missing, extra, out of
order or said otherwise) and, where groff is installed, on any warning groff gives for the
built pages but "cannot adjust line" (docs/man/ of the build tree; no @dir@ word may be left
in them).
`make manpages` in the build directory (tests/manpages.py --write in make check's environment)
rewrites the blocks from the tables and keeps the prose.

Why blocks made from the tables rather than pages compared with them: nobody types an option's
range or a verb's usage twice, and a new option or verb reaches the manual with one command.
The configured directories in the options' help (the installed page, the store) are written
back as their @dir@ words, so the sources hold no one build's paths.

Usage: tests/manpages.py [--write]   (in the environment `make check` sets: BITARENAD, BITARENA,
BITARENA_SRCDIR, BITARENA_BUILDDIR and the BITARENA_<DIR>s of Makefile.am; `make manpages`
sets it for --write).
"""
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import error_codes  # noqa: E402
import verbs  # noqa: E402

PAGES = ('bitarenad.8', 'bitarena.1', 'bitarena-protocol.7')
# the configured directories written back as the words the build replaces (longest first)
DIRS = ('pkgdatadir', 'localstatedir', 'sysconfdir', 'sbindir')


def roff(text):
    """text as a line of roff: backslashes and hyphens escaped, a leading . or ' guarded."""
    text = text.replace('\\', '\\e').replace('-', '\\-')
    return '\\&' + text if text.startswith(('.', "'")) else text


def unconfigure(text):
    """The build's directories in text as their @dir@ words."""
    vals = sorted(((os.environ.get('BITARENA_' + d.upper(), ''), d) for d in DIRS),
                  key=lambda v: -len(v[0]))
    for val, word in vals:
        if val:
            text = text.replace(val, '@' + word + '@')
    return text


def run(*argv):
    out = subprocess.run(argv, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f'manpages: {" ".join(argv)} exited {out.returncode}: {out.stderr}')
    return out.stdout


def options_block():
    lines, section = [], None
    rows = [json.loads(line) for line in run(os.environ['BITARENAD'], '--dump-options')
            .splitlines()]
    for r in rows:
        if r['section'] != section:
            section = r['section']
            lines.append('.SS ' + roff(section))
        name = ('-' + r['letter'] + ', ' if r['letter'] else '') + '--' + r['name']
        lines.append('.TP')
        if r['metavar']:
            lines.append(f'.BI "{roff(name)} " "{roff(r["metavar"])}"')
        else:
            lines.append(f'.B "{roff(name)}"')
        text = unconfigure(r['text'])
        text = text[0].upper() + text[1:] + ('' if text.endswith('.') else '.')
        if r['runtime']:
            text += ' Run time.'
        if r['needs']:
            text += f' Needs {r["needs"]} (a build with it).'
        lines.append(roff(text))
    return lines


def commands_block():
    tool = os.environ['BITARENA']
    helptext = run(tool, '--help')
    names = re.findall(r'^  (\S+)  ', helptext.split('\ncommands:\n', 1)[1], re.M)
    if not names:
        raise SystemExit('manpages: bitarena --help lists no command')
    lines = []
    for name in names:
        usage_line, help_line = run(tool, name, '--help').rstrip('\n').split('\n', 1)
        prefix = 'usage: bitarena ' + name
        if not usage_line.startswith(prefix):
            raise SystemExit(f'manpages: bitarena {name} --help: {usage_line!r}')
        lines += ['.SS ' + roff(name), '.B bitarena ' + roff(name)]
        if usage_line[len(prefix):].strip():
            lines.append(roff(usage_line[len(prefix):].strip()))
        lines += ['.PP', roff(help_line[0].upper() + help_line[1:].rstrip('.') + '.')]
    return lines


def verbs_block(srcdir):
    rows, _, _ = verbs.read_table(srcdir)
    lines = []
    for r in rows:
        lines += ['.TP', f'.B "{roff(r["usage"])}"',
                  roff(r['help'][0].upper() + r['help'][1:].rstrip('.') + '.')]
    return lines


def codes_block(srcdir):
    text = open(os.path.join(srcdir, 'src/proto/errors.def'), encoding='utf-8').read()
    meaning = dict(re.findall(r'^(?:ERR|INFO)\(([A-Z0-9_]+),\s*"((?:[^"\\]|\\.)*)"', text, re.M))
    lines = []
    for kind, code in error_codes.codes(srcdir):
        if code not in meaning:
            raise SystemExit(f'manpages: errors.def: no meaning read for {code}')
        what = 'error' if kind == 'ERR' else 'info'
        lines += ['.TP', '.B ' + code, roff(f'{meaning[code][0].upper()}{meaning[code][1:]} '
                                            f'({what}).')]
    return lines


def blocks(srcdir):
    return {
        'bitarenad.8': {'options': options_block()},
        'bitarena.1': {'commands': commands_block()},
        'bitarena-protocol.7': {'verbs': verbs_block(srcdir), 'codes': codes_block(srcdir)},
    }


def splice(text, name, new_lines, page):
    """text with block name replaced by new_lines; also the old block's lines."""
    begin = re.search(r'^\.\\" BEGIN ' + name + r'\b.*\n', text, re.M)
    end = re.search(r'^\.\\" END ' + name + r'\n', text, re.M)
    if not begin or not end or end.start() < begin.end():
        raise SystemExit(f'manpages: {page}.in has no block {name} (.\\" BEGIN/END {name})')
    old = text[begin.end():end.start()].splitlines()
    body = ''.join(line + '\n' for line in new_lines)
    return text[:begin.end()] + body + text[end.start():], old


def groff_warnings(builddir):
    """groff's warnings for each built page, and any @word@ left in it."""
    bad = []
    for page in PAGES:
        path = os.path.join(builddir, 'docs', 'man', page)
        if not os.path.exists(path):
            bad.append(f'{path} is not built')
            continue
        text = open(path, encoding='utf-8').read()
        left = re.findall(r'@[A-Za-z_]+@', text)
        if left:
            bad.append(f'{page}: not configured: {", ".join(sorted(set(left)))}')
        if shutil.which('groff'):
            # every warning but 'break' ("cannot adjust line"): a configured directory
            # (a distcheck's long prefix) cannot be broken, whatever the page says
            out = subprocess.run(['groff', '-man', '-Tutf8', '-ww', '-Wbreak', '-z', path],
                                 capture_output=True, text=True)
            if out.returncode != 0 or out.stderr.strip():
                bad.append(f'{page}: groff says:\n{out.stderr}')
    return bad


def main():
    write = '--write' in sys.argv[1:]
    srcdir = os.environ.get('BITARENA_SRCDIR', os.path.dirname(HERE))
    for env in ('BITARENAD', 'BITARENA', 'BITARENA_PKGDATADIR', 'BITARENA_LOCALSTATEDIR'):
        if not os.environ.get(env):
            raise SystemExit(f'manpages: {env} is not set (run through make check)')
    made = blocks(srcdir)
    diffs, count = [], 0
    for page, want in made.items():
        path = os.path.join(srcdir, 'docs', 'man', page + '.in')
        text = open(path, encoding='utf-8').read()
        for name, lines in want.items():
            text, old = splice(text, name, lines, page)
            count += sum(1 for line in lines if line in ('.TP', '.PP'))
            if old != lines:
                missing = [line for line in lines if line not in old][:3]
                extra = [line for line in old if line not in lines][:3]
                diffs.append(f'{page}.in, {name}: not as the table says; first lines only in '
                             f'the table: {missing}; only in the page: {extra}')
        if write:
            with open(path, 'w', encoding='utf-8') as f:
                f.write(text)
    if write:
        print(f'manpages: {len(made)} pages written')
        return 0
    builddir = os.environ.get('BITARENA_BUILDDIR', '.')
    diffs += groff_warnings(builddir)
    for d in diffs:
        print('manpages: FAIL: ' + d)
    if diffs:
        print('manpages: `make manpages` in the build directory rewrites the blocks from the '
              'tables')
        return 1
    checks = sum(len(w) for w in made.values()) + len(PAGES)
    print(f'manpages: {count} entries of {checks - len(PAGES)} tables in {len(PAGES)} pages as '
          f'the tables say; groff '
          f'{"finds nothing to warn of" if shutil.which("groff") else "is not installed"}')
    print(f'manpages: {checks} passed, 0 failed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
