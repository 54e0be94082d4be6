#include "hook/adapters/payload.h"

namespace toolcage::hook {

using nlohmann::json;

namespace {

std::string type_name(const json& v) { return v.type_name(); }

}  // namespace

const json& require_field(const json& obj, const std::string& where, const char* key) {
    if (!obj.is_object())
        throw PayloadError("payload " + where + ": expected an object, got " + type_name(obj));
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null())
        throw PayloadError("payload " + where + "/" + key + ": required field is missing");
    return *it;
}

std::string require_string(const json& obj, const std::string& where, const char* key) {
    const json& v = require_field(obj, where, key);
    if (!v.is_string())
        throw PayloadError("payload " + where + "/" + key + ": expected a string, got " +
                           type_name(v));
    return v.get<std::string>();
}

const json& require_object(const json& obj, const std::string& where, const char* key) {
    const json& v = require_field(obj, where, key);
    if (!v.is_object())
        throw PayloadError("payload " + where + "/" + key + ": expected an object, got " +
                           type_name(v));
    return v;
}

std::string optional_string(const json& obj, const std::string& where, const char* key) {
    if (!obj.is_object()) return {};
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return {};
    if (!it->is_string())
        throw PayloadError("payload " + where + "/" + key + ": expected a string, got " +
                           type_name(*it));
    return it->get<std::string>();
}

std::vector<std::string> patch_targets(std::string_view patch) {
    static constexpr std::string_view kMarkers[] = {"*** Add File:", "*** Update File:",
                                                   "*** Delete File:", "*** Move to:"};
    std::vector<std::string> out;
    size_t pos = 0;
    while (pos <= patch.size()) {
        size_t end = patch.find('\n', pos);
        if (end == std::string_view::npos) end = patch.size();
        std::string_view line = patch.substr(pos, end - pos);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        // Leading blanks are tolerated by the patch tools, so they are here too.
        while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
        for (auto marker : kMarkers) {
            if (line.starts_with(marker)) {
                std::string_view rest = line.substr(marker.size());
                while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t'))
                    rest.remove_prefix(1);
                while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t'))
                    rest.remove_suffix(1);
                out.emplace_back(rest);
            }
        }
        pos = end + 1;
    }
    return out;
}

std::string dump_line(const json& doc) {
    return doc.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace toolcage::hook
