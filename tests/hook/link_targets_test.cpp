// The agents' file tools are judged on the file they will really touch: symlinks in the
// workspace (which a caged step may make) resolved as the agent resolves them, a link first and
// `..` after it. A write through a link that leaves the workspace is refused, whatever it points
// at; a read through a link is judged as a read of its target; the workspace's own files stay
// allowed. Each agent, each file tool, a link at every position of the path, on real files.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <functional>

#include "fixture.h"

using namespace toolcage::test;
using nlohmann::json;

namespace {

// The verdict an agent reads from the hook's answer, and the words that came with it.
struct Seen {
    std::string decision;  // allow, ask or deny
    std::string text;      // the rule and the reason, as the agent shows them
};

Seen seen_hermes(const RunResult& r) {
    if (r.exit_code == 0 && r.out == "{}\n") return {"allow", ""};
    json out = parse_out(r);
    if (!out.is_object()) return {"malformed: " + r.out + r.err, ""};
    std::string action = out.value("action", "");
    return {action == "block"     ? "deny"
            : action == "approve" ? "ask"
                                  : "other: " + r.out,
            out.value("message", "")};
}

Seen seen_claude(const RunResult& r) {
    if (r.exit_code == 0 && r.out == "{}\n") return {"allow", ""};
    json out = parse_out(r);
    if (!out.is_object() || !out.contains("hookSpecificOutput"))
        return {"malformed: " + r.out + r.err, ""};
    const json& h = out["hookSpecificOutput"];
    return {h.value("permissionDecision", ""), h.value("permissionDecisionReason", "")};
}

Seen seen_openclaw(const RunResult& r) {
    json out = parse_out(r);
    if (!out.is_object()) return {"malformed: " + r.out + r.err, ""};
    return {out.value("decision", ""), out.value("rule", "") + ": " + out.value("reason", "")};
}

// One file tool of one agent: the payload that touches `path` (relative to the workspace, or
// absolute for Claude Code, whose tools take absolute paths) and how its answer reads.
struct FileTool {
    std::string name;
    bool writes;
    std::function<json(const std::string& path, const std::string& ws)> payload;
    std::function<Seen(const RunResult&)> seen;
};

std::vector<FileTool> file_tools() {
    auto claude = [](const std::string& tool, const std::string& field, json extra, bool writes) {
        return FileTool{"claude " + tool, writes,
                        [=](const std::string& p, const std::string& ws) {
                            json input = extra;
                            input[field] = p.starts_with("/") ? p : ws + "/" + p;
                            return claude_payload(tool, input, ws);
                        },
                        seen_claude};
    };
    auto hermes = [](const std::string& tool, json extra, bool writes) {
        return FileTool{"hermes " + tool, writes,
                        [=](const std::string& p, const std::string& ws) {
                            json input = extra;
                            input["path"] = p;
                            return hermes_payload(tool, input, ws);
                        },
                        seen_hermes};
    };
    auto openclaw = [](const std::string& tool, json extra, bool writes = true) {
        return FileTool{"openclaw " + tool, writes,
                        [=](const std::string& p, const std::string& ws) {
                            json params = extra;
                            params["path"] = p;
                            return openclaw_payload(tool, params, ws);
                        },
                        seen_openclaw};
    };
    return {
        hermes("write_file", {{"content", "x"}}, true),
        hermes("patch", {{"mode", "replace"}, {"old_string", "a"}, {"new_string", "b"}}, true),
        {"hermes patch (V4A)", true,
         [](const std::string& p, const std::string& ws) {
             return hermes_payload(
                 "patch",
                 {{"mode", "patch"},
                  {"patch", "*** Begin Patch\n*** Add File: " + p + "\n+x\n*** End Patch\n"}},
                 ws);
         },
         seen_hermes},
        hermes("read_file", json::object(), false),
        hermes("search_files", {{"pattern", "BEGIN"}}, false),
        claude("Write", "file_path", {{"content", "x"}}, true),
        claude("Edit", "file_path", {{"old_string", "a"}, {"new_string", "b"}}, true),
        claude("MultiEdit", "file_path", {{"edits", json::array()}}, true),
        claude("NotebookEdit", "notebook_path", {{"new_source", "x"}}, true),
        claude("Read", "file_path", json::object(), false),
        claude("Grep", "path", {{"pattern", "BEGIN"}}, false),
        claude("Glob", "path", {{"pattern", "*"}}, false),
        openclaw("write", {{"content", "x"}}),
        openclaw("edit", {{"oldText", "a"}, {"newText", "b"}}),
        openclaw("read", json::object(), false),
        openclaw("grep", {{"pattern", "BEGIN"}}, false),
        {"openclaw apply_patch", true,
         [](const std::string& p, const std::string& ws) {
             return openclaw_payload(
                 "apply_patch",
                 {{"input", "*** Begin Patch\n*** Add File: " + p + "\n+x\n*** End Patch\n"}}, ws);
         },
         seen_openclaw},
    };
}

// The workspace with links a caged step could have made, toward the home's start-up files, its
// credentials and a harmless directory outside.
struct LinkedWorkspace : HookFixture {
    std::string outside = root / "outside";

    LinkedWorkspace() {
        make_dirs(home + "/.cache");
        make_dirs(home + "/.aws");
        make_dirs(outside);
        make_dirs(ws + "/sub");
        write_file(home + "/.bashrc", "# the home's start-up file\n");
        write_file(home + "/.aws/credentials", "[default]\naws_secret_access_key = x\n");
        write_file(outside + "/harmless.txt", "x\n");
        write_file(ws + "/plain.txt", "x\n");
        write_file(ws + "/sub/file.txt", "x\n");
        link(home + "/.cache", "k");               // a directory outside, by absolute path
        link("k/../.bashrc", "notes.md");          // a file: a link, then `..` after it
        link("k/..", "d");                         // a directory: the home, through k
        link(home + "/.aws/credentials", "cred");  // a secret
        link("cred", "l2");                        // a link to that link
        link(home + "/.profile", "dang");          // dangling: the write would make ~/.profile
        link("fresh.txt", "dang_in");              // dangling inside the workspace
        link("loop2", "loop1");                    // a loop
        link("loop1", "loop2");
        link("sub", "inner");   // a directory inside
        link(outside, "away");  // a harmless directory outside
    }

    void link(const std::string& target, const std::string& name) const {
        REQUIRE(::symlink(target.c_str(), (ws + "/" + name).c_str()) == 0);
    }

    Seen judge(const FileTool& tool, const std::string& path) const {
        auto r = hook(tool.payload(path, ws));
        return tool.seen(r);
    }
};

}  // namespace

TEST_CASE(
    "file tools: a write through a link that leaves the workspace is refused, naming the link",
    "[links]") {
    LinkedWorkspace f;
    // Each path leaves the workspace through a link somewhere on its way.
    const char* escaping[] = {
        "k/../.bashrc",             // a parent link, `..` after it: the home's .bashrc
        "notes.md",                 // the final name a link to k/../.bashrc
        "d/.bash_login",            // a parent link whose own target passes a link
        "k/x",                      // into ~/.cache: harmless, but the link may change
        "dang",                     // a dangling link out: the write creates ~/.profile
        "away/harmless.txt",        // a harmless directory outside
        "sub/../k/../.bashrc",      // `..` of a real directory, then a link
        "missing/../k/../.bashrc",  // a name that does not exist yet, then a link
        "inner/../d/.profile",      // a link inside, then one out
    };
    for (const auto& tool : file_tools()) {
        if (!tool.writes) continue;
        for (const char* path : escaping) {
            INFO(tool.name << " " << path);
            Seen s = f.judge(tool, path);
            CHECK(s.decision == "deny");
            CHECK(s.text.find("file.link-escape") != std::string::npos);
            CHECK(s.text.find("refusing to write through a link that leaves the workspace") !=
                  std::string::npos);
        }
    }
    // The message names the link, where it leads and the file the tool would write.
    Seen s = f.judge(file_tools()[0], "k/../.bashrc");
    INFO(s.text);
    CHECK(s.text.find("through the link k -> " + f.home + "/.cache to " + f.home + "/.bashrc") !=
          std::string::npos);
    CHECK(s.text.find("outside the workspace " + f.ws) != std::string::npos);
    // Nothing was written, and the home's file is as it was.
    CHECK(read_file(f.home + "/.bashrc") == "# the home's start-up file\n");
}

TEST_CASE("file tools: a loop of links is refused, reads and writes", "[links]") {
    LinkedWorkspace f;
    for (const auto& tool : file_tools())
        for (const char* path : {"loop1", "loop1/x", "sub/../loop2"}) {
            INFO(tool.name << " " << path);
            Seen s = f.judge(tool, path);
            CHECK(s.decision == "deny");
            CHECK(s.text.find("file.unresolvable") != std::string::npos);
            CHECK(s.text.find("more than 40 symlinks") != std::string::npos);
        }
}

TEST_CASE("file tools: the workspace's own files, links inside it included, are still allowed",
          "[links]") {
    LinkedWorkspace f;
    for (const auto& tool : file_tools())
        for (const char* path :
             {"plain.txt", "sub/file.txt", "inner/file.txt", "inner/../plain.txt", "dang_in",
              "new/dir/file.txt", "sub/../new.txt"}) {
            INFO(tool.name << " " << path);
            Seen s = f.judge(tool, path);
            CHECK(s.decision == "allow");
        }
}

TEST_CASE("file tools: a read through a link is judged as a read of its target", "[links]") {
    LinkedWorkspace f;
    for (const auto& tool : file_tools()) {
        if (tool.writes) continue;
        // Links to the credentials, at every position: refused (asked or denied) as a direct read
        // is.
        std::string direct = f.judge(tool, f.home + "/.aws/credentials").decision;
        INFO(tool.name);
        CHECK(direct != "allow");
        for (const char* path :
             {"cred", "l2", "k/../.aws/credentials", "d/.aws/credentials", "inner/../cred"}) {
            INFO(path);
            Seen s = f.judge(tool, path);
            CHECK(s.decision == direct);
            CHECK(s.text.find(f.home + "/.aws/credentials") != std::string::npos);
        }
        // A read through a link to a harmless file outside is a read of that file.
        CHECK(f.judge(tool, "away/harmless.txt").decision == "allow");
    }
}
