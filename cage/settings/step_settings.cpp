#include "cage/settings/step_settings.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <nlohmann/json.hpp>
#include <string_view>

#include "cage/settings/npm_config.h"
#include "common/error.h"
#include "common/git_config.h"
#include "common/text.h"

namespace toolcage::cage {

namespace {

// npm settings a worker may keep: where packages come from and how npm behaves, never who it
// is to the registry. Sorted; a key not here (a token, a certificate, a proxy, a program to
// run, a path in the home) is left out.
constexpr std::string_view kNpmKeys[] = {
    "audit", "audit-level", "bin-links", "color", "engine-strict", "fetch-retries",
    "fetch-retry-maxtimeout", "fetch-retry-mintimeout", "fetch-timeout", "foreground-scripts",
    "fund", "git-tag-version", "ignore-scripts", "include-workspace-root", "init-author-name",
    "init-author-url", "init-license", "init-version", "install-links", "install-strategy",
    "legacy-peer-deps", "lockfile-version", "loglevel", "maxsockets", "offline", "package-lock",
    "prefer-offline", "prefer-online", "progress", "registry", "replace-registry-host", "save",
    "save-exact", "save-prefix", "strict-peer-deps", "tag-version-prefix", "unicode",
    "update-notifier",
};

bool npm_key_kept(const std::string& key) {
    // "@scope:registry": a scope's registry (its "@scope:_authToken" is not kept).
    if (key.size() > 1 && key[0] == '@' && key.ends_with(":registry") &&
        key.find('/') == std::string::npos)
        return true;
    return std::binary_search(std::begin(kNpmKeys), std::end(kNpmKeys), std::string_view(key));
}

// pip options a worker may keep (pip accepts "_" for "-"). Sorted.
constexpr std::string_view kPipKeys[] = {
    "break-system-packages", "default-timeout", "disable-pip-version-check", "extra-index-url",
    "find-links", "index-url", "no-binary", "no-build-isolation", "no-input", "only-binary", "pre",
    "prefer-binary", "progress-bar", "require-virtualenv", "retries", "timeout", "trusted-host",
    "upgrade-strategy", "use-pep517",
};

constexpr bool sorted(const std::string_view* b, const std::string_view* e) {
    for (const auto* p = b + 1; p < e; ++p)
        if (!(*(p - 1) < *p)) return false;
    return true;
}
static_assert(sorted(std::begin(kNpmKeys), std::end(kNpmKeys)), "kNpmKeys must be sorted");
static_assert(sorted(std::begin(kPipKeys), std::end(kPipKeys)), "kPipKeys must be sorted");

// A value npm's ini reads back as written: plain text as it is, anything else as JSON.
std::string npm_value(const std::string& v) {
    bool plain = !v.empty() && std::all_of(v.begin(), v.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) ||
               std::string_view("._:/@~^+-=,").find(c) != std::string_view::npos;
    });
    return plain ? v : nlohmann::json(v).dump();
}

bool write_file(const std::string& path, const std::string& text) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    std::size_t done = 0;
    while (done < text.size()) {
        ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int err = errno;
            ::close(fd);
            errno = err;
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    return ::close(fd) == 0;
}

// A regular file's text; empty when there is none (a FIFO or a device is never opened: it
// could hold the launcher up).
std::string read_or_empty(const std::string& path) {
    struct stat st {};
    std::string text;
    if (path.empty() || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
        !read_small_file(path, text))
        return "";
    return text;
}

// The last value of core.<name> in git config texts (git's last one wins), "~/" expanded.
std::string core_path(const std::vector<std::string>& texts, const std::string& name,
                      const std::string& home) {
    std::string value;
    for (const auto& text : texts)
        gitconfig::parse(text, [&](const gitconfig::Entry& e) {
            if (e.section == "core" && !e.has_sub && e.name == name && e.has_value) value = e.value;
        });
    if (value.starts_with("~/")) value = home.empty() ? "" : home + value.substr(1);
    return value.starts_with("/") ? value : "";
}

}  // namespace

bool has_userinfo(const std::string& text) {
    for (std::size_t at = text.find("://"); at != std::string::npos; at = text.find("://", at + 3)) {
        std::size_t end = text.find_first_of("/?# \t\r\n\"'", at + 3);
        std::string_view authority(text.data() + at + 3,
                                   (end == std::string::npos ? text.size() : end) - at - 3);
        if (authority.find('@') != std::string_view::npos) return true;
    }
    return false;
}

std::string step_git_config(const std::vector<std::string>& texts) {
    std::vector<gitconfig::Entry> kept;
    for (const auto& text : texts) {
        std::vector<gitconfig::Entry> mine;
        bool ok = gitconfig::parse(text, [&](const gitconfig::Entry& e) {
            if (gitconfig::is_inert(e) && !has_userinfo(e.value)) mine.push_back(e);
        });
        if (ok) kept.insert(kept.end(), mine.begin(), mine.end());
    }
    return gitconfig::format(kept);
}

std::string step_npmrc(const std::string& text) {
    std::map<std::string, std::string> kept;
    // `${VAR}` is left as written (the caller's environment is the agent's shell's): such a
    // value is dropped below.
    for (const auto& s : npmrc_settings(text, {}))
        if (npm_key_kept(s.key)) kept[s.key] = s.value;
    std::string out;
    for (const auto& [k, v] : kept) {
        if (has_userinfo(v) || v.find("${") != std::string::npos ||
            v.find_first_of(std::string_view("\n\r\0", 3)) != std::string::npos)
            continue;
        out += k + "=" + npm_value(v) + "\n";
    }
    return out;
}

std::string step_pip_conf(const std::vector<std::string>& texts) {
    std::map<std::string, std::map<std::string, std::string>> kept;
    for (const auto& text : texts) {
        std::string section, key, value;
        auto flush = [&] {
            if (section.empty() || key.empty()) return;
            std::string k = lower(key);
            std::replace(k.begin(), k.end(), '_', '-');
            if (std::binary_search(std::begin(kPipKeys), std::end(kPipKeys), std::string_view(k))) {
                // Several values, one a line or separated by blanks: each URL with
                // userinfo is dropped, and the key with it when none is left.
                std::string out, word;
                std::size_t i = 0;
                while (i <= value.size()) {
                    std::size_t e = value.find_first_of(" \t\r\n", i);
                    if (e == std::string::npos) e = value.size();
                    word = value.substr(i, e - i);
                    i = e + 1;
                    if (word.empty() || has_userinfo(word) || word.find('$') != std::string::npos)
                        continue;
                    out += (out.empty() ? "" : "\n    ") + word;
                }
                if (!out.empty()) kept[section][k] = out;
            }
            key.clear();
            value.clear();
        };
        std::size_t i = 0;
        while (i < text.size()) {
            std::size_t e = text.find('\n', i);
            if (e == std::string::npos) e = text.size();
            std::string line = text.substr(i, e - i);
            i = e + 1;
            std::string t = trim(line);
            if (t.empty() || t[0] == '#' || t[0] == ';') continue;
            if ((line[0] == ' ' || line[0] == '\t') && !key.empty()) {
                value += "\n" + t;  // a continuation line
                continue;
            }
            flush();
            if (t.front() == '[' && t.back() == ']') {
                section = lower(trim(t.substr(1, t.size() - 2)));
                bool ok = !section.empty() && std::all_of(section.begin(), section.end(), [](char c) {
                    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
                });
                if (!ok) section.clear();
                continue;
            }
            std::size_t sep = t.find_first_of("=:");
            if (sep == std::string::npos) continue;
            key = trim(t.substr(0, sep));
            value = trim(t.substr(sep + 1));
        }
        flush();
    }
    std::string out;
    for (const auto& [section, keys] : kept) {
        out += "[" + section + "]\n";
        for (const auto& [k, v] : keys) out += k + " = " + v + "\n";
    }
    return out;
}

void add_step_settings(const std::string& home, const std::string& tmpdir,
                       const std::map<std::string, std::string>& env_set, Environment& env) {
    // Only the user's own files, found from the home the user database names: GIT_CONFIG_*,
    // XDG_CONFIG_HOME, npm_config_* and HOME are the agent's shell's to set, and could name a
    // file of the workspace whose core.excludesFile is an ssh key.
    const std::string xdg = home.empty() ? "" : home + "/.config";

    // git: the user's global files in git's order (XDG, then ~/.gitconfig); the system's.
    std::vector<std::string> global;
    if (!xdg.empty()) global.push_back(read_or_empty(xdg + "/git/config"));
    if (!home.empty()) global.push_back(read_or_empty(home + "/.gitconfig"));
    std::vector<std::string> system{read_or_empty("/etc/gitconfig")};

    // npm: the user's npmrc.
    const std::string userconfig = home.empty() ? "" : home + "/.npmrc";

    // pip: the legacy user file, then the XDG one (pip reads both, the later winning).
    std::vector<std::string> pip;
    if (!home.empty()) pip.push_back(read_or_empty(home + "/.pip/pip.conf"));
    if (!xdg.empty()) pip.push_back(read_or_empty(xdg + "/pip/pip.conf"));

    // A file is made only for settings there are: a file's creation costs a tenth of a
    // millisecond on some disks, and most homes have no global ignore or attributes file, no
    // system git config and no npmrc. /dev/null reads as the empty file to git and npm. Not to
    // pip, which takes PIP_CONFIG_FILE=/dev/null to mean "no configuration file at all", the
    // machine's /etc/pip.conf included: its file is always written.
    const std::string dir = tmpdir + "/.toolcage";
    bool made = false;
    auto write = [&](const std::string& name, const std::string& text) -> std::string {
        if (text.empty() && name != "pip.conf") return "/dev/null";
        if (!made && ::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
            throw Error(syscall_error("mkdir(\"" + dir + "\", 0700)", errno));
        made = true;
        std::string path = dir + "/" + name;
        if (!write_file(path, text))
            throw Error(syscall_error("open(\"" + path + "\", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW)",
                                      errno) +
                        "; the step's TMPDIR must be writable");
        return path;
    };

    // The user's global ignore and attributes files (patterns, nothing that runs) are copied:
    // git refuses to run at all when the one it would read cannot be opened, and in the cage
    // the home's cannot.
    std::string git_paths;
    struct PatternFile {
        const char* key;
        const char* xdg_name;
        const char* copy;
    };
    for (const auto& f : {PatternFile{"excludesfile", "ignore", "gitignore"},
                          PatternFile{"attributesfile", "attributes", "gitattributes"}}) {
        std::string from = core_path(global, f.key, home);
        if (from.empty() && !xdg.empty()) from = xdg + "/git/" + f.xdg_name;
        gitconfig::Entry e{"core", false, "", f.key, write(f.copy, read_or_empty(from)), true};
        git_paths += gitconfig::format({e});
    }

    struct File {
        const char* name;
        const char* variable;
        std::string text;
    };
    const File files[] = {
        {"gitconfig", "GIT_CONFIG_GLOBAL", step_git_config(global) + git_paths},
        {"gitconfig-system", "GIT_CONFIG_SYSTEM", step_git_config(system)},
        {"npmrc", "NPM_CONFIG_USERCONFIG", step_npmrc(read_or_empty(userconfig))},
        {"pip.conf", "PIP_CONFIG_FILE", step_pip_conf(pip)},
    };
    for (const auto& f : files)
        if (!env_set.count(f.variable)) env[f.variable] = write(f.name, f.text);
    env.erase("GIT_CONFIG_NOSYSTEM");
}

}  // namespace toolcage::cage
