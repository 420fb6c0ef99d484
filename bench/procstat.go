package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat (100 on Linux).
const clockTicks = 100

// cpuTime is a process's CPU time so far, in seconds.
type cpuTime struct{ user, sys float64 }

func (c cpuTime) total() float64 { return c.user + c.sys }

func (c cpuTime) sub(d cpuTime) cpuTime { return cpuTime{c.user - d.user, c.sys - d.sys} }

// procCPU reads the user and system CPU time of pid (all its threads).
func procCPU(pid int) cpuTime {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return cpuTime{}
	}
	return parseStat(string(b))
}

// parseStat reads utime and stime (fields 14 and 15) from the text of /proc/PID/stat.
func parseStat(s string) cpuTime {
	// The command name (field 2) is in parentheses and may contain spaces.
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 <= len(s) {
		s = s[i+2:]
	}
	f := strings.Fields(s) // f[0] is field 3
	if len(f) < 13 {
		return cpuTime{}
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	k, _ := strconv.ParseFloat(f[12], 64)
	return cpuTime{u / clockTicks, k / clockTicks}
}

// procFDs counts pid's open descriptors.
func procFDs(pid int) int {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return -1
	}
	return len(ents)
}

// procMem reads pid's resident set and its peak, in MB.
func procMem(pid int) (rss, hwm float64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb / 1024
		case "VmHWM:":
			hwm = kb / 1024
		}
	}
	return rss, hwm
}

// procThreads counts pid's threads.
func procThreads(pid int) int {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return -1
	}
	return len(ents)
}

// procSockets counts pid's TCP sockets whose remote port is port (e.g. connections to an
// upstream), from /proc/PID/fd and /proc/net/tcp{,6}.
func procSockets(pid, port int) int {
	inodes := map[string]bool{}
	ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, e := range ents {
		l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, e.Name()))
		if err == nil && strings.HasPrefix(l, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	n := 0
	for _, f := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, f))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			fs := strings.Fields(line)
			if len(fs) < 10 || !inodes[fs[9]] {
				continue
			}
			if i := strings.LastIndexByte(fs[2], ':'); i >= 0 {
				if p, err := strconv.ParseInt(fs[2][i+1:], 16, 32); err == nil && int(p) == port {
					n++
				}
			}
		}
	}
	return n
}
