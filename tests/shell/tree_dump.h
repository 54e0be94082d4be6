// A compact text form of the parse tree, so that tests can state the expected tree in one line.
#pragma once

#include <string>

#include "hook/shell/ast.h"

namespace toolcage::shell::testing {

// Words are [parts]; quoted literal text is '…'; other parts are {…}: {~user} {$name op}
// {$(script)} {$((expr)) subs} {<(script)} {glob *}. Commands are words and redirects joined by
// spaces; compound commands are kind(body | body …).
std::string dump(const Script& s);
std::string dump(const Word& w);

}  // namespace toolcage::shell::testing
