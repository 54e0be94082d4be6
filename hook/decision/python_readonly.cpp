#include "hook/decision/python_readonly.h"

#include <cctype>
#include <cstring>
#include <string>
#include <vector>

#include "hook/decision/python_reader.h"
#include "hook/decision/python_tokens.h"

namespace toolcage::hook {

namespace {

using Token = PyToken;
using Kind = PyToken::Kind;

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

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
        } else if (c == ' ' || c == '\t') {  // the text is outside_agreed_text's: no CR, no FF
            ++pos_;
        } else if (c == '#') {
            while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
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
        if (std::string why = refused_string(whole); !why.empty()) fail(why);
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

// The text on which this reading and Python's provably agree: printable ASCII, newlines and
// tabs. Python ends a line at a lone CR, skips a form feed, decodes the whole file by a coding
// cookie found anywhere in a comment of the first two lines (utf-7 hides code in what looks
// like a comment), joins lines at a backslash, reads non-ASCII identifiers under NFKC: each
// is a place where a second reading can differ from the interpreter's, so none is read here.
std::string outside_agreed_text(std::string_view code) {
    int line = 1;
    auto at = [&](const std::string& what) { return "line " + std::to_string(line) + ": " + what; };
    for (std::size_t i = 0; i < code.size(); ++i) {
        const auto c = static_cast<unsigned char>(code[i]);
        if (c == '\n') {
            ++line;
            continue;
        }
        if (c == '\t' || (c >= 0x20 && c < 0x7f && c != '\\')) continue;
        if (c == '\\') {
            if (i + 1 < code.size() && code[i + 1] == '\n')
                return at("a backslash at the end of a line (Python joins the lines)");
            continue;
        }
        if (c == '\r') return at("a carriage return (Python ends a line there)");
        if (c == 0) return at("a NUL byte");
        if (c >= 0x80) return at("a byte outside ASCII");
        return at("the control character " + std::to_string(c));
    }
    // A cookie counts on the first two lines only; any "coding:" or "coding=" there is refused,
    // whatever surrounds it.
    std::size_t second_end = code.find('\n');
    if (second_end != std::string_view::npos) second_end = code.find('\n', second_end + 1);
    std::string head(code.substr(0, second_end));
    for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (std::size_t k = head.find("coding"); k != std::string::npos; k = head.find("coding", k + 1))
        if (k + 6 < head.size() && (head[k + 6] == ':' || head[k + 6] == '='))
            return "line " + std::to_string(head.substr(0, k).find('\n') == std::string::npos ? 1 : 2) +
                   ": declares a source encoding";
    return {};
}

}  // namespace

PythonCheck check_python_text(std::string_view code) {
    constexpr size_t kMaxCode = 256 * 1024;
    if (code.size() > kMaxCode) return {false, "longer than 256 KiB"};
    if (std::string why = outside_agreed_text(code); !why.empty()) return {false, why};
    try {
        Scanner s(code, 1, 0);
        if (std::string why = judge_python_tokens(s.run()); !why.empty()) return {false, why};
    } catch (const Failure& f) {
        return {false, f.why};
    }
    return {true, ""};
}

PythonCheck check_python_read_only(std::string_view code) {
    PythonCheck ours = check_python_text(code);
    if (!ours.read_only) return ours;
    PythonReading theirs = read_with_python(code);
    if (!theirs.ok) return {false, theirs.why};
    if (std::string why = judge_python_tokens(theirs.tokens); !why.empty())
        return {false, "as python3 reads it, " + why};
    return {true, ""};
}

}  // namespace toolcage::hook
