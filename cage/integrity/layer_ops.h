// The operations a layer's landing is made of, and their undoing. The landing is planned first
// (step_layer.h reads the upper directory, nothing changes), the plan written to the step's
// directory as a journal before the first change, then applied; each operation can be applied
// again after a kill half-way with the same result (it looks at what is there before it acts),
// so the next toolcage call rolls a landing forward from the journal to its end: the workspace
// is before the step or after it, never between. `toolcage undo` is the same, backwards.
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace toolcage::cage {

struct LayerOp {
    // "aside":  the workspace's entry at `rel` (identified by dev/ino) moves to <step>/before/rel;
    // "place":  the step's file or symlink moves from the upper directory to the workspace;
    // "mkdir":  a directory the step made (0700 until its "chmod" after its contents);
    // "chmod":  a directory's permission bits become `mode` (`old_mode` -1: one the step made);
    // "rmdir":  an emptied directory of the workspace goes (`old_mode`: its bits, for undo);
    // "hold":   the step's version moves from the upper directory into <step>/held.
    std::string op;
    std::string rel;
    unsigned mode = 0;
    long old_mode = -1;
    dev_t dev = 0;
    ino_t ino = 0;
};

nlohmann::json op_to_json(const LayerOp& op);
// Throws Error when the entry is not an operation on a path inside the workspace.
LayerOp op_from_json(const nlohmann::json& j);

struct OpDirs {
    int ws = -1;         // the workspace
    int upper = -1;      // the layer's upper directory (-1: gone; what it held has moved)
    std::string held;    // <step>/held
    std::string before;  // <step>/before
};

// Applies `ops` in order, each idempotently. What could not be done is added to `problems`.
void apply_ops(const OpDirs& dirs, const std::vector<LayerOp>& ops,
               std::vector<std::string>& problems);

// The identity of the workspace's entry at `rel`, to tell later whether it was changed since:
// kind, permission bits, size, mtime, device and inode, and the SHA-256 of a symlink's target or
// of a file's bytes up to 1 MiB. null when nothing is there.
nlohmann::json entry_identity(int ws, const std::string& rel);

// Removes the overlay's own extended attributes (user.overlay.*) from a landed file: the
// workspace's copy must not carry what made sense only in the layer.
void drop_overlay_xattrs(int dir, const std::string& name);

}  // namespace toolcage::cage
