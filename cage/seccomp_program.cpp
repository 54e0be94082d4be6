#include <linux/filter.h>

#include "cage/seccomp.h"

namespace toolcage::cage {

const SeccompProgram& compiled_seccomp_program() {
    static const SeccompProgram prog{{
#include "cage/seccomp_program.inc"
    }};
    return prog;
}

}  // namespace toolcage::cage
