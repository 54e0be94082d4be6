// `python3 -c CODE` whose code is provably read-only (hook/decision/python_readonly.h): the
// classifier cages interpreter one-liners; this one needs no writes, so it runs in the
// read-only cage instead, where a planted json.py in the cwd can neither write nor connect.
#pragma once

#include <optional>
#include <string>

#include "common/verdict.h"

namespace toolcage::hook {

// An allow verdict ("python.read-only") when `command` is one simple command `python`,
// `python3` or `python3.N` (a bare name or under /usr/bin), `-c`, a literal CODE and nothing
// else, and CODE is provably read-only; nullopt otherwise.
std::optional<Verdict> read_only_one_liner(const std::string& command);

}  // namespace toolcage::hook
