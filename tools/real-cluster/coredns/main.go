// Test infrastructure, not product: a CoreDNS with only the plugins the real-cluster node needs
// (cluster names from the API server, health and readiness), so it builds in minutes, not the
// full distribution's tens of minutes with every cloud SDK.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
)

// The order plugins see a query in: the same relative order as CoreDNS's own plugin.cfg.
func init() {
	dnsserver.Directives = []string{
		"bind", "ready", "health", "errors", "log", "loadbalance", "cache", "kubernetes",
	}
}

func main() { coremain.Run() }
