#include "vk/fault_injection.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "vk/errors.h"

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

std::string meshlet_fallback_stage() {
    const char* spec = getenv("SGD_MESHLET_FALLBACK_STAGE");
    if (!spec || !*spec) return "";
    std::string stage = spec;
    if (stage != "task" && stage != "mesh")
        throw VulkanError("SGD_MESHLET_FALLBACK_STAGE='" + stage + "' is not task or mesh");
    fprintf(stderr, "note: the meshlet depth pass's subgroup pipeline uses the fallback %s shader (SGD_MESHLET_FALLBACK_STAGE, diagnosis only)\n",
            stage.c_str());
    return stage;
}

LookbackSchedule lookback_schedule() {
    LookbackSchedule s;
    const char* spec = getenv("SGD_CULL_LOOKBACK");
    if (!spec || !*spec) return s;
    std::string rest = spec;
    while (!rest.empty()) {
        size_t comma = rest.find(',');
        std::string item = rest.substr(0, comma);
        rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
        char* end = nullptr;
        size_t at = item.find('@');
        unsigned long value = at == std::string::npos ? 0 : strtoul(item.c_str() + at + 1, &end, 10);
        bool number = at != std::string::npos && end && *end == '\0' && end != item.c_str() + at + 1 && value <= 1u << 20;
        std::string kind = item.substr(0, at);
        if (number && kind == "late" && value >= 1) s.late_group = uint32_t(value);
        else if (number && kind == "spin") s.spin_limit = uint32_t(value);
        else throw VulkanError(std::string("SGD_CULL_LOOKBACK='") + spec + "' is not late@K, spin@N or both, comma-separated");
    }
    static std::atomic<bool> noted{false};
    if (!noted.exchange(true))
        fprintf(stderr, "note: the cull look-back runs late@%u spin@%u (SGD_CULL_LOOKBACK, test only)\n", s.late_group, s.spin_limit);
    return s;
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
