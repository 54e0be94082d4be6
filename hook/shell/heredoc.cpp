// Heredocs: the delimiter (quote removal, no expansion), the body (read when the line that
// announced it ends; <<- strips leading tabs; the body ends at the delimiter line), and, for an
// unquoted delimiter, the substitutions in the body.
#include "hook/shell/parser.h"

namespace toolcage::shell::detail {

namespace {

// The delimiter after quote removal; `quoted` when any quoting appeared (the body is then
// inert text).
std::string delimiter_text(std::string_view raw, bool& quoted) {
    std::string out;
    quoted = false;
    size_t i = 0;
    while (i < raw.size()) {
        char c = raw[i];
        if (c == '\\') {
            if (i + 1 < raw.size() && raw[i + 1] == '\n') {
                i += 2;
                continue;
            }
            quoted = true;
            if (i + 1 < raw.size()) out += raw[i + 1];
            i += 2;
        } else if (c == '\'') {
            quoted = true;
            size_t e = raw.find('\'', i + 1);
            if (e == std::string_view::npos) e = raw.size();
            out.append(raw.substr(i + 1, e - i - 1));
            i = e + 1;
        } else if (c == '"') {
            quoted = true;
            ++i;
            while (i < raw.size() && raw[i] != '"') {
                char d = i + 1 < raw.size() ? raw[i + 1] : '\0';
                if (raw[i] == '\\' &&
                    (d == '$' || d == '`' || d == '"' || d == '\\' || d == '\n')) {
                    if (d != '\n') out += d;
                    i += 2;
                } else {
                    out += raw[i++];
                }
            }
            ++i;
        } else if (c == '$' && i + 1 < raw.size() && (raw[i + 1] == '\'' || raw[i + 1] == '"')) {
            ++i;  // $'…' and $"…" delimiters: the quotes count, the $ goes
        } else {
            out += c;
            ++i;
        }
    }
    return out;
}

bool odd_trailing_backslashes(std::string_view line) {
    size_t n = 0;
    while (n < line.size() && line[line.size() - 1 - n] == '\\') ++n;
    return n % 2 == 1;
}

}  // namespace

void Parser::add_heredoc(Redirect& r, bool strip_tabs) {
    bool quoted = false;
    std::string delimiter = delimiter_text(r.target.raw, quoted);
    r.target.parts.clear();
    add_literal(r.target.parts, delimiter, quoted);
    size_t id = shared_.heredocs.size();
    shared_.heredocs.emplace_back();
    shared_.heredocs.back().quoted = quoted;
    r.heredoc_quoted = quoted;
    r.heredoc_body = std::to_string(id);  // replaced by the body once parse() is done
    pending_.push_back(PendingHeredoc{id, std::move(delimiter), strip_tabs, quoted});
}

void Parser::read_pending_heredocs() {
    if (pending_.empty()) return;
    std::vector<PendingHeredoc> pending = std::move(pending_);
    pending_.clear();
    for (const PendingHeredoc& h : pending) {
        size_t body_start = pos_;
        std::string body;
        while (pos_ < src_.size()) {
            size_t eol = src_.find('\n', pos_);
            size_t end = eol == std::string_view::npos ? src_.size() : eol;
            std::string line(src_.substr(pos_, end - pos_));
            pos_ = eol == std::string_view::npos ? src_.size() : eol + 1;
            // In an unquoted body backslash-newline joins lines, also on the delimiter line.
            while (!h.quoted && odd_trailing_backslashes(line) && eol != std::string_view::npos &&
                   pos_ < src_.size()) {
                line.pop_back();
                eol = src_.find('\n', pos_);
                end = eol == std::string_view::npos ? src_.size() : eol;
                line.append(src_.substr(pos_, end - pos_));
                pos_ = eol == std::string_view::npos ? src_.size() : eol + 1;
            }
            if (h.strip_tabs) line.erase(0, line.find_first_not_of('\t'));
            if (line == h.delimiter) break;
            body += line;
            if (eol != std::string_view::npos) body += '\n';
        }
        std::vector<Script> subs;
        if (!h.quoted && body.find_first_of("$`") != std::string::npos) {
            enter();
            Parser child(body, shared_, depth_, base_ + body_start);
            subs = child.scan_heredoc_body();
            leave();
        }
        HeredocRecord& rec = shared_.heredocs[h.id];
        rec.body = std::move(body);
        rec.subs = std::move(subs);
    }
}

// An unquoted body expands like "…" except that " is ordinary.
std::vector<Script> Parser::scan_heredoc_body() {
    std::vector<Script> subs;
    std::vector<WordPart> tmp;
    while (pos_ < src_.size()) {
        char c = src_[pos_];
        if (c == '\\') {
            pos_ += 2;
        } else if (c == '$') {
            read_dollar(tmp, true);
        } else if (c == '`') {
            read_backquoted(tmp, false);
        } else {
            ++pos_;
        }
        if (!tmp.empty()) {
            collect_subs(tmp, subs);
            tmp.clear();
        }
    }
    read_pending_heredocs();
    return subs;
}

}  // namespace toolcage::shell::detail
