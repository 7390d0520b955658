#!/usr/bin/env python3
"""Writes the fuzzer's seed corpus (tests/fuzz-corpus/): small valid glTF/GLB files that reach
every feature the loader reads, and broken ones that reach its error paths. Each is under 2 KiB.
Usage: tools/make_fuzz_corpus.py [OUT_DIR]"""
import base64, json, os, struct, sys, zlib

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests", "fuzz-corpus")
os.makedirs(out, exist_ok=True)

def png(w, h, rgba):  # an uncompressed-filter RGBA PNG
    raw = b"".join(b"\0" + bytes(rgba[(y * w) * 4:(y * w + w) * 4]) for y in range(h))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))

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
