// toolcage: the hook, the cage launcher and the tools around them.
// Any error that escapes a subcommand ends in exit 2 with one line on stderr: fail closed.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "common/decision_log.h"
#include "common/error.h"
#include "common/sanitizers.h"
#include "fleet/forward.h"
#include "hook/pipeline/hook.h"
#include "tools/cli_hints.h"
#include "tools/commands.h"
#include "tools/hook_last_words.h"

namespace {

using namespace toolcage::cli;

struct Entry {
    const char* name;
    Subcommand (*add)(CLI::App&);
};

constexpr Entry kSubcommands[] = {
    {"check", add_check_command},         {"policy", add_policy_command},
    {"hook", add_hook_command},           {"run", add_run_command},
    {"doctor", add_doctor_command},       {"install", add_install_command},
    {"uninstall", add_uninstall_command}, {"log", add_log_command},
    {"explain", add_explain_command},     {"changes", add_changes_command},
    {"land", add_land_command},           {"undo", add_undo_command},
};

// The hook runs before every tool call, and building every subcommand's options costs more
// than deciding the call: when argv[1] names a subcommand, only that one is registered.
std::vector<Subcommand> register_subcommands(CLI::App& app, int argc, char** argv) {
    std::vector<Subcommand> subs;
    for (const auto& e : kSubcommands)
        if (argc > 1 && std::strcmp(argv[1], e.name) == 0) subs.push_back(e.add(app));
    if (subs.empty())
        for (const auto& e : kSubcommands) subs.push_back(e.add(app));
    return subs;
}

// An agent that reads the hook's stdout must see a refusal even when the hook never ran (a
// bad command line, an error that escaped): Hermes, as shipped, lets a call through when a
// hook exits non-zero without output. The refusal is in the format --agent names.
void refuse_hook_call(int argc, char** argv, const std::string& why) {
    if (argc < 2 || std::strcmp(argv[1], "hook") != 0) return;
    std::optional<toolcage::hook::Agent> agent;
    if (const char* given = hook_agent_argument(argc, argv))
        agent = toolcage::hook::agent_from_string(given);
    toolcage::hook::hold_async_signals();
    toolcage::hook::Answer answer = toolcage::hook::failure_answer(agent, why);
    std::fputs(answer.out.c_str(), stdout);
}

// `toolcage SUB --version` as well as `toolcage --version`, at every level.
void add_version_flags(CLI::App& app) {
    for (CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; })) {
        s->set_version_flag("--version", std::string("toolcage ") + kVersion);
        add_version_flags(*s);
    }
}

// An error's line names the command it ended ("toolcage install claude: …"), once: a message
// that already starts with the command's words or its last word ("explain: …") keeps them once.
// The hook's stays "toolcage: …", the prefix every agent's refusal carries.
std::string error_line(const CLI::App& app, const std::string& what) {
    const std::string words = parsed_command_words(app);
    if (words == "toolcage" || words.starts_with("toolcage hook")) return "toolcage: " + what;
    std::string rest = what;
    const std::string sub = words.substr(std::string("toolcage ").size());
    const std::string last = words.substr(words.rfind(' ') + 1);
    for (const std::string& said : {sub, last})
        if (rest.starts_with(said + ": ")) {
            rest = rest.substr(said.size() + 2);
            break;
        }
    return words + ": " + rest;
}

int run_main(int argc, char** argv) {
    CLI::App app{"toolcage: a second fence for AI agents that run other people's code", "toolcage"};
    try {
        app.require_subcommand(1);
        app.set_version_flag("--version", std::string("toolcage ") + kVersion);
        std::vector<Subcommand> subs = register_subcommands(app, argc, argv);
        add_version_flags(app);
        try {
            app.parse(argc, argv);
        } catch (const CLI::ParseError& e) {
            // A slip toolcage recognises gets its own line alone (CLI11's would say what went
            // wrong in its terms, not how to fix it); --help and --version print as CLI11 does.
            std::string hint;
            if (e.get_exit_code() != 0)
                hint = slip_hint(app, std::vector<std::string>(argv + 1, argv + argc));
            int rc = 0;
            if (hint.empty() && e.get_exit_code() != 0) {
                // Any other mistake CLI11 finds: its words, under the command's own.
                const std::string words = parsed_command_words(app);
                hint = words + ": " + e.what() + "; see `" + words + " --help`";
            }
            if (hint.empty())
                rc = app.exit(e);
            else
                std::fprintf(stderr, "%s\n", hint.c_str());
            if (rc != 0 || !hint.empty())
                refuse_hook_call(
                    argc, argv,
                    "bad command line: " + (hint.empty() ? std::string(e.what()) : hint));
            return rc == 0 && hint.empty() ? 0 : kExitBlock;
        }
        for (auto& s : subs)
            if (s.app->parsed()) return s.run();
        std::fprintf(stderr, "toolcage: no subcommand given (try toolcage --help)\n");
        return kExitBlock;
    } catch (const toolcage::Error& e) {
        std::fprintf(stderr, "%s\n", error_line(app, e.what()).c_str());
        refuse_hook_call(argc, argv, e.what());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n",
                     error_line(app, std::string("internal error: ") + e.what()).c_str());
        refuse_hook_call(argc, argv, std::string("internal error: ") + e.what());
    } catch (...) {
        std::fprintf(stderr, "toolcage: internal error\n");
        refuse_hook_call(argc, argv, "internal error");
    }
    return kExitBlock;
}

}  // namespace

// The kernel frees what the process holds; the destructors of its static tables (compiled
// profiles, classifier tables, CLI11's validators) cost a tenth of a caged step's start-up.
// So: stdio flushed (std::cout writes through it), then _Exit. Under AddressSanitizer a normal
// return, so that LeakSanitizer runs.
int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "hook") == 0)
        toolcage::cli::arm_hook_last_words(argc, argv);
    // Every line the decision log gets also goes to the host's collector, if it names one.
    toolcage::set_log_forwarder(&toolcage::fleet::forward_to_collector);
    int rc = run_main(argc, argv);
    if (toolcage::kAddressSanitizer) return rc;
    if (std::fflush(nullptr) != 0 && rc == 0) rc = kExitBlock;
    std::_Exit(rc);
}
