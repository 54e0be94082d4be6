#include "fleet/setting.h"

#include <unistd.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "common/self_exe.h"

namespace toolcage::fleet {

namespace {

constexpr std::size_t kMaxSettingBytes = 64 * 1024;

// <prefix>/share/toolcage beside the running binary (<prefix>/bin/toolcage), or in the build
// tree (<build>/share/toolcage beside <build>/toolcage).
std::vector<std::string> install_dirs() {
    const std::string& dir = self_exe_dir();
    if (dir.empty()) return {};
    std::string parent = dir.substr(0, dir.rfind('/'));
    return {parent + "/share/toolcage", dir + "/share/toolcage"};
}

}  // namespace

std::vector<std::string> fleet_setting_paths() {
    std::vector<std::string> out{"/etc/toolcage/fleet.json"};
    for (const auto& d : install_dirs()) out.push_back(d + "/fleet.json");
    return out;
}

FleetSetting read_fleet_setting(const std::string& file) {
    FleetSetting s;
    s.file = file;
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        s.error = file + ": cannot be read; check its permissions (it must be readable by every user "
                         "whose agents toolcage guards)";
        return s;
    }
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.size() > kMaxSettingBytes) {
        s.error = file + ": larger than 64 KiB; it holds {\"log\": {\"syslog\": \"tcp://IP:PORT\"}}";
        return s;
    }
    nlohmann::json doc = nlohmann::json::parse(text, nullptr, false, true);
    if (doc.is_discarded()) {
        s.error = file + ": not valid JSON; write {\"log\": {\"syslog\": \"tcp://IP:PORT\"}}";
        return s;
    }
    auto errors = fleet_setting_errors(doc, file);
    if (!errors.empty()) {
        s.error = errors.front();
        return s;
    }
    if (doc.contains("log") && doc["log"].contains("syslog")) {
        s.url = doc["log"]["syslog"].get<std::string>();
        std::string problem;
        s.syslog = read_syslog_url(s.url, problem);
    }
    return s;
}

const FleetSetting& fleet_setting() {
    static const FleetSetting s = [] {
        for (const auto& p : fleet_setting_paths())
            if (::access(p.c_str(), F_OK) == 0) return read_fleet_setting(p);
        return FleetSetting{};
    }();
    return s;
}

}  // namespace toolcage::fleet
