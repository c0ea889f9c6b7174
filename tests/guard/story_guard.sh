#!/usr/bin/env bash
# Fails if code decides anything by reading a sentence written for people: a story line's text,
# a cluster event's detail, a trace note, a timing label, a story line's printed kind. The models and the runner emit typed
# records (RunEvent, ClusterEvent, the History) and probes, reports and tools read their fields,
# so rewording a sentence cannot change a verdict, an expectation or a picture.
# Allowed: a Redis reply's text (`reply.text`: the protocol's own words, byte for byte), and a
# line marked `story-guard: allow` with its reason (words a real redis-server wrote).
set -u
root=${1:?usage: story_guard.sh SOURCE_DIR}
cd "$root" || exit 2
dirs=()
for d in sim reports cli real lock_impls scenarios; do [ -d "$d" ] && dirs+=("$d"); done
search='(r?find|starts_with|ends_with|substr|compare|contains|find_first_of|find_last_of)[[:space:]]*\('
patterns=(
  # e.text.rfind("promoted", 0), event.detail.find(...), a.what.starts_with(...)
  "\\.(text|detail|what)[[:space:]]*\\.[[:space:]]*$search"
  # e.text == "...", line.detail != "..."
  '\.(text|detail|what)[[:space:]]*(==|!=)[[:space:]]*"'
  # text.find(" lost)"): a search for words (a space or a parenthesis) in a text
  '\btext[[:space:]]*\.[[:space:]]*r?find[[:space:]]*\("[^"]*[ ()]'
  # text.rfind(prefix, 0): "starts with", on a text
  '\btext[[:space:]]*\.[[:space:]]*rfind[[:space:]]*\([^)]*,[[:space:]]*0[[:space:]]*\)'
  # anything searched on a story or on the trace's notes
  "\\b(story|notes\\(\\))\\b.*\\b$search"
  'std::regex'
  # a story line's kind is a StoryKind: its printed name is for output, never compared or searched
  'story_kind_name[[:space:]]*\([^)]*\)[[:space:]]*(==|!=)'
  "story_kind_name[[:space:]]*\\([^)]*\\)[[:space:]]*\\.[[:space:]]*$search"
  '(==|!=)[[:space:]]*(std::string(_view)?[[:space:]]*\()?[[:space:]]*story_kind_name'
)
hits=""
for pattern in "${patterns[@]}"; do
  found=$(grep -rnE --include='*.cpp' --include='*.hpp' --include='*.h' "$pattern" "${dirs[@]}" |
    grep -vE 'reply\.text|story-guard: allow')
  [ -n "$found" ] && hits+="$found"$'\n'
done
if [ -n "$hits" ]; then
  echo "story guard: code reads sentences to decide (read the typed event instead):"
  printf '%s' "$hits" | sort -u
  exit 1
fi
echo "story guard: clean (${dirs[*]})"
