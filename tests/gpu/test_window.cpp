// The interactive window, driven like a user drives it: under an Xvfb display the test starts itself,
// xdotool presses every key that changes a pass or a view, resizes the window and presses F12.
// Oracles: the plan each key must select (from the device's own --info report), the window's size,
// and a headless render of the same configuration and animation frame, which must equal the F12
// screenshot everywhere except the HUD.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "run/image_io.h"
#include "gpu/harness.h"
#include "window/present.h"
#include "known_drivers.h"
#include "passes/pass_table.h"
#include "plan/plan.h"
#include "scoped_env.h"
#include "vk/context.h"

#ifdef SGD_HAVE_X11
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#endif

namespace {

using namespace std::chrono_literals;

bool on_path(const std::string& program) {
    return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

// A child process we started; killed (by its pid) if the test ends before it does.
struct Child {
    pid_t pid = -1;
    Child() = default;
    Child(const Child&) = delete;
    Child& operator=(Child&& o) noexcept {
        std::swap(pid, o.pid);
        return *this;
    }
    Child(Child&& o) noexcept { std::swap(pid, o.pid); }
    ~Child() {
        if (pid > 0) {
            kill(pid, SIGTERM);
            waitpid(pid, nullptr, 0);
        }
    }
    // Exit code, or -1 while it still runs after `timeout`.
    int wait(std::chrono::seconds timeout) {
        auto end = std::chrono::steady_clock::now() + timeout;
        while (std::chrono::steady_clock::now() < end) {
            int status = 0;
            if (waitpid(pid, &status, WNOHANG) == pid) {
                pid = -1;
                return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            }
            std::this_thread::sleep_for(50ms);
        }
        return -1;
    }
    bool running() {
        return pid > 0 && waitpid(pid, nullptr, WNOHANG) == 0;
    }
};

// Starts `argv` in `dir` with DISPLAY set (or unset if empty), stdout and stderr into `log`.
Child spawn(std::vector<std::string> argv, const std::string& dir, const std::string& display,
            const std::string& log, int keep_fd = -1) {
    // As run_demo: with the harness's empty cache, no first-run measurement.
    const char* cache = getenv("XDG_CACHE_HOME");
    if (argv[0] == SGD_DEMO && cache && cache == isolated_cache()) argv.insert(argv.begin() + 1, "--no-tuning");
    Child child;
    child.pid = fork();
    if (child.pid == 0) {
        if (!dir.empty() && chdir(dir.c_str()) != 0) _exit(127);
        if (display.empty()) {
            unsetenv("DISPLAY");
            unsetenv("WAYLAND_DISPLAY");
        } else {
            setenv("DISPLAY", display.c_str(), 1);
        }
        int out = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(out, 1);
        dup2(out, 2);
        for (int fd = 3; fd < 256; ++fd)
            if (fd != keep_fd) close(fd);
        std::vector<char*> args;
        for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execvp(args[0], args.data());
        _exit(127);
    }
    return child;
}

// An X server of our own, on a display number it picks itself (-displayfd).
struct XServer {
    Child process;
    std::string display;

    bool start(const std::string& dir) {
        int fds[2];
        if (pipe(fds) != 0) return false;
        process = spawn({"Xvfb", "-displayfd", std::to_string(fds[1]), "-screen", "0", "1024x768x24", "-nolisten", "tcp"},
                        "", "", dir + "/xvfb.log", fds[1]);
        close(fds[1]);
        std::string number;
        char c;
        auto end = std::chrono::steady_clock::now() + 30s;
        fcntl(fds[0], F_SETFL, O_NONBLOCK);
        while (std::chrono::steady_clock::now() < end) {
            ssize_t n = read(fds[0], &c, 1);
            if (n == 1 && c == '\n') break;
            if (n == 1) number += c;
            else if (n == 0) break;
            else std::this_thread::sleep_for(20ms);
        }
        close(fds[0]);
        if (number.empty()) return false;
        display = ":" + number;
        return true;
    }
};

std::string read_text(const std::string& path) {
    std::ifstream file(path);
    std::stringstream s;
    s << file.rdbuf();
    return s.str();
}

std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(prefix, 0) == 0) lines.push_back(line);
    return lines;
}

// Follows the demo's log: every configuration change prints one "frame N: ..." line.
struct DemoLog {
    std::string path;
    Child* demo;

    // Waits until a line starting with `prefix` appears after the first `skip` such lines; returns it.
    std::string wait_line(const std::string& prefix, size_t skip, std::chrono::seconds timeout = 180s) {
        auto end = std::chrono::steady_clock::now() + timeout;
        while (std::chrono::steady_clock::now() < end) {
            std::vector<std::string> lines = lines_starting(read_text(path), prefix);
            if (lines.size() > skip) return lines[skip];
            if (!demo->running()) break;
            std::this_thread::sleep_for(20ms);  // each key waits here for a frame: keep the wait short
        }
        return {};
    }
    size_t count(const std::string& prefix) { return lines_starting(read_text(path), prefix).size(); }
};

struct Xdotool {
    std::string display;
    bool run(const std::string& args) {
        return std::system(("DISPLAY=" + display + " xdotool " + args + " >/dev/null 2>&1").c_str()) == 0;
    }
    std::string window_id() {
        std::string command = "DISPLAY=" + display + " xdotool search --name '^subgroup-demo$' 2>/dev/null";
        FILE* pipe = popen(command.c_str(), "r");
        if (!pipe) return {};
        char buffer[64] = {};
        std::string id = fgets(buffer, sizeof(buffer), pipe) ? buffer : "";
        pclose(pipe);
        while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
        return id;
    }
};

// What the X server shows in the window now: the last image the demo presented.
Png capture_window(const std::string& display, const std::string& window_id) {
    Png png;
#ifdef SGD_HAVE_X11
    Display* x = XOpenDisplay(display.c_str());
    if (!x) return png;
    Window window = Window(std::stoul(window_id));
    XWindowAttributes attributes;
    if (XGetWindowAttributes(x, window, &attributes)) {
        XImage* image = XGetImage(x, window, 0, 0, attributes.width, attributes.height, AllPlanes, ZPixmap);
        if (image) {
            png.width = attributes.width;
            png.height = attributes.height;
            png.rgba.resize(size_t(png.width) * png.height * 4);
            auto channel = [](unsigned long pixel, unsigned long mask) {
                int shift = __builtin_ctzl(mask);
                return uint8_t((pixel & mask) >> shift);
            };
            for (int y = 0; y < png.height; ++y)
                for (int x_ = 0; x_ < png.width; ++x_) {
                    unsigned long pixel = XGetPixel(image, x_, y);
                    uint8_t* out = &png.rgba[(size_t(y) * png.width + x_) * 4];
                    out[0] = channel(pixel, image->red_mask);
                    out[1] = channel(pixel, image->green_mask);
                    out[2] = channel(pixel, image->blue_mask);
                    out[3] = 255;
                }
            XDestroyImage(image);
        }
    }
    XCloseDisplay(x);
#else
    (void)display;
    (void)window_id;
#endif
    return png;
}

bool skip_without_x(std::string& why) {
    for (const char* tool : {"Xvfb", "xdotool"})
        if (!on_path(tool)) {
            why = std::string(tool) + " is not installed (Debian packages xvfb and xdotool); the window test needs it";
            return true;
        }
    return false;
}

// The variant `auto` resolves to on this device, from the demo's own --info report.
nlohmann::json device_plan(const std::string& dir) {
    DemoRun info = run_demo({"--info", "--report", dir + "/info.json"});
    EXPECT_EQ(info.exit_code, 0) << info.output;
    return read_json(dir + "/info.json");
}

struct Step {
    std::string keys;      // xdotool key names
    std::string expected;  // substring of the "frame N:" line the key must produce
};

TEST(Window, KeysSwitchEveryPassAndViewResizeAndF12SavesTheFrameWithHud) {
    REQUIRE_DRAWING();
    std::string why;
    if (skip_without_x(why)) GTEST_SKIP() << why;
#ifndef SGD_HAVE_X11
    // The mouse and the window-content checks read the window back from the X server: without
    // libX11 at build time they would be compiled out and the test would pass without them.
    FAIL() << "gpu-tests was built without libX11 (CMake found no X11): the window's content cannot be "
              "checked; install libx11-dev (tools/setup.sh does) and reconfigure";
#endif
    std::string dir = test_dir("window");
    nlohmann::json info = device_plan(dir);
    ASSERT_TRUE(info.is_object());
    auto auto_variant = [&](const char* pass) { return info["plan"][pass]["variant"].get<std::string>(); };
    // Whether the lane-id view runs in a stage: the record's answer where the running driver has
    // one (tests/known_drivers.h), else the device's and the build's (--info's "views").
    const KnownDriver* k = known_driver();
    auto view_of = [&](const std::string& stage) {
        bool supported = k ? record_supports_view(*k, "lane-id", stage)
                           : info["views"][stage]["lane-id"]["variant"] == "subgroup";
        return "view-lane-id-" + stage + (supported ? "" : "-unsupported") + " (";
    };

    XServer x;
    ASSERT_TRUE(x.start(dir)) << "Xvfb did not start: " << read_text(dir + "/xvfb.log");
    std::string log_path = dir + "/demo.log";
    // 160x90 while the keys are pressed: each key waits for a frame, and the "frame N:" lines do
    // not depend on the size (at 320x180 a validated frame costs four times the CPU). The window
    // is resized to 560x360 before anything is read from its pixels. The generated props scene, not
    // the bundled one: what is tested is the keys, the HUD and the window's pixels, with any scene
    // that covers the frame (the bundled scene's 300k triangles made each frame three times dearer;
    // UnsupportedVariantIsSkippedWithANoteOnScreen starts the window on the bundled scene).
    const std::string scene = SGD_TEST_SCENES "/props.gltf";
    Child demo = spawn({SGD_DEMO, "--validate", "--size", "160x90", "--scene", scene}, dir, x.display, log_path);
    DemoLog log{log_path, &demo};
    ASSERT_NE(log.wait_line("frame 0:", 0), "") << read_text(log_path);
    Xdotool xdo{x.display};
    std::string window = xdo.window_id();
    ASSERT_FALSE(window.empty()) << "no window named subgroup-demo on " << x.display;
    ASSERT_TRUE(xdo.run("windowfocus " + window));

    // Pause first, so a headless run can render the very same animation frame.
    ASSERT_TRUE(xdo.run("key space"));
    std::string paused = log.wait_line("animation paused at frame ", 0);
    ASSERT_FALSE(paused.empty()) << read_text(log_path);
    uint32_t animation_frame = uint32_t(std::stoul(paused.substr(paused.rfind(' ') + 1)));

    std::string cull = auto_variant("cull"), light = auto_variant("light_cull"), mip = auto_variant("mip");
    std::string loop = auto_variant("light_loop"), rt = auto_variant("ray_trace"), expo = auto_variant("exposure");
    // Ray tracing's auto is the one the record implies, where the driver has one (lavapipe 25: fallback).
    if (k) EXPECT_EQ(rt, !k->ray_tracing ? "off" : record_rt_stages_without_subgroups(*k).empty() ? "subgroup" : "fallback");
    // Every pass of the table at its auto variant, exposure as given: the configuration part of a
    // "frame N:" line and of a screenshot name (window/controls.cpp plan_tag), so a new pass in the
    // table does not change this test.
    auto all_auto = [&](const std::string& exposure) {
        std::string tag;
        for (const PassInfo& pass : kPasses)
            tag += std::string(pass.tag) + "-" +
                   (pass.id == PassId::exposure ? exposure : auto_variant(std::string(pass.key).c_str())) + "_";
        return tag + "view-shaded";
    };
    // The frame line's tag of each view V reaches from `from` on, to shaded: a subgroup view names
    // its stage (fragment, the first), the depth-pyramid view its level (0, where V finds it).
    auto views_after = [](ViewMode from) {
        std::vector<Step> views;
        for (size_t m = size_t(from) + 1; m <= size_t(ViewMode::count); ++m) {
            ViewMode mode = ViewMode(m % size_t(ViewMode::count));
            std::string tag = "view-" + std::string(kViewNames[size_t(mode)]);
            views.push_back({"v", is_subgroup_view(mode)            ? tag + "-fragment"
                                  : mode == ViewMode::depth_pyramid ? tag + "-level-0 ("
                                                                    : tag + " ("});
        }
        return views;
    };
    auto append = [](std::vector<Step>& to, const std::vector<Step>& more) { to.insert(to.end(), more.begin(), more.end()); };
    std::vector<Step> steps = {
        {"1", "cull-subgroup_"},  {"1", "cull-fallback_"},  {"1", "cull-off_"},       {"shift+1", "cull-fallback_"},
        {"1", "cull-off_"},       {"1", "cull-" + cull + "_"},
        {"2", "light-subgroup_"}, {"2", "light-fallback_"}, {"2", "light-off_"},      {"2", "light-" + light + "_"},
        {"3", "mip-subgroup_"},   {"3", "mip-forward_"},    {"3", "mip-fallback_"},   {"3", "mip-off_"},
        {"3", "mip-" + mip + "_"},
        {"6", "expo-subgroup_"},  {"6", "expo-fallback_"},  {"6", "expo-off_"},       {"6", "expo-" + expo + "_"},
        // The light loop offers no off: auto > subgroup > fallback > auto.
        {"4", "loop-subgroup_"},  {"4", "loop-fallback_"},  {"shift+4", "loop-subgroup_"}, {"4", "loop-fallback_"},
        {"4", "loop-" + loop + "_"},
        // Ray tracing backwards from auto is off, then forwards auto again (what auto is depends on
        // the device: off without ray tracing, fallback on lavapipe).
        {"shift+5", "rt-off_"},   {"5", "rt-" + rt + "_"},
    };
    // V from shaded through every view of kViewNames and back (a view added there is stepped
    // through here without a word in this test).
    append(steps, views_after(ViewMode::shaded));
    // P shows the depth-pyramid view, then steps its level, both ways; V goes on from there.
    append(steps, {{"p", "view-depth-pyramid-level-0 ("}, {"p", "view-depth-pyramid-level-1 ("},
                   {"shift+p", "view-depth-pyramid-level-0 ("}});
    append(steps, views_after(ViewMode::depth_pyramid));
    append(steps, {
        {"v", "view-lane-id-fragment"},
        {"b", view_of("compute")}, {"b", view_of("task")}, {"b", view_of("mesh")}, {"b", view_of("raygen")},
        {"b", view_of("any-hit")}, {"b", view_of("closest-hit")}, {"b", view_of("miss")}, {"b", view_of("intersection")},
        {"b", view_of("callable")}, {"b", view_of("vertex")}, {"b", view_of("tess-control")},
        {"b", view_of("tess-eval")}, {"b", view_of("geometry")}, {"b", view_of("fragment")},
        {"shift+v", "view-shaded ("},
        {"1", "cull-subgroup_"},
        {"0", all_auto(expo) + " ("},
        // Exposure off for the comparison below: the measured exposure depends on the frames before
        // (the window's differ from a headless run's), the fixed one does not.
        {"6", "expo-subgroup_"}, {"6", "expo-fallback_"}, {"6", all_auto("off") + " ("},
    });
    // Help on and off again (the screenshot below compares the frame without it).
    ASSERT_TRUE(xdo.run("key h"));
    ASSERT_FALSE(log.wait_line("help shown", 0).empty());
    ASSERT_TRUE(xdo.run("key h"));
    ASSERT_FALSE(log.wait_line("help hidden", 0).empty());
    // The frame-time graph off too: the region compared below is the stats panel's alone.
    ASSERT_TRUE(xdo.run("key g"));
    ASSERT_FALSE(log.wait_line("graph hidden", 0).empty());
    // Culling frozen and resumed (the frame below is a culling one again). First, before the keys: its
    // notes cover the bottom rows for six seconds, and the window below must be read without them.
    ASSERT_TRUE(xdo.run("key f"));
    ASSERT_FALSE(log.wait_line("note: culling frozen", 0).empty());
    ASSERT_TRUE(xdo.run("key f"));
    ASSERT_FALSE(log.wait_line("note: culling resumed", 0).empty());

    // The same configuration and animation frame, rendered headless (never with a HUD); rendered here,
    // while the window is small, so the window need not go on drawing 560x360 frames meanwhile.
    // The window draws with its default --lod auto; the reference asks for the same (run_demo adds off).
    DemoRun headless = run_demo({"--headless", "--scene", scene, "--lod", "auto", "--size", "560x360", "--frames",
                                 std::to_string(animation_frame + 1), "--warmup", "0", "--exposure", "off",
                                 "--screenshot", dir + "/headless.png"});
    ASSERT_EQ(headless.exit_code, 0) << headless.output;
    Png reference = read_png(dir + "/headless.png");
    ASSERT_EQ(reference.width, 560);

    size_t frames_logged = log.count("frame ");
    for (const Step& step : steps) {
        ASSERT_TRUE(xdo.run("key " + step.keys)) << step.keys;
        std::string line = log.wait_line("frame ", frames_logged);
        ASSERT_FALSE(line.empty()) << "no frame after key " << step.keys << "\n" << read_text(log_path);
        EXPECT_NE(line.find(step.expected), std::string::npos) << "key " << step.keys << " gave: " << line;
        frames_logged++;
    }

    ASSERT_TRUE(xdo.run("windowsize " + window + " 560 360"));
    ASSERT_FALSE(log.wait_line("swapchain: 560x360", 0).empty()) << read_text(log_path);
    // Where the two differ is the HUD: a region anchored at the top-right corner that holds text in
    // the HUD's exact white. Everything else is the same render (the window's camera is the headless
    // default view until it moves). "Same" allows 2 units per channel: light lists filled by atomics
    // may list a tile's lights in another order in another run, and float sums in another order can
    // round differently. The HUD's panel darkens what is under it by far more; a swapped byte order
    // moves the background's blue and red by 7.
    auto differs = [](const uint8_t* a, const uint8_t* b) {
        return std::abs(a[0] - b[0]) > 2 || std::abs(a[1] - b[1]) > 2 || std::abs(a[2] - b[2]) > 2;
    };
#ifdef SGD_HAVE_X11
    // The mouse: a left drag orbits and the wheel zooms, so the window must show another picture
    // (compared left of the HUD, x < 100, with what it showed once the paused frame was steady).
    auto scene_part_differs = [](const Png& a, const Png& b) {
        if (a.width != 560 || b.width != 560 || a.height != 360 || b.height != 360) return true;
        int changed = 0;
        for (int y = 0; y < 360; ++y)
            for (int x = 0; x < 100; ++x)
                changed += std::abs(a.at(x, y)[0] - b.at(x, y)[0]) + std::abs(a.at(x, y)[1] - b.at(x, y)[1]) > 8;
        return changed > 100 * 360 / 50;
    };
    // Short polls (100 ms) on what the window shows, with minute-long limits: the suite runs two
    // tests at once on two cores, where a 560x360 validated frame can take a second.
    auto poll_window = [&](const std::function<bool(const Png&)>& done) {
        for (auto end = std::chrono::steady_clock::now() + 60s; std::chrono::steady_clock::now() < end;) {
            std::this_thread::sleep_for(100ms);
            if (done(capture_window(x.display, window))) return true;
        }
        return false;
    };
    // Steady: a newly presented frame (the HUD's numbers changed) shows the same scene part, or
    // nothing changed for a second.
    Png before = capture_window(x.display, window);
    auto quiet_since = std::chrono::steady_clock::now();
    poll_window([&](const Png& again) {
        if (scene_part_differs(before, again)) {
            before = again;
            quiet_since = std::chrono::steady_clock::now();
            return false;
        }
        bool new_frame = again.rgba != before.rgba;
        before = again;
        return new_frame || std::chrono::steady_clock::now() - quiet_since >= 1s;
    });
    // The demo reads the left button's state once a frame: it stays down until the window shows
    // the orbit.
    ASSERT_TRUE(xdo.run("mousemove --window " + window + " 200 120 mousedown 1 mousemove_relative 60 25"));
    bool moved = poll_window([&](const Png& now) { return scene_part_differs(before, now); });
    ASSERT_TRUE(xdo.run("mouseup 1 click 4 click 4"));
    EXPECT_TRUE(moved) << "dragging and the wheel did not move the camera";
    // H twice: X delivers events in order, so once "help shown" is logged the frame that logged it
    // (or an earlier one) has taken the button release and the wheel; R then cannot share a frame
    // with the zoom.
    ASSERT_TRUE(xdo.run("key h"));
    ASSERT_FALSE(log.wait_line("help shown", 1).empty()) << read_text(log_path);
    ASSERT_TRUE(xdo.run("key h"));
    ASSERT_FALSE(log.wait_line("help hidden", 1).empty()) << read_text(log_path);
    // R brings back the exact default view: the F12 comparison with the headless frame below relies on it.
    ASSERT_TRUE(xdo.run("key r"));
    ASSERT_FALSE(log.wait_line("camera reset", 0).empty()) << read_text(log_path);
    // Read the window before F12 (whose "saved" note then covers the bottom rows for six seconds):
    // once it shows the reset camera with the culling notes gone, it equals the headless frame but
    // in a block at the top right, the HUD's (the exact region is checked below, from the F12 shot).
    Png shown;
    poll_window([&](const Png& now) {
        if (now.width != 560 || now.height != 360) return false;
        shown = now;
        int left = 560, bottom = -1;
        for (int y = 0; y < 360; ++y)
            for (int x = 0; x < 560; ++x)
                if (differs(now.at(x, y), reference.at(x, y))) left = std::min(left, x), bottom = std::max(bottom, y);
        return left > 40 && bottom < 352;
    });
#endif

    ASSERT_TRUE(xdo.run("key F12"));
    std::string shot = log.wait_line("screenshot: ", 0);
    ASSERT_FALSE(shot.empty()) << read_text(log_path);
    std::string name = "subgroup-demo_" + all_auto("off") + "_560x360.png";
    EXPECT_EQ(shot.substr(12, name.size()), name) << shot;
    Png screenshot = read_png(dir + "/" + name);
    ASSERT_EQ(screenshot.width, 560) << "missing or unreadable " << name;
    ASSERT_EQ(screenshot.height, 360);

    int x0 = 560, y0 = 360, x1 = -1, y1 = -1;
    for (int y = 0; y < 360; ++y)
        for (int x = 0; x < 560; ++x) {
            const uint8_t *a = screenshot.at(x, y), *b = reference.at(x, y);
            if (differs(a, b))
                x0 = std::min(x0, x), y0 = std::min(y0, y), x1 = std::max(x1, x), y1 = std::max(y1, y);
        }
    ASSERT_GE(x1, 0) << "the F12 screenshot equals the headless frame: no HUD";
    EXPECT_GE(x1, 560 - 9);
    EXPECT_LE(y0, 8);
    EXPECT_GE(x1 - x0, 150) << "HUD region too narrow";
    EXPECT_GE(y1 - y0, 100) << "HUD region too short";
    EXPECT_GT(x0, 40) << "the frames differ beyond the HUD panel (different configuration or camera?)";
    // (At 400x300 the HUD reached row 260 and column 10 once the occlusion and LOD lines came: the window is 560x360 so that rows below it and columns left of it still match.)
    EXPECT_LT(y1, 352) << "the frames differ beyond the HUD panel (different configuration or camera?)";
    auto hud_white = [&](const Png& png) {
        int count = 0;
        for (int y = y0; y <= y1; ++y)
            for (int x = x0; x <= x1; ++x) {
                const uint8_t* p = png.at(x, y);
                count += p[0] == 240 && p[1] == 240 && p[2] == 240;
            }
        return count;
    };
    EXPECT_GT(hud_white(screenshot), hud_white(reference) + 300) << "no HUD text in the HUD region";

#ifdef SGD_HAVE_X11
    // What the window shows (read back from the X server) is the frame, through the swapchain: outside
    // the HUD, whose numbers change every frame, it equals the headless frame. The capture read before
    // F12 first; should it not match, polled: the "saved" note covers the bottom rows for a few
    // seconds after F12. mismatch_of: where the window differs from the headless frame outside the HUD's region ("" where nowhere).
    auto mismatch_of = [&](const Png& capture) -> std::string {
        if (capture.width != 560 || capture.height != 360) return "no capture";
        for (int y = 0; y < 360; ++y)
            for (int x = 0; x < 560; ++x) {
                if (x >= x0 - 1 && x <= x1 + 1 && y >= y0 - 1 && y <= y1 + 1) continue;
                const uint8_t *a = capture.at(x, y), *b = reference.at(x, y);
                if (differs(a, b))
                    return "at " + std::to_string(x) + "," + std::to_string(y) + " the window shows " + std::to_string(a[0]) +
                           " " + std::to_string(a[1]) + " " + std::to_string(a[2]) + ", the frame has " +
                           std::to_string(b[0]) + " " + std::to_string(b[1]) + " " + std::to_string(b[2]);
            }
        return "";
    };
    std::string mismatch = mismatch_of(shown);
    for (auto end = std::chrono::steady_clock::now() + 90s; !mismatch.empty() && std::chrono::steady_clock::now() < end;) {
        std::this_thread::sleep_for(100ms);
        shown = capture_window(x.display, window);
        mismatch = mismatch_of(shown);
    }
    if (shown.width > 0) write_png(dir + "/window.png", shown.width, shown.height, shown.rgba);
    EXPECT_EQ(mismatch, "") << "the window does not show the rendered frame (see " << dir << "/window.png)";
    if (shown.width == 560) EXPECT_GT(hud_white(shown), hud_white(reference) + 300) << "the window shows no HUD";
#endif

    ASSERT_TRUE(xdo.run("key Escape"));
    int code = demo.wait(120s);
    std::string output = read_text(log_path);
    EXPECT_EQ(code, 0) << output;
    EXPECT_EQ(validation_lines(output), 0) << output;
}

TEST(Window, UnsupportedVariantIsSkippedWithANoteOnScreen) {
    REQUIRE_DRAWING();
    std::string why;
    if (skip_without_x(why)) GTEST_SKIP() << why;
    std::string dir = test_dir("window-skip");
    XServer x;
    ASSERT_TRUE(x.start(dir)) << "Xvfb did not start: " << read_text(dir + "/xvfb.log");
    std::string log_path = dir + "/demo.log";
    // Without quad operations the quad mip cannot run: the mip key must skip `subgroup`.
    // 480x320: room below the HUD's panel for the note (a note never covers the panel).
    Child demo = spawn({SGD_DEMO, "--validate", "--size", "480x320", "--mask-ops", "quad"}, dir, x.display, log_path);
    DemoLog log{log_path, &demo};
    ASSERT_NE(log.wait_line("frame 0:", 0), "") << read_text(log_path);
    Xdotool xdo{x.display};
    std::string window = xdo.window_id();
    ASSERT_FALSE(window.empty());
    ASSERT_TRUE(xdo.run("windowfocus " + window));
    ASSERT_TRUE(xdo.run("key 3"));
    std::string line = log.wait_line("frame ", 1);
    EXPECT_NE(line.find("mip-fallback_"), std::string::npos) << line;
    EXPECT_NE(line.find("mip=fallback"), std::string::npos) << line;
    std::string note = log.wait_line("note: skipped mip subgroup", 0);
    EXPECT_NE(note.find("quad"), std::string::npos) << read_text(log_path);
    ASSERT_TRUE(xdo.run("key F12"));
    std::string shot = log.wait_line("screenshot: ", 0);
    ASSERT_FALSE(shot.empty()) << read_text(log_path);
    ASSERT_TRUE(xdo.run("key Escape"));
    EXPECT_EQ(demo.wait(120s), 0) << read_text(log_path);
    EXPECT_EQ(validation_lines(read_text(log_path)), 0) << read_text(log_path);

    // The note is on screen: the HUD's note yellow, in the bottom rows where notes stack.
    Png png = read_png(dir + "/" + shot.substr(12, shot.find(' ', 12) - 12));
    ASSERT_EQ(png.width, 480) << shot;
    int yellow = 0;
    for (int y = png.height * 2 / 3; y < png.height; ++y)
        for (int x = 0; x < png.width; ++x) {
            const uint8_t* p = png.at(x, y);
            yellow += p[0] == 255 && p[1] == 235 && p[2] == 120;
        }
    EXPECT_GT(yellow, 100) << "no note at the bottom of the screenshot";
}

// The window and the headless run build their renderer from the same options through one function
// (app/run.cpp renderer_config): this fails if either path drops or changes an option on the way.
TEST(Window, ConfiguresTheRendererLikeTheHeadlessRun) {
    REQUIRE_DRAWING();
    std::string why;
    if (skip_without_x(why)) GTEST_SKIP() << why;
    std::string dir = test_dir("window-config");
    // The generated props scene (both runs): what is compared is the options' way into the renderer.
    const std::vector<std::string> options = {"--scene", SGD_TEST_SCENES "/props.gltf", "--size", "160x90", "--cull-group-size", "96", "--lights", "17",
                                              "--light-cull", "fallback", "--view", "lane-id", "--view-stage", "compute", "--no-legend"};
    std::vector<std::string> headless = {"--headless", "--frames", "1", "--warmup", "0", "--report", dir + "/r.json"};
    headless.insert(headless.end(), options.begin(), options.end());
    DemoRun run = run_demo(headless);
    ASSERT_EQ(run.exit_code, 0) << run.output;
    nlohmann::json expected = read_json(dir + "/r.json")["renderer"];
    ASSERT_EQ(expected["cull_group_size"], 96) << expected.dump();

    XServer x;
    ASSERT_TRUE(x.start(dir)) << "Xvfb did not start: " << read_text(dir + "/xvfb.log");
    std::string log_path = dir + "/demo.log";
    std::vector<std::string> window = {SGD_DEMO};
    window.insert(window.end(), options.begin(), options.end());
    Child demo = spawn(window, dir, x.display, log_path);
    DemoLog log{log_path, &demo};
    std::string line = log.wait_line("renderer: ", 0);
    ASSERT_FALSE(line.empty()) << read_text(log_path);
    ASSERT_NE(log.wait_line("frame 0:", 0), "") << read_text(log_path);
    Xdotool xdo{x.display};
    std::string id = xdo.window_id();
    ASSERT_FALSE(id.empty());
    ASSERT_TRUE(xdo.run("windowfocus " + id));
    ASSERT_TRUE(xdo.run("key Escape"));
    EXPECT_EQ(demo.wait(120s), 0) << read_text(log_path);
    EXPECT_EQ(nlohmann::json::parse(line.substr(10)), expected) << line;
}

// --soak-frames drives the window through its hooks (window/soak.cpp): 48 frames are 12 actions (the
// first three passes' keys, four presses each, every one a new configuration), too few to compare
// memory, so the run ends with the summary line, the reason and exit 2. tools/soak.sh runs the
// long version (docs/controls.md).
TEST(Window, SoakPressesTheKeysThenRefusesTooFewFramesForAMemoryVerdict) {
    REQUIRE_DRAWING();
    std::string why;
    if (skip_without_x(why)) GTEST_SKIP() << why;
    std::string dir = test_dir("window-soak");
    XServer x;
    ASSERT_TRUE(x.start(dir)) << "Xvfb did not start: " << read_text(dir + "/xvfb.log");
    std::string log_path = dir + "/demo.log";
    // The generated props scene: the soak's hooks and verdict do not depend on the scene, and the
    // bundled one's load and 300k triangles a frame were most of this test's time.
    Child demo = spawn({SGD_DEMO, "--size", "160x90", "--scene", SGD_TEST_SCENES "/props.gltf", "--soak-frames", "48"}, dir,
                       x.display, log_path);
    ASSERT_EQ(demo.wait(300s), 2) << read_text(log_path);
    std::string log = read_text(log_path);
    EXPECT_EQ(lines_starting(log, "soak: 48 frames").size(), 2u) << log;  // the start and the summary
    EXPECT_EQ(lines_starting(log, "soak: 48 frames, 12 actions,").size(), 1u) << log;
    EXPECT_EQ(lines_starting(log, "window: closed after 48 frames").size(), 1u) << log;
    EXPECT_EQ(lines_starting(log, "frame ").size(), 12u) << log;  // one per configuration pressed
    EXPECT_NE(log.find("error: --soak-frames 48 is too few to compare memory"), std::string::npos) << log;
}

// The first run in the window: no tuning file fits, so it shows "measuring this device" in its HUD,
// measures, stores a quick verdict and goes on; the soak then runs its 48 frames as without it.
TEST(Window, AFirstRunMeasuresThisDeviceThenRuns) {
    REQUIRE_DRAWING();
    std::string why;
    if (skip_without_x(why)) GTEST_SKIP() << why;
    std::string dir = test_dir("window-first-run");
    setenv("XDG_CACHE_HOME", (dir + "/cache").c_str(), 1);
    XServer x;
    ASSERT_TRUE(x.start(dir)) << "Xvfb did not start: " << read_text(dir + "/xvfb.log");
    std::string log_path = dir + "/demo.log";
    Child demo = spawn({SGD_DEMO, "--size", "160x90", "--scene", SGD_TEST_SCENES "/props.gltf", "--soak-frames", "48"}, dir,
                       x.display, log_path);
    int code = demo.wait(300s);
    setenv("XDG_CACHE_HOME", isolated_cache().c_str(), 1);
    ASSERT_EQ(code, 2) << read_text(log_path);
    std::string log = read_text(log_path);
    EXPECT_EQ(lines_starting(log, "window: measuring this device for auto").size(), 1u) << log;
    EXPECT_EQ(lines_starting(log, "auto: measured this device in ").size(), 1u) << log;
    EXPECT_NE(log.find("note: auto: measured this device in "), std::string::npos) << log;
    EXPECT_EQ(lines_starting(log, "soak: 48 frames, 12 actions,").size(), 1u) << log;
    bool stored = false;
    for (const auto& entry : std::filesystem::directory_iterator(dir + "/cache/subgroup-demo"))
        stored = stored || read_json(entry.path().string())["made_by"] == "quick";
    EXPECT_TRUE(stored) << log;
}

// The window checks its plans against the device's limits before anything of them is allocated:
// the one it starts with at start-up (exit 2), a key's when pressed (window.cpp fits_the_device: a
// note naming the buffer and the limit, and the window stays on its plan). The generated box in a
// 14 x 14 grid, 196 draws: the meshlet path's visible list is 200704 bytes (32 entries of 32 bytes
// a draw's task chunk), past the storage range SGD_MASK_LIMITS lowers to 150000, which every
// buffer of the indexed path at 64x64 fits (the draws: 100352 bytes).
TEST(Window, AKeysPlanPastTheLimitsIsRefusedWithANote) {
    REQUIRE_DRAWING();
    std::string why;
    if (skip_without_x(why)) GTEST_SKIP() << why;
    {
        Context ctx;
        create_context(ctx, {});
        if (!ctx.features.mesh_shader) GTEST_SKIP() << "device lacks VK_EXT_mesh_shader: no meshlet path to refuse";
    }
    const std::string refusal =
        "the meshlet visible list buffer would need 0.2 MiB (200704 bytes), more than the device's storage buffer range of 0.1 MiB";
    ScopedEnv mask("SGD_MASK_LIMITS", "maxStorageBufferRange=150000");
    std::string dir = test_dir("window-limits");
    XServer x;
    ASSERT_TRUE(x.start(dir)) << "Xvfb did not start: " << read_text(dir + "/xvfb.log");
    const std::vector<std::string> args = {SGD_DEMO, "--size", "64x64", "--lights", "16", "--scene", SGD_TEST_SCENES "/box.gltf",
                                           "--instances", "14"};

    std::vector<std::string> meshlet = args;
    meshlet.insert(meshlet.end(), {"--geometry", "meshlet"});
    Child refused = spawn(meshlet, dir, x.display, dir + "/refused.log");
    ASSERT_EQ(refused.wait(120s), 2) << read_text(dir + "/refused.log");
    std::string said = read_text(dir + "/refused.log");
    EXPECT_EQ(lines_starting(said, "error: ").size(), 1u) << said;
    EXPECT_NE(said.find("error: " + refusal), std::string::npos) << said;

    std::string log_path = dir + "/demo.log";
    Child demo = spawn(args, dir, x.display, log_path);
    DemoLog log{log_path, &demo};
    ASSERT_NE(log.wait_line("frame 0:", 0), "") << read_text(log_path);
    Xdotool xdo{x.display};
    std::string id = xdo.window_id();
    ASSERT_FALSE(id.empty());
    ASSERT_TRUE(xdo.run("windowfocus " + id));
    ASSERT_TRUE(xdo.run("key m"));
    std::string note = log.wait_line("note: refused: ", 0, 60s);  // the next frame's input handling
    EXPECT_NE(note.find(refusal), std::string::npos) << read_text(log_path);
    ASSERT_TRUE(xdo.run("key Escape"));
    EXPECT_EQ(demo.wait(120s), 0) << read_text(log_path);
    EXPECT_EQ(log.count("frame "), 1u) << "the window left its plan: " << read_text(log_path);
}

// A window grown past the largest image the device can render (SGD_MASK_LIMITS lowers it to 100
// pixels a side) keeps its frame at its size, says so once, shows the frame in the window's corner
// on black, and follows the next resize that fits.
TEST(Window, AWindowGrownPastTheLargestImageKeepsItsFrameWithANote) {
    REQUIRE_DRAWING();
    std::string why;
    if (skip_without_x(why)) GTEST_SKIP() << why;
    ScopedEnv mask("SGD_MASK_LIMITS", "maxImageDimension2D=100");
    std::string dir = test_dir("window-largest-image");
    XServer x;
    ASSERT_TRUE(x.start(dir)) << "Xvfb did not start: " << read_text(dir + "/xvfb.log");
    std::string log_path = dir + "/demo.log";
    Child demo = spawn({SGD_DEMO, "--validate", "--size", "64x64", "--lights", "16", "--scene", SGD_TEST_SCENES "/box.gltf"}, dir,
                       x.display, log_path);
    DemoLog log{log_path, &demo};
    ASSERT_NE(log.wait_line("frame 0:", 0), "") << read_text(log_path);
    Xdotool xdo{x.display};
    std::string window = xdo.window_id();
    ASSERT_FALSE(window.empty());

    ASSERT_TRUE(xdo.run("windowsize " + window + " 160 120"));
    ASSERT_FALSE(log.wait_line("swapchain: 160x120", 0).empty()) << read_text(log_path);
    std::string note = log.wait_line("note: refused: ", 0, 60s);
    EXPECT_NE(note.find("exceeds the device's largest image (100 pixels a side)"), std::string::npos) << read_text(log_path);
    EXPECT_NE(note.find("the frame stays at 64x64"), std::string::npos) << note;

#ifdef SGD_HAVE_X11
    // The window: the 64x64 frame at its top-left (the box and its background, not the grey),
    // kOutsideTheFrame's grey elsewhere.
    auto wrong_of = [](const Png& shown) -> std::string {
        if (shown.width != 160 || shown.height != 120) return "no 160x120 capture";
        int frame_pixels = 0;
        for (int y = 0; y < 120; ++y)
            for (int x = 0; x < 160; ++x) {
                const uint8_t* p = shown.at(x, y);
                bool grey = p[0] == kOutsideTheFrame && p[1] == kOutsideTheFrame && p[2] == kOutsideTheFrame;
                if (x < 64 && y < 64) frame_pixels += !grey;
                else if (!grey) return "not the grey at " + std::to_string(x) + "," + std::to_string(y) + ": " + std::to_string(p[0]);
            }
        return frame_pixels > 64 * 64 / 2 ? "" : "the frame's corner is mostly the grey";
    };
    Png shown = capture_window(x.display, window);
    std::string wrong = wrong_of(shown);
    for (auto end = std::chrono::steady_clock::now() + 60s; !wrong.empty() && std::chrono::steady_clock::now() < end;) {
        std::this_thread::sleep_for(100ms);
        shown = capture_window(x.display, window);
        wrong = wrong_of(shown);
    }
    if (shown.width > 0) write_png(dir + "/window.png", shown.width, shown.height, shown.rgba);
    EXPECT_EQ(wrong, "") << "see " << dir << "/window.png";
#endif

    ASSERT_TRUE(xdo.run("windowsize " + window + " 96 80"));
    ASSERT_FALSE(log.wait_line("swapchain: 96x80", 0).empty()) << read_text(log_path);
    ASSERT_TRUE(xdo.run("key Escape"));
    EXPECT_EQ(demo.wait(120s), 0) << read_text(log_path);
    std::string output = read_text(log_path);
    EXPECT_EQ(lines_starting(output, "note: refused: ").size(), 1u) << "96x80 fits: " << output;
    EXPECT_EQ(validation_lines(output), 0) << output;
}

}  // namespace
