// `--compare --out DIR`: every configuration headless, a comparison sheet and reports.
#pragma once

#include "app/options.h"

// Returns the process exit code.
int run_compare(const Options& options);
