#include "hook/install/change_set.h"

#include <algorithm>
#include <iterator>
#include <string_view>

#include "common/error.h"

namespace toolcage::install {

namespace {

// An edit says what it did ("appended toolcage's hook"); a dry run says what it would do
// ("would append toolcage's hook"). The verbs the installers begin with, sorted.
struct Tense {
    std::string_view past, base;
};
constexpr Tense kTenses[] = {
    {"added", "add"},         {"appended", "append"},   {"changed", "change"},
    {"cleared", "clear"},
    {"copied", "copy"},       {"created", "create"},    {"enabled", "enable"},
    {"filled", "fill"},       {"installed", "install"}, {"recorded", "record"},
    {"removed", "remove"},    {"replaced", "replace"},  {"set", "set"},
    {"updated", "update"},    {"withdrew", "withdraw"}, {"wrote", "write"},
};
static_assert(std::ranges::is_sorted(kTenses, {}, &Tense::past));

std::string base_form(const std::string& clause) {
    std::string_view first = std::string_view(clause).substr(0, clause.find(' '));
    auto it = std::ranges::lower_bound(kTenses, first, {}, &Tense::past);
    if (it == std::end(kTenses) || it->past != first) return clause;
    return std::string(it->base) + clause.substr(first.size());
}

// Each clause of "did this; did that" in the base form.
std::string would(const std::string& what) {
    std::string out = "would ";
    size_t start = 0;
    for (;;) {
        size_t semi = what.find("; ", start);
        out += base_form(what.substr(start, semi == std::string::npos ? std::string::npos : semi - start));
        if (semi == std::string::npos) return out;
        out += "; ";
        start = semi + 2;
    }
}

bool same(const FileEdit& e) {
    if (!e.after) return !e.before.exists;
    return e.before.exists && e.before.content == *e.after;
}

void put_back(const FileEdit& e) {
    if (e.before.exists)
        write_atomic(e.before.path, e.before.content, e.before.mode, e.before.uid, e.before.gid);
    else
        remove_file(e.before.path);
}

}  // namespace

void ChangeSet::add(FileEdit edit) {
    if (!same(edit)) edits_.push_back(std::move(edit));
}

std::vector<std::string> ChangeSet::preview() const {
    std::vector<std::string> out;
    for (const auto& e : edits_) out.push_back(e.before.path.string() + ": " + would(e.what));
    return out;
}

FileEdit created_file_removal(FileEdit edit) {
    edit.toolcage_created = !edit.after;
    return edit;
}

std::vector<std::string> ChangeSet::apply() const {
    // Everything is checked before the first write, so that bad input changes nothing.
    for (const auto& e : edits_) {
        std::string why = why_not_writable(e.before);
        if (!why.empty()) throw Error(why + " (nothing was changed)");
        FileState now = read_file_state(e.before.path);
        if (now.exists != e.before.exists || now.content != e.before.content)
            throw Error(e.before.path.string() +
                        ": changed while toolcage was reading it; run again (nothing was changed)");
    }
    std::vector<std::string> backups;
    for (const auto& e : edits_)
        backups.push_back(e.before.exists && e.backup && !e.toolcage_created ? backup_file(e.before).string()
                                                                             : "");

    std::vector<std::string> out;
    for (size_t i = 0; i < edits_.size(); ++i) {
        const FileEdit& e = edits_[i];
        try {
            if (e.after) {
                mode_t mode = e.before.exists ? e.before.mode : e.new_file_mode;
                write_atomic(e.before.path, *e.after, mode, e.before.uid, e.before.gid);
            } else {
                remove_file(e.before.path);
            }
        } catch (const Error& err) {
            std::string undo;
            for (size_t j = 0; j < i; ++j) {
                try {
                    put_back(edits_[j]);
                } catch (const Error& again) {
                    undo += "; could not put back " + edits_[j].before.path.string() + " (" +
                            again.what() + "): its backup is " +
                            (backups[j].empty() ? "none (it did not exist)" : backups[j]);
                }
            }
            throw Error(std::string(err.what()) + "; the files changed before it were put back" +
                        undo);
        }
        out.push_back(e.before.path.string() + ": " + e.what +
                      (backups[i].empty() ? "" : " (backup: " + backups[i] + ")"));
    }
    // Only once every file is written: the backups of the files toolcage created and removed,
    // by their exact name (list_backups); a user's own file is never toolcage_created.
    for (size_t i = 0; i < edits_.size(); ++i) {
        if (!edits_[i].toolcage_created || edits_[i].after) continue;
        auto old = list_backups(edits_[i].before.path);
        for (const auto& b : old) {
            try {
                remove_file(b);
            } catch (const Error& err) {
                out.push_back(b.string() + ": left in place (" + err.what() + "); remove it by hand");
            }
        }
        if (!old.empty()) out[i] += " and its " + std::to_string(old.size()) + " backup(s)";
    }
    return out;
}

}  // namespace toolcage::install
