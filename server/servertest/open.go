package servertest

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"

	"github.com/hearth-dev/hearth/server/app"
)

// Open starts a server the way Start does, for code that has no
// testing.TB: an Example, a TestMain shared by a package's tests, a
// harness of your own. It listens on a free loopback port, on a fresh
// temporary data dir that Close removes; the admin user's key is
// AdminKey. Send requests to URL with any HTTP client (Do and the other
// helpers that fail a test need a Server from Start).
func Open(opts ...Option) (*Server, error) {
	dir, err := os.MkdirTemp("", "hearth-servertest-*")
	if err != nil {
		return nil, err
	}
	hts := httptest.NewUnstartedServer(nil)
	url := "http://" + hts.Listener.Addr().String()
	cfg := Config(dir, url)
	for _, o := range opts {
		o(&cfg)
	}
	a, err := app.New(cfg)
	if err != nil {
		hts.Close()
		return nil, errors.Join(err, os.RemoveAll(dir))
	}
	hts.Config.Handler = a.Server.Handler()
	hts.Listener = a.Server.Listen(hts.Listener, hts.Config)
	hts.Start()
	return &Server{Server: a.Server, App: a, URL: url, dir: dir, Store: a.Store, Accounts: a.Deps.Accounts, Keysets: a.Deps.Keysets,
		Metrics: a.Metrics, Memory: a.Memory, Index: a.Index, RunLog: a.RunLog, HTTP: hts}, nil
}

// Close stops a server from Open and removes its data dir.
func (s *Server) Close() error {
	if s.HTTP == nil {
		return nil
	}
	s.HTTP.Close()
	s.HTTP = nil
	return errors.Join(s.App.Close(context.Background()), os.RemoveAll(s.dir))
}
