#include "hook/decision/python_readonly.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "hook/decision/python_modules.h"

namespace toolcage::hook {

namespace {

// Names that open files, run programs, reach modules that do, or reach the interpreter's
// frames and namespaces; refused wherever they appear (name, attribute, keyword argument).
constexpr std::string_view kRefusedNames[] = {
    "open",       "exec",       "eval",        "compile",     "globals",    "locals",
    "vars",       "getattr",    "setattr",     "delattr",     "input",      "breakpoint",
    "help",       "license",    "credits",     "copyright",   "os",         "sys",
    "subprocess", "shutil",     "socket",      "pathlib",     "io",         "codecs",
    "ctypes",     "importlib",  "builtins",    "pickle",      "marshal",    "shelve",
    "tempfile",   "glob",       "fcntl",       "posix",       "pty",        "signal",
    "multiprocessing", "threading", "asyncio", "urllib",      "http",       "ftplib",
    "smtplib",    "requests",   "hermes_tools", "modules",    "system",     "popen",
    "spawn",      "fork",       "forkpty",     "kill",        "unlink",     "remove",
    "removedirs", "rmdir",      "rmtree",      "mkdir",       "makedirs",   "chmod",
    "chown",      "symlink",    "link",        "truncate",    "write",      "writelines",
    "write_text", "write_bytes", "touch",      "rename",      "renames",    "terminal",
    "load_module", "exec_module", "f_builtins", "f_globals"};

// Frame and code objects lead back to every namespace.
constexpr std::string_view kFrameNames[] = {
    "gi_frame", "gi_code", "cr_frame", "cr_code", "ag_frame", "ag_code",
    "f_back",   "f_locals", "f_code",  "tb_frame", "tb_next", "co_code"};

template <size_t N>
bool in(const std::string_view (&list)[N], std::string_view s) {
    return std::find(std::begin(list), std::end(list), s) != std::end(list);
}

bool refused_name(std::string_view s) { return in(kRefusedNames, s) || in(kFrameNames, s); }

// An attribute any object may be asked for: public (a leading underscore is a module's or a
// class's internals: random._os, tempfile._os) and not one of the names above.
bool plain_attribute(std::string_view s) { return !s.empty() && s[0] != '_' && !refused_name(s); }

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// str.format and format_map look attributes up by the names in their fields: "{0._os}" reads
// what `x._os` would. Every name after a dot inside a field must be a plain attribute.
std::string bad_format_attribute(std::string_view s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '{') continue;
        if (i + 1 < s.size() && s[i + 1] == '{') {
            ++i;
            continue;
        }
        std::size_t end = s.find('}', i);
        std::string_view field = s.substr(i + 1, end == std::string_view::npos ? std::string_view::npos : end - i - 1);
        for (std::size_t k = 0; k < field.size(); ++k) {
            if (field[k] != '.') continue;
            std::size_t b = k + 1;
            while (b < field.size() && is_ident_char(field[b])) ++b;
            std::string_view name = field.substr(k + 1, b - k - 1);
            if (!plain_attribute(name)) return std::string(name);
        }
        if (end == std::string_view::npos) break;
        i = end;
    }
    return {};
}

enum class Kind { name, op, string, number };

struct Token {
    Kind kind;
    std::string text;
    int line;
};

struct Failure {
    std::string why;
};

bool is_string_prefix(std::string_view p) {
    std::string low;
    for (char c : p) low += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return low == "r" || low == "u" || low == "b" || low == "f" || low == "br" || low == "rb" ||
           low == "fr" || low == "rf";
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// What a string literal's body means, escapes decoded as far as names can be spelled with them
// (anything outside ASCII becomes '?', which spells nothing).
std::string decode_body(std::string_view body, bool raw) {
    if (raw) return std::string(body);
    std::string out;
    for (size_t i = 0; i < body.size(); ++i) {
        char c = body[i];
        if (c != '\\' || i + 1 >= body.size()) {
            out += c;
            continue;
        }
        char e = body[++i];
        auto take_hex = [&](size_t digits) {
            long v = 0;
            size_t k = 0;
            for (; k < digits && i + 1 < body.size() && hex_value(body[i + 1]) >= 0; ++k)
                v = v * 16 + hex_value(body[++i]);
            out += (k == digits && v < 128) ? static_cast<char>(v) : '?';
        };
        switch (e) {
            case 'x': take_hex(2); break;
            case 'u': take_hex(4); break;
            case 'U': take_hex(8); break;
            case 'N': {
                size_t close = body.find('}', i);
                i = close == std::string_view::npos ? body.size() : close;
                out += '?';
                break;
            }
            case 'n': out += '\n'; break;
            case 't': out += '\t'; break;
            case '\n': break;
            default:
                if (e >= '0' && e <= '7') {
                    int v = e - '0';
                    for (int k = 0; k < 2 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7'; ++k)
                        v = v * 8 + (body[++i] - '0');
                    out += v < 128 ? static_cast<char>(v) : '?';
                } else {
                    out += e;
                }
        }
    }
    return out;
}

class Scanner {
public:
    Scanner(std::string_view src, int line, int depth) : src_(src), line_(line), depth_(depth) {}

    std::vector<Token> run() {
        if (depth_ > 20) fail("f-strings nested too deeply");
        while (pos_ < src_.size()) step();
        return std::move(tokens_);
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw Failure{"line " + std::to_string(line_) + ": " + what};
    }

    void step() {
        char c = src_[pos_];
        if (c == '\n') {
            ++line_;
            ++pos_;
        } else if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
            ++pos_;
        } else if (c == '#') {
            while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
        } else if (c == '\\' && pos_ + 1 < src_.size() && (src_[pos_ + 1] == '\n' || src_[pos_ + 1] == '\r')) {
            pos_ += 2;
        } else if (c == '\0') {
            fail("a NUL byte");
        } else if (static_cast<unsigned char>(c) >= 0x80) {
            // Python folds identifiers with NFKC: a fullwidth "ｏｐｅｎ" is open.
            fail("a non-ASCII character outside a string or comment");
        } else if (is_ident_start(c)) {
            size_t start = pos_;
            while (pos_ < src_.size() && is_ident_char(src_[pos_])) ++pos_;
            std::string_view word = src_.substr(start, pos_ - start);
            if (pos_ < src_.size() && (src_[pos_] == '\'' || src_[pos_] == '"') && is_string_prefix(word)) {
                read_string(word);
            } else {
                tokens_.push_back({Kind::name, std::string(word), line_});
            }
        } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                   (c == '.' && pos_ + 1 < src_.size() && std::isdigit(static_cast<unsigned char>(src_[pos_ + 1])))) {
            read_number();
        } else if (c == '\'' || c == '"') {
            read_string("");
        } else {
            tokens_.push_back({Kind::op, std::string(1, c), line_});
            ++pos_;
        }
    }

    void read_number() {
        size_t start = pos_;
        auto digit_run = [&](auto pred) {
            while (pos_ < src_.size() && (pred(src_[pos_]) || src_[pos_] == '_')) ++pos_;
        };
        auto dec = [](char ch) { return ch >= '0' && ch <= '9'; };
        if (src_[pos_] == '0' && pos_ + 1 < src_.size() && std::strchr("xXoObB", src_[pos_ + 1])) {
            pos_ += 2;
            digit_run([](char ch) { return hex_value(ch) >= 0; });
        } else {
            digit_run(dec);
            if (pos_ < src_.size() && src_[pos_] == '.') {
                ++pos_;
                digit_run(dec);
            }
            if (pos_ + 1 < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
                size_t k = pos_ + 1;
                if (src_[k] == '+' || src_[k] == '-') ++k;
                if (k < src_.size() && dec(src_[k])) {
                    pos_ = k;
                    digit_run(dec);
                }
            }
            if (pos_ < src_.size() && (src_[pos_] == 'j' || src_[pos_] == 'J')) ++pos_;
        }
        tokens_.push_back({Kind::number, std::string(src_.substr(start, pos_ - start)), line_});
    }

    // Reads a string literal starting at the quote at pos_; `prefix` is what stood before it.
    void read_string(std::string_view prefix) {
        std::string low;
        for (char ch : prefix) low += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        bool raw = low.find('r') != std::string::npos;
        bool fstr = low.find('f') != std::string::npos;
        int start_line = line_;
        size_t body_start, body_end;
        scan_string_at(pos_, fstr, body_start, body_end, pos_);
        std::string_view body = src_.substr(body_start, body_end - body_start);
        if (fstr) check_fstring(body, start_line);
        std::string decoded = decode_body(body, raw);
        // Adjacent literals are one string to Python: "_" "_class_" "_" spells a dunder.
        if (!tokens_.empty() && tokens_.back().kind == Kind::string) {
            tokens_.back().text += decoded;
        } else {
            tokens_.push_back({Kind::string, decoded, start_line});
        }
        const std::string& whole = tokens_.back().text;
        if (whole.find("__") != std::string::npos) fail("a string that spells a dunder name");
        if (refused_name(whole)) fail("a string that names \"" + whole + "\"");
        if (std::string a = bad_format_attribute(whole); !a.empty())
            fail("a format field that reads the attribute \"" + a + "\"");
    }

    // Finds the end of the string literal whose opening quote is at `at`. In an f-string,
    // quotes inside a replacement field open nested literals (Python 3.12 allows reusing the
    // same quote there), so the scan follows braces and nested strings.
    void scan_string_at(size_t at, bool fstr, size_t& body_start, size_t& body_end, size_t& after) {
        char q = src_[at];
        bool triple = at + 2 < src_.size() && src_[at + 1] == q && src_[at + 2] == q;
        size_t i = at + (triple ? 3 : 1);
        body_start = i;
        int depth = 0;  // braces open in an f-string's replacement field
        while (i < src_.size()) {
            char c = src_[i];
            if (c == '\n') {
                ++line_;
                if (!triple && depth == 0) fail("an unterminated string");
            }
            if (depth > 0) {
                if (c == '\'' || c == '"') {
                    size_t p = i;
                    while (p > 0 && is_ident_char(src_[p - 1])) --p;
                    std::string_view pre = src_.substr(p, i - p);
                    bool nested_f = is_string_prefix(pre) &&
                                    (pre.find('f') != std::string_view::npos || pre.find('F') != std::string_view::npos);
                    size_t bs, be, af;
                    scan_string_at(i, nested_f, bs, be, af);
                    i = af;
                    continue;
                }
                if (c == '{' || c == '[' || c == '(') ++depth;
                if (c == '}' || c == ']' || c == ')') --depth;
                ++i;
                continue;
            }
            if (c == '\\') {
                if (i + 1 < src_.size() && src_[i + 1] == '\n') ++line_;
                i += 2;
                continue;
            }
            if (fstr && c == '{') {
                if (i + 1 < src_.size() && src_[i + 1] == '{') {
                    i += 2;
                    continue;
                }
                depth = 1;
                ++i;
                continue;
            }
            if (c == q && (!triple || (i + 2 < src_.size() && src_[i + 1] == q && src_[i + 2] == q))) {
                body_end = i;
                after = i + (triple ? 3 : 1);
                return;
            }
            ++i;
        }
        fail("an unterminated string");
    }

    // Every replacement field of an f-string body is code: scan it like the rest.
    void check_fstring(std::string_view body, int line) {
        size_t i = 0;
        while (i < body.size()) {
            if (body[i] == '{' && i + 1 < body.size() && body[i + 1] == '{') {
                i += 2;
                continue;
            }
            if (body[i] != '{') {
                ++i;
                continue;
            }
            size_t start = ++i;
            int depth = 1;
            char in_quote = 0;
            while (i < body.size() && depth > 0) {
                char c = body[i];
                if (in_quote) {
                    if (c == '\\') ++i;
                    else if (c == in_quote) in_quote = 0;
                } else if (c == '\'' || c == '"') {
                    in_quote = c;
                } else if (c == '{' || c == '[' || c == '(') {
                    ++depth;
                } else if (c == '}' || c == ']' || c == ')') {
                    --depth;
                }
                ++i;
            }
            if (depth > 0) fail("an f-string field without its closing brace");
            Scanner inner(body.substr(start, i - 1 - start), line, depth_ + 1);
            for (auto& t : inner.run()) tokens_.push_back(std::move(t));
        }
    }

    std::string_view src_;
    size_t pos_ = 0;
    int line_;
    int depth_;
    std::vector<Token> tokens_;
};

// The names and import statements, over the token stream. Imports name listed modules only;
// a module is used only as `module.name` with a listed name; any other attribute is public.
void check_tokens(const std::vector<Token>& t) {
    auto fail = [](const Token& at, const std::string& what) -> void {
        throw Failure{"line " + std::to_string(at.line) + ": " + what};
    };
    auto is_op = [&](size_t i, char c) { return i < t.size() && t[i].kind == Kind::op && t[i].text[0] == c; };
    auto is_name = [&](size_t i, std::string_view n = {}) {
        return i < t.size() && t[i].kind == Kind::name && (n.empty() || t[i].text == n);
    };
    // First the imports: which names are modules, and which tokens the import statements hold.
    std::map<std::string, std::string> modules;  // the name in the program -> the module
    std::vector<bool> in_import(t.size(), false);
    for (size_t i = 0; i < t.size(); ++i) {
        if (i > 0 && is_op(i - 1, '.')) continue;  // an attribute named import or from
        if (is_name(i, "import")) {
            // import a [as b], c ...
            size_t k = i + 1;
            while (true) {
                if (!is_name(k)) fail(t[i], "an import this check cannot read");
                const std::string& m = t[k].text;
                if (!pure_module(m)) fail(t[k], "import of " + m);
                if (is_op(k + 1, '.')) fail(t[k], "import of a submodule of " + m);
                std::string as = m;
                ++k;
                if (is_name(k, "as")) {
                    if (!is_name(k + 1)) fail(t[i], "an import this check cannot read");
                    as = t[k + 1].text;
                    k += 2;
                }
                modules[as] = m;
                if (!is_op(k, ',')) break;
                ++k;
            }
            std::fill(in_import.begin() + static_cast<long>(i), in_import.begin() + static_cast<long>(k), true);
            i = k - 1;
        } else if (is_name(i, "from")) {
            size_t k = i + 1;
            if (is_op(k, '.')) fail(t[i], "a relative import");
            if (!is_name(k)) continue;  // yield from / raise ... from
            size_t after = k + 1;
            while (is_op(after, '.') && is_name(after + 1)) after += 2;
            if (!is_name(after, "import")) continue;
            const std::string& m = t[k].text;
            if (!pure_module(m)) fail(t[k], "import from " + m);
            if (after != k + 1) fail(t[k], "import from a submodule of " + m);
            k = after + 1;
            if (is_op(k, '*')) fail(t[after], "import *");
            bool paren = is_op(k, '(');
            if (paren) ++k;
            while (true) {
                if (!is_name(k)) fail(t[i], "an import this check cannot read");
                if (!pure_module_name(m, t[k].text)) fail(t[k], "import of " + m + "." + t[k].text);
                ++k;
                if (is_name(k, "as")) {
                    if (!is_name(k + 1)) fail(t[i], "an import this check cannot read");
                    k += 2;
                }
                if (!is_op(k, ',')) break;
                ++k;
                if (paren && is_op(k, ')')) break;
            }
            if (paren) {
                if (!is_op(k, ')')) fail(t[i], "an import this check cannot read");
                ++k;
            }
            std::fill(in_import.begin() + static_cast<long>(i), in_import.begin() + static_cast<long>(k), true);
            i = k - 1;
        }
    }
    for (size_t i = 0; i < t.size(); ++i) {
        if (t[i].kind != Kind::name) continue;
        const std::string& n = t[i].text;
        if (n.find("__") != std::string::npos) fail(t[i], "the dunder name " + n);
        if (in_import[i]) continue;  // checked against the module's list above
        const bool attribute = i > 0 && is_op(i - 1, '.');
        // x.n: when x is a module, its list alone decides (re.compile is not compile()).
        if (attribute && i >= 2 && is_name(i - 2) && !is_op(i - 3, '.') && modules.count(t[i - 2].text)) {
            const std::string& m = modules[t[i - 2].text];
            if (!pure_module_name(m, n))
                fail(t[i], m + "." + n + ", which is not one of the names of " + m + " known to only compute");
            continue;
        }
        if (refused_name(n)) fail(t[i], "the name " + n);
        if (!attribute) {
            // A module goes nowhere but into `module.name`: not into a variable, a call or a
            // format string, where what it imported would be reachable.
            if (modules.count(n) && !(is_op(i + 1, '.') && is_name(i + 2)))
                fail(t[i], "the module " + n + " used otherwise than as " + n + ".NAME");
            continue;
        }
        if (!plain_attribute(n)) fail(t[i], "the attribute " + n);
    }
}

}  // namespace

PythonCheck check_python_read_only(std::string_view code) {
    constexpr size_t kMaxCode = 256 * 1024;
    if (code.size() > kMaxCode) return {false, "longer than 256 KiB"};
    // A coding cookie in the first two lines changes how every byte is read (utf-7 can hide
    // code in what looks like a comment).
    size_t line_end = 0;
    for (int line = 0; line < 2 && line_end <= code.size(); ++line) {
        size_t start = line_end;
        size_t end = code.find('\n', start);
        if (end == std::string_view::npos) end = code.size();
        std::string_view l = code.substr(start, end - start);
        size_t hash = l.find('#');
        if (hash != std::string_view::npos) {
            std::string_view c = l.substr(hash);
            size_t k = c.find("coding");
            if (k != std::string_view::npos && k + 6 < c.size() && (c[k + 6] == ':' || c[k + 6] == '=')) {
                size_t v = k + 7;
                while (v < c.size() && (c[v] == ' ' || c[v] == '\t')) ++v;
                std::string enc;
                while (v < c.size() && (is_ident_char(c[v]) || c[v] == '-' || c[v] == '.'))
                    enc += static_cast<char>(std::tolower(static_cast<unsigned char>(c[v++])));
                if (enc != "utf-8" && enc != "utf8" && enc != "utf_8" && enc != "ascii" &&
                    enc != "us-ascii")
                    return {false, "line " + std::to_string(line + 1) + ": declares the source encoding " + enc};
            }
        }
        line_end = end + 1;
    }
    try {
        Scanner s(code, 1, 0);
        check_tokens(s.run());
    } catch (const Failure& f) {
        return {false, f.why};
    }
    return {true, ""};
}

}  // namespace toolcage::hook
