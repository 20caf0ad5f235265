package app

import (
	"github.com/hearth-dev/hearth/providers/netguard"
	"github.com/hearth-dev/hearth/server"
)

// buildEgress builds the one egress dialer and hands it to everything
// that connects out: the provider registry (LLMs, embeddings, image hosts,
// web search and crawl services) and the outbound policy of user-supplied
// URLs (MCP servers, the built-in crawler, image fetches). Its record is
// in this process's memory: in cluster mode each node reports the
// connections it made itself.
func (a *App) buildEgress(cfg *Config) error {
	eg, err := netguard.NewEgress(cfg.OutboundMode, cfg.OutboundHosts, cfg.Logger)
	if err != nil {
		return err
	}
	a.Egress = eg
	cfg.Providers.Egress = eg
	cfg.Outbound.Egress = eg
	cfg.Logger.Info("outbound policy", "mode", eg.Mode(), "hosts", eg.Allow(), "allow_private", cfg.Outbound.AllowPrivate)
	a.Deps.Egress = func() server.EgressReport {
		r := server.EgressReport{Mode: eg.Mode(), Allow: eg.Allow(), Destinations: []server.EgressEntry{}}
		for _, e := range eg.Record() {
			r.Destinations = append(r.Destinations, server.EgressEntry(e))
		}
		return r
	}
	a.note("egress: " + eg.Mode())
	return nil
}
