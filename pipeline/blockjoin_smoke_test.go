package pipeline

import "testing"

func TestBlockJoinSmoke(t *testing.T) {
	for _, in := range []string{
		`{"content":[{"type":"text","text":"token ghp_TGiu7lurJrZC4BWz"},{"type":"text","text":"bQW98Ro4MqqTgK0DrZb1 after"}]}`,
		`{"content":[{"type":"text","text":"token ghp_TGiu7lurJrZC4BWz"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},{"type":"text","text":"bQW98Ro4MqqTgK0DrZb1 after"}]}`,
		`{"content":[{"text":"token ghp_TGiu7lurJrZC4BWz","type":"text","annotations":{"priority":1}},{"text":"bQW98Ro4MqqTgK0DrZb1 after","type":"text"}]}`,
		`{"content":[{"text":"token ghp_TGiu7lurJ","type":"text"},{"text":"rZC4BWzbQW9","type":"text"},{"type":"text","text":"8Ro4MqqTgK0DrZb1 after"}]}`,
	} {
		out, ev := run(t, nil, toolInfo, in)
		t.Logf("%s\n%+v", out, ev.Findings)
	}
}
