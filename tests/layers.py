#!/usr/bin/env python3
"""layers.py - the tree is the architecture: every call goes down, folder by folder.

For each of the three libraries (the server, the games, the client tool) it
reads the symbols of the object files that make it up (nm: what each file
defines, what it uses) and draws an edge from a file to every file that
defines a symbol it uses. Then it fails on
  - a call upward: from a folder (or file) to one ranked above it in RANKS;
  - a call between two folders that share a rank (the games: mnk, tak and
    xmas sit side by side and never call each other);
  - a file in a folder that RANKS ranks, under a name it does not know: a new
    folder or file gets a rank here, with the reason it sits there;
  - any circle of calls among files, within a folder too.
printing each offending edge with the symbols that make it. Calls through a
function pointer (the callbacks a layer registers with the one below) are no
symbols, so they are allowed: that is how news goes upward.

Which objects make up a library is asked of the build's own Makefile (the
automake variables libbitarenad_a_OBJECTS, bitarenad_OBJECTS, ...), so
conditional sources and out-of-tree builds (make distcheck) are seen as built;
with subdir-objects each object sits under its source's path in the build
tree (src/server/net/conn.o, src/server/bitarenad-main.o), which gives its
folder. Before the tree, the checker checks itself on small made-up graphs.

Run by `make check` (in $BITARENA_BUILDDIR), or by hand: tests/layers.py [builddir].
"""
import fnmatch
import os
import subprocess
import sys
import tempfile

# Each library: the make variables holding its objects, the folder its sources live under,
# and RANKS: for each ranked folder, its children (file or folder names, shell patterns
# allowed) from the top down, one rank per row, each with why it sits there. A folder
# without a row of its own is one unit: its files may call each other, in no circle.
LIBRARIES = [
    {
        "name": "server",
        "what": "libbitarenad.a and bitarenad",
        "objects": ["libbitarenad_a_OBJECTS", "bitarenad_OBJECTS"],
        "root": "src/server",
        "ranks": {
            "src/server": [
                (("main.c", "server.c"),
                 "the process: main.c reads the command line, server.c wires the layers "
                 "(registers their callbacks, opens the store, owns the loop); nothing calls them"),
                (("ports", "api", "house"),
                 "foreign protocols (playtak) and the HTTP API with the exports: front doors "
                 "that turn their requests into the command table's or read the lobby, the "
                 "sessions and the store; the house bots, which play through an in-process "
                 "transport; only main.c and server.c call them; above the "
                 "cluster by choice, they never call each other"),
                (("cluster",),
                 "a node of a cluster: it relays lines to the command table, takes games over "
                 "through the journal, and reaches every layer below; the layers below hear it "
                 "only through the router and the hooks it registers"),
                (("cmd",),
                 "the command table and its dispatcher: handlers call the events, the records, the "
                 "sessions and lobby, the messages, connections and budgets; called by server.c, "
                 "the cluster and the ports"),
                (("events",),
                 "what starts games by itself (tournaments, pools): it pairs with src/arena, starts "
                 "games through the play layer's game-start path, stores through the journal "
                 "and hears each game's end through the callback it registers there"),
                (("records",),
                 "games and accounts as stored (journal, accounts, archive): they call the "
                 "play layer (a login, a restored game), the messages and the store"),
                (("play",),
                 "games and people in memory (sessions, offers, lobby, direct, identity): "
                 "they call the messages and util; the journal hears them through the session "
                 "hooks registered from above"),
                (("msg",),
                 "what the layers above keep per connection (struct client) and send on it "
                 "(JSON and text messages, replies, round trips, the parser): calls net and util"),
                (("net",),
                 "connections and their transports (conn, tcp, ws, framing, address counts): "
                 "calls util only; news goes up through the conn_events server.c registers"),
                (("store",),
                 "storage behind one interface (SQLite, PostgreSQL, the writer and reader "
                 "threads): called by the records, the cluster and server.c, it calls nothing "
                 "of the server; below net and msg by choice, they never meet"),
                (("util",),
                 "leaves (text and logs, output buffers, JSON output, budgets, rate limits, "
                 "Glicko-2): they call nothing of the server"),
            ],
        },
    },
    {
        "name": "games",
        "what": "libbitarena.a",
        "objects": ["libbitarena_a_OBJECTS"],
        "root": "src",
        "ranks": {
            "src": [
                (("games",), "the engines and what drives them"),
                (("arena",), "tournaments (pairing, tie-breaks, TRF) and a match's statistics "
                 "(Elo, LOS, SPRT): pure arithmetic that calls nothing of the tree"),
                (("core", "proto"),
                 "bitboard geometry, the RNG and the protocol's limits: header-only and pure "
                 "(no objects today); a source file here may call nothing above"),
            ],
            "src/games": [
                (("book.c", "adjudicate.c", "accept.c"),
                 "what engine matches add: opening books and adjudication, played through the "
                 "replayer; and the accept filters players set, read against the table"),
                (("games.c", "record.c", "game_replay.c", "search.c"),
                 "what drives any engine through its game_ops: the table and game_find(), the "
                 "record format, the move-list replayer, the generic search"),
                (("mnk", "tak", "xmas"),
                 "one folder per engine, side by side: an engine never calls another"),
                (("game.c",),
                 "what every engine calls (options, the text buffer, scores, generic perft); "
                 "it calls no engine and not the table"),
            ],
            "src/arena": [
                (("dutch.c", "trf.c", "tiebreak.c"),
                 "the Swiss: the Dutch pairing (over the matching), the TRF-16 writer and the "
                 "tie-breaks, each reading the state swiss.c derives"),
                (("swiss.c",), "a Swiss tournament's state: scores, colours, floats, byes"),
                (("matching.c", "roundrobin.c", "live.c", "ladder.c", "arena.c", "stats.c",
                  "pool.c"),
                 "leaves: the blossom matching, Berger tables and gauntlet, the live arena, "
                 "the ladder's pairing, error names, a match's statistics, the pools' quick "
                 "pairing"),
            ],
            "src/games/mnk": [
                (("mnk_ops.c",), "game_ttt and game_mnk: the tables, the entries that join rules "
                 "and notation, the presentations; only games.c names them"),
                (("mnk_notation.c",), "cells and positions as text: may call the rules"),
                (("mnk.c",), "the rules"),
            ],
            "src/games/tak": [
                (("tak_ops.c",), "game_tak: the table, the entries that join rules and notation, "
                 "the presentations; only games.c names it"),
                (("tak_search.c",), "the Tak bot: searches on the rules' make/unmake"),
                (("tak_ptn.c",), "PTN and TPS: calls the rules, never the reverse"),
                (("tak.c",), "the rules"),
                (("tak_slide.c",), "the slide patterns' tables, read by the rules and the bot"),
            ],
            "src/games/xmas": [
                (("xmas_ops.c",), "game_xmas: the table, a seat's actions, the presentations; "
                 "only games.c names it"),
                (("xmas_bot.c",), "the Xmas Rush bot: plays from a seat's contest input"),
                (("xmas_notation.c",), "action lines and the contest input: calls the rules, "
                 "never the reverse"),
                (("xmas.c",), "the rules, exact to the referee"),
                (("xmas_push.c",), "the board: tiles, pushes and paths as bitboards"),
            ],
        },
    },
    {
        "name": "client",
        "what": "libbitarenaclient.a and bitarena",
        "objects": ["libbitarenaclient_a_OBJECTS", "bitarena_OBJECTS"],
        "root": "clients",
        "ranks": {
            "clients": [
                (("bitarena.c",), "main() and the table of subcommands, which it hands down to "
                 "lib/args.c; nothing calls it"),
                (("cmd_*.c",), "one subcommand a file, reached through the table only"),
                (("load",), "bitarena load: its subcommand and its parts (libuv line "
                 "connections, statistics, the acknowledged-move log and its check)"),
                (("lib",), "what the subcommands share: the client library (net.c, client.c: "
                 "libbitarenaclient.a), arguments, child processes, TEI, CodinGame I/O"),
            ],
        },
    },
]

SYMBOL_KINDS = "TDBRCGSVW"  # global definitions (code, data, bss, read-only, common, weak)


class Unranked(Exception):
    pass


def make_objects(builddir, variables):
    """The object files (paths relative to builddir) in the given automake variables."""
    with tempfile.NamedTemporaryFile("w", suffix=".mk", delete=False) as mk:
        mk.write("layers-print-objects:\n")
        for v in variables:
            mk.write(f"\t@echo '{v}' $({v})\n")
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    try:
        out = subprocess.run(["make", "-s", "-f", "Makefile", "-f", mk.name,
                              "layers-print-objects"], cwd=builddir, env=env, text=True,
                             capture_output=True)
    finally:
        os.unlink(mk.name)
    if out.returncode != 0:
        raise SystemExit(f"layers: make in {builddir} failed:\n{out.stderr}")
    objects = {}
    for line in out.stdout.splitlines():
        var, *objs = line.split()
        prefix = var[:-len("_OBJECTS")] + "-"  # automake's per-target object prefix
        for o in objs:
            objects[o] = prefix
    return objects


def source_of(obj, prefix):
    """src/server/bitarenad-main.o -> src/server/main.c"""
    folder, base = os.path.split(obj)
    if base.startswith(prefix):
        base = base[len(prefix):]
    return os.path.join(folder, os.path.splitext(base)[0] + ".c")


def nm_symbols(builddir, objects):
    """({file: defined set}, {file: used set}) of the objects, keyed by source path."""
    src = {o: source_of(o, p) for o, p in objects.items()}
    defs, uses = {f: set() for f in src.values()}, {f: set() for f in src.values()}
    for flag, table in (("--defined-only", defs), ("--undefined-only", uses)):
        out = subprocess.run(["nm", "-A", flag] + sorted(objects), cwd=builddir,
                             capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            obj, _, rest = line.partition(":")  # conn.o:0000000000000000 T conn_open
            parts = rest.split()
            if flag == "--defined-only" and len(parts) == 3 and parts[1] in SYMBOL_KINDS:
                table[src[obj]].add(parts[2])
            elif flag == "--undefined-only" and len(parts) == 2 and parts[0] == "U":
                table[src[obj]].add(parts[1])
    return defs, uses


def graph(defs, uses):
    """{file: {file it calls: [symbols]}}"""
    owner = {}
    for f in sorted(defs):
        for s in defs[f]:
            owner.setdefault(s, f)
    g = {f: {} for f in set(defs) | set(uses)}
    for f, ss in uses.items():
        for s in sorted(ss):
            o = owner.get(s)
            if o is not None and o != f:
                g[f].setdefault(o, []).append(s)
    return g


def chain(lib, path):
    """[(folder, child, rank)] from the library's root down through the ranked folders."""
    ranks, root = lib["ranks"], lib["root"]
    if not (path + "/").startswith(root + "/"):
        raise Unranked(f"{path} is not under {root}/, where the {lib['name']} library's "
                       "sources live")
    parts = path[len(root) + 1:].split("/")
    folder, out = root, []
    for i, part in enumerate(parts):
        rows = ranks.get(folder)
        if rows is None:
            break
        is_dir = i < len(parts) - 1
        rank = next((r for r, (names, _) in enumerate(rows)
                     if any(fnmatch.fnmatchcase(part, n) for n in names)), None)
        if rank is None:
            what = "folder" if is_dir else "file"
            raise Unranked(f"{path}: the {what} {folder}/{part}{'/' if is_dir else ''} has no "
                           f"rank; give it one in RANKS of the {lib['name']} library in "
                           "tests/layers.py, with why it sits there")
        out.append((folder, part, rank, is_dir))
        folder = f"{folder}/{part}"
    return out


def unit(folder, child, is_dir):
    return f"{folder}/{child}{'/' if is_dir else ''}"


def rank_errors(lib, g):
    """{(kind, unit a, unit b): [(file, file, symbols)]} for calls up or between siblings."""
    chains, errors, bad = {}, {}, []
    for f in sorted(g):
        try:
            chains[f] = chain(lib, f)
        except Unranked as e:
            bad.append(str(e))
    for a in sorted(g):
        for b, syms in sorted(g[a].items()):
            if a not in chains or b not in chains:
                continue
            for (fa, ca, ra, da), (fb, cb, rb, db) in zip(chains[a], chains[b]):
                if ca == cb:
                    continue
                if ra > rb:
                    kind = "up"
                elif ra == rb and (da or db):
                    kind = "side"
                else:
                    break  # downward, or two files sharing a rank
                key = (kind, unit(fa, ca, da), unit(fb, cb, db), ra, rb, fa)
                errors.setdefault(key, []).append((a, b, syms))
                break
    return bad, errors


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


def edge_text(a, b, syms):
    more = f" and {len(syms) - 3} more" if len(syms) > 3 else ""
    return f"  {a} -> {b}  ({', '.join(syms[:3])}{more})"


def check(lib, g, out):
    """Prints what is wrong with g for lib to out; returns the number of faults."""
    bad, errors = rank_errors(lib, g)
    for msg in bad:
        print(f"layers: {lib['name']}: {msg}", file=out)
    for (kind, ua, ub, ra, rb, folder), edges in sorted(errors.items()):
        rows = lib["ranks"][folder]
        if kind == "up":
            print(f"layers: {lib['name']}: a call upward, from {ua} to {ub}, which is ranked "
                  f"above it:", file=out)
        else:
            print(f"layers: {lib['name']}: a call between {ua} and {ub}, which share a rank "
                  "and never call each other:", file=out)
        for a, b, syms in edges:
            print(edge_text(a, b, syms), file=out)
        print(f"  ({ua}: {rows[ra][1]})", file=out)
        print(f"  ({ub}: {rows[rb][1]})", file=out)
    comps = cycles(g)
    for comp in comps:
        path = one_cycle(g, comp)
        print(f"layers: {lib['name']}: a circle among {', '.join(comp)}:", file=out)
        for a, b in zip(path, path[1:]):
            print(edge_text(a, b, g[a][b]), file=out)
    return len(bad) + len(errors) + len(comps)


def self_test():
    """The checker on made-up graphs: what must fail fails, what must pass passes."""
    lib = {"name": "test", "root": "r", "ranks": {
        "r": [(("top.c",), ""), (("a", "b"), ""), (("low",), "")],
        "r/a": [(("a_ops.c",), ""), (("a.c", "a_*.c"), "")]}}

    def faults(edges):
        g = {}
        for x, y in edges:
            g.setdefault(x, {}).setdefault(y, ["sym"])
            g.setdefault(y, {})
        return check(lib, g, open(os.devnull, "w"))

    cases = [
        ([("r/top.c", "r/a/a.c"), ("r/a/a_ops.c", "r/a/a.c"), ("r/a/a.c", "r/low/x.c")], 0),
        ([("r/a/a.c", "r/a/a_notation.c")], 0),  # two files sharing a rank
        ([("r/low/x.c", "r/a/a.c")], 1),  # upward between folders
        ([("r/a/a.c", "r/a/a_ops.c")], 1),  # upward inside a ranked folder
        ([("r/a/a.c", "r/b/b.c")], 1),  # between siblings
        ([("r/low/x.c", "r/low/y.c"), ("r/low/y.c", "r/low/x.c")], 1),  # a circle
        ([("r/top.c", "r/new/n.c")], 1),  # an unranked folder
        ([("r/top.c", "r/a/new_file.c")], 1),  # an unranked file in a ranked folder
        ([("r/top.c", "elsewhere/e.c")], 1),  # outside the root
    ]
    for edges, want in cases:
        if (faults(edges) > 0) != (want > 0):
            print(f"layers: the checker itself is wrong on {edges}", file=sys.stderr)
            return False
    return True


def summary(lib, g):
    rows = lib["ranks"][lib["root"]]
    order = " > ".join(" ".join(names) for names, _ in rows)
    ranked = sorted(f for f in lib["ranks"] if f != lib["root"])
    inner = f"; inside {', '.join(ranked)} too" if ranked else ""
    return (f"layers: {lib['name']} ({lib['what']}): {len(g)} files, every call downward "
            f"({lib['root']}: {order}{inner}), no circle")


def main():
    builddir = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("BITARENA_BUILDDIR", ".")
    if not os.path.exists(os.path.join(builddir, "Makefile")):
        print(f"layers: {builddir} is not a configured build directory", file=sys.stderr)
        return 1
    if not self_test():
        return 1
    faults = 0
    for lib in LIBRARIES:
        objects = make_objects(builddir, lib["objects"])
        missing = [o for o in objects if not os.path.exists(os.path.join(builddir, o))]
        if missing:
            print(f"layers: {lib['name']}: not built: {' '.join(missing)}", file=sys.stderr)
            return 1
        g = graph(*nm_symbols(builddir, objects))
        n = check(lib, g, sys.stdout)
        if n == 0:
            print(summary(lib, g))
        faults += n
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
