#include "hook/decision/new_project.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include "hook/classify/text.h"
#include "hook/shell/ast.h"

namespace toolcage::hook {

namespace {

using Words = std::vector<std::string>;

// A directory name the step may make directly in the work root: one plain component.
bool plain_name(const std::string& d) {
    return !d.empty() && d.size() <= 255 && d != "." && d != ".." && d.find('/') == std::string::npos &&
           d.front() != '-' && d.front() != '.';
}

std::string joined(const Words& w) {
    std::string s;
    for (const auto& x : w) s += (s.empty() ? "" : " ") + classify::detail::shell_quote(x);
    return s;
}

// git clone's options that take the next word as their value (git-clone(1)).
bool git_clone_takes_value(std::string_view o) {
    static constexpr std::array<std::string_view, 17> with_value = {
        "--branch", "--config",   "--depth",          "--filter",   "--jobs",     "--origin",
        "--reference", "--reference-if-able", "--separate-git-dir", "--server-option", "--shallow-exclude",
        "--shallow-since", "--template", "--upload-pack", "-b", "-c", "-o"};
    return std::ranges::find(with_value, o) != with_value.end() || o == "-j" || o == "-u";
}

// git clone [OPTIONS] URL [DIR]: DIR, else the URL's last component without ".git"; the
// clone runs as `git clone [OPTIONS] URL .` in the new directory.
std::optional<NewProject> git_clone(const Words& w) {
    Words opts, pos;
    for (size_t i = 2; i < w.size(); ++i) {
        if (w[i] == "--") {
            pos.insert(pos.end(), w.begin() + static_cast<long>(i) + 1, w.end());
            break;
        }
        if (w[i].starts_with("-") && pos.empty()) {
            opts.push_back(w[i]);
            if (git_clone_takes_value(w[i])) {
                if (++i >= w.size()) return std::nullopt;
                opts.push_back(w[i]);
            }
            continue;
        }
        if (w[i].starts_with("-")) return std::nullopt;  // an option after the URL: not this form
        pos.push_back(w[i]);
    }
    if (pos.empty() || pos.size() > 2) return std::nullopt;
    std::string dir = pos.size() == 2 ? pos[1] : pos[0];
    if (pos.size() == 1) {
        while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
        dir = dir.substr(dir.find_last_of("/:") == std::string::npos ? 0 : dir.find_last_of("/:") + 1);
        if (dir.ends_with(".git")) dir.resize(dir.size() - 4);
    }
    if (!plain_name(dir)) return std::nullopt;
    Words inner = {"git", "clone"};
    inner.insert(inner.end(), opts.begin(), opts.end());
    inner.insert(inner.end(), {"--", pos[0], "."});
    return NewProject{dir, joined(inner)};
}

// mkdir [-p] DIR: the directory is the step's whole work.
std::optional<NewProject> mkdir_dir(const Words& w) {
    Words rest(w.begin() + 1, w.end());
    if (!rest.empty() && rest.front() == "-p") rest.erase(rest.begin());
    if (rest.size() != 1 || !plain_name(rest[0])) return std::nullopt;
    return NewProject{rest[0], ":"};
}

// npm create|init INITIALIZER DIR [-- ARGS]: the initializer writes into ".".
std::optional<NewProject> npm_create(const Words& w) {
    if (w.size() < 4 || w[2].starts_with("-") || !plain_name(w[3])) return std::nullopt;
    for (size_t i = 4; i < w.size(); ++i)
        if (i == 4 && w[i] != "--") return std::nullopt;
    Words inner = {"npm", w[1], w[2], "."};
    inner.insert(inner.end(), w.begin() + 4, w.end());
    return NewProject{w[3], joined(inner)};
}

// cargo new DIR: `cargo init` in the new directory (its name is the package's).
std::optional<NewProject> cargo_new(const Words& w) {
    if (w.size() != 3 || !plain_name(w[2])) return std::nullopt;
    return NewProject{w[2], "cargo init"};
}

// uv init DIR: `uv init` in the new directory.
std::optional<NewProject> uv_init(const Words& w) {
    if (w.size() != 3 || !plain_name(w[2])) return std::nullopt;
    return NewProject{w[2], "uv init"};
}

struct Creator {
    std::string_view program;
    std::string_view subcommand;  // empty: none
    std::optional<NewProject> (*read)(const Words&);
    std::string_view why;
};

// Sorted by program and subcommand.
constexpr std::array<Creator, 6> kCreators = {{
    {"cargo", "new", cargo_new, "a Rust package in a new directory"},
    {"git", "clone", git_clone, "a clone into a new directory"},
    {"mkdir", "", mkdir_dir, "a new directory"},
    {"npm", "create", npm_create, "a package from an initializer, into a new directory"},
    {"npm", "init", npm_create, "the same as npm create"},
    {"uv", "init", uv_init, "a Python project in a new directory"},
}};

}  // namespace

std::optional<NewProject> new_project(const std::string& command) {
    shell::ParseResult parsed = shell::parse(command);
    if (!parsed.ok || parsed.script.items.size() != 1) return std::nullopt;
    const auto& pipelines = parsed.script.items.front().and_or.pipelines;
    if (pipelines.size() != 1 || pipelines.front().commands.size() != 1) return std::nullopt;
    const shell::Command& c = pipelines.front().commands.front();
    if (c.kind != shell::Command::Kind::simple || !c.assignments.empty() || !c.redirects.empty()) return std::nullopt;
    Words w;
    for (const auto& word : c.words) {
        if (!word.known()) return std::nullopt;
        w.push_back(word.literal());
    }
    if (w.empty()) return std::nullopt;
    for (const auto& k : kCreators) {
        if (w[0] != k.program) continue;
        if (!k.subcommand.empty() && (w.size() < 2 || w[1] != k.subcommand)) continue;
        return k.read(w);
    }
    return std::nullopt;
}

}  // namespace toolcage::hook
