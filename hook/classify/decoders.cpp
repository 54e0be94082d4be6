// Decoders: programs whose output is their input transformed (rev, tr, sed, zcat, openssl enc,
// perl -pe). Text that reaches a shell through one of them is code nobody has read, so
// `… | rev | sh` is refused like `base64 -d | sh`. The filters of the read-only table count
// without being listed here; this table holds the others, with the options that make them decode.
#include <algorithm>

#include "hook/classify/analyzer.h"
#include "hook/classify/program_table.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

namespace {

struct Decoder {
    std::string_view name;
    std::string_view letters;  // short options that make it decode ("" with no long ones: always)
    std::string_view longs;    // long options that do (space-separated)
    std::string_view reason;
};

constexpr auto kDecoders = sorted_by_name(std::to_array<Decoder>({
    {"7z", "", "-so", "extracts an archive member to stdout"},
    {"age", "d", "--decrypt", "decrypts"},
    {"brotli", "", "", "compresses or decompresses"},
    {"bunzip2", "", "", "decompresses"},
    {"bzcat", "", "", "decompresses"},
    {"bzip2", "", "", "compresses or decompresses"},
    {"dos2unix", "", "", "rewrites line ends"},
    {"envsubst", "", "", "substitutes variables into text"},
    {"gpg", "d", "--decrypt", "decrypts"},
    {"gpg2", "d", "--decrypt", "decrypts"},
    {"gunzip", "", "", "decompresses"},
    {"gzip", "", "", "compresses or decompresses"},
    {"lz4", "", "", "compresses or decompresses"},
    {"lz4cat", "", "", "decompresses"},
    {"lzcat", "", "", "decompresses"},
    {"lzma", "", "", "compresses or decompresses"},
    {"m4", "", "", "expands macros"},
    {"node", "ep", "--eval --print", "runs a one-liner over its input"},
    {"openssl", "", "", "decrypts or decodes"},
    {"perl", "epnE", "", "runs a one-liner over its input"},
    {"php", "rRBE", "", "runs a one-liner over its input"},
    {"python", "c", "", "runs a one-liner over its input"},
    {"python3", "c", "", "runs a one-liner over its input"},
    {"recode", "", "", "converts encodings"},
    {"rot13", "", "", "rotates letters"},
    {"ruby", "epn", "", "runs a one-liner over its input"},
    {"tar", "O", "--to-stdout", "extracts an archive member to stdout"},
    {"unix2dos", "", "", "rewrites line ends"},
    {"unlzma", "", "", "decompresses"},
    {"unxz", "", "", "decompresses"},
    {"unzip", "p", "", "extracts an archive member to stdout"},
    {"unzstd", "", "", "decompresses"},
    {"uudecode", "", "", "decodes"},
    {"xz", "", "", "compresses or decompresses"},
    {"xzcat", "", "", "decompresses"},
    {"zcat", "", "", "decompresses"},
    {"zstd", "", "", "compresses or decompresses"},
    {"zstdcat", "", "", "decompresses"},
}));


}  // namespace

bool decodes_input(const Call& c) {
    const Decoder* d = find_by_name<Decoder>(kDecoders, c.name);
    if (!d) return false;
    if (d->letters.empty() && d->longs.empty()) return true;
    for (const Value& v : c.args) {
        if (!is_flag(v)) continue;
        const std::string& t = v.text;
        if (t.rfind("--", 0) == 0 || (c.name == "7z" && t == "-so")) {
            if (word_listed(d->longs, t.substr(0, t.find('=')))) return true;
            continue;
        }
        for (size_t k = 1; k < t.size(); ++k) {
            if (d->letters.find(t[k]) != std::string_view::npos) return true;
        }
    }
    return false;
}

}  // namespace toolcage::classify::detail
