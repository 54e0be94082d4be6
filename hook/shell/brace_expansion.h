// Bash brace expansion ({a,b}, {1..3}, {a..c}, {01..10..2}, nested) over a word's parts. Only
// unquoted literal braces and commas count; everything else is carried along whole.
#pragma once

#include <vector>

#include "hook/shell/ast.h"

namespace toolcage::shell::detail {

struct BraceBudget {
    size_t max_words;  // words the expansion may produce
    size_t max_units;  // characters (parts by their size), summed over every produced word
    size_t raw_size;   // each produced word also carries a copy of the word as written
    int max_depth;     // nested brace groups
};

// The words the parts expand to, in bash's order. Throws SyntaxError (with `offset`) when the
// result would exceed the budget.
std::vector<std::vector<WordPart>> expand_braces(const std::vector<WordPart>& parts,
                                                 const BraceBudget& budget, size_t offset);

// True when some unquoted literal part holds a '{' (the cheap test before expand_braces).
bool may_brace_expand(const std::vector<WordPart>& parts);

}  // namespace toolcage::shell::detail
