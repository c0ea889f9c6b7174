// What a story line is about, as a type: code that filters or colours story lines compares
// these, never a string. story_kind_name is the tag the text story, the JSON trace and the HTML
// report print (and the bytes the memory budget counts for it); nothing parses it back.
#pragma once

#include <cstdint>
#include <string_view>

namespace redlock_sim {

enum class StoryKind : uint8_t {
  acquire,   // an acquisition gave up
  attempt,   // a lock implementation's note on an attempt
  check,     // a client's validity check step
  cluster,   // the replicated world changed (not a fault)
  command,   // a command step was sent or answered
  error,     // a real client reported an error
  extend,    // an extension succeeded or failed
  failover,  // a client learned of a new master
  fault,     // a fault took effect (or something a fault caused, such as a promotion)
  grant,     // a client was granted the lock
  lost,      // a client learned its lock is lost
  read,      // a resource read
  release,   // a release
  work,      // a client abandoned its critical section
  write,     // a resource write sent, acknowledged or refused
};

constexpr std::string_view story_kind_name(StoryKind kind) {
  switch (kind) {
    case StoryKind::acquire:
      return "acquire";
    case StoryKind::attempt:
      return "attempt";
    case StoryKind::check:
      return "check";
    case StoryKind::cluster:
      return "cluster";
    case StoryKind::command:
      return "command";
    case StoryKind::error:
      return "error";
    case StoryKind::extend:
      return "extend";
    case StoryKind::failover:
      return "failover";
    case StoryKind::fault:
      return "fault";
    case StoryKind::grant:
      return "grant";
    case StoryKind::lost:
      return "lost";
    case StoryKind::read:
      return "read";
    case StoryKind::release:
      return "release";
    case StoryKind::work:
      return "work";
    case StoryKind::write:
      return "write";
  }
  return "?";
}

}  // namespace redlock_sim
