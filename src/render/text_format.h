// Numbers as the HUD, the report's notes and the units' HUD lines print them.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

// 1234567 -> "1,234,567"
inline std::string thousands(uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

inline std::string fixed(double v, int decimals) {
    char buffer[64];
    snprintf(buffer, sizeof(buffer), "%.*f", decimals, v);
    return buffer;
}

// Milliseconds with about four significant digits: 0.0123, 0.123, 1.234, 12.35, 123.5.
inline std::string format_ms(double ms) {
    double a = std::fabs(ms);
    return fixed(ms, a < 0.1 ? 4 : a < 10 ? 3 : a < 100 ? 2 : 1);
}
