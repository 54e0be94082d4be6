// Look-alikes: destructive text that is only data must stay harmless.
#include "classify_helpers.h"

using toolcage::Decision;
using toolcage::classify::testing::check_table;

TEST_CASE("look-alikes: destructive words as data", "[classify][lookalike]") {
    check_table({
        {"echo \"rm -rf /\"", Decision::allow},
        {"echo 'git reset --hard'", Decision::allow},
        {"echo rm -rf ~", Decision::allow},
        {"echo $'rm -rf /'", Decision::allow},
        {"printf '%s\\n' 'git push --force'", Decision::allow},
        {"printf 'rm -rf ~\\n'", Decision::allow},
        {"grep -r \"rm -rf\" .", Decision::allow},
        {"grep -rn 'DROP TABLE' migrations/", Decision::allow},
        {"grep -- '--force' README.md", Decision::allow},
        {"rg 'git push --force' docs", Decision::allow},
        {"git grep -n 'reset --hard'", Decision::allow},
        {"git commit -m 'force push fix'", Decision::cage},
        {"git commit -m 'rm -rf the build dir'", Decision::cage},
        {"git log --grep='reset --hard'", Decision::allow},
        {"cat <<'EOF'\nrm -rf /\ngit reset --hard\nEOF", Decision::allow},
        {"cat <<EOF\nrm -rf /\nEOF", Decision::allow},
        {"wc -l <<< 'rm -rf /'", Decision::allow},
        {"echo 'rm -rf ~' > notes.txt", Decision::cage},
        {"echo \"rm -rf ~\" >> docs/dangerous-commands.md", Decision::cage},
        {"echo cm0gLXJmIC8= | base64 -d", Decision::allow},
        {"echo \"$(( rm -rf /x ))\"", Decision::allow},
        {"ls -la ~/rm-rf-notes", Decision::allow},
        {"cat docs/rm.md", Decision::allow},
        {"python3 -c \"print('rm -rf /')\"", Decision::cage},
        {"node -e \"console.log('DROP TABLE users')\"", Decision::cage},
        {"jq '.scripts.clean' package.json", Decision::allow},
        {"test -n \"$(git status --porcelain)\" && echo dirty", Decision::allow},
        {"man rm", Decision::allow},
        {"which rm", Decision::allow},
        {"type -a rm", Decision::allow},
        {"command -v rm", Decision::allow},
        {"echo --force", Decision::allow},
        {"sed -n '/rm -rf/p' script.sh", Decision::allow},
        {"awk '/reset --hard/ {print}' log", Decision::allow},
        {"find . -name '*rm -rf*'", Decision::allow},
        {"ls -- -rf", Decision::allow},
        {"grep -e -rf file", Decision::allow},
    });
}
