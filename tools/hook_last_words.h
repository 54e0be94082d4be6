// `toolcage hook` never ends without an answer: once armed, an uncaught exception
// (std::terminate), a fatal signal or a termination request writes a block answer and exits 2.
#pragma once

namespace toolcage::cli {

// Call first thing in a `toolcage hook` process. Also ignores SIGPIPE, so that an agent that
// closed its end makes write() fail (exit 2) instead of killing the hook silently.
void arm_hook_last_words();

}  // namespace toolcage::cli
