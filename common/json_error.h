// A JSON parse error as one line for a person: where (line and column of the file's text) and
// what nlohmann's parser expected, without its exception id or a second copy of the position.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace toolcage {

// "line 1 column 36: syntax error while parsing object key - unexpected ','; expected string literal"
std::string json_parse_problem(const std::string& text, const nlohmann::json::parse_error& e);

}  // namespace toolcage
