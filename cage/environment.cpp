#include "cage/environment.h"

#include <cctype>

#include <array>
#include <filesystem>
#include <string_view>
#include <system_error>

namespace fs = std::filesystem;

namespace toolcage::cage {

namespace {

constexpr std::array<std::string_view, 10> kKeepList = {"PATH", "HOME", "USER",  "LOGNAME", "LANG",
                                                        "TERM", "TZ",   "SHELL", "PWD",     "LC_*"};

bool matches(std::string_view name, std::string_view pattern) {
    if (!pattern.empty() && pattern.back() == '*')
        return name.substr(0, pattern.size() - 1) == pattern.substr(0, pattern.size() - 1);
    return name == pattern;
}

// Resolved when it exists, so that /bin (a link to usr/bin) compares as /usr/bin.
std::string resolved(const std::string& p) {
    std::error_code ec;
    auto r = fs::weakly_canonical(p, ec);
    return ec ? fs::path(p).lexically_normal().string() : r.string();
}

bool is_at_or_under(const std::string& path, const std::string& dir) {
    if (dir == "/") return true;
    return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
                           path[dir.size()] == '/');
}

}  // namespace

Environment parse_environ(char** envp) {
    Environment env;
    for (char** e = envp; e && *e; ++e) {
        std::string_view kv(*e);
        auto eq = kv.find('=');
        if (eq == std::string_view::npos || eq == 0) continue;
        env.emplace(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
    }
    return env;
}

bool is_kept_variable(const std::string& name, const std::vector<std::string>& env_keep) {
    for (auto p : kKeepList)
        if (matches(name, p)) return true;
    for (const auto& p : env_keep)
        if (matches(name, p)) return true;
    return false;
}

bool is_secret_reference(const std::string& value) {
    return value.rfind("openshell:resolve:env:", 0) == 0;
}

std::string filter_path(const std::string& path, const std::vector<std::string>& execute) {
    std::vector<std::string> roots;
    for (const auto& e : execute) roots.push_back(resolved(e));
    std::string out;
    std::size_t start = 0;
    while (start <= path.size()) {
        auto end = path.find(':', start);
        if (end == std::string::npos) end = path.size();
        std::string entry = path.substr(start, end - start);
        start = end + 1;
        // Empty and relative entries mean "the current directory": never kept.
        if (entry.empty() || entry[0] != '/') continue;
        std::string r = resolved(entry);
        for (const auto& root : roots) {
            if (is_at_or_under(r, root)) {
                if (!out.empty()) out += ':';
                out += entry;
                break;
            }
        }
    }
    return out.empty() ? "/usr/local/bin:/usr/bin:/bin" : out;
}

void set_proxy_environment(Environment& env, const std::string& relay_url) {
    for (const char* k : {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"})
        env[k] = relay_url;
    for (const char* k : {"no_proxy", "NO_PROXY"}) env[k] = "localhost,127.0.0.1,::1";
}

// The launcher's own proxy settings may carry an upstream proxy's credentials: whatever the
// keep-list says, none of them reaches the step (the relay is its only way out).
bool is_outer_proxy_variable(const std::string& name) {
    std::string lower = name;
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return lower.ends_with("proxy") && lower != "no_proxy";
}

Environment build_environment(const Environment& outer, const EnvironmentSpec& spec) {
    Environment env;
    for (const auto& [k, v] : outer)
        if (is_kept_variable(k, spec.env_keep) && !is_secret_reference(v) &&
            !is_outer_proxy_variable(k))
            env[k] = v;
    for (const auto& [k, v] : spec.env_set)
        if (!is_secret_reference(v)) env[k] = v;
    env["PATH"] = filter_path(env.count("PATH") ? env["PATH"] : "", spec.execute);
    if (!spec.workdir.empty()) env["PWD"] = spec.workdir;
    if (!spec.tmpdir.empty()) env["TMPDIR"] = spec.tmpdir;
    if (!spec.relay_url.empty()) set_proxy_environment(env, spec.relay_url);
    return env;
}

std::vector<std::string> flatten_environment(const Environment& env) {
    std::vector<std::string> out;
    out.reserve(env.size());
    for (const auto& [k, v] : env) out.push_back(k + "=" + v);
    return out;
}

}  // namespace toolcage::cage
