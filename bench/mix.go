package bench

import (
	"math"
	"math/rand/v2"
)

// MixOptions configures Mix. The zero value is the documented default mix.
type MixOptions struct {
	Seed uint64
	// Records is the number of tool results (default 3000).
	Records int
	// MinSize, MedianSize and MaxSize bound the result sizes in bytes
	// (defaults 1 KiB, 8 KiB, 64 KiB): sizes are log-normal around the
	// median, clamped to [MinSize, MaxSize].
	MinSize, MedianSize, MaxSize int
	// Secrets, Tags and Invisible are planted per record, each with the
	// probability PlantEvery (default: one record in four carries one of
	// each; the rest are clean, as most real tool output is).
	PlantEvery int
}

// Mix returns a realistic mix of tool results: most are 1-64 KiB with a
// median near 8 KiB; the shapes rotate, so one result in five (the code
// searches) carries an outputSchema and structuredContent, and one in six
// is an image result. The same options give the same documents.
func Mix(o MixOptions) []Doc {
	if o.Records <= 0 {
		o.Records = 3000
	}
	if o.MinSize <= 0 {
		o.MinSize = 1 << 10
	}
	if o.MedianSize <= 0 {
		o.MedianSize = 8 << 10
	}
	if o.MaxSize <= 0 {
		o.MaxSize = 64 << 10
	}
	if o.PlantEvery <= 0 {
		o.PlantEvery = 4
	}
	// Text shapes rotate; an image result replaces every sixth record.
	text := []Shape{FileRead, CodeSearch, LogTail, WebPage, APIResponse}
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x51ed270b27c4a1e3))
	// sigma 1.0 puts about 98% of the log-normal between median/8 and 8*median.
	mu := math.Log(float64(o.MedianSize))
	docs := make([]Doc, o.Records)
	for i := range docs {
		size := int(math.Exp(mu + rng.NormFloat64()))
		size = min(max(size, o.MinSize), o.MaxSize)
		sh := text[i%len(text)]
		if i%6 == 5 {
			sh = Image
		}
		opt := Options{Seed: o.Seed*1_000_003 + uint64(i) + 1, Shape: sh, Size: size}
		if i%o.PlantEvery == 0 {
			opt.Secrets, opt.Tags, opt.Invisible = 1, 1, 1
		}
		d := Generate(opt)
		// Generate's sizes are approximate per shape (a code search comes
		// out smaller, an API response larger): one correction brings the
		// document near the size drawn.
		if n := len(d.JSON); n > size+size/8 || n < size-size/8 {
			opt.Size = max(64, size*size/n)
			d = Generate(opt)
		}
		docs[i] = d
	}
	return docs
}
