package crawl

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

const articleHTML = `<!doctype html>
<html><head><title>T</title><style>body{color:red}</style><script>var secret = 1;</script>
<base href="/docs/"></head>
<body>
<nav><a href="/menu">Menu item</a></nav>
<header><h1>Site   title</h1></header>
<main>
  <h2>Getting <em>started</em></h2>
  <p>Hearth is a   <strong>self-hosted</strong>
     server. See <a href="guide#install">the guide</a> or <a href="https://go.dev/">Go</a>.</p>
  <ul><li>one</li><li>two<ul><li>nested</li></ul></li></ul>
  <ol><li>first</li><li>second</li></ol>
  <blockquote><p>Quoted words.</p></blockquote>
  <pre><code>go build ./...
./hearth serve</code></pre>
  <p>Inline <code>make   lint</code> and a line<br>break.</p>
  <table><tr><th>Name</th><th>Value</th></tr><tr><td>a|b</td><td>1</td></tr></table>
  <div hidden>hidden text</div>
  <button>Click me</button>
  <img src="x.png" alt="decoration">
  <noscript>enable js</noscript>
</main>
<footer>Copyright footer <a href="/legal">Legal</a></footer>
<script>alert("x")</script>
</body></html>`

func TestExtractMarkdown(t *testing.T) {
	base, _ := url.Parse("https://example.com/start")
	p, err := extractHTML(strings.NewReader(articleHTML), base)
	if err != nil {
		t.Fatal(err)
	}
	want := "## Getting _started_\n\n" +
		"Hearth is a **self-hosted** server. See [the guide](https://example.com/docs/guide) or [Go](https://go.dev/).\n\n" +
		"- one\n\n- two\n\n  - nested\n\n" +
		"1. first\n\n2. second\n\n" +
		"> Quoted words.\n\n" +
		"```\ngo build ./...\n./hearth serve\n```\n\n" +
		"Inline `make lint` and a line  \nbreak.\n\n" +
		"| Name | Value |\n| --- | --- |\n| a\\|b | 1 |"
	if p.markdown != want {
		t.Fatalf("markdown:\n%s\n--- want:\n%s", p.markdown, want)
	}
	// Links come from the whole document (nav and footer too), resolved
	// against <base href>, fragments dropped, each once.
	wantLinks := []string{"https://example.com/menu", "https://example.com/docs/guide", "https://go.dev/", "https://example.com/legal"}
	if !reflect.DeepEqual(p.links, wantLinks) {
		t.Fatalf("links %v", p.links)
	}
}

func TestExtractFallsBackToBody(t *testing.T) {
	base, _ := url.Parse("http://h/")
	p, err := extractHTML(strings.NewReader(`<html><head><meta name="robots" content="noindex, nofollow"></head><body><div>Plain <span>body</span> text</div><article>one</article><article>two</article></body></html>`), base)
	if err != nil {
		t.Fatal(err)
	}
	if p.markdown != "Plain body text\n\none\n\ntwo" || !p.noindex || !p.nofollow {
		t.Fatalf("%q noindex=%v nofollow=%v", p.markdown, p.noindex, p.nofollow)
	}
	p, _ = extractHTML(strings.NewReader(`<body><nav>menu</nav><article><h1>Only <div>article</div></h1><p>text</p></article><aside>side</aside></body>`), base)
	if p.markdown != "# Only article\n\ntext" {
		t.Fatalf("single article: %q", p.markdown)
	}
}

func TestExtractLinksFilter(t *testing.T) {
	base, _ := url.Parse("https://example.com/a/b")
	p, _ := extractHTML(strings.NewReader(`<body>
		<a href="#top">top</a><a href="mailto:x@y">mail</a><a href="javascript:void(0)">js</a>
		<a href="c">rel</a><a href="c#x">dup</a><a href="//cdn.example/z">proto-rel</a>
		<a href="https://u:p@example.com/">creds</a><a href="/nf" rel="nofollow">nf</a></body>`), base)
	want := []string{"https://example.com/a/c", "https://cdn.example/z"}
	if !reflect.DeepEqual(p.links, want) {
		t.Fatalf("links %v", p.links)
	}
}
