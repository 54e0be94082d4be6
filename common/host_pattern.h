// Host patterns compared as sets of host names: the relay's allow entries, OpenShell's endpoint
// hosts and the hosts that hold credentials. Used by the OpenShell generator and the lint.
#pragma once

#include <string>
#include <string_view>

#include "common/host_names.h"

namespace toolcage {

// A host pattern is a lowercase host name in which `*` stands for any characters within one
// label and `**` for any characters across labels (OpenShell's endpoint host grammar).

// The relay's entry as a pattern: its `*.suffix` matches hosts any labels deep, so `**.suffix`.
std::string relay_host_pattern(const AllowEntry& entry);

// Whether some host name matches both patterns (`*.github.com` and `api.github.com` do).
bool host_patterns_overlap(std::string_view a, std::string_view b);

// Whether every host that `narrow` matches also matches `wide`. Exact for a literal `narrow`;
// for a wildcard `narrow`, true only when it is plainly so (equal, or `wide` is `**.suffix` and
// `narrow` lies beneath that suffix), so a doubtful case counts as not covered.
bool host_pattern_covers(std::string_view wide, std::string_view narrow);

}  // namespace toolcage
