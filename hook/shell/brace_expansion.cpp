// Brace expansion works on a flat sequence of units: one unquoted character, or one whole part
// that braces cannot see into (quoted text, substitutions). Groups side by side are expanded
// left to right as a product; only nesting recurses, so depth follows nesting alone.
#include "hook/shell/brace_expansion.h"

#include <cstdlib>
#include <string>

#include "hook/shell/parser.h"

namespace toolcage::shell::detail {

namespace {

struct Unit {
    char c = 0;     // the character when part < 0
    int part = -1;  // index of an opaque part
    bool is(char ch) const { return part < 0 && c == ch; }
};
using Units = std::vector<Unit>;

size_t script_weight(const Script& s);

// Roughly how much memory a copy of a part costs: its text and everything parsed inside it.
size_t part_weight(const WordPart& p) {
    size_t w = 1 + p.text.size() + p.op.size();
    for (const Script& s : p.subs) w += script_weight(s);
    return w;
}

size_t word_weight(const Word& w) {
    size_t n = 1 + w.raw.size();
    for (const WordPart& p : w.parts) n += part_weight(p);
    return n;
}

size_t script_weight(const Script& s) {
    size_t n = 1;
    for (const ListItem& item : s.items) {
        for (const Pipeline& p : item.and_or.pipelines) {
            for (const Command& c : p.commands) {
                n += 1;
                for (const Word& w : c.words) n += word_weight(w);
                for (const Assignment& a : c.assignments) {
                    n += word_weight(a.value) + a.name.size();
                    for (const Word& w : a.items) n += word_weight(w);
                    for (const Script& x : a.subscript_subs) n += script_weight(x);
                }
                for (const Redirect& r : c.redirects)
                    n += word_weight(r.target) + r.heredoc_body.size();
                for (const Script& b : c.bodies) n += script_weight(b);
                for (const auto& arm : c.patterns) {
                    for (const Word& w : arm) n += word_weight(w);
                }
            }
        }
    }
    return n;
}

class Expander {
  public:
    Expander(const std::vector<WordPart>& parts, const BraceBudget& b, size_t offset)
        : parts_(parts), budget_(b), offset_(offset) {
        for (const WordPart& p : parts_) weights_.push_back(part_weight(p));
    }

    std::vector<Units> expand(const Units& in, int depth);
    std::vector<WordPart> assemble(const Units& u) const;

  private:
    [[noreturn]] void too_big() const {
        throw SyntaxError{"brace expansion larger than the limits (" +
                          std::to_string(budget_.max_words) + " words, " +
                          std::to_string(budget_.max_units) + " characters) at offset " +
                          std::to_string(offset_)};
    }
    size_t weight(const Units& u) const {
        size_t n = budget_.raw_size;
        for (const Unit& x : u) n += x.part < 0 ? 1 : weights_[static_cast<size_t>(x.part)];
        return n;
    }
    void charge(size_t words, size_t units) {
        words_ += words;
        units_ += units;
        if (words_ > budget_.max_words || units_ > budget_.max_units) too_big();
    }
    bool sequence(const Units& in, size_t open, size_t close, std::vector<Units>& out);

    const std::vector<WordPart>& parts_;
    const BraceBudget& budget_;
    size_t offset_;
    std::vector<size_t> weights_;
    size_t words_ = 0;
    size_t units_ = 0;
};

// For every unquoted '{', the index of its matching '}' (npos when it has none), in one pass.
std::vector<size_t> match_braces(const Units& in) {
    std::vector<size_t> match(in.size(), std::string::npos);
    std::vector<size_t> open;
    for (size_t i = 0; i < in.size(); ++i) {
        if (in[i].is('{')) {
            open.push_back(i);
        } else if (in[i].is('}') && !open.empty()) {
            match[open.back()] = i;
            open.pop_back();
        }
    }
    return match;
}

// Does the group open..close hold a comma outside nested groups?
bool has_top_comma(const Units& in, const std::vector<size_t>& match, size_t open, size_t close) {
    for (size_t j = open + 1; j < close; ++j) {
        if (in[j].is('{') && match[j] != std::string::npos) {
            j = match[j];
        } else if (in[j].is(',')) {
            return true;
        }
    }
    return false;
}

bool parse_int(const std::string& s, long long& v) {
    if (s.empty() || s.size() > 18) return false;
    size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
    if (i == s.size()) return false;
    for (size_t j = i; j < s.size(); ++j) {
        if (s[j] < '0' || s[j] > '9') return false;
    }
    v = std::strtoll(s.c_str(), nullptr, 10);
    return true;
}

bool zero_padded(const std::string& s) {
    size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
    return s.size() > i + 1 && s[i] == '0';
}

// {x..y} and {x..y..step} with integers or single characters.
bool Expander::sequence(const Units& in, size_t open, size_t close, std::vector<Units>& out) {
    std::string text;
    for (size_t i = open + 1; i < close; ++i) {
        if (in[i].part >= 0) return false;
        text += in[i].c;
    }
    size_t d1 = text.find("..");
    if (d1 == std::string::npos) return false;
    std::string a = text.substr(0, d1);
    std::string rest = text.substr(d1 + 2);
    std::string b = rest;
    long long step = 1;
    size_t d2 = rest.find("..");
    if (d2 != std::string::npos) {
        b = rest.substr(0, d2);
        if (!parse_int(rest.substr(d2 + 2), step)) return false;
        step = std::llabs(step);
        if (step == 0) step = 1;
    }
    long long x = 0;
    long long y = 0;
    std::vector<std::string> items;
    if (parse_int(a, x) && parse_int(b, y)) {
        unsigned long long count = (x <= y ? static_cast<unsigned long long>(y - x)
                                           : static_cast<unsigned long long>(x - y)) /
                                       static_cast<unsigned long long>(step) +
                                   1;
        if (count > budget_.max_words) too_big();
        size_t width = (zero_padded(a) || zero_padded(b)) ? std::max(a.size(), b.size()) : 0;
        long long v = x;
        for (unsigned long long n = 0; n < count; ++n, v = x <= y ? v + step : v - step) {
            std::string s = std::to_string(v < 0 ? -v : v);
            size_t w = width > 0 && v < 0 ? width - 1 : width;
            if (s.size() < w) s.insert(0, w - s.size(), '0');
            if (v < 0) s.insert(0, 1, '-');
            items.push_back(std::move(s));
        }
    } else if (a.size() == 1 && b.size() == 1 && !(a[0] >= '0' && a[0] <= '9') &&
               !(b[0] >= '0' && b[0] <= '9')) {
        int ca = static_cast<unsigned char>(a[0]);
        int cb = static_cast<unsigned char>(b[0]);
        for (int v = ca; ca <= cb ? v <= cb : v >= cb;
             v += ca <= cb ? static_cast<int>(step) : -static_cast<int>(step)) {
            items.emplace_back(1, static_cast<char>(v));
        }
    } else {
        return false;
    }
    for (const std::string& s : items) {
        Units u;
        for (char ch : s) u.push_back(Unit{ch, -1});
        out.push_back(std::move(u));
    }
    return true;
}

std::vector<Units> Expander::expand(const Units& in, int depth) {
    if (depth > budget_.max_depth) too_big();
    std::vector<Units> results(1);
    std::vector<size_t> match = match_braces(in);
    size_t i = 0;
    size_t literal_from = 0;
    while (i < in.size()) {
        size_t close = in[i].is('{') ? match[i] : std::string::npos;
        if (close == std::string::npos) {
            ++i;
            continue;
        }
        std::vector<Units> alternatives;
        if (has_top_comma(in, match, i, close)) {
            size_t from = i + 1;
            for (size_t j = i + 1; j <= close; ++j) {
                if (j < close && in[j].is('{') && match[j] != std::string::npos) {
                    j = match[j];
                } else if (in[j].is(',') || j == close) {
                    Units alt(in.begin() + static_cast<long>(from),
                              in.begin() + static_cast<long>(j));
                    for (Units& e : expand(alt, depth + 1)) alternatives.push_back(std::move(e));
                    from = j + 1;
                }
            }
        } else if (!sequence(in, i, close, alternatives)) {
            ++i;
            continue;
        }
        // results × (literal text before the group) × alternatives
        std::vector<Units> next;
        next.reserve(results.size() * alternatives.size());
        for (const Units& r : results) {
            for (const Units& alt : alternatives) {
                Units u = r;
                u.insert(u.end(), in.begin() + static_cast<long>(literal_from),
                         in.begin() + static_cast<long>(i));
                u.insert(u.end(), alt.begin(), alt.end());
                charge(1, weight(u));
                next.push_back(std::move(u));
            }
        }
        results = std::move(next);
        i = close + 1;
        literal_from = i;
    }
    size_t suffix_weight = weight(Units(in.begin() + static_cast<long>(literal_from), in.end()));
    for (Units& r : results) {
        r.insert(r.end(), in.begin() + static_cast<long>(literal_from), in.end());
        charge(0, suffix_weight);
    }
    return results;
}

std::vector<WordPart> Expander::assemble(const Units& u) const {
    std::vector<WordPart> out;
    for (const Unit& x : u) {
        if (x.part >= 0) {
            out.push_back(parts_[static_cast<size_t>(x.part)]);
        } else {
            add_literal(out, std::string_view(&x.c, 1), false);
        }
    }
    return out;
}

}  // namespace

bool may_brace_expand(const std::vector<WordPart>& parts) {
    for (const WordPart& p : parts) {
        if (p.kind == PartKind::literal && !p.quoted && p.text.find('{') != std::string::npos) {
            return true;
        }
    }
    return false;
}

std::vector<std::vector<WordPart>> expand_braces(const std::vector<WordPart>& parts,
                                                 const BraceBudget& budget, size_t offset) {
    Units units;
    for (size_t i = 0; i < parts.size(); ++i) {
        const WordPart& p = parts[i];
        if (p.kind == PartKind::literal && !p.quoted) {
            for (char c : p.text) units.push_back(Unit{c, -1});
        } else {
            units.push_back(Unit{0, static_cast<int>(i)});
        }
    }
    Expander ex(parts, budget, offset);
    std::vector<std::vector<WordPart>> out;
    for (const Units& u : ex.expand(units, 0)) out.push_back(ex.assemble(u));
    return out;
}

}  // namespace toolcage::shell::detail
