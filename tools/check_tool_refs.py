#!/usr/bin/env python3
"""Fails if a script or doc of the project names a tools/ file, or any other script path
(a .sh or .py path relative to the repository root), that does not exist.

Scans tools/*.sh, tools/*.py, .ci/run, README.md and docs/*.md and checks each name against the
repository. Run by ctest (Tools.ReferencedFilesExist) and usable by hand.
Usage: tools/check_tool_refs.py [REPO_ROOT]
"""
import glob
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sources = [p for pattern in ("tools/*.sh", "tools/*.py", ".ci/run", "README.md", "docs/*.md")
           for p in glob.glob(os.path.join(root, pattern))]
missing = []
for path in sorted(sources):
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            names = set(re.findall(r"(?<![\w/.-])(tools/[A-Za-z0-9_.-]+\.(?:sh|py|cpp|dict|supp))", line))
            # Any other script named by a path from the root (a folder that is not in the repository
            # included), but not $VARIABLE/... or absolute paths.
            names |= set(re.findall(r"(?<![\w/.$-])((?:\.?[A-Za-z0-9_-]+/)+[A-Za-z0-9_.-]+\.(?:sh|py))", line))
            for name in sorted(names):
                if not os.path.exists(os.path.join(root, name)):
                    missing.append(f"{os.path.relpath(path, root)}:{number}: {name} does not exist")
for m in missing:
    print(m)
print(f"{len(sources)} files scanned, {len(missing)} missing reference(s)")
sys.exit(1 if missing else 0)
