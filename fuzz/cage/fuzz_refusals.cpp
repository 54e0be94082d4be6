// libFuzzer target: what a caged program writes on its stderr, and the text of kernel audit
// records, as the cage reads them after a step to say what it refused (cage/explain/refusals.h).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "cage/containment/landlock_uapi.h"
#include "cage/explain/refusals.h"

using namespace toolcage::cage;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view bytes(reinterpret_cast<const char*>(data), size);
    static const StepPaths paths{"/w/sub", "/w", "/tmp/step", "/home/u"};
    static const LandlockPlan plan = [] {
        LandlockPlan p;
        p.rules = {{"/usr", toolcage::landlock::kFsReadFile | toolcage::landlock::kFsReadDir, true},
                   {"/w", toolcage::landlock::fs_rights_for_abi(5), true}};
        return p;
    }();
    std::vector<std::string> lines;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= bytes.size(); ++i)
        if (i == bytes.size() || bytes[i] == '\n') {
            lines.emplace_back(bytes.substr(start, i - start));
            start = i + 1;
        }
    for (const auto& r : stderr_refusals(lines, plan, paths, size % 2 == 0)) {
        if (r.field.empty() || r.fix.empty())
            std::abort();  // every refusal names a field and a fix
        if (refusal_line(r).find('\n') != std::string::npos &&
            r.target.find('\n') == std::string::npos)
            std::abort();
    }
    for (const auto& r : audit_record_refusals(bytes, paths))
        if (r.access.empty()) std::abort();
    return 0;
}
