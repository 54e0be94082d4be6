// The policy directive `toolcage install hermes --policy NAME` writes into a profile's SOUL.md,
// in a form the hook reads back (front matter `toolcage: NAME`, else an HTML comment on the
// first line), marked as toolcage's so that uninstall removes exactly that line.
#pragma once

#include <string>

namespace toolcage::install {

struct SoulEdit {
    std::string text;  // equal to the input when nothing needs to change
    std::string what;  // what changed, or why nothing did
};

// Throws Error (naming `file`, the line and the fix) when the front matter is never closed or
// a directive the user wrote already names another policy.
SoulEdit soul_set_policy(const std::string& text, const std::string& policy,
                         const std::string& file);

// Removes the directive toolcage wrote; a directive the user wrote stays.
SoulEdit soul_clear_policy(const std::string& text, const std::string& file);

}  // namespace toolcage::install
