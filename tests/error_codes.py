#!/usr/bin/env python3
"""error_codes.py - PROTOCOL.md documents each code of src/proto/errors.def exactly once.

src/proto/errors.def is the one list of the codes the server sends (ERR: the
error codes, INFO: the codes of info notices). PROTOCOL.md's "Error codes"
table (§3) must name every ERR code, and its "Info codes" table every INFO
code, each exactly once in the first column (a row may name several codes:
`A` / `B`), and no code that the list has not. Every code of the list must
also be sent somewhere in src/server (ERR_<CODE> outside proto/), so the list
holds no code that nothing sends. The web page's table of messages (web/js/errors.js,
MESSAGES) must have one entry for each code of the list and no other. Run by `make check`, or by hand:
tests/error_codes.py [srcdir]   (srcdir: $BITARENA_SRCDIR or the tree this
script is in).
"""
import glob
import os
import re
import sys


def codes(srcdir):
    """[(kind, code)] of errors.def, in order (kind: ERR or INFO)."""
    text = open(os.path.join(srcdir, "src/proto/errors.def"), encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    out = re.findall(r"^(ERR|INFO)\(([A-Z][A-Z0-9_]*),", text, re.M)
    lines = [line for line in text.splitlines() if line.strip()]
    if len(out) != len(lines):
        raise SystemExit("error_codes: errors.def has lines that are neither ERR(CODE, ...) "
                         "nor INFO(CODE, ...)")
    return out


def documented(doc, heading):
    """[code, ...] named in the first column of the table under `### heading`, in order."""
    m = re.search(rf"^### {re.escape(heading)}\n(.*?)(?=^#)", doc, re.M | re.S)
    if m is None:
        raise SystemExit(f"error_codes: PROTOCOL.md has no section '### {heading}'")
    rows = re.findall(r"^\| (.*?) \|", m.group(1), re.M)
    if rows[:2] != ["Code", "---"]:
        raise SystemExit(f"error_codes: PROTOCOL.md's '{heading}' should hold a table "
                         "headed | Code | When |")
    out = []
    for cell in rows[2:]:
        names = re.findall(r"`([^`]*)`", cell)
        if not names or re.sub(r"`[^`]*`|\s|/", "", cell):
            raise SystemExit(f"error_codes: PROTOCOL.md '{heading}': the first cell should be "
                             f"`CODE` or `CODE` / `CODE`, not {cell!r}")
        out += names
    return out


def page_codes(srcdir):
    """[code, ...] that the page's table of messages (MESSAGES in web/js/errors.js) names."""
    text = open(os.path.join(srcdir, "web/js/errors.js"), encoding="utf-8").read()
    m = re.search(r"^export const MESSAGES = \{\n(.*?)^\};", text, re.M | re.S)
    if m is None:
        raise SystemExit("error_codes: web/js/errors.js has no 'export const MESSAGES = {'")
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    return re.findall(r"^\s*([A-Z][A-Z0-9_]*):", body, re.M)


def sent(srcdir):
    """The codes ERR_<CODE> names in src/server."""
    found = set()
    for path in glob.glob(os.path.join(srcdir, "src/server/**/*.[ch]"), recursive=True):
        found |= set(re.findall(r"\bERR_([A-Z][A-Z0-9_]*)\b",
                                open(path, encoding="utf-8").read()))
    return found


def main():
    srcdir = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
        "BITARENA_SRCDIR", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    listed = codes(srcdir)
    doc = open(os.path.join(srcdir, "protocol/PROTOCOL.md"), encoding="utf-8").read()
    bad = []
    names = [c for _, c in listed]
    for c in sorted({c for c in names if names.count(c) > 1}):
        bad.append(f"{c} is in errors.def {names.count(c)} times")
    for kind, heading in (("ERR", "Error codes"), ("INFO", "Info codes")):
        want = [c for k, c in listed if k == kind]
        have = documented(doc, heading)
        for c in want:
            if have.count(c) != 1:
                bad.append(f"{c} ({kind}) is documented {have.count(c)} times in "
                           f"PROTOCOL.md's '{heading}', not once")
        for c in sorted(set(have) - set(want)):
            where = "is an INFO code" if kind == "ERR" and c in names else \
                "is an ERR code" if c in names else "is not in src/proto/errors.def"
            bad.append(f"{c} is documented in PROTOCOL.md's '{heading}' but {where}")
    page = page_codes(srcdir)
    for c in names:
        if page.count(c) != 1:
            bad.append(f"{c} is in web/js/errors.js's MESSAGES {page.count(c)} times, not once")
    for c in sorted(set(page) - set(names)):
        bad.append(f"{c} is in web/js/errors.js's MESSAGES but not in src/proto/errors.def")
    used = sent(srcdir)
    for c in names:
        if c not in used:
            bad.append(f"{c} is in errors.def but nothing in src/server sends it (ERR_{c})")
    for b in bad:
        print(f"error_codes: {b}")
    if bad:
        return 1
    print(f"error_codes: {len(names)} codes, each documented once in PROTOCOL.md and in the "
          "page's messages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
