#include "run/cull_dump.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>

void write_cull_dump(const std::string& path, const CullDump& dump) {
    FILE* file = fopen(path.c_str(), "w");
    if (!file) throw std::runtime_error("cannot write the cull dump " + path);
    fprintf(file, "# subgroup-demo cull dump 1: the triangles the last frame drew\n");
    fprintf(file, "size %u %u\nview_proj", dump.width, dump.height);
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) fprintf(file, " %.9g", dump.view_proj[c][r]);  // 9 digits: exact float round trip
    fprintf(file, "\ndraws %zu\n", dump.draws.size());
    for (size_t d = 0; d < dump.draws.size(); ++d) {
        const std::vector<uint32_t>& indices = dump.draws[d];
        fprintf(file, "draw %zu %zu\n", d, indices.size() / 3);
        for (size_t i = 0; i + 2 < indices.size(); i += 3)
            fprintf(file, "%u %u %u\n", indices[i], indices[i + 1], indices[i + 2]);
    }
    bool ok = !ferror(file);
    ok = fclose(file) == 0 && ok;
    if (!ok) throw std::runtime_error("cannot write the cull dump " + path);
}

CullDump read_cull_dump(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read the cull dump " + path);
    auto fail = [&](const std::string& what) { throw std::runtime_error("malformed cull dump " + path + ": " + what); };
    std::string line, word;
    std::getline(in, line);
    if (line.rfind("# subgroup-demo cull dump 1", 0) != 0) fail("no header");
    CullDump dump;
    if (!(in >> word >> dump.width >> dump.height) || word != "size") fail("no size");
    if (!(in >> word) || word != "view_proj") fail("no view_proj");
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r)
            if (!(in >> dump.view_proj[c][r])) fail("short view_proj");
    size_t draws = 0;
    if (!(in >> word >> draws) || word != "draws") fail("no draw count");
    dump.draws.resize(draws);
    for (size_t d = 0; d < draws; ++d) {
        size_t id = 0, triangles = 0;
        if (!(in >> word >> id >> triangles) || word != "draw" || id != d) fail("bad draw header " + std::to_string(d));
        dump.draws[d].resize(triangles * 3);
        for (uint32_t& index : dump.draws[d])
            if (!(in >> index)) fail("short draw " + std::to_string(d));
    }
    return dump;
}
