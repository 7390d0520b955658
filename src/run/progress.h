#pragma once
// Progress of long work on stderr (the frames of a headless run, the first run's measurement, the
// atlas's cells): on a terminal one line redrawn in place, into a pipe or a file one line per update,
// since a carriage return there would run the updates together ("frame 10/20frame 20/20").
#include <string>

class ProgressLine {
public:
    ProgressLine();
    ~ProgressLine() { finish(); }
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;

    void update(const std::string& text);
    // Ends a terminal's line (once, where something was written), so what follows starts on its own.
    void finish();

private:
    bool terminal_ = false;
    bool open_ = false;    // a terminal line is written and not yet ended
    size_t width_ = 0;     // the longest text of the line so far: a shorter one is padded over it
};
