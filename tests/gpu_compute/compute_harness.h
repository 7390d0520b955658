// What the in-process compute tests share: the subgroup size ctest expects at this lavapipe
// width, and a Vulkan context with validation whose message count is taken at creation.
#pragma once

#include <cstdlib>

#include "vk/context.h"

inline int expected_subgroup_size() {
    const char* sg = getenv("SGD_EXPECT_SUBGROUP");
    return sg ? atoi(sg) : 0;
}

struct ValidatedContext {
    Context ctx;
    uint32_t messages_before = 0;
    ValidatedContext() {
        ContextOptions options;
        options.validate = true;
        create_context(ctx, options);
        messages_before = validation_message_count();
    }
};
