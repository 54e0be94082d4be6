// Every command of the shared corpus parses (column 1; \n \t \\ are the only escapes).
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "hook/shell/ast.h"

namespace {

std::string decode_cell(const std::string& cell) {
    std::string out;
    for (size_t i = 0; i < cell.size(); ++i) {
        if (cell[i] == '\\' && i + 1 < cell.size()) {
            char e = cell[i + 1];
            if (e == 'n' || e == 't' || e == '\\') {
                out += e == 'n' ? '\n' : e == 't' ? '\t' : '\\';
                ++i;
                continue;
            }
        }
        out += cell[i];
    }
    return out;
}

}  // namespace

TEST_CASE("every command in the shared corpus parses", "[shell][corpus]") {
    std::ifstream in(std::string(TOOLCAGE_SHARED_DATA) + "/commands.tsv");
    REQUIRE(in.good());
    std::string line;
    std::getline(in, line);  // header
    int rows = 0;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        std::string command = decode_cell(line.substr(0, line.find('\t')));
        auto r = toolcage::shell::parse(command);
        INFO("command: " << command << "\nerror: " << r.error);
        CHECK(r.ok);
        CHECK_FALSE(r.script.items.empty());
        ++rows;
    }
    CHECK(rows > 100);
}
