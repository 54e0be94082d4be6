// The policy model: plain data, loaded and validated once, then shared read-only.
// A policy says how verdicts are adjusted, what the cage may touch and where the relay may go.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/hermes_channels.h"
#include "common/verdict.h"

namespace toolcage {

// Where a path lies, as the classifier resolves it against the call's working directory.
enum class PathClass {
    workspace,       // inside the workspace (the working directory or its git top level)
    workspace_root,  // the workspace root itself
    git_dir,         // the workspace's .git or anything in it
    temp,            // /tmp, /var/tmp, $TMPDIR
    home,            // the home directory or anything in it outside the workspace
    system,          // /etc, /usr, /bin, /boot, /dev, /var, ... (anything else absolute)
    root,            // "/" itself
    unknown,         // depends on run time (a variable, a substitution) or cannot be resolved
};

std::string_view to_string(PathClass c);
std::optional<PathClass> path_class_from_string(std::string_view s);

// A policy rule of the user's: when `program` runs (after unwrapping sudo, env, ...) with the
// `words` among its arguments in that order (a subcommand, `--option` or `--option=…`), with
// arguments that match every glob in `args` (each glob must match at least one argument) and,
// if `paths` is not empty, an argument that resolves into one of those classes: `decision`.
// `match` and `not_match` are example commands the rule must and must not fire on; the policy
// is refused when one does not (the classifier checks them where the policy is loaded).
struct ExtraRule {
    std::string id;
    std::string program;
    std::vector<std::string> words;
    std::vector<std::string> args;
    std::vector<PathClass> paths;
    Decision decision = Decision::deny;
    std::string reason;
    std::vector<std::string> match;
    std::vector<std::string> not_match;
    bool operator==(const ExtraRule&) const = default;
};

// The id of a rule written without one: "policy.<program>.<words>", lowercased, other
// characters as '-', at most 80 characters.
std::string derived_rule_id(const std::string& program, const std::vector<std::string>& words);

struct CageLimits {
    long nproc = 4096;      // RLIMIT_NPROC (per user: counts processes outside the cage too)
    long nofile = 4096;     // RLIMIT_NOFILE
    long fsize_mb = 16384;  // RLIMIT_FSIZE
    long cpu_seconds = 0;   // RLIMIT_CPU, 0 = unlimited
    long as_mb = 0;         // RLIMIT_AS, 0 = unlimited
    long memory_mb = 0;     // a memory cgroup's limit where one can be made, 0 = none
    bool operator==(const CageLimits&) const = default;
};

struct CagePolicy {
    // Paths may use the placeholders {workspace}, {tmp} and {home}; `toolcage run` expands them.
    std::vector<std::string> read;
    std::vector<std::string> write;
    std::vector<std::string> execute;
    std::vector<std::string> env_keep;           // added to the built-in keep-list
    std::map<std::string, std::string> env_set;  // set inside the cage
    int min_abi = 1;               // below this Landlock ABI, refuse (unless --best-effort)
    std::string network = "auto";  // auto | netns | landlock
    std::vector<std::string> protected_paths;  // workspace-relative, never writable by the cage
    // How: "check" restores them after the step; "landlock" also refuses in-place writes during
    // it, at the price of new files in the workspace root and git's lock files (see README).
    std::string protect = "check";
    // "auto": the step writes into a layer over the workspace where the kernel allows it, landed
    // when the step ends (cage/integrity/step_layer.h); "off" (the default, until a step in a
    // layer can rename a directory the workspace had and write another user's file, which the
    // overlay in a user namespace refuses): the snapshot and restore.
    std::string layer = "off";
    CageLimits limits;
    bool operator==(const CagePolicy&) const = default;
};

// A secret the relay adds to requests to one inspected host (README "Credentials through the
// relay"): the step's environment holds only a placeholder, the relay puts the secret in its place.
struct RelayCredential {
    std::string host;             // an entry of relay.inspect
    std::string secret_file;      // absolute; the user's file, read by the relay, in no step grant
    std::string as = "bearer";    // "bearer", "basic:<user>" or "header:<Name>"
    std::string placeholder_env;  // the step's variable that holds the placeholder
    bool operator==(const RelayCredential&) const = default;
};

// One request rule on an inspected host: a method ("*" for any) and a path glob (fnmatch without
// FNM_PATHNAME: `*` also matches '/'), compared with the request's percent-decoded path, query left
// out.
struct RelayRequestRule {
    std::string method = "*";
    std::string path = "*";
    bool operator==(const RelayRequestRule&) const = default;
};

// A host's rules: a request matching a deny rule is refused; when `allow` is not empty, a request
// matching none of its rules is refused too.
struct RelayRequestRules {
    std::vector<RelayRequestRule> allow;
    std::vector<RelayRequestRule> deny;
    bool operator==(const RelayRequestRules&) const = default;
};

struct RelayPolicy {
    bool enabled = false;            // start a relay for each caged step
    std::vector<std::string> allow;  // host, host:port or *.suffix[:port]; port defaults to 443
    // Hosts of `allow` that hold a credential the worker is meant to use (the model API): the
    // user declares them on purpose; `toolcage policy lint` flags every other credential host.
    std::vector<std::string> credentialed;
    bool allow_private = false;  // lift the private-range refusal (tests only)
    // CIDR ranges of the user's own network the relay may dial although they are not public
    // (split-horizon DNS, an intercepting proxy); never metadata or link-local addresses.
    std::vector<std::string> allow_ranges;
    // A TLS handshake through the relay always names the CONNECT's host when it names one; this
    // says whether one naming no server (no SNI) to a host name is refused too.
    bool require_sni = true;
    std::string upstream;  // http://[user:pass@]host:port, or empty for direct
    int max_tunnels = 256;
    // Hosts of `allow` whose TLS the relay terminates with toolcage's own CA, to read (log, judge,
    // add credentials to) each HTTP/1.1 request; every other host stays an opaque tunnel.
    std::vector<std::string> inspect;
    // A PEM file of extra trust anchors for the inspected hosts' real servers (a company proxy, a
    // test CA), beside the system's; never read from the environment.
    std::string upstream_ca;
    std::vector<RelayCredential> credentials;
    std::map<std::string, RelayRequestRules> requests;  // keyed by an entry of `inspect`
    bool operator==(const RelayPolicy&) const = default;
};

// Hermes's tools beyond the ones toolcage judges itself (MCP servers' tools, other plugins',
// Hermes's own information tools): `other_tools` is the verdict for any of them not listed in
// `allow_tools`, which run as they are. `channels`: the verdict for a write to each channel by
// which Hermes carries the agent's words into later sessions (common/hermes_channels.h), whatever
// `allow_tools` says.
struct HermesToolsPolicy {
    Decision other_tools = Decision::ask;
    std::vector<std::string> allow_tools;
    std::map<std::string, Decision> channels = default_hermes_channels();
    bool operator==(const HermesToolsPolicy&) const = default;
};

// Where agents may start projects: directories ("~/work", "/srv/agents") that hold projects of
// their own. A root is never a workspace itself; below it each project is one
// (common/workspace_choice.h), and in it a command that starts a project runs with the new
// directory as its only writable place.
struct WorkspacePolicy {
    std::vector<std::string> roots;  // absolute, or "~/…" in the home
    bool operator==(const WorkspacePolicy&) const = default;
};

struct Policy {
    std::string name;                // e.g. "forge"
    std::string file;                // where it was loaded from
    std::vector<std::string> chain;  // files merged, base first (via "extends")
    std::string description;
    std::map<std::string, Decision> overrides;  // rule id -> decision
    std::vector<ExtraRule> rules;
    Decision on_cage = Decision::cage;  // what a cage verdict becomes (strict: deny)
    bool hermes_approve = false;        // Hermes supports {"action":"approve"} for ask
    // How an allowed shell command runs: "cage" in the read-only cage
    // (cage/containment/read_only.h), "bare" as the agent sent it (what the workspace's config and
    // code make it do, it does).
    std::string allow_runs = "cage";
    // "enforce", or "audit": the hook answers allow for every call and logs what it would have
    // answered (to roll a policy out on real traffic before it blocks anything).
    std::string mode = "enforce";
    CagePolicy cage;
    RelayPolicy relay;
    HermesToolsPolicy hermes;
    WorkspacePolicy workspace;
    bool operator==(const Policy&) const = default;
};

}  // namespace toolcage
