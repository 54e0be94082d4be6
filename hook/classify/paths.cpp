// Path classes: where a path lies relative to the workspace, temp, home and the system, decided
// lexically (no file system access), plus the facts rules need (secret, start-up file, device).
#include <fnmatch.h>

#include <algorithm>
#include <array>
#include <string_view>

#include "common/path_text.h"
#include "hook/classify/analyzer.h"
#include "hook/classify/paths.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

// The one lexical normaliser (common/path_text), with nothing above the root.
std::string normalize_path(std::string_view abs) {
    if (abs.empty() || abs[0] != '/') return normal_path("/" + std::string(abs));
    return normal_path(std::string(abs));
}

bool path_within(std::string_view path, std::string_view dir) {
    if (dir.empty()) return false;
    if (dir == "/") return true;
    if (path.size() < dir.size() || path.substr(0, dir.size()) != dir) return false;
    return path.size() == dir.size() || path[dir.size()] == '/';
}

namespace {

constexpr std::array<std::string_view, 6> kTempRoots = {"/tmp", "/var/tmp", "/dev/shm", "", "", ""};

constexpr std::array<std::string_view, 10> kHarmlessDev = {
    "/dev/null", "/dev/zero", "/dev/full", "/dev/stdout", "/dev/stderr",
    "/dev/stdin", "/dev/tty",  "/dev/random", "/dev/urandom", "/dev/fd"};

// Names of directories a build or package manager recreates.
constexpr std::array<std::string_view, 34> kRegenerable = {
    "node_modules", "build",       "dist",          "target",       "out",         ".venv",
    "venv",         "__pycache__", ".pytest_cache", ".mypy_cache",  ".ruff_cache", ".tox",
    ".nox",         "coverage",    ".coverage",     "htmlcov",      ".next",       ".nuxt",
    ".cache",       ".parcel-cache", ".gradle",     ".eggs",        ".turbo",      ".svelte-kit",
    ".angular",     "bin",         "obj",           "tmp",          ".tmp",        "_build",
    "cmake-build-debug", "cmake-build-release", ".terraform", "vendor"};

// Files under home that hold credentials (relative to home).
constexpr std::array<std::string_view, 22> kHomeSecrets = {
    ".aws/credentials", ".aws/sso",         ".config/gcloud",        ".docker/config.json",
    ".kube/config",     ".gnupg",           ".password-store",       ".config/gh/hosts.yml",
    ".azure",           ".netrc",           ".git-credentials",      ".pgpass",
    ".my.cnf",          ".vault-token",     ".npmrc",                ".pypirc",
    ".cargo/credentials", ".cargo/credentials.toml", ".terraform.d/credentials.tfrc.json",
    ".local/share/keyrings", ".config/hub", ".ssh/id_"};

// Directories under home whose copy would carry credentials.
constexpr std::array<std::string_view, 9> kHomeSecretDirs = {
    "", ".ssh", ".aws", ".gnupg", ".config", ".config/gcloud", ".docker", ".kube", ".password-store"};

// Start-up and auth files under home: writing them changes what later runs.
constexpr std::array<std::string_view, 26> kHomeRc = {
    ".bashrc",   ".bash_profile", ".bash_login", ".bash_logout", ".profile",  ".zshrc",
    ".zprofile", ".zshenv",       ".zlogin",     ".zlogout",     ".cshrc",    ".tcshrc",
    ".kshrc",    ".inputrc",      ".gitconfig",  ".ssh/authorized_keys", ".ssh/config", ".ssh/rc",
    ".config/fish/config.fish", ".xinitrc", ".xprofile", ".vimrc", ".curlrc", ".wgetrc",
    ".npmrc",    ".pypirc"};

bool is_env_file(std::string_view base) {
    if (base == ".env") return true;
    if (base.substr(0, 5) != ".env.") return false;
    std::string_view rest = base.substr(5);
    return rest != "example" && rest != "sample" && rest != "template" && rest != "dist" &&
           rest != "defaults" && rest != "schema";
}

bool is_key_file(std::string_view base) {
    if (base.substr(0, 3) != "id_") return false;
    return base.size() < 4 || base.substr(base.size() - 4) != ".pub";
}

}  // namespace

std::vector<std::string> temp_roots(const Context& ctx) {
    std::vector<std::string> out;
    for (std::string_view t : kTempRoots) {
        if (!t.empty()) out.emplace_back(t);
    }
    // $TMPDIR counts only when it is not a place that holds more than scratch files.
    auto apart = [&](const std::string& h) { return h.empty() || (!path_within(h, ctx.tmp) && !path_within(ctx.tmp, h)); };
    if (!ctx.tmp.empty() && ctx.tmp != "/" && apart(ctx.home) && apart(ctx.real_home) &&
        (ctx.workspace.empty() || !path_within(ctx.workspace, ctx.tmp)) &&
        !path_within(ctx.tmp, "/etc") && !path_within(ctx.tmp, "/usr")) {
        out.push_back(ctx.tmp);
    }
    return out;
}

bool is_regenerable_name(std::string_view name) {
    for (std::string_view r : kRegenerable) {
        if (name == r) return true;
    }
    return name.size() > 9 && name.substr(name.size() - 9) == ".egg-info";
}

PathInfo Analyzer::classify_abs(const std::string& p) const {
    const Context& c = place_->ctx;
    PathInfo info;
    info.path = p;
    std::string_view base = basename_of(p);
    if (p == "/") {
        info.cls = PathClass::root;
        info.secret_dir = true;
        return info;
    }
    if (path_within(p, "/dev")) {
        info.cls = PathClass::system;
        for (std::string_view h : kHarmlessDev) {
            if (path_within(p, h)) info.harmless_dev = true;
        }
        if (path_within(p, "/dev/tcp") || path_within(p, "/dev/udp")) {
            info.network_dev = true;
        } else if (!info.harmless_dev) {
            info.device = true;
        }
        return info;
    }
    if (path_within(p, "/proc")) {
        info.cls = PathClass::system;
        info.secret = base == "environ" || base == "mem" || base == "kcore";
        info.secret_dir = p == "/proc";
        return info;
    }
    bool classified = false;
    if (!c.workspace.empty() && path_within(p, c.workspace)) {
        classified = true;
        if (p == c.workspace) {
            info.cls = PathClass::workspace_root;
        } else if (path_within(p, c.workspace + "/.git")) {
            info.cls = PathClass::git_dir;
        } else {
            info.cls = PathClass::workspace;
            // Any regenerable directory on the way down makes the target regenerable.
            std::string_view rest = std::string_view(p).substr(c.workspace.size());
            size_t i = 0;
            while (i < rest.size()) {
                while (i < rest.size() && rest[i] == '/') ++i;
                size_t b = i;
                while (i < rest.size() && rest[i] != '/') ++i;
                if (is_regenerable_name(rest.substr(b, i - b))) info.regenerable = true;
            }
        }
    }
    // The agent's $HOME, else the user database's home when p lies there.
    const std::string* home = nullptr;
    for (const std::string* h : {&c.home, &c.real_home})
        if (!home && !h->empty() && *h != "/" && path_within(p, *h)) home = h;
    if (!classified && home) {
        classified = true;
        info.cls = PathClass::home;
        std::string_view rel = p == *home ? std::string_view() : std::string_view(p).substr(home->size() + 1);
        for (std::string_view s : kHomeSecrets) {
            if (s == ".ssh/id_") continue;
            if (path_within(rel, s)) info.secret = true;
        }
        if (path_within(rel, ".ssh") && is_key_file(base)) info.secret = true;
        for (std::string_view d : kHomeSecretDirs) {
            if (rel == d) info.secret_dir = true;
        }
        for (std::string_view r : kHomeRc) {
            if (rel == r) info.rc_file = true;
        }
        info.ssh_access = rel == ".ssh/authorized_keys" || rel == ".ssh/authorized_keys2" || rel == ".ssh/rc" ||
                          rel == ".ssh/environment";
        info.ssh_config = rel == ".ssh/config";
    }
    // The home's ancestors and the workspace's hold the home or the workspace: never scratch,
    // wherever they lie (HOME=/tmp/x makes /tmp such a place).
    auto holds_a_home = [&](const std::string& h) { return !h.empty() && h != "/" && path_within(h, p); };
    if (!classified && (holds_a_home(c.home) || holds_a_home(c.real_home) ||
                        (!c.workspace.empty() && path_within(c.workspace, p)))) {
        classified = true;
        info.cls = PathClass::system;
        info.secret_dir = holds_a_home(c.home) || holds_a_home(c.real_home);
    }
    // Only then temp: a home or a workspace under /tmp or /var/tmp is still a home or a workspace.
    if (!classified) {
        for (const std::string& t : place_->temps) {
            if (path_within(p, t)) {
                classified = true;
                // The temp directory itself is shared system state; what is in it is scratch.
                info.cls = p == t ? PathClass::system : PathClass::temp;
                info.temp_root = p == t;
                break;
            }
        }
    }
    if (!classified) {
        info.cls = PathClass::system;
        if (p == "/etc/shadow" || p == "/etc/gshadow" || p == "/etc/sudoers" ||
            (path_within(p, "/etc/ssh") && base.substr(0, 9) == "ssh_host_" &&
             base.substr(base.size() >= 4 ? base.size() - 4 : 0) != ".pub")) {
            info.secret = true;
        }
        if (p == "/home" || p == "/root" || path_within(p, "/root/.ssh")) info.secret_dir = true;
        if (path_within(p, "/root/.ssh") && is_key_file(base)) info.secret = true;
    }
    if (is_env_file(base) || is_key_file(base) || base == ".netrc" || base == ".git-credentials" ||
        base == ".pgpass") {
        info.secret = true;
    }
    return info;
}

namespace {

// Names a pattern must match to count as "every entry" of its directory.
constexpr std::array<const char*, 5> kSampleNames = {"src", "a", "lib", "x1", "Documents"};

}  // namespace

PathInfo Analyzer::classify_text(const std::string& text, bool glob, const Scope& scope) const {
    return classify_text_at(text, glob, scope.cwd_known, scope.cwd, scope.cwd_guarded);
}

PathInfo Analyzer::classify_text_at(const std::string& text, bool glob, bool cwd_known, const std::string& cwd,
                                    bool cwd_guarded) const {
    std::string abs;
    if (!text.empty() && text[0] == '/') {
        abs = text;
    } else if (!cwd_known) {
        PathInfo info;
        info.cls = PathClass::unknown;
        info.guarded = cwd_guarded;
        return info;
    } else {
        abs = cwd;
        abs += '/';
        abs += text;
    }
    if (!glob || !has_glob_chars(abs)) return classify_abs(normalize_path(abs));

    // Split the normalized pattern into components (so `*/..` cancels like any name); the
    // first one with pattern characters decides.
    std::string pattern_path = normalize_path(abs);
    std::vector<std::string> comps;
    size_t i = 0;
    while (i < pattern_path.size()) {
        while (i < pattern_path.size() && pattern_path[i] == '/') ++i;
        size_t b = i;
        while (i < pattern_path.size() && pattern_path[i] != '/') ++i;
        if (i > b) comps.emplace_back(pattern_path.substr(b, i - b));
    }
    if (comps.empty() || !has_glob_chars(pattern_path)) return classify_abs(pattern_path);
    size_t g = 0;
    while (g < comps.size() && !has_glob_chars(comps[g])) ++g;
    std::string dir;
    for (size_t k = 0; k < g; ++k) {
        dir += '/';
        dir += comps[k];
    }
    dir = normalize_path(dir);
    PathInfo info;
    bool last = g + 1 == comps.size();
    bool every = false;
    if (last) {
        for (const char* s : kSampleNames) {
            if (::fnmatch(comps[g].c_str(), s, FNM_PERIOD) == 0) every = true;
        }
        if (::fnmatch(comps[g].c_str(), ".git", FNM_PERIOD) == 0) every = true;
    }
    if (every) {
        info = classify_abs(dir);
        info.root_glob = true;
        info.path = abs;
        // Every entry of a temp root is scratch (unless the root holds the home or workspace).
        if (info.temp_root) info.cls = PathClass::temp;
    } else {
        std::string placeholder;
        for (size_t k = 0; k < comps.size(); ++k) {
            placeholder += '/';
            placeholder += has_glob_chars(comps[k]) ? std::string("x-matched") : comps[k];
        }
        info = classify_abs(normalize_path(placeholder));
        info.path = abs;
        if (last && ::fnmatch(comps[g].c_str(), ".env", FNM_PERIOD) == 0) info.secret = true;
    }
    for (const std::string& s : place_->secret_samples) {
        if (::fnmatch(pattern_path.c_str(), s.c_str(), FNM_PATHNAME | FNM_PERIOD) == 0) info.secret = true;
    }
    return info;
}

namespace {

std::string absolute_of(const Value& v, const Scope& scope) {
    if (!v.known() || v.text.empty()) return std::string();
    if (v.text[0] == '/') return normalize_path(v.text);
    if (!scope.cwd_known) return std::string();
    return normalize_path(scope.cwd + "/" + v.text);
}

}  // namespace

void Analyzer::remember_taint(const Value& file, Taint t, Scope& scope) const {
    std::string abs = absolute_of(file, scope);
    if (!abs.empty() && t >= Taint::filtered) scope.tainted_files.emplace_back(abs, t);
}

Taint Analyzer::file_taint(const Value& file, const Scope& scope) const {
    std::string abs = absolute_of(file, scope);
    Taint t = Taint::none;
    for (const auto& [path, taint] : scope.tainted_files) {
        if (path == abs) t = std::max(t, taint);
    }
    return t;
}

void Analyzer::remember_text(const Value& file, const std::string* text, Scope& scope) const {
    std::string abs = absolute_of(file, scope);
    if (abs.empty()) return;
    auto& t = scope.file_texts;
    t.erase(std::remove_if(t.begin(), t.end(), [&](const auto& e) { return e.first == abs; }), t.end());
    if (text) t.emplace_back(abs, *text);
}

const std::string* Analyzer::file_text(const Value& file, const Scope& scope) const {
    if (scope.file_texts.empty()) return nullptr;
    std::string abs = absolute_of(file, scope);
    for (const auto& [path, text] : scope.file_texts) {
        if (path == abs) return &text;
    }
    return nullptr;
}

bool Analyzer::run_known_script(const Value& file, Call& call, std::string_view lang) {
    const std::string* text = file_text(file, *call.scope);
    if (!text) return false;
    std::string_view l = lang;
    if (l.empty() || l == "shell") {
        // A shebang names the interpreter that reads it.
        std::string first = text->substr(0, text->find('\n'));
        if (first.rfind("#!", 0) == 0) {
            if (contains(first, "python")) l = "python";
            else if (contains(first, "node")) l = "node";
            else if (contains(first, "perl")) l = "perl";
            else if (contains(first, "ruby")) l = "ruby";
            else if (contains(first, "php")) l = "php";
        }
    }
    std::string who = "`" + file.shown() + "`, written earlier in this command,";
    hit(Decision::cage, "shell.script", "`" + call.name + "` runs " + file.shown() + ", a script written in this command");
    if (l.empty() || l == "shell") {
        Scope copy = copy_scope(*call.scope);
        copy.functions.clear();
        run_string(Value::literal(*text), copy, true, call.in, who);
    } else {
        interpreter_code(l, Value::literal(*text), call);
    }
    return true;
}

bool Analyzer::refuse_tainted_script(const Value& file, const Scope& scope, std::string_view who, bool shell) {
    Taint t = file_taint(file, scope);
    if (t == Taint::filtered && shell) {
        // A filter's output saved and run by a shell: `rev p > x.sh; sh x.sh` is `rev p | sh`.
        hit(Decision::deny, "pipe.decoded-to-shell",
            std::string(who) + " runs " + file.shown() + ", just written by a filter (rev, tr, sed, …): a decoder");
        return true;
    }
    if (t == Taint::remote) {
        hit(Decision::deny, "pipe.remote-to-shell", std::string(who) + " runs " + file.shown() + ", just downloaded");
        return true;
    }
    if (t == Taint::decoded) {
        hit(Decision::deny, "pipe.decoded-to-shell", std::string(who) + " runs " + file.shown() + ", just decoded");
        return true;
    }
    return false;
}

std::vector<PathInfo> Analyzer::resolve(const Value& given, const Scope& scope) const {
    std::vector<PathInfo> out;
    // Through a symlink made earlier in the command, a path reaches the link's target.
    Value v = given;
    if (!scope.links.empty() && given.known() && !given.text.empty()) {
        std::string abs = given.text[0] == '/' ? given.text : (scope.cwd_known ? scope.cwd + "/" + given.text : "");
        bool through = !given.text.empty() && given.text.back() == '/';
        abs = abs.empty() ? abs : normalize_path(abs);
        for (const auto& [link, target] : scope.links) {
            if (abs == link && through) v.text = target + "/";
            if (abs.size() > link.size() && path_within(abs, link)) v.text = target + abs.substr(link.size());
        }
    }
    // A relative path after a conditional cd: judge it from every directory it may be in.
    auto classify_all = [&](const std::string& text, bool glob, const Scope& sc) {
        if (!sc.alt_cwds.empty() && (text.empty() || text[0] != '/')) {
            for (const std::string& alt : sc.alt_cwds) out.push_back(classify_text_at(text, glob, true, alt, false));
        }
        return classify_text(text, glob, sc);
    };
    if (v.procsub) {
        PathInfo info;
        info.cls = PathClass::system;
        info.path = "/dev/fd/63";
        info.harmless_dev = true;
        out.push_back(info);
        return out;
    }
    if (v.alt_unknown) {
        PathInfo info;
        info.cls = PathClass::unknown;
        info.guarded = true;
        out.push_back(info);
    }
    if (!v.unknown) {
        if (!v.text.empty()) out.push_back(classify_all(v.text, v.glob, scope));
        return out;
    }
    const std::string& t = v.text;
    size_t u = t.find(kUnknown);
    std::string prefix = t.substr(0, u);
    if (prefix.empty()) {
        PathInfo info;
        info.cls = PathClass::unknown;
        info.guarded = v.guarded;
        out.push_back(info);
    } else {
        // A known beginning: the unknown part names something inside the directory written.
        std::string filled;
        for (char c : t) {
            if (c == kUnknown) {
                filled += "x-runtime";
            } else {
                filled += c;
            }
        }
        PathInfo info = classify_all(filled, v.glob, scope);
        info.guarded = v.guarded;
        out.push_back(info);
    }
    if (!v.guarded) {
        // Unknown parts may expand to nothing: `rm -rf "$DIR/"` with DIR unset is `rm -rf /`.
        std::string empty;
        for (char c : t) {
            if (c != kUnknown) empty += c;
        }
        if (!empty.empty()) out.push_back(classify_all(empty, v.glob, scope));
    }
    return out;
}

}  // namespace toolcage::classify::detail
