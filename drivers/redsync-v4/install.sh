#!/usr/bin/env bash
# Builds the driver against the pinned library, never rewriting the lock files
# (GOFLAGS=-mod=readonly):
#   redsync-driver         github.com/go-redsync/redsync/v4 v4.17.0 + go-redis v9.21.0 (go.mod, go.sum)
#   redsync-driver-v4.0.3  github.com/go-redsync/redsync/v4 v4.0.3 + go-redis v8.11.5
#                          (v4.0.3.mod, v4.0.3.sum; build tag statusbug), run by the first for a
#                          client with the status_bug param.
# The module cache makes later builds offline; a no-op when both binaries are newer than their
# sources and lock files.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
if ! command -v go >/dev/null 2>&1; then
  echo "redsync-v4: 'go' is missing: install the Go toolchain (1.25 or later)" >&2
  exit 1
fi
sources=(main.go lib_current.go lib_statusbug.go go.mod go.sum v4.0.3.mod v4.0.3.sum)
if [[ -x redsync-driver && -x redsync-driver-v4.0.3 &&
      -z "$(find "${sources[@]}" -newer redsync-driver)" &&
      -z "$(find "${sources[@]}" -newer redsync-driver-v4.0.3)" ]]; then
  echo "redsync-v4: redsync-driver already built"
  exit 0
fi
export GOFLAGS=-mod=readonly
go build -o redsync-driver .
go build -modfile=v4.0.3.mod -tags statusbug -o redsync-driver-v4.0.3 .
echo "redsync-v4: built redsync-driver ($(go list -m -f '{{.Version}}' github.com/go-redsync/redsync/v4))" \
  "and redsync-driver-v4.0.3 ($(go list -modfile=v4.0.3.mod -m -f '{{.Version}}' github.com/go-redsync/redsync/v4))"
