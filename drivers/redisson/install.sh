#!/usr/bin/env bash
# Builds the Redisson driver: target/redisson-driver.jar, one runnable jar holding the driver and
# org.redisson:redisson 4.7.0 with its dependencies, every version pinned by pom.xml (Maven
# Central; the local Maven repository keeps them, so later builds run offline). A no-op when the
# jar is newer than pom.xml and every source file.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
for tool in java mvn; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "redisson: '$tool' is missing: install a JDK 17+ and Maven (Debian: apt-get install openjdk-17-jdk-headless maven)" >&2
    exit 1
  fi
done
jar=target/redisson-driver.jar
if [[ -f $jar && -z "$(find pom.xml src -newer "$jar" -print -quit)" ]]; then
  echo "redisson: driver already built (Redisson 4.7.0)"
  exit 0
fi
# Offline first (dependencies already in the local repository), else from Maven Central.
if ! mvn -q -B -o package >/dev/null 2>&1; then
  mvn -q -B package
fi
[[ -f $jar ]] || { echo "redisson: the build made no $jar" >&2; exit 1; }
touch "$jar"
echo "redisson: built $jar (Redisson 4.7.0)"
