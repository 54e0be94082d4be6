// SHA-256 of a byte string, as lowercase hex: the digest an approval's key carries, so that a
// person's "always" covers exactly the command or file it was given for and no other.
#pragma once

#include <string>
#include <string_view>

namespace toolcage {

std::string sha256_hex(std::string_view data);

}  // namespace toolcage
