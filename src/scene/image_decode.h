// Decoding a scene's texture images (PNG, JPEG, WebP) to RGBA8, from bytes nobody vetted.
//
// JPEG goes to libjpeg-turbo, PNG to libpng: both fuzzed continuously upstream (OSS-Fuzz), with
// their errors caught here, so a hostile image is a reason string, never a crash. stb_image is not
// used for anything a scene file holds: Debian's copy (2022-09-08) writes past its Huffman tables
// on a JPEG declaring more than 256 codes (docs/robustness.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

struct DecodedImage {
    int width = 0;
    int height = 0;
    std::vector<uint8_t> rgba;  // width * height * 4 bytes, rows top to bottom
};

// Decodes a PNG, a JPEG or a WebP (told apart by their signatures) to RGBA8. Images of more than
// max_pixels are refused from their header, before any pixel memory is allocated. Returns an
// empty string on success, else why not (one line, possibly quoting the file's bytes: callers
// escape it). Any other format is refused: glTF 2.0 allows image/png and image/jpeg, and
// EXT_texture_webp image/webp (libwebp, fuzzed upstream like the other two).
std::string decode_image_rgba8(const uint8_t* data, size_t size, uint64_t max_pixels, DecodedImage& out);

// The most scans a progressive JPEG may have. libjpeg's own progressive scripts use 10 (colour)
// and 6 (grey), one scan per AC coefficient of a grey image makes 64; jpegtran's -scans takes at
// most 100 and TurboJPEG's TJFLAG_LIMITSCANS 500. Each scan passes over the whole image, so a small
// file of thousands of tiny scans would cost minutes for nothing a texture needs.
constexpr int kMaxJpegScans = 64;
