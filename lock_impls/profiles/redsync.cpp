#include "lock_impls/profiles/redsync.hpp"

#include "lock_impls/families/family_params.hpp"

namespace redlock_sim::profiles {

// What this file models (the registration at its end reads it).
constexpr LockText redsync_v4_text{
    .name = "redsync-v4",
    .description =
        "Go: parallel SET NX PX, 32 tries 50-250 ms, drift 1% (no +2), monotonic, ctx timeout 5%",
    .models = "go-redsync/redsync v4 @ 5560bd2"};

RedlockOptions redsync_v4(uint32_t node_count) {
  const Duration expiry = Duration::from_ms(8'000);
  return RedlockOptions{
      .node_count = node_count,
      .ttl = expiry,
      .clock = ClockKind::monotonic,
      .fan_out = FanOut::parallel,
      .wait = FanOutMode::wait_for_all,
      .request_timeout = expiry / 20,             // timeoutFactor 0.05
      .release_timeout = Duration::from_s(3600),  // Unlock: the caller's context
      .cleanup_timeout = expiry / 20,  // the release after a failed try shares its timeout
      .drift = Drift{.ppm = 10'000, .constant_ms = 0, .rounding = DriftRounding::exact},
      .validity_check = ValidityCheck::positive,
      .retry_count = 31,
      .retry_delay = RetryDelay{.min_ms = 50, .jitter_ms = 199},
      .release_after_failed_attempt = true,
      .token_format = TokenFormat::base64,
      .token_size = 16,
      .acquire_command = RedlockAcquireCommand::set_nx_px,
      .extend_command = RedlockExtendCommand::pexpire_if_value,
      .release_command = RedlockReleaseCommand::delete_if_value_or_report_missing,
      .use_evalsha = true,
      .extend_checks_validity = true,
      .release_quorum = majority(node_count),
  };
}

RedlockOptions redsync_v4_fail_fast(uint32_t node_count) {
  RedlockOptions options = redsync_v4(node_count);
  options.wait = FanOutMode::return_at_quorum;
  return options;
}

}  // namespace redlock_sim::profiles

namespace redlock_sim {

// The registry's entries this file declares (lock_impls/builtin_locks.hpp).
std::vector<LockEntry> redsync_locks() {
  return {redlock_profile({
      .text = profiles::redsync_v4_text,
      .options = profiles::redsync_v4,
      .more = {flag_param("fail_fast", false, "WithFailFast"),
               flag_param("set_nx_on_extend", false, "WithSetNXOnExtend (PR #149)"),
               flag_param("status_bug", false, "before PR #38/#61: a 0 reply is success")},
      .adjust =
          [](const ParamValues& p, RedlockOptions& o) {
            if (p.flag("fail_fast")) o = profiles::redsync_v4_fail_fast(o.node_count);
            if (p.flag("set_nx_on_extend")) {
              o.extend_command = RedlockExtendCommand::pexpire_if_value_else_set_nx;
            }
            o.any_reply_counts_as_success = p.flag("status_bug");
          },
  })};
}

}  // namespace redlock_sim
