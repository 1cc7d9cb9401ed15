package model

import "testing"

func TestWorkloadOf(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"deployment train-ticket", "ts-order-service-5d8f7c9b4-x2kq9", "ts-order-service"},
		{"deployment boutique", "frontend-579b9bff58-t2dbm", "frontend"},
		{"deployment 9-char hash", "currencyservice-cf787dd48-vpjrd", "currencyservice"},
		{"deployment 10-char hash", "productcatalogservice-668d5f85fb-wckp8", "productcatalogservice"},
		{"statefulset", "vllm-0", "vllm"},
		{"statefulset multi-digit", "redis-cluster-12", "redis-cluster"},
		{"daemonset", "dcgm-exporter-x7k2p", "dcgm-exporter"},
		{"replicaset", "frontend-579b9bff58", "frontend"},
		{"service name kept", "user-service", "user-service"},
		{"word suffix kept", "redis-cache", "redis-cache"},
		{"five-letter word with vowel kept", "web-stats", "web-stats"},
		{"model-like suffix kept", "vllm-llama-7b", "vllm-llama-7b"},
		{"plain name", "frontend", "frontend"},
		{"empty", "", ""},
		{"trailing dash", "frontend-", "frontend-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := WorkloadOf(tt.in); got != tt.want {
				t.Errorf("WorkloadOf(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNormalizeHost(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"ip and port", "10.0.0.7:9100", "10.0.0.7"},
		{"url", "http://Node-1.example:9400/metrics", "node-1.example"},
		{"bracketed ipv6", "[::1]:9400", "::1"},
		{"bare ipv6 kept", "fe80::1", "fe80::1"},
		{"plain host", "33.33.33.115", "33.33.33.115"},
		{"non-numeric port kept", "host:abc", "host:abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NormalizeHost(tt.in); got != tt.want {
				t.Errorf("NormalizeHost(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
