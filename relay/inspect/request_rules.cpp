#include "relay/inspect/request_rules.h"

#include <fnmatch.h>

namespace toolcage::relay {

namespace {

int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool matches(const RelayRequestRule& r, const std::string& method, const std::string& path) {
    return (r.method == "*" || r.method == method) &&
           ::fnmatch(r.path.c_str(), path.c_str(), 0) == 0;
}

std::string describe(const RelayRequestRule& r) {
    return r.method + " " + r.path;
}

}  // namespace

std::optional<std::string> decoded_request_path(std::string_view target, std::string& problem,
                                                bool keep_encoded_slash) {
    if (target.empty() || target.front() != '/') {
        problem = "the request target is not a path (origin-form, /...)";
        return std::nullopt;
    }
    std::string_view raw = target.substr(0, target.find('?'));
    std::string out;
    for (std::size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] != '%') {
            out += raw[i];
            continue;
        }
        int hi = i + 2 < raw.size() ? hex(raw[i + 1]) : -1,
            lo = i + 2 < raw.size() ? hex(raw[i + 2]) : -1;
        if (hi < 0 || lo < 0) {
            problem = "a malformed percent escape in the path";
            return std::nullopt;
        }
        char c = static_cast<char>(hi * 16 + lo);
        if (c == '\0') {
            problem = "an encoded NUL in the path";
            return std::nullopt;
        }
        out += c == '/' && keep_encoded_slash ? std::string("%2F") : std::string(1, c);
        i += 2;
    }
    // Segments a server folds away would let a path slip past a rule written for its result.
    for (std::size_t start = 1; start <= out.size();) {
        std::size_t end = out.find('/', start);
        if (end == std::string::npos) end = out.size();
        std::string_view seg(out.data() + start, end - start);
        if (seg == "." || seg == "..") {
            problem = "a \".\" or \"..\" segment in the path";
            return std::nullopt;
        }
        start = end + 1;
    }
    return out;
}

std::optional<RuleRefusal> judge_request(const std::string& host, const RelayRequestRules& rules,
                                         const std::string& method, const std::string& path,
                                         const std::string& path_slashes_kept) {
    const std::string field = "relay.requests[\"" + host + "\"]";
    for (std::size_t i = 0; i < rules.deny.size(); ++i)
        if (matches(rules.deny[i], method, path) ||
            (!path_slashes_kept.empty() && matches(rules.deny[i], method, path_slashes_kept))) {
            std::string rule = field + ".deny[" + std::to_string(i) + "]";
            return RuleRefusal{rule, method + " " + path + " is refused by the policy's " + rule +
                                         " (" + describe(rules.deny[i]) + ")"};
        }
    if (rules.allow.empty()) return std::nullopt;
    for (const auto& r : rules.allow)
        if (matches(r, method, path)) return std::nullopt;
    std::string rule = field + ".allow";
    return RuleRefusal{rule, method + " " + path + " matches no rule of the policy's " + rule +
                                 "; add one there to let it through"};
}

}  // namespace toolcage::relay
