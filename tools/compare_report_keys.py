#!/usr/bin/env python3
"""Prints the key paths that one report.json has and the other lacks (recursively).

For checking that a change kept the report's shape: `--report` or `--compare` output before and
after. Arrays are walked element by element and shown as `[]` (so `runs[].counters.mip_edge_texels`
is a key of any run); values are not compared. Always exits 0: the differences are for a person
to explain.
Usage: tools/compare_report_keys.py OLD.json NEW.json
"""
import json
import sys


def key_paths(value, prefix=""):
    paths = set()
    if isinstance(value, dict):
        for key, child in value.items():
            path = f"{prefix}.{key}" if prefix else key
            paths.add(path)
            paths |= key_paths(child, path)
    elif isinstance(value, list):
        for child in value:
            paths |= key_paths(child, prefix + "[]")
    return paths


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    with open(sys.argv[1]) as f:
        old = key_paths(json.load(f))
    with open(sys.argv[2]) as f:
        new = key_paths(json.load(f))
    for path in sorted(old - new):
        print(f"- {path}")
    for path in sorted(new - old):
        print(f"+ {path}")
    print(f"{len(old & new)} key paths in both, {len(old - new)} removed, {len(new - old)} added")


main()
