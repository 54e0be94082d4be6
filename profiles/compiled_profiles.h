// The shipped profiles, compiled into the binary at build time (profiles/gen): an unmodified
// installed profile loads without parsing JSON (see load_policy in common/policy_loader.h).
#pragma once

#include <span>

#include "common/policy_loader.h"

namespace toolcage {

std::span<const CompiledProfile> compiled_profiles();

}  // namespace toolcage
