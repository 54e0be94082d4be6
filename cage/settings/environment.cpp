#include "cage/settings/environment.h"

#include <unistd.h>

#include <cctype>
#include <cerrno>

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <optional>
#include <string_view>

#include "common/path_resolver.h"

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

namespace {

// The absolute PATH entries, in order, split by whether the cage may execute from them.
// Empty and relative entries mean "the current directory": in neither list, never kept.
struct PathSplit {
    std::vector<std::string> kept, left_out;
};

PathSplit split_path(const std::string& path, const std::vector<std::string>& execute) {
    // Symlinks resolved, so that /bin (a link to usr/bin) compares as /usr/bin; the PATH
    // entries and the execute roots share most of their prefixes, looked up once.
    PathResolver resolver;
    std::vector<std::string> roots;
    for (const auto& e : execute) roots.push_back(resolver.resolve(e));
    PathSplit out;
    std::size_t start = 0;
    while (start <= path.size()) {
        auto end = path.find(':', start);
        if (end == std::string::npos) end = path.size();
        std::string entry = path.substr(start, end - start);
        start = end + 1;
        if (entry.empty() || entry[0] != '/') continue;
        std::string r = resolver.resolve(entry);
        bool under = std::any_of(roots.begin(), roots.end(), [&](const std::string& root) { return is_at_or_under(r, root); });
        (under ? out.kept : out.left_out).push_back(std::move(entry));
    }
    return out;
}

}  // namespace

std::string filter_path(const std::string& path, const std::vector<std::string>& execute) {
    std::string out;
    for (const auto& e : split_path(path, execute).kept) out += (out.empty() ? "" : ":") + e;
    return out.empty() ? "/usr/local/bin:/usr/bin:/bin" : out;
}

std::vector<std::string> left_out_of_path(const std::string& path, const std::vector<std::string>& execute) {
    std::vector<std::string> out;
    for (auto& e : split_path(path, execute).left_out)
        if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(std::move(e));
    return out;
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
    // The caller's HOME is whatever the agent's shell exported; the step gets the user's own
    // (a policy's env_set may still name another).
    if (!spec.home.empty())
        env["HOME"] = spec.home;
    else
        env.erase("HOME");
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
