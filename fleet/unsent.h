// Events that did not reach the collector: kept beside the log they came from (<log>.unsent,
// one OCSF event a line) until a later call reaches it, so `toolcage log` can say so.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace toolcage::fleet {

// Beyond this many bytes the newest events are not kept (the local log still holds them all:
// `toolcage log --format ocsf --since …` rebuilds them).
constexpr std::size_t kMaxUnsentBytes = 16 * 1024 * 1024;

std::string unsent_path(const std::string& log_path);

// Appends the events (without newlines); returns how many were kept.
std::size_t keep_unsent(const std::string& path, const std::vector<std::string>& events);

// The events waiting in `path`, taken out of it (the file is left empty), or none when
// another process is taking them right now.
std::vector<std::string> take_unsent(const std::string& path);

// How many events wait in `path` (0 when there is no such file).
std::size_t count_unsent(const std::string& path);

}  // namespace toolcage::fleet
