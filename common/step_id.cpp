#include "common/step_id.h"

#include <sys/random.h>

#include <cerrno>

#include "common/error.h"

namespace toolcage {

std::string new_step_id() {
    unsigned char b[kStepIdLength / 2];
    std::size_t done = 0;
    while (done < sizeof b) {
        ssize_t n = ::getrandom(b + done, sizeof b - done, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw Error(syscall_error("getrandom(8 bytes) for a step's id", errno));
        done += static_cast<std::size_t>(n);
    }
    static const char hex[] = "0123456789abcdef";
    std::string id;
    for (unsigned char c : b) {
        id += hex[c >> 4];
        id += hex[c & 15];
    }
    return id;
}

bool is_step_id(std::string_view s) {
    if (s.size() != kStepIdLength) return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

}  // namespace toolcage
