#include "cage/integrity/hold_rule.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace toolcage::cage {

namespace {

constexpr std::string_view kDotWhy =
    "a dot-file or dot-directory: where tools look for their configuration, from the directory they run in "
    "and its parents";

// Dot-files out of the class: they only choose which files git tracks or keep a directory.
constexpr std::string_view kOrdinaryDotFiles[] = {".gitignore", ".gitkeep", ".keep"};

struct NamedConfig {
    std::string_view name;  // a file's name, at any depth
    std::string_view why;
};

// Sorted by name. Each entry: which tool reads it before or without the project's own code,
// and what it can make that tool run.
constexpr NamedConfig kConfigNames[] = {
    {"AGENTS.md", "an agent's instructions: read at the start of the next session in this directory"},
    {"AGENTS.override.md", "an agent's instructions: read at the start of the next session in this directory"},
    {"CLAUDE.local.md", "Claude Code's instructions: read at the start of the next session in this directory"},
    {"CLAUDE.md", "Claude Code's instructions: read at the start of the next session in this directory"},
    {"Directory.Build.props", "MSBuild imports it into every project below it, before the project's own file"},
    {"Directory.Build.rsp", "MSBuild reads its command-line switches from it (loggers: any assembly)"},
    {"Directory.Build.targets", "MSBuild imports it into every project below it"},
    {"GEMINI.md", "Gemini CLI's instructions: read at the start of the next session in this directory"},
    {"HERMES.md", "Hermes's instructions: read into the next session's prompt in this directory"},
    {"NuGet.Config", "NuGet's configuration: where dotnet restore downloads packages from"},
    {"SOUL.md", "OpenClaw's instructions: read at the start of the next session"},
    {"bunfig.toml", "bun's configuration: scripts it preloads into every bun run, where it installs from"},
    {"global.json", "the .NET SDK's selection: which SDK (by version or path) every dotnet command runs"},
    {"gradle.properties", "Gradle's settings (org.gradle.jvmargs: a Java agent in the daemon), read before any build script"},
    {"lefthook-local.json", "lefthook's configuration: the commands git's hooks run"},
    {"lefthook-local.toml", "lefthook's configuration: the commands git's hooks run"},
    {"lefthook-local.yaml", "lefthook's configuration: the commands git's hooks run"},
    {"lefthook-local.yml", "lefthook's configuration: the commands git's hooks run"},
    {"lefthook.json", "lefthook's configuration: the commands git's hooks run"},
    {"lefthook.toml", "lefthook's configuration: the commands git's hooks run"},
    {"lefthook.yaml", "lefthook's configuration: the commands git's hooks run"},
    {"lefthook.yml", "lefthook's configuration: the commands git's hooks run"},
    {"mise.local.toml", "mise's configuration: environment, hooks and tools it runs on entering the directory"},
    {"mise.toml", "mise's configuration: environment, hooks and tools it runs on entering the directory"},
    {"nuget.config", "NuGet's configuration: where dotnet restore downloads packages from"},
    {"pdm.toml", "PDM's project configuration: package indexes, which interpreter it runs"},
    {"pip.conf", "pip's configuration inside a virtual environment: where it installs from"},
    {"pip.ini", "pip's configuration inside a virtual environment: where it installs from"},
    {"pnpm-workspace.yaml", "pnpm's settings (registries, which packages may run install scripts)"},
    {"poetry.toml", "Poetry's project configuration: package sources, where its environment is"},
    {"pyvenv.cfg", "a virtual environment's configuration: which interpreter (home =) it runs"},
    {"rust-toolchain", "rustup's toolchain file: which toolchain (by name or path) every cargo and rustc runs"},
    {"rust-toolchain.toml", "rustup's toolchain file: which toolchain (by name or path) every cargo and rustc runs"},
    {"uv.toml", "uv's configuration: package indexes, which Python it runs and downloads"},
};

// Names whose every extension is configuration a hook manager's command loads as code.
constexpr NamedConfig kConfigPrefixes[] = {
    {"commitlint.config.", "commitlint's configuration, loaded as code by the commit-msg hook"},
    {"lint-staged.config.", "lint-staged's configuration, loaded as code by the pre-commit hook"},
};

constexpr NamedConfig kWrappers[] = {
    {"gradlew", "Gradle's wrapper: the program ./gradlew runs"},
    {"gradlew.bat", "Gradle's wrapper: the program gradlew runs"},
    {"mvnw", "Maven's wrapper: the program ./mvnw runs"},
    {"mvnw.cmd", "Maven's wrapper: the program mvnw runs"},
};

constexpr std::string_view kPythonStartupWhy =
    "a Python start-up hook: Python imports or obeys it before any program's own code";

std::string_view last_component(std::string_view rel) {
    auto slash = rel.rfind('/');
    return slash == std::string_view::npos ? rel : rel.substr(slash + 1);
}

bool has_dot_component(std::string_view rel, std::string_view& first_dot) {
    std::size_t i = 0;
    while (i < rel.size()) {
        std::size_t e = rel.find('/', i);
        if (e == std::string_view::npos) e = rel.size();
        std::string_view part = rel.substr(i, e - i);
        if (part.size() > 1 && part[0] == '.' && part != "..") {
            // A dot-file out of the class is out only as the last component (a directory of that
            // name is a dot-directory like any other).
            bool ordinary = e == rel.size() && std::find(std::begin(kOrdinaryDotFiles), std::end(kOrdinaryDotFiles),
                                                         part) != std::end(kOrdinaryDotFiles);
            if (!ordinary) {
                first_dot = part;
                return true;
            }
        }
        i = e + 1;
    }
    return false;
}

const NamedConfig* find_name(std::string_view name) {
    auto it = std::lower_bound(std::begin(kConfigNames), std::end(kConfigNames), name,
                               [](const NamedConfig& c, std::string_view n) { return c.name < n; });
    if (it != std::end(kConfigNames) && it->name == name) return it;
    // NuGet matches its file's name without regard to case (nuget.config, NuGet.config, ...).
    std::string lower(name);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "nuget.config" && name != "nuget.config") return find_name("nuget.config");
    return nullptr;
}

// The agents' instruction files, whose names some agents match in any case (Hermes's context
// files): `agents.md` is read as `AGENTS.md` is.
bool is_instruction_file(std::string_view name) {
    constexpr std::string_view kInstructions[] = {"agents.md", "agents.override.md", "claude.local.md", "claude.md",
                                                  "gemini.md", "hermes.md", "soul.md"};
    if (name.size() > 20) return false;
    std::string lower(name);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return std::find(std::begin(kInstructions), std::end(kInstructions), lower) != std::end(kInstructions);
}

}  // namespace

std::optional<HoldReason> hold_reason(std::string_view rel) {
    if (rel.empty()) return std::nullopt;
    std::string_view dot;
    if (has_dot_component(rel, dot)) return HoldReason{"dot-file", kDotWhy};
    const std::string_view name = last_component(rel);
    if (const NamedConfig* c = find_name(name)) return HoldReason{"tool-config", c->why};
    if (is_instruction_file(name))
        return HoldReason{"tool-config", "an agent's instructions (agents match their names in any case): read "
                                         "into the next session's prompt in this directory"};
    for (const auto& p : kConfigPrefixes)
        if (name.starts_with(p.name)) return HoldReason{"tool-config", p.why};
    for (const auto& w : kWrappers)
        if (name == w.name) return HoldReason{"wrapper", w.why};
    // gradle/wrapper/: the launcher jar ./gradlew runs and the URL it downloads Gradle from.
    if (rel == "gradle/wrapper" || rel.starts_with("gradle/wrapper/") || rel.find("/gradle/wrapper/") != std::string_view::npos ||
        rel.ends_with("/gradle/wrapper"))
        return HoldReason{"wrapper", "Gradle's wrapper: the launcher ./gradlew runs and where it downloads Gradle from"};
    // mise also reads mise/config.toml below the directory it runs in.
    if (rel == "mise/config.toml" || rel.ends_with("/mise/config.toml"))
        return HoldReason{"tool-config", "mise's configuration: environment, hooks and tools it runs on entering the directory"};
    if (name == "sitecustomize.py" || name == "usercustomize.py" || (name.size() > 4 && name.ends_with(".pth")))
        return HoldReason{"python-start-up", kPythonStartupWhy};
    return std::nullopt;
}

std::string module_name(std::string_view name, bool package_dir) {
    std::string mod;
    if (package_dir) {
        mod = name;
    } else if (name.ends_with(".py")) {
        mod = name.substr(0, name.size() - 3);
    } else if (name.ends_with(".so")) {
        mod = name.substr(0, name.find('.'));
    } else {
        return {};
    }
    if (mod.empty() || !(std::isalpha(static_cast<unsigned char>(mod[0])) || mod[0] == '_')) return {};
    for (char c : mod)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return {};
    return mod;
}

namespace {

bool is_program(const std::string& dir, const std::string& name) {
    struct stat st {};
    std::string p = dir + "/" + name;
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111) != 0;
}

// The directories Python finds modules in outside the project: each python3 on PATH's own
// lib/python3.*/ (its standard library) with their site-packages, and Debian's dist-packages.
std::vector<std::string> python_dirs(const std::vector<std::string>& path_dirs) {
    std::vector<std::string> roots = {"/usr/lib", "/usr/local/lib"};
    for (const auto& d : path_dirs) {
        std::error_code ec;
        if (!is_program(d, "python3")) continue;
        fs::path real = fs::canonical(fs::path(d) / "python3", ec);
        if (!ec) roots.push_back((real.parent_path().parent_path() / "lib").string());
    }
    std::vector<std::string> out = {"/usr/lib/python3/dist-packages"};
    for (const auto& r : roots) {
        std::error_code ec;
        for (fs::directory_iterator it(r, ec), end; !ec && it != end; it.increment(ec)) {
            std::string n = it->path().filename().string();
            if (!n.starts_with("python3")) continue;
            out.push_back(it->path().string());
            out.push_back(it->path().string() + "/site-packages");
            out.push_back(it->path().string() + "/dist-packages");
            out.push_back(it->path().string() + "/lib-dynload");
        }
    }
    return out;
}

bool python_finds(const std::vector<std::string>& dirs, const std::string& mod) {
    for (const auto& d : dirs) {
        struct stat st {};
        if (::stat((d + "/" + mod + ".py").c_str(), &st) == 0) return true;
        if (::stat((d + "/" + mod + "/__init__.py").c_str(), &st) == 0) return true;
        std::error_code ec;
        if (d.ends_with("lib-dynload"))
            for (fs::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec))
                if (it->path().filename().string().starts_with(mod + ".")) return true;
    }
    return false;
}

}  // namespace

std::optional<HoldReason> shadow_reason(std::string_view name, bool package_dir, std::string_view path_env) {
    const std::string mod = module_name(name, package_dir);
    if (mod.empty()) return std::nullopt;
    std::vector<std::string> path_dirs;
    std::size_t i = 0;
    while (i <= path_env.size()) {
        std::size_t e = path_env.find(':', i);
        if (e == std::string_view::npos) e = path_env.size();
        if (e > i && path_env[i] == '/') path_dirs.emplace_back(path_env.substr(i, e - i));
        i = e + 1;
    }
    std::string dashed = mod;
    std::replace(dashed.begin(), dashed.end(), '_', '-');
    for (const auto& d : path_dirs)
        if (is_program(d, mod) || is_program(d, dashed))
            return HoldReason{"shadow",
                              "a Python module new beside the repository's root, named as a program on PATH: "
                              "Python imports it first when that program runs with the repository as its working "
                              "directory (python -m, a git hook or filter)"};
    if (python_finds(python_dirs(path_dirs), mod))
        return HoldReason{"shadow",
                          "a Python module new beside the repository's root, named as one Python finds elsewhere "
                          "(its standard library, installed packages): Python imports this one first when a program "
                          "runs with the repository as its working directory"};
    return std::nullopt;
}

}  // namespace toolcage::cage
