// State that lives somewhere else: a generic client (curl, wget, httpie) asked to DELETE on a
// server, or to call an endpoint that deletes, destroys data no cage can protect; the
// environment (tokens, keys) sent to the network publishes it. Both are refused, whatever
// wrapper, pipe or filter (base64, gzip) they come through.
#include <algorithm>
#include <cctype>

#include "hook/classify/analyzer.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

namespace {

// A variable whose value is a credential by its name (GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY).
bool secret_name(std::string_view name) {
    std::string u = lower(name);
    for (std::string_view w : {"token", "secret", "passw", "key", "cred", "auth", "cookie", "session"}) {
        if (contains(u, w)) return true;
    }
    return false;
}

// The path of a URL ("https://h:9200/a/_delete_by_query?x" -> "/a/_delete_by_query").
std::string url_path(const std::string& url) {
    std::string u = url;
    size_t q = u.find_first_of("?#");
    if (q != std::string::npos) u = u.substr(0, q);
    size_t scheme = u.find("://");
    size_t from = scheme == std::string::npos ? 0 : scheme + 3;
    size_t slash = u.find('/', from);
    return slash == std::string::npos ? std::string() : u.substr(slash);
}

// An endpoint that deletes whatever method reaches it: Elasticsearch/OpenSearch's
// _delete_by_query, or a path whose last step is a deleting verb (POST …/purge, …/drop).
bool deleting_endpoint(const std::string& url, bool writes) {
    std::string path = lower(url_path(url));
    if (contains(path, "/_delete_by_query")) return true;
    if (!writes) return false;
    while (!path.empty() && path.back() == '/') path.pop_back();
    std::string last(basename_of(path));
    for (std::string_view v : {"delete", "destroy", "drop", "purge", "wipe", "truncate", "flushall", "flushdb",
                               "_delete", "delete-all", "delete_all", "deleteall", "reset-database"}) {
        if (last == v) return true;
    }
    return false;
}

}  // namespace

bool prints_environment(const Call& c) {
    const std::string& n = c.name;
    if (n == "env") {
        // env without a command (NAME=VALUE and options only) prints the environment.
        for (size_t i = 0; i < c.argc(); ++i) {
            const std::string& t = c.arg(i);
            if (t == "-u" || t == "--unset" || t == "-C" || t == "--chdir") {
                ++i;
                continue;
            }
            if (!is_flag(c.args[i]) && t.find('=') == std::string::npos) return false;
        }
        return true;
    }
    if (n == "printenv") {
        // Every variable, or one whose name says it is a credential (printenv GITHUB_TOKEN).
        bool named = false;
        for (const Value& v : c.args) {
            if (is_flag(v)) continue;
            named = true;
            if (!v.known() || secret_name(v.text)) return true;
        }
        return !named;
    }
    if (n == "set") return c.args.empty();
    if (n == "export" || n == "declare" || n == "typeset") {
        return c.args.empty() || std::all_of(c.args.begin(), c.args.end(), [](const Value& v) {
                   return v.text == "-p" || v.text == "-x" || v.text == "-px" || v.text == "-xp";
               });
    }
    return false;
}

void judge_http_request(Analyzer& a, const Call& c, std::string_view method,
                        const std::vector<std::string>& urls) {
    std::string m = lower(method);
    std::string who = "`" + c.via + c.name + "`";
    std::string where = urls.empty() ? std::string("a server") : urls.front();
    if (m == "delete") {
        a.hit(Decision::deny, "net.remote-delete",
              who + " sends DELETE to " + where +
                  ": it deletes data on the server (an API's records, a search index), which no cage "
                  "protects and nothing brings back");
        return;
    }
    bool writes = m == "post" || m == "put" || m == "patch";
    for (const std::string& u : urls) {
        if (deleting_endpoint(u, writes)) {
            a.hit(Decision::deny, "net.remote-delete",
                  who + " calls " + u + ", an endpoint that deletes data on the server");
            return;
        }
    }
}

bool code_sends_environment(std::string_view lang, std::string_view code) {
    std::string t;
    for (char ch : code) {
        if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r') t += ch;
    }
    // Occurrences of `name` not followed by one of `single` (which pick one variable).
    auto whole = [&](std::string_view name, std::initializer_list<std::string_view> single) {
        for (size_t at = t.find(name); at != std::string::npos; at = t.find(name, at + 1)) {
            std::string_view rest = std::string_view(t).substr(at + name.size());
            bool one = std::any_of(single.begin(), single.end(),
                                   [&](std::string_view s) { return rest.substr(0, s.size()) == s; });
            if (!one) return true;
        }
        return false;
    };
    auto any_of = [&](std::initializer_list<std::string_view> words) {
        return std::any_of(words.begin(), words.end(), [&](std::string_view w) { return contains(t, w); });
    };
    if (lang == "python") {
        return whole("environ", {"[", ".get(", ".setdefault(", ".pop(", "b", ".__getitem__("}) &&
               any_of({"urlopen", "requests.", "http.client", "HTTPConnection", "HTTPSConnection", "socket",
                       "httpx", "aiohttp", "urllib", "smtplib", "ftplib"});
    }
    if (lang == "node") {
        return whole("process.env", {".", "["}) &&
               any_of({"fetch(", "http.request", "https.request", "http.get", "https.get", "net.connect",
                       "createConnection", "axios", "XMLHttpRequest", "WebSocket", "dgram", "tls.connect",
                       "require('http", "require(\"http", "sendBeacon"});
    }
    if (lang == "perl") {
        return contains(t, "%ENV") &&
               any_of({"LWP", "HTTP::Tiny", "IO::Socket", "Net::", "Socket", "curl", "wget", "Mojo::UserAgent"});
    }
    if (lang == "ruby") {
        return whole("ENV", {"[", ".fetch(", ".key?(", ".include?(", ".has_key?(", "_", "IRON"}) &&
               any_of({"Net::HTTP", "open-uri", "URI.open", "TCPSocket", "Socket", "HTTParty", "Faraday",
                       "RestClient", "Excon", "curl"});
    }
    if (lang == "php") {
        return (contains(t, "getenv()") || whole("$_ENV", {"["}) || whole("$_SERVER", {"["})) &&
               any_of({"curl_", "fsockopen", "stream_socket_client", "http://", "https://", "socket_",
                       "stream_context_create"});
    }
    return false;
}

bool code_deletes_remotely(std::string_view code) {
    std::string t;
    for (char ch : code) {
        if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r') t += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
    for (std::string_view w : {"requests.delete(", "httpx.delete(", "session.delete(", "axios.delete(", "method:'delete'",
                               "method:\"delete\"", "method='delete'", "method=\"delete\"", "method:`delete`",
                               "net::http::delete", "->delete(", "http::tiny->new->delete", "customrequest,'delete'",
                               "customrequest,\"delete\"", "request(\"delete\"", "request('delete'",
                               "_delete_by_query"}) {
        if (contains(t, w)) return true;
    }
    return false;
}

void judge_secrets_sent(Analyzer& a, const Call& c, bool sends_stdin) {
    bool in_args = std::any_of(c.args.begin(), c.args.end(), [](const Value& v) { return v.secret; });
    if (!(sends_stdin && c.in.secret) && !in_args) return;
    a.hit(Decision::deny, "secret.exfiltrate",
          "`" + c.via + c.name +
              "` sends the environment (its tokens and keys) to the network: published credentials "
              "cannot be taken back");
}

}  // namespace toolcage::classify::detail
