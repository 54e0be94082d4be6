// Small helpers the lint's test files share: the message of an Error a call throws, and
// whether a text holds a part.
#pragma once

#include <functional>
#include <string>

#include "common/error.h"

namespace toolcage::lint::test {

// The message of the toolcage::Error `f` throws, or "" when it throws none.
inline std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const toolcage::Error& e) {
        return e.what();
    }
    return "";
}

inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace toolcage::lint::test
