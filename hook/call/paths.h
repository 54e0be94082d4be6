// Path arithmetic the adapters and the self-protection share: making a path absolute the way
// the agent's tool would, and seeing through symlinks that already exist (common/path_resolver).
#pragma once

#include <string>
#include <string_view>

namespace toolcage::hook {

// `path` made absolute as the agent's tool hands it to the kernel: a leading ~ or ~/ becomes
// `home`, ~name/ that user's home from /etc/passwd (/~name when it has none: never inside a
// workspace), a relative path is joined to `base`. Its . and .. stay: only a walk of the disk
// knows what `link/..` is. Empty stays empty.
std::string joined_path(const std::string& path, const std::string& base, const std::string& home);

// joined_path with . and .. folded lexically and a trailing slash dropped: the path as text,
// for comparing names, not for finding the file they reach.
std::string absolute_path(const std::string& path, const std::string& base,
                          const std::string& home);

// The home directory of user `name` from the user database; empty when unknown or when the
// name is not one a shell would expand.
std::string user_home(std::string_view name);

// The real location of an absolute path as the kernel walks it (PathResolver::trace: each
// symlink followed, `..` taken after it, a dangling link to its target, the part that does not
// exist yet as written). Never fails: a loop or an error gives the input back unchanged; a
// caller that must refuse then uses PathResolver itself.
std::string real_location(const std::string& abs);

// The directory a glob pattern starts from (Claude Code's Glob, OpenClaw's find): `base` joined
// with the pattern's components up to the first that holds a wildcard (* ? [ {); an absolute
// pattern starts from its own. `..` is kept for the caller's resolution.
std::string glob_base(const std::string& base, const std::string& pattern);

// True when `p` is `dir` or lies below it (both absolute and normalised).
bool path_within(const std::string& p, const std::string& dir);

// The directory of the running binary (/proc/self/exe), or empty.
std::string self_binary_dir();

}  // namespace toolcage::hook
