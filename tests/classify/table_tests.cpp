// The program registries: sorted at compile time and searched one after another, so they must
// not share a name (the answer would depend on the search order).
#include <catch2/catch.hpp>
#include <map>

#include "hook/classify/analyzer.h"

using namespace toolcage::classify::detail;

namespace {

std::map<std::string_view, int> registered_names() {
    std::map<std::string_view, int> seen;
    for (ProgramRegistry registry : program_registries()) {
        for (const ProgramEntry& e : registry()) ++seen[e.name];
    }
    return seen;
}

}  // namespace

TEST_CASE("program tables: no program is in two registries", "[classify][tables]") {
    for (const auto& [name, count] : registered_names()) {
        INFO(name);
        CHECK(count == 1);
        CHECK(readonly_handler(name) == nullptr);
    }
}

TEST_CASE("program tables: every registered name is found, and its versioned names",
          "[classify][tables]") {
    for (ProgramRegistry registry : program_registries()) {
        for (const ProgramEntry& e : registry()) {
            INFO(e.name);
            CHECK(find_handler(e.name) == e.handler);
        }
    }
    CHECK(find_handler("python3.11") == find_handler("python3"));
    CHECK(find_handler("mkfs.ext4") == find_handler("mkfs"));
    CHECK(find_handler("gcc-12") == find_handler("gcc"));
    CHECK(find_handler("ls") != nullptr);
    CHECK(find_handler("ls") == readonly_handler("ls"));
    CHECK(find_handler("no-such-program") == nullptr);
    CHECK(find_handler("") == nullptr);
    CHECK(find_handler("~~~") == nullptr);
}
