package config

import (
	"testing"
	"time"

	"github.com/hearth-dev/hearth/engine"
	"github.com/hearth-dev/hearth/server"
)

func TestRequestLimitsConfig(t *testing.T) {
	bad := map[string]envCase{
		"negative key cap":    {map[string]string{"HEARTH_MAX_INFLIGHT_PER_KEY": "-1"}, "HEARTH_MAX_INFLIGHT_PER_KEY"},
		"word ip cap":         {map[string]string{"HEARTH_MAX_INFLIGHT_PER_IP": "lots"}, "HEARTH_MAX_INFLIGHT_PER_IP"},
		"body timeout":        {map[string]string{"HEARTH_BODY_TIMEOUT": "60"}, "HEARTH_BODY_TIMEOUT"},
		"tiny upload limit":   {map[string]string{"HEARTH_UPLOAD_BODY_TIMEOUT": "10ms"}, "HEARTH_UPLOAD_BODY_TIMEOUT"},
		"one message":         {map[string]string{"HEARTH_THREAD_MAX_MESSAGES": "1"}, "HEARTH_THREAD_MAX_MESSAGES"},
		"tiny message":        {map[string]string{"HEARTH_THREAD_MAX_MESSAGE_BYTES": "10"}, "HEARTH_THREAD_MAX_MESSAGE_BYTES"},
		"history < message":   {map[string]string{"HEARTH_THREAD_MAX_MESSAGE_BYTES": "4096", "HEARTH_THREAD_HISTORY_BYTES": "2048"}, "must be at least HEARTH_THREAD_MAX_MESSAGE_BYTES"},
		"negative history":    {map[string]string{"HEARTH_THREAD_HISTORY_BYTES": "-1"}, "HEARTH_THREAD_HISTORY_BYTES"},
		"huge thread length":  {map[string]string{"HEARTH_THREAD_MAX_MESSAGES": "1000000000"}, "HEARTH_THREAD_MAX_MESSAGES"},
		"negative queue":      {map[string]string{"HEARTH_MAX_QUEUED": "-1"}, "HEARTH_MAX_QUEUED"},
		"queue wait unit":     {map[string]string{"HEARTH_QUEUE_TIMEOUT": "10"}, "HEARTH_QUEUE_TIMEOUT"},
		"queue wait too long": {map[string]string{"HEARTH_QUEUE_TIMEOUT": "2h"}, "HEARTH_QUEUE_TIMEOUT"},
	}
	expectRefused(t, bad)

	cfg, _, err := Load("serve", []string{"-thread-history-bytes", "4096"}, envMap(map[string]string{
		"HEARTH_MAX_INFLIGHT_PER_KEY": "0", "HEARTH_MAX_INFLIGHT_PER_IP": "7", "HEARTH_BODY_TIMEOUT": "30s",
		"HEARTH_UPLOAD_BODY_TIMEOUT": "2m", "HEARTH_THREAD_MAX_MESSAGES": "50", "HEARTH_THREAD_MAX_MESSAGE_BYTES": "2048",
		"HEARTH_MAX_QUEUED": "0", "HEARTH_QUEUE_TIMEOUT": "250ms", "HEARTH_CPU_TURNS": "2",
	}))
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil {
		t.Fatal(err)
	}
	var sc server.Config
	cfg.applyRequestLimits(&sc)
	if sc.MaxInFlightPerKey != 0 || sc.MaxInFlightPerIP != 7 || sc.BodyTimeout != 30*time.Second || sc.UploadBodyTimeout != 2*time.Minute ||
		sc.MaxQueued != -1 || sc.QueueTimeout != 250*time.Millisecond || sc.TurnsPerCPU != 2 {
		t.Fatalf("server limits %+v", sc)
	}
	if got := cfg.threadLimits(); got != (engine.ThreadLimits{MaxMessages: 50, MaxMessageBytes: 2048, HistoryBytes: 4096}) {
		t.Fatalf("thread limits %+v", got)
	}
	def := Default()
	if err := def.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	if def.threadLimits() != (engine.ThreadLimits{MaxMessages: engine.DefaultThreadMaxMessages,
		MaxMessageBytes: engine.DefaultThreadMaxMessageBytes, HistoryBytes: engine.DefaultThreadHistoryBytes}) {
		t.Fatalf("default thread limits %+v", def.threadLimits())
	}
	// By default no fixed cap: keys share the slots, and requests wait;
	// 2 CPU turns per CPU.
	sc = server.Config{}
	def.applyRequestLimits(&sc)
	if sc.MaxInFlightPerKey != 0 || sc.MaxInFlightPerIP != 0 || sc.MaxQueued != server.DefaultMaxQueued || sc.QueueTimeout != server.DefaultQueueTimeout || sc.TurnsPerCPU != server.DefaultTurnsPerCPU {
		t.Fatalf("default server limits %+v", sc)
	}
	// HEARTH_CPU_TURNS=0 turns them off.
	off, _, err := Load("serve", nil, envMap(map[string]string{"HEARTH_CPU_TURNS": "0"}))
	if err != nil {
		t.Fatal(err)
	}
	sc = server.Config{}
	off.applyRequestLimits(&sc)
	if sc.TurnsPerCPU != -1 {
		t.Fatalf("HEARTH_CPU_TURNS=0: TurnsPerCPU %d, want -1 (off)", sc.TurnsPerCPU)
	}
}
