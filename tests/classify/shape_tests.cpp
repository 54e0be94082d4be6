// Destruction by shape: programs the classifier has no table for are asked about when a
// subcommand or long option leads with a verb of destruction, and stay caged otherwise.
#include "classify_helpers.h"

using toolcage::Decision;
using toolcage::classify::testing::check_table;
using toolcage::classify::testing::classify;

TEST_CASE("shape: an unknown program's destructive subcommand or option is asked about", "[classify][shape]") {
    check_table({
        {"kopia snapshot delete k1234", Decision::ask, "unknown.destructive-word"},
        {"minikube delete --all", Decision::ask},
        {"supabase db reset", Decision::ask},
        {"azcopy sync ./site https://a.blob.core.windows.net/web --delete-destination=true", Decision::ask},
        {"syncthing-cli --delete-destination a b", Decision::ask},
        {"unison a b -force a", Decision::ask},
        {"mytool purge --all", Decision::ask},
        {"mytool prune", Decision::ask},
        {"vendorctl wipe-cluster prod", Decision::ask},
        {"gcs-tool obliterate bucket", Decision::ask},
        {"tokens revoke abc", Decision::ask},
        {"cli deleteAll", Decision::ask},
        {"cli --deleteAll", Decision::ask},
        {"tool del key", Decision::ask},
        {"tool rm thing", Decision::ask},
        {"dbtool truncate events", Decision::ask},
        {"cfgtool --overwrite settings.json", Decision::ask},
        {"tool --force install", Decision::ask},
        {"mystore forget snapshot-1", Decision::ask},
        {"sudo mytool destroy", Decision::ask},
    });
}

TEST_CASE("shape: names the word and the way out", "[classify][shape]") {
    toolcage::Verdict v = classify("azcopy sync a b --delete-destination=true");
    CHECK(v.rule == "unknown.destructive-word");
    CHECK(v.reason.find("`--delete-destination=true`") != std::string::npos);
    CHECK(v.reason.find("delete") != std::string::npos);
    CHECK(v.reason.find("--dry-run") != std::string::npos);
    toolcage::Verdict f = classify("restic-like forget --keep-last 3");
    CHECK(f.reason.find("`forget`") != std::string::npos);
}

TEST_CASE("shape: ordinary words, rehearsals, caches and colours stay caged", "[classify][shape]") {
    check_table({
        {"flutter clean", Decision::cage, "unknown.program"},
        {"react-native start --reset-cache", Decision::cage},
        {"expo start --clear", Decision::cage},
        {"mytool --force-color build", Decision::cage},
        {"mytool --no-delete sync a b", Decision::cage},
        {"azcopy sync a b --delete-destination=false", Decision::cage},
        {"mytool purge --dry-run", Decision::cage},
        {"mytool delete --help", Decision::cage},
        {"mytool -f config.yml run", Decision::cage},
        {"deno remove lodash", Decision::cage},
        {"mytool build src/delete.ts", Decision::cage},
        {"mytool search one two delete", Decision::cage},
        {"mytool notes \"delete later\"", Decision::cage},
        {"cargo-deny check", Decision::cage},
        {"restic-like snapshots", Decision::cage},
        {"sfdx force:source:push -u dev", Decision::cage},
        {"ansible-playbook site.yml --force-handlers", Decision::cage},
        {"mytool install --force-reinstall", Decision::cage},
    });
}

TEST_CASE("shape: SQL given to an unknown database shell is read", "[classify][shape][sql]") {
    check_table({
        {"usql pg://localhost/app -c 'DROP TABLE users'", Decision::deny, "sql.drop"},
        {"mycli -e 'TRUNCATE sessions' app", Decision::deny, "sql.truncate"},
        {"litecli app.db --execute 'DELETE FROM logs'", Decision::deny, "sql.delete-all"},
        {"trino --execute='DROP SCHEMA hive.raw CASCADE'", Decision::deny},
        {"snowsql -q 'update accounts set balance = 0'", Decision::deny, "sql.update-all"},
        {"influx -execute 'DROP DATABASE metrics'", Decision::deny, "sql.drop"},
        {"aws rds-data execute-statement --sql 'DROP TABLE t' --resource-arn x", Decision::deny},
        {"usql pg://localhost/app -c 'SELECT count(*) FROM users'", Decision::cage},
        {"litecli app.db --execute 'DELETE FROM logs WHERE ts < 5'", Decision::cage},
        {"mytool -c 'drop the cache'", Decision::cage},
    });
}

TEST_CASE("shape: where caged commands are denied, a question about one is too", "[classify][shape][policy]") {
    toolcage::Policy strict;
    strict.on_cage = Decision::deny;
    CHECK(classify("mytool purge --all", strict).decision == Decision::deny);
    CHECK(classify("mysql app < dump.sql", strict).decision == Decision::deny);
    toolcage::Policy asking;
    asking.on_cage = Decision::ask;
    CHECK(classify("mytool purge --all", asking).decision == Decision::ask);
    toolcage::Policy override_ask = strict;
    override_ask.overrides["git.push-force"] = Decision::ask;  // the user's own question stays one
    CHECK(classify("git push --force", override_ask).decision == Decision::ask);
}
