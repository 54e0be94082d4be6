#include "hook/install/json_file.h"

#include "common/error.h"
#include "common/json_error.h"

namespace toolcage::install {

namespace {

std::string type_name(const ojson& v) {
    return v.type_name();
}

}  // namespace

ojson parse_json_file(const FileState& file, const std::string& fix) {
    try {
        return ojson::parse(file.content);
    } catch (const ojson::parse_error& e) {
        throw Error(file.path.string() + ": not valid JSON at " + json_parse_problem(file.content, e) + "; " +
                    fix + " (nothing was changed)");
    }
}

std::string dump_like(const ojson& value, const std::string& original) {
    int indent = 2;
    char indent_char = ' ';
    const bool trailing_newline = original.empty() || original.back() == '\n';
    const size_t first_nl = original.find('\n');
    if (!original.empty() && (first_nl == std::string::npos || first_nl + 1 == original.size())) {
        indent = -1;  // it was written on one line: keep it compact
    } else {
        // The first indented line sets the indentation.
        for (size_t nl = first_nl; nl != std::string::npos; nl = original.find('\n', nl + 1)) {
            char c = nl + 1 < original.size() ? original[nl + 1] : '\n';
            if (c != ' ' && c != '\t') continue;
            size_t n = 0;
            while (nl + 1 + n < original.size() && original[nl + 1 + n] == c) ++n;
            indent = static_cast<int>(n);
            indent_char = c;
            break;
        }
    }
    std::string out = value.dump(indent, indent_char, false, ojson::error_handler_t::replace);
    if (trailing_newline) out += '\n';
    return out;
}

std::optional<std::string> backup_with_value(const fs::path& path, const ojson& value) {
    auto backups = list_backups(path);
    for (auto it = backups.rbegin(); it != backups.rend(); ++it) {
        try {
            FileState b = read_file_state(*it);
            ojson v = ojson::parse(b.content, nullptr, false);
            if (!v.is_discarded() && v == value) return b.content;
        } catch (const Error&) {
            // An unreadable backup is simply not the one.
        }
    }
    return std::nullopt;
}

ojson& object_member(ojson& parent, const std::string& key, const std::string& pointer,
                     const FileState& file) {
    auto it = parent.find(key);
    if (it == parent.end()) return parent[key] = ojson::object();
    if (!it->is_object())
        throw Error(file.path.string() + ": " + pointer + " is " + type_name(*it) +
                    ", expected an object; fix that field (nothing was changed)");
    return *it;
}

ojson& array_member(ojson& parent, const std::string& key, const std::string& pointer,
                    const FileState& file) {
    auto it = parent.find(key);
    if (it == parent.end()) return parent[key] = ojson::array();
    if (!it->is_array())
        throw Error(file.path.string() + ": " + pointer + " is " + type_name(*it) +
                    ", expected an array; fix that field (nothing was changed)");
    return *it;
}

std::string shell_quote(const std::string& word) {
    bool plain = !word.empty();
    for (char c : word) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '/' || c == '.' || c == '_' || c == '-' || c == '+' || c == ',' ||
                  c == ':' || c == '@' || c == '%';
        if (!ok) plain = false;
    }
    if (plain) return word;
    std::string out = "'";
    for (char c : word) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

}  // namespace toolcage::install
