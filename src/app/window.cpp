#include "app/window.h"

#include <cstdio>
#include <cstdlib>

#include <GLFW/glfw3.h>

int run_window(const Options&) {
    const char* display = getenv("DISPLAY");
    const char* wayland = getenv("WAYLAND_DISPLAY");
    if ((!display || !*display) && (!wayland || !*wayland)) {
        fprintf(stderr, "error: no display for the window (DISPLAY is not set); use --headless to render offscreen\n");
        return 2;
    }
    if (!glfwInit()) {
        fprintf(stderr, "error: cannot open a window on this display; use --headless to render offscreen\n");
        return 2;
    }
    glfwTerminate();
    fprintf(stderr, "error: the interactive window is not built yet; use --headless\n");
    return 2;
}
