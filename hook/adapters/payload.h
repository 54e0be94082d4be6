// Reading and writing the agents' JSON: field access whose errors name the field (a payload
// that is not what the agent sends fails closed), the files a V4A patch names, one line out.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace toolcage::hook {

// A payload that is not what the agent sends: missing field, wrong type. Fails closed.
class PayloadError : public Error {
public:
    using Error::Error;
};

// Field access that names the field in its error. `where` is the JSON pointer of `obj`.
const nlohmann::json& require_field(const nlohmann::json& obj, const std::string& where,
                                    const char* key);
std::string require_string(const nlohmann::json& obj, const std::string& where, const char* key);
const nlohmann::json& require_object(const nlohmann::json& obj, const std::string& where,
                                     const char* key);
// Empty when absent or null; throws when present with another type.
std::string optional_string(const nlohmann::json& obj, const std::string& where, const char* key);

// The files a V4A patch ("*** Begin Patch" ... "*** Add File: x", "*** Update File: x",
// "*** Delete File: x", "*** Move to: x") touches, in order, as written.
std::vector<std::string> patch_targets(std::string_view patch);

// One JSON document and a newline; bytes that are not UTF-8 are replaced, never thrown on.
std::string dump_line(const nlohmann::json& doc);

}  // namespace toolcage::hook
