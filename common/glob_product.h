// Whether two glob patterns match a common string: their automata read side by side. Used for
// OpenShell's host patterns (common/host_pattern) and its path globs (lint/endpoint_shape).
#pragma once

#include <cstddef>
#include <set>
#include <utility>
#include <vector>

namespace toolcage {

// Patterns of `na` and `nb` tokens; `star_a(i)` says token i of the first is a star (which may
// be skipped, or consume a character and stay), `share(i, j)` whether tokens i and j can consume
// one same character. A state is a position in each; the states are finite, so the search ends.
template <class StarA, class StarB, class Share>
bool globs_meet(std::size_t na, std::size_t nb, StarA star_a, StarB star_b, Share share) {
    std::set<std::pair<std::size_t, std::size_t>> seen;
    std::vector<std::pair<std::size_t, std::size_t>> todo = {{0, 0}};
    while (!todo.empty()) {
        auto [i, j] = todo.back();
        todo.pop_back();
        if (!seen.insert({i, j}).second) continue;
        if (i == na && j == nb) return true;
        const bool sa = i < na && star_a(i), sb = j < nb && star_b(j);
        if (sa) todo.push_back({i + 1, j});
        if (sb) todo.push_back({i, j + 1});
        if (i < na && j < nb && share(i, j)) todo.push_back({sa ? i : i + 1, sb ? j : j + 1});
    }
    return false;
}

}  // namespace toolcage
