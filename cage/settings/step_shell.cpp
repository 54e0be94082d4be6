#include "cage/settings/step_shell.h"

#include <filesystem>

namespace toolcage::cage {

std::vector<std::string> step_argv(const std::vector<std::string>& argv) {
    if (argv.size() < 2 || argv[1] != "-c" || std::filesystem::path(argv[0]).filename() != "bash") return argv;
    std::vector<std::string> out = argv;
    out.insert(out.begin() + 1, "--norc");
    return out;
}

}  // namespace toolcage::cage
