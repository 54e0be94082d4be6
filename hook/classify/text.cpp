// Small text helpers shared by the program tables.
#include "hook/classify/text.h"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace toolcage::classify::detail {

std::string Value::shown() const {
    std::string out;
    for (char c : text) {
        if (c == kUnknown) {
            out += "…";
        } else {
            out += c;
        }
    }
    if (alt_unknown) out += " (or a run-time value)";
    return out;
}

std::string_view basename_of(std::string_view path) {
    while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
    size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool contains(std::string_view hay, std::string_view needle) {
    return hay.find(needle) != std::string_view::npos;
}

bool icontains(std::string_view hay, std::string_view needle) {
    if (needle.empty()) return true;
    auto it = std::search(hay.begin(), hay.end(), needle.begin(), needle.end(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) ==
               std::tolower(static_cast<unsigned char>(b));
    });
    return it != hay.end();
}

bool has_glob_chars(std::string_view s) {
    return s.find_first_of("*?[") != std::string_view::npos;
}

bool glob_match(const std::string& pattern, const std::string& text, bool pathname) {
    return ::fnmatch(pattern.c_str(), text.c_str(), pathname ? FNM_PATHNAME : 0) == 0;
}

std::string shell_quote(std::string_view s) {
    if (s.empty()) return "''";
    bool plain = std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
               c == '/' || c == '=' || c == ':' || c == ',' || c == '+' || c == '@' || c == '%';
    });
    return plain ? std::string(s) : single_quoted(s);
}

std::string single_quoted(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 2);
    out += '\'';
    for (char c : s) {
        if (c == '\'') {
            out += "'\\''";
        } else {
            out += c;
        }
    }
    out += '\'';
    return out;
}

std::string join_as_shell(const std::vector<Value>& words, size_t from) {
    std::string out;
    for (size_t i = from; i < words.size(); ++i) {
        if (i > from) out += ' ';
        const Value& w = words[i];
        if (w.unknown || w.glob) {
            // Unknown runs stay unquoted markers; pattern characters stay active.
            std::string piece;
            for (char c : w.text) {
                if (c == kUnknown || (w.glob && (c == '*' || c == '?' || c == '[' || c == ']'))) {
                    out += shell_quote(piece);
                    piece.clear();
                    out += c;
                } else {
                    piece += c;
                }
            }
            if (!piece.empty()) out += shell_quote(piece);
        } else {
            out += shell_quote(w.text);
        }
    }
    return out;
}

std::string join_plain(const std::vector<Value>& words, size_t from) {
    std::string out;
    for (size_t i = from; i < words.size(); ++i) {
        if (i > from) out += ' ';
        out += words[i].text;
    }
    return out;
}

Value join_values(const std::vector<Value>& words, size_t from, std::string_view sep) {
    Value v;
    for (size_t i = from; i < words.size(); ++i) {
        if (i > from) v.text += sep;
        v.text += words[i].text;
        v.unknown = v.unknown || words[i].unknown;
        v.alt_unknown = v.alt_unknown || words[i].alt_unknown;
        v.taint = std::max(v.taint, words[i].taint);
        v.glob = v.glob || words[i].glob;
    }
    return v;
}

std::vector<std::string> split_ws(std::string_view s) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n')) ++i;
        size_t b = i;
        while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != '\n') ++i;
        if (i > b) out.emplace_back(s.substr(b, i - b));
    }
    return out;
}

std::optional<std::string> base64_decode(std::string_view s) {
    std::string out;
    unsigned buf = 0;
    int bits = 0;
    for (char c : s) {
        int v;
        if (c >= 'A' && c <= 'Z') {
            v = c - 'A';
        } else if (c >= 'a' && c <= 'z') {
            v = c - 'a' + 26;
        } else if (c >= '0' && c <= '9') {
            v = c - '0' + 52;
        } else if (c == '+' || c == '-') {
            v = 62;
        } else if (c == '/' || c == '_') {
            v = 63;
        } else if (c == '=' || c == ' ' || c == '\n' || c == '\r' || c == '\t') {
            continue;
        } else {
            return std::nullopt;
        }
        buf = (buf << 6) | static_cast<unsigned>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((buf >> bits) & 0xff);
        }
    }
    return out;
}

std::optional<std::string> hex_decode(std::string_view s) {
    std::string out;
    int hi = -1;
    for (char c : s) {
        int v;
        if (c >= '0' && c <= '9') {
            v = c - '0';
        } else if (c >= 'a' && c <= 'f') {
            v = c - 'a' + 10;
        } else if (c >= 'A' && c <= 'F') {
            v = c - 'A' + 10;
        } else if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
            continue;
        } else {
            return std::nullopt;
        }
        if (hi < 0) {
            hi = v;
        } else {
            out += static_cast<char>(hi * 16 + v);
            hi = -1;
        }
    }
    return out;
}

namespace {

int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Backslash escapes as printf's format and %b (and echo -e) read them. `stop` is set by \c.
std::string unescape(std::string_view s, bool echo_style, bool* stop) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c != '\\' || i + 1 >= s.size()) {
            out += c;
            continue;
        }
        char d = s[++i];
        switch (d) {
            case 'n': out += '\n'; break;
            case 't': out += '\t'; break;
            case 'r': out += '\r'; break;
            case 'a': out += '\a'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'v': out += '\v'; break;
            case 'e':
            case 'E': out += '\x1b'; break;
            case '\\': out += '\\'; break;
            case '"': out += '"'; break;
            case '\'': out += '\''; break;
            case 'c':
                if (stop) *stop = true;
                return out;
            case 'x': {
                int v = 0, n = 0;
                while (n < 2 && i + 1 < s.size() && hexval(s[i + 1]) >= 0) {
                    v = v * 16 + hexval(s[++i]);
                    ++n;
                }
                if (n == 0) {
                    out += "\\x";
                } else {
                    out += static_cast<char>(v);
                }
                break;
            }
            case 'u':
            case 'U': {
                int max = d == 'u' ? 4 : 8;
                unsigned long v = 0;
                int n = 0;
                while (n < max && i + 1 < s.size() && hexval(s[i + 1]) >= 0) {
                    v = v * 16 + static_cast<unsigned long>(hexval(s[++i]));
                    ++n;
                }
                if (v < 0x80) {
                    out += static_cast<char>(v);
                } else {
                    out += '?';
                }
                break;
            }
            default:
                if (d >= '0' && d <= '7') {
                    // printf: \NNN; echo -e: \0NNN.
                    int v = 0, n = 0;
                    size_t j = i;
                    if (echo_style && d == '0') {
                        ++j;
                    }
                    while (n < 3 && j < s.size() && s[j] >= '0' && s[j] <= '7') {
                        v = v * 8 + (s[j] - '0');
                        ++j;
                        ++n;
                    }
                    i = j - 1;
                    out += static_cast<char>(v & 0xff);
                } else {
                    out += '\\';
                    out += d;
                }
        }
    }
    return out;
}

}  // namespace

std::string echo_escapes(std::string_view s) { return unescape(s, true, nullptr); }

std::string printf_emulate(std::string_view format, const std::vector<std::string>& args) {
    std::string out;
    size_t ai = 0;
    bool stop = false;
    for (int round = 0; round < 64; ++round) {
        bool used_conversion = false;
        for (size_t i = 0; i < format.size() && !stop; ++i) {
            char c = format[i];
            if (c == '\\') {
                size_t j = i + 1;
                // Copy the escape sequence and decode it alone.
                size_t len = 1;
                if (j < format.size()) {
                    char d = format[j];
                    if (d == 'x') {
                        len = 1;
                        while (len < 3 && j + len < format.size() && hexval(format[j + len]) >= 0) ++len;
                    } else if (d >= '0' && d <= '7') {
                        while (len < 3 && j + len < format.size() && format[j + len] >= '0' &&
                               format[j + len] <= '7') {
                            ++len;
                        }
                    }
                }
                out += unescape(format.substr(i, 1 + len), false, &stop);
                i += len;
                continue;
            }
            if (c != '%') {
                out += c;
                continue;
            }
            size_t j = i + 1;
            if (j < format.size() && format[j] == '%') {
                out += '%';
                i = j;
                continue;
            }
            std::string spec = "%";
            while (j < format.size() && std::string_view("-+ #0").find(format[j]) != std::string_view::npos) {
                spec += format[j++];
            }
            while (j < format.size() && (std::isdigit(static_cast<unsigned char>(format[j])) || format[j] == '.')) {
                spec += format[j++];
            }
            if (j >= format.size()) {
                out += spec;
                break;
            }
            char conv = format[j];
            i = j;
            used_conversion = true;
            std::string arg = ai < args.size() ? args[ai] : std::string();
            if (ai < args.size()) ++ai;
            switch (conv) {
                case 's': out += arg; break;
                case 'b': out += unescape(arg, true, &stop); break;
                case 'q': out += shell_quote(arg); break;
                case 'c':
                    if (!arg.empty()) out += arg[0];
                    break;
                case 'd':
                case 'i':
                    out += std::to_string(std::strtoll(arg.c_str(), nullptr, 0));
                    break;
                case 'x':
                case 'X':
                case 'o':
                case 'u': {
                    unsigned long long n = static_cast<unsigned long long>(std::strtoll(arg.c_str(), nullptr, 0));
                    unsigned base = conv == 'o' ? 8 : (conv == 'u' ? 10 : 16);
                    const char* digits = conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
                    std::string num;
                    do {
                        num.insert(num.begin(), digits[n % base]);
                        n /= base;
                    } while (n);
                    out += num;
                    break;
                }
                default: out += arg;
            }
        }
        if (stop || !used_conversion || ai >= args.size()) break;
    }
    return out;
}

Value substitute_placeholder(const Value& word, std::string_view placeholder, const Value& with) {
    if (placeholder.empty() || word.text.find(placeholder) == std::string::npos) return word;
    Value out = word;
    out.text.clear();
    size_t pos = 0;
    for (;;) {
        size_t at = word.text.find(placeholder, pos);
        if (at == std::string::npos) break;
        out.text.append(word.text, pos, at - pos);
        out.text += with.text;
        pos = at + placeholder.size();
    }
    out.text.append(word.text, pos, std::string::npos);
    out.secret = out.secret || with.secret;
    if (with.unknown) {
        out.guarded = out.unknown ? (out.guarded && with.guarded) : with.guarded;
        out.unknown = true;
    }
    out.alt_unknown = out.alt_unknown || with.alt_unknown;
    out.glob = out.glob || with.glob;
    out.taint = std::max(out.taint, with.taint);
    return out;
}

bool is_flag(const Value& v) {
    return !v.unknown && v.text.size() > 1 && v.text[0] == '-';
}

namespace {

bool long_matches(std::string_view want, std::string_view given, const std::vector<std::string_view>& known = {}) {
    // getopt_long accepts an unambiguous prefix; treating any prefix as a match errs toward
    // seeing the option (callers ask about the options that make things worse). An option that
    // exists under its own name is not an abbreviation of a longer one.
    if (given == want) return true;
    if (std::find(known.begin(), known.end(), given) != known.end()) return false;
    return given.size() >= 4 && want.size() > given.size() && want.substr(0, given.size()) == given;
}

}  // namespace

bool Opts::has(std::string_view name) const {
    for (const Flag& f : flags) {
        if (name.size() > 2 && name[1] == '-') {
            if (f.name.size() > 2 && f.name[1] == '-' && long_matches(name, f.name, known)) return true;
        } else if (f.name == name) {
            return true;
        }
    }
    return false;
}

bool Opts::has_any(std::initializer_list<std::string_view> names) const {
    for (std::string_view n : names) {
        if (has(n)) return true;
    }
    return false;
}

std::optional<std::string> Opts::value(std::string_view name) const {
    for (const Flag& f : flags) {
        bool match = name.size() > 2 && name[1] == '-' ? (f.name.size() > 2 && f.name[1] == '-' && long_matches(name, f.name, known))
                                                       : f.name == name;
        if (!match) continue;
        if (f.has_inline) return f.inline_value;
        if (f.value) return f.value->text;
        return std::string();
    }
    return std::nullopt;
}

std::vector<std::string> Opts::values(std::string_view name) const {
    std::vector<std::string> out;
    for (const Flag& f : flags) {
        bool match = name.size() > 2 && name[1] == '-' ? (f.name.size() > 2 && f.name[1] == '-' && long_matches(name, f.name, known))
                                                       : f.name == name;
        if (!match) continue;
        if (f.has_inline) {
            out.push_back(f.inline_value);
        } else if (f.value) {
            out.push_back(f.value->text);
        }
    }
    return out;
}

Opts parse_opts(const std::vector<Value>& args, size_t from, std::string_view short_with_arg,
                std::initializer_list<std::string_view> long_with_arg, bool stop_at_operand) {
    Opts o;
    o.end = args.size();
    o.known.assign(long_with_arg.begin(), long_with_arg.end());
    bool options_done = false;
    for (size_t i = from; i < args.size(); ++i) {
        const Value& a = args[i];
        if (options_done || !is_flag(a)) {
            if (stop_at_operand && !options_done) {
                o.end = i;
                for (size_t k = i; k < args.size(); ++k) o.operands.push_back(k);
                return o;
            }
            o.operands.push_back(i);
            continue;
        }
        const std::string& t = a.text;
        if (t == "--") {
            options_done = true;
            if (stop_at_operand) {
                o.end = i + 1;
                for (size_t k = i + 1; k < args.size(); ++k) o.operands.push_back(k);
                return o;
            }
            continue;
        }
        if (t[1] == '-') {
            Opts::Flag f;
            size_t eq = t.find('=');
            f.name = t.substr(0, eq);
            if (eq != std::string::npos) {
                f.inline_value = t.substr(eq + 1);
                f.has_inline = true;
            } else {
                for (std::string_view l : long_with_arg) {
                    if (long_matches(l, f.name, o.known)) {
                        if (i + 1 < args.size()) f.value = &args[++i];
                        break;
                    }
                }
            }
            o.flags.push_back(std::move(f));
            continue;
        }
        for (size_t k = 1; k < t.size(); ++k) {
            Opts::Flag f;
            f.name = std::string("-") + t[k];
            if (short_with_arg.find(t[k]) != std::string_view::npos) {
                if (k + 1 < t.size()) {
                    f.inline_value = t.substr(k + 1);
                    f.has_inline = true;
                } else if (i + 1 < args.size()) {
                    f.value = &args[++i];
                }
                o.flags.push_back(std::move(f));
                break;
            }
            o.flags.push_back(std::move(f));
        }
    }
    return o;
}

bool word_listed(std::string_view words, std::string_view w) {
    size_t i = 0;
    while (i < words.size()) {
        size_t e = words.find(' ', i);
        if (e == std::string_view::npos) e = words.size();
        if (words.substr(i, e - i) == w) return true;
        i = e + 1;
    }
    return false;
}

}  // namespace toolcage::classify::detail
