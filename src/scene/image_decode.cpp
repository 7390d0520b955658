// PNG through libpng's simplified API, JPEG through libjpeg(-turbo) with a longjmp error manager.
// See image_decode.h and docs/robustness.md for why these decoders and not stb_image.
#include "image_decode.h"

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstring>

#include <jpeglib.h>
#include <png.h>
#include <webp/decode.h>

namespace {

std::string too_large(uint64_t width, uint64_t height) {
    return std::to_string(width) + "x" + std::to_string(height) + " is too large";
}

// ---- PNG -----------------------------------------------------------------------------------------

// libpng's simplified API catches its own errors (png_safe_execute) and leaves the reason in
// image.message; warnings (bad ancillary CRCs, unknown ancillary chunks) are ignored. It expands
// palette, grey, tRNS, sub-byte depths and Adam7 interlacing to RGBA8.
std::string decode_png(const uint8_t* data, size_t size, uint64_t max_pixels, DecodedImage& out) {
    png_image image;
    memset(&image, 0, sizeof(image));
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, size))
        return std::string("libpng: ") + image.message;
    if (image.width == 0 || image.height == 0 || uint64_t(image.width) * image.height > max_pixels) {
        png_image_free(&image);
        return too_large(image.width, image.height);
    }
    image.format = PNG_FORMAT_RGBA;
    // 16-bit samples without gAMA/sRGB are sRGB like 8-bit ones (libpng would take them as linear).
    image.flags |= PNG_IMAGE_FLAG_16BIT_sRGB;
    out.rgba.assign(PNG_IMAGE_SIZE(image), 0);
    bool ok = png_image_finish_read(&image, nullptr, out.rgba.data(), 0, nullptr) != 0;
    std::string message = ok ? "" : std::string("libpng: ") + image.message;
    png_image_free(&image);  // finish_read frees on success and failure alike; this is a no-op then
    if (!ok) {
        out.rgba.clear();
        return message;
    }
    out.width = int(image.width);
    out.height = int(image.height);
    return {};
}

// ---- JPEG ----------------------------------------------------------------------------------------

// libjpeg reports errors through error_exit, which must not return: it longjmps back into
// decode_jpeg_raw. Corrupt-data warnings (emit_message level -1: premature end of data, extraneous
// bytes, a marker in the entropy-coded data) are errors too: a hostile file stops at its first
// inconsistency instead of being decoded from filler.
struct JpegError {
    jpeg_error_mgr manager;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX + 64];
};

[[noreturn]] void jpeg_fail(j_common_ptr cinfo) {
    auto* error = reinterpret_cast<JpegError*>(cinfo->err);
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    snprintf(error->message, sizeof(error->message), "libjpeg: %s", text);
    longjmp(error->jump, 1);
}

void jpeg_message(j_common_ptr cinfo, int level) {
    if (level < 0)
        jpeg_fail(cinfo);
}

// Called by libjpeg between scans (and rows): refuses a progressive file past kMaxJpegScans.
void jpeg_progress(j_common_ptr cinfo) {
    auto* dinfo = reinterpret_cast<j_decompress_ptr>(cinfo);
    if (dinfo->input_scan_number > kMaxJpegScans) {
        auto* error = reinterpret_cast<JpegError*>(cinfo->err);
        snprintf(error->message, sizeof(error->message), "progressive JPEG with more than %d scans", kMaxJpegScans);
        longjmp(error->jump, 1);
    }
}

// Everything between setjmp and a longjmp is C or trivially destructible: no C++ object with a
// destructor lives in this frame (rgba belongs to the caller), so the jump skips no destructor.
// Returns false with error.message set on failure.
bool decode_jpeg_raw(const uint8_t* data, size_t size, uint64_t max_pixels, std::vector<uint8_t>& rgba,
                     int& width, int& height, JpegError& error) {
    jpeg_decompress_struct cinfo;
    jpeg_progress_mgr progress;
    memset(&cinfo, 0, sizeof(cinfo));
    cinfo.err = jpeg_std_error(&error.manager);
    error.manager.error_exit = jpeg_fail;
    error.manager.emit_message = jpeg_message;
    error.message[0] = 0;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return false;
    }
    jpeg_create_decompress(&cinfo);
    progress.progress_monitor = jpeg_progress;
    cinfo.progress = &progress;
    jpeg_mem_src(&cinfo, data, static_cast<unsigned long>(size));
    jpeg_read_header(&cinfo, TRUE);  // TRUE: a tables-only file is an error (JERR_NO_IMAGE)
    if (cinfo.image_width == 0 || cinfo.image_height == 0 ||
        uint64_t(cinfo.image_width) * cinfo.image_height > max_pixels) {
        snprintf(error.message, sizeof(error.message), "%ux%u is too large", unsigned(cinfo.image_width),
                 unsigned(cinfo.image_height));
        jpeg_destroy_decompress(&cinfo);
        return false;
    }
    // Grey and YCbCr convert to RGBA; CMYK and YCCK cannot (JERR_CONVERSION_NOTIMPL: refused).
    cinfo.out_color_space = JCS_EXT_RGBA;
    jpeg_start_decompress(&cinfo);
    if (cinfo.output_components != 4) {
        snprintf(error.message, sizeof(error.message), "libjpeg gave %d components", cinfo.output_components);
        jpeg_destroy_decompress(&cinfo);
        return false;
    }
    size_t stride = size_t(cinfo.output_width) * 4;
    rgba.assign(stride * cinfo.output_height, 0);  // output size = header size: no scaling asked
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = rgba.data() + size_t(cinfo.output_scanline) * stride;
        if (jpeg_read_scanlines(&cinfo, &row, 1) != 1)
            break;  // suspension cannot happen with a memory source; be safe anyway
    }
    bool complete = cinfo.output_scanline == cinfo.output_height;
    if (complete)
        jpeg_finish_decompress(&cinfo);
    width = int(cinfo.output_width);
    height = int(cinfo.output_height);
    jpeg_destroy_decompress(&cinfo);
    if (!complete)
        snprintf(error.message, sizeof(error.message), "libjpeg: incomplete image");
    return complete;
}

std::string decode_jpeg(const uint8_t* data, size_t size, uint64_t max_pixels, DecodedImage& out) {
    JpegError error;
    int width = 0, height = 0;
    if (!decode_jpeg_raw(data, size, max_pixels, out.rgba, width, height, error)) {
        out.rgba.clear();
        return error.message;
    }
    out.width = width;
    out.height = height;
    return {};
}

// ---- WebP ----------------------------------------------------------------------------------------

// libwebp (EXT_texture_webp) reads the size from the header (WebPGetFeatures), so the size cap
// applies before any pixel memory exists; WebPDecodeRGBAInto decodes into our buffer, checking
// the output size it is given. Lossy and lossless, with or without alpha; animations are refused.
std::string decode_webp(const uint8_t* data, size_t size, uint64_t max_pixels, DecodedImage& out) {
    WebPBitstreamFeatures features;
    if (VP8StatusCode status = WebPGetFeatures(data, size, &features); status != VP8_STATUS_OK)
        return "libwebp: cannot read the header (status " + std::to_string(int(status)) + ")";
    if (features.has_animation)
        return "libwebp: animated WebP is not a texture";
    if (features.width <= 0 || features.height <= 0 || uint64_t(features.width) * uint64_t(features.height) > max_pixels)
        return too_large(uint64_t(std::max(features.width, 0)), uint64_t(std::max(features.height, 0)));
    size_t stride = size_t(features.width) * 4;
    out.rgba.assign(stride * size_t(features.height), 0);
    if (!WebPDecodeRGBAInto(data, size, out.rgba.data(), out.rgba.size(), int(stride))) {
        out.rgba.clear();
        return "libwebp: corrupt or truncated image";
    }
    out.width = features.width;
    out.height = features.height;
    return {};
}

}  // namespace

std::string decode_image_rgba8(const uint8_t* data, size_t size, uint64_t max_pixels, DecodedImage& out) {
    out = {};
    static const uint8_t kPng[4] = {0x89, 'P', 'N', 'G'};
    if (size >= 8 && memcmp(data, kPng, 4) == 0)
        return decode_png(data, size, max_pixels, out);
    if (size >= 3 && data[0] == 0xff && data[1] == 0xd8 && data[2] == 0xff)
        return decode_jpeg(data, size, max_pixels, out);
    if (size >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0)
        return decode_webp(data, size, max_pixels, out);
    return "not a PNG, JPEG or WebP image (glTF 2.0 allows image/png and image/jpeg, EXT_texture_webp image/webp)";
}
