#!/usr/bin/python3
"""Writes the fuzzer's seeds for optimized and compressed scenes into tests/fuzz-corpus/:
KHR_mesh_quantization, EXT_meshopt_compression (quantized and float), KHR_draco_mesh_compression
and EXT_texture_webp, as self-contained GLBs written by pack-scene (tools/pack_scene.cpp) from the
generated test scenes, and hostile variants of them (a truncated meshopt stream, a wrong
byteStride, a count past the view, bad Draco bytes, a truncated WebP). Deterministic.
Usage: tools/make_packed_seeds.py [BUILD_DIR]   (default build/; needs pack-scene and test-scenes built)"""
import json, os, struct, subprocess, sys, tempfile

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build")
out = os.path.join(root, "tests", "fuzz-corpus")
scenes = os.path.join(build, "test-scenes")

def pack(flags, scene, name):
    path = os.path.join(out, name)
    subprocess.run([os.path.join(build, "pack-scene"), *flags, "--embed", os.path.join(scenes, scene), path], check=True)
    with open(path, "rb") as f:
        return f.read()

def split(glb):
    n = struct.unpack_from("<I", glb, 12)[0]
    m = struct.unpack_from("<I", glb, 20 + n)[0]
    return json.loads(glb[20:20 + n]), bytearray(glb[28 + n:28 + n + m])

def join(g, bin_chunk):
    text = json.dumps(g, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    bin_chunk = bytes(bin_chunk) + b"\0" * (-len(bin_chunk) % 4)
    body = struct.pack("<II", len(text), 0x4E4F534A) + text + struct.pack("<II", len(bin_chunk), 0x004E4942) + bin_chunk
    return struct.pack("<III", 0x46546C67, 2, 12 + len(body)) + body

def write(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)

# ---- valid ---------------------------------------------------------------------------------------
pack(["--quantize"], "box.gltf", "packed_quantized.glb")
meshopt = pack(["--quantize", "--meshopt"], "box.gltf", "packed_meshopt.glb")
pack(["--meshopt"], "box.gltf", "packed_meshopt_float.glb")
draco = pack(["--draco"], "box.gltf", "packed_draco.glb")
pack(["--quantize", "--meshopt", "--webp"], "props.gltf", "packed_meshopt_webp.glb")
webp = pack(["--draco", "--webp"], "props.gltf", "packed_draco_webp.glb")

# ---- hostile ---------------------------------------------------------------------------------------
def ext(g, view):
    return g["bufferViews"][view]["extensions"]["EXT_meshopt_compression"]

g, b = split(meshopt)
ext(g, 0)["byteLength"] -= 5
write("broken_packed_meshopt_truncated.glb", join(g, b))
g, b = split(meshopt)
ext(g, 0)["byteStride"] = 12  # the stream's stride is not the view's (8)
g["bufferViews"][0]["byteLength"] = ext(g, 0)["count"] * 12
write("broken_packed_meshopt_stride.glb", join(g, b))
g, b = split(meshopt)
ext(g, 0)["count"] += 1
write("broken_packed_meshopt_count.glb", join(g, b))
g, b = split(meshopt)
g["accessors"][0]["count"] += 1  # an accessor past its decoded view
write("broken_packed_meshopt_accessor.glb", join(g, b))

g, b = split(draco)
view = g["bufferViews"][g["meshes"][0]["primitives"][0]["extensions"]["KHR_draco_mesh_compression"]["bufferView"]]
start = view.get("byteOffset", 0)
for i in range(start + 8, start + view["byteLength"], 7):
    b[i] ^= 0x5A
write("broken_packed_draco_bytes.glb", join(g, b))

g, b = split(webp)
image_view = g["bufferViews"][g["images"][0]["bufferView"]]
image_view["byteLength"] //= 2
write("broken_packed_webp_truncated.glb", join(g, b))
print("packed seeds written to", out)
