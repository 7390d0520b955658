#!/usr/bin/env python3
"""The suite's time budget: prints the suite's wall time, its ten slowest tests and the slowest groups,
and fails when the wall time passes the budget.

    tools/suite_time.py JUNIT_XML CTEST_LOG [BUDGET_SECONDS]

JUNIT_XML is ctest's JUnit report (per-test times), CTEST_LOG what ctest printed (its
"Total Test time (real) = N sec" line is the suite's wall time). The budget defaults to 1200 s
(20 minutes; the target is 15 on an idle 2-core machine, docs/testing.md "Time"). Exit 0 within the
budget, 1 over it, 2 when a file cannot be read.
"""
import re
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict


def group_of(name):
    # "Scenes/QuadMip.IsThe...sg4" -> "Scenes/QuadMip"; "Cull.X" -> "Cull"
    return name.split(".", 1)[0]


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    budget = float(argv[3]) if len(argv) == 4 else 1200.0
    try:
        cases = [(c.get("name"), float(c.get("time") or 0)) for c in ET.parse(argv[1]).getroot().iter("testcase")]
        log = open(argv[2], errors="replace").read()
    except (OSError, ET.ParseError, ValueError) as e:
        print(f"suite_time: {e}", file=sys.stderr)
        return 2
    match = re.search(r"Total Test time \(real\) =\s*([0-9.]+) sec", log)
    if not match:
        print(f"suite_time: no 'Total Test time (real)' line in {argv[2]}", file=sys.stderr)
        return 2
    wall = float(match.group(1))
    total = sum(t for _, t in cases)
    print(f"suite: {wall:.0f} s wall for {len(cases)} tests ({total:.0f} s of test time summed), budget {budget:.0f} s")
    print("ten slowest tests:")
    for name, seconds in sorted(cases, key=lambda c: -c[1])[:10]:
        print(f"  {seconds:7.1f} s  {name}")
    groups = defaultdict(float)
    for name, seconds in cases:
        groups[group_of(name)] += seconds
    print("slowest groups (summed over subgroup sizes):")
    for name, seconds in sorted(groups.items(), key=lambda g: -g[1])[:10]:
        print(f"  {seconds:7.1f} s  {name}")
    if wall > budget:
        print(f"suite_time: the suite took {wall:.0f} s, over its {budget:.0f} s budget (docs/testing.md, \"Time\")")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
