#!/usr/bin/env bash
# Installs npm redlock 4.2.0 and ioredis 4.28.5 into this folder's node_modules, exactly as
# package-lock.json pins them (npm ci), with ../node-common/install-npm.sh.
exec bash "$(dirname "${BASH_SOURCE[0]}")/../node-common/install-npm.sh" "$(dirname "${BASH_SOURCE[0]}")" 'redlock 4.2.0'
