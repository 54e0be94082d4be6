#include "cage/containment/interpreter.h"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <vector>

namespace toolcage::cage {

namespace {

template <typename Ehdr, typename Phdr>
std::optional<std::string> read_interp(std::ifstream& f) {
    Ehdr eh{};
    f.seekg(0);
    if (!f.read(reinterpret_cast<char*>(&eh), sizeof eh)) return std::nullopt;
    if (eh.e_phentsize != sizeof(Phdr) || eh.e_phnum == 0 || eh.e_phnum > 4096) return std::nullopt;
    for (unsigned i = 0; i < eh.e_phnum; ++i) {
        Phdr ph{};
        f.seekg(static_cast<std::streamoff>(eh.e_phoff + i * sizeof(Phdr)));
        if (!f.read(reinterpret_cast<char*>(&ph), sizeof ph)) return std::nullopt;
        if (ph.p_type != PT_INTERP) continue;
        if (ph.p_filesz == 0 || ph.p_filesz > 4096) return std::nullopt;
        std::string s(ph.p_filesz, '\0');
        f.seekg(static_cast<std::streamoff>(ph.p_offset));
        if (!f.read(s.data(), static_cast<std::streamsize>(s.size()))) return std::nullopt;
        s.resize(std::strlen(s.c_str()));
        return s;
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::string> elf_interpreter(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    unsigned char ident[EI_NIDENT]{};
    if (!f.read(reinterpret_cast<char*>(ident), sizeof ident)) return std::nullopt;
    if (std::memcmp(ident, ELFMAG, SELFMAG) != 0) return std::nullopt;
    if (ident[EI_CLASS] == ELFCLASS64) return read_interp<Elf64_Ehdr, Elf64_Phdr>(f);
    if (ident[EI_CLASS] == ELFCLASS32) return read_interp<Elf32_Ehdr, Elf32_Phdr>(f);
    return std::nullopt;
}

std::optional<std::string> script_interpreter(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::string line;
    if (!std::getline(f, line) || line.rfind("#!", 0) != 0) return std::nullopt;
    std::size_t b = line.find_first_not_of(" \t", 2);
    if (b == std::string::npos) return std::nullopt;
    std::size_t e = line.find_first_of(" \t\r", b);
    return line.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

std::optional<std::string> interpreter_of(const std::string& path) {
    if (auto i = elf_interpreter(path)) return i;
    return script_interpreter(path);
}

}  // namespace toolcage::cage
