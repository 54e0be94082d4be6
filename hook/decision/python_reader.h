// The interpreter's own reading of a Python program: the system's python3, isolated and
// confined, compiles the code to its syntax tree (never runs it) and reports the tree's tokens.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hook/decision/python_tokens.h"

namespace toolcage::hook {

// The system's interpreter, never one found on the agent's PATH (a virtualenv's python is the
// agent's to replace).
inline constexpr const char* kSystemPython = "/usr/bin/python3";

struct PythonReading {
    bool ok = false;
    std::string why;  // when not ok: what failed (no interpreter, a syntax error, the deadline, ...)
    std::vector<PyToken> tokens;
};

// The tokens of `code` as `python` reads it: decoded as Python decodes a source file (its coding
// cookie and BOM applied by Python itself) and, the same, as the text a `-c` receives; readings
// that differ are a failure. The reader runs isolated (-I -S -E, an empty environment, no
// descriptor but its pipes), under no_new_privs, a seccomp filter without sockets, Landlock
// without writes or TCP where the kernel has it, CPU 2 s, address space 512 MiB, no file
// growth, and is killed after 2 s of wall time. Any failure is a reading that is not ok.
PythonReading read_with_python(std::string_view code, const char* python = kSystemPython);

}  // namespace toolcage::hook
