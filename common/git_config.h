// Git's config file syntax, read the way git reads it, and which keys make git run a program
// (or read more config). Shared by the hook (is this read-only git call safe outside the cage?)
// and the cage's after-step check (may this new .git/config stay?).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace toolcage::gitconfig {

struct Entry {
    std::string section;     // lower case
    bool has_sub = false;
    std::string sub;         // as written (case matters)
    std::string name;        // lower case
    std::string value;
    bool has_value = false;  // "name" alone is a boolean true
};

// [section], [section "sub"], legacy [section.sub], name = value with quotes, escapes, comments
// and backslash-newline continuations, a variable on its header's line. Calls `each` per entry;
// false when the text is not config this reader follows.
bool parse(std::string_view text, const std::function<void(const Entry&)>& each);

// The key git would run a program for: core.fsmonitor (unless a boolean), core.pager,
// diff.<x>.textconv, filter.<x>.*, `!` aliases, include.path, ... (a table, and names ending in
// command, cmd, program, helper, editor or hook for keys it does not know).
bool runs_code(const Entry& e);

// What a config file may keep after a caged step, beyond what it held before.
struct InertContext {
    // The step made this git directory itself (git init / clone inside the cage): a new remote's
    // or submodule's URL and the repository's format extensions may stay.
    bool fresh_git_dir = false;
    // A submodule's git directory (.git/modules/<name>) this many path components below the
    // workspace root: its core.worktree may point back into the workspace (git writes it so).
    int module_depth = 0;
};

// The first entry of `text` that is not on the positive list of settings git only stores
// (core.repositoryformatversion/filemode/bare/logallrefupdates/ignorecase/precomposeunicode/
// symlinks, user.*, branch.<b>.remote/merge/rebase, remote.<r>.fetch, submodule.<s>.active,
// a remote's or submodule's url unchanged from `before`, extensions.* unchanged from `before`)
// and not present with the same value in `before` (the file as it was before the step).
// Empty when every entry is inert; "(unreadable config)" when either text cannot be read.
std::string first_non_inert_key(std::string_view text, std::string_view before, const InertContext& ctx);

// "section.name" or "section.<sub>.name".
std::string key_text(const Entry& e);

// The first key in `text` that runs code; empty when none; "(unreadable config)" when `text`
// cannot be read as git config (which counts as running code: fail closed).
std::string first_code_key(std::string_view text);

// True for a key a caged step may take from the user's or the system's config: a positive list
// of settings that name no program, credential, URL or other file (identity, defaults, aliases,
// colours). Everything else stays out of the step's config: credential.*, url.*, http.*,
// include/includeIf, core.sshCommand, gpg.*, signing, paths.
bool is_inert(const Entry& e);

// The entries as git config text that git reads back as the same entries.
std::string format(const std::vector<Entry>& entries);

}  // namespace toolcage::gitconfig
