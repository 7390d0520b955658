#version 460
// --raster compute (docs/raster.md): one invocation turns the tile bins' count into the indirect
// dispatch of raster.comp's RASTER_BIN (a workgroup per entry), folded as the chunks' grid is:
// rows of at most maxComputeWorkGroupCount[0] workgroups, the workgroups past the entries leaving.
// The count may run past the capacity (those triangles went to the hardware): the capacity bounds it.
// The dispatch covers the entries from `first` on: occlusion's late draw appends to phase 1's
// entries (RasterPass::record set `first` to phase 1's count) and rasterizes only its own; the
// classifying passes after the frame's last rasterization (push.all) every entry of the frame.
layout(local_size_x = 1) in;

layout(set = 0, binding = 0, std430) buffer TileBins { uint groups_x, groups_y, groups_z, count, first; } bins;
layout(push_constant) uniform Push { uint capacity, max_groups_x, all; } push;

void main() {
    if (push.all != 0u) bins.first = 0u;
    uint appended = min(bins.count, push.capacity);
    uint entries = appended > bins.first ? appended - bins.first : 0u;
    bins.groups_x = min(entries, push.max_groups_x);  // 0: no large triangle, an empty dispatch
    bins.groups_y = entries == 0u ? 0u : (entries + bins.groups_x - 1u) / bins.groups_x;
    bins.groups_z = 1u;
}
