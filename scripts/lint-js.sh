#!/usr/bin/env bash
# Lints the page scripts the worker injects (crates/worker/src/**/*.js), and the live view's, with Biome (pinned in
# scripts/js/package.json, installed from npm into scripts/js/node_modules): correctness and suspicious
# code, not style. Each script is a function declaration or expression handed to Runtime.callFunctionOn
# or Runtime.evaluate, not a module, so it is linted wrapped as `export default (...)` (and a
# `'use strict'` in it is not redundant, whatever the module rule says).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x scripts/js/node_modules/.bin/biome ]; then
    (cd scripts/js && npm install --silent --no-audit --no-fund --no-package-lock >/dev/null)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp scripts/js/biome.json "$work/biome.json"
while IFS= read -r file; do
    out="$work/${file//\//__}"
    { printf 'export default ('; cat "$file"; printf '\n);\n'; } > "$out"
done < <(find crates/worker/src -name '*.js' | sort)
# The live view's page script (crates/supervisor/src/front/view/view.js) is a classic script of its own page:
# linted as it is, as a script (`.cjs`).
cp crates/supervisor/src/front/view/view.js "$work/view.cjs"
(cd "$work" && "$OLDPWD/scripts/js/node_modules/.bin/biome" lint --error-on-warnings --max-diagnostics=200 --config-path=. .)
