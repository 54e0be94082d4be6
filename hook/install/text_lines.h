// A text file as lines, so that an edit touches only the lines it means to and joining the
// lines back gives the original bytes (line endings, a missing final newline) exactly.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace toolcage::install {

struct TextLines {
    std::vector<std::string> lines;  // without '\n'; a line of a CRLF file keeps its '\r'
    bool final_newline = false;      // the text ended in '\n'

    static TextLines split(std::string_view text);
    std::string join() const;
    // "\r" when the file's first line ends in CRLF: what new lines end with before the '\n'.
    std::string cr() const;
};

// The line without a trailing '\r'.
std::string_view bare(std::string_view line);
std::string_view trim(std::string_view s);

}  // namespace toolcage::install
