// Path arithmetic the adapters and the self-protection share: making a path absolute the way
// the agent's tool would, and seeing through symlinks that already exist.
#pragma once

#include <string>
#include <string_view>

namespace toolcage::hook {

// `path` made absolute: a leading ~ or ~/ becomes `home`, ~name/ that user's home from
// /etc/passwd (/~name when it has none: never inside a workspace), a relative path is joined to `base`; then . and .. are folded lexically
// and a trailing slash dropped. Empty stays empty.
std::string absolute_path(const std::string& path, const std::string& base,
                          const std::string& home);

// The home directory of user `name` from the user database; empty when unknown or when the
// name is not one a shell would expand.
std::string user_home(std::string_view name);

// The real location of an absolute path: the deepest ancestor that exists, with its symlinks
// resolved, joined to the part that does not exist yet. Never fails: on any error the input
// comes back unchanged.
std::string real_location(const std::string& abs);

// True when `p` is `dir` or lies below it (both absolute and normalised).
bool path_within(const std::string& p, const std::string& dir);

// The directory of the running binary (/proc/self/exe), or empty.
std::string self_binary_dir();

}  // namespace toolcage::hook
