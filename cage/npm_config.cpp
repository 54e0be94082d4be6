#include "cage/npm_config.h"

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

// npm's environment layer: npm_config_* in any case, "_" for "-" after the first character,
// empty values skipped; a later variable wins.
Layer environment_layer(const Environment& env) {
    Layer out;
    for (const auto& [k, v] : env) {
        if (k.size() <= 11 || v.empty()) continue;
        std::string prefix = k.substr(0, 11);
        for (auto& c : prefix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (prefix != "npm_config_") continue;
        std::string key = k.substr(11);
        if (!key.starts_with("//")) {
            for (std::size_t j = 1; j < key.size(); ++j)
                if (key[j] == '_') key[j] = '-';
            for (auto& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        out[key] = {v, true};
    }
    return out;
}

const Setting* find(const std::string& key, std::initializer_list<const Layer*> layers) {
    for (const Layer* l : layers) {
        auto it = l->find(key);
        if (it != l->end()) return &it->second;
    }
    return nullptr;
}

// node's path.resolve() against `cwd`.
std::string resolve(const std::string& cwd, const std::string& p) {
    fs::path r = fs::path(cwd) / p;  // an absolute `p` replaces `cwd`
    std::string s = r.lexically_normal().string();
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    return s;
}

// A path setting as npm's parseField makes it: "~/" from HOME, else resolved against `cwd`.
std::string path_value(const std::string& raw, const std::string& home, const std::string& cwd,
                       const Environment& env) {
    std::string f = env_replace(trim(raw), env);
    if (f.starts_with("~/") && !home.empty()) return resolve(home, f.substr(2));
    return resolve(cwd, f);
}

// `name` on PATH as execvp finds it (an empty entry is the current directory).
std::string on_path(const std::string& name, const Environment& env, const std::string& cwd) {
    auto it = env.find("PATH");
    std::string path = it != env.end() ? it->second : "/bin:/usr/bin";
    std::size_t start = 0;
    while (start <= path.size()) {
        std::size_t end = path.find(':', start);
        if (end == std::string::npos) end = path.size();
        std::string dir = path.substr(start, end - start);
        start = end + 1;
        std::string candidate = resolve(cwd, (dir.empty() ? "." : dir) + "/" + name);
        struct stat st {};
        if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
            ::access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return "";
}

std::string real_path(const std::string& p) {
    char buf[PATH_MAX];
    return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

bool exists(const std::string& p, bool dir) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && (dir ? S_ISDIR(st.st_mode) : true);
}

// The default in npm's own table of settings: registry: new Definition('registry', { default: '...'.
std::optional<std::string> default_registry(const std::string& npm_dir) {
    std::string text;
    if (!read_file(npm_dir + "/node_modules/@npmcli/config/lib/definitions/definitions.js", text))
        return std::nullopt;
    const std::string head = "registry: new Definition('registry', {";
    std::size_t at = text.find(head);
    if (at == std::string::npos) return std::nullopt;
    at += head.size();
    std::size_t d = text.find("default:", at);
    std::size_t next = text.find("new Definition(", at);
    if (d == std::string::npos || (next != std::string::npos && d > next)) return std::nullopt;
    std::size_t q = text.find_first_not_of(" \t\r\n", d + 8);
    if (q == std::string::npos || (text[q] != '\'' && text[q] != '"')) return std::nullopt;
    std::size_t e = text.find(text[q], q + 1);
    if (e == std::string::npos) return std::nullopt;
    std::string url = text.substr(q + 1, e - q - 1);
    if (url.empty() || url.find_first_of("\\\n'\"`$") != std::string::npos) return std::nullopt;
    return url;
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

NpmRegistry npm_registry_setting(const Environment& env, const std::string& cwd) {
    NpmRegistry unknown;
    NpmRegistry answer;
    answer.known = true;

    // npm itself: .../bin/npm-cli.js, run by the node its first line names.
    std::string npm = on_path("npm", env, cwd);
    if (npm.empty()) return answer;  // not installed: npm would not answer either
    std::string cli = real_path(npm);
    if (!cli.ends_with("/bin/npm-cli.js")) return unknown;
    const std::string npm_dir = fs::path(cli).parent_path().parent_path().string();
    std::string script;
    if (!read_file(cli, script)) return unknown;
    std::string first = script.substr(0, script.find('\n'));
    std::string node;
    if (first == "#!/usr/bin/env node")
        node = on_path("node", env, cwd);
    else if (first.starts_with("#!/") && first.find(' ') == std::string::npos)
        node = first.substr(2);
    std::string exec_path = node.empty() ? "" : real_path(node);
    if (exec_path.empty()) return unknown;

    auto var = [&](const char* k) {
        auto it = env.find(k);
        return it != env.end() ? it->second : std::string();
    };
    std::string home = var("HOME");
    if (home.empty()) {
        struct passwd* pw = ::getpwuid(::geteuid());
        if (pw && pw->pw_dir) home = pw->pw_dir;
    }
    std::string global_prefix = var("PREFIX");
    if (global_prefix.empty()) {
        global_prefix = fs::path(exec_path).parent_path().parent_path().string();
        if (!var("DESTDIR").empty())
            global_prefix = (fs::path(var("DESTDIR")) / global_prefix.substr(1)).string();
    }

    Layer from_env = environment_layer(env);
    Layer builtin, project, user, global;
    std::vector<std::string> loaded;
    auto load = [&](const std::string& file, Layer& into) {
        loaded.push_back(file);
        std::string text;
        if (read_file(file, text)) into = parse_npmrc(text, env);
    };
    auto path_of = [&](const char* key, std::initializer_list<const Layer*> layers,
                       const std::string& fallback) {
        const Setting* s = find(key, layers);
        return s && s->plain ? path_value(s->text, home, cwd, env) : fallback;
    };
    load(npm_dir + "/npmrc", builtin);

    // The project's npmrc, unless npm is in global mode or it is the user's.
    const Setting* g = find("global", {&from_env, &builtin});
    const Setting* loc = find("location", {&from_env, &builtin});
    bool global_mode = (g && (g->text == "true" || (!g->plain && g->text.empty()))) ||
                       (loc && loc->plain && env_replace(trim(loc->text), env) == "global");
    const std::string home_npmrc = path_value("~/.npmrc", home, cwd, env);
    if (!global_mode) {
        std::string local_prefix;
        for (fs::path p = fs::path(resolve(cwd, "."));; p = p.parent_path()) {
            if (exists((p / "package.json").string(), false) || exists((p / "node_modules").string(), true)) {
                local_prefix = p.string();
                break;
            }
            if (p == p.parent_path()) break;
        }
        if (local_prefix.empty()) local_prefix = resolve(cwd, ".");
        std::string file = resolve(local_prefix, ".npmrc");
        if (file != path_of("userconfig", {&from_env, &builtin}, home_npmrc)) load(file, project);
    }
    load(path_of("userconfig", {&from_env, &project, &builtin}, home_npmrc), user);
    std::string prefix = path_of("prefix", {&from_env, &project, &user, &builtin},
                                 path_value(global_prefix, home, cwd, env));
    load(path_of("globalconfig", {&from_env, &project, &user, &builtin}, resolve(prefix, "etc/npmrc")),
         global);
    // npm refuses to load one file twice; what it does then is not guessed at here.
    for (std::size_t i = 0; i < loaded.size(); ++i)
        for (std::size_t j = i + 1; j < loaded.size(); ++j)
            if (loaded[i] == loaded[j]) return unknown;

    if (const Setting* r = find("registry", {&from_env, &project, &user, &global, &builtin})) {
        if (!r->plain) return unknown;
        answer.url = env_replace(trim(r->text), env);
        return answer;
    }
    answer.url = default_registry(npm_dir);
    return answer.url ? answer : unknown;
}

}  // namespace toolcage::cage
