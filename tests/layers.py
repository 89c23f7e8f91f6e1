#!/usr/bin/env python3
"""layers.py - no two files of src/server call each other in a circle.

Reads the symbols of the server library's object files (nm: what each file
defines, what it uses), draws an edge from a file to every file that defines a
symbol it uses, and fails on any cycle, printing it with the symbols that make
each step. Calls through a function pointer (the callbacks a layer registers
with the one below) are no symbols, so they are allowed: that is how news goes
upward. Run by `make check` (the library is $BITARENA_BUILDDIR/libbitarenad.a),
or by hand: tests/layers.py [path/to/libbitarenad.a].
"""
import os
import subprocess
import sys


def symbols(lib):
    """{member: (defined set, used set)} from `nm` of the archive."""
    out = subprocess.run(["nm", "-A", "--defined-only", lib], capture_output=True, text=True,
                         check=True).stdout
    defs, uses = {}, {}
    for line in out.splitlines():
        # libbitarenad.a:conn.o:0000000000000000 T conn_open
        head, _, rest = line.rpartition(":")
        member = head.split(":")[-1]
        parts = rest.split()
        if len(parts) == 3 and parts[1] in "TDBRCGSV":  # global symbols only
            defs.setdefault(member, set()).add(parts[2])
    out = subprocess.run(["nm", "-A", "--undefined-only", lib], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        head, _, rest = line.rpartition(":")
        member = head.split(":")[-1]
        parts = rest.split()
        if parts and parts[0] == "U":
            uses.setdefault(member, set()).add(parts[1])
    return defs, uses


def graph(defs, uses):
    """{file: {file it calls: [symbols]}}"""
    owner = {s: m for m, ss in defs.items() for s in ss}
    g = {m: {} for m in set(defs) | set(uses)}
    for m, ss in uses.items():
        for s in sorted(ss):
            o = owner.get(s)
            if o is not None and o != m:
                g[m].setdefault(o, []).append(s)
    return g


def cycles(g):
    """The strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in g[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(g):
        if v not in index:
            visit(v)
    return comps


def one_cycle(g, comp):
    """A path from comp[0] back to itself inside comp."""
    inside = set(comp)
    start = comp[0]
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(g[v]):
            if w not in inside:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return comp


def main():
    lib = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.environ.get("BITARENA_BUILDDIR", "."), "libbitarenad.a")
    if not os.path.exists(lib):
        print(f"layers: {lib} is not built", file=sys.stderr)
        return 1
    g = graph(*symbols(lib))
    comps = cycles(g)
    for comp in comps:
        path = one_cycle(g, comp)
        print(f"layers: a circle among {', '.join(comp)}:")
        for a, b in zip(path, path[1:]):
            syms = g[a][b]
            more = f" and {len(syms) - 3} more" if len(syms) > 3 else ""
            print(f"  {a} -> {b}  ({', '.join(syms[:3])}{more})")
    if comps:
        return 1
    print(f"layers: {len(g)} files of the server, no circle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
