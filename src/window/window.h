// Interactive mode: a GLFW window, swapchain, keyboard toggles and a HUD.
#pragma once

#include "run/options.h"

// Returns the process exit code. Without a display: exit 2 with a message naming --headless.
int run_window(const Options& options);
