// Is a Python program provably read-only? Only listed pure modules may be imported
// (hook/decision/python_modules.h), a module only as `module.NAME` with a listed NAME, no private
// or dunder attribute, no name that opens files, runs programs or reaches the interpreter's
// internals (hook/decision/python_tokens.h). Two readings must both find it so: toolcage's own,
// over the text on which it provably agrees with Python (printable ASCII, newlines and tabs, no
// line joined by a backslash, no coding cookie), and the interpreter's (python_reader.h).
// Doubt means no.
#pragma once

#include <string>
#include <string_view>

namespace toolcage::hook {

struct PythonCheck {
    bool read_only = false;
    std::string why;  // when not read-only: the first thing that made it so, with its line
};

// toolcage's own reading alone: pure, no process.
PythonCheck check_python_text(std::string_view code);

// Both readings: check_python_text, then the system python3's own reading of the same bytes
// judged by the same rules. Any failure of the interpreter's reading is a no.
PythonCheck check_python_read_only(std::string_view code);

}  // namespace toolcage::hook
