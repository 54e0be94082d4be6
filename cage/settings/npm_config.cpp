#include "cage/settings/npm_config.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

namespace fs = std::filesystem;

namespace toolcage::cage {

namespace {

// Files npm reads are small; anything larger is not an npmrc this reader will guess at.
constexpr std::size_t kMaxFile = 4 << 20;

bool read_file(const std::string& path, std::string& out) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char buf[16384];
    bool ok = true;
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 || out.size() + static_cast<std::size_t>(n) > kMaxFile) ok = false;
        if (n <= 0 || !ok) break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return ok;
}

std::string trim(const std::string& s) {
    std::size_t b = s.find_first_not_of(" \t\r\n\f\v");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r\n\f\v") - b + 1);
}

// "${NAME}" from the environment, "${NAME?}" empty when unset, "\${NAME}" left as written
// (npm's env-replace).
std::string env_replace(const std::string& s, const Environment& env) {
    std::string out;
    std::size_t i = 0;
    while (i < s.size()) {
        std::size_t open = s.find("${", i);
        if (open == std::string::npos) break;
        std::size_t close = s.find('}', open + 2);
        if (close == std::string::npos) break;
        std::string name = s.substr(open + 2, close - open - 2);
        bool optional = !name.empty() && name.back() == '?';
        if (optional) name.pop_back();
        if (name.empty() || name.find_first_of("${}?") != std::string::npos) {
            out.append(s, i, open + 2 - i);
            i = open + 2;
            continue;
        }
        std::size_t slashes = 0;
        while (open - slashes > i && s[open - slashes - 1] == '\\') ++slashes;
        out.append(s, i, open - slashes - i);
        auto it = env.find(name);
        std::string value = it != env.end() ? it->second
                            : optional      ? ""
                                            : s.substr(open, close + 1 - open);
        if (slashes % 2)  // escaped: half the backslashes, and the text as written
            out.append((slashes - 1) / 2, '\\').append(s, open, close + 1 - open);
        else
            out.append(slashes / 2, '\\').append(value);
        i = close + 1;
    }
    out.append(s, i, std::string::npos);
    return out;
}

// A JSON string literal's text (ini reads a quoted value with JSON.parse); nullopt when it is
// not one.
std::optional<std::string> json_string(const std::string& q) {
    nlohmann::json j = nlohmann::json::parse(q, nullptr, /*allow_exceptions=*/false);
    if (!j.is_string()) return std::nullopt;
    return j.get<std::string>();
}

// ini's unsafe(): a quoted value unquoted, else cut at the first unescaped ';' or '#'.
std::string ini_value(const std::string& raw) {
    std::string v = trim(raw);
    bool dq = v.size() >= 2 && v.front() == '"' && v.back() == '"';
    bool sq = v.size() >= 2 && v.front() == '\'' && v.back() == '\'';
    if (dq || sq) {
        std::string inner = sq ? v.substr(1, v.size() - 2) : v;
        if (auto s = json_string(inner)) return *s;
        return inner;
    }
    std::string out;
    bool esc = false;
    for (char c : v) {
        if (esc) {
            if (c != '\\' && c != ';' && c != '#') out += '\\';
            out += c;
            esc = false;
        } else if (c == ';' || c == '#') {
            break;
        } else if (c == '\\') {
            esc = true;
        } else {
            out += c;
        }
    }
    if (esc) out += '\\';
    return trim(out);
}

// One setting as npm holds it: a string, or something else (true/false/null, a bare key, an
// array) that this reader does not guess at.
struct Setting {
    std::string text;
    bool plain = true;
    bool bare = false;  // a key without '=': true
};
using Layer = std::map<std::string, Setting>;

// The top-level settings of an npmrc (keys before the first [section]), last one winning.
Layer parse_npmrc(const std::string& text, const Environment& env) {
    Layer out;
    bool in_section = false;
    std::size_t i = 0;
    while (i <= text.size()) {
        std::size_t end = text.find_first_of("\r\n", i);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(i, end - i);
        i = end + 1;
        std::string t = trim(line);
        if (t.empty() || t[0] == ';' || t[0] == '#') continue;
        if (line[0] == '[' && t.back() == ']' && line.find(']') == line.rfind(']')) {
            in_section = true;
            continue;
        }
        std::size_t eq = line.find('=');
        if (eq == 0) continue;
        std::string key = ini_value(line.substr(0, eq));
        if (in_section || key.empty()) continue;
        Setting s;
        bool array = key.size() > 2 && key.ends_with("[]");
        if (array) key.resize(key.size() - 2);
        if (eq == std::string::npos) {
            s.plain = false;  // a bare key is `true`
            s.bare = !array;
        } else {
            s.text = ini_value(line.substr(eq + 1));
            s.plain = !array && s.text != "true" && s.text != "false" && s.text != "null";
        }
        out[env_replace(key, env)] = s;
    }
    return out;
}

}  // namespace

std::vector<NpmrcSetting> npmrc_settings(const std::string& text, const Environment& env) {
    std::vector<NpmrcSetting> out;
    for (const auto& [key, s] : parse_npmrc(text, env)) {
        bool array = !s.plain && !s.bare && s.text != "true" && s.text != "false" && s.text != "null";
        if (array) continue;
        out.push_back({key, s.bare ? "true" : env_replace(s.text, env)});
    }
    return out;
}

bool read_small_file(const std::string& path, std::string& out) { return read_file(path, out); }

std::string npm_registry_from_files(const std::string& home, const std::string& global_npmrc) {
    // npm's order: the user's file over the global one, then npm's default. Only the
    // top-level `registry` key counts; a value with `${VAR}` is taken as written (it names no
    // host, and is dropped by the caller).
    for (const std::string& file : {home.empty() ? std::string() : home + "/.npmrc", global_npmrc}) {
        std::string text;
        struct stat st {};
        if (file.empty() || ::stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || !read_file(file, text))
            continue;
        std::optional<std::string> found;
        for (const auto& s : npmrc_settings(text, {}))
            if (s.key == "registry") found = trim(s.value);
        if (found && !found->empty()) return *found;
    }
    return kNpmDefaultRegistry;
}

}  // namespace toolcage::cage
