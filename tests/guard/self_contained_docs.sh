#!/usr/bin/env bash
# Fails if a tracked file points at a document outside the repository (the team's shared design
# notes and research, which a user of the repository does not have), or cites a catalogue id
# (S01..S25 stories, B1..B30 library bugs, F1..F20 Redis facts) that docs/catalogue.md does not
# define. The ids are defined in the catalogue's tables, one row each: "| S01 |", "| B8 |".
set -u
root=${1:?usage: self_contained_docs.sh SOURCE_DIR}
cd "$root" || exit 2
status=0

outside=$(git ls-files -z 2>/dev/null | xargs -0 grep -nIE \
  'shared/research|\.\./shared|lock_libraries\.md|redis_lock_semantics\.md|DESIGN\.md' -- 2>/dev/null |
  grep -v '^tests/guard/self_contained_docs\.sh:')
if [ -n "$outside" ]; then
  echo "self-contained docs: these lines point outside the repository:"
  echo "$outside"
  status=1
fi

catalogue=docs/catalogue.md
if [ ! -f "$catalogue" ]; then
  echo "self-contained docs: $catalogue is missing"
  exit 1
fi
defined=$(grep -oE '^\| (S[0-9]{2}|B[0-9]{1,2}|F[0-9]{1,2}) \|' "$catalogue" | tr -d '| ' | sort -u)

# Cited ids: S ids anywhere in scenario files, docs and sources; B ids written as "bug B<n>" or
# "(B<n>" or ", B<n>"; F ids as "F<n>" next to a parenthesis or comma, as the comments write them.
cited=$(git ls-files -z -- scenarios docs sim lock_impls cli reports real tests drivers api examples ':!docs/catalogue.md' |
  xargs -0 grep -ohIE '\bS[0-9]{2}[a-d]?\b|(bug |\(|, )B[0-9]{1,2}[ab]?\b|(\(|, |: )F[0-9]{1,2}\b' -- 2>/dev/null |
  grep -oE '[SBF][0-9]+' | sort -u)
missing=()
for id in $cited; do
  grep -qx "$id" <<<"$defined" || missing+=("$id")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "self-contained docs: cited but not defined in $catalogue: ${missing[*]}"
  status=1
fi
[ $status -eq 0 ] && echo "self-contained docs: clean ($(wc -w <<<"$defined") catalogue ids)"
exit $status
