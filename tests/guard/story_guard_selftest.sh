#!/usr/bin/env bash
# The story guard catches a story kind's printed name compared or searched (the kind is a
# StoryKind; comparing its name would bring back the string tags). Plants such lines in a
# scratch tree and expects the guard to name each one.
set -u
guard=${1:?usage: story_guard_selftest.sh STORY_GUARD}
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/reports"
cat >"$tree/reports/planted.cpp" <<'CPP'
bool a(const StoryEvent& e) { return story_kind_name(e.kind) == "fault"; }
bool b(const StoryEvent& e) { return "grant" != std::string(story_kind_name(e.kind)); }
bool c(const StoryEvent& e) { return story_kind_name(e.kind).starts_with("fa"); }
std::size_t fine(const StoryEvent& e) { return story_kind_name(e.kind).size(); }
CPP
out=$(bash "$guard" "$tree")
status=$?
[ "$status" -eq 1 ] || { echo "story guard exited $status, expected 1"; exit 1; }
for line in 1 2 3; do
  grep -q "planted.cpp:$line:" <<<"$out" || { echo "story guard missed line $line:"; echo "$out"; exit 1; }
done
if grep -q "planted.cpp:4:" <<<"$out"; then echo "story guard flagged a size: $out"; exit 1; fi
echo "story guard self-test: catches story kind name comparisons"
