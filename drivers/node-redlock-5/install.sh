#!/usr/bin/env bash
# Installs npm redlock 5.0.0-beta.2 and ioredis 5.11.1 into this folder's node_modules, exactly as
# package-lock.json pins them (npm ci), with ../node-common/install-npm.sh.
exec bash "$(dirname "${BASH_SOURCE[0]}")/../node-common/install-npm.sh" "$(dirname "${BASH_SOURCE[0]}")" 'redlock 5.0.0-beta.2'
