// Package managers, build tools, compilers and test runners: they run code from the project or
// from packages (install scripts, build.rs, Makefiles), so they are caged. Publishing is refused
// (a published version cannot be taken back); version and listing queries are allowed; `npx`,
// `npm exec` and friends run the named command, which is judged too.
#include <algorithm>

#include "hook/classify/analyzer.h"
#include "hook/classify/program_table.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

namespace {

// Word lists are space-separated, so that the table is constant data.
struct Tool {
    std::string_view name;
    std::string_view read;     // subcommands that only read
    std::string_view publish;  // subcommands that publish (refused)
    std::string_view exec;     // subcommands that run the command after them
    std::string_view rule;     // rule for everything else
};

constexpr auto kTools = sorted_by_name(std::to_array<Tool>({
    {"npm",
     "ls list ll la view info show v outdated search help root prefix bin whoami ping explain why "
     "fund audit version -v --version config doctor query",
     "publish unpublish deprecate", "exec x", "pkg.run"},
    {"yarn", "info list why --version -v version config help outdated audit", "publish npm",
     "dlx exec", "pkg.run"},
    {"pnpm", "ls list why outdated --version -v view info help audit root config", "publish unpublish deprecate",
     "dlx exec", "pkg.run"},
    {"cargo", "--version -V version search help locate-project pkgid verify-project read-manifest",
     "publish yank", "", "build.run"},
    {"pip", "list show freeze check --version -V help debug inspect search index", "", "",
     "pkg.install"},
    {"pipx", "list --version environment", "", "run", "pkg.install"},
    {"uv", "--version version tree help", "publish", "run tool", "pkg.install"},
    {"uvx", "--version", "", "", "pkg.exec"},
    {"poetry", "--version show check env config search about version", "publish", "run",
     "pkg.install"},
    {"pdm", "--version list show info config", "publish", "run", "pkg.install"},
    {"hatch", "--version version status env", "publish", "run", "pkg.install"},
    {"flit", "--version", "publish", "", "pkg.install"},
    {"twine", "--version check", "upload register", "", "pkg.install"},
    {"gem", "list info search env --version -v help specification contents query which",
     "push yank owner", "", "pkg.install"},
    {"bundle", "list show info --version -v version outdated check config", "", "exec",
     "pkg.install"},
    {"composer", "show info --version -V outdated licenses diagnose config validate", "", "exec",
     "pkg.install"},
    {"go", "version env list doc help", "", "", "build.run"},
    {"mvn", "--version -v -version help:effective-pom dependency:tree", "deploy release:perform",
     "", "build.run"},
    {"gradle", "--version -v tasks dependencies projects properties help",
     "publish publishToMavenCentral publishToSonatype publishPlugins uploadArchives", "",
     "build.run"},
    {"dotnet", "--version --info --list-sdks --list-runtimes list", "nuget", "", "build.run"},
    {"mix", "--version help deps", "hex.publish", "", "build.run"},
    {"stack", "--version ls path query", "upload", "exec", "build.run"},
    {"cabal", "--version list info", "upload", "exec", "build.run"},
    {"vsce", "--version ls show", "publish unpublish", "", "pkg.run"},
    {"ovsx", "--version", "publish", "", "pkg.run"},
    {"apt", "list show search policy depends rdepends changelog --version help", "", "",
     "pkg.install"},
    {"apt-get", "--version check changelog --print-uris -s --simulate --dry-run", "", "",
     "pkg.install"},
    {"apt-cache",
     "search show policy depends rdepends showpkg madison pkgnames stats dump --version", "", "",
     "pkg.install"},
    {"dpkg",
     "-l --list -L --listfiles -S --search -s --status --get-selections -p --print-avail "
     "--print-architecture --version -c --contents -I --info",
     "", "", "pkg.install"},
    {"dpkg-query", "-l -L -S -s -W --show --list --version", "", "", "pkg.install"},
    {"rpm", "-q -qa -qi -ql -qf --query --version", "", "", "pkg.install"},
    {"dnf", "list info search repolist provides --version history", "", "", "pkg.install"},
    {"yum", "list info search repolist provides --version history", "", "", "pkg.install"},
    {"zypper", "search se info if lr repos --version", "", "", "pkg.install"},
    {"pacman", "-Q -Qi -Ql -Qs -Ss -Si --query -V --version", "", "", "pkg.install"},
    {"apk", "info search list policy --version", "", "", "pkg.install"},
    {"brew", "list ls info search --version config doctor outdated deps leaves home", "", "",
     "pkg.install"},
    {"snap", "list info find version services", "", "run", "pkg.install"},
    {"flatpak", "list info search --version remotes", "", "run", "pkg.install"},
    {"conda", "list info search --version -V config env", "", "run", "pkg.install"},
    {"mamba", "list info search --version env", "", "run", "pkg.install"},
    {"micromamba", "list info search --version env", "", "run", "pkg.install"},
    {"nix", "--version search show-config eval log path-info why-depends", "", "run shell develop",
     "pkg.install"},
    {"make", "--version -v", "", "", "build.run"},
    {"gmake", "--version -v", "", "", "build.run"},
    {"cmake", "--version --help -E", "", "", "build.run"},
    {"ctest", "--version", "", "", "build.run"},
    {"ninja", "--version -t", "", "", "build.run"},
    {"meson", "--version introspect", "", "", "build.run"},
    {"bazel", "version info query help", "", "", "build.run"},
    {"bazelisk", "version info query help", "", "", "build.run"},
    {"ant", "-version", "", "", "build.run"},
    {"sbt", "--version about", "", "", "build.run"},
    {"rake", "--version -T --tasks", "", "", "build.run"},
    {"gcc", "--version -v -dumpversion -dumpmachine --help", "", "", "build.run"},
    {"g++", "--version -v -dumpversion -dumpmachine --help", "", "", "build.run"},
    {"cc", "--version -v -dumpversion --help", "", "", "build.run"},
    {"c++", "--version -v -dumpversion --help", "", "", "build.run"},
    {"clang", "--version -v --help", "", "", "build.run"},
    {"clang++", "--version -v --help", "", "", "build.run"},
    {"rustc", "--version -V -vV --print", "", "", "build.run"},
    {"rustup", "--version show toolchain target component which", "", "run", "build.run"},
    {"javac", "-version --version", "", "", "build.run"},
    {"java", "-version --version", "", "", "build.run"},
    {"kotlinc", "-version", "", "", "build.run"},
    {"swift", "--version", "", "", "build.run"},
    {"zig", "version env", "", "", "build.run"},
    {"tsc", "--version -v --noEmit", "", "", "build.run"},
    {"esbuild", "--version", "", "", "build.run"},
    {"vite", "--version -v", "", "", "build.run"},
    {"webpack", "--version -v", "", "", "build.run"},
    {"rollup", "--version -v", "", "", "build.run"},
    {"eslint", "--version -v --print-config", "", "", "build.run"},
    {"prettier", "--version --check -c --list-different -l", "", "", "build.run"},
    {"jest", "--version --listTests", "", "", "build.run"},
    {"vitest", "--version", "", "", "build.run"},
    {"mocha", "--version", "", "", "build.run"},
    {"pytest", "--version --collect-only --co", "", "", "build.run"},
    {"py.test", "--version", "", "", "build.run"},
    {"tox", "--version -l --listenvs", "", "", "build.run"},
    {"nox", "--version -l --list", "", "", "build.run"},
    {"ruff", "--version check", "", "", "build.run"},
    {"black", "--version --check", "", "", "build.run"},
    {"mypy", "--version", "", "", "build.run"},
    {"flake8", "--version", "", "", "build.run"},
    {"pylint", "--version", "", "", "build.run"},
    {"phpunit", "--version", "", "", "build.run"},
    {"rspec", "--version", "", "", "build.run"},
    {"nvm", "ls list current version --version which", "", "exec run", "pkg.install"},
    {"pyenv", "versions version --version which", "", "exec", "pkg.install"},
    {"rbenv", "versions version --version which", "", "exec", "pkg.install"},
    {"asdf", "list current --version version which", "", "exec", "pkg.install"},
    {"mise", "list ls current --version version which", "", "exec x", "pkg.install"},
    {"pre-commit", "--version", "", "", "build.run"},
    {"docker-buildx", "version ls", "", "", "build.run"},
}));

const Tool* find_tool(std::string_view name) {
    return find_by_name<Tool>(kTools, name == "pip3" ? "pip" : name);
}

bool listed(std::string_view words, std::string_view s) {
    while (!words.empty()) {
        size_t end = std::min(words.find(' '), words.size());
        if (words.substr(0, end) == s) return true;
        words.remove_prefix(std::min(end + 1, words.size()));
    }
    return false;
}

void run_inner(Analyzer& a, Call& c, size_t from) {
    // Skip the runner's own options (npx -y, --package=x, -p x).
    size_t i = from;
    while (i < c.argc() && is_flag(c.args[i])) {
        const std::string& t = c.arg(i);
        if (t == "--") {
            ++i;
            break;
        }
        if (t == "-p" || t == "--package" || t == "-c" || t == "--call" || t == "--with" ||
            t == "--from")
            ++i;
        ++i;
    }
    if (i >= c.argc()) return;
    Call proto;
    proto.scope = c.scope;
    proto.in = c.in;
    proto.elevated = c.elevated;
    proto.via = c.via + c.name + " ";
    a.exec_argv(std::vector<Value>(c.args.begin() + static_cast<long>(i), c.args.end()), proto);
}

// Makefile text known here (make -f - with a heredoc, --eval, a Makefile written earlier in the
// command): its recipes are shell commands, judged as such; $(shell …) runs when it is read.
// With -n (dry) the recipes only print; $(shell …) still runs.
void makefile_text(Analyzer& a, Call& c, const std::string& text, std::string_view from, bool dry) {
    std::string who = "a recipe of the makefile " + std::string(from);
    size_t b = 0;
    while (b < text.size()) {
        size_t e = text.find('\n', b);
        if (e == std::string::npos) e = text.size();
        std::string line = text.substr(b, e - b);
        b = e + 1;
        std::string recipe;
        if (!line.empty() && line[0] == '\t') {
            recipe = line.substr(1);
        } else {
            size_t colon = line.find(':');
            size_t semi = line.find(';', colon == std::string::npos ? 0 : colon);
            if (colon != std::string::npos && semi != std::string::npos && line.find('=') > colon) recipe = line.substr(semi + 1);
        }
        for (size_t sh = line.find("$(shell "); sh != std::string::npos; sh = line.find("$(shell ", sh + 1)) {
            size_t close = line.find(')', sh);
            if (close != std::string::npos) {
                a.run_string(Value::literal(line.substr(sh + 8, close - sh - 8)), *c.scope, false, Stream(),
                             "$(shell …) in the makefile " + std::string(from));
            }
        }
        while (!recipe.empty() && (recipe[0] == '@' || recipe[0] == '-' || recipe[0] == '+' || recipe[0] == ' ')) {
            recipe.erase(0, 1);
        }
        if (!recipe.empty() && (!dry || recipe.find("$(MAKE)") != std::string::npos)) a.run_string(Value::literal(recipe), *c.scope, false, Stream(), who);
    }
}

void make_inputs(Analyzer& a, Call& c) {
    bool named = false;
    bool dry = std::any_of(c.args.begin(), c.args.end(), [](const Value& v) {
        const std::string& t = v.text;
        return t == "--dry-run" || t == "--just-print" || t == "--recon" ||
               (t.size() > 1 && t[0] == '-' && t[1] != '-' && t.find('n') != std::string::npos &&
                t.find_first_of("fCIoWE") == std::string::npos);
    });
    for (size_t i = 0; i < c.argc(); ++i) {
        const Value& v = c.args[i];
        const std::string& t = v.text;
        Value file = v;
        bool is_file = false;
        if ((t == "-f" || t == "--file" || t == "--makefile") && i + 1 < c.argc()) {
            file = c.args[++i];
            is_file = true;
        } else if (t.rfind("--file=", 0) == 0 || t.rfind("--makefile=", 0) == 0) {
            file.text = t.substr(t.find('=') + 1);
            is_file = true;
        } else if (t.size() > 2 && t.rfind("-f", 0) == 0) {
            file.text = t.substr(2);
            is_file = true;
        } else if (t.rfind("--eval=", 0) == 0 || (t == "-E" && i + 1 < c.argc()) || (t == "--eval" && i + 1 < c.argc())) {
            Value code = t.rfind("--eval=", 0) == 0 ? Value::literal(t.substr(7)) : c.args[++i];
            if (!code.known()) {
                a.hit(Decision::cage, "build.run", "make --eval gets text known only at run time");
                continue;
            }
            makefile_text(a, c, code.text, "given with --eval", dry);
            continue;
        }
        if (!is_file) continue;
        named = true;
        if (file.procsub) {
            a.shell_reads(*file.procsub, *c.scope, "make", c);
            continue;
        }
        if (file.text == "-" || file.text == "/dev/stdin" || file.text == "/dev/fd/0" || file.text == "/proc/self/fd/0") {
            if (c.in.taint >= Taint::filtered) {
                a.shell_reads(c.in, *c.scope, "make -f -", c);
            } else if (c.in.kind == Stream::Kind::literal) {
                makefile_text(a, c, c.in.text, "read from stdin", dry);
            }
            continue;
        }
        if (a.refuse_tainted_script(file, *c.scope, "make -f", false)) continue;
        if (const std::string* text = a.file_text(file, *c.scope)) makefile_text(a, c, *text, file.text, dry);
    }
    if (!named && (!c.scope->file_texts.empty() || !c.scope->tainted_files.empty())) {
        for (const char* f : {"GNUmakefile", "makefile", "Makefile"}) {
            Value file = Value::literal(f);
            if (a.refuse_tainted_script(file, *c.scope, "make", false)) return;
            if (const std::string* text = a.file_text(file, *c.scope)) {
                makefile_text(a, c, *text, f, dry);
                return;
            }
        }
    }
}

// Removing packages with their configuration files: what was changed under /etc goes too.
bool purges_packages(const Call& c, std::string_view sub) {
    auto any = [&](std::initializer_list<std::string_view> words) {
        return std::any_of(c.args.begin(), c.args.end(), [&](const Value& v) {
            return std::find(words.begin(), words.end(), v.text) != words.end();
        });
    };
    if (c.name == "apt" || c.name == "apt-get" || c.name == "aptitude")
        return sub == "purge" || ((sub == "remove" || sub == "autoremove") && any({"--purge"}));
    if (c.name == "dpkg") return any({"--purge", "-P"});
    if (c.name == "snap") return sub == "remove" && any({"--purge"});
    // brew uninstall --zap also deletes the application's data and preferences in the home.
    if (c.name == "brew") return (sub == "uninstall" || sub == "remove" || sub == "rm") && any({"--zap"});
    if (c.name == "pacman")
        return std::any_of(c.args.begin(), c.args.end(), [](const Value& v) {
            const std::string& t = v.text;
            return t.size() > 2 && t[0] == '-' && t[1] == 'R' && t.find('n') != std::string::npos;
        });
    return false;
}

// npm's subcommands that change who may publish or use a package on the registry.
std::string npm_access_change(const Call& c, size_t sub_at) {
    if (sub_at + 1 >= c.argc()) return {};
    const std::string& sub = c.arg(sub_at);
    if (sub != "token" && sub != "owner" && sub != "dist-tag" && sub != "team" && sub != "org" && sub != "access")
        return {};
    const std::string& next = c.arg(sub_at + 1);
    if (sub == "token" && (next == "revoke" || next == "rm" || next == "delete")) return "npm token " + next;
    if (sub == "owner" && (next == "rm" || next == "remove")) return "npm owner " + next;
    if (sub == "dist-tag" && (next == "rm" || next == "remove")) return "npm dist-tag " + next;
    if (sub == "team" && (next == "destroy" || next == "rm")) return "npm team " + next;
    if (sub == "org" && next == "rm") return "npm org rm";
    if (sub == "access" && (next == "revoke" || next == "public" || next == "grant" ||
                            (next == "set" && std::any_of(c.args.begin(), c.args.end(), [](const Value& v) {
                                 return v.text.rfind("status=public", 0) == 0 || v.text.rfind("mfa=none", 0) == 0;
                             })))) {
        return "npm access " + next;
    }
    return {};
}

void tool_program(Analyzer& a, Call& c) {
    if (c.name == "make" || c.name == "gmake") make_inputs(a, c);
    if (c.name == "npx" || c.name == "bunx" || c.name == "uvx" || c.name == "pnpx") {
        a.hit(Decision::cage, "pkg.exec",
              "`" + c.name + "` runs a package's command (downloading it if needed)");
        run_inner(a, c, 0);
        return;
    }
    const Tool* t = find_tool(c.name);
    if (!t) {
        a.hit(Decision::cage, "build.run", "`" + c.name + "` runs project code");
        return;
    }
    // The subcommand: the first operand, or the first word at all for option-style queries.
    size_t sub_at = c.argc();
    for (size_t i = 0; i < c.argc(); ++i) {
        if (listed(t->read, c.arg(i)) && (i == 0 || is_flag(c.args[i]))) {
            sub_at = i;
            break;
        }
        if (!is_flag(c.args[i])) {
            sub_at = i;
            break;
        }
    }
    std::string sub = sub_at < c.argc() ? c.arg(sub_at) : std::string();
    std::string next = sub_at + 1 < c.argc() ? c.arg(sub_at + 1) : std::string();
    bool publish = listed(t->publish, sub) && !(c.name == "dotnet" && sub == "nuget") &&
                   !(c.name == "yarn" && sub == "npm");
    if ((c.name == "dotnet" && sub == "nuget" && next == "push") ||
        (c.name == "yarn" && sub == "npm" && next == "publish")) {
        publish = true;
    }
    // An empty message un-deprecates: the package is as it was before.
    if (publish && (c.name == "npm" || c.name == "pnpm") && sub == "deprecate" && c.argc() > sub_at + 2 &&
        c.args[sub_at + 2].known() && c.arg(sub_at + 2).empty()) {
        publish = false;
    }
    if (purges_packages(c, sub)) {
        a.hit(Decision::deny, "pkg.purge",
              "`" + c.via + c.name + " " + sub + "` removes packages with their configuration files: what was "
              "changed under /etc is lost; `" + c.name + " remove` keeps it");
        return;
    }
    if (c.name == "npm" || c.name == "pnpm") {
        if (std::string what = npm_access_change(c, sub_at); !what.empty()) {
            a.hit(Decision::deny, "publish.access",
                  "`" + what + "` changes who may publish or install a package on the registry, at once; CI and "
                  "other people using it are affected");
            return;
        }
    }
    if (publish && c.name == "cargo" && sub == "yank" &&
        std::any_of(c.args.begin(), c.args.end(), [](const Value& v) { return v.text == "--undo"; })) {
        publish = false;  // yank --undo makes a version available again
    }
    if (publish) {
        a.hit(Decision::deny, "publish.package",
              "`" + c.name + " " + sub +
                  "` publishes, withdraws or deprecates a package on a registry: others see it at once "
                  "and it cannot be taken back");
        return;
    }
    if ((c.name == "npm" || c.name == "pnpm") && sub == "run" && c.argc() > sub_at + 1 &&
        c.arg(sub_at + 1) == "publish") {
        a.hit(Decision::deny, "publish.package",
              "`" + c.name + " run publish` publishes a package");
        return;
    }
    if (!sub.empty() && listed(t->read, sub)) {
        bool fix = std::any_of(c.args.begin(), c.args.end(), [](const Value& v) {
            return v.text == "fix" || v.text == "--fix" || v.text == "set" || v.text == "--write" ||
                   v.text == "-w";
        });
        // `npm config` reads with get/list, changes with set/delete/edit; `npm version` prints
        // the versions bare and bumps (commit and tag) with an argument.
        if ((c.name == "npm" || c.name == "pnpm" || c.name == "yarn") && sub == "config" &&
            !(next.empty() || next == "get" || next == "list" || next == "ls" || is_flag(c.args[sub_at + 1]))) {
            fix = true;
        }
        if (c.name == "npm" && sub == "version" && sub_at == 0 && !is_flag(c.args[0]) &&
            std::any_of(c.args.begin() + 1, c.args.end(), [](const Value& v) { return !is_flag(v); })) {
            fix = true;
        }
        if (!fix) {
            a.hit(Decision::allow, "readonly.version",
                  "`" + c.name + " " + sub + "` only prints information");
            return;
        }
    }
    if (sub.empty() && c.argc() == 0 &&
        (c.name == "go" || c.name == "cargo" || c.name == "npm" || c.name == "pip")) {
        a.hit(Decision::allow, "readonly.version",
              "`" + c.name + "` without arguments prints help");
        return;
    }
    if (!sub.empty() && listed(t->exec, sub)) {
        a.hit(Decision::cage, "pkg.exec", "`" + c.name + " " + sub + "` runs a command");
        run_inner(a, c, sub_at + 1);
        return;
    }
    std::string what =
        t->rule == "build.run" ? "builds or runs project code" : "installs or runs package code";
    a.hit(Decision::cage, t->rule, "`" + c.name + (sub.empty() ? "" : " " + sub) + "` " + what);
}

}  // namespace

namespace {
// Every tool, plus the runners and pip3 (pip).
constexpr auto kBuildPrograms = [] {
    constexpr std::string_view kRunners[] = {"npx", "bunx", "pnpx", "pip3"};
    std::array<ProgramEntry, kTools.size() + std::size(kRunners)> out{};
    size_t i = 0;
    for (const Tool& t : kTools) out[i++] = {t.name, tool_program};
    for (std::string_view r : kRunners) out[i++] = {r, tool_program};
    return sorted_by_name(out);
}();
}  // namespace

std::span<const ProgramEntry> build_programs() {
    return kBuildPrograms;
}

}  // namespace toolcage::classify::detail
