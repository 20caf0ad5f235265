package main

import (
	"log/slog"
	"net"
)

// logListening says at start who can reach the server and where the
// studio is. The binary's default address (:8080) takes every interface,
// as a server in a container or behind a proxy needs; make run binds
// 127.0.0.1 instead (docs/security.md#safe-first-start).
func logListening(log *slog.Logger, addr, publicURL string) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return
	}
	switch ip := net.ParseIP(host); {
	case host == "" || (ip != nil && ip.IsUnspecified()):
		log.Warn("listening on all network interfaces: other machines can reach this server; set HEARTH_ADDR=127.0.0.1:8080 to keep it on this machine", "addr", addr)
	case host == "localhost" || (ip != nil && ip.IsLoopback()):
		log.Info("listening on this machine only; set HEARTH_ADDR=:8080 to accept other machines", "addr", addr)
	}
	log.Info("studio: open it in a browser and sign in with an API key", "url", publicURL+"/studio/")
}
