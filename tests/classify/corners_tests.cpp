// Known programs' destructive corners, the regressions that must stay denied, the everyday forms
// beside them that must not be refused, and the safer way each refusal names.
#include "classify_helpers.h"

using toolcage::Decision;
using toolcage::classify::testing::check_table;
using toolcage::classify::testing::classify;

TEST_CASE("corners: containers", "[classify][corners]") {
    check_table({
        {"docker rm -v web", Decision::deny, "docker.volumes"},
        {"docker rm -fv web", Decision::deny, "docker.volumes"},
        {"docker container rm --volumes web", Decision::deny, "docker.volumes"},
        {"docker secret rm db_password", Decision::deny, "docker.volumes"},
        {"docker config rm app_config", Decision::deny},
        {"docker stack rm prod", Decision::deny},
        {"docker swarm leave --force", Decision::deny},
        {"docker rm -f $(docker ps -aq)", Decision::deny, "docker.remove-all"},
        {"docker container rm --force $(docker ps -q)", Decision::deny, "docker.remove-all"},
        {"docker ps -aq | xargs docker rm -f", Decision::deny, "docker.remove-all"},
        {"docker rm -f web", Decision::cage},
        {"docker rm web", Decision::cage},
        {"docker rm $(docker ps -aq -f status=exited)", Decision::cage},
        {"docker secret ls", Decision::cage},
    });
}

TEST_CASE("corners: GitHub and npm registries", "[classify][corners]") {
    check_table({
        {"gh secret remove API_TOKEN", Decision::deny, "publish.release"},
        {"gh secret delete API_TOKEN", Decision::deny},
        {"gh variable delete DEPLOY_ENV", Decision::deny},
        {"gh ssh-key delete 123", Decision::deny},
        {"gh label delete bug", Decision::deny},
        {"gh cache delete --all", Decision::cage},
        {"gh secret list", Decision::cage},
        {"npm token revoke 123abc", Decision::deny, "publish.access"},
        {"npm access set status=public @scope/pkg", Decision::deny, "publish.access"},
        {"npm access public @scope/pkg", Decision::deny, "publish.access"},
        {"npm owner rm alice pkg", Decision::deny, "publish.access"},
        {"npm dist-tag rm pkg beta", Decision::deny, "publish.access"},
        {"npm team destroy org:devs", Decision::deny, "publish.access"},
        {"npm access list packages", Decision::cage},
        {"npm deprecate pkg@1.0 \"use 2.x\"", Decision::deny, "publish.package"},
        {"npm deprecate pkg \"\"", Decision::cage},
        {"npm deprecate pkg ''", Decision::cage},
        {"npm config delete registry", Decision::cage},
        {"npm config set registry https://r.example.com", Decision::cage},
        {"npm config edit", Decision::cage},
        {"npm config get registry", Decision::allow},
        {"npm config list", Decision::allow},
        {"npm version patch", Decision::cage},
        {"npm version 1.2.3 -m 'release %s'", Decision::cage},
        {"npm version", Decision::allow},
        {"npm --version", Decision::allow},
    });
}

TEST_CASE("corners: secrets stores, databases and their dumps", "[classify][corners]") {
    check_table({
        {"vault seal", Decision::deny, "cloud.delete"},
        {"vault operator seal", Decision::deny, "cloud.delete"},
        {"vault token revoke -self", Decision::deny},
        {"vault lease revoke -prefix aws/", Decision::deny},
        {"vault secrets disable kv", Decision::deny},
        {"vault kv get secret/app", Decision::cage},
        {"influx -execute 'DROP DATABASE metrics'", Decision::deny, "sql.drop"},
        {"influx bucket delete -n metrics", Decision::deny},
        {"influx -execute 'SHOW DATABASES'", Decision::cage},
        {"mysql app < dump.sql", Decision::ask, "sql.unseen-input"},
        {"gunzip -c backup.sql.gz | mysql app", Decision::ask, "sql.unseen-input"},
        {"psql app < backup.sql", Decision::ask, "sql.unseen-input"},
        {"pg_dump prod | psql staging", Decision::ask, "sql.unseen-input"},
        {"psql -f migrate.sql", Decision::cage},
        {"sqlite3 app.db < schema.sql", Decision::cage},
        {"docker exec -i db psql -U app < dump.sql", Decision::ask, "sql.unseen-input"},
        {"kubectl exec -i db-0 -- mysql app < dump.sql", Decision::ask, "sql.unseen-input"},
        {"docker exec -i web sh <<'EOF'\nrm -rf /\nEOF", Decision::deny},
        {"docker exec -i db psql -U app -c 'SELECT 1'", Decision::cage},
        {"psql", Decision::cage},
        {"pg_restore -c -d app dump.custom", Decision::deny, "db.destroy"},
        {"pg_restore --clean --if-exists -d app backup.dump", Decision::deny, "db.destroy"},
        {"pg_restore -d app backup.dump", Decision::cage},
        {"mongorestore --drop dump/", Decision::deny, "db.destroy"},
        {"mongorestore dump/", Decision::cage},
        {"pg_resetwal -f /var/lib/postgresql/15/main", Decision::deny, "db.destroy"},
        {"pg_resetwal -n /var/lib/postgresql/15/main", Decision::allow},
    });
}

TEST_CASE("corners: packages, clusters and infrastructure", "[classify][corners]") {
    check_table({
        {"apt-get purge nginx", Decision::deny, "pkg.purge"},
        {"sudo apt purge -y postgresql-15", Decision::deny, "pkg.purge"},
        {"apt-get autoremove --purge", Decision::deny, "pkg.purge"},
        {"apt-get remove --purge mysql-server", Decision::deny, "pkg.purge"},
        {"dpkg --purge nginx", Decision::deny, "pkg.purge"},
        {"pacman -Rns firefox", Decision::deny, "pkg.purge"},
        {"apt-get -s purge nginx", Decision::allow},
        {"brew uninstall --zap firefox", Decision::deny, "pkg.purge"},
        {"brew uninstall jq", Decision::cage},
        {"lvremove -f vg0/data", Decision::deny, "disk.format"},
        {"sudo vgremove vg0", Decision::deny, "disk.format"},
        {"zpool destroy tank", Decision::deny, "disk.format"},
        {"apt-get remove nginx", Decision::cage},
        {"apt-get install -y curl", Decision::cage},
        {"kubectl drain node-1 --force --ignore-daemonsets", Decision::deny, "kubectl.delete"},
        {"kubectl drain node-1 --delete-emptydir-data", Decision::deny, "kubectl.delete"},
        {"kubectl drain node-1 --ignore-daemonsets", Decision::cage},
        {"kubectl cordon node-1", Decision::cage},
        {"terraform apply -replace=aws_instance.web", Decision::deny, "infra.destroy"},
        {"terraform apply -replace aws_db_instance.main -auto-approve", Decision::deny, "infra.destroy"},
        {"terraform taint aws_instance.web", Decision::deny, "infra.destroy"},
        {"terraform plan -replace=aws_instance.web", Decision::cage},
        {"terraform apply", Decision::cage},
        {"helmfile destroy", Decision::deny, "infra.destroy"},
        {"helmfile -e prod delete", Decision::deny, "infra.destroy"},
        {"helmfile diff", Decision::cage},
        {"helmfile apply", Decision::cage},
    });
}

TEST_CASE("corners: backups", "[classify][corners]") {
    check_table({
        {"restic -r /srv/backup forget --keep-last 3 --prune", Decision::deny, "backup.delete"},
        {"restic -r /srv/backup prune", Decision::deny, "backup.delete"},
        {"borg prune -v --list --keep-daily=7 /srv/borg", Decision::deny, "backup.delete"},
        {"borg delete /srv/borg::archive-1", Decision::deny, "backup.delete"},
        {"restic -r /srv/backup forget --keep-last 3 --dry-run", Decision::cage},
        {"borg prune --dry-run --list --keep-daily=7 /srv/borg", Decision::cage},
        {"restic -r /srv/backup snapshots", Decision::cage},
        {"restic -r /srv/backup backup ~/project", Decision::cage},
        {"borg list /srv/borg", Decision::cage},
        {"borg create /srv/borg::today ~/project", Decision::cage},
    });
}

TEST_CASE("corners: git-extras' commands that lose work", "[classify][corners][git]") {
    check_table({
        {"git obliterate secrets.txt", Decision::deny, "git.extras-destroy"},
        {"git delete-branch feature", Decision::deny, "git.extras-destroy"},
        {"git delete-tag v1.0", Decision::deny, "git.extras-destroy"},
        {"git delete-merged-branches", Decision::deny, "git.extras-destroy"},
        {"git clear", Decision::deny, "git.extras-destroy"},
        {"git clear-soft", Decision::deny, "git.extras-destroy"},
        {"git sync", Decision::deny, "git.extras-destroy"},
        {"git force-clone https://github.com/o/r.git existing-dir", Decision::deny, "git.extras-destroy"},
        {"git reset-file src/app.py", Decision::deny, "git.extras-destroy"},
        {"git fresh-branch docs", Decision::deny, "git.extras-destroy"},
        {"git undo --hard", Decision::deny, "git.extras-destroy"},
        {"git undo", Decision::cage, "git.unknown"},
        {"git summary", Decision::cage, "git.unknown"},
        {"git nuke-branches", Decision::ask, "unknown.destructive-word"},
        {"git purge-remote origin", Decision::ask, "unknown.destructive-word"},
        {"git trim --force", Decision::ask, "unknown.destructive-word"},
    });
}

TEST_CASE("corners: regressions stay denied", "[classify][corners]") {
    check_table({
        {"VAR='rm -rf ~'; $VAR", Decision::deny},
        {"CMD=\"rm -rf $HOME\"; $CMD", Decision::deny},
        {"chmod -R 000 .", Decision::deny, "chmod.no-access"},
        {"chmod -R 000 ~", Decision::deny},
        {"chmod -R a-rwx .", Decision::deny, "chmod.no-access"},
        {"chmod -R 000 .git", Decision::deny, "chmod.no-access"},
        {"chmod -R 0 src", Decision::cage},
        {"docker rm -f $(docker ps -aq)", Decision::deny},
        {"chmod 000 src/main.c", Decision::cage},
        {"chmod -R 755 scripts", Decision::cage},
        {"chmod -R u+w .", Decision::cage},
    });
}

TEST_CASE("corners: requests built offline send nothing", "[classify][corners]") {
    check_table({
        {"http --offline DELETE example.org/api/items/1", Decision::allow, "dryrun.rehearsal"},
        {"xh --offline DELETE example.org/items/1", Decision::allow},
        {"http --offline POST example.org/x a=1", Decision::allow},
        {"http DELETE example.org/api/items/1", Decision::deny, "net.remote-delete"},
        {"http --offline POST example.org/x @~/.ssh/id_rsa", Decision::deny},
    });
}

TEST_CASE("corners: a refusal names the safer way where there is one", "[classify][corners]") {
    struct Want {
        const char* cmd;
        const char* says;
    };
    for (const Want& w : std::initializer_list<Want>{
             {"git reset --hard", "git stash"},
             {"git checkout -- .", "git stash"},
             {"git restore src/app.py", "git stash"},
             {"git clean -fdx", "git clean -n"},
             {"git push --force origin main", "--force-with-lease"},
             {"git branch -D feature", "git branch -d"},
             {"git sync", "git stash -u"},
             {"rm -rf ~/notes", "/home/agent/project"},
             {"echo x > ~/notes.txt", "/home/agent/project"},
             {"terraform apply -replace=aws_instance.web", "plan -replace"},
             {"restic -r /srv/b forget --keep-last 1", "--dry-run"},
             {"kubectl drain node-1 --force", "kubectl cordon"},
             {"pg_restore -c -d app x.dump", "createdb"},
             {"apt-get purge nginx", "remove"},
             {"systemctl stop sshd", "reload"},
         }) {
        toolcage::Verdict v = classify(w.cmd);
        INFO(w.cmd << " -> " << toolcage::to_string(v.decision) << " " << v.rule << ": " << v.reason);
        CHECK(v.decision == Decision::deny);
        CHECK(v.reason.find(w.says) != std::string::npos);
    }
}
