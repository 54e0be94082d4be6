// The judgement of a Python program over its tokens: its imports, names, attributes and string
// constants, whether they come from toolcage's own reading or the interpreter's (python_reader.h).
#pragma once

#include <string>
#include <vector>

namespace toolcage::hook {

struct PyToken {
    enum class Kind { name, op, string, number };
    Kind kind;
    std::string text;  // a string's value: escapes decoded, anything outside ASCII as '?'
    int line;
};

// Why a string constant may not appear (it spells a dunder or a refused name, or a format field
// in it reads a private attribute); empty when it may.
std::string refused_string(const std::string& value);

// Empty when the tokens only compute: imports of listed pure modules, a module only as
// `module.NAME` with a listed NAME, no refused name, no private attribute. Else the first thing
// refused, with its line.
std::string judge_python_tokens(const std::vector<PyToken>& tokens);

}  // namespace toolcage::hook
