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
    "a dot-file or dot-directory: where tools look for their configuration, from the directory "
    "they run in "
    "and its parents";

// Dot-files out of the class: they only choose which files git tracks or keep a directory.
constexpr std::string_view kOrdinaryDotFiles[] = {".gitignore", ".gitkeep", ".keep"};

struct NamedConfig {
    std::string_view name;  // a file's name, at any depth
    std::string_view why;
};

// Sorted by name (byte order: the upper-case names first). Each entry: which tool reads it before
// or without the project's own code, and what it can make that tool run.
constexpr NamedConfig kConfigNames[] = {
    {"AGENT.md",
     "an agent's instructions (Amp's, Zed's): read at the start of the next session in this "
     "directory"},
    {"AGENTS.md",
     "an agent's instructions: read at the start of the next session in this directory"},
    {"AGENTS.override.md",
     "an agent's instructions: read at the start of the next session in this directory"},
    {"CLAUDE.local.md",
     "Claude Code's instructions: read at the start of the next session in this directory"},
    {"CLAUDE.md",
     "Claude Code's instructions: read at the start of the next session in this directory"},
    {"CRUSH.md", "Crush's instructions: read at the start of the next session in this directory"},
    {"Directory.Build.props",
     "MSBuild imports it into every project below it, before the project's own file"},
    {"Directory.Build.rsp",
     "MSBuild reads its command-line switches from it (loggers: any assembly)"},
    {"Directory.Build.targets", "MSBuild imports it into every project below it"},
    {"GEMINI.md",
     "Gemini CLI's instructions: read at the start of the next session in this directory"},
    {"HERMES.md", "Hermes's instructions: read into the next session's prompt in this directory"},
    {"Jenkinsfile",
     "a CI service's pipeline: what it runs, with the repository's secrets, after the next push"},
    {"NuGet.Config", "NuGet's configuration: where dotnet restore downloads packages from"},
    {"QWEN.md",
     "Qwen Code's instructions: read at the start of the next session in this directory"},
    {"SOUL.md", "OpenClaw's instructions: read at the start of the next session"},
    {"WARP.md",
     "Warp's agent instructions: read at the start of the next session in this directory"},
    {"appveyor.yml",
     "a CI service's pipeline: what it runs, with the repository's secrets, after the next push"},
    {"azure-pipelines.yaml",
     "a CI service's pipeline: what it runs, with the repository's secrets, after the next push"},
    {"azure-pipelines.yml",
     "a CI service's pipeline: what it runs, with the repository's secrets, after the next push"},
    {"bitbucket-pipelines.yml",
     "a CI service's pipeline: what it runs, with the repository's secrets, after the next push"},
    {"bunfig.toml",
     "bun's configuration: scripts it preloads into every bun run, where it installs from"},
    {"crush.json",
     "Crush's project configuration: the MCP servers and language servers it starts in this "
     "directory"},
    {"deno.json",
     "Deno's configuration: the permissions deno run, test and task grant, and the import map "
     "choosing "
     "what code each import loads"},
    {"deno.jsonc",
     "Deno's configuration: the permissions deno run, test and task grant, and the import map "
     "choosing "
     "what code each import loads"},
    {"devbox.json",
     "devbox's environment: packages and the init hook its shell and direnv run on entering the "
     "directory"},
    {"devenv.local.nix",
     "devenv's environment: what direnv's use devenv evaluates and runs on entering the directory"},
    {"devenv.nix",
     "devenv's environment: what direnv's use devenv evaluates and runs on entering the directory"},
    {"devenv.yaml",
     "devenv's inputs: where the environment direnv loads on entering the directory comes from"},
    {"flake.nix",
     "a Nix flake: direnv's use flake evaluates it and runs its shell hook on entering the "
     "directory"},
    {"global.json",
     "the .NET SDK's selection: which SDK (by version or path) every dotnet command runs"},
    {"gradle-daemon-jvm.properties",
     "Gradle's daemon JVM criteria: which JVM the build runs on, and may download"},
    {"gradle.properties",
     "Gradle's settings (org.gradle.jvmargs: a Java agent in the daemon), read before any build "
     "script"},
    {"mypy.ini",
     "mypy's configuration: plugins (by module or file path) it imports whenever it runs, as "
     "editors do on save"},
    {"nuget.config", "NuGet's configuration: where dotnet restore downloads packages from"},
    {"opencode.json",
     "OpenCode's project configuration: the MCP servers, plugins and commands it runs in this "
     "directory"},
    {"opencode.jsonc",
     "OpenCode's project configuration: the MCP servers, plugins and commands it runs in this "
     "directory"},
    {"pdm.toml", "PDM's project configuration: package indexes, which interpreter it runs"},
    {"pip.conf", "pip's configuration inside a virtual environment: where it installs from"},
    {"pip.ini", "pip's configuration inside a virtual environment: where it installs from"},
    {"pnpm-workspace.yaml", "pnpm's settings (registries, which packages may run install scripts)"},
    {"poetry.toml", "Poetry's project configuration: package sources, where its environment is"},
    {"pylintrc",
     "pylint's configuration: its init-hook is Python run, and its plugins imported, whenever it "
     "runs"},
    {"pyvenv.cfg", "a virtual environment's configuration: which interpreter (home =) it runs"},
    {"rust-toolchain",
     "rustup's toolchain file: which toolchain (by name or path) every cargo and rustc runs"},
    {"rust-toolchain.toml",
     "rustup's toolchain file: which toolchain (by name or path) every cargo and rustc runs"},
    {"shell.nix",
     "a Nix shell: direnv's use nix evaluates it and runs its shell hook on entering the "
     "directory"},
    {"uv.toml", "uv's configuration: package indexes, which Python it runs and downloads"},
};

constexpr bool sorted_names() {
    for (std::size_t i = 1; i < std::size(kConfigNames); ++i)
        if (!(kConfigNames[i - 1].name < kConfigNames[i].name)) return false;
    return true;
}
static_assert(sorted_names(), "kConfigNames must be sorted by name for the binary search");

// Names that, with any configuration file's extension (config_extension), are the configuration of
// a hook manager, or configuration as code that a tool loads whenever it runs: from a git hook
// (lint-staged running eslint --fix and prettier on commit) and from the editor's extension on
// opening or saving a file.
constexpr NamedConfig kConfigPrefixes[] = {
    {"commitlint.config.", "commitlint's configuration, loaded as code by the commit-msg hook"},
    {"eslint.config.",
     "ESLint's configuration, loaded as code by the editor's ESLint and by commit hooks"},
    {"husky.config.", "husky's configuration (v4): the commands git's hooks run"},
    {"lefthook-local.", "lefthook's configuration: the commands git's hooks run"},
    {"lefthook.", "lefthook's configuration: the commands git's hooks run"},
    {"lint-staged.config.", "lint-staged's configuration, loaded as code by the pre-commit hook"},
    {"prettier.config.",
     "Prettier's configuration, loaded as code by the editor's Prettier and by commit hooks"},
    {"simple-git-hooks.", "simple-git-hooks' configuration: the commands git's hooks run"},
    {"stylelint.config.",
     "Stylelint's configuration, loaded as code by the editor's Stylelint and by commit hooks"},
};

// Endings of names a tool reads as configuration whatever comes before: a workspace file an
// editor opens (its settings, tasks run on opening, language servers it starts), and Bazel's
// rc files, which a .bazelrc imports by name (try-import %workspace%/user.bazelrc).
constexpr NamedConfig kConfigSuffixes[] = {
    {".bazelrc",
     "Bazel's options file, imported by .bazelrc: flags for every bazel command (--run_under, "
     "tools)"},
    {".code-workspace",
     "a VS Code workspace: its settings, tasks run on opening it, extensions' configuration"},
    {".sublime-project",
     "a Sublime Text project: its settings, language servers and build systems it starts"},
};

constexpr NamedConfig kWrappers[] = {
    {"gradlew", "Gradle's wrapper: the program ./gradlew runs"},
    {"gradlew.bat", "Gradle's wrapper: the program gradlew runs"},
    {"mvnw", "Maven's wrapper: the program ./mvnw runs"},
    {"mvnw.cmd", "Maven's wrapper: the program mvnw runs"},
};

// A virtual environment's activation scripts (in its bin/, or Scripts/ on Windows): sourced into
// the user's own shell.
constexpr std::string_view kActivation[] = {"Activate.ps1", "activate",        "activate.bat",
                                            "activate.csh", "activate.fish",   "activate.nu",
                                            "activate.ps1", "activate_this.py"};

constexpr std::string_view kPythonStartupWhy =
    "a Python start-up hook: Python imports or obeys it before any program's own code";

std::string_view last_component(std::string_view rel) {
    auto slash = rel.rfind('/');
    return slash == std::string_view::npos ? rel : rel.substr(slash + 1);
}

// What follows a configuration file's name: a format tools read their configuration in, data
// (json, yaml, toml) or code (JavaScript and TypeScript, which the tool loads and runs).
bool config_extension(std::string_view ext) {
    constexpr std::string_view kExtensions[] = {"cjs", "cts", "js",   "json", "json5", "jsonc",
                                                "mjs", "mts", "toml", "ts",   "yaml",  "yml"};
    return std::find(std::begin(kExtensions), std::end(kExtensions), ext) != std::end(kExtensions);
}

// The name of the directory `rel` lies in ("" at the top).
std::string_view parent_name(std::string_view rel) {
    auto slash = rel.rfind('/');
    if (slash == std::string_view::npos) return {};
    return last_component(rel.substr(0, slash));
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
            bool ordinary = e == rel.size() &&
                            std::find(std::begin(kOrdinaryDotFiles), std::end(kOrdinaryDotFiles),
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
    constexpr std::string_view kInstructions[] = {
        "agent.md", "agents.md", "agents.override.md", "claude.local.md", "claude.md",
        "crush.md", "gemini.md", "hermes.md",          "qwen.md",         "soul.md",
        "warp.md"};
    if (name.size() > 20) return false;
    std::string lower(name);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return std::find(std::begin(kInstructions), std::end(kInstructions), lower) !=
           std::end(kInstructions);
}

}  // namespace

std::optional<HoldReason> hold_reason(std::string_view rel) {
    if (rel.empty()) return std::nullopt;
    std::string_view dot;
    if (has_dot_component(rel, dot)) return HoldReason{"dot-file", kDotWhy};
    const std::string_view name = last_component(rel);
    if (const NamedConfig* c = find_name(name)) return HoldReason{"tool-config", c->why};
    if (is_instruction_file(name))
        return HoldReason{"tool-config",
                          "an agent's instructions (agents match their names in any case): read "
                          "into the next session's prompt in this directory"};
    for (const auto& p : kConfigPrefixes)
        if (name.starts_with(p.name) && config_extension(name.substr(p.name.size())))
            return HoldReason{"tool-config", p.why};
    for (const auto& p : kConfigSuffixes)
        if (name.ends_with(p.name) && name.size() > p.name.size())
            return HoldReason{"tool-config", p.why};
    for (const auto& w : kWrappers)
        if (name == w.name) return HoldReason{"wrapper", w.why};
    const std::string_view parent = parent_name(rel);
    // gradle/wrapper/: the launcher jar ./gradlew runs and the URL it downloads Gradle from.
    if (rel == "gradle/wrapper" || rel.starts_with("gradle/wrapper/") ||
        rel.find("/gradle/wrapper/") != std::string_view::npos || rel.ends_with("/gradle/wrapper"))
        return HoldReason{
            "wrapper",
            "Gradle's wrapper: the launcher ./gradlew runs and where it downloads Gradle from"};
    // Bazelisk runs the workspace's tools/bazel in place of bazel itself.
    if (name == "bazel" && parent == "tools")
        return HoldReason{
            "wrapper",
            "Bazel's wrapper: bazelisk runs tools/bazel in place of bazel on every bazel command"};
    // mise: mise.toml, mise.local.toml and mise.<env>.toml (MISE_ENV), and below a mise/
    // directory its config.toml and conf.d/.
    if ((name.starts_with("mise.") && name.ends_with(".toml")) ||
        (parent == "mise" && name.starts_with("config") && name.ends_with(".toml")) ||
        (parent == "conf.d" && name.ends_with(".toml") &&
         rel.find("mise/conf.d/") != std::string_view::npos))
        return HoldReason{
            "tool-config",
            "mise's configuration: environment, hooks and tools it runs on entering the directory"};
    if ((parent == "bin" || parent == "Scripts") &&
        std::find(std::begin(kActivation), std::end(kActivation), name) != std::end(kActivation))
        return HoldReason{
            "tool-config",
            "a virtual environment's activation script: sourced into the user's own shell"};
    if (name == "sitecustomize.py" || name == "usercustomize.py" ||
        (name.size() > 4 && name.ends_with(".pth")))
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
    if (mod.empty() || !(std::isalpha(static_cast<unsigned char>(mod[0])) || mod[0] == '_'))
        return {};
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

std::optional<HoldReason> shadow_reason(std::string_view name, bool package_dir,
                                        std::string_view path_env) {
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
            return HoldReason{
                "shadow",
                "a Python module new beside the repository's root, named as a program on PATH: "
                "Python imports it first when that program runs with the repository as its working "
                "directory (python -m, a git hook or filter)"};
    if (python_finds(python_dirs(path_dirs), mod))
        return HoldReason{
            "shadow",
            "a Python module new beside the repository's root, named as one Python finds elsewhere "
            "(its standard library, installed packages): Python imports this one first when a "
            "program "
            "runs with the repository as its working directory"};
    return std::nullopt;
}

}  // namespace toolcage::cage
