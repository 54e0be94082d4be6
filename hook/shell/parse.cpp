// parse(): bounds checks, the parser run, and the heredoc bodies moved into the tree.
#include <cstring>
#include <exception>

#include "hook/shell/parser.h"

namespace toolcage::shell {

namespace {

// Moves heredoc bodies from the parser's table into the redirects that announced them. A
// redirect can exist in several copies (brace expansion copies the substitutions in a word),
// so bodies are copied, and the copies count against a bound like brace expansion itself.
class HeredocFiller {
  public:
    HeredocFiller(std::vector<detail::HeredocRecord>& records, size_t budget)
        : records_(records), budget_(budget) {}

    void script(Script& s) {
        for (ListItem& item : s.items) {
            for (Pipeline& p : item.and_or.pipelines) {
                for (Command& c : p.commands) command(c);
            }
        }
    }

  private:
    void parts(std::vector<WordPart>& ps) {
        for (WordPart& p : ps) {
            for (Script& s : p.subs) script(s);
        }
    }

    void command(Command& c) {
        for (Assignment& a : c.assignments) {
            parts(a.value.parts);
            for (Script& s : a.subscript_subs) script(s);
            for (Word& w : a.items) parts(w.parts);
        }
        for (Word& w : c.words) parts(w.parts);
        for (Redirect& r : c.redirects) {
            parts(r.target.parts);
            if (r.op == "<<" || r.op == "<<-") {
                const detail::HeredocRecord& rec = records_.at(std::stoul(r.heredoc_body));
                used_ += rec.body.size() + 1;
                if (used_ > budget_) {
                    throw detail::SyntaxError{"heredoc bodies copied by brace expansion exceed " +
                                              std::to_string(budget_) + " bytes at offset 0"};
                }
                r.heredoc_body = rec.body;
                r.heredoc_subs = rec.subs;
                for (Script& s : r.heredoc_subs) script(s);
            }
        }
        for (Script& s : c.bodies) script(s);
        for (auto& arm : c.patterns) {
            for (Word& w : arm) parts(w.parts);
        }
    }

    std::vector<detail::HeredocRecord>& records_;
    size_t budget_;
    size_t used_ = 0;
};

}  // namespace

ParseResult parse(const std::string& source, const ParseLimits& limits) {
    ParseResult result;
    try {
        if (source.size() > limits.max_bytes) {
            result.error = "input of " + std::to_string(source.size()) +
                           " bytes exceeds the limit of " + std::to_string(limits.max_bytes) +
                           " bytes at offset " + std::to_string(limits.max_bytes);
            return result;
        }
        if (const void* nul = std::memchr(source.data(), '\0', source.size())) {
            result.error = "NUL byte at offset " +
                           std::to_string(static_cast<const char*>(nul) - source.data());
            return result;
        }
        detail::SharedState shared(limits);
        detail::Parser parser(source, shared, 0, 0);
        result.script = parser.parse_program();
        if (!shared.heredocs.empty()) {
            HeredocFiller(shared.heredocs, 4 * limits.max_bytes + 65536).script(result.script);
        }
        result.ok = true;
    } catch (const detail::SyntaxError& e) {
        result.error = e.message;
        result.script = Script{};
    } catch (const std::exception& e) {
        result.error = std::string("parser failure (") + e.what() + ") at offset 0";
        result.script = Script{};
    }
    return result;
}

}  // namespace toolcage::shell
