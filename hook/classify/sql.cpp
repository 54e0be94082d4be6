// SQL clients (psql, mysql, sqlite3, …) and key-value stores: the statements they are given
// (-c, -e, trailing arguments, heredoc or piped stdin) are scanned. DROP, TRUNCATE and DELETE or
// UPDATE without WHERE destroy data for good; any other statement is caged. Client escapes that
// run shell commands (\!, .shell, COPY … PROGRAM) are judged as shell.
#include <algorithm>
#include <cctype>

#include "hook/classify/analyzer.h"
#include "hook/classify/program_table.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

namespace {

struct Statement {
    std::vector<std::string> words;    // upper-cased keywords and identifiers
    std::vector<std::string> strings;  // string literals, in order
    std::vector<size_t> string_after;  // index into words of the word before each string
};

// Splits SQL into statements, dropping comments; strings are kept aside so that a keyword inside
// a string ('DROP TABLE' in an INSERT) does not count.
std::vector<Statement> split_sql(std::string_view s) {
    std::vector<Statement> out(1);
    size_t i = 0;
    while (i < s.size()) {
        char c = s[i];
        if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {
            while (i < s.size() && s[i] != '\n') ++i;
            continue;
        }
        if (c == '#' && (i == 0 || s[i - 1] == '\n' || s[i - 1] == ' ')) {
            while (i < s.size() && s[i] != '\n') ++i;
            continue;
        }
        if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
            size_t e = s.find("*/", i + 2);
            i = e == std::string_view::npos ? s.size() : e + 2;
            continue;
        }
        if (c == '\'' || (c == '$' && i + 1 < s.size() && s[i + 1] == '$')) {
            std::string lit;
            if (c == '$') {
                size_t e = s.find("$$", i + 2);
                lit.assign(s.substr(i + 2, (e == std::string_view::npos ? s.size() : e) - i - 2));
                i = e == std::string_view::npos ? s.size() : e + 2;
            } else {
                ++i;
                while (i < s.size()) {
                    if (s[i] == '\'' && i + 1 < s.size() && s[i + 1] == '\'') {
                        lit += '\'';
                        i += 2;
                        continue;
                    }
                    if (s[i] == '\'') break;
                    if (s[i] == '\\' && i + 1 < s.size()) ++i;
                    lit += s[i++];
                }
                ++i;
            }
            out.back().strings.push_back(lit);
            out.back().string_after.push_back(out.back().words.size());
            continue;
        }
        if (c == ';') {
            out.emplace_back();
            ++i;
            continue;
        }
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '"' || c == '`' ||
            c == '.' || c == '\\') {
            size_t b = i;
            if (c == '"' || c == '`') {
                size_t e = s.find(c, i + 1);
                i = e == std::string_view::npos ? s.size() : e + 1;
            } else {
                ++i;
                while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) ||
                                        s[i] == '_' || s[i] == '.' || s[i] == '!'))
                    ++i;
            }
            std::string w(s.substr(b, i - b));
            for (char& ch : w) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
            out.back().words.push_back(w);
            continue;
        }
        ++i;
    }
    return out;
}

bool has_word(const Statement& st, std::string_view w) {
    return std::find(st.words.begin(), st.words.end(), w) != st.words.end();
}

}  // namespace

void Analyzer::sql_text(const Value& sql, std::string_view client, Call& call) {
    std::string who = "`" + std::string(client) + "`";
    if (!sql.known()) {
        hit(Decision::cage, "sql.query", who + " runs SQL known only at run time");
    }
    // Client escapes to the shell and to files, line by line.
    size_t pos = 0;
    const std::string& text = sql.text;
    while (pos <= text.size()) {
        size_t e = text.find('\n', pos);
        if (e == std::string::npos) e = text.size();
        std::string line = text.substr(pos, e - pos);
        size_t b = line.find_first_not_of(" \t");
        if (b != std::string::npos) {
            std::string l = line.substr(b);
            auto rest_after = [&](size_t n) {
                std::string r = l.substr(std::min(n, l.size()));
                size_t f = r.find_first_not_of(" \t");
                return f == std::string::npos ? std::string() : r.substr(f);
            };
            if (l.rfind("\\!", 0) == 0) {
                run_string(Value::literal(rest_after(2)), *call.scope, false, Stream(),
                           who + "'s \\! escape");
            } else if (l.rfind(".shell", 0) == 0 || l.rfind(".system", 0) == 0) {
                run_string(Value::literal(rest_after(l[2] == 'h' ? 6 : 7)), *call.scope, false,
                           Stream(), who + "'s .shell");
            } else if (l.rfind("system ", 0) == 0 &&
                       client.find("mysql") != std::string_view::npos) {
                run_string(Value::literal(rest_after(7)), *call.scope, false, Stream(),
                           who + "'s system command");
            } else if (l.rfind("\\o ", 0) == 0 || l.rfind(".output ", 0) == 0 ||
                       l.rfind(".once ", 0) == 0 || l.rfind("\\w ", 0) == 0) {
                std::string f = rest_after(l.find(' '));
                if (!f.empty() && f[0] != '|')
                    check_write(Value::literal(f), WriteMode::truncate, who + " output file",
                                *call.scope);
                if (!f.empty() && f[0] == '|')
                    run_string(Value::literal(f.substr(1)), *call.scope, false, Stream(),
                               who + " output pipe");
            }
        }
        pos = e + 1;
    }
    bool any = false;
    for (const Statement& st : split_sql(text)) {
        if (st.words.empty()) continue;
        any = true;
        if (has_word(st, "DROP")) {
            hit(Decision::deny, "sql.drop",
                who + " runs DROP: the table or database and its data are gone");
            continue;
        }
        if (has_word(st, "TRUNCATE")) {
            hit(Decision::deny, "sql.truncate", who + " runs TRUNCATE: every row is deleted");
            continue;
        }
        if (has_word(st, "DELETE") && !has_word(st, "WHERE") && !has_word(st, "RETURNING_ONLY")) {
            hit(Decision::deny, "sql.delete-all",
                who + " runs DELETE without WHERE: every row is deleted");
            continue;
        }
        if (st.words[0] == "UPDATE" && has_word(st, "SET") && !has_word(st, "WHERE")) {
            hit(Decision::deny, "sql.update-all",
                who + " runs UPDATE without WHERE: every row is overwritten");
            continue;
        }
        if (has_word(st, "FLUSHALL") || has_word(st, "FLUSHDB") || has_word(st, "DROPDATABASE()") ||
            (st.words[0] == "DB.DROPDATABASE")) {
            hit(Decision::deny, "sql.drop", who + " deletes every key or the database");
            continue;
        }
        // COPY … TO/FROM PROGRAM 'cmd' runs a shell command on the server.
        for (size_t k = 0; k < st.strings.size(); ++k) {
            size_t before = st.string_after[k];
            if (before > 0 && st.words[before - 1] == "PROGRAM") {
                run_string(Value::literal(st.strings[k]), *call.scope, false, Stream(),
                           who + " COPY … PROGRAM");
            }
        }
    }
    if (any) hit(Decision::cage, "sql.query", who + " runs SQL against a database");
}

// Statements that lose data, in SQL's shape (DROP TABLE, TRUNCATE t, DELETE FROM, UPDATE t SET,
// FLUSHALL): what makes an unknown program's option text worth reading as SQL, where prose
// ("drop the cache") is not.
bool names_destructive_sql(std::string_view text) {
    std::vector<std::string> w = split_ws(lower(text));
    static const std::string_view kDropped[] = {
        "table", "database", "schema",   "view",    "index",      "user",      "role",  "keyspace",
        "measurement", "series", "sequence", "function", "materialized", "retention", "bucket", "collection",
        "shard", "continuous", "owned", "if", "temporary", "temp", "procedure", "trigger", "type", "extension"};
    for (size_t i = 0; i < w.size(); ++i) {
        std::string x = w[i];
        while (!x.empty() && (x.front() == '(' || x.front() == ';')) x.erase(0, 1);
        std::string next = i + 1 < w.size() ? w[i + 1] : "";
        if (x == "drop" && std::find(std::begin(kDropped), std::end(kDropped), next) != std::end(kDropped)) return true;
        if (x == "truncate" && !next.empty()) return true;
        if (x == "delete" && (next == "from" || (i + 2 < w.size() && w[i + 2] == "from"))) return true;
        if (x == "update" && i + 2 < w.size() && w[i + 2] == "set") return true;
        if (x == "flushall" || x == "flushdb") return true;
    }
    return false;
}

void judge_sql_options(Analyzer& a, Call& c) {
    static const std::string_view kOptions[] = {"-e", "--execute", "-execute", "-c", "--command", "-q",
                                                "--query", "-Q", "--sql", "-sql", "--statement"};
    for (size_t i = 0; i < c.argc(); ++i) {
        const Value& v = c.args[i];
        if (!is_flag(v)) continue;
        const std::string& t = v.text;
        Value sql;
        size_t eq = t.find('=');
        std::string name = t.substr(0, eq);
        if (std::find(std::begin(kOptions), std::end(kOptions), name) == std::end(kOptions)) continue;
        if (eq != std::string::npos) {
            sql = v;
            sql.text = t.substr(eq + 1);
        } else if (i + 1 < c.argc()) {
            sql = c.args[++i];
        } else {
            continue;
        }
        if (sql.known() && names_destructive_sql(sql.text)) a.sql_text(sql, c.name, c);
    }
}

namespace {

void sql_client(Analyzer& a, Call& c) {
    std::vector<Value> sql;
    std::vector<size_t> operands;
    bool file = false;
    for (size_t i = 0; i < c.argc(); ++i) {
        const Value& v = c.args[i];
        const std::string& t = v.text;
        if (!is_flag(v)) {
            operands.push_back(i);
            continue;
        }
        auto take = [&](std::string_view long_name, std::string_view short_name) -> bool {
            if (t == short_name || t == long_name) {
                if (i + 1 < c.argc()) sql.push_back(c.args[++i]);
                return true;
            }
            if (!long_name.empty() && t.rfind(std::string(long_name) + "=", 0) == 0) {
                Value x = v;
                x.text = t.substr(long_name.size() + 1);
                sql.push_back(x);
                return true;
            }
            if (short_name.size() == 2 && t.size() > 2 && t.rfind(short_name, 0) == 0 &&
                t[1] != '-') {
                Value x = v;
                x.text = t.substr(2);
                sql.push_back(x);
                return true;
            }
            return false;
        };
        if (c.name == "psql" && take("--command", "-c")) continue;
        if ((c.name == "mysql" || c.name == "mariadb") && take("--execute", "-e")) continue;
        if ((c.name == "sqlite3" || c.name == "duckdb") && (take("-cmd", "-cmd") || take("", "-c")))
            continue;
        if (c.name == "clickhouse-client" && take("--query", "-q")) continue;
        if (c.name == "cockroach" && take("--execute", "-e")) continue;
        if (c.name == "cqlsh" && take("--execute", "-e")) continue;
        if (c.name == "sqlcmd" && (take("", "-Q") || take("", "-q"))) continue;
        if (t == "-f" || t == "--file" || t.rfind("--file=", 0) == 0 || t == "-init") {
            file = true;
            if (t == "-f" || t == "--file" || t == "-init") ++i;
            continue;
        }
        // Options with a value: keep them from being read as SQL operands.
        static const std::string_view kArg[] = {
            "-h",         "-p",       "-U",         "-d",         "-u",         "-P",
            "-D",         "-S",       "-W",         "--host",     "--port",     "--user",
            "--username", "--dbname", "--database", "--password", "-separator", "-nullvalue",
            "-v",         "--set",    "-o",         "--output",   "-k",         "--keyspace"};
        if (std::find(std::begin(kArg), std::end(kArg), t) != std::end(kArg)) ++i;
    }
    if ((c.name == "sqlite3" || c.name == "duckdb") && operands.size() > 1) {
        for (size_t k = 1; k < operands.size(); ++k) sql.push_back(c.args[operands[k]]);
    }
    for (const Value& s : sql) a.sql_text(s, c.name, c);
    if (sql.empty()) {
        if (c.in.kind == Stream::Kind::literal) {
            a.sql_text(Value::literal(c.in.text), c.name, c);
        } else if (!file && c.in.kind != Stream::Kind::none && c.name != "sqlite3" && c.name != "duckdb") {
            // `mysql app < dump.sql`, `pg_dump prod | psql staging`: a dump drops and recreates
            // each table it holds, over what the server's database has. (A file database is a
            // file the cage keeps to the workspace.)
            a.hit(Decision::ask, "sql.unseen-input",
                  "`" + c.via + c.name + "` runs SQL read from a file or a pipe that is not known here; a dump "
                  "drops and recreates every table it holds. Confirm it, or restore into a scratch database first");
        } else {
            a.hit(Decision::cage, "sql.query",
                  "`" + c.name + "` runs SQL " + (file ? "from a file" : "from its input"));
        }
    }
}

void redis_cli(Analyzer& a, Call& c) {
    for (const Value& v : c.args) {
        std::string u = lower(v.text);
        if (u == "flushall" || u == "flushdb") {
            a.hit(Decision::deny, "sql.drop", "`redis-cli " + v.text + "` deletes every key");
            return;
        }
    }
    // DEL/UNLINK of keys known only at run time (a KEYS or --scan listing through xargs), or a
    // script that deletes what KEYS finds: every matching key goes at once.
    static const std::string_view kValued[] = {"-h", "-p", "-a", "-n", "-u", "-s", "--user", "--pass",
                                               "--pattern", "-i", "-r", "--tls", "--cacert"};
    size_t i = 0;
    while (i < c.argc() && (is_flag(c.args[i]) || !c.args[i].known())) {
        const std::string& t = c.arg(i);
        ++i;
        if (std::find(std::begin(kValued), std::end(kValued), t) != std::end(kValued)) ++i;
    }
    std::string cmd = i < c.argc() ? lower(c.arg(i)) : "";
    bool computed_keys = (cmd == "del" || cmd == "unlink") &&
                         std::any_of(c.args.begin() + static_cast<long>(i) + 1, c.args.end(),
                                     [](const Value& v) {
                                         // "session:$ID" names one key; a whole run-time word
                                         // (xargs' items, an unquoted $(…)) is a listing.
                                         bool whole = v.unknown && v.text.find_first_not_of(kUnknown) == std::string::npos;
                                         return whole || v.splits || v.glob;
                                     });
    bool script_sweep = (cmd == "eval" || cmd == "evalsha") &&
                        std::any_of(c.args.begin(), c.args.end(), [](const Value& v) {
                            std::string l = lower(v.text);
                            return contains(l, "keys") && (contains(l, "del") || contains(l, "unlink"));
                        });
    if (computed_keys || script_sweep) {
        a.hit(Decision::deny, "sql.delete-all",
              "`redis-cli " + cmd + "` deletes keys found at run time (a KEYS or SCAN sweep), not named ones");
        return;
    }
    if (c.in.kind == Stream::Kind::literal) a.sql_text(Value::literal(c.in.text), c.name, c);
    a.hit(Decision::cage, "sql.query", "`redis-cli` changes or reads a key-value store");
}

// JavaScript given to the mongo shell that drops a database or collection, or empties one.
bool mongo_destroys(std::string js) {
    js.erase(std::remove_if(js.begin(), js.end(), [](char ch) { return ch == ' ' || ch == '\t' || ch == '\n'; }),
             js.end());
    return contains(js, "dropDatabase") || contains(js, ".drop(") || contains(js, "dropAllUsers") ||
           contains(js, "deleteMany({})") || contains(js, "remove({})") || contains(js, "deleteMany()") ||
           contains(js, "dropIndexes(") || contains(js, "\"drop\":") || contains(js, "{drop:");
}

void mongo_shell(Analyzer& a, Call& c) {
    std::vector<std::string> code;
    for (size_t i = 0; i < c.argc(); ++i) {
        const std::string& t = c.arg(i);
        if (t == "--eval" && i + 1 < c.argc()) code.push_back(c.arg(i + 1));
        if (t.rfind("--eval=", 0) == 0) code.push_back(t.substr(7));
    }
    if (c.in.kind == Stream::Kind::literal) code.push_back(c.in.text);
    for (const std::string& js : code) {
        if (mongo_destroys(js)) {
            a.hit(Decision::deny, "sql.drop", "`" + c.name + "` drops or empties a database or collection");
            return;
        }
    }
    a.hit(Decision::cage, "sql.query", "`" + c.name + "` runs database commands");
}

void drop_program(Analyzer& a, Call& c) {
    if (c.name == "mysqladmin") {
        bool drop = std::any_of(c.args.begin(), c.args.end(),
                                [](const Value& v) { return v.text == "drop"; });
        if (!drop) {
            a.hit(Decision::cage, "sql.query", "`mysqladmin` administers a database server");
            return;
        }
    }
    a.hit(Decision::deny, "sql.drop", "`" + c.name + "` drops a database or role");
}

// pg_resetwal (pg_resetxlog) throws away the write-ahead log: committed transactions not yet
// written to the tables are lost and the cluster may be left inconsistent. -n only prints.
void resetwal_program(Analyzer& a, Call& c) {
    for (const Value& v : c.args) {
        const std::string& t = v.text;
        if (t == "-n" || t == "--dry-run" || t == "-V" || t == "--version" || t == "-?" || t == "--help") {
            a.hit(Decision::allow, "dryrun.rehearsal", "`" + c.name + " " + t + "` only prints what it would reset");
            return;
        }
    }
    a.hit(Decision::deny, "db.destroy",
          "`" + c.via + c.name + "` throws away the write-ahead log: recent transactions are lost and the "
          "database may not start again; `" + c.name + " -n` shows what it would do");
}

// Restores that first drop what they restore over: pg_restore -c/--clean, mongorestore --drop.
void restore_program(Analyzer& a, Call& c) {
    bool pg = c.name == "pg_restore";
    for (const Value& v : c.args) {
        const std::string& t = v.text;
        bool drops = pg ? (t == "--clean" || (t.size() > 1 && t[0] == '-' && t[1] != '-' &&
                                              t.find('c') != std::string::npos &&
                                              t.find_first_of("dfFhpUjnNtTIPLSe") > t.find('c')))
                        : (t == "--drop");
        if (drops) {
            a.hit(Decision::deny, "db.destroy",
                  "`" + c.name + " " + t + "` drops every object it restores before recreating it: what the "
                  "database holds now is lost. Restore into a new database instead (" +
                      (pg ? std::string("`createdb NEW && pg_restore -d NEW`") : std::string("`--nsFrom`/`--nsTo`")) + ")");
            return;
        }
        if (pg && (t == "-l" || t == "--list")) {
            a.hit(Decision::cage, "sql.query", "`pg_restore -l` lists an archive");
            return;
        }
    }
    a.hit(Decision::cage, "sql.query", "`" + c.name + "` restores into a database");
}

}  // namespace

namespace {
constexpr auto kSqlPrograms =
    sorted_by_name(std::to_array<ProgramEntry>({{"psql", sql_client},
                                                {"mysql", sql_client},
                                                {"mariadb", sql_client},
                                                {"sqlite3", sql_client},
                                                {"duckdb", sql_client},
                                                {"clickhouse-client", sql_client},
                                                {"cockroach", sql_client},
                                                {"cqlsh", sql_client},
                                                {"sqlcmd", sql_client},
                                                {"redis-cli", redis_cli},
                                                {"mongo", mongo_shell},
                                                {"mongosh", mongo_shell},
                                                {"dropdb", drop_program},
                                                {"dropuser", drop_program},
                                                {"mysqladmin", drop_program},
                                                {"pg_resetwal", resetwal_program},
                                                {"pg_resetxlog", resetwal_program},
                                                {"pg_restore", restore_program},
                                                {"mongorestore", restore_program}}));
}  // namespace

std::span<const ProgramEntry> sql_programs() {
    return kSqlPrograms;
}

}  // namespace toolcage::classify::detail
