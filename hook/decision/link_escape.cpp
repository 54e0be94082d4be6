#include "hook/decision/link_escape.h"

#include "common/path_text.h"

namespace toolcage::hook {

namespace {

std::string real_or_empty(PathResolver& resolver, const std::string& p) {
    return p.empty() || p[0] != '/' ? p : resolver.resolve(p);
}

// `p` below `dir` as the workspace names it ("k", "sub/k"); `p` itself when it is not below.
std::string shown(const std::string& p, const std::string& dir) {
    if (p.size() > dir.size() + 1 && path_within(p, dir)) return p.substr(dir.size() + 1);
    return p;
}

}  // namespace

classify::Context real_context(const classify::Context& ctx) {
    PathResolver resolver;  // the places share their prefixes (the home holds the workspace)
    classify::Context c = ctx;
    c.cwd = real_or_empty(resolver, ctx.cwd);
    c.workspace = real_or_empty(resolver, ctx.workspace);
    c.home = real_or_empty(resolver, ctx.home);
    c.real_home = real_or_empty(resolver, ctx.real_home);
    c.tmp = real_or_empty(resolver, ctx.tmp);
    return c;
}

std::optional<Verdict> link_escape(const std::string& written, const Resolution& r,
                                   const std::string& workspace) {
    if (workspace.empty())
        return std::nullopt;  // no workspace: every write outside it is refused anyway
    for (const PathLink& link : r.links) {
        if (!path_within(link.at, workspace) || path_within(link.leads, workspace)) continue;
        std::string to =
            link.target == link.leads ? link.target : link.target + " (" + link.leads + ")";
        return Verdict{Decision::deny, "file.link-escape",
                       written + " resolves through the link " + shown(link.at, workspace) +
                           " -> " + to + " to " + r.path + ", outside the workspace " + workspace +
                           "; refusing to write through a link that leaves the workspace"};
    }
    return std::nullopt;
}

}  // namespace toolcage::hook
