// Internal to the classifier: the values, scopes and the analyzer that walks one command's tree.
// Every place where code can run reaches exec_argv() or run_string(); rules report through hit().
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/policy.h"
#include "common/verdict.h"
#include "hook/classify/classifier.h"
#include "hook/shell/ast.h"

namespace toolcage::classify::detail {

// Marks a run of text that is only known at run time (a variable, a substitution's output).
constexpr char kUnknown = '\x01';

// Where text that is not written in the command came from. Ordered: the worst wins.
enum class Taint : unsigned char {
    none = 0,
    computed = 1,  // produced by a local command (printf, a substitution we evaluated)
    filtered = 2,  // transformed by a filter (rev, tr, sed, zcat): code nobody has read
    decoded = 3,   // produced by a decoder (base64 -d, xxd -r): obfuscated code
    remote = 4,    // fetched from the network (curl, wget)
};

struct Stream;

// One field of a command line after expansion and splitting.
struct Value {
    std::string text;           // kUnknown marks unknown runs
    bool glob = false;          // an unquoted pattern (or one of its matches)
    bool unknown = false;       // text holds kUnknown
    bool guarded = false;       // the unknown runs cannot be empty (${x:?}, ${x:-y}, mktemp)
    bool alt_unknown = false;   // the text is one possibility, an unknown value the other (${x:-y})
    bool splits = false;        // an unquoted unknown run: it may split into several words (options)
    bool expanded = false;      // holds text of an unquoted expansion ($X, $(…)), split as words
    // >( … ): the commands that read what the program writes to this file.
    const std::vector<shell::Script>* writes_to = nullptr;
    Taint taint = Taint::none;  // origin of the unknown or computed text
    bool secret = false;        // holds the environment's text ($(env), an item of env | xargs)
    std::shared_ptr<Stream> procsub;  // <( … ): what reading this file gives

    static Value literal(std::string s) {
        Value v;
        v.text = std::move(s);
        return v;
    }
    static Value unknown_value(bool guarded = false, Taint t = Taint::none) {
        Value v;
        v.text.assign(1, kUnknown);
        v.unknown = true;
        v.guarded = guarded;
        v.taint = t;
        return v;
    }
    bool known() const { return !unknown && !alt_unknown; }
    // For messages: unknown runs shown as "…".
    std::string shown() const;
};

// What a command writes on stdout, or what a program reads on stdin.
struct Stream {
    enum class Kind : unsigned char {
        none,     // nothing (stdin of a top-level command: the agent's, not data we know)
        literal,  // text is known
        unknown,  // data of unknown content
        paths,    // a list of paths (find, ls, git ls-files); `paths` holds patterns for them
    };
    Kind kind = Kind::none;
    Taint taint = Taint::none;
    // It carries the environment or a credentials file (env, printenv, set): reaching the
    // network it publishes the tokens in it, whatever filter (base64, gzip) it went through.
    bool secret = false;
    std::string text;
    std::vector<Value> paths;

    static Stream literal(std::string s, Taint t = Taint::none) {
        Stream st;
        st.kind = Kind::literal;
        st.text = std::move(s);
        st.taint = t;
        return st;
    }
    static Stream unknown_data(Taint t = Taint::none) {
        Stream st;
        st.kind = Kind::unknown;
        st.taint = t;
        return st;
    }
};

// The shell state that decides what a later command means: where it runs and what names mean.
struct Scope {
    std::string cwd;  // absolute, normalized; meaningful when cwd_known
    bool cwd_known = true;
    bool cwd_guarded = false;  // unknown, but set (cd "${x:?}")
    std::vector<std::string> alt_cwds;  // other directories it may be (after a conditional cd)
    std::vector<std::string> dirstack;
    std::map<std::string, Value, std::less<>> vars;
    std::map<std::string, const shell::Command*, std::less<>> functions;
    std::map<std::string, std::string, std::less<>> aliases;
    std::map<std::string, std::vector<Value>, std::less<>> arrays;
    // declare -n / local -n / typeset -n: a name that stands for another variable.
    std::map<std::string, std::string, std::less<>> namerefs;
    std::optional<Value> arg0;      // $0 (bash -c 'code' NAME …)
    std::vector<Value> positional;  // $1 …
    bool positional_known = false;
    bool positional_guarded = false;  // unknown but present (a function body judged where defined)
    bool path_untrusted = false;            // PATH was changed: names may resolve to anything
    // Files written in this command from a download or a decoder: running them runs that code.
    std::vector<std::pair<std::string, Taint>> tainted_files;
    std::vector<std::pair<std::string, std::string>> links;  // symlinks made here: link -> target
    std::vector<std::pair<std::string, std::string>> file_texts;  // files written here with known text
};

// One program invocation after expansion and unwrapping, handed to a program's handler.
struct Call {
    std::string name;         // the program as looked up (basename)
    std::vector<Value> args;  // argv[1..]
    Scope* scope = nullptr;
    Stream in;                // what it reads on stdin
    Stream out;               // what it writes on stdout (handlers set it; default unknown)
    bool elevated = false;    // under sudo, doas, su, pkexec
    bool remote = false;      // runs on another host or container (ssh, docker exec)
    bool in_pipeline = false;
    bool background = false;
    std::vector<std::pair<std::string, Value>> env;  // NAME=VALUE given to this program only
    std::string via;               // the wrappers it came through, for messages ("sudo ")

    // The args' literal texts (unknown runs kept as kUnknown).
    const std::string& arg(size_t i) const { return args[i].text; }
    size_t argc() const { return args.size(); }
};

struct PathInfo {
    PathClass cls = PathClass::unknown;
    std::string path;        // resolved absolute path when known
    bool guarded = false;    // unknown, but not empty
    bool root_glob = false;  // a pattern that matches every entry of the directory of `cls`
    bool secret = false;     // credentials or keys
    bool secret_dir = false; // a directory holding credentials (~/.ssh, ~)
    bool rc_file = false;    // a shell or tool start-up file
    bool ssh_access = false; // ~/.ssh/authorized_keys, rc, environment: who logs in, what runs at login
    bool ssh_config = false; // ~/.ssh/config: a ProxyCommand or LocalCommand there runs on each ssh
    bool harmless_dev = false;  // /dev/null, /dev/stdout, …
    bool network_dev = false;   // /dev/tcp/…, /dev/udp/…
    bool device = false;        // any other /dev node (disks)
    bool temp_root = false;     // /tmp itself: a file cannot replace it, writes land inside
    bool regenerable = false;   // node_modules, build, target, .venv, …
};

enum class WriteMode { truncate, append, replace };

// A machine's layout as path classes see it.
struct Place {
    Context ctx;
    std::vector<std::string> temps;           // temp roots
    std::vector<std::string> secret_samples;  // concrete secret paths, matched against patterns
};

// A rehearsal (dry_run.cpp): `name` is a program or "program subcommand"; `letters` and
// `longs` are the options that make it one; the rules in `relieves` (a trailing '.' is a
// prefix) are lowered to `cap` for the program itself, never for code it runs.
struct DryRun {
    std::string_view name;
    std::string_view letters;
    std::string_view longs;
    std::string_view relieves;
    Decision cap;
    std::string_view reason;
};
const DryRun* dry_run_of(const Call& c);
// The verdict a rehearsal lowers `rule` to, or nullopt when it does not ("rule=cage" in the
// entry's list lowers that rule to cage rather than to the entry's cap).
std::optional<Decision> dry_run_cap(const DryRun& d, std::string_view rule);

class Analyzer {
public:
    Analyzer(const Context& ctx, const Policy& policy);

    Verdict classify(const std::string& command);

    // ---- reporting (policy_apply.cpp)
    void hit(Decision d, std::string_view rule, std::string reason);
    void apply_extra_rules(const Call& call);
    Verdict finish() const;

    // ---- the tree walk (walker.cpp)
    Stream walk_script(const shell::Script& s, Scope& scope, const Stream& in);
    // Runs text as shell code (bash -c, eval, trap, alias, env -S, ssh): parses, then walks.
    // `same_scope`: eval and trap change the caller's shell; bash -c gets a copy.
    Stream run_string(const Value& code, Scope& scope, bool same_scope, const Stream& in,
                      std::string_view what);
    // A function call: walks its body (detects recursion through pipes: fork bombs).
    void call_function(const std::string& name, const shell::Command& fn, Call& call);
    // Text a parser refused: the parse-error rules.
    void parse_failed(const std::string& text, const std::string& error, std::string_view what);

    // ---- words (words.cpp)
    std::vector<Value> expand_word(const shell::Word& w, Scope& scope);
    Value expand_single(const shell::Word& w, Scope& scope);  // no splitting, no globbing
    std::vector<Value> expand_words(const std::vector<shell::Word>& ws, Scope& scope);
    Value lookup(std::string_view name, const Scope& scope) const;
    void assign(Scope& scope, const std::string& name, Value v) const;
    // Bash re-evaluates variables named in arithmetic; a value holding $( ) runs.
    void check_arithmetic(std::string_view expr, Scope& scope);

    // Variables given to one program: PATH, LD_PRELOAD and the like change what runs;
    // PAGER, EDITOR, GIT_SSH_COMMAND hold commands, judged as such.
    void check_env(const std::vector<std::pair<std::string, Value>>& env, Scope& scope);
    void judge_command_variable(const std::string& name, const Value& value, Scope& scope);

    // ---- running an argv (exec.cpp)
    Stream exec_argv(std::vector<Value> argv, Call proto);
    // The command word is not known: decide from what the arguments would do.
    void dynamic_program(const Value& cmd, Call& call);
    void check_framework_db(const Call& call);
    // A program it has no table for whose subcommand or option says it destroys
    // (destroy_words.cpp): asked about.
    void judge_unknown_shape(const Call& call);
    void pass_output_origin(Call& call);
    void probe_unknown_wrapper(Call& call);

    // ---- paths (paths.cpp)
    std::vector<PathInfo> resolve(const Value& v, const Scope& scope) const;
    PathInfo classify_abs(const std::string& abs) const;
    PathInfo classify_text(const std::string& text, bool glob, const Scope& scope) const;
    PathInfo classify_text_at(const std::string& text, bool glob, bool cwd_known, const std::string& cwd,
                              bool cwd_guarded) const;
    // Files written from a download in this command: running them runs remote code.
    void remember_taint(const Value& file, Taint t, Scope& scope) const;
    Taint file_taint(const Value& file, const Scope& scope) const;
    // Files written in this command with known content (cat > x.sh <<EOF): running them later
    // runs that content.
    void remember_text(const Value& file, const std::string* text, Scope& scope) const;
    const std::string* file_text(const Value& file, const Scope& scope) const;
    // Runs a file written in this command: its known text is judged as the program it is.
    bool run_known_script(const Value& file, Call& call, std::string_view lang);
    // Refuses running a file written from a download or decoder (or, for a shell, a filter);
    // true when it did.
    bool refuse_tainted_script(const Value& file, const Scope& scope, std::string_view who, bool shell = true);
    const Context& ctx() const { return place_->ctx; }
    bool remote() const { return place_ == remote_; }
    void set_remote(bool on) { place_ = on ? remote_ : local_; }

    // ---- shared rule helpers (programs_rm.cpp, redirects.cpp)
    void check_delete(const Value& target, bool recursive, std::string_view prog, Call& call);
    void check_write(const Value& target, WriteMode mode, std::string_view how, const Scope& scope);
    // What a redirection wrote, once the command's output is known: ssh config lines that run
    // commands (ProxyCommand), the environment sent to /dev/tcp.
    void check_written_text(const Value& target, const Stream& text, const Scope& scope);
    // A program reads the file's content (and may show or send it): secrets are refused.
    void check_read(const Value& target, std::string_view prog, const Scope& scope,
                    bool recursive = false);
    // Paths found under `starts` by a search (find, rg --pre): one pattern value per start.
    std::vector<Value> found_under(const std::vector<Value>& starts,
                                   const std::vector<std::string>& names, bool filtered) const;

    // ---- consumers of code (pipes.cpp, interpreters.cpp, sql.cpp)
    // A shell reads a script from `in` (curl | sh, sh -s <<EOF, bash <(…)).
    void shell_reads(const Stream& in, Scope& scope, std::string_view shell, Call& call);
    void interpreter_code(std::string_view lang, const Value& code, Call& call);
    void interpreter_reads(std::string_view lang, const Stream& in, Call& call);
    void sql_text(const Value& sql, std::string_view client, Call& call);

    const DryRun* dry = nullptr;  // the rehearsal being judged, at exec level dry_level
    int dry_level = -1;
    int exec_level = 0;           // nesting of exec_argv: a program, the programs it runs, …
    Explanation* trace = nullptr;          // explain_command: programs and hits recorded here
    int probing = 0;                       // > 0: hits only raise probe_max (what-if checks)
    Decision probe_max = Decision::allow;
    int depth = 0;        // nesting of run_string
    int budget = 20000;   // commands analysed before giving up (deny)
    // Bytes of words, values and output texts worked out so far (common/analysis_budget.h).
    size_t produced = 0;
    // Steps taken working out interpreter code's names (code_scan.cpp).
    size_t code_steps = 0;

    // ---- bounds (budget.cpp): each throws budget::Exceeded past its limit, which stops the
    // analysis; classify_command() answers it with input.too-complex.
    // One command (or compound) walked: loops and function calls walk theirs again.
    void spend_command();
    // A value or word worked out: at most kMaxValueBytes, and counted against the total.
    void spend_value(const std::string& text, std::string_view what);
    // Bytes copied or built (a shell state copied for a subshell, an output joined).
    void spend_bytes(size_t n);
    // Text parsed again during the walk (eval, bash -c, a function's ${x:-$(…)}): its tree is
    // kept until the end, several times the text's size.
    void spend_parse(size_t text_bytes);
    // A copy of the shell state for a subshell, a substitution or a branch, its size counted.
    Scope copy_scope(const Scope& s);
    std::vector<std::string> call_stack;  // functions being walked

private:
    Stream walk_and_or(const shell::AndOr& ao, Scope& scope, const Stream& in, bool background);
    Stream walk_pipeline(const shell::Pipeline& p, Scope& scope, const Stream& in, bool background);
    Stream walk_command(const shell::Command& c, Scope& scope, const Stream& in, bool in_pipeline,
                        bool background);
    Stream walk_simple(const shell::Command& c, Scope& scope, const Stream& in, bool in_pipeline,
                       bool background);
    // Applies the redirects of one command: writes checked, stdin replaced, stdout captured.
    // Returns true when stdout goes to a file (the pipe then carries nothing).
    bool apply_redirects(const std::vector<shell::Redirect>& rs, Scope& scope, Stream& in,
                         std::vector<std::pair<std::string, bool>>* out_files);
    void record_output(const std::vector<std::pair<std::string, bool>>& files, const Stream& out, Scope& scope);
    void merge_branches(Scope& into, const std::vector<Scope>& branches);
    // The output of one command after another's (a list, a group, a loop's rounds).
    Stream join_output(Stream a, const Stream& b);
    Value part_value(const shell::WordPart& p, Scope& scope);
    Stream capture(const shell::Script& s, Scope& scope);

    // Function bodies are judged where they are called, with the variables of that moment (a
    // cleanup function may name a variable assigned after it), and at the end: with the
    // command's last variables when the function is still defined there (an EXIT trap runs it
    // then), else, when nothing called it, with the variables of its definition.
    struct DeferredBody {
        const shell::Command* fn;
        Scope scope;
        bool remote;
        std::vector<std::string> call_stack;
    };
    std::vector<DeferredBody> deferred_bodies_;
    std::vector<const shell::Command*> called_functions_;
    void walk_deferred_bodies(const Scope& last);

    const Place* local_;   // the call's machine, normalized (cached per thread)
    const Place* remote_;  // another host's: no workspace, home is the cwd
    const Place* place_;   // the one paths are classified against now
    const Policy& policy_;
    Verdict best_;
    Decision best_builtin_ = Decision::allow;  // best_'s verdict before the policy's overrides
    bool any_ = false;
    std::deque<shell::ParseResult> owned_;  // trees parsed from strings, alive while walking
};

// ---- program tables (programs_*.cpp)
using Handler = void (*)(Analyzer&, Call&);
// The handler for a program name, or nullptr when the program is unknown.
Handler find_handler(std::string_view name);
// Registries that find_handler() searches: each sorted by name at compile time.
struct ProgramEntry {
    std::string_view name;
    Handler handler;
};
std::span<const ProgramEntry> wrapper_programs();
std::span<const ProgramEntry> launcher_programs();
std::span<const ProgramEntry> admin_programs();
std::span<const ProgramEntry> builtin_programs();
// Builtins that take a variable name (test -v, printf -v, unset, declare, read, ...) evaluate
// `$( )` in its subscript: `unset 'a[$(cmd)]'` runs cmd. Judges that code (programs_builtins.cpp).
void judge_name_subscripts(Analyzer& a, Call& c);
std::span<const ProgramEntry> shell_programs();
std::span<const ProgramEntry> git_programs();
std::span<const ProgramEntry> file_programs();
std::span<const ProgramEntry> delete_programs();
std::span<const ProgramEntry> system_programs();
std::span<const ProgramEntry> interpreter_programs();
std::span<const ProgramEntry> sql_programs();
std::span<const ProgramEntry> build_programs();
// The read-only table has its own entries (a check and flags per program).
Handler readonly_handler(std::string_view name);
// Every registry above but the read-only table, as find_handler() searches them.
using ProgramRegistry = std::span<const ProgramEntry> (*)();
std::span<const ProgramRegistry> program_registries();
void readonly_rule_ids(std::vector<std::string>& out);

// A program that runs a command: args[from..] (plus `append`) run as that command, a string as
// `sh -c` of it, judged as if written alone (programs_wrappers.cpp).
void run_wrapped(Analyzer& a, Call& c, size_t from, bool elevate, std::vector<Value> append = {},
                 Scope* scope = nullptr);
void run_wrapped_string(Analyzer& a, Call& c, const Value& code, bool elevate);

// True when the program's output is its input transformed (decoders.cpp): text reaching a
// shell through it is refused like decoded text.
bool decodes_input(const Call& c);

// ---- state that lives elsewhere (remote_state.cpp): requests that delete on a server, and
// secrets sent to the network.
// True when the program prints the shell's environment (env, printenv, set, export -p).
bool prints_environment(const Call& c);
// A generic client's request (curl -X METHOD URL, http DELETE URL): a DELETE, or an endpoint
// that deletes (_delete_by_query), is refused as remote destruction.
void judge_http_request(Analyzer& a, const Call& c, std::string_view method,
                        const std::vector<std::string>& urls);
// The program sends its arguments, and what it reads on stdin when `sends_stdin`, to the
// network: refused when they carry the environment.
void judge_secrets_sent(Analyzer& a, const Call& c, bool sends_stdin);
// Interpreter code that reads the whole environment (os.environ, process.env, %ENV) and talks
// to the network: it sends the tokens out.
bool code_sends_environment(std::string_view lang, std::string_view code);
// Interpreter code that sends an HTTP DELETE (requests.delete, method: 'DELETE', Net::HTTP::Delete).
bool code_deletes_remotely(std::string_view code);

// A word of a command line that says the program destroys (destroy_words.cpp): `word` as
// written (`--delete-destination`), `verb` its leading verb (`delete`).
struct DestructiveWord {
    std::string word;
    std::string verb;
};
// The first subcommand (of the first three plain words) or long option that leads with a verb
// of destruction, unless the command rehearses (--dry-run) or asks for help.
std::optional<DestructiveWord> destructive_word(const Call& c);

// SQL handed to a program by an option (-e, --execute, -c, --command, -q, --query, --sql,
// -execute): DROP, TRUNCATE and unbounded DELETE or UPDATE are refused (sql.cpp). For database
// shells the classifier has no table for, and for those whose table does not read SQL.
void judge_sql_options(Analyzer& a, Call& c);

// Host lock-outs and disabled defences (host_lockout.cpp): the firewall turned off, remote
// access stopped, the network interface taken down, an account's password removed, the logs
// vacuumed, a shell served on the network. Applies to every program, known or not.
void judge_host_lockout(Analyzer& a, const Call& c);

// The generic answers a handler falls back on.
void handle_readonly(Analyzer& a, Call& c, std::string_view rule);  // allow (plus sudo/path floor)
void handle_runs_code(Analyzer& a, Call& c, std::string_view rule, std::string_view what);

}  // namespace toolcage::classify::detail
