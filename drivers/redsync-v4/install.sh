#!/usr/bin/env bash
# Builds ./redsync-driver against github.com/go-redsync/redsync/v4 v4.17.0 and go-redis v9.21.0,
# exactly as go.mod and go.sum pin them (GOFLAGS=-mod=readonly: the lock files are never
# rewritten). The module cache makes later builds offline; a no-op when the binary is newer than
# its sources and lock files.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
if ! command -v go >/dev/null 2>&1; then
  echo "redsync-v4: 'go' is missing: install the Go toolchain (1.25 or later; Debian: apt-get install golang-go)" >&2
  exit 1
fi
if [[ -x redsync-driver && -z "$(find main.go go.mod go.sum -newer redsync-driver)" ]]; then
  echo "redsync-v4: redsync-driver already built"
  exit 0
fi
GOFLAGS=-mod=readonly go build -o redsync-driver .
echo "redsync-v4: built redsync-driver with $(GOFLAGS=-mod=readonly go list -m -f '{{.Path}} {{.Version}}' github.com/go-redsync/redsync/v4)"
