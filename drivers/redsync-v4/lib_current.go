//go:build !statusbug

// redsync v4.17.0 over go-redis v9: the profile's code (go.mod, go.sum).
package main

import (
	"math"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	goredislib "github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

type currentLib struct {
	rs      *redsync.Redsync
	options []redsync.Option
}

func newLib(config *clientConfig, d *driver) lockLib {
	if config.flag("status_bug") {
		// The `status != 0` comparison (before PRs #38/#61) is not in v4.17.0: the binary built
		// against v4.0.3 (install.sh) runs the client instead.
		self, err := os.Executable()
		if err != nil {
			fatal("status_bug: %v", err)
		}
		old := filepath.Join(filepath.Dir(self), "redsync-driver-v4.0.3")
		if err := syscall.Exec(old, append([]string{old}, os.Args[1:]...), os.Environ()); err != nil {
			fatal("status_bug: cannot run %s (%v): run install.sh", old, err)
		}
	}
	lib := &currentLib{}
	expiry := time.Duration(config.intParam("ttl_ms", 8000)) * time.Millisecond
	lib.options = append(lib.options, redsync.WithExpiry(expiry))
	if _, ok := config.param("retry_count"); ok {
		retries := config.intParam("retry_count", 31)
		tries := int(retries + 1)
		if retries < 0 {
			tries = math.MaxInt32
		}
		lib.options = append(lib.options, redsync.WithTries(tries))
	}
	if _, ok := config.param("drift_ppm"); ok {
		lib.options = append(lib.options, redsync.WithDriftFactor(float64(config.intParam("drift_ppm", 10000))/1e6))
	}
	if _, ok := config.param("request_timeout_ms"); ok {
		timeout := config.intParam("request_timeout_ms", 400)
		lib.options = append(lib.options, redsync.WithTimeoutFactor(float64(timeout)/float64(expiry.Milliseconds())))
	}
	if config.flag("fail_fast") {
		lib.options = append(lib.options, redsync.WithFailFast(true))
	}
	if config.flag("set_nx_on_extend") {
		lib.options = append(lib.options, redsync.WithSetNXOnExtend())
	}
	if delay := d.delayFunc(); delay != nil {
		lib.options = append(lib.options, redsync.WithRetryDelayFunc(delay))
	}
	pools := d.countingPools(func(address string) redsyncredis.Pool {
		return goredis.NewPool(goredislib.NewClient(&goredislib.Options{
			Addr:                  address,
			ContextTimeoutEnabled: true,
			DisableIdentity:       true,
			MaintNotificationsConfig: &maintnotifications.Config{
				Mode: maintnotifications.ModeDisabled,
			},
		}))
	})
	lib.rs = redsync.New(pools...)
	return lib
}

func (l *currentLib) newMutex(name string) lockMutex {
	return l.rs.NewMutex(name, l.options...)
}

// mutex.Until() on the monotonic clock (see main.go's header).
func untilDeadline(m lockMutex) event {
	until := m.(*redsync.Mutex).Until()
	now := time.Now()
	mono := monoNs()
	return event{"clock": "monotonic", "at_ns": mono + int64(until.Sub(now))}
}

func (l *currentLib) grantDeadline(m lockMutex) event { return untilDeadline(m) }

func (l *currentLib) extendDeadline(m lockMutex, _ int64) event { return untilDeadline(m) }

func (l *currentLib) expired(m lockMutex) bool {
	return !time.Now().Before(m.(*redsync.Mutex).Until())
}

func (l *currentLib) deadlineSource() string { return "" }
