#!/usr/bin/env python3
"""verb_strings.py - no layer of the server tells verbs apart by their spelling.

The command table (src/server/cmd/commands.c) is the one place a verb is
defined: its row gives the name, the arity, the flags that say what the
dispatcher and the cluster do with it, the cost, the handler. A layer that
needs to know what a command does reads the row's flags (commands.h); it
never compares the command's name with a word.

What this check forbids, in every .c and .h of src/server but the table
itself (cmd/commands.c) and the ports that translate foreign protocols into
ours (ports/, where verbs of other protocols are read), comments left out:
  1. a verb of the table, as a string literal, given to proto_find(): a row
     looked up by its name (commands_flagged() finds a row by what it does);
  2. a verb of the table, as a string literal, compared (strcmp, strcasecmp,
     strncmp, strncasecmp, memcmp) with a command's name: an expression that
     reads a request's verb (`->verb`, `.verb`, a variable `verb`), a row's
     name (`cmd->name`, or `->name` / `.name` of a variable declared as a
     struct proto_cmd), or a variable assigned from one of those.
What it allows: the same words where they are not a command's name. Many
verbs are also the names of other things that the protocol spells alike:
JSON fields and message types ("seek", "games", "move", "ping"), offers
("draw", "undo", "rematch"), the reasons a game ended ("resign", "abort"),
command-line options ("help", "ping"), Redis keys ("seeks", "list").
Comparing those is no verb test, so a literal counts only when the other
side of the comparison is a command's name.

Run by `make check`, or by hand: tests/verb_strings.py [SRCDIR]. Before it
reads the tree it checks itself on examples of what it must and must not
find, so that it cannot pass by finding nothing.
"""
import os
import re
import sys

COMPARE = ("strcmp", "strcasecmp", "strncmp", "strncasecmp", "memcmp")
LITERAL = re.compile(r'"((?:\\.|[^"\\\n])*)"')


def strip_comments(text):
    """The text with comments blanked (newlines kept, so line numbers hold) and strings kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text[i] in "\"'":
            q, j = text[i], i + 1
            while j < n and text[j] != q and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def verbs_of(commands_c):
    """The verbs of the table: the first string of each row of table[]."""
    with open(commands_c, encoding="utf-8") as f:
        text = strip_comments(f.read())
    m = re.search(r"struct proto_cmd table\[\]\s*=\s*\{(.*?)\n\};", text, re.S)
    if m is None:
        return set()
    return set(re.findall(r'\{\s*"([a-z]+)"\s*,\s*\d', m.group(1)))


def calls(text, names):
    """(name, offset, [arguments]) of each call of one of names, arguments split at top level."""
    for m in re.finditer(r"\b(%s)\s*\(" % "|".join(names), text):
        i, depth, args, cur = m.end(), 1, [], []
        while i < len(text) and depth > 0:
            ch = text[i]
            if ch in "\"'":
                s = re.match(r'"(?:\\.|[^"\\\n])*"' if ch == '"' else r"'(?:\\.|[^'\\\n])*'",
                             text[i:])
                tok = s.group(0) if s else ch
                cur.append(tok)
                i += len(tok)
                continue
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
                if depth == 0:
                    break
            if ch == "," and depth == 1:
                args.append("".join(cur).strip())
                cur = []
            else:
                cur.append(ch)
            i += 1
        args.append("".join(cur).strip())
        yield m.group(1), m.start(), args


def name_exprs(text):
    """A regex for the expressions of text that read a command's name."""
    cmd_vars = set(re.findall(r"\bstruct\s+proto_cmd\s*\*?\s*(?:const\s+)?\*?\s*(\w+)", text))
    parts = [r"(?:->|\.)\s*verb\b", r"\bverb\b", r"\bcmd\s*(?:->|\.)\s*name\b"]
    parts += [r"\b%s\s*(?:->|\.)\s*name\b" % re.escape(v) for v in sorted(cmd_vars)]
    rx = re.compile("|".join(parts))
    # variables assigned from such an expression (`const char *v = rq->cmd->name;`)
    for _ in range(2):
        found = {m.group(1) for m in re.finditer(r"\b(\w+)\s*=(?!=)([^;]*);", text)
                 if rx.search(m.group(2))}
        if found:
            rx = re.compile("|".join(parts + [r"\b%s\b" % re.escape(v) for v in sorted(found)]))
    return rx


def violations(text, verbs):
    """(offset, what) of each verb told apart by its spelling in text (comments stripped)."""
    out = []
    names = name_exprs(text)
    for fn, at, args in calls(text, ("proto_find",)):
        for a in args[1:]:
            m = LITERAL.fullmatch(a)
            if m and m.group(1).lower() in verbs:
                out.append((at, 'a row looked up by its name: proto_find(..., "%s")' % m.group(1)))
    for fn, at, args in calls(text, COMPARE):
        lits = [LITERAL.fullmatch(a) for a in args]
        words = [m.group(1) for m in lits if m and m.group(1).lower() in verbs]
        others = [a for a, m in zip(args, lits) if not m]
        if words and any(names.search(a) for a in others):
            out.append((at, 'a command\'s name compared with "%s": %s(%s)' %
                        (words[0], fn, ", ".join(args))))
    return sorted(out)


# What the check must find, and what it must leave alone (checked before every run).
MUST_FIND = [
    'bool w = strcmp(rq->cmd->name, "watch") == 0;',
    'const char *verb = x->rq->cmd->name;\nbool s = strcmp(verb, "say") == 0;',
    'const char *v = a->rq.cmd->name;\nif (strcasecmp(v, "who") == 0)\n\treturn;',
    'struct proto_req rq = {.cmd = proto_find(&commands_table, "watch")};',
    'if (strncmp(rq->verb, "list", 4) == 0)\n\treturn;',
    'const struct proto_cmd *pc = rq->cmd;\nif (!strcmp(pc->name, "move"))\n\treturn;',
]
MUST_PASS = [
    'cJSON_AddStringToObject(j, "type", "seek");',
    'return strcmp(reason, "abort") == 0 || strcmp(reason, "aborted") == 0;',
    'if (strcmp(type, "match") == 0)\n\treturn;',
    'const char *hash = (fl & CMD_SHARED_SEEKS) ? "seeks" : "list";',
    '/* strcmp(verb, "watch") in a comment */',
    'if (strcasecmp(g->pl[i].name, name) == 0)\n\treturn;',
    'bool w = (rq->cmd->flags & CMD_SPECTATE) != 0;',
]


def self_test(verbs):
    bad = [t for t in MUST_FIND if not violations(strip_comments(t), verbs)]
    bad += [t for t in MUST_PASS if violations(strip_comments(t), verbs)]
    for t in bad:
        print("verb_strings: the check itself is wrong on:\n  " + t.replace("\n", "\n  "))
    return not bad


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
        "BITARENA_SRCDIR", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    server = os.path.join(root, "src", "server")
    table = os.path.join(server, "cmd", "commands.c")
    verbs = verbs_of(table)
    if len(verbs) < 10:
        print(f"verb_strings: no command table read from {table}")
        return 1
    if not self_test(verbs):
        return 1
    found = 0
    for d, _, files in sorted(os.walk(server)):
        rel = os.path.relpath(d, server)
        if rel == "ports" or rel.startswith("ports" + os.sep):
            continue  # foreign protocols, translated into ours
        for f in sorted(files):
            path = os.path.join(d, f)
            if not f.endswith((".c", ".h")) or os.path.samefile(path, table):
                continue
            with open(path, encoding="utf-8") as fh:
                text = strip_comments(fh.read())
            for at, what in violations(text, verbs):
                line = text.count("\n", 0, at) + 1
                print(f"verb_strings: {os.path.relpath(path, root)}:{line}: {what}")
                found += 1
    if found:
        print("verb_strings: a verb is told apart by its flags in the command table "
              "(src/server/cmd/commands.h), not by its name")
        return 1
    print(f"verb_strings: {len(verbs)} verbs, none told apart by its spelling outside the "
          "command table and the ports")
    return 0


if __name__ == "__main__":
    sys.exit(main())
