#!/usr/bin/env python3
"""Compares two half-resolution mips written by `subgroup-demo --mip-dump` (docs/quad-mip.md).

    tools/mip_diff.py quad_mip.png fallback_mip.png [--diff diff.png] [--gain 8]
                      [--zoom zoom.png --frame frame.png --at X,Y --size N --scale S]

Prints the PSNR (RGB) of the first against the second, and the share of texels that differ.
--diff writes |a - b| (max over RGB, times --gain) as a grey image: bright texels are the quad
mip's split quads along triangle edges. --zoom writes a close-up of N x N mip texels at mip
texel (X, Y): the frame's 2N x 2N pixels, the first mip and the second mip, each scaled so
one mip texel is S x S pixels, with the 2x2 quad grid drawn over the frame.
Plain Python 3, no packages: reads and writes 8-bit RGB/RGBA PNGs.
"""
import argparse
import math
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat = 8, b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                sys.exit(f"{path}: only 8-bit RGB/RGBA, non-interlaced PNGs are supported")
        elif kind == b"IDAT":
            idat += body
    channels = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(idat), width * channels
    rows, previous, pos = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[pos], bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        previous = line
    return rows  # rows[y][x] = (r, g, b)


def write_png(path, rows):
    height, width = len(rows), len(rows[0])
    raw = b"".join(b"\x00" + bytes(v for pixel in row for v in pixel) for row in rows)

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--diff")
    parser.add_argument("--gain", type=int, default=8)
    parser.add_argument("--zoom")
    parser.add_argument("--frame")
    parser.add_argument("--at", default="0,0")
    parser.add_argument("--size", type=int, default=16)
    parser.add_argument("--scale", type=int, default=16)
    args = parser.parse_args()

    a, b = read_png(args.a), read_png(args.b)
    if len(a) != len(b) or len(a[0]) != len(b[0]):
        sys.exit("the two mips differ in size")
    height, width = len(a), len(a[0])
    squared, differing = 0, 0
    for y in range(height):
        for x in range(width):
            d = [a[y][x][c] - b[y][x][c] for c in range(3)]
            squared += sum(v * v for v in d)
            differing += any(d)
    mse = squared / (width * height * 3)
    psnr = math.inf if mse == 0 else 10 * math.log10(255 * 255 / mse)
    print(f"{width}x{height}: PSNR {psnr:.2f} dB, {100.0 * differing / (width * height):.1f}% of texels differ")

    if args.diff:
        rows = []
        for y in range(height):
            row = []
            for x in range(width):
                v = min(255, args.gain * max(abs(a[y][x][c] - b[y][x][c]) for c in range(3)))
                row.append((v, v, v))
            rows.append(row)
        write_png(args.diff, rows)

    if args.zoom:
        if not args.frame:
            sys.exit("--zoom needs --frame (the full-resolution screenshot)")
        frame = read_png(args.frame)
        x0, y0 = (int(v) for v in args.at.split(","))
        n, s = args.size, args.scale
        if x0 < 0 or y0 < 0 or x0 + n > width or y0 + n > height:
            sys.exit(f"--at {x0},{y0} --size {n} does not fit the {width}x{height} mip")
        gap = (40, 40, 40)
        rows = []
        for py in range(n * s):
            ty, row = y0 + py // s, []
            # frame: each pixel s/2 wide, grid lines on quad borders
            for px in range(n * s):
                fx, fy = 2 * x0 + px * 2 // s, 2 * y0 + py * 2 // s
                border = px % s == 0 or py % s == 0
                row.append((255, 204, 26) if border else frame[fy][fx])
            row += [gap] * 4
            for mip in (a, b):
                for px in range(n * s):
                    row.append(mip[ty][x0 + px // s])
                row += [gap] * 4
            rows.append(row[:-4])
        write_png(args.zoom, rows)


if __name__ == "__main__":
    main()
