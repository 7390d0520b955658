// --info's tables. The headless run (context, scene, limits, frames) is run/headless.h and its report
// run/report.h, which the window, the comparison and the atlas use too.
#pragma once

#include <array>
#include <string>

#include <nlohmann/json.hpp>

#include "app/options.h"
#include "run/headless.h"
#include "run/report.h"

// `--info`: the device, its subgroup capabilities per stage and per operation, and the plan.
void print_info(const Context& ctx, const Plan& plan);
