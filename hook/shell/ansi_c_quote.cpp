// $'…' escapes, following bash's ansicstr(): \a \b \e \E \f \n \r \t \v \\ \' \" \?, \NNN octal
// (1-3 digits), \xHH (1-2 hex digits), \uHHHH (1-4), \UHHHHHHHH (1-8), \cX control characters.
// An unknown escape keeps its backslash.
#include "hook/shell/ansi_c_quote.h"

namespace toolcage::shell::detail {

namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

char simple_escape(char c) {
    switch (c) {
        case 'a':
            return '\a';
        case 'b':
            return '\b';
        case 'e':
        case 'E':
            return '\x1b';
        case 'f':
            return '\f';
        case 'n':
            return '\n';
        case 'r':
            return '\r';
        case 't':
            return '\t';
        case 'v':
            return '\v';
        case '\\':
            return '\\';
        case '\'':
            return '\'';
        case '"':
            return '"';
        case '?':
            return '?';
        default:
            return 0;
    }
}

}  // namespace

void append_utf8(std::string& out, unsigned long cp) {
    if (cp > 0x10FFFF) cp = 0xFFFD;
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

std::string decode_ansi_c(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    size_t i = 0;
    while (i < s.size()) {
        char c = s[i++];
        if (c != '\\' || i >= s.size()) {
            out += c;
            continue;
        }
        char e = s[i++];
        if (char simple = simple_escape(e)) {
            out += simple;
        } else if (e >= '0' && e <= '7') {
            unsigned v = static_cast<unsigned>(e - '0');
            for (int n = 1; n < 3 && i < s.size() && s[i] >= '0' && s[i] <= '7'; ++n) {
                v = v * 8 + static_cast<unsigned>(s[i++] - '0');
            }
            if ((v & 0xFF) == 0) return out;  // NUL ends the C string
            out += static_cast<char>(v & 0xFF);
        } else if (e == 'x' || e == 'u' || e == 'U') {
            int max_digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
            unsigned long v = 0;
            int n = 0;
            for (; n < max_digits && i < s.size() && hex_value(s[i]) >= 0; ++n) {
                v = v * 16 + static_cast<unsigned long>(hex_value(s[i++]));
            }
            if (n == 0) {
                out += '\\';
                out += e;
            } else if (v == 0) {
                return out;
            } else if (e == 'x') {
                out += static_cast<char>(v);
            } else {
                append_utf8(out, v);
            }
        } else if (e == 'c' && i < s.size()) {
            char x = s[i++];
            if (x == '\\' && i < s.size() && s[i] == '\\') ++i;  // \c\\ is control-backslash
            unsigned char ctl =
                x == '?' ? 0x7F
                         : static_cast<unsigned char>((x >= 'a' && x <= 'z' ? x - 32 : x) & 0x1F);
            if (ctl == 0) return out;
            out += static_cast<char>(ctl);
        } else {
            out += '\\';
            out += e;
        }
    }
    return out;
}

}  // namespace toolcage::shell::detail
