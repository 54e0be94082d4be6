// Internal to the classifier: name-keyed tables sorted when the program is compiled, so a
// lookup costs a binary search and start-up costs nothing (the hook runs before every tool
// call, and building hash maps of ~500 programs on each start was a fifth of its work).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <string_view>

namespace toolcage::classify::detail {

// `Entry` has a `std::string_view name`. A name listed twice does not compile.
template <class Entry, std::size_t N>
constexpr std::array<Entry, N> sorted_by_name(std::array<Entry, N> t) {
    std::sort(t.begin(), t.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
    for (std::size_t i = 1; i < N; ++i) {
        if (t[i - 1].name == t[i].name) throw "a program table lists the same name twice";
    }
    return t;
}

template <class Entry>
const Entry* find_by_name(std::span<const Entry> table, std::string_view name) {
    auto it = std::lower_bound(table.begin(), table.end(), name,
                               [](const Entry& e, std::string_view n) { return e.name < n; });
    return it != table.end() && it->name == name ? &*it : nullptr;
}

}  // namespace toolcage::classify::detail
