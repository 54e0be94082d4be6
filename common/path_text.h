// Path arithmetic on text alone (no system call): a path made lexically normal, and whether one
// path is another or lies below it.
#pragma once

#include <string>

namespace toolcage {

// . and .. folded, repeated and trailing slashes dropped ("/" stays "/"; nothing lies above
// it; "a/.." is "."), as std::filesystem::path::lexically_normal, without its cost.
std::string normal_path(const std::string& p);

// `p` is `dir` or lies below it; both absolute and normal.
bool path_within(const std::string& p, const std::string& dir);

}  // namespace toolcage
