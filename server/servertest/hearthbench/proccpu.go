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
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return -1
	}
	self := os.Getpid()
	type p struct {
		ppid int
		comm string
		cpu  float64
	}
	all := map[int]p{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, comm, cpu, ok := procStat(pid); ok {
			all[pid] = p{ppid, comm, cpu}
		}
	}
	masters := map[int]bool{}
	for pid, x := range all {
		if x.ppid == self && x.comm == "postgres" {
			masters[pid] = true
		}
	}
	if len(masters) == 0 {
		return -1
	}
	sum := 0.0
	for pid, x := range all {
		if masters[pid] || masters[x.ppid] {
			sum += x.cpu
		}
	}
	return sum
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
