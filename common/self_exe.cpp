#include "common/self_exe.h"

#include <filesystem>
#include <system_error>

namespace toolcage {

const std::string& self_exe_dir() {
    static const std::string dir = [] {
        std::error_code ec;
        std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
        return ec ? std::string() : exe.parent_path().string();
    }();
    return dir;
}

}  // namespace toolcage
