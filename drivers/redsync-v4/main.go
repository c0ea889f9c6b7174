// redlock-sim real-mode driver for go-redsync/redsync v4 (v4.17.0, whose code is the profile's
// snapshot 5560bd2 but for a golang.org/x/sync bump) over go-redis v9, the library the profile
// `redsync-v4` models.
//
//	./redsync-driver --config JSON
//
// Speaks the client line protocol of docs/real-mode.md: commands on standard input, one JSON
// event per line on standard output stamped with CLOCK_MONOTONIC.
//
// The lock is driven through the library's public API as its README shows:
//
//	rs := redsync.New(goredis.NewPool(client), ...)
//	mutex := rs.NewMutex(name, options...)
//	mutex.Lock(); mutex.Extend(); mutex.Unlock(); mutex.Until()
//
// One Mutex per acquisition (a Mutex holds one value and one `until`).
//
// Deadline: the library's own mutex.Until(), a time.Time whose monotonic reading the library
// compares with (now.Before(until)); it is reported on the monotonic clock, as the profile's
// (Go's monotonic clock is CLOCK_MONOTONIC): at_ns = CLOCK_MONOTONIC now + until.Sub(time.Now()).
// Until() also carries a wall reading, which the library never compares with.
//
// Go reads its clocks through the vDSO, and a Go binary is static: the harness's clock shim
// (LD_PRELOAD) cannot move this process's wall clock. The library never reads the wall clock for
// its validity, but a scenario that steps or offsets a redsync client's clock cannot be staged
// faithfully: `wall_ns` is the unshifted CLOCK_REALTIME.
//
// Scenario params mapped to the library's options:
//
//	ttl_ms -> WithExpiry (default 8 s); retry_count -> WithTries(retry_count + 1) (-1: unbounded);
//	retry_delay_ms_min and retry_jitter_ms -> WithRetryDelayFunc, uniform in [min, min + jitter]
//	(the library's default is [50, 250) ms, the profile's [50, 249]); drift_ppm -> WithDriftFactor;
//	request_timeout_ms -> WithTimeoutFactor(timeout / expiry) (the library's per-attempt context
//	timeout, default expiry * 0.05); fail_fast -> WithFailFast; set_nx_on_extend ->
//	WithSetNXOnExtend. status_bug (the `status != 0` comparison before PRs #38/#61, fixed in
//	v4.0.4) is not in v4.17.0: a client with it is run by redsync-driver-v4.0.3, this same
//	program built against redsync v4.0.3 (lib_statusbug.go, v4.0.3.mod), which exposes no
//	validity: its deadline is the profile's formula, marked "deadline_source": "profile".
//
// go-redis is configured with ContextTimeoutEnabled, so the context deadline redsync sets per
// attempt bounds the socket reads (the profile models it as a per-request timeout; without it
// go-redis waits its 3 s ReadTimeout), DisableIdentity and maintenance notifications off (no
// CLIENT SETINFO / CLIENT MAINT_NOTIFICATIONS on the wire; go-redis still sends HELLO on each new
// connection). Everything else is go-redis's default.
//
// With a seed in --config, the retry delays are drawn from the simulated process's random stream
// (Rng::derive(seed, "process/<name>/random"), sim/kernel/random.cpp) through WithRetryDelayFunc,
// min + (word % (jitter + 1)) ms as the profile draws them, so the real library waits what its
// simulated twin waits; two words are skipped at each acquisition for the lock value the profile
// draws (the library's value comes from crypto/rand).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	redsyncredis "github.com/go-redsync/redsync/v4/redis"
)

const profileName = "redsync-v4"

// ---- clocks and events ----------------------------------------------------------------------

func monoNs() int64 {
	var ts syscall.Timespec
	_, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1 /* CLOCK_MONOTONIC */, uintptr(unsafe.Pointer(&ts)), 0)
	if errno != 0 {
		panic(errno)
	}
	return ts.Sec*1_000_000_000 + ts.Nsec
}

var emitMu sync.Mutex

type event map[string]any

func emit(e event) {
	emitMu.Lock()
	defer emitMu.Unlock()
	e["mono_ns"] = monoNs()
	e["wall_ns"] = time.Now().UnixNano()
	e["random_words"] = randomWords
	text, _ := json.Marshal(e)
	os.Stdout.Write(append(text, '\n'))
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%.3f %s\n", float64(monoNs())/1e6, fmt.Sprintf(format, args...))
}

func fatal(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "redsync-v4 driver: "+format+"\n", args...)
	os.Exit(2)
}

// ---- configuration --------------------------------------------------------------------------

type endpoint struct {
	Name string `json:"name"`
	Host string `json:"host"`
	Port int    `json:"port"`
}

type resourceSpec struct {
	Name    string `json:"name"`
	Fencing string `json:"fencing"`
	Host    string `json:"host"`
	Port    int    `json:"port"`
}

type clientConfig struct {
	Client     string                     `json:"client"`
	Profile    string                     `json:"profile"`
	Lock       string                     `json:"lock"`
	Seed       *uint64                    `json:"seed"`
	RandomSkip uint64                     `json:"random_skip"`
	Params     map[string]json.RawMessage `json:"params"`
	Nodes      []endpoint                 `json:"nodes"`
	Resource   *resourceSpec              `json:"resource"`
}

func (c *clientConfig) param(key string) (string, bool) {
	raw, ok := c.Params[key]
	if !ok {
		return "", false
	}
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return text, true
	}
	return string(raw), true
}

func (c *clientConfig) intParam(key string, fallback int64) int64 {
	text, ok := c.param(key)
	if !ok {
		return fallback
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		fatal("%s: expected an integer, got '%s'", key, text)
	}
	return v
}

func (c *clientConfig) flag(key string) bool {
	text, ok := c.param(key)
	return ok && (text == "true" || text == "1" || text == "yes")
}

// ---- randomness (the simulated process's stream) --------------------------------------------

var randomWords uint64

type rng struct{ s [4]uint64 }

func splitmix(state *uint64) uint64 {
	*state += 0x9e3779b97f4a7c15
	z := *state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func deriveRng(seed uint64, component string) *rng {
	hash := uint64(0xcbf29ce484222325)
	for i := 0; i < len(component); i++ {
		hash ^= uint64(component[i])
		hash *= 0x100000001b3
	}
	mixer := seed ^ hash
	state := splitmix(&mixer)
	r := &rng{}
	for i := range r.s {
		r.s[i] = splitmix(&state)
	}
	return r
}

func rotl(x uint64, k uint) uint64 { return (x << k) | (x >> (64 - k)) }

func (r *rng) next() uint64 {
	result := rotl(r.s[1]*5, 7) * 9
	t := r.s[1] << 17
	r.s[2] ^= r.s[0]
	r.s[3] ^= r.s[1]
	r.s[1] ^= r.s[2]
	r.s[0] ^= r.s[3]
	r.s[2] ^= t
	r.s[3] = rotl(r.s[3], 45)
	atomic.AddUint64(&randomWords, 1)
	return result
}

// Port::random_u64: the word's bytes, stored little-endian, read back big-endian.
func byteSwapped(w uint64) uint64 {
	var out uint64
	for i := 0; i < 8; i++ {
		out = out<<8 | (w & 0xff)
		w >>= 8
	}
	return out
}

// ---- transport: counting what the nodes answered -------------------------------------------

// A redsync Pool around the go-redis adapter that counts, for the story, the nodes whose script
// answered 1 (released, extended) and the acquisition attempts (SET NX on the first node).
type countingPool struct {
	inner        redsyncredis.Pool
	first        bool
	yes          *atomic.Int64
	attempts     *atomic.Int64
	attemptStart *atomic.Int64
}

func (p countingPool) Get(ctx context.Context) (redsyncredis.Conn, error) {
	c, err := p.inner.Get(ctx)
	if err != nil {
		return nil, err
	}
	return countingConn{Conn: c, pool: p}, nil
}

type countingConn struct {
	redsyncredis.Conn
	pool countingPool
}

func (c countingConn) SetNX(name string, value string, expiry time.Duration) (bool, error) {
	if c.pool.first {
		c.pool.attempts.Add(1)
		c.pool.attemptStart.Store(monoNs())
	}
	return c.Conn.SetNX(name, value, expiry)
}

func (c countingConn) Eval(script *redsyncredis.Script, keysAndArgs ...any) (any, error) {
	v, err := c.Conn.Eval(script, keysAndArgs...)
	if n, ok := v.(int64); ok && err == nil && n == 1 {
		c.pool.yes.Add(1)
	}
	return v, err
}

// ---- the resource (the harness's own commands) ----------------------------------------------

type respClient struct {
	address string
	conn    net.Conn
	reader  *bufio.Reader
}

type reply struct {
	kind  byte // '+', '-', ':', '$', '*'
	text  string
	value int64
}

func (r *respClient) close() {
	if r.conn != nil {
		r.conn.Close()
	}
	r.conn = nil
	r.reader = nil
}

// send returns the reply, or nil on a timeout or a broken connection (then closed: the next
// request opens a new one, as the built-in client does).
func (r *respClient) send(words []string, timeout time.Duration) *reply {
	if r.conn == nil {
		conn, err := net.DialTimeout("tcp", r.address, timeout)
		if err != nil {
			return nil
		}
		r.conn = conn
		r.reader = bufio.NewReader(conn)
	}
	r.conn.SetDeadline(time.Now().Add(timeout))
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(words))
	for _, w := range words {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(w), w)
	}
	if _, err := r.conn.Write([]byte(b.String())); err != nil {
		r.close()
		return nil
	}
	rep, err := readReply(r.reader)
	if err != nil {
		r.close()
		return nil
	}
	return rep
}

func readReply(reader *bufio.Reader) (*reply, error) {
	line, err := reader.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return nil, errors.New("empty reply")
	}
	rep := &reply{kind: line[0], text: line[1:]}
	switch rep.kind {
	case ':':
		rep.value, _ = strconv.ParseInt(rep.text, 10, 64)
	case '$':
		n, _ := strconv.Atoi(rep.text)
		if n < 0 {
			rep.text = ""
			return rep, nil
		}
		buf := make([]byte, n+2)
		if _, err := ioReadFull(reader, buf); err != nil {
			return nil, err
		}
		rep.text = string(buf[:n])
	case '*':
		n, _ := strconv.Atoi(rep.text)
		for i := 0; i < n; i++ {
			if _, err := readReply(reader); err != nil {
				return nil, err
			}
		}
	}
	return rep, nil
}

func ioReadFull(reader *bufio.Reader, buf []byte) (int, error) {
	total := 0
	for total < len(buf) {
		n, err := reader.Read(buf[total:])
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// ---- the client -----------------------------------------------------------------------------

// The library as the driver uses it: lib_current.go (v4.17.0) or, built with the tag statusbug,
// lib_statusbug.go (v4.0.3, for the status_bug param).
type lockMutex interface {
	Lock() error
	Unlock() (bool, error)
	Extend() (bool, error)
	Value() string
}

type lockLib interface {
	newMutex(name string) lockMutex
	// The deadline of a grant just made, of an extension that started at `start` (CLOCK_MONOTONIC
	// ns) and was just reported successful, and whether it has passed.
	grantDeadline(m lockMutex) event
	extendDeadline(m lockMutex, start int64) event
	expired(m lockMutex) bool
	// "profile" when the library exposes no validity and the deadline is the profile's formula.
	deadlineSource() string
}

type grant struct {
	mutex    lockMutex
	number   uint64
	grantID  uint64
	token    *int64
	released bool
}

type driver struct {
	config       *clientConfig
	lib          lockLib
	stream       *rng
	yes          atomic.Int64
	attempts     atomic.Int64
	attemptStart atomic.Int64 // CLOCK_MONOTONIC ns when the latest attempt sent its first SET NX
	leases       uint64
	current      *grant
	outer        []*grant
	lastRead     int64
	resource     *respClient
	notes        []string // for the story, once ready
}

func (d *driver) acquire(started int64) {
	if d.stream != nil {
		d.stream.next() // the profile's lock value: 16 bytes, two words
		d.stream.next()
	}
	mutex := d.lib.newMutex(d.lockName())
	d.attempts.Store(0)
	err := mutex.Lock()
	attempts := d.attempts.Load()
	if err != nil {
		emit(event{"event": "acquire_failed", "start_mono_ns": started, "attempts": attempts,
			"failure": err.Error()})
		return
	}
	if d.current != nil {
		d.outer = append(d.outer, d.current)
	}
	d.leases++
	d.current = &grant{mutex: mutex, number: d.leases}
	e := event{"event": "granted", "start_mono_ns": started, "attempts": attempts,
		"lease": d.leases, "value": mutex.Value(), "deadline": d.lib.grantDeadline(mutex)}
	if source := d.lib.deadlineSource(); source != "" {
		e["deadline_source"] = source
	}
	emit(e)
}

func (d *driver) lockName() string {
	if d.config.Lock == "" {
		return "lock"
	}
	return d.config.Lock
}

func (d *driver) release(started int64) {
	if d.current == nil {
		emit(event{"event": "release_failed", "start_mono_ns": started, "failure": "not held"})
		return
	}
	held := d.current
	d.current = nil
	if n := len(d.outer); n > 0 {
		d.current = d.outer[n-1]
		d.outer = d.outer[:n-1]
	}
	d.yes.Store(0)
	ok, err := held.mutex.Unlock()
	nodes := d.yes.Load()
	if ok {
		emit(event{"event": "released", "start_mono_ns": started, "nodes": nodes, "failure": ""})
		return
	}
	failure := "quorum"
	if err != nil {
		failure = err.Error()
	}
	emit(event{"event": "release_failed", "start_mono_ns": started, "nodes": nodes, "failure": failure})
}

func (d *driver) extend(started int64) {
	if d.current == nil {
		emit(event{"event": "extend_failed", "start_mono_ns": started, "failure": "not held"})
		return
	}
	d.yes.Store(0)
	start := monoNs()
	ok, err := d.current.mutex.Extend()
	nodes := d.yes.Load()
	if ok {
		e := event{"event": "extended", "start_mono_ns": started, "nodes": nodes, "failure": "",
			"deadline": d.lib.extendDeadline(d.current.mutex, start)}
		if source := d.lib.deadlineSource(); source != "" {
			e["deadline_source"] = source
		}
		emit(e)
		return
	}
	failure := "quorum"
	if err != nil {
		failure = err.Error()
	}
	emit(event{"event": "extend_failed", "start_mono_ns": started, "nodes": nodes, "failure": failure})
}

func (d *driver) check(started int64) {
	expired := d.current == nil || d.lib.expired(d.current.mutex)
	emit(event{"event": "checked", "start_mono_ns": started, "expired": expired})
}

func (d *driver) resourceWords(words []string, withToken bool) []string {
	if withToken && d.current != nil && d.current.token != nil {
		words = append(words, strconv.FormatInt(*d.current.token, 10))
	}
	var id uint64
	if d.current != nil {
		id = d.current.grantID
	}
	return append(words, "GRANT", strconv.FormatUint(id, 10))
}

func (d *driver) owner() string {
	if d.current == nil {
		return "-"
	}
	return d.current.mutex.Value()
}

func (d *driver) read(started int64, timeout time.Duration) {
	spec := d.config.Resource
	if spec == nil {
		emit(event{"event": "read", "start_mono_ns": started, "ok": false, "text": "no resource"})
		return
	}
	if spec.Fencing == "compare-and-set" {
		set := d.resource.send(d.resourceWords([]string{"SETOWNER", d.resourceName(), d.owner()}, false), timeout)
		if set == nil || set.kind == '-' {
			emit(event{"event": "read", "start_mono_ns": started, "ok": false, "text": "setowner failed"})
			return
		}
	}
	rep := d.resource.send(d.resourceWords([]string{"READ", d.resourceName()}, spec.Fencing == "fence-all"), timeout)
	if rep == nil || rep.kind != ':' {
		text := "read timed out"
		if rep != nil {
			text = "read refused: " + rep.text
		}
		emit(event{"event": "read", "start_mono_ns": started, "ok": false, "text": text})
		return
	}
	d.lastRead = rep.value
	emit(event{"event": "read", "start_mono_ns": started, "ok": true, "value": rep.value})
}

func (d *driver) resourceName() string {
	if d.config.Resource.Name == "" {
		return "register"
	}
	return d.config.Resource.Name
}

func (d *driver) write(started int64, timeout time.Duration, value *int64) {
	v := d.lastRead + 1
	if value != nil {
		v = *value
	}
	var grantID uint64
	if d.current != nil {
		grantID = d.current.grantID
	}
	spec := d.config.Resource
	if spec == nil {
		emit(event{"event": "write", "start_mono_ns": started, "acknowledged": false, "value": v,
			"text": "no resource"})
		return
	}
	var words []string
	if spec.Fencing == "compare-and-set" {
		words = d.resourceWords([]string{"WRITEIFOWNER", d.resourceName(), d.owner(), strconv.FormatInt(v, 10)}, false)
	} else {
		words = d.resourceWords([]string{"WRITE", d.resourceName(), strconv.FormatInt(v, 10)}, spec.Fencing != "none" && spec.Fencing != "")
	}
	rep := d.resource.send(words, timeout)
	text := "timeout"
	acknowledged := false
	if rep != nil {
		text = rep.text
		acknowledged = rep.kind == '+' && rep.text == "OK"
	}
	emit(event{"event": "write", "start_mono_ns": started, "acknowledged": acknowledged,
		"grant": grantID, "value": v, "text": text})
}

func (d *driver) serve(line string) bool {
	words := strings.Fields(line)
	if len(words) == 0 {
		return true
	}
	started := monoNs()
	arg := func(i int, fallback int64) int64 {
		if i < len(words) {
			if v, err := strconv.ParseInt(words[i], 10, 64); err == nil {
				return v
			}
		}
		return fallback
	}
	switch words[0] {
	case "quit":
		return false
	case "acquire":
		d.acquire(started)
	case "release":
		d.release(started)
	case "extend":
		d.extend(started)
	case "read":
		d.read(started, time.Duration(arg(1, 1000))*time.Millisecond)
	case "write":
		var value *int64
		if len(words) > 2 {
			v := arg(2, 0)
			value = &v
		}
		d.write(started, time.Duration(arg(1, 1000))*time.Millisecond, value)
	case "sleep":
		time.Sleep(time.Duration(arg(1, 0)) * time.Millisecond)
		emit(event{"event": "slept", "start_mono_ns": started})
	case "check":
		d.check(started)
	case "grant":
		if d.current != nil {
			d.current.grantID = uint64(arg(1, 0))
			if len(words) > 2 {
				t := arg(2, 0)
				d.current.token = &t
			} else {
				d.current.token = nil
			}
		}
	default:
		emit(event{"event": "error", "text": "unknown command '" + words[0] + "'"})
	}
	return true
}

// The retry delay the scenario asks for, or nil for the library's default: with a seed, the
// profile's own draw from the simulated process's stream; with delay params, uniform in
// [min, min + jitter].
func (d *driver) delayFunc() func(int) time.Duration {
	config := d.config
	_, minSet := config.param("retry_delay_ms_min")
	_, jitterSet := config.param("retry_jitter_ms")
	delayMin := config.intParam("retry_delay_ms_min", 50)
	delayJitter := config.intParam("retry_jitter_ms", 199)
	if d.stream != nil {
		stream := d.stream
		return func(int) time.Duration {
			k := int64(0)
			if delayJitter > 0 {
				k = int64(byteSwapped(stream.next()) % uint64(delayJitter+1))
			}
			return time.Duration(max(delayMin+k, 0)) * time.Millisecond
		}
	}
	if minSet || jitterSet {
		return func(int) time.Duration {
			return time.Duration(delayMin+rand.Int63n(delayJitter+1)) * time.Millisecond
		}
	}
	return nil
}

func (d *driver) countingPools(inner func(address string) redsyncredis.Pool) []redsyncredis.Pool {
	var pools []redsyncredis.Pool
	for i, node := range d.config.Nodes {
		host := node.Host
		if host == "" {
			host = "127.0.0.1"
		}
		pools = append(pools, countingPool{inner: inner(net.JoinHostPort(host, strconv.Itoa(node.Port))),
			first: i == 0, yes: &d.yes, attempts: &d.attempts, attemptStart: &d.attemptStart})
	}
	return pools
}

// ---- set-up ---------------------------------------------------------------------------------

var knownParams = map[string]bool{
	"nodes": true, "ttl_ms": true, "retry_count": true, "retry_delay_ms_min": true,
	"retry_jitter_ms": true, "drift_ppm": true, "drift_constant_ms": true,
	"request_timeout_ms": true, "clock": true, "fan_out": true, "wait": true,
	"extend_quorum": true, "fail_fast": true, "set_nx_on_extend": true, "status_bug": true,
}

func setup(config *clientConfig) *driver {
	for key := range config.Params {
		if !knownParams[key] {
			fatal("param %s: redsync v4 has no such option", key)
		}
	}
	if v := config.intParam("drift_constant_ms", 0); v != 0 {
		fatal("drift_constant_ms: redsync adds no constant drift")
	}
	if text, ok := config.param("clock"); ok && text != "monotonic" {
		fatal("clock: redsync reads Go's monotonic clock")
	}
	if text, ok := config.param("fan_out"); ok && text != "parallel" {
		fatal("fan_out: redsync is parallel")
	}
	if _, ok := config.param("wait"); ok {
		fatal("wait: use fail_fast (WithFailFast)")
	}
	if _, ok := config.param("extend_quorum"); ok {
		fatal("extend_quorum: redsync's extend needs its quorum")
	}
	if v := config.intParam("nodes", int64(len(config.Nodes))); v != int64(len(config.Nodes)) {
		fatal("nodes: differs from the endpoints given")
	}

	d := &driver{config: config}
	if config.Seed != nil {
		d.stream = deriveRng(*config.Seed, "process/"+config.Client+"/random")
		for i := uint64(0); i < config.RandomSkip; i++ {
			d.stream.next()
		}
		randomWords = config.RandomSkip
	}
	d.lib = newLib(config, d)
	if config.Resource != nil {
		host := config.Resource.Host
		if host == "" {
			host = "127.0.0.1"
		}
		d.resource = &respClient{address: net.JoinHostPort(host, strconv.Itoa(config.Resource.Port))}
	}
	return d
}

func main() {
	var text string
	for i, a := range os.Args {
		if a == "--config" && i+1 < len(os.Args) {
			text = os.Args[i+1]
		}
	}
	if text == "" {
		fatal("usage: redsync-driver --config JSON")
	}
	var config clientConfig
	if err := json.Unmarshal([]byte(text), &config); err != nil {
		fatal("--config is not JSON: %v", err)
	}
	d := setup(&config)
	profile := config.Profile
	if profile == "" {
		profile = profileName
	}
	emit(event{"event": "ready", "profile": profile})
	for _, text := range d.notes {
		emit(event{"event": "note", "text": text})
	}
	scanner := bufio.NewScanner(os.Stdin)
	for scanner.Scan() {
		if !d.serve(scanner.Text()) {
			break
		}
	}
	os.Exit(0)
}
