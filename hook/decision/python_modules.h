// The standard modules a read-only Python program may import, and the public names of each it
// may use: functions, classes and constants that only compute (hook/decision/python_readonly.h).
#pragma once

#include <string_view>

namespace toolcage::hook {

// `module` is on the list (a top-level name: json, math, re, ...).
bool pure_module(std::string_view module);

// `name` is one of the listed names of `module`: what `module.name` and `from module import
// name` may reach. A module's own imports (re.functools, random._os, shutil.os) never are.
bool pure_module_name(std::string_view module, std::string_view name);

}  // namespace toolcage::hook
