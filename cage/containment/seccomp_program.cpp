#include <linux/filter.h>

#include "cage/containment/seccomp.h"

namespace toolcage::cage {

const SeccompProgram& compiled_seccomp_program(SeccompVariant variant) {
    static const SeccompProgram host{{
#include "cage/seccomp_program.inc"
    }};
    static const SeccompProgram private_network{{
#include "cage/seccomp_program_netns.inc"
    }};
    return variant == SeccompVariant::private_network ? private_network : host;
}

}  // namespace toolcage::cage
