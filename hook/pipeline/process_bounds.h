// What `toolcage hook` allows itself, whatever it is handed: an answer within kDeadline of
// starting and at most kAddressSpace bytes of memory. Past either, the call is refused.
#pragma once

#include <chrono>
#include <cstddef>

#include "common/sanitizers.h"

namespace toolcage::hook {

// Every agent waits longer than this (Claude Code: the 10 s `toolcage install claude` writes;
// Hermes's plugin and shell hook: 10 s; OpenClaw's plugin: 15 s), so the hook's own refusal
// arrives before the agent gives up and decides for itself. An ordinary call takes a few
// milliseconds; builds with sanitizers run several times slower and get more.
inline constexpr std::chrono::milliseconds kDeadline{kAddressSanitizer ? 8000 : 2000};
inline constexpr const char* kDeadlineText = kAddressSanitizer ? "8 s" : "2 s";

// A payload is at most 16 MiB and its parsed form a few times that; an analysis that needs more
// is one the hook's own bounds missed. Not set under AddressSanitizer, which reserves terabytes
// of address space for its shadow memory.
inline constexpr std::size_t kAddressSpace = std::size_t{1} << 30;
inline constexpr const char* kAddressSpaceText = "1 GiB";

}  // namespace toolcage::hook
