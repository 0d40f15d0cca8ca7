// Command bench measures what the gate costs beside the hand-made pipeline a reviewer runs today
// and beside a bare PostgreSQL cluster boot, in one run and alternating (make bench):
//
//	go run ./internal/cmd/bench [-runs 5] [-bin bin/ledgercheck] [-pg 15] [-- CHECK ARGS...]
//
// Each round runs, in a rotating order: a bare cluster boot (initdb, start, stop; the same
// settings ledgercheck gives initdb, in the same kind of temporary directory, without a
// sandbox), `ledgercheck check --no-cache`, `ledgercheck check` with the cache warm (one
// unmeasured run warms it first), the hand-made pipeline (bench/handmade.sh: initdb in tmpfs, the
// Supabase-like environment and the Open Brain-style base installed twice, the artifact in one
// database and the port in the other, pg_dump --schema-only of both, diff), and a warm
// `check --times 1` (the gate without its reruns). It prints the median and the range of the wall
// and CPU time of each, their ratios to the hand-made pipeline (issue 38's targets: warm at most
// 0.5×, --no-cache at most 1.0×) and to the bare boot, the median of each of the pipeline's stages
// (its pg_dump+diff among them) and of each phase of check.
//
// CPU time is the user and system time of the process and every child it waited for
// (getrusage(RUSAGE_CHILDREN) of the tree, through wait4), plus, for ledgercheck, the CPU time
// of its sandboxed server, which it counts itself and logs when it stops it ("the embedded
// server's processes used ..."): bubblewrap's init does not pass its children's times on. The
// hand-made pipeline waits for every process it starts, its server included, so wait4 counts
// them all.
//
// Run it from the repository root; it builds nothing (make bench builds bin/ledgercheck first).
// Nothing is left behind: each bare cluster's directory is removed, and ledgercheck and
// bench/handmade.sh remove their own.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(3)
	}
}

// sample is one measured run.
type sample struct {
	wall, cpu time.Duration
	phases    map[string]time.Duration // check's phases, from its JSON report, or the pipeline's stages
	ready     time.Duration            // check: "server ready in"
}

func run() error {
	runs := flag.Int("runs", 5, "measured runs of each kind (at least 5 for the issue's medians)")
	bin := flag.String("bin", "bin/ledgercheck", "the ledgercheck binary")
	pg := flag.Int("pg", 0, "PostgreSQL major version (default: $LEDGERCHECK_PG, else 15)")
	flag.Parse()
	extra := flag.Args()
	binDir, err := scratch.FindBinDir("", *pg)
	if err != nil {
		return err
	}
	version, _ := exec.Command(filepath.Join(binDir, "postgres"), "--version").Output()
	fmt.Printf("ledgercheck bench: %d runs of each, alternating; %d cores, load %s; %s; temp dir %s\n",
		*runs, runtime.NumCPU(), loadavg(), strings.TrimSpace(string(version)), scratch.WorkDir())

	args := []string{"check", "--format", "json"}
	if *pg != 0 {
		args = append(args, "--pg", strconv.Itoa(*pg))
	}
	args = append(args, extra...)
	kinds := []struct {
		name string
		run  func() (sample, error)
	}{
		{"bare boot", func() (sample, error) { return bareBoot(binDir) }},
		{"check --no-cache", func() (sample, error) { return check(*bin, append(slices.Clone(args), "--no-cache")) }},
		{"check (warm cache)", func() (sample, error) { return check(*bin, args) }},
		{"hand-made pipeline", func() (sample, error) { return handmade(binDir) }},
		{"check --times 1", func() (sample, error) { return check(*bin, append(slices.Clone(args), "--times", "1")) }},
	}
	if _, err := check(*bin, args); err != nil { // warms the cache
		return err
	}
	got := make([][]sample, len(kinds))
	for i := range *runs {
		for j := range kinds {
			k := (i + j) % len(kinds) // rotate the order: no kind always runs first
			s, err := kinds[k].run()
			if err != nil {
				return fmt.Errorf("%s: %w", kinds[k].name, err)
			}
			got[k] = append(got[k], s)
		}
	}

	printRatios(kinds[0].name, got[0], kinds[3].name, got[3], func(k int) (string, []sample) { return kinds[k].name, got[k] }, len(kinds))
	fmt.Printf("load at the end: %s\n", loadavg())

	fmt.Printf("\n%-32s %12s\n", "hand-made pipeline (median)", "wall")
	for _, st := range phaseNames(got[3]) {
		fmt.Printf("%-32s %12s\n", st, ms(median(phase(got[3], st))))
	}

	// The per-phase table: each phase's median, without and with the cache.
	fmt.Printf("\n%-32s %12s %12s\n", "phase (median)", "--no-cache", "warm cache")
	fmt.Printf("%-32s %12s %12s\n", "server ready", ms(median(readies(got[1]))), ms(median(readies(got[2]))))
	for _, ph := range phaseNames(got[1]) {
		fmt.Printf("%-32s %12s %12s\n", ph, ms(median(phase(got[1], ph))), ms(median(phase(got[2], ph))))
	}
	fmt.Println("(phases overlap: the variants run side by side)")
	return nil
}

// printRatios prints each kind's median and range of wall and CPU time and its ratios to the
// hand-made pipeline (hand) and to the bare boot (bare), beside issue 38's targets.
func printRatios(bareName string, bare []sample, handName string, hand []sample, kind func(int) (string, []sample), n int) {
	bw, bc := median(walls(bare)), median(cpus(bare))
	hw, hc := median(walls(hand)), median(cpus(hand))
	fmt.Printf("\n%-20s %22s %22s %15s %15s\n", "", "wall median (range)", "CPU median (range)", "× hand-made w/c", "× bare w/c")
	targets := map[string]string{
		"check --no-cache": "target ≤1.0× the hand-made pipeline", "check (warm cache)": "target ≤0.5× the hand-made pipeline",
		bareName: "(initdb, start, stop)", handName: "(the reference: bench/handmade.sh)",
		"check --times 1": "(warm, no rerun: what the rest of the gate costs)",
	}
	for k := range n {
		name, got := kind(k)
		w, c := walls(got), cpus(got)
		fmt.Printf("%-20s %22s %22s %7.2f×/%5.2f× %7.2f×/%5.2f×  %s\n", name, spread(w), spread(c),
			ratio(median(w), hw), ratio(median(c), hc), ratio(median(w), bw), ratio(median(c), bc), targets[name])
	}
	fmt.Println("\nCPU: user+system time of the process tree (wait4's rusage: getrusage(RUSAGE_CHILDREN)),")
	fmt.Println("plus the sandboxed server's, which ledgercheck counts from /proc before it stops it.")
}

var handmadeStage = regexp.MustCompile(`(?m)^handmade: (\S+) ([0-9]+)ms$`)

// handmade runs bench/handmade.sh (the hand-made pipeline) with the server binaries of binDir and
// returns its wall and CPU time (the script waits for every process it starts) and the wall time
// of each of its stages.
func handmade(binDir string) (sample, error) {
	cmd := exec.Command("bash", "bench/handmade.sh")
	cmd.Env = append(os.Environ(), "PG_BIN="+binDir, "HANDMADE_TIMES=1")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return sample{}, fmt.Errorf("bench/handmade.sh: %w: %s", err, lastLines(errb.String(), 3))
	}
	s := sample{wall: time.Since(t0), cpu: cpuOf(cmd.ProcessState), phases: map[string]time.Duration{}}
	for _, m := range handmadeStage.FindAllStringSubmatch(errb.String(), -1) {
		n, _ := strconv.Atoi(m[2])
		s.phases[m[1]] = time.Duration(n) * time.Millisecond
	}
	return s, nil
}

// bareBoot runs initdb, starts the server and stops it (a fast shutdown), as the server's own
// user when run as root, in a new directory of the kind ledgercheck uses; it returns the wall
// time and the CPU time of initdb and the server (each a child waited for).
func bareBoot(binDir string) (sample, error) {
	dir, err := os.MkdirTemp(scratch.WorkDir(), "ledgercheck-bench-")
	if err != nil {
		return sample{}, err
	}
	defer os.RemoveAll(dir)
	var cred *syscall.Credential
	if os.Geteuid() == 0 { // initdb refuses to run as root
		u, err := user.Lookup("nobody")
		if err != nil {
			return sample{}, err
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}
		if err := os.Chown(dir, uid, gid); err != nil {
			return sample{}, err
		}
	}
	cmd := func(name string, args ...string) *exec.Cmd {
		c := exec.Command(filepath.Join(binDir, name), args...)
		c.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
		c.Env = []string{"LC_ALL=C", "TZ=UTC", "PATH=/usr/bin:/bin"}
		return c
	}
	data := filepath.Join(dir, "data")
	t0 := time.Now()
	args := []string{"-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "--no-instructions", "-E", "UTF8", "--locale=C",
		"--wal-segsize=1"} // as ledgercheck's initdb
	initdb := cmd("initdb", args...)
	if out, err := initdb.CombinedOutput(); err != nil {
		return sample{}, fmt.Errorf("initdb: %w: %s", err, out)
	}
	pg := cmd("postgres", "-D", data, "-k", dir, "-c", "listen_addresses=", "-c", "fsync=off", "-c", "full_page_writes=off", "-c", "synchronous_commit=off",
		"-c", "dynamic_shared_memory_type=mmap") // as ledgercheck's: no segment left in /dev/shm if killed
	var log bytes.Buffer
	pg.Stdout, pg.Stderr = &log, &log
	if err := pg.Start(); err != nil {
		return sample{}, err
	}
	ready := false
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		// postmaster.pid's 8th line is the server's state: "ready" once it accepts connections.
		if b, err := os.ReadFile(filepath.Join(data, "postmaster.pid")); err == nil {
			if l := strings.Split(string(b), "\n"); len(l) > 7 && strings.TrimSpace(l[7]) == "ready" {
				ready = true
				break
			}
		}
	}
	pg.Process.Signal(syscall.SIGINT)
	werr := pg.Wait()
	wall := time.Since(t0)
	if !ready {
		return sample{}, fmt.Errorf("the bare server did not start: %v: %s", werr, log.String())
	}
	return sample{wall: wall, cpu: cpuOf(initdb.ProcessState) + cpuOf(pg.ProcessState)}, nil
}

var (
	serverCPU = regexp.MustCompile(`the embedded server's processes used ([0-9.]+(?:ms|s|µs)) of CPU`)
	readyIn   = regexp.MustCompile(`(?m)^check: server ready in ([0-9.]+(?:ms|s))$`)
)

// check runs ledgercheck with args and returns its wall and CPU time (its tree's, plus its
// server's) and its phases.
func check(bin string, args []string) (sample, error) {
	cmd := exec.Command(bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	t0 := time.Now()
	err := cmd.Run()
	s := sample{wall: time.Since(t0), phases: map[string]time.Duration{}}
	var ee *exec.ExitError
	if err != nil && (!errors.As(err, &ee) || ee.ExitCode() >= 2) {
		return s, fmt.Errorf("%s %s: %w: %s", bin, strings.Join(args, " "), err, lastLines(errb.String(), 3))
	}
	s.cpu = cpuOf(cmd.ProcessState)
	m := serverCPU.FindStringSubmatch(errb.String())
	if m == nil {
		return s, fmt.Errorf("%s logged no server CPU time: %s", bin, lastLines(errb.String(), 3))
	}
	d, _ := time.ParseDuration(m[1])
	s.cpu += d
	if m := readyIn.FindStringSubmatch(errb.String()); m != nil {
		s.ready, _ = time.ParseDuration(m[1])
	}
	var rep struct {
		Phases []struct {
			Name       string `json:"name"`
			DurationMS int64  `json:"duration_ms"`
		} `json:"phases"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		return s, fmt.Errorf("reading check's JSON report: %w", err)
	}
	for _, p := range rep.Phases {
		s.phases[p.Name] = time.Duration(p.DurationMS) * time.Millisecond
	}
	return s, nil
}

func cpuOf(ps *os.ProcessState) time.Duration {
	if ps == nil {
		return 0
	}
	return ps.UserTime() + ps.SystemTime()
}

func walls(s []sample) []time.Duration {
	return pick(s, func(x sample) time.Duration { return x.wall })
}
func cpus(s []sample) []time.Duration { return pick(s, func(x sample) time.Duration { return x.cpu }) }
func readies(s []sample) []time.Duration {
	return pick(s, func(x sample) time.Duration { return x.ready })
}
func phase(s []sample, name string) []time.Duration {
	return pick(s, func(x sample) time.Duration { return x.phases[name] })
}

func pick(s []sample, f func(sample) time.Duration) []time.Duration {
	out := make([]time.Duration, len(s))
	for i, x := range s {
		out[i] = f(x)
	}
	return out
}

// phaseNames returns the phases of the runs, in the order of the first.
func phaseNames(s []sample) []string {
	var names []string
	for n := range s[0].phases {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// spread renders "1.23s (1.10–1.40)": the median and the range.
func spread(d []time.Duration) string {
	return fmt.Sprintf("%s (%s–%s)", secs(median(d)), secs(slices.Min(d)), secs(slices.Max(d)))
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2fs", d.Seconds()) }
func ms(d time.Duration) string   { return fmt.Sprintf("%dms", d.Milliseconds()) }

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(l[max(0, len(l)-n):], " / ")
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
