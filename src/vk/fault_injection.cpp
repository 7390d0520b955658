#include "vk/fault_injection.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "vk/context.h"

namespace {

struct InjectedFaults {
    uint64_t oom_above = UINT64_MAX;
    int64_t device_lost_frame = -1;
    int64_t hang_frame = -1;
    uint32_t frame_timeout_s = 600;
};

InjectedFaults read_injected_faults() {
    InjectedFaults f;
    if (const char* timeout = getenv("SGD_FRAME_TIMEOUT_S"); timeout && *timeout)
        f.frame_timeout_s = uint32_t(std::max(1l, strtol(timeout, nullptr, 10)));
    const char* spec = getenv("SGD_FAULT");
    if (!spec || !*spec) return f;
    std::string s = spec;
    size_t at = s.find('@');
    std::string kind = s.substr(0, at);
    long long value = at == std::string::npos ? -1 : strtoll(s.c_str() + at + 1, nullptr, 10);
    if (kind == "oom" && value >= 0) f.oom_above = uint64_t(value);
    else if (kind == "device-lost" && value >= 0) f.device_lost_frame = value;
    else if (kind == "hang" && value >= 0) f.hang_frame = value;
    else throw VulkanError("SGD_FAULT='" + s + "' is not oom@BYTES, device-lost@N or hang@N");
    fprintf(stderr, "note: injecting the fault SGD_FAULT=%s (test only)\n", spec);
    return f;
}

const InjectedFaults& injected_faults() {
    static const InjectedFaults faults = read_injected_faults();
    return faults;
}

std::atomic<int64_t> g_frames_waited{0};

}  // namespace

bool inject_out_of_memory(VkDeviceSize size) { return size > injected_faults().oom_above; }

bool poison_allocations() {
    const char* poison = getenv("SGD_POISON_ALLOCATIONS");
    if (!poison || !*poison || strcmp(poison, "0") == 0) return false;
    static std::atomic<bool> noted{false};
    if (!noted.exchange(true)) fprintf(stderr, "note: poisoning every new buffer and image (SGD_POISON_ALLOCATIONS, test only)\n");
    return true;
}

uint32_t frame_timeout_s() { return injected_faults().frame_timeout_s; }

FrameFault::FrameFault() : frame_(g_frames_waited++) {}

bool FrameFault::loses_device() const { return frame_ == injected_faults().device_lost_frame; }

VkResult FrameFault::apply(VkResult wait) const {
    const InjectedFaults& faults = injected_faults();
    if (frame_ == faults.device_lost_frame) return VK_ERROR_DEVICE_LOST;
    if (frame_ == faults.hang_frame) {
        if (wait == VK_SUCCESS) std::this_thread::sleep_for(std::chrono::seconds(1));
        return VK_TIMEOUT;
    }
    return wait;
}
