#!/usr/bin/env python3
"""verbs.py - PROTOCOL.md's table of verbs (§3) says what the command table says.

The command table (src/server/cmd/commands.c, rows of struct proto_cmd: name,
arity, flags, cost, handler, usage, help) is the one definition of a verb: the
parser counts arguments by it, the dispatcher resolves its flags, `help`
prints it. PROTOCOL.md's table of verbs is derived from it: for every row, in
the table's order, the columns Verb (the usage), Args (the arity), Flags and
Cost are what this script makes of the row, and only the last column (what
the verb does, in more words than the row's one-line help) is written by
hand. `make check` runs this script, which fails on any difference: a verb
missing or extra or out of order, or another usage, arity, flag or cost;
`tests/verbs.py --write` rewrites those four columns from the table (a new
verb gets its help line as its prose) and keeps the prose.

Why derived columns and a check rather than a table kept by hand and compared:
nobody types a verb's arity or cost twice; the table is changed and the doc
follows with one command. Why read commands.c rather than ask the program
(a `bitarenad --dump-commands`): no option in the server that only the docs
need, and the check runs without a build (a doc edit, `make distcheck`). The
table's rows are plain C initialisers; the reader fails loudly on anything it
cannot read rather than guess. Flags are shown resolved to commands.h's
enum cmd_flags (PLAYER is login, game, seat; a member of the enum made of
others counts as those) and PROTOCOL.md's legend of flags must name each once.

Usage: tests/verbs.py [--write] [srcdir]   (srcdir: $BITARENA_SRCDIR or the tree
this script is in).
"""
import os
import re
import sys

TOKEN = re.compile(r'\s+|/\*.*?\*/|//[^\n]*|"(?:[^"\\]|\\.)*"|[A-Za-z_]\w*|\d+|\S', re.S)


def tokens(text):
    """C tokens of text, blanks and comments dropped, adjacent string literals joined."""
    out = []
    for m in TOKEN.finditer(text):
        t = m.group(0)
        if t.isspace() or t.startswith("/*") or t.startswith("//"):
            continue
        if t.startswith('"'):
            s = re.sub(r"\\(.)", lambda e: {"n": "\n", "t": "\t"}.get(e.group(1), e.group(1)),
                       t[1:-1])
            if out and isinstance(out[-1], Str):
                out[-1] = Str(out[-1] + s)
                continue
            t = Str(s)
        out.append(t)
    return out


class Str(str):
    """A C string literal's value (as opposed to an identifier)."""


def flag_names(commands_h):
    """The flags of enum cmd_flags in their order, {C name: shown name}, and the members that
    stand for several of them ({C name: expression}: CMD_SHARED = CMD_SHARED_SEEKS | ...)."""
    body = re.search(r"enum cmd_flags \{(.*?)\};", commands_h, re.S)
    if body is None:
        raise SystemExit("verbs: no enum cmd_flags in commands.h")
    body = re.sub(r"/\*.*?\*/", "", body.group(1), flags=re.S)
    members = re.findall(r"(CMD_\w+)\s*=\s*([^,]*)", body)
    flags = {n: n[len("CMD_"):].lower() for n, v in members if "CMD_" not in v}
    return flags, {n: v for n, v in members if "CMD_" in v}


def read_table(srcdir):
    """[{name, min, max, flags (C names), cost, usage, help}] of commands.c, in order."""
    path = os.path.join(srcdir, "src/server/cmd/commands.c")
    text = open(path, encoding="utf-8").read()
    flags, aliases = flag_names(open(os.path.join(srcdir, "src/server/cmd/commands.h"),
                                     encoding="utf-8").read())
    limits = open(os.path.join(srcdir, "src/proto/limits.h"), encoding="utf-8").read()
    consts = {k: int(v) for k, v in re.findall(r"#define (PROTO_\w+)\s+(\d+)\b", limits)}
    # the shorthands the table is written with (#define LOGIN CMD_LOGIN, PLAYER (...))
    defines = dict(re.findall(r"^#define (\w+)\s+(.*?)\s*(?:/\*.*)?$", text, re.M))
    defines.update(aliases)

    def resolve(expr, seen=()):
        out = []
        for t in tokens(expr) if isinstance(expr, str) else expr:
            if t in ("|", "(", ")") or t == "0":
                continue
            if t in flags:
                out.append(t)
            elif t == "PROTO_REST":
                out.append("CMD_REST")
            elif t in defines and t not in seen:
                out += resolve(defines[t], seen + (t,))
            else:
                raise SystemExit(f"verbs: commands.c: cannot read the flag {t!r}")
        return out

    start = text.find("static const struct proto_cmd table[] = {")
    end = text.find("\n};", start)
    if start < 0 or end < 0:
        raise SystemExit("verbs: commands.c: no `static const struct proto_cmd table[]`")
    toks = tokens(text[text.index("{", start) + 1:end])
    rows, i = [], 0
    while i < len(toks):
        if toks[i] != "{":
            raise SystemExit(f"verbs: commands.c: a row should open with {{, not {toks[i]!r}")
        fields, cur, i = [], [], i + 1
        while toks[i] != "}":
            if toks[i] == ",":
                fields.append(cur)
                cur = []
            else:
                cur.append(toks[i])
            i += 1
        fields.append(cur)
        i += 1
        if i < len(toks) and toks[i] == ",":
            i += 1
        ok = (len(fields) == 8 and all(len(f) >= 1 for f in fields)
              and all(len(fields[k]) == 1 for k in (0, 1, 2, 4, 5, 6, 7))
              and isinstance(fields[0][0], Str) and isinstance(fields[6][0], Str)
              and isinstance(fields[7][0], Str))
        if not ok:
            raise SystemExit(f"verbs: commands.c: cannot read the row {fields!r}")

        def num(t):
            if t.isdigit():
                return int(t)
            if t in consts:
                return consts[t]
            raise SystemExit(f"verbs: commands.c: cannot read the number {t!r}")
        fl = set(resolve(fields[3]))
        rows.append({"name": fields[0][0], "min": num(fields[1][0]), "max": num(fields[2][0]),
                     "flags": [f for f in flags if f in fl], "cost": num(fields[4][0]),
                     "usage": fields[6][0], "help": fields[7][0]})
    return rows, flags, consts["PROTO_MAX_ARGS"]


def cells(row, flags, max_args):
    """The Verb, Args, Flags and Cost cells PROTOCOL.md shows for a row."""
    lo, hi = row["min"], row["max"]
    args = f"{lo}+" if hi == max_args else str(lo) if lo == hi else f"{lo}–{hi}"
    fl = ", ".join(flags[f] for f in row["flags"]) or "–"
    return ["`" + row["usage"].replace("|", "\\|") + "`", args, fl, str(row["cost"])]


HEAD = "| Verb | Args | Flags | Cost | What it does |"
RULE = "| --- | --- | --- | --- | --- |"


def split_row(line):
    """The cells of a markdown table row (a \\| inside a cell is no separator)."""
    parts = re.split(r"(?<!\\)\|", line.strip())
    return [p.strip() for p in parts[1:-1]]


def doc_table(doc):
    """(first line index, end index, [cells]) of the table of verbs in PROTOCOL.md."""
    lines = doc.split("\n")
    try:
        at = lines.index(HEAD)
    except ValueError:
        raise SystemExit(f"verbs: PROTOCOL.md has no table headed {HEAD!r}")
    if lines[at + 1] != RULE:
        raise SystemExit(f"verbs: PROTOCOL.md: the table of verbs should go on with {RULE!r}")
    end = at + 2
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return lines, at, end, [split_row(line) for line in lines[at + 2:end]]


def verb_of(cell):
    m = re.match(r"`([a-z]+)", cell)
    return m.group(1) if m else None


def legend(doc):
    """The flags PROTOCOL.md's legend names (the first cell of each row under "| Flag |")."""
    m = re.search(r"^\| Flag \| .*\n\| --- .*\n((?:\|.*\n)*)", doc, re.M)
    if m is None:
        raise SystemExit("verbs: PROTOCOL.md has no legend of flags (a table headed | Flag |)")
    return [re.sub(r"`", "", split_row(line)[0]) for line in m.group(1).splitlines()]


def cost_table(doc):
    """{cost: [verbs]} of §13's table of costs ("| Cost | Commands |")."""
    m = re.search(r"^\| Cost \| Commands \|\n\| -+:? \| --- \|\n((?:\|.*\n)*)", doc, re.M)
    if m is None:
        raise SystemExit("verbs: PROTOCOL.md has no table of costs (headed | Cost | Commands |)")
    out = {}
    for line in m.group(1).splitlines():
        c = split_row(line)
        out[int(c[0])] = re.findall(r"`([a-z]+)`", c[1])
    return out


def main():
    argv = sys.argv[1:]
    write = "--write" in argv
    argv = [a for a in argv if a != "--write"]
    srcdir = argv[0] if argv else os.environ.get(
        "BITARENA_SRCDIR", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    rows, flags, max_args = read_table(srcdir)
    path = os.path.join(srcdir, "protocol/PROTOCOL.md")
    doc = open(path, encoding="utf-8").read()
    lines, at, end, have = doc_table(doc)
    prose = {verb_of(c[0]): c[-1] for c in have if c}
    want = [cells(r, flags, max_args) + [prose.get(r["name"], r["help"])] for r in rows]
    if write:
        lines[at + 2:end] = ["| " + " | ".join(c) + " |" for c in want]
        open(path, "w", encoding="utf-8").write("\n".join(lines))
        print(f"verbs: PROTOCOL.md's table of verbs rewritten from {len(rows)} rows")
        return 0
    bad = []
    names = [r["name"] for r in rows]
    doc_names = [verb_of(c[0]) if c else None for c in have]
    if doc_names != names:
        missing = [n for n in names if n not in doc_names]
        extra = [n for n in doc_names if n not in names]
        bad.append(f"verbs in PROTOCOL.md: {doc_names}\n  in the table:     {names}"
                   + (f"\n  missing: {missing}" if missing else "")
                   + (f"\n  not in the table: {extra}" if extra else ""))
    else:
        cols = ["usage", "args", "flags", "cost"]
        for r, w, h in zip(rows, want, have):
            if len(h) != 5:
                bad.append(f"{r['name']}: the row has {len(h)} cells, not 5")
                continue
            for k in range(4):
                if w[k] != h[k]:
                    bad.append(f"{r['name']}: {cols[k]} is {w[k]} in the table, "
                               f"{h[k]} in PROTOCOL.md")
    costs = cost_table(doc)
    for r in rows:
        # a paced verb costs nothing when it is played: listed under 0 and under its cost
        want_at = {r["cost"]} | ({0} if "CMD_PACED" in r["flags"] else set())
        at = {c for c, verbs in costs.items() for v in verbs if v == r["name"]}
        n = sum(verbs.count(r["name"]) for verbs in costs.values())
        if at != want_at or n != len(want_at):
            bad.append(f"{r['name']}: §13's table of costs lists it under {sorted(at)}, "
                       f"the command table costs {sorted(want_at)}")
    shown = legend(doc)
    for f in flags.values():
        if shown.count(f) != 1:
            bad.append(f"the legend of flags names {f} {shown.count(f)} times, not once")
    for f in shown:
        if f not in flags.values():
            bad.append(f"the legend of flags names {f}, which commands.h has not")
    for b in bad:
        print(f"verbs: {b}")
    if bad:
        print("verbs: the command table wins: tests/verbs.py --write rewrites the columns "
              "from it (then write what a new verb does)")
        return 1
    print(f"verbs: PROTOCOL.md's {len(rows)} verbs are the command table's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
