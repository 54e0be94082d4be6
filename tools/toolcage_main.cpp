// toolcage: the hook, the cage launcher and the tools around them.
// Any error that escapes a subcommand ends in exit 2 with one line on stderr: fail closed.
#include <cstdio>
#include <exception>
#include <vector>

#include "common/error.h"
#include "tools/commands.h"

int main(int argc, char** argv) {
    using namespace toolcage::cli;
    try {
        CLI::App app{"toolcage: a second fence for AI agents that run other people's code"};
        app.require_subcommand(1);
        app.set_version_flag("--version", "toolcage 0.1.0");
        std::vector<Subcommand> subs = {add_check_command(app), add_policy_command(app),
                                        add_hook_command(app), add_run_command(app),
                                        add_doctor_command(app), add_install_command(app),
                                        add_uninstall_command(app)};
        try {
            app.parse(argc, argv);
        } catch (const CLI::ParseError& e) {
            int rc = app.exit(e);
            return rc == 0 ? 0 : kExitBlock;
        }
        for (auto& s : subs)
            if (s.app->parsed()) return s.run();
        std::fprintf(stderr, "toolcage: no subcommand given (try toolcage --help)\n");
        return kExitBlock;
    } catch (const toolcage::Error& e) {
        std::fprintf(stderr, "toolcage: %s\n", e.what());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "toolcage: internal error: %s\n", e.what());
    } catch (...) {
        std::fprintf(stderr, "toolcage: internal error\n");
    }
    return kExitBlock;
}
