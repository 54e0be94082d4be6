// What no policy can open for writing: toolcage's own install, state and journal, the agents'
// configuration, shell start-up files and ~/.ssh. A write grant that covers one is narrowed.
#pragma once

#include <string>
#include <vector>

#include "cage/step/workspace.h"

namespace toolcage::cage {

struct NeverWritable {
    std::string path;  // absolute, normal
    std::string what;  // for the note: "ssh keys", "a shell start-up file"
};

// For this process: toolcage's binaries and installed policies, its state directory (the
// user database's home, and $XDG_STATE_HOME), the agents' configuration, and in each home the
// shell start-up files and ~/.ssh.
std::vector<NeverWritable> never_writable_paths();

// Landlock cannot take a right away beneath a directory it grants, so a write grant that holds
// one of `kept` is replaced by its entries, one by one, without the kept ones (recursively
// along the way to each): the grant's own directory loses its write rights (no new entry in
// it either, so a start-up file that does not exist yet cannot be made). A grant at or below
// a kept path is dropped. Symlinks among the entries are not granted. Each change is a note
// in `cage.notes`, naming the grant and what it held.
void narrow_write_grants(ExpandedCage& cage, const std::vector<NeverWritable>& kept);

// The broad grants `policy validate` warns about ({home}, /, /usr, /etc and their like), with
// what each exposes; empty when `entry` (as written in the policy) is not one.
std::string broad_grant_warning(const std::string& entry);

}  // namespace toolcage::cage
