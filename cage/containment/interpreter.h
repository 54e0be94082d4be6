// Which interpreter a program needs before it can run: the ELF loader named in PT_INTERP, or
// the program of a script's "#!" line. The doctor checks that the cage may execute it too.
#pragma once

#include <optional>
#include <string>

namespace toolcage::cage {

// PT_INTERP of an ELF executable (e.g. /lib64/ld-linux-x86-64.so.2); nullopt for a static
// binary or a file that is not ELF.
std::optional<std::string> elf_interpreter(const std::string& path);

// The first word after "#!" (e.g. /usr/bin/env); nullopt when the file is not a script.
std::optional<std::string> script_interpreter(const std::string& path);

// Whichever of the two applies.
std::optional<std::string> interpreter_of(const std::string& path);

}  // namespace toolcage::cage
