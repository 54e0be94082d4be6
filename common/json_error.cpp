#include "common/json_error.h"

namespace toolcage {

namespace {

std::string line_col(const std::string& text, std::size_t byte) {
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return "line " + std::to_string(line) + " column " + std::to_string(col);
}

}  // namespace

std::string json_parse_problem(const std::string& text, const nlohmann::json::parse_error& e) {
    // nlohmann: "[json.exception.parse_error.101] parse error at line 1, column 36: <what>".
    std::string what = e.what();
    if (auto id = what.find("] "); what.starts_with("[json.exception.") && id != std::string::npos)
        what = what.substr(id + 2);
    if (what.starts_with("parse error at line ")) {
        if (auto colon = what.find(": "); colon != std::string::npos) what = what.substr(colon + 2);
    } else if (what.starts_with("parse error: ")) {
        what = what.substr(13);
    }
    return line_col(text, e.byte > 0 ? e.byte - 1 : 0) + ": " + what;
}

}  // namespace toolcage
