#include "cage/step/workspace.h"

#include <filesystem>
#include <system_error>

#include "common/error.h"

namespace fs = std::filesystem;

namespace toolcage::cage {

std::string expand_placeholders(const std::string& entry, const StepPaths& paths) {
    std::string out;
    for (std::size_t i = 0; i < entry.size();) {
        if (entry[i] != '{') {
            out += entry[i++];
            continue;
        }
        auto close = entry.find('}', i);
        if (close == std::string::npos)
            throw Error("cage path \"" + entry +
                        "\": unclosed '{'; use {workspace}, {tmp} or {home}");
        std::string name = entry.substr(i + 1, close - i - 1);
        if (name == "workspace") {
            out += paths.workspace;
        } else if (name == "tmp") {
            out += paths.tmp;
        } else if (name == "home") {
            if (paths.home.empty()) return {};
            out += paths.home;
        } else {
            throw Error("cage path \"" + entry + "\": unknown placeholder {" + name +
                        "}; use {workspace}, {tmp} or {home}");
        }
        i = close + 1;
    }
    if (out.empty() || out[0] != '/')
        throw Error("cage path \"" + entry + "\" expands to \"" + out +
                    "\", which is not absolute; write an absolute path or start with a "
                    "placeholder");
    std::string norm = fs::path(out).lexically_normal().string();
    if (norm.size() > 1 && norm.back() == '/') norm.pop_back();
    return norm;
}

bool cage_reads(const ExpandedCage& cage, const std::string& path) {
    for (const auto& dir : cage.read)
        if (dir == "/" || path == dir ||
            (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/'))
            return true;
    return false;
}

static void expand_list(const std::vector<std::string>& in, std::vector<std::string>& out,
                        const StepPaths& paths, std::vector<std::string>& notes) {
    for (const auto& e : in) {
        std::string x = expand_placeholders(e, paths);
        if (x.empty()) {
            notes.push_back("\"" + e + "\" left out: HOME is not set");
            continue;
        }
        out.push_back(std::move(x));
    }
}

ExpandedCage expand_cage_policy(const CagePolicy& cage, const StepPaths& paths) {
    ExpandedCage x;
    expand_list(cage.read, x.read, paths, x.notes);
    expand_list(cage.write, x.write, paths, x.notes);
    expand_list(cage.execute, x.execute, paths, x.notes);
    // Values of env_set may name paths too ({workspace}/node_modules/.bin); a value that is
    // not a path keeps its text as written.
    for (const auto& [k, v] : cage.env_set) {
        if (v.find('{') == std::string::npos) {
            x.env_set[k] = v;
            continue;
        }
        std::string val;
        for (std::size_t i = 0; i < v.size();) {
            auto open = v.find('{', i);
            if (open == std::string::npos) {
                val += v.substr(i);
                break;
            }
            val += v.substr(i, open - i);
            auto close = v.find('}', open);
            std::string name =
                close == std::string::npos ? "" : v.substr(open + 1, close - open - 1);
            if (name == "workspace")
                val += paths.workspace;
            else if (name == "tmp")
                val += paths.tmp;
            else if (name == "home")
                val += paths.home;
            else
                throw Error("cage env_set " + k + "=\"" + v +
                            "\": unknown placeholder; use {workspace}, {tmp} or {home}");
            i = close + 1;
        }
        x.env_set[k] = val;
    }
    return x;
}

void make_missing_home_dirs(const ExpandedCage& cage, const std::string& home) {
    if (home.empty() || home == "/") return;
    for (const auto& w : cage.write) {
        if (w.size() <= home.size() + 1 || w.compare(0, home.size(), home) != 0 || w[home.size()] != '/')
            continue;
        std::error_code ec;
        if (std::filesystem::exists(w, ec)) continue;
        std::filesystem::create_directories(w, ec);
        if (!ec) std::filesystem::permissions(w, std::filesystem::perms::owner_all, ec);
    }
}

}  // namespace toolcage::cage
