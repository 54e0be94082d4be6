// The decision log, shared by the hook (a line per decision) and the cage (a line per tamper
// event): where it is, and appending to it so that concurrent writers never interleave.
#pragma once

#include <string>
#include <vector>

namespace toolcage {

// <state dir>/decisions.jsonl (common/user_home.h: ~/.local/state/toolcage from the user
// database, else /tmp/toolcage-state-<uid>); $TOOLCAGE_LOG instead only when it names a file
// under one of those directories (an agent's shell could otherwise have toolcage append JSON
// to any file of the user's, ~/.bashrc say). Empty when none can be named.
std::string decision_log_path();
// $TOOLCAGE_LOG when it is set and refused: what is wrong with it; else "".
std::string refused_log_variable();

// UTC with milliseconds, e.g. 2026-11-29T21:40:00.123Z.
std::string now_iso8601();

// Appends each line (with its newline) in one write() of its own, creating the directories
// (0700) and the file (0600). Returns "" or what failed: the call as written and the errno text.
// Each batch then goes to the forwarder, if one is set (the fleet's collector), whether or not
// the local write worked.
std::string append_to_decision_log(const std::vector<std::string>& lines);

// Where appended lines also go: set once by the program's main (fleet/forward.h), so that
// this library knows nothing of collectors. Called with the lines and the log's path.
using LogForwarder = void (*)(const std::vector<std::string>& lines, const std::string& log_path);
void set_log_forwarder(LogForwarder forwarder);

}  // namespace toolcage
