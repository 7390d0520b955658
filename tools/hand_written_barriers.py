#!/usr/bin/env python3
"""The barriers src/ still writes by hand, outside the frame graph (docs/architecture.md, "The frame graph").

A hand-written barrier is a call of memory_barrier(), transition(), image_barrier() or
vkCmdPipelineBarrier*() in
src/ outside the graph (src/render/frame_graph.*) and the helpers' own folder (src/vk/). Each must
have, on the line before it, a one-line comment that says why the graph cannot derive it:
    // Hand-written: a probe outside the frame, on images of its own.
Prints each call with its reason. Exits 1 where one lacks that comment, where there are more than
--max (default 10), or where the count differs from the one docs/architecture.md states
("N hand-written barriers"; --docs FILE, or --docs none to skip).
Usage: tools/hand_written_barriers.py [SRC_DIR] [--max N] [--docs FILE|none]
Run by ctest (Tools.HandWrittenBarriersAreFewAndSayWhy).
"""
import argparse
import pathlib
import re
import sys

CALL = re.compile(r"\b(memory_barrier|transition|image_barrier|vkCmdPipelineBarrier2?(?:KHR)?)\s*\(")
WHY = re.compile(r"^\s*//\s*Hand-written:\s*\S+.*\w", re.I)
DOCS_COUNT = re.compile(r"\b(\d+) hand-written barriers\b")


def outside_graph(src, path):
    rel = path.relative_to(src).as_posix()
    return not (rel.startswith("vk/") or rel.startswith("render/frame_graph."))


def calls(src):
    """(file, line number, the call's name, the comment before it or None) for every call."""
    found = []
    for path in sorted(src.rglob("*")):
        if path.suffix not in (".cpp", ".h") or not outside_graph(src, path):
            continue
        lines = path.read_text(encoding="utf-8").split("\n")
        for i, line in enumerate(lines):
            code = line.split("//", 1)[0]
            for match in CALL.finditer(code):
                before = lines[i - 1] if i > 0 else ""
                why = before.strip() if WHY.match(before) else None
                found.append((path.relative_to(src).as_posix(), i + 1, match.group(1), why))
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("src", nargs="?", default=str(pathlib.Path(__file__).resolve().parent.parent / "src"))
    parser.add_argument("--max", type=int, default=10)
    parser.add_argument("--docs", default=None, help="the page that states the count (default: docs/architecture.md beside SRC)")
    args = parser.parse_args()
    src = pathlib.Path(args.src).resolve()
    found = calls(src)
    failed = False
    for file, line, name, why in found:
        print(f"{file}:{line}: {name}: {why if why else 'NO REASON (the line before must say // Hand-written: why)'}")
        failed |= why is None
    print(f"{len(found)} hand-written barriers (at most {args.max})")
    if len(found) > args.max:
        print(f"more than {args.max}: declare the new one to the frame graph (render/frame_graph.h)")
        failed = True
    docs = pathlib.Path(args.docs) if args.docs and args.docs != "none" else src.parent / "docs" / "architecture.md"
    if args.docs != "none":
        stated = DOCS_COUNT.findall(docs.read_text(encoding="utf-8")) if docs.exists() else []
        if stated != [str(len(found))]:
            print(f"{docs} states {', '.join(stated) or 'no'} hand-written barriers, the tree has {len(found)}")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
