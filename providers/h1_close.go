package providers

// CloseIdleConnections closes the idle keep-alive connections of the
// registry's upstream calls, those of net/http's transport and those of
// the lean HTTP/1.1 client (docs/providers.md#upstream-http-client). The server
// calls it on shutdown; calls still in flight keep their connections,
// which close when their answers end.
func (r *Registry) CloseIdleConnections() {
	r.upstream.client.CloseIdleConnections()
	r.upstream.lean.closeIdle()
}
