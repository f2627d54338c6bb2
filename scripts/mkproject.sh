#!/usr/bin/env bash
# Creates the Nx project.json, tsconfig.json and package.json of one app or lib.
# Usage: scripts/mkproject.sh <apps|libs>/<name> <app|lib> <scope> [entry]
set -euo pipefail
root="$1"; kind="$2"; scope="$3"; entry="${4:-src/index.ts}"
name="$(basename "$root")"
mkdir -p "$root/src"
cat > "$root/project.json" <<JSON
{
  "name": "$name",
  "\$schema": "../../node_modules/nx/schemas/project-schema.json",
  "sourceRoot": "$root/src",
  "projectType": "$([ "$kind" = app ] && echo application || echo library)",
  "tags": ["type:$kind", "scope:$scope"],
  "targets": {
    "build": { "executor": "nx:run-commands", "options": { "command": "node scripts/build.mjs $root $entry" }, "outputs": ["{workspaceRoot}/dist/$root"] },
    "typecheck": { "executor": "nx:run-commands", "options": { "command": "tsc -p $root/tsconfig.json" } },
    "lint": { "executor": "nx:run-commands", "options": { "command": "eslint $root" } },
    "test": { "executor": "nx:run-commands", "options": { "command": "jest --selectProjects unit --passWithNoTests $root" } }
  }
}
JSON
cat > "$root/tsconfig.json" <<JSON
{
  "extends": "../../tsconfig.base.json",
  "compilerOptions": { "noEmit": true },
  "include": ["src/**/*.ts", "test/**/*.ts"]
}
JSON
[ -f "$root/package.json" ] || cat > "$root/package.json" <<JSON
{
  "name": "@toolhub/$name",
  "version": "0.1.0",
  "private": true,
  "main": "./$entry",
  "types": "./$entry"
}
JSON
