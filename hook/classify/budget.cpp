// The classifier's share of the analysis bounds (common/analysis_budget.h): what a command may
// make the analysis walk, build and copy. Past a bound the walk stops by exception: a result
// read from half a command could allow what the other half does.
#include "common/analysis_budget.h"
#include "hook/classify/analyzer.h"

namespace toolcage::classify::detail {

namespace {

// A value costs its text and the Value that carries it (a million empty words are not free).
size_t value_bytes_of(const std::string& text) { return text.size() + sizeof(Value); }
size_t value_bytes(const Value& v) { return value_bytes_of(v.text); }

size_t scope_bytes(const Scope& s) {
    size_t n = sizeof(Scope) + s.cwd.size();
    for (const std::string& d : s.alt_cwds) n += d.size();
    for (const std::string& d : s.dirstack) n += d.size();
    for (const auto& [name, v] : s.vars) n += name.size() + value_bytes(v);
    for (const auto& [name, fn] : s.functions) n += name.size() + sizeof(fn);
    for (const auto& [name, text] : s.aliases) n += name.size() + text.size();
    for (const auto& [name, items] : s.arrays) {
        n += name.size();
        for (const Value& v : items) n += value_bytes(v);
    }
    for (const auto& [name, target] : s.namerefs) n += name.size() + target.size();
    for (const Value& v : s.positional) n += value_bytes(v);
    for (const auto& [file, taint] : s.tainted_files) n += file.size() + sizeof(taint);
    for (const auto& [link, target] : s.links) n += link.size() + target.size();
    for (const auto& [file, text] : s.file_texts) n += file.size() + text.size();
    return n;
}

}  // namespace

void Analyzer::spend_command() {
    if (--budget < 0) {
        budget::exceeded("it runs more than 20000 commands (each loop round and function call "
                         "counts its commands again)");
    }
}

void Analyzer::spend_bytes(size_t n) {
    produced += n;
    if (produced > budget::kMaxProducedBytes) {
        budget::exceeded("the words, values and outputs it works out pass " +
                         std::to_string(budget::kMaxProducedBytes) + " bytes in all");
    }
}

void Analyzer::spend_value(const std::string& text, std::string_view what) {
    if (text.size() > budget::kMaxValueBytes) {
        budget::exceeded(std::string(what) + " would pass " + std::to_string(budget::kMaxValueBytes) +
                         " bytes");
    }
    spend_bytes(value_bytes_of(text));
}

void Analyzer::spend_parse(size_t text_bytes) {
    // A tree takes several times its text; it is kept until the end of the command.
    constexpr size_t kTreeBytesPerTextByte = 8;
    spend_bytes(text_bytes * kTreeBytesPerTextByte);
}

Scope Analyzer::copy_scope(const Scope& s) {
    spend_bytes(scope_bytes(s));
    return s;
}

}  // namespace toolcage::classify::detail
