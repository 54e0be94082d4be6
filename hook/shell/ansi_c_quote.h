// Decoding of bash's $'…' strings: the escapes bash's ansicstr() understands, nothing more.
#pragma once

#include <string>
#include <string_view>

namespace toolcage::shell::detail {

// body is the text between $' and the closing quote, as written. A \0 ends the string, as in
// bash, where the result is a C string.
std::string decode_ansi_c(std::string_view body);

// Appends the UTF-8 encoding of a code point (bash does so in a UTF-8 locale).
void append_utf8(std::string& out, unsigned long cp);

}  // namespace toolcage::shell::detail
