#include "hook/install/hermes_hook_lines.h"

#include <cstdio>

namespace toolcage::install {

namespace {

// The tools whose calls toolcage decides on: shell commands, Python, and file writes.
constexpr std::string_view kMatcher = "terminal|execute_code|write_file|patch";
constexpr std::string_view kTimeout = "10";
constexpr std::string_view kFailClosed = "true";

std::string yaml_quote(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(c));
            out += buf;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::size_t indent_of(std::string_view l) {
    std::size_t i = 0;
    while (i < l.size() && l[i] == ' ') ++i;
    return i;
}

bool content(std::string_view l) {
    std::string_view t = trim(l);
    return !t.empty() && t[0] != '#';
}

bool item(std::string_view l) {
    std::string_view r = l.substr(indent_of(l));
    return r == "-" || r.starts_with("- ");
}

// A line's `key: value` (after an item's "- "), the value without its comment; nullopt when the
// line is not one.
struct KeyValue {
    std::string key, value;
};
std::optional<KeyValue> key_value(std::string_view l) {
    std::string_view r = trim(l);
    if (r.starts_with("- ")) r = trim(r.substr(2));
    std::size_t colon = std::string_view::npos;
    char quote = 0;
    for (std::size_t i = 0; i < r.size(); ++i) {
        if (quote) {
            if (r[i] == quote) quote = 0;
        } else if (r[i] == '"' || r[i] == '\'') {
            if (i == 0) quote = r[i];
        } else if (r[i] == ':' && (i + 1 == r.size() || r[i + 1] == ' ')) {
            colon = i;
            break;
        } else if (r[i] == '#' && i > 0 && r[i - 1] == ' ') {
            break;
        }
    }
    if (colon == std::string_view::npos) return std::nullopt;
    std::string_view v = trim(r.substr(colon + 1));
    if (!v.empty() && v[0] != '"' && v[0] != '\'')
        for (std::size_t i = 0; i < v.size(); ++i)
            if (v[i] == '#' && (i == 0 || v[i - 1] == ' ')) {
                v = trim(v.substr(0, i));
                break;
            }
    return KeyValue{yaml_unquote(r.substr(0, colon)), std::string(v)};
}

// Why a line under `hooks:` is one a line scan cannot vouch for, or "": every value must be
// whole on its line (no block scalar, no quote or flow collection left open, no continuation),
// with no anchor, alias, tag or tab in the indentation.
std::string line_problem(std::string_view l) {
    std::size_t ind = indent_of(l);
    if (ind < l.size() && l[ind] == '\t') return "a tab in its indentation";
    std::string_view r = trim(l);
    while (r.starts_with("- ")) r = trim(r.substr(2));
    if (r == "-") return "";
    auto kv = key_value(r);
    std::string_view v = kv ? std::string_view(kv->value) : r;
    if (!kv && (r.find(": ") != std::string_view::npos || r.ends_with(":")))
        return "a key toolcage cannot read";
    if (!kv && !l.substr(ind).starts_with("- ")) return "a value continued from the line above";
    if (v.empty()) return "";
    char c = v[0];
    if (c == '|' || c == '>') return "a block scalar (| or >)";
    if (c == '&' || c == '*' || c == '!') return "an anchor, alias or tag";
    if (c == '"' || c == '\'') {
        if (v.size() < 2 || v.back() != c) return "a quoted value that goes on to the next line";
        return "";
    }
    if (c == '[' || c == '{') {
        int depth = 0;
        char quote = 0;
        for (char ch : v) {
            if (quote) {
                if (ch == quote) quote = 0;
            } else if (ch == '"' || ch == '\'') {
                quote = ch;
            } else if (ch == '[' || ch == '{') {
                ++depth;
            } else if (ch == ']' || ch == '}') {
                --depth;
            }
        }
        if (depth != 0 || quote) return "a [flow] or {flow} value that goes on to the next line";
    }
    return "";
}

std::string line_at(std::size_t i, const std::string& why) {
    return "line " + std::to_string(i + 1) + ": " + why;
}

bool empty_value(std::string_view v) {
    return v.empty() || v == "[]" || v == "null" || v == "~" || v == "Null" || v == "NULL";
}

}  // namespace

std::string yaml_unquote(std::string_view v) {
    v = trim(v);
    std::string out;
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') {
        for (std::size_t i = 1; i + 1 < v.size(); ++i) {
            if (v[i] == '\\' && i + 2 < v.size()) ++i;
            out += v[i];
        }
        return out;
    }
    if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') {
        for (std::size_t i = 1; i + 1 < v.size(); ++i) {
            out += v[i];
            if (v[i] == '\'' && v[i + 1] == '\'') ++i;
        }
        return out;
    }
    if (std::size_t hash = v.find(" #"); hash != std::string_view::npos)
        v = trim(v.substr(0, hash));
    return std::string(v);
}

std::vector<std::string> hermes_hook_lines(const std::string& command, HookShape shape) {
    std::vector<std::string> out;
    std::size_t at = shape.indent;
    if (shape.form == HookShape::Form::hooks_key) {
        out.push_back(std::string(at, ' ') + "hooks:");
        at += 2;
    }
    if (shape.form != HookShape::Form::list_item) {
        out.push_back(std::string(at, ' ') + std::string(kHermesEvent) + ":");
        at += 2;
    }
    const std::string key(at + 2, ' ');
    out.push_back(std::string(at, ' ') + "- matcher: " + yaml_quote(kMatcher));
    out.push_back(key + "command: " + yaml_quote(command));
    out.push_back(key + "timeout: " + std::string(kTimeout));
    out.push_back(key + "fail_closed: " + std::string(kFailClosed));
    return out;
}

std::optional<HookShape> hermes_hook_shape(std::string_view first_line) {
    std::string_view l = bare(first_line);
    std::size_t ind = indent_of(l);
    std::string_view r = l.substr(ind);
    if (r == "hooks:") return HookShape{HookShape::Form::hooks_key, ind};
    if (r == std::string(kHermesEvent) + ":") return HookShape{HookShape::Form::event_key, ind};
    if (r.starts_with("- matcher:")) return HookShape{HookShape::Form::list_item, ind};
    return std::nullopt;
}

HookPlace place_hermes_hook(const TextLines& t, std::size_t hooks_line, std::size_t end) {
    HookPlace p;
    std::size_t child = 0, last = hooks_line;
    std::optional<std::size_t> event;
    for (std::size_t i = hooks_line + 1; i < end; ++i) {
        std::string_view l = bare(t.lines[i]);
        if (!content(l)) continue;
        if (std::string why = line_problem(l); !why.empty()) {
            p.refused = line_at(i, why);
            return p;
        }
        std::size_t ind = indent_of(l);
        if (child == 0) {
            child = ind;
            if (child == 0 || item(l)) {
                p.refused = line_at(i, "`hooks:` is a list here, not a mapping of events");
                return p;
            }
        }
        if (ind < child) {
            p.refused = line_at(i, "less indented than the events above it");
            return p;
        }
        if (ind == child && !item(l)) {
            auto kv = key_value(l);
            if (!kv) {
                p.refused = line_at(i, "not an `event:` line");
                return p;
            }
            if (kv->key == kHermesEvent) {
                if (event) {
                    p.refused = line_at(i, "a second `" + std::string(kHermesEvent) + ":`");
                    return p;
                }
                event = i;
            }
        }
        last = i;
    }
    if (child == 0) {  // `hooks:` with only comments below: an empty mapping, as `hooks: {}`
        p.refused = "`hooks:` has no value toolcage can add to";
        return p;
    }
    const std::string event_name(kHermesEvent);
    if (!event) {
        p.at = last + 1;
        p.shape = {HookShape::Form::event_key, child};
        p.what = "added toolcage's " + event_name + " hook to the `hooks:` there";
        return p;
    }
    const std::string value = key_value(bare(t.lines[*event]))->value;
    // The event's items: the lines below its key that are indented more, or are items at its
    // own indentation (YAML's list under a key at the key's column).
    std::optional<std::size_t> item_indent;
    std::size_t items_end = *event;
    for (std::size_t i = *event + 1; i <= last; ++i) {
        std::string_view l = bare(t.lines[i]);
        if (!content(l)) continue;
        std::size_t ind = indent_of(l);
        if (ind < child || (ind == child && !item(l))) break;
        if (!item_indent) {
            if (!item(l)) {
                p.refused =
                    line_at(*event, "`" + event_name + ":` holds a mapping, not a list of hooks");
                return p;
            }
            item_indent = ind;
        }
        items_end = i;
    }
    if (!item_indent) {
        if (!empty_value(value)) {
            p.refused = line_at(
                *event, "`" + event_name + ": " + value +
                            "` is written on one line (flow style); toolcage adds to a list "
                            "of `- ` lines only");
            return p;
        }
        p.at = *event;
        p.replaces = true;
        p.shape = {HookShape::Form::event_key, child};
        p.what = "filled the empty `" + event_name + ":` with toolcage's hook";
        return p;
    }
    if (!value.empty()) {
        p.refused = line_at(*event, "`" + event_name + ":` has a value and a list");
        return p;
    }
    p.at = items_end + 1;
    p.shape = {HookShape::Form::list_item, *item_indent};
    p.what = "added toolcage's hook to the `" + event_name + ":` list there";
    return p;
}

PrintedEntryRemoval remove_printed_hermes_hook(const TextLines& t, std::size_t command_line) {
    PrintedEntryRemoval out;
    auto refuse = [&](std::size_t i, const std::string& why) {
        out.refused =
            "line " + std::to_string(command_line + 1) +
            " runs toolcage's hook, but is not the entry `toolcage install hermes` printed (" +
            line_at(i, why) + ")";
        return out;
    };
    // The item: from its "- " line to the last line indented as its keys.
    std::string_view cl = bare(t.lines[command_line]);
    std::size_t keys = indent_of(cl) + (item(cl) ? 2 : 0);
    if (keys < 2) return refuse(command_line, "the `command:` is not in a list item");
    std::size_t begin = command_line;
    if (!(item(cl) && indent_of(cl) == keys - 2)) {
        for (;;) {
            if (begin == 0) return refuse(command_line, "the `command:` is not in a list item");
            std::string_view l = bare(t.lines[--begin]);
            if (!content(l)) continue;
            if (item(l) && indent_of(l) == keys - 2) break;  // the item's first line
            if (!item(l) && indent_of(l) == keys) continue;  // another key of the item
            return refuse(command_line, "the `command:` is not in a list item");
        }
    }
    std::size_t last = begin;
    std::vector<std::string> seen;
    for (std::size_t i = begin; i < t.lines.size(); ++i) {
        std::string_view l = bare(t.lines[i]);
        if (!content(l)) continue;
        if (i > begin && (indent_of(l) < keys || item(l))) break;
        auto kv = key_value(l);
        if (!kv) return refuse(i, "a line that is not `key: value`");
        std::string v = yaml_unquote(kv->value);
        bool as_printed = (kv->key == "matcher" && v == kMatcher) || kv->key == "command" ||
                          (kv->key == "timeout" && v == kTimeout) ||
                          (kv->key == "fail_closed" && v == kFailClosed);
        if (!as_printed) return refuse(i, "`" + kv->key + ": " + kv->value + "`");
        seen.push_back(kv->key);
        last = i;
    }
    if (seen.size() != 4)
        return refuse(begin, "the entry has " + std::to_string(seen.size()) + " of its 4 keys");
    TextLines rest = t;
    rest.lines.erase(rest.lines.begin() + static_cast<long>(begin),
                     rest.lines.begin() + static_cast<long>(last) + 1);
    // The `pre_tool_call:` above, and `hooks:` above it, when nothing else is left in them.
    auto only_comments_below = [&](std::size_t key, std::size_t ind) {
        for (std::size_t i = key + 1; i < rest.lines.size(); ++i) {
            std::string_view l = bare(rest.lines[i]);
            if (!content(l)) continue;
            return indent_of(l) < ind || (indent_of(l) == ind && !item(l));
        }
        return true;
    };
    std::optional<std::size_t> event;
    for (std::size_t i = begin; i-- > 0;) {
        std::string_view l = bare(rest.lines[i]);
        if (!content(l) || indent_of(l) > keys - 2 || (indent_of(l) == keys - 2 && item(l)))
            continue;
        if (auto kv = key_value(l); kv && kv->key == kHermesEvent && kv->value.empty()) event = i;
        break;
    }
    if (event && only_comments_below(*event, indent_of(bare(rest.lines[*event])))) {
        std::size_t ind = indent_of(bare(rest.lines[*event]));
        rest.lines.erase(rest.lines.begin() + static_cast<long>(*event));
        for (std::size_t i = *event; ind > 0 && i-- > 0;) {
            std::string_view l = bare(rest.lines[i]);
            if (!content(l) || indent_of(l) >= ind) continue;
            auto kv = key_value(l);
            if (indent_of(l) == 0 && kv && kv->key == "hooks" && kv->value.empty() &&
                only_comments_below(i, 1))
                rest.lines[i] = "hooks: {}" + t.cr();
            break;
        }
    }
    out.without = std::move(rest);
    return out;
}

}  // namespace toolcage::install
