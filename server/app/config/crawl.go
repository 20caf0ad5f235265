package config

// CrawlSettings are the settings of crawls into memories
// (docs/memories-and-retrieval.md#crawl-a-site-into-a-memory). Config embeds
// them, so their JSON keys sit at the top level of the config file.
type CrawlSettings struct {
	// MemoryCrawlTimeout bounds one crawl into a memory; the pages taken
	// by then stay.
	MemoryCrawlTimeout Duration `json:"memory_crawl_timeout"`
}
