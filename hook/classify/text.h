// Internal to the classifier: small text helpers (options, quoting, patterns, decoders) that the
// program tables share. Pure functions; nothing here reads the file system.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hook/classify/analyzer.h"

namespace toolcage::classify::detail {

std::string_view basename_of(std::string_view path);
std::string lower(std::string_view s);
bool contains(std::string_view hay, std::string_view needle);
bool icontains(std::string_view hay, std::string_view needle);
bool has_glob_chars(std::string_view s);
// fnmatch(3) with FNM_PATHNAME when `pathname`.
bool glob_match(const std::string& pattern, const std::string& text, bool pathname = false);
// 'text' quoted for a shell, so that re-parsing gives the same word (plain words as they are).
std::string shell_quote(std::string_view s);
// `s` in single quotes whatever it holds, each ' written as '\'' — bash reads it back byte for
// byte (toolcage's own rewrites, which are recognised by regenerating them).
std::string single_quoted(std::string_view s);
// Joins words into shell text: known words quoted, unknown runs kept as kUnknown (unquoted).
std::string join_as_shell(const std::vector<Value>& words, size_t from = 0);
// Joins with spaces, as `eval`, `ssh` and `watch` do.
std::string join_plain(const std::vector<Value>& words, size_t from = 0);
Value join_values(const std::vector<Value>& words, size_t from, std::string_view sep);
std::vector<std::string> split_ws(std::string_view s);

std::optional<std::string> base64_decode(std::string_view s);
std::optional<std::string> hex_decode(std::string_view s);
// printf(1) on known arguments (formats %s %b %d %c %%, backslash escapes).
std::string printf_emulate(std::string_view format, const std::vector<std::string>& args);
std::string echo_escapes(std::string_view s);  // echo -e

// Command-line options of one program, GNU style: short bundles (-rf), long options with
// =value, "--" ending options. Options may follow operands unless `stop_at_operand`.
struct Opts {
    struct Flag {
        std::string name;           // "-r" or "--force"
        const Value* value = nullptr;  // the option's argument, when it takes one
        std::string inline_value;   // "--x=v" / "-ov": the attached text
        bool has_inline = false;
    };
    std::vector<Flag> flags;
    std::vector<size_t> operands;  // indexes into the args
    size_t end = 0;                // with stop_at_operand: index of the first operand
    std::vector<std::string_view> known;  // long options named to parse_opts (never abbreviations)

    // -x, or a long option (an unambiguous prefix of it counts, as getopt_long allows).
    bool has(std::string_view name) const;
    bool has_any(std::initializer_list<std::string_view> names) const;
    // The value of an option taking one ("" when absent).
    std::optional<std::string> value(std::string_view name) const;
    std::vector<std::string> values(std::string_view name) const;
};
Opts parse_opts(const std::vector<Value>& args, size_t from, std::string_view short_with_arg,
                std::initializer_list<std::string_view> long_with_arg, bool stop_at_operand);

// `word` with every `placeholder` ({} of find -exec, xargs -I) replaced by `with`'s text; the
// result carries `with`'s unknown runs and pattern flag.
Value substitute_placeholder(const Value& word, std::string_view placeholder, const Value& with);

// True when v is a known word starting with '-' (and not "-" alone).
bool is_flag(const Value& v);

// True when `w` is one of the space-separated words of `words` (the program tables' lists).
bool word_listed(std::string_view words, std::string_view w);

}  // namespace toolcage::classify::detail
