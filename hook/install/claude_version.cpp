#include "hook/install/claude_version.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/regular_file.h"

namespace toolcage::install {

namespace fs = std::filesystem;

namespace {

constexpr int kSinceMajor = 2, kSinceMinor = 1, kSincePatch = 295;
constexpr const char* kPackage = "@anthropic-ai/claude-code";

// npm's bin links to <package>/cli.js or <package>/bin/claude.exe: the nearest package.json
// above it that names Claude Code's package.
std::optional<ProgramVersion> from_package_json(const fs::path& program) {
    fs::path dir = program.parent_path();
    for (int up = 0; up < 4 && !dir.empty() && dir != dir.root_path(); ++up, dir = dir.parent_path()) {
        RegularFile f = read_regular_file((dir / "package.json").string(), 1 << 20);
        if (f.problem != RegularFile::Problem::none) continue;
        nlohmann::json doc = nlohmann::json::parse(f.text, nullptr, false);
        if (!doc.is_object() || doc.value("name", "") != kPackage) continue;
        if (!doc.contains("version") || !doc["version"].is_string()) return std::nullopt;
        return parse_version(doc["version"].get<std::string>());
    }
    return std::nullopt;
}

// The native installer links ~/.local/bin/claude to .../claude/versions/X.Y.Z.
std::optional<ProgramVersion> from_versions_dir(const fs::path& program) {
    if (program.parent_path().filename() != "versions") return std::nullopt;
    return parse_version(program.filename().string());
}

}  // namespace

DetectedClaude detect_claude(const std::string& given) {
    DetectedClaude d;
    if (!given.empty()) {
        d.version = parse_version(given);
        d.source = d.version ? "as given by --claude-version"
                             : "--claude-version " + given + ": not a version (expected X.Y.Z)";
        return d;
    }
    std::string claude = find_on_path("claude");
    if (claude.empty()) {
        d.source = "no `claude` on PATH; pass --claude-version X.Y.Z to say which Claude Code this is for";
        return d;
    }
    std::error_code ec;
    fs::path real = fs::canonical(claude, ec);
    if (!ec) {
        if ((d.version = from_package_json(real))) {
            d.source = "package.json of " + claude;
            return d;
        }
        if ((d.version = from_versions_dir(real))) {
            d.source = "the version " + claude + " links to";
            return d;
        }
    }
    // `claude --version` prints "2.1.332 (Claude Code)".
    if (auto out = run_for_output({claude, "--version"}, 20)) d.version = parse_version(*out);
    d.source = d.version ? "`" + claude + " --version`"
                         : "`" + claude + " --version` did not say; pass --claude-version X.Y.Z";
    return d;
}

bool blocks_on_hook_failure(const DetectedClaude& d) {
    return d.version && d.version->at_least(kSinceMajor, kSinceMinor, kSincePatch);
}

std::string hook_failure_report(const DetectedClaude& d) {
    if (blocks_on_hook_failure(d))
        return "Claude Code " + d.version->text + " (" + d.source +
               "): a hook that cannot start, hangs past its timeout or crashes blocks the call "
               "(onFailure: block)";
    std::string which = d.version ? "Claude Code " + d.version->text + " (" + d.source + ")"
                                  : "Claude Code's version is unknown (" + d.source + ")";
    return which +
           ": before 2.1.295 Claude Code ignores onFailure, so a hook that cannot start, hangs "
           "past its timeout or is killed lets the call run as sent (toolcage's own hook answers "
           "within its deadline and refuses when it crashes); upgrade Claude Code (npm install "
           "-g @anthropic-ai/claude-code@latest, or `claude update`)";
}

}  // namespace toolcage::install
