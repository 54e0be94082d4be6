// Paths with their symlinks resolved as the kernel walks them: the one resolution the cage's
// grants, the workspace choice, the self-protection and the hook's file tools all use. Each
// name is looked up once per resolver: a policy's sixty grants share a few prefixes (/etc, /usr,
// the home), and canonical would readlink each of them again for every grant.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace toolcage {

// A symlink met on the way.
struct PathLink {
    std::string at;      // where the link lies, its directory resolved
    std::string target;  // what it says (readlink)
    std::string leads;   // where it leads, resolved
};

// What a path resolves to, or why it cannot be resolved.
struct Resolution {
    std::string path;             // resolved; empty when `error` says why not
    std::vector<PathLink> links;  // every link followed, in the order the walk met them
    std::string error;            // a loop, a path past PATH_MAX, a lookup refused
};

class PathResolver {
  public:
    static constexpr int kMaxLinks = 40;  // as the kernel's ELOOP

    // `p`, absolute and as written (its `..` not folded yet), walked as the kernel walks it:
    // each symlink replaced by its target (a relative one from the link's directory), `..`
    // taken of the directory reached, not of the text. A name that does not exist is kept as
    // written and the walk goes on below it (the path a write creates); a dangling link leads
    // to its target. More than kMaxLinks links, or a path past PATH_MAX, is an error.
    Resolution trace(const std::string& p);

    // trace's path; a relative path, a loop or a lookup refused comes back as written
    // (lexically normal), which callers compare as it stands.
    std::string resolve(const std::string& p);

  private:
    // One name's lookup: a link (its target), absent, plain, or refused (errno).
    struct Entry {
        enum class Kind { plain, absent, link, refused } kind = Kind::plain;
        std::string target;
        int error = 0;
    };
    std::map<std::string, Entry> seen_;

    const Entry& look(const std::string& name);
};

}  // namespace toolcage
