package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Cluster is one running PostgreSQL server in a temporary directory.
type Cluster struct {
	// Port is the TCP port on 127.0.0.1 the server listens on.
	Port int
	dir  string
	cmd  *exec.Cmd
	done chan struct{}
	werr error
}

// Start initialises a cluster with the binaries in bin and starts it. The
// server runs as a child of the test binary with a parent-death signal, so
// it stops even when the test binary is killed; Stop ends it normally.
// As root (initdb refuses root) it runs as the postgres user through setpriv.
func Start(bin string) (*Cluster, error) {
	sweepStale()
	dir, err := os.MkdirTemp("", "hearth-pgtest-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, done: make(chan struct{})}
	var uid, gid int = -1, -1
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root needs the postgres user (Debian's postgresql package creates it): %w", err)
		}
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	logPath := filepath.Join(dir, "log")
	initdb := c.command(uid, filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	for attempt := 0; ; attempt++ {
		err := c.start(bin, data, logPath, uid)
		if err == nil {
			return c, nil
		}
		if attempt == 2 {
			os.RemoveAll(dir)
			return nil, err
		}
	}
}

// command builds cmd to run as uid (when >= 0) with a parent-death signal.
func (c *Cluster) command(uid int, name string, args ...string) *exec.Cmd {
	var cmd *exec.Cmd
	if uid >= 0 {
		// setpriv sets the parent-death signal after it changes user, which
		// would otherwise clear it.
		pre := []string{"--reuid=postgres", "--regid=postgres", "--init-groups", "--pdeathsig=SIGINT", "--", name}
		cmd = exec.Command("setpriv", append(pre, args...)...)
	} else {
		cmd = exec.Command(name, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGINT}
	}
	cmd.Dir = c.dir
	return cmd
}

func (c *Cluster) start(bin, data, logPath string, uid int) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logf.Close()
	args := []string{"-D", data, "-p", strconv.Itoa(port), "-k", c.dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "max_connections=300", "-c", "shared_buffers=32MB"}
	// Benchmarks count the statements a request costs with
	// pg_stat_statements when the server has it (postgresql-contrib).
	if _, err := os.Stat(filepath.Join(bin, "..", "lib", "pg_stat_statements.so")); err == nil {
		args = append(args, "-c", "shared_preload_libraries=pg_stat_statements")
	}
	cmd := c.command(uid, filepath.Join(bin, "postgres"), args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	c.cmd, c.Port, c.done = cmd, port, make(chan struct{})
	go func() { c.werr = cmd.Wait(); close(c.done) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgx.Connect(ctx, c.url("postgres"))
		cancel()
		if err == nil {
			conn.Close(context.Background())
			return nil
		}
		select {
		case <-c.done:
			return fmt.Errorf("postgres exited (%v): %s", c.werr, tail(logPath))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			c.kill()
			return fmt.Errorf("postgres did not accept connections within 30s: %s", tail(logPath))
		}
	}
}

// Stop shuts the server down (fast mode) and removes its directory.
func (c *Cluster) Stop() error {
	defer os.RemoveAll(c.dir)
	if c.cmd == nil {
		return nil
	}
	_ = c.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-c.done:
		return nil
	case <-time.After(20 * time.Second):
		c.kill()
		return errors.New("postgres did not stop within 20s; killed")
	}
}

func (c *Cluster) kill() {
	_ = c.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// sweepStale removes the directories of clusters whose test binary was
// killed (the parent-death signal stopped their server, nothing removed the
// files): those older than a minute whose postmaster.pid names no live process.
func sweepStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "hearth-pgtest-*"))
	for _, d := range dirs {
		fi, err := os.Stat(d)
		if err != nil || time.Since(fi.ModTime()) < time.Minute {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(d, "data", "postmaster.pid")); err == nil {
			pid, _ := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
			if pid > 0 && syscall.Kill(pid, 0) == nil {
				continue
			}
		}
		os.RemoveAll(d)
	}
}
