#include "lint/report.h"

#include <nlohmann/json.hpp>

namespace toolcage::lint {

std::string text_report(const Findings& findings, const std::string& subject) {
    std::string out;
    std::size_t failures = 0;
    for (const auto& f : findings) {
        if (!f.note) ++failures;
        out += f.file + ": " + (f.field.empty() ? "" : f.field + ": ") + (f.note ? "note: " : "") +
               f.message + " [" + f.rule + "]\n  fix: " + f.fix + "\n";
    }
    if (failures == 0)
        out += subject + ": clean" +
               (findings.empty() ? "" : " (" + std::to_string(findings.size()) + " note(s))") + "\n";
    else
        out += subject + ": " + std::to_string(failures) + " finding(s)\n";
    return out;
}

nlohmann::json json_report(const Findings& findings) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& f : findings)
        list.push_back({{"rule", f.rule},
                        {"severity", f.note ? "note" : "error"},
                        {"file", f.file},
                        {"field", f.field},
                        {"message", f.message},
                        {"fix", f.fix}});
    return {{"clean", !failing(findings)}, {"findings", list}};
}

}  // namespace toolcage::lint
