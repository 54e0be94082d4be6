// Which policy a profile gets, in this order: --policy on the command line; a directive in the
// profile's SOUL.md (YAML front matter `toolcage: NAME`, or `<!-- toolcage: NAME -->`);
// toolcage.json beside SOUL.md ({"policy": "NAME"}); the `default` policy.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace toolcage::hook {

struct PolicyChoice {
    std::string policy;  // what to load: a name (or, from --policy only, a file)
    std::string step;    // which step chose it, in words
    std::string source;  // the file that chose it; empty for --policy and the default
    std::string error;   // not empty: the choice is unusable and every call is refused
};

struct SoulDirective {
    std::string value;  // as written, trimmed and unquoted
    std::string form;   // "front matter" or "comment"
};

// The toolcage directive in SOUL.md's text: front matter wins over a comment.
std::optional<SoulDirective> soul_directive(std::string_view text);

// `profile_dir` may be empty (Claude Code has no profile): then only --policy or the default.
// Never throws: a directive that is unreadable or names no policy gives `error`.
PolicyChoice choose_policy(const std::string& cli_policy, const std::string& profile_dir);

// `toolcage policy which`: the chosen policy, the step that chose it and whether it is
// installed. `profile_dir` empty: $HERMES_HOME, else the current directory.
std::string which_policy_report(const std::string& profile_dir);

// The same report, and whether it is one to act on: every call refused (no usable policy), or
// a profile directory that does not exist (a mistyped --profile-dir would otherwise silently
// get `default`). `toolcage policy which` exits non-zero for either.
struct WhichReport {
    std::string text;
    bool refuses_everything = false;
    bool no_profile_dir = false;
};
WhichReport which_policy(const std::string& profile_dir);

}  // namespace toolcage::hook
