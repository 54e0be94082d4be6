// `toolcage install` / `toolcage uninstall`: not built yet.
#include <cstdio>

#include "tools/commands.h"

namespace toolcage::cli {

namespace {
Subcommand not_built(CLI::App& app, const char* name) {
    auto* sub = app.add_subcommand(name, "not built yet");
    sub->allow_extras();
    return {sub, [name] {
                std::fprintf(stderr, "toolcage %s: not built yet\n", name);
                return kExitBlock;
            }};
}
}  // namespace

Subcommand add_install_command(CLI::App& app) { return not_built(app, "install"); }
Subcommand add_uninstall_command(CLI::App& app) { return not_built(app, "uninstall"); }

}  // namespace toolcage::cli
