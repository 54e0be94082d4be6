// `toolcage hook` never ends without an answer: once armed, an uncaught exception
// (std::terminate), a fatal signal (on its own stack, so a stack overflow too), a termination
// request or the hook's deadline writes a refusal in the agent's own format and exits 2.
#pragma once

namespace toolcage::cli {

// Call first thing in a `toolcage hook` process, with main's arguments (their --agent chooses
// the refusal's format). Also bounds the process's memory (hook/pipeline/process_bounds.h) and
// ignores SIGPIPE, so that an agent that closed its end makes write() fail (exit 2) instead of
// killing the hook silently.
void arm_hook_last_words(int argc, char** argv);

// The value of --agent (`--agent X` or `--agent=X`, the last one given) on a `toolcage hook`
// command line, read before CLI11 parses it; nullptr when there is none.
const char* hook_agent_argument(int argc, char** argv);

}  // namespace toolcage::cli
