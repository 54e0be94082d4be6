// Is a Python program provably read-only? A conservative check over its tokens: only listed
// pure modules may be imported (hook/decision/python_modules.h), a module only as `module.NAME`
// with a listed NAME, no private or dunder attribute, no name that opens files, runs programs or
// reaches the interpreter's internals, no non-ASCII identifier. Doubt means no.
#pragma once

#include <string>
#include <string_view>

namespace toolcage::hook {

struct PythonCheck {
    bool read_only = false;
    std::string why;  // when not read-only: the first thing that made it so, with its line
};

PythonCheck check_python_read_only(std::string_view code);

}  // namespace toolcage::hook
