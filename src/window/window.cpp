// The interactive window: GLFW for the window and input, a swapchain the offscreen frame is copied
// into, kFramesInFlight frames in flight, keys that change the plan, and the HUD.
#include "window/window.h"

#include <fcntl.h>
#include <malloc.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>

#define GLFW_INCLUDE_VULKAN
#include <GLFW/glfw3.h>

#include "window/camera_control.h"
#include "window/controls.h"
#include "passes/occlusion_pass.h"
#include "compare/tuning.h"
#include "window/hud.h"
#include "run/image_io.h"
#include "app/run.h"
#include "window/present.h"
#include "run/headless.h"
#include "run/report.h"
#include "window/soak.h"
#include "window/swapchain.h"

extern char** environ;

namespace {

constexpr double kNoteSeconds = 6.0;
constexpr size_t kMaxNotes = 4;

void log_line(const std::string& line) {
    printf("%s\n", line.c_str());
    fflush(stdout);  // tests and scripts follow this log while the window runs
}

std::string g_glfw_error;
void on_glfw_error(int, const char* description) { g_glfw_error = description ? description : ""; }

// What GLFW reported since the last frame; the callbacks only queue, the frame loop acts.
struct Input {
    std::vector<std::pair<int, int>> keys;  // (key, mods) of key presses
    double wheel = 0;
    bool resized = false;
};

Input& input_of(GLFWwindow* window) { return *static_cast<Input*>(glfwGetWindowUserPointer(window)); }

void on_key(GLFWwindow* window, int key, int, int action, int mods) {
    if (action == GLFW_PRESS) input_of(window).keys.push_back({key, mods});
}
void on_scroll(GLFWwindow* window, double, double y) { input_of(window).wheel += y; }
void on_framebuffer_size(GLFWwindow* window, int, int) { input_of(window).resized = true; }

std::string join(const std::vector<std::string>& items) {
    std::string s;
    for (const std::string& i : items) s += (s.empty() ? "" : ",") + i;
    return s;
}

// The last non-empty line of a (small) text file.
std::string last_line(const std::string& path) {
    std::ifstream file(path);
    std::string line, last;
    while (std::getline(file, line)) {
        line.erase(0, line.rfind('\r') == std::string::npos ? 0 : line.rfind('\r') + 1);  // progress redrawn with \r
        if (!line.empty()) last = line;
    }
    return last;
}

std::string timestamp() {
    time_t now = time(nullptr);
    char buffer[32];
    strftime(buffer, sizeof(buffer), "%Y%m%d-%H%M%S", localtime(&now));
    return buffer;
}

// RAII for what GLFW and Vulkan hand out, so every exit path (exceptions included) cleans up in order.
struct GlfwSession {
    ~GlfwSession() { glfwTerminate(); }
};
struct WindowHandle {
    GLFWwindow* window = nullptr;
    ~WindowHandle() {
        if (window) glfwDestroyWindow(window);
    }
};
struct SurfaceHandle {
    VkInstance instance = VK_NULL_HANDLE;
    VkSurfaceKHR surface = VK_NULL_HANDLE;
    ~SurfaceHandle() {
        if (surface) vkDestroySurfaceKHR(instance, surface, nullptr);
    }
};

// Per frame in flight: the command buffer, the swapchain-image-acquired semaphore and the fence.
struct WindowFrame {
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkSemaphore acquired = VK_NULL_HANDLE;
    VkFence done = VK_NULL_HANDLE;
    bool pending = false;  // submitted, results not read yet
};

class WindowApp {
public:
    WindowApp(const Options& options, GLFWwindow* window, const Context& ctx, VkSurfaceKHR surface, const Scene& scene,
              const Plan& plan, const LoadedTuning& tuning, bool measure_first)
        : options_(options), window_(window), ctx_(ctx), surface_(surface), scene_(scene), request_(options.plan), tuning_(tuning),
          measure_first_(measure_first) {
        int width = 0, height = 0;
        glfwGetFramebufferSize(window, &width, &height);
        RendererConfig config =
            renderer_config(options, plan, {uint32_t(std::max(width, 16)), uint32_t(std::max(height, 16))});
        renderer_ = std::make_unique<Renderer>(ctx, scene, config);
        plans_run_.push_back(plan);
        log_line("renderer: " + renderer_json(config).dump());
        renderer_->set_overlay_hook([this](Overlay& overlay) { draw_hud(overlay, hud_); });
        camera_.reset(renderer_->default_view(), renderer_->bounds_min(), renderer_->bounds_max());

        VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        alloc.commandPool = ctx.command_pool;
        alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        alloc.commandBufferCount = 1;
        VkSemaphoreCreateInfo semaphore{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        VkFenceCreateInfo fence{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        fence.flags = VK_FENCE_CREATE_SIGNALED_BIT;  // the first wait on each slot returns at once
        for (WindowFrame& f : frames_) {
            VK_CHECK(vkAllocateCommandBuffers(ctx.device, &alloc, &f.cmd));
            VK_CHECK(vkCreateSemaphore(ctx.device, &semaphore, nullptr, &f.acquired));
            VK_CHECK(vkCreateFence(ctx.device, &fence, nullptr, &f.done));
        }

        presenter_.create(ctx);
        hud_.device = ctx.info.name;
        hud_.subgroup_size = ctx.subgroup.size;
        hud_.triangles_total = renderer_->gpu_scene().triangle_count;
        hud_.lights = options.lights;
        hud_.tuning = tuning_line();
    }

    ~WindowApp() {
        vkDeviceWaitIdle(ctx_.device);
        stop_compare();
        destroy_swapchain(ctx_, swapchain_);
        for (WindowFrame& f : frames_) {
            vkFreeCommandBuffers(ctx_.device, ctx_.command_pool, 1, &f.cmd);
            vkDestroySemaphore(ctx_.device, f.acquired, nullptr);
            vkDestroyFence(ctx_.device, f.done, nullptr);
        }
    }

    // Returns the exit code.
    int run() {
        log_line("window: " + ctx_.info.name + ", subgroup size " + std::to_string(ctx_.subgroup.size) +
                 "; press H for the keys");
        if (options_.soak_frames)
            soak_.emplace(options_.soak_frames, options_.width, options_.height,
                          Soak::Hooks{[this](int key) { press(key, 0); },
                                      [this](int width, int height) { glfwSetWindowSize(window_, width, height); },
                                      &camera_});
        glfwGetCursorPos(window_, &cursor_x_, &cursor_y_);
        if (measure_first_) measure_this_device();
        double last_time = glfwGetTime();
        while (!glfwWindowShouldClose(window_)) {
            glfwPollEvents();
            double now = glfwGetTime();
            double seconds = now - last_time;
            last_time = now;
            handle_input(std::min(seconds, 0.1));  // a slow frame must not fling the camera
            poll_compare();
            if (soak_ && !soak_->step(frame_count_)) break;
            if (!wait_while_minimised()) break;
            if ((input_.resized || !swapchain_.swapchain) && !recreate_swapchain()) continue;
            draw_frame(seconds);
        }
        vkDeviceWaitIdle(ctx_.device);
        log_line("window: closed after " + std::to_string(frame_count_) + " frames");
        if (soak_) return soak_->result(frame_count_);
        return 0;
    }

    Input& input() { return input_; }

private:
    // ---- input -------------------------------------------------------------------------------
    void handle_input(double seconds) {
        std::vector<std::pair<int, int>> keys;
        keys.swap(input_.keys);
        for (auto [key, mods] : keys) press(key, mods);

        double x, y;
        glfwGetCursorPos(window_, &x, &y);
        float dx = float(x - cursor_x_), dy = float(y - cursor_y_);
        cursor_x_ = x;
        cursor_y_ = y;
        if (glfwGetMouseButton(window_, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS) camera_.orbit(dx, dy);
        if (glfwGetMouseButton(window_, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS ||
            glfwGetMouseButton(window_, GLFW_MOUSE_BUTTON_MIDDLE) == GLFW_PRESS)
            camera_.pan(dx, dy, float(renderer_->extent().height));
        if (input_.wheel != 0) camera_.zoom(float(input_.wheel));
        input_.wheel = 0;

        auto held = [&](int key) { return glfwGetKey(window_, key) == GLFW_PRESS ? 1.0f : 0.0f; };
        glm::vec3 fly(held(GLFW_KEY_D) - held(GLFW_KEY_A), held(GLFW_KEY_E) - held(GLFW_KEY_Q),
                      held(GLFW_KEY_W) - held(GLFW_KEY_S));
        float boost = (held(GLFW_KEY_LEFT_SHIFT) + held(GLFW_KEY_RIGHT_SHIFT)) > 0 ? 4.0f : 1.0f;
        if (fly != glm::vec3(0.0f)) camera_.fly(fly * boost, float(seconds));
    }

    void press(int key, int mods) {
        int step = (mods & GLFW_MOD_SHIFT) ? -1 : 1;
        const SubgroupCaps& caps = ctx_.subgroup;
        const DeviceFeatures& features = ctx_.features;
        for (const PassInfo& pass : kPasses)  // each pass's key cycles its variant
            if (key == pass.window_key) return apply(cycle_pass(caps, features, request_, pass.id, step));
        switch (key) {
            case GLFW_KEY_ESCAPE: glfwSetWindowShouldClose(window_, GLFW_TRUE); break;
            case GLFW_KEY_0: {
                PlanRequest all_auto;
                all_auto.view_stage = request_.view_stage;
                all_auto.geometry = request_.geometry;  // the geometry path is not a pass: M toggles it
                all_auto.shading = request_.shading;    // nor is shading: I toggles it
                all_auto.raster = request_.raster;      // nor the rasterizer: X toggles it
                all_auto.lod = request_.lod;            // nor the level of detail: L toggles it
                all_auto.measured = request_.measured;  // T toggles tuning
                all_auto.measured_shading = request_.measured_shading;
                all_auto.measured_derivatives = request_.measured_derivatives;
                apply({all_auto, make_plan(caps, features, all_auto), {}});
                break;
            }
            case GLFW_KEY_V: apply(cycle_view_mode(caps, features, request_, step)); break;
            case GLFW_KEY_M: apply(toggle_geometry(caps, features, request_)); break;
            case GLFW_KEY_I: apply(toggle_shading(caps, features, request_)); break;
            case GLFW_KEY_X: apply(toggle_raster(caps, features, request_)); break;
            case GLFW_KEY_L: apply(toggle_lod(caps, features, request_)); break;
            case GLFW_KEY_P: {
                uint32_t levels = uint32_t(pyramid_levels(renderer_->extent()).size());
                apply(step_pyramid_level(caps, features, request_, step, levels));
                log_line("depth-pyramid view: level " + std::to_string(request_.view_level) + " of " + std::to_string(levels));
                break;
            }
            case GLFW_KEY_F:
                // Nothing culls while frozen; the depth and forward passes draw the frozen lists.
                vkDeviceWaitIdle(ctx_.device);
                renderer_->set_cull_frozen(!renderer_->cull_frozen());
                note(renderer_->cull_frozen() ? "culling frozen: fly out to see what was culled (F: resume)" : "culling resumed");
                break;
            case GLFW_KEY_T: toggle_tuning(); break;
            case GLFW_KEY_B: apply(cycle_view_stage(caps, features, request_, step)); break;
            case GLFW_KEY_SPACE:
                paused_ = !paused_;
                log_line(std::string("animation ") + (paused_ ? "paused" : "resumed") + " at frame " +
                         std::to_string(animation_frame_));
                break;
            case GLFW_KEY_R:
                camera_.reset(renderer_->default_view(), renderer_->bounds_min(), renderer_->bounds_max());
                log_line("camera reset to the default view");
                break;
            case GLFW_KEY_K: {
                // A camera cut: the previous pyramid no longer matches the view, so occlusion's
                // phase 1 rejects little; phase 2 still keeps the frame exact (docs/occlusion.md).
                CameraView next = renderer_->camera_view() == CameraView::street ? CameraView::overview : CameraView::street;
                renderer_->set_camera_view(next);
                camera_.reset(renderer_->default_view(), renderer_->bounds_min(), renderer_->bounds_max());
                log_line("camera: " + std::string(camera_view_name(next)));
                break;
            }
            case GLFW_KEY_F12: screenshot_requested_ = true; break;
            case GLFW_KEY_C: start_compare(); break;
            case GLFW_KEY_H:
                hud_.help = !hud_.help;
                log_line(hud_.help ? "help shown" : "help hidden");
                break;
            case GLFW_KEY_G:
                hud_.graph = !hud_.graph;
                log_line(hud_.graph ? "graph shown" : "graph hidden");
                break;
            default: break;
        }
    }

    void apply(const PlanChange& change) {
        if (!fits_the_device(change.plan)) return;
        if (!change.note.empty()) note(change.note);
        request_ = change.request;
        // Passes may create or drop resources when the plan changes: nothing of the old plan may be in flight.
        vkDeviceWaitIdle(ctx_.device);
        // Frozen lists are of one geometry path and one cull pass: another one culls afresh.
        const Plan& old = renderer_->plan();
        if (renderer_->cull_frozen() &&
            (change.plan.geometry != old.geometry || change.plan[PassId::cull].variant != old[PassId::cull].variant)) {
            renderer_->set_cull_frozen(false);
            note("culling resumed: the frozen lists were of another geometry path or cull variant");
        }
        renderer_->set_plan(change.plan);
    }

    // The renderer keeps what every plan it ran made (Renderer::set_plan): a key's plan whose
    // buffers, with those, pass a device limit (run/limits.cpp) is refused with a note naming the
    // buffer and the limit, and the window stays on its plan. Start-up checked the first plan.
    bool fits_the_device(const Plan& plan) {
        auto alike = [&](const Plan& a) {  // the same buffers
            return a.geometry == plan.geometry && a.shading.shading == plan.shading.shading && a.raster.raster == plan.raster.raster &&
                   draws_meshlets(a, ctx_.features.mesh_shader) == draws_meshlets(plan, ctx_.features.mesh_shader);
        };
        if (std::any_of(plans_run_.begin(), plans_run_.end(), alike)) return true;
        std::vector<Plan> plans = plans_run_;
        plans.push_back(plan);
        if (!within_limits(plans, renderer_->extent(), "the plan stays as it was")) return false;
        plans_run_.push_back(plan);
        return true;
    }

    // Whether the renderer can hold `plans` at `extent` (the window's size, not --size); if not, a
    // note says which limit and what the window keeps instead.
    bool within_limits(const std::vector<Plan>& plans, VkExtent2D extent, const std::string& kept) {
        Options at = options_;
        at.width = extent.width;
        at.height = extent.height;
        try {
            check_device_limits(ctx_, at, plans, scene_);
            return true;
        } catch (const UsageError& e) {
            note(std::string("refused: ") + e.what() + "; " + kept);
            return false;
        }
    }

    // The first run on this device, driver and build (compare/tuning.h, quick_tune): a frame whose HUD
    // says so, the measurement (the window waits for it: the set-up, then at most kQuickRoundsSeconds of frames), then auto's plan
    // from what it measured, as a later run would read it from the file.
    void measure_this_device() {
        hud_.tuning = "measuring this device for auto (first run, a few seconds)";
        log_line("window: " + hud_.tuning);
        if (wait_while_minimised() && (swapchain_.swapchain || recreate_swapchain())) draw_frame(0.0);
        vkDeviceWaitIdle(ctx_.device);
        frame_count_ = 0;  // the frame that said so is not one of the run's (--soak-frames counts from here)
        tuning_ = quick_tune(ctx_, scene_, options_);
        PlanRequest request = request_;
        set_measured(request, tuning_.usable() ? &tuning_ : nullptr);
        try {
            apply({request, make_plan(ctx_.subgroup, ctx_.features, request), {}});
        } catch (const UnsupportedRequest& e) {
            note(std::string("auto: the measured plan cannot run (") + e.what() + "); auto follows the capabilities");
        }
        hud_.tuning = tuning_line();
        char seconds[32];
        snprintf(seconds, sizeof seconds, "%.1f s", tuning_.measure_seconds);
        note("auto: measured this device in " + std::string(seconds) + ": shading " +
             shading_variant_name(renderer_->plan().shading) + " (" + renderer_->plan().shading.reason + ")");
    }

    // Key T: tuned auto on (the measured winners of the tuning file) or off (capabilities only).
    void toggle_tuning() {
        if (tuning_.count() == 0) {
            note("tuning: nothing to toggle, " + tuning_summary(tuning_, options_.no_tuning));
            return;
        }
        PlanRequest request = request_;
        bool on = !has_measured(request);
        set_measured(request, on ? &tuning_ : nullptr);
        apply({request, make_plan(ctx_.subgroup, ctx_.features, request), {}});
        hud_.tuning = tuning_line();
        note(std::string("tuned auto ") + (on ? "on: " + tuning_.made_by + " of " + tuning_.date : "off: auto follows the capabilities"));
    }

    std::string tuning_line() const {
        if (tuning_.count() == 0)
            return tuning_.usable() ? "tuning: " + tuning_.made_by + " of " + tuning_.date + ", nothing significant (T)" : "tuning: none (T)";
        bool on = has_measured(request_);
        return std::string("tuned auto ") + (on ? "on" : "off") + " (T): " + tuning_.made_by + " of " + tuning_.date;
    }

    void note(const std::string& text) {
        log_line("note: " + text);
        notes_.push_back({text, glfwGetTime() + kNoteSeconds});
        while (notes_.size() > kMaxNotes) notes_.pop_front();
    }

    // ---- swapchain -----------------------------------------------------------------------------
    // A minimised window has a 0x0 framebuffer: no swapchain can exist, so sleep until it returns.
    bool wait_while_minimised() {
        for (;;) {
            int width = 0, height = 0;
            glfwGetFramebufferSize(window_, &width, &height);
            if (width >= 16 && height >= 16 && !glfwGetWindowAttrib(window_, GLFW_ICONIFIED)) return true;
            if (glfwWindowShouldClose(window_)) return false;
            glfwWaitEvents();
            poll_compare();
            input_.resized = true;
        }
    }

    bool recreate_swapchain() {
        vkDeviceWaitIdle(ctx_.device);
        input_.resized = false;
        int width = 0, height = 0;
        glfwGetFramebufferSize(window_, &width, &height);
        if (!create_swapchain(ctx_, surface_, {uint32_t(width), uint32_t(height)}, options_.no_vsync, swapchain_))
            return false;
        // A window grown past what the device can render (an image side, a per-pixel buffer) keeps
        // the frame at its size, in the window's corner on grey (Presenter::record).
        VkExtent2D e = swapchain_.extent;
        VkExtent2D frame = renderer_->extent();
        if ((e.width != frame.width || e.height != frame.height) &&
            within_limits(plans_run_, e, "the frame stays at " + std::to_string(frame.width) + "x" + std::to_string(frame.height)))
            renderer_->resize(e);
        presenter_.resize(ctx_, swapchain_.format.format, e);
        // The driver's swapchain images and WSI state are freed and allocated again in a different
        // order each time, which fragments glibc's heap: without giving the free pages back, the
        // soak run's resizes raised resident memory by ~90 KiB per swapchain while the bytes in
        // use stayed flat. Cheap, and only on a recreation.
        malloc_trim(0);
        hud_.present_mode = present_mode_name(swapchain_.present_mode);
        log_line("swapchain: " + std::to_string(e.width) + "x" + std::to_string(e.height) + ", " +
                 std::to_string(swapchain_.images.size()) + " images, " + hud_.present_mode + ", " +
                 format_name(swapchain_.format.format));
        return true;
    }

    // ---- one frame ---------------------------------------------------------------------------------
    void draw_frame(double seconds) {
        WindowFrame& f = frames_[slot_];
        // Bounded waits, so a lost device ends the run instead of hanging it.
        VkResult wait;
        int waited_s = 0;
        while ((wait = vkWaitForFences(ctx_.device, 1, &f.done, VK_TRUE, 1'000'000'000ull)) == VK_TIMEOUT)
            if (++waited_s >= 600) throw VulkanError("a frame took over 10 minutes on the GPU; giving up");
        VK_CHECK(wait);
        if (f.pending) {
            std::array<double, kTimerCount> timings = renderer_->read_timings(slot_);
            hud_.gpu.add(timings);
            hud_.history.add(timings);
            hud_.counters = renderer_->read_frame_counters(slot_);
            f.pending = false;
        }

        uint32_t image = 0;
        VkResult acquired = vkAcquireNextImageKHR(ctx_.device, swapchain_.swapchain, UINT64_MAX, f.acquired,
                                                  VK_NULL_HANDLE, &image);
        if (acquired == VK_ERROR_OUT_OF_DATE_KHR) {  // nothing was signalled: recreate and try again
            input_.resized = true;
            return;
        }
        if (acquired != VK_SUBOPTIMAL_KHR) VK_CHECK(acquired);  // suboptimal still signals: draw, then recreate
        VK_CHECK(vkResetFences(ctx_.device, 1, &f.done));

        cpu_frame_ms_ = cpu_frame_ms_ <= 0 ? seconds * 1e3 : cpu_frame_ms_ * 0.9 + seconds * 1e3 * 0.1;
        update_hud();  // drawn by the renderer's overlay hook, around the views' legends

        VkCommandBuffer cmd = f.cmd;
        VK_CHECK(vkResetCommandBuffer(cmd, 0));
        VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
        renderer_->record(cmd, slot_, animation_frame_, camera_.camera());
        presenter_.record(ctx_, cmd, renderer_->frame_graph(), swapchain_.images[image], swapchain_.extent);
        VK_CHECK(vkEndCommandBuffer(cmd));

        // The copy is the first use of the swapchain image, so only it waits for the acquire.
        VkSemaphoreSubmitInfo wait_info{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
        wait_info.semaphore = f.acquired;
        wait_info.stageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
        VkSemaphoreSubmitInfo signal_info{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
        signal_info.semaphore = swapchain_.rendered[image];
        signal_info.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
        VkCommandBufferSubmitInfo cmd_info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
        cmd_info.commandBuffer = cmd;
        VkSubmitInfo2 submit{VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
        submit.waitSemaphoreInfoCount = 1;
        submit.pWaitSemaphoreInfos = &wait_info;
        submit.commandBufferInfoCount = 1;
        submit.pCommandBufferInfos = &cmd_info;
        submit.signalSemaphoreInfoCount = 1;
        submit.pSignalSemaphoreInfos = &signal_info;
        VK_CHECK(vkQueueSubmit2(ctx_.queue, 1, &submit, f.done));
        f.pending = true;

        // One line per configuration change, once its first frame is submitted (scripts and tests follow these).
        std::string tag = plan_tag(renderer_->plan()) + " (" + request_tag(request_) + ")";
        if (tag != logged_tag_) {
            log_line("frame " + std::to_string(frame_count_) + ": " + tag);
            logged_tag_ = tag;
        }
        if (screenshot_requested_) save_screenshot();

        VkPresentInfoKHR present{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
        present.waitSemaphoreCount = 1;
        present.pWaitSemaphores = &swapchain_.rendered[image];
        present.swapchainCount = 1;
        present.pSwapchains = &swapchain_.swapchain;
        present.pImageIndices = &image;
        VkResult presented = vkQueuePresentKHR(ctx_.queue, &present);
        if (presented == VK_ERROR_OUT_OF_DATE_KHR || presented == VK_SUBOPTIMAL_KHR || acquired == VK_SUBOPTIMAL_KHR)
            input_.resized = true;
        else
            VK_CHECK(presented);

        slot_ = (slot_ + 1) % kFramesInFlight;
        frame_count_++;
        if (!paused_) animation_frame_++;
    }

    void update_hud() {
        hud_.extent = renderer_->extent();
        hud_.plan = renderer_->plan();
        hud_.cpu_frame_ms = cpu_frame_ms_;
        hud_.animation_frame = animation_frame_;
        hud_.paused = paused_;
        hud_.cull_frozen = renderer_->cull_frozen();
        double now = glfwGetTime();
        while (!notes_.empty() && notes_.front().second < now) notes_.pop_front();
        hud_.notes.clear();
        for (auto& n : notes_) hud_.notes.push_back(n.first);
        if (compare_pid_ > 0) {  // while it runs: its latest progress line, read about once a second
            if (now >= compare_status_time_) {
                compare_status_ = "comparison: " + last_line(compare_dir_ + "/compare.log");
                compare_status_time_ = now + 1.0;
            }
            hud_.notes.push_back(compare_status_);
        }
    }

    // The frame just submitted holds the HUD; read_color() waits for it.
    void save_screenshot() {
        screenshot_requested_ = false;
        VkExtent2D e = renderer_->extent();
        std::string name = screenshot_name(renderer_->plan(), e.width, e.height);
        write_png(name, e.width, e.height, renderer_->read_color());
        if (soak_) {  // the soak exercises the path, it does not keep the files
            std::filesystem::remove(name);
            return;
        }
        log_line("screenshot: " + name + " (animation frame " + std::to_string(animation_frame_) + ")");
        note("saved " + name);
    }

    // ---- comparison --------------------------------------------------------------------------------
    // Runs `subgroup-demo --compare` as a child process: the window keeps drawing meanwhile, and the
    // comparison gets its own Vulkan device, as it has from the command line.
    void start_compare() {
        if (compare_pid_ > 0) {
            note("comparison still running: " + compare_dir_);
            return;
        }
        compare_dir_ = "out/compare-" + timestamp();
        std::error_code error;
        std::filesystem::create_directories(compare_dir_, error);
        if (error) {
            note("comparison: cannot create " + compare_dir_ + ": " + error.message());
            return;
        }
        char exe[4096];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        if (n <= 0) {
            note("comparison: cannot find the executable (/proc/self/exe)");
            return;
        }
        exe[n] = 0;
        VkExtent2D e = renderer_->extent();
        std::vector<std::string> args = {exe, "--compare", "--out", compare_dir_, "--size",
                                         std::to_string(e.width) + "x" + std::to_string(e.height), "--lights",
                                         std::to_string(options_.lights), "--instances", std::to_string(options_.instances)};
        if (!options_.scene.empty()) args.insert(args.end(), {"--scene", options_.scene});
        if (options_.mask_stages) args.insert(args.end(), {"--mask-stages", join(stage_names(options_.mask_stages))});
        if (options_.mask_ops) args.insert(args.end(), {"--mask-ops", join(op_names(options_.mask_ops))});
        if (options_.device) args.insert(args.end(), {"--device", std::to_string(*options_.device)});
        if (options_.validate) args.push_back("--validate");
        std::vector<char*> argv;
        for (std::string& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);

        std::string log = compare_dir_ + "/compare.log";
        posix_spawn_file_actions_t files;
        posix_spawn_file_actions_init(&files);
        posix_spawn_file_actions_addopen(&files, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_adddup2(&files, 1, 2);
        int spawned = posix_spawn(&compare_pid_, exe, &files, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&files);
        if (spawned != 0) {
            compare_pid_ = -1;
            note("comparison: cannot start " + std::string(exe) + ": " + strerror(spawned));
            return;
        }
        note("comparison running in the background, writing " + compare_dir_);
    }

    void poll_compare() {
        if (compare_pid_ <= 0) return;
        int status = 0;
        if (waitpid(compare_pid_, &status, WNOHANG) != compare_pid_) return;
        compare_pid_ = -1;
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (code == 0) {
            note("comparison written: " + compare_dir_ + "/compare.png and report.md");
            return;
        }
        // Its last line says why (for example that --compare is not available in this build).
        note("comparison failed (exit " + std::to_string(code) + "): " + last_line(compare_dir_ + "/compare.log"));
    }

    void stop_compare() {
        if (compare_pid_ <= 0) return;
        log_line("window: stopping the comparison still running (" + compare_dir_ + ")");
        kill(compare_pid_, SIGTERM);
        waitpid(compare_pid_, nullptr, 0);
        compare_pid_ = -1;
    }

    const Options& options_;
    GLFWwindow* window_;
    const Context& ctx_;
    VkSurfaceKHR surface_;
    const Scene& scene_;
    std::unique_ptr<Renderer> renderer_;
    Swapchain swapchain_;
    Presenter presenter_;
    std::array<WindowFrame, kFramesInFlight> frames_;
    uint32_t slot_ = 0;
    Input input_;

    PlanRequest request_;
    std::vector<Plan> plans_run_;  // one of each set of buffers the renderer made (fits_the_device)
    LoadedTuning tuning_;  // what the tuning file held; request_.measured is it or empty (key T)
    bool measure_first_ = false;  // no file fits this device, driver and build: measure_this_device()
    OrbitCamera camera_;
    double cursor_x_ = 0, cursor_y_ = 0;
    uint32_t frame_count_ = 0;
    uint32_t animation_frame_ = 0;
    bool paused_ = false;
    bool screenshot_requested_ = false;
    std::string logged_tag_;
    double cpu_frame_ms_ = 0;
    HudState hud_;
    std::deque<std::pair<std::string, double>> notes_;  // text, time it disappears

    pid_t compare_pid_ = -1;
    std::string compare_dir_;
    std::string compare_status_;
    double compare_status_time_ = 0;

    std::optional<Soak> soak_;  // --soak-frames
};

}  // namespace

int run_window(const Options& options) {
    const char* display = getenv("DISPLAY");
    const char* wayland = getenv("WAYLAND_DISPLAY");
    if ((!display || !*display) && (!wayland || !*wayland)) {
        fprintf(stderr, "error: no display for the window (DISPLAY is not set); use --headless to render offscreen\n");
        return 2;
    }
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) {
        fprintf(stderr, "error: cannot open a window on this display (%s); use --headless to render offscreen\n",
                g_glfw_error.c_str());
        return 2;
    }
    GlfwSession glfw;
    if (!glfwVulkanSupported()) {
        fprintf(stderr, "error: GLFW found no Vulkan loader for windows; use --headless to render offscreen\n");
        return 2;
    }
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
    WindowHandle window;
    window.window = glfwCreateWindow(int(options.width), int(options.height), "subgroup-demo", nullptr, nullptr);
    if (!window.window) {
        fprintf(stderr, "error: cannot create a window (%s); use --headless to render offscreen\n", g_glfw_error.c_str());
        return 2;
    }
    glfwSetWindowSizeLimits(window.window, 16, 16, GLFW_DONT_CARE, GLFW_DONT_CARE);

    uint32_t count = 0;
    const char** required = glfwGetRequiredInstanceExtensions(&count);
    ContextOptions device_request = context_options(options);
    device_request.instance_extensions.assign(required, required + count);
    device_request.swapchain = true;
    Context ctx;
    StartUp start = start_up(ctx, device_request, options);

    SurfaceHandle surface{ctx.instance};
    VK_CHECK(glfwCreateWindowSurface(ctx.instance, window.window, nullptr, &surface.surface));
    VkBool32 can_present = VK_FALSE;
    VK_CHECK(vkGetPhysicalDeviceSurfaceSupportKHR(ctx.physical, ctx.queue_family, surface.surface, &can_present));
    if (!can_present)
        throw NoDeviceError(ctx.info.name + " cannot present to this window; pick another device with --device (see --list-devices) or use --headless");

    WindowApp app(start.tuned, window.window, ctx, surface.surface, *start.scene, start.plan, start.tuning, start.measure_later);
    glfwSetWindowUserPointer(window.window, &app.input());
    glfwSetKeyCallback(window.window, on_key);
    glfwSetScrollCallback(window.window, on_scroll);
    glfwSetFramebufferSizeCallback(window.window, on_framebuffer_size);
    return app.run();
}
