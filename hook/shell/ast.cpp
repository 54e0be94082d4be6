// Word helpers the classifier uses to ask what a word statically is.
#include "hook/shell/ast.h"

namespace toolcage::shell {

bool Word::known() const {
    for (const WordPart& p : parts) {
        if (p.kind != PartKind::literal) return false;
    }
    return true;
}

std::string Word::literal() const {
    std::string out;
    for (const WordPart& p : parts) {
        if (p.kind == PartKind::literal) out += p.text;
    }
    return out;
}

}  // namespace toolcage::shell
