// relay.credentials and relay.upstream_ca, checked before any step runs. The policy's own
// validation (common/policy_schema.cpp, common/relay_inspection.cpp) has refused what the file
// alone can say (an unknown `as`, a credential host that is not inspected); these need the
// machine: where the secret file lies and who can read it, what upstream_ca holds.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "lint/checks.h"

namespace toolcage::lint {
namespace {

std::string lexical(const std::string& path) {
    std::error_code ec;
    std::filesystem::path p = std::filesystem::weakly_canonical(path, ec);
    std::string s = (ec ? std::filesystem::path(path).lexically_normal() : p).string();
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    return s;
}

bool lies_in(const std::string& file, const std::string& dir) {
    return dir == "/" || file == dir || (file.starts_with(dir) && file[dir.size()] == '/');
}

}  // namespace

void check_inspection_fields(const LintInput& input, Findings& out, Findings& notes) {
    const std::string move_it =
        "move the file out of every cage.read, cage.write and cage.execute directory (e.g. to "
        "~/.config/toolcage-secrets/, mode 0600) and point secret_file at it";
    for (const auto& c : input.credentials) {
        const std::string field = c.field + "/secret_file";
        const std::string file = lexical(c.binding.secret_file);
        for (const auto& g : input.grants) {
            if (g.entry.find('{') != std::string::npos) continue;  // {workspace}, {tmp}: run checks
            if (!lies_in(file, lexical(g.entry))) continue;
            out.push_back({kInspectionField, c.file, field,
                           c.binding.secret_file + " lies in the step's grant \"" + g.entry +
                               "\" (" + g.file + " at " + g.field +
                               "), so the step could read the secret the relay keeps from it",
                           move_it});
        }
        struct stat st {};
        if (::stat(c.binding.secret_file.c_str(), &st) != 0) {
            notes.push_back({kInspectionField, c.file, field,
                             c.binding.secret_file +
                                 " is not there on this machine; the relay refuses to start "
                                 "a step without it",
                             "write the secret into it (one line, mode 0600) where the steps run",
                             true});
        } else if (!S_ISREG(st.st_mode)) {
            out.push_back({kInspectionField, c.file, field,
                           c.binding.secret_file + " is not a regular file",
                           "name the file that holds the secret"});
        } else if (st.st_mode & 077) {
            char mode[8];
            std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
            out.push_back(
                {kInspectionField, c.file, field,
                 c.binding.secret_file + " is mode " + mode + ": other users can read the secret",
                 "chmod 600 " + c.binding.secret_file});
        }
    }
    if (input.upstream_ca) {
        const PolicyEntry& ca = *input.upstream_ca;
        std::ifstream in(ca.entry, std::ios::binary);
        std::stringstream text;
        if (in) text << in.rdbuf();
        if (!in || text.str().find("-----BEGIN CERTIFICATE-----") == std::string::npos)
            out.push_back(
                {kInspectionField, ca.file, ca.field,
                 ca.entry + (in ? " holds no PEM certificate" : " cannot be read") +
                     "; the relay would refuse every inspected host's server",
                 "name a PEM file of the CA certificates that sign the inspected servers (a "
                 "company "
                 "proxy's, a test CA), or drop relay.upstream_ca to trust only the system's"});
    }
}

}  // namespace toolcage::lint
