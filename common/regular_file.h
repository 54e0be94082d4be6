// A small regular file read whole, bounded: opened without blocking (a FIFO named where a
// file is wanted is refused at once, not waited on for a writer), its type checked on the
// opened descriptor, at most `max_bytes` read. Policies and OpenShell policy files are read so.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace toolcage {

struct RegularFile {
    enum class Problem { none, cannot_open, cannot_stat, not_regular, too_large, grew, cannot_read };
    Problem problem = Problem::none;
    int err = 0;             // errno, for cannot_open, cannot_stat and cannot_read
    mode_t mode = 0;         // for not_regular
    std::uintmax_t size = 0; // the size fstat gave
    std::string text;        // the whole file when problem is none
};

// `path` whole, or what kept it from being read. too_large: over `max_bytes` when opened;
// grew: over `max_bytes` by the time it was read.
RegularFile read_regular_file(const std::string& path, std::size_t max_bytes);

// What a file of `mode` is, in words ("a directory", "a FIFO", ...), for a refusal.
const char* file_kind(mode_t mode);

}  // namespace toolcage
