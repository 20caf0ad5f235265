package main

import (
	"os"
	"strconv"
	"strings"
)

// clockTick is the unit of utime and stime in /proc/<pid>/stat (USER_HZ,
// 100 on Linux).
const clockTick = 0.01

// procStat returns a process's parent pid, command name and CPU seconds
// (user + system) from /proc; ok is false off Linux or when it is gone.
func procStat(pid int) (ppid int, comm string, cpu float64, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", 0, false
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return 0, "", 0, false
	}
	comm = s[open+1 : end]
	f := strings.Fields(s[end+1:]) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, "", 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return ppid, comm, (ut + st) * clockTick, true
}

// procCPU is a process's CPU seconds so far (-1 when unknown).
func procCPU(pid int) float64 {
	if _, _, cpu, ok := procStat(pid); ok {
		return cpu
	}
	return -1
}

// ownPostgresCPU is the CPU seconds so far of the PostgreSQL servers this
// process started (pgtest runs them as its children) and of their
// backends, -1 when /proc cannot tell.
func ownPostgresCPU() float64 {
	procs := ownPostgres()
	if len(procs) == 0 {
		return -1
	}
	sum := 0.0
	for _, cpu := range procs {
		sum += cpu
	}
	return sum
}

// ownPostgresPids are the PostgreSQL servers this process started and
// their children (backends, writers); a backend started later inherits
// its server's cores.
func ownPostgresPids() []int {
	var out []int
	for pid := range ownPostgres() {
		out = append(out, pid)
	}
	return out
}

// ownPostgres maps each PostgreSQL server this process started, and each
// of their children, to its CPU seconds so far; empty when /proc cannot
// tell.
func ownPostgres() map[int]float64 {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	type p struct {
		ppid int
		cpu  float64
	}
	all := map[int]p{}
	masters := map[int]bool{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, comm, cpu, ok := procStat(pid); ok {
			all[pid] = p{ppid, cpu}
			if ppid == self && comm == "postgres" {
				masters[pid] = true
			}
		}
	}
	out := map[int]float64{}
	for pid, x := range all {
		if masters[pid] || masters[x.ppid] {
			out[pid] = x.cpu
		}
	}
	return out
}

// procRSS is a process's resident memory in MiB (VmRSS of
// /proc/<pid>/status), -1 when unknown.
func procRSS(pid int) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(v) // "123456 kB"
			if len(f) != 2 {
				return -1
			}
			if kb, err := strconv.ParseFloat(f[0], 64); err == nil {
				return kb / 1024
			}
		}
	}
	return -1
}
