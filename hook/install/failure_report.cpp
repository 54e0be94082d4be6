#include "hook/install/failure_report.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/regular_file.h"
#include "common/user_home.h"
#include "hook/install/claude_version.h"
#include "hook/install/steps.h"
#include "hook/pipeline/process_bounds.h"

namespace toolcage::install {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxConfig = 4u << 20;

std::optional<json> read_json(const std::string& path) {
    RegularFile f = read_regular_file(path, kMaxConfig);
    if (f.problem != RegularFile::Problem::none) return std::nullopt;
    json doc = json::parse(f.text, nullptr, false);
    if (doc.is_discarded()) return std::nullopt;
    return doc;
}

// toolcage's PreToolUse entries in one Claude Code settings file.
std::vector<json> claude_entries(const json& settings) {
    std::vector<json> out;
    const json* pre = nullptr;
    if (settings.is_object() && settings.contains("hooks") && settings["hooks"].is_object() &&
        settings["hooks"].contains("PreToolUse") && settings["hooks"]["PreToolUse"].is_array())
        pre = &settings["hooks"]["PreToolUse"];
    if (!pre) return out;
    for (const json& group : *pre) {
        if (!group.is_object() || !group.contains("hooks") || !group["hooks"].is_array()) continue;
        for (const json& h : group["hooks"])
            if (h.is_object() && h.contains("command") && h["command"].is_string() &&
                is_toolcage_hook_command(h["command"].get<std::string>(), "claude"))
                out.push_back(h);
    }
    return out;
}

// Claude Code's settings files: the user's, then the project's.
std::vector<std::string> claude_settings_files(const std::string& workdir) {
    std::vector<std::string> files;
    if (!user_home().empty())
        for (const char* f : {"/.claude/settings.json", "/.claude/settings.local.json"})
            files.push_back(user_home() + f);
    if (!workdir.empty())
        for (const char* f : {"/.claude/settings.json", "/.claude/settings.local.json"})
            files.push_back(workdir + f);
    return files;
}

// The Hermes profiles with toolcage's plugin: ~/.hermes, then ~/.hermes/profiles/* by name.
std::vector<std::pair<std::string, json>> hermes_profiles() {
    std::vector<std::pair<std::string, json>> out;
    if (user_home().empty()) return out;
    const std::string root = user_home() + "/.hermes";
    std::vector<std::string> homes{root};
    std::error_code ec;
    std::vector<std::string> named;
    for (const auto& e : std::filesystem::directory_iterator(root + "/profiles", ec))
        if (e.is_directory(ec)) named.push_back(e.path().string());
    std::sort(named.begin(), named.end());
    homes.insert(homes.end(), named.begin(), named.end());
    for (const auto& home : homes) {
        auto config = read_json(home + "/plugins/toolcage/config.json");
        if (config && config->is_object() && config->contains("toolcage")) out.emplace_back(home, *config);
    }
    return out;
}

std::optional<std::string> openclaw_config() {
    if (user_home().empty()) return std::nullopt;
    const std::string file = user_home() + "/.openclaw/openclaw.json";
    auto doc = read_json(file);
    const json::json_pointer at("/plugins/entries/toolcage");
    if (!doc || !doc->is_object() || !doc->contains(at)) return std::nullopt;
    const json& entry = (*doc)[at];
    if (!entry.is_object() || (entry.contains("enabled") && entry["enabled"] != true)) return std::nullopt;
    return file;
}

void report_claude(const std::string& workdir, std::vector<AgentFailureReport>& out) {
    std::optional<DetectedClaude> claude;  // asked once, when a hook is found
    for (const std::string& file : claude_settings_files(workdir)) {
        auto doc = read_json(file);
        if (!doc) continue;
        for (const json& entry : claude_entries(*doc)) {
            if (!claude) claude = detect_claude("");
            AgentFailureReport r{"claude", file, false, ""};
            bool on_failure = entry.contains("onFailure") && entry["onFailure"] == "block";
            if (!on_failure) {
                r.detail = "the hook entry has no \"onFailure\": \"block\", so Claude Code runs a call as sent "
                           "when the hook cannot start, hangs or crashes; run `toolcage install claude` again";
            } else {
                r.blocks = blocks_on_hook_failure(*claude);
                r.detail = hook_failure_report(*claude);
            }
            if (entry.contains("timeout") && entry["timeout"].is_number() &&
                entry["timeout"].get<double>() * 1000 <= static_cast<double>(hook::kDeadline.count()) + 1000)
                r.detail += "; its timeout (" + entry["timeout"].dump() +
                            " s) leaves toolcage's hook too little time to refuse by itself (it answers "
                            "within " + hook::kDeadlineText + "): make it 10";
            out.push_back(std::move(r));
        }
    }
}

void report_hermes(std::vector<AgentFailureReport>& out) {
    for (const auto& [home, config] : hermes_profiles()) {
        std::string timeout = config.contains("timeout_seconds") ? config["timeout_seconds"].dump() : "10";
        out.push_back({"hermes", home + "/plugins/toolcage", true,
                       "toolcage's plugin blocks a call when toolcage cannot start, crashes or gives no "
                       "answer within " + timeout + " s (timeout_seconds in its config.json)"});
    }
}

void report_openclaw(std::vector<AgentFailureReport>& out) {
    if (auto file = openclaw_config())
        out.push_back({"openclaw", *file, true,
                       "toolcage's plugin blocks a call when toolcage cannot start, crashes or gives no "
                       "answer within 15 s (OpenClaw itself has no timeout for it)"});
}

}  // namespace

std::vector<InstalledAgent> installed_agents(const std::string& workdir) {
    std::vector<InstalledAgent> out;
    for (const std::string& file : claude_settings_files(workdir))
        if (auto doc = read_json(file); doc && !claude_entries(*doc).empty()) out.push_back({"claude", file});
    for (const auto& profile : hermes_profiles()) out.push_back({"hermes", profile.first});
    if (auto file = openclaw_config()) out.push_back({"openclaw", *file});
    return out;
}

std::vector<AgentFailureReport> agent_failure_reports(const std::string& workdir) {
    std::vector<AgentFailureReport> out;
    report_claude(workdir, out);
    report_hermes(out);
    report_openclaw(out);
    return out;
}

}  // namespace toolcage::install
