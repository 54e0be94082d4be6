// The tree the shell front end builds from a bash command string. It names every place
// where code can run; the classifier walks it. Words keep what is statically known and mark
// what depends on run time, never guessing it.
#pragma once

#include <string>
#include <vector>

namespace toolcage::shell {

struct Script;

enum class PartKind {
    literal,      // text is known; `quoted` when it came from '…', "…", $'…' or a backslash
    tilde,        // unquoted leading ~ or ~user (text = user name, empty for one's own home)
    parameter,    // $name / ${name…}: text = name ("HOME", "1", "@", "a[i]"), op = rest ("", ":?", ":-x", "#*/" …)
    command_sub,  // $( … ) or ` … `: subs holds the parsed body
    arithmetic,   // $(( … )) or $[ … ]: text = expression; subs = every substitution inside it
    process_sub,  // <( … ) or >( … ): text = "<" or ">", subs holds the parsed body
    glob,         // unquoted *, ? or […]: text = the pattern characters
};

struct WordPart {
    PartKind kind = PartKind::literal;
    std::string text;
    bool quoted = false;        // inside double quotes (literal: any quoting)
    std::string op;             // parameter operator text, as written
    std::vector<Script> subs;   // bodies of substitutions, including those nested in `op`
};

struct Word {
    std::string raw;                // as written in the source
    std::vector<WordPart> parts;    // after quote removal, brace expansion already applied
    bool known() const;             // every part is a literal
    std::string literal() const;    // the concatenated literal text (parts that are not literal are skipped)
};

struct Redirect {
    int fd = -1;                 // explicit descriptor number, -1 when none was written
    std::string op;              // < > >> >| <> &> &>> >& <& << <<- <<<
    Word target;                 // the file, descriptor, here-string or heredoc delimiter
    std::string heredoc_body;    // << and <<-: the body (leading tabs removed for <<-)
    bool heredoc_quoted = false; // delimiter was quoted: the body is inert text
    std::vector<Script> heredoc_subs;  // unquoted body: every substitution in it, parsed
    std::string fd_var;          // {var}> form: the variable that receives the descriptor
};

struct Assignment {
    std::string name;     // "PATH", "a[1]"
    Word value;
    bool append = false;  // +=
    std::vector<Script> subscript_subs;  // substitutions inside an array subscript
    bool array = false;   // name=( … ): `items` holds the elements
    std::vector<Word> items;
};

struct Command {
    enum class Kind {
        simple,        // assignments, words, redirects
        subshell,      // ( body )               bodies[0]
        group,         // { body; }              bodies[0]
        if_clause,     // bodies: cond, then, [elif-cond, elif-then]…, [else]
        while_loop,    // bodies: cond, body
        until_loop,    // bodies: cond, body
        for_loop,      // name = variable, words = item list (empty when "in" is absent), bodies[0] = body
        arith_for,     // for (( a; b; c )): words = the three expressions, bodies[0] = body
        select_loop,   // like for_loop
        case_clause,   // words[0] = subject, patterns[i] = patterns of arm i, bodies[i] = arm i
        arith_command, // (( expr )): words[0] = expression
        cond_command,  // [[ … ]]: words = its words
        function_def,  // name, bodies[0] = body
        coproc,        // name (maybe empty), bodies[0] = the command
    };
    Kind kind = Kind::simple;
    std::vector<Assignment> assignments;
    std::vector<Word> words;
    std::vector<Redirect> redirects;   // for compound commands: the redirects after the closer
    std::vector<Script> bodies;
    std::vector<std::vector<Word>> patterns;
    std::string name;
};

struct Pipeline {
    bool negated = false;             // !
    bool timed = false;               // time keyword
    std::vector<Command> commands;    // commands[i] | commands[i+1]
    std::vector<bool> stderr_piped;   // |& after commands[i]
};

struct AndOr {
    std::vector<Pipeline> pipelines;
    std::vector<std::string> ops;     // "&&" or "||" between pipelines[i] and pipelines[i+1]
    std::vector<size_t> op_at;        // where ops[i] starts: a byte offset into the parsed text
};

struct ListItem {
    AndOr and_or;
    bool background = false;          // ended by &
};

struct Script {
    std::vector<ListItem> items;      // in source order
};

struct ParseLimits {
    size_t max_bytes = 256 * 1024;    // longer input is refused
    int max_depth = 64;               // nesting of substitutions, compounds and quotes
    size_t max_words = 100000;        // after brace expansion
};

struct ParseResult {
    bool ok = false;
    std::string error;     // one line, with the byte offset: "unterminated quote at offset 12"
    Script script;
};

// Never throws, never hangs: bad or oversized input gives ok = false and an error.
ParseResult parse(const std::string& source, const ParseLimits& limits = {});

}  // namespace toolcage::shell
