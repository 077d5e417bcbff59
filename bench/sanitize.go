package bench

// SanitizeCorpus is one kind of tool output that pipeline's
// BenchmarkSanitize measures; bench/cgprobe runs the same documents.
type SanitizeCorpus struct {
	Name    string
	Options Options
	// Dense plants a credential every 4 KiB and a tag and an invisible
	// run every 8 KiB (one planted item per 2 KiB).
	Dense bool
}

// SanitizeCorpora are BenchmarkSanitize's corpora: mostly-ASCII tool
// outputs (code, the same code as Go's encoding/json writes it with <, >
// and & escaped, logs, JSON in text, structured search results), a
// non-ASCII web page (also as Python's json.dumps writes it, every
// non-ASCII character escaped), and a secrets-dense log.
var SanitizeCorpora = []SanitizeCorpus{
	{Name: "Code", Options: Options{Seed: 1, Shape: FileRead, Escaping: EscapeMinimal}},
	{Name: "CodeGoJSON", Options: Options{Seed: 1, Shape: FileRead, Escaping: EscapeHTML}},
	{Name: "Logs", Options: Options{Seed: 2, Shape: LogTail, Escaping: EscapeMinimal}},
	{Name: "JSONInText", Options: Options{Seed: 3, Shape: APIResponse, Escaping: EscapeMinimal}},
	{Name: "Search", Options: Options{Seed: 4, Shape: CodeSearch, Escaping: EscapeMinimal}},
	{Name: "WebPage", Options: Options{Seed: 5, Shape: WebPage, Escaping: EscapeMinimal}},
	{Name: "WebPageASCII", Options: Options{Seed: 5, Shape: WebPage, Escaping: EscapeASCII}},
	{Name: "SecretsDense", Options: Options{Seed: 6, Shape: LogTail, Escaping: EscapeMinimal}, Dense: true},
}

// Doc generates the corpus's document at about size bytes.
func (c SanitizeCorpus) Doc(size int) []byte {
	o := c.Options
	o.Size = size
	if c.Dense {
		o.Secrets, o.Tags, o.Invisible = size/4096+1, size/8192+1, size/8192+1
	}
	return Generate(o).JSON
}
