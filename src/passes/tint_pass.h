// Throwaway demonstration pass: tints the finished frame by each 8x8 block's mean luminance
// (shaders/tint.comp). Subgroup: subgroupAdd per subgroup; fallback: a shared-memory tree.
#pragma once

#include "passes/pass_unit.h"

class TintPass : public PassUnit {
public:
    void create(const Context& ctx);
    void record(FrameContext& f) override;

private:
    Pipeline subgroup_;  // left empty where no plan of this run can pick it
    Pipeline fallback_;
};
