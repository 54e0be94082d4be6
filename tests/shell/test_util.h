// Shared helpers for the shell parser tests.
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "hook/shell/ast.h"
#include "tests/shell/tree_dump.h"

namespace toolcage::shell::testing {

// The dumped tree of a command that must parse.
inline std::string tree(const std::string& src) {
    ParseResult r = parse(src);
    INFO("source: " << src << "\nerror: " << r.error);
    REQUIRE(r.ok);
    return dump(r.script);
}

// The first word of the first simple command.
inline Word first_word(const std::string& src) {
    ParseResult r = parse(src);
    INFO("source: " << src << "\nerror: " << r.error);
    REQUIRE(r.ok);
    REQUIRE_FALSE(r.script.items.empty());
    const Command& c = r.script.items[0].and_or.pipelines[0].commands[0];
    REQUIRE_FALSE(c.words.empty());
    return c.words[0];
}

struct Row {
    const char* source;
    const char* expected;
};

}  // namespace toolcage::shell::testing
