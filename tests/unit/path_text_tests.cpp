// normal_path is plain string work standing in for std::filesystem::path::lexically_normal
// (trailing slashes dropped): the same answer for every path made of the parts that matter.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "common/path_text.h"

using toolcage::normal_path;

namespace {

std::string reference(const std::string& p) {
    std::string n = std::filesystem::path(p).lexically_normal().string();
    while (n.size() > 1 && n.back() == '/') n.pop_back();
    return n;
}

}  // namespace

TEST_CASE("normal_path on the cases a caller meets", "[path_text]") {
    CHECK(normal_path("/") == "/");
    CHECK(normal_path("//") == "/");
    CHECK(normal_path("/..") == "/");
    CHECK(normal_path("/a/../../b/") == "/b");
    CHECK(normal_path("/home/u/./.ssh//id") == "/home/u/.ssh/id");
    CHECK(normal_path("a/..") == ".");
    CHECK(normal_path("../a/./b/..") == "../a");
    CHECK(normal_path("") == "");
}

TEST_CASE("normal_path agrees with lexically_normal on every path of up to five parts", "[path_text]") {
    const std::vector<std::string> parts = {"", ".", "..", "a", "bc", "..."};
    std::size_t checked = 0;
    for (int len = 0; len <= 5; ++len) {
        std::size_t total = 1;
        for (int i = 0; i < len; ++i) total *= parts.size();
        for (std::size_t code = 0; code < total; ++code) {
            std::size_t c = code;
            std::string rel;
            for (int i = 0; i < len; ++i) {
                if (i > 0) rel += '/';
                rel += parts[c % parts.size()];
                c /= parts.size();
            }
            for (const std::string& p : {rel, "/" + rel, rel + "/"}) {
                INFO("path: \"" << p << "\"");
                CHECK(normal_path(p) == reference(p));
                ++checked;
            }
        }
    }
    CHECK(checked > 20000);
}
