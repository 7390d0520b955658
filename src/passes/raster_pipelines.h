// raster.comp's and raster_hw's pipelines of one geometry path: RasterPass's for the indexed path,
// MeshletRaster's for the meshlet path (raster.comp's meshlet variants, raster_hw.vert.meshlet).
#pragma once

#include "vk/resources.h"

struct RasterPipelines {
    Pipeline raster[2];  // raster.comp by [subgroup path]; [1] where a plan of this run can pick it
    Pipeline bin;        // the tile bins: raster.comp's RASTER_BIN
    Pipeline hardware;   // raster_hw.vert + .frag (alpha where the scene has masked materials)
    // --view raster: raster.comp's VIEW variants paint the compute paths' pixels, the classifying
    // draw the hardware's.
    Pipeline raster_view, bin_view, hardware_view;
};

// Every pipeline of the path, each in the layout its shaders declare. The subgroup path from one
// SPIR-V with the fallback (USE_SUBGROUP, shaders/subgroup_switch.glsl) where a plan of this run can
// pick it (masks count); elsewhere the fallback twin, without ballots.
RasterPipelines create_raster_pipelines(const Context& ctx, bool meshlet, bool alpha_masked);
