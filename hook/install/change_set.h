// The files one install or uninstall changes, decided in full before any is touched: every
// file is checked first, backed up, then replaced; a failure part-way puts back what was done.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hook/install/atomic_file.h"

namespace toolcage::install {

struct FileEdit {
    FileState before;                  // as read when the change was decided
    std::optional<std::string> after;  // nullopt: remove the file
    std::string what;                  // one line for the user: what the change does
    mode_t new_file_mode = 0600;       // for a file that does not exist yet
    bool backup = true;                // false: a file toolcage wrote whole (its own plugin)
    // A file toolcage created, removed (after is nullopt): its bytes are toolcage's, so the
    // removal takes no backup, and the backups toolcage made of it go with it.
    bool toolcage_created = false;
};

// A removal of a file toolcage created (see FileEdit::toolcage_created); an edit that keeps the
// file is returned as it is.
FileEdit created_file_removal(FileEdit edit);

class ChangeSet {
  public:
    // Edits that leave a file as it is are dropped.
    void add(FileEdit edit);
    bool empty() const { return edits_.empty(); }

    // Checks every file can be written and has not changed since it was read, backs each up,
    // writes them in order. Returns one line per file. Throws Error, leaving files as they were.
    std::vector<std::string> apply() const;

    // The lines apply() would print, without touching anything.
    std::vector<std::string> preview() const;

  private:
    std::vector<FileEdit> edits_;
};

}  // namespace toolcage::install
