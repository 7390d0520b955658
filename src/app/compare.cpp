#include "app/compare.h"

#include <cstdio>

int run_compare(const Options&) {
    fprintf(stderr, "error: --compare is not built yet; use --headless with --cull/--light-cull/--mip\n");
    return 2;
}
