// The command corpora the tests read: the project's own (tests/data/commands.tsv, always there)
// and the team's shared one (../shared/data/commands.tsv), an extra check that runs when present.
#pragma once

#include <fstream>
#include <string>
#include <vector>

namespace toolcage::test {

struct CorpusRow {
    std::string command;  // column 1, its \n \t \\ escapes decoded
    std::string expected;  // allow, cage, ask or deny
    std::string why;
};

inline const std::string kProjectCorpus = std::string(TOOLCAGE_TEST_DATA) + "/commands.tsv";
inline const std::string kSharedCorpus = std::string(TOOLCAGE_SHARED_DATA) + "/commands.tsv";

// Column 1 uses C-style escapes for \n, \t and \\ only.
inline std::string decode_corpus_cell(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && i + 1 < s.size() && (s[i + 1] == 'n' || s[i + 1] == 't' || s[i + 1] == '\\')) {
            out += s[i + 1] == 'n' ? '\n' : s[i + 1] == 't' ? '\t' : '\\';
            ++i;
            continue;
        }
        out += s[i];
    }
    return out;
}

// The rows of a corpus file (its header line skipped); `found` says whether it could be opened.
inline std::vector<CorpusRow> read_corpus(const std::string& path, bool* found = nullptr) {
    std::vector<CorpusRow> rows;
    std::ifstream in(path);
    if (found) *found = in.good();
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        std::size_t t1 = line.find('\t');
        std::size_t t2 = t1 == std::string::npos ? t1 : line.find('\t', t1 + 1);
        CorpusRow r;
        r.command = decode_corpus_cell(line.substr(0, t1));
        if (t1 != std::string::npos)
            r.expected = line.substr(t1 + 1, t2 == std::string::npos ? std::string::npos : t2 - t1 - 1);
        if (t2 != std::string::npos) r.why = line.substr(t2 + 1);
        rows.push_back(std::move(r));
    }
    return rows;
}

}  // namespace toolcage::test
