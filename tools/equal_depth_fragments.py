#!/usr/bin/env python3
"""Counts pixels where more than one fragment passed forward's EQUAL depth test (issue 26).

Usage: equal_depth_fragments.py REPORT.json SCREENSHOT.png
Run the demo with --light-loop fallback (so the report's light_loop_iterations.lanes is every
shaded, non-helper fragment: with early fragment tests, exactly the fragments that passed EQUAL)
and --frames 1 --warmup 0. Geometry pixels are those whose colour differs from the top-left
pixel (the background). lanes - geometry pixels = fragments that passed EQUAL at a pixel another
fragment had already passed at: equal-depth pairs, where the framebuffer keeps the later primitive
but the shading-time quad mip's stores are unordered (docs/quad-mip.md).
"""
import json
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    pos, idat = 8, b""
    while pos < len(data):
        length = struct.unpack(">I", data[pos:pos + 4])[0]
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, _, colour_type = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
    raw, bpp = zlib.decompress(idat), 4 if colour_type == 6 else 3
    stride, rows, prev, i = width * bpp, [], bytearray(width * bpp), 0
    for _ in range(height):
        kind, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if kind == 1: line[x] = (line[x] + a) & 255
            elif kind == 2: line[x] = (line[x] + b) & 255
            elif kind == 3: line[x] = (line[x] + ((a + b) >> 1)) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    report = json.load(open(sys.argv[1]))
    lanes = report["counters"]["light_loop_iterations"]["lanes"]
    width, height, bpp, rows = read_png(sys.argv[2])
    background = rows[0][0:3]
    geometry = sum(1 for y in range(height) for x in range(width) if rows[y][x * bpp:x * bpp + 3] != background)
    print(f"{width}x{height}: {lanes} fragments passed EQUAL, {geometry} geometry pixels, "
          f"{lanes - geometry} extra (equal-depth fragments)")


if __name__ == "__main__":
    main()
