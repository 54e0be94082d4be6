// Where toolcage keeps its own files (state, journal, decision log, the user's policies): found
// from the user database (getpwuid), never from $HOME or $XDG_*, which the agent's shell sets.
#pragma once

#include <string>
#include <vector>

namespace toolcage {

// The home directory of the real user id, as the user database has it; "" when it is not an
// absolute path. Read once per process.
const std::string& user_home();

// <user_home>/.local/state/toolcage: the journal, the decision log, the relay's log; the
// test suite's state directory instead while one is in effect (test_state_dir).
std::string primary_state_dir();
// /tmp/toolcage-state-<uid>: the same, for users whose home cannot hold it (system users,
// read-only homes); accepted only as a private directory of ours (private_dir_problem).
// <test_state_dir>/fallback while a test suite's state directory is in effect.
std::string fallback_state_dir();
// <user_home>/.local/state/toolcage whatever is in effect: kept from every step.
std::string home_state_dir();
// $TOOLCAGE_STATE_DIR when it names a test suite's state directory (see user_home.cpp for the
// conditions and why they are enough), else "". Read once per process.
const std::string& test_state_dir();
// Why $TOOLCAGE_STATE_DIR is set and ignored, or "" (unset, or in effect).
std::string refused_state_variable();
// The state directory in use: the primary one when it exists or can be made (0700), else the
// fallback, made 0700 if missing. "" when neither can be used. With `make` false nothing is
// made: the first of the two that exists and checks out, else "".
std::string state_dir(bool make = true);
// <user_home>/.config/toolcage/profiles: the user's own policies (<test_state_dir>/profiles while
// a test suite's state directory is in effect).
std::string user_policy_dir();

// Where toolcage's state goes, in order of preference: primary_state_dir, fallback_state_dir.
std::vector<std::string> state_dir_candidates();
// Every directory of toolcage's own that no step may be granted (checked when a policy loads
// and when a workspace is chosen): both state directories, and the user's own two while a test
// suite's state directory is in effect.
std::vector<std::string> private_state_dirs();

// Why `dir` cannot be trusted as a directory only toolcage writes, or "" when it can: every
// component from / down must be a real directory (no symlink), owned by root or the user, and
// writable by no one else unless it is a root-owned sticky directory (/tmp); `dir` itself must
// be the user's, with no group or other permission bits. In a user namespace that does not map
// the host's root, root's directories show as the overflow uid and count as root's. The answer
// names the path and the check.
std::string private_dir_problem(const std::string& dir);

// mkdir -p, 0700 for what it makes; "" or the failing call as written.
std::string make_private_dirs(const std::string& dir);

// `path` (absolute, lexically normal: no "." or ".." component, no "//") lies strictly under `dir`.
bool lies_under(const std::string& path, const std::string& dir);

}  // namespace toolcage
