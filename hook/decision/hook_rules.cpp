#include "hook/decision/hook_rules.h"

#include <algorithm>

#include "common/hermes_channels.h"

namespace toolcage::hook {

namespace {

constexpr const char* kProtects = "it protects toolcage itself or the agent's configuration";
constexpr const char* kStructural = "it says what the call is, not how risky it is";
constexpr const char* kFailure = "it is how the hook fails closed";
constexpr const char* kCage = "what it guards follows the cage's rules (cage.protected_paths, the workspace)";

std::vector<HookRule> make_rules() {
    std::vector<HookRule> r = {
        {"file.git-config", "ask", "a file-tool write to a config file the repository's git config includes",
         "git reads it and it can name programs to run", kCage},
        {"file.git-dir", "deny or ask", "a file-tool write inside a repository's .git (hooks, config) or to a .git file",
         "hooks and config run code later, outside any cage", kCage},
        {"file.git-hooks", "ask", "a file-tool write into the hooks directory git uses (core.hooksPath too)",
         "git runs them at the next commit, merge or checkout", kCage},
        {"file.link-escape", "deny", "a file-tool write through a symlink in the workspace that leads out of it",
         "the agent resolves the link, and a link may be swapped between the hook and the write", kCage},
        {"file.outside-workspace", "deny", "a file-tool write outside the workspace and the temp directory",
         "only the workspace is the agent's to change", kCage},
        {"file.policy-refuses-writes", "deny", "a file-tool write under a policy that refuses caged changes (strict)",
         "the policy says so", "the policy's cage settings decide it"},
        {"file.protected-path", "ask", "a file-tool write to a path of cage.protected_paths (.mcp.json, .claude/, .vscode/, .envrc…)",
         "such files are run or loaded by other programs later", "cage.protected_paths lists its paths"},
        {"file.read", "allow", "a file-tool read of no credentials", "reading is what the tool does", kStructural},
        {"file.temp", "ask", "a file-tool write in a temp directory",
         "a file there may be one another program loads (a shell snapshot, a virtualenv's .pth)", kCage},
        {"file.unknown-target", "deny", "a file-tool call with no file, an empty or an invalid name",
         "what it writes cannot be known", kFailure},
        {"file.unresolvable", "deny", "a file-tool path that cannot be resolved (a link loop, too many links, a refused lookup)",
         "the file the agent would touch cannot be known", kFailure},
        {"file.workspace", "allow", "a file-tool write inside the workspace", "the workspace is the agent's to change", kStructural},
        {"file.workspace-root", "deny", "a file-tool write to the workspace directory itself",
         "it would replace the workspace", kCage},
        {"git.config-runs-code", "cage (allowed commands: the read-only cage)",
         "a read-only git command whose repository config names a program to run or another way to a remote",
         "the repository, which may be a stranger's, decides what git runs", "the repository's config decides it"},
        {"hook.error", "deny", "a call the hook could not judge (bad payload, unreadable policy, deadline, crash)",
         "toolcage fails closed", kFailure},
        {"hook.no-workspace", "ask (deny where no directory may be a workspace)",
         "a command to cage in a directory that is not in a project, or a rewrite naming a workspace toolcage does not choose",
         "there is no workspace to run it in: a person may approve a directory of the home as one", kCage},
        {"hook.nul-byte", "deny", "a command holding a NUL byte", "bash cannot run it as written", kFailure},
        {"hook.own-rewrite", "allow", "toolcage's own rewrite, exactly as the hook writes it",
         "it runs in the cage the hook chose", kStructural},
        {"hook.toolcage-call", "cage", "a command that calls toolcage itself",
         "it runs inside the cage, with the policy this hook chose", kProtects},
        {"python.not-read-only", "ask", "Hermes's execute_code whose code is not provably read-only",
         "it runs outside any cage", "the code decides it"},
        {"python.read-only", "allow", "Hermes's execute_code whose code only computes and prints",
         "two readings of the code (toolcage's and python3's own) agree it is pure", "the code decides it"},
        {"self.protected", "deny", "a write to toolcage's files, its policies, its state or the agent settings that install it",
         "an agent that changed them would decide its own calls", kProtects},
        {"tool.allowed", "allow", "a Hermes tool on the policy's hermes.allow_tools", "the policy lists it",
         "hermes.allow_tools decides it"},
        {"tool.beyond-cage", "ask", "a tool that acts where no cage reaches (cronjob scripts, browser_exec, setup_mcp…)",
         "a person decides", kStructural},
        {"tool.inert", "allow", "a call that neither runs code nor writes", "nothing to judge", kStructural},
        {"tool.other", "ask, or the policy's", "a tool toolcage does not inspect", "toolcage cannot judge it",
         "hermes.other_tools decides it"},
        {"workspace.new-project", "cage", "a command that starts a project in a work root (git clone URL DIR, mkdir DIR, npm create…)",
         "it runs in the cage with the new, empty directory as its only writable place", kCage},
        {"tool.unknown-field", "deny", "a field of a judged tool toolcage does not know (a newer agent's option)",
         "the call may do what toolcage cannot see", kFailure},
    };
    // Hermes's channels into later sessions' prompts: one rule each, its setting the policy's.
    for (const auto& c : kHermesChannels)
        r.push_back({std::string(c.rule), "ask, or the policy's",
                     "a Hermes write to " + std::string(c.what),
                     "a hijacked model's words would reach every later session",
                     "hermes." + std::string(c.key) + " decides it"});
    std::sort(r.begin(), r.end(), [](const HookRule& a, const HookRule& b) { return a.id < b.id; });
    return r;
}

}  // namespace

const std::vector<HookRule>& hook_rules() {
    static const std::vector<HookRule> rules = make_rules();
    return rules;
}

const HookRule* find_hook_rule(std::string_view id) {
    for (const auto& r : hook_rules())
        if (r.id == id) return &r;
    return nullptr;
}

bool is_fixed_classifier_rule(std::string_view id) { return id == "input.too-complex"; }

}  // namespace toolcage::hook
