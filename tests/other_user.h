// The tests' unprivileged user: the argv that runs a program as nobody (65534), and the built
// programs and policies where that user can reach them (the build tree may sit in a home only
// its owner can enter, as /root is).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace testsupport {

// `setpriv --reuid=65534 --regid=65534 --clear-groups --` to put before a program's argv when
// the tests run as root (under CTest followed by `/usr/bin/env TOOLCAGE_STATE_DIR=<nobody's own
// test state directory>`, in the scratch directory); empty when they do not (only root can switch users: the tests' own
// unprivileged user then stands in for nobody, and a warning says so once).
std::vector<std::string> as_nobody_prefix();
// The same as one string for a shell command line ("" or "setpriv ... -- ").
std::string as_nobody_shell_prefix();
// True when the "as nobody" cases really run as another user (the tests run as root).
bool can_switch_user();
// The uid a case runs with: "as nobody" is 65534 when the tests run as root; otherwise both
// kinds of case run as the tests' own user (a clone in an ordinary user's home).
uid_t case_uid(bool as_nobody);
// In a forked child: becomes the "as nobody" case's user (nothing to do when not root). False
// when setgid/setuid failed.
bool become_case_user(bool as_nobody);
// toolcage's state directory for `uid`, by common/user_home.h's rule: the suite's own
// (suite_state_dir) for the tests' user while it is set, nobody's own in the scratch directory
// for nobody; else ~/.local/state/toolcage of the user
// database's home, else /tmp/toolcage-state-<uid> where that home does not exist.
std::string state_dir_for(uid_t uid);
// The suite's state directory ($TOOLCAGE_STATE_DIR, tests/CMakeLists.txt), or "" when the
// test program runs outside CTest.
std::string suite_state_dir();
// Adds TOOLCAGE_STATE_DIR=<suite_state_dir> to an environment a test builds from scratch for
// toolcage, unless it names one already: the program it runs keeps the user's state alone.
void keep_suite_state(std::vector<std::string>& env);
// The same as a word for `env -i ...` on a shell command line ("" or "TOOLCAGE_STATE_DIR=... "),
// for the case's user: nobody's own directory for a case "as nobody" when the tests run as root.
std::string suite_state_word(bool as_nobody = false);

// `preferred` when every user can reach it (each directory on its way, as far as it exists,
// lets others through), else /tmp: a case "as nobody" cannot enter a build tree in a home only
// its owner can enter (a clone under /root). The caller makes its own directory below.
std::string scratch_parent(const std::string& preferred);

// A copy of the file at `built` in a scratch directory under /tmp that every user can enter
// (made on first use, removed when the test program ends): programs 0755, other files 0644.
// toolcage keeps toolcage-relay and share/toolcage beside it, as installed, so that it finds its
// relay and the shipped policies by name.
std::string reachable(const std::string& built);

}  // namespace testsupport
