// The top-level keys of a YAML file, found by a line scan (no YAML library is at hand): enough
// to know whether `hooks:` is there and whether a block can be appended without changing what
// the rest of the file means. Anything the scan cannot vouch for is reported, never guessed.
#pragma once

#include <string>
#include <vector>

#include "hook/install/text_lines.h"

namespace toolcage::install {

struct TopLevelKey {
    size_t line = 0;            // 0-based index into TextLines::lines
    std::string name;           // unquoted
    std::string value;          // what follows the colon on that line, comment and blanks removed
    bool has_children = false;  // lines below belong to it (indented, or a "- " list)
};

struct TopLevelScan {
    std::vector<TopLevelKey> keys;
    std::string problem;  // not empty: "line N: why this file cannot be edited safely"
};

// Lines whose index is in `skip` (toolcage's own block) are treated as blank.
TopLevelScan scan_top_level(const TextLines& text, size_t skip_begin = 0, size_t skip_end = 0);

}  // namespace toolcage::install
