// Build step: compiles the seccomp rule table with libseccomp once, at build time, and writes
// the BPF program as a C++ initializer list, so that `toolcage run` does not spend a
// millisecond and a half compiling the same table before every step.
// Usage: toolcage_seccomp_gen OUTPUT [host|netns]   (the variant: the step's network)
#include <cstdio>
#include <exception>
#include <string>

#include "cage/containment/seccomp.h"

int main(int argc, char** argv) {
    using toolcage::cage::SeccompVariant;
    std::string variant = argc == 3 ? argv[2] : "host";
    if ((argc != 2 && argc != 3) || (variant != "host" && variant != "netns")) {
        std::fprintf(stderr, "usage: %s OUTPUT [host|netns]\n", argv[0]);
        return 2;
    }
    try {
        auto prog = toolcage::cage::build_seccomp_program(
            variant == "netns" ? SeccompVariant::private_network : SeccompVariant::host_network);
        std::FILE* f = std::fopen(argv[1], "w");
        if (!f) {
            std::perror(argv[1]);
            return 1;
        }
        std::fprintf(f,
                     "// Generated from cage/containment/seccomp_rules.cpp by "
                     "toolcage_seccomp_gen. Do not edit.\n");
        for (const auto& ins : prog.code)
            std::fprintf(f, "{0x%04x, %u, %u, 0x%08x},\n", ins.code, ins.jt, ins.jf, ins.k);
        return std::fclose(f) == 0 ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "toolcage_seccomp_gen: %s\n", e.what());
        return 1;
    }
}
