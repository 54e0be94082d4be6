#include "hook/install/hermes_version.h"

#include <filesystem>
#include <fstream>

#include "hook/install/program_probe.h"

namespace toolcage::install {

namespace fs = std::filesystem;

std::optional<HermesVersion> parse_hermes_version(std::string_view s) { return parse_version(s); }

namespace {

// The program on a script's #! line (the first word after #!).
std::string interpreter_of(const std::string& script) {
    std::ifstream in(script);
    std::string line;
    if (!std::getline(in, line) || !line.starts_with("#!")) return {};
    line = line.substr(2);
    size_t b = line.find_first_not_of(" \t");
    if (b == std::string::npos) return {};
    size_t e = line.find_first_of(" \t\r", b);
    return line.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

}  // namespace

DetectedHermes detect_hermes(const std::string& given) {
    DetectedHermes d;
    if (!given.empty()) {
        d.version = parse_hermes_version(given);
        d.source = d.version ? "as given by --hermes-version"
                             : "--hermes-version " + given + ": not a version (expected X.Y.Z)";
        return d;
    }
    std::string hermes = find_on_path("hermes");
    if (hermes.empty()) {
        d.source =
            "no `hermes` on PATH; pass --hermes-version X.Y.Z to say which Hermes this is for";
        return d;
    }
    std::string python = interpreter_of(hermes);
    if (python.empty() ||
        fs::path(python).filename().string().find("python") == std::string::npos) {
        d.source = hermes + " is not a Python entry point; pass --hermes-version X.Y.Z";
        return d;
    }
    auto out = run_for_output(
        {python, "-c", "import sys, hermes_cli; sys.stdout.write(str(hermes_cli.__version__))"},
        20);
    if (out) d.version = parse_hermes_version(*out);
    d.source = d.version ? "hermes_cli.__version__ of " + hermes
                         : python + " could not tell hermes_cli.__version__ (for " + hermes +
                               "); pass --hermes-version X.Y.Z";
    return d;
}

std::string enforcement_report(const DetectedHermes& d) {
    if (!d.version)
        return "Hermes version unknown (" + d.source +
               "): toolcage claims nothing about what it enforces there.\n";
    const HermesVersion& v = *d.version;
    std::string out = "Hermes " + v.text + " (" + d.source + "):\n";
    if (!v.at_least(0, 19, 0)) {
        return out +
               "  older than 0.19.0, the first Hermes with tool_request middleware and plugin "
               "approvals: toolcage cannot cage or ask there and claims nothing; the plugin "
               "refuses "
               "every call it would cage. Upgrade Hermes.\n";
    }
    out +=
        "  plugin (first layer): blocks (pre_tool_call block), cages (tool_request middleware "
        "rewrite), asks a person through Hermes's approval gate (pre_tool_call approve; refused "
        "at once where no person can answer), blocks when toolcage fails or hangs\n";
    out += "  shell hook (second layer, for when the plugin is not loaded): blocks";
    if (v.at_least(0, 20, 2))
        out += ", cages (modify)";
    else
        out +=
            "; cannot cage (Hermes ignores its modify answer before 0.20.2): a caged command "
            "would run bare without the plugin";
    if (v.at_least(0, 20, 1))
        out += "; fail_closed: a hook that times out, is missing or answers non-JSON blocks";
    else
        out += "; no fail_closed (0.20.1): a hook that fails lets the call run";
    out += "; never asks a person (Hermes reads no approve from a shell hook)\n";
    return out;
}

}  // namespace toolcage::install
