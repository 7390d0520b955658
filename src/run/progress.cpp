#include "run/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

ProgressLine::ProgressLine() : terminal_(isatty(fileno(stderr)) != 0) {}

void ProgressLine::update(const std::string& text) {
    if (!terminal_) {
        fprintf(stderr, "%s\n", text.c_str());
        return;
    }
    width_ = std::max(width_, text.size());
    fprintf(stderr, "\r%-*s", int(width_), text.c_str());
    fflush(stderr);
    open_ = true;
}

void ProgressLine::finish() {
    if (open_) fprintf(stderr, "\n");
    open_ = false;
    width_ = 0;
}
