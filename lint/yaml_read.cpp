#include "lint/yaml_read.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include "common/error.h"

namespace toolcage::lint::yaml {
namespace {

// Policy and provider files are a few kilobytes; a far larger file is not one of them.
constexpr std::size_t kMaxFileBytes = 16u << 20;

std::string lower(std::string s) {
    for (auto& c : s)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return s;
}

std::uint32_t port_number(const YAML::Node& node, const std::string& file, const std::string& field) {
    std::string text = node.IsScalar() ? node.Scalar() : "";
    bool digits = !text.empty() && text.size() <= 5 &&
                  text.find_first_not_of("0123456789") == std::string::npos;
    unsigned long n = digits ? std::stoul(text) : 0;
    if (n < 1 || n > 65535) fail(file, field, "\"" + text + "\" is not a port", "write a number from 1 to 65535");
    return static_cast<std::uint32_t>(n);
}

}  // namespace

void fail(const std::string& file, const std::string& field, const std::string& what,
          const std::string& fix) {
    throw Error(file + (field.empty() ? "" : ": " + field) + ": " + what + "; " + fix);
}

std::string read_text(const std::string& path, const std::string& what) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        int err = errno;
        fail(path, "", "cannot read " + what + ": " + std::strerror(err),
             "check the path and that this user may read the file");
    }
    std::ostringstream s;
    s << in.rdbuf();
    if (in.bad()) fail(path, "", "cannot read " + what, "check that the file is readable");
    std::string text = s.str();
    if (text.size() > kMaxFileBytes)
        fail(path, "", what + " of " + std::to_string(text.size()) + " bytes",
             "give the file itself (at most 16 MiB), not an archive or a log");
    return text;
}

// yaml-cpp 0.7's LoadAll never returns on some malformed streams (",`" loops, allocating), so
// documents are split here, at the `---` and `...` lines that YAML itself reads as document
// boundaries at column 0, and each is loaded alone.
std::vector<YAML::Node> load_all(const std::string& text, const std::string& file) {
    std::vector<YAML::Node> docs;
    std::istringstream in(text);
    std::string line, doc;
    int line_no = 0, first_line = 1;
    bool has_content = false;
    auto load = [&] {
        if (has_content) {
            try {
                YAML::Node node = YAML::Load(doc);
                // Load reads a stream it cannot make sense of as null; content is never null.
                if (node.IsNull())
                    fail(file, "line " + std::to_string(first_line), "not valid YAML (nothing could be read)",
                         "write the policy as YAML maps and lists, as OpenShell's examples do");
                docs.push_back(node);
            } catch (const YAML::Exception& e) {
                std::string where = e.mark.is_null() ? ""
                                                     : "line " + std::to_string(first_line + e.mark.line) +
                                                           ", column " + std::to_string(e.mark.column + 1);
                fail(file, where, "not valid YAML (" + e.msg + ")",
                     "fix the YAML at that place (indentation, an unclosed quote or bracket)");
            }
        }
        doc.clear();
        has_content = false;
        first_line = line_no + 1;
    };
    while (std::getline(in, line)) {
        ++line_no;
        bool boundary = line == "---" || line.starts_with("--- ") || line == "..." ||
                        line.starts_with("... ");
        if (boundary) {
            load();
            if (line.starts_with("--- ")) {  // `--- value`: the document starts on this line
                doc = std::string(4, ' ') + line.substr(4) + "\n";
                first_line = line_no;
                has_content = true;
            }
            continue;
        }
        std::string trimmed = line.substr(std::min(line.size(), line.find_first_not_of(" \t\r")));
        if (!trimmed.empty() && trimmed[0] != '#' && trimmed[0] != '%') has_content = true;
        doc += line + "\n";
    }
    load();
    return docs;
}

std::string scalar(const YAML::Node& map, const char* key, const std::string& file,
                   const std::string& field) {
    const YAML::Node node = map[key];
    if (!node.IsDefined() || node.IsNull()) return "";
    if (!node.IsScalar())
        fail(file, field + "." + key, "must be a single value, not a list or a map",
             std::string("write `") + key + ": VALUE`");
    return node.Scalar();
}

bool boolean(const YAML::Node& map, const char* key, const std::string& file, const std::string& field) {
    std::string v = lower(scalar(map, key, file, field));
    if (v.empty() || v == "false") return false;
    if (v == "true") return true;
    fail(file, field + "." + key, "\"" + v + "\" is not true or false", "write true or false");
}

Endpoint endpoint(const YAML::Node& node, const std::string& file, const std::string& field) {
    if (!node.IsMap())
        fail(file, field, "an endpoint is a map", "write `- host: api.example.com` and `port: 443`");
    Endpoint e;
    e.field = field;
    e.host = lower(scalar(node, "host", file, field));
    if (const YAML::Node p = node["port"]; p.IsDefined() && !p.IsNull())
        e.ports.push_back(port_number(p, file, field + ".port"));
    if (const YAML::Node ps = node["ports"]; ps.IsDefined() && !ps.IsNull()) {
        if (!ps.IsSequence()) fail(file, field + ".ports", "must be a list", "write `ports: [443, 8443]`");
        for (std::size_t i = 0; i < ps.size(); ++i)
            e.ports.push_back(port_number(ps[i], file, field + ".ports[" + std::to_string(i) + "]"));
    }
    if (e.ports.empty())
        fail(file, field, "no port (OpenShell requires one)", "add `port: 443` (or `ports: [...]`)");
    e.path = scalar(node, "path", file, field);
    e.protocol = lower(scalar(node, "protocol", file, field));
    e.tls = lower(scalar(node, "tls", file, field));
    e.enforcement = lower(scalar(node, "enforcement", file, field));
    e.access = lower(scalar(node, "access", file, field));
    e.allow_uninspected_credentials = boolean(node, "allow_uninspected_credentials", file, field);
    if (const YAML::Node ips = node["allowed_ips"]; ips.IsDefined() && !ips.IsNull()) {
        if (!ips.IsSequence())
            fail(file, field + ".allowed_ips", "must be a list", "write `allowed_ips: [\"10.0.0.0/8\"]`");
        for (std::size_t i = 0; i < ips.size(); ++i)
            e.allowed_ips.push_back(lower(ips[i].IsScalar() ? ips[i].Scalar() : ""));
    }
    if (const YAML::Node b = node["credential_binding"]; b.IsDefined() && !b.IsNull()) {
        if (!b.IsMap())
            fail(file, field + ".credential_binding", "must be a map",
                 "write `credential_binding: {provider: NAME}`");
        e.credential_binding = scalar(b, "provider", file, field + ".credential_binding");
    }
    return e;
}

std::vector<std::string> binaries(const YAML::Node& node, const std::string& file,
                                  const std::string& field) {
    std::vector<std::string> out;
    if (!node.IsDefined() || node.IsNull()) return out;
    if (!node.IsSequence())
        fail(file, field, "must be a list", "write `binaries:` then `- path: /usr/bin/program`");
    for (std::size_t i = 0; i < node.size(); ++i) {
        std::string f = field + "[" + std::to_string(i) + "]";
        if (node[i].IsScalar())
            out.push_back(node[i].Scalar());
        else if (node[i].IsMap())
            out.push_back(scalar(node[i], "path", file, f));
        else
            fail(file, f, "a binary is `path: /absolute/program`", "write `- path: /usr/bin/program`");
    }
    return out;
}

}  // namespace toolcage::lint::yaml
