// The files a Hermes `patch` call in mode "patch" writes, read with Hermes's own V4A grammar
// (tools/patch_parser.py, 0.19.0 to 0.20.3): every Add, Update, Delete and Move operation.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace toolcage::hook {

struct HermesPatch {
    std::vector<std::string> targets;  // every path an operation writes, removes or moves, as written
    std::string error;                 // non-empty: a `***` line toolcage cannot classify (refuse)
};

// Hermes matches each line with re.match(r'\*\*\*\s*Add\s+File:\s*(.+)') and its kin (Update,
// Delete; Move File: SRC -> DST), Python's \s being Unicode whitespace, and strips the path.
// Every line is read, wherever its Begin/End markers put it: a superset of what any of these
// versions applies. A line that starts with `***` and is none of these (nor Begin/End Patch)
// is an error, since another version may read it as an operation.
HermesPatch hermes_patch_targets(std::string_view patch);

}  // namespace toolcage::hook
