// The one error type toolcage throws for things a user must fix.
// Its message always names the file or step, the field, and the fix.
#pragma once

#include <stdexcept>
#include <string>

namespace toolcage {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// "<what>(<args>): <strerror(errno)>", in the nsjail habit of naming the failing call as written.
std::string syscall_error(const std::string& call, int err);

}  // namespace toolcage
