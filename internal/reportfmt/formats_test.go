package reportfmt

import "testing"

func TestFormatOfFile(t *testing.T) {
	for name, want := range map[string]string{"card.HTML": "html", "a/b/ticket.md": "markdown", "x.markdown": "markdown",
		"out.json": "json", "r.txt": "text", "r.text": "text", "page.htm": "html", "data.csv": "", "noext": ""} {
		got, ok := FormatOfFile(name)
		if got != want || ok != (want != "") {
			t.Errorf("FormatOfFile(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
	for format, want := range map[string]string{"text": ".txt", "json": ".json", "markdown": ".md", "html": ".html", "pdf": ""} {
		if got := Ext(format); got != want {
			t.Errorf("Ext(%q) = %q, want %q", format, got, want)
		}
		if want != "" {
			if f, _ := FormatOfFile("x" + want); f != format {
				t.Errorf("FormatOfFile(x%s) = %q, want %q back", want, f, format)
			}
		}
	}
}
