// SQL: DROP, TRUNCATE and unbounded DELETE/UPDATE are refused wherever the SQL comes from.
#include "classify_helpers.h"

using toolcage::Decision;
using toolcage::classify::testing::check_table;

TEST_CASE("sql: destructive statements", "[classify][sql]") {
    check_table({
        {"psql -c 'DROP TABLE users;'", Decision::deny, "sql.drop"},
        {"psql -c \"delete from sessions\"", Decision::deny, "sql.delete-all"},
        {"psql --command='TRUNCATE logs'", Decision::deny, "sql.truncate"},
        {"psql -d app -c 'drop database app'", Decision::deny},
        {"psql -c 'DELETE FROM t WHERE id = 1'", Decision::cage},
        {"psql -c 'UPDATE users SET admin = true'", Decision::deny, "sql.update-all"},
        {"psql -c 'UPDATE users SET admin = true WHERE id = 3'", Decision::cage},
        {"psql -c 'ALTER TABLE t DROP COLUMN c'", Decision::deny},
        {"psql -c 'SELECT 1'", Decision::cage, "sql.query"},
        {"psql -c \"INSERT INTO notes VALUES ('DROP TABLE x')\"", Decision::cage},
        {"psql -c 'select 1; drop table t'", Decision::deny},
        {"psql -c 'SELECT 1 -- DROP TABLE t'", Decision::cage},
        {"psql <<EOF\nDROP TABLE users;\nEOF", Decision::deny},
        {"echo 'drop table x' | psql", Decision::deny},
        {"psql -f migrate.sql", Decision::cage},
        {"psql -c \"\\\\! rm -rf ~\"", Decision::deny},
        {"psql -c \"COPY t TO PROGRAM 'rm -rf ~'\"", Decision::deny},
        {"mysql -e 'DROP DATABASE prod'", Decision::deny},
        {"mysql --execute='delete from t'", Decision::deny},
        {"mysql -uroot -p app -e 'select * from t'", Decision::cage},
        {"mariadb -e 'TRUNCATE TABLE t'", Decision::deny},
        {"sqlite3 app.db 'DROP TABLE users'", Decision::deny},
        {"sqlite3 app.db 'SELECT count(*) FROM users'", Decision::cage},
        {"sqlite3 app.db \".shell rm -rf ~\"", Decision::deny},
        {"sqlite3 app.db <<< 'delete from t;'", Decision::deny},
        {"redis-cli FLUSHALL", Decision::deny},
        {"redis-cli -n 2 flushdb", Decision::deny},
        {"redis-cli GET key", Decision::cage},
        {"mongosh --eval 'db.dropDatabase()'", Decision::deny},
        {"dropdb prod", Decision::deny},
        {"mysqladmin -u root drop app", Decision::deny},
    });
}
