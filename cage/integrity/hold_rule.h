// The hold rule: which of a caged step's changes to the workspace are held for a person to land
// (toolcage land) instead of landing at once. One class, with its reasons, not a list of
// examples: what a tool obeys before or without running the project's own code.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace toolcage::cage {

// Why a path is held: the class it falls in, as one sentence for the step's report.
struct HoldReason {
    std::string_view rule;  // "dot-file", "tool-config", "wrapper", "python-start-up", "shadow"
    std::string_view why;
};

// The class, by a workspace-relative path alone (normalised: no "./", no "//", no trailing '/'):
//
// 1. dot-files and dot-directories at any depth, and everything below a dot-directory: where
//    tools look for their configuration from the directory they run in and its parents
//    (.npmrc, .yarnrc.yml, .pnpmfile.cjs, .cargo/config.toml, .mvn/, .claude/, .vscode/, .envrc,
//    .pre-commit-config.yaml, .husky/, .lefthook.yml, .overcommit.yml, .gitattributes (which
//    routes files through the user's own filters and diff drivers), .tool-versions, .nvmrc,
//    .python-version, .bazelrc, .bazelversion, .venv/). Out of the class: .gitignore, .gitkeep
//    and .keep, which only choose what git tracks.
// 2. tool configuration by name, at any depth: files a tool reads at start-up, from the project,
//    to choose which program it runs, which libraries it loads, where it downloads code from,
//    which commands it runs around the user's own, or what it runs on entering the directory or
//    opening it in an editor: toolchain files, package managers' and build tools' own
//    configuration, hook managers' configuration (lefthook.*, simple-git-hooks.*), configuration
//    as code that editors and commit hooks load (eslint.config.*, prettier.config.*), environments
//    direnv evaluates (flake.nix, shell.nix, devenv.nix), editors' workspace files
//    (*.code-workspace), Bazel's rc files (*.bazelrc), CI pipelines outside a dot-directory, a
//    virtual environment's activation scripts, an agent's instructions and project settings.
// 3. build tools' wrappers: the scripts a person runs by name (./gradlew, ./mvnw), the launcher
//    and download URL they use, and Bazel's tools/bazel, which bazelisk runs in bazel's place.
// 4. Python's start-up hooks: sitecustomize, usercustomize and .pth files, which Python imports
//    or obeys before any program's own code.
//
// Ordinary source, data and build definitions land at once (Makefile, package.json, Cargo.toml,
// build.rs, go.mod, go.work, pom.xml, build.gradle, settings.gradle, setup.py, setup.cfg,
// pyproject.toml, tox.ini, conftest.py, vite.config.ts): a person reviews them as code, and the
// commands that read them run the project's code anyway. Build outputs land too (workspace
// walk: held_changes.h says which directories those are).
std::optional<HoldReason> hold_reason(std::string_view rel);

// The fifth part of the class, which needs the file system: a Python module or package new in a
// repository's top directory whose name is a program on PATH or a module Python finds elsewhere
// (its standard library, installed packages). Python puts the working directory first on its
// path for `python -m` and `-c`: a hook or filter run in the repository imports the new one.
// `name` is the entry's name ("black.py", "black" for a package directory, "black.so");
// `path_env` the PATH whose directories are searched for programs (the supervisor's own).
std::optional<HoldReason> shadow_reason(std::string_view name, bool package_dir,
                                        std::string_view path_env);

// The module name an entry of a top directory would be imported as, or "" when it is none:
// "x.py" and "x.cpython-311-x86_64-linux-gnu.so" name "x"; a package directory names itself.
std::string module_name(std::string_view name, bool package_dir);

}  // namespace toolcage::cage
