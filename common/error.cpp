#include "common/error.h"

#include <cstring>

namespace toolcage {

std::string syscall_error(const std::string& call, int err) {
    return call + ": " + std::strerror(err);
}

}  // namespace toolcage
