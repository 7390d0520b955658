#!/usr/bin/python3
"""Writes the fuzzer's seed corpus (tests/fuzz-corpus/): small valid glTF/GLB files that reach
every feature the loader reads, scenes with real JPEG (baseline, progressive) and PNG (palette,
16-bit, interlaced) textures, and broken ones that reach its error paths. Each is under 4 KiB.
Also writes the crafted image regressions into tests/data/fuzz-regressions/ (hostile JPEGs).
Needs Debian's python3 with python3-pil (Pillow writes the JPEGs; the PNGs are written here).
Usage: tools/make_fuzz_corpus.py [OUT_DIR]"""
import base64, io, json, os, struct, sys, zlib

from PIL import Image

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests", "fuzz-corpus")
os.makedirs(out, exist_ok=True)

def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

def png(w, h, rgba):  # an uncompressed-filter RGBA PNG
    raw = b"".join(b"\0" + bytes(rgba[(y * w) * 4:(y * w + w) * 4]) for y in range(h))
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)) +
            png_chunk(b"IDAT", zlib.compress(raw)) + png_chunk(b"IEND", b""))

ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]

def png_general(w, h, color_type, depth, rows, interlace=False, extra=b""):
    """A PNG of any colour type and depth. rows(x0, y, xstep, n) returns the packed bytes of n
    pixels of row y starting at x0, every xstep-th (so the Adam7 passes can sample)."""
    if interlace:
        raw = b""
        for x0, y0, dx, dy in ADAM7:
            n = max(0, (w - x0 + dx - 1) // dx)
            if n == 0:
                continue
            for y in range(y0, h, dy):
                raw += b"\0" + rows(x0, y, dx, n)
    else:
        raw = b"".join(b"\0" + rows(0, y, 1, w) for y in range(h))
    ihdr = struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0, 1 if interlace else 0)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + extra +
            png_chunk(b"IDAT", zlib.compress(raw, 9)) + png_chunk(b"IEND", b""))

def pack_bits(values, depth):  # palette indices, most significant bits first, padded per row
    out, acc, bits = bytearray(), 0, 0
    for v in values:
        acc, bits = acc << depth | v, bits + depth
        if bits == 8:
            out.append(acc)
            acc, bits = 0, 0
    if bits:
        out.append(acc << (8 - bits))
    return bytes(out)

# Texture patterns the tests check (tests/test_fuzz_regressions.cpp, FuzzCorpus.*):
PALETTE = [(255, 0, 0, 255), (0, 255, 0, 255), (0, 0, 255, 128), (255, 255, 255, 0)]
def palette_index(x, y): return (x + 2 * y) % 4
def rgb16(x, y): return (x * 17 * 257, y * 17 * 257, 128 * 257)  # multiples of 257: 8 bits are exact
def interlaced_rgba(x, y): return (x * 16, y * 16, 255 - x * 16, 255 if (x + y) % 3 else 64)

def jpeg(w, h, progressive, mode="RGB"):
    im = Image.new(mode, (w, h))
    for y in range(h):
        for x in range(w):
            im.putpixel((x, y), (x * 16, y * 16, 128) if mode == "RGB" else (x + y) * 8)
    buf = io.BytesIO()
    im.save(buf, format="JPEG", quality=95, progressive=progressive, optimize=False, subsampling=0 if progressive else 2)
    return buf.getvalue()

def uri(data, mime="application/octet-stream"):
    return "data:%s;base64,%s" % (mime, base64.b64encode(data).decode())

POS = struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0)
IDX16 = struct.pack("<3H", 0, 1, 2) + b"\0\0"

def triangle(extra_buffer=b"", with_uri=True):
    buf = POS + IDX16 + extra_buffer
    g = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
         "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
         "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                        "min": [0, 0, 0], "max": [1, 1, 0]},
                       {"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"}],
         "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 36},
                         {"buffer": 0, "byteOffset": 36, "byteLength": 6}],
         "buffers": [{"byteLength": len(buf)}]}
    if with_uri:
        g["buffers"][0]["uri"] = uri(buf)
    return g, buf

def glb(g, bin_chunk):
    text = json.dumps(g, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    bin_chunk += b"\0" * (-len(bin_chunk) % 4)
    body = struct.pack("<II", len(text), 0x4E4F534A) + text + struct.pack("<II", len(bin_chunk), 0x004E4942) + bin_chunk
    return struct.pack("<III", 0x46546C67, 2, 12 + len(body)) + body

def write(name, data):
    if isinstance(data, dict):
        data = json.dumps(data, separators=(",", ":")).encode()
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)

# ---- valid --------------------------------------------------------------------------------------
g, buf = triangle()
write("triangle.gltf", g)
g, buf = triangle(with_uri=False)
write("triangle.glb", glb(g, buf))

# Normals, UVs (normalized u16), u8 indices, strip and fan, a lines primitive, a material.
pos = struct.pack("<12f", 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0)
nrm = struct.pack("<12f", *([0, 0, 1] * 4))
uv = struct.pack("<8H", 0, 0, 65535, 0, 0, 65535, 65535, 65535)
idx8 = bytes([0, 1, 2, 3])
buf = pos + nrm + uv + idx8
g = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
     "materials": [{"pbrMetallicRoughness": {"baseColorFactor": [1, 0.5, 0.25, 1]}}],
     "meshes": [{"primitives": [
         {"attributes": {"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2}, "indices": 3, "mode": 5, "material": 0},
         {"attributes": {"POSITION": 0}, "indices": 3, "mode": 6},
         {"attributes": {"POSITION": 0}, "mode": 1}]}],
     "accessors": [{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3"},
                   {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC3"},
                   {"bufferView": 2, "componentType": 5123, "normalized": True, "count": 4, "type": "VEC2"},
                   {"bufferView": 3, "componentType": 5121, "count": 4, "type": "SCALAR"}],
     "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 48}, {"buffer": 0, "byteOffset": 48, "byteLength": 48},
                     {"buffer": 0, "byteOffset": 96, "byteLength": 16}, {"buffer": 0, "byteOffset": 112, "byteLength": 4}],
     "buffers": [{"byteLength": len(buf), "uri": uri(buf)}]}
write("strip_fan_attributes.gltf", g)

# Interleaved positions+normals (byteStride 24), no indices.
inter = b"".join(struct.pack("<6f", *p, 0, 0, 1) for p in [(0, 0, 0), (1, 0, 0), (0, 1, 0)])
g = {"asset": {"version": "2.0"}, "nodes": [{"mesh": 0}],
     "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1}}]}],
     "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"},
                   {"bufferView": 0, "byteOffset": 12, "componentType": 5126, "count": 3, "type": "VEC3"}],
     "bufferViews": [{"buffer": 0, "byteLength": 72, "byteStride": 24}],
     "buffers": [{"byteLength": 72, "uri": uri(inter)}]}
write("interleaved.gltf", g)

# Sparse: a zero accessor (no buffer view) with two substituted positions.
sp_idx = struct.pack("<2H", 1, 2)
sp_val = struct.pack("<6f", 1, 0, 0, 0, 1, 0)
buf = sp_idx + sp_val
g = {"asset": {"version": "2.0"}, "nodes": [{"mesh": 0}],
     "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
     "accessors": [{"componentType": 5126, "count": 3, "type": "VEC3",
                    "sparse": {"count": 2, "indices": {"bufferView": 0, "componentType": 5123},
                               "values": {"bufferView": 1}}}],
     "bufferViews": [{"buffer": 0, "byteLength": 4}, {"buffer": 0, "byteOffset": 4, "byteLength": 24}],
     "buffers": [{"byteLength": len(buf), "uri": uri(buf)}]}
write("sparse.gltf", g)

# Node hierarchy: matrix, TRS, two scenes, a shared mesh.
g, buf = triangle()
g["scenes"] = [{"nodes": [0, 3]}, {"nodes": [1]}]
g["nodes"] = [{"children": [1, 2], "translation": [1, 2, 3], "rotation": [0, 0.7071, 0, 0.7071], "scale": [2, 2, 2]},
              {"mesh": 0, "matrix": [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 5, 0, 0, 1]},
              {"mesh": 0, "rotation": [0, 0, 0, 2]},
              {"mesh": 0}]
write("nodes.gltf", g)

# Textures: a PNG data URI, and (in the GLB) a PNG in a buffer view.
image = png(2, 2, [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255])
g, buf = triangle()
g["images"] = [{"uri": uri(image, "image/png")}]
g["textures"] = [{"source": 0}]
g["materials"] = [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]
g["meshes"][0]["primitives"][0]["material"] = 0
write("textured.gltf", g)
g, buf = triangle(with_uri=False)
pad = b"\0" * 2
g["bufferViews"].append({"buffer": 0, "byteOffset": len(buf) + len(pad), "byteLength": len(image)})
buf = buf + pad + image
g["buffers"][0]["byteLength"] = len(buf)
g["images"] = [{"bufferView": 2, "mimeType": "image/png"}]
g["textures"] = [{"source": 0}]
g["materials"] = [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]
g["meshes"][0]["primitives"][0]["material"] = 0
write("textured.glb", glb(g, buf))

# Coordinates near the float range: legal, but 2x2 copies spaced by the extent would overflow.
huge = struct.pack("<9f", -3e38, 0, 0, 3e38, 0, 0, 0, 1, 0)
g, buf = triangle()
g["buffers"][0]["uri"] = uri(huge + IDX16)
g["accessors"][0]["min"] = [-3e38, 0, 0]
g["accessors"][0]["max"] = [3e38, 1, 0]
write("huge_extent.gltf", g)

# ---- broken -------------------------------------------------------------------------------------
g, buf = triangle(with_uri=False)
whole = glb(g, buf)
write("broken_truncated.glb", whole[:len(whole) - 10])
g, buf = triangle()
g["nodes"] = [{"mesh": 0, "children": [1]}, {"children": [0]}]
write("broken_cycle.gltf", g)
g, buf = triangle()
g["bufferViews"][1]["byteOffset"] = -4
write("broken_negative_offset.gltf", g)
g, buf = triangle()
g["accessors"][0]["count"] = 4294967295
write("broken_huge_count.gltf", g)
g, buf = triangle()
g["images"] = [{"uri": uri(image[:30], "image/png")}, {"uri": "missing.png"}]
g["textures"] = [{"source": 0}, {"source": 1}]
g["materials"] = [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}},
                  {"pbrMetallicRoughness": {"baseColorTexture": {"index": 1}}}]
g["meshes"][0]["primitives"][0]["material"] = 1
write("broken_textures.gltf", g)
write("broken_json.gltf", b'{"asset":{"version":"2.0"},"meshes":[{"primitives":[{"attributes":{"POSITION":0}')

# ---- real textures: JPEG (baseline, progressive) and PNG (palette, 16-bit, interlaced) ----------
def textured(image, mime, binary):
    """The triangle with UVs and one base-colour texture, the image in the GLB's BIN chunk (as a
    buffer view) or in a data URI."""
    g, buf = triangle(with_uri=not binary)
    uv = struct.pack("<6f", 0, 0, 1, 0, 0, 1)
    g["bufferViews"].append({"buffer": 0, "byteOffset": 44, "byteLength": 24})
    g["accessors"].append({"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC2"})
    g["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_0"] = 2
    g["meshes"][0]["primitives"][0]["material"] = 0
    g["materials"] = [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]
    g["textures"] = [{"source": 0}]
    g["samplers"] = []
    del g["samplers"]
    buf = buf + uv  # IDX16 is 8 bytes: the UVs start at 44
    if binary:
        buf += b"\0" * (-len(buf) % 4)
        g["bufferViews"].append({"buffer": 0, "byteOffset": len(buf), "byteLength": len(image)})
        g["images"] = [{"bufferView": 3, "mimeType": mime}]
        buf += image
        g["buffers"][0]["byteLength"] = len(buf)
        return glb(g, buf)
    g["buffers"][0] = {"byteLength": len(buf), "uri": uri(buf)}
    g["images"] = [{"uri": uri(image, mime)}]
    return g

baseline = jpeg(16, 16, progressive=False)
progressive = jpeg(16, 16, progressive=True)
assert b"\xff\xc0" in baseline and b"\xff\xc2" in progressive
write("jpeg_baseline.glb", textured(baseline, "image/jpeg", True))
write("jpeg_baseline.gltf", textured(baseline, "image/jpeg", False))
write("jpeg_progressive.glb", textured(progressive, "image/jpeg", True))
write("jpeg_progressive_gray.gltf", textured(jpeg(16, 16, progressive=True, mode="L"), "image/jpeg", False))

plte = png_chunk(b"PLTE", bytes(c for p in PALETTE for c in p[:3])) + png_chunk(b"tRNS", bytes(p[3] for p in PALETTE))
palette_png = png_general(9, 5, 3, 2, lambda x0, y, dx, n: pack_bits([palette_index(x0 + i * dx, y) for i in range(n)], 2),
                          extra=plte)
write("png_palette.glb", textured(palette_png, "image/png", True))
png16 = png_general(16, 16, 2, 16, lambda x0, y, dx, n: b"".join(struct.pack(">3H", *rgb16(x0 + i * dx, y)) for i in range(n)))
write("png_16bit.gltf", textured(png16, "image/png", False))
interlaced = png_general(13, 7, 6, 8, lambda x0, y, dx, n: bytes(c for i in range(n) for c in interlaced_rgba(x0 + i * dx, y)),
                         interlace=True)
write("png_interlaced.glb", textured(interlaced, "image/png", True))
write("png_interlaced_palette.gltf", textured(
    png_general(9, 5, 3, 2, lambda x0, y, dx, n: pack_bits([palette_index(x0 + i * dx, y) for i in range(n)], 2),
                interlace=True, extra=plte), "image/png", False))

# ---- crafted regressions (tests/data/fuzz-regressions/) -----------------------------------------
regressions = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "fuzz-regressions")

def replace_first_dht(data, tables):
    """The JPEG with its first DHT segment replaced by one holding `tables`: (class/id byte,
    16 counts, values)."""
    at = data.index(b"\xff\xc4")
    length = struct.unpack(">H", data[at + 2:at + 4])[0]
    body = b"".join(bytes([tc_th]) + bytes(counts) + bytes(values) for tc_th, counts, values in tables)
    assert len(body) + 2 < 65536
    return data[:at] + b"\xff\xc4" + struct.pack(">H", len(body) + 2) + body + data[at + 2 + length:]

# The finding of issue #18: a DC table declaring 257 codes (255 of length 15, 2 of length 16).
# Debian's stb_image (2022-09-08) writes h->size[257], one past its table, then the 257 values
# past huff_dc[0].values; libjpeg-turbo refuses the table (JERR_BAD_HUFF_TABLE).
counts = [0] * 14 + [255, 2]
hostile = replace_first_dht(baseline, [(0x00, counts, [i % 12 for i in range(257)])])
with open(os.path.join(regressions, "jpeg-dht-257-codes.glb"), "wb") as f:
    f.write(textured(hostile, "image/jpeg", True))
# The most a DHT can declare: 16 x 255 = 4080 codes for one AC table, values 4080 bytes past it.
counts = [255] * 16
hostile = replace_first_dht(baseline, [(0x11, counts, [i % 256 for i in range(4080)])])
with open(os.path.join(regressions, "jpeg-dht-4080-codes.gltf"), "wb") as f:
    f.write(json.dumps(textured(hostile, "image/jpeg", False), separators=(",", ":")).encode())

def crafted(name, data):
    if isinstance(data, dict):
        data = json.dumps(data, separators=(",", ":")).encode()
    with open(os.path.join(regressions, name), "wb") as f:
        f.write(data)

# Progressive JPEGs of many scans, each a legal progression written by jpegtran (libjpeg-turbo-progs):
# 64 scans (a DC scan and one per AC coefficient: the most the loader takes, kMaxJpegScans) is a
# seed; 66 (successive approximation: a refinement scan for DC and one for all AC) is refused.
import subprocess, tempfile
def rescan(data, script):
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as scans:
        scans.write("\n".join(script) + "\n")
        scans.flush()
        return subprocess.run(["jpegtran", "-scans", scans.name], input=data, capture_output=True, check=True).stdout
gray = jpeg(16, 16, False, "L")
scans64 = rescan(gray, ["0: 0 0 0 0;"] + ["0: %d %d 0 0;" % (k, k) for k in range(1, 64)])
assert scans64.count(b"\xff\xda") == 64
write("jpeg_progressive_64_scans.glb", textured(scans64, "image/jpeg", True))
scans66 = rescan(gray, ["0: 0 0 0 1;"] + ["0: %d %d 0 1;" % (k, k) for k in range(1, 64)] + ["0: 0 0 1 0;", "0: 1 63 1 0;"])
assert scans66.count(b"\xff\xda") == 66
crafted("jpeg-progressive-66-scans.glb", textured(scans66, "image/jpeg", True))

# Headers declaring more pixels than a texture may have (8192 x 8192): refused before decoding.
def with_sof_size(data, w, h):
    at = data.index(b"\xff\xc0")
    return data[:at + 5] + struct.pack(">HH", h, w) + data[at + 9:]
crafted("jpeg-65000x65000-header.gltf", textured(with_sof_size(baseline, 65000, 65000), "image/jpeg", False))
big_png = bytearray(png16)
big_png[16:24] = struct.pack(">II", 9000, 9000)
big_png[29:33] = struct.pack(">I", zlib.crc32(bytes(big_png[12:29])))
crafted("png-9000x9000-header.glb", textured(bytes(big_png), "image/png", True))

# A CMYK JPEG (Adobe APP14): valid, but there is no conversion to RGBA; a texture warning.
cmyk = io.BytesIO()
Image.new("CMYK", (8, 8), (0, 128, 255, 0)).save(cmyk, format="JPEG", quality=90)
write("jpeg_cmyk.gltf", textured(cmyk.getvalue(), "image/jpeg", False))
