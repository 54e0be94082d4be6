// A step's id: 16 lowercase hex characters that label the decision that starts a step, the
// step's own log line and its relay's lines, so that the fleet's events of one step join.
#pragma once

#include <string>
#include <string_view>

namespace toolcage {

inline constexpr std::size_t kStepIdLength = 16;

// A fresh id from getrandom(2); throws toolcage::Error when the kernel gives no random bytes.
std::string new_step_id();

// True for exactly 16 characters of 0-9 a-f. An id handed to `toolcage run` comes from the
// agent's shell: it only ever labels log lines, and this is all it may be.
bool is_step_id(std::string_view s);

}  // namespace toolcage
