#include "common/policy_schema.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <set>

#include "common/address_range.h"
#include "common/error.h"
#include "common/hermes_channels.h"
#include "common/host_names.h"

namespace toolcage {

using nlohmann::json;

namespace {

// One validation failure: where (file and JSON pointer), what was found, and the fix.
[[noreturn]] void fail(const std::string& file, const std::string& pointer, const json* value,
                       const std::string& problem) {
    std::string msg = file + ": " + (pointer.empty() ? "/" : pointer) + ": ";
    if (value) msg += value->dump() + ": ";
    throw Error(msg + problem);
}

// `toolcage policy validate` wants every error in one run; the hook wants the first, fast.
// While a collector is set, each independent check (a field, a list entry, a rule) that fails
// adds its error and the checks go on; otherwise the first failure throws.
thread_local std::vector<std::string>* t_errors = nullptr;

// Thrown (only while collecting) to stop checks whose errors are already collected.
struct AlreadyReported {};

template <class F>
void each(F&& check) {
    if (!t_errors) {
        check();
        return;
    }
    try {
        check();
    } catch (const Error& e) {
        t_errors->push_back(e.what());
    } catch (const AlreadyReported&) {
    } catch (const nlohmann::json::exception&) {
        // A value of the wrong type, read by a later check: its error is already collected.
    }
}

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
}

void only_keys(const json& obj, const std::vector<std::string>& known, const std::string& file,
               const std::string& ptr) {
    for (auto it = obj.begin(); it != obj.end(); ++it)
        if (std::find(known.begin(), known.end(), it.key()) == known.end())
            each([&] {
                fail(file, ptr + "/" + it.key(), nullptr,
                     "unknown field; known fields here are " + join(known) +
                         " (check the spelling)");
            });
}

void need(bool ok, const json& v, const std::string& file, const std::string& ptr,
          const std::string& problem) {
    if (!ok) fail(file, ptr, &v, problem);
}

void check_decision(const json& v, const std::string& file, const std::string& ptr) {
    need(v.is_string() && decision_from_string(v.get<std::string>()), v, file, ptr,
         "not a verdict; use one of allow, cage, ask, deny");
}

std::string at(const std::string& ptr, std::size_t i) {
    return ptr + "/" + std::to_string(i);
}

void check_string_list(const json& v, const std::string& file, const std::string& ptr) {
    need(v.is_array(), v, file, ptr, "must be a list of strings, e.g. [\"a\", \"b\"]");
    bool bad = false;
    for (std::size_t i = 0; i < v.size(); ++i)
        if (!v[i].is_string() || v[i].get_ref<const std::string&>().empty()) {
            bad = true;
            each([&] { fail(file, at(ptr, i), &v[i], "must be a non-empty string"); });
        }
    // What follows reads the entries as strings: stop here (the errors are collected).
    if (bad) throw AlreadyReported{};
}

bool is_rule_id(const std::string& s) {
    if (s.empty() || s.size() > 80) return false;
    return std::all_of(s.begin(), s.end(), [](unsigned char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
    });
}

// A cage path is absolute, or starts with one of the placeholders `toolcage run` expands.
void check_cage_paths(const json& v, const std::string& file, const std::string& ptr) {
    check_string_list(v, file, ptr);
    for (std::size_t i = 0; i < v.size(); ++i)
        each([&] {
            const std::string& s = v[i].get_ref<const std::string&>();
            // Pointers are built only on failure: policies are loaded before every tool call.
            if (s.front() == '{') {
                auto close = s.find('}');
                std::string_view ph(s.data(), close == std::string::npos ? s.size() : close + 1);
                if (ph != "{workspace}" && ph != "{tmp}" && ph != "{home}")
                    fail(file, at(ptr, i), &v[i],
                         "unknown placeholder; use {workspace}, {tmp} or {home}, or an absolute "
                         "path");
                if (close + 1 != s.size() && s[close + 1] != '/')
                    fail(file, at(ptr, i), &v[i],
                         "a placeholder must be followed by / or end the path");
            } else if (s.front() != '/') {
                fail(file, at(ptr, i), &v[i],
                     "must be an absolute path or start with {workspace}, {tmp} or {home}");
            }
            if (s.find("/../") != std::string::npos || s.ends_with("/.."))
                fail(file, at(ptr, i), &v[i], "must not contain \"..\"; name the directory itself");
        });
}

void check_rules(const json& v, const std::string& file, const std::string& ptr) {
    need(v.is_array(), v, file, ptr, "must be a list of rule objects");
    for (std::size_t i = 0; i < v.size(); ++i)
        each([&] {
            const json& r = v[i];
            std::string p = ptr + "/" + std::to_string(i);
            need(r.is_object(), r, file, p,
                 "must be an object like {\"program\": \"restic\", \"words\": [\"forget\"], "
                 "\"verdict\": \"deny\", \"reason\": \"…\"}");
            only_keys(r,
                      {"id", "program", "words", "args", "paths", "verdict", "reason", "match",
                       "not_match"},
                      file, p);
            for (const char* k : {"program", "verdict", "reason"})
                if (!r.contains(k))
                    fail(file, p, nullptr,
                         std::string("missing \"") + k +
                             "\"; every rule needs program, verdict and reason");
            if (r.contains("id"))
                need(r["id"].is_string() && is_rule_id(r["id"].get<std::string>()), r["id"], file,
                     p + "/id",
                     "a rule id is lowercase letters, digits, '.', '-' and '_', e.g. "
                     "\"forge.no-docker\"");
            if (r.contains("words")) {
                check_string_list(r["words"], file, p + "/words");
                for (std::size_t j = 0; j < r["words"].size(); ++j) {
                    const std::string& w = r["words"][j].get_ref<const std::string&>();
                    need(w.find_first_of(" \t\n*?[") == std::string::npos, r["words"][j], file,
                         p + "/words/" + std::to_string(j),
                         "a word is one argument as written (\"forget\", \"--prune\"), no spaces "
                         "or patterns; "
                         "patterns go in \"args\"");
                }
            }
            for (const char* k : {"match", "not_match"})
                if (r.contains(k)) {
                    check_string_list(r[k], file, p + "/" + k);
                    need(r[k].size() <= 64, r[k], file, p + "/" + k, "at most 64 examples a rule");
                    for (std::size_t j = 0; j < r[k].size(); ++j)
                        need(r[k][j].get_ref<const std::string&>().size() <= 4096, r[k][j], file,
                             p + "/" + k + "/" + std::to_string(j),
                             "an example is one command of at most 4096 bytes");
                }
            need(r["program"].is_string() && !r["program"].get<std::string>().empty() &&
                     r["program"].get<std::string>().find('/') == std::string::npos,
                 r["program"], file, p + "/program",
                 "must be a program name without a path, e.g. \"docker\"");
            check_decision(r["verdict"], file, p + "/verdict");
            need(r["reason"].is_string() && !r["reason"].get<std::string>().empty(), r["reason"],
                 file, p + "/reason", "must be a one-line reason a person understands");
            if (r.contains("args")) check_string_list(r["args"], file, p + "/args");
            if (r.contains("paths")) {
                check_string_list(r["paths"], file, p + "/paths");
                for (std::size_t j = 0; j < r["paths"].size(); ++j)
                    need(path_class_from_string(r["paths"][j].get<std::string>()).has_value(),
                         r["paths"][j], file, p + "/paths/" + std::to_string(j),
                         "not a path class; use workspace, workspace_root, git_dir, temp, home, "
                         "system, root or unknown");
            }
        });
}

void check_int(const json& v, long lo, long hi, const std::string& file, const std::string& ptr) {
    need(v.is_number_integer() && v.get<long>() >= lo && v.get<long>() <= hi, v, file, ptr,
         "must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
}

void check_cage(const json& c, const std::string& file, const std::string& ptr) {
    need(c.is_object(), c, file, ptr, "must be an object");
    only_keys(c,
              {"read", "write", "execute", "env_keep", "env_set", "min_abi", "network",
               "protected_paths", "protect", "layer", "limits"},
              file, ptr);
    each([&] {
        for (const char* k : {"read", "write", "execute"})
            if (c.contains(k)) check_cage_paths(c[k], file, ptr + "/" + k);
    });
    each([&] {
        if (c.contains("env_keep")) {
            check_string_list(c["env_keep"], file, ptr + "/env_keep");
            for (std::size_t i = 0; i < c["env_keep"].size(); ++i)
                each([&] {
                    std::string n = c["env_keep"][i].get<std::string>();
                    bool ok = std::all_of(n.begin(), n.end(), [](unsigned char ch) {
                        return std::isalnum(ch) || ch == '_' || ch == '*';
                    });
                    need(ok, c["env_keep"][i], file, ptr + "/env_keep/" + std::to_string(i),
                         "an environment variable name (letters, digits, _; a trailing * matches a "
                         "prefix)");
                });
        }
    });
    each([&] {
        if (c.contains("env_set")) {
            need(c["env_set"].is_object(), c["env_set"], file, ptr + "/env_set",
                 "must be an object of NAME: \"value\"");
            for (auto it = c["env_set"].begin(); it != c["env_set"].end(); ++it)
                each([&] {
                    need(it->is_string(), *it, file, ptr + "/env_set/" + it.key(),
                         "must be a string value");
                });
        }
    });
    each([&] {
        if (c.contains("min_abi")) check_int(c["min_abi"], 1, 64, file, ptr + "/min_abi");
    });
    each([&] {
        if (c.contains("network")) {
            const json& n = c["network"];
            need(n.is_string() && (n == "auto" || n == "netns" || n == "landlock"), n, file,
                 ptr + "/network", "use one of auto, netns, landlock");
        }
    });
    each([&] {
        if (c.contains("protect")) {
            const json& n = c["protect"];
            need(n.is_string() && (n == "check" || n == "landlock"), n, file, ptr + "/protect",
                 "use \"check\" (restore after the step) or \"landlock\" (also refuse writes "
                 "during it)");
        }
    });
    each([&] {
        if (c.contains("layer")) {
            const json& n = c["layer"];
            need(n.is_string() && (n == "auto" || n == "off"), n, file, ptr + "/layer",
                 "use \"auto\" (the step writes into a layer where the kernel allows it) or "
                 "\"off\" (snapshot "
                 "and restore)");
        }
    });
    each([&] {
        if (c.contains("protected_paths")) {
            check_string_list(c["protected_paths"], file, ptr + "/protected_paths");
            for (std::size_t i = 0; i < c["protected_paths"].size(); ++i) {
                std::string s = c["protected_paths"][i].get<std::string>();
                need(s.front() != '/' && s.find("..") == std::string::npos, c["protected_paths"][i],
                     file, ptr + "/protected_paths/" + std::to_string(i),
                     "a path relative to the workspace without \"..\", e.g. \".git/hooks/\"");
            }
        }
    });
    each([&] {
        if (c.contains("limits")) {
            const json& l = c["limits"];
            std::string lp = ptr + "/limits";
            need(l.is_object(), l, file, lp, "must be an object");
            only_keys(l, {"nproc", "nofile", "fsize_mb", "cpu_seconds", "as_mb", "memory_mb"}, file,
                      lp);
            for (auto it = l.begin(); it != l.end(); ++it)
                check_int(*it, 0, 1L << 40, file, lp + "/" + it.key());
        }
    });
}

bool is_plain_absolute(const std::string& s) {
    return s.size() > 1 && s.front() == '/' && s.find("/../") == std::string::npos && !s.ends_with("/..") &&
           std::none_of(s.begin(), s.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}

// relay.credentials: [{"host", "secret_file", "as", "placeholder_env"}]. Which hosts they name is
// checked on the merged policy (common/relay_inspection.h): a base may inspect what a child binds.
void check_relay_credentials(const json& v, const std::string& file, const std::string& ptr) {
    const std::string shape =
        "; write {\"host\": \"api.example.com\", \"secret_file\": \"/home/me/.secrets/token\", \"as\": "
        "\"bearer\", \"placeholder_env\": \"API_TOKEN\"}";
    need(v.is_array(), v, file, ptr, "must be a list of credential bindings" + shape);
    for (std::size_t i = 0; i < v.size(); ++i) each([&] {
        const json& c = v[i];
        const std::string at_i = at(ptr, i);
        need(c.is_object(), c, file, at_i, "must be an object" + shape);
        only_keys(c, {"host", "secret_file", "as", "placeholder_env"}, file, at_i);
        for (const char* k : {"host", "secret_file", "placeholder_env"})
            need(c.contains(k) && c[k].is_string() && !c[k].get<std::string>().empty(), c, file, at_i + "/" + k,
                 std::string("needs \"") + k + "\", a non-empty string" + shape);
        std::string problem = check_allow_entry(c["host"].get<std::string>());
        if (!problem.empty()) fail(file, at_i + "/host", &c["host"], problem);
        need(is_plain_absolute(c["secret_file"].get<std::string>()), c["secret_file"], file, at_i + "/secret_file",
             "must be an absolute path without \"..\" (the file holding the secret, outside every step grant)");
        const std::string& env = c["placeholder_env"].get_ref<const std::string&>();
        bool env_ok = (std::isalpha(static_cast<unsigned char>(env[0])) || env[0] == '_') &&
                      std::all_of(env.begin(), env.end(),
                                  [](unsigned char ch) { return std::isalnum(ch) || ch == '_'; });
        need(env_ok, c["placeholder_env"], file, at_i + "/placeholder_env",
             "must be an environment variable's name (letters, digits, '_'), e.g. \"GITHUB_TOKEN\"");
        if (c.contains("as")) {
            const json& as = c["as"];
            std::string a = as.is_string() ? as.get<std::string>() : "";
            bool ok = a == "bearer" || (a.starts_with("basic:") && a.size() > 6 && a.find(':', 6) == std::string::npos) ||
                      (a.starts_with("header:") && a.size() > 7 &&
                       std::all_of(a.begin() + 7, a.end(), [](unsigned char ch) {
                           return std::isalnum(ch) || ch == '-' || ch == '_';
                       }));
            need(ok && std::none_of(a.begin(), a.end(), [](unsigned char ch) { return ch <= 0x20 || ch >= 0x7f; }),
                 as, file, at_i + "/as",
                 "must be \"bearer\" (Authorization: Bearer), \"basic:<user>\" (Authorization: Basic, the "
                 "secret as password) or \"header:<Name>\" (a header of its own)");
        }
    });
}

bool is_http_method(const std::string& m) {
    return m == "*" || (!m.empty() && m.size() <= 20 && std::all_of(m.begin(), m.end(), [](unsigned char c) {
                            return c >= 'A' && c <= 'Z';
                        }));
}

// relay.requests: {"host": {"allow": [{"method", "path"}], "deny": [...]}}.
void check_relay_requests(const json& v, const std::string& file, const std::string& ptr) {
    const std::string shape =
        "; write {\"git.example.com\": {\"deny\": [{\"method\": \"POST\", \"path\": \"/*/git-receive-pack\"}]}}";
    need(v.is_object(), v, file, ptr, "must be an object of host -> rules" + shape);
    for (auto it = v.begin(); it != v.end(); ++it) each([&] {
        const std::string hp = ptr + "/" + it.key();
        std::string problem = check_allow_entry(it.key());
        if (!problem.empty()) fail(file, hp, nullptr, "the key must be an entry of relay.inspect: " + problem);
        need(it->is_object(), *it, file, hp, "must be an object with \"allow\" and/or \"deny\"" + shape);
        only_keys(*it, {"allow", "deny"}, file, hp);
        for (const char* k : {"allow", "deny"}) {
            if (!it->contains(k)) continue;
            const json& list = (*it)[k];
            need(list.is_array(), list, file, hp + "/" + k, "must be a list of {\"method\", \"path\"} rules" + shape);
            for (std::size_t i = 0; i < list.size(); ++i) each([&] {
                const json& rule = list[i];
                const std::string rp = at(hp + "/" + k, i);
                need(rule.is_object() && (rule.contains("method") || rule.contains("path")), rule, file, rp,
                     "must be an object naming \"method\" and/or \"path\"" + shape);
                only_keys(rule, {"method", "path"}, file, rp);
                if (rule.contains("method"))
                    need(rule["method"].is_string() && is_http_method(rule["method"].get<std::string>()),
                         rule["method"], file, rp + "/method",
                         "must be an HTTP method in capitals (\"GET\", \"POST\") or \"*\" for any");
                if (rule.contains("path")) {
                    const json& p = rule["path"];
                    bool ok = p.is_string() && !p.get<std::string>().empty() &&
                              (p.get<std::string>()[0] == '/' || p.get<std::string>() == "*") &&
                              std::none_of(p.get_ref<const std::string&>().begin(), p.get_ref<const std::string&>().end(),
                                           [](unsigned char c) { return c <= 0x20 || c >= 0x7f || c == '?'; });
                    need(ok, p, file, rp + "/path",
                         "must be a path glob starting with '/' (\"*\" matches any characters, '/' included; "
                         "the query is not part of it)");
                }
            });
        }
    });
}

void check_relay(const json& r, const std::string& file, const std::string& ptr) {
    need(r.is_object(), r, file, ptr, "must be an object");
    only_keys(r, {"enabled", "allow", "credentialed", "allow_private", "allow_ranges", "require_sni",
                  "upstream", "max_tunnels", "inspect", "upstream_ca", "credentials", "requests"},
              file, ptr);
    each([&] {
        for (const char* k : {"enabled", "allow_private", "require_sni"})
            if (r.contains(k))
                need(r[k].is_boolean(), r[k], file, ptr + "/" + k, "must be true or false");
    });
    // credentialed is written in allow's grammar: it names entries of allow.
    for (const char* k : {"allow", "credentialed", "inspect"}) each([&] {
        if (r.contains(k)) {
            check_string_list(r[k], file, ptr + "/" + k);
            for (std::size_t i = 0; i < r[k].size(); ++i) each([&] {
                std::string problem = check_allow_entry(r[k][i].get<std::string>());
                if (!problem.empty())
                    fail(file, ptr + "/" + k + "/" + std::to_string(i), &r[k][i], problem);
            });
        }
    });
    each([&] {
        if (r.contains("upstream")) {
            const json& u = r["upstream"];
            need(u.is_string() &&
                     (u.get<std::string>().empty() || u.get<std::string>().starts_with("http://")),
                 u, file, ptr + "/upstream", "must be \"\" or http://[user:pass@]host:port");
        }
    });
    each([&] {
        if (!r.contains("allow_ranges")) return;
        check_string_list(r["allow_ranges"], file, ptr + "/allow_ranges");
        for (std::size_t i = 0; i < r["allow_ranges"].size(); ++i)
            each([&] {
                std::string problem;
                if (!parse_address_range(r["allow_ranges"][i].get<std::string>(), problem))
                    fail(file, ptr + "/allow_ranges/" + std::to_string(i), &r["allow_ranges"][i],
                         problem);
            });
    });
    each([&] {
        if (r.contains("max_tunnels"))
            check_int(r["max_tunnels"], 1, 65536, file, ptr + "/max_tunnels");
    });
    each([&] {
        if (r.contains("upstream_ca"))
            need(r["upstream_ca"].is_string() && (r["upstream_ca"].get<std::string>().empty() ||
                                                  is_plain_absolute(r["upstream_ca"].get<std::string>())),
                 r["upstream_ca"], file, ptr + "/upstream_ca",
                 "must be \"\" or the absolute path of a PEM file of CA certificates, without \"..\"");
    });
    each([&] {
        if (r.contains("credentials")) check_relay_credentials(r["credentials"], file, ptr + "/credentials");
    });
    each([&] {
        if (r.contains("requests")) check_relay_requests(r["requests"], file, ptr + "/requests");
    });
}

}  // namespace

// One grammar with the relay's --allow (common/host_names.h); a policy also writes host names
// as the relay compares them, in lowercase.
std::string check_allow_entry(const std::string& entry) {
    if (entry == "{npm_registry}") return "";
    std::string problem;
    if (!read_allow_entry(entry, problem)) return problem;
    if (std::any_of(entry.begin(), entry.end(), [](unsigned char c) { return std::isupper(c); }))
        return "host names are written in lowercase";
    return "";
}

// hermes: {"other_tools": verdict, "allow_tools": [tool names], and a verdict per channel
// (common/hermes_channels.h): "memory", "user_profile", "skills", "context_files", "cron_prompts"}.
void check_hermes(const json& h, const std::string& file, const std::string& at) {
    need(h.is_object(), h, file, at,
         "must be an object: {\"other_tools\": \"ask\", \"allow_tools\": [...], \"memory\": "
         "\"ask\"}");
    std::vector<std::string> keys{"other_tools", "allow_tools"};
    for (const auto& c : kHermesChannels) keys.emplace_back(c.key);
    only_keys(h, keys, file, at);
    each([&] {
        if (h.contains("other_tools")) {
            check_decision(h["other_tools"], file, at + "/other_tools");
            need(h["other_tools"] != "cage", h["other_tools"], file, at + "/other_tools",
                 "no cage reaches another tool: use allow, ask or deny");
        }
    });
    for (const auto& c : kHermesChannels)
        each([&] {
            const std::string key(c.key);
            if (!h.contains(key)) return;
            check_decision(h[key], file, at + "/" + key);
            need(h[key] != "cage", h[key], file, at + "/" + key,
                 "no cage reaches what Hermes puts into a later session's prompt: use allow, ask "
                 "(a person "
                 "decides each entry; refused where none can answer) or deny");
        });
    each([&] {
        if (!h.contains("allow_tools")) return;
        const json& a = h["allow_tools"];
        need(a.is_array(), a, file, at + "/allow_tools", "must be an array of tool names");
        for (size_t i = 0; i < a.size(); ++i)
            each([&] {
                const json& t = a[i];
                bool ok =
                    t.is_string() && !t.get<std::string>().empty() &&
                    t.get<std::string>().size() <= 128 &&
                    std::all_of(t.get_ref<const std::string&>().begin(),
                                t.get_ref<const std::string&>().end(), [](unsigned char c) {
                                    return std::isalnum(c) || c == '_' || c == '-' || c == '.';
                                });
                need(ok, t, file, at + "/allow_tools/" + std::to_string(i),
                     "a tool name as Hermes spells it (letters, digits, '_', '-', '.')");
            });
    });
}

// A work root as written: "~/x" or an absolute path, never one that could be a home, /, a
// directory every user shares, a dot-directory of the home (settings, keys) or an agent's or
// toolcage's own files. Checked on the words here; `toolcage run` and the hook check the
// expanded directory again (common/workspace_choice.h) and leave out one that cannot be a root.
std::string root_problem(const std::string& r) {
    const std::string fix = "; name a directory of its own that holds projects, e.g. \"~/work\"";
    if (r.empty() || r.size() > 4096 || r.find('\0') != std::string::npos)
        return "an empty or invalid path" + fix;
    if (r != "~" && !r.starts_with("~/") && r[0] != '/')
        return "neither absolute nor in the home (~/…)" + fix;
    std::vector<std::string> parts;
    for (size_t i = r[0] == '~' ? 1 : 0; i < r.size();) {
        size_t j = r.find('/', i);
        if (j == std::string::npos) j = r.size();
        std::string part = r.substr(i, j - i);
        if (part == "..") return "'..' is not allowed in a work root" + fix;
        if (!part.empty() && part != ".") parts.push_back(part);
        i = j + 1;
    }
    if (r[0] == '~') {
        if (parts.empty())
            return "the home itself cannot be a work root: a step could write all of it" + fix;
        if (parts.front().starts_with("."))
            return "a dot-directory of the home (~/" + parts.front() +
                   ": settings, keys, an agent's or toolcage's "
                   "own files) cannot be a work root" +
                   fix;
        return "";
    }
    if (parts.empty()) return "/ cannot be a work root" + fix;
    static const std::set<std::string> shared = {
        "bin",  "boot", "dev", "etc",  "home", "lib", "lib64", "media", "mnt", "opt",
        "proc", "root", "run", "sbin", "srv",  "sys", "tmp",   "usr",   "var"};
    if (parts.size() == 1 && shared.count(parts.front()))
        return "/" + parts.front() +
               " is shared by every user and program (or holds their homes), so it cannot be a "
               "work root" +
               fix;
    const std::string top = parts.front();
    if ((top == "home" && parts.size() == 2) || (top == "root" && parts.size() == 1))
        return r +
               " is a home, which a step could write all of; name a directory of its own in it "
               "(\"~/work\")";
    if (top == "usr" || top == "etc" || top == "proc" || top == "sys" || top == "dev" ||
        top == "boot" || top == "bin" || top == "sbin" || top == "lib" || top == "lib64")
        return "/" + top + " holds the system's programs and settings, which no step may write" +
               fix;
    for (const auto& part : parts)
        if (part.starts_with("."))
            return "a dot-directory (" + part +
                   ": settings, keys, an agent's or toolcage's own files) cannot be a "
                   "work root" +
                   fix;
    return "";
}

// workspace: {"roots": ["~/work", ...]}.
void check_workspace(const json& w, const std::string& file, const std::string& at) {
    need(w.is_object(), w, file, at, "must be an object: {\"roots\": [\"~/work\"]}");
    only_keys(w, {"roots"}, file, at);
    each([&] {
        if (!w.contains("roots")) return;
        const json& r = w["roots"];
        need(r.is_array() && r.size() <= 64, r, file, at + "/roots",
             "must be an array of at most 64 directories: [\"~/work\"]");
        for (size_t i = 0; i < r.size(); ++i)
            each([&] {
                const json& e = r[i];
                need(e.is_string(), e, file, at + "/roots/" + std::to_string(i),
                     "must be a string: \"~/work\"");
                if (std::string problem = root_problem(e.get<std::string>()); !problem.empty())
                    fail(file, at + "/roots/" + std::to_string(i), &e, problem);
            });
    });
}

void validate_policy_json(const json& doc, const std::string& file) {
    if (!doc.is_object())
        fail(file, "", nullptr, "a policy is a JSON object; start with {\"name\": \"…\"}");
    only_keys(doc,
              {"name", "extends", "description", "on_cage", "hermes_approve", "allow_runs", "mode",
               "overrides", "rules", "cage", "relay", "hermes", "workspace"},
              file, "");
    each([&] {
        for (const char* k : {"name", "extends", "description"})
            if (doc.contains(k))
                need(doc[k].is_string(), doc[k], file, std::string("/") + k, "must be a string");
    });
    each([&] {
        for (const char* k : {"name", "extends"})
            if (doc.contains(k)) {
                std::string s = doc[k].get<std::string>();
                bool ok = !s.empty() && s.size() <= 64 &&
                          std::all_of(s.begin(), s.end(), [](unsigned char c) {
                              return std::isalnum(c) || c == '-' || c == '_';
                          });
                need(ok, doc[k], file, std::string("/") + k,
                     "a policy name is letters, digits, '-' and '_' (extends names an installed "
                     "policy, never a path)");
            }
    });
    each([&] {
        if (doc.contains("on_cage")) {
            check_decision(doc["on_cage"], file, "/on_cage");
            need(doc["on_cage"] != "allow", doc["on_cage"], file, "/on_cage",
                 "a cage verdict can become cage, ask or deny, never allow");
        }
    });
    each([&] {
        if (doc.contains("hermes_approve"))
            need(doc["hermes_approve"].is_boolean(), doc["hermes_approve"], file, "/hermes_approve",
                 "must be true or false");
    });
    each([&] {
        if (doc.contains("allow_runs"))
            need(doc["allow_runs"] == "cage" || doc["allow_runs"] == "bare", doc["allow_runs"],
                 file, "/allow_runs",
                 "must be \"cage\" (allowed commands run in the read-only cage) or \"bare\" (as "
                 "sent)");
    });
    each([&] {
        if (doc.contains("mode")) {
            const json& m = doc["mode"];
            need(m.is_string() && (m == "enforce" || m == "audit"), m, file, "/mode",
                 "use \"enforce\" (the default) or \"audit\" (allow every call, log what would "
                 "have been "
                 "refused)");
        }
    });
    each([&] {
        if (doc.contains("overrides")) {
            const json& o = doc["overrides"];
            need(o.is_object(), o, file, "/overrides",
                 "must be an object of \"rule.id\": \"verdict\"");
            for (auto it = o.begin(); it != o.end(); ++it)
                each([&] {
                    if (!is_rule_id(it.key()))
                        fail(file, "/overrides/" + it.key(), nullptr,
                             "not a rule id (lowercase letters, digits, '.', '-', '_'); `toolcage "
                             "policy rules` lists them");
                    check_decision(*it, file, "/overrides/" + it.key());
                });
        }
    });
    each([&] {
        if (doc.contains("rules")) check_rules(doc["rules"], file, "/rules");
    });
    each([&] {
        if (doc.contains("cage")) check_cage(doc["cage"], file, "/cage");
    });
    each([&] {
        if (doc.contains("relay")) check_relay(doc["relay"], file, "/relay");
    });
    each([&] {
        if (doc.contains("hermes")) check_hermes(doc["hermes"], file, "/hermes");
    });
    each([&] {
        if (doc.contains("workspace")) check_workspace(doc["workspace"], file, "/workspace");
    });
}

std::vector<std::string> policy_json_errors(const json& doc, const std::string& file) {
    std::vector<std::string> errors;
    std::vector<std::string>* outer = t_errors;
    t_errors = &errors;
    try {
        validate_policy_json(doc, file);
    } catch (const Error& e) {
        errors.push_back(e.what());
    } catch (const AlreadyReported&) {
    } catch (const nlohmann::json::exception&) {
    }
    t_errors = outer;
    return errors;
}

Policy policy_from_json(const json& doc, const std::string& /*file*/) {
    Policy p;
    p.name = doc.value("name", "");
    p.description = doc.value("description", "");
    if (doc.contains("on_cage"))
        p.on_cage = *decision_from_string(doc["on_cage"].get<std::string>());
    p.hermes_approve = doc.value("hermes_approve", false);
    p.allow_runs = doc.value("allow_runs", p.allow_runs);
    p.mode = doc.value("mode", "enforce");
    if (doc.contains("overrides"))
        for (auto it = doc["overrides"].begin(); it != doc["overrides"].end(); ++it)
            p.overrides[it.key()] = *decision_from_string(it->get<std::string>());
    if (doc.contains("rules"))
        for (const auto& r : doc["rules"]) {
            ExtraRule e;
            e.program = r["program"];
            e.words = r.value("words", std::vector<std::string>{});
            e.id =
                r.contains("id") ? r["id"].get<std::string>() : derived_rule_id(e.program, e.words);
            e.args = r.value("args", std::vector<std::string>{});
            e.match = r.value("match", std::vector<std::string>{});
            e.not_match = r.value("not_match", std::vector<std::string>{});
            for (const auto& pc : r.value("paths", std::vector<std::string>{}))
                e.paths.push_back(*path_class_from_string(pc));
            e.decision = *decision_from_string(r["verdict"].get<std::string>());
            e.reason = r["reason"];
            p.rules.push_back(std::move(e));
        }
    if (doc.contains("cage")) {
        const json& c = doc["cage"];
        auto& cp = p.cage;
        cp.read = c.value("read", cp.read);
        cp.write = c.value("write", cp.write);
        cp.execute = c.value("execute", cp.execute);
        cp.env_keep = c.value("env_keep", cp.env_keep);
        cp.env_set = c.value("env_set", cp.env_set);
        cp.min_abi = c.value("min_abi", cp.min_abi);
        cp.network = c.value("network", cp.network);
        cp.protected_paths = c.value("protected_paths", cp.protected_paths);
        cp.protect = c.value("protect", cp.protect);
        cp.layer = c.value("layer", cp.layer);
        if (c.contains("limits")) {
            const json& l = c["limits"];
            cp.limits.nproc = l.value("nproc", cp.limits.nproc);
            cp.limits.nofile = l.value("nofile", cp.limits.nofile);
            cp.limits.fsize_mb = l.value("fsize_mb", cp.limits.fsize_mb);
            cp.limits.cpu_seconds = l.value("cpu_seconds", cp.limits.cpu_seconds);
            cp.limits.as_mb = l.value("as_mb", cp.limits.as_mb);
            cp.limits.memory_mb = l.value("memory_mb", cp.limits.memory_mb);
        }
    }
    if (doc.contains("relay")) {
        const json& r = doc["relay"];
        auto& rp = p.relay;
        rp.enabled = r.value("enabled", rp.enabled);
        rp.allow = r.value("allow", rp.allow);
        rp.credentialed = r.value("credentialed", rp.credentialed);
        rp.allow_private = r.value("allow_private", rp.allow_private);
        rp.allow_ranges = r.value("allow_ranges", rp.allow_ranges);
        rp.require_sni = r.value("require_sni", rp.require_sni);
        rp.upstream = r.value("upstream", rp.upstream);
        rp.max_tunnels = r.value("max_tunnels", rp.max_tunnels);
        rp.inspect = r.value("inspect", rp.inspect);
        rp.upstream_ca = r.value("upstream_ca", rp.upstream_ca);
        if (r.contains("credentials"))
            for (const auto& c : r["credentials"])
                rp.credentials.push_back({c["host"], c["secret_file"], c.value("as", "bearer"), c["placeholder_env"]});
        if (r.contains("requests"))
            for (auto it = r["requests"].begin(); it != r["requests"].end(); ++it) {
                RelayRequestRules& rules = rp.requests[it.key()];
                for (auto [k, list] : {std::pair{"allow", &rules.allow}, std::pair{"deny", &rules.deny}})
                    if (it->contains(k))
                        for (const auto& rule : (*it)[k])
                            list->push_back({rule.value("method", "*"), rule.value("path", "*")});
            }
    }
    if (doc.contains("hermes")) {
        const json& h = doc["hermes"];
        if (h.contains("other_tools"))
            p.hermes.other_tools = *decision_from_string(h["other_tools"].get<std::string>());
        p.hermes.allow_tools = h.value("allow_tools", p.hermes.allow_tools);
        for (const auto& c : kHermesChannels)
            if (h.contains(std::string(c.key)))
                p.hermes.channels[std::string(c.key)] =
                    *decision_from_string(h[std::string(c.key)].get<std::string>());
    }
    if (doc.contains("workspace"))
        p.workspace.roots = doc["workspace"].value("roots", p.workspace.roots);
    return p;
}

}  // namespace toolcage

namespace toolcage {

nlohmann::json relay_credentials_json(const std::vector<RelayCredential>& creds) {
    json out = json::array();
    for (const auto& c : creds)
        out.push_back({{"host", c.host}, {"secret_file", c.secret_file}, {"as", c.as},
                       {"placeholder_env", c.placeholder_env}});
    return out;
}

nlohmann::json relay_requests_json(const std::map<std::string, RelayRequestRules>& requests) {
    json out = json::object();
    for (const auto& [host, rules] : requests) {
        json h = json::object();
        for (auto [k, list] : {std::pair{"allow", &rules.allow}, std::pair{"deny", &rules.deny}}) {
            json l = json::array();
            for (const auto& r : *list) l.push_back({{"method", r.method}, {"path", r.path}});
            h[k] = l;
        }
        out[host] = h;
    }
    return out;
}

nlohmann::json policy_to_json(const Policy& p) {
    json rules = json::array();
    for (const auto& r : p.rules) {
        json paths = json::array();
        for (auto pc : r.paths) paths.push_back(std::string(to_string(pc)));
        rules.push_back({{"id", r.id},
                         {"program", r.program},
                         {"words", r.words},
                         {"args", r.args},
                         {"paths", paths},
                         {"verdict", std::string(to_string(r.decision))},
                         {"reason", r.reason},
                         {"match", r.match},
                         {"not_match", r.not_match}});
    }
    json overrides = json::object();
    for (const auto& [id, d] : p.overrides) overrides[id] = std::string(to_string(d));
    const auto& c = p.cage;
    json hermes = {{"other_tools", std::string(to_string(p.hermes.other_tools))},
                   {"allow_tools", p.hermes.allow_tools}};
    for (const auto& [key, d] : p.hermes.channels) hermes[key] = std::string(to_string(d));
    return {{"name", p.name},
            {"description", p.description},
            {"files", p.chain},
            {"on_cage", std::string(to_string(p.on_cage))},
            {"hermes_approve", p.hermes_approve},
            {"allow_runs", p.allow_runs},
            {"mode", p.mode},
            {"overrides", overrides},
            {"rules", rules},
            {"cage",
             {{"read", c.read},
              {"write", c.write},
              {"execute", c.execute},
              {"env_keep", c.env_keep},
              {"env_set", c.env_set},
              {"min_abi", c.min_abi},
              {"network", c.network},
              {"protected_paths", c.protected_paths},
              {"protect", c.protect},
              {"layer", c.layer},
              {"limits",
               {{"nproc", c.limits.nproc},
                {"nofile", c.limits.nofile},
                {"fsize_mb", c.limits.fsize_mb},
                {"cpu_seconds", c.limits.cpu_seconds},
                {"as_mb", c.limits.as_mb},
                {"memory_mb", c.limits.memory_mb}}}}},
            {"relay",
             {{"enabled", p.relay.enabled},
              {"allow", p.relay.allow},
              {"credentialed", p.relay.credentialed},
              {"allow_private", p.relay.allow_private},
              {"allow_ranges", p.relay.allow_ranges},
              {"require_sni", p.relay.require_sni},
              {"upstream", p.relay.upstream},
              {"max_tunnels", p.relay.max_tunnels},
              {"inspect", p.relay.inspect},
              {"upstream_ca", p.relay.upstream_ca},
              {"credentials", relay_credentials_json(p.relay.credentials)},
              {"requests", relay_requests_json(p.relay.requests)}}},
            {"hermes", hermes},
            {"workspace", {{"roots", p.workspace.roots}}}};
}

std::optional<SyslogTarget> read_syslog_url(const std::string& url, std::string& problem) {
    const std::string fix =
        "; write tcp://IP:PORT (RFC 6587 framing), udp://IP:PORT or unix:/dev/log, e.g. "
        "tcp://127.0.0.1:6514";
    SyslogTarget t;
    if (url.starts_with("unix:")) {
        t.transport = "unix";
        t.address = url.substr(5);
        bool ok = t.address.size() > 1 && t.address[0] == '/' && t.address.size() < 108 &&
                  t.address.find('\0') == std::string::npos;
        if (!ok) {
            problem = "a unix socket is an absolute path shorter than 108 bytes" + fix;
            return std::nullopt;
        }
        return t;
    }
    std::string rest;
    if (!url.starts_with("tcp://") && !url.starts_with("udp://")) {
        problem = "unknown collector scheme" + fix;
        return std::nullopt;
    }
    t.transport = url.substr(0, 3);
    rest = url.substr(6);
    auto colon = rest.rfind(':');
    std::string host = colon == std::string::npos ? rest : rest.substr(0, colon);
    std::string port = colon == std::string::npos ? "" : rest.substr(colon + 1);
    bool v6 = host.size() > 2 && host.front() == '[' && host.back() == ']';
    if (v6) host = host.substr(1, host.size() - 2);
    unsigned char buf[16];
    if (host.empty() || ::inet_pton(v6 ? AF_INET6 : AF_INET, host.c_str(), buf) != 1) {
        problem =
            "the collector's host must be an IP address (IPv6 in brackets), not a name: a name "
            "would "
            "cost a DNS lookup in every hook call" +
            fix;
        return std::nullopt;
    }
    bool digits =
        !port.empty() && port.size() <= 5 &&
        std::all_of(port.begin(), port.end(), [](unsigned char c) { return std::isdigit(c); });
    if (!digits || std::stoul(port) < 1 || std::stoul(port) > 65535) {
        problem = "the collector needs a port from 1 to 65535" + fix;
        return std::nullopt;
    }
    t.address = host;
    t.port = static_cast<unsigned>(std::stoul(port));
    return t;
}

std::vector<std::string> fleet_setting_errors(const json& doc, const std::string& file) {
    std::vector<std::string> errors;
    std::vector<std::string>* outer = t_errors;
    t_errors = &errors;
    each([&] {
        if (!doc.is_object())
            fail(file, "", nullptr,
                 "the fleet setting is a JSON object: {\"log\": {\"syslog\": \"tcp://IP:PORT\"}}");
        only_keys(doc, {"log"}, file, "");
        if (!doc.contains("log")) return;
        const json& log = doc["log"];
        need(log.is_object(), log, file, "/log",
             "must be an object: {\"syslog\": \"tcp://IP:PORT\"}");
        only_keys(log, {"syslog"}, file, "/log");
        if (!log.contains("syslog")) return;
        const json& url = log["syslog"];
        need(url.is_string(), url, file, "/log/syslog",
             "must be a string: tcp://IP:PORT, udp://IP:PORT or unix:/PATH");
        std::string problem;
        if (!read_syslog_url(url.get<std::string>(), problem))
            fail(file, "/log/syslog", &url, problem);
    });
    t_errors = outer;
    return errors;
}

}  // namespace toolcage
