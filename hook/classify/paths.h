// Internal to the classifier: lexical path helpers behind the path classes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hook/classify/classifier.h"

namespace toolcage::classify::detail {

// "/a/./b//../c" -> "/a/c"; `..` at the root stays at the root. `abs` must start with '/'.
std::string normalize_path(std::string_view abs);
// path == dir, or path lies below dir (both normalized).
bool path_within(std::string_view path, std::string_view dir);
// /tmp, /var/tmp, /dev/shm and a sane $TMPDIR.
std::vector<std::string> temp_roots(const Context& ctx);
// node_modules, build, target, .venv, …: directories a build recreates.
bool is_regenerable_name(std::string_view name);

}  // namespace toolcage::classify::detail
