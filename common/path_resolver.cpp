#include "common/path_resolver.h"

#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "common/path_text.h"

namespace toolcage {

namespace {

// What is left to walk, as a stack (the next name last): names, and after each link's target a
// mark that the walk has reached where that link leads.
struct Pending {
    std::string name;
    int link_end = -1;  // >= 0: Resolution::links[link_end] leads to the directory reached
};

void push_names(std::vector<Pending>& todo, std::string_view text) {
    std::size_t end = text.size();
    while (end > 0) {
        std::size_t slash = text.rfind('/', end - 1);
        std::size_t begin = slash == std::string_view::npos ? 0 : slash + 1;
        if (end > begin) todo.push_back({std::string(text.substr(begin, end - begin))});
        if (slash == std::string_view::npos) break;
        end = slash;
    }
}

std::size_t pending_length(const std::vector<Pending>& todo) {
    std::size_t n = 0;
    for (const auto& t : todo) n += t.name.size() + 1;
    return n;
}

}  // namespace

const PathResolver::Entry& PathResolver::look(const std::string& name) {
    if (auto it = seen_.find(name); it != seen_.end()) return it->second;
    Entry e;
    char buf[PATH_MAX];
    ssize_t n = ::readlink(name.c_str(), buf, sizeof buf);
    if (n < 0) {
        if (errno == EINVAL) {
            e.kind = Entry::Kind::plain;
        } else if (errno == ENOENT || errno == ENOTDIR) {
            e.kind = Entry::Kind::absent;
        } else {
            e.kind = Entry::Kind::refused;
            e.error = errno;
        }
    } else if (n == 0 || static_cast<std::size_t>(n) >= sizeof buf) {
        e.kind = Entry::Kind::refused;
        e.error = ENAMETOOLONG;
    } else {
        e.kind = Entry::Kind::link;
        e.target.assign(buf, static_cast<std::size_t>(n));
    }
    return seen_.emplace(name, std::move(e)).first->second;
}

Resolution PathResolver::trace(const std::string& p) {
    Resolution r;
    if (p.empty() || p[0] != '/') {
        r.error = "\"" + p + "\" is not an absolute path";
        return r;
    }
    if (p.size() >= PATH_MAX) {
        r.error = "the path is longer than PATH_MAX (" + std::to_string(PATH_MAX) + " bytes)";
        return r;
    }
    std::vector<Pending> todo;
    push_names(todo, p);
    std::string cur;  // resolved so far; "" is the root
    int links = 0;
    while (!todo.empty()) {
        Pending step = std::move(todo.back());
        todo.pop_back();
        if (step.link_end >= 0) {
            r.links[static_cast<std::size_t>(step.link_end)].leads = cur.empty() ? "/" : cur;
            continue;
        }
        if (step.name == ".") continue;
        if (step.name == "..") {  // of the directory reached, as the kernel walks it
            if (!cur.empty()) cur.resize(cur.rfind('/'));
            continue;
        }
        std::string next = cur + "/" + step.name;
        const Entry& e = look(next);
        switch (e.kind) {
            case Entry::Kind::plain:
            case Entry::Kind::absent:  // kept as written: the walk goes on below it
                cur = std::move(next);
                break;
            case Entry::Kind::refused:
                r.error = "readlink(\"" + next + "\"): " + std::strerror(e.error);
                return r;
            case Entry::Kind::link:
                if (++links > kMaxLinks) {
                    r.error = "more than " + std::to_string(kMaxLinks) +
                              " symlinks on the way (a loop), at " + next + " -> " + e.target;
                    return r;
                }
                if (cur.size() + e.target.size() + pending_length(todo) + 2 >= PATH_MAX) {
                    r.error = "through the link " + next + " -> " + e.target +
                              " the path grows past PATH_MAX (" + std::to_string(PATH_MAX) +
                              " bytes)";
                    return r;
                }
                r.links.push_back({next, e.target, {}});
                todo.push_back({{}, static_cast<int>(r.links.size() - 1)});
                push_names(todo, e.target);
                if (e.target[0] == '/') cur.clear();
                break;
        }
        if (cur.size() >= PATH_MAX) {
            r.error = "the path resolves past PATH_MAX (" + std::to_string(PATH_MAX) + " bytes)";
            return r;
        }
    }
    r.path = cur.empty() ? "/" : cur;
    return r;
}

std::string PathResolver::resolve(const std::string& p) {
    if (p.empty() || p[0] != '/') return normal_path(p);
    Resolution r = trace(p);
    return r.error.empty() ? r.path : normal_path(p);
}

}  // namespace toolcage
