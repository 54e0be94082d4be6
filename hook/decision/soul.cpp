#include "hook/decision/soul.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "common/analysis_budget.h"
#include "common/error.h"
#include "common/policy_loader.h"

namespace toolcage::hook {

namespace {

constexpr size_t kMaxSoulBytes = 1 << 20;

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view trim(std::string_view s) {
    while (!s.empty() && blank(s.front())) s.remove_prefix(1);
    while (!s.empty() && blank(s.back())) s.remove_suffix(1);
    return s;
}

std::string_view unquote(std::string_view s) {
    if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
        return s.substr(1, s.size() - 2);
    return s;
}

// Splits on \n; each line without its \r.
template <typename F>
void for_each_line(std::string_view text, F&& f) {
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (!f(line)) return;
        pos = end + 1;
    }
}

// `toolcage: VALUE` (key at column 0 of a front matter line, a YAML comment after the value).
std::optional<std::string> front_matter_value(std::string_view text) {
    if (!(text.starts_with("---\n") || text.starts_with("---\r\n"))) return std::nullopt;
    std::optional<std::string> found;
    bool first = true, closed = false;
    for_each_line(text, [&](std::string_view line) {
        if (first) {
            first = false;
            return true;
        }
        if (trim(line) == "---" || trim(line) == "...") {
            closed = true;
            return false;
        }
        if (!found && line.starts_with("toolcage")) {
            std::string_view rest = trim(line.substr(8));
            if (rest.starts_with(":")) {
                std::string_view v = rest.substr(1);
                if (size_t hash = v.find(" #"); hash != std::string_view::npos) v = v.substr(0, hash);
                found = std::string(unquote(trim(v)));
            }
        }
        return true;
    });
    return closed ? found : std::nullopt;
}

// The first `<!-- toolcage: VALUE -->` in the text.
std::optional<std::string> comment_value(std::string_view text) {
    size_t pos = 0;
    while ((pos = text.find("<!--", pos)) != std::string_view::npos) {
        size_t end = text.find("-->", pos + 4);
        if (end == std::string_view::npos) return std::nullopt;
        std::string_view body = trim(text.substr(pos + 4, end - pos - 4));
        if (body.starts_with("toolcage")) {
            std::string_view rest = trim(body.substr(8));
            if (rest.starts_with(":")) return std::string(unquote(trim(rest.substr(1))));
        }
        pos = end + 3;
    }
    return std::nullopt;
}

enum class ReadResult { ok, absent, failed };

// Reads up to kMaxSoulBytes; `error` gets the failing call and errno text.
ReadResult read_small_file(const std::string& path, std::string& out, std::string& error) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR) return ReadResult::absent;
        error = syscall_error("open(" + path + ", O_RDONLY)", errno);
        return ReadResult::failed;
    }
    out.clear();
    char buf[65536];
    while (out.size() < kMaxSoulBytes) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) continue;
            error = syscall_error("read(" + path + ")", errno);
            ::close(fd);
            return ReadResult::failed;
        }
        if (n == 0) break;
        out.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return ReadResult::ok;
}

PolicyChoice refuse(const std::string& step, const std::string& source, const std::string& error) {
    return {"", step, source, error};
}

}  // namespace

std::optional<SoulDirective> soul_directive(std::string_view text) {
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a UTF-8 byte order mark
    if (auto v = front_matter_value(text)) return SoulDirective{*v, "front matter"};
    if (auto v = comment_value(text)) return SoulDirective{*v, "comment"};
    return std::nullopt;
}

PolicyChoice choose_policy(const std::string& cli_policy, const std::string& profile_dir) {
    if (!cli_policy.empty()) return {cli_policy, "--policy on the command line", "", ""};
    if (!profile_dir.empty()) {
        const std::string soul = profile_dir + "/SOUL.md";
        std::string text, error;
        switch (read_small_file(soul, text, error)) {
            case ReadResult::failed:
                return refuse("SOUL.md", soul, error + "; make SOUL.md readable for the hook");
            case ReadResult::absent:
                break;
            case ReadResult::ok:
                if (auto d = soul_directive(text)) {
                    std::string step = "SOUL.md directive (" + d->form + ")";
                    if (!is_policy_name(d->value))
                        return refuse(step, soul,
                                      soul + ": toolcage directive \"" + d->value + "\" (" + d->form +
                                          ") is not a policy name; a directive names an installed "
                                          "policy (letters, digits, - and _), never a path");
                    return {d->value, step, soul, ""};
                }
        }
        const std::string cfg = profile_dir + "/toolcage.json";
        switch (read_small_file(cfg, text, error)) {
            case ReadResult::failed:
                return refuse("toolcage.json", cfg, error + "; make toolcage.json readable for the hook");
            case ReadResult::absent:
                break;
            case ReadResult::ok: {
                // Nested deeper than the bound, the parser is not run (it recurses a level).
                auto doc = budget::json_too_deep_at(text) != std::string_view::npos
                               ? nlohmann::json(nlohmann::json::value_t::discarded)
                               : nlohmann::json::parse(text, nullptr, false);
                if (doc.is_discarded() || !doc.is_object())
                    return refuse("toolcage.json", cfg,
                                  cfg + ": not a JSON object; write {\"policy\": \"NAME\"}");
                auto it = doc.find("policy");
                if (it == doc.end() || !it->is_string())
                    return refuse("toolcage.json", cfg,
                                  cfg + ": /policy: missing or not a string; write {\"policy\": \"NAME\"}");
                std::string name = it->get<std::string>();
                if (!is_policy_name(name))
                    return refuse("toolcage.json", cfg,
                                  cfg + ": /policy: \"" + name + "\" is not a policy name; name an "
                                  "installed policy (letters, digits, - and _), never a path");
                return {name, "toolcage.json beside SOUL.md", cfg, ""};
            }
        }
    }
    return {"default", "the default (no --policy, no SOUL.md directive, no toolcage.json)", "", ""};
}

std::string which_policy_report(const std::string& profile_dir) { return which_policy(profile_dir).text; }

WhichReport which_policy(const std::string& profile_dir) {
    WhichReport r;
    std::string dir = profile_dir;
    if (dir.empty()) {
        const char* h = std::getenv("HERMES_HOME");
        if (h && *h) dir = h;
    }
    if (dir.empty()) {
        char buf[4096];
        if (getcwd(buf, sizeof buf)) dir = buf;
    }
    std::string out = "profile directory: " + dir + "\n";
    struct stat st {};
    if (dir.empty() || ::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        r.no_profile_dir = true;
        out += "error: the profile directory does not exist; give an agent profile's directory "
               "(--profile-dir, or $HERMES_HOME)\n";
        r.text = out;
        return r;
    }
    PolicyChoice c = choose_policy("", dir);
    if (!c.error.empty()) {
        out += "policy: none (every call is refused)\n";
        out += "chosen by: " + c.step + (c.source.empty() ? "" : " in " + c.source) + "\n";
        out += "error: " + c.error + "\n";
        r.refuses_everything = true;
        r.text = out;
        return r;
    }
    out += "policy: " + c.policy + "\n";
    out += "chosen by: " + c.step + (c.source.empty() ? "" : " in " + c.source) + "\n";
    try {
        Policy p = load_policy(c.policy);
        out += "installed: " + p.file + "\n";
        if (p.mode == "audit")
            out += "mode: AUDIT (nothing is enforced: every call is allowed and only logged)\n";
    } catch (const Error& e) {
        out += std::string("installed: no (every call is refused): ") + e.what() + "\n";
        r.refuses_everything = true;
    }
    r.text = out;
    return r;
}

}  // namespace toolcage::hook
