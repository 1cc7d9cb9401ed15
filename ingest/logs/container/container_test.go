package container

import (
	"strings"
	"testing"

	"github.com/pipeline-analyze/pipeline-analyze/ingest"
)

func TestEntityFromPath(t *testing.T) {
	for _, tc := range []struct {
		path string
		want ingest.LogStream
	}{
		{"/var/log/pods/shop_cart-7d4b9c8f6-x2kq9_0f1e2d3c/cart/0.log", ingest.LogStream{Namespace: "shop", Pod: "cart-7d4b9c8f6-x2kq9", Container: "cart", EntityFrom: "path"}},
		{"/var/log/containers/cart-7d4b9c8f6-x2kq9_shop_cart-" + strings.Repeat("ab", 32) + ".log", ingest.LogStream{Pod: "cart-7d4b9c8f6-x2kq9", Namespace: "shop", Container: "cart", EntityFrom: "path"}},
		{"logs/shop_cart-7d4b9c8f6-x2kq9_istio-proxy.log", ingest.LogStream{Namespace: "shop", Pod: "cart-7d4b9c8f6-x2kq9", Container: "istio-proxy", EntityFrom: "file name"}},
		{"incident/cart-7d4b9c8f6-x2kq9.log.gz", ingest.LogStream{Pod: "cart-7d4b9c8f6-x2kq9", EntityFrom: "file name"}},
		{"incident/checkout.log", ingest.LogStream{Service: "checkout", EntityFrom: "file name"}},
		{"/var/lib/docker/containers/x/" + strings.Repeat("ab", 32) + "-json.log", ingest.LogStream{}},
		{"<stdin>", ingest.LogStream{}},
	} {
		if got := entityFromPath(tc.path); got != tc.want {
			t.Errorf("entityFromPath(%q) = %+v, want %+v", tc.path, got, tc.want)
		}
	}
}
