package config

import (
	"bytes"
	"fmt"
	"strings"
)

// docHeader opens docs/configuration.md.
const docHeader = `# Configuration reference

<!-- Generated from the option table (server/app/config/options.go) by
"make config-docs"; edit the table, not this file. A test fails when they differ. -->

Every setting of ` + "`hearth serve`" + `, grouped by area. Each is read from three places,
in this order, each overriding the one before:

1. an optional JSON config file, named by ` + "`-config`" + ` or ` + "`HEARTH_CONFIG`" + `: one object
   whose keys are the "file key" column (the flag name with underscores), such as
   ` + "`{\"addr\": \":9000\", \"data\": \"/var/lib/hearth\", \"public_url\": \"https://hearth.example\"}`" + `;
   an unknown key is an error;
2. the ` + "`HEARTH_*`" + ` environment variables (an empty one counts as unset);
3. the command-line flags of ` + "`hearth serve`" + `.

Every value is parsed by the type of its row as it is read, then checked against the
row's range or values; every problem is reported before the server starts, naming the
setting as you gave it (environment variable, flag or file key), the rule and the value,
such as ` + "`HEARTH_CACHE_TTL: must be a duration between 1s and 365d, got \"5x\"`" + `.
Booleans are ` + "`true`" + ` or ` + "`false`" + `; durations are Go durations (` + "`90s`" + `, ` + "`2m`" + `,
` + "`1h30m`" + `) or whole days (` + "`7d`" + `), strings in the config file, where numbers and
booleans may be JSON literals or strings; an enum accepts only its listed values (in any
case). An empty value (a flag or file key set to "") means the default, except for text
settings. Checks that span several settings (such as ` + "`HEARTH_CACHE=semantic`" + ` needing
` + "`HEARTH_CACHE_EMBEDDING_MODEL`" + `) run after all three are read. ` + "`hearth serve -h`" + ` lists the flags with their
defaults and environment variables; ` + "`hearth serve -config-dump`" + ` prints the effective
settings after the file, the environment and the flags, with secrets (API keys, tokens,
passwords in URLs, the admin key) masked, and exits.

` + "`SIGINT`/`SIGTERM`" + ` stop accepting connections, drain in-flight requests (30 s at most)
and close the database cleanly.
`

// Markdown renders docs/configuration.md from the option table.
func Markdown() []byte {
	var b bytes.Buffer
	b.WriteString(docHeader)
	c := Default()
	keys := fileKeys(&c)
	group := ""
	for _, v := range c.vars() {
		if v.group != group {
			group = v.group
			fmt.Fprintf(&b, "\n## %s\n\n| setting | flag | file key | default | type | meaning |\n|---|---|---|---|---|---|\n", group)
		}
		flag, key := "–", "–"
		if v.flag != "" {
			flag = "`-" + v.flag + "`"
		}
		if k := keys[v.field()]; k != "" {
			key = "`" + k + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", v.env, flag, key, v.defaultDoc(), v.typeDoc(), v.docText())
	}
	return b.Bytes()
}

// defaultDoc is the default column: defDoc, else the value in Default.
func (v configVar) defaultDoc() string {
	if v.defDoc != "" {
		return v.defDoc
	}
	if def, ok := v.value(); ok && def != "" {
		return "`" + def + "`" + bytesNote(v)
	}
	return "–"
}

// typeDoc is the type column: the row's rule, else its kind.
func (v configVar) typeDoc() string {
	switch {
	case v.rule != nil && v.rule.values != nil:
		shown := make([]string, 0, len(v.rule.values))
		for _, s := range v.rule.values {
			if s != "" {
				shown = append(shown, "`"+s+"`")
			}
		}
		return "one of " + strings.Join(shown, ", ")
	case v.rule != nil:
		return v.rule.text
	case v.bl != nil:
		return "`true` or `false`"
	}
	return v.kind()
}

// docText is the meaning column: doc, else the usage line.
func (v configVar) docText() string {
	if v.doc != "" {
		return v.doc
	}
	return v.usage
}

// bytesNote spells a size in bytes as a whole number of KiB, MiB or GiB.
func bytesNote(v configVar) string {
	n := v.num
	if n == nil || *n < 1<<10 || !strings.Contains(v.env, "BYTES") && !strings.HasSuffix(v.env, "_LIMIT") && !strings.HasSuffix(v.env, "_OUTPUT") {
		return ""
	}
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if *n%u.size == 0 {
			return fmt.Sprintf(" (%d %s)", *n/u.size, u.name)
		}
	}
	return ""
}
