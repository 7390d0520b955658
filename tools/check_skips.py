#!/usr/bin/env python3
"""Counts the skipped tests of a ctest run and fails on any skip tests/allowed-skips.txt does not name.

    tools/check_skips.py JUNIT_XML [ALLOWED_SKIPS]

JUNIT_XML is ctest's --output-junit file (the default test preset writes build/Testing/ctest-junit.xml).
A skipped test is allowed when a line of the list matches it: its test-name pattern matches the
whole ctest name and its reason pattern is found in the test's output (so a test skipped for
another reason than the listed one still fails the check). Exit 0: every skip is listed; 1: some
are not (named here); 2: the XML or the list cannot be read.
"""
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def read_allowed(path):
    allowed = []
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split(";", 2)]
        if len(fields) != 3 or not all(fields):
            raise ValueError(f"{path}:{number}: expected 'NAME_REGEX ; REASON_REGEX ; where and why'")
        allowed.append((re.compile(fields[0]), re.compile(fields[1]), fields[2], number))
    return allowed


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    junit = argv[1]
    list_path = argv[2] if len(argv) == 3 else str(Path(__file__).resolve().parent.parent / "tests" / "allowed-skips.txt")
    try:
        allowed = read_allowed(list_path)
        root = ET.parse(junit).getroot()
    except (OSError, ValueError, ET.ParseError) as e:
        print(f"check_skips: {e}", file=sys.stderr)
        return 2
    cases = root.iter("testcase")
    total = 0
    skipped = []
    for case in cases:
        total += 1
        if case.find("skipped") is None and case.get("status") != "notrun":
            continue
        out = case.find("system-out")
        skipped.append((case.get("name"), out.text if out is not None and out.text else ""))
    unlisted = []
    per_entry = {}
    for name, output in skipped:
        entry = next((a for a in allowed if a[0].fullmatch(name) and a[1].search(output)), None)
        if entry is None:
            unlisted.append((name, output))
        else:
            per_entry[entry[3]] = per_entry.get(entry[3], 0) + 1
    print(f"skips: {len(skipped)} of {total} tests skipped, {len(skipped) - len(unlisted)} listed in {list_path}, "
          f"{len(unlisted)} not listed")
    for a in allowed:
        if a[3] in per_entry:
            print(f"  {per_entry[a[3]]:4d} x line {a[3]}: {a[2]}")
    for name, output in unlisted:
        reason = next((l.strip() for l in output.splitlines() if l.strip() and "Skipped" not in l and "SKIPPED" not in l
                       and not l.startswith(("Running main", "Note:", "[")) and ": Skipped" not in l), "(no reason printed)")
        print(f"  NOT ALLOWED: {name}: {reason}")
    return 1 if unlisted else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
