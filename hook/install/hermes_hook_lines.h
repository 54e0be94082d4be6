// toolcage's `pre_tool_call` entry in a Hermes config.yaml, line by line: the lines it is written
// as (a whole `hooks:` key, an event key under the user's `hooks:`, or one more item of the user's
// `pre_tool_call:` list), where it goes in a `hooks:` block the user already has, and an entry a
// person merged by hand from the lines `install hermes` printed, found again to take it out.
// A line scan, not a YAML parser: whatever it cannot vouch for is refused with the reason.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hook/install/text_lines.h"

namespace toolcage::install {

inline constexpr std::string_view kHermesEvent = "pre_tool_call";

// How toolcage's lines stand in the file.
struct HookShape {
    enum class Form {
        hooks_key,  // "hooks:" at the top level, the event and the entry below it
        event_key,  // "pre_tool_call:" under the user's `hooks:`, the entry below it
        list_item,  // "- matcher: …" in the user's `pre_tool_call:` list
    };
    Form form = Form::hooks_key;
    std::size_t indent = 0;  // of the first line
};

// toolcage's entry running `command`, in `shape` (without line endings).
std::vector<std::string> hermes_hook_lines(const std::string& command, HookShape shape = {});
// The shape of toolcage's lines from their first line; nullopt when it is none of them.
std::optional<HookShape> hermes_hook_shape(std::string_view first_line);

// Where toolcage's entry goes in the user's `hooks:` (top-level key at line `hooks_line`, its
// block up to line `end`): before line `at` in `shape`; `replaces` when that line is an empty
// `pre_tool_call:` ([] or null) the lines take the place of. `refused` says why it cannot.
struct HookPlace {
    std::size_t at = 0;
    HookShape shape;
    bool replaces = false;
    std::string what;     // for the change's description
    std::string refused;  // not empty: why toolcage does not merge it line by line
};
HookPlace place_hermes_hook(const TextLines& t, std::size_t hooks_line, std::size_t end);

// The entry a person merged by hand from the printed lines (matcher, command, timeout and
// fail_closed exactly as printed, any path to toolcage) whose `command:` is line `command_line`:
// the file without it, and without the `pre_tool_call:` (and the `hooks:` content) it leaves empty.
struct PrintedEntryRemoval {
    std::optional<TextLines> without;
    std::string refused;  // not empty: why it is not the entry toolcage printed
};
PrintedEntryRemoval remove_printed_hermes_hook(const TextLines& t, std::size_t command_line);

// A YAML scalar as written on one line: quoted ("..." with \" and \\, '...' with ''), or plain.
std::string yaml_unquote(std::string_view v);

}  // namespace toolcage::install
