//go:build statusbug

// redsync v4.0.3 over go-redis v8 (v4.0.3.mod, v4.0.3.sum): the last release before "Fix extend
// and unlock" (5e3c32b, 2020-11-12), whose touch counts any reply but "ERR" as extended and whose
// release counts any reply as released (`status != 0` on an interface): the profile's
// status_bug param. Built by install.sh as redsync-driver-v4.0.3; the main driver runs it for a
// client with status_bug.
//
// v4.0.3 computes `until` on a grant but exposes it nowhere (Until() came with v4.4.0) and its
// Extend computes none, so the deadline is the profile's, marked "deadline_source": "profile":
// start of the winning attempt (its first SET NX) + expiry - expiry * driftFactor, and after an
// extension, start of the extension + expiry - drift, on the monotonic clock. v4.0.3 has no
// per-attempt timeout (WithTimeoutFactor came with v4.5.0): request_timeout_ms is noted in the
// story and not applied; its Lock returns at once when no node answered and one erred.
package main

import (
	"crypto/rand"
	"encoding/base64"
	"math"
	"time"

	"github.com/go-redis/redis/v8"
	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v8"
)

type statusBugLib struct {
	rs        *redsync.Redsync
	options   []redsync.Option
	d         *driver
	expiryNs  int64
	driftNs   int64
	deadlines map[lockMutex]int64
}

func newLib(config *clientConfig, d *driver) lockLib {
	if !config.flag("status_bug") {
		fatal("this build (redsync v4.0.3) runs status_bug clients only")
	}
	if config.flag("fail_fast") || config.flag("set_nx_on_extend") {
		fatal("fail_fast, set_nx_on_extend: not in redsync v4.0.3")
	}
	lib := &statusBugLib{d: d, deadlines: map[lockMutex]int64{}}
	expiry := time.Duration(config.intParam("ttl_ms", 8000)) * time.Millisecond
	factor := float64(config.intParam("drift_ppm", 10000)) / 1e6
	lib.expiryNs = int64(expiry)
	lib.driftNs = int64(float64(expiry) * factor)
	lib.options = append(lib.options, redsync.WithExpiry(expiry), redsync.WithDriftFactor(factor))
	retries := config.intParam("retry_count", 31)
	tries := int(retries + 1)
	if retries < 0 {
		tries = math.MaxInt32
	}
	lib.options = append(lib.options, redsync.WithTries(tries))
	if delay := d.delayFunc(); delay != nil {
		lib.options = append(lib.options, redsync.WithRetryDelayFunc(delay))
	} else {
		// v4.0.3's default is a fixed 500 ms; the profile's is v4.17.0's [50, 250) ms.
		lib.options = append(lib.options, redsync.WithRetryDelayFunc(func(int) time.Duration {
			return time.Duration(50+time.Now().UnixNano()%200) * time.Millisecond
		}))
	}
	pools := d.countingPools(func(address string) redsyncredis.Pool {
		return goredis.NewPool(redis.NewClient(&redis.Options{Addr: address}))
	})
	lib.rs = redsync.New(pools...)
	if _, ok := config.param("request_timeout_ms"); ok {
		d.notes = append(d.notes, "redsync v4.0.3 has no per-attempt timeout: request_timeout_ms not applied")
	}
	return lib
}

// v4.0.3's Mutex does not tell its value (Value() came with v4.2.0): the value is made as the
// library's genValue makes it (16 bytes of crypto/rand, base64) and handed over with
// WithGenValueFunc, so the driver knows it.
type oldMutex struct {
	*redsync.Mutex
	value string
}

func (m *oldMutex) Value() string { return m.value }

func (l *statusBugLib) newMutex(name string) lockMutex {
	m := &oldMutex{}
	gen := redsync.WithGenValueFunc(func() (string, error) {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return "", err
		}
		m.value = base64.StdEncoding.EncodeToString(b)
		return m.value, nil
	})
	m.Mutex = l.rs.NewMutex(name, append(l.options, gen)...)
	return m
}

func (l *statusBugLib) grantDeadline(m lockMutex) event {
	at := l.d.attemptStart.Load() + l.expiryNs - l.driftNs
	l.deadlines[m] = at
	return event{"clock": "monotonic", "at_ns": at}
}

func (l *statusBugLib) extendDeadline(m lockMutex, start int64) event {
	at := start + l.expiryNs - l.driftNs
	l.deadlines[m] = at
	return event{"clock": "monotonic", "at_ns": at}
}

func (l *statusBugLib) expired(m lockMutex) bool {
	return monoNs() >= l.deadlines[m]
}

func (l *statusBugLib) deadlineSource() string { return "profile" }
