// The hold rule as a class (cage/integrity/hold_rule.h), by the path alone: for each family of
// tools, the files they obey from a project directory before or without the project's own code
// are held, with the part of the class that holds them; the project's own source, build
// definitions, data and build outputs land. The tables say why each family is where it is.
#include <catch2/catch.hpp>
#include <string>

#include "cage/integrity/hold_rule.h"

using toolcage::cage::hold_reason;

namespace {

struct Held {
    const char* path;
    const char* rule;
};

void check_held(const Held& h) {
    INFO(h.path);
    auto r = hold_reason(h.path);
    REQUIRE(r.has_value());
    CHECK(r->rule == std::string(h.rule));
    CHECK_FALSE(r->why.empty());
}

void check_lands(const char* path) {
    INFO(path);
    auto r = hold_reason(path);
    CHECK_FALSE(r.has_value());
    if (r) WARN("held as " << r->rule << ": " << r->why);
}

}  // namespace

TEST_CASE(
    "git hook managers' configuration is held at any depth; the hooks' own scripts land as code",
    "[rule][hooks]") {
    for (const Held& h : std::initializer_list<Held>{
             // pre-commit reads the config from the repository's top on every commit; a hook
             // repository's .pre-commit-hooks.yaml says what its hooks run.
             {".pre-commit-config.yaml", "dot-file"},
             {"svc/.pre-commit-config.yaml", "dot-file"},
             {".pre-commit-hooks.yaml", "dot-file"},
             // husky: .husky/<hook>, run by the stubs core.hooksPath (.husky/_) names; v4's config.
             {".husky/pre-commit", "dot-file"},
             {".husky/_/husky.sh", "dot-file"},
             {".huskyrc", "dot-file"},
             {"husky.config.js", "tool-config"},
             // lefthook: every name and extension it looks for, its local override and scripts dir.
             {"lefthook.yml", "tool-config"},
             {"lefthook.yaml", "tool-config"},
             {"lefthook.json", "tool-config"},
             {"lefthook.jsonc", "tool-config"},
             {"lefthook.toml", "tool-config"},
             {"lefthook-local.yml", "tool-config"},
             {".lefthook.yml", "dot-file"},
             {".lefthook-local.yml", "dot-file"},
             {".lefthook/pre-commit/lint.sh", "dot-file"},
             {".config/lefthook.yml", "dot-file"},
             // overcommit and its plugin directory.
             {".overcommit.yml", "dot-file"},
             {".git-hooks/pre_commit/evil.rb", "dot-file"},
             // simple-git-hooks' own files (its package.json key lands with package.json).
             {"simple-git-hooks.json", "tool-config"},
             {"simple-git-hooks.cjs", "tool-config"},
             {".simple-git-hooks.js", "dot-file"},
             // lint-staged and commitlint, and what lint-staged's commands load as code.
             {"lint-staged.config.mjs", "tool-config"},
             {".lintstagedrc.json", "dot-file"},
             {"commitlint.config.ts", "tool-config"},
             {".commitlintrc.js", "dot-file"},
             {"eslint.config.js", "tool-config"},
             {"web/eslint.config.mjs", "tool-config"},
             {"prettier.config.cjs", "tool-config"},
             {".prettierrc.js", "dot-file"},
             {"stylelint.config.js", "tool-config"},
         })
        check_held(h);
    // A hook that runs the project's own script runs the project's code, as `make` does.
    for (const char* p :
         {"scripts/pre-commit.sh", "tools/lint.py", "hooks.md", "src/lefthook.go", "eslint.config"})
        check_lands(p);
}

TEST_CASE("git attributes route files through the user's own filters: held at any depth",
          "[rule][git]") {
    for (const Held& h : std::initializer_list<Held>{{".gitattributes", "dot-file"},
                                                     {"docs/.gitattributes", "dot-file"},
                                                     {".lfsconfig", "dot-file"},
                                                     {".gitmodules", "dot-file"}})
        check_held(h);
    for (const char* p :
         {".gitignore", "sub/.gitignore", "sub/.gitkeep", "data/.keep", "gitattributes.txt"})
        check_lands(p);
}

TEST_CASE("version managers' files choose which toolchain runs: held", "[rule][versions]") {
    for (const Held& h : std::initializer_list<Held>{
             {".tool-versions", "dot-file"},
             {".nvmrc", "dot-file"},
             {".node-version", "dot-file"},
             {".python-version", "dot-file"},
             {".ruby-version", "dot-file"},
             {".sdkmanrc", "dot-file"},
             {".prototools", "dot-file"},
             {"mise.toml", "tool-config"},
             {"mise.local.toml", "tool-config"},
             {"mise.production.toml", "tool-config"},
             {".mise.toml", "dot-file"},
             {"mise/config.toml", "tool-config"},
             {"mise/config.local.toml", "tool-config"},
             {"mise/conf.d/node.toml", "tool-config"},
             {".config/mise/config.toml", "dot-file"},
             {"rust-toolchain", "tool-config"},
             {"rust-toolchain.toml", "tool-config"},
             {"crates/a/rust-toolchain.toml", "tool-config"},
             {"global.json", "tool-config"},
             {".bazelversion", "dot-file"},
         })
        check_held(h);
    for (const char* p : {"mise.md", "docs/mise/guide.md", "conf.d/app.toml", "toolchain.txt"})
        check_lands(p);
}

TEST_CASE("build tools' wrappers and the configuration they read before any build script: held",
          "[rule][build]") {
    for (const Held& h : std::initializer_list<Held>{
             {"gradlew", "wrapper"},
             {"gradlew.bat", "wrapper"},
             {"gradle/wrapper/gradle-wrapper.properties", "wrapper"},
             {"gradle/wrapper/gradle-wrapper.jar", "wrapper"},
             {"sub/gradle/wrapper/gradle-wrapper.properties", "wrapper"},
             {"mvnw", "wrapper"},
             {"mvnw.cmd", "wrapper"},
             {".mvn/wrapper/maven-wrapper.properties", "dot-file"},
             {".mvn/jvm.config", "dot-file"},
             {".mvn/extensions.xml", "dot-file"},
             {"gradle.properties", "tool-config"},
             {"gradle/gradle-daemon-jvm.properties", "tool-config"},
             {".bazelrc", "dot-file"},
             {"user.bazelrc", "tool-config"},
             {"tools/ci.bazelrc", "tool-config"},
             {"tools/bazel", "wrapper"},
             {"Directory.Build.props", "tool-config"},
             {"NuGet.Config", "tool-config"},
         })
        check_held(h);
    // The project's own build definitions: the commands that read them run its code anyway.
    for (const char* p : {"Makefile",
                          "build.gradle",
                          "build.gradle.kts",
                          "settings.gradle.kts",
                          "gradle/libs.versions.toml",
                          "pom.xml",
                          "Cargo.toml",
                          "Cargo.lock",
                          "build.rs",
                          "go.mod",
                          "go.sum",
                          "go.work",
                          "go.work.sum",
                          "BUILD.bazel",
                          "MODULE.bazel",
                          "WORKSPACE",
                          "CMakeLists.txt",
                          "justfile",
                          "Taskfile.yml",
                          "tools/bazel.md",
                          "tools/build.sh",
                          "vite.config.ts",
                          "webpack.config.js",
                          "jest.config.js"})
        check_lands(p);
}

TEST_CASE(
    "package managers' and Python's configuration is held; manifests, lock files and code land",
    "[rule][packages]") {
    for (const Held& h : std::initializer_list<Held>{
             {".npmrc", "dot-file"},
             {".yarnrc", "dot-file"},
             {".yarnrc.yml", "dot-file"},
             {".yarn/releases/yarn-4.js", "dot-file"},
             {".pnpmfile.cjs", "dot-file"},
             {"pnpm-workspace.yaml", "tool-config"},
             {"bunfig.toml", "tool-config"},
             {"deno.json", "tool-config"},
             {"deno.jsonc", "tool-config"},
             {"uv.toml", "tool-config"},
             {"poetry.toml", "tool-config"},
             {"pdm.toml", "tool-config"},
             {".pdm-python", "dot-file"},
             {"venv/pip.conf", "tool-config"},
             {"venv/pyvenv.cfg", "tool-config"},
             {"venv/bin/activate", "tool-config"},
             {"env/bin/activate.fish", "tool-config"},
             {"venv/Scripts/Activate.ps1", "tool-config"},
             {".venv/bin/python", "dot-file"},
             {"venv/lib/python3.11/site-packages/evil.pth", "python-start-up"},
             {"sitecustomize.py", "python-start-up"},
             {"src/usercustomize.py", "python-start-up"},
             {"mypy.ini", "tool-config"},
             {"pylintrc", "tool-config"},
             {".pylintrc", "dot-file"},
             {".bundle/config", "dot-file"},
         })
        check_held(h);
    for (const char* p : {"package.json",
                          "package-lock.json",
                          "yarn.lock",
                          "pnpm-lock.yaml",
                          "bun.lockb",
                          "requirements.txt",
                          "pyproject.toml",
                          "setup.py",
                          "setup.cfg",
                          "tox.ini",
                          "pytest.ini",
                          "conftest.py",
                          "src/app.py",
                          "src/pkg/__init__.py",
                          "venv/bin/pytest",
                          "bin/activate.md",
                          "scripts/activate_env.sh",
                          "Gemfile",
                          "Gemfile.lock",
                          "composer.json",
                          "pixi.toml",
                          "uv.lock",
                          "poetry.lock"})
        check_lands(p);
}

TEST_CASE("what runs on entering the directory (direnv and the environments it loads): held",
          "[rule][direnv]") {
    for (const Held& h : std::initializer_list<Held>{{".envrc", "dot-file"},
                                                     {"svc/.envrc", "dot-file"},
                                                     {".env", "dot-file"},
                                                     {"flake.nix", "tool-config"},
                                                     {"shell.nix", "tool-config"},
                                                     {"devenv.nix", "tool-config"},
                                                     {"devenv.yaml", "tool-config"},
                                                     {"devbox.json", "tool-config"}})
        check_held(h);
    for (const char* p : {"nix/overlay.nix", "pkgs/foo/package.nix", "envrc.example.txt"})
        check_lands(p);
}

TEST_CASE("editors' and agents' settings and instructions are held at any depth",
          "[rule][agents]") {
    for (const Held& h : std::initializer_list<Held>{
             {".vscode/tasks.json", "dot-file"},
             {"apps/web/.vscode/settings.json", "dot-file"},
             {".idea/workspace.xml", "dot-file"},
             {".zed/settings.json", "dot-file"},
             {".cursor/mcp.json", "dot-file"},
             {".cursorrules", "dot-file"},
             {".claude/settings.json", "dot-file"},
             {"pkg/.claude/settings.local.json", "dot-file"},
             {".mcp.json", "dot-file"},
             {".codex/config.toml", "dot-file"},
             {".gemini/settings.json", "dot-file"},
             {".github/copilot-instructions.md", "dot-file"},
             {".devcontainer/devcontainer.json", "dot-file"},
             {"project.code-workspace", "tool-config"},
             {"app.sublime-project", "tool-config"},
             {"AGENTS.md", "tool-config"},
             {"a/b/c/AGENTS.md", "tool-config"},
             {"sub/agents.md", "tool-config"},
             {"AGENT.md", "tool-config"},
             {"CLAUDE.md", "tool-config"},
             {"deep/dir/Claude.md", "tool-config"},
             {"CLAUDE.local.md", "tool-config"},
             {"GEMINI.md", "tool-config"},
             {"QWEN.md", "tool-config"},
             {"WARP.md", "tool-config"},
             {"CRUSH.md", "tool-config"},
             {"opencode.json", "tool-config"},
             {"crush.json", "tool-config"},
             // CI pipelines: what runs with the repository's secrets after the next push.
             {".github/workflows/ci.yml", "dot-file"},
             {".gitlab-ci.yml", "dot-file"},
             {"Jenkinsfile", "tool-config"},
             {"azure-pipelines.yml", "tool-config"},
         })
        check_held(h);
    for (const char* p :
         {"README.md", "docs/agents.md.txt", "notes-agents.md", "CONTRIBUTING.md", "CHANGELOG.md",
          "docs/code-workspace.md", "src/settings.json", "config/settings.yaml"})
        check_lands(p);
}

TEST_CASE("ordinary work lands: source, data, documents, build outputs", "[rule][ordinary]") {
    for (const char* p :
         {"Makefile", "package.json", "src/main.rs", "src/app.py", "src/index.ts", "lib/util.js",
          "README.md", "docs/guide.md", "data/train.csv", "out.txt", "build/app", "dist/bundle.js",
          "target/debug/app", "node_modules/x/index.js", "__pycache__/a.cpython-311.pyc",
          "bin/run.sh", "assets/logo.png", "test/test_app.py", "config.yaml"})
        check_lands(p);
}
