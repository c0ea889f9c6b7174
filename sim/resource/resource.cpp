#include "sim/resource/resource.hpp"

#include <charconv>
#include <initializer_list>
#include <string_view>

namespace redlock_sim {

const char* fencing_mode_name(FencingMode mode) {
  switch (mode) {
    case FencingMode::none:
      return "none";
    case FencingMode::fence_writes:
      return "fence-writes";
    case FencingMode::fence_all:
      return "fence-all";
    case FencingMode::compare_and_set:
      return "compare-and-set";
  }
  return "unknown";
}

std::optional<FencingMode> parse_fencing_mode(const std::string& name) {
  for (FencingMode mode : {FencingMode::none, FencingMode::fence_writes, FencingMode::fence_all,
                           FencingMode::compare_and_set}) {
    if (name == fencing_mode_name(mode)) return mode;
  }
  return std::nullopt;
}

namespace {
// The request's words, then its metadata (the fencing token where this mode sends it, and
// `GRANT <id>`): the argv is sized once and each word written in place.
Command with_metadata(std::initializer_list<std::string_view> words, const ResourceRequest& request,
                      bool with_token) {
  const bool token = with_token && request.token.has_value();
  Command argv;
  argv.reserve(words.size() + (token ? 3 : 2));
  for (std::string_view word : words)
    argv.emplace_back(word);
  if (token) argv.push_back(std::to_string(*request.token));
  argv.emplace_back("GRANT");
  argv.push_back(std::to_string(request.grant_id));
  return argv;
}
}  // namespace

std::optional<Command> resource_set_owner_command(const ResourceRequest& request) {
  if (request.fencing != FencingMode::compare_and_set) return std::nullopt;
  return with_metadata({"SETOWNER", request.resource, request.owner}, request, false);
}

Command resource_read_command(const ResourceRequest& request) {
  return with_metadata({"READ", request.resource}, request,
                       request.fencing == FencingMode::fence_all);
}

Command resource_write_command(const ResourceRequest& request, int64_t value) {
  const std::string text = std::to_string(value);
  if (request.fencing == FencingMode::compare_and_set)
    return with_metadata({"WRITEIFOWNER", request.resource, request.owner, text}, request, false);
  return with_metadata({"WRITE", request.resource, text}, request,
                       request.fencing != FencingMode::none);
}

const char* resource_op_kind_name(ResourceOpKind kind) {
  switch (kind) {
    case ResourceOpKind::read:
      return "read";
    case ResourceOpKind::write:
      return "write";
    case ResourceOpKind::set_owner:
      return "set_owner";
    case ResourceOpKind::write_if_owner:
      return "write_if_owner";
  }
  return "unknown";
}

namespace {
std::optional<int64_t> parse_integer(const std::string& text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// The simulator's trailing `GRANT <id>` metadata: its id (0 without it), and the number of words
// before it (the request itself, read in place: no copy of it is made).
uint64_t grant_id_of(const Command& argv, std::size_t& words) {
  words = argv.size();
  if (words >= 2 && argv[words - 2] == "GRANT") {
    words -= 2;
    return static_cast<uint64_t>(parse_integer(argv.back()).value_or(0));
  }
  return 0;
}
}  // namespace

ResourceProcess::ResourceProcess(Simulator& simulator, ProcessId id, std::string name,
                                 Options options)
    : ServerProcess(simulator, id, std::move(name)), store_(options) {}

Reply ResourceProcess::handle(const Message& request) {
  return store_.apply(request.command(), request.from, simulator().now());
}

int64_t RegisterStore::value(const std::string& resource) const {
  auto it = registers_.find(resource);
  return it == registers_.end() ? 0 : it->second.value;
}

uint64_t RegisterStore::rejected_count() const {
  uint64_t count = 0;
  for (const ResourceOp& op : log_)
    count += op.accepted ? 0 : 1;
  return count;
}

bool RegisterStore::token_is_stale(const Register& reg, int64_t token) const {
  if (!reg.highest_token) return false;
  return options_.reject_equal_token ? token <= *reg.highest_token : token < *reg.highest_token;
}

Reply RegisterStore::apply(const Command& argv, ProcessId client, Instant now) {
  ResourceOp op{.applied_at = now, .client = client};
  std::size_t words = 0;
  op.grant_id = grant_id_of(argv, words);
  if (words < 2) return Reply::error("ERR resource: bad request");
  const std::string& verb = argv[0];
  op.resource = argv[1];
  Register& reg = registers_[op.resource];
  const bool fenced_reads = options_.fencing == FencingMode::fence_all;
  const bool fenced_writes = fenced_reads || options_.fencing == FencingMode::fence_writes;

  auto check_token = [&](std::size_t index, bool fenced) -> bool {
    if (!fenced) return true;
    const std::optional<int64_t> token = index < words ? parse_integer(argv[index]) : std::nullopt;
    if (!token) {
      op.accepted = false;
      op.rejection = "missing fencing token";
      return false;
    }
    op.token = token;
    if (token_is_stale(reg, *token)) {
      op.accepted = false;
      op.rejection = "token " + std::to_string(*token) + " is older than " +
                     std::to_string(*reg.highest_token);
      return false;
    }
    reg.highest_token = std::max(reg.highest_token.value_or(*token), *token);
    return true;
  };

  Reply reply = Reply::ok();
  if (verb == "READ") {
    op.kind = ResourceOpKind::read;
    if (check_token(2, fenced_reads)) {
      op.value = reg.value;
      reply = Reply::integer_reply(reg.value);
    }
  } else if (verb == "WRITE" && words >= 3) {
    op.kind = ResourceOpKind::write;
    op.value = parse_integer(argv[2]).value_or(0);
    if (check_token(3, fenced_writes)) reg.value = op.value;
  } else if (verb == "SETOWNER" && words >= 3) {
    op.kind = ResourceOpKind::set_owner;
    op.owner_token = argv[2];
    reg.owner = argv[2];
  } else if (verb == "WRITEIFOWNER" && words >= 4) {
    op.kind = ResourceOpKind::write_if_owner;
    op.owner_token = argv[2];
    op.value = parse_integer(argv[3]).value_or(0);
    if (reg.owner == argv[2]) {
      reg.value = op.value;
    } else {
      op.accepted = false;
      op.rejection = "owner is another token";
    }
  } else {
    return Reply::error("ERR resource: unknown request '" + verb + "'");
  }
  if (!op.accepted) reply = Reply::error("STALE " + op.rejection);  // STALE token 33 is older ...
  log_.push_back(std::move(op));
  return reply;
}

CounterService::CounterService(Simulator& simulator, ProcessId id, std::string name,
                               int64_t start_value)
    : ServerProcess(simulator, id, std::move(name)), store_(start_value) {}

Reply CounterStore::apply(const Command& argv) {
  if (argv.size() == 2 && (argv[0] == "INCR" || argv[0] == "incr")) {
    auto [it, inserted] = counters_.try_emplace(argv[1], start_value_);
    return Reply::integer_reply(++it->second);
  }
  if (argv.size() == 2 && (argv[0] == "GET" || argv[0] == "get")) {
    auto it = counters_.find(argv[1]);
    return Reply::integer_reply(it == counters_.end() ? start_value_ : it->second);
  }
  return Reply::error("ERR counter service: unknown request");
}

}  // namespace redlock_sim
