// The contract's report JSON of a run (docs/contract: "device", "subgroup", "plan", "timings_ms",
// "counters", ...), the same for the headless run, each row of the comparison and --tune's plan.
#pragma once

#include <nlohmann/json.hpp>

#include "run/headless.h"

nlohmann::json device_json(const Context& ctx);
nlohmann::json subgroup_json(const Context& ctx);
nlohmann::json plan_json(const Plan& plan);
// --info's "views": for every stage and subgroup view mode, the variant it would run and why.
nlohmann::json views_json(const Context& ctx);
nlohmann::json report_json(const Context& ctx, const Options& options, const Plan& plan, const Scene& scene,
                           const RunResult& result);
